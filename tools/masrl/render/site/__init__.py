"""The awesome-list site: pages generated from the corpus, built with mkdocs-material in strict mode.

Entry points: ``build_site`` (what `masrl site build` runs) and ``serve_site`` (`masrl site serve`).
"""

from __future__ import annotations

from masrl.render.site.builder import SiteBuild, SitePaths, build_site, default_paths, generate_docs
from masrl.render.site.errors import SiteError

__all__ = ["SiteBuild", "SiteError", "SitePaths", "build_site", "default_paths", "generate_docs"]

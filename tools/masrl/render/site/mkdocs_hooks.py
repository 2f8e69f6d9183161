"""mkdocs hooks of every masrl site build and preview: ``mkdocs_config`` and ``site serve`` name
this file, and mkdocs loads it afresh for each build, so what it does lives in modules loaded once."""

from masrl.render.site.navigation import on_config  # noqa: F401 - the config event
from masrl.render.site.page_memory import on_post_page  # noqa: F401 - memory
from masrl.render.site.raw_html import on_page_content, on_page_markdown  # noqa: F401 - page events
from masrl.render.site.templates import on_env  # noqa: F401 - the env event

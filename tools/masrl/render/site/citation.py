"""CITATION.cff, read once for the site: the survey's preferred citation and where the project
lives. Its ``url`` (the published site) and ``repository-code`` (the repository) are the one place
for those addresses: the sitemap, canonical links and the edit and suggest links come from them.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from masrl.render.site.context import CHECKOUT_ROOT
from masrl.render.site.errors import SiteError
from masrl.render.site.escape import safe_url

CITATION_FILE = "CITATION.cff"


def citation_file(root: Path) -> dict:
    """The project's CITATION.cff (else the masrl checkout's) as a mapping; {} when there is none."""
    import yaml

    for folder in (root, CHECKOUT_ROOT):
        path = folder / CITATION_FILE
        if path.is_file():
            try:
                data = yaml.safe_load(path.read_text(encoding="utf-8"))
            except yaml.YAMLError as exc:
                raise SiteError(f"{path}: not valid YAML ({exc}); fix CITATION.cff") from exc
            return data if isinstance(data, dict) else {}
    return {}


@dataclass(frozen=True)
class ProjectAddresses:
    site_url: str | None  # the published site, ending in "/"
    repository: str | None  # e.g. https://github.com/owner/name, without a trailing "/"


def project_addresses(root: Path) -> ProjectAddresses:
    """`url` and `repository-code` of CITATION.cff; SiteError naming the file for one that is not
    an http(s) address."""
    data = citation_file(root)
    found = {}
    for key in ("url", "repository-code"):
        value = data.get(key)
        if value is None:
            found[key] = None
            continue
        url = safe_url(value)
        if not url or not url.startswith(("https://", "http://")):
            raise SiteError(
                f"{CITATION_FILE}: {key} {value!r} is not an http(s) address; fix it there"
            )
        found[key] = url
    site = found["url"]
    repository = found["repository-code"]
    return ProjectAddresses(
        site.rstrip("/") + "/" if site else None, repository.rstrip("/") if repository else None
    )

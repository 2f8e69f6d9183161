"""CITATION.cff, read once for the site: the survey's preferred citation and where the project
lives. Its ``url`` (the published site) and ``repository-code`` (the repository) are the one place
for those addresses: the sitemap, canonical links and the edit and suggest links come from them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from masrl.errors import UsageError
from masrl.render.site.context import CHECKOUT_ROOT
from masrl.render.site.errors import SiteError

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


# A published address goes into every page (canonical link, sitemap, edit links) through the
# theme's templates, which do not escape it: so it must be a plain address, made only of
# characters that mean nothing to HTML or to a Markdown link (no quotes, angle brackets,
# ampersands, spaces, brackets or parentheses).
_HOST = re.compile(r"[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?|\[[0-9A-Fa-f:.]+\]")
_PATH = re.compile(r"([A-Za-z0-9._~!$+,;=:@/-]|%[0-9A-Fa-f]{2})*")


def address_problem(value: object) -> str | None:
    """Why ``value`` is not a plain http(s) address of a site, or None when it is one."""
    if not isinstance(value, str):
        return f"it is a {type(value).__name__}, not text"
    try:
        parts = urlsplit(value)
        port = parts.port
    except ValueError as exc:
        return f"it cannot be read as an address ({exc})"
    if parts.scheme.lower() not in ("http", "https"):
        return "it is not an http(s) address"
    host = parts.netloc.rsplit(":", 1)[0] if port is not None else parts.netloc
    if not _HOST.fullmatch(host):
        return "its host name is not plain ASCII letters, digits, dots and dashes"
    if parts.query or parts.fragment or "?" in value or "#" in value:
        return "a site address has no query (?) or fragment (#)"
    if not _PATH.fullmatch(parts.path):
        return (
            "its path holds a character that must be percent-encoded (a quote, <, >, &, a space...)"
        )
    return None


def checked_site_url(value: str, setting: str) -> str:
    """``value`` (the site address a user gave as ``setting``) ending in "/", or a UsageError
    naming the setting and the fix."""
    problem = address_problem(value)
    if problem:
        raise UsageError(
            f"{setting} {value!r} is not a plain web address: {problem}",
            hint="give the published address, e.g. https://owner.github.io/name/",
        )
    return value.rstrip("/") + "/"


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
        problem = address_problem(value)
        if problem:
            raise SiteError(
                f"{CITATION_FILE}: {key} {value!r} is not a plain web address: {problem}; "
                "fix it there"
            )
        found[key] = value
    site = found["url"]
    repository = found["repository-code"]
    return ProjectAddresses(
        site.rstrip("/") + "/" if site else None, repository.rstrip("/") if repository else None
    )

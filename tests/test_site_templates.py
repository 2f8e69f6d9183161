"""The parts of a page rendered once per folder (render/site/templates.py) are the parts the page
would have had: a site built with every part rendered afresh is byte for byte the same."""

from __future__ import annotations

import re
from pathlib import Path

import material
import pytest
from conftest import REPO_ROOT
from masrl.render.site import templates
from masrl.render.site.builder import build_site
from test_site import built_site

# The sample site is the one the browser tests build: in their group it is built once per run.
pytestmark = pytest.mark.xdist_group("browser")

OVERRIDES = REPO_ROOT / "site" / "overrides"
MATERIAL = Path(material.__file__).parent / "templates"
# The wrapping that keeps a part: the part is rendered only when no page of its folder has been.
_OPENING = re.compile(
    r'\{% set (masrl_\w+) = masrl_kept\(page, nav, "[\w-]+"\) %\}'
    r"\{% if \1 is none %\}\{% set \1 %\}"
)
_CLOSING = re.compile(
    r'\{% endset %\}\{% set (masrl_\w+) = masrl_keep\(page, nav, "[\w-]+", \1\) %\}'
    r"\{% endif %\}\{\{ \1 \}\}"
)


def _without_first_comment(text: str) -> str:
    assert text.startswith("{#-")
    return text.split("-#}", 1)[1]


def test_copied_header_is_materials_with_only_the_kept_wrappings():
    ours = (OVERRIDES / "partials" / "header.html").read_text(encoding="utf-8")
    theirs = (MATERIAL / "partials" / "header.html").read_text(encoding="utf-8")
    assert len(_OPENING.findall(ours)) == len(_CLOSING.findall(ours)) == 2
    unwrapped = _CLOSING.sub("", _OPENING.sub("", ours))
    # material's file ends with a newline after </header>, which jinja drops: ours has it after
    # the wrapping instead
    assert _without_first_comment(unwrapped) == _without_first_comment(theirs)


class _Page:
    def __init__(self, url: str):
        self.url = url


class _Nav:
    def __init__(self, *urls: str):
        self.pages = [_Page(url) for url in urls]


def test_a_part_is_kept_for_the_pages_of_one_folder_outside_the_menu():
    nav = _Nav("", "entries/", "browse/topology/")
    parts = templates.PartsKept()
    first, second = _Page("entries/alpha2025/"), _Page("entries/beta2024/")
    assert parts.kept(first, nav, "header-start") is None
    assert parts.keep(first, nav, "header-start", "<header>") == "<header>"
    assert parts.kept(second, nav, "header-start") == "<header>"
    assert parts.kept(second, nav, "scripts") is None  # each part by its own name
    # a page of the menu, or of a folder the menu links into, renders its own
    assert parts.kept(_Page("browse/topology/"), nav, "header-start") is None
    assert parts.kept(_Page("browse/other/"), nav, "header-start") is None


def test_site_with_every_part_rendered_afresh_is_the_same(tmp_path_factory, monkeypatch):
    site = built_site("sample", tmp_path_factory)
    asked: list[str] = []

    def never_kept(self, page, nav, part):
        asked.append(part)

    monkeypatch.setattr(templates.PartsKept, "kept", never_kept)
    scratch = tmp_path_factory.mktemp("site-unshared")
    build_site(
        site.project, output=scratch / "site", staging=scratch / "site-src", site_url=site.url
    )
    kept = {"menu", "tabs", "footer", "config", "styles", "scripts", "header-start", "header-end"}
    assert set(asked) == kept
    shared = sorted(p.relative_to(site.folder) for p in site.folder.rglob("*") if p.is_file())
    fresh = sorted(p.relative_to(scratch / "site") for p in (scratch / "site").rglob("*"))
    fresh = [p for p in fresh if (scratch / "site" / p).is_file()]
    assert shared == fresh
    entry_pages = 0
    for path in shared:
        assert (site.folder / path).read_bytes() == (scratch / "site" / path).read_bytes(), path
        entry_pages += path.parts[0] == "entries" and path.name == "index.html"
    assert entry_pages > 1  # pages that share their parts

"""The parts of a page rendered once per folder, and the tables of contents once per distinct one
(render/site/templates.py), are the parts the page would have had: a site built with every part
rendered afresh is byte for byte the same."""

from __future__ import annotations

import re
from pathlib import Path

import material
import pytest
from conftest import REPO_ROOT
from masrl.render.site import templates
from masrl.render.site.builder import SitePaths, run_mkdocs, site_source_dir
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


@pytest.mark.parametrize(("partial", "wrappings"), [("header.html", 2), ("top.html", 1)])
def test_copied_partial_is_materials_with_only_the_kept_wrappings(partial, wrappings):
    ours = (OVERRIDES / "partials" / partial).read_text(encoding="utf-8")
    theirs = (MATERIAL / "partials" / partial).read_text(encoding="utf-8")
    assert len(_OPENING.findall(ours)) == len(_CLOSING.findall(ours)) == wrappings
    unwrapped = _CLOSING.sub("", _OPENING.sub("", ours))
    assert _without_first_comment(unwrapped) == _without_first_comment(theirs)


class _Page:
    def __init__(self, url: str, toc=()):
        self.url, self.toc = url, list(toc)


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


def _heading(title: str, level: int, *children, **more):
    from mkdocs.structure.toc import AnchorLink

    item = AnchorLink(title, title.lower().replace(" ", "-"), level)
    item.children.extend(children)
    for name, value in more.items():
        setattr(item, name, value)
    return item


def test_a_table_of_contents_is_kept_for_the_pages_showing_the_same_one():
    parts = templates.PartsKept()
    shared = [_heading("Tags", 2), _heading("Links", 2, _heading("More", 3))]
    first = _Page("entries/alpha2025/", [_heading("Alpha", 1, *shared)])
    assert parts.kept_toc(first) is None
    assert parts.keep_toc(first, "<nav>") == "<nav>"
    # toc.html shows the items under a level-1 title, whatever the title
    assert parts.kept_toc(_Page("x/", [_heading("Beta", 1, *shared)])) == "<nav>"
    others = [
        [_heading("Beta", 1, _heading("Tags", 2))],
        [_heading("Beta", 2, *shared)],  # no level-1 title: every item shown
        [_heading("Beta", 1, _heading("Tags", 2, typeset={"title": "T"}), shared[1])],
        [],
    ]
    for toc in others:
        assert parts.kept_toc(_Page("x/", toc)) is None
    assert templates._toc_key(_Page("x/", others[2])) is None  # rendered each time


def test_site_with_every_part_rendered_afresh_is_the_same(tmp_path_factory, monkeypatch):
    site = built_site("sample", tmp_path_factory)
    asked: list[str] = []

    def never_kept(self, page, nav, part):
        asked.append(part)

    monkeypatch.setattr(templates.PartsKept, "kept", never_kept)
    monkeypatch.setattr(templates.PartsKept, "kept_toc", lambda self, page: asked.append("toc"))
    scratch = tmp_path_factory.mktemp("site-unshared")
    # mkdocs alone, on the docs folder the shared build generated: the parts are mkdocs' work
    paths = SitePaths(site_source_dir(site.project), site.docs, scratch / "site")
    run_mkdocs(paths, site_url=site.url)
    kept = {"menu", "tabs", "footer", "config", "styles", "libs", "fonts", "analytics"}
    kept |= {"scripts", "header-start", "header-end", "top", "toc"}
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

"""Theme templates compiled once per process, and the parts of a page that are the same for the
pages outside the navigation rendered once per folder.

``site serve`` rebuilds and the test suite build the site many times from the same templates,
and compiling them is a quarter of a small site's build. mkdocs loads its hooks file
(``mkdocs_hooks.py``) afresh for every build, so the compiled code is kept here, in a module
loaded once; jinja2 checks each template's source checksum, so an edited template is compiled
again.

The menu (mkdocs-material's partials/nav.html) was most of the rendering of a page, and the
entry pages, outside the navigation, all show the same one: nothing in it is theirs, and its
links are relative to the page's folder. The same holds for the tabs, the footer (a page outside
the navigation has no previous or next page), the style sheets, libraries, fonts, analytics and
scripts, the theme's configuration script (the base address and the translations), the header
around the page's title and the back-to-top button. ``site/overrides/main.html``,
``partials/header.html`` and ``partials/top.html`` ask ``PartsKept`` for such a part of such a
page and render it only when no page of the same folder has. The table of contents shows the
page's headings and nothing else of it: it is rendered once per distinct list of them (the entry
pages all show the same few headings under their titles).
``tests/test_site_templates.py`` builds a site with every part rendered afresh and finds it the
same.
"""

from __future__ import annotations

import posixpath

import jinja2

# {jinja2 bucket key: compiled template}
COMPILED_TEMPLATES: dict[str, bytes] = {}


class KeptForTheProcess(jinja2.BytecodeCache):
    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        code = COMPILED_TEMPLATES.get(bucket.key)
        if code is not None:
            bucket.bytecode_from_string(code)

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        COMPILED_TEMPLATES[bucket.key] = bucket.bytecode_to_string()


class PartsKept:
    """The parts of the pages outside the navigation, by part and by the folder of the pages."""

    def __init__(self) -> None:
        self.parts: dict[tuple[str, str], str] = {}
        self.menu_urls: frozenset[str] | None = None
        # every "/"-ended start of "/" + a menu URL: the folders the menu links into
        self.menu_folders: frozenset[str] = frozenset()
        self.folders: dict[str, str | None] = {}  # by page URL: each page asks for several parts
        self.tocs: dict[tuple, str] = {}  # the table of contents, by what it shows

    def _folder(self, page, nav) -> str | None:
        if page is None or nav is None or getattr(page, "url", None) is None:
            return None
        if page.url not in self.folders:
            self.folders[page.url] = self._page_folder(page, nav)
        return self.folders[page.url]

    def _page_folder(self, page, nav) -> str | None:
        """The key of a page's parts: the folder holding the page's own folder, for a page outside
        the navigation whose folder holds no page of the menu; else None (rendered each time)."""
        if self.menu_urls is None:
            self.menu_urls = frozenset(p.url for p in nav.pages)
            self.menu_folders = frozenset(
                f"/{url}"[: i + 1]
                for url in self.menu_urls
                for i, c in enumerate(f"/{url}")
                if c == "/"
            )
        if page.url in self.menu_urls:
            return None
        # the folder mkdocs makes the page's links relative to (mkdocs.utils.get_relative_url)
        head, tail = posixpath.split(page.url)
        own = posixpath.dirname(head if "." in tail else page.url)
        if "/" + own + "/" in self.menu_folders:
            return None  # a link into the page's own folder would differ between such pages
        return posixpath.dirname(own)

    def kept(self, page, nav, part: str) -> str | None:
        folder = self._folder(page, nav)
        return None if folder is None else self.parts.get((part, folder))

    def keep(self, page, nav, part: str, text: str) -> str:
        folder = self._folder(page, nav)
        if folder is not None:
            self.parts[(part, folder)] = text
        return text

    def kept_toc(self, page) -> str | None:
        key = _toc_key(page)
        return None if key is None else self.tocs.get(key)

    def keep_toc(self, page, text: str) -> str:
        key = _toc_key(page)
        if key is not None:
            self.tocs[key] = text
        return text


def _toc_key(page) -> tuple | None:
    """What material's partials/toc.html shows of a page's table of contents, the rest of it
    being the same on every page: the items under the page's title when the first item is a
    level-1 heading (as toc.html does), else every item; of each, its link, title and items.
    None (rendered each time) for an item carrying more, such as a typeset title."""
    toc = getattr(page, "toc", None)
    if toc is None:
        return None
    items = list(toc)
    if items and items[0].level == 1:
        shown, key = "under the title", _items_key(items[0].children)
    else:
        shown, key = "all", _items_key(items)
    return None if key is None else (shown, key)


def _items_key(items) -> tuple | None:
    key = []
    for item in items:
        if hasattr(item, "typeset") or type(item.title) is not str:
            return None
        children = _items_key(item.children)
        if children is None:
            return None
        key.append((item.url, item.title, children))
    return tuple(key)


def on_env(env: jinja2.Environment, config, files) -> jinja2.Environment:
    """mkdocs' env event: the theme's environment keeps its compiled templates for the process,
    and a new build starts with no part kept."""
    env.bytecode_cache = KeptForTheProcess()
    parts = PartsKept()
    env.globals["masrl_kept"] = parts.kept
    env.globals["masrl_keep"] = parts.keep
    env.globals["masrl_kept_toc"] = parts.kept_toc
    env.globals["masrl_keep_toc"] = parts.keep_toc
    return env

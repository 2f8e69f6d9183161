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
the navigation has no previous or next page), the style sheets, the scripts, the theme's
configuration script (the base address and the translations) and the header around the page's
title. ``site/overrides/main.html`` and ``partials/header.html`` ask ``PartsKept`` for such a part
of such a page and render it only when no page of the same folder has;
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
        self.folders: dict[str, str | None] = {}  # by page URL: each page asks for several parts

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
        if page.url in self.menu_urls:
            return None
        # the folder mkdocs makes the page's links relative to (mkdocs.utils.get_relative_url)
        head, tail = posixpath.split(page.url)
        own = posixpath.dirname(head if "." in tail else page.url)
        if any(("/" + url).startswith("/" + own + "/") for url in self.menu_urls):
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


def on_env(env: jinja2.Environment, config, files) -> jinja2.Environment:
    """mkdocs' env event: the theme's environment keeps its compiled templates for the process,
    and a new build starts with no part kept."""
    env.bytecode_cache = KeptForTheProcess()
    parts = PartsKept()
    env.globals["masrl_kept"] = parts.kept
    env.globals["masrl_keep"] = parts.keep
    return env

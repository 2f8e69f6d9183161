"""Pages whose body is already the HTML Markdown would make of it (html_body.py) skip Markdown.

mkdocs converts every page with Python-Markdown; for a page whose front matter says
``markdown: false`` (``html_body.HTML_BODY``) the conversion here takes the body as the page's
HTML instead, and gives mkdocs what a conversion gives it: the table of contents (each heading's
id, text and level, nested as toc nests them), the title of a leading h1, the ids the page
defines (for mkdocs' anchor validation) and its links to its own anchors. The body's headings are
read back as ``html_body.Body`` writes them.
"""

from __future__ import annotations

import logging
import re

from markdown.extensions.toc import nest_toc_tokens
from mkdocs.structure.pages import Page
from mkdocs.structure.toc import get_toc

from masrl.render.site.html_body import PERMALINK, is_html_body
from masrl.render.site.raw_html import escaped_anchor_ids

_HEADING = re.compile(
    r'<h([1-6]) id="([^"]*)">(.*?)'
    + re.escape(PERMALINK).replace(re.escape("{id}"), r"\2")
    + r"</h\1>"
)
_SELF_LINK = re.compile(r'<a(?: class="[^"]*")? href="#([^"]*)"')
_MKDOCS_LOG = logging.getLogger("mkdocs.structure.pages")


class HtmlBodyPage(Page):
    """A page that skips Markdown when its body is HTML (every other page renders as before)."""

    def render(self, config, files) -> None:
        if not is_html_body(self):
            return super().render(config, files)
        if self.markdown is None:
            raise RuntimeError("`markdown` field hasn't been set (via `read_source`)")
        content = self.markdown.strip()
        headings = _HEADING.findall(content)
        self.content = content
        self.toc = get_toc(
            nest_toc_tokens(
                [
                    {
                        "level": int(level),
                        "id": anchor,
                        "name": text,
                        "html": text,
                        "data-toc-label": "",
                    }
                    for level, anchor, text in headings
                ]
            )
        )
        self._title_from_render = (
            headings[0][2] if headings and content.startswith("<h1 ") else None
        )
        self.present_anchor_ids = escaped_anchor_ids(content)
        if _MKDOCS_LOG.getEffectiveLevel() > logging.DEBUG:  # as mkdocs' render does
            links = {anchor: f"#{anchor}" for anchor in _SELF_LINK.findall(content)}
            self.links_to_anchors = {self.file: links} if links else {}


def on_pre_page(page, config, files):
    """mkdocs' pre-page event: the page is read and converted as an ``HtmlBodyPage``."""
    if type(page) is Page:
        page.__class__ = HtmlBodyPage
    return page

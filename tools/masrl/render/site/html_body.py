"""A page body written as the HTML Markdown makes of it, without running Markdown.

Entry pages are thousands of pages of one shape: headings, raw HTML blocks, a paragraph, a list,
an admonition and a BibTeX block. Converting them with Python-Markdown and the extensions of
site/mkdocs.yml was the largest single cost of a site build, for output that is simple to write
directly. A ``Body`` takes the page's parts and writes them as Markdown would: heading ids from
the toc extension's own ``slugify`` and ``unique`` (explicit ids reserved first, as toc does),
its permalink, the admonition's markup, the code block from pymdownx.highlight's formatter with
mkdocs.yml's options, one newline between elements and a blank line after each raw HTML block.
``html_pages.py`` hands such a body to mkdocs as the page's HTML, with the table of contents and
anchors a Markdown render gives. tests/test_site_html_body.py proves, for every entry of the real
corpus and for hostile ones, that the body equals what mkdocs' Markdown makes of the same parts
written as Markdown.

Text handed to a part is inline HTML that Markdown writes out as it stands: corpus text escaped
with ``escape.md_text`` (or ``html_text`` inside raw blocks), plain words without Markdown syntax,
and inline HTML tags.
"""

from __future__ import annotations

import functools
import html
import re
from dataclasses import dataclass, field

from markdown.extensions.toc import slugify, unique
from markdown.util import ETX, STX
from pygments import highlight
from pygments.lexers import get_lexer_by_name
from pymdownx.highlight import BlockHtmlFormatter

# The front matter line of a page whose body is HTML to take as it stands (html_pages.py).
HTML_BODY = "markdown: false"
HTML_BODY_KEY = "markdown"


def is_html_body(page) -> bool:
    """Whether a mkdocs page's front matter says its body is HTML already (``HTML_BODY``)."""
    return (page.meta or {}).get(HTML_BODY_KEY) is False


# mkdocs.yml's toc settings (permalink: true; the class and title are toc's defaults).
PERMALINK = '<a class="headerlink" href="#{id}" title="Permanent link">&para;</a>'
SEPARATOR = "-"
TAB_LENGTH = 4  # Markdown's, applied to the whole source before any block is read


@dataclass
class Body:
    """A page body, part by part; ``html()`` writes it."""

    parts: list[tuple] = field(default_factory=list)

    def heading(self, level: int, text: str, anchor: str = "") -> None:
        """A heading; its id is ``anchor`` (``{ #anchor }`` in Markdown) or toc's slug of it."""
        self.parts.append(("heading", level, text, anchor))

    def raw(self, block: str) -> None:
        """Raw HTML at the left margin, between blank lines, which Markdown passes through."""
        self.parts.append(("raw", block))

    def paragraph(self, text: str) -> None:
        self.parts.append(("paragraph", text))

    def bullets(self, items: list[str]) -> None:
        """A list of one-line items (``- item``)."""
        self.parts.append(("bullets", items))

    def admonition(self, kind: str, title: str, text: str) -> None:
        """``!!! kind "title"`` holding one paragraph; the title is plain text."""
        self.parts.append(("admonition", kind, title, text))

    def code(self, text: str, language: str) -> None:
        """A fenced code block, highlighted."""
        self.parts.append(("code", text, language))

    def heading_ids(self) -> list[str]:
        """The headings' ids, as toc gives them: explicit ids first reserved, then each slug
        made unique in page order."""
        used = {part[3] for part in self.parts if part[0] == "heading" and part[3]}
        counters: dict[str, int] = {}
        return [
            part[3] or unique(slugify(html.unescape(part[2]), SEPARATOR), used, counters)
            for part in self.parts
            if part[0] == "heading"
        ]

    def html(self) -> str:
        ids = iter(self.heading_ids())
        out = []
        for kind, *args in self.parts:
            if kind == "heading":
                level, text, _ = args
                anchor = next(ids)
                out.append(
                    f'<h{level} id="{anchor}">{text}{PERMALINK.format(id=anchor)}</h{level}>'
                )
            elif kind == "raw":
                out.append(args[0] + "\n")
            elif kind == "paragraph":
                out.append(f"<p>{args[0]}</p>")
            elif kind == "bullets":
                out.append("<ul>\n" + "".join(f"<li>{item}</li>\n" for item in args[0]) + "</ul>")
            elif kind == "admonition":
                admonition, title, text = args
                paragraph = f"<p>{text}</p>\n" if text else ""
                out.append(
                    f'<div class="admonition {admonition}">\n'
                    f'<p class="admonition-title">{html.escape(title, quote=False)}</p>\n'
                    f"{paragraph}</div>"
                )
            else:
                out.append(highlighted(*args))
        return "\n".join(out).strip("\n")


def normalized(text: str) -> str:
    """The text as Markdown reads its source: its placeholders' markers removed, line ends
    unified, tabs expanded, lines of spaces emptied (Markdown's NormalizeWhitespace)."""
    text = text.replace(STX, "").replace(ETX, "").replace("\r\n", "\n").replace("\r", "\n")
    return re.sub(r"(?<=\n) +\n", "\n", text.expandtabs(TAB_LENGTH))


@functools.cache
def _highlighter(language: str):
    """One lexer and formatter for the build (a formatter builds its style's whole table of
    classes), with mkdocs.yml's pymdownx.highlight options: classes on the token spans, the
    language's class on the wrapper, no line numbers or title."""
    formatter = BlockHtmlFormatter(cssclass="highlight", wrapcode=True)
    return get_lexer_by_name(language, stripnl=True), formatter


def highlighted(text: str, language: str) -> str:
    """The fenced code block as superfences and pymdownx.highlight write it."""
    lexer, formatter = _highlighter(language)
    code = highlight(normalized(text.rstrip()), lexer, formatter)
    return code.replace(
        '<div class="highlight">', f'<div class="language-{language} highlight">', 1
    ).strip()

"""Escaping for every string that lands in a generated page.

Generated pages are Markdown that Python-Markdown (with the extensions in site/mkdocs.yml) turns
into HTML. A corpus string must come out as the same text, whatever it holds: HTML (``<script>``,
``onerror=``), Markdown (``[click](...)``, ``*``, a leading ``#``), attribute lists (``{: .x}``),
template markers (``{{ config }}``) or emoji shortcodes (``:smile:``).

The rule is simple enough to check by eye: every ASCII punctuation character becomes a numeric
character reference. Markdown syntax is made of ASCII punctuation (plus white space and digits,
which cannot start a construct without punctuation after them), and Python-Markdown passes
character references through untouched, so the browser shows the original characters as text.
White space is collapsed to single spaces, so a string cannot start an indented code block or
end a line with a hard break.

Long listings are written as raw HTML blocks instead, which Markdown passes through untouched
(md_in_html is not enabled): there HTML escaping is enough (``html_text``).
"""

from __future__ import annotations

import functools
import html
import re
import string
from urllib.parse import urlparse

_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")  # Unicode category Cc
_PUNCTUATION_REFERENCES = {ord(c): f"&#{ord(c)};" for c in string.punctuation}


def one_line(value: object) -> str:
    """The value as one line of text: white space collapsed, other control characters replaced
    (Python-Markdown uses STX and ETX as placeholders internally)."""
    return _CONTROL.sub("\ufffd", " ".join(str(value).split()))


def md_text(value: object) -> str:
    """Text that renders literally wherever it sits in Markdown or in inline/raw HTML."""
    return one_line(value).translate(_PUNCTUATION_REFERENCES)


def html_text(value: object) -> str:
    """Text inside a raw HTML block, which Markdown leaves alone: HTML escaping is enough."""
    if type(value) is str:
        return _html_line(value)
    return html.escape(one_line(value), quote=True)


@functools.lru_cache(maxsize=65536)
def _html_line(text: str) -> str:
    # Memoised: value labels, tips and author names recur on every page and chip that shows them
    # (tens of thousands of calls per site build for a few thousand distinct strings).
    return html.escape(one_line(text), quote=True)


# An HTML attribute value, written between double quotes: the same escaping.
html_attr = html_text


def safe_url(url: object) -> str | None:
    """The URL when it is an absolute http(s) address, else None (the caller shows text instead).

    `masrl validate` already rejects other schemes; this keeps a javascript: URL from becoming a
    link even when a page is built from an unvalidated corpus.
    """
    if not isinstance(url, str) or any(c.isspace() or ord(c) < 32 for c in url):
        return None
    try:
        parsed = urlparse(url)
    except ValueError:
        return None
    if parsed.scheme.lower() not in ("http", "https") or not parsed.netloc:
        return None
    return url


def external_link(url: object, text: object | None = None) -> str:
    """An inline HTML link to an external address, or the escaped text when the URL is unsafe."""
    label = md_text(url if text is None else text)
    checked = safe_url(url)
    if checked is None:
        return label
    return f'<a href="{html_attr(checked)}" rel="noopener">{label}</a>'


def front_matter_title(value: object) -> str:
    """A YAML front-matter line that sets the page title.

    mkdocs-material writes ``page.meta.title`` into ``<title>`` and the header without escaping,
    so the title is HTML-escaped here; with quotes and backslashes turned into references, the
    double-quoted YAML scalar cannot end early either.
    """
    escaped = html.escape(one_line(value), quote=True).replace("\\", "&#92;")
    return f'title: "{escaped}"'


@functools.lru_cache(
    maxsize=65536
)  # the same value anchors are linked from every page that lists them
def anchor_id(*parts: str) -> str:
    """An HTML id made of lower-case letters, digits, dashes and underscores."""
    raw = "-".join(parts).lower()
    return "".join(c if c.isascii() and (c.isalnum() or c in "-_") else "-" for c in raw)

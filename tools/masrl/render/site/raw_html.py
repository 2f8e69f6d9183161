"""Raw HTML blocks of a page kept out of Markdown's way.

Most of the site's generated pages are raw HTML blocks between a few Markdown headings: lists of
entries, tables, chips. Markdown passes such a block through unchanged, but only after parsing it
twice with Python's HTML parser (mkdocs collects its ids, Markdown finds where it ends), which was
most of the cost of a site build. mkdocs' page-markdown event here swaps every top-level block that
is one whole HTML element for a placeholder paragraph, and the page-content event puts the block
back, as Markdown would have: the built page is the same, byte for byte. The ids of the blocks
are added to the page's anchors, so mkdocs still checks links to them.

A block qualifies when it stands between blank lines at the left margin, outside a code fence,
opens with a tag Markdown treats as a block (of those below) and closes that same element on its
last line and not before. Anything else is left to Markdown.
"""

from __future__ import annotations

import html
import re

from masrl.render.site.errors import SiteError
from masrl.render.site.html_body import is_html_body
from masrl.render.site.page_memory import release_markdown

# Block-level elements Markdown passes through verbatim (no pre, script, style or textarea,
# whose content Markdown treats specially).
PASSED = frozenset(
    ("div", "p", "dl", "ul", "ol", "table", "figure", "section", "nav", "details", "aside")
)
TOKEN = "MASRLRAWBLOCK"
_OPENING = re.compile(r"<([a-z]+)[\s>]")
_FENCE = re.compile(r"^(`{3,}|~{3,})")
_TAG = re.compile(r"""<([a-zA-Z][\w:-]*)((?:[^>"']|"[^"]*"|'[^']*')*)>""")
_ID_ATTR = re.compile(r"""\s(id|name)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))""")
_ID_OR_NAME = re.compile(r"\s(?:id|name)\s*=")


def _whole_element(block: str) -> bool:
    """Does the block open with a passed element that closes exactly at its end?"""
    opening = _OPENING.match(block)
    if not opening or opening.group(1) not in PASSED:
        return False
    tag = opening.group(1)
    closing = f"</{tag}>"
    if not block.endswith(closing):
        return False
    depth = 0
    for match in re.finditer(rf"<(/?){tag}[\s>]", block):
        depth += -1 if match.group(1) else 1
        if depth == 0:
            return match.end() == len(block)
    return False


def _chunks(markdown: str):
    """The page's chunks between blank lines and the blank lines themselves, each with whether
    it starts inside a code fence."""
    fence = ""
    for chunk in re.split(r"(\n[ \t]*\n)", markdown):
        yield chunk, bool(fence)
        if chunk.startswith("\n") and not chunk.strip():
            continue
        for line in chunk.split("\n"):
            marker = _FENCE.match(line)
            if marker and not fence:
                fence = marker.group(1)
            elif fence and line.strip() and line.strip() == fence[0] * len(line.strip()):
                if len(line.strip()) >= len(fence):
                    fence = ""


def split_raw_blocks(markdown: str) -> tuple[str, list[str]]:
    """The Markdown with each qualifying raw HTML block replaced by a placeholder paragraph, and
    the blocks in order (none when the page already holds the placeholder's word)."""
    if TOKEN in markdown:
        return markdown, []
    blocks: list[str] = []
    out: list[str] = []
    for chunk, fenced in _chunks(markdown):
        block = chunk.rstrip("\n")  # the page's last block ends with the file's newline
        if not fenced and block.startswith("<") and _whole_element(block):
            out.append(f"{TOKEN}{len(blocks)}{chunk[len(block) :]}")
            blocks.append(block)
        else:
            out.append(chunk)
    return "".join(out), blocks


def anchor_ids(blocks: list[str]) -> set[str]:
    """The ids (and names of <a>) the blocks define, as mkdocs collects them from raw HTML."""
    ids: set[str] = set()
    for block in blocks:
        for tag in _TAG.finditer(block):
            _add_ids(ids, tag)
    return ids


def escaped_anchor_ids(html_text: str) -> set[str]:
    """``anchor_ids`` of HTML in which every ``<`` opens a tag (text and attribute values
    escaped): only the tags holding an id or a name attribute are read, found from it."""
    ids: set[str] = set()
    seen = -1
    for attr in _ID_OR_NAME.finditer(html_text):
        start = html_text.rfind("<", 0, attr.start())
        if start == seen:
            continue
        seen = start
        tag = _TAG.match(html_text, start)
        if tag and tag.end() > attr.start():
            _add_ids(ids, tag)
    return ids


def _add_ids(ids: set[str], tag: re.Match) -> None:
    for attr in _ID_ATTR.finditer(tag.group(2)):
        if attr.group(1) == "id" or tag.group(1).lower() == "a":
            value = next(v for v in attr.groups()[1:] if v is not None)
            ids.add(html.unescape(value))


def restore_raw_blocks(content: str, blocks: list[str], where: str = "a page") -> str:
    if not blocks:
        return content
    # Markdown follows a raw block with a blank line, and strips the end of the page.
    content = re.sub(
        rf"<p>{TOKEN}(\d+)</p>", lambda m: blocks[int(m.group(1))] + "\n", content
    ).rstrip("\n")
    if TOKEN in content:  # a placeholder Markdown did not keep as a paragraph of its own
        raise SiteError(f"{where}: a raw HTML block was not restored; report this as a masrl bug")
    return content


def on_page_markdown(markdown: str, page, config, files) -> str:
    """mkdocs' page-markdown event: the page's raw HTML blocks set aside (none in a page whose
    body is HTML already, which skips Markdown: html_pages.py)."""
    if is_html_body(page):
        page.masrl_raw_blocks = []
        return markdown
    markdown, page.masrl_raw_blocks = split_raw_blocks(markdown)
    return markdown


def on_page_content(content: str, page, config, files) -> str:
    """mkdocs' page-content event: the blocks back in place, their ids among the page's anchors;
    the page's Markdown let go (page_memory.py)."""
    release_markdown(page)
    blocks = getattr(page, "masrl_raw_blocks", [])
    page.masrl_raw_blocks = []
    if blocks:
        page.present_anchor_ids = (page.present_anchor_ids or set()) | anchor_ids(blocks)
    return restore_raw_blocks(content, blocks, page.file.src_uri)

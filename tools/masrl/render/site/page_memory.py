"""A page's text let go once mkdocs is done with it.

mkdocs reads and converts every page before it writes any, and keeps each page's Markdown and
HTML until the build ends; at thousands of entry pages that was most of the build's memory. The
Markdown is not read again once converted, nor the HTML once the page is written (titles,
anchors and the menu come from other attributes), so the page events here drop them.
"""

from __future__ import annotations


def release_markdown(page) -> None:
    """After conversion: an empty source (mkdocs takes None for a page not yet read)."""
    page.markdown = ""


def on_post_page(output: str, page, config) -> str:
    """mkdocs' post-page event: the page is written next; its HTML is not needed after."""
    page.content = None
    return output

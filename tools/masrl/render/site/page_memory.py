"""A page's text let go once mkdocs is done with it.

mkdocs reads and converts every page before it writes any, and keeps each page's Markdown and
HTML until the build ends; at thousands of entry pages that was most of the build's memory. The
Markdown is not read again once converted, nor the HTML once the page is written (titles,
anchors and the menu come from other attributes), so the page events here drop them.
"""

from __future__ import annotations

import ctypes
import ctypes.util


def release_markdown(page) -> None:
    """After conversion: an empty source (mkdocs takes None for a page not yet read)."""
    page.markdown = ""


def on_post_page(output: str, page, config) -> str:
    """mkdocs' post-page event: the page is written next; its HTML is not needed after."""
    page.content = None
    return output


def release_free_memory() -> None:
    """Hand the memory freed since the pages were built back to the system, where the C library
    can (glibc's malloc_trim): the freed pages' memory lies between objects still alive, so the
    allocator keeps it, and the search index's JSON and its encoding, the last and largest
    allocations of a build, would come on top of it."""
    libc = ctypes.util.find_library("c")
    trim = getattr(ctypes.CDLL(libc), "malloc_trim", None) if libc else None
    if trim is not None:
        trim(0)

"""Raw HTML blocks set aside from Markdown come back as Markdown would have written them."""

from __future__ import annotations

import markdown
import pytest
import yaml
from conftest import REPO_ROOT
from masrl.render.site.errors import SiteError
from masrl.render.site.raw_html import (
    TOKEN,
    anchor_ids,
    escaped_anchor_ids,
    restore_raw_blocks,
    split_raw_blocks,
)


def _converter() -> markdown.Markdown:
    """Markdown with the site's extensions (site/mkdocs.yml), as mkdocs sets it up per page."""
    config = yaml.safe_load((REPO_ROOT / "site" / "mkdocs.yml").read_text(encoding="utf-8"))
    names, settings = [], {}
    for item in config["markdown_extensions"]:
        name, options = next(iter(item.items())) if isinstance(item, dict) else (item, None)
        names.append(name)
        if options:
            settings[name] = options
    return markdown.Markdown(extensions=names, extension_configs=settings)


def _both_ways(source: str) -> tuple[str, str, list[str]]:
    whole = _converter().convert(source)
    aside, blocks = split_raw_blocks(source)
    return whole, restore_raw_blocks(_converter().convert(aside), blocks), blocks


PAGE = """# A page { #top }

<p class="first">one &amp; two</p>

Some *Markdown* with a [link](other.md).

<ul class="list">
<li><a href="../a/" id="item-a">A</a></li>
<li><ul><li>nested</li></ul></li>
</ul>

- a list item
- another

<div class="two"><p>inner</p></div>
<div class="two">second element in the same block</div>

```html

<div id="in-code">not a block</div>

```

!!! abstract "Summary"

    indented text

<table class="t">
<tr><td>cell</td></tr>
</table>

<div class="tips" hidden><span id="tip-1">tip</span><a name="named">n</a></div>
"""


def test_set_aside_blocks_come_back_as_markdown_writes_them():
    whole, restored, blocks = _both_ways(PAGE)
    assert restored == whole
    # whole elements at the margin between blank lines; not the two-element block, not code
    assert [b.split(">", 1)[0] for b in blocks] == [
        '<p class="first"',
        '<ul class="list"',
        '<table class="t"',
        '<div class="tips" hidden',
    ]
    assert anchor_ids(blocks) == {"item-a", "tip-1", "named"}


@pytest.mark.parametrize(
    "html",
    [
        '<p id="a" class="x">t</p><a name="n" href="#a">l</a><span name="not-an-anchor">s</span>',
        '<div\nid=\'b\'><span data-tip="say id=c" id = d>x</span></div><h2 id="e&amp;f">h</h2>',
        "<p>no ids at all, only text: valid = grid id</p>",
    ],
)
def test_ids_of_escaped_html_are_read_from_the_tags_that_hold_them(html):
    assert escaped_anchor_ids(html) == anchor_ids([html])


@pytest.mark.parametrize(
    "source",
    [
        "<div>only a block</div>\n",
        "text\n\n<div>x</div>\n\n\n<p>after two blank lines</p>\n\nend",
        "<div>x</div> trailing text\n\nmore",
        "<div><div>x</div></div><div>y</div>\n",
        "- item\n\n    <div>indented under the item</div>\n",
        "````md\n```\n\n<div>inside a longer fence</div>\n\n```\n````\n\n<p>after</p>\n",
    ],
)
def test_edge_blocks_come_back_unchanged(source):
    whole, restored, _ = _both_ways(source)
    assert restored == whole


def test_a_page_holding_the_placeholder_word_is_left_to_markdown():
    source = f"{TOKEN}0\n\n<div>x</div>\n"
    assert split_raw_blocks(source) == (source, [])


def test_a_placeholder_markdown_did_not_keep_stops_the_build():
    with pytest.raises(SiteError, match="page.md: a raw HTML block was not restored"):
        restore_raw_blocks(f"<p>text {TOKEN}0</p>", ["<div>x</div>"], "page.md")

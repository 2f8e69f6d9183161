"""The compare view (page compare/): two to six entries side by side, drawn by
site/assets/js/compare.js from data/entries.json.

The page is a permalink: ``compare/?keys=a,b,c`` names the entries, in their column order. The
table's rows are ticked for it (a "Compare" box per row, `compare.js` too). Each line of the
view is one field (tags per axis, evidence line per sub-decision, links); a line whose values
differ between the entries is marked, and so is each value that not every entry holds.
"""

from __future__ import annotations

from masrl.render.site.context import SiteContext, html_href
from masrl.render.site.downloads import TABLE_DATA
from masrl.render.site.escape import html_attr

COMPARE_PAGE = "compare.md"
MIN_COMPARED, MAX_COMPARED = 2, 6


def compare_pages(ctx: SiteContext) -> dict[str, str]:
    page = COMPARE_PAGE
    app = (
        f'<div id="masrl-compare-app" class="masrl-compare-app" '
        f'data-src="{html_attr(html_href(page, TABLE_DATA))}" '
        f'data-min="{MIN_COMPARED}" data-max="{MAX_COMPARED}">\n'
        '<p id="masrl-compare-status" class="masrl-table-status" role="status" aria-live="polite">'
        "Loading the entries…</p>\n"
        '<div class="masrl-compare-scroll">\n'
        '<table id="masrl-compare" class="masrl-compare">'
        "<caption>The chosen entries side by side; marked lines differ between them.</caption>"
        "<thead></thead><tbody></tbody></table>\n"
        "</div>\n"
        f'<noscript><p>The compare view needs JavaScript. Each <a href="{html_attr(html_href(page, "entries.md"))}">'
        "entry page</a> shows the same fields.</p></noscript>\n"
        "</div>"
    )
    table = html_attr(html_href(page, "table.md"))
    return {
        page: "\n".join(
            [
                "---",
                "hide:",
                "  - navigation",
                "  - toc",
                "---",
                "",
                "# Compare entries",
                "",
                (
                    f'Tick {MIN_COMPARED} to {MAX_COMPARED} entries in the <a href="{table}">interactive table</a> '
                    "and choose “Compare”: their tags, evidence lines, sub-decisions and links stand side by "
                    "side here, and lines that differ are marked. The address of this page names the entries, "
                    "so a comparison can be bookmarked or shared."
                ),
                "",
                app,
                "",
            ]
        )
    }

"""The interactive table page: filter controls rendered at build time, rows filled in by
site/assets/js/table.js from data/entries.json.

The controls are plain HTML with stable ids and data attributes, so the script, people using a
keyboard or a screen reader, and the browser tests all drive the same elements:

- ``#masrl-filter-text``: free text over title, authors, key, arXiv id, tags, venue and summary;
- ``button[data-export=bibtex|ris|csv|masrl-csv|json]``: download the rows shown, in the order
  shown, as the CLI's exporters write them (site/assets/js/table-export.js);
- ``#masrl-year-min`` / ``#masrl-year-max``: an inclusive year range;
- ``#masrl-filter-code``: only entries with a code link (``?code=1``);
- ``input[type=checkbox][data-axis=FIELD][value=VALUE]``: one per taxonomy value (``-`` stands
  for "not applicable"); values of one axis are OR-ed, axes are AND-ed;
- ``th[data-sort-key=COLUMN] button``: sorting, with ``aria-sort`` on the header cell;
- ``data-card-fields`` of the app: the tag columns a row keeps when it becomes a card on a phone.
"""

from __future__ import annotations

from masrl.render.site.context import NOT_APPLICABLE, SiteContext, html_href
from masrl.render.site.downloads import TABLE_DATA
from masrl.render.site.escape import html_attr, md_text

TABLE_PAGE = "table.md"
NOT_APPLICABLE_VALUE = "-"

# (sort key, header, css class) of the fixed columns; the tag columns after them come from the
# axis registry (`show.column`) and show chips of that field.
FIXED_COLUMNS = (
    ("title", "Title", "masrl-col-title"),
    ("year", "Year", "masrl-col-year"),
    ("venue", "Venue", "masrl-col-venue"),
    ("first_author", "First author", "masrl-col-author"),
)


# The tag columns a row keeps as a card on a phone (below 600 px), beside title and year.
CARD_FIELDS = ("reward_families", "credit_units", "sub_decisions")


def columns(ctx: SiteContext) -> tuple[tuple[str, str, str], ...]:
    tags = tuple(
        (name, ctx.column_label(name), "masrl-col-tags") for name in ctx.taxonomy.shown("column")
    )
    return FIXED_COLUMNS + tags


# The last column: our one-sentence summary, folded into a disclosure so rows stay short.
SUMMARY_HEADER = '<th scope="col" class="masrl-col-summary">Summary</th>'


def table_pages(ctx: SiteContext) -> dict[str, str]:
    return {TABLE_PAGE: table_markdown(ctx)}


def axis_filter(ctx: SiteContext, name: str) -> str:
    field = ctx.fields[name]
    groups = ctx.entries_with_value(name)
    label = md_text(ctx.field_label(name))
    options = []
    for value in ctx.taxonomy[field.axis].ids:
        options.append((value, ctx.value_label(name, value), len(groups.get(value, []))))
    if field.nullable:
        options.append((NOT_APPLICABLE_VALUE, NOT_APPLICABLE, len(groups.get(NOT_APPLICABLE, []))))
    boxes = []
    for value, value_label, count in options:
        box_id = html_attr(f"masrl-f-{name}-{value if value != NOT_APPLICABLE_VALUE else 'none'}")
        boxes.append(
            f'<label class="masrl-check" for="{box_id}"><input type="checkbox" id="{box_id}" name="{html_attr(name)}" '
            f'value="{html_attr(value)}" data-axis="{html_attr(name)}"> {md_text(value_label)} '
            f'<span class="masrl-check__n">{count}</span></label>'
        )
    return (
        f'<details class="masrl-axis" data-axis="{html_attr(name)}">'
        f'<summary>{label} <span class="masrl-axis__chosen" data-axis-chosen="{html_attr(name)}"></span></summary>'
        f'<fieldset data-axis="{html_attr(name)}"><legend>{label}</legend>{"".join(boxes)}</fieldset>'
        "</details>"
    )


def _header(key: str, label: str, css: str) -> str:
    return (
        f'<th scope="col" class="{css}" data-sort-key="{key}" aria-sort="none">'
        f'<button type="button" data-sort="{key}">{md_text(label)}<span class="masrl-sort-icon" aria-hidden="true"></span></button></th>'
    )


def table_markdown(ctx: SiteContext) -> str:
    page = TABLE_PAGE
    years = sorted({e.year for e in ctx.corpus.entries}) or [0]
    axis_filters = "\n".join(axis_filter(ctx, name) for name in ctx.filter_fields)
    headers = "".join(_header(*column) for column in columns(ctx)) + SUMMARY_HEADER
    card_fields = " ".join(name for name in CARD_FIELDS if name in ctx.taxonomy.shown("column"))
    app = f"""<div id="masrl-table-app" class="masrl-table-app" data-src="{html_attr(html_href(page, TABLE_DATA))}" data-card-fields="{html_attr(card_fields)}">
<form id="masrl-filters" class="masrl-filters" role="search" aria-label="Filter the entries" autocomplete="off">
<div class="masrl-filter-row">
<div class="masrl-field masrl-field--text"><label for="masrl-filter-text">Text</label>
<input type="search" id="masrl-filter-text" name="text" data-filter="text" placeholder="title, author, key, arXiv id, tag, venue or summary"></div>
<div class="masrl-field masrl-field--year"><label for="masrl-year-min">Year from</label>
<input type="number" id="masrl-year-min" name="year-min" data-filter="year-min" min="{years[0]}" max="{years[-1]}" placeholder="{years[0]}"></div>
<div class="masrl-field masrl-field--year"><label for="masrl-year-max">to</label>
<input type="number" id="masrl-year-max" name="year-max" data-filter="year-max" min="{years[0]}" max="{years[-1]}" placeholder="{years[-1]}"></div>
<div class="masrl-field masrl-field--code"><label for="masrl-filter-code"><input type="checkbox" id="masrl-filter-code" name="code" data-filter="code"> Has code</label></div>
<div class="masrl-field masrl-field--reset"><button type="reset" id="masrl-reset" class="md-button">Clear filters</button></div>
</div>
<div class="masrl-axis-filters">
{axis_filters}
</div>
</form>
<p id="masrl-table-status" class="masrl-table-status" role="status" aria-live="polite">Loading the table…</p>
<p class="masrl-export" id="masrl-export">Export the entries shown, in the order shown:
<button type="button" class="md-button" data-export="bibtex">BibTeX</button>
<button type="button" class="md-button" data-export="ris">RIS</button>
<button type="button" class="md-button" data-export="masrl-csv" title="every field under its masrl name; lists as JSON">CSV</button>
<button type="button" class="md-button" data-export="csv" title="the survey artifact's columns, for its scripts">CSV (survey layout)</button>
<button type="button" class="md-button" data-export="json">JSON</button>
<span class="masrl-export__note">the records <code>masrl export</code> writes (see <a href="{html_attr(html_href(page, "data.md"))}">Data and downloads</a>)</span></p>
<div class="masrl-table-scroll">
<table id="masrl-table" class="masrl-table">
<caption>Retained entries; activate a column header to sort by it.</caption>
<thead><tr>{headers}</tr></thead>
<tbody id="masrl-table-body"></tbody>
</table>
</div>
<noscript><p>The interactive table needs JavaScript. The <a href="{html_attr(html_href(page, "papers.md"))}">paper list</a> holds the same entries.</p></noscript>
</div>"""
    return "\n".join(
        [
            "---",
            "hide:",
            "  - navigation",
            "  - toc",
            "---",
            "",
            "# Interactive table",
            "",
            (
                f"All {len(ctx.corpus.entries)} entries in one table. Filter by any axis (several values of one axis "
                "match any of them; filters on different axes must all match), by year range and by free text; "
                "sort by any column. The address bar keeps the filters, so a filtered view can be bookmarked or shared."
            ),
            "",
            app,
            "",
        ]
    )

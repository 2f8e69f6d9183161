"""The corpus citation graph on the site: each entry page's lineage ("Builds on", "Built upon
by") and the citation-graph page, drawn by site/assets/js/graph.js from data/citations.json.

The page is useful without its script: the coverage line, a legend, and every node and edge as a
list; the script draws them with cytoscape.js (vendored under site/assets/vendor/cytoscape/,
loaded only by this page) and filters nodes and list rows together. Its controls, like the
table's, are plain HTML with stable ids and data attributes:

- ``#masrl-graph-app``: ``data-nodes`` / ``data-edges`` (all), ``data-shown-nodes`` /
  ``data-shown-edges`` (after the filters), ``data-ready=true`` once drawn;
- ``#masrl-graph``: the drawing, focusable; arrow keys move between nodes, Enter opens one;
- ``input[type=checkbox][data-axis=FIELD][value=VALUE]``: the table's filter boxes (values of one
  axis are OR-ed, axes AND-ed), kept in the address bar as the table keeps them;
- ``tr[data-key]`` and ``li[data-from][data-to]``: the nodes and edges as lists.
"""

from __future__ import annotations

import json

from masrl.model.records import Entry
from masrl.render.site.context import SiteContext, entry_page, html_href
from masrl.render.site.escape import html_attr, html_text
from masrl.render.site.html_body import Body
from masrl.render.site.table import axis_filter

CITATIONS_PAGE = "citations.md"
GRAPH_DATA = "data/citations.json"
# cytoscape.js: one dependency-free file drawing on a 2D canvas (no WebGL, so it draws in every
# browser and in headless Chromium), with directed-edge arrows, deterministic layouts and tap
# events built in; sigma.js would need WebGL, graphology, a layout package and a bundler.
GRAPH_LIBRARY = "assets/vendor/cytoscape/cytoscape.min.js"
# The filters of the graph page: the table's, for the two axes the issue names.
GRAPH_FILTERS = ("reward_families", "sub_decisions")
CATEGORY_FIELD = "category"

NOT_RETRIEVED = "References not yet retrieved for this entry."


# ---------------------------------------------------------------------------------------------
# Coverage, said plainly.


def coverage_sentence(ctx: SiteContext) -> str:
    """'Citations known for N of M entries, retrieved DATE.' or why there is no date."""
    known, total, retrieved = ctx.citations_coverage
    noun = "entry" if total == 1 else "entries"
    if retrieved:
        return f"Citations known for {known} of {total} {noun}, retrieved {retrieved}."
    if known:
        return (
            f"Citations known for {known} of {total} {noun}, read by hand; "
            "not yet retrieved from OpenAlex."
        )
    return f"Citations known for 0 of {total} {noun}: not yet retrieved."


# ---------------------------------------------------------------------------------------------
# An entry's lineage.


def _linked_entries(ctx: SiteContext, page: str, keys: list[str]) -> str:
    entries = sorted((ctx.by_key[k] for k in keys), key=lambda e: (-e.year, e.title.casefold()))
    items = [
        f'<li>{ctx.entry_link_html(page, e.key)} <span class="masrl-facts">{html_text(e.year)}</span></li>'
        for e in entries
    ]
    return '<ul class="masrl-lineage">\n' + "\n".join(items) + "\n</ul>"


def _note(text: str) -> str:
    return f'<p class="masrl-lineage-note">{html_text(text)}</p>'


def lineage(ctx: SiteContext, entry: Entry, body: Body) -> None:
    """The two sections of an entry page: the entries it cites and the entries citing it."""
    page = entry_page(entry.key)
    known = entry.key in ctx.citations_known
    builds_on, built_upon_by = ctx.lineage[entry.key]
    body.heading(2, "Builds on (in this corpus)")
    parts = []
    if builds_on:
        parts.append(_linked_entries(ctx, page, builds_on))
        if not known:
            parts.append(
                _note("Its full reference list is not yet retrieved; these were recorded by hand.")
            )
    elif known:
        parts.append(_note("It cites no other entry of this corpus."))
    else:
        parts.append(_note(NOT_RETRIEVED))
    body.raw("\n".join(parts))
    body.heading(2, "Built upon by")
    parts = []
    if built_upon_by:
        parts.append(_linked_entries(ctx, page, built_upon_by))
    else:
        parts.append(_note("No entry whose references are known cites it."))
    graph_link = html_attr(html_href(page, CITATIONS_PAGE))
    parts.append(
        f'<p class="masrl-lineage-note">{html_text(coverage_sentence(ctx))} '
        f'<a href="{graph_link}">The citation graph</a> shows every link.</p>'
    )
    body.raw("\n".join(parts))


# ---------------------------------------------------------------------------------------------
# The graph as data.


def category_colours(ctx: SiteContext) -> dict[str, str]:
    """One colour per category: the category axis's chip hue (show.hue) for the first value, the
    others spread evenly round the colour wheel from it, so neighbours in the legend differ."""
    axis = ctx.taxonomy[ctx.taxonomy.axis_of_field[CATEGORY_FIELD]]
    base = int(axis.show.get("hue", 215))
    ids = list(axis.ids)
    return {
        value: f"hsl({(base + round(i * 360 / len(ids))) % 360}, 60%, 48%)"
        for i, value in enumerate(ids)
    }


def graph_data(ctx: SiteContext) -> dict:
    """What graph.js draws: categories, nodes in reading order, edges sorted. URLs are relative to
    the site root (the script resolves them against the page's data-root)."""
    graph = ctx.citations
    colours = category_colours(ctx)
    known = ctx.citations_known
    nodes = []
    for entry in ctx.entries:
        category = ctx.values_of(entry, CATEGORY_FIELD)[0]
        nodes.append(
            {
                "key": entry.key,
                "title": entry.title,
                "year": entry.year,
                "category": category,
                "color": colours[category],
                "url": html_href("index.md", entry_page(entry.key)),
                "builds_on": len(ctx.lineage[entry.key][0]),
                "built_upon_by": len(ctx.lineage[entry.key][1]),
                "references_known": entry.key in known,
                "tags": {name: list(ctx.values_of(entry, name)) for name in GRAPH_FILTERS},
            }
        )
    known_count, total, retrieved = graph.coverage(ctx.by_key)
    return {
        "coverage": {"known": known_count, "entries": total, "retrieved": retrieved},
        "categories": [
            {"id": value, "label": ctx.value_label(CATEGORY_FIELD, value), "color": colour}
            for value, colour in colours.items()
        ],
        "filters": list(GRAPH_FILTERS),
        "nodes": nodes,
        "edges": [
            {"from": e.source_key, "to": e.target_key, "source": e.source} for e in graph.edges
        ],
    }


def graph_files(ctx: SiteContext) -> dict[str, bytes]:
    text = json.dumps(graph_data(ctx), ensure_ascii=False, sort_keys=True, indent=1)
    return {GRAPH_DATA: (text + "\n").encode("utf-8")}


# ---------------------------------------------------------------------------------------------
# The page.


def _legend(ctx: SiteContext) -> str:
    counts = ctx.entries_with_value(CATEGORY_FIELD)
    items = [
        f'<li><span class="masrl-swatch" style="background: {colour}" aria-hidden="true"></span>'
        f"{html_text(ctx.value_label(CATEGORY_FIELD, value))} "
        f'<span class="masrl-check__n">{len(counts.get(value, []))}</span></li>'
        for value, colour in category_colours(ctx).items()
    ]
    return (
        '<ul class="masrl-graph-legend" aria-label="Node colour: category">'
        + "".join(items)
        + "</ul>"
    )


def _node_rows(ctx: SiteContext, page: str) -> str:
    rows = []
    for entry in ctx.entries:
        category = ctx.values_of(entry, CATEGORY_FIELD)[0]
        rows.append(
            f'<tr data-key="{html_attr(entry.key)}">'
            f"<td>{ctx.entry_link_html(page, entry.key)} "
            f'<span class="masrl-facts">{html_text(entry.year)} · '
            f"{html_text(ctx.value_label(CATEGORY_FIELD, category))}</span></td>"
            f"<td>{len(ctx.lineage[entry.key][0])}</td>"
            f"<td>{len(ctx.lineage[entry.key][1])}</td></tr>"
        )
    return "\n".join(rows)


def _edge_items(ctx: SiteContext, page: str) -> str:
    items = [
        f'<li data-from="{html_attr(e.source_key)}" data-to="{html_attr(e.target_key)}">'
        f"{ctx.entry_link_html(page, e.source_key)} cites {ctx.entry_link_html(page, e.target_key)}</li>"
        for e in ctx.citations.edges
    ]
    return "\n".join(items)


def citations_markdown(ctx: SiteContext) -> str:
    page = CITATIONS_PAGE
    graph = ctx.citations
    nodes, edges = len(ctx.entries), len(graph.edges)
    filters = "\n".join(axis_filter(ctx, name) for name in GRAPH_FILTERS)
    edge_list = (
        f'<ol id="masrl-graph-edges" class="masrl-graph-edges">\n{_edge_items(ctx, page)}\n</ol>'
        if edges
        else '<p id="masrl-graph-edges">No citation between two entries is recorded yet.</p>'
    )
    app = f"""<div id="masrl-graph-app" class="masrl-graph-app" data-src="{html_attr(html_href(page, GRAPH_DATA))}" data-lib="{html_attr(html_href(page, GRAPH_LIBRARY))}" data-root="{html_attr(html_href(page, "index.md"))}" data-nodes="{nodes}" data-edges="{edges}">
<form id="masrl-graph-filters" class="masrl-filters" aria-label="Filter the graph" autocomplete="off">
<div class="masrl-axis-filters">
{filters}
<button type="reset" id="masrl-graph-reset" class="md-button">Clear filters</button>
</div>
</form>
<p id="masrl-graph-status" class="masrl-table-status" role="status" aria-live="polite">{nodes} entries, {edges} citations among them.</p>
<div id="masrl-graph" class="masrl-graph" tabindex="0" role="application" aria-label="Citation graph: arrow keys move from entry to entry, Enter opens the entry" aria-describedby="masrl-graph-status" hidden></div>
<noscript><p>Drawing the graph needs JavaScript; the lists below hold every entry and citation.</p></noscript>
{_legend(ctx)}
<details class="masrl-graph-list">
<summary>The entries as a list ({nodes})</summary>
<div class="masrl-table-scroll">
<table id="masrl-graph-nodes" class="masrl-table">
<caption>Each entry with the number of corpus entries it cites and that cite it.</caption>
<thead><tr><th scope="col">Entry</th><th scope="col">Cites</th><th scope="col">Cited by</th></tr></thead>
<tbody>
{_node_rows(ctx, page)}
</tbody>
</table>
</div>
</details>
<details class="masrl-graph-list">
<summary>The citations as a list ({edges})</summary>
{edge_list}
</details>
</div>"""
    return "\n".join(
        [
            "---",
            "hide:",
            "  - toc",
            "---",
            "",
            "# Citation graph",
            "",
            f'<p class="masrl-coverage"><strong>{html_text(coverage_sentence(ctx))}</strong></p>',
            "",
            (
                "Who builds on whom inside the corpus: each entry is a node, coloured by its "
                "category and sized by how many entries cite it; an arrow goes from an entry to "
                "each entry it cites. Click a node, or focus the drawing and use the arrow keys "
                "and Enter, to open the entry. The filters keep the entries with any chosen value "
                "of an axis (axes must all match), as in the [interactive table](table.md). "
                "Citations come from OpenAlex (`masrl snowball`) or were read by hand; "
                "`citations/graph.yaml` in the repository holds them with their source."
            ),
            "",
            app,
            "",
        ]
    )


def citation_pages(ctx: SiteContext) -> dict[str, str]:
    return {CITATIONS_PAGE: citations_markdown(ctx)}

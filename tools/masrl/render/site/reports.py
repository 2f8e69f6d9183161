"""Statistics, gaps, the claim ledger and the screening log."""

from __future__ import annotations

from urllib.parse import urlencode

from masrl.check.snapshot import PUBLISHED_SNAPSHOT
from masrl.derive import gaps as corpus_gaps
from masrl.derive.stats import NOT_APPLICABLE
from masrl.derive.tables import Counts, CrossTab
from masrl.render import figures as plots
from masrl.render.site.context import SiteContext, browse_page, html_href, value_anchor
from masrl.render.site.escape import anchor_id, external_link, html_attr, html_text, md_text
from masrl.render.site.markdown import compact_tables, figure, table
from masrl.render.stats import change

STATISTICS_PAGE = "statistics.md"
GAPS_PAGE = "gaps.md"
CLAIMS_PAGE = "claims.md"
SCREENING_PAGE = "screening.md"
TABLE_PAGE = "table.md"
FIGURE_DIR = "figures"

SCREENING_FIGURE = "screening-flow"
KEYS_SHOWN = 40  # entries named per list on the report pages


def report_pages(ctx: SiteContext) -> dict[str, str]:
    return {
        STATISTICS_PAGE: statistics_markdown(ctx),
        GAPS_PAGE: gaps_markdown(ctx),
        CLAIMS_PAGE: claims_markdown(ctx),
        SCREENING_PAGE: screening_markdown(ctx),
    }


def figure_files(ctx: SiteContext) -> dict[str, bytes]:
    """Every figure of plots.figure_list for this corpus (SVG only: the site scales it), from the
    render cache unless the corpus, the taxonomy or the drawing code changed."""
    return plots.render_figures(ctx.corpus, formats=("svg",))


def figure_markdown(taxonomy, page: str, name: str) -> str:
    known = plots.figure_list(taxonomy)
    for figure_name, title, caption in known:
        if figure_name == name:
            src = html_href(page, f"{FIGURE_DIR}/{name}.svg")
            return figure(src, md_text(title), md_text(caption))
    raise KeyError(f"unknown figure {name!r}; the figures are {[n for n, _, _ in known]}")


def table_filter_url(page: str, filters: dict[str, str]) -> str:
    """A link into the interactive table with some filters set (the table reads the query string)."""
    return html_href(page, TABLE_PAGE) + "?" + urlencode(sorted(filters.items()))


def value_filter(field_name: str, value: str) -> dict[str, str]:
    """The table's query for the entries holding one value: a year is a one-year range and
    "not applicable" is the table's `-`."""
    if field_name == "year":
        return {"from": value, "to": value}
    return {field_name: "-" if value == NOT_APPLICABLE else value}


def count_link(page: str, field_name: str, value: str, count: int) -> str:
    """A count linking to the table filtered to exactly the entries it counts."""
    href = html_attr(table_filter_url(page, value_filter(field_name, value)))
    return f'<a href="{href}">{count}</a>'


# ---------------------------------------------------------------------------------------------
# Statistics.


def statistics_markdown(ctx: SiteContext) -> str:
    page = STATISTICS_PAGE
    stats, frozen = ctx.stats, ctx.snapshot_stats
    headline = [[md_text(label), str(count)] for _, label, count in stats.headline]
    headers = ["Records", "Count"]
    if frozen is not None:
        headers += [f"Snapshot {md_text(PUBLISHED_SNAPSHOT)}", "Change"]
        headline = [
            row + [str(old), change(count, old)]
            for row, count, old in zip(
                headline, stats.headline.counts, frozen.headline.counts, strict=True
            )
        ]
    parts = [
        "# Statistics",
        "",
        (
            "Counts per axis and cross-tabulations of the retained entries, computed from the YAML at build "
            "time (the same tables as `masrl stats` and STATS.md). Every taxonomy value is listed; a zero "
            "is a gap and is marked. A multi-valued axis counts an entry once per value."
        ),
        "",
        table(headers, headline, "l" + "r" * (len(headers) - 1)),
        "",
        *(
            [
                f"Beside each live count stands its count on the frozen snapshot <code>{md_text(PUBLISHED_SNAPSHOT)}</code>, "
                "the survey as published.",
                "",
            ]
            if frozen is not None
            else []
        ),
        "## Figures",
        "",
    ]
    parts += [
        figure_markdown(ctx.corpus.taxonomy, page, name) + "\n"
        for name, _, _ in plots.figure_list(ctx.corpus.taxonomy)
        if name != SCREENING_FIGURE
    ]
    parts += ["## Counts per axis", ""]
    tables = [_counts_table(ctx, page, name, counts) for name, counts in stats.axis_counts.items()]
    parts += [compact_tables(tables), ""]
    parts += [
        "## Cross-tabulations",
        "",
        (
            "Each cell counts the entries holding both values and links to the interactive table filtered "
            "to them. Empty cells are marked as gaps; sparse cells hold one or two entries."
        ),
        "",
    ]
    for name, crosstab in stats.crosstabs.items():
        title = f"{stats.labels[crosstab.row_field]} × {stats.labels[crosstab.column_field]}"
        parts += [f"### {md_text(title)} {{ #{anchor_id('crosstab', name)} }}", ""]
        parts += [crosstab_html(ctx, page, crosstab), ""]
    return "\n".join(parts)


def _counts_table(
    ctx: SiteContext, page: str, name: str, counts: Counts
) -> tuple[str, list[str], list[list[str]]]:
    """One axis as a compact table: each value linked to its browse section, zeros marked as gaps."""
    rows = []
    frozen = ctx.snapshot_stats.axis_counts.get(name) if ctx.snapshot_stats is not None else None
    for value, label_text, count in counts:
        share = f"{100 * count / ctx.stats.entries:.0f}%" if ctx.stats.entries else "-"
        href = html_attr(html_href(page, browse_page(name), value_anchor(value)))
        label = f'<a href="{href}">{html_text(label_text)}</a>'
        if value == NOT_APPLICABLE:
            label = f"<em>{label}</em>"
        if count == 0:
            shown = '<span class="masrl-count-gap">0</span>' if value != NOT_APPLICABLE else "0"
        else:
            shown = count_link(page, name, value, count)
        row_cells = [label, shown, share]
        if ctx.snapshot_stats is not None:
            old = frozen.get(value) if frozen is not None else None
            row_cells += ["-" if old is None else str(old), change(count, old)]
        rows.append(row_cells)
    caption = f'<span id="{anchor_id("axis", name)}">{html_text(ctx.stats.labels[name])}</span>'
    headers = ["Value", "Entries", "Share"] + (
        ["Snapshot", "Change"] if ctx.snapshot_stats is not None else []
    )
    return caption, headers, rows


def crosstab_html(
    ctx: SiteContext, page: str, crosstab: CrossTab, sparse: int = corpus_gaps.DEFAULT_SPARSE
) -> str:
    """A cross-tab as an HTML table: labelled headers, gap classes, counts linking to the table."""
    row_field, column_field = crosstab.row_field, crosstab.column_field
    head = "".join(
        f'<th scope="col" title="{md_text(c)}">{md_text(ctx.value_label(column_field, c))}</th>'
        for c in crosstab.columns
    )
    corner = f"{md_text(ctx.field_label(row_field))} \\ {md_text(ctx.field_label(column_field))}"
    lines = [
        '<div class="masrl-crosstab-wrap">',
        '<table class="masrl-crosstab">',
        f'<thead><tr><th scope="col">{corner}</th>{head}</tr></thead>',
        "<tbody>",
    ]
    for row, counts in zip(crosstab.rows, crosstab.cells, strict=True):
        cells = []
        for column, count in zip(crosstab.columns, counts, strict=True):
            css = corpus_gaps.cell_class(count, sparse)
            if count:
                href = table_filter_url(page, {row_field: row, column_field: column})
                content = f'<a href="{html_attr(href)}">{count}</a>'
            else:
                content = '<span aria-label="empty">0</span>'
            cells.append(
                f'<td class="masrl-cell {"masrl-cell--" + css if css else ""}">{content}</td>'
            )
        lines.append(
            f'<tr><th scope="row">{md_text(ctx.value_label(row_field, row))}</th>{"".join(cells)}</tr>'
        )
    lines += ["</tbody>", "</table>", "</div>"]
    return "\n".join(lines)


def legend_html() -> str:
    return (
        '<p class="masrl-legend"><span class="masrl-cell masrl-cell--empty">0</span> empty cell (a gap) '
        '<span class="masrl-cell masrl-cell--sparse">1</span> sparse cell (1 or 2 entries)</p>'
    )


# ---------------------------------------------------------------------------------------------
# Gaps.


def _key_link(ctx: SiteContext, page: str, key: str) -> str:
    if key in ctx.by_key:
        return ctx.entry_link(page, key, key)
    return f"<code>{md_text(key)}</code> (no longer in the corpus)"  # e.g. a claim's culprit


def _key_links(ctx: SiteContext, page: str, keys, limit: int = KEYS_SHOWN) -> str:
    """Links to the entries named by key, the first ``limit`` of them."""
    if not keys:
        return "none"
    shown = ", ".join(_key_link(ctx, page, key) for key in keys[:limit])
    return shown + (f" and {len(keys) - limit} more" if len(keys) > limit else "")


def gaps_markdown(ctx: SiteContext) -> str:
    page = GAPS_PAGE
    # The cross-tabs the statistics page counted, not counted again.
    found = corpus_gaps.find_gaps(ctx.corpus, crosstabs=ctx.stats.crosstabs)
    frozen = (
        corpus_gaps.find_gaps(ctx.snapshot, crosstabs=ctx.snapshot_stats.crosstabs)
        if ctx.snapshot is not None
        else None
    )
    parts = [
        "# Gaps",
        "",
        (
            "Where the corpus is thin: empty and sparse cells of each cross-tabulation, taxonomy values no "
            "entry holds, the orchestration sub-decisions that RL-trained entries address, and the evaluation "
            "measures benchmarks cover. These feed the survey's open problems."
        ),
        "",
        legend_html(),
        "",
        "## Values no retained entry holds",
        "",
    ]
    for name, values in found.unused_values.items():
        chips = " ".join(ctx.chip(page, name, v) for v in values) if values else "none"
        parts += [f"- {md_text(found.labels[name])}: {chips}"]
    parts += ["", "## Sub-decision coverage of RL-trained entries", ""]
    parts += [
        _coverage_table(
            ctx,
            page,
            "sub_decisions",
            found.sub_decision_coverage,
            "RL-trained entries",
            frozen.sub_decision_coverage if frozen is not None else None,
        ),
        "",
    ]
    parts += ["## Benchmark coverage of evaluation measures", ""]
    parts += [
        _coverage_table(
            ctx,
            page,
            "evaluation_measures",
            found.benchmark_measures,
            "Benchmarks",
            frozen.benchmark_measures if frozen is not None else None,
        ),
        "",
    ]
    parts += ["## Empty and sparse cells", ""]
    for item in found.crosstabs.values():
        title = f"{found.labels[item.row_field]} × {found.labels[item.column_field]}"
        parts += [f"### {md_text(title)} {{ #{anchor_id('gaps', item.name)} }}", ""]
        parts += [crosstab_html(ctx, page, item.table, found.sparse_threshold), ""]
        parts += [
            f"{len(item.empty)} empty and {len(item.sparse)} sparse of {item.table.size} cells.",
            "",
        ]
        if frozen is not None and item.name in frozen.crosstabs:
            parts += _moved_gaps_html(ctx, page, item, frozen.crosstabs[item.name])
        for cell in item.sparse:
            pair = f"{ctx.chip(page, item.row_field, cell.row)} × {ctx.chip(page, item.column_field, cell.column)}"
            parts.append(f"- {pair} ({cell.count}): {_key_links(ctx, page, cell.entries)}")
        parts += [""]
    return "\n".join(parts)


def _moved_gaps_html(ctx: SiteContext, page: str, item, frozen) -> list[str]:
    """The gaps of one cross-tab closed or opened since the snapshot."""
    closed, opened = corpus_gaps.moved_gaps(item, frozen)

    def cells(pairs) -> str:
        return ", ".join(
            f"{ctx.chip(page, item.row_field, r)} × {ctx.chip(page, item.column_field, c)}"
            for r, c in pairs
        )

    lines = []
    if closed:
        lines.append(
            f"Closed since snapshot <code>{md_text(PUBLISHED_SNAPSHOT)}</code> (empty then): {cells(closed)}"
        )
    if opened:
        lines.append(
            f"Opened since snapshot <code>{md_text(PUBLISHED_SNAPSHOT)}</code> (held then): {cells(opened)}"
        )
    return [line for text in lines for line in (text, "")]


def _coverage_table(
    ctx: SiteContext, page: str, field_name: str, coverage, noun: str, frozen=None
) -> str:
    old = {item.value: item.count for item in frozen} if frozen is not None else None
    rows = []
    for item in coverage:
        count = (
            f'<span class="masrl-count-gap">{item.count}</span>'
            if not item.count
            else str(item.count)
        )
        row = [ctx.chip(page, field_name, item.value), count]
        if old is not None:
            row += [str(old.get(item.value, "-")), change(item.count, old.get(item.value))]
        rows.append(row + [_key_links(ctx, page, item.entries)])
    headers = ["Value", noun] + (["Snapshot", "Change"] if old is not None else []) + ["Entries"]
    return table(headers, rows, "l" + "r" * (len(headers) - 2) + "l")


# ---------------------------------------------------------------------------------------------
# Claims.


def claims_markdown(ctx: SiteContext) -> str:
    from masrl.derive import claims
    from masrl.render.claims import format_value, live_text

    page = CLAIMS_PAGE
    intro = [
        "# Claim ledger",
        "",
        (
            "The survey's central claims, each written as a query over the tagged fields and re-checked "
            "against the corpus every time the site is built (`masrl claims` runs the same check). A claim "
            "that no longer holds names the entries behind the change."
        ),
        "",
    ]
    if not claims.ledger_path_of(ctx.corpus).exists():
        return "\n".join(intro + ["This corpus has no claim ledger (`claims/ledger.yaml`).", ""])
    # The snapshot the context already loaded (claims_report would read and parse it again).
    report = claims.compare_claims(
        ctx.corpus, ctx.snapshot, PUBLISHED_SNAPSHOT if ctx.snapshot is not None else None
    )
    results = report.live_results
    changed = {c.id: c for c in report.changed}
    held = sum(r.holds for r in results)
    rows = [
        [
            f"[{md_text(r.id)}](#{anchor_id('claim', r.id)})",
            md_text(format_value(r.claim.expect)),
            md_text(live_text(r)),
            _status_badge(r.holds, r.id in changed),
        ]
        for r in results
    ]
    parts = intro + [
        f'<p class="masrl-claims-summary">{held} of {len(results)} claims hold.</p>',
        "",
        *_changed_admonition(ctx, page, report),
        table(["Claim", "Expected", "Live", "Status"], rows, "lllc"),
        "",
    ]
    for r in results:
        parts += [f"## {md_text(r.id)} {{ #{anchor_id('claim', r.id)} }}", ""]
        parts += [f"{_status_badge(r.holds, r.id in changed)} {md_text(r.claim.statement)}", ""]
        facts = [
            f"- Query: <code>{md_text(r.claim.query.text)}</code>",
            *([f"- Terms: {terms}"] if (terms := _query_terms(ctx, page, r.claim.query)) else []),
            f"- Expected: {md_text(format_value(r.claim.expect))}; live: {md_text(live_text(r))}",
        ]
        facts += [
            f"- Entries ({md_text(part)}): {_key_links(ctx, page, keys)}"
            for part, keys in r.entries.items()
        ]
        if not r.holds:
            facts += [f"- Why it fails: {md_text(r.detail)}"]
            if r.culprits:
                facts += [f"- Entries to look at: {_key_links(ctx, page, r.culprits)}"]
        facts += [f"- Boundary: {md_text(r.claim.boundary)}"]
        parts += facts + [""]
    return "\n".join(parts)


def _field_link(ctx: SiteContext, page: str, name: str) -> str:
    """A field as its label, linking to its browse page (the list of its values and entries)."""
    label = md_text(ctx.field_label(name))
    if name in ctx.browse_fields:
        return f'<a href="{html_attr(html_href(page, browse_page(name)))}">{label}</a>'
    return label


def _query_terms(ctx: SiteContext, page: str, query) -> str:
    """The fields and values a claim's query names, as labels linking to their lists (the
    query itself shows the ledger's keys)."""
    terms = []
    for condition in (*query.where, *(query.of_which or ())):
        name, allowed = condition.field, condition.allowed
        if isinstance(allowed, str):
            values = "any value" if allowed == "*" else md_text(NOT_APPLICABLE)
        else:
            known = ctx.taxonomy[ctx.fields[name].axis].by_id if name in ctx.fields else {}
            values = " ".join(
                ctx.chip(page, name, v) if v in known else f"<code>{md_text(v)}</code>"
                for v in allowed
            )
        terms.append(f"{_field_link(ctx, page, name)} {values}")
    if query.field_name:
        terms.append(f"counted by {_field_link(ctx, page, query.field_name)}")
    return "; ".join(terms)


def _changed_admonition(ctx: SiteContext, page: str, report) -> list[str]:
    """A warning box above the table naming each claim that changed and the records behind it.

    Written as the HTML Markdown's admonition makes of it: as Markdown, each claim's list of
    changed records is one list item, whose inline parsing grows with the square of its length.
    The table follows on the very next line, as after an admonition Markdown starts the next
    block without a blank line in between (a blank line after raw HTML adds one); the claims'
    anchors are still checked through the table's links to them."""
    if not report.changed:
        return []
    lines = [
        '<div class="admonition warning">',
        '<p class="admonition-title">Changed claims</p>',
        f"<p>These claims hold on the frozen snapshot <code>{md_text(report.snapshot)}</code> of the survey but no "
        "longer hold on the live corpus:</p>",
        "<ul>",
    ]
    for c in report.changed:
        causes = "; ".join(md_text(cause.describe()) for cause in c.causes)
        lines.append(
            f'<li><a href="#{anchor_id("claim", c.id)}">{md_text(c.id)}</a>: {md_text(c.live.detail)}. '
            f"Changed by {causes}.</li>"
        )
    return lines + ["</ul>", "</div>"]


def _status_badge(holds: bool, changed: bool = False) -> str:
    if changed:
        return '<span class="masrl-status masrl-status--fails">changed</span>'
    if holds:
        return '<span class="masrl-status masrl-status--holds">holds</span>'
    return '<span class="masrl-status masrl-status--fails">fails</span>'


# ---------------------------------------------------------------------------------------------
# The screening log.


def screening_markdown(ctx: SiteContext) -> str:
    page = SCREENING_PAGE
    corpus = ctx.corpus
    taxonomy = ctx.taxonomy
    records = sorted(corpus.exclusions, key=lambda r: r.record_id)
    parts = [
        "# Screening log",
        "",
        (
            f"{corpus.audited} records were audited: {len(corpus.entries)} are retained as entries and "
            f"{len(records)} were excluded, each with a logged stage, reason and rationale "
            "(one file per record in `exclusions/`)."
        ),
        "",
        figure_markdown(corpus.taxonomy, page, SCREENING_FIGURE),
        "",
        "## Excluded records by stage and reason",
        "",
    ]
    tables = []
    for field_name, counts in ctx.stats.exclusion_counts.items():
        rows = [[md_text(label), str(count)] for _, label, count in counts]
        tables.append((md_text(ctx.stats.labels[field_name]), ["Value", "Records"], rows))
    parts += [compact_tables(tables), ""]
    parts += ["## Every excluded record, by stage", ""]
    stages = taxonomy["screening_stages"]
    for stage in stages.ids:
        members = [r for r in records if r.stage == stage]
        parts += [
            f"### {md_text(stages.label_of(stage))} ({len(members)}) {{ #{anchor_id('stage', stage)} }}",
            "",
        ]
        parts += [f'<p class="masrl-definition">{md_text(stages.by_id[stage].definition)}</p>', ""]
        for record in members:
            facts = " · ".join(
                md_text(x)
                for x in (
                    taxonomy["exclusion_reasons"].label_of(record.reason_code),
                    taxonomy["source_kinds"].label_of(record.source),
                    record.identifier,
                    record.date_screened,
                )
            )
            parts.append(
                f'- <span id="{anchor_id(record.record_id)}" class="masrl-record-id">{md_text(record.record_id)}</span> '
                f'**{external_link(record.url, record.title)}** <span class="masrl-facts">{facts}</span>'
                f"<br>\n  {md_text(record.rationale)}"
            )
        parts += [""]
    return "\n".join(parts)

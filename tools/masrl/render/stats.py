"""Statistics as Markdown tables, JSON and CSV."""

from __future__ import annotations

import json
from collections.abc import Iterable

from masrl.csvsafe import csv_text
from masrl.derive.stats import NOT_APPLICABLE, Stats
from masrl.derive.tables import Counts, CrossTab


def markdown_table(
    headers: list[str], rows: Iterable[Iterable[object]], align: str | None = None
) -> str:
    """A GitHub Markdown table; ``align`` has one letter per column, l or r (default: l then r)."""
    align = align or "l" + "r" * (len(headers) - 1)
    rule = ["---:" if a == "r" else "---" for a in align]
    lines = ["| " + " | ".join(headers) + " |", "| " + " | ".join(rule) + " |"]
    lines += [
        "| " + " | ".join(str(cell).replace("|", "\\|") for cell in row) + " |" for row in rows
    ]
    return "\n".join(lines)


def _share(count: int, total: int) -> str:
    return f"{100 * count / total:.0f}%" if total else "-"


def change(live: int, frozen: int | None) -> str:
    """Live minus snapshot as a signed figure; "new" for a value the snapshot's vocabulary lacked."""
    if frozen is None:
        return "new"
    return f"{live - frozen:+d}" if live != frozen else "0"


def counts_markdown(
    counts: Counts, total: int | None = None, noun: str = "Entries", baseline: Counts | None = None
) -> str:
    """An axis-count table; with ``total`` a share-of-entries column is added, with ``baseline``
    (the same table on the snapshot) a Snapshot and a Change column."""
    headers = ["Value", "Label", noun] + (["Share"] if total is not None else [])
    headers += ["Snapshot", "Change"] if baseline is not None else []
    rows = []
    for value, label, count in counts:
        cells = [f"`{value}`" if value != NOT_APPLICABLE else f"_{NOT_APPLICABLE}_", label, count]
        if total is not None:
            cells.append(_share(count, total))
        if baseline is not None:
            frozen = baseline.get(value)
            cells += ["-" if frozen is None else frozen, change(count, frozen)]
        rows.append(cells)
    return markdown_table(headers, rows, "l" + "l" + "r" * (len(headers) - 2))


def crosstab_markdown(table: CrossTab, format_cell=None, baseline: CrossTab | None = None) -> str:
    """A cross-tab as a Markdown table; ``format_cell(count)`` may decorate the cells. With
    ``baseline`` (the same cross-tab on the snapshot) a cell that moved shows its snapshot count
    in brackets."""
    format_cell = format_cell or str

    def cell(row: str, column: str, count: int) -> str:
        shown = format_cell(count)
        if baseline is None:
            return shown
        frozen = baseline.get(row, column)
        return shown if frozen == count else f"{shown} ({'-' if frozen is None else frozen})"

    headers = [f"{table.row_field} \\ {table.column_field}", *[f"`{c}`" for c in table.columns]]
    rows = [
        [
            f"`{row}`",
            *[
                cell(row, column, count)
                for column, count in zip(table.columns, counts, strict=True)
            ],
        ]
        for row, counts in zip(table.rows, table.cells, strict=True)
    ]
    return markdown_table(headers, rows)


def snapshot_note(name: str) -> str:
    return (
        f"Snapshot: the same count on the frozen snapshot `{name}` (the survey as published); "
        "Change: live minus snapshot. A cross-tab cell that moved shows its snapshot count in brackets."
    )


def stats_markdown(
    stats: Stats,
    heading_level: int = 2,
    baseline: Stats | None = None,
    baseline_name: str | None = None,
) -> str:
    """All statistics as Markdown: headline, per-axis counts, cross-tabs, exclusions. With
    ``baseline`` (the statistics of a frozen snapshot) every count stands beside its snapshot count."""
    h = "#" * heading_level
    compared = baseline is not None

    def of(tables: dict[str, Counts] | None, name: str) -> Counts | None:
        # An axis the snapshot's vocabulary lacked: every value is new.
        return tables.get(name, Counts(name, (), (), ())) if tables is not None else None

    headline = [[label, count] for _, label, count in stats.headline]
    headers = ["Records", "Count"]
    if compared:
        headers += ["Snapshot", "Change"]
        headline = [
            [label, count, frozen, change(count, frozen)]
            for (label, count), frozen in zip(headline, baseline.headline.counts, strict=True)
        ]
    parts = [f"{h} Headline", ""]
    parts += [snapshot_note(baseline_name or "snapshot"), ""] if compared else []
    parts += [markdown_table(headers, headline), ""]
    parts += [f"{h} Counts per axis", ""]
    parts += [
        "Shares are of the retained entries. A multi-valued field counts an entry once per value, "
        "so its shares can add up to more than 100%.",
        "",
    ]
    frozen_axes = baseline.axis_counts if compared else None
    for name, counts in stats.axis_counts.items():
        table = counts_markdown(counts, stats.entries, baseline=of(frozen_axes, name))
        parts += [f"{h}# {stats.labels[name]} (`{name}`)", "", table, ""]
    parts += [f"{h} Cross-tabulations", ""]
    parts += [
        "Each cell counts the entries holding both values; entries without a value on either axis are left out.",
        "",
    ]
    for name, table in stats.crosstabs.items():
        frozen = baseline.crosstabs.get(name) if compared else None
        parts += [f"{h}# {stats.labels[table.row_field]} × {stats.labels[table.column_field]}", ""]
        parts += [crosstab_markdown(table, baseline=frozen), ""]
    parts += [f"{h} Screening log (excluded records)", ""]
    frozen_exclusions = baseline.exclusion_counts if compared else None
    for name, counts in stats.exclusion_counts.items():
        table = counts_markdown(counts, noun="Records", baseline=of(frozen_exclusions, name))
        parts += [f"{h}# {stats.labels[name]} (`{name}`)", "", table, ""]
    return "\n".join(parts).rstrip() + "\n"


def stats_data(stats: Stats) -> dict:
    """Plain data for JSON: lists keep taxonomy order, objects are sorted by key on output."""

    def counts(table: Counts) -> list[dict]:
        return [{"value": value, "label": label, "count": count} for value, label, count in table]

    def crosstab(table: CrossTab) -> dict:
        return {
            "row_field": table.row_field,
            "column_field": table.column_field,
            "rows": list(table.rows),
            "columns": list(table.columns),
            "counts": [list(row) for row in table.cells],
        }

    return {
        "headline": stats.headline.as_dict(),
        "axis_counts": {name: counts(table) for name, table in stats.axis_counts.items()},
        "crosstabs": {name: crosstab(table) for name, table in stats.crosstabs.items()},
        "exclusion_counts": {name: counts(table) for name, table in stats.exclusion_counts.items()},
    }


def stats_json(stats: Stats) -> str:
    return json.dumps(stats_data(stats), indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def stats_rows(stats: Stats) -> list[tuple[str, str, str, int]]:
    """Every count in long form: (table, row, column, count); column is "" for one-way tables.

    Tables are named headline, axis.<field>, crosstab.<row>_x_<column> and exclusions.<field>.
    """
    rows: list[tuple[str, str, str, int]] = []
    rows += [("headline", value, "", count) for value, _, count in stats.headline]
    for name, table in stats.axis_counts.items():
        rows += [(f"axis.{name}", value, "", count) for value, _, count in table]
    for name, crosstab in stats.crosstabs.items():
        rows += [(f"crosstab.{name}", row, column, count) for row, column, count in crosstab]
    for name, table in stats.exclusion_counts.items():
        rows += [(f"exclusions.{name}", value, "", count) for value, _, count in table]
    return rows


def stats_csv(stats: Stats) -> str:
    """Long (tidy) CSV with the header table,row,column,count."""
    return csv_text(["table", "row", "column", "count"], stats_rows(stats))

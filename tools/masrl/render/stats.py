"""Statistics as Markdown tables, JSON and CSV."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable

import pandas as pd

from masrl.derive.stats import NOT_APPLICABLE, Stats


def markdown_table(headers: list[str], rows: Iterable[Iterable[object]], align: str | None = None) -> str:
    """A GitHub Markdown table; ``align`` has one letter per column, l or r (default: l then r)."""
    align = align or "l" + "r" * (len(headers) - 1)
    rule = ["---:" if a == "r" else "---" for a in align]
    lines = ["| " + " | ".join(headers) + " |", "| " + " | ".join(rule) + " |"]
    lines += ["| " + " | ".join(str(cell).replace("|", "\\|") for cell in row) + " |" for row in rows]
    return "\n".join(lines)


def _share(count: int, total: int) -> str:
    return f"{100 * count / total:.0f}%" if total else "-"


def counts_markdown(frame: pd.DataFrame, total: int | None = None, noun: str = "Entries") -> str:
    """An axis-count table; with ``total`` a share-of-entries column is added."""
    headers = ["Value", "Label", noun] + (["Share"] if total is not None else [])
    rows = []
    for value, row in frame.iterrows():
        cells = [f"`{value}`" if value != NOT_APPLICABLE else f"_{NOT_APPLICABLE}_", row["label"], int(row["count"])]
        if total is not None:
            cells.append(_share(int(row["count"]), total))
        rows.append(cells)
    return markdown_table(headers, rows, "llr" + ("r" if total is not None else ""))


def crosstab_markdown(table: pd.DataFrame, format_cell=None) -> str:
    """A cross-tab as a Markdown table; ``format_cell(count)`` may decorate the cells."""
    format_cell = format_cell or str
    headers = [f"{table.index.name} \\ {table.columns.name}", *[f"`{c}`" for c in table.columns]]
    rows = [[f"`{row}`", *[format_cell(int(v)) for v in table.loc[row]]] for row in table.index]
    return markdown_table(headers, rows)


def stats_markdown(stats: Stats, heading_level: int = 2) -> str:
    """All statistics as Markdown: headline, per-axis counts, cross-tabs, exclusions."""
    h = "#" * heading_level
    headline = [[row["label"], int(row["count"])] for _, row in stats.headline.iterrows()]
    parts = [f"{h} Headline", "", markdown_table(["Records", "Count"], headline), ""]
    parts += [f"{h} Counts per axis", ""]
    parts += [
        "Shares are of the retained entries. A multi-valued field counts an entry once per value, "
        "so its shares can add up to more than 100%.",
        "",
    ]
    for name, frame in stats.axis_counts.items():
        parts += [f"{h}# {stats.labels[name]} (`{name}`)", "", counts_markdown(frame, stats.entries), ""]
    parts += [f"{h} Cross-tabulations", ""]
    parts += ["Each cell counts the entries holding both values; entries without a value on either axis are left out.", ""]
    for name, table in stats.crosstabs.items():
        parts += [f"{h}# {stats.labels[table.index.name]} × {stats.labels[table.columns.name]}", ""]
        parts += [crosstab_markdown(table), ""]
    parts += [f"{h} Screening log (excluded records)", ""]
    for name, frame in stats.exclusion_counts.items():
        parts += [f"{h}# {stats.labels[name]} (`{name}`)", "", counts_markdown(frame, noun="Records"), ""]
    return "\n".join(parts).rstrip() + "\n"


def stats_data(stats: Stats) -> dict:
    """Plain data for JSON: lists keep taxonomy order, objects are sorted by key on output."""

    def counts(frame: pd.DataFrame) -> list[dict]:
        return [{"value": v, "label": r["label"], "count": int(r["count"])} for v, r in frame.iterrows()]

    def table(frame: pd.DataFrame) -> dict:
        return {
            "row_field": frame.index.name,
            "column_field": frame.columns.name,
            "rows": list(frame.index),
            "columns": list(frame.columns),
            "counts": [[int(v) for v in frame.loc[row]] for row in frame.index],
        }

    return {
        "headline": {name: int(stats.headline.loc[name, "count"]) for name in stats.headline.index},
        "axis_counts": {name: counts(frame) for name, frame in stats.axis_counts.items()},
        "crosstabs": {name: table(frame) for name, frame in stats.crosstabs.items()},
        "exclusion_counts": {name: counts(frame) for name, frame in stats.exclusion_counts.items()},
    }


def stats_json(stats: Stats) -> str:
    return json.dumps(stats_data(stats), indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def stats_rows(stats: Stats) -> list[tuple[str, str, str, int]]:
    """Every count in long form: (table, row, column, count); column is "" for one-way tables.

    Tables are named headline, axis.<field>, crosstab.<row>_x_<column> and exclusions.<field>.
    """
    rows: list[tuple[str, str, str, int]] = []
    for value, row in stats.headline.iterrows():
        rows.append(("headline", value, "", int(row["count"])))
    for name, frame in stats.axis_counts.items():
        rows += [(f"axis.{name}", value, "", int(row["count"])) for value, row in frame.iterrows()]
    for name, table in stats.crosstabs.items():
        rows += [
            (f"crosstab.{name}", row, column, int(table.loc[row, column]))
            for row in table.index
            for column in table.columns
        ]
    for name, frame in stats.exclusion_counts.items():
        rows += [(f"exclusions.{name}", value, "", int(row["count"])) for value, row in frame.iterrows()]
    return rows


def stats_csv(stats: Stats) -> str:
    """Long (tidy) CSV with the header table,row,column,count."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["table", "row", "column", "count"])
    writer.writerows(stats_rows(stats))
    return buffer.getvalue()

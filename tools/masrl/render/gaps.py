"""Gap tables as Markdown and JSON."""

from __future__ import annotations

import json
from dataclasses import asdict

from masrl.derive.gaps import (
    DEFAULT_SPARSE,
    EMPTY_CLASS,
    SPARSE_CLASS,
    Coverage,
    CrosstabGaps,
    Gaps,
    cell_class,
    moved_gaps,
)
from masrl.render.stats import change, crosstab_markdown, markdown_table

EMPTY_MARK = "—"


def format_cell(count: int, sparse: int = DEFAULT_SPARSE) -> str:
    """Markdown for one count: an em dash when empty, bold when sparse."""
    kind = cell_class(count, sparse)
    if kind == EMPTY_CLASS:
        return EMPTY_MARK
    return f"**{count}**" if kind == SPARSE_CLASS else str(count)


def legend(sparse: int = DEFAULT_SPARSE) -> str:
    thin = "1" if sparse == 1 else f"1 to {sparse}"
    text = f"Legend: {EMPTY_MARK} empty cell (no entry)"
    return text + (f"; **bold** sparse cell ({thin} entries)." if sparse else ".")


def _keys(keys) -> str:
    return ", ".join(f"`{k}`" for k in keys) if keys else "none"


def gaps_markdown(
    gaps: Gaps,
    heading_level: int = 2,
    baseline: Gaps | None = None,
    baseline_name: str | None = None,
) -> str:
    """All gap findings as Markdown, cross-tabs highlighted, every sparse cell with its entries.
    With ``baseline`` (the gaps of a frozen snapshot) each table says which gaps closed or opened."""
    h = "#" * heading_level
    sparse = gaps.sparse_threshold
    parts = [f"{h} Empty and sparse cells", "", legend(sparse), ""]
    if baseline is not None:
        parts += [
            f"A cell that moved since the frozen snapshot `{baseline_name}` shows its snapshot count "
            "in brackets.",
            "",
        ]
    for name, found in gaps.crosstabs.items():
        frozen = baseline.crosstabs.get(name) if baseline is not None else None
        title = f"{gaps.labels[found.row_field]} × {gaps.labels[found.column_field]}"
        parts += [f"{h}# {title}", ""]
        table = crosstab_markdown(
            found.table,
            lambda count: format_cell(count, sparse),
            baseline=frozen.table if frozen is not None else None,
        )
        parts += [table, ""]
        parts += [
            f"{len(found.empty)} empty and {len(found.sparse)} sparse of {found.table.size} cells."
        ]
        parts += [
            f"- `{c.row}` × `{c.column}` ({c.count}): {_keys(c.entries)}" for c in found.sparse
        ]
        if frozen is not None:
            parts += _moved_gaps(found, frozen, baseline_name)
        parts += [""]
    parts += [f"{h} Values no retained entry holds", ""]
    for name, values in gaps.unused_values.items():
        line = f"- {gaps.labels[name]} (`{name}`): {_keys(values)}"
        if baseline is not None:
            filled = [v for v in baseline.unused_values.get(name, ()) if v not in values]
            line += f" (since the snapshot, now held: {_keys(filled)})" if filled else ""
        parts += [line]
    parts += ["", f"{h} Sub-decision coverage of RL-trained entries", ""]
    frozen_coverage = baseline.sub_decision_coverage if baseline is not None else None
    parts += [
        _coverage_table(gaps.sub_decision_coverage, "RL-trained entries", frozen_coverage),
        "",
    ]
    parts += [
        f"Covered by at least one RL-trained entry: {_keys(gaps.sub_decisions_covered)}. "
        f"Not covered: {_keys(gaps.sub_decisions_uncovered)}.",
        "",
    ]
    parts += [f"{h} Benchmark coverage of evaluation measures", ""]
    frozen_measures = baseline.benchmark_measures if baseline is not None else None
    parts += [_coverage_table(gaps.benchmark_measures, "Benchmarks", frozen_measures), ""]
    parts += [f"Measures no benchmark covers: {_keys(gaps.measures_uncovered)}."]
    return "\n".join(parts).rstrip() + "\n"


def _moved_gaps(found: CrosstabGaps, frozen: CrosstabGaps, name: str | None) -> list[str]:
    """The gaps this cross-tab closed or opened since the snapshot, one line each way."""
    closed, opened = moved_gaps(found, frozen)

    def cells(pairs) -> str:
        return ", ".join(f"`{row}` × `{column}`" for row, column in pairs)

    lines = []
    if closed:
        lines.append(f"- Closed since snapshot `{name}` (empty then): {cells(closed)}")
    if opened:
        lines.append(f"- Opened since snapshot `{name}` (held then): {cells(opened)}")
    return lines


def _coverage_table(
    coverage: tuple[Coverage, ...], noun: str, baseline: tuple[Coverage, ...] | None = None
) -> str:
    frozen = {c.value: c.count for c in baseline} if baseline is not None else None
    headers = (
        ["Value", "Label", noun]
        + (["Snapshot", "Change"] if frozen is not None else [])
        + ["Entries"]
    )
    rows = []
    for c in coverage:
        row = [f"`{c.value}`", c.label, format_cell(c.count, 0)]
        if frozen is not None:
            row += [frozen.get(c.value, "-"), change(c.count, frozen.get(c.value))]
        rows.append(row + [_keys(c.entries)])
    return markdown_table(headers, rows, "ll" + "r" * (len(headers) - 3) + "l")


def gaps_data(gaps: Gaps) -> dict:
    def cells(found: CrosstabGaps) -> dict:
        return {
            "row_field": found.row_field,
            "column_field": found.column_field,
            "empty": [[c.row, c.column] for c in found.empty],
            "sparse": [asdict(c) | {"entries": list(c.entries)} for c in found.sparse],
        }

    def coverage(items: tuple[Coverage, ...]) -> list[dict]:
        return [asdict(c) | {"entries": list(c.entries)} for c in items]

    return {
        "sparse_threshold": gaps.sparse_threshold,
        "crosstabs": {name: cells(found) for name, found in gaps.crosstabs.items()},
        "unused_values": {name: list(values) for name, values in gaps.unused_values.items()},
        "sub_decision_coverage": coverage(gaps.sub_decision_coverage),
        "benchmark_measures": coverage(gaps.benchmark_measures),
    }


def gaps_json(gaps: Gaps) -> str:
    return json.dumps(gaps_data(gaps), indent=2, sort_keys=True, ensure_ascii=False) + "\n"

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
)
from masrl.render.stats import crosstab_markdown, markdown_table

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


def gaps_markdown(gaps: Gaps, heading_level: int = 2) -> str:
    """All gap findings as Markdown, cross-tabs highlighted, every sparse cell with its entries."""
    h = "#" * heading_level
    sparse = gaps.sparse_threshold
    parts = [f"{h} Empty and sparse cells", "", legend(sparse), ""]
    for found in gaps.crosstabs.values():
        title = f"{gaps.labels[found.row_field]} × {gaps.labels[found.column_field]}"
        parts += [f"{h}# {title}", ""]
        parts += [crosstab_markdown(found.table, lambda count: format_cell(count, sparse)), ""]
        parts += [f"{len(found.empty)} empty and {len(found.sparse)} sparse of {found.table.size} cells."]
        parts += [f"- `{c.row}` × `{c.column}` ({c.count}): {_keys(c.entries)}" for c in found.sparse]
        parts += [""]
    parts += [f"{h} Values no retained entry holds", ""]
    for name, values in gaps.unused_values.items():
        parts += [f"- {gaps.labels[name]} (`{name}`): {_keys(values)}"]
    parts += ["", f"{h} Sub-decision coverage of RL-trained entries", ""]
    parts += [_coverage_table(gaps.sub_decision_coverage, "RL-trained entries"), ""]
    parts += [
        f"Covered by at least one RL-trained entry: {_keys(gaps.sub_decisions_covered)}. "
        f"Not covered: {_keys(gaps.sub_decisions_uncovered)}.",
        "",
    ]
    parts += [f"{h} Benchmark coverage of evaluation measures", ""]
    parts += [_coverage_table(gaps.benchmark_measures, "Benchmarks"), ""]
    parts += [f"Measures no benchmark covers: {_keys(gaps.measures_uncovered)}."]
    return "\n".join(parts).rstrip() + "\n"


def _coverage_table(coverage: tuple[Coverage, ...], noun: str) -> str:
    rows = [[f"`{c.value}`", c.label, format_cell(c.count, 0), _keys(c.entries)] for c in coverage]
    return markdown_table(["Value", "Label", noun, "Entries"], rows, "llrl")


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





"""Gap tables: where the corpus is thin, for the survey's open-problems discussion.

- every cross-tab of ``stats.CROSSTABS`` with its empty cells (no entry) and sparse cells
  (1 to ``sparse`` entries, 2 by default), each cell with the entries behind it;
- reward families and credit units that no retained entry holds;
- which orchestration sub-decisions (O1-O5) at least one RL-trained entry (is_rl: yes) addresses;
- which evaluation measures the benchmark entries cover.

Markdown marks empty cells with an em dash and sets sparse counts in bold; ``cell_classes`` and
``crosstab_html`` give the site the same distinction as CSS classes ("empty", "sparse", "").
"""

from __future__ import annotations

import html
import json
from dataclasses import asdict, dataclass

import pandas as pd

from masrl.model.records import Corpus
from masrl.derive.stats import (
    CROSSTABS,
    NOT_APPLICABLE,
    crosstab,
    crosstab_markdown,
    crosstab_name,
    entries_in_cell,
    entries_with_value,
    field_labels,
    markdown_table,
)

DEFAULT_SPARSE = 2
EMPTY_MARK = "—"
# Fields whose values with no retained entry are reported as gaps.
UNUSED_VALUE_FIELDS = ("reward_families", "credit_units")
EMPTY_CLASS, SPARSE_CLASS = "empty", "sparse"


@dataclass(frozen=True)
class Cell:
    """One cross-tab cell and the entries counted in it."""

    row: str
    column: str
    count: int
    entries: tuple[str, ...]


@dataclass(frozen=True)
class CrosstabGaps:
    name: str
    row_field: str
    column_field: str
    table: pd.DataFrame
    empty: tuple[Cell, ...]
    sparse: tuple[Cell, ...]


@dataclass(frozen=True)
class Coverage:
    """How many entries of a subset hold one value, and which."""

    value: str
    label: str
    count: int
    entries: tuple[str, ...]


@dataclass(frozen=True)
class Gaps:
    """All gap findings of one corpus (see the module docstring)."""

    sparse_threshold: int
    crosstabs: dict[str, CrosstabGaps]
    unused_values: dict[str, tuple[str, ...]]
    sub_decision_coverage: tuple[Coverage, ...]
    benchmark_measures: tuple[Coverage, ...]
    labels: dict[str, str]

    @property
    def sub_decisions_covered(self) -> list[str]:
        return [c.value for c in self.sub_decision_coverage if c.count]

    @property
    def sub_decisions_uncovered(self) -> list[str]:
        return [c.value for c in self.sub_decision_coverage if not c.count]

    @property
    def measures_uncovered(self) -> list[str]:
        return [c.value for c in self.benchmark_measures if not c.count]


def cell_class(count: int, sparse: int = DEFAULT_SPARSE) -> str:
    """"empty" for 0, "sparse" for 1..sparse, "" otherwise."""
    if count == 0:
        return EMPTY_CLASS
    return SPARSE_CLASS if count <= sparse else ""


def cell_classes(table: pd.DataFrame, sparse: int = DEFAULT_SPARSE) -> pd.DataFrame:
    """A frame shaped like ``table`` holding each cell's CSS class: "empty", "sparse" or ""."""
    return table.apply(lambda column: column.map(lambda count: cell_class(int(count), sparse)))


def find_gaps(corpus: Corpus, sparse: int = DEFAULT_SPARSE) -> Gaps:
    """Every gap finding; ``sparse`` is the largest count a sparse cell may have."""
    if sparse < 0:
        raise ValueError("the sparse threshold must be 0 or more")
    return Gaps(
        sparse_threshold=sparse,
        crosstabs={crosstab_name(r, c): crosstab_gaps(corpus, r, c, sparse) for r, c in CROSSTABS},
        unused_values={name: unused_values(corpus, name) for name in UNUSED_VALUE_FIELDS},
        sub_decision_coverage=sub_decision_coverage(corpus),
        benchmark_measures=benchmark_measure_coverage(corpus),
        labels=field_labels(corpus.taxonomy),
    )


def unused_values(corpus: Corpus, field_name: str) -> tuple[str, ...]:
    """Taxonomy values of a field that no retained entry holds, in taxonomy order."""
    groups = entries_with_value(corpus, field_name)
    return tuple(value for value, members in groups.items() if value != NOT_APPLICABLE and not members)


def crosstab_gaps(corpus: Corpus, row_field: str, column_field: str, sparse: int = DEFAULT_SPARSE) -> CrosstabGaps:
    table = crosstab(corpus, row_field, column_field)
    empty, thin = [], []
    for row in table.index:
        for column in table.columns:
            count = int(table.loc[row, column])
            kind = cell_class(count, sparse)
            if kind == EMPTY_CLASS:
                empty.append(Cell(row, column, 0, ()))
            elif kind == SPARSE_CLASS:
                members = entries_in_cell(corpus, row_field, column_field, row, column)
                thin.append(Cell(row, column, count, tuple(members)))
    return CrosstabGaps(crosstab_name(row_field, column_field), row_field, column_field, table, tuple(empty), tuple(thin))


def _coverage(corpus: Corpus, field_name: str, keep) -> tuple[Coverage, ...]:
    """Coverage of each taxonomy value of ``field_name`` by the entries for which keep(entry)."""
    kept = {e.key for e in corpus.entries if keep(e)}
    axis = corpus.taxonomy[field_name]
    groups = entries_with_value(corpus, field_name)
    return tuple(
        Coverage(value, axis.label_of(value), len(members), tuple(members))
        for value in axis.ids
        for members in [[k for k in groups[value] if k in kept]]
    )


def sub_decision_coverage(corpus: Corpus) -> tuple[Coverage, ...]:
    """RL-trained entries (is_rl: yes) addressing each sub-decision O1-O5."""
    return _coverage(corpus, "sub_decisions", lambda e: e.is_rl == "yes")


def benchmark_measure_coverage(corpus: Corpus) -> tuple[Coverage, ...]:
    """Benchmark entries covering each evaluation measure."""
    return _coverage(corpus, "evaluation_measures", lambda e: e.category == "benchmark")


# ---------------------------------------------------------------------------------------------
# Rendering.


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


def crosstab_html(table: pd.DataFrame, sparse: int = DEFAULT_SPARSE) -> str:
    """A cross-tab as an HTML table whose count cells carry class="empty" or class="sparse"."""
    classes = cell_classes(table, sparse)
    esc = html.escape
    head = "".join(f'<th scope="col">{esc(str(c))}</th>' for c in table.columns)
    lines = [
        '<table class="crosstab">',
        f'<thead><tr><th scope="col">{esc(str(table.index.name))} \\ {esc(str(table.columns.name))}</th>{head}</tr></thead>',
        "<tbody>",
    ]
    for row in table.index:
        cells = "".join(_html_cell(int(table.loc[row, c]), classes.loc[row, c]) for c in table.columns)
        lines.append(f'<tr><th scope="row">{esc(str(row))}</th>{cells}</tr>')
    lines += ["</tbody>", "</table>"]
    return "\n".join(lines) + "\n"


def _html_cell(count: int, css_class: str) -> str:
    attribute = f' class="{css_class}"' if css_class else ""
    return f"<td{attribute}>{count}</td>"

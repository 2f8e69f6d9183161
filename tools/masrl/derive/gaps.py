"""Gap tables: where the corpus is thin, for the survey's open-problems discussion.

- every cross-tab the axis registry declares with its empty cells (no entry) and sparse cells
  (1 to ``sparse`` entries, 2 by default), each cell with the entries behind it;
- reward families and credit units that no retained entry holds;
- which orchestration sub-decisions (O1-O5) at least one RL-trained entry (is_rl: yes) addresses;
- which evaluation measures the benchmark entries cover.

Markdown marks empty cells with an em dash and sets sparse counts in bold; ``cell_class`` gives
the site the same distinction as CSS classes ("empty", "sparse", "").
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from masrl.derive.stats import (
    NOT_APPLICABLE,
    crosstab,
    crosstab_name,
    entries_in_cell,
    entries_with_value,
    field_labels,
)
from masrl.derive.tables import CrossTab
from masrl.model.project import Corpus

DEFAULT_SPARSE = 2
# Fields whose values with no retained entry are reported as gaps.
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
    table: CrossTab
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


def moved_gaps(
    found: CrosstabGaps, frozen: CrosstabGaps
) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """(closed, opened): the cells empty in ``frozen`` (a snapshot) and held now, and the reverse."""
    was = {(c.row, c.column) for c in frozen.empty}
    now = {(c.row, c.column) for c in found.empty}
    return sorted(was - now), sorted(now - was)


def cell_class(count: int, sparse: int = DEFAULT_SPARSE) -> str:
    """ "empty" for 0, "sparse" for 1..sparse, "" otherwise."""
    if count == 0:
        return EMPTY_CLASS
    return SPARSE_CLASS if count <= sparse else ""


def find_gaps(
    corpus: Corpus, sparse: int = DEFAULT_SPARSE, crosstabs: Mapping[str, CrossTab] | None = None
) -> Gaps:
    """Every gap finding; ``sparse`` is the largest count a sparse cell may have. ``crosstabs``:
    the corpus's cross-tabs by name when the caller already computed them (Stats.crosstabs of
    the same corpus), so they are not counted again."""
    if sparse < 0:
        raise ValueError("the sparse threshold must be 0 or more")
    crosstabs = crosstabs or {}
    return Gaps(
        sparse_threshold=sparse,
        crosstabs={
            crosstab_name(r, c): crosstab_gaps(
                corpus, r, c, sparse, crosstabs.get(crosstab_name(r, c))
            )
            for r, c in corpus.taxonomy.crosstabs()
        },
        unused_values={
            name: unused_values(corpus, name) for name in corpus.taxonomy.unused_value_fields()
        },
        sub_decision_coverage=sub_decision_coverage(corpus),
        benchmark_measures=benchmark_measure_coverage(corpus),
        labels=field_labels(corpus.taxonomy),
    )


def unused_values(corpus: Corpus, field_name: str) -> tuple[str, ...]:
    """Taxonomy values of a field that no retained entry holds, in taxonomy order."""
    groups = entries_with_value(corpus, field_name)
    return tuple(
        value for value, members in groups.items() if value != NOT_APPLICABLE and not members
    )


def crosstab_gaps(
    corpus: Corpus,
    row_field: str,
    column_field: str,
    sparse: int = DEFAULT_SPARSE,
    table: CrossTab | None = None,
) -> CrosstabGaps:
    """The empty and sparse cells of one cross-tab (``table``: crosstab() of it, when known)."""
    if table is None:
        table = crosstab(corpus, row_field, column_field)
    empty, thin = [], []
    for row, column, count in table:
        kind = cell_class(count, sparse)
        if kind == EMPTY_CLASS:
            empty.append(Cell(row, column, 0, ()))
        elif kind == SPARSE_CLASS:
            members = entries_in_cell(corpus, row_field, column_field, row, column)
            thin.append(Cell(row, column, count, tuple(members)))
    return CrosstabGaps(
        crosstab_name(row_field, column_field),
        row_field,
        column_field,
        table,
        tuple(empty),
        tuple(thin),
    )


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

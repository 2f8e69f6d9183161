"""The two table shapes every statistic comes in: counts per value, and counts per pair of values.

Plain immutable values rather than DataFrames: the site build and the CLI read a few hundred
integers, and importing pandas for them cost half a second of every build. ``to_frame()`` hands
a table to pandas for anyone who wants one.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import cached_property


@dataclass(frozen=True)
class Counts:
    """How many records hold each value of one field, in display order, with each value's label."""

    field: str
    values: tuple[str, ...]
    labels: tuple[str, ...]
    counts: tuple[int, ...]

    @classmethod
    def of(cls, field: str, counts: dict[str, int], labels: dict[str, str]) -> Counts:
        """From value -> count (in display order) and value -> label."""
        return cls(
            field,
            tuple(counts),
            tuple(labels[v] for v in counts),
            tuple(int(n) for n in counts.values()),
        )

    @cached_property
    def _by_value(self) -> dict[str, int]:
        return dict(zip(self.values, self.counts, strict=True))

    def __len__(self) -> int:
        return len(self.values)

    def __iter__(self) -> Iterator[tuple[str, str, int]]:
        """(value, label, count) rows in display order."""
        return iter(zip(self.values, self.labels, self.counts, strict=True))

    def __contains__(self, value: object) -> bool:
        return value in self._by_value

    def __getitem__(self, value: str) -> int:
        return self._by_value[value]

    def get(self, value: str, default: int | None = None) -> int | None:
        return self._by_value.get(value, default)

    def as_dict(self) -> dict[str, int]:
        """value -> count, in display order."""
        return dict(self._by_value)

    def to_frame(self):
        """A pandas DataFrame indexed by value (named after the field), columns label and count."""
        import pandas as pd

        return pd.DataFrame(
            {"label": list(self.labels), "count": pd.array(self.counts, dtype="int64")},
            index=pd.Index(list(self.values), dtype="object", name=self.field),
        )


@dataclass(frozen=True)
class CrossTab:
    """Counts per pair of values: one row per value of ``row_field``, one column per value of
    ``column_field``, every value listed (zeros included)."""

    row_field: str
    column_field: str
    rows: tuple[str, ...]
    columns: tuple[str, ...]
    cells: tuple[tuple[int, ...], ...]  # cells[i][j]: the count of (rows[i], columns[j])

    @classmethod
    def of(
        cls, row_field: str, column_field: str, rows, columns, counts: Mapping[tuple[str, str], int]
    ) -> CrossTab:
        """From (row, column) -> count; a pair not in ``counts`` is 0."""
        rows, columns = tuple(rows), tuple(columns)
        cells = tuple(tuple(counts.get((row, column), 0) for column in columns) for row in rows)
        return cls(row_field, column_field, rows, columns, cells)

    @cached_property
    def _row_at(self) -> dict[str, int]:
        return {row: i for i, row in enumerate(self.rows)}

    @cached_property
    def _column_at(self) -> dict[str, int]:
        return {column: j for j, column in enumerate(self.columns)}

    @property
    def shape(self) -> tuple[int, int]:
        return len(self.rows), len(self.columns)

    @property
    def size(self) -> int:
        return len(self.rows) * len(self.columns)

    def __getitem__(self, cell: tuple[str, str]) -> int:
        row, column = cell
        return self.cells[self._row_at[row]][self._column_at[column]]

    def get(self, row: str, column: str, default: int | None = None) -> int | None:
        if row in self._row_at and column in self._column_at:
            return self[row, column]
        return default

    def __iter__(self) -> Iterator[tuple[str, str, int]]:
        """(row, column, count) for every cell, row by row."""
        for row, counts in zip(self.rows, self.cells, strict=True):
            for column, count in zip(self.columns, counts, strict=True):
                yield row, column, count

    def row(self, row: str) -> dict[str, int]:
        """column -> count along one row."""
        return dict(zip(self.columns, self.cells[self._row_at[row]], strict=True))

    def column(self, column: str) -> tuple[int, ...]:
        """The counts down one column, in row order."""
        j = self._column_at[column]
        return tuple(counts[j] for counts in self.cells)

    def to_numpy(self):
        import numpy as np

        return np.array(self.cells, dtype=np.int64).reshape(len(self.rows), len(self.columns))

    def to_frame(self):
        """A pandas DataFrame; ``index.name`` and ``columns.name`` are the two field names."""
        import pandas as pd

        return pd.DataFrame(
            self.to_numpy(),
            index=pd.Index(list(self.rows), name=self.row_field),
            columns=pd.Index(list(self.columns), name=self.column_field),
        )

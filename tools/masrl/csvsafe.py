"""The one way masrl writes CSV: every text cell a spreadsheet would run as a formula is neutralised.

OWASP's "CSV injection" rule: a cell starting with ``= + - @``, a tab or a carriage return is
prefixed with a single quote, so a spreadsheet shows it as text. A cell already starting with a
quote gets one more, so ``restore_cell`` (used on import) is exact. Numbers are written as they
are: a number is never a formula, and ``-2`` as a count must stay a number.
"""

from __future__ import annotations

import csv
import numbers
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

FORMULA_TRIGGERS = ("=", "+", "-", "@", "\t", "\r")
NEUTRALISER = "'"


def neutralise_cell(value: str) -> str:
    """Prefix a formula-like text cell with a single quote so spreadsheets show it as text."""
    if value.startswith(FORMULA_TRIGGERS) or value.startswith(NEUTRALISER):
        return NEUTRALISER + value
    return value


def restore_cell(value: str) -> str:
    """The inverse of neutralise_cell, applied on import."""
    if value.startswith(NEUTRALISER) and value[1:].startswith((*FORMULA_TRIGGERS, NEUTRALISER)):
        return value[1:]
    return value


def safe_cell(value: Any) -> Any:
    """A cell as masrl writes it: None is empty, text is neutralised, numbers stay numbers."""
    if type(value) is str:  # most cells: no number check (an ABC's isinstance is slow)
        return neutralise_cell(value)
    if value is None:
        return ""
    if isinstance(value, numbers.Number):  # int, float, numpy and Decimal numbers
        return value
    return neutralise_cell(str(value))


class _RowsEndingInNewline(list):
    """A sink for a csv.writer whose line terminator is \\r\\n, so that it quotes every cell holding
    a carriage return (with \\n alone it leaves a lone \\r unquoted, and readers then split the
    row); each row (one write call) is kept as one line ending in \\n, masrl's line end."""

    def write(self, row: str) -> int:
        self.append(row.removesuffix("\r\n") + "\n")
        return len(row)


def csv_lines(
    header: Sequence[str], rows: Iterable[Sequence[Any] | Mapping[str, Any]]
) -> list[str]:
    """The lines of ``csv_text``, one per row (the header's first), each ending in ``\\n``: a
    line break inside a cell stays inside its line, quoted."""
    lines = _RowsEndingInNewline()
    writer = csv.writer(lines, lineterminator="\r\n")
    writer.writerow([safe_cell(name) for name in header])
    for row in rows:
        cells = [row.get(name) for name in header] if isinstance(row, Mapping) else row
        writer.writerow([safe_cell(cell) for cell in cells])
    return lines


def csv_text(header: Sequence[str], rows: Iterable[Sequence[Any] | Mapping[str, Any]]) -> str:
    """CSV text (``\\n`` line ends) of a header and rows; a row is a sequence in header order or a
    mapping by column name (missing columns empty). Every cell, header included, goes through
    ``safe_cell``."""
    return "".join(csv_lines(header, rows))

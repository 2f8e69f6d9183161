"""Reading an importer's input: JSON, JSONL or either gzipped, with errors that name the file
and line; and small helpers for the values tracing systems write."""

from __future__ import annotations

import math
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

from ...errors import InputError
from ..io import Limits, read_traces


def json_documents(path: Path, limits: Limits = Limits()) -> Iterator[tuple[int | None, Any]]:
    """(line, parsed document) for a .json file (line None) or each line of a .jsonl file. The
    file is at most ``limits.max_bytes`` in all: an importer keeps what it read until the end."""
    if not path.is_file():
        raise InputError("no such file", path=path)
    for record in read_traces(path, limits, count_events=False, whole_file=True):
        if record.problem is not None:
            problem = record.problem
            raise InputError(
                problem.message, path=path, line=problem.line, hint=problem.hint or None
            )
        yield record.line, record.data


def check_span_count(
    count: int,
    label: str,
    limits: Limits,
    path: Path,
    line: int | None = None,
    what: str = "spans",
) -> None:
    """Refuse a source trace with more spans (or messages) than ``limits`` allow."""
    if count > limits.max_events:
        message, hint = limits.too_many_events(count, what)
        raise InputError(f"{label}: {message}", path=path, line=line, hint=hint)


def check_file_span_count(
    count: int, limits: Limits, path: Path, line: int | None, what: str = "spans in the file"
) -> None:
    """Refuse a file with more spans (or messages) in all than ``limits`` allow a trace: an
    importer holds everything it read from the file until its traces are written."""
    if count > limits.max_events:
        message, hint = limits.too_many_events(count, what)
        raise InputError(message, path=path, line=line, hint=hint)


def require(condition: bool, message: str, path: Path, line: int | None, hint: str = "") -> None:
    if not condition:
        raise InputError(message, path=path, line=line, hint=hint or None)


def iso_seconds(value: Any, what: str, path: Path, line: int | None) -> float:
    """An ISO 8601 timestamp as seconds since the epoch."""
    try:
        return datetime.fromisoformat(str(value)).timestamp()
    except (ValueError, OverflowError, OSError):  # out of the platform's time range too
        raise InputError(
            f"{what}: {value!r} is not an ISO 8601 timestamp", path=path, line=line
        ) from None


def number(value: Any) -> float:
    """A count or measure as a number; 0 when absent or not numeric (OTLP writes ints as strings).
    A number no 64-bit float holds finitely (1e999, NaN, a 400-digit integer) is an error."""
    if isinstance(value, bool) or value is None:
        return 0
    try:
        result = float(value)
    except (TypeError, ValueError):
        return 0
    except OverflowError:
        result = math.inf
    if not math.isfinite(result):
        raise InputError(
            f"{str(value)[:40]!s} is not a finite number",
            hint="counts, times and rewards must be finite numbers",
        )
    return value if isinstance(value, int) else result

"""Reading an importer's input: JSON, JSONL or either gzipped, with errors that name the file
and line; and small helpers for the values tracing systems write."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

from ...errors import InputError
from ..io import read_traces


def json_documents(path: Path) -> Iterator[tuple[int | None, Any]]:
    """(line, parsed document) for a .json file (line None) or each line of a .jsonl file."""
    if not path.is_file():
        raise InputError("no such file", path=path)
    for record in read_traces(path):
        if record.problem is not None:
            problem = record.problem
            raise InputError(
                problem.message, path=path, line=problem.line, hint=problem.hint or None
            )
        yield record.line, record.data


def require(condition: bool, message: str, path: Path, line: int | None, hint: str = "") -> None:
    if not condition:
        raise InputError(message, path=path, line=line, hint=hint or None)


def iso_seconds(value: Any, what: str, path: Path, line: int | None) -> float:
    """An ISO 8601 timestamp as seconds since the epoch."""
    try:
        return datetime.fromisoformat(str(value)).timestamp()
    except ValueError:
        raise InputError(
            f"{what}: {value!r} is not an ISO 8601 timestamp", path=path, line=line
        ) from None


def number(value: Any) -> float:
    """A count or measure as a number; 0 when absent or not numeric (OTLP writes ints as strings)."""
    if isinstance(value, bool):
        return 0
    if isinstance(value, (int, float)):
        return value
    try:
        return float(value)
    except (TypeError, ValueError):
        return 0

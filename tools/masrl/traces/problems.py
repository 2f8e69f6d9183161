"""What validation reports: one problem in one trace, a trace's verdict, and the wording helpers
every check shares (JSON paths, did-you-mean hints, numbers written as JSON writes them)."""

from __future__ import annotations

import difflib
import json
import re
from dataclasses import dataclass
from typing import Any

from ..annotations import github_annotation

# Problem codes JSON Schema would also report; every other code is a masrl rule.
SCHEMA_CODES = frozenset(
    {"type", "required", "enum", "minimum", "empty", "pattern", "unknown_field"}
)
DEFAULT_MAX_PROBLEMS = 50  # per trace; the rest are counted, not listed

_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


@dataclass(frozen=True)
class TraceProblem:
    """One problem in one trace. ``path`` is a JSON path inside the trace (``$`` is the whole
    trace); ``line`` is the line of a .jsonl file, or of a JSON syntax error."""

    file: str
    path: str
    message: str
    hint: str = ""
    severity: str = "error"  # error | warning
    code: str = ""
    line: int | None = None

    @property
    def location(self) -> str:
        return f"{self.file}:{self.line}" if self.line is not None else self.file

    def as_text(self) -> str:
        text = f"{self.location}: {self.severity}: {self.path}: {self.message}"
        return text + (f"\n    hint: {self.hint}" if self.hint else "")

    def as_github(self) -> str:
        level = "error" if self.severity == "error" else "warning"
        message = f"{self.path}: {self.message}" + (f". Hint: {self.hint}" if self.hint else "")
        return github_annotation(level, self.file, self.line, f"masrl trace {self.code}", message)


@dataclass(frozen=True)
class TraceReport:
    """The verdict on one trace. The counts include problems beyond the listed ones."""

    problems: tuple[TraceProblem, ...]
    errors: int
    warnings: int

    @property
    def ok(self) -> bool:
        return self.errors == 0


class ProblemCollector:
    """Gathers the problems of one trace, listing at most ``limit`` of them."""

    def __init__(self, file: str, line: int | None, limit: int):
        self.file, self.line, self.limit = file, line, limit
        self.listed: list[TraceProblem] = []
        self.errors = 0
        self.warnings = 0

    def error(self, path: str, message: str, code: str, hint: str = "") -> None:
        self.errors += 1
        self._keep(path, message, code, hint, "error")

    def warning(self, path: str, message: str, code: str, hint: str = "") -> None:
        self.warnings += 1
        self._keep(path, message, code, hint, "warning")

    def listing(self) -> bool:
        """Whether another problem would still be listed (worth computing details for)."""
        return len(self.listed) < self.limit

    def _keep(self, path: str, message: str, code: str, hint: str, severity: str) -> None:
        if len(self.listed) < self.limit:
            self.listed.append(
                TraceProblem(self.file, path, message, hint, severity, code, self.line)
            )

    def report(self) -> TraceReport:
        problems = list(self.listed)
        hidden = self.errors + self.warnings - len(problems)
        if hidden > 0:
            hidden_errors = self.errors - sum(p.severity == "error" for p in problems)
            problems.append(
                TraceProblem(
                    self.file,
                    "$",
                    f"{hidden} more problem(s) in this trace not listed",
                    "raise --max-problems to list them",
                    "error" if hidden_errors else "warning",
                    "more",
                    self.line,
                )
            )
        return TraceReport(tuple(problems), self.errors, self.warnings)


def key_path(parent: str, key: Any) -> str:
    """``parent.key``, or ``parent["odd key"]`` when the key is not an identifier."""
    key = str(key)
    if _IDENTIFIER.match(key):
        return f"{parent}.{key}" if parent else key
    return f"{parent}[{json.dumps(key, ensure_ascii=False)}]"


def did_you_mean(value: str, choices) -> str:
    close = difflib.get_close_matches(value, sorted(choices), n=1, cutoff=0.6)
    return f"did you mean '{close[0]}'?" if close else ""


def json_number(value) -> str:
    """A number as written in JSON: integral floats without the .0 (typed decoding makes ints floats)."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
        return str(int(value))
    return repr(value)


def unreadable(file: str, problem) -> TraceReport:
    """The verdict on a file or line that could not be read (``problem`` is an io.ReadProblem)."""
    return TraceReport(
        (
            TraceProblem(
                file, "$", problem.message, problem.hint, "error", problem.code, problem.line
            ),
        ),
        1,
        0,
    )

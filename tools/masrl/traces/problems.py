"""What validation reports: one problem in one trace, a trace's verdict, and the wording helpers
every check shares (JSON paths, did-you-mean hints, numbers written as JSON writes them)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from ..problems import Problem

# Problem codes JSON Schema would also report; every other code is a masrl rule.
SCHEMA_CODES = frozenset(
    {"type", "required", "enum", "minimum", "empty", "pattern", "unknown_field"}
)
DEFAULT_MAX_PROBLEMS = 50  # per trace; the rest are counted, not listed

_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def _rank(severity: str, code: str) -> int:
    """Which problem a report names first: a cycle (it explains the edges that close it), then
    any other error, then warnings."""
    if severity != "error":
        return 2
    return 0 if code == "cycle" else 1


@dataclass(frozen=True)
class TraceReport:
    """The verdict on one trace. The counts include problems beyond the listed ones. Problems
    are listed most important first (see ``_rank``), so ``problems[0]`` is the one to name."""

    problems: tuple[Problem, ...]
    errors: int
    warnings: int

    @property
    def ok(self) -> bool:
        return self.errors == 0


class ProblemCollector:
    """Gathers the problems of one trace, listing at most ``limit`` of them."""

    def __init__(self, file: str, line: int | None, limit: int):
        self.file, self.line, self.limit = file, line, limit
        self.listed: list[Problem] = []
        self.errors = 0
        self.warnings = 0
        # The most important problem seen, kept even when the list is full (--max-problems 1).
        self.headline: Problem | None = None
        self._headline_rank = 3

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
        rank = _rank(severity, code)
        listed = len(self.listed) < self.limit
        if listed or rank < self._headline_rank:
            problem = Problem(self.file, self.line, message, hint, severity, code, pointer=path)
            if listed:
                self.listed.append(problem)
            if rank < self._headline_rank:
                self.headline, self._headline_rank = problem, rank

    def report(self) -> TraceReport:
        problems = list(self.listed)
        if self.headline is not None and not any(p is self.headline for p in problems):
            problems.append(self.headline)
        problems.sort(key=lambda p: _rank(p.severity, p.code))  # stable: check order within a rank
        hidden = self.errors + self.warnings - len(problems)
        if hidden > 0:
            hidden_errors = self.errors - sum(p.severity == "error" for p in problems)
            problems.append(
                Problem(
                    self.file,
                    self.line,
                    f"{hidden} more problem(s) in this trace not listed",
                    "raise --max-problems to list them",
                    "error" if hidden_errors else "warning",
                    "more",
                    pointer="$",
                )
            )
        return TraceReport(tuple(problems), self.errors, self.warnings)


def key_path(parent: str, key: Any) -> str:
    """``parent.key``, or ``parent["odd key"]`` when the key is not an identifier."""
    key = str(key)
    if _IDENTIFIER.match(key):
        return f"{parent}.{key}" if parent else key
    return f"{parent}[{json.dumps(key, ensure_ascii=False)}]"


def json_number(value) -> str:
    """A number as written in JSON: integral floats without the .0 (typed decoding makes ints floats)."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
        return str(int(value))
    return repr(value)


def unreadable(file: str, problem) -> TraceReport:
    """The verdict on a file or line that could not be read (``problem`` is an io.ReadProblem)."""
    return TraceReport(
        (Problem(file, problem.line, problem.message, problem.hint, "error", problem.code, "$"),),
        1,
        0,
    )

"""The one shape of a problem found in a user's file: where it is, what is wrong, how to fix it.

Records, taxonomy files, rounds, tag readings, the citation graph, imports and traces all
report through `Problem`; a check that stops at its first problem raises it as an error with
`Problem.error`, so a list and a raised error read the same.
"""

from __future__ import annotations

from dataclasses import dataclass

from masrl.annotations import github_annotation
from masrl.errors import InputError, MasrlError

SEVERITIES = ("error", "warning")


@dataclass(frozen=True)
class Problem:
    """One problem. ``path`` names the file (as the user would type it), ``line`` its line where
    known; ``pointer`` says where inside a JSON document (``events[3].t``), for traces."""

    path: str
    line: int | None
    message: str
    hint: str = ""
    severity: str = "error"  # one of SEVERITIES
    code: str = ""  # a stable name for the kind of problem, for annotations and tests
    pointer: str = ""

    @property
    def location(self) -> str:
        return f"{self.path}:{self.line}" if self.line is not None else self.path

    def as_text(self) -> str:
        """``path:line: error: [pointer: ]message`` and the hint on a line of its own."""
        where = f"{self.pointer}: " if self.pointer else ""
        text = f"{self.location}: {self.severity}: {where}{self.message}"
        return text + (f"\n    hint: {self.hint}" if self.hint else "")

    def as_line(self) -> str:
        """``path:line: message (hint)``: the one-line form of a raised error."""
        return str(self.error())

    def as_github(self, tool: str = "masrl validate") -> str:
        """A GitHub Actions annotation on the problem's line, titled ``tool code``."""
        where = f"{self.pointer}: " if self.pointer else ""
        message = where + self.message + (f". Hint: {self.hint}" if self.hint else "")
        title = f"{tool} {self.code}".strip()
        return github_annotation(self.severity, self.path, self.line, title, message)

    def error(self, kind: type[MasrlError] = InputError) -> MasrlError:
        """The problem raised: the same file, line, message and hint."""
        where = f"{self.pointer}: " if self.pointer else ""
        return kind(where + self.message, path=self.path, line=self.line, hint=self.hint or None)

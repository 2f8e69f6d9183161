"""The screening files `validate` reads besides the records: every round's decisions, the queue and
the identified logs, each refused with its file and line when its shape is wrong (`decisions: 5`
used to pass validate, build and flow, as nothing read the file until a screener did)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from masrl.errors import InputError, ProblemsError
from masrl.problems import Problem
from masrl.screening.identified import IDENTIFIED_DIR, read_identified
from masrl.screening.queue import (
    Decision,
    decisions_dir,
    queue_dir,
    read_decisions_file,
    read_queue,
)

_LOCATED = re.compile(r"^(?P<path>[^\n:]+):(?P<line>\d+|\?): (?P<message>.*)$", re.S)


@dataclass
class ScreeningFiles:
    """What `validate` found in the decisions, queue and identified files, and the decisions it
    read (round -> its decisions, None for a file with problems), so no other check reads them
    again."""

    problems: list[Problem] = field(default_factory=list)
    decisions: dict[str, list[Decision] | None] = field(default_factory=dict)

    def decided_by_round(self) -> dict[str, set[str] | None]:
        return {
            round_id: None if found is None else {d.record for d in found}
            for round_id, found in self.decisions.items()
        }

    def all_decisions(self) -> list[Decision] | None:
        """Every decision in file order, or None when a decisions file could not be read."""
        if any(found is None for found in self.decisions.values()):
            return None
        return [d for round_id in sorted(self.decisions) for d in self.decisions[round_id]]


def check_screening_files(project) -> ScreeningFiles:
    """Problems with the decisions, queue and identified files (rounds, tag readings and the
    citation graph have checks of their own)."""
    found = ScreeningFiles()
    folder = decisions_dir(project)
    for path in sorted(folder.glob("*.yaml")) if folder.is_dir() else []:
        found.decisions[path.stem] = _collect(
            found.problems, "decisions", lambda path=path: read_decisions_file(project, path)
        )
    if queue_dir(project).is_dir():
        _collect(found.problems, "queue", lambda: read_queue(project))
    identified = project.root / IDENTIFIED_DIR
    for path in sorted(identified.glob("*.yaml")) if identified.is_dir() else []:
        _collect(
            found.problems, "identified", lambda path=path: read_identified(project, path.stem)
        )
    return found


def _collect(problems: list[Problem], code: str, read):
    """What ``read`` returns, or None with its problems added to ``problems``."""
    try:
        return read()
    except ProblemsError as exc:
        for text in exc.problems:
            located = _LOCATED.match(text)
            if located:
                line = located["line"]
                problems.append(
                    Problem(
                        located["path"],
                        int(line) if line.isdigit() else None,
                        located["message"],
                        "",
                        "error",
                        code,
                    )
                )
            else:
                problems.append(Problem(exc.path, None, text, "", "error", code))
    except InputError as exc:
        problems.append(
            Problem(exc.path or "", exc.line or 1, exc.message, exc.hint or "", "error", code)
        )
    return None

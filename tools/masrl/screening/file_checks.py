"""The screening files `validate` reads besides the records: every round's decisions, the queue and
the identified logs, each refused with its file and line when its shape is wrong (`decisions: 5`
used to pass validate, build and flow, as nothing read the file until a screener did)."""

from __future__ import annotations

import re

from masrl.errors import InputError, ProblemsError
from masrl.problems import Problem
from masrl.screening.identified import IDENTIFIED_DIR, read_identified
from masrl.screening.queue import decisions_dir, queue_dir, read_decisions_file, read_queue

_LOCATED = re.compile(r"^(?P<path>[^\n:]+):(?P<line>\d+|\?): (?P<message>.*)$", re.S)


def screening_file_problems(project) -> list[Problem]:
    """Problems with the decisions, queue and identified files (rounds, tag readings and the
    citation graph have checks of their own)."""
    problems: list[Problem] = []
    folder = decisions_dir(project)
    for path in sorted(folder.glob("*.yaml")) if folder.is_dir() else []:
        _collect(problems, "decisions", lambda path=path: read_decisions_file(project, path))
    if queue_dir(project).is_dir():
        _collect(problems, "queue", lambda: read_queue(project))
    identified = project.root / IDENTIFIED_DIR
    for path in sorted(identified.glob("*.yaml")) if identified.is_dir() else []:
        _collect(problems, "identified", lambda path=path: read_identified(project, path.stem))
    return problems


def _collect(problems: list[Problem], code: str, read) -> None:
    try:
        read()
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

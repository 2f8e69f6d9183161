"""A screening file whose top-level value has the wrong type fails validate, build and flow with
its file and line, and nothing is written (issue 34: `decisions: 5` passed all three)."""

from __future__ import annotations

import pytest
from click.testing import CliRunner
from masrl.check.validate import validate_project
from masrl.cli import main

runner = CliRunner()

CASES = [
    (
        "screening/decisions/2026-12.yaml",
        "decisions: 5\n",
        1,
        "expected a mapping with a list 'decisions:', found int",
    ),
    ("screening/decisions/2026-12.yaml", "- record: x\n", 1, "found list"),
    ("screening/identified/2026-12.yaml", "identified: 5\n", 1, "'identified' must be a mapping"),
    (
        "screening/identified/2026-12.yaml",
        "identified:\n  arxiv: 5\n",
        2,
        "identified.arxiv must be a list",
    ),
    (
        "screening/identified/2026-12.yaml",
        "duplicates:\n  arxiv: {a: 1}\n",
        2,
        "duplicates.arxiv must be a list",
    ),
    ("screening/queue/Q0001.yaml", "5\n", 1, "a queue file must be a mapping"),
    (
        "screening/tags/2026-12.yaml",
        "readings: 5\n",
        1,
        "expected a mapping with a list 'readings:'",
    ),
]


@pytest.mark.parametrize(("rel", "text", "line", "message"), CASES)
def test_a_wrongly_typed_screening_file_is_a_validation_error(
    mini_project, rel, text, line, message
):
    path = mini_project.root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    found = [p for p in validate_project(mini_project).errors if p.path == rel]
    assert [(p.line, message in p.message) for p in found] == [(line, True)], found


def test_validate_build_and_flow_refuse_decisions_5_and_write_nothing(mini_project):
    path = mini_project.root / "screening/decisions/2026-12.yaml"
    path.parent.mkdir(parents=True)
    path.write_text("decisions: 5\n", encoding="utf-8")
    before = sorted(p.relative_to(mini_project.root) for p in mini_project.root.rglob("*"))
    for command in (["validate"], ["build"], ["flow"]):
        result = runner.invoke(main, [*command, "--root", str(mini_project.root)])
        assert result.exit_code == 1, (command, result.output)
        assert "Traceback" not in result.output
        assert "screening/decisions/2026-12.yaml:1" in result.output, (command, result.output)
    after = sorted(p.relative_to(mini_project.root) for p in mini_project.root.rglob("*"))
    assert after == before

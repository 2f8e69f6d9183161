"""Free-text fields have a length limit, declared once (records.MAX_LENGTH), checked by validate
with the file, line and limit, and written into the JSON Schemas (issue 34)."""

from __future__ import annotations

from click.testing import CliRunner
from conftest import entry_data, exclusion_data, write_entry, write_exclusion
from masrl.check.validate import validate_project
from masrl.cli import main
from masrl.model.records import MAX_LENGTH, entry_specs, exclusion_specs
from masrl.model.schemas import entry_schema
from masrl.model.taxonomy import load_taxonomy


def _too_long(project):
    return [p for p in validate_project(project).errors if p.code == "too-long"]


def test_a_title_over_the_limit_is_named_with_its_line_and_limit(mini_project):
    write_entry(mini_project.root, entry_data("long2025", title="Agents " * 300))
    (problem,) = _too_long(mini_project)
    assert problem.path == "corpus/long2025.yaml" and problem.line == 3
    assert problem.message == "'title' is 2,100 characters long; the limit is 500"


def test_each_item_of_a_list_and_a_two_megabyte_summary(mini_project):
    path = write_entry(
        mini_project.root, entry_data("huge2025", summary="x", authors=["Doe, Jane", "N" * 301])
    )
    # The summary spliced in as the writer puts a long plain scalar, on its line: the fast writer
    # leaves such a value to PyYAML's emitter, which scans it character by character in Python.
    text = path.read_text(encoding="utf-8")
    assert text.count("\nsummary: x\n") == 1
    path.write_text(
        text.replace("\nsummary: x\n", "\nsummary: " + "x" * 2_000_000 + "\n"), encoding="utf-8"
    )
    write_exclusion(mini_project.root, exclusion_data("E900", rationale="why " * 600))
    messages = sorted(p.message for p in _too_long(mini_project))
    assert messages == [
        "'authors (1)' is 301 characters long; the limit is 300",
        "'rationale' is 2,400 characters long; the limit is 2,000",
        "'summary' is 2,000,000 characters long; the limit is 2,000",
    ]


def test_every_limit_is_declared_once_and_reaches_the_schema():
    taxonomy = load_taxonomy()
    limited = {s.name: s.max_length for s in (*entry_specs(taxonomy), *exclusion_specs(taxonomy))}
    assert {n: v for n, v in limited.items() if v is not None} == MAX_LENGTH
    assert entry_schema(taxonomy)["properties"]["title"]["maxLength"] == MAX_LENGTH["title"]


def test_the_cli_refuses_it_without_a_traceback(mini_project):
    write_entry(mini_project.root, entry_data("long2025", title="Agents " * 300))
    result = CliRunner().invoke(main, ["validate", "--root", str(mini_project.root)])
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert "corpus/long2025.yaml:3" in result.output and "the limit is 500" in result.output

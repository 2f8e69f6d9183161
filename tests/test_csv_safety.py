"""Every CSV masrl writes goes through masrl.csvsafe: no cell a spreadsheet would run as a formula."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import REPO_ROOT, entry_data, write_entry
from masrl.cli import main
from masrl.csvsafe import csv_text, neutralise_cell, restore_cell, safe_cell
from test_traces import small_trace, write

HOSTILE = ['=HYPERLINK("http://evil.example","x")', "+1+1", "-2", "@SUM(A1:A9)", "\tx", "\rx"]
# Anything in tools/ that could write CSV: the csv module's writers and pandas' to_csv.
WRITER_CALL = re.compile(r"csv\.(writer|DictWriter)\(|\.to_csv\(|writerows?\(")

runner = CliRunner()


def test_only_csvsafe_writes_csv():
    """Enumerate the CSV writers in the package: there is exactly one, in masrl/csvsafe.py."""
    writers = sorted(
        f"{path.relative_to(REPO_ROOT)}:{number}"
        for path in (REPO_ROOT / "tools" / "masrl").rglob("*.py")
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        if WRITER_CALL.search(line)
    )
    assert writers and all(w.startswith("tools/masrl/csvsafe.py:") for w in writers), writers


def test_csv_commands_call_the_one_writer():
    """Each CSV rendering (export csv, screen export, stats --format csv, trace metrics and
    query --format csv) is built by csvsafe.csv_text."""
    for module in (
        "exports/csv.py",
        "screening/asreview_io.py",
        "render/stats.py",
        "traces/metrics.py",
        "traces/query.py",
    ):
        assert "csv_text(" in (REPO_ROOT / "tools" / "masrl" / module).read_text(), module


@pytest.mark.parametrize("value", [*HOSTILE, "'=already", "'plain"])
def test_formula_cells_are_neutralised_and_restored_exactly(value):
    cell = neutralise_cell(value)
    assert cell.startswith("'") and restore_cell(cell) == value
    assert safe_cell(value) == cell


def test_numbers_stay_numbers_and_none_is_empty():
    assert [safe_cell(v) for v in (-2, -0.5, None, "plain")] == [-2, -0.5, "", "plain"]
    text = csv_text(["a", "b"], [[-2, "-2"], {"a": None, "b": "@x"}])
    assert text == "a,b\n-2,'-2\n,'@x\n"


def _cells(text: str) -> list[str]:
    return [cell for row in csv.reader(io.StringIO(text)) for cell in row]


def _assert_neutralised(text: str, value: str):
    cells = _cells(text)
    assert "'" + value in cells, (value, text)
    assert value not in cells


@pytest.mark.parametrize("value", HOSTILE)
def test_screen_export_neutralises_titles(mini_project, value):
    write_entry(mini_project.root, entry_data("formula2025", title=f"{value} title"))
    out = mini_project.root / "asreview.csv"
    args = ["screen", "export", "--labelled", "--root", str(mini_project.root), "-o", str(out)]
    result = runner.invoke(main, args)
    assert result.exit_code == 0, result.output
    _assert_neutralised(out.read_bytes().decode("utf-8"), f"{value} title")


@pytest.mark.parametrize("value", HOSTILE)
def test_trace_metrics_csv_neutralises_trace_ids(tmp_path, value):
    trace = small_trace()
    trace["trace_id"] = value
    path = write(tmp_path / "t.json", json.dumps(trace))
    result = runner.invoke(main, ["trace", "metrics", str(path), "--format", "csv"])
    assert result.exit_code == 0, result.output
    _assert_neutralised(result.output, value)


def test_trace_query_csv_neutralises_text_and_keeps_numbers(tmp_path):
    runs = tmp_path / "runs"
    write(runs / "t.json", json.dumps(small_trace()))
    out = tmp_path / "set.parquet"
    assert runner.invoke(main, ["trace", "collect", str(runs), "-o", str(out)]).exit_code == 0
    literals = ", ".join("'" + v.replace("'", "''") + f"' AS c{i}" for i, v in enumerate(HOSTILE))
    sql = f"SELECT {literals}, -2 AS n FROM traces"
    result = runner.invoke(main, ["trace", "query", str(out), sql, "--format", "csv"])
    assert result.exit_code == 0, result.output
    rows = list(csv.reader(io.StringIO(result.output)))
    assert rows[1] == [*("'" + v for v in HOSTILE), "-2"]


def test_stats_csv_goes_through_the_writer(mini_project):
    result = runner.invoke(main, ["stats", "--format", "csv", "--root", str(mini_project.root)])
    assert result.exit_code == 0, result.output
    assert result.output.startswith("table,row,column,count\n")


def test_export_csv_neutralises(mini_project):
    write_entry(mini_project.root, entry_data("formula2025", title="+1+1 teams"))
    result = runner.invoke(main, ["export", "csv", "--root", str(mini_project.root)])
    assert result.exit_code == 0, result.output
    _assert_neutralised(result.output, "+1+1 teams")


def test_enumeration_is_not_vacuous(tmp_path: Path):
    """The pattern does find a writer where there is one."""
    assert WRITER_CALL.search("w = csv.writer(buf)") and WRITER_CALL.search("frame.to_csv(p)")


def test_carriage_returns_inside_cells_are_quoted():
    text = csv_text(["a"], [["x\ry"], ["x\r\ny"]])
    assert text == 'a\n"x\ry"\n"x\r\ny"\n'
    assert [row for row in csv.reader(io.StringIO(text, newline=""))] == [
        ["a"],
        ["x\ry"],
        ["x\r\ny"],
    ]

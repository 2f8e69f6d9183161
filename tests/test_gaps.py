"""Gap tables: empty and sparse cells, unused values, sub-decision and benchmark coverage."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from conftest import entry_data, write_entry
from masrl.check.validate import load_corpus
from masrl.cli import main
from masrl.derive.gaps import cell_class, find_gaps
from masrl.render.gaps import EMPTY_MARK, format_cell, gaps_json, gaps_markdown
from shared_corpus import live_corpus


@pytest.fixture
def mini_gaps(mini_project):
    return find_gaps(load_corpus(mini_project))


@pytest.fixture(scope="module")
def real_gaps():
    return find_gaps(live_corpus())


def test_cell_classes():
    assert [cell_class(n) for n in (0, 1, 2, 3)] == ["empty", "sparse", "sparse", ""]
    assert cell_class(1, sparse=0) == ""  # with threshold 0 nothing is sparse
    assert [cell_class(n, sparse=1) for n in (0, 1, 2)] == ["empty", "sparse", ""]


def test_empty_and_sparse_cells_with_their_entries(mini_gaps):
    found = mini_gaps.crosstabs["reward_types_x_credit_units"]
    assert len(found.empty) == found.table.size - 2
    # rows, then columns, in taxonomy order (message comes before agent)
    assert [(c.row, c.column, c.count, c.entries) for c in found.sparse] == [
        ("shared", "message", 1, ("beta2024",)),
        ("shared", "agent", 1, ("alpha2025",)),
    ]
    topology = mini_gaps.crosstabs["sub_decisions_x_topology"]
    assert [(c.row, c.column, c.count) for c in topology.sparse] == [("O2", "centralized", 2)]


def test_sparse_threshold(mini_project):
    corpus = load_corpus(mini_project)
    assert not find_gaps(corpus, sparse=0).crosstabs["reward_types_x_credit_units"].sparse
    assert not find_gaps(corpus, sparse=1).crosstabs["sub_decisions_x_topology"].sparse
    with pytest.raises(ValueError):
        find_gaps(corpus, sparse=-1)


def test_unused_values_and_coverage(mini_gaps):
    assert mini_gaps.unused_values["credit_units"] == (
        "token",
        "turn",
        "tool",
        "role",
        "orchestrator",
        "team",
    )
    assert "R1" not in mini_gaps.unused_values["reward_families"]
    assert mini_gaps.sub_decisions_covered == ["O2"]
    assert mini_gaps.sub_decisions_uncovered == ["O1", "O3", "O4", "O5"]
    o2 = mini_gaps.sub_decision_coverage[1]
    assert (o2.value, o2.count, o2.entries) == ("O2", 2, ("alpha2025", "beta2024"))
    assert [(c.value, c.entries) for c in mini_gaps.benchmark_measures if c.count] == [
        ("outcome", ("gamma2023",))
    ]
    assert mini_gaps.measures_uncovered == ["efficiency", "coordination", "trace_safety"]


def test_coverage_counts_only_rl_trained_entries(mini_project):
    write_entry(
        mini_project.root, entry_data("prompted2025", is_rl="partial", sub_decisions=["O5"])
    )
    gaps = find_gaps(load_corpus(mini_project))
    assert "O5" in gaps.sub_decisions_uncovered  # a partly trained entry does not cover O5


def test_published_gaps(published_corpus):
    real_gaps = find_gaps(published_corpus)
    assert real_gaps.sub_decisions_covered == ["O1", "O2", "O3", "O4"]
    assert real_gaps.sub_decisions_uncovered == ["O5"]
    assert real_gaps.unused_values == {
        "reward_families": ("R5",),
        "credit_units": ("token", "tool", "team"),
    }
    assert real_gaps.measures_uncovered == ["efficiency"]
    message = {
        (c.row, c.column): c.entries
        for c in real_gaps.crosstabs["reward_types_x_credit_units"].sparse
    }
    assert message[("shared", "message")] == ("c3",)


def test_markdown_marks_empty_and_sparse_cells(mini_gaps):
    text = gaps_markdown(mini_gaps)
    assert format_cell(0) == EMPTY_MARK and format_cell(2) == "**2**" and format_cell(3) == "3"
    assert "Legend:" in text and EMPTY_MARK in text
    assert "| `shared` | — | — | **1** | — | **1** | — | — | — |" in text
    assert "- `shared` × `agent` (1): `alpha2025`" in text
    assert "Not covered: `O1`, `O3`, `O4`, `O5`." in text


def test_json_is_sorted_and_complete(mini_gaps):
    text = gaps_json(mini_gaps)
    data = json.loads(text)
    assert text == json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    assert data["sparse_threshold"] == 2
    assert ["shared", "token"] in data["crosstabs"]["reward_types_x_credit_units"]["empty"]
    assert data["sub_decision_coverage"][4] == {
        "value": "O5",
        "label": "When to stop",
        "count": 0,
        "entries": [],
    }


def test_cli(mini_project):
    runner = CliRunner()
    result = runner.invoke(
        main, ["gaps", "--root", str(mini_project.root), "--sparse", "1", "--format", "json"]
    )
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["sparse_threshold"] == 1
    result = runner.invoke(main, ["gaps", "--root", str(mini_project.root)])
    assert result.exit_code == 0 and "## Empty and sparse cells" in result.output
    assert (
        runner.invoke(main, ["gaps", "--root", str(mini_project.root), "--sparse", "-1"]).exit_code
        == 2
    )


def test_live_gaps_name_what_closed_since_the_snapshot(real_gaps, published_corpus):
    frozen = find_gaps(published_corpus)
    text = gaps_markdown(real_gaps, baseline=frozen, baseline_name="survey-2026-05")
    assert "shows its snapshot count in brackets" in text
    if real_gaps.sub_decisions_covered != frozen.sub_decisions_covered:
        assert "| Snapshot | Change |" in text
    closed_lines = [
        line for line in text.splitlines() if line.startswith("- Closed since snapshot")
    ]
    for name, found in real_gaps.crosstabs.items():
        closed = {(c.row, c.column) for c in frozen.crosstabs[name].empty} - {
            (c.row, c.column) for c in found.empty
        }
        for row, column in closed:
            assert any(f"`{row}` × `{column}`" in line for line in closed_lines), (
                name,
                row,
                column,
            )

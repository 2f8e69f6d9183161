"""Statistics: hand-counted fixtures, the published counts of the real corpus, the three renderings."""

from __future__ import annotations

import csv
import io
import json
import shutil

import pytest
from click.testing import CliRunner
from conftest import REAL_AUDITED, REAL_ENTRIES, REAL_EXCLUSIONS, REPO_ROOT, entry_data, write_entry
from masrl.check.validate import load_corpus
from masrl.cli import main
from masrl.derive.stats import NOT_APPLICABLE, axis_fields, compute_stats, crosstab_name
from masrl.model.project import Project
from masrl.model.taxonomy import load_taxonomy
from masrl.render.stats import stats_csv, stats_json, stats_markdown, stats_rows
from shared_corpus import live_corpus


@pytest.fixture
def mini_stats(mini_project):
    return compute_stats(load_corpus(mini_project))


@pytest.fixture(scope="module")
def real_corpus():
    return live_corpus()


@pytest.fixture(scope="module")
def real_stats(real_corpus):
    return compute_stats(real_corpus)


def counts(stats, field_name):
    """{value: count} of an axis, in table order."""
    return stats.axis_counts[field_name].as_dict()


# -- hand-counted fixture (three entries, one exclusion) ---------------------------------------


def test_headline_counts_retained_excluded_audited(mini_stats):
    assert mini_stats.headline.as_dict() == {"retained": 3, "excluded": 1, "audited": 4}


def test_every_taxonomy_value_is_listed_in_order_with_zeros(mini_stats, mini_project):
    taxonomy = mini_project.taxonomy()
    category = counts(mini_stats, "category")
    assert list(category) == list(
        taxonomy["categories"].ids
    )  # required field: no "not applicable" row
    assert category == {
        "rl_method": 2,
        "benchmark": 1,
        "classical_marl": 0,
        "industry": 0,
        "survey": 0,
        "framework": 0,
    }
    assert list(counts(mini_stats, "credit_units")) == [
        *taxonomy["credit_units"].ids,
        NOT_APPLICABLE,
    ]


def test_empty_values_are_their_own_not_applicable_row(mini_stats):
    assert counts(mini_stats, "reward_types")["shared"] == 2
    assert counts(mini_stats, "reward_types")[NOT_APPLICABLE] == 1
    assert counts(mini_stats, "credit_units") == {
        "token": 0,
        "turn": 0,
        "message": 1,
        "tool": 0,
        "agent": 1,
        "role": 0,
        "orchestrator": 0,
        "team": 0,
        NOT_APPLICABLE: 1,
    }
    assert counts(mini_stats, "credit_mechanism") == {"explicit": 1, "broad": 1, NOT_APPLICABLE: 1}
    assert (
        counts(mini_stats, "topology")[NOT_APPLICABLE] == 0
    )  # nullable: the row is there, with zero
    assert counts(mini_stats, "evaluation_measures") == {
        "outcome": 1,
        "efficiency": 0,
        "coordination": 0,
        "trace_safety": 0,
        NOT_APPLICABLE: 2,
    }
    credit_units = mini_stats.axis_counts["credit_units"]
    assert credit_units.labels[credit_units.values.index(NOT_APPLICABLE)] == NOT_APPLICABLE


def test_tables_hand_over_to_pandas_with_the_same_counts(mini_stats):
    axis = mini_stats.axis_counts["credit_units"].to_frame()
    assert axis.index.name == "credit_units" and list(axis.columns) == ["label", "count"]
    assert (
        dict(zip(axis.index, axis["count"].tolist()))
        == mini_stats.axis_counts["credit_units"].as_dict()
    )
    table = mini_stats.crosstabs["reward_types_x_credit_units"]
    frame = table.to_frame()
    assert (frame.index.name, frame.columns.name) == ("reward_types", "credit_units")
    assert frame.to_numpy().tolist() == [list(row) for row in table.cells]
    assert (
        int(frame.loc["shared", "message"])
        == table["shared", "message"]
        == table.get("shared", "message")
    )
    assert table.get("shared", "no such value") is None


def test_years_ascend_and_reward_families_derive_from_reward_types(mini_stats):
    assert counts(mini_stats, "year") == {"2023": 1, "2024": 1, "2025": 1}
    families = counts(mini_stats, "reward_families")
    assert families["R1"] == 2 and families[NOT_APPLICABLE] == 1 and sum(families.values()) == 3


def test_exclusion_counts_list_every_stage_source_family_and_reason(mini_stats, mini_project):
    taxonomy = mini_project.taxonomy()
    stage = mini_stats.exclusion_counts["stage"].as_dict()
    assert list(stage) == list(taxonomy["screening_stages"].ids)
    assert stage["abstract_screen"] == 1 and sum(stage.values()) == 1
    assert mini_stats.exclusion_counts["reason_code"].as_dict()["no_rl_component"] == 1
    assert mini_stats.exclusion_counts["source"].as_dict()["arxiv"] == 1
    assert mini_stats.exclusion_counts["query_family"].as_dict()["multi_agent_llm"] == 1


def test_crosstabs_have_every_value_pair(mini_stats, mini_project):
    taxonomy = mini_project.taxonomy()
    assert set(mini_stats.crosstabs) == {
        crosstab_name(r, c) for r, c in load_taxonomy().crosstabs()
    }
    table = mini_stats.crosstabs["reward_types_x_credit_units"]
    assert table.shape == (len(taxonomy["reward_types"].ids), len(taxonomy["credit_units"].ids))
    assert list(table.rows) == list(taxonomy["reward_types"].ids)
    assert table["shared", "agent"] == 1 and table["shared", "message"] == 1
    assert int(table.to_numpy().sum()) == 2  # gamma has neither axis: left out
    verified = mini_stats.crosstabs["category_x_verified"]
    assert verified["rl_method", "yes"] == 2 and verified["benchmark", "yes"] == 1


def test_multi_valued_fields_count_an_entry_once_per_value(tmp_path):
    shutil.copytree(REPO_ROOT / "taxonomy", tmp_path / "taxonomy")
    write_entry(
        tmp_path,
        entry_data(
            "multi2025",
            reward_types=["debate", "verifier"],
            credit_units=["agent", "role"],
            sub_decisions=["O1", "O2"],
        ),
    )
    stats = compute_stats(load_corpus(Project(tmp_path)))
    assert (
        counts(stats, "reward_types")["debate"] == 1
        and counts(stats, "reward_types")["verifier"] == 1
    )
    assert counts(stats, "reward_families")["R6"] == 1  # two reward types, one family: counted once
    assert (
        counts(stats, "credit_units")["agent"] == 1 and counts(stats, "credit_units")["role"] == 1
    )
    pairs = stats.crosstabs["reward_types_x_credit_units"]
    assert sum(count for _, _, count in pairs) == 4
    assert stats.crosstabs["reward_families_x_credit_units"]["R6", "role"] == 1
    assert sum(stats.crosstabs["sub_decisions_x_topology"].column("centralized")) == 2


# -- renderings ---------------------------------------------------------------------------------


def test_json_has_sorted_keys_and_taxonomy_ordered_lists(mini_stats):
    text = stats_json(mini_stats)
    data = json.loads(text)
    assert text == json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    assert data["headline"] == {"audited": 4, "excluded": 1, "retained": 3}
    assert [row["value"] for row in data["axis_counts"]["category"]][:2] == [
        "rl_method",
        "benchmark",
    ]
    table = data["crosstabs"]["reward_types_x_credit_units"]
    assert table["row_field"] == "reward_types" and table["column_field"] == "credit_units"
    assert table["counts"][table["rows"].index("shared")][table["columns"].index("agent")] == 1


def test_csv_is_long_format_and_agrees_with_the_tables(mini_stats):
    rows = list(csv.DictReader(io.StringIO(stats_csv(mini_stats))))
    assert list(rows[0]) == ["table", "row", "column", "count"]
    by_key = {(r["table"], r["row"], r["column"]): int(r["count"]) for r in rows}
    assert by_key[("headline", "audited", "")] == 4
    assert by_key[("axis.reward_types", NOT_APPLICABLE, "")] == 1
    assert by_key[("crosstab.reward_types_x_credit_units", "shared", "message")] == 1
    assert by_key[("exclusions.stage", "abstract_screen", "")] == 1
    assert len(rows) == len(stats_rows(mini_stats))


def test_markdown_lists_every_axis_with_zeros_and_not_applicable(mini_stats):
    text = stats_markdown(mini_stats)
    for name in axis_fields(load_taxonomy()):
        assert f"(`{name}`)" in text
    assert "| `classical_marl` | Classical MARL foundations | 0 | 0% |" in text
    assert f"| _{NOT_APPLICABLE}_ | {NOT_APPLICABLE} | 1 |" in text
    assert "| Audited records | 4 |" in text


# -- the real corpus: the published counts -----------------------------------------------------


def test_real_corpus_headline(real_stats):
    assert real_stats.headline.as_dict() == {
        "retained": REAL_ENTRIES,
        "excluded": REAL_EXCLUSIONS,
        "audited": REAL_AUDITED,
    }


@pytest.mark.parametrize(
    ("field_name", "expected"),
    [
        (
            "category",
            {
                "rl_method": 42,
                "benchmark": 18,
                "classical_marl": 10,
                "industry": 6,
                "survey": 5,
                "framework": 3,
            },
        ),
        (
            "reward_types",
            {
                "hybrid": 15,
                "shared": 10,
                "orchestration": 7,
                "verifier": 6,
                "debate": 4,
                "individual": 4,
                "role": 3,
                "process": 2,
                "tool": 0,
                NOT_APPLICABLE: 33,
            },
        ),
        (
            "credit_units",
            {
                "agent": 23,
                "role": 10,
                "orchestrator": 8,
                "turn": 5,
                "message": 2,
                "token": 0,
                "tool": 0,
                "team": 0,
                NOT_APPLICABLE: 36,
            },
        ),
    ],
)
def test_published_axis_counts(published_corpus, field_name, expected):
    assert counts(compute_stats(published_corpus), field_name) == expected


def test_real_corpus_counts_add_up(real_stats):
    for name in (
        "category",
        "is_rl",
        "credit_mechanism",
        "topology",
        "scenario",
        "survey_role",
        "verified",
        "evidence_level",
        "year",
    ):
        assert sum(counts(real_stats, name).values()) == REAL_ENTRIES, (
            name
        )  # single-valued: one row per entry
    assert sum(real_stats.exclusion_counts["stage"].as_dict().values()) == REAL_EXCLUSIONS


# -- command line -------------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", ["markdown", "json", "csv"])
def test_cli_formats(mini_project, fmt):
    result = CliRunner().invoke(main, ["stats", "--root", str(mini_project.root), "--format", fmt])
    assert result.exit_code == 0, result.output
    expected = {"markdown": stats_markdown, "json": stats_json, "csv": stats_csv}[fmt]
    assert result.output == expected(compute_stats(load_corpus(mini_project)))


def test_cli_writes_a_file(mini_project, tmp_path):
    target = tmp_path / "out" / "stats.json"
    result = CliRunner().invoke(
        main, ["stats", "--root", str(mini_project.root), "--format", "json", "-o", str(target)]
    )
    assert result.exit_code == 0, result.output
    assert json.loads(target.read_text())["headline"]["retained"] == 3


def test_cli_refuses_an_invalid_corpus(mini_project):
    write_entry(mini_project.root, entry_data("broken2025", category="not-a-category"))
    result = CliRunner().invoke(main, ["stats", "--root", str(mini_project.root)])
    assert result.exit_code == 1
    assert "broken2025.yaml" in result.output


def test_cli_shows_counts_beside_a_snapshot(repo_copy):
    from click.testing import CliRunner
    from masrl.cli import main

    write_entry(
        repo_copy.root, entry_data("newer2026", title="A Newer Team Trained End to End", year=2026)
    )
    runner = CliRunner()
    result = runner.invoke(
        main, ["stats", "--root", str(repo_copy.root), "--beside", "survey-2026-05"]
    )
    assert result.exit_code == 0, result.output
    assert "| Retained entries | 85 | 84 | +1 |" in result.output
    refused = runner.invoke(
        main,
        ["stats", "--root", str(repo_copy.root), "--beside", "survey-2026-05", "--format", "json"],
    )
    assert refused.exit_code == 2 and "--beside works with --format markdown only" in refused.output
    missing = runner.invoke(main, ["gaps", "--root", str(repo_copy.root), "--beside", "nope"])
    assert (
        missing.exit_code != 0
        and "no snapshot named 'nope'" in missing.output
        and "Traceback" not in missing.output
    )

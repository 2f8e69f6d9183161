"""`masrl agreement`: decisions by several screeners and the spot-check audit CSV."""

from __future__ import annotations

import json
import math
import warnings

import pytest
from click.testing import CliRunner
from conftest import examples
from hypothesis import given, settings
from hypothesis import strategies as st
from masrl.cli import main
from masrl.errors import InputError
from masrl.screening.agreement import (
    Ratings,
    agreement,
    cohen_kappa,
    project_agreement,
    read_audit_csv,
)

# One worker imports scikit-learn, pandas and ASReview (2 s) for the screening tests, not both.
pytestmark = pytest.mark.xdist_group("screening")

HEADER = (
    "key,orig_category,ann_category,orig_is_rl,ann_is_rl,orig_reward_type,ann_reward_type,"
    "orig_credit_granularity,ann_credit_granularity,orig_orchestration_form,ann_orchestration_form,"
    "strict_explicit_credit,agreement_note,annotator_note\n"
)
ROWS = (
    "alpha2025,rl_method,rl_method,yes,yes,shared;hybrid,hybrid;shared,agent,agent,NA,NA,no,,\n"
    "beta2024,rl_method,benchmark,yes,yes,shared,shared,message,agent,O2,O2,yes,,routing looks learned\n"
    "gamma2023,benchmark,benchmark,no,no,NA,NA,NA,NA,NA,NA,no,,\n"
    "delta2022,benchmark,benchmark,no,,NA,NA,NA,NA,NA,,no,,\n"
)
DECISIONS = """decisions:
  - {record: '2606.01001', screener: alice, decision: include, reason_code: null, rationale: null, date: '2026-11-23'}
  - {record: '2606.01001', screener: bob, decision: include, reason_code: null, rationale: null, date: '2026-11-23'}
  - {record: '2606.01002', screener: alice, decision: exclude, reason_code: no_rl_component, rationale: x, date: '2026-11-23'}
  - {record: '2606.01002', screener: bob, decision: include, reason_code: null, rationale: null, date: '2026-11-23'}
  - {record: '2606.01003', screener: alice, decision: defer, reason_code: null, rationale: null, date: '2026-11-23'}
  - {record: '2606.01003', screener: carol, decision: defer, reason_code: null, rationale: null, date: '2026-11-23'}
"""


@pytest.fixture
def audit(tmp_path):
    path = tmp_path / "spot_check.csv"
    path.write_text(HEADER + ROWS, encoding="utf-8")
    return path


def by_field(results):
    return {r.field: r for r in results}


def test_audit_csv_gives_kappa_alpha_and_the_disagreements(audit):
    ratings = Ratings()
    assert read_audit_csv(audit, ratings) == 4
    results = by_field(agreement(ratings))
    category = results["category"]
    # two raters, 4 units: observed 3/4, expected 1/2 -> kappa 0.5; alpha (nominal) 1 - 0.25/(30/56)
    assert (category.units, category.observed, category.kappa) == (4, 0.75, 0.5)
    assert category.alpha == pytest.approx(1 - 0.25 / (30 / 56), abs=1e-4)
    assert [(d.unit, d.values) for d in category.disagreements] == [
        ("beta2024", (("annotator", "benchmark"), ("original", "rl_method")))
    ]
    # multi-valued cells compare as sets; NA is a value; an empty cell is a missing rating
    assert results["reward_type"].observed == 1.0 and results["reward_type"].disagreements == ()
    assert results["is_rl"].units == 3
    assert results["credit_granularity"].observed == 0.75


def test_decisions_by_several_screeners(mini_project):
    folder = mini_project.root / "screening" / "decisions"
    folder.mkdir(parents=True)
    (folder / "2026-11.yaml").write_text(DECISIONS, encoding="utf-8")
    decision = by_field(project_agreement(mini_project))["decision"]
    assert decision.raters == ("alice", "bob", "carol")
    assert decision.kappa is None  # three raters: Cohen's kappa does not apply
    assert (decision.units, decision.observed) == (3, round(2 / 3, 4))
    assert decision.alpha is not None
    assert [d.unit for d in decision.disagreements] == ["2606.01002"]


def test_cli_prints_a_table_and_json(mini_project, audit):
    runner = CliRunner()
    text = runner.invoke(
        main, ["agreement", "--audit", str(audit), "--root", str(mini_project.root)]
    )
    assert text.exit_code == 0, text.output
    assert "disagree category beta2024: annotator=benchmark; original=rl_method" in text.output
    assert text.output.splitlines()[-1] == "agreement: 5 field(s), 2 disagreement(s) to adjudicate"
    data = json.loads(
        runner.invoke(
            main,
            [
                "agreement",
                "--audit",
                str(audit),
                "--format",
                "json",
                "--root",
                str(mini_project.root),
            ],
        ).output
    )
    assert [f["field"] for f in data["fields"]] == [
        "category",
        "is_rl",
        "reward_type",
        "credit_granularity",
        "orchestration_form",
    ]


def test_a_csv_in_the_wrong_layout_is_one_line(tmp_path, mini_project):
    bad = tmp_path / "bad.csv"
    bad.write_text("key,category\nalpha2025,rl_method\n", encoding="utf-8")
    with pytest.raises(InputError, match="lacks the column"):
        read_audit_csv(bad, Ratings())
    result = CliRunner().invoke(
        main, ["agreement", "--audit", str(bad), "--root", str(mini_project.root)]
    )
    assert result.exit_code == 1
    assert (
        len(result.output.strip().splitlines()) == 1
        and ":1: the audit CSV lacks the column(s) orig_category" in result.output
    )
    twice = tmp_path / "twice.csv"
    twice.write_text(HEADER + ROWS + ROWS.splitlines(keepends=True)[0], encoding="utf-8")
    with pytest.raises(InputError, match="audited twice"):
        read_audit_csv(twice, Ratings())


def test_a_hand_edited_decisions_file_is_checked_like_screen_checks_it(mini_project):
    folder = mini_project.root / "screening" / "decisions"
    folder.mkdir(parents=True)
    (folder / "2026-11.yaml").write_text(
        "decisions:\n"
        "  - {record: '2606.01001', screener: alice, decision: maybe, date: '2026-11-23'}\n"
        "  - {record: '2606.01001', screener: bob, decision: exclude, date: 'yesterday'}\n",
        encoding="utf-8",
    )
    result = CliRunner().invoke(main, ["agreement", "--root", str(mini_project.root)])
    assert result.exit_code == 1
    assert (
        "screening/decisions/2026-11.yaml:2: decision 'maybe' is not one of include, exclude, defer"
        in result.output
    )
    assert "screening/decisions/2026-11.yaml:3: date 'yesterday' is not YYYY-MM-DD" in result.output
    assert (
        "screening/decisions/2026-11.yaml:3: an exclude decision needs a 'reason_code'"
        in result.output
    )


@settings(max_examples=examples(100, deep=200), deadline=None)
@given(
    pairs=st.lists(
        st.tuples(st.sampled_from("abcd"), st.sampled_from("abcd")), min_size=1, max_size=40
    )
)
def test_cohen_kappa_is_scikit_learns_to_the_last_bit(pairs):
    """The reliability page computes kappa without importing scikit-learn, with its arithmetic."""
    from sklearn.metrics import cohen_kappa_score

    first, second = [a for a, _ in pairs], [b for _, b in pairs]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # one label only: both say NaN
        expected = cohen_kappa_score(first, second)
    found = cohen_kappa(first, second)
    assert found == expected or (math.isnan(found) and math.isnan(expected))

"""Tags read independently by two screeners: the file layout, its checks, agreement and adjudication."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from masrl.check.validate import validate_project
from masrl.cli import main
from masrl.errors import ProblemsError
from masrl.screening.agreement import project_agreement
from masrl.screening.tag_readings import read_tag_files

READINGS = """# Round 2026-11, read twice
readings:
  - record: alpha2025
    screener: alice
    date: '2026-11-23'
    tags:
      category: rl_method
      reward_types: [shared, individual]
      credit_mechanism: broad
  - record: alpha2025
    screener: bob
    date: '2026-11-24'
    tags:
      category: rl_method
      reward_types: [individual, shared]
      credit_mechanism: explicit
  - record: beta2024
    screener: alice
    date: '2026-11-23'
    tags:
      category: rl_method
      reward_types: [shared]
      credit_mechanism: explicit
  - record: beta2024
    screener: bob
    date: '2026-11-24'
    tags:
      category: benchmark
      reward_types: []
      credit_mechanism: null
  - record: gamma2023
    screener: alice
    date: '2026-11-23'
    tags: {category: benchmark, reward_types: [], credit_mechanism: null}
  - record: gamma2023
    screener: bob
    date: '2026-11-24'
    tags: {category: benchmark, reward_types: [], credit_mechanism: null}
"""
RULINGS = """adjudications:
  - record: beta2024
    field: category
    value: rl_method
    by: carol
    date: '2026-11-25'
    note: the routing policy is trained with a team reward
  - record: alpha2025
    field: credit_mechanism
    value: explicit
    by: carol
    date: '2026-11-25'
"""


def write(project, text: str, round_id: str = "2026-11"):
    folder = project.root / "screening" / "tags"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{round_id}.yaml"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def project(mini_project):
    return mini_project


def by_field(results):
    return {r.field: r for r in results}


def test_each_tag_field_gets_kappa_alpha_and_its_disagreements(project):
    write(project, READINGS)
    results = by_field(project_agreement(project))
    assert sorted(results) == ["category", "credit_mechanism", "reward_types"]
    category = results["category"]
    assert category.raters == ("alice", "bob") and category.units == 3
    assert category.observed == round(2 / 3, 4)
    assert category.kappa == pytest.approx(0.4, abs=1e-4)  # po 2/3, pe 5/9
    assert category.alpha is not None
    assert [(d.unit, d.values) for d in category.disagreements] == [
        ("beta2024", (("alice", "rl_method"), ("bob", "benchmark")))
    ]
    # a list compares as a set, [] and null are values of their own
    rewards = results["reward_types"]
    assert [(d.unit, d.values) for d in rewards.disagreements] == [
        ("beta2024", (("alice", "shared"), ("bob", "(none)")))
    ]
    assert [(d.unit, d.values) for d in results["credit_mechanism"].disagreements] == [
        ("alpha2025", (("alice", "broad"), ("bob", "explicit"))),
        ("beta2024", (("alice", "explicit"), ("bob", "NA"))),
    ]
    assert not any(d.settled for r in results.values() for d in r.disagreements)


def test_rulings_settle_disagreements_and_show_whether_the_corpus_follows(project):
    write(project, READINGS + RULINGS)
    results = by_field(project_agreement(project))
    beta = results["category"].disagreements[0]
    assert (beta.ruling, beta.ruled_by, beta.ruled_at) == (
        "rl_method",
        "carol",
        "screening/tags/2026-11.yaml:40",
    )
    assert beta.corpus == "rl_method" and not beta.pending_in_corpus  # the entry already says so
    alpha = results["credit_mechanism"].disagreements[0]
    assert alpha.ruling == "explicit" and alpha.pending_in_corpus
    assert (alpha.corpus, alpha.corpus_at) == ("broad", "corpus/alpha2025.yaml:23")
    assert not results["credit_mechanism"].disagreements[1].settled

    runner = CliRunner()
    text = runner.invoke(main, ["agreement", "--root", str(project.root)])
    assert text.exit_code == 0, text.output
    lines = text.output.splitlines()
    assert (
        "ruled credit_mechanism alpha2025: alice=broad; bob=explicit -> ruled explicit by carol "
        "(screening/tags/2026-11.yaml:46); the corpus still says broad at corpus/alpha2025.yaml:23"
    ) in lines
    assert "disagree credit_mechanism beta2024: alice=explicit; bob=NA" in lines
    assert (
        lines[-1]
        == "agreement: 3 field(s), 2 disagreement(s) to adjudicate, 2 ruled (1 not yet in the corpus)"
    )
    markdown = runner.invoke(
        main, ["agreement", "--format", "markdown", "--root", str(project.root)]
    ).output
    assert (
        "## Adjudicated" in markdown
        and "- `beta2024` category: alice `rl_method`; bob `benchmark` -> ruled `rl_method`"
        in markdown
    )
    data = json.loads(
        runner.invoke(main, ["agreement", "--format", "json", "--root", str(project.root)]).output
    )
    ruled = [d for f in data["fields"] for d in f["disagreements"] if d["ruling"]]
    assert [(d["unit"], d["field"], d["ruling"]) for d in ruled] == [
        ("beta2024", "category", "rl_method"),
        ("alpha2025", "credit_mechanism", "explicit"),
    ]


def test_agreement_per_round_and_the_rulings_reasons(project):
    """Each round on its own (the site's reliability page shows one table per round), and every
    ruling with its one-line reason."""
    from conftest import entry_data, write_entry

    write_entry(
        project.root, entry_data("delta2026", title="Delta Teams", year=2026, round="2026-11")
    )
    delta = """readings:
  - record: delta2026
    screener: alice
    date: '2026-11-23'
    tags: {category: rl_method}
  - record: delta2026
    screener: bob
    date: '2026-11-24'
    tags: {category: benchmark}
"""
    write(project, READINGS.replace("readings:\n", delta) + RULINGS)
    whole = by_field(project_agreement(project))["category"]
    assert whole.units == 4
    living = by_field(project_agreement(project, round_id="2026-11"))
    assert list(living) == ["category"] and living["category"].units == 1
    assert [d.unit for d in living["category"].disagreements] == ["delta2026"]
    survey = by_field(project_agreement(project, round_id="survey-2026-05"))
    assert survey["category"].units == 3
    assert project_agreement(project, round_id="no-such-round") == []
    markdown = (
        CliRunner()
        .invoke(main, ["agreement", "--format", "markdown", "--root", str(project.root)])
        .output
    )
    assert "-> ruled `rl_method` by carol (screening/tags/2026-11.yaml:" in markdown
    assert "): the routing policy is trained with a team reward" in markdown
    result = CliRunner().invoke(
        main, ["agreement", "--round", "2026-11", "--root", str(project.root)]
    )
    assert (
        result.exit_code == 0
        and "disagree category delta2026: alice=rl_method; bob=benchmark" in result.output
    )
    unknown = CliRunner().invoke(
        main, ["agreement", "--round", "2099-01", "--root", str(project.root)]
    )
    assert unknown.exit_code == 2 and "no screening round '2099-01'" in unknown.output


def test_a_decision_dispute_can_be_ruled_too(project):
    decisions = project.root / "screening" / "decisions"
    decisions.mkdir(parents=True)
    (decisions / "2026-11.yaml").write_text(
        "decisions:\n"
        "  - {record: '2606.01002', screener: alice, decision: exclude, reason_code: no_rl_component, rationale: x, date: '2026-11-23'}\n"
        "  - {record: '2606.01002', screener: bob, decision: include, reason_code: null, rationale: null, date: '2026-11-23'}\n",
        encoding="utf-8",
    )
    write(
        project,
        "readings: []\nadjudications:\n  - {record: '2606.01002', field: decision, value: exclude, by: carol, date: '2026-11-25'}\n",
    )
    decision = by_field(project_agreement(project))["decision"]
    assert (
        decision.disagreements[0].ruling == "exclude" and decision.disagreements[0].corpus is None
    )


BAD = """readings:
  - record: alpha2025
    screener: alice
    date: '23 Nov'
    tags:
      category: rl_methods
      reward_types: shared
      credit_mechanism: null
      colour: blue
  - record: nobody2020
    screener: alice
    date: '2026-11-23'
    tags: {category: benchmark}
  - record: alpha2025
    screener: alice
    date: '2026-11-23'
    tags: {category: benchmark}
  - record: beta2024
    date: '2026-11-23'
    tags: {category: [benchmark]}
adjudications:
  - {record: alpha2025, field: category, value: nonsense, by: carol, date: '2026-11-25'}
  - {record: alpha2025, field: category, value: benchmark, by: carol, date: '2026-11-25'}
  - {record: alpha2025, field: mood, value: x, by: carol, date: '2026-11-25'}
  - {record: alpha2025, field: is_rl, by: carol, date: '2026-11-25'}
"""


def test_every_problem_of_a_hand_edited_file_is_named_with_its_line(project):
    write(project, BAD)
    with pytest.raises(ProblemsError) as caught:
        read_tag_files(project)
    expected = [
        ":4: date '23 Nov' is not YYYY-MM-DD",
        ":6: category: 'rl_methods' is not one of rl_method, benchmark, ",
        ":7: reward_types takes a list (e.g. [shared], or [] when none applies)",
        ":9: 'colour' is not a tag field (tag fields: category, is_rl, reward_types, ",
        ":10: 'nobody2020' is not a corpus entry (tags are read for corpus entries; use its key)",
        ":14: alice reads 'alpha2025' twice (first on line 2) (keep one reading per screener and record in a pass; correct it in place)",
        ":18: reading without 'screener' (add 'screener: ...')",
        ":20: category: ['benchmark'] is not one of rl_method, ",
        ":22: category: 'nonsense' is not one of rl_method, ",
        ":23: 'alpha2025' category is adjudicated twice (first on line 22)",
        ":24: 'mood' is neither a tag field nor 'decision' (tag fields: category, ",
        ":25: adjudication without 'value' (the value the adjudicator settled on)",
    ]
    problems = caught.value.problems
    assert len(problems) == len(expected)
    for problem, start in zip(problems, expected, strict=True):
        assert problem.startswith("screening/tags/2026-11.yaml" + start), problem
    # validate reports the same problems, among the corpus's own
    report = validate_project(project)
    assert sum(p.code == "tag-readings" for p in report.errors) == len(caught.value.problems)
    # and the command line says it in one message, exit 1, nothing written
    result = CliRunner().invoke(main, ["agreement", "--root", str(project.root)])
    assert result.exit_code == 1 and "the tag readings have 12 problem(s)" in result.output


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "- just a list\n",
            "screening/tags/2026-11.yaml:1: expected a mapping with a list 'readings:'",
        ),
        ("readings: []\nextra: 1\n", "screening/tags/2026-11.yaml:2: unknown key 'extra'"),
        ("readings: [\n", "screening/tags/2026-11.yaml:"),
    ],
)
def test_nonsense_files_are_one_clear_problem(project, text, message):
    write(project, text)
    with pytest.raises(ProblemsError) as caught:
        read_tag_files(project)
    assert caught.value.problems[0].startswith(message)


def test_the_file_name_must_be_a_known_round(project):
    write(project, "readings: []\n", round_id="2027-01")
    with pytest.raises(ProblemsError, match="unknown screening round '2027-01'"):
        read_tag_files(project)


def test_no_tag_files_change_nothing(project):
    assert read_tag_files(project) == ([], [])
    assert not [p for p in validate_project(project).errors if p.code == "tag-readings"]

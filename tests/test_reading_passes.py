"""Re-reading passes: fields every reader read again under sharper definitions, recorded beside the
first reading in screening/tags/<round>.yaml and reported in place of the pass they supersede."""

from __future__ import annotations

import html
import json

import pytest
from click.testing import CliRunner
from masrl.check.validate import validate_project
from masrl.cli import main
from masrl.errors import ProblemsError
from masrl.screening.agreement import agreement_by_round, project_agreement
from masrl.screening.tag_readings import read_tag_data

pytestmark = pytest.mark.xdist_group("screening")

DECISIONS = """decisions:
  - {record: '2606.01001', screener: alice, decision: include, reason_code: null, rationale: null, date: '2026-11-23'}
  - {record: '2606.01001', screener: bob, decision: include, reason_code: null, rationale: null, date: '2026-11-23'}
  - {record: '2606.01002', screener: alice, decision: exclude, reason_code: no_rl_component, rationale: x, date: '2026-11-23'}
  - {record: '2606.01002', screener: bob, decision: include, reason_code: null, rationale: null, date: '2026-11-23'}
"""
# Pass 1: category disagrees on beta2024 (kappa 0.4: observed 2/3, expected 5/9); the decision on
# 2606.01002 too. Pass 2 re-reads both under sharper definitions: category now agrees everywhere,
# and the decisions disagree on 2606.01001 instead.
TAGS = """passes:
  - pass: 2
    date: '2026-11-26'
    fields: [category, decision]
    why: category 'benchmark' now requires a released task suite
readings:
  - {record: alpha2025, screener: alice, date: '2026-11-23', tags: {category: rl_method, reward_types: [shared]}}
  - {record: alpha2025, screener: bob, date: '2026-11-24', tags: {category: rl_method, reward_types: [shared]}}
  - {record: beta2024, screener: alice, date: '2026-11-23', tags: {category: rl_method, reward_types: [shared]}}
  - {record: beta2024, screener: bob, date: '2026-11-24', tags: {category: benchmark, reward_types: []}}
  - {record: gamma2023, screener: alice, date: '2026-11-23', tags: {category: benchmark, reward_types: []}}
  - {record: gamma2023, screener: bob, date: '2026-11-24', tags: {category: benchmark, reward_types: []}}
  - {record: alpha2025, screener: alice, pass: 2, date: '2026-11-26', tags: {category: rl_method}}
  - {record: alpha2025, screener: bob, pass: 2, date: '2026-11-26', tags: {category: rl_method}}
  - {record: beta2024, screener: alice, pass: 2, date: '2026-11-26', tags: {category: rl_method}}
  - {record: beta2024, screener: bob, pass: 2, date: '2026-11-26', tags: {category: rl_method}}
  - {record: gamma2023, screener: alice, pass: 2, date: '2026-11-26', tags: {category: benchmark}}
  - {record: gamma2023, screener: bob, pass: 2, date: '2026-11-26', tags: {category: benchmark}}
  - {record: '2606.01001', screener: alice, pass: 2, date: '2026-11-26', tags: {decision: include}}
  - {record: '2606.01001', screener: bob, pass: 2, date: '2026-11-26', tags: {decision: exclude}}
  - {record: '2606.01002', screener: alice, pass: 2, date: '2026-11-26', tags: {decision: exclude}}
  - {record: '2606.01002', screener: bob, pass: 2, date: '2026-11-26', tags: {decision: exclude}}
"""
RULINGS = """adjudications:
  - {record: '2606.01002', field: decision, value: exclude, by: carol, date: '2026-11-25'}
  - {record: '2606.01001', field: decision, pass: 2, value: include, by: carol, date: '2026-11-27', note: a trained router}
"""


@pytest.fixture
def project(mini_project):
    screening = mini_project.root / "screening"
    (screening / "decisions").mkdir(parents=True)
    (screening / "decisions" / "2026-11.yaml").write_text(DECISIONS, encoding="utf-8")
    (screening / "tags").mkdir()
    return mini_project


def write_tags(project, text: str) -> None:
    (project.root / "screening" / "tags" / "2026-11.yaml").write_text(text, encoding="utf-8")


def by_field(results):
    return {r.field: r for r in results}


def test_a_re_read_is_reported_and_keeps_the_first_pass_figures(project):
    write_tags(project, TAGS)
    results = by_field(project_agreement(project))
    category = results["category"]
    assert (category.passes, category.units, category.observed, category.kappa) == (
        (2,),
        3,
        1.0,
        1.0,
    )
    assert category.disagreements == ()
    earlier = category.earlier
    assert (earlier.passes, earlier.units, earlier.observed) == ((1,), 3, round(2 / 3, 4))
    assert earlier.kappa == pytest.approx(0.4, abs=1e-4) and earlier.alpha is not None
    assert [(p.round, p.number, p.why) for p in category.rereads] == [
        ("2026-11", 2, "category 'benchmark' now requires a released task suite")
    ]
    # a field no pass re-read is reported from the first pass, with nothing superseded
    rewards = results["reward_types"]
    assert (rewards.passes, rewards.earlier, rewards.rereads) == ((1,), None, ())
    assert [d.unit for d in rewards.disagreements] == ["beta2024"]
    # the decisions file is the first pass; the re-read decisions come from the tags file
    decision = results["decision"]
    assert (decision.passes, decision.units, decision.observed) == ((2,), 2, 0.5)
    assert (decision.earlier.units, decision.earlier.observed) == (2, 0.5)
    # each round on its own: the survey's entries were re-read in the 2026-11 file
    rounds = agreement_by_round(project, ["survey-2026-05", "2026-11", "2026-12"])
    assert by_field(rounds["survey-2026-05"])["category"].earlier.units == 3
    assert list(by_field(rounds["2026-11"])) == ["decision"]
    assert rounds["2026-12"] == []


def test_superseded_disagreements_are_not_pending_and_rulings_settle_their_pass(project):
    write_tags(project, TAGS + RULINGS)
    decision = by_field(project_agreement(project))["decision"]
    # 2606.01002 disagreed in pass 1 only (its pass-1 ruling stays valid but has nothing to settle)
    [disputed] = decision.disagreements
    assert (disputed.unit, disputed.pass_number) == ("2606.01001", 2)
    assert (disputed.ruling, disputed.ruled_at) == ("include", "screening/tags/2026-11.yaml:25")
    # a pass-1 ruling does not settle a pass-2 disagreement of the same record and field
    write_tags(
        project,
        TAGS
        + RULINGS.replace("pass: 2, value: include", "value: include").replace(
            "'2606.01002', field", "'2606.01003', field"
        ),
    )
    [open_] = by_field(project_agreement(project))["decision"].disagreements
    assert not open_.settled


def test_the_cli_shows_the_pass_and_the_kappa_before_the_re_read(project):
    write_tags(project, TAGS + RULINGS)
    runner = CliRunner()
    result = runner.invoke(main, ["agreement", "--root", str(project.root)])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0].split() == [
        *("Field", "Pass", "Raters", "Units", "Observed", "Cohen's", "κ", "Krippendorff's", "α"),
        *("κ", "before", "re-read", "Disagreements"),
    ]
    assert lines[1].split()[:4] == ["decision", "2", "2", "2"]
    category = next(line.split() for line in lines if line.startswith("category"))
    assert category == [
        "category",
        "2",
        "2",
        "3",
        "1.000",
        "1.000",
        "1.000",
        "0.400",
        "(pass",
        "1)",
        "0",
    ]
    rewards = next(line.split() for line in lines if line.startswith("reward_types"))
    assert rewards[1] == "1" and rewards[-2:] == ["-", "1"]
    assert (
        "re-read: Pass 2 of round 2026-11 (2026-11-26) re-read category, decision: "
        "category 'benchmark' now requires a released task suite"
    ) in lines
    assert "ruled decision 2606.01001 (pass 2): alice=include; bob=exclude -> ruled include" in (
        result.output
    )
    assert lines[-1] == "agreement: 3 field(s), 1 disagreement(s) to adjudicate, 1 ruled"
    again = runner.invoke(main, ["agreement", "--root", str(project.root)])
    assert again.output == result.output  # deterministic
    markdown = runner.invoke(
        main, ["agreement", "--format", "markdown", "--root", str(project.root)]
    ).output
    assert (
        "| Field | Pass | Raters | Units | Observed | Cohen's κ | Krippendorff's α | κ before re-read |"
        in markdown
    )
    assert "| category | 1 (superseded) | 3 | 0.667 | 0.400 |" in markdown
    data = json.loads(
        runner.invoke(main, ["agreement", "--format", "json", "--root", str(project.root)]).output
    )
    category_json = next(f for f in data["fields"] if f["field"] == "category")
    assert category_json["passes"] == [2] and category_json["earlier"]["kappa"] == 0.4
    assert category_json["rereads"][0]["why"].startswith("category 'benchmark'")


def test_the_reliability_page_shows_the_passes_and_an_empty_round_says_why(project):
    from masrl.check.validate import load_corpus
    from masrl.render.site.context import SiteContext
    from masrl.render.site.living import reliability_markdown

    write_tags(project, TAGS + RULINGS)
    page = html.unescape(reliability_markdown(SiteContext(load_corpus(project))))
    survey = page[page.index("## Round survey-2026-05") :]
    assert "### Re-read fields" in survey
    # the site names fields by their labels, each linked to what it means
    assert (
        "- Pass 2 of round 2026-11 (2026-11-26) re-read [Category](browse/category.md), "
        "[Screening decision](screening.md): category" in survey
    )
    assert "| [Category](browse/category.md) | 1 (superseded) | 3 | 0.667 | 0.400 |" in survey
    round_11 = page[page.index("## Round 2026-11") : page.index("## Round survey-2026-05")]
    assert (
        "`2606.01001` (pass 2) [Screening decision](screening.md): alice <code>include</code>; "
        "bob <code>exclude</code> -> ruled <code>include</code>" in round_11
    )
    empty = page[page.index("## Round 2026-12") : page.index("## Round 2026-11")]
    assert "No record of round 2026-12 has been read by two screeners yet" in empty


BAD = """passes:
  - {pass: 2, date: '2026-11-25', fields: [category, decision], why: sharper categories}
  - {pass: 1, date: 'soon', fields: [colour]}
readings:
  - {record: alpha2025, screener: alice, pass: 3, date: '2026-11-25', tags: {category: rl_method}}
  - {record: alpha2025, screener: alice, pass: 2, date: '2026-11-25', tags: {reward_types: []}}
  - {record: alpha2025, screener: bob, date: '2026-11-25', tags: {decision: include}}
  - {record: beta2024, screener: alice, pass: 2, date: '2026-11-25', tags: {category: benchmark}}
  - {record: beta2024, screener: alice, pass: 2, date: '2026-11-26', tags: {category: rl_method}}
  - {record: beta2024, screener: alice, date: '2026-11-23', tags: {category: rl_method}}
  - {record: E999, screener: bob, pass: 2, date: '2026-11-25', tags: {decision: exclude}}
adjudications:
  - {record: beta2024, field: category, pass: 4, value: benchmark, by: carol, date: '2026-11-25'}
  - {record: beta2024, field: reward_types, pass: 2, value: [], by: carol, date: '2026-11-25'}
  - {record: beta2024, field: category, pass: 2, value: benchmark, by: carol, date: '2026-11-25'}
  - {record: beta2024, field: category, pass: 2, value: rl_method, by: carol, date: '2026-11-26'}
"""


def test_every_problem_of_the_passes_is_named_with_its_line_and_fix(project):
    write_tags(project, BAD)
    with pytest.raises(ProblemsError) as caught:
        read_tag_data(project)
    expected = [
        ":3: a declared pass needs 'pass:' 2 or more, not 1 (pass 1 is the round's first reading",
        ":3: a pass needs 'date:' as YYYY-MM-DD",
        ":3: a pass without 'why' (add 'why: ...', one line on which definitions changed and why)",
        ":3: 'colour' is neither a tag field nor 'decision' (fields: category, ",
        ":5: a reading of pass 3, which is not declared under 'passes:' (declare it (e.g. - {pass: 2,",
        ":6: pass 2 does not re-read 'reward_types' (pass 2 (screening/tags/2026-11.yaml:2) re-reads "
        "category, decision; read 'reward_types' in pass 1 or add it to the pass's fields)",
        ":7: 'decision' is not a tag of a first reading (first-pass decisions go to "
        "screening/decisions/2026-11.yaml;",
        ":9: alice reads 'beta2024' twice in pass 2 (first on line 8)",
        ":11: 'E999' is not a record of screening/decisions/2026-11.yaml",
        ":13: an adjudication of pass 4, which is not declared under 'passes:'",
        ":14: pass 2 does not re-read 'reward_types'",
        ":16: 'beta2024' category is adjudicated twice in pass 2 (first on line 15)",
    ]
    problems = caught.value.problems
    assert len(problems) == len(expected), problems
    for problem, start in zip(problems, expected, strict=True):
        assert problem.startswith("screening/tags/2026-11.yaml" + start), problem
    report = validate_project(project)
    assert sum(p.code == "tag-readings" for p in report.errors) == len(expected)


def test_files_without_passes_read_as_before(project):
    write_tags(project, "readings: []\n")
    data = read_tag_data(project)
    assert (data.readings, data.rulings, data.passes) == ([], [], {})
    decision = by_field(project_agreement(project))["decision"]
    assert (decision.passes, decision.earlier, decision.rereads) == ((1,), None, ())

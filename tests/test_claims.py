"""The claim ledger: the real claims hold, a fabricated entry flips them, the ledger is validated."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import (
    PUBLISHED,
    REAL_AUDITED,
    REAL_ENTRIES,
    REAL_EXCLUSIONS,
    REPO_ROOT,
    entry_data,
    write_entry,
)
from masrl.check.validate import load_corpus
from masrl.cli import main
from masrl.derive.claims import LedgerError, claims_report, evaluate_claims
from masrl.model.project import Project
from masrl.render.claims import render_github, render_markdown, render_text
from shared_corpus import live_corpus

STOPPER = entry_data(
    "stopper2026",
    title="Learning When to Stop a Team of Language Agents",
    year=2026,
    reward_types=["orchestration"],
    credit_units=["orchestrator"],
    credit_mechanism="broad",
    sub_decisions=["O5"],
)


@pytest.fixture(scope="module")
def real_results(published_corpus):
    """The ledger on the survey as published (the frozen snapshot): every claim must hold there."""
    return {
        r.id: r for r in evaluate_claims(published_corpus, REPO_ROOT / "claims" / "ledger.yaml")
    }


def write_ledger(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def results_for(project: Project, ledger: str):
    path = write_ledger(project.root / "claims" / "ledger.yaml", ledger)
    return {r.id: r for r in evaluate_claims(load_corpus(project), path)}


# -- the real ledger on the real corpus ---------------------------------------------------------


def test_every_claim_of_the_ledger_holds(real_results):
    failing = {r.id: r.detail for r in real_results.values() if not r.holds}
    assert not failing
    assert len(real_results) >= 10


def test_central_claims_and_their_entries(real_results):
    message = real_results["message-credit-is-rare"]
    assert message.live == {"count": 2, "of_which": 1}
    assert message.entries == {"count": ("c3", "debate-as-reward"), "of_which": ("c3",)}
    assert real_results["orchestrator-credit"].live == {"count": 8, "of_which": 5}
    assert real_results["no-rl-stopping"].live is True
    assert real_results["agent-is-most-common-credit-unit"].live == "agent"
    assert real_results["agent-is-most-common-credit-unit"].note.startswith("agent 23, role 10")
    assert real_results["hybrid-is-most-common-reward-type"].live == "hybrid"
    assert real_results["corpus-size"].live == {"retained": 84, "excluded": 32, "audited": 116}


def test_the_live_corpus_reports_changed_claims_with_their_causes():
    report = claims_report(live_corpus())
    assert report.snapshot == PUBLISHED and all(c.frozen.holds for c in report.comparisons)
    size = next(c for c in report.comparisons if c.id == "corpus-size")
    expected = {"retained": REAL_ENTRIES, "excluded": REAL_EXCLUSIONS, "audited": REAL_AUDITED}
    assert size.live.live == expected
    assert (size.status == "holds") == (
        expected == {"retained": 84, "excluded": 32, "audited": 116}
    )
    for changed in report.changed:
        assert changed.causes, changed.id  # every changed claim names the records that changed it


def test_the_stopping_claim_names_puppeteer_in_its_boundary(real_results):
    assert "puppeteer" in real_results["no-rl-stopping"].claim.boundary


# -- a fabricated RL-trained stopping method ----------------------------------------------------


def test_fabricated_stopping_method_flips_the_claim_and_is_named(repo_copy):
    write_entry(repo_copy.root, STOPPER)
    results = {r.id: r for r in evaluate_claims(load_corpus(repo_copy))}
    stopping = results["no-rl-stopping"]
    assert not stopping.holds
    assert stopping.live is False
    assert stopping.culprits == ("stopper2026",)
    assert "stopper2026" in stopping.detail
    orchestrator = results["orchestrator-credit"]  # its ledger lists the counted entries
    assert not orchestrator.holds and orchestrator.culprits == ("stopper2026",)
    assert "stopper2026 now matches" in orchestrator.detail
    assert results["message-credit-is-rare"].holds


def test_cli_exits_1_and_github_annotations_name_claim_and_entry(repo_copy):
    runner = CliRunner()
    assert runner.invoke(main, ["claims", "--root", str(repo_copy.root)]).exit_code == 0
    write_entry(repo_copy.root, STOPPER)
    # Against the frozen snapshot the claim changed; --strict makes that an error.
    result = runner.invoke(
        main, ["claims", "--root", str(repo_copy.root), "--format", "github", "--strict"]
    )
    assert result.exit_code == 1
    lines = result.output.splitlines()
    ledger_line = next(
        line
        for line in lines
        if "title=masrl claims%3A no-rl-stopping" in line and "file=claims/ledger.yaml" in line
    )
    assert ledger_line.startswith("::error file=claims/ledger.yaml,line=")
    assert "stopper2026" in ledger_line
    assert any(
        line.startswith(
            "::error file=corpus/stopper2026.yaml,line=1,title=masrl claims%3A no-rl-stopping::"
        )
        for line in lines
    )
    assert lines[-1].startswith("claims: ") and "no-rl-stopping" in lines[-1]


def test_an_entry_leaving_a_listed_count_is_named(repo_copy):
    path = repo_copy.root / "corpus" / "c3.yaml"
    path.write_text(path.read_text().replace("credit_units:\n- message", "credit_units:\n- agent"))
    results = {r.id: r for r in evaluate_claims(load_corpus(repo_copy))}
    message = results["message-credit-is-rare"]
    assert not message.holds and message.culprits == ("c3",)
    assert "c3 no longer matches" in message.detail


# -- the query language, on the three-entry fixture ---------------------------------------------


LEDGER = """\
claims:
  - id: counted
    statement: Two entries credit agents or messages.
    query:
      count: {credit_units: [agent, message]}
      of_which: {credit_mechanism: [explicit]}
    expect: {count: 2, of_which: 1}
    boundary: Fixture.
  - id: nothing-stops
    statement: Nothing addresses O5.
    query:
      none: {sub_decisions: [O5]}
    expect: true
    boundary: Fixture.
  - id: top-category
    statement: Methods lead.
    query:
      most_common: category
    expect: rl_method
    boundary: Fixture.
  - id: per-year
    statement: One entry per year among RL-trained ones.
    query:
      counts: year
      where: {is_rl: ["yes"]}
    expect: {"2024": 1, "2025": 1}
    boundary: Fixture.
  - id: empty-topology
    statement: Every entry has a topology.
    query:
      count: {topology: "-"}
    expect: 0
    boundary: Fixture.
  - id: sizes
    statement: Four audited records.
    query:
      totals: [retained, audited]
    expect: {retained: 3, audited: 4}
    boundary: Fixture.
"""


def test_query_operations(mini_project):
    results = results_for(mini_project, LEDGER)
    assert all(r.holds for r in results.values()), {k: r.detail for k, r in results.items()}
    assert results["counted"].entries["of_which"] == ("beta2024",)
    assert results["per-year"].live == {"2024": 1, "2025": 1}
    assert results["sizes"].live == {"retained": 3, "audited": 4}


def test_a_tie_never_satisfies_most_common(mini_project):
    write_entry(
        mini_project.root,
        entry_data(
            "delta2022",
            category="benchmark",
            is_rl="no",
            reward_types=[],
            credit_units=[],
            credit_mechanism=None,
            sub_decisions=[],
            evaluation_measures=["outcome"],
            year=2022,
        ),
    )
    result = results_for(mini_project, LEDGER)["top-category"]
    assert not result.holds
    assert result.live == ["rl_method", "benchmark"]
    assert "tie" in result.detail


def test_counts_report_changed_values(mini_project):
    write_entry(mini_project.root, entry_data("delta2024", year=2024))
    result = results_for(mini_project, LEDGER)["per-year"]
    assert not result.holds and result.detail == "2024: 2 (expected 1)"


# -- ledger validation --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("ledger", "line", "message"),
    [
        (
            "claims:\n  - id: a-b\n    statment: x\n    statement: x\n    query: {none: {category: [survey]}}\n"
            "    expect: false\n    boundary: x\n",
            3,
            "unknown claim field 'statment'. Did you mean 'statement'?",
        ),
        (
            "claims:\n  - id: a-b\n    statement: x\n    query:\n      none: {credit_units: [mesage]}\n"
            "    expect: true\n    boundary: x\n",
            5,
            "unknown value 'mesage' for credit_units. Did you mean 'message'?",
        ),
        (
            "claims:\n  - id: a-b\n    statement: x\n    query:\n      none: {credit_unit: [message]}\n"
            "    expect: true\n    boundary: x\n",
            5,
            "unknown field 'credit_unit'. Did you mean 'credit_units'?",
        ),
        (
            "claims:\n  - id: a-b\n    statement: x\n    query:\n      sum: {category: [survey]}\n"
            "    expect: 1\n    boundary: x\n",
            4,
            "query must hold exactly one of",
        ),
        (
            "claims:\n  - id: a-b\n    statement: x\n    query:\n      count: {category: [survey]}\n"
            '      where: {is_rl: ["no"]}\n    expect: 1\n    boundary: x\n',
            6,
            "'where' is not allowed in a count query",
        ),
        (
            "claims:\n  - id: a-b\n    statement: x\n    query: {count: {category: [survey]}}\n"
            "    expect: many\n    boundary: x\n",
            5,
            "a count query expects a whole number",
        ),
        (
            "claims:\n  - id: a-b\n    statement: x\n    query: {count: {category: [survey]}}\n"
            "    expect: 2\n    entries: [a]\n    boundary: x\n",
            6,
            "entries lists 1 keys but expect counts 2",
        ),
        (
            "claims:\n  - id: a-b\n    statement: x\n    query: {most_common: category}\n"
            "    expect: rl-method\n    boundary: x\n",
            5,
            "Did you mean 'rl_method'?",
        ),
        (
            "claims:\n  - id: a-b\n    statement: x\n    query: {most_common: category}\n    expect: survey\n"
            "    boundary: x\n  - id: a-b\n    statement: y\n    query: {most_common: category}\n    expect: survey\n"
            "    boundary: y\n",
            7,
            "claim id 'a-b' is used twice (first on line 2)",
        ),
        (
            "claims:\n  - id: a-b\n    statement: x\n    query: {count: \"__import__('os').system('true')\"}\n"
            "    expect: 1\n    boundary: x\n",
            4,
            "expected a mapping of field to a list of values",
        ),
        (
            "claims:\n  - &x {id: a}\n  - *x\n",
            2,
            "not allowed in masrl data files",
        ),  # no alias expansion
        ("claimz: []\n", 1, "expected a mapping with one key, claims"),
    ],
)
def test_ledger_problems_name_file_and_line(mini_project, ledger, line, message):
    with pytest.raises(LedgerError) as caught:
        results_for(mini_project, ledger)
    problems = "\n".join(caught.value.problems)
    assert f"claims/ledger.yaml:{line}: " in problems, problems
    assert message in problems, problems


def test_cli_reports_an_invalid_ledger(mini_project):
    write_ledger(mini_project.root / "claims" / "ledger.yaml", "claims:\n  - id: x\n")
    result = CliRunner().invoke(main, ["claims", "--root", str(mini_project.root)])
    assert result.exit_code == 1
    assert (
        "claims/ledger.yaml:2: claim is missing statement, query, expect, boundary" in result.output
    )


# -- formats ------------------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", ["text", "markdown", "json", "github"])
def test_cli_formats_on_the_published_corpus(fmt, repo_copy):
    result = CliRunner().invoke(main, ["claims", "--root", str(repo_copy.root), "--format", fmt])
    assert result.exit_code == 0, result.output
    if fmt == "json":
        data = json.loads(result.output)
        assert data["ok"] is True
        claim = next(c for c in data["claims"] if c["id"] == "message-credit-is-rare")
        assert claim["entries"]["count"] == ["c3", "debate-as-reward"] and claim["line"] > 1
    elif fmt == "github":
        assert "::error" not in result.output
    else:
        assert "message-credit-is-rare" in result.output and "c3, debate-as-reward" in result.output


def test_renderings_show_live_beside_expected(real_results, published_corpus):
    results = list(real_results.values())
    text = render_text(results)
    assert "expected: count 2, of_which 1 | live: count 2, of_which 1" in text
    markdown = render_markdown(results)
    assert "| `no-rl-stopping` | true | true | holds |" in markdown
    assert "- Boundary: " in markdown
    assert render_github(results, published_corpus).strip().startswith("claims: all")

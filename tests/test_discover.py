"""`masrl discover`: the real arxiv client against a local server with recorded search answers."""

from __future__ import annotations

import datetime as dt
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from masrl.cli import main
from masrl.errors import InputError, RemoteError, UsageError
from masrl.imports.arxiv import ArxivClient, ArxivSettings
from masrl.model import yamlio
from masrl.screening.discover import STATE_FILE, discover
from masrl.screening.rounds import load_rounds

sys.path.insert(0, str(Path(__file__).resolve().parent / "fixtures" / "arxiv"))
from fake_search import FakeSearch

TODAY = dt.date(2026, 11, 23)
SINCE, UNTIL = dt.date(2026, 5, 4), dt.date(2026, 11, 20)
FAMILIES = ["orchestration", "credit_assignment"]


@pytest.fixture
def arxiv(httpserver, repo_copy):
    return FakeSearch(httpserver, repo_copy.root / "taxonomy")


def client_for(arxiv, retries=1):
    return ArxivClient(
        ArxivSettings(api_url=arxiv.url, delay=0, retries=retries, backoff=0, timeout=5),
        sleep=lambda seconds: None,
    )


def run(project, arxiv, families=FAMILIES, retries=1):
    return discover(
        project, SINCE, UNTIL, client_for(arxiv, retries), families=families, today=TODAY
    )


def queue_files(project):
    return sorted(p.name for p in (project.root / "screening" / "queue").glob("*.yaml"))


def test_discover_queues_only_new_papers_with_their_families(repo_copy, arxiv):
    result = run(repo_copy, arxiv)
    assert result.added == ["2606.01001", "2606.01002", "2606.01003"]
    assert result.known == {
        "2508.04652": "corpus/magrpo.yaml",
        "2606.01009": "exclusions/E001.yaml",
        "2606.01010": "corpus/dec-pomdp2002.yaml",
    }
    assert queue_files(repo_copy) == ["2606.01001.yaml", "2606.01002.yaml", "2606.01003.yaml"]
    data = yamlio.load_file(repo_copy.root / "screening" / "queue" / "2606.01002.yaml")
    assert dict(data) == {
        "id": "2606.01002",
        "title": "Counterfactual Credit for Delegating Orchestrators",
        "authors": ["Mei, Chen", "Rossi, Dario", "van der Pol, Elise"],
        "published": "2026-06-10",
        "abstract": data["abstract"],
        "categories": ["cs.AI", "cs.MA"],
        "identifiers": {"arxiv": "2606.01002", "doi": None},
        "url": "https://arxiv.org/abs/2606.01002",
        "families": ["orchestration", "credit_assignment"],
        "discovered": "2026-11-23",
        "round": "2026-11",
    }
    assert data["abstract"].startswith("Fixture abstract") and "\n" not in data["abstract"]
    # the window is sent to arXiv, and the round is recorded as data
    assert arxiv.asked[0] == ("orchestration", "submittedDate:[202605040000 TO 202611202359]")
    new_round = next(r for r in load_rounds(repo_copy) if r.id == "2026-11")
    assert (new_round.searched_from, new_round.searched_until) == ("2026-05-04", "2026-11-20")
    assert new_round.query_families == tuple(FAMILIES)
    assert not (repo_copy.root / STATE_FILE).exists()


def test_a_second_run_adds_nothing_twice(repo_copy, arxiv):
    run(repo_copy, arxiv)
    before = {
        name: (repo_copy.root / "screening" / "queue" / name).read_bytes()
        for name in queue_files(repo_copy)
    }
    rounds = (repo_copy.root / "screening" / "rounds.yaml").read_bytes()
    again = run(repo_copy, arxiv)
    assert again.added == [] and again.merged == []
    assert {
        n: (repo_copy.root / "screening" / "queue" / n).read_bytes() for n in queue_files(repo_copy)
    } == before
    assert (repo_copy.root / "screening" / "rounds.yaml").read_bytes() == rounds


def test_a_network_fault_mid_run_loses_nothing_and_the_rerun_resumes(repo_copy, arxiv):
    arxiv.fail("credit_assignment", times=2)  # more than the one retry allowed
    with pytest.raises(RemoteError, match="arXiv had a server error"):
        run(repo_copy, arxiv)
    assert queue_files(repo_copy) == [
        "2606.01001.yaml",
        "2606.01002.yaml",
    ]  # the first family's, kept
    assert (repo_copy.root / STATE_FILE).exists()
    arxiv.asked.clear()
    resumed = run(repo_copy, arxiv)
    assert resumed.resumed == ["orchestration"]
    assert [family for family, _ in arxiv.asked] == ["credit_assignment"]
    assert resumed.added == ["2606.01003"] and resumed.merged == ["2606.01002"]
    assert queue_files(repo_copy) == ["2606.01001.yaml", "2606.01002.yaml", "2606.01003.yaml"]


def test_discovered_records_validate_and_the_cli_reports(repo_copy, arxiv, monkeypatch):
    monkeypatch.setenv("MASRL_ARXIV_API_URL", arxiv.url)
    monkeypatch.setenv("MASRL_ARXIV_DELAY", "0")
    result = CliRunner().invoke(
        main,
        [
            "discover",
            "--since",
            "2026-05-04",
            "--until",
            "2026-11-20",
            "--family",
            "orchestration",
            "--root",
            str(repo_copy.root),
        ],
    )
    assert result.exit_code == 0, result.output
    assert "queued screening/queue/2606.01001.yaml" in result.output
    assert result.output.splitlines()[-1] == (
        "discover: 2 new candidate(s) in round 2026-11, 3 already recorded, 0 matched another family too"
    )
    assert CliRunner().invoke(main, ["validate", "--root", str(repo_copy.root)]).exit_code == 0


def test_a_queue_file_edited_into_nonsense_stops_before_any_request(repo_copy, arxiv):
    run(repo_copy, arxiv)
    broken = repo_copy.root / "screening" / "queue" / "2606.01001.yaml"
    broken.write_text("id: 2606.01001\ntitle: [unclosed\n", encoding="utf-8")
    arxiv.asked.clear()
    with pytest.raises(InputError) as caught:
        run(repo_copy, arxiv)
    assert "screening/queue/2606.01001.yaml:3: invalid YAML" in str(caught.value)
    assert arxiv.asked == []
    result = CliRunner().invoke(
        main, ["discover", "--since", "2026-05-04", "--root", str(repo_copy.root)]
    )
    assert (
        result.exit_code == 1 and "screening/queue/2606.01001.yaml:3: invalid YAML" in result.output
    )
    assert len(queue_files(repo_copy)) == 3


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"families": ["nonsense"]}, "unknown query family 'nonsense'"),
        ({"since": dt.date(2026, 12, 1)}, "is after --until"),
        ({"until": dt.date(2027, 1, 1)}, "lies in the future"),
    ],
)
def test_bad_requests_are_usage_errors(repo_copy, arxiv, kwargs, message):
    args = {"since": SINCE, "until": UNTIL, "families": FAMILIES, **kwargs}
    with pytest.raises(UsageError, match=message):
        discover(
            repo_copy,
            args["since"],
            args["until"],
            client_for(arxiv),
            families=args["families"],
            today=TODAY,
        )


@pytest.mark.slow  # runs a full build
def test_round_end_to_end_discover_decide_validate_build_claims_and_snapshot(repo_copy, arxiv):
    """discover -> include one, exclude one -> validate, build, check pass; the live claims show
    exactly what the new entry changes; the snapshot's outputs do not move."""
    from conftest import entry_data, exclusion_data, write_entry, write_exclusion
    from masrl.check.validate import load_corpus
    from masrl.derive.claims import claims_report

    runner = CliRunner()
    root = str(repo_copy.root)
    frozen_stats = runner.invoke(
        main, ["stats", "--snapshot", "survey-2026-05", "--root", root]
    ).output
    run(repo_copy, arxiv)
    queue = repo_copy.root / "screening" / "queue"
    # include 2606.01001 (an RL-trained controller that learns when to stop), exclude 2606.01003
    write_entry(
        repo_copy.root,
        entry_data(
            "learning-to-halt2026",
            title="Learning to Halt: Policy-Gradient Stopping for LLM Orchestrators",
            year=2026,
            identifiers={"arxiv": "2606.01001", "doi": None, "openreview": None},
            urls=["https://arxiv.org/abs/2606.01001"],
            reward_types=["hybrid"],
            credit_units=[],
            credit_mechanism=None,
            sub_decisions=["O5"],
            summary="Trains an orchestrator with policy gradients to decide when its team stops.",
            added="2026-11-23",
            round="2026-11",
            screened_by="alice",
        ),
    )
    write_exclusion(
        repo_copy.root,
        exclusion_data(
            "E033",
            source="arxiv",
            query_family="credit_assignment",
            title="Turn-Level Credit Assignment for Debating Agents",
            identifier="arXiv:2606.01003",
            url="https://arxiv.org/abs/2606.01003",
            date_screened="2026-11-23",
            reason_code="single_agent",
            rationale="Credit is split over one agent's turns; there is no team to coordinate.",
            round="2026-11",
            screened_by="alice",
        ),
    )
    (queue / "2606.01001.yaml").unlink()
    (queue / "2606.01003.yaml").unlink()
    for command in (["validate"], ["build"], ["check"]):
        result = runner.invoke(main, [*command, "--root", root])
        assert result.exit_code == 0, (command, result.output)
    report = claims_report(load_corpus(repo_copy))
    assert {c.id: [x.describe() for x in c.causes] for c in report.changed} == {
        "corpus-size": [
            "E033 (added in round 2026-11)",
            "learning-to-halt2026 (added in round 2026-11)",
        ],
        "category-mix": ["learning-to-halt2026 (added in round 2026-11)"],
        "no-rl-stopping": ["learning-to-halt2026 (added in round 2026-11)"],
    }
    assert (
        runner.invoke(main, ["stats", "--snapshot", "survey-2026-05", "--root", root]).output
        == frozen_stats
    )
    assert (
        runner.invoke(main, ["claims", "--snapshot", "survey-2026-05", "--root", root]).exit_code
        == 0
    )

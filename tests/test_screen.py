"""`masrl screen`: the ranked queue, decisions and the files they write, and bad queue files."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import NEXT_EXCLUSION_ID, make_screening_project
from masrl.cli import main
from masrl.errors import InputError, ProblemsError, UsageError
from masrl.model import yamlio
from masrl.screening.decide import Contradiction, decide
from masrl.screening.queue import labelled_documents, read_decisions, read_queue
from masrl.screening.rank import FieldKnowledge, Ranker, rank_project

# One worker imports scikit-learn, pandas and ASReview (2 s) for the screening tests, not both.
pytestmark = pytest.mark.xdist_group("screening")

FIXTURES = Path(__file__).parent / "fixtures" / "screening"
RELEVANT = {"2606.00001", "2606.00002", "2606.00005"}


REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def ranked(one_screening_copy):
    """The screening fixture's queue, ranked once for the tests that read that ranking."""
    return rank_project(one_screening_copy)


@pytest.fixture(scope="module")
def one_screening_copy(tmp_path_factory):
    """The screening fixture copied once for the tests that only read it and the bad queue
    files below, each of which puts the file it changed back (copying the real corpus for each
    would cost more than the case)."""
    return make_screening_project(tmp_path_factory.mktemp("screening"))


def test_queue_is_ranked_relevant_first_with_reasons(ranked):
    ids = [r.document.id for r in ranked]
    # The near miss (prompted debate, like many exclusion records) ranks below every relevant one.
    # Off-topic papers are not reliably last: masrl's exclusions are all near misses (see README).
    assert ids[0] == "2606.00002" and ids[-1] == "2606.00006"
    assert all(r.reasons for r in ranked[:-1])
    assert all(
        name.split(":", 1)[0]
        in {
            "term",
            "chars",
            "taxonomy",
            "reason-definition",
            "excluded-like",
            "family",
            "category",
            "authors",
        }
        for r in ranked
        for name, _ in r.reasons
    )


def test_ranking_is_deterministic(screening, ranked):
    first = [(r.document.id, r.score, r.reasons) for r in ranked]  # of another copy
    second = [(r.document.id, r.score, r.reasons) for r in rank_project(screening)]
    assert first == second


def test_field_blocks_need_both_classes_to_carry_the_field(one_screening_copy):
    screening = one_screening_copy
    # Entries carry no arXiv categories and exclusions no authors: those blocks must stay off.
    documents = labelled_documents(screening)
    ranker = Ranker(documents, FieldKnowledge.from_taxonomy_dir(screening.taxonomy_dir))
    ranker.fit(range(len(documents)), [d.label for d in documents])
    assert not any(n.startswith(("category:", "authors:")) for n in ranker.names)
    assert any(n.startswith("excluded-like:") for n in ranker.names)


def test_cli_list_shows_scores_and_top_terms(one_screening_copy):
    screening = one_screening_copy
    result = CliRunner().invoke(
        main, ["screen", "list", "--root", str(screening.root), "--top", "2"]
    )
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert (
        lines[0].startswith("  1. 0.")
        and len([line for line in lines if line[:4].strip().rstrip(".").isdigit()]) == 2
    )
    assert "(+" in lines[1]
    shown = CliRunner().invoke(
        main, ["screen", "show", "2606.00001", "--root", str(screening.root)]
    )
    assert shown.exit_code == 0 and "rank " in shown.output and "halting" in shown.output


def test_include_scaffolds_an_entry_with_provenance(screening):
    result = decide(screening, "2606.00001", "include", "alice", reason_code=None)
    data = yamlio.load_file(result.written)
    assert (
        data["title"].startswith("Learning When to Stop") and data["authors"][0] == "Moreau, Claire"
    )
    assert data["round"] == "2026-11" and data["screened_by"] == "alice" and data["added"]
    assert data["category"] == "TODO" and "category" in result.todo
    assert data["identifiers"]["arxiv"] == "2606.00001" and data["primary_category"] == "cs.MA"
    assert not (screening.root / "screening/queue/2606.00001.yaml").exists()
    [decision] = read_decisions(screening)
    assert (decision.record, decision.decision, decision.screener, decision.round) == (
        "2606.00001",
        "include",
        "alice",
        "2026-11",
    )


def test_exclude_writes_the_exclusion_record(screening):
    result = decide(
        screening,
        "2606.00004",
        "exclude",
        "bob",
        reason_code="out_of_scope",
        rationale="Image segmentation with no language agents.",
    )
    data = yamlio.load_file(result.written)
    assert result.written.name == f"E{NEXT_EXCLUSION_ID:03d}.yaml"  # the next free record id
    assert (data["reason_code"], data["stage"], data["round"], data["screened_by"]) == (
        "out_of_scope",
        "abstract_screen",
        "2026-11",
        "bob",
    )
    assert data["identifier"] == "arXiv:2606.00004" and data["query_family"] == "benchmark"
    assert "2606.00004" not in {r.id for r in read_queue(screening)}


def test_defer_keeps_the_record_in_the_queue(screening):
    decide(screening, "2606.00003", "defer", "carol")
    assert "2606.00003" in {r.id for r in read_queue(screening)}
    assert read_decisions(screening)[0].decision == "defer"


def test_cli_decisions_and_their_errors(screening):
    runner, root = CliRunner(), str(screening.root)
    ok = runner.invoke(
        main,
        [
            "screen",
            "exclude",
            "2606.00006",
            "--root",
            root,
            "--screener",
            "dan",
            "--reason",
            "no_rl_component",
            "--rationale",
            "Only prompted; nothing is trained.",
        ],
    )
    assert ok.exit_code == 0 and "wrote" in ok.output
    bad_reason = runner.invoke(
        main,
        [
            "screen",
            "exclude",
            "2606.00003",
            "--root",
            root,
            "--screener",
            "dan",
            "--reason",
            "boring",
            "--rationale",
            "x",
        ],
    )
    assert (
        bad_reason.exit_code == 2
        and "no_rl_component" in bad_reason.output
        and "Traceback" not in bad_reason.output
    )
    again = runner.invoke(
        main, ["screen", "include", "2606.00006", "--root", root, "--screener", "dan"]
    )
    assert (
        again.exit_code == 1
        and "no longer in the queue" in again.output
        and "decisions/2026-11.yaml:" in again.output
    )
    nobody = runner.invoke(
        main, ["screen", "include", "2606.00001", "--root", root], env={"MASRL_SCREENER": ""}
    )
    assert nobody.exit_code == 2 and "--screener" in nobody.output


def test_contradicting_decision_is_refused_and_named(screening):
    folder = screening.root / "screening" / "decisions"
    folder.mkdir()
    (folder / "2026-11.yaml").write_text(
        "decisions:\n  - record: '2606.00005'\n    screener: bob\n    decision: exclude\n"
        "    reason_code: single_agent\n    rationale: One agent.\n    date: '2026-11-20'\n"
    )
    with pytest.raises(
        Contradiction, match=r"alice says include but bob said exclude .*2026-11.yaml:2"
    ):
        decide(screening, "2606.00005", "include", "alice")
    assert (screening.root / "screening/queue/2606.00005.yaml").exists()
    assert len(read_decisions(screening)) == 1


def test_unknown_round_is_refused(screening):
    with pytest.raises(InputError, match="unknown round 'nope'"):
        decide(screening, "2606.00001", "include", "alice", round_id="nope")
    with pytest.raises(UsageError):
        decide(screening, "2606.00001", "maybe", "alice")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "id: '2606.00001'\ntitle: x\nauthors: [A, B]\nround: 2026-11\npublished: June\n",
            ":5: 'published' must be a date",
        ),
        ("id: '2606.00001'\nauthors: [A]\nround: 2026-11\n", ":1: missing field 'title'"),
        (
            "id: '2606.00001'\ntitle: x\nauthors: [A]\nround: 2026-11\nscore: 3\n",
            ":5: unknown field 'score'",
        ),
        ("- just\n- a list\n", ":1: a queue file must be a mapping"),
        ("id: '2606.00001'\ntitle: [unclosed\n", ":3: invalid YAML"),
        (
            "id: '2606.00009'\ntitle: x\nauthors: [A]\nround: 2026-11\n",
            ":1: id '2606.00009' does not match the file name",
        ),
        (
            "id: '2606.00001'\ntitle: x\nauthors: [A]\nround: 1999-01\n",
            ":4: unknown round '1999-01'",
        ),
    ],
)
def test_hand_edited_queue_nonsense_is_reported_with_file_and_line(
    one_screening_copy, text, expected
):
    screening = one_screening_copy
    path = screening.root / "screening" / "queue" / "2606.00001.yaml"
    as_copied = path.read_bytes()
    path.write_text(text)
    try:
        with pytest.raises(ProblemsError) as caught:
            read_queue(screening)
        assert f"screening/queue/2606.00001.yaml{expected}" in str(caught.value)
        result = CliRunner().invoke(main, ["screen", "list", "--root", str(screening.root)])
        assert (
            result.exit_code == 1 and expected in result.output and "Traceback" not in result.output
        )
    finally:
        path.write_bytes(as_copied)

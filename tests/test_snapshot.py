"""Frozen snapshots and claims on both: the published numbers never move; live changes are named."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from conftest import entry_data, write_entry
from masrl.check.snapshot import freeze, load_snapshot
from masrl.check.validate import load_corpus
from masrl.cli import main
from masrl.derive.claims import claims_report
from masrl.errors import InputError, UnsafeWriteError
from masrl.model import yamlio
from masrl.model.records import ENTRY_SCHEMA_LINE
from masrl.render.stats_page import stats_snapshot

SNAPSHOT = "survey-2026-05"
NEW_ROUND = (
    "  - id: '2026-11'\n    date: '2026-11-20'\n    searched: {from: '2026-05-04', until: '2026-11-20'}\n"
    "    query_families: [orchestration]\n    sources: [arxiv]\n    notes: First living round.\n"
)
STOPPER = entry_data(
    "stopper2026",
    title="Learning When to Stop a Team of Language Agents",
    year=2026,
    identifiers={"arxiv": "2605.09999", "doi": None, "openreview": None},
    urls=["https://arxiv.org/abs/2605.09999"],
    credit_units=["orchestrator"],
    credit_mechanism="explicit",
    sub_decisions=["O5"],
    added="2026-11-20",
    round="2026-11",
)
OUTPUTS = [
    ["stats"],
    ["stats", "--format", "json"],
    ["gaps"],
    ["claims"],
    ["claims", "--format", "json"],
    ["export", "csv"],
    ["export", "csv", "--kind", "exclusions"],
    ["export", "bib"],
    ["export", "json"],
]


def run(root, *args):
    return CliRunner().invoke(main, [*args, "--root", str(root)])


def grow_and_retag(root):
    """A new round with a new entry, and a tag correction on a published entry."""
    with (root / "screening" / "rounds.yaml").open("a", encoding="utf-8") as handle:
        handle.write(NEW_ROUND)
    write_entry(root, STOPPER)
    path = root / "corpus" / "magrpo.yaml"
    data = yamlio.loads(path.read_text(encoding="utf-8"))
    data["reward_types"] = ["hybrid"]
    path.write_text(yamlio.dumps(dict(data), header=ENTRY_SCHEMA_LINE), encoding="utf-8")


def test_snapshot_outputs_stay_byte_identical_as_the_live_corpus_changes(repo_copy):
    root = repo_copy.root
    before = {}
    for args in OUTPUTS:
        result = run(root, *args, "--snapshot", SNAPSHOT)
        assert result.exit_code == 0, (args, result.output)
        before[tuple(args)] = result.output
    # A snapshot frozen now reproduces the live corpus exactly.
    assert run(root, "snapshot", "freeze", "today").exit_code == 0
    for args in (["stats"], ["gaps"], ["export", "json"], ["export", "bib"]):
        assert run(root, *args, "--snapshot", "today").output == run(root, *args).output, args
    grow_and_retag(root)
    assert run(root, "validate").exit_code == 0
    assert run(root, "stats").output != before[("stats",)]
    for args in OUTPUTS:
        assert run(root, *args, "--snapshot", SNAPSHOT).output == before[tuple(args)], args


def test_live_claims_report_what_changed_with_entries_and_rounds(repo_copy):
    root = repo_copy.root
    grow_and_retag(root)
    report = claims_report(load_corpus(repo_copy))
    assert report.snapshot == SNAPSHOT and not report.failed
    changed = {c.id: c for c in report.changed}
    # exactly the claims the new entry breaks; the retag of magrpo moves counts but breaks none
    assert set(changed) == {"corpus-size", "category-mix", "no-rl-stopping", "orchestrator-credit"}
    assert [c.record for c in changed["corpus-size"].causes] == ["stopper2026"]
    stop = changed["no-rl-stopping"]
    assert [(c.record, c.round, c.how) for c in stop.causes] == [
        ("stopper2026", "2026-11", "added")
    ]
    text = run(root, "claims")
    assert text.exit_code == 0, text.output  # the field moved: reported, not a failure
    assert "CHANGED no-rl-stopping" in text.output
    assert "changed by: stopper2026 (added in round 2026-11)" in text.output
    assert "changed in the live corpus: " in text.output.splitlines()[-1]
    assert run(root, "claims", "--strict").exit_code == 1
    data = json.loads(run(root, "claims", "--format", "json").output)
    item = next(c for c in data["claims"] if c["id"] == "no-rl-stopping")
    assert item["status"] == "changed" and item["holds_on_snapshot"] is True
    assert item["changed_by"] == [{"record": "stopper2026", "round": "2026-11", "how": "added"}]
    github = run(root, "claims", "--format", "github").output
    assert "::warning file=claims/ledger.yaml" in github and "::error" not in github
    # STATS.md says so at the top (the page `masrl build` writes; the full build is test_discover's).
    stats_md = stats_snapshot(load_corpus(repo_copy))
    assert (
        "**Changed claims: `corpus-size`, `category-mix`, `orchestrator-credit`, `no-rl-stopping`**"
        in (stats_md.split("## Claims")[0])
    )
    assert "claim(s) changed.** They hold on the frozen snapshot `survey-2026-05`" in stats_md


def test_a_retag_is_named_with_its_round(repo_copy):
    root = repo_copy.root
    path = root / "corpus" / "c3.yaml"
    data = yamlio.loads(path.read_text(encoding="utf-8"))
    data["credit_units"] = ["agent"]
    data["credit_mechanism"] = "broad"
    path.write_text(yamlio.dumps(dict(data), header=ENTRY_SCHEMA_LINE), encoding="utf-8")
    changed = {c.id: c for c in claims_report(load_corpus(repo_copy)).changed}
    causes = changed["message-credit-is-rare"].causes
    assert [(c.record, c.how, c.describe()) for c in causes] == [
        ("c3", "retagged", "c3 (round survey-2026-05, tags changed since the snapshot)")
    ]


def test_a_claim_failing_on_the_snapshot_is_an_error(repo_copy):
    ledger = repo_copy.root / "claims" / "ledger.yaml"
    ledger.write_text(
        ledger.read_text(encoding="utf-8").replace(
            "expect: {retained: 84,", "expect: {retained: 85,"
        ),
        encoding="utf-8",
    )
    result = run(repo_copy.root, "claims")
    assert result.exit_code == 1
    assert "fail on snapshot survey-2026-05 (a bug): corpus-size" in result.output


def test_freeze_never_overwrites_without_force(repo_copy):
    with pytest.raises(UnsafeWriteError, match="already exists"):
        freeze(repo_copy, SNAPSHOT)
    result = run(repo_copy.root, "snapshot", "freeze", SNAPSHOT)
    assert result.exit_code == 1 and result.output.startswith(
        "error: snapshots/survey-2026-05.json: snapshot"
    )
    path = freeze(repo_copy, "later")
    assert path.read_bytes() == freeze(repo_copy, "later", force=True).read_bytes()  # deterministic


def test_damaged_or_unknown_snapshots_get_one_line(repo_copy):
    path = repo_copy.root / "snapshots" / f"{SNAPSHOT}.json"
    path.write_text(
        path.read_text(encoding="utf-8").replace('"rl_method"', '"benchmark"', 1), encoding="utf-8"
    )
    with pytest.raises(InputError, match="changed after it was frozen"):
        load_snapshot(repo_copy, SNAPSHOT)
    path.write_text("{not json", encoding="utf-8")
    result = run(repo_copy.root, "stats", "--snapshot", SNAPSHOT)
    assert result.exit_code == 1 and result.output.startswith(
        "error: snapshots/survey-2026-05.json:1: the snapshot is not valid JSON"
    )
    result = run(repo_copy.root, "gaps", "--snapshot", "nope")
    assert result.exit_code == 1
    assert "no snapshot named 'nope' (known: survey-2026-05)" in result.output
    assert run(repo_copy.root, "stats", "--snapshot", "../etc").exit_code == 2

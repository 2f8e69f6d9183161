"""Every record is where its final screening decision puts it (screening/placement.py)."""

from __future__ import annotations

import pytest
from masrl.check.validate import validate_project

DECISIONS = """decisions:
- record: alpha2025
  screener: alice
  decision: exclude
  reason_code: no_rl_component
  rationale: nothing is trained
  date: '2026-11-23'
- record: alpha2025
  screener: bob
  decision: exclude
  reason_code: no_rl_component
  rationale: prompted only
  date: '2026-11-24'
"""
RULING = """readings: []
adjudications:
- record: alpha2025
  field: decision
  value: include
  by: carol
  date: '2026-11-25'
  note: the full text trains the router with a team reward; both readers had the abstract only
"""


def placement_errors(project) -> list[str]:
    return [p.as_text() for p in validate_project(project).errors if p.code == "placement"]


def test_an_entry_both_readers_excluded_is_reported_at_its_file(mini_project):
    decisions = mini_project.root / "screening" / "decisions"
    decisions.mkdir(parents=True)
    (decisions / "2026-11.yaml").write_text(DECISIONS, encoding="utf-8")
    assert placement_errors(mini_project) == [
        "corpus/alpha2025.yaml:2: error: alpha2025 is an entry, but its final screening decision "
        "(pass 1) is exclude\n    hint: make it an exclusion record, or record a ruling on its "
        "decision for pass 1 in screening/tags/<round>.yaml saying why it stays"
    ]


def test_a_ruling_that_says_why_it_stays_settles_it(mini_project):
    decisions = mini_project.root / "screening" / "decisions"
    decisions.mkdir(parents=True)
    (decisions / "2026-11.yaml").write_text(DECISIONS, encoding="utf-8")
    tags = mini_project.root / "screening" / "tags"
    tags.mkdir(parents=True)
    (tags / "2026-11.yaml").write_text(RULING, encoding="utf-8")
    assert placement_errors(mini_project) == []


def test_readers_who_disagree_without_a_ruling_are_left_to_adjudication(mini_project):
    decisions = mini_project.root / "screening" / "decisions"
    decisions.mkdir(parents=True)
    (decisions / "2026-11.yaml").write_text(
        DECISIONS.replace(
            "decision: exclude\n  reason_code: no_rl_component\n  rationale: prompted only",
            "decision: include\n  reason_code: null\n  rationale: trained router",
        ),
        encoding="utf-8",
    )
    assert placement_errors(mini_project) == []


def test_an_unreadable_tags_file_is_reported_once_by_its_own_check(mini_project):
    tags = mini_project.root / "screening" / "tags"
    tags.mkdir(parents=True)
    (tags / "2026-11.yaml").write_text("adjudications: []\n", encoding="utf-8")
    errors = validate_project(mini_project).errors
    assert [p.code for p in errors] == ["tag-readings"]


def test_readings_under_a_former_name_count_as_the_records_own(mini_project):
    decisions = mini_project.root / "screening" / "decisions"
    decisions.mkdir(parents=True)
    (decisions / "2026-11.yaml").write_text(DECISIONS.replace("alpha2025", "E077"), "utf-8")
    entry = mini_project.corpus_dir / "alpha2025.yaml"
    entry.write_text(entry.read_text("utf-8") + "formerly:\n- E077\n", "utf-8")
    assert placement_errors(mini_project) == [
        "corpus/alpha2025.yaml:2: error: alpha2025 is an entry, but its final screening decision "
        "(pass 1) is exclude\n    hint: make it an exclusion record, or record a ruling on its "
        "decision for pass 1 in screening/tags/<round>.yaml saying why it stays"
    ]


@pytest.mark.parametrize(
    ("formerly", "message"),
    [
        ("formerly:\n- beta2024", "formerly names 'beta2024', a record of today"),
        ("formerly:\n- E999", "formerly names 'E999', which no screening file names"),
        ("formerly:\n- alpha2025", "'alpha2025' is this record's own name"),
        ("formerly:\n- Not A Key", "'Not A Key' is not a record key or id"),
        ("formerly: []", "'formerly' must be a non-empty list of earlier keys or ids, got []"),
    ],
)
def test_a_former_name_must_be_one_nothing_else_has(mini_project, formerly, message):
    decisions = mini_project.root / "screening" / "decisions"
    decisions.mkdir(parents=True)
    (decisions / "2026-11.yaml").write_text(DECISIONS.replace("alpha2025", "E077"), "utf-8")
    entry = mini_project.corpus_dir / "alpha2025.yaml"
    entry.write_text(entry.read_text("utf-8") + f"{formerly}\n", "utf-8")
    errors = [p for p in validate_project(mini_project).errors if p.code != "placement"]
    assert [p.message for p in errors] == [message]
    assert errors[0].path == "corpus/alpha2025.yaml" and errors[0].line > 2


def test_two_records_cannot_share_a_former_name(mini_project):
    decisions = mini_project.root / "screening" / "decisions"
    decisions.mkdir(parents=True)
    (decisions / "2026-11.yaml").write_text(DECISIONS.replace("alpha2025", "E077"), "utf-8")
    for name in ("alpha2025", "beta2024"):
        entry = mini_project.corpus_dir / f"{name}.yaml"
        entry.write_text(entry.read_text("utf-8") + "formerly:\n- E077\n", "utf-8")
    errors = [p.message for p in validate_project(mini_project).errors if p.code == "formerly"]
    assert errors == ["'E077' is also a former name of alpha2025"]


def test_a_record_read_by_one_reader_only_is_a_warning(mini_project):
    decisions = mini_project.root / "screening" / "decisions"
    decisions.mkdir(parents=True)
    one_reader = DECISIONS.split("- record: alpha2025\n  screener: bob")[0]
    (decisions / "2026-11.yaml").write_text(one_reader, "utf-8")
    entry = mini_project.corpus_dir / "alpha2025.yaml"
    entry.write_text(entry.read_text("utf-8").replace("round: survey-2026-05", "round: 2026-11"))
    report = validate_project(mini_project)
    assert [p.message for p in report.warnings if p.code == "read-twice"] == [
        "alpha2025 was decided by one reader only",
        "no reader tagged alpha2025",
    ]

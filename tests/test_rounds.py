"""Provenance on every record: added/round fields and screening/rounds.yaml."""

from __future__ import annotations

import html

from conftest import REPO_ROOT, entry_data, exclusion_data, write_entry, write_exclusion
from masrl.check.validate import validate_project
from masrl.screening.rounds import load_rounds
from shared_corpus import live_corpus


def messages(project):
    return [p.as_text() for p in validate_project(project).errors]


def test_published_records_belong_to_the_survey_round(published_corpus):
    assert {e.round for e in published_corpus.entries} == {"survey-2026-05"}
    assert {e.added for e in published_corpus.entries} == {"2026-05-04"}
    assert {x.round for x in published_corpus.exclusions} == {"survey-2026-05"}


def test_every_live_record_belongs_to_a_known_round_on_or_after_its_search():
    from masrl.model.project import Project

    rounds = {r.id: r for r in load_rounds(Project(REPO_ROOT))}
    assert next(iter(rounds)) == "survey-2026-05"  # the published round comes first
    corpus = live_corpus()
    for record in [*corpus.entries, *corpus.exclusions]:
        assert record.round in rounds


def test_a_record_without_dates_is_reported(mini_project):
    write_entry(
        mini_project.root,
        entry_data("delta2025", title="Delta Agents Learn", drop=["added", "round"]),
    )
    errors = messages(mini_project)
    assert any("delta2025.yaml" in e and "missing required field 'added'" in e for e in errors)
    assert any("delta2025.yaml" in e and "missing required field 'round'" in e for e in errors)


def test_an_unknown_round_names_file_line_and_known_rounds(mini_project):
    write_exclusion(
        mini_project.root, exclusion_data("E002", round="2099-01", title="Another unrelated record")
    )
    errors = messages(mini_project)
    assert len(errors) == 1
    assert errors[0].startswith("exclusions/E002.yaml:12: error: unknown screening round '2099-01'")
    known = ", ".join(sorted(r.id for r in load_rounds(mini_project)))
    assert f"known rounds: {known}" in errors[0]


def test_a_broken_rounds_file_is_reported_with_its_line(mini_project):
    (mini_project.root / "screening" / "rounds.yaml").write_text(
        "rounds:\n  - id: Bad Id\n    date: tomorrow\n    searched: {from: null, until: null}\n"
        "    query_families: [nonsense]\n    sources: [arxiv]\n    notes: x\n",
        encoding="utf-8",
    )
    errors = messages(mini_project)
    assert any(e.startswith("screening/rounds.yaml:2: error: round id 'Bad Id'") for e in errors)
    assert any(
        e.startswith("screening/rounds.yaml:3: error: round date 'tomorrow'") for e in errors
    )
    assert any(
        e.startswith("screening/rounds.yaml:5: error: unknown query families nonsense")
        for e in errors
    )


def test_without_a_rounds_file_only_the_survey_round_is_known(mini_project):
    (mini_project.root / "screening" / "rounds.yaml").unlink()
    assert messages(mini_project) == []
    write_exclusion(
        mini_project.root, exclusion_data("E002", round="2026-11", title="Another unrelated record")
    )
    errors = messages(mini_project)
    assert (
        len(errors) == 1
        and "create screening/rounds.yaml with a round of id '2026-11'" in errors[0]
    )


def test_a_round_records_the_terms_it_ran_per_query_family():
    from masrl.model.project import Project

    rounds = {r.id: r for r in load_rounds(Project(REPO_ROOT))}
    terms = dict(rounds["2026-11"].terms)
    assert "QMIX" in terms["classical_marl"] and "manager-worker" in terms["orchestration"]
    assert set(terms) <= set(rounds["2026-11"].query_families)


def test_terms_for_a_family_the_round_did_not_run_are_reported(mini_project):
    path = mini_project.root / "screening" / "rounds.yaml"
    text = path.read_text(encoding="utf-8")
    survey_sources = "    sources: [arxiv, openreview, acl_anthology, company_docs, company_blog, project_page]\n"
    assert survey_sources in text
    path.write_text(
        text.replace(survey_sources, survey_sources + "    terms: {nonsense_family: [x]}\n", 1),
        encoding="utf-8",
    )
    errors = messages(mini_project)
    assert any(
        "terms given for 'nonsense_family'" in e and e.startswith("screening/rounds.yaml:")
        for e in errors
    )


def test_whats_new_names_what_each_round_searched():
    from masrl.render.site.context import SiteContext
    from masrl.render.site.living import whats_new_markdown

    text = html.unescape(whats_new_markdown(SiteContext(live_corpus())))
    assert "Searched publications from 2026-05-04 to 2026-11-23" in text
    assert "Search terms run in this round" in text and "Dec-POMDP" in text

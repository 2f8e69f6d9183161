"""`masrl validate`: every rule has a small fixture that breaks it, named by file and line."""

from __future__ import annotations

import json
import re
import string
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import (
    REPO_ROOT,
    entry_data,
    examples,
    exclusion_data,
    write_entry,
    write_exclusion,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from masrl.check.validate import validate_project
from masrl.cli import main
from masrl.model.project import Project


def problems_for(project: Project) -> list[str]:
    return [p.as_text() for p in validate_project(project).problems]


def only_error(project: Project) -> str:
    report = validate_project(project)
    assert len(report.errors) == 1, [p.as_text() for p in report.problems]
    return report.errors[0].as_text()


def test_real_corpus_validates():
    report = validate_project(Project(REPO_ROOT))
    assert report.errors == [], report.render()
    entries, exclusions = (
        len(list((REPO_ROOT / "corpus").glob("*.yaml"))),
        len(list((REPO_ROOT / "exclusions").glob("*.yaml"))),
    )
    assert report.summary_line().startswith(
        f"ok: {entries} entries, {exclusions} exclusions, {entries + exclusions} audited records"
    )


def test_cli_reports_summary_and_exit_code(mini_project):
    result = CliRunner().invoke(main, ["validate", "--root", str(mini_project.root)])
    assert result.exit_code == 0, result.output
    assert result.output.strip() == "ok: 3 entries, 1 exclusions, 4 audited records"


def test_mini_project_is_clean(mini_project):
    assert problems_for(mini_project) == []


# -- YAML-level problems ----------------------------------------------------------------------


def write_raw(project: Project, name: str, text: str, folder: str = "corpus") -> Path:
    path = project.root / folder / name
    path.write_text(text, encoding="utf-8")
    return path


def test_yaml_syntax_error_names_line(mini_project):
    write_raw(mini_project, "broken.yaml", "key: broken\ntitle: [unclosed\nyear: 2025\n")
    message = only_error(mini_project)
    assert message.startswith("corpus/broken.yaml:3: error: invalid YAML")


def test_python_object_tag_is_rejected_not_executed(mini_project, tmp_path):
    marker = tmp_path / "executed"
    write_raw(
        mini_project,
        "evil.yaml",
        f"key: evil\ntitle: !!python/object/apply:os.system ['touch {marker}']\n",
    )
    message = only_error(mini_project)
    assert "corpus/evil.yaml:2:" in message and "not allowed" in message
    assert not marker.exists()


def test_alias_bomb_is_rejected_not_expanded(mini_project):
    bomb = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}]\n"
        for i in range(8)
    )
    write_raw(mini_project, "bomb.yaml", bomb)
    message = only_error(mini_project)
    assert message.startswith(
        "corpus/bomb.yaml:1: error: anchors and aliases (&name / *name) are not allowed"
    )


def test_repeated_key_in_one_file(mini_project):
    data = entry_data("alpha2025")
    path = write_entry(mini_project.root, data)
    path.write_text(path.read_text() + "year: 2024\n")
    message = only_error(mini_project)
    assert re.match(r"corpus/alpha2025\.yaml:\d+: error: key 'year' appears twice", message)


def test_empty_and_non_utf8_files(mini_project):
    write_raw(mini_project, "empty.yaml", "")
    (mini_project.corpus_dir / "latin1.yaml").write_bytes("title: caf\xe9\n".encode("latin-1"))
    texts = problems_for(mini_project)
    assert any(t.startswith("corpus/empty.yaml:1: error: the file is empty") for t in texts)
    assert any(
        t.startswith("corpus/latin1.yaml:1: error: the file is not valid UTF-8") for t in texts
    )


def test_yes_no_stay_strings(mini_project):
    path = mini_project.corpus_dir / "alpha2025.yaml"
    path.write_text(path.read_text().replace("is_rl: 'yes'", "is_rl: yes"))
    assert problems_for(mini_project) == []


# -- field problems ---------------------------------------------------------------------------


def line_of(path: Path, prefix: str) -> int:
    """The last line starting with prefix (a repeated list item is reported where it repeats)."""
    return max(
        i for i, line in enumerate(path.read_text().splitlines(), 1) if line.startswith(prefix)
    )


@pytest.mark.parametrize(
    ("overrides", "field_prefix", "expected"),
    [
        (
            {"category": "rl-method"},
            "category:",
            "unknown category 'rl-method' in 'category'. Did you mean 'rl_method'?",
        ),
        ({"topology": "Hierarchical"}, "topology:", "Did you mean 'hierarchical'?"),
        ({"reward_types": ["sahred"]}, "- sahred", "Did you mean 'shared'?"),
        ({"credit_units": ["NA"]}, "- NA", "uses 'NA' for not applicable"),
        ({"topology": "NA"}, "topology:", "uses 'NA' for not applicable"),
        ({"reward_types": "shared"}, "reward_types:", "must be a list"),
        ({"year": "2025"}, "year:", "'year' must be a whole number"),
        ({"year": 1812}, "year:", "year 1812 is not plausible"),
        (
            {"year": 2020, "identifiers": {"arxiv": "2508.04652", "doi": None, "openreview": None}},
            "year:",
            "before the first arXiv version",
        ),
        (
            {"identifiers": {"arxiv": "arXiv:2508.04652", "doi": None, "openreview": None}},
            "  arxiv:",
            "not a well-formed arxiv identifier",
        ),
        (
            {"identifiers": {"arxiv": "2513.04652", "doi": None, "openreview": None}},
            "  arxiv:",
            "not a well-formed arxiv identifier",
        ),
        (
            {"identifiers": {"arxiv": None, "doi": "https://doi.org/10.1/x", "openreview": None}},
            "  doi:",
            "not a well-formed doi",
        ),
        (
            {"identifiers": {"arxiv": None, "doi": None, "openreview": "bad id!"}},
            "  openreview:",
            "not a well-formed openreview",
        ),
        (
            {"identifiers": {"arxiv": None, "isbn": "123"}},
            "  isbn:",
            "unknown identifier kind 'isbn'",
        ),
        (
            {"urls": ["javascript:alert(1)"]},
            "- javascript:",
            "only http and https links are allowed",
        ),
        (
            {"urls": ["https://a.org/x ; https://b.org/y"]},
            "- https://a.org/x",
            "contains white space",
        ),
        ({"urls": []}, "urls:", "must be a non-empty list of links"),
        ({"summary": "TODO"}, "summary:", "still the placeholder TODO"),
        ({"sub_decisions": "TODO"}, "sub_decisions:", "still the placeholder TODO"),
        ({"summary": "first line\nsecond line"}, "summary:", "must be a single line"),
        ({"authors": ["Doe, Jane", "others"]}, "- others", "'others' is not an author"),
        ({"authors_complete": "yes"}, "authors_complete:", "must be true or false"),
        ({"key": "Alpha_2025"}, "key:", "may hold only lower-case letters"),
        ({"titel": "typo"}, "titel:", "unknown field 'titel'. Did you mean 'title'?"),
        ({"reward_types": ["shared", "shared"]}, "- shared", "listed twice"),
        (
            {"venue": "NeurIPS 2022 D&B"},
            "venue:",
            "unknown venue 'NeurIPS 2022 D&B' in 'venue'. Did you mean 'NeurIPS Datasets and Benchmarks 2022'?",
        ),
        ({"venue": "ICLR 2024 Spotlight"}, "venue:", "Did you mean 'ICLR 2024'?"),
        ({"venue": "Tech Blog"}, "venue:", "Did you mean 'Blog'?"),
        ({"venue": "arxiv"}, "venue:", "Did you mean 'arXiv'?"),
        ({"venue": "OpenReview (ICLR 2026 submission)"}, "venue:", "Did you mean 'OpenReview'?"),
        ({"venue": "ICLR 1812"}, "venue:", "venue year 1812 is not plausible"),
    ],
)
def test_field_rule(mini_project, overrides, field_prefix, expected):
    path = write_entry(mini_project.root, entry_data("alpha2025", **overrides), name="alpha2025")
    texts = [t for t in problems_for(mini_project) if "error" in t.split("\n")[0]]
    line = line_of(path, field_prefix)
    assert any(
        t.startswith(f"corpus/alpha2025.yaml:{line}: error:") and expected in t for t in texts
    ), texts


def test_venue_spellings_come_from_the_vocabulary(mini_project):
    """One spelling per venue: a label of taxonomy/venues.yaml, with or without the year; every
    corpus entry holds one, and a venue added to the vocabulary is accepted at once."""
    from masrl.model.venues import split_venue, venue_axis

    for venue in ("NeurIPS 2025", "arXiv", "Findings of ACL 2024", "Blog"):
        write_entry(mini_project.root, entry_data("alpha2025", venue=venue), name="alpha2025")
        assert problems_for(mini_project) == [], venue
    write_entry(mini_project.root, entry_data("alpha2025", venue="KDD 2024"), name="alpha2025")
    message = only_error(mini_project)
    assert "unknown venue 'KDD 2024'" in message and "taxonomy/venues.yaml" in message
    vocabulary = mini_project.root / "taxonomy" / "venues.yaml"
    vocabulary.write_text(
        vocabulary.read_text()
        + """  - id: kdd
    order: 26
    label: KDD
    definition: ACM SIGKDD Conference on Knowledge Discovery and Data Mining.
    aliases: []
"""
    )
    assert problems_for(mini_project) == []
    real = Project(REPO_ROOT)
    labels = {v.label for v in venue_axis(real.taxonomy()).values}
    for path in real.entry_paths():
        venue = next(
            line[7:] for line in path.read_text().splitlines() if line.startswith("venue: ")
        )
        assert split_venue(venue)[0] in labels, (path.name, venue)


def test_missing_required_field_gives_allowed_values(mini_project):
    write_entry(mini_project.root, entry_data("alpha2025", drop=["topology"]))
    message = only_error(mini_project)
    assert message.startswith("corpus/alpha2025.yaml:2: error: missing required field 'topology'")
    assert "centralized, planner_executor_critic" in message


def test_file_name_must_equal_key(mini_project):
    write_entry(mini_project.root, entry_data("delta2025", title="Delta Paper"), name="other-name")
    message = only_error(mini_project)
    assert message.startswith(
        "corpus/other-name.yaml:2: error: key 'delta2025' differs from the file name"
    )


def test_duplicate_keys_across_files(mini_project):
    write_entry(
        mini_project.root,
        entry_data("alpha2025", title="A Completely Different Study"),
        name="alpha2025-copy",
    )
    texts = problems_for(mini_project)
    assert any(
        t.startswith(
            "corpus/alpha2025-copy.yaml:2: error: key 'alpha2025' is already used by corpus/alpha2025.yaml"
        )
        for t in texts
    )


def test_same_paper_retained_and_excluded_by_identifier(mini_project):
    write_entry(
        mini_project.root,
        entry_data(
            "alpha2025", identifiers={"arxiv": "2301.00001", "doi": None, "openreview": None}
        ),
    )
    texts = problems_for(mini_project)
    assert any(
        "the same paper (arxiv:2301.00001) is already recorded in corpus/alpha2025.yaml" in t
        and t.startswith("exclusions/E001.yaml:")
        for t in texts
    ), texts


def test_same_paper_by_near_identical_title(mini_project):
    write_entry(
        mini_project.root, entry_data("alpha-copy", title="Alpha team training for alpha2025!")
    )
    texts = problems_for(mini_project)
    assert any(
        t.startswith(
            "corpus/alpha2025.yaml:3: error: title is near-identical to the one in corpus/alpha-copy.yaml"
        )
        for t in texts
    ), texts


def test_distinct_titles_are_not_flagged(mini_project):
    write_entry(
        mini_project.root,
        entry_data("alpha2026", title="Alpha Team Training for Web Agents", year=2026),
    )
    assert problems_for(mini_project) == []


@pytest.mark.parametrize(
    ("overrides", "rule"),
    [
        ({"credit_mechanism": None}, "credit-unit-needs-strength"),
        ({"credit_units": [], "credit_mechanism": "explicit"}, "credit-strength-needs-unit"),
        ({"evaluation_measures": ["outcome"]}, "measures-only-for-benchmarks"),
        ({"survey_role": "case"}, "case-role-is-industrial"),
        ({"category": "survey"}, "surveys-carry-no-mechanism-tags"),
        ({"evidence_level": "documentation_blog"}, "blog-evidence-is-industrial"),
    ],
)
def test_tag_combination_rules(mini_project, overrides, rule):
    write_entry(mini_project.root, entry_data("alpha2025", **overrides))
    texts = problems_for(mini_project)
    assert any(f"(rule {rule}:" in t and t.startswith("corpus/alpha2025.yaml:") for t in texts), (
        texts
    )


@pytest.mark.parametrize(
    ("overrides", "expected"),
    [
        ({"record_id": "X1"}, "must be E followed by at least three digits"),
        ({"source": "arXiv"}, "Did you mean 'arxiv'?"),
        ({"identifier": "arxiv 2301.1"}, "is neither a prefixed identifier"),
        ({"identifier": "arXiv:23.1"}, "is not a well-formed arXiv identifier"),
        ({"date_screened": "26/04/2026"}, "must be a date YYYY-MM-DD"),
        ({"date_screened": "2026-02-30"}, "is not a calendar date"),
        ({"reason_code": "nope"}, "unknown exclusion reason 'nope'"),
        ({"url": "ftp://example.org/x"}, "only http and https"),
    ],
)
def test_exclusion_rules(mini_project, overrides, expected):
    write_exclusion(mini_project.root, exclusion_data("E001", **overrides), name="E001")
    texts = problems_for(mini_project)
    assert any(t.startswith("exclusions/E001.yaml:") and expected in t for t in texts), texts


# -- output formats ---------------------------------------------------------------------------


def test_github_and_json_formats(mini_project):
    write_entry(mini_project.root, entry_data("alpha2025", category="rl-method"))
    runner = CliRunner()
    github = runner.invoke(
        main, ["validate", "--root", str(mini_project.root), "--format", "github"]
    )
    assert github.exit_code == 1
    assert re.search(
        r"^::error file=corpus/alpha2025\.yaml,line=\d+,title=masrl validate unknown-value::unknown category",
        github.output,
        re.M,
    )
    as_json = runner.invoke(
        main, ["validate", "--root", str(mini_project.root), "--format", "json"]
    )
    payload = json.loads(as_json.output)
    assert payload["ok"] is False and payload["problems"][0]["code"] == "unknown-value"


def test_text_format_exit_code_and_summary(mini_project):
    write_entry(mini_project.root, entry_data("alpha2025", category="rl-method"))
    result = CliRunner().invoke(main, ["validate", "--root", str(mini_project.root)])
    assert result.exit_code == 1
    assert result.output.strip().splitlines()[-1].startswith("invalid: 1 error(s)")


def test_no_data_is_an_error(tmp_path):
    result = CliRunner().invoke(main, ["validate", "--root", str(tmp_path)])
    assert result.exit_code == 1 and "no corpus/ or exclusions/ YAML files" in result.output


# -- malformed input never crashes ------------------------------------------------------------

VALID_TEXT = (REPO_ROOT / "corpus" / "magrpo.yaml").read_text()


@settings(
    max_examples=examples(60),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(st.data())
def test_malformed_yaml_always_reported(mini_project, data):
    choice = data.draw(st.integers(0, 2))
    if choice == 0:
        text = data.draw(st.text(alphabet=string.printable + "\u00e9&*!|>{}[]", max_size=300))
    elif choice == 1:
        cut = data.draw(st.integers(0, len(VALID_TEXT)))
        insert = data.draw(st.text(alphabet=":-[]{}&*!|>'\"\t #\n", max_size=5))
        text = VALID_TEXT[:cut] + insert + VALID_TEXT[cut:]
    else:
        lines = VALID_TEXT.splitlines(keepends=True)
        drop = data.draw(st.integers(0, len(lines) - 1))
        text = "".join(lines[:drop] + lines[drop + 1 :])
    path = mini_project.corpus_dir / "fuzz.yaml"
    path.write_text(text, encoding="utf-8")
    report = validate_project(mini_project)  # must not raise
    for problem in report.problems:
        assert problem.line >= 1 and problem.path and problem.message
    path.unlink()


@pytest.mark.parametrize(
    ("name", "text", "expected"),
    [
        ("syntax.yaml", "key: syntax\ntitle: 'unclosed\n", "corpus/syntax.yaml:"),
        (
            "object.yaml",
            "key: object\ntitle: !!python/name:os.system\n",
            "corpus/object.yaml:2: error: the tag",
        ),
        (
            "laughs.yaml",
            "a: &a [1, 1]\nb: [*a, *a]\n",
            "corpus/laughs.yaml:1: error: anchors and aliases",
        ),
    ],
)
def test_bad_files_dropped_into_a_copy_of_the_repo(repo_copy, name, text, expected):
    (repo_copy.corpus_dir / name).write_text(text, encoding="utf-8")
    result = CliRunner().invoke(main, ["validate", "--root", str(repo_copy.root)])
    assert result.exit_code == 1
    assert expected in result.output
    assert (
        "84 entries, 32 exclusions" in result.output.splitlines()[-1]
    )  # the copy is the published corpus


def test_a_retained_paper_cannot_also_be_excluded(repo_copy):
    magrpo = (repo_copy.corpus_dir / "magrpo.yaml").read_text(encoding="utf-8")
    write_exclusion(
        repo_copy.root,
        exclusion_data(
            "E099",
            identifier="arXiv:2508.04652v2",
            url="https://arxiv.org/abs/2508.04652",
            title="Something else",
        ),
    )
    result = CliRunner().invoke(main, ["validate", "--root", str(repo_copy.root)])
    assert result.exit_code == 1
    assert (
        "exclusions/E099.yaml:6: error: the same paper (arxiv:2508.04652) is already recorded in corpus/magrpo.yaml"
        in result.output
    )
    assert magrpo == (repo_copy.corpus_dir / "magrpo.yaml").read_text(encoding="utf-8")


def test_sub_decision_evidence_documents_exactly_the_tags(mini_project):
    evidence = {"O2": "The router is trained to pick the worker.", "O5": "Stops when done."}
    write_entry(mini_project.root, entry_data("alpha2025", sub_decision_evidence=evidence))
    assert "evidence for 'O5', which is not in sub_decisions" in only_error(mini_project)
    write_entry(
        mini_project.root,
        entry_data("alpha2025", sub_decision_evidence={"O2": "The router is trained."}),
    )
    assert not validate_project(mini_project).errors


@pytest.mark.parametrize(
    ("correction", "expected"),
    [
        ({"field": "topology", "published": "debate", "reason": "peers argue as equals"}, None),
        ({"field": "colour", "published": "red", "reason": "x"}, "'colour' is not a tag field"),
        (
            {"field": "topology", "published": "centralized", "reason": "x"},
            "topology still holds its published value",
        ),
        (
            {"field": "topology", "published": "ring", "reason": "x"},
            "published value 'ring' is not in topologies",
        ),
        (
            {"field": "topology", "published": "debate"},
            "a correction needs field, published and reason",
        ),
    ],
)
def test_corrections_name_a_tag_field_its_published_value_and_a_reason(
    mini_project, correction, expected
):
    write_entry(mini_project.root, entry_data("alpha2025", corrections=[correction]))
    if expected is None:
        assert not validate_project(mini_project).errors
    else:
        assert expected in only_error(mini_project)


# -- artifact links: code, project_page, data, weights ---------------------------------------

ABSTRACT = "https://arxiv.org/abs/2505.13516"


@pytest.mark.parametrize(
    ("field", "value", "field_prefix", "expected"),
    [
        ("code", "https://github.com/org/repo", "code:", "must be a list of {url, source}"),
        ("data", [{"url": "https://hf.co/d"}], "- url:", "needs exactly url and source"),
        (
            "weights",
            [{"url": "https://hf.co/m", "source": ABSTRACT, "label": "x"}],
            "- url:",
            "needs exactly url and source",
        ),
        (
            "code",
            [{"url": "git@github.com:org/repo.git", "source": ABSTRACT}],
            "- url: git@",
            "only http and https links are allowed",
        ),
        (
            "project_page",
            [{"url": "https://example.org/p", "source": "arxiv.org/abs/2505.13516"}],
            "  source: arxiv.org",
            "only http and https links are allowed",
        ),
        (
            "code",
            [
                {"url": "https://github.com/org/repo", "source": ABSTRACT},
                {"url": "https://github.com/org/repo", "source": "https://example.org/p"},
            ],
            "- url: https://github.com/org/repo\n",
            "listed twice in code",
        ),
    ],
)
def test_artifact_link_rule(mini_project, field, value, field_prefix, expected):
    data = entry_data("alpha2025", **{field: value})
    path = write_entry(mini_project.root, data, name="alpha2025")
    texts = [t for t in problems_for(mini_project) if "error" in t.split("\n")[0]]
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    starts = [n for n, text in enumerate(lines, 1) if (text + "\n").startswith(field_prefix)]
    wanted = starts[-1] if expected.startswith("listed twice") else starts[0]
    assert any(
        t.startswith(f"corpus/alpha2025.yaml:{wanted}: error:") and expected in t for t in texts
    ), texts


def test_artifact_links_round_trip_through_the_model_schema_and_csv(mini_project):
    from masrl.check.validate import load_corpus
    from masrl.exports.csv import entry_row
    from masrl.imports.csv import value_of_cell
    from masrl.model.schemas import entry_schema

    links = [{"url": "https://github.com/org/repo", "source": ABSTRACT}]
    write_entry(mini_project.root, entry_data("alpha2025", code=links), name="alpha2025")
    corpus = load_corpus(mini_project)
    entry = next(e for e in corpus.entries if e.key == "alpha2025")
    assert entry.to_data()["code"] == links and "data" not in entry.to_data()
    cell = entry_row(entry, corpus.taxonomy)["code"]
    assert value_of_cell("links", cell, "code") == links
    schema = entry_schema(corpus.taxonomy)["properties"]
    assert set(schema) >= {"code", "project_page", "data", "weights"}
    assert schema["code"]["items"]["required"] == ["url", "source"]

"""Export -> import reproduces every field, and import never drops what a person wrote by hand."""

from __future__ import annotations

import functools
import shutil
from pathlib import Path

from click.testing import CliRunner
from conftest import REPO_ROOT, entry_data, examples, write_entry
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from masrl.check.validate import load_corpus
from masrl.cli import main
from masrl.exports.csv import export_csv
from masrl.imports.csv import apply_plan, plan_import
from masrl.model import yamlio
from masrl.model.project import Corpus, Project
from masrl.model.records import entry_from_data
from masrl.model.taxonomy import load_taxonomy

runner = CliRunner()
TAXONOMY = load_taxonomy(REPO_ROOT / "taxonomy")


def test_export_csv_then_import_force_reproduces_every_file_byte_for_byte(repo_copy, tmp_path):
    source = tmp_path / "papers.csv"
    source.write_text(
        export_csv(load_corpus(repo_copy, allow_placeholders=True), "papers"), encoding="utf-8"
    )
    before = {p.name: p.read_bytes() for p in repo_copy.entry_paths()}
    result = runner.invoke(
        main, ["import", "csv", str(source), "--root", str(repo_copy.root), "--force"]
    )
    assert result.exit_code == 0, result.output
    assert "0 new, 0 updated" in result.output
    assert {p.name: p.read_bytes() for p in repo_copy.entry_paths()} == before


def test_import_into_an_empty_checkout_restores_authors_tags_and_levels(repo_copy, tmp_path):
    corpus = load_corpus(repo_copy)
    source = tmp_path / "papers.csv"
    source.write_text(export_csv(corpus, "papers"), encoding="utf-8")
    fresh = Project(tmp_path / "fresh")
    shutil.copytree(REPO_ROOT / "taxonomy", fresh.root / "taxonomy")
    apply_plan(plan_import(source, fresh))
    again = load_corpus(fresh)
    assert [e.to_data() for e in again.entries] == [e.to_data() for e in corpus.entries]


def test_import_keeps_comments_and_fields_it_does_not_own(mini_project, tmp_path):
    path = mini_project.corpus_dir / "alpha2025.yaml"
    text = path.read_text(encoding="utf-8")
    text = text.replace("title:", "# checked against the camera-ready PDF\ntitle:")
    text = text.replace("year: 2025", "year: 2025  # first version")
    path.write_text(text, encoding="utf-8")
    bib = tmp_path / "refs.bib"
    bib.write_text(
        "@article{alpha2025, title={Alpha Team Training for alpha2025}, author={Doe, Jane and Roe, Richard},"
        " year={2025}, journal={Transactions on Machine Learning Research}, url={https://example.org/alpha2025}}\n",
        encoding="utf-8",
    )
    result = runner.invoke(
        main, ["import", "bib", str(bib), "--root", str(mini_project.root), "--force"]
    )
    assert result.exit_code == 0, result.output
    updated = path.read_text(encoding="utf-8")
    assert (
        "# checked against the camera-ready PDF\ntitle: Alpha Team Training for alpha2025\n"
        in updated
    )
    assert "venue: TMLR\n" in updated  # the journal's name in the venue vocabulary's one spelling
    assert "year: 2025  # first version" in updated
    data = yamlio.loads(updated)
    assert data["reward_types"] == ["shared"] and data["summary"].startswith("Trains a small team")

    csv_file = tmp_path / "papers.csv"
    csv_file.write_text(
        export_csv(load_corpus(mini_project), "papers").replace(
            "Example University", "Other University"
        ),
        encoding="utf-8",
    )
    result = runner.invoke(
        main, ["import", "csv", str(csv_file), "--root", str(mini_project.root), "--force"]
    )
    assert result.exit_code == 0, result.output
    again = path.read_text(encoding="utf-8")
    assert "affiliation: Other University" in again and "year: 2025  # first version" in again
    assert "# checked against the camera-ready PDF" in again


# ---------------------------------------------------------------------------------------------
# Property: any valid entry survives export csv -> import csv.

_ALPHABET = st.characters(
    codec="utf-8", categories=["L", "N", "P", "S", "Zs"], exclude_characters="\u2028\u2029\x85"
)
_text = (
    st.text(_ALPHABET, min_size=1, max_size=40)
    .map(lambda s: " ".join(s.split()))
    .filter(lambda s: s and s not in ("TODO", "NA", "unknown"))
)


@functools.cache  # one strategy per axis, not one per example
def _tags(axis: str, allow_empty: bool = True):
    ids = list(TAXONOMY[axis].ids)
    return st.lists(
        st.sampled_from(ids), unique=True, min_size=0 if allow_empty else 1, max_size=3
    ).map(lambda values: sorted(values, key=ids.index))


@st.composite
def entries(draw):
    category = draw(st.sampled_from(TAXONOMY["categories"].ids))
    credit_units = draw(_tags("credit_units"))
    data = entry_data(
        "prop2025",
        title=draw(_text),
        authors=draw(st.lists(_text, min_size=1, max_size=4)),
        authors_complete=draw(st.booleans()),
        affiliation=draw(st.none() | _text),
        year=draw(st.integers(1990, 2026)),
        # a venue is one label of the venue vocabulary, optionally with its year (validate refuses
        # other spellings, and the importers turn aliases into the label)
        venue=draw(st.sampled_from([v.label for v in TAXONOMY["venues"].values]))
        + draw(st.just("") | st.integers(1990, 2026).map(lambda year: f" {year}")),
        identifiers={
            "arxiv": draw(st.none() | st.just("2508.04652")),
            "doi": draw(st.none() | st.just("10.1234/a;b(c)=d")),
            "openreview": draw(st.none() | st.just("ur295YVtmt")),
        },
        urls=draw(
            st.lists(
                st.sampled_from(["https://example.org/a;b", "https://x.org/-=@", "http://y.org/"]),
                min_size=1,
                max_size=3,
                unique=True,
            )
        ),
        category=category,
        reward_types=draw(_tags("reward_types")),
        credit_units=credit_units,
        credit_mechanism=draw(st.sampled_from(TAXONOMY["credit_mechanisms"].ids))
        if credit_units
        else None,
        sub_decisions=draw(_tags("sub_decisions")),
        evidence_level=draw(st.sampled_from(TAXONOMY["evidence_levels"].ids)),
        summary=draw(_text),
        notes=draw(st.just("") | _text),
    )
    if category == "benchmark":
        data["evaluation_measures"] = draw(_tags("evaluation_measures"))
    for name, value in (
        ("latest_version", "v3"),
        ("primary_category", "cs.LG"),
        ("journal_ref", "=J. Tests 1"),
    ):
        if draw(st.booleans()):
            data[name] = value
    return data


@settings(
    max_examples=examples(30),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=entries())
def test_any_entry_survives_export_and_import(tmp_path_factory, data):
    root = tmp_path_factory.mktemp("prop")
    original = entry_from_data(data)
    corpus = Corpus(Project(root), TAXONOMY, [original], [])
    source = root / "papers.csv"
    source.write_text(export_csv(corpus, "papers"), encoding="utf-8")
    plan = plan_import(source, Project(root))
    imported = yamlio.loads(plan.files[0].text)
    assert entry_from_data(imported).to_data() == original.to_data()


def test_the_property_uses_real_paths():
    assert Path(REPO_ROOT / "taxonomy").is_dir() and write_entry


def test_records_given_the_same_fields_share_one_set_of_their_names():
    """Built records share pydantic's set of the fields given (memory); each still reports its
    own, and a copy with an update gets a set of its own."""
    taxonomy = load_taxonomy(REPO_ROOT / "taxonomy")
    first = entry_from_data(entry_data("one"), taxonomy=taxonomy)
    second = entry_from_data(entry_data("two"), taxonomy=taxonomy)
    assert first.model_fields_set is second.model_fields_set
    assert first.model_fields_set == set(first.model_dump(exclude_unset=True))
    copy = first.model_copy(update={"title": "Another title"})
    assert copy.title == "Another title" and first.title != copy.title
    assert copy.model_fields_set is not first.model_fields_set
    assert first.model_fields_set == second.model_fields_set

"""`masrl release`: a versioned, citable data package per closed round, byte-identical for the
same data, validated by the Frictionless reference library; CITATION.cff and .zenodo.json carry
the newest version; the data page lists every release with its citation and changes."""

from __future__ import annotations

import csv
import io
import json
import shutil

import pytest
from click.testing import CliRunner
from conftest import REPO_ROOT, entry_data, write_entry
from masrl.check.validate import load_corpus
from masrl.cli import main
from masrl.errors import InputError, UsageError
from masrl.exports.csv import PAPERS_HEADER, export_csv, masrl_header
from masrl.model import yamlio
from masrl.model.project import Project
from masrl.render.release import (
    CHECKSUMS,
    PACKAGE,
    RELEASE_FILES,
    citation_files,
    list_releases,
    verify_release,
    write_release,
)

ROUNDS = """\
rounds:
  - id: survey-2026-05
    date: '2026-05-04'
    searched: {from: null, until: '2026-05-04'}
    query_families: [multi_agent_llm]
    sources: [arxiv]
    notes: The survey's own search.
  - id: 2026-11
    date: '2026-11-23'
    searched: {from: '2026-05-04', until: '2026-11-23'}
    query_families: [multi_agent_llm]
    sources: [arxiv]
    notes: The first living round.
  - id: 2026-12
    date: '2026-12-20'
    searched: {from: '2026-11-23', until: '2026-12-20'}
    query_families: [multi_agent_llm]
    sources: [arxiv]
    notes: The second living round.
"""


@pytest.fixture
def project(mini_project) -> Project:
    (mini_project.root / "screening").mkdir(exist_ok=True)
    (mini_project.root / "screening" / "rounds.yaml").write_text(ROUNDS, encoding="utf-8")
    shutil.copy(REPO_ROOT / "CITATION.cff", mini_project.root / "CITATION.cff")
    return mini_project


def table_columns(folder) -> list[str]:
    import pyarrow.parquet as pq

    return pq.read_schema(folder / "entries.parquet").names


def release_bytes(folder) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def test_a_release_holds_every_format_and_frictionless_accepts_its_package(project):
    import pyarrow.parquet as pq
    from frictionless import validate

    folder, names = write_release(load_corpus(project), "2026.11")
    assert folder == project.root / "releases" / "2026.11"
    assert set(names) == {name for name, *_ in RELEASE_FILES} | {PACKAGE, CHECKSUMS}

    report = validate(str(folder / PACKAGE))
    assert report.valid, report.flatten(["title", "message"])
    package = json.loads((folder / PACKAGE).read_text(encoding="utf-8"))
    assert (package["version"], package["created"]) == ("2026.11", "2026-11-23T00:00:00Z")
    assert package["masrl"] == {
        "round": "2026-11",
        "round_date": "2026-11-23",
        "entries": 3,
        "exclusions": 1,
    }
    assert verify_release(folder) == []

    corpus = load_corpus(project)
    survey = (folder / "entries-survey-layout.csv").read_text("utf-8")
    assert survey == export_csv(corpus, "papers")  # the same writers as `masrl export csv`
    assert tuple(next(csv.reader(io.StringIO(survey)))[: len(PAPERS_HEADER)]) == PAPERS_HEADER
    assert (folder / "entries.csv").read_text("utf-8") == export_csv(corpus, "masrl")
    assert table_columns(folder) == list(masrl_header(corpus.taxonomy))
    table = pq.read_table(folder / "entries.parquet")
    assert table.num_rows == 3 and table.column("key").to_pylist() == sorted(
        ["alpha2025", "beta2024", "gamma2023"]
    )
    assert table.schema.field("reward_types").type.value_type == "string"  # a list, not text
    assert table.schema.field("reward_families").type.value_type == "string"
    assert (folder / "entries.bib").read_text(encoding="utf-8").count("@") == 3
    flow = json.loads((folder / "flow.json").read_text(encoding="utf-8"))
    assert flow.get("round", "2026-11") == "2026-11"
    assert "fields" in json.loads((folder / "agreement.json").read_text(encoding="utf-8"))

    # A changed byte is caught by both the checksums and the data package.
    (folder / "entries.bib").write_bytes((folder / "entries.bib").read_bytes() + b"\n")
    assert verify_release(folder) == ["entries.bib"]
    assert not validate(str(folder / PACKAGE)).valid


def test_the_same_data_gives_the_same_bytes_and_a_release_is_never_silently_rewritten(
    project, tmp_path
):
    folder, _ = write_release(load_corpus(project), "2026.11")
    first = release_bytes(folder)
    shutil.rmtree(folder)
    write_release(load_corpus(project), "2026.11")
    assert release_bytes(folder) == first
    write_release(load_corpus(project), "2026.11")  # unchanged data: nothing to do

    write_entry(project.root, entry_data("alpha2025", reward_types=["shared", "role"]))
    with pytest.raises(UsageError, match="release 2026.11 exists already, with other data"):
        write_release(load_corpus(project), "2026.11")
    assert release_bytes(folder) == first
    write_release(load_corpus(project), "2026.11", force=True)
    assert release_bytes(folder) != first


def test_the_next_release_records_what_was_added_removed_and_retagged(project):
    write_release(load_corpus(project), "2026.11")
    write_entry(project.root, entry_data("delta2026", year=2026, round="2026-12"))
    write_entry(project.root, entry_data("alpha2025", topology="hierarchical"))
    (project.root / "corpus" / "gamma2023.yaml").unlink()
    folder, _ = write_release(load_corpus(project), "2026.12")
    changes = json.loads((folder / "changes.json").read_text(encoding="utf-8"))
    assert changes == {
        "previous": "2026.11",
        "added": ["delta2026"],
        "removed": ["gamma2023"],
        "retagged": [{"key": "alpha2025", "fields": ["topology"]}],
    }
    assert [r.version for r in list_releases(project)] == ["2026.11", "2026.12"]


def test_citation_cff_and_zenodo_json_carry_the_newest_release(project):
    before = citation_files(load_corpus(project))
    assert json.loads(before[".zenodo.json"])["upload_type"] == "dataset"
    assert "version" not in json.loads(before[".zenodo.json"])
    write_release(load_corpus(project), "2026.11")
    write_release(load_corpus(project), "2026.12")
    files = citation_files(load_corpus(project))
    citation = yamlio.loads(files["CITATION.cff"].decode("utf-8"))
    assert (citation["version"], citation["date-released"]) == ("2026.12", "2026-12-20")
    assert citation["preferred-citation"]["doi"] == "10.48550/arXiv.2605.02801"  # rest kept
    zenodo = json.loads(files[".zenodo.json"])
    assert (zenodo["version"], zenodo["publication_date"]) == ("2026.12", "2026-12-20")


@pytest.mark.parametrize(
    ("version", "error", "message"),
    [
        ("2026-12", UsageError, "'2026-12' is not a release version"),
        ("2026.13", UsageError, "is not a release version"),
        ("2027.01", InputError, "closes round 2027-01, which screening/rounds.yaml does not have"),
    ],
)
def test_a_bad_version_is_a_clear_error(project, version, error, message):
    with pytest.raises(error, match=message):
        write_release(load_corpus(project), version)
    result = CliRunner().invoke(main, ["release", version, "--root", str(project.root)])
    assert result.exit_code != 0 and message.split("'")[-1][:20] in result.output
    assert not (project.root / "releases").exists()


def test_cli_writes_the_release(project):
    result = CliRunner().invoke(main, ["release", "2026.12", "--root", str(project.root)])
    assert result.exit_code == 0, result.output
    assert result.output.startswith("release 2026.12: wrote 11 files to releases/2026.12/")


def test_the_data_page_lists_each_release_with_its_citation_and_changes(project):
    from masrl.render.site.context import SiteContext
    from masrl.render.site.releases import releases_fragment

    corpus = load_corpus(project)
    ctx = SiteContext(corpus, repository="https://github.com/masrl/masrl")
    assert releases_fragment(ctx, "data.md").startswith("No release yet")
    write_release(corpus, "2026.11")
    write_entry(project.root, entry_data("alpha2025", topology="hierarchical"))
    corpus = load_corpus(project)
    write_release(corpus, "2026.12")
    text = releases_fragment(
        SiteContext(corpus, repository="https://github.com/masrl/masrl"), "data.md"
    )
    assert text.index("### Release 2026.12") < text.index("### Release 2026.11")  # newest first
    assert "@misc{masrl2026_12," in text and "  version = {2026.12}," in text
    assert "  month = dec," in text
    assert "https://github.com/masrl/masrl/tree/main/releases/2026.12" in text
    assert "**Changes since 2026.11:** 0 added, 0 removed, 1 re-tagged." in text
    assert "- Re-tagged [alpha2025](entries/alpha2025.md): `topology`" in text


def test_the_committed_releases_are_intact_valid_and_cited():
    from frictionless import validate

    releases = list_releases(Project(REPO_ROOT))
    assert releases, "cut a release: masrl release YEAR.MONTH"
    for release in releases:
        assert verify_release(release.path) == [], release.version
    newest = releases[-1]
    report = validate(str(newest.path / PACKAGE))
    assert report.valid, report.flatten(["title", "message"])
    citation = yamlio.loads((REPO_ROOT / "CITATION.cff").read_text(encoding="utf-8"))
    assert citation["version"] == newest.version


def test_masrl_check_reports_a_changed_release_file(project):
    from masrl.render.build import damaged_releases

    folder, _ = write_release(load_corpus(project), "2026.11")
    assert damaged_releases(project) == []
    (folder / "entries.csv").write_text("edited by hand\n", encoding="utf-8")
    (damaged,) = damaged_releases(project)
    assert damaged.path == "releases/2026.11/entries.csv"
    assert "masrl release 2026.11 --force" in damaged.diff

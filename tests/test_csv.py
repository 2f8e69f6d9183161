"""CSV import/export in the survey artifact's layout."""

from __future__ import annotations

import csv
import functools
import io
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import REAL_ENTRIES, REAL_EXCLUSIONS, REPO_ROOT
from masrl.cli import main
from masrl.exports.csv import (
    EXCLUSIONS_HEADER,
    PAPERS_HEADER,
    PAPERS_HEADER_WITHOUT_SUMMARY,
    export_csv,
)
from shared_corpus import live_corpus

runner = CliRunner()


def export(root: Path, kind: str) -> str:
    result = runner.invoke(main, ["export", "csv", "--root", str(root), "--kind", kind])
    assert result.exit_code == 0, result.output
    return result.output


@functools.cache
def real_export(kind: str) -> str:
    """`masrl export csv --kind KIND` of the real corpus, run once per process: every test that
    reads it reads the same text."""
    return export(REPO_ROOT, kind)


@pytest.fixture(scope="module")
def corpus():
    return live_corpus()


def test_export_has_the_artifact_header_and_every_entry():
    text = real_export("papers")
    rows = list(csv.DictReader(io.StringIO(text)))
    header = tuple(csv.reader(io.StringIO(text)).__next__())
    assert (
        header[: len(PAPERS_HEADER)] == PAPERS_HEADER
    )  # the artifact's columns first, masrl's after
    assert len(rows) == REAL_ENTRIES
    magrpo = next(r for r in rows if r["key"] == "magrpo")
    assert (
        magrpo["first_author"],
        magrpo["arxiv_id"],
        magrpo["reward_type"],
        magrpo["credit_granularity"],
        magrpo["orchestration_form"],
        magrpo["is_core"],
    ) == ("Liu, Shuo", "2508.04652", "shared", "agent", "centralized", "core")
    latentmas = next(r for r in rows if r["key"] == "latentmas")
    assert (latentmas["reward_type"], latentmas["credit_granularity"]) == ("NA", "NA")
    codex = next(r for r in rows if r["key"] == "openai-codex")
    assert (
        codex["url"]
        == "https://openai.com/index/introducing-codex/ ; https://openai.com/index/introducing-the-codex-app/"
    )


def test_exclusions_export_has_the_artifact_header():
    text = real_export("exclusions")
    rows = list(csv.DictReader(io.StringIO(text)))
    assert tuple(next(csv.reader(io.StringIO(text)))) == EXCLUSIONS_HEADER
    assert len(rows) == REAL_EXCLUSIONS
    assert rows[3]["source"] == "company docs" and rows[3]["query_family"] == "multi-agent LLM"


@pytest.mark.slow
def test_export_import_export_is_byte_identical(tmp_path):
    # A new project importing the corpus needs the rounds its records name.
    (tmp_path / "copy" / "screening").mkdir(parents=True)
    shutil.copy(
        REPO_ROOT / "screening" / "rounds.yaml", tmp_path / "copy" / "screening" / "rounds.yaml"
    )
    for kind in ("papers", "exclusions"):
        first = real_export(kind)
        source = tmp_path / f"{kind}.csv"
        source.write_text(first, encoding="utf-8")
        result = runner.invoke(
            main, ["import", "csv", str(source), "--root", str(tmp_path / "copy")]
        )
        assert result.exit_code == 0, result.output
    for kind in ("papers", "exclusions"):
        assert export(tmp_path / "copy", kind) == (tmp_path / f"{kind}.csv").read_text(
            encoding="utf-8"
        )


def test_import_marks_what_the_layout_lacks_as_placeholders(tmp_path):
    source = tmp_path / "papers.csv"
    source.write_text(
        ",".join(PAPERS_HEADER_WITHOUT_SUMMARY) + "\n"
        'gaia2023,GAIA: a benchmark,"Mialon, Gr\\\'{e}goire",Meta AI,2023,2311.12983,arXiv,'
        "https://arxiv.org/abs/2311.12983,benchmark,no,NA,NA,NA,general,core,yes,\n",
        encoding="utf-8",
    )
    result = runner.invoke(main, ["import", "csv", str(source), "--root", str(tmp_path)])
    assert result.exit_code == 0, result.output
    text = (tmp_path / "corpus" / "gaia2023.yaml").read_text(encoding="utf-8")
    assert "- Mialon, Grégoire" in text
    for line in (
        "sub_decisions: TODO",
        "evidence_level: TODO",
        "evaluation_measures: TODO",
        "summary: TODO",
    ):
        assert line in text
    invalid = runner.invoke(main, ["validate", "--root", str(tmp_path)])
    assert invalid.exit_code == 1 and "still the placeholder TODO" in invalid.output


def rows_of(text: str, keys: set[str]) -> str:
    """The CSV ``text`` with its header and only the rows of ``keys``."""
    table = list(csv.reader(io.StringIO(text)))
    kept = io.StringIO()
    csv.writer(kept, lineterminator="\n").writerows(
        [table[0], *(row for row in table[1:] if row[table[0].index("key")] in keys)]
    )
    return kept.getvalue()


def test_import_never_overwrites_without_force(tmp_path):
    source = tmp_path / "papers.csv"
    source.write_text(
        rows_of(real_export("papers"), {"magrpo", "latentmas", "puppeteer"}), encoding="utf-8"
    )
    assert (
        runner.invoke(main, ["import", "csv", str(source), "--root", str(tmp_path)]).exit_code == 0
    )
    target = tmp_path / "corpus" / "magrpo.yaml"
    hand_edited = target.read_text(encoding="utf-8").replace(
        "Northeastern University", "Hand Edited"
    )
    target.write_text(hand_edited, encoding="utf-8")

    kept = runner.invoke(main, ["import", "csv", str(source), "--root", str(tmp_path)])
    assert "kept    corpus/magrpo.yaml (differs in affiliation; --force overwrites)" in kept.output
    assert target.read_text(encoding="utf-8") == hand_edited

    dry = runner.invoke(
        main, ["import", "csv", str(source), "--root", str(tmp_path), "--force", "--dry-run"]
    )
    assert "would update corpus/magrpo.yaml (affiliation)" in dry.output and "dry run" in dry.output
    assert target.read_text(encoding="utf-8") == hand_edited

    forced = runner.invoke(main, ["import", "csv", str(source), "--root", str(tmp_path), "--force"])
    assert "updated      corpus/magrpo.yaml" in forced.output
    assert "Northeastern University" in target.read_text(encoding="utf-8")


def test_dry_run_writes_nothing(tmp_path):
    source = tmp_path / "papers.csv"
    source.write_text(real_export("papers"), encoding="utf-8")
    result = runner.invoke(
        main, ["import", "csv", str(source), "--root", str(tmp_path / "new"), "--dry-run"]
    )
    assert result.exit_code == 0 and "would create corpus/magrpo.yaml" in result.output
    assert not (tmp_path / "new").exists()


def test_bad_header_and_bad_rows_write_nothing(tmp_path):
    bad_header = tmp_path / "bad.csv"
    bad_header.write_text("key,title\nx,y\n", encoding="utf-8")
    result = runner.invoke(main, ["import", "csv", str(bad_header), "--root", str(tmp_path)])
    assert (
        result.exit_code == 1
        and "bad.csv:1: the header matches neither artifact layout" in result.output
    )

    short_row = tmp_path / "short.csv"
    short_row.write_text(",".join(PAPERS_HEADER) + "\nonly,three,cells\n", encoding="utf-8")
    result = runner.invoke(main, ["import", "csv", str(short_row), "--root", str(tmp_path)])
    assert (
        result.exit_code == 1
        and "short.csv:2: the row has a different number of columns" in result.output
    )

    bad_year = tmp_path / "year.csv"
    rows = list(csv.DictReader(io.StringIO(real_export("papers"))))[:2]
    rows[1]["year"] = "twenty"
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, PAPERS_HEADER, lineterminator="\n", extrasaction="ignore")
    writer.writeheader()
    writer.writerows(rows)
    bad_year.write_text(buffer.getvalue(), encoding="utf-8")
    result = runner.invoke(main, ["import", "csv", str(bad_year), "--root", str(tmp_path)])
    assert (
        result.exit_code == 1
        and "year.csv:3:" in result.output
        and "nothing was written" in result.output
    )
    assert not (tmp_path / "corpus").exists()


def test_library_export_matches_cli(corpus):
    assert export_csv(corpus, "papers") == real_export("papers")


def test_masrl_layout_has_every_model_field_under_its_name_and_lists_as_json(corpus):
    """masrl's own layout: one column per field of the entry model (read from the model, not a
    list kept here), the derived reward_families right after reward_types; list cells are JSON."""
    import json

    from masrl.derive.stats import entry_values
    from masrl.exports.csv import masrl_header

    model_fields = list(type(corpus.entries[0]).model_fields)
    text = real_export("masrl")
    header = next(csv.reader(io.StringIO(text)))
    assert tuple(header) == masrl_header(corpus.taxonomy)
    assert [name for name in header if name != "reward_families"] == model_fields
    assert header.index("reward_families") == header.index("reward_types") + 1
    assert {"sub_decisions", "code", "project_page", "data", "weights"} <= set(header)
    rows = {row["key"]: row for row in csv.DictReader(io.StringIO(text))}
    assert len(rows) == REAL_ENTRIES
    for entry in corpus.entries:
        row = rows[entry.key]
        assert json.loads(row["credit_units"]) == list(entry.credit_units)
        assert json.loads(row["sub_decisions"]) == list(entry.sub_decisions)
        assert json.loads(row["authors"]) == list(entry.authors)
        assert json.loads(row["reward_families"]) == list(
            entry_values(entry, "reward_families", corpus.taxonomy)
        )
        assert json.loads(row["code"]) == [dict(link) for link in entry.code]

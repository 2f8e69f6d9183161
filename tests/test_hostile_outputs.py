"""Nothing in a record can break out of the files and terminals masrl writes it to."""

from __future__ import annotations

import csv
import io

import bibtexparser
import pytest
from click.testing import CliRunner
from conftest import entry_data, write_entry
from masrl.check.validate import load_corpus, validate_project
from masrl.cli import main
from masrl.csvsafe import neutralise_cell, restore_cell
from masrl.exports.bibtex import export_bibtex
from masrl.exports.csv import export_csv
from masrl.model import identifiers as ids
from masrl.model.records import entry_from_data
from masrl.text import terminal_safe

runner = CliRunner()


def _errors(project, code):
    return [p for p in validate_project(project).errors if p.code == code]


def test_validate_rejects_braces_and_backslashes_in_dois_and_links(mini_project):
    write_entry(
        mini_project.root,
        entry_data(
            "doi2025",
            identifiers={"arxiv": None, "doi": "10.1234/x}, title={pwned", "openreview": None},
        ),
    )
    write_entry(
        mini_project.root,
        entry_data("url2025", urls=["https://example.org/a}b", "https://example.org/\\x"]),
    )
    assert len(_errors(mini_project, "identifier-format")) == 1
    assert len(_errors(mini_project, "url")) == 2


def test_bibtex_writer_cannot_be_broken_out_of():
    data = entry_data(
        "evil2025",
        identifiers={"arxiv": None, "doi": "10.1234/x}, title={pwned", "openreview": None},
        urls=["https://example.org/a},note={pwned", "https://example.org/b}{c"],
        title="Title with } and { braces",
        venue="V}, note={pwned",
    )
    text = export_bibtex([entry_from_data(data)])
    library = bibtexparser.parse_string(text)
    assert not library.failed_blocks and len(library.entries) == 1
    fields = {f.key.lower(): f.value for f in library.entries[0].fields}
    assert "note" not in fields and "pwned" not in fields["title"]
    assert fields["doi"] == "10.1234/x%7D, title=%7Bpwned"


@pytest.mark.parametrize(
    "value",
    ['=HYPERLINK("http://x")', "+1", "-2+3", "@SUM(A1)", "\tx", "\rx", "'=already", "'plain"],
)
def test_csv_cells_that_spreadsheets_would_run_are_neutralised_and_restored(value):
    cell = neutralise_cell(value)
    assert cell.startswith("'") and restore_cell(cell) == value
    assert neutralise_cell("Plain title") == "Plain title" and restore_cell("'quoted") == "'quoted"


def test_csv_exports_and_site_downloads_neutralise_formulas(mini_project):
    write_entry(
        mini_project.root, entry_data("formula2025", title="=cmd|' /C calc'!A0", notes="@SUM(1+1)")
    )
    corpus = load_corpus(mini_project)
    rows = list(csv.DictReader(io.StringIO(export_csv(corpus, "papers"))))
    row = next(r for r in rows if r["key"] == "formula2025")
    assert row["title"] == "'=cmd|' /C calc'!A0" and row["notes"] == "'@SUM(1+1)"
    from masrl.render.site.context import SiteContext
    from masrl.render.site.downloads import PAPERS_CSV, download_files

    assert b"'=cmd|" in download_files(SiteContext(corpus))[PAPERS_CSV]


@pytest.mark.parametrize(
    "bad", ["\x1b[31mRed\x1b[0m", "evil\u202etxt.exe", "nul\x00", "bell\x07", "tab\there", "c1\x9b"]
)
def test_control_and_bidi_characters_are_refused_in_every_text_field(mini_project, bad):
    write_entry(
        mini_project.root,
        entry_data("ctrl2025", title=f"Title {bad}", authors=[f"Doe, {bad}"], venue=bad),
    )
    problems = _errors(mini_project, "control-character")
    assert {p.message.split("'")[1] for p in problems} == {"title", "authors.0", "venue"}
    result = runner.invoke(main, ["validate", "--root", str(mini_project.root)])
    assert result.exit_code == 1
    assert (
        "\x1b" not in result.output
        and "\u202e" not in result.output
        and "\x00" not in result.output
    )


def test_line_breaks_are_allowed_only_in_notes(mini_project):
    write_entry(mini_project.root, entry_data("lines2025", notes="first line\nsecond line"))
    assert not _errors(mini_project, "control-character")


def test_terminal_output_escapes_control_characters():
    assert terminal_safe("a\x1b[2Jb\u202ec\nd") == "a\\x1b[2Jb\\u202ec\nd"


def test_garbage_bib_is_an_error_not_zero_new(tmp_path):
    source = tmp_path / "refs.bib"
    for text in ("this is not bibtex at all\n", "", "% only a comment\n"):
        source.write_text(text, encoding="utf-8")
        result = runner.invoke(main, ["import", "bib", str(source), "--root", str(tmp_path)])
        assert result.exit_code == 1 and "nothing to import" in result.output, (text, result.output)


@pytest.mark.parametrize(
    "url",
    [
        "https://arxiv.org/abs/2508.04652?context=cs",
        "https://arxiv.org/pdf/2508.04652v2.pdf#page=3",
        "arxiv.org/abs/2508.04652/?utm_source=x",
    ],
)
def test_arxiv_urls_with_a_query_or_fragment_are_understood(url):
    assert ids.strip_arxiv_version(ids.parse_arxiv_reference(url)) == "2508.04652"

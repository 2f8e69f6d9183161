"""BibTeX values read as BibTeX reads them: @string macros, the month macros and `#` joined;
an undefined or cyclic macro refused with its line; fields lost to a stray brace named."""

from __future__ import annotations

import pytest
from click.testing import CliRunner
from masrl.cli import main
from masrl.exports.bibtex import BibtexError
from masrl.imports.bibtex import parse_bibtex

runner = CliRunner()


def test_macros_and_concatenation_are_resolved():
    text = (
        '@string{conf = "NeurIPS"}\n'
        '@STRING{full = "Proc. " # Conf}\n'
        "@inproceedings{a,\n"
        '  title = "Teams of " # conf # {, {RL} Agents},\n'
        "  month = jan,\n"
        "  year = 2020,\n"
        "  booktitle = full,\n"
        "}\n"
    )
    (record,) = parse_bibtex(text)
    assert record.title == "Teams of NeurIPS, RL Agents"
    assert record.venue == "Proc. NeurIPS" and record.year == 2020


def test_plain_values_read_as_before():
    text = '@misc{k, title = {A "quoted" {B}raced # title}, year = "2021", note = {x # y}}\n'
    (record,) = parse_bibtex(text)
    assert record.title == 'A "quoted" Braced # title' and record.year == 2021


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            '@article{k, title = "x" # cnf}\n@string{conf = {y}}\n',
            [
                "t.bib:1: field 'title' of entry 'k' uses the macro 'cnf', which no @string defines",
                "Did you mean 'conf'?",
            ],
        ),
        (
            '@string{a = b}\n@string{b = a # "x"}\n@article{k, title = a}\n',
            ["t.bib:1: the @string macros refer to each other in a cycle (a -> b -> a)"],
        ),
    ],
)
def test_an_undefined_or_cyclic_macro_is_an_error_with_its_line(text, expected):
    with pytest.raises(BibtexError) as caught:
        parse_bibtex(text, "t.bib")
    (problem,) = caught.value.problems
    assert all(part in problem for part in expected)


def test_the_cli_refuses_an_undefined_macro_and_writes_nothing(mini_project, tmp_path):
    source = tmp_path / "x.bib"
    source.write_text('@misc{k,\n  title = "Teams of " # conf,\n  year = 2020}\n', "utf-8")
    listing = sorted(p.name for p in mini_project.root.rglob("*"))
    result = runner.invoke(main, ["import", "bib", str(source), "--root", str(mini_project.root)])
    assert result.exit_code != 0 and "Traceback" not in result.output
    assert f"{source}:2: field 'title' of entry 'k' uses the macro 'conf'" in result.output
    assert "nothing was written" in result.output
    assert sorted(p.name for p in mini_project.root.rglob("*")) == listing


def test_fields_lost_to_a_stray_brace_are_named(mini_project, tmp_path):
    source = tmp_path / "x.bib"
    source.write_text(
        "@article{b,\n  title = {Stray}} brace},\n  author = {Smith, J.},\n  year = {2021}\n}\n",
        "utf-8",
    )
    warnings: list[str] = []
    parse_bibtex(source.read_text("utf-8"), str(source), warnings)
    assert warnings == [
        f"{source}:2: entry 'b' is closed early by a stray '}}' on this line; the field(s) "
        "author, year after it were not read. Remove the extra '}' (or write it as \\}) and "
        "import again"
    ]
    result = runner.invoke(
        main, ["import", "bib", "--dry-run", str(source), "--root", str(mini_project.root)]
    )
    assert "Traceback" not in result.output and f"warning: {source}:2: entry 'b'" in result.output


def test_latex_encoding_in_pieces_equals_pylatexenc_on_the_whole_string():
    from masrl.exports.bibtex import _shared_encoder
    from pylatexenc.latexencode import UnicodeToLatexEncoder

    encoder = _shared_encoder()
    parts = (
        "Teams of |é|&|%|_|#|$|{|}|~|\\|…|–|’|α|e\u0301|q\u0301|...|--|'|`|\"| |\u0327|ﬁ|Å".split(
            "|"
        )
    )
    text = "".join(parts[(i * 7) % len(parts)] for i in range(3000))
    whole = encoder._BRACED_ESCAPE.sub(r"\1", UnicodeToLatexEncoder.unicode_to_latex(encoder, text))
    assert encoder._encode(text) == whole

"""The regular-expression splitter of .bib files (imports/bibtex_split.py) against bibtexparser's
own: wherever it answers, its blocks equal the splitter's (lines, raw text, implicit comments);
elsewhere it leaves the file to bibtexparser."""

from __future__ import annotations

import os

from bibtexparser.model import ParsingFailedBlock
from bibtexparser.splitter import Splitter
from conftest import examples
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from masrl.imports.bibtex_split import split_blocks, split_plain

EXAMPLES = int(os.environ.get("MASRL_FUZZ_EXAMPLES", str(examples(100, deep=400))))

PLAIN = """% exported by hand
@string{conf = "Benchmark Conference"}
@String { jour = {J. of {RL}} }

@inproceedings{a1,
  title = {Teams of {LLM} Agents, \\{braced\\} and "quoted"},
  author = {Doe, Jane and {Simon and Schuster}},
  booktitle = "Proc. " # conf,
  year = 2025,
  note = "a {b" # {c = d, e},
  month = jan
}
@article{b2, journal = jour, title = "One } two", pages = {1--2},}
text between blocks, year = 2020,
@misc{c3,
  title = {LeQua @ {CLEF}},
  url = {https://x.org/a_b?c=d%20e},
}
@comment{jabref-meta: databaseType:bibtex;}
@preamble{"\\newcommand{\\x}{y}"}
"""

# Pieces of .bib text, the delimiters and escapes the splitter treats specially among them.
_PIECES = st.sampled_from(
    [
        "@article{",
        "@string{",
        "@comment{",
        "@preamble{",
        "@misc(",
        "\n@inproceedings {",
        "key,",
        " title = ",
        "author=",
        "{",
        "}",
        '"',
        ",",
        "=",
        "#",
        "\n",
        "\r\n",
        " ",
        "\t",
        "\u00a0",
        "\\",
        "\\{",
        "\\}",
        '\\"',
        "\\\n",
        '{"}',
        "@",
        "@x{",
        "\n  @x{",
        "abc",
        "Jane and Doe",
        "(",
        ")",
        "%",
    ]
)
_TEXT = st.lists(_PIECES, max_size=40).map("".join)


def _comparable(blocks: list) -> list:
    """Blocks as equality sees them; a failed block's error (an exception, equal only to itself)
    by its type and message."""
    return [
        (type(b), {k: v for k, v in vars(b).items() if k != "_error"}, repr(b.error))
        if isinstance(b, ParsingFailedBlock)
        else b
        for b in blocks
    ]


def _same_as_splitter(text: str) -> None:
    expected = Splitter(text).split()
    found = split_plain(text)
    if found is not None:
        assert _comparable(found.blocks) == _comparable(expected.blocks)
        assert [b.start_line for b in found.blocks] == [b.start_line for b in expected.blocks]
    assert _comparable(split_blocks(text).blocks) == _comparable(expected.blocks)


# Both property tests: a fixed seed (the same examples on every run) and large texts allowed.
SPLIT_SETTINGS = settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def test_plain_file_is_split_here_as_bibtexparser_splits_it():
    assert split_plain(PLAIN) is not None
    _same_as_splitter(PLAIN)


@SPLIT_SETTINGS
@given(_TEXT)
@example("@article{k,\n title = {a\n@x{b}},\n}")
@example('@article{k, title = "a {"} b"}')
@example("@article{k, title = {a}\\\n}")
@example("@article{k}")
@example("@article{k, title}")
@example("@string(x = {y})")
@example("@article{k, title = {a}, title = {b}}")
@example("@article{k, t = {{{{{{{{{{deep}}}}}}}}}}}")
def test_any_text_is_split_as_bibtexparser_splits_it(text):
    _same_as_splitter(text)


@SPLIT_SETTINGS
@given(st.lists(st.sampled_from(PLAIN.splitlines(keepends=True)), max_size=30).map("".join))
def test_lines_of_a_plain_file_in_any_order_split_as_bibtexparser_splits_them(text):
    _same_as_splitter(text)

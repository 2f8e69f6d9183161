"""The quick reader (masrl's own block style, read line by line) gives exactly what the libyaml
node reader gives, data and lines, and leaves every file outside its subset, errors included, to
the libyaml readers."""

from __future__ import annotations

import subprocess

import pytest
import yaml
from conftest import REPO_ROOT, examples
from hypothesis import given, settings
from hypothesis import strategies as st
from masrl.model import yamlio


def _lines(data):
    """Every line the reader remembers, and each value's type, alongside the data."""
    if isinstance(data, yamlio.LineDict):
        return ("map", data.line, data.key_lines, [_lines(v) for v in data.values()])
    if isinstance(data, yamlio.LineList):
        return ("list", data.line, data.item_lines, [_lines(v) for v in data])
    return (type(data).__name__, data)


def _outcome(text: str):
    try:
        data = yamlio.loads(text)
    except yamlio.YamlError as exc:
        return ("error", exc.message, exc.line, exc.hint)
    return ("data", data, list(data) if isinstance(data, dict) else None, _lines(data))


def _by_libyaml(text: str, monkeypatch):
    with monkeypatch.context() as patch:
        patch.setattr(yamlio, "QUICK", False)
        return _outcome(text)


QUICK = {
    "a record": (
        "# yaml-language-server: $schema=x.json\nkey: a-b\ntitle: 'Quoted: text'\nyear: 2026\n"
        "authors:\n- Surname, Given\n- '198'\nis_rl: 'yes'\nverified: true\nnotes: null\n"
        "empty: ''\nnothing:\nflag: false\nratio: 1.5\nexp: 1e3\nneg: -3\ntilde: ~\n"
        "tags: []\nmap: {}\nids:\n  arxiv: '2508.04652'\n  doi: null\n"
    ),
    "folded plain text": (
        "summary: An evaluation of teams showing they fall short; conversation\n"
        "  analysis traces this to 'compromise' that averages views, which grows\n\n"
        "  with (team) size.   \n"
        "    deeper still\n\n\n  after two blank lines\nnext: x\n"
    ),
    "folded quoted text": (
        "why: 'kappa below 0.7: the fields'' definitions were sharpened,  \n"
        "    # not a comment\n\n  then read ''again'''\n"
        "other: '  kept blanks  '\n"
    ),
    "lists of mappings": (
        "readings:\n- record: x\n  screener: reader A\n  tags:\n    reward_types: []\n"
        "    sub_decisions:\n    - O4\n    - O5\n  date: '2026-11-25'\n"
        "-   record: y\n    pass: 2\n    fields:\n      - a\n      - b\n"
        "  # a comment between items\n\n- plain item\n- 'quoted item'\n- 7\n- []\n"
    ),
    "quoted keys": "'2310.00322':\n  title: x\n'it''s': 1\n'a: b':\n- 'c': d\n",
    "a list document": "- a\n- b: c\n  d:\n  - e\n",
    "double quotes without escapes": 'label: "Category"\ndescription: "a: b #c"\n',
    "text that looks like a number": "a: 0x1F\nb: 2_026\nc: .inf\nd: 1:30\ne: 2026-11-25\nf: yes\n",
    "keys with digits and dots": "O4: x\n2026-11: y\na.b-c_d: z\n",
    "keys of any text": "https://x.org/a:b:\n- c\na key: 1\n-x: 2\n(y)[z]: 3\n",
    "trailing blanks": "a:   \n  b: 1   \nc: [] \n",
}

LEFT_TO_LIBYAML = {
    "a flow list": "a: [b, c]\n",
    "a flow mapping": "a: {b: c}\n",
    "a block scalar": "a: |\n  text\n",
    "a folded block scalar": "a: >-\n  text\n",
    "a comment after a value": "a: b # c\n",
    "a comment after a quote": "a: 'b' # c\n",
    "a tab": "a:\n\tb: 1\n",
    "carriage returns": "a: 1\r\nb: 2\r\n",
    "a byte order mark": "\ufeffa: 1\n",
    "an anchor": "a: &x 1\nb: 2\n",
    "an alias": "a: &x 1\nb: *x\n",
    "a tag": "a: !!str 1\n",
    "a repeated key": "a: 1\nb: 2\na: 3\n",
    "a number key": "1: x\n",
    "a boolean key": "true: x\n",
    "a null key": "~: x\n",
    "a merge key": "x:\n  <<: {a: 1}\n",
    "a value key": "=: 1\n",
    "a value scalar": "a: =\n",
    "a document start": "---\na: 1\n",
    "a directive": "%YAML 1.1\n---\na: 1\n",
    "a document end": "a: 1\n...\n",
    "two documents": "a: 1\n---\nb: 2\n",
    "escapes": 'a: "b\\tc"\n',
    "a long number": "x: " + "9" * 60 + "\n",
    "a key too long for libyaml": "a" * 1030 + ": 1\n",
    "a quoted key too long for libyaml": "'" + "a" * 1030 + "': 1\n",
    "a key with a comment": "a #b: 1\n",
    "a key with blanks after it": "a : 1\n",
    "an item below its dash": "-\n  a: 1\n",
    "nested dashes": "- - a\n",
    "a deeper line": "a: 1\n  b: 2\n",
    "a shallower line": "a:\n    b: 1\n  c: 2\n",
    "an indented document": "  a: 1\n",
    "a colon in folded text": "a: b\n  c: d\n",
    "a dash in folded text": "a: b\n  - c\n",
    "a comment in folded text": "a: b\n  # c\n  d\n",
    "an unclosed quote": "a: 'b\n",
    "a quote closed early": "a: 'b' c\n",
    "a quote continued too shallow": "a:\n  b: 'c\n  d'\n",
    "a scalar document": "just text\n",
    "empty": "",
    "comments only": "# nothing\n",
    "a syntax error": "a: b: c\n",
    "a list where a key belongs": "a: 1\n- b\n",
    "a text where a list belongs": "a:\n- b\nc\n",
}


@pytest.mark.parametrize("name", QUICK)
def test_the_quick_reader_gives_what_libyaml_gives(name, monkeypatch):
    text = QUICK[name]
    assert yamlio._quick(text) is not yamlio._UNREAD
    assert _outcome(text) == _by_libyaml(text, monkeypatch)


@pytest.mark.parametrize("name", LEFT_TO_LIBYAML)
def test_the_rest_is_left_to_libyaml(name, monkeypatch):
    text = LEFT_TO_LIBYAML[name]
    assert yamlio._quick(text) is yamlio._UNREAD
    assert _outcome(text) == _by_libyaml(text, monkeypatch)


def test_every_data_file_of_the_project_reads_the_same(monkeypatch):
    listed = subprocess.run(
        ["git", "ls-files", "-z", "*.yaml"],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split("\0")
    quick = 0
    for name in filter(None, listed):
        text = (REPO_ROOT / name).read_text(encoding="utf-8")
        quick += yamlio._quick(text) is not yamlio._UNREAD
        assert _outcome(text) == _by_libyaml(text, monkeypatch), name
    assert quick > len(listed) * 0.9  # the records and screening files are all read quickly


# Mostly plain words, as records hold, and now and then text YAML would read otherwise.
_plain_words = st.lists(
    st.sampled_from(
        ["plain", "text", "of", "words", "(in)", "a,", "b.", "c;", "O4", "http://x.org"]
    ),
    min_size=1,
    max_size=12,
).map(" ".join)
_tricky = st.sampled_from(
    ["yes", "no", "1", "-2", "1.5", "1e3", "null", "~", "", "x: y", "a #b", "it's", "'q'", '"d"',
     "- a", "2026-11-25", "é", "\u00a0", "#", ":", "[]", "a\n\nb"]
)  # fmt: skip
_scalar = (
    _plain_words | _plain_words | _tricky | st.integers(-5, 3000) | st.sampled_from([True, None])
)
_values = (
    _scalar | st.lists(_scalar, max_size=4) | st.dictionaries(_plain_words, _scalar, max_size=3)
)
_values = _values | st.lists(
    st.dictionaries(st.sampled_from(["record", "tags"]), _values), max_size=3
)
# Lines put in, or text put at a line's end.
_edits = st.lists(
    st.tuples(
        st.integers(0, 10_000),
        st.sampled_from(["", "# c", "  # c", "    x", " ", "  - y", "z: 1", "  '", "\t"]),
        st.booleans(),
    )
    | st.tuples(
        st.integers(0, 10_000),
        st.sampled_from([" # c", " #", ":", " x: y", "'", "  ", " - z", "\t"]),
        st.just(False),
    ),
    max_size=4,
)


@settings(max_examples=examples(150, deep=1000), deadline=None, derandomize=True)
@given(
    data=st.dictionaries(st.sampled_from(["key", "title", "tags", "x"]), _values, min_size=1),
    width=st.sampled_from([20, 40, 100]),
    indent=st.sampled_from([2, 4]),
    masrl_style=st.booleans(),
    edits=_edits,
)
def test_written_and_edited_files_read_the_same(data, width, indent, masrl_style, edits):
    """Files as masrl or PyYAML writes them, with lines put in (comments, blank lines, stray
    text): whatever the quick reader reads, it reads as the node reader does."""
    text = (
        yamlio.dumps(data)
        if masrl_style
        else yaml.safe_dump(data, allow_unicode=True, width=width, indent=indent)
    )
    lines = text.split("\n")
    for position, text, insert in edits:
        if insert:
            lines.insert(position % len(lines), text)
        else:
            lines[position % len(lines)] += text
    text = "\n".join(lines)
    quick = _outcome(text)
    yamlio.QUICK = False
    try:
        assert quick == _outcome(text), text
    finally:
        yamlio.QUICK = True

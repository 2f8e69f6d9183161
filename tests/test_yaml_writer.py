"""The fast YAML writer gives exactly the bytes of PyYAML's own emitter, and reads back the same;
a text read again is served from memory, as a copy the caller owns."""

from __future__ import annotations

from conftest import examples
from hypothesis import given, settings
from hypothesis import strategies as st
from masrl.model import yamlio

_tricky = st.sampled_from(
    [
        "yes",
        "no",
        "null",
        "~",
        "1e3",
        "0x7EA",
        "2_026",
        "12:30",
        "2026-01-01",
        ".inf",
        "-",
        "- x",
        "a: b",
        "a #b",
        "#c",
        "'q'",
        '"d"',
        "x" * 95,
        "x " * 50,
        "@at",
        "=f",
        "  pad",
        "pad  ",
        "TODO",
        "",
        "Ünïcode",
        "https://example.org/a:b",
        "a:",
        "1:2",
        "x" * 97,
        "y " * 49 + "z",
        "a\nb",
        "tab\there",
        "[x]",
        "{y}",
        "*star",
        "&amp",
        "!bang",
        "%p",
        "`b",
    ]
)
# PyYAML itself does not read back NEL and the Unicode line separators it writes (validate refuses them).
_text = st.text(
    st.characters(codec="utf-8", exclude_characters="\x85\u2028\u2029", exclude_categories=["Cs"]),
    max_size=60,
)
_scalars = st.none() | st.booleans() | st.integers(-(10**6), 10**6) | _tricky | _text
_keys = st.sampled_from(
    ["key", "title", "authors", "year", "urls", "identifiers", "notes", "weird key", "2025", "yes"]
)
_values = _scalars | st.lists(_scalars, max_size=4) | st.dictionaries(_keys, _scalars, max_size=3)


@settings(max_examples=examples(100, deep=300), deadline=None)
@given(st.dictionaries(_keys, _values, min_size=1, max_size=8))
def test_fast_writer_matches_the_emitter_byte_for_byte(data):
    fast = yamlio.dumps(data, header="# header")
    assert fast == yamlio.dumps(data, header="# header", fast=False)
    assert yamlio.loads(fast) == data


def test_a_text_read_again_is_an_independent_copy_with_its_lines():
    text = "key: a\ntags:\n  - x\n  - y\nnested:\n  inner: [1, 2]\nset: !!set {p: null}\n"
    first = yamlio.loads(text)
    first["tags"].append("changed")
    first["nested"]["inner"][0] = 99
    first["set"].add("q")
    again = yamlio.loads(text)
    assert again == {"key": "a", "tags": ["x", "y"], "nested": {"inner": [1, 2]}, "set": {"p"}}
    assert (
        again.line_of("nested") == 5
        and again["tags"].line_of(1) == 4
        and again["nested"].line_of("inner") == 6
    )
    assert (
        again["tags"] is not first["tags"]
        and again["nested"]["inner"] is not first["nested"]["inner"]
    )

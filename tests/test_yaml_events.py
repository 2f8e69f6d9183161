"""Long YAML files (a screening round's tags or decisions) are built from the parser's events, not
from the C composer's nodes, which would all be held at once: the data, its lines and every error
are what the node reader gives."""

from __future__ import annotations

import pytest
from conftest import REPO_ROOT
from masrl.model import yamlio

SAMPLES = {
    "plain": "a: 1\nb: [x, 'y', \"z\"]\nc:\n  - d: true\n    e: ~\n  - 2.5\n  -\n",
    "keys of other types": "1: x\n~: y\ntrue: z\n1.5: w\n",
    "nested lists": "- - a\n  - b\n- c: d\n  e: {f: [g, {h: i}]}\n",
    "text kinds": "a: |\n  line\n  more\nb: >-\n  folded\n  text\nc: ''\nd:\n",
    "a scalar document": "just text\n",
    "an explicit document": "%YAML 1.1\n---\na: 1\n...\n",
    "empty": "",
    "comments only": "# nothing\n",
    "an empty document": "---\n",
    "an anchor never used": "a: &x 1\nb: 2\n",
    "an alias": "a: &x 1\nb: *x\n",
    "an undefined alias": "a: *x\n",
    "a self-alias": "- &a [*a]\n",
    "a repeated key": "a: 1\nb: 2\na: 3\n",
    "a repeated key in flow": "{a: 1, a: 2}\n",
    "a merge key": "x:\n  <<: {a: 1}\n  c: 2\n",
    "a value key": "=: 1\n",
    "a key that is a list": "[a, b]: c\n",
    "a complex key": "? [a]\n: b\n",
    "two documents": "--- a\n--- b\n",
    "a tag": "a: !!str 1\n",
    "a set": "!!set {a, b}\n",
    "binary": "a: !!binary aGk=\n",
    "a python tag": "a: !!python/object:os.system ls\n",
    "a local tag": "a: !foo b\n",
    "a non-specific tag": "a: ! 1\n",
    "a long number": "x: " + "9" * 60 + "\n",
    "a syntax error": "a: [1, 2\nb: 3\n",
    "a tab": "a:\n\tb: 1\n",
    "deep": "a: " + "[" * 120 + "]" * 120 + "\n",
    "a duplicate after a syntax error": "a: 1\na: 2\nb: [\n",
}


def _lines(data):
    """Every line the reader remembers, alongside the data."""
    if isinstance(data, yamlio.LineDict):
        return (data.line, data.key_lines, [_lines(v) for v in data.values()])
    if isinstance(data, yamlio.LineList):
        return (data.line, data.item_lines, [_lines(v) for v in data])
    return type(data).__name__


def _outcome(text: str):
    try:
        data = yamlio.loads(text)
    except yamlio.YamlError as exc:
        return ("error", exc.message, exc.line, exc.hint)
    return ("data", data, list(data) if isinstance(data, dict) else None, _lines(data))


def _both_ways(text: str, monkeypatch) -> tuple:
    monkeypatch.setattr(yamlio, "STREAM_FROM", 1 << 60)
    by_nodes = _outcome(text)
    monkeypatch.setattr(yamlio, "STREAM_FROM", 0)
    return by_nodes, _outcome(text)


# Built from events; every other sample goes back to the node reader.
PLAIN = (
    "plain",
    "keys of other types",
    "nested lists",
    "text kinds",
    "a scalar document",
    "an explicit document",
    "empty",
    "comments only",
    "an empty document",
    "deep",  # built, then refused by the depth check, as the nodes' data is
)


@pytest.mark.parametrize("name", SAMPLES)
def test_events_give_what_nodes_give(name, monkeypatch):
    by_nodes, by_events = _both_ways(SAMPLES[name], monkeypatch)
    assert by_events == by_nodes
    assert (yamlio._streamed(SAMPLES[name])[0] is not yamlio._UNREAD) == (name in PLAIN)


def test_the_project_files_read_the_same_both_ways(monkeypatch):
    paths = [
        *sorted((REPO_ROOT / "screening").rglob("*.yaml")),
        *sorted((REPO_ROOT / "taxonomy").glob("*.yaml")),
        *sorted((REPO_ROOT / "corpus").glob("*.yaml"))[:20],
        REPO_ROOT / "claims" / "ledger.yaml",
    ]
    for path in paths:
        by_nodes, by_events = _both_ways(path.read_text(encoding="utf-8"), monkeypatch)
        assert by_events == by_nodes, path


def test_a_long_plain_file_is_never_composed_into_nodes(monkeypatch):
    text = "readings:\n" + "- record: r\n  tags: {a: [b, c]}\n" * 5000
    assert len(text) >= yamlio.STREAM_FROM
    monkeypatch.setattr(
        yamlio._StrictLoader, "get_single_data", lambda self: pytest.fail("composed")
    )
    data = yamlio.loads(text)
    assert len(data["readings"]) == 5000 and data["readings"].line_of(4999) == 5000 * 2

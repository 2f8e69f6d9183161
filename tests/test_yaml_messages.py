"""YAML errors name the problem: a merge key by name, a NUL at its real line and column, a tab
used for indentation as a tab (issue 34, point 7)."""

from __future__ import annotations

import pytest
from click.testing import CliRunner
from conftest import entry_data, write_entry
from masrl.cli import main
from masrl.model import yamlio

CASES = {
    "merge key": (
        "x:\n  <<: {a: 1}\n  c: 2\n",
        2,
        "merge keys (<<) are not allowed (column 3)",
    ),
    "NUL": ("a: 1\n" * 16 + "b: x\x00y\n", 17, "NUL (U+0000) at column 5 is not allowed in YAML"),
    "quoted NUL": ('a: 1\nb: "x\x00y"\n', 2, "NUL (U+0000) at column 6"),
    "other control": ("a: 1\nb: x\x07\n", 2, "control character U+0007 at column 5"),
    "tab indenting a key": ("a:\n\tb: 1\n", 2, "a tab is used for indentation (column 1)"),
    "tab after spaces": ("a:\n  b: 1\n  \tc: 2\n", 3, "a tab is used for indentation (column 3)"),
    "tab indenting an item": ("a:\n  - 1\n\t- 2\n", 3, "a tab is used for indentation (column 1)"),
}


@pytest.mark.parametrize("name", CASES)
def test_yaml_errors_name_the_problem_at_its_line(name):
    text, line, message = CASES[name]
    with pytest.raises(yamlio.YamlError) as caught:
        yamlio.loads(text)
    assert caught.value.line == line and message in caught.value.message, caught.value.message


@pytest.mark.parametrize("stream_from", [0, 1 << 60], ids=["events", "nodes"])
@pytest.mark.parametrize(
    "text, line",
    [
        ("a: 1\nb: " + "[" * 150 + "]" * 150 + "\n", 2),
        ("a: 1\n" + "".join(" " * i + f"k{i}:\n" for i in range(120)) + " " * 120 + "v: 1\n", 102),
        (
            "a: 'hi!'\nb: " + "{c: " * 101 + "1" + "}" * 101 + "\n",
            2,
        ),  # a '!': measured, not counted
    ],
    ids=["flow", "block", "with a tag character"],
)
def test_nesting_deeper_than_the_limit_is_refused_at_its_line(text, line, stream_from, monkeypatch):
    """Deep enough to refuse, and shallow enough for libyaml and Python's stack: the reader's own
    count (or measure) of the depth finds it."""
    monkeypatch.setattr(yamlio, "STREAM_FROM", stream_from)
    with pytest.raises(yamlio.YamlError) as caught:
        yamlio.loads(text)
    assert caught.value.line == line
    assert caught.value.message == f"the data nests deeper than {yamlio.MAX_DEPTH} levels"


def test_tabs_inside_text_and_before_comments_are_fine():
    assert yamlio.loads("notes: |\n  x\n  \tindented\n") == {"notes": "x\n\tindented\n"}
    assert yamlio.loads("a: 1\t# comment\n") == {"a": 1}


@pytest.mark.parametrize("name", ["merge key", "NUL", "tab indenting a key"])
def test_validate_names_file_line_and_problem(mini_project, name):
    text, line, message = CASES[name]
    path = write_entry(mini_project.root, entry_data("bad2025"))
    original = path.read_text(encoding="utf-8")
    lines = original.count("\n")
    path.write_text(original + text.replace("a:", "zz:").replace("x:", "zy:"), encoding="utf-8")
    result = CliRunner().invoke(main, ["validate", "--root", str(mini_project.root)])
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert f"corpus/bad2025.yaml:{lines + line}:" in result.output, result.output
    assert message in result.output

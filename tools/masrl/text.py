"""Characters no text field may hold, and escaping for text shown on a terminal.

Control characters (ESC sequences recolour or rewrite a terminal line), and the bidirectional
overrides and isolates (U+202A-U+202E, U+2066-U+2069, the "Trojan Source" characters that make
text read differently from how it is stored) are refused in every text field by ``validate``.
Line breaks are allowed only in fields that may span lines (notes); tabs nowhere.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterator
from typing import Any

BIDI_CONTROLS = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
# C0 controls except line feed, DEL, C1 controls, bidi embeddings/overrides/isolates.
# U+2028/U+2029 are line breaks to YAML and JavaScript: a one-line field must not hide one.
LINE_SEPARATORS = "\u2028\u2029"
_FORBIDDEN = re.compile(f"[\\x00-\\x09\\x0b-\\x1f\\x7f-\\x9f{BIDI_CONTROLS}{LINE_SEPARATORS}]")
_FORBIDDEN_WITH_NEWLINE = re.compile(f"[\\x00-\\x1f\\x7f-\\x9f{BIDI_CONTROLS}{LINE_SEPARATORS}]")

# Fields whose text may span several lines.
MULTILINE_FIELDS = frozenset({"notes"})


def describe(char: str) -> str:
    name = {
        "\x1b": "ESC",
        "\t": "tab",
        "\r": "carriage return",
        "\n": "line break",
        "\x00": "NUL",
    }.get(char)
    code = f"U+{ord(char):04X}"
    if name:
        return f"{name} ({code})"
    return (
        f"the bidirectional control {code}"
        if char in BIDI_CONTROLS
        else f"the control character {code}"
    )


def forbidden_characters(data: Any, path: tuple = ()) -> Iterator[tuple[tuple, str]]:
    """(key path, message) for every string in ``data`` holding a forbidden character."""
    if isinstance(data, str):
        yield from _forbidden_in_text(data, path)
        return
    if isinstance(data, dict):
        items = data.items()
    elif isinstance(data, list):
        items = enumerate(data)
    else:
        return
    # The texts of a mapping or list are searched here, without a generator each (validate runs
    # this over every field of every record); the message is made only for a text that fails.
    for key, value in items:
        if isinstance(value, str):
            if _pattern_for(path[0] if path else key).search(value):
                yield from _forbidden_in_text(value, (*path, key))
        elif isinstance(value, dict | list):
            yield from forbidden_characters(value, (*path, key))


def _pattern_for(field) -> re.Pattern:
    """What a text of the field may not hold: line breaks are allowed in MULTILINE_FIELDS only."""
    return _FORBIDDEN if field in MULTILINE_FIELDS else _FORBIDDEN_WITH_NEWLINE


def _forbidden_in_text(text: str, path: tuple) -> Iterator[tuple[tuple, str]]:
    found = _pattern_for(path[0] if path else None).search(text)
    if found:
        where = ".".join(str(p) for p in path) or "value"
        yield (
            path,
            f"'{where}' contains {describe(found.group())} at position {found.start() + 1}",
        )


def strip_controls(text: str) -> str:
    """``text`` without control or bidi characters (for one-line text from outside, e.g. arXiv)."""
    return _FORBIDDEN_WITH_NEWLINE.sub("", text)


def terminal_safe(text: str) -> str:
    """``text`` with every control or bidi character (line breaks kept) shown as an escape."""
    return _FORBIDDEN.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), text)


def closest(
    value: str, choices: list[str] | tuple[str, ...], labels: dict[str, str] | None = None
) -> str | None:
    """The choice ``value`` most likely meant (case-insensitive, '-' and ' ' read as '_', a
    choice's label too), or None when none is close."""
    choices = list(choices)
    folded = str(value).casefold().replace("-", "_").replace(" ", "_")
    for choice in choices:
        label = (labels or {}).get(choice, "")
        if folded in (choice.casefold(), label.casefold().replace("-", "_").replace(" ", "_")):
            return choice
    close = difflib.get_close_matches(folded, [c.casefold() for c in choices], n=1, cutoff=0.6)
    return next(c for c in choices if c.casefold() == close[0]) if close else None


def did_you_mean(
    value: str, choices: list[str] | tuple[str, ...], labels: dict[str, str] | None = None
) -> str:
    """' Did you mean 'x'?' for the closest choice, to end a message, or ''."""
    match = closest(value, choices, labels)
    return f" Did you mean '{match}'?" if match is not None else ""


def mistyped_hint(value: str, choices) -> str:
    """ "did you mean 'x'?" for the closest choice, as a hint of its own, or ''."""
    match = closest(value, sorted(choices))
    return f"did you mean '{match}'?" if match is not None else ""

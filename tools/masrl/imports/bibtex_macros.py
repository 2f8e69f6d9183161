"""BibTeX values as BibTeX reads them: `@string` macros (and the standard month macros) resolved,
`#` concatenations joined, and fields lost to a stray closing brace found.

bibtexparser splits a file into blocks but leaves `"Teams of " # conf` as that literal text; its own
string middleware replaces only a value that is a bare macro name. `ResolveMacros` takes its place.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from bibtexparser.library import Library
from bibtexparser.middlewares.middleware import LibraryMiddleware
from bibtexparser.model import Entry, ImplicitComment

from masrl.text import did_you_mean

# What the standard styles (plain.bst and its kin) define before reading a .bib file.
MONTH_MACROS = {
    "jan": "January",
    "feb": "February",
    "mar": "March",
    "apr": "April",
    "may": "May",
    "jun": "June",
    "jul": "July",
    "aug": "August",
    "sep": "September",
    "oct": "October",
    "nov": "November",
    "dec": "December",
}

# A macro name: BibTeX allows any printing character but these, and no leading digit.
_NAME = re.compile(r"[^\s\"#%'(),={}0-9][^\s\"#%'(),={}]*")
_NUMBER = re.compile(r"[0-9]+")
_FIELD_START = re.compile(r"(?:^|[,\n])\s*([A-Za-z][\w:.+-]*)\s*=")


class _Unreadable(ValueError):
    """A value that is not a `#`-joined list of quoted, braced, numeric and macro parts."""


@dataclass
class MacroProblem:
    line: int  # 1-based
    message: str


@dataclass(frozen=True)
class _Part:
    kind: str  # text | macro
    value: str


def split_value(raw: str) -> list[_Part]:
    """`"Teams of " # conf # {, RL}` -> text 'Teams of ', macro 'conf', text ', RL'."""
    parts: list[_Part] = []
    index, end = 0, len(raw)
    while True:
        while index < end and raw[index].isspace():
            index += 1
        if index >= end:
            raise _Unreadable(raw)
        char = raw[index]
        if char == "{":
            close = _closing_brace(raw, index)
            parts.append(_Part("text", raw[index + 1 : close]))
            index = close + 1
        elif char == '"':
            close = _closing_quote(raw, index)
            parts.append(_Part("text", raw[index + 1 : close]))
            index = close + 1
        else:
            match = _NUMBER.match(raw, index) or _NAME.match(raw, index)
            if not match:
                raise _Unreadable(raw)
            kind = "text" if match.re is _NUMBER else "macro"
            parts.append(_Part(kind, match.group()))
            index = match.end()
        while index < end and raw[index].isspace():
            index += 1
        if index >= end:
            return parts
        if raw[index] != "#":
            raise _Unreadable(raw)
        index += 1


def _closing_brace(raw: str, start: int) -> int:
    depth = 0
    for index in range(start, len(raw)):
        char = raw[index]
        if char == "\\":
            continue
        if char == "{" and raw[index - 1] != "\\":
            depth += 1
        elif char == "}" and raw[index - 1] != "\\":
            depth -= 1
            if depth == 0:
                return index
    raise _Unreadable(raw)


def _closing_quote(raw: str, start: int) -> int:
    depth = 0
    for index in range(start + 1, len(raw)):
        char = raw[index]
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
        elif char == '"' and depth == 0:
            return index
    raise _Unreadable(raw)


def _is_single_value(raw: str) -> bool:
    """A value bibtexparser already reads right: one braced or quoted text, or a number."""
    if "#" not in raw:  # one part, or unreadable: only a bare macro name needs resolving
        return not _NAME.fullmatch(raw.strip())
    try:
        parts = split_value(raw)
    except _Unreadable:
        return True  # not ours to judge: left to bibtexparser as before
    return len(parts) == 1 and (parts[0].kind == "text")


class ResolveMacros(LibraryMiddleware):
    """Replaces every macro and concatenation by its text, braced; problems are collected, not raised."""

    def __init__(self):
        super().__init__(allow_inplace_modification=True)
        self.problems: list[MacroProblem] = []

    @classmethod
    def metadata_key(cls) -> str:
        return "masrl-resolve-macros"

    def transform(self, library: Library) -> Library:
        definitions = {name.lower(): block for name, block in library.strings_dict.items()}
        resolved: dict[str, str | None] = {}

        def expand(name: str, chain: tuple[str, ...], line: int, where: str) -> str | None:
            key = name.lower()
            if key in chain:
                cycle = " -> ".join((*chain[chain.index(key) :], key))
                self.problems.append(
                    MacroProblem(
                        definitions[key].start_line + 1,
                        f"the @string macros refer to each other in a cycle ({cycle}); "
                        "give one of them plain text",
                    )
                )
                resolved[key] = None
                return None
            if key in resolved:
                return resolved[key]
            if key not in definitions:
                if key in MONTH_MACROS:
                    return MONTH_MACROS[key]
                known = sorted({*definitions, *MONTH_MACROS})
                self.problems.append(
                    MacroProblem(
                        line,
                        f"{where} uses the macro '{name}', which no @string defines; define "
                        f'it with @string{{{name} = "..."}} or write the text in braces, '
                        f"{{{name}}}.{did_you_mean(key, known)}",
                    )
                )
                return None
            block = definitions[key]
            text = self._join(
                block.value,
                lambda inner: expand(
                    inner, (*chain, key), block.start_line + 1, f"@string '{block.key}'"
                ),
            )
            resolved[key] = text
            return text

        for name in definitions:
            expand(name, (), 0, "")
        for entry in library.entries:
            for item in entry.fields:
                if not isinstance(item.value, str) or _is_single_value(item.value):
                    continue
                line = (item.start_line if item.start_line is not None else entry.start_line) + 1
                where = f"field '{item.key}' of entry '{entry.key}'"
                text = self._join(
                    item.value, lambda name, line=line, where=where: expand(name, (), line, where)
                )
                if text is not None:
                    item.value = "{" + text + "}"
        return library

    @staticmethod
    def _join(raw: str, expand) -> str | None:
        try:
            parts = split_value(raw)
        except _Unreadable:
            return raw.strip().strip('"{}')
        texts = [part.value if part.kind == "text" else expand(part.value) for part in parts]
        return None if any(t is None for t in texts) else "".join(texts)


def fields_lost_to_stray_braces(library: Library) -> list[MacroProblem]:
    """Entries that a stray '}' closed early: the text after it holds fields no entry reads."""
    found = []
    blocks = library.blocks
    for before, block in zip(blocks, blocks[1:], strict=False):
        if not isinstance(before, Entry) or not isinstance(block, ImplicitComment):
            continue
        names = list(dict.fromkeys(m[1].lower() for m in _FIELD_START.finditer(block.comment)))
        if names:
            found.append(
                MacroProblem(
                    (block.start_line or 0) + 1,
                    f"entry '{before.key}' is closed early by a stray '}}' on this line; "
                    f"the field(s) {', '.join(names)} after it were not read. Remove the extra "
                    "'}' (or write it as \\}) and import again",
                )
            )
    return found

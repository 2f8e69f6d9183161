"""A .bib file split into blocks by regular expressions, for files as BibTeX tools write them.

bibtexparser's `Splitter` walks the file one delimiter at a time in Python, which makes it most
of the cost of importing a large file. `split_blocks` first tries `split_plain`: each entry,
`@string` and `@comment` matched whole by regular expressions that follow the splitter's rules
(a delimiter preceded by a backslash is no delimiter; a quoted value ends at the next quote, braces
or not; a braced value at its matching brace; `=` and `@` inside a value are text). On anything
outside those rules (a `(`-delimited block, braces nested deeper than the patterns reach, a `@`
opening a line inside a block, a `{"}`, a backslash before a line break, a block that does not
close) it returns None and the file goes to bibtexparser's splitter, so every error, warning and
recovery is bibtexparser's own. Where it answers, its blocks equal the splitter's, line numbers,
raw text and implicit comments included (tests/test_bibtex_split.py compares the two).
"""

from __future__ import annotations

import re

from bibtexparser.library import Library
from bibtexparser.model import Block, Entry, ExplicitComment, Field, ImplicitComment, Preamble
from bibtexparser.model import String as StringBlock
from bibtexparser.splitter import _BLOCK_START, Splitter

_BLOCK = re.compile(_BLOCK_START)

# A backslash makes the next character no delimiter; a run of them, the character after the run.
_ESCAPED = r"\\+[^\n]"


def _braced(depth: int) -> str:
    """A `{...}` group with groups nested inside it down to `depth` levels; quotes are text."""
    inner = "" if depth <= 1 else "|" + _braced(depth - 1)
    return r"\{(?:[^{}\\]++|" + _ESCAPED + inner + r")*+\}"


_BRACED = _braced(8)
_QUOTED = r'"(?:[^"\\]++|' + _ESCAPED + r')*+"'
# A field value up to the `,` or `}` that ends it: text, braced groups and quoted strings.
_VALUE = re.compile(r'(?:[^{}",\\]++|' + _ESCAPED + "|" + _BRACED + "|" + _QUOTED + r")*+(?=[,}])")
# A `@string`, `@comment` or `@preamble` body up to its closing `}` (quotes are text there).
_BODY = re.compile(r"(?:[^{}\\]++|" + _ESCAPED + "|" + _BRACED + r")*+(?=\})")
# The entry key, or a field name: anything but a delimiter (no backslash or `@`, to stay plain).
_KEY_THEN_COMMA = re.compile(r'[^{}",=\\@]*+,')
_NAME_THEN_MARK = re.compile(r'[^{}",=\\@]*+[=}]')
_STRING_NAME = re.compile(r'[^{}",=\\@]*+=')


def split_blocks(text: str) -> Library:
    """The blocks of a BibTeX text, exactly as bibtexparser's splitter gives them."""
    library = split_plain(text)
    return library if library is not None else Splitter(text).split()


def split_plain(text: str) -> Library | None:
    """The splitter's blocks for a file within the rules above, or None to leave it to the splitter."""
    bibstr = f"\n{text}"  # as the splitter does: a block starts only after a line break
    if "\\\n" in bibstr or '{"}' in bibstr:
        return None  # an escaped line break is not counted as a line; {"} is a quote in quotes
    blocks: list[Block] = []
    lines = _LineCounter(bibstr)
    comment_start, comment_line = 0, -1
    while True:
        start = _BLOCK.search(bibstr, comment_start)
        end_of_comment = start.start() if start else len(bibstr)
        comment = _implicit_comment(bibstr, comment_start, end_of_comment, comment_line)
        if comment is not None:
            blocks.append(comment)
        if start is None:
            break
        opening = start.end()
        if bibstr[opening] != "{":
            return None  # a (-delimited block
        kind = start.group().lower()
        line = lines.at(start.start())
        if kind.startswith(("@comment", "@preamble", "@string")):
            block, close = _body_block(bibstr, start, kind, line, lines)
        else:
            block, close = _entry(bibstr, start, kind, line, lines)
        if block is None or _opens_a_line(bibstr, opening, close):
            return None
        blocks.append(block)
        comment_start, comment_line = close + 1, lines.at(close)
    library = Library()
    library.add(blocks, fail_on_duplicate_key=False)
    return library


class _LineCounter:
    """The splitter's line number at an index (it counts each line break it passes; the file
    starts with the one it added, hence -1), for indexes asked in increasing order."""

    def __init__(self, bibstr: str):
        self.bibstr, self.index, self.line = bibstr, 0, -1

    def at(self, index: int) -> int:
        self.line += self.bibstr.count("\n", self.index, index)
        self.index = index
        return self.line


def _implicit_comment(bibstr: str, start: int, end: int, line: int) -> ImplicitComment | None:
    """The text between two blocks, as the splitter's `_end_implicit_comment` keeps it."""
    comment = bibstr[start:end]
    stripped = comment.lstrip()
    if not stripped:
        return None
    leading = comment[: len(comment) - len(stripped)]
    comment = stripped.rstrip()
    return ImplicitComment(start_line=line + leading.count("\n"), raw=comment, comment=comment)


def _entry(bibstr, start, kind, line, lines) -> tuple[Entry | None, int]:
    key_end = _KEY_THEN_COMMA.match(bibstr, start.end() + 1)
    if key_end is None:
        return None, 0  # no comma after the key (an entry without fields, or a stray mark)
    key = bibstr[start.end() + 1 : key_end.end() - 1].strip()
    fields: list[Field] = []
    names: set[str] = set()
    position = key_end.end()
    while True:
        name = _NAME_THEN_MARK.match(bibstr, position)
        if name is None:
            return None, 0
        mark = name.end() - 1
        field_name = bibstr[position:mark].strip()
        if bibstr[mark] == "}":
            if field_name:
                return None, 0  # a name without `=`: the splitter's error
            break
        value = _VALUE.match(bibstr, mark + 1)
        if value is None or field_name in names:
            return None, 0  # unclosed, nested too deep, or a repeated field
        names.add(field_name)
        fields.append(Field(start_line=lines.at(mark), key=field_name, value=value.group().strip()))
        position = value.end() + 1
        if bibstr[value.end()] == "}":
            position -= 1
    close = mark
    entry = Entry(
        start_line=line,
        entry_type=kind[1:].strip(),
        key=key,
        fields=fields,
        raw=bibstr[start.start() : close + 1],
    )
    return entry, close


def _body_block(bibstr, start, kind, line, lines) -> tuple[Block | None, int]:
    if kind.startswith("@string"):
        name = _STRING_NAME.match(bibstr, start.end() + 1)
        if name is None:
            return None, 0
        body_start = name.end()
    else:
        body_start = start.end() + 1
    body = _BODY.match(bibstr, body_start)
    if body is None:
        return None, 0
    close = body.end()
    raw = bibstr[start.start() : close + 1]
    if kind.startswith("@comment"):
        text = bibstr[body_start:close].strip()
        return ExplicitComment(start_line=line, comment=text, raw=raw), close
    if kind.startswith("@preamble"):
        return Preamble(start_line=line, value=bibstr[body_start:close], raw=raw), close
    key = bibstr[start.end() + 1 : body_start - 1].strip()
    value = bibstr[body_start:close].strip()
    return StringBlock(start_line=line, key=key, value=value, raw=raw), close


def _opens_a_line(bibstr: str, opening: int, close: int) -> bool:
    """Whether a block start (`@name{`) opens a line inside the block: the splitter ends the
    block there, unclosed, and starts a new one."""
    if bibstr.find("@", opening, close) < 0:
        return False
    for found in _BLOCK.finditer(bibstr, opening, close):
        before = bibstr[bibstr.rfind("\n", 0, found.start()) + 1 : found.start()]
        if not before or before.isspace():
            return True
    return False

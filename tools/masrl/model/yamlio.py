"""Safe YAML reading with line numbers, and deterministic YAML writing.

Data files are read with a hardened loader:
- only plain YAML types (safe loading; a ``!!python/...`` tag is an error, never executed);
- anchors and aliases are refused, so an alias bomb ("billion laughs") is never expanded;
- a key repeated in one mapping is an error instead of a silent overwrite;
- YAML 1.2 booleans: only true/false are booleans, so ``is_rl: yes`` stays the string "yes";
- dates stay strings ("2026-04-26"), so files round-trip byte for byte;
- nesting deeper than MAX_DEPTH is an error naming its line (libyaml refuses very deep
  nesting before composing it; the readers count the depth as they build the data, and a cheap
  bound spares the rest a measure);
- only regular files are read (``masrl.files``): a FIFO, a device or a symlink loop is an error.
Every mapping and list remembers the line of each key or item, for error messages.
"""

from __future__ import annotations

import functools
import re
import sys
import types
from pathlib import Path
from typing import Any

import yaml

from masrl import files
from masrl.errors import InputError
from masrl.text import describe

_BaseLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class YamlError(InputError):
    """A file that is not acceptable YAML; carries the 1-based line where known."""

    def __init__(self, message: str, line: int | None = None, hint: str | None = None):
        super().__init__(message, line=line, hint=hint)

    def __str__(self) -> str:  # the reader adds the path it knows
        return self.message


class LineDict(dict):
    """A dict that knows the line of each of its keys (and its own start line)."""

    # Slots, not an attribute dict per instance: a large file has a mapping per item.
    __slots__ = ("line", "key_lines")
    line: int
    key_lines: dict

    def line_of(self, key: str) -> int:
        return self.key_lines.get(key, self.line)


class LineList(list):
    """A list that knows the line of each of its items (and its own start line)."""

    __slots__ = ("line", "item_lines")
    line: int
    item_lines: list

    def line_of(self, index: int) -> int:
        return self.item_lines[index] if 0 <= index < len(self.item_lines) else self.line


_STR, _SEQ, _MAP = (f"tag:yaml.org,2002:{name}" for name in ("str", "seq", "map"))


class _StrictLoader(_BaseLoader):
    """Safe loader with line tracking; see the module docstring."""

    # Set per document by _parse: whether the text holds a '*', without which it has no alias.
    aliases_possible = True
    # The nesting of the mapping or list being built, and the deepest reached: the depth check
    # needs no pass of its own over a document of plain mappings and lists (see _parse).
    _level = 0
    deepest = 0

    def construct_document(self, node):
        self._seen: set[int] | None = set() if self.aliases_possible else None
        self._level = self.deepest = 0
        return self.construct_object(node)

    def construct_object(self, node, deep=False):
        # The C parser composes the whole node graph itself, so aliases are caught here: an
        # alias is a node reached a second time. Refusing it means a "billion laughs" document
        # is never expanded, however it nests.
        seen = self._seen
        if seen is not None:
            if id(node) in seen:
                raise YamlError(
                    "anchors and aliases (&name / *name) are not allowed in masrl data files",
                    node.start_mark.line + 1,
                    "write the value out in full; aliases are refused so that an alias bomb cannot expand",
                )
            seen.add(id(node))
        # Plain strings, mappings and lists are built here directly: PyYAML's generic way (a
        # state table, generators for deep objects, a memo of every node) costs as much again
        # as composing the nodes. Other values go through the constructors registered below.
        # The C composer makes nodes of exactly these classes, so their type is compared.
        kind, tag = type(node), node.tag
        if kind is _Scalar and tag == _STR:
            # Field names, tag values, venues and dates repeat in every record: one copy of each
            # short string is kept, however many records hold it.
            value = node.value
            return sys.intern(value) if len(value) <= _SHORT_TEXT else value
        if kind is _Sequence and tag == _SEQ:
            level = self._level = self._level + 1
            if level > self.deepest:
                self.deepest = level
            children = node.value
            result = LineList()
            result.line = node.start_mark.line + 1
            result.item_lines = [child.start_mark.line + 1 for child in children]
            for index, child in enumerate(children):
                result.append(self.construct_object(child))
                children[index] = None  # see _build_mapping
            self._level = level - 1
            return result
        if kind is _Mapping and tag == _MAP:
            level = self._level = self._level + 1
            if level > self.deepest:
                self.deepest = level
            result = self._build_mapping(node)
            self._level = level - 1
            return result
        data = self.yaml_constructors.get(tag, _undefined)(self, node)
        if isinstance(data, types.GeneratorType):  # !!set and the like fill what they yield
            generator, data = data, next(data)
            for _ in generator:
                pass
        return data

    def _build_mapping(self, node) -> LineDict:
        result = LineDict()
        result.line = node.start_mark.line + 1
        result.key_lines = key_lines = {}
        construct = self.construct_object
        # Plain text is taken here, without a call to construct_object (most keys and values are
        # text), unless the document may hold aliases: then every node goes through it.
        direct = self._seen is None
        pairs = node.value
        for index, (key_node, value_node) in enumerate(pairs):
            # Each item's nodes go once it is built: a file's nodes (two position marks each)
            # take several times the memory of its data, so a large file would hold both.
            pairs[index] = None
            line = key_node.start_mark.line + 1
            key_tag = key_node.tag
            if key_tag == "tag:yaml.org,2002:merge":
                raise YamlError(
                    f"merge keys (<<) are not allowed (column {key_node.start_mark.column + 1})",
                    line,
                    "write the keys out in this mapping; masrl data files say everything in place",
                )
            if type(key_node) is not _Scalar:
                key = ()
            elif direct and key_tag == _STR:
                key = key_node.value
                key = sys.intern(key) if len(key) <= _SHORT_TEXT else key
            else:
                key = construct(key_node)
            if type(key) is not str:
                if not isinstance(key, str | int | float | bool) and key is not None:
                    raise YamlError("mapping keys must be plain strings", line)
                key = str(key) if not isinstance(key, str) else key
            if key in result:
                raise YamlError(
                    f"key '{key}' appears twice in the same mapping "
                    f"(first on line {key_lines[key]})",
                    line,
                    "keep one of the two; YAML would silently drop the first",
                )
            if direct and type(value_node) is _Scalar and value_node.tag == _STR:
                value = value_node.value
                result[key] = sys.intern(value) if len(value) <= _SHORT_TEXT else value
            else:
                result[key] = construct(value_node)
            key_lines[key] = line
        return result

    def resolve(self, kind, value, implicit):
        # PyYAML's resolve() for this loader's table, without its per-call list building: the
        # C composer calls it for every node. Safe loaders have no path resolvers.
        if kind is _Scalar:
            return _resolve_scalar(value) if implicit[0] else _STR
        return _DEFAULT_TAGS[kind]

    def descend_resolver(self, current_node, current_index):
        pass  # path resolvers only; see resolve()

    def ascend_resolver(self):
        pass


_Scalar, _Sequence, _Mapping = yaml.ScalarNode, yaml.SequenceNode, yaml.MappingNode
_DEFAULT_TAGS = {_Scalar: _STR, _Sequence: _SEQ, _Mapping: _MAP}
_SHORT_TEXT = 32  # characters of the longest text construct_object keeps one copy of


def _undefined(loader, node):
    raise YamlError(
        f"the tag {node.tag} is not allowed (only plain YAML values are)",
        node.start_mark.line + 1,
        "remove the tag; masrl never constructs objects from YAML",
    )


_StrictLoader.add_constructor("tag:yaml.org,2002:timestamp", _StrictLoader.construct_yaml_str)
_StrictLoader.add_constructor(None, _undefined)

# Numbers longer than this are refused: int() of 4,300+ digits raises, and no field needs them.
MAX_NUMBER_LENGTH = 50


def _construct_int(loader, node):
    text = loader.construct_scalar(node)
    if len(text) > MAX_NUMBER_LENGTH:
        raise YamlError(
            f"the number on this line has {len(text)} digits",
            node.start_mark.line + 1,
            f"write at most {MAX_NUMBER_LENGTH} digits, or quote it to make it text",
        )
    return int(text)


def _construct_float(loader, node):
    text = loader.construct_scalar(node)
    if len(text) > MAX_NUMBER_LENGTH:
        raise YamlError(
            f"the number on this line has {len(text)} characters",
            node.start_mark.line + 1,
            f"write at most {MAX_NUMBER_LENGTH}, or quote it to make it text",
        )
    return float(text)


_StrictLoader.add_constructor("tag:yaml.org,2002:int", _construct_int)
_StrictLoader.add_constructor("tag:yaml.org,2002:float", _construct_float)

# YAML 1.2 booleans only, no implicit timestamps, and numbers in plain decimal only: YAML 1.1
# would read 0x7EA, 2_026, 0o17 or 1:30 (base 60) as whole numbers, and .inf/.nan as floats.
_REPLACED = (
    "tag:yaml.org,2002:bool",
    "tag:yaml.org,2002:timestamp",
    "tag:yaml.org,2002:int",
    "tag:yaml.org,2002:float",
)
_StrictLoader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag not in _REPLACED]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
_StrictLoader.add_implicit_resolver(
    "tag:yaml.org,2002:int", re.compile(r"^[-+]?[0-9]+$"), list("-+0123456789")
)
_StrictLoader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(r"^[-+]?(?:[0-9]+\.[0-9]*|\.[0-9]+|[0-9]+(?:\.[0-9]*)?[eE][-+]?[0-9]+)$"),
    list("-+.0123456789"),
)
_StrictLoader.add_implicit_resolver(
    "tag:yaml.org,2002:bool",
    re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"),
    list("tTfF"),
)
# resolve()'s table: the resolvers to try for a plain scalar, by its first character ('' for an
# empty one), then those for any character (PyYAML's key None), in PyYAML's order.
_ANY_FIRST = tuple(_StrictLoader.yaml_implicit_resolvers.get(None, ()))
_IMPLICIT = {
    first: (*resolvers, *_ANY_FIRST)
    for first, resolvers in _StrictLoader.yaml_implicit_resolvers.items()
    if first is not None
}


_resolved: dict[str, str] = {}  # short plain text that may be another type -> its tag


def _resolve_scalar(value: str) -> str:
    """The tag of a plain scalar: resolve()'s answer for (ScalarNode, value, (True, ...))."""
    resolvers = _IMPLICIT.get(value[:1], _ANY_FIRST)
    if not resolvers:
        return _STR  # most text: no type starts with its first character
    # Numbers, booleans and nulls repeat across records (years, true, null): each short one is
    # matched against the patterns once.
    tag = _resolved.get(value)
    if tag is None:
        tag = _STR
        for resolver_tag, regexp in resolvers:
            if regexp.match(value):
                tag = resolver_tag
                break
        if len(value) <= _SHORT_TEXT:
            if len(_resolved) >= 4096:
                _resolved.clear()
            _resolved[value] = tag
    return tag


# Deepest nesting of mappings and lists accepted; masrl's own files nest at most 4 levels.
MAX_DEPTH = 100


# A block indicator ('-', '?', ':' or a document start) followed by a blank or the line's end.
_INDICATOR = re.compile(r"(?:---|[-?:])(?=[ \t]|$)")
_BLANKS = re.compile(r"[ \t]*")
# The part of each line the bound looks at (its blanks, and the indicators and blanks that
# follow), found after each '\n' of the text with a '\n' put in front.
_LINE_START = re.compile(r"\n([ \t]*(?:(?:---|[-?:])(?=[ \t\n]|\Z)[ \t]*)*)")
_OTHER_BREAKS = ("\r", "\x85", "\u2028", "\u2029")


def _nesting_bound(text: str) -> int:
    """An upper bound on the nesting depth, found without parsing (a second parse of every file
    that might nest deeply cost a fifth of `validate`).

    Flow collections need a '[' or '{' each. Block collections nest at strictly growing columns,
    except a list written without indentation under a mapping key (at most two levels per column),
    and a block collection starts at a line's indentation or just after indicators that begin the
    line ('- - a: b'). So twice the number of such columns bounds block nesting. Line breaks other
    than '\n' fall back to the coarser count: every level a line, or a '-', '?', '[' or '{'."""
    coarse = sum(map(text.count, ("\n", *_OTHER_BREAKS, "-", "[", "{", "?"))) + 1
    if any(brk in text for brk in _OTHER_BREAKS):
        return coarse
    columns = set()
    # Only a line's blanks and indicators matter, and most lines begin like others: each distinct
    # beginning is looked at once.
    for line in set(_LINE_START.findall("\n" + text.lstrip("\ufeff"))):
        column = _BLANKS.match(line).end()
        columns.add(column)
        while indicator := _INDICATOR.match(line, column):
            column = _BLANKS.match(line, indicator.end()).end()
            columns.add(column)
    flow = text.count("[") + text.count("{")
    return min(coarse, 2 * (len(columns) + 1) + flow + 1)


def check_depth(text: str, limit: int = MAX_DEPTH) -> None:
    """Raise YamlError at the line where nesting passes ``limit``; parsing events is iterative."""
    if _nesting_bound(text) <= limit:
        return
    try:
        _count_depth(text, limit, _BaseLoader)
    except yaml.YAMLError:
        # libyaml may refuse deep nesting itself (PyYAML 6.0.4 does, in words of its own), or the
        # text has a syntax error: the pure-Python parser has no such limit, so it tells the two
        # apart, and masrl's one message is what the user sees whichever layer noticed first.
        try:
            _count_depth(text, limit, yaml.SafeLoader)
        except yaml.YAMLError:
            return  # a syntax error; the loader reports it with its line


def _count_depth(text: str, limit: int, loader) -> None:
    depth = 0
    for event in yaml.parse(text, Loader=loader):
        if isinstance(event, yaml.MappingStartEvent | yaml.SequenceStartEvent):
            depth += 1
            if depth > limit:
                raise YamlError(
                    f"the data nests deeper than {limit} levels",
                    event.start_mark.line + 1,
                    "flatten the structure; masrl data files need only a few levels",
                )
        elif isinstance(event, yaml.MappingEndEvent | yaml.SequenceEndEvent):
            depth -= 1


def loads(text: str) -> Any:
    """Parse one YAML document strictly; raises YamlError with a line number."""
    return _parse(text)


# Characters a YAML stream may not hold at all (PyYAML's own rule): found before parsing, so the
# message names the character and its real line (the C reader reports only a byte position).
_NOT_YAML = yaml.reader.Reader.NON_PRINTABLE


def _line_and_column(text: str, position: int) -> tuple[int, int]:
    return text.count("\n", 0, position) + 1, position - (text.rfind("\n", 0, position) + 1) + 1


def _check_characters(text: str) -> None:
    found = _NOT_YAML.search(text)
    if found:
        line, column = _line_and_column(text, found.start())
        raise YamlError(
            f"{describe(found.group())} at column {column} is not allowed in YAML",
            line,
            "remove it (NUL bytes often mean a binary file, or one saved as UTF-16: save it as UTF-8)",
        )


def _indenting_tab(text: str, line: int) -> int | None:
    """The column of a tab in the indentation of ``line`` (1-based), if there is one."""
    lines = text.split("\n", line)
    if line > len(lines):
        return None
    source = lines[line - 1]
    indentation = source[: len(source) - len(source.lstrip(" \t"))]
    return indentation.index("\t") + 1 if "\t" in indentation else None


def _depth(data: Any) -> int:
    """How deeply the parsed ``data`` nests its mappings and lists (walked without recursion)."""
    deepest, stack = 0, [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, dict):
            children = value.values()
        elif isinstance(value, list):
            children = value
        else:
            continue
        deepest = max(deepest, depth)
        stack.extend((child, depth + 1) for child in children if isinstance(child, dict | list))
    return deepest


# Texts this long (a screening round's tags or decisions) are built from the parser's events
# (_plain_data); shorter ones, every record among them, from the C composer's nodes, which is
# quicker for a small document and holds little.
STREAM_FROM = 1 << 16


class _NotPlain(Exception):
    """The document holds something _plain_data leaves to the node reader (see there)."""


_PLAIN_TAGS = frozenset(f"tag:yaml.org,2002:{name}" for name in ("int", "float", "bool", "null"))
_NO_KEY = object()  # in _plain_data: the open mapping waits for a key, not for a value


def _plain_data(loader: _StrictLoader) -> Any:
    """The document's data built straight from the parser's events, one at a time: the C composer
    would first hold a node (two position marks each) for every value of the file at once,
    several times the memory of the data. Only plain documents are built here: untagged text,
    numbers, booleans, nulls, mappings and lists, and text keys each given once. Anything else (an
    anchor, an alias, a tag, a merge key, a key that is a collection or repeated, several
    documents, an error) raises _NotPlain or the parser's error, and _parse reads the text again
    with the node reader, which gives the same data, or the same error, as ever."""
    get_event, constructors = loader.get_event, loader.yaml_constructors
    # The event classes, looked up once: a round's tags file has 100,000 events.
    scalar_event, mapping_start, sequence_start = (
        yaml.ScalarEvent,
        yaml.MappingStartEvent,
        yaml.SequenceStartEvent,
    )
    mapping_end, sequence_end = yaml.MappingEndEvent, yaml.SequenceEndEvent
    get_event()  # the stream's start
    event = get_event()
    if type(event) is not yaml.DocumentStartEvent:
        return None  # an empty stream
    root: Any = None
    stack: list = []  # the open mappings and lists, innermost last
    keys: list = []  # per open collection: the key waiting for its value (and its line)
    while True:
        event = get_event()
        kind = type(event)
        if kind is scalar_event:
            if event.anchor is not None or event.tag is not None:
                raise _NotPlain
            value = event.value
            tag = _resolve_scalar(value) if event.implicit[0] else _STR  # as resolve() does
            if tag == _STR:
                if len(value) <= _SHORT_TEXT:
                    value = sys.intern(value)
            elif tag in _PLAIN_TAGS:
                node = _Scalar(tag, value, event.start_mark, event.end_mark, event.style)
                value = constructors[tag](loader, node)
            else:
                raise _NotPlain
            opened = None
        elif kind is mapping_start or kind is sequence_start:
            if event.anchor is not None or event.tag is not None:
                raise _NotPlain
            if kind is mapping_start:
                value = LineDict()
                value.key_lines = {}
            else:
                value = LineList()
                value.item_lines = []
            value.line = event.start_mark.line + 1
            opened = value
        elif kind is mapping_end or kind is sequence_end:
            stack.pop()
            keys.pop()
            continue
        elif kind is yaml.DocumentEndEvent:
            if type(get_event()) is not yaml.StreamEndEvent:
                raise _NotPlain  # another document: the node reader refuses it
            return root
        else:
            raise _NotPlain  # an alias
        line = event.start_mark.line + 1
        if not stack:
            root = value
        else:
            parent = stack[-1]
            if type(parent) is LineList:
                parent.append(value)
                parent.item_lines.append(line)
            elif keys[-1] is _NO_KEY:
                if opened is not None:
                    raise _NotPlain  # a key that is a mapping or a list
                key = value if type(value) is str else str(value)
                if key in parent:
                    raise _NotPlain  # a repeated key: the node reader names both lines
                keys[-1] = (key, line)
            else:
                key, key_line = keys[-1]
                parent[key] = value
                parent.key_lines[key] = key_line
                keys[-1] = _NO_KEY
        if opened is not None:
            stack.append(opened)
            keys.append(_NO_KEY)
            if len(stack) > loader.deepest:  # the nesting, for _parse's depth check
                loader.deepest = len(stack)


_UNREAD = object()


def _streamed(text: str) -> tuple[Any, int]:
    """The text's data by _plain_data (or _UNREAD when it is no plain document), and how deeply
    it nests (every mapping and list counted)."""
    try:
        loader = _StrictLoader(text)
        try:
            return _plain_data(loader), loader.deepest
        finally:
            loader.dispose()
    except Exception:  # the node reader reads it, and reports any error as it always has
        return _UNREAD, 0


def _parse(text: str) -> Any:
    _check_characters(text)
    # The data is built first and its depth known after: the node reader counts the nesting as it
    # builds a document of plain mappings and lists; other data is measured when a cheap bound
    # allows deep nesting. The event parse of check_depth runs only to name the line once the data
    # is known to nest too deeply, or when the parser gave up (libyaml refuses very deep nesting,
    # Python's stack runs out).
    try:
        data, deepest = _streamed(text) if len(text) >= STREAM_FROM else (_UNREAD, 0)
        if data is _UNREAD:
            loader = _StrictLoader(text)
            loader.aliases_possible = "*" in text  # an alias is written '*name'
            try:
                data = loader.get_single_data()
            finally:
                loader.dispose()
            # Without a tag ('!') every mapping and list was built, and counted, by
            # construct_object; with one, some other constructor may have built one.
            deepest = loader.deepest if "!" not in text else None
        too_deep = (
            deepest > MAX_DEPTH
            if deepest is not None
            else _nesting_bound(text) > MAX_DEPTH and _depth(data) > MAX_DEPTH
        )
        if too_deep:
            check_depth(text)
        return data
    except YamlError:
        raise
    except (yaml.YAMLError, RecursionError) as exc:
        check_depth(text)  # raises the depth error with its line, if that is what it was
        raise _parse_error(text, exc) from exc


def _parse_error(text: str, exc: Exception) -> YamlError:
    """The YamlError for text the loader refused with ``exc``."""
    if isinstance(exc, yaml.MarkedYAMLError):
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark is not None else None
        tab = _indenting_tab(text, line) if line is not None else None
        if tab is not None:
            return YamlError(
                f"a tab is used for indentation (column {tab}); YAML indents with spaces only",
                line,
                "replace the tab with spaces",
            )
        problem = exc.problem or str(exc)
        if exc.context:
            problem = f"{exc.context}: {problem}"
        return YamlError(f"invalid YAML: {problem}", line, "fix the YAML syntax at this line")
    if isinstance(exc, RecursionError):
        return YamlError("invalid YAML: nesting is too deep")
    return YamlError(f"invalid YAML: {exc}")


def load_file(path: Path, root: Path | None = None) -> Any:
    """Read and parse a YAML file; undecodable bytes are a YamlError too.

    Only a regular file inside ``root`` (default: the file's own folder) is read; a missing file
    raises FileNotFoundError as before.
    """
    path = Path(path)
    try:
        text = files.read_regular_text(path, root if root is not None else path.absolute().parent)
    except InputError as exc:
        # Whether the file is there is asked only when it could not be read, not before every
        # read: a corpus is read file by file.
        if not path.exists() and not path.is_symlink():
            raise FileNotFoundError(2, "No such file or directory", str(path)) from None
        raise YamlError(exc.message, None, exc.hint) from exc
    return loads(text)


class _Dumper(yaml.SafeDumper):
    """Block style, no aliases, long text folded over lines."""

    def ignore_aliases(self, data):
        return True


def _represent_str(dumper, value: str):
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


# A string is quoted when either masrl's reader or a YAML 1.1 reader would take it for another
# type ('1e3', '0x7EA', 'yes'), so what is written reads back as the same string everywhere.
_Dumper.yaml_implicit_resolvers = {
    first: [
        *yaml.SafeDumper.yaml_implicit_resolvers.get(first, []),
        *_StrictLoader.yaml_implicit_resolvers.get(first, []),
    ]
    for first in {*yaml.SafeDumper.yaml_implicit_resolvers, *_StrictLoader.yaml_implicit_resolvers}
}
_Dumper.add_representer(str, _represent_str)
_Dumper.add_representer(LineDict, _Dumper.represent_dict)
_Dumper.add_representer(LineList, _Dumper.represent_list)


_DUMPER_RESOLVER = _Dumper(
    None
)  # for resolve(): which plain strings would read back as another type


# Scalars PyYAML writes unquoted (or in plain single quotes) and unfolded, checked conservatively:
# ASCII, no indicator at the start, no ': ', ' #' or double space, and a line short enough never
# to be folded at width 100.
_PLAIN = re.compile(r"^[A-Za-z0-9(][A-Za-z0-9 ,.()/+_;=~$^:-]*[A-Za-z0-9).)/]$|^[A-Za-z0-9(]$")
_LINE_LIMIT = 99


def _plain(value: Any) -> str | None:
    """The exact text PyYAML's emitter writes for a simple scalar, or None when unsure."""
    if value is None:
        return "null"
    if value is True or value is False:
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    return _plain_text(value) if isinstance(value, str) else None


@functools.lru_cache(maxsize=65536)
def _plain_text(value: str) -> str | None:
    """_plain for a string; field names, tags and venues repeat across records, hence the cache."""
    if value == "":
        return "''"
    if _PLAIN.match(value) and "  " not in value and ": " not in value:
        return value if _reads_as_text(value) else f"'{value}'"  # a number, boolean or null: quoted
    return None


@functools.lru_cache(maxsize=65536)
def _reads_as_text(value: str) -> bool:
    """Whether a plain scalar reads back as a string (field names and tags repeat: cached)."""
    return (
        _Dumper.resolve(_DUMPER_RESOLVER, yaml.ScalarNode, value, (True, False))
        == "tag:yaml.org,2002:str"
    )


def _fast_field(key: str, value: Any) -> str | None:
    """One top-level field in block style, exactly as the emitter writes it; None when unsure."""
    if not isinstance(key, str) or _plain(key) != key:
        return None
    if isinstance(value, list):
        if not value:
            return f"{key}: []\n"
        items = [_plain(v) if not isinstance(v, list | dict) else None for v in value]
        if any(i is None or len(i) + 2 > _LINE_LIMIT for i in items):
            return None
        return f"{key}:\n" + "".join(f"- {i}\n" for i in items)
    if isinstance(value, dict):
        if not value:
            return f"{key}: {{}}\n"
        lines = []
        for sub_key, sub_value in value.items():
            text = _plain(sub_value) if not isinstance(sub_value, list | dict) else None
            if text is None or not isinstance(sub_key, str) or _plain(sub_key) != sub_key:
                return None
            line = f"  {sub_key}: {text}"
            if len(line) > _LINE_LIMIT:
                return None
            lines.append(line + "\n")
        return f"{key}:\n" + "".join(lines)
    text = _plain(value)
    if text is None or len(key) + len(text) + 2 > _LINE_LIMIT:
        return None
    return f"{key}: {text}\n"


def dumps(data: Any, header: str | None = None, fast: bool = True) -> str:
    """Serialise in a stable form: insertion order of keys, UTF-8, fixed width.

    A record whose fields are all simple is written directly (the bulk import writes 100,000
    files); anything else goes through PyYAML's emitter. Both give the same bytes (tested against
    ``fast=False`` on the corpus and on generated records).
    """
    if fast and isinstance(data, dict) and data:
        parts = [_fast_field(key, value) for key, value in data.items()]
        if all(parts):
            return (header + "\n" if header else "") + "".join(parts)
    body = _emit(data, _Dumper)
    return (header + "\n" if header else "") + body


def dumps_flow(data: Any) -> str:
    """``data`` on one line in flow style ({a: 1, b: [x]}), quoted as dumps would quote it."""
    text = yaml.dump(
        data,
        Dumper=_Dumper,
        sort_keys=False,
        allow_unicode=True,
        default_flow_style=True,
        width=float("inf"),
    )
    return text.removesuffix("\n...\n").removesuffix("\n")


def _emit(data: Any, dumper) -> str:
    return yaml.dump(
        data,
        Dumper=dumper,
        sort_keys=False,
        allow_unicode=True,
        default_flow_style=False,
        width=100,
        indent=2,
    )


def _is_trivia(line: str) -> bool:
    """A blank or comment-only line: it belongs to the field that follows it."""
    stripped = line.strip()
    return not stripped or stripped.startswith("#")


def update_text(old_text: str, new_data: dict, header: str | None = None) -> str:
    """``new_data`` written over a file that held ``old_text``, keeping by hand what is unchanged.

    Every top-level field whose value is unchanged keeps its exact text (end-of-line comments,
    quoting, folding); comment lines stay in front of the field they precede; fields the file
    has and ``new_data`` lacks are kept. Only changed or new fields are written afresh. When the
    old text is not a readable mapping, or the splice would not read back as the intended data,
    the file is written afresh from ``new_data``.
    """
    fresh = dumps(new_data, header=header)
    try:
        old = loads(old_text)
    except YamlError:
        return fresh
    if not isinstance(old, LineDict) or not old:
        return fresh
    lines = old_text.splitlines(keepends=True)
    starts = sorted((old.key_lines[key], key) for key in old)
    if len({line for line, _ in starts}) != len(starts):
        return fresh  # flow style: several keys on one line
    blocks: dict[str, tuple[str, str]] = {}  # key -> (leading trivia, the field's own lines)
    preamble_end = starts[0][0] - 1
    while (
        preamble_end > 0
        and _is_trivia(lines[preamble_end - 1])
        and not lines[preamble_end - 1].startswith("# yaml-language-server")
    ):
        preamble_end -= 1
    preamble = "".join(lines[:preamble_end])
    for index, (line, key) in enumerate(starts):
        begin = line - 1
        end = starts[index + 1][0] - 1 if index + 1 < len(starts) else len(lines)
        body_end = end
        while body_end > begin + 1 and _is_trivia(lines[body_end - 1]) and index + 1 < len(starts):
            body_end -= 1
        lead_begin = begin
        while lead_begin > (preamble_end if index == 0 else starts[index - 1][0]) and _is_trivia(
            lines[lead_begin - 1]
        ):
            lead_begin -= 1
        blocks[key] = (
            "".join(lines[lead_begin:begin]) if index else "".join(lines[preamble_end:begin]),
            "".join(lines[begin:body_end]),
        )
    # The file's own order; a new field goes after the field it follows in new_data.
    order = list(old)
    previous = None
    for key in new_data:
        if key not in order:
            order.insert(order.index(previous) + 1 if previous is not None else 0, key)
        previous = key
    merged = {key: new_data[key] if key in new_data else old[key] for key in order}
    parts = [preamble if preamble else (header + "\n" if header else "")]
    for key, value in merged.items():
        if key in blocks:
            lead, body = blocks[key]
            if old[key] == value:
                parts.append(lead + (body if body.endswith("\n") else body + "\n"))
                continue
            parts.append(lead + dumps({key: value}))
        else:
            parts.append(dumps({key: value}))
    text = "".join(parts)
    try:
        if loads(text) != merged:
            return dumps(merged, header=header)
    except YamlError:
        return dumps(merged, header=header)
    return text

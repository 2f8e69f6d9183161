"""Reading trace files (.json, .jsonl, gzip), walking directories, and mapping over files in parallel.

Files are read as raw bytes per trace (``read_documents``), streamed and capped: a trace may
hold at most ``Limits.max_bytes`` bytes once decompressed (so a small gzip bomb stops at the
cap instead of filling memory) and ``Limits.max_events`` events; the command line sets both
with ``--max-trace-bytes`` and ``--max-trace-events``. Only regular files are read (not FIFOs
or devices). The validator and metrics decode documents with msgspec straight into typed
objects (see ``validate``); plain dicts, for everything else, come from ``parse_json_bytes``.

Every document also passes the standard library's C parser (``scan_json``), which is strict
where the fast decoders are lenient: a key repeated in one object is an error (orjson and
msgspec would silently keep the last value), and so are nesting too deep to read and integers
of more than 4,300 digits, each reported with its line. It also reads NaN, Infinity and numbers
beyond float range, which JSON has no place for, so the validator can name the JSON path of
such a value. Garbage collection is paused while parsing: a parsed trace is a tree, so
there is nothing to collect, and on a million events the collector would rescan the growing
tree again and again.
"""

from __future__ import annotations

import gc
import gzip
import json
import os
import re
import stat
import sys
import zlib
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from ..errors import InputError
from ..problems import Problem

TRACE_SUFFIXES = (".json", ".jsonl", ".json.gz", ".jsonl.gz")
GZIP_MAGIC = b"\x1f\x8b"
GZIP_ERRORS = (EOFError, gzip.BadGzipFile, zlib.error)
# The default caps keep every trace command (validate, metrics, figure, export, import) under
# 1 GiB of memory on the worst input they let in, as benchmarks/bench_trace_memory.py measures:
# parsed, a trace costs up to ten times its bytes (one string of astral characters) and an
# imported span about 1.6 KB. --max-trace-bytes and --max-trace-events raise them.
DEFAULT_MAX_TRACE_BYTES = 64 * 2**20  # one trace, decompressed: about 300,000 typical events
DEFAULT_MAX_TRACE_EVENTS = 500_000
READ_CHUNK = 2**20


@dataclass(frozen=True)
class Limits:
    """Caps on one trace: its size in bytes once decompressed, and its number of events (or of
    source spans, for importers). Above them a trace is refused with a problem naming the
    command-line option that raises the cap."""

    max_bytes: int = DEFAULT_MAX_TRACE_BYTES
    max_events: int = DEFAULT_MAX_TRACE_EVENTS

    def too_large(self, line: int | None = None) -> Problem:
        return read_problem(
            f"trace larger than {format_size(self.max_bytes)} (decompressed); not read",
            hint=f"raise --max-trace-bytes (now {format_size(self.max_bytes)}) to read it",
            line=line,
            code="too_large",
        )

    def file_too_large(self, line: int | None = None) -> Problem:
        return read_problem(
            f"file larger than {format_size(self.max_bytes)} in all (decompressed); not read",
            hint=f"raise --max-trace-bytes (now {format_size(self.max_bytes)}) to read it",
            line=line,
            code="too_large",
        )

    def too_many_events(self, count: int, what: str = "events") -> tuple[str, str]:
        """(message, hint) for a trace of ``count`` events, more than ``max_events``."""
        return (
            f"{count} {what}, more than the {self.max_events} allowed",
            f"raise --max-trace-events (now {self.max_events}) to read it",
        )


def format_size(size: int) -> str:
    """512M, 1G, 1500: the spelling --max-trace-bytes accepts."""
    for suffix, unit in (("G", 2**30), ("M", 2**20), ("K", 2**10)):
        if size >= unit and size % unit == 0:
            return f"{size // unit}{suffix}"
    return str(size)


def read_problem(
    message: str, hint: str = "", line: int | None = None, code: str = "parse"
) -> Problem:
    """Why a file, or one line of it, could not be read as JSON; `unreadable` names the file."""
    return Problem("", line, message, hint, "error", code, pointer="$")


@dataclass(frozen=True)
class RawDocument:
    """The bytes of one trace, or the problem that stopped reading it. ``line`` is set for .jsonl."""

    line: int | None
    raw: bytes | bytearray | None = None
    problem: Problem | None = None


@dataclass(frozen=True)
class TraceRecord:
    """One parsed trace, or the problem that stopped it. ``line`` is set for .jsonl files."""

    line: int | None
    data: Any = None
    problem: Problem | None = None


@contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector (restored afterwards, even on error)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


class JsonSyntaxError(InputError):
    """A document that cannot be read. ``code`` is parse, duplicate_key, too_deep or number."""

    def __init__(
        self,
        message: str,
        line: int | None = None,
        column: int | None = None,
        code: str = "parse",
        hint: str = "",
    ):
        super().__init__(message)
        self.message, self.line, self.column = message, line, column
        self.code, self.hint = code, hint


class _DuplicateKey(Exception):
    pass


def _checked_object(pairs: list) -> dict:
    """object_pairs_hook: a dict, unless a key repeats (JSON readers disagree on which wins)."""
    result = dict(pairs)
    if len(result) != len(pairs):
        raise _DuplicateKey
    return result


def _checked_nothing(pairs: list) -> None:
    """object_pairs_hook for a scan only: the check, no objects kept (memory stays flat)."""
    if len(pairs) > 1 and len(dict(pairs)) != len(pairs):
        raise _DuplicateKey


# JSON tokens that matter for locating a problem: strings (keys among them) and brackets.
_TOKEN = re.compile(rb'"(?:[^"\\]|\\.)*"|[{}\[\]:]')
_LONG_NUMBER = re.compile(rb"[0-9]{4301}")
MAX_DIGITS = 4300  # Python's limit on converting digit strings to integers


def _line_at(raw: bytes, offset: int) -> int:
    return raw.count(b"\n", 0, offset) + 1


def _duplicate_key_at(raw: bytes) -> tuple[str, int]:
    """(key, line of its second occurrence) of the first key repeated within one object.
    Called only on a document the parser read, once it found a repeated key."""
    scopes: list[set | None] = []
    previous = None
    for match in _TOKEN.finditer(raw):
        token = match.group()
        if token == b"{":
            scopes.append(set())
        elif token == b"[":
            scopes.append(None)
        elif token in (b"}", b"]"):
            scopes.pop()
        elif token == b":":
            keys = scopes[-1] if scopes else None
            if previous is not None and keys is not None:
                key = json.loads(previous.group())
                if key in keys:
                    return key, _line_at(raw, previous.start())
                keys.add(key)
        previous = match if token[:1] == b'"' else None
    return "?", 1


def _deepest_at(raw: bytes) -> tuple[int, int]:
    """(depth, line) where arrays and objects nest deepest (first reached)."""
    depth = deepest = 0
    offset = 0
    for match in _TOKEN.finditer(raw):
        token = match.group()
        if token in (b"{", b"["):
            depth += 1
            if depth > deepest:
                deepest, offset = depth, match.start()
        elif token in (b"}", b"]"):
            depth -= 1
    return deepest, _line_at(raw, offset)


def _stdlib_parse(raw: bytes, text: str, hook) -> Any:
    try:
        return json.loads(text, object_pairs_hook=hook)
    except json.JSONDecodeError as exc:
        raise JsonSyntaxError(exc.msg, exc.lineno, exc.colno) from None
    except _DuplicateKey:
        key, line = _duplicate_key_at(raw)
        raise JsonSyntaxError(
            f"duplicate key {json.dumps(key, ensure_ascii=False)} in one object",
            line,
            code="duplicate_key",
            hint="JSON readers disagree on which value of a repeated key wins; keep one",
        ) from None
    except RecursionError:
        raise too_deep(raw) from None
    except ValueError as exc:  # integers longer than Python converts
        match = _LONG_NUMBER.search(raw)
        if match is None:
            raise
        raise JsonSyntaxError(
            f"a number with more than {MAX_DIGITS} digits",
            _line_at(raw, match.start()),
            code="number",
            hint="numbers in a trace must fit a 64-bit float",
        ) from exc


def too_deep(raw: bytes) -> JsonSyntaxError:
    depth, line = _deepest_at(raw)
    return JsonSyntaxError(
        f"nested too deeply: arrays and objects {depth} levels deep",
        line,
        code="too_deep",
        hint="keep meta and other free-form fields within a few hundred levels",
    )


def _decode_utf8(raw: bytes) -> str:
    if raw.startswith(b"\xef\xbb\xbf"):
        raise JsonSyntaxError("starts with a UTF-8 byte-order mark; save the file without it", 1, 1)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise JsonSyntaxError(f"not valid UTF-8 (byte {exc.start})", line) from None


def parse_json_bytes(raw: bytes) -> Any:
    """Parse one JSON document; raise JsonSyntaxError with a line (and column) on failure,
    repeated keys and too deep nesting included."""
    return _stdlib_parse(raw, _decode_utf8(raw), _checked_object)


def scan_json(raw: bytes) -> None:
    """Raise JsonSyntaxError where ``parse_json_bytes`` would, without keeping what it reads:
    the strict check before a lenient fast decoder."""
    _stdlib_parse(raw, _decode_utf8(raw), _checked_nothing)


def is_jsonl(path: Path) -> bool:
    name = path.name.lower()
    return name.endswith((".jsonl", ".jsonl.gz"))


def is_gzip(path: Path) -> bool:
    """By content, not by name: a .gz that is not gzip, or gzip without .gz, still reads right."""
    try:
        with open(path, "rb") as handle:
            return handle.read(2) == GZIP_MAGIC
    except OSError:
        return path.name.lower().endswith(".gz")


def _gzip_problem(exc: BaseException, line: int | None = None) -> Problem:
    return read_problem(
        f"truncated or corrupt gzip data ({exc})",
        hint="re-create the file; a damaged .gz cannot be read past the damage",
        line=line,
        code="gzip",
    )


def _io_problem(exc: OSError) -> Problem:
    return read_problem(f"cannot read file: {exc.strerror or exc}", code="io")


def _empty_problem() -> Problem:
    return read_problem("file is empty: expected a trace (a JSON object)", code="empty_file")


def syntax_problem(exc: JsonSyntaxError, jsonl_line: int | None = None) -> Problem:
    if exc.code != "parse":  # readable JSON that masrl refuses: the message says why
        return read_problem(exc.message, exc.hint, jsonl_line or exc.line, exc.code)
    where = []
    if exc.line is not None and jsonl_line is None:
        where.append(f"line {exc.line}")
    if exc.column is not None:
        where.append(f"column {exc.column}")
    suffix = f" ({', '.join(where)})" if where else ""
    hint = "each line of a .jsonl file must hold one complete trace" if jsonl_line else ""
    return read_problem(f"not valid JSON: {exc.message}{suffix}", hint, jsonl_line or exc.line)


def _open(path: Path):
    """The file for binary reading, decompressed when it is gzip (by content, not by name).
    Refuses anything but a regular file: a FIFO would hang, a device never end."""
    handle = open(path, "rb")
    try:
        if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
            raise OSError(0, "not a regular file")
        if handle.read(2) == GZIP_MAGIC:
            handle.seek(0)
            return gzip.GzipFile(fileobj=handle, mode="rb")
        handle.seek(0)
        return handle
    except BaseException:
        handle.close()
        raise


def _read_capped(handle, cap: int) -> bytes | bytearray | None:
    """The whole stream, or None when it is longer than ``cap`` bytes.

    A decompressing stream is read a chunk at a time into one growing buffer, so a gzip bomb
    stops at the cap and memory never holds more than the cap plus a chunk: a list of chunks
    joined at the end would hold the data twice."""
    if not isinstance(handle, gzip.GzipFile):
        size = os.fstat(handle.fileno()).st_size
        if size > cap:
            return None
        raw = handle.read(cap + 1)
        return None if len(raw) > cap else raw
    buffer = bytearray()
    while chunk := handle.read(min(READ_CHUNK, cap + 1 - len(buffer))):
        buffer += chunk
        if len(buffer) > cap:
            return None
    return buffer


def _read_whole_file(path: Path, limits: Limits) -> RawDocument:
    try:
        with _open(path) as handle:
            raw = _read_capped(handle, limits.max_bytes)
    except GZIP_ERRORS as exc:  # before OSError: BadGzipFile is one
        return RawDocument(None, problem=_gzip_problem(exc))
    except OSError as exc:
        return RawDocument(None, problem=_io_problem(exc))
    if raw is None:
        return RawDocument(None, problem=limits.too_large())
    if not raw.strip():
        return RawDocument(None, problem=_empty_problem())
    return RawDocument(None, raw)


def _read_lines(path: Path, limits: Limits, whole_file: bool = False) -> Iterator[RawDocument]:
    line_number = 0
    documents = 0
    total = 0
    try:
        with _open(path) as handle:
            while raw_line := handle.readline(limits.max_bytes + 1):
                line_number += 1
                if len(raw_line) > limits.max_bytes and not raw_line.endswith(b"\n"):
                    documents += 1
                    yield RawDocument(line_number, problem=limits.too_large(line_number))
                    while (rest := handle.readline(READ_CHUNK)) and not rest.endswith(b"\n"):
                        pass  # skip the rest of the line, a chunk at a time
                elif whole_file and (total := total + len(raw_line)) > limits.max_bytes:
                    yield RawDocument(line_number, problem=limits.file_too_large(line_number))
                    return
                elif raw_line.strip():  # blank lines between traces are harmless
                    documents += 1
                    yield RawDocument(line_number, raw_line)
    except GZIP_ERRORS as exc:
        yield RawDocument(line_number + 1, problem=_gzip_problem(exc, line_number + 1))
        return
    except OSError as exc:
        yield RawDocument(None, problem=_io_problem(exc))
        return
    if not documents:
        yield RawDocument(None, problem=_empty_problem())


def read_documents(
    path: Path | str, limits: Limits = Limits(), whole_file: bool = False
) -> Iterator[RawDocument]:
    """The raw bytes of every trace in a file: the whole of a .json(.gz), each non-blank line
    of a .jsonl(.gz), each at most ``limits.max_bytes`` long (with ``whole_file``, all lines
    together: an importer holds the whole file at once). Unreadable files and lines, and
    traces over the cap, come back as problems, never exceptions."""
    path = Path(path)
    if is_jsonl(path):
        yield from _read_lines(path, limits, whole_file)
    else:
        yield _read_whole_file(path, limits)


def event_count_problem(data: Any, limits: Limits, line: int | None = None) -> Problem | None:
    """The problem with a parsed trace holding more events than ``limits`` allow, if it does."""
    events = data.get("events") if isinstance(data, dict) else None
    if isinstance(events, list) and len(events) > limits.max_events:
        message, hint = limits.too_many_events(len(events))
        return read_problem(message, hint, line, "too_many_events")
    return None


def read_traces(
    path: Path | str, limits: Limits = Limits(), count_events: bool = True, whole_file: bool = False
) -> Iterator[TraceRecord]:
    """Every trace in a file, parsed into plain dicts and lists. With ``count_events``, a trace
    with more events than ``limits`` allow comes back as a problem; ``whole_file``: see
    ``read_documents``."""
    for document in read_documents(path, limits, whole_file):
        if document.problem is not None:
            yield TraceRecord(document.line, problem=document.problem)
            continue
        line = document.line
        try:
            with gc_paused():
                data = parse_json_bytes(document.raw)
        except JsonSyntaxError as exc:
            yield TraceRecord(line, problem=syntax_problem(exc, line))
            continue
        del document  # the bytes, no longer needed while the caller works on the trace
        problem = event_count_problem(data, limits, line) if count_events else None
        if problem is not None:
            yield TraceRecord(line, problem=problem)
        else:
            yield TraceRecord(line, data)


def find_trace_files(paths: Iterable[Path | str]) -> tuple[list[str], list[str]]:
    """Files named directly, plus trace files found recursively under directories (each
    directory's files sorted), and separately the arguments that do not exist. As strings."""
    files: list[str] = []
    missing: list[str] = []
    for argument in map(str, paths):
        if os.path.isdir(argument):
            files.extend(_trace_files_under(argument))
        elif os.path.exists(argument):
            files.append(argument)
        else:
            missing.append(argument)
    return files, missing


def _trace_files_under(directory: str) -> list[str]:
    # os.walk and plain strings: on 10,000 files, Path objects from rglob cost megabytes.
    found = [
        os.path.join(root, name)
        for root, _, names in os.walk(directory)
        for name in names
        if name.lower().endswith(TRACE_SUFFIXES)
    ]
    return sorted(found, key=lambda name: name.replace(os.sep, "/"))


# ---------------------------------------------------------------------------------------------
# Parallel mapping over files.

Result = TypeVar("Result")


def default_jobs() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def should_show_progress(requested: bool | None) -> bool:
    """Progress bars go to stderr, only on a terminal unless asked for explicitly."""
    return sys.stderr.isatty() if requested is None else requested


def _progress_bar(total: int, description: str, show: bool):
    if not show:
        return None
    from tqdm import tqdm

    return tqdm(total=total, unit="file", desc=description, file=sys.stderr, dynamic_ncols=True)


def map_files(
    function: Callable[[str], Result],
    files: list[str],
    jobs: int | None = None,
    progress: bool | None = None,
    description: str = "traces",
) -> Iterator[Result]:
    """``function`` applied to each file, results in file order; in worker processes when
    there are several files and more than one job. ``function`` must be importable (picklable)."""
    jobs = default_jobs() if jobs is None else max(1, jobs)
    show = should_show_progress(progress)
    if jobs == 1 or len(files) < 2:
        bar = _progress_bar(len(files), description, show)
        try:
            for path in files:
                yield function(path)
                if bar is not None:
                    bar.update()
        finally:
            if bar is not None:
                bar.close()
        return
    import multiprocessing

    workers = min(jobs, len(files))
    chunk = max(1, min(64, len(files) // (workers * 8)))
    # The pool is forked before tqdm starts its monitor thread.
    with multiprocessing.get_context().Pool(workers) as pool:
        bar = _progress_bar(len(files), description, show)
        try:
            for result in pool.imap(function, files, chunksize=chunk):
                yield result
                if bar is not None:
                    bar.update()
        finally:
            if bar is not None:
                bar.close()

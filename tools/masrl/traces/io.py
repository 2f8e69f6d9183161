"""Reading trace files (.json, .jsonl, gzip), walking directories, and mapping over files in parallel.

Files are read as raw bytes per trace (``read_documents``): the validator and metrics decode
them with msgspec straight into typed objects (see ``validate``). Plain dicts, for everything
else, come from ``parse_json_bytes``: orjson for ordinary documents; the standard library's C
parser above ``LARGE_DOCUMENT_BYTES``, because orjson first builds an intermediate document
that adds two to three times the file size to peak memory. The standard library also reads
what orjson refuses (NaN, Infinity, numbers beyond float range), so the validator can name
the JSON path of such a value instead of a byte offset. Garbage collection is paused while
parsing: a parsed trace is a tree, so there is nothing to collect, and on a million events
the collector would rescan the growing tree again and again.
"""

from __future__ import annotations

import gc
import gzip
import json
import os
import sys
import zlib
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import orjson

TRACE_SUFFIXES = (".json", ".jsonl", ".json.gz", ".jsonl.gz")
LARGE_DOCUMENT_BYTES = 32 * 1024 * 1024
GZIP_MAGIC = b"\x1f\x8b"
GZIP_ERRORS = (EOFError, gzip.BadGzipFile, zlib.error)


@dataclass(frozen=True)
class ReadProblem:
    """Why a file, or one line of it, could not be read as JSON."""

    message: str
    hint: str = ""
    line: int | None = None
    code: str = "parse"


@dataclass(frozen=True)
class RawDocument:
    """The bytes of one trace, or the problem that stopped reading it. ``line`` is set for .jsonl."""

    line: int | None
    raw: bytes | None = None
    problem: ReadProblem | None = None


@dataclass(frozen=True)
class TraceRecord:
    """One parsed trace, or the problem that stopped it. ``line`` is set for .jsonl files."""

    line: int | None
    data: Any = None
    problem: ReadProblem | None = None


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


class JsonSyntaxError(Exception):
    def __init__(self, message: str, line: int | None = None, column: int | None = None):
        super().__init__(message)
        self.message, self.line, self.column = message, line, column


def _stdlib_parse(text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise JsonSyntaxError(exc.msg, exc.lineno, exc.colno) from None
    except RecursionError:
        raise JsonSyntaxError("nested too deeply") from None


def _decode_utf8(raw: bytes) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise JsonSyntaxError(f"not valid UTF-8 (byte {exc.start})", line) from None


def parse_json_bytes(raw: bytes) -> Any:
    """Parse one JSON document; raise JsonSyntaxError with a line and column on failure."""
    if raw.startswith(b"\xef\xbb\xbf"):
        raise JsonSyntaxError("starts with a UTF-8 byte-order mark; save the file without it", 1, 1)
    if len(raw) < LARGE_DOCUMENT_BYTES:
        try:
            return orjson.loads(raw)
        except orjson.JSONDecodeError:
            pass  # NaN, Infinity or a huge number (the stdlib reads these), or a real syntax error
    return _stdlib_parse(_decode_utf8(raw))


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


def _gzip_problem(exc: BaseException, line: int | None = None) -> ReadProblem:
    return ReadProblem(
        f"truncated or corrupt gzip data ({exc})",
        hint="re-create the file; a damaged .gz cannot be read past the damage",
        line=line,
        code="gzip",
    )


def _io_problem(exc: OSError) -> ReadProblem:
    return ReadProblem(f"cannot read file: {exc.strerror or exc}", code="io")


def _empty_problem() -> ReadProblem:
    return ReadProblem("file is empty: expected a trace (a JSON object)", code="empty_file")


def syntax_problem(exc: JsonSyntaxError, jsonl_line: int | None = None) -> ReadProblem:
    where = []
    if exc.line is not None and jsonl_line is None:
        where.append(f"line {exc.line}")
    if exc.column is not None:
        where.append(f"column {exc.column}")
    suffix = f" ({', '.join(where)})" if where else ""
    hint = "each line of a .jsonl file must hold one complete trace" if jsonl_line else ""
    return ReadProblem(f"not valid JSON: {exc.message}{suffix}", hint, jsonl_line or exc.line)


def _read_whole_file(path: Path) -> RawDocument:
    try:
        raw = path.read_bytes()
        if raw.startswith(GZIP_MAGIC):  # by content, not by name
            raw = gzip.decompress(raw)
    except GZIP_ERRORS as exc:  # before OSError: BadGzipFile is one
        return RawDocument(None, problem=_gzip_problem(exc))
    except OSError as exc:
        return RawDocument(None, problem=_io_problem(exc))
    if not raw.strip():
        return RawDocument(None, problem=_empty_problem())
    return RawDocument(None, raw)


def _read_lines(path: Path) -> Iterator[RawDocument]:
    line_number = 0
    documents = 0
    try:
        opener = gzip.open if is_gzip(path) else open
        with opener(path, "rb") as handle:
            for line_number, raw_line in enumerate(handle, start=1):
                if raw_line.strip():  # blank lines between traces are harmless
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


def read_documents(path: Path | str) -> Iterator[RawDocument]:
    """The raw bytes of every trace in a file: the whole of a .json(.gz), each non-blank line
    of a .jsonl(.gz). Unreadable files and lines come back as problems, never exceptions."""
    path = Path(path)
    if is_jsonl(path):
        yield from _read_lines(path)
    else:
        yield _read_whole_file(path)


def read_traces(path: Path | str) -> Iterator[TraceRecord]:
    """Every trace in a file, parsed into plain dicts and lists."""
    for document in read_documents(path):
        if document.problem is not None:
            yield TraceRecord(document.line, problem=document.problem)
            continue
        try:
            with gc_paused():
                data = parse_json_bytes(document.raw)
        except JsonSyntaxError as exc:
            yield TraceRecord(document.line, problem=syntax_problem(exc, document.line))
        else:
            yield TraceRecord(document.line, data)


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

"""Importers: traces written by agent stacks, turned into masrl traces.

One module per source format; each reads its format into ``span_tree.SourceSpan`` objects (or
builds events directly) and returns masrl traces plus an ``ImportSummary``. ``FORMATS`` maps the
names ``masrl trace import --from`` accepts to those modules.
"""

from __future__ import annotations

from collections.abc import Iterator
from importlib import import_module
from pathlib import Path

from ...errors import InputError, MasrlError, UsageError
from ..io import Limits
from .span_tree import ImportSummary

FORMATS = {
    "otel": "otel_genai",
    "openai-agents": "openai_agents",
    "agent-lightning": "agent_lightning",
    "autogen": "autogen",
}


def import_traces(
    path: Path | str, source_format: str, limits: Limits = Limits()
) -> tuple[list[dict], ImportSummary]:
    """The masrl traces in one file of the given format, and what became of its spans. Each
    input document is at most ``limits.max_bytes`` long, each trace at most
    ``limits.max_events`` spans (or messages)."""
    if source_format not in FORMATS:
        raise UsageError(
            f"unknown trace format {source_format!r}",
            hint="one of " + ", ".join(sorted(FORMATS)),
        )
    module = import_module(f".{FORMATS[source_format]}", __name__)
    try:
        return module.import_file(Path(path), limits)
    except MasrlError as exc:
        if exc.path is None:  # the span-tree mapping does not know the file
            exc.path = str(path)
        raise
    except RecursionError:  # attribute values nested within what the JSON reader allows
        raise InputError(
            "nested too deeply to import",
            path=path,
            hint="keep attributes and metadata within a few hundred levels",
        ) from None


__all__ = ["FORMATS", "ImportSummary", "import_traces"]


def traces_as_text(traces: list[dict], output: Path | None) -> str:
    """Imported traces serialised for ``output``: one indented JSON document for a .json file
    (which must then hold one trace), JSON lines otherwise (stdout, .jsonl)."""
    return "".join(traces_as_pieces(traces, output))


ITEMS_PER_PIECE = 4096  # events (or edges) encoded and written together


def traces_as_pieces(traces: list[dict], output: Path | None) -> Iterator[str]:
    """``traces_as_text`` in pieces, so a trace of a million events is never one string. The
    checks come before the first piece."""
    indented = output is not None and output.name.lower().endswith(".json")
    if indented and len(traces) != 1:
        raise UsageError(
            f"{len(traces)} traces do not fit one .json file",
            path=output,
            hint="write them to a .jsonl file, one trace a line",
        )
    try:
        for trace in traces:
            yield from _trace_pieces(trace, indented)
            yield "\n"
    except RecursionError:  # metadata copied from the source, nested near the reader's limit
        raise InputError(
            "nested too deeply to write",
            path=output,
            hint="keep metadata within a few hundred levels",
        ) from None


def _trace_pieces(trace: dict, indented: bool) -> Iterator[str]:
    """The bytes ``json.dumps`` writes for ``trace`` (with ``indent=2``, or compact), made by
    the C encoder a top-level value, or a batch of list items, at a time."""
    import json

    if indented:
        dump = json.JSONEncoder(indent=2, ensure_ascii=False, allow_nan=False).encode
        # A value one level down is the same text with every line indented once more: JSON
        # strings hold no raw line breaks, so only the encoder's own lines are touched.
        open_, between, close, colon = "{\n  ", ",\n  ", "\n}", ": "
        list_open, list_between, list_close = "[\n    ", ",\n    ", "\n  ]"

        def nested(value, depth: int) -> str:
            return dump(value).replace("\n", "\n" + "  " * depth)
    else:
        dump = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode
        open_, between, close, colon = "{", ",", "}", ":"
        list_open, list_between, list_close = "[", ",", "]"

        def nested(value, depth: int) -> str:
            return dump(value)

    if not trace:
        yield "{}"
        return
    yield open_
    for position, (key, value) in enumerate(trace.items()):
        head = (between if position else "") + dump(key) + colon
        if not (isinstance(value, list) and value):
            yield head + nested(value, 1)
            continue
        yield head + list_open
        for start in range(0, len(value), ITEMS_PER_PIECE):
            batch = value[start : start + ITEMS_PER_PIECE]
            yield (list_between if start else "") + list_between.join(
                nested(item, 2) for item in batch
            )
        yield list_close
    yield close

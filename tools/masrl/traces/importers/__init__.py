"""Importers: traces written by agent stacks, turned into masrl traces.

One module per source format; each reads its format into ``span_tree.SourceSpan`` objects (or
builds events directly) and returns masrl traces plus an ``ImportSummary``. ``FORMATS`` maps the
names ``masrl trace import --from`` accepts to those modules.
"""

from __future__ import annotations

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
    import json

    try:
        if output is not None and output.name.lower().endswith(".json"):
            if len(traces) != 1:
                raise UsageError(
                    f"{len(traces)} traces do not fit one .json file",
                    path=output,
                    hint="write them to a .jsonl file, one trace a line",
                )
            return json.dumps(traces[0], indent=2, ensure_ascii=False, allow_nan=False) + "\n"
        return "".join(
            json.dumps(trace, ensure_ascii=False, separators=(",", ":"), allow_nan=False) + "\n"
            for trace in traces
        )
    except RecursionError:  # metadata copied from the source, nested near the reader's limit
        raise InputError(
            "nested too deeply to write",
            path=output,
            hint="keep metadata within a few hundred levels",
        ) from None

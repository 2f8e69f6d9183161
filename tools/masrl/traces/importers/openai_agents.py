"""OpenAI Agents SDK traces, in the form its exporter sends them: ``{"data": [item, ...]}``
where an item is a trace (``"object": "trace"``: id, workflow_name, group_id, metadata) or a
span (``"object": "trace.span"``: id, trace_id, parent_id, started_at and ended_at as ISO 8601,
span_data, error). Also accepted: a bare list of items, or JSON lines with one item a line.

``span_data.type`` gives the kind: agent (name), function (a tool call, name), generation and
response (model calls, with usage), handoff (from_agent, to_agent), guardrail (name,
triggered). custom, mcp_tools, speech, transcription and any newer type are kept as generic
events. One masrl trace per SDK trace id; the SDK's group_id becomes the task id.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..io import Limits
from ._source import (
    check_file_span_count,
    check_span_count,
    iso_seconds,
    json_documents,
    number,
    require,
)
from .span_tree import (
    AGENT,
    GENERIC,
    GUARDRAIL,
    HANDOFF,
    INFERENCE,
    TOOL,
    ImportSummary,
    SourceSpan,
    build_trace,
)

SYSTEM = "openai-agents"
KIND_OF_TYPE = {
    "agent": AGENT,
    "function": TOOL,
    "generation": INFERENCE,
    "response": INFERENCE,
    "handoff": HANDOFF,
    "guardrail": GUARDRAIL,
}


def _items(path: Path, limits: Limits):
    for line, document in json_documents(path, limits):
        if isinstance(document, dict) and "data" in document:
            document = document["data"]
        if isinstance(document, list):
            for item in document:
                yield line, item
        else:
            yield line, document


def import_file(path: Path, limits: Limits = Limits()) -> tuple[list[dict], ImportSummary]:
    workflows: dict[str, dict] = {}
    spans_by_trace: dict[str, list[SourceSpan]] = {}
    spans_read = 0
    for order, (line, item) in enumerate(_items(path, limits)):
        require(
            isinstance(item, dict) and item.get("object") in ("trace", "trace.span"),
            "not an OpenAI Agents SDK trace item (object must be trace or trace.span)",
            path,
            line,
            'export {"data": [...]} as the SDK\'s exporter sends it',
        )
        if item["object"] == "trace":
            require(bool(item.get("id")), "trace item without id", path, line)
            workflows[str(item["id"])] = item
            continue
        span = _span(item, path, line)
        span.order = order
        spans_read += 1
        check_file_span_count(spans_read, limits, path, line)
        spans_by_trace.setdefault(str(item["trace_id"]), []).append(span)
    require(
        bool(spans_by_trace),
        "no spans found",
        path,
        None,
        'expected {"data": [{"object": "trace.span", ...}]}',
    )
    traces, summary = [], ImportSummary()
    for trace_id in sorted(spans_by_trace):
        check_span_count(len(spans_by_trace[trace_id]), f"trace {trace_id}", limits, path)
        workflow = workflows.get(trace_id, {})
        meta = {k: workflow[k] for k in ("workflow_name", "metadata") if workflow.get(k)}
        trace, one = build_trace(
            spans_by_trace[trace_id],
            trace_id=trace_id,
            task_id=workflow.get("group_id"),
            system=SYSTEM,
            source_format="openai-agents",
            meta=meta,
        )
        traces.append(trace)
        summary.add(one)
    return traces, summary


def _span(item: dict, path: Path, line: int | None) -> SourceSpan:
    for key in ("id", "trace_id", "started_at", "span_data"):
        require(item.get(key) is not None, f"span without {key}", path, line)
    data: Any = item["span_data"]
    require(
        isinstance(data, dict) and bool(data.get("type")),
        f"span {item['id']}: span_data without a type",
        path,
        line,
    )
    source_kind = str(data["type"])
    kind = KIND_OF_TYPE.get(source_kind, GENERIC)
    start = iso_seconds(item["started_at"], f"span {item['id']}: started_at", path, line)
    end = (
        iso_seconds(item["ended_at"], f"span {item['id']}: ended_at", path, line)
        if item.get("ended_at")
        else start
    )
    usage = data.get("usage") if isinstance(data.get("usage"), dict) else {}
    extra: dict[str, Any] = {}
    if data.get("model"):
        extra["model"] = str(data["model"])
    if kind == GENERIC and data.get("name"):
        extra["source_name"] = str(data["name"])
    if kind == GUARDRAIL:
        extra["triggered"] = bool(data.get("triggered"))
    if item.get("error"):
        extra["error"] = True
    return SourceSpan(
        span_id=str(item["id"]),
        parent_id=str(item["parent_id"]) if item.get("parent_id") else None,
        kind=kind,
        source_kind=source_kind,
        start=start,
        end=max(start, end),
        name=str(data.get("name") or ""),
        handoff_from=_agent_name(data.get("from_agent")),
        handoff_to=_agent_name(data.get("to_agent")),
        tokens=number(usage.get("input_tokens")) + number(usage.get("output_tokens")),
        extra=extra,
    )


def _agent_name(value: Any) -> str | None:
    """A hand-off's agent: a name (older SDKs wrote {"name": ...})."""
    if isinstance(value, dict):
        value = value.get("name")
    return str(value) if value not in (None, "") else None

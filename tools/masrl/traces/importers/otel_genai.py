"""OpenTelemetry GenAI spans (OTLP JSON, or OTLP protobuf through ``opentelemetry-proto``).

Input: an OTLP ``ExportTraceServiceRequest`` (``resourceSpans`` > ``scopeSpans`` > ``spans``),
as one JSON document, as JSON lines (what the Collector's file exporter writes, one request a
line), or as protobuf bytes in a ``.pb``/``.binpb`` file. OTLP JSON writes trace and span ids as
hex and 64-bit integers as strings. Spans are grouped by trace id, one masrl trace each.

Span kinds come from ``gen_ai.operation.name`` (GenAI semantic conventions): invoke_agent,
invoke_workflow, create_agent, execute_tool, retrieval (a tool), and the model calls chat,
text_completion, generate_content and embeddings. The conventions define no hand-off span: a
hand-off shows as one agent invoked after another. Spans without a GenAI operation (HTTP calls,
framework internals) are kept as generic events.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ...errors import InputError
from ..io import Limits
from ._source import check_file_span_count, check_span_count, json_documents, number, require
from .span_tree import (
    AGENT,
    CREATE_AGENT,
    GENERIC,
    INFERENCE,
    TOOL,
    WORKFLOW,
    ImportSummary,
    SourceSpan,
    build_trace,
)

SYSTEM = "opentelemetry-genai"
PROTOBUF_SUFFIXES = (".pb", ".binpb", ".pb.gz", ".binpb.gz")
KIND_OF_OPERATION = {
    "invoke_agent": AGENT,
    "invoke_workflow": WORKFLOW,
    "create_agent": CREATE_AGENT,
    "execute_tool": TOOL,
    "retrieval": TOOL,
    "chat": INFERENCE,
    "text_completion": INFERENCE,
    "generate_content": INFERENCE,
    "embeddings": INFERENCE,
}
NO_OPERATION = "no_gen_ai_operation"


def import_file(path: Path, limits: Limits = Limits()) -> tuple[list[dict], ImportSummary]:
    if path.name.lower().endswith(PROTOBUF_SUFFIXES):
        requests = iter([(None, _request_from_protobuf(path, limits))])
    else:
        requests = json_documents(path, limits)
    spans_by_trace, conversation = _collect_spans(requests, path, limits)
    require(
        bool(spans_by_trace),
        "no spans found",
        path,
        None,
        'expected an OTLP export: {"resourceSpans": [{"scopeSpans": [{"spans": [...]}]}]}',
    )
    traces, summary = [], ImportSummary()
    for trace_id in sorted(spans_by_trace):
        check_span_count(len(spans_by_trace[trace_id]), f"trace {trace_id}", limits, path)
        trace, one = build_trace(
            spans_by_trace[trace_id],
            trace_id=trace_id,
            task_id=conversation.get(trace_id),
            system=SYSTEM,
            source_format="otel",
        )
        traces.append(trace)
        summary.add(one)
    return traces, summary


def _collect_spans(
    requests, path: Path, limits: Limits
) -> tuple[dict[str, list[SourceSpan]], dict[str, str]]:
    """The spans of every request, by trace id, and each trace's conversation id. Requests
    are read one at a time and dropped once their spans are taken (a parsed request costs
    several times its spans); a trace is refused as soon as it has more spans than allowed."""
    spans_by_trace: dict[str, list[SourceSpan]] = {}
    conversation: dict[str, str] = {}
    order = 0
    for line, request in requests:
        for trace_id, span, conversation_id in _spans_of(request, path, line):
            span.order = order
            order += 1
            check_file_span_count(order, limits, path, line)
            spans = spans_by_trace.setdefault(trace_id, [])
            spans.append(span)
            if len(spans) > limits.max_events:
                check_span_count(len(spans), f"trace {trace_id}", limits, path)
            if conversation_id:
                conversation.setdefault(trace_id, conversation_id)
    return spans_by_trace, conversation


def _spans_of(request: Any, path: Path, line: int | None):
    require(
        isinstance(request, dict) and isinstance(request.get("resourceSpans"), list),
        "not an OTLP trace export: no resourceSpans list",
        path,
        line,
        "export with the OTLP JSON or file exporter",
    )
    for resource in request["resourceSpans"]:
        require(isinstance(resource, dict), "resourceSpans holds a non-object", path, line)
        scopes = resource.get("scopeSpans") or resource.get("instrumentationLibrarySpans") or []
        require(isinstance(scopes, list), "scopeSpans must be a list", path, line)
        for scope in scopes:
            require(
                isinstance(scope, dict) and isinstance(scope.get("spans", []), list),
                "scopeSpans entry without a spans list",
                path,
                line,
            )
            for raw in scope.get("spans", []):
                yield _span(raw, path, line)


def _span(raw: Any, path: Path, line: int | None) -> tuple[str, SourceSpan, str | None]:
    require(isinstance(raw, dict), "a span must be an object", path, line)
    for key in ("traceId", "spanId", "startTimeUnixNano"):
        require(
            bool(raw.get(key)),
            f"span without {key}",
            path,
            line,
            "every OTLP span has traceId, spanId and startTimeUnixNano",
        )
    attributes = raw.get("attributes") or []
    require(isinstance(attributes, list), "span attributes must be a list", path, line)
    attributes = attribute_dict(attributes)
    operation = attributes.get("gen_ai.operation.name")
    kind = KIND_OF_OPERATION.get(operation, GENERIC)
    start = number(raw["startTimeUnixNano"]) / 1e9
    end = number(raw.get("endTimeUnixNano") or raw["startTimeUnixNano"]) / 1e9
    name = ""
    if kind in (AGENT, CREATE_AGENT):
        name = attributes.get("gen_ai.agent.name") or attributes.get("gen_ai.agent.id") or ""
    elif kind == WORKFLOW:
        name = attributes.get("gen_ai.workflow.name") or ""
    elif kind == TOOL:
        name = (
            attributes.get("gen_ai.tool.name")
            or attributes.get("gen_ai.data_source.id")
            or operation
        )
    if not name and kind in (AGENT, WORKFLOW, CREATE_AGENT):
        name = str(raw.get("name", "")).split(" ", 1)[-1] or operation  # "invoke_agent Writer"
    tokens = 0
    if kind == INFERENCE:
        tokens = number(
            attributes.get(
                "gen_ai.usage.input_tokens", attributes.get("gen_ai.usage.prompt_tokens")
            )
        )
        tokens += number(
            attributes.get(
                "gen_ai.usage.output_tokens", attributes.get("gen_ai.usage.completion_tokens")
            )
        )
    extra: dict[str, Any] = {"source_name": str(raw.get("name", ""))}
    if attributes.get("gen_ai.request.model"):
        extra["model"] = str(attributes["gen_ai.request.model"])
    if attributes.get("gen_ai.tool.call.id"):
        extra["tool_call_id"] = str(attributes["gen_ai.tool.call.id"])
    status = raw.get("status") or {}
    if status.get("code") in ("STATUS_CODE_ERROR", 2):
        extra["error"] = True
    span = SourceSpan(
        span_id=str(raw["spanId"]),
        parent_id=str(raw["parentSpanId"]) if raw.get("parentSpanId") else None,
        kind=kind,
        source_kind=operation or NO_OPERATION,
        start=start,
        end=max(start, end),
        name=str(name),
        tokens=tokens,
        extra=extra,
    )
    return str(raw["traceId"]), span, attributes.get("gen_ai.conversation.id")


def attribute_dict(attributes: list) -> dict[str, Any]:
    """OTLP key-value attributes as a plain dict."""
    return {
        item["key"]: _any_value(item.get("value") or {})
        for item in attributes
        if isinstance(item, dict) and "key" in item
    }


def _any_value(value: dict) -> Any:
    if not isinstance(value, dict):
        return value
    for key in ("stringValue", "boolValue", "doubleValue"):
        if key in value:
            return value[key]
    if "intValue" in value:
        try:
            return int(value["intValue"])  # a string in OTLP JSON
        except (TypeError, ValueError):
            return value["intValue"]  # not an integer: kept as written
    if "arrayValue" in value:
        return [_any_value(v) for v in _values(value["arrayValue"])]
    if "kvlistValue" in value:
        return attribute_dict(_values(value["kvlistValue"]))
    return None


def _values(container: Any) -> list:
    values = container.get("values", []) if isinstance(container, dict) else []
    return values if isinstance(values, list) else []


# ---------------------------------------------------------------------------------------------
# Protobuf: decoded with opentelemetry-proto into the shape of OTLP JSON


def _request_from_protobuf(path: Path, limits: Limits) -> dict:
    try:
        from google.protobuf.message import DecodeError
        from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
            ExportTraceServiceRequest,
        )
    except ImportError:
        raise InputError(
            "reading OTLP protobuf needs the opentelemetry-proto package",
            path=path,
            hint="pip install 'masrl[otel]', or export OTLP JSON instead",
        ) from None
    from ..io import read_documents

    [document] = read_documents(path, limits)  # capped, and decompressed when gzip
    if document.problem is not None:
        problem = document.problem
        raise InputError(problem.message, path=path, hint=problem.hint or None)
    raw = document.raw
    request = ExportTraceServiceRequest()
    try:
        request.ParseFromString(raw)
    except DecodeError as exc:
        raise InputError(
            f"not an OTLP protobuf trace export ({exc})",
            path=path,
            hint="give OTLP JSON files a .json name",
        ) from None
    return {
        "resourceSpans": [
            {
                "scopeSpans": [
                    {"spans": [_proto_span(span) for span in scope.spans]}
                    for scope in resource.scope_spans
                ]
            }
            for resource in request.resource_spans
        ]
    }


def _proto_span(span) -> dict:
    return {
        "traceId": span.trace_id.hex(),
        "spanId": span.span_id.hex(),
        "parentSpanId": span.parent_span_id.hex(),
        "name": span.name,
        "startTimeUnixNano": span.start_time_unix_nano,
        "endTimeUnixNano": span.end_time_unix_nano,
        "attributes": [{"key": kv.key, "value": _proto_value(kv.value)} for kv in span.attributes],
        "status": {"code": span.status.code},
    }


def _proto_value(value) -> dict:
    which = value.WhichOneof("value")
    if which == "string_value":
        return {"stringValue": value.string_value}
    if which == "bool_value":
        return {"boolValue": value.bool_value}
    if which == "int_value":
        return {"intValue": value.int_value}
    if which == "double_value":
        return {"doubleValue": value.double_value}
    if which == "array_value":
        return {"arrayValue": {"values": [_proto_value(v) for v in value.array_value.values]}}
    if which == "kvlist_value":
        return {
            "kvlistValue": {
                "values": [
                    {"key": kv.key, "value": _proto_value(kv.value)}
                    for kv in value.kvlist_value.values
                ]
            }
        }
    return {}

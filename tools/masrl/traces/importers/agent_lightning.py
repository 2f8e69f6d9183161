"""Agent Lightning spans, as its store returns them: a JSON list of spans (or ``{"spans": [...]}``,
or JSON lines with one span a line). A span has rollout_id, attempt_id, sequence_id, trace_id,
span_id, parent_id, name, attributes (flat), and start_time and end_time in seconds.

Rewards are annotation spans: flattened ``agentlightning.reward.<i>.name`` / ``.value``
attributes, the first dimension being the primary reward (older versions wrote one ``reward``
attribute on a span named ``agentlightning.annotation`` or ``agentlightning.reward``). They
become the trace's rewards: channel ``team`` for an annotation outside any agent, ``agent:<name>``
inside one, further dimensions as ``team:<dimension>``; every annotation is listed in
``meta.reward_annotations``. Agents are spans with ``agent.name``; tools spans with ``tool.name``
or ``gen_ai.tool.name``; model calls spans with ``gen_ai.*`` request attributes; spans with a
GenAI ``gen_ai.operation.name`` map as in the OpenTelemetry importer. Other spans (messages,
objects, exceptions, operations) are kept as generic events. One masrl trace per rollout attempt.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from ..io import Limits
from ._source import check_file_span_count, check_span_count, json_documents, number, require
from .otel_genai import KIND_OF_OPERATION
from .span_tree import (
    AGENT,
    CREATE_AGENT,
    GENERIC,
    INFERENCE,
    REWARD,
    TOOL,
    WORKFLOW,
    ImportSummary,
    SourceSpan,
    build_trace,
)

SYSTEM = "agent-lightning"
REWARD_ATTRIBUTE = re.compile(r"^agentlightning\.reward\.(\d{1,9})\.(name|value)$")
LEGACY_REWARD_SPANS = ("agentlightning.annotation", "agentlightning.reward")


def _spans(path: Path, limits: Limits):
    for line, document in json_documents(path, limits):
        if isinstance(document, dict) and isinstance(document.get("spans"), list):
            document = document["spans"]
        for span in document if isinstance(document, list) else [document]:
            yield line, span


def import_file(path: Path, limits: Limits = Limits()) -> tuple[list[dict], ImportSummary]:
    attempts: dict[tuple[str, str], list[SourceSpan]] = {}
    trace_ids: dict[tuple[str, str], set] = {}
    for order, (line, raw) in enumerate(_spans(path, limits)):
        require(
            isinstance(raw, dict),
            "a span must be an object",
            path,
            line,
            "export the store's spans as a JSON list",
        )
        for key in ("rollout_id", "attempt_id", "span_id", "name", "start_time"):
            require(
                raw.get(key) is not None,
                f"span without {key}",
                path,
                line,
                "Agent Lightning spans carry rollout_id, attempt_id, span_id, name, start_time",
            )
        check_file_span_count(order + 1, limits, path, line)
        key = (str(raw["rollout_id"]), str(raw["attempt_id"]))
        span = _span(raw)
        span.order = (number(raw.get("sequence_id")), order)
        attempts.setdefault(key, []).append(span)
        trace_ids.setdefault(key, set()).add(str(raw.get("trace_id", "")))
    require(bool(attempts), "no spans found", path, None, "expected a JSON list of spans")
    traces, summary = [], ImportSummary()
    for rollout_id, attempt_id in sorted(attempts):
        key = (rollout_id, attempt_id)
        check_span_count(len(attempts[key]), f"attempt {rollout_id}/{attempt_id}", limits, path)
        trace, one = build_trace(
            attempts[key],
            trace_id=f"{rollout_id}/{attempt_id}",
            task_id=rollout_id,
            system=SYSTEM,
            source_format="agent-lightning",
            meta={
                "rollout_id": rollout_id,
                "attempt_id": attempt_id,
                "otel_trace_ids": sorted(trace_ids[key] - {""}),
            },
        )
        traces.append(trace)
        summary.add(one)
    return traces, summary


def rewards_of(name: str, attributes: dict[str, Any]) -> list[tuple[str, float]]:
    """The reward dimensions a span records, primary first; empty when it records none."""
    dimensions: dict[int, dict[str, Any]] = {}
    for key, value in attributes.items():
        match = REWARD_ATTRIBUTE.match(key)
        if match:
            dimensions.setdefault(int(match.group(1)), {})[match.group(2)] = value
    found = [
        (str(d.get("name") or f"dimension_{i}"), float(number(d["value"])))
        for i, d in sorted(dimensions.items())
        if isinstance(d.get("value"), (int, float)) and not isinstance(d.get("value"), bool)
    ]
    legacy = attributes.get("reward")
    if not found and name in LEGACY_REWARD_SPANS and isinstance(legacy, (int, float)):
        found = [("primary", float(number(legacy)))]
    return found


def _span(raw: dict) -> SourceSpan:
    attributes = raw.get("attributes") if isinstance(raw.get("attributes"), dict) else {}
    name = str(raw["name"])
    start = number(raw["start_time"])
    end = number(raw.get("end_time") if raw.get("end_time") is not None else start)
    rewards = rewards_of(name, attributes)
    operation = attributes.get("gen_ai.operation.name")
    label = ""
    tokens = 0
    if rewards:
        kind, source_kind = REWARD, "reward_annotation"
    elif operation in KIND_OF_OPERATION:
        kind, source_kind = KIND_OF_OPERATION[operation], operation
    elif attributes.get("agent.name"):
        kind, source_kind = AGENT, "agent"
    elif attributes.get("tool.name") or attributes.get("gen_ai.tool.name"):
        kind, source_kind = TOOL, "tool"
    elif attributes.get("gen_ai.request.model") or attributes.get("gen_ai.system"):
        kind, source_kind = INFERENCE, "llm_call"
    else:
        kind, source_kind = GENERIC, name
    if kind in (AGENT, CREATE_AGENT):
        label = attributes.get("agent.name") or attributes.get("gen_ai.agent.name") or name
    elif kind == WORKFLOW:
        label = attributes.get("gen_ai.workflow.name") or name
    elif kind == TOOL:
        label = attributes.get("tool.name") or attributes.get("gen_ai.tool.name") or name
    elif kind == INFERENCE:
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
    extra: dict[str, Any] = {"source_name": name}
    if attributes.get("gen_ai.request.model"):
        extra["model"] = str(attributes["gen_ai.request.model"])
    status = raw.get("status") if isinstance(raw.get("status"), dict) else {}
    if status.get("status_code") == "ERROR":
        extra["error"] = True
    return SourceSpan(
        span_id=str(raw["span_id"]),
        parent_id=str(raw["parent_id"]) if raw.get("parent_id") else None,
        kind=kind,
        source_kind=source_kind,
        start=start,
        end=max(start, end),
        name=str(label),
        tokens=tokens,
        rewards=rewards,
        extra=extra,
    )

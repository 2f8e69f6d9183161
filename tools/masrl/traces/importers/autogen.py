"""AutoGen AgentChat runs: the messages and events a team run produces, as AutoGen serialises
a ``TaskResult`` (``{"messages": [...], "stop_reason": ...}``), a bare list of messages, or JSON
lines with one message a line (what ``run_stream`` yields). A file of several TaskResults (JSON
lines) gives one trace each.

A message has ``type``, ``source`` (the sender), ``models_usage`` and, in recent versions, ``id``
and ``created_at``. Group-chat messages have no addressee: a chat message goes ``to`` whoever
speaks next. Mapping:

* TextMessage, MultiModalMessage, ToolCallSummaryMessage: ``message`` events;
* ToolCallRequestEvent: one ``tool_call`` per function call; ToolCallExecutionEvent: one
  ``tool_result`` per result, joined to its call by ``call_id`` (``tool_dependency`` edge);
* HandoffMessage: an ``orchestrator_decision`` with decision ``delegate`` to its ``target``;
  SelectSpeakerEvent: decision ``route`` to the chosen speaker; StopMessage: decision ``stop``;
* the run's ``stop_reason`` becomes a final stop decision by the team;
* every other type (thoughts, memory queries, code events, streaming chunks, newer types) is
  kept as a generic event and counted.

Message text is not copied: events carry a ``content_ref`` hash of it. Events follow one another
(``causal`` edges in message order); weights are units, as AutoGen records no durations.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from pathlib import Path
from typing import Any

from ..io import Limits
from ..schema import SCHEMA_VERSION
from ._source import (
    check_file_span_count,
    check_span_count,
    iso_seconds,
    json_documents,
    number,
    require,
)
from .span_tree import UNMAPPED_EVENT_TYPE, ImportSummary

SYSTEM = "autogen-agentchat"
CHAT_TYPES = frozenset({"TextMessage", "MultiModalMessage", "ToolCallSummaryMessage"})
TEAM = "team"


def _content_ref(content: Any) -> str:
    text = content if isinstance(content, str) else json.dumps(content, sort_keys=True, default=str)
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def _is_message(document: Any) -> bool:
    return isinstance(document, dict) and "type" in document and "source" in document


def _runs(path: Path, limits: Limits):
    """(line, messages, stop_reason) for each run in the file."""
    documents = list(json_documents(path, limits))
    if documents and all(_is_message(d) for _, d in documents):  # one message a line
        yield documents[0][0], [d for _, d in documents], None
        return
    for line, document in documents:
        if isinstance(document, dict) and isinstance(document.get("messages"), list):
            yield line, document["messages"], document.get("stop_reason")
        elif isinstance(document, list):
            yield line, document, None
        else:
            require(
                False,
                "not an AutoGen run: expected a TaskResult with messages, or a list of messages",
                path,
                line,
                "save result.model_dump(mode='json')",
            )


def import_file(path: Path, limits: Limits = Limits()) -> tuple[list[dict], ImportSummary]:
    traces, summary = [], ImportSummary()
    messages_read = 0
    for line, messages, stop_reason in _runs(path, limits):
        check_span_count(len(messages), "AutoGen run", limits, path, line, "messages")
        messages_read += len(messages)  # every run's events are kept until all are written
        check_file_span_count(messages_read, limits, path, line, "messages in the file")
        trace, one = _trace(messages, stop_reason, path, line)
        traces.append(trace)
        summary.add(one)
    require(bool(traces), "no AutoGen run found", path, None)
    return traces, summary


class _Run:
    def __init__(self, path: Path, line: int | None):
        self.path, self.line = path, line
        self.events: list[dict] = []
        self.edges: list[dict] = []
        self.ids: set[str] = set()
        self.previous: list[str] = []  # what the next event waits for
        self.calls: dict[str, str] = {}  # call id -> event id
        self.summary = ImportSummary()

    def add(
        self, event: dict, depends_on: list[str] | None = None, edge_type: str = "causal"
    ) -> str:
        """Add an event after ``depends_on`` (default: whatever came last)."""
        require(
            event["id"] not in self.ids,
            f"message id {event['id']!r} occurs twice",
            self.path,
            self.line,
        )
        self.ids.add(event["id"])
        self.events.append(event)
        for source in self.previous if depends_on is None else depends_on:
            self.edges.append({"src": source, "dst": event["id"], "type": edge_type})
        self.previous = [event["id"]]
        return event["id"]


def _trace(messages: list, stop_reason: Any, path: Path, line: int | None):
    require(bool(messages), "an AutoGen run without messages", path, line)
    run = _Run(path, line)
    origin = None
    t = 0.0
    tokens = 0
    speakers = [m.get("source") if isinstance(m, dict) else None for m in messages]
    kinds = Counter()
    for index, message in enumerate(messages):
        require(
            _is_message(message),
            f"messages[{index}] is not an AutoGen message (needs type and source)",
            path,
            line,
        )
        kind, source = str(message["type"]), str(message["source"])
        kinds[kind] += 1
        if message.get("created_at"):
            seconds = iso_seconds(
                message["created_at"], f"messages[{index}].created_at", path, line
            )
            origin = seconds if origin is None else origin
            t = max(t, round(seconds - origin, 6))  # clocks only move forward in a run
        usage = message.get("models_usage") if isinstance(message.get("models_usage"), dict) else {}
        tokens += number(usage.get("prompt_tokens")) + number(usage.get("completion_tokens"))
        base = str(message.get("id") or f"m{index}")
        common = {"t": t, "agent": source, "source_kind": kind, "source_span_id": base}
        content = message.get("content")
        if kind in CHAT_TYPES:
            after = next((s for s in speakers[index + 1 :] if s and s != source), None)
            event = {"id": base, "type": "message", "from": source, **common}
            if after:
                event["to"] = after
            run.add({**event, "content_ref": _content_ref(content)})
        elif kind == "ToolCallRequestEvent" and isinstance(content, list):
            before, made = run.previous, []
            for position, call in enumerate(content):  # parallel calls: all wait for the same
                call = call if isinstance(call, dict) else {}
                made.append(
                    run.add(
                        {
                            "id": f"{base}:{position}",
                            "type": "tool_call",
                            "tool": str(call.get("name", "")),
                            **common,
                            "tool_call_id": str(call.get("id", "")),
                        },
                        before,
                    )
                )
                run.calls[str(call.get("id", ""))] = made[-1]
            run.previous = made or before
        elif kind == "ToolCallExecutionEvent" and isinstance(content, list):
            before, made = run.previous, []
            for position, result in enumerate(content):
                result = result if isinstance(result, dict) else {}
                name = str(result.get("name") or "tool")
                call = run.calls.get(str(result.get("call_id", "")))
                made.append(
                    run.add(
                        {
                            "id": f"{base}:{position}",
                            "type": "tool_result",
                            **common,
                            "agent": name,
                            "tool": name,
                            "tool_call_id": str(result.get("call_id", "")),
                            "content_ref": _content_ref(result.get("content")),
                        },
                        [call] if call else before,
                        "tool_dependency" if call else "causal",
                    )
                )
            run.previous = made or before
        elif kind == "HandoffMessage":
            run.add(
                {
                    "id": base,
                    "type": "orchestrator_decision",
                    "decision": "delegate",
                    "to": str(message.get("target", "")),
                    **common,
                }
            )
        elif kind == "SelectSpeakerEvent":
            chosen = content[0] if isinstance(content, list) and content else content
            run.add(
                {
                    "id": base,
                    "type": "orchestrator_decision",
                    "decision": "route",
                    "to": str(chosen),
                    **common,
                }
            )
        elif kind == "StopMessage":
            run.add(
                {
                    "id": base,
                    "type": "orchestrator_decision",
                    "decision": "stop",
                    "reason": str(content),
                    **common,
                }
            )
        else:
            run.summary.generic[kind] += 1
            run.add({"id": base, "type": UNMAPPED_EVENT_TYPE, "generic": True, **common})
    if stop_reason:
        run.add(
            {
                "id": "stop",
                "type": "orchestrator_decision",
                "agent": TEAM,
                "t": t,
                "decision": "stop",
                "reason": str(stop_reason),
                "source_kind": "stop_reason",
            }
        )
    first = messages[0]
    trace_id = str(first.get("id") or f"{path.stem}:{line or 1}")
    task = next((m for m in messages if m.get("type") == "TextMessage"), first)
    events = run.events
    trace = {
        "schema_version": SCHEMA_VERSION,
        "trace_id": trace_id,
        "task_id": "task-" + _content_ref(task.get("content")).split(":")[1],
        "system": SYSTEM,
        "topology": "unknown",
        "events": events,
        "edges": run.edges,
        "rewards": {},
        "costs": {
            "tokens": tokens,
            "wall_clock_s": t,
            "tool_calls": sum(e["type"] == "tool_call" for e in events),
            "messages": sum(e["type"] == "message" for e in events),
        },
        "meta": {
            "source_format": "autogen",
            **({"stop_reason": str(stop_reason)} if stop_reason else {}),
        },
    }
    summary = run.summary
    summary.traces, summary.spans, summary.events = 1, len(messages), len(events)
    summary.by_source_kind.update(kinds)
    return trace, summary

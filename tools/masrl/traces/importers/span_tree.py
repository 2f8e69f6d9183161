"""From a tree of spans (any tracing system's) to a masrl trace: the mapping every span-based
importer shares. Each importer only reads its format into ``SourceSpan`` objects.

How spans become events:

* an agent span nested in another agent's span (or a workflow's) opens with a ``spawn`` event
  by the enclosing agent and closes with a ``return`` event back to it; a top-level agent span
  opens with a ``message`` to the agent, from the user or, after a hand-off, from the agent that
  handed over;
* a tool span is a ``tool_call``; a hand-off span an ``orchestrator_decision`` with decision
  ``delegate``; a guardrail span a ``safety_event``; a create-agent span a ``spawn``;
* model calls (chat, generation) and every span kind the importer does not know have no masrl
  event type of their own: they become ``aggregate`` events marked with ``source_kind`` (and
  ``generic: true`` for unknown kinds), counted in the import summary, never dropped;
* reward annotations become the trace's ``rewards``, not events.

Edges follow the tree: the children of a span run in groups (a group starts when a child starts
after every earlier sibling ended), each group depends on the previous group's last events, so
sequential calls form a chain and parallel calls a fan-out and join. Leaf spans weigh their
duration; events that only open or close a container weigh nothing, so work is not counted twice.
Every event keeps the source span id (``source_span_id``) and kind (``source_kind``).
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from ...errors import InputError
from ..schema import SCHEMA_VERSION

# The masrl event type of each span kind that has one.
AGENT, WORKFLOW, TOOL, INFERENCE, HANDOFF, GUARDRAIL, CREATE_AGENT, REWARD, GENERIC = (
    "agent",
    "workflow",
    "tool",
    "inference",
    "handoff",
    "guardrail",
    "create_agent",
    "reward",
    "generic",
)
CONTAINER_KINDS = frozenset({AGENT, WORKFLOW})
CALLER = "user"  # who starts a top-level agent when the trace does not say
UNMAPPED_EVENT_TYPE = "aggregate"  # the schema has no type for model calls or unknown spans
EDGE_TYPE_AFTER = {
    "spawn": "spawn",
    "return": "return",
    "tool_call": "tool_dependency",
    "message": "message",
}
DIGITS = 6  # times in seconds, rounded so output does not depend on float noise


@dataclass(slots=True)  # slots: a trace may hold a million spans
class SourceSpan:
    """One span, read from any format. Times are seconds (any origin); ``kind`` is one of the
    constants above; ``source_kind`` is the span's own kind or operation name."""

    span_id: str
    parent_id: str | None
    kind: str
    source_kind: str
    start: float
    end: float
    name: str = ""  # agent name for agent/workflow/create_agent spans, tool name for tools
    handoff_from: str | None = None
    handoff_to: str | None = None
    tokens: float = 0  # model-call spans only, so usage is not counted twice
    rewards: list[tuple[str, float]] = field(default_factory=list)  # reward spans
    extra: dict[str, Any] = field(default_factory=dict)  # kept on the event as is
    order: int = 0  # position in the source, the tie-break after start time


@dataclass
class ImportSummary:
    """What an import made of its input: counted so that nothing is dropped silently."""

    traces: int = 0
    spans: int = 0
    events: int = 0
    by_source_kind: Counter = field(default_factory=Counter)
    generic: Counter = field(default_factory=Counter)  # unknown kinds kept as generic events
    rewards: int = 0

    def add(self, other: ImportSummary) -> None:
        self.traces += other.traces
        self.spans += other.spans
        self.events += other.events
        self.by_source_kind.update(other.by_source_kind)
        self.generic.update(other.generic)
        self.rewards += other.rewards

    def as_dict(self) -> dict[str, Any]:
        return {
            "traces": self.traces,
            "spans": self.spans,
            "events": self.events,
            "rewards": self.rewards,
            "by_source_kind": dict(sorted(self.by_source_kind.items())),
            "generic": dict(sorted(self.generic.items())),
        }

    def as_text(self) -> str:
        kinds = ", ".join(f"{k} {v}" for k, v in sorted(self.by_source_kind.items()))
        text = (
            f"imported {self.traces} trace(s) from {self.spans} span(s): "
            f"{self.events} event(s), {self.rewards} reward annotation(s); span kinds: {kinds}"
        )
        if self.generic:
            unknown = ", ".join(f"{k} {v}" for k, v in sorted(self.generic.items()))
            text += f"; kept as generic events: {unknown}"
        return text


def _round(value: float) -> float:
    if not math.isfinite(value):  # times far apart, or counts summed beyond float range
        raise InputError(
            "times or token counts beyond the range of a 64-bit float",
            hint="times are seconds (or nanoseconds in OTLP); counts must be finite",
        )
    value = round(value, DIGITS)
    return int(value) if value.is_integer() else value


_REWARD = ("reward",)  # a frame's closing for a reward span: it finishes nothing


class _Frame:
    """One level of the walk: the children of one span (or the roots), the next to run, the group being formed, and what closes the span (None: nothing; a
    ``(span, caller)`` pair: a sub-agent's return; ``_REWARD``)."""

    __slots__ = (
        "agent",
        "children",
        "index",
        "frontier",
        "group_sinks",
        "group_end",
        "not_before",
        "closing",
    )

    def __init__(self, agent, children, dependencies, not_before, closing):
        self.agent, self.children = agent, children
        self.index = 0
        self.frontier = list(dependencies)  # what the current group depends on
        self.group_sinks: list[str] = []
        self.group_end: float | None = None
        self.not_before = not_before
        self.closing = closing


class _Builder:
    def __init__(self, spans: list[SourceSpan]):
        self.by_id = {span.span_id: span for span in spans}
        self.children: dict[str | None, list[SourceSpan]] = {}
        for span in spans:
            parent = span.parent_id if span.parent_id in self.by_id else None
            self.children.setdefault(parent, []).append(span)
        for siblings in self.children.values():
            siblings.sort(key=lambda s: (s.start, s.order))
        self.origin = min(span.start for span in spans)
        self.events: list[dict] = []
        self.type_of: dict[str, str] = {}
        self.visited = 0
        self.edges: list[dict] = []
        self.rewards: dict[str, float] = {}
        self.reward_annotations: list[dict] = []
        self.pending_handoffs: dict[str, str] = {}  # to_agent -> from_agent
        self.summary = ImportSummary(spans=len(spans))

    # -- events and edges

    def _t(self, seconds: float) -> float:
        return _round(max(0.0, seconds - self.origin))

    def _event(
        self,
        span: SourceSpan,
        suffix: str,
        event_type: str,
        agent: str,
        t: float,
        duration: float,
        **fields,
    ) -> str:
        event_id = f"{span.span_id}{suffix}"
        event = {
            "id": event_id,
            "t": self._t(t),
            "type": event_type,
            "agent": agent,
            "duration_s": _round(max(0.0, duration)),
        }
        event.update({k: v for k, v in fields.items() if v is not None})
        event["source_span_id"] = span.span_id
        event["source_kind"] = span.source_kind
        event.update(span.extra)
        self.events.append(event)
        self.type_of[event_id] = event_type
        return event_id

    def _link(self, sources: list[str], target: str) -> None:
        for source in sources:
            edge_type = EDGE_TYPE_AFTER.get(self.type_of[source], "causal")
            self.edges.append({"src": source, "dst": target, "type": edge_type})

    # -- the walk: iterative, with an explicit stack of frames, so a chain of spans as deep as
    # the span cap allows neither overflows Python's stack nor costs a Python frame a level

    def build(self) -> None:
        stack = [_Frame(None, self.children.get(None, ()), [], self.origin, None)]
        while stack:
            frame = stack[-1]
            if frame.index < len(frame.children):
                child = frame.children[frame.index]
                frame.index += 1
                # Clocks of different processes disagree: a child never starts before its parent.
                child.start = max(child.start, frame.not_before)
                child.end = max(child.end, child.start)
                if frame.group_end is not None and child.start >= frame.group_end:
                    frame.frontier, frame.group_sinks, frame.group_end = frame.group_sinks, [], None
                stack.append(self._open(child, frame.agent, frame.frontier))
                continue
            stack.pop()
            sinks = self._close(frame, frame.group_sinks or frame.frontier)
            if stack and sinks:
                parent = stack[-1]
                ended = parent.children[parent.index - 1].end
                parent.group_sinks.extend(sinks)
                parent.group_end = (
                    ended if parent.group_end is None else max(parent.group_end, ended)
                )

    def _frame(self, span: SourceSpan, agent, dependencies: list[str], closing) -> _Frame:
        """The frame that runs the children of ``span``; ``closing`` says what ends it."""
        children = self.children.get(span.span_id, ())
        return _Frame(agent, children, dependencies, span.start, closing)

    def _open(self, span: SourceSpan, agent: str | None, dependencies: list[str]) -> _Frame:
        """Emit what opens ``span``; the frame that runs its children."""
        self.summary.by_source_kind[span.source_kind] += 1
        self.visited += 1
        kind = span.kind
        if kind == REWARD:  # a score, not an action: no event, and nothing waits for it
            self._reward(span, agent)
            return self._frame(span, agent, list(dependencies), _REWARD)
        leaf = not self.children.get(span.span_id)
        duration = span.end - span.start if leaf else 0.0
        actor = agent or CALLER
        if kind in CONTAINER_KINDS:
            return self._open_container(span, agent, dependencies)
        if kind == TOOL:
            opened = self._event(
                span, "", "tool_call", actor, span.start, duration, tool=span.name or None
            )
        elif kind == HANDOFF:
            source = span.handoff_from or actor
            if span.handoff_to:
                self.pending_handoffs[span.handoff_to] = source
            opened = self._event(
                span,
                "",
                "orchestrator_decision",
                source,
                span.start,
                duration,
                decision="delegate",
                to=span.handoff_to,
            )
        elif kind == GUARDRAIL:
            opened = self._event(
                span, "", "safety_event", actor, span.start, duration, tool=span.name or None
            )
        elif kind == CREATE_AGENT:
            opened = self._event(
                span, "", "spawn", actor, span.start, duration, to=span.name or None
            )
        else:  # a model call, or a kind nobody mapped
            if kind == GENERIC:
                self.summary.generic[span.source_kind] += 1
            opened = self._event(
                span,
                "",
                UNMAPPED_EVENT_TYPE,
                actor,
                span.start,
                duration,
                generic=True if kind == GENERIC else None,
            )
        self._link(dependencies, opened)
        return self._frame(span, agent, [opened], None)

    def _open_container(self, span, agent, dependencies) -> _Frame:
        name = span.name or span.source_kind
        if agent is not None:  # a sub-agent (or a workflow's agent): spawned, then returns
            opened = self._event(span, "", "spawn", agent, span.start, 0.0, to=name)
        else:
            sender = self.pending_handoffs.pop(name, CALLER)
            opened = self._event(
                span, "", "message", sender, span.start, 0.0, **{"from": sender, "to": name}
            )
        self._link(dependencies, opened)
        # A top-level agent answers the caller: no hand-back event closes it.
        return self._frame(span, name, [opened], None if agent is None else (span, agent))

    def _close(self, frame: _Frame, sinks: list[str]) -> list[str]:
        """The events that finish a span, once its children ran (``sinks`` finish those)."""
        if frame.closing is None:
            return sinks
        if frame.closing is _REWARD:
            return []
        span, caller = frame.closing
        name = frame.agent
        closed = self._event(
            span, ":end", "return", name, span.end, 0.0, **{"from": name, "to": caller}
        )
        self._link(sinks, closed)
        return [closed]

    def _reward(self, span: SourceSpan, agent: str | None) -> None:
        channel = "team" if agent is None else f"agent:{agent}"
        self.summary.rewards += 1
        for position, (dimension, value) in enumerate(span.rewards):
            # The first dimension is the primary reward; the others narrow the channel.
            name = channel if position == 0 else f"{channel}:{dimension}"
            self.rewards[name] = value  # the last annotation on a channel is the final reward
            self.reward_annotations.append(
                {
                    "channel": name,
                    "dimension": dimension,
                    "value": value,
                    "t": self._t(span.start),
                    "source_span_id": span.span_id,
                }
            )


def _check_span_ids(spans: list[SourceSpan], source_format: str) -> None:
    seen: set[str] = set()
    for span in spans:
        if span.span_id in seen:
            raise InputError(
                f"{source_format}: span id {span.span_id!r} occurs twice in one trace",
                hint="span ids must be unique within a trace",
            )
        seen.add(span.span_id)


def build_trace(
    spans: list[SourceSpan],
    *,
    trace_id: str,
    task_id: str | None,
    system: str,
    source_format: str,
    meta: dict[str, Any] | None = None,
) -> tuple[dict, ImportSummary]:
    """One masrl trace from the spans of one run; the summary of what became of them."""
    _check_span_ids(spans, source_format)
    builder = _Builder(spans)
    builder.build()
    if builder.visited != len(spans):
        raise InputError(
            f"{source_format} trace {trace_id}: {len(spans) - builder.visited} span(s) have "
            "parent links that form a cycle",
            hint="each span's parent must be another span of the trace, or none",
        )
    if not builder.events:  # only reward annotations: keep the run, as one generic event
        first = min(spans, key=lambda s: (s.start, s.order))
        builder._event(first, ":run", UNMAPPED_EVENT_TYPE, CALLER, first.start, 0.0, generic=True)
    events = builder.events
    tokens = sum(span.tokens for span in spans if span.kind == INFERENCE)
    wall_clock = max(span.end for span in spans) - builder.origin
    trace = {
        "schema_version": SCHEMA_VERSION,
        "trace_id": trace_id,
        "task_id": task_id or trace_id,
        "system": system,
        "topology": "unknown",
        "events": events,
        "edges": builder.edges,
        "rewards": builder.rewards,
        "costs": {
            "tokens": _round(float(tokens)),
            "wall_clock_s": _round(max(0.0, wall_clock)),
            "tool_calls": sum(event["type"] == "tool_call" for event in events),
            "messages": sum(event["type"] == "message" for event in events),
        },
        "meta": {
            "source_format": source_format,
            "source_trace_id": trace_id,
            **(meta or {}),
            **(
                {"reward_annotations": builder.reward_annotations}
                if builder.reward_annotations
                else {}
            ),
        },
    }
    summary = builder.summary
    summary.traces = 1
    summary.events = len(events)
    return trace, summary

"""`masrl trace export --to perfetto`: a trace as Chrome trace-event JSON, which the Perfetto UI
(ui.perfetto.dev) and chrome://tracing open.

The layout follows the Trace Event Format's JSON object form:

* each trace in the file is a process (``pid``), named after its trace id by a ``process_name``
  metadata event (``ph: "M"``);
* each agent is a thread (``tid``) named by ``thread_name`` and ordered by ``thread_sort_index``
  in order of first appearance. Slices on one thread must nest; when an agent's events overlap
  without nesting (parallel calls), the extra ones go to a further thread of that agent
  (``agent #2``), so nothing is drawn on top of something else;
* each event is a complete slice (``ph: "X"``) starting at ``t`` seconds, in microseconds, and
  lasting ``duration_s`` (at least 1 µs, so every slice can anchor an arrow), with the event's
  fields as ``args``;
* spawn, message and return edges, and every edge between two agents (hand-offs among them),
  are flows: a ``ph: "s"`` event at the source slice's start and a ``ph: "f"`` event with
  ``bp: "e"`` at the target slice's start, sharing an ``id``. Flow events carry the same
  ``cat`` as every slice, so viewers that bind flows by (cat, pid, tid, ts) find the slice too.

Output is deterministic: the same trace gives the same bytes.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..errors import InputError
from .io import Limits, read_traces
from .validate import validate_trace

CATEGORY = "masrl"
MICROSECONDS = 1_000_000
MIN_DURATION_US = 1
FLOW_EDGE_TYPES = frozenset({"spawn", "message", "return"})
CHUNK_ITEMS = 4096  # trace events encoded and written together


def _microseconds(seconds: float) -> int | float:
    value = round(seconds * MICROSECONDS, 3)
    return int(value) if float(value).is_integer() else value


def _slice_name(event: dict) -> str:
    detail = event.get("tool") or event.get("decision") or event.get("to")
    return f"{event['type']} {detail}" if detail else event["type"]


class _Lanes:
    """Threads of one process: one per agent, plus more where an agent's slices overlap."""

    def __init__(self):
        self.tids: dict[tuple[str, int], int] = {}
        self.open: dict[tuple[str, int], list[tuple[float, float]]] = {}

    def place(self, agent: str, start: float, end: float) -> int:
        lane = 0
        while True:
            key = (agent, lane)
            stack = self.open.setdefault(key, [])
            while stack and stack[-1][1] <= start:  # slices that ended before this one starts
                stack.pop()
            if not stack or end <= stack[-1][1]:  # empty lane, or nests in the open slice
                stack.append((start, end))
                return self.tids.setdefault(key, len(self.tids) + 1)
            lane += 1

    def names(self) -> list[tuple[int, str]]:
        return [
            (tid, agent if lane == 0 else f"{agent} #{lane + 1}")
            for (agent, lane), tid in self.tids.items()
        ]


def trace_events(trace: dict, pid: int = 1, flow_ids: list[int] | None = None) -> Iterator[dict]:
    """The trace-event list for one valid masrl trace, as process ``pid``: made one item at a
    time, so a trace of a million events is never held twice (as events and as slices)."""
    flow_ids = flow_ids if flow_ids is not None else [0]
    events = sorted(
        range(len(trace["events"])),
        # Longer slices first at equal start, so a slice is placed before the ones it encloses.
        key=lambda index: _slice_order(trace["events"][index], index),
    )
    lanes = _Lanes()
    where: dict[str, tuple[int, int | float, int | float]] = {}  # event id -> (tid, ts, dur)
    for index in events:
        event = trace["events"][index]
        ts = _microseconds(event["t"])
        dur = max(MIN_DURATION_US, _microseconds(event.get("duration_s") or 0))
        where[event["id"]] = (lanes.place(event["agent"], ts, ts + dur), ts, dur)
    yield from _metadata(trace, pid, lanes)
    for index in events:
        event = trace["events"][index]
        tid, ts, dur = where[event["id"]]
        yield {
            "name": _slice_name(event),
            "cat": CATEGORY,
            "ph": "X",
            "ts": ts,
            "dur": dur,
            "pid": pid,
            "tid": tid,
            "args": event,
        }
    del events
    agent_of = {event["id"]: event["agent"] for event in trace["events"]}
    for edge in trace["edges"]:
        src, dst = edge["src"], edge["dst"]
        if edge["type"] not in FLOW_EDGE_TYPES and agent_of[src] == agent_of[dst]:
            continue
        flow_ids[0] += 1
        (src_tid, src_ts, _), (dst_tid, dst_ts, _) = where[src], where[dst]
        common = {"name": edge["type"], "cat": CATEGORY, "id": flow_ids[0], "pid": pid}
        yield {**common, "ph": "s", "ts": src_ts, "tid": src_tid}
        yield {**common, "ph": "f", "bp": "e", "ts": dst_ts, "tid": dst_tid}


def _slice_order(event: dict, index: int) -> tuple:
    return (event["t"], -(event.get("duration_s") or 0), index)


def _metadata(trace: dict, pid: int, lanes: _Lanes) -> list[dict]:
    """The process's and its threads' names and order."""
    metadata = [
        {
            "name": "process_name",
            "ph": "M",
            "pid": pid,
            "tid": 0,
            "args": {"name": f"trace {trace['trace_id']}"},
        },
        {
            "name": "process_sort_index",
            "ph": "M",
            "pid": pid,
            "tid": 0,
            "args": {"sort_index": pid},
        },
    ]
    for tid, name in sorted(lanes.names()):
        metadata.append(
            {"name": "thread_name", "ph": "M", "pid": pid, "tid": tid, "args": {"name": name}}
        )
        metadata.append(
            {
                "name": "thread_sort_index",
                "ph": "M",
                "pid": pid,
                "tid": tid,
                "args": {"sort_index": tid},
            }
        )
    return metadata


def perfetto_document(traces: list[dict]) -> dict[str, Any]:
    """The trace-event JSON object for several traces, one process each."""
    flow_ids = [0]
    events: list[dict] = []
    for pid, trace in enumerate(traces, start=1):
        events.extend(trace_events(trace, pid, flow_ids))
    return {
        "traceEvents": events,
        "displayTimeUnit": "ms",
        "otherData": _other_data(len(traces)),
    }


def _other_data(traces: int) -> dict[str, Any]:
    return {"generator": "masrl trace export", "traces": traces}


def export_perfetto(path: Path | str, line: int | None = None, limits: Limits = Limits()) -> str:
    """The traces of one file (or the one on ``line`` of a .jsonl file) as trace-event JSON.
    Every exported trace must validate: the layout relies on edges between existing events."""
    return "".join(perfetto_chunks(path, line, limits))


def perfetto_chunks(
    path: Path | str, line: int | None = None, limits: Limits = Limits()
) -> Iterator[str]:
    """``export_perfetto``'s text, the same bytes, in pieces: one trace is read, checked and
    written at a time, and its slices are made as they are written. A trace that is invalid
    raises InputError mid-way, so write the pieces atomically (``files.write_atomic``)."""
    dump = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
    written = 0
    flow_ids = [0]
    separator = ""  # none before the first item of the list
    try:
        for data in _valid_traces(path, line, limits):
            written += 1
            if written == 1:  # nothing comes out before the first trace is read and checked
                yield '{"traceEvents":['
            batch = []
            for item in trace_events(data, written, flow_ids):
                batch.append(dump(item))
                if len(batch) == CHUNK_ITEMS:
                    yield separator + ",".join(batch)
                    separator, batch = ",", []
            if batch:
                yield separator + ",".join(batch)
                separator = ","
    except RecursionError:  # event fields nested near the reader's limit
        raise InputError(
            "nested too deeply to export",
            path=path,
            hint="keep event fields within a few hundred levels",
        ) from None
    if not written:
        raise InputError(f"no trace on line {line}" if line else "no trace found", path=path)
    yield f'],"displayTimeUnit":"ms","otherData":{dump(_other_data(written))}}}\n'


def _valid_traces(path: Path | str, line: int | None, limits: Limits) -> Iterator[dict]:
    for record in read_traces(path, limits):
        if line is not None and record.line != line:
            continue
        if record.problem is not None:
            raise InputError(
                record.problem.message,
                path=path,
                line=record.problem.line,
                hint=record.problem.hint or None,
            )
        report = validate_trace(record.data, str(path), record.line, max_problems=1)
        if not report.ok:
            first = report.problems[0]
            raise InputError(
                f"invalid trace: {first.pointer}: {first.message}",
                path=path,
                line=record.line,
                hint="run masrl trace validate for every problem",
            )
        yield record.data

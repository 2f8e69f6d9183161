"""`masrl trace metrics`: orchestration metrics recomputed from a trace's event graph.

Per trace:

* work: the summed weight of all events; an event weighs its ``duration_s`` when given, else
  one unit (``weight_basis`` says which: duration_s, unit or mixed);
* span: the heaviest path through the dependency graph (every edge type but temporal), i.e.
  the critical path, node-weighted like work; the time the run needs with unlimited agents;
* parallelism = work / span, the ideal speedup (1 for a single chain);
* observed_speedup = work / wall clock, when every event has a duration;
* spawn structure: the largest number of agents one agent spawned (max_fan_out) and the depth
  of the spawn tree (agents never spawned are roots, at depth 0);
* counts and costs: messages (message events), messages per agent, tool calls (tool_call
  events), tokens and wall clock from ``costs``; the stop decision and its reason; the reward
  on every channel, as ``reward.<channel>`` columns.

Invalid traces get no metrics: they are reported as problems instead.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from dataclasses import dataclass, field
from functools import partial
from itertools import compress, repeat
from operator import lt, ne
from pathlib import Path
from typing import Any

from ..csvsafe import csv_text
from ..errors import InputError
from ..problems import Problem
from .check_graph import NON_DEPENDENCY_EDGE_TYPES
from .graph import compressed_adjacency, topological_order
from .io import Limits, find_trace_files, gc_paused, map_files, read_documents
from .problems import TraceReport, unreadable
from .validate import check_document, validate_trace
from .view import TraceView

# Column order of every output; reward.<channel> columns follow, sorted.
COLUMNS = (
    "file",
    "line",
    "trace_id",
    "task_id",
    "topology",
    "events",
    "edges",
    "agents",
    "work",
    "span",
    "parallelism",
    "weight_basis",
    "observed_speedup",
    "max_fan_out",
    "spawn_depth",
    "messages",
    "messages_per_agent",
    "tool_calls",
    "tokens",
    "wall_clock_s",
    "stop_event",
    "stop_reason",
)
TABLE_COLUMNS = (
    "trace_id",
    "topology",
    "events",
    "agents",
    "work",
    "span",
    "parallelism",
    "observed_speedup",
    "max_fan_out",
    "spawn_depth",
    "tool_calls",
    "tokens",
    "stop_reason",
)
DIGITS = 6  # computed ratios are rounded, so output does not depend on float noise


class InvalidTraceError(InputError):
    """Metrics were asked of a trace that does not validate."""

    def __init__(self, report: TraceReport):
        self.report = report
        first = report.problems[0] if report.problems else None
        super().__init__(
            f"invalid trace ({report.errors} error(s))"
            + (f"; first: {first.pointer}: {first.message}" if first else "")
        )


class MetricRangeError(InputError):
    """A metric of a valid trace falls outside what a 64-bit float holds (say, six seconds of
    work over a wall clock of 5e-324 s): reported as a problem, never printed as Infinity."""

    def __init__(self, metric: str, pointer: str, why: str):
        super().__init__(f"{metric}: {why} is out of range of a 64-bit float")
        self.metric, self.pointer = metric, pointer  # pointer: the JSON path inside the trace


# ---------------------------------------------------------------------------------------------
# Graph measures


@dataclass(frozen=True)
class CriticalPath:
    work: float
    span: float
    weight_basis: str  # duration_s | unit | mixed


def event_weights(view: TraceView) -> tuple[list, str]:
    """Each event's weight (duration_s, else 1) and which kind of weights those are."""
    durations = view.durations
    given = sum(map(ne, durations, repeat(None)))
    if given == 0:
        return [1] * len(durations), "unit"
    if given == len(durations):
        return durations, "duration_s"
    return [1 if duration is None else duration for duration in durations], "mixed"


def _dependency_edges(view: TraceView) -> tuple[list[int], list[int]]:
    """Dependency edges (all but temporal) as event indices."""
    index_of = dict(zip(view.ids, range(len(view.ids))))
    keep = [edge_type not in NON_DEPENDENCY_EDGE_TYPES for edge_type in view.edge_types]
    sources = list(map(index_of.__getitem__, compress(view.sources, keep)))
    targets = list(map(index_of.__getitem__, compress(view.targets, keep)))
    return sources, targets


def heaviest_path(weights: list, sources: list[int], targets: list[int]) -> float:
    """The largest summed node weight along any path of a DAG (iterative, no recursion)."""
    node_count = len(weights)
    if all(map(lt, sources, targets)):
        # Every edge runs forward in list order, so list order is a topological order.
        order: Any = range(node_count)
    else:
        order = topological_order(node_count, sources, targets)
        if len(order) != node_count:
            raise ValueError("the dependency graph has a cycle")
    # Predecessors of each node, compressed: predecessors[offsets[v]:offsets[v + 1]].
    offsets, predecessors = compressed_adjacency(node_count, targets, sources)
    finish = [0.0] * node_count
    for node in order:
        start, end = offsets[node], offsets[node + 1]
        before = max(map(finish.__getitem__, predecessors[start:end])) if end > start else 0.0
        finish[node] = before + weights[node]
    return max(finish) if finish else 0.0


def critical_path(view: TraceView) -> CriticalPath:
    weights, basis = event_weights(view)
    work = math.fsum(weights)
    span = heaviest_path(weights, *_dependency_edges(view))
    # Summing the same weights in another order can differ in the last bit; span never exceeds work.
    return CriticalPath(work, min(span, work), basis)


@dataclass(frozen=True)
class SpawnTree:
    max_fan_out: int
    depth: int


def spawn_tree(view: TraceView) -> SpawnTree:
    """Each spawned agent's parent is the agent of its earliest spawn event."""
    spawn_indices = view.indices_of_type("spawn")
    parent_of: dict[str, str] = {}
    spawned_at: dict[str, Any] = {}
    times, agents = view.times, view.agents
    for index, child in zip(spawn_indices, view.fields_at(spawn_indices, "to")):
        if child is not None and (child not in spawned_at or times[index] < spawned_at[child]):
            spawned_at[child] = times[index]
            parent_of[child] = agents[index]
    if not parent_of:
        return SpawnTree(0, 0)
    fan_out = Counter(parent_of.values())
    depth_of: dict[str, int] = {}
    for agent in sorted(parent_of):
        chain, on_chain = [], set()  # the set: a chain 100,000 agents deep stays linear
        node = agent
        while node in parent_of and node not in depth_of and node not in on_chain:
            chain.append(node)
            on_chain.add(node)
            node = parent_of[node]
        base = depth_of.get(node, 0)  # a root, an agent already measured, or a spawn cycle
        for offset, member in enumerate(reversed(chain), start=1):
            depth_of[member] = base + offset
    return SpawnTree(max(fan_out.values()), max(depth_of.values()))


# ---------------------------------------------------------------------------------------------
# One trace


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, DIGITS)


def _plain_number(value):
    """Integral floats as ints (12000.0 -> 12000), so outputs read the same as the input."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
        return int(value)
    return value


def metrics_from_view(view: TraceView) -> dict[str, Any]:
    """Metrics of a trace that has passed validation."""
    path = critical_path(view)
    tree = spawn_tree(view)
    agents = len(set(view.agents))
    messages = view.types.count("message")
    wall_clock = view.costs.get("wall_clock_s")
    observed = None
    if path.weight_basis == "duration_s" and wall_clock:
        observed = path.work / wall_clock
        if not math.isfinite(observed):
            raise MetricRangeError(
                "observed_speedup", "costs.wall_clock_s", "work / costs.wall_clock_s"
            )
    stops = view.stop_decisions()
    last_stop = stops[-1] if stops else None
    row: dict[str, Any] = {
        "trace_id": view.trace_id,
        "task_id": view.task_id,
        "topology": view.topology,
        "events": len(view.events),
        "edges": len(view.edges),
        "agents": agents,
        "work": _plain_number(_rounded(path.work)),
        "span": _plain_number(_rounded(path.span)),
        "parallelism": _rounded(path.work / path.span) if path.span > 0 else 1.0,
        "weight_basis": path.weight_basis,
        "observed_speedup": _rounded(observed),
        "max_fan_out": tree.max_fan_out,
        "spawn_depth": tree.depth,
        "messages": messages,
        "messages_per_agent": _rounded(messages / agents),
        "tool_calls": view.types.count("tool_call"),
        "tokens": _plain_number(view.costs.get("tokens")),
        "wall_clock_s": _plain_number(wall_clock),
        "stop_event": view.ids[last_stop] if last_stop is not None else None,
        "stop_reason": view.event_field(last_stop, "reason") if last_stop is not None else None,
    }
    for channel in sorted(view.rewards):
        row[f"reward.{channel}"] = _plain_number(view.rewards[channel])
    return row


def trace_metrics(trace: dict) -> dict[str, Any]:
    """Metrics of one parsed trace; raises InvalidTraceError when it does not validate."""
    report = validate_trace(trace)
    if not report.ok:
        raise InvalidTraceError(report)
    with gc_paused():
        return metrics_from_view(TraceView.from_dict(trace))


# ---------------------------------------------------------------------------------------------
# Files and directories


def range_problem(error: MetricRangeError, file: str, line: int | None) -> Problem:
    return Problem(
        file,
        line,
        error.message,
        "check the units and magnitudes of the trace's times and costs",
        code="out_of_range",
        pointer=error.pointer,
    )


@dataclass
class FileMetrics:
    file: str
    rows: list[dict] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    invalid_traces: int = 0


def metrics_for_file(path: Path | str, limits: Limits = Limits()) -> FileMetrics:
    """Metrics of every valid trace in a file; the problems of the others."""
    result = FileMetrics(str(path))
    for document in read_documents(path, limits):
        if document.problem is not None:
            report, view = unreadable(result.file, document.problem), None
        else:
            report, view = check_document(document.raw, result.file, document.line, limits=limits)
        if view is None:
            result.invalid_traces += 1
            result.problems.extend(p for p in report.problems if p.severity == "error")
            continue
        try:
            with gc_paused():
                row = metrics_from_view(view)
        except MetricRangeError as exc:
            result.invalid_traces += 1
            result.problems.append(range_problem(exc, result.file, document.line))
            continue
        result.rows.append({"file": result.file, "line": document.line, **row})
    return result


@dataclass
class MetricsReport:
    rows: list[dict] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    invalid_traces: int = 0

    def columns(self) -> list[str]:
        rewards = sorted({key for row in self.rows for key in row if key.startswith("reward.")})
        return [*COLUMNS, *rewards]

    def frame(self):
        import pandas as pd

        return pd.DataFrame(self.rows, columns=self.columns())

    def summary(self) -> dict[str, Any]:
        """Aggregate over all traces: count, mean, min, median, max of each numeric column;
        counts of each topology, weight basis and stop reason."""
        frame = self.frame()
        summary: dict[str, Any] = {"traces": len(frame), "invalid_traces": self.invalid_traces}
        numeric = [c for c in self.columns() if c not in ("file", "line") and _is_numeric(frame[c])]
        statistics = {}
        for column in numeric:
            values = sorted(frame[column].dropna().astype(float))
            if values:
                statistics[column] = {
                    "count": len(values),
                    "mean": round(_mean(values), DIGITS),
                    "min": round(values[0], DIGITS),
                    "median": round(_median(values), DIGITS),
                    "max": round(values[-1], DIGITS),
                }
        summary["numeric"] = statistics
        for column in ("topology", "weight_basis", "stop_reason"):
            counts = frame[column].fillna("(none)").value_counts()
            summary[column] = {str(key): int(counts[key]) for key in sorted(counts.index, key=str)}
        return summary

    def render(self, fmt: str = "table", summary_only: bool = False) -> str:
        if fmt == "json":
            payload = {"traces": [] if summary_only else self.rows, "summary": self.summary()}
            return json.dumps(payload, indent=2, sort_keys=True, ensure_ascii=False, default=str)
        if fmt == "csv":
            return self._summary_csv() if summary_only else self._rows_csv()
        return self._table(summary_only)

    def _rows_csv(self) -> str:
        return csv_text(self.columns(), self.rows).rstrip("\n")

    def _summary_csv(self) -> str:
        header = ["metric", "count", "mean", "min", "median", "max"]
        numeric = self.summary()["numeric"]
        rows = [{"metric": column, **stats} for column, stats in numeric.items()]
        return csv_text(header, rows).rstrip("\n")

    def _table(self, summary_only: bool) -> str:
        parts = []
        if len(self.rows) == 1 and not summary_only:
            row = self.rows[0]
            width = max(map(len, row))
            parts.append(
                "\n".join(f"{key.ljust(width)}  {_cell(value)}" for key, value in row.items())
            )
        elif self.rows:
            if not summary_only:
                parts.append(
                    _text_table(
                        list(TABLE_COLUMNS),
                        [[_cell(row.get(c)) for c in TABLE_COLUMNS] for row in self.rows],
                    )
                )
            summary = self.summary()
            stats = [
                [name, s["count"], s["mean"], s["min"], s["median"], s["max"]]
                for name, s in summary["numeric"].items()
            ]
            parts.append(
                f"summary of {summary['traces']} trace(s):\n"
                + _text_table(
                    ["metric", "count", "mean", "min", "median", "max"],
                    [[_cell(v) for v in r] for r in stats],
                )
            )
            for column in ("topology", "stop_reason"):
                parts.append(
                    f"{column}: " + ", ".join(f"{k} {v}" for k, v in summary[column].items())
                )
        if self.invalid_traces:
            parts.append(
                f"{self.invalid_traces} invalid trace(s) skipped; run masrl trace validate for details"
            )
        return "\n\n".join(parts) if parts else "no valid traces"


def _mean(values: list[float]) -> float:
    """The mean of finite floats, without overflow: each value is divided before summing."""
    count = len(values)
    return math.fsum(value / count for value in values)


def _median(ordered: list[float]) -> float:
    """The median of sorted finite floats; halves before adding, so 1e308 and 1e308 give 1e308."""
    middle = len(ordered) // 2
    if len(ordered) % 2:
        return ordered[middle]
    return ordered[middle - 1] / 2 + ordered[middle] / 2


def _is_numeric(series) -> bool:
    values = series.dropna()
    return len(values) > 0 and all(
        isinstance(v, (int, float)) and not isinstance(v, bool) for v in values
    )


def _cell(value) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.4g}" if abs(value) >= 1e5 else f"{round(value, 4):g}"
    return str(value)


def _text_table(header: list[str], rows: list[list[str]]) -> str:
    widths = [
        max(len(str(h)), *(len(r[i]) for r in rows)) if rows else len(str(h))
        for i, h in enumerate(header)
    ]
    lines = [
        "  ".join(str(h).ljust(w) for h, w in zip(header, widths)),
        "  ".join("-" * w for w in widths),
    ]
    for row in rows:
        lines.append(
            "  ".join(
                cell.rjust(w) if _looks_numeric(cell) else cell.ljust(w)
                for cell, w in zip(row, widths)
            )
        )
    return "\n".join(line.rstrip() for line in lines)


def _looks_numeric(cell: str) -> bool:
    try:
        float(cell)
    except ValueError:
        return False
    return True


def metrics_for_paths(
    paths, jobs: int | None = None, progress: bool | None = None, limits: Limits = Limits()
) -> MetricsReport:
    """Metrics of every valid trace in the files and directories (files in parallel)."""
    files, missing = find_trace_files(paths)
    report = MetricsReport()
    for path in missing:
        report.problems.append(
            Problem(str(path), None, "no such file or directory", code="io", pointer="$")
        )
        report.invalid_traces += 1
    for file_metrics in map_files(
        partial(metrics_for_file, limits=limits),
        files,
        jobs=jobs,
        progress=progress,
        description="metrics",
    ):
        report.rows.extend(file_metrics.rows)
        report.problems.extend(file_metrics.problems)
        report.invalid_traces += file_metrics.invalid_traces
    return report


__all__ = [
    "COLUMNS",
    "CriticalPath",
    "InvalidTraceError",
    "MetricRangeError",
    "MetricsReport",
    "SpawnTree",
    "critical_path",
    "heaviest_path",
    "metrics_for_file",
    "metrics_for_paths",
    "metrics_from_view",
    "spawn_tree",
    "trace_metrics",
]

"""`masrl trace validate`: the trace schema plus the rules no schema can state.

Two layers, one verdict:

* structure: every constraint of ``taxonomy/trace.schema.json``, read from it at import time;
* semantics: unique event ids, edges between existing events, no self-loops, ordered edges
  that never point back in time, an acyclic dependency graph, agents acting only once
  spawned, finite numbers; plus warnings for inconsistent counts and unusual names.

Speed is an engineering choice: a generic JSON Schema engine takes minutes on a million events.

* Files are decoded by msgspec into typed structs generated from the schema, which checks the
  whole structure in C while parsing and builds objects about half the size of dicts.
* Parsed dicts (library callers, and any file the typed decoder rejects) get column checks:
  one C-level pass per field over all events (``map``, ``set``, ``min``); only when a column
  looks wrong does a per-item pass run, naming every problem with its JSON path. That slow
  pass is the authority: the fast ones only ever prove it would find nothing.
* Semantic checks work on columns too: a dict from event id to time, edge end times looked up
  with ``map``, one comparison pass proving most edges point forward, and Kahn's algorithm
  (integer-indexed, no recursion) only over the few edges that could close a cycle.
"""

from __future__ import annotations

import difflib
import json
import keyword
import math
import re
from collections import Counter
from dataclasses import asdict, dataclass, field
from functools import cache, cached_property, lru_cache, partial
from itertools import compress, repeat
from operator import attrgetter, eq, itemgetter, lt
from pathlib import Path
from typing import Annotated, Any, Literal

import msgspec

from ..annotations import github_annotation
from .io import (
    JsonSyntaxError,
    find_trace_files,
    gc_paused,
    map_files,
    parse_json_bytes,
    read_documents,
    syntax_problem,
)
from .schema import FieldRule, json_type_name, reward_channel_bases, trace_vocabulary

VOCABULARY = trace_vocabulary()
ORDERED_EDGE_TYPES = frozenset({"causal", "spawn", "message", "return"})  # never back in time
NON_DEPENDENCY_EDGE_TYPES = frozenset({"temporal"})
# Problem codes JSON Schema would also report; every other code is a masrl rule.
SCHEMA_CODES = frozenset(
    {"type", "required", "enum", "minimum", "empty", "pattern", "unknown_field"}
)
DEFAULT_MAX_PROBLEMS = 50  # per trace; the rest are counted, not listed

_NUMBER_TYPES = {int, float}
_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


# ---------------------------------------------------------------------------------------------
# Problems and reports


@dataclass(frozen=True)
class TraceProblem:
    """One problem in one trace. ``path`` is a JSON path inside the trace (``$`` is the whole
    trace); ``line`` is the line of a .jsonl file, or of a JSON syntax error."""

    file: str
    path: str
    message: str
    hint: str = ""
    severity: str = "error"  # error | warning
    code: str = ""
    line: int | None = None

    @property
    def location(self) -> str:
        return f"{self.file}:{self.line}" if self.line is not None else self.file

    def as_text(self) -> str:
        text = f"{self.location}: {self.severity}: {self.path}: {self.message}"
        return text + (f"\n    hint: {self.hint}" if self.hint else "")

    def as_github(self) -> str:
        level = "error" if self.severity == "error" else "warning"
        message = f"{self.path}: {self.message}" + (f". Hint: {self.hint}" if self.hint else "")
        return github_annotation(level, self.file, self.line, f"masrl trace {self.code}", message)


@dataclass(frozen=True)
class TraceReport:
    """The verdict on one trace. The counts include problems beyond the listed ones."""

    problems: tuple[TraceProblem, ...]
    errors: int
    warnings: int

    @property
    def ok(self) -> bool:
        return self.errors == 0


class _Collector:
    """Gathers the problems of one trace, listing at most ``limit`` of them."""

    def __init__(self, file: str, line: int | None, limit: int):
        self.file, self.line, self.limit = file, line, limit
        self.listed: list[TraceProblem] = []
        self.errors = 0
        self.warnings = 0

    def error(self, path: str, message: str, code: str, hint: str = "") -> None:
        self.errors += 1
        self._keep(path, message, code, hint, "error")

    def warning(self, path: str, message: str, code: str, hint: str = "") -> None:
        self.warnings += 1
        self._keep(path, message, code, hint, "warning")

    def listing(self) -> bool:
        """Whether another problem would still be listed (worth computing details for)."""
        return len(self.listed) < self.limit

    def _keep(self, path: str, message: str, code: str, hint: str, severity: str) -> None:
        if len(self.listed) < self.limit:
            self.listed.append(
                TraceProblem(self.file, path, message, hint, severity, code, self.line)
            )

    def report(self) -> TraceReport:
        problems = list(self.listed)
        hidden = self.errors + self.warnings - len(problems)
        if hidden > 0:
            hidden_errors = self.errors - sum(p.severity == "error" for p in problems)
            problems.append(
                TraceProblem(
                    self.file,
                    "$",
                    f"{hidden} more problem(s) in this trace not listed",
                    "raise --max-problems to list them",
                    "error" if hidden_errors else "warning",
                    "more",
                    self.line,
                )
            )
        return TraceReport(tuple(problems), self.errors, self.warnings)


def key_path(parent: str, key: Any) -> str:
    """``parent.key``, or ``parent["odd key"]`` when the key is not an identifier."""
    key = str(key)
    if _IDENTIFIER.match(key):
        return f"{parent}.{key}" if parent else key
    return f"{parent}[{json.dumps(key, ensure_ascii=False)}]"


def _did_you_mean(value: str, choices) -> str:
    close = difflib.get_close_matches(value, sorted(choices), n=1, cutoff=0.6)
    return f"did you mean '{close[0]}'?" if close else ""


def _number(value) -> str:
    """A number as written in JSON: integral floats without the .0 (typed decoding makes ints floats)."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
        return str(int(value))
    return repr(value)


def _json_spelling(value: float) -> str:
    if math.isnan(value):
        return "NaN"
    return "Infinity" if value > 0 else "-Infinity"


NON_FINITE_HINT = (
    "JSON has no NaN or Infinity: Python's json.dumps writes them unless allow_nan=False, "
    "orjson refuses them; record a finite number or leave the field out"
)


# ---------------------------------------------------------------------------------------------
# Structure of parsed dicts: leaf checks shared by the column (fast) and item (slow) passes


def _check_value(value: Any, rule: FieldRule, path: str, out: _Collector) -> bool:
    """Report how ``value`` breaks ``rule`` (schema constraints, then finiteness); True if fine."""
    issue = rule.problem_with(value)
    if issue:
        code, message = issue
        hint = f"allowed: {', '.join(sorted(rule.enum))}" if code == "enum" else ""
        out.error(path, message, code, hint)
        return False
    if rule.json_type == "number" and isinstance(value, float) and not math.isfinite(value):
        out.error(
            path, f"{_json_spelling(value)} is not a finite number", "non_finite", NON_FINITE_HINT
        )
        return False
    return True


def _numbers_ok(values: list, minimum: float | None) -> bool:
    """Fast: all plain numbers, at least ``minimum``, all finite (a sufficient condition only)."""
    kinds = set(map(type, values))
    if not kinds <= _NUMBER_TYPES:
        return False
    if minimum is not None and min(values) < minimum:
        return False
    if float in kinds:
        try:
            total = sum(values)
        except OverflowError:
            return False
        if not math.isfinite(total):  # a NaN or an infinity anywhere makes the sum non-finite
            return False
    return True


def _column_ok(values: list, rule: FieldRule) -> bool:
    """Fast check of one field over many items (where present); True proves no problem."""
    if not values:
        return True
    try:
        if rule.json_type == "number":
            return _numbers_ok(values, rule.minimum)
        expected = {"string": str, "boolean": bool, "object": dict, "array": list}[rule.json_type]
        if set(map(type, values)) != {expected}:
            return False
        if rule.json_type != "string":
            return True
        if rule.min_length and "" in values:
            return False
        if rule.enum is not None and not set(values) <= rule.enum:
            return False
        return rule.pattern is None or all(map(rule.pattern.search, values))
    except (TypeError, ValueError):
        return False


_EVENT_REQUIRED_GETTERS = tuple(itemgetter(name) for name in VOCABULARY.event_required)
_EDGE_REQUIRED_GETTERS = tuple(itemgetter(name) for name in VOCABULARY.edge_required)


def _events_pass_fast(events: list) -> bool:
    try:
        columns = [list(map(getter, events)) for getter in _EVENT_REQUIRED_GETTERS]
        if set(map(type, events)) != {dict}:
            return False
    except (KeyError, TypeError, IndexError):
        return False
    for name, column in zip(VOCABULARY.event_required, columns):
        if not _column_ok(column, VOCABULARY.event_rules[name]):
            return False
    optional = set().union(*events).difference(VOCABULARY.event_required)
    for name in sorted(optional.intersection(VOCABULARY.event_rules)):
        if not _column_ok(
            [event[name] for event in events if name in event], VOCABULARY.event_rules[name]
        ):
            return False
    return True


def _check_event(event: Any, index: int, out: _Collector) -> None:
    path = f"events[{index}]"
    if not isinstance(event, dict):
        out.error(path, f"an event must be an object, found {json_type_name(event)}", "type")
        return
    for name in VOCABULARY.event_required:
        if name not in event:
            out.error(f"{path}.{name}", "required field is missing", "required")
    for name, value in event.items():
        rule = VOCABULARY.event_rules.get(name)
        if rule is not None:
            _check_value(value, rule, key_path(path, name), out)


def _check_events(events: list, out: _Collector) -> bool:
    """True when every event is well-formed."""
    if not events:
        out.error("events", "must hold at least one event", "empty")
        return False
    if _events_pass_fast(events):
        return True
    errors_before = out.errors
    for index, event in enumerate(events):
        _check_event(event, index, out)
    # No new error: the fast pass gave up on numbers it could not prove finite, or on numpy types.
    return out.errors == errors_before


def _edges_pass_fast(edges: list) -> bool:
    try:
        if set(map(len, edges)) != {len(VOCABULARY.edge_required)}:
            return False
        columns = [list(map(getter, edges)) for getter in _EDGE_REQUIRED_GETTERS]
        if set(map(type, edges)) != {dict}:
            return False
    except (KeyError, TypeError, IndexError):
        return False
    return all(
        _column_ok(column, VOCABULARY.edge_rules[name])
        for name, column in zip(VOCABULARY.edge_required, columns)
    )


def _check_edge(edge: Any, index: int, out: _Collector) -> None:
    path = f"edges[{index}]"
    if not isinstance(edge, dict):
        out.error(path, f"an edge must be an object, found {json_type_name(edge)}", "type")
        return
    for name in VOCABULARY.edge_required:
        if name not in edge:
            out.error(f"{path}.{name}", "required field is missing", "required")
    for name, value in edge.items():
        rule = VOCABULARY.edge_rules.get(name)
        if rule is None:
            hint = (
                _did_you_mean(str(name), VOCABULARY.edge_rules)
                or "an edge has only src, dst and type"
            )
            out.error(key_path(path, name), "unknown edge field", "unknown_field", hint)
        else:
            _check_value(value, rule, key_path(path, name), out)


def _check_edges(edges: list, out: _Collector) -> bool:
    """True when every edge is well-formed."""
    if not edges or _edges_pass_fast(edges):
        return True
    errors_before = out.errors
    for index, edge in enumerate(edges):
        _check_edge(edge, index, out)
    return out.errors == errors_before


def _check_number_map(values: dict, path: str, rule_for, out: _Collector) -> None:
    for name, value in values.items():
        _check_value(value, rule_for(name), key_path(path, name), out)


def _check_required_costs(costs, out: _Collector) -> None:
    for name in VOCABULARY.cost_required:
        if name not in costs:
            out.error(f"costs.{name}", "required field is missing", "required")


def _check_top_level(trace: dict, out: _Collector) -> tuple[bool, bool]:
    """Every top-level rule; returns whether events and edges are well-formed."""
    for name in VOCABULARY.top_level_required:
        if name not in trace:
            out.error(name, "required field is missing", "required")
    for name, value in trace.items():
        rule = VOCABULARY.top_level_rules.get(name)
        if rule is None:
            hint = (
                _did_you_mean(str(name), VOCABULARY.top_level_rules)
                or "put free-form run metadata under meta"
            )
            out.error(key_path("", name), "unknown top-level field", "unknown_field", hint)
        else:  # for events and edges this checks only that they are arrays
            _check_value(value, rule, name, out)
    events, edges = trace.get("events"), trace.get("edges")
    events_ok = isinstance(events, list) and _check_events(events, out)
    edges_ok = isinstance(edges, list) and _check_edges(edges, out)
    if isinstance(trace.get("costs"), dict):
        _check_required_costs(trace["costs"], out)
        _check_number_map(
            trace["costs"],
            "costs",
            lambda name: VOCABULARY.cost_rules.get(name, VOCABULARY.cost_other_rule),
            out,
        )
    if isinstance(trace.get("rewards"), dict):
        _check_number_map(trace["rewards"], "rewards", lambda name: VOCABULARY.reward_rule, out)
    if isinstance(trace.get("metrics"), dict):
        _check_number_map(trace["metrics"], "metrics", lambda name: VOCABULARY.metric_rule, out)
    return events_ok, edges_ok


# ---------------------------------------------------------------------------------------------
# Typed decoding: msgspec structs generated from the schema


def _msgspec_type(rule: FieldRule):
    if rule.json_type == "string":
        if rule.enum is not None:
            return Literal[tuple(sorted(rule.enum))]
        constraints = {}
        if rule.min_length:
            constraints["min_length"] = rule.min_length
        if rule.pattern is not None:
            constraints["pattern"] = rule.pattern.pattern
        return Annotated[str, msgspec.Meta(**constraints)] if constraints else str
    if rule.json_type == "number":
        return (
            Annotated[float, msgspec.Meta(ge=rule.minimum)] if rule.minimum is not None else float
        )
    return {"boolean": bool, "object": dict[str, Any], "array": list}[rule.json_type]


def _python_name(json_name: str) -> str:
    return (
        json_name + "_"
        if keyword.iskeyword(json_name) or not json_name.isidentifier()
        else json_name
    )


def _struct_fields(
    rules: dict[str, FieldRule], required: tuple[str, ...], overrides: dict | None = None
) -> list:
    overrides = overrides or {}
    fields = []
    for name in required:
        fields.append(
            (
                _python_name(name),
                overrides.get(name) or _msgspec_type(rules[name]),
                msgspec.field(name=name),
            )
        )
    for name, rule in rules.items():
        if name not in required:
            kind = overrides.get(name) or _msgspec_type(rule)
            fields.append(
                (
                    _python_name(name),
                    kind | msgspec.UnsetType,
                    msgspec.field(default=msgspec.UNSET, name=name),
                )
            )
    return fields


@lru_cache(maxsize=1)
def typed_trace_decoder() -> msgspec.json.Decoder:
    """A decoder that accepts exactly the traces the schema accepts (NaN cannot occur: msgspec,
    like JSON, has no such literal). Events keep only their schema fields; unknown ones are
    allowed and skipped, as the schema allows them."""
    vocabulary = VOCABULARY
    event = msgspec.defstruct(
        "TraceEvent", _struct_fields(vocabulary.event_rules, vocabulary.event_required), gc=False
    )
    edge = msgspec.defstruct(
        "TraceEdge",
        _struct_fields(vocabulary.edge_rules, vocabulary.edge_required),
        gc=False,
        forbid_unknown_fields=True,
    )
    cost_type = _msgspec_type(vocabulary.cost_other_rule)
    assert all(_msgspec_type(rule) == cost_type for rule in vocabulary.cost_rules.values()), (
        "costs need one rule"
    )
    containers = {
        "events": Annotated[list[event], msgspec.Meta(min_length=1)],
        "edges": list[edge],
        "rewards": dict[str, _msgspec_type(vocabulary.reward_rule)],
        "costs": dict[str, cost_type],
        "metrics": dict[str, _msgspec_type(vocabulary.metric_rule)],
    }
    trace = msgspec.defstruct(
        "TypedTrace",
        _struct_fields(vocabulary.top_level_rules, vocabulary.top_level_required, containers),
        gc=False,
        forbid_unknown_fields=True,
    )
    return msgspec.json.Decoder(trace)


def decode_typed(raw: bytes):
    """The trace as typed structs, or None when it breaks any schema rule (or is not JSON)."""
    try:
        with gc_paused():
            return typed_trace_decoder().decode(raw)
    except (msgspec.ValidationError, msgspec.DecodeError, UnicodeDecodeError):
        return None


# ---------------------------------------------------------------------------------------------
# A uniform view of a well-formed trace, from dicts or from typed structs


@cache
def _struct_getter(name: str):
    return attrgetter(_python_name(name))


_dict_getter = lru_cache(maxsize=None)(itemgetter)


def _dict_field(event: dict, name: str):
    return event.get(name)


def _struct_field(event, name: str):
    value = _struct_getter(name)(event)
    return None if value is msgspec.UNSET else value


class TraceView:
    """A well-formed trace (events and edges passed the structure checks) seen as columns.

    Columns are built on first use and cached; the ``*_getter`` functions let a check stream
    a field straight from the events without building a list.
    """

    def __init__(
        self, events, edges, getter, field_of, costs, rewards, trace_id, task_id, topology
    ):
        self.events, self.edges = events, edges
        self._getter, self._field_of = getter, field_of
        self.costs = costs if isinstance(costs, dict) else {}
        self.rewards = rewards if isinstance(rewards, dict) else {}
        self.trace_id, self.task_id, self.topology = trace_id, task_id, topology

    @classmethod
    def from_dict(cls, trace: dict) -> TraceView:
        return cls(
            trace["events"],
            trace["edges"],
            _dict_getter,
            _dict_field,
            trace.get("costs"),
            trace.get("rewards"),
            trace.get("trace_id"),
            trace.get("task_id"),
            trace.get("topology"),
        )

    @classmethod
    def from_typed(cls, trace) -> TraceView:
        topology = None if trace.topology is msgspec.UNSET else trace.topology
        return cls(
            trace.events,
            trace.edges,
            _struct_getter,
            _struct_field,
            trace.costs,
            trace.rewards,
            trace.trace_id,
            trace.task_id,
            topology,
        )

    def getter(self, name: str):
        return self._getter(name)

    def _event_column(self, name: str) -> list:
        return list(map(self._getter(name), self.events))

    def _edge_column(self, name: str) -> list:
        return list(map(self._getter(name), self.edges))

    @cached_property
    def ids(self) -> list:
        return self._event_column("id")

    @cached_property
    def times(self) -> list:
        return self._event_column("t")

    @cached_property
    def types(self) -> list:
        return self._event_column("type")

    @cached_property
    def agents(self) -> list:
        return self._event_column("agent")

    @cached_property
    def sources(self) -> list:
        return self._edge_column("src")

    @cached_property
    def targets(self) -> list:
        return self._edge_column("dst")

    @cached_property
    def edge_types(self) -> list:
        return self._edge_column("type")

    @cached_property
    def time_of(self) -> dict:
        """Event id -> t (fewer entries than events when ids repeat)."""
        return dict(zip(map(self._getter("id"), self.events), map(self._getter("t"), self.events)))

    def event_field(self, index: int, name: str):
        """One optional field of one event, None when absent."""
        return self._field_of(self.events[index], name)

    def fields_at(self, indices: list[int], name: str) -> list:
        """One optional field of the given events, None where absent."""
        chosen = map(self.events.__getitem__, indices)
        if self._field_of is _dict_field:
            return list(map(dict.get, chosen, repeat(name)))
        values = list(map(self._getter(name), chosen))
        return (
            [None if value is msgspec.UNSET else value for value in values]
            if msgspec.UNSET in values
            else values
        )

    def column(self, name: str) -> list:
        """One optional field of every event, None where absent."""
        if self._field_of is _dict_field:
            return list(map(dict.get, self.events, repeat(name)))
        values = self._event_column(name)
        return (
            [None if value is msgspec.UNSET else value for value in values]
            if msgspec.UNSET in values
            else values
        )

    @cached_property
    def durations(self) -> list:
        """duration_s of every event, None where not given."""
        return self.column("duration_s")

    def indices_of_type(self, event_type: str) -> list[int]:
        return list(compress(range(len(self.events)), map(eq, self.types, repeat(event_type))))

    def stop_decisions(self) -> list[int]:
        """Indices of the events whose decision is stop, in list order."""
        if self._field_of is _dict_field:
            decisions = map(dict.get, self.events, repeat("decision"))
        else:  # absent fields read as UNSET, which is not "stop" either
            decisions = map(self._getter("decision"), self.events)
        return list(compress(range(len(self.events)), map(eq, decisions, repeat("stop"))))


# ---------------------------------------------------------------------------------------------
# Semantics


def _report_duplicate_ids(ids: list, out: _Collector) -> None:
    first_index: dict[str, int] = {}
    for index, event_id in enumerate(ids):
        if event_id in first_index:
            out.error(
                f"events[{index}].id",
                f"duplicate event id {event_id!r} (first used by events[{first_index[event_id]}])",
                "duplicate_id",
                "give every event its own id: edges refer to events by id",
            )
        else:
            first_index[event_id] = index


def _check_spawns(view: TraceView, out: _Collector) -> None:
    """An agent that a spawn event creates (its ``to``) acts only from its first spawn on."""
    spawn_indices = view.indices_of_type("spawn")
    if not spawn_indices:
        return
    times = view.times
    first_spawn: dict[str, int] = {}
    for index, target in zip(spawn_indices, view.fields_at(spawn_indices, "to")):
        if target is None:
            out.warning(
                f"events[{index}]",
                "spawn event does not say which agent it creates",
                "spawn_without_target",
                "set to to the new agent's name",
            )
            continue
        best = first_spawn.get(target)
        if best is None or times[index] < times[best]:
            first_spawn[target] = index
    spawn_time = {agent: times[index] for agent, index in first_spawn.items()}
    # One pass in C: does any event come before its agent's first spawn? (-inf: never spawned)
    thresholds = map(spawn_time.get, view.agents, repeat(-math.inf))
    if not any(map(lt, times, thresholds)):
        return
    earliest: dict[str, int] = {}  # each offending agent's earliest event
    for index, agent in enumerate(view.agents):
        too_early = agent in spawn_time and times[index] < spawn_time[agent]
        if too_early and (agent not in earliest or times[index] < times[earliest[agent]]):
            earliest[agent] = index
    for agent in sorted(earliest):
        act_index, spawn_index = earliest[agent], first_spawn[agent]
        out.error(
            f"events[{act_index}].t",
            f"agent {agent!r} acts at t={_number(times[act_index])} before it is spawned "
            f"at t={_number(times[spawn_index])} (events[{spawn_index}])",
            "acts_before_spawn",
            "fix the timestamps, or drop the spawn if the agent exists from the start",
        )


def compressed_adjacency(node_count: int, keys: list[int], values: list[int]) -> tuple[list[int], list[int]]:
    """For edges keys[i] -> values[i]: the neighbours of node v are neighbours[offsets[v]:offsets[v + 1]].

    Two flat integer lists instead of a list per node keep a million-event graph small.
    """
    offsets = [0] * (node_count + 1)
    for node, count in Counter(keys).items():
        offsets[node + 1] = count
    for node in range(node_count):
        offsets[node + 1] += offsets[node]
    neighbours = [0] * len(keys)
    cursor = offsets[:-1]
    for key, value in zip(keys, values):
        neighbours[cursor[key]] = value
        cursor[key] += 1
    return offsets, neighbours


def topological_order(node_count: int, sources: list[int], targets: list[int]) -> list[int]:
    """Kahn's algorithm over integer-indexed edges; ready nodes leave in index order (FIFO).

    Returns fewer than ``node_count`` nodes when there is a cycle. Iterative: no recursion limit.
    """
    indegree = [0] * node_count
    for node, count in Counter(targets).items():
        indegree[node] = count
    offsets, successors = compressed_adjacency(node_count, sources, targets)
    order = [node for node in range(node_count) if not indegree[node]]
    head = 0
    while head < len(order):
        node = order[head]
        head += 1
        for successor in successors[offsets[node] : offsets[node + 1]]:
            indegree[successor] -= 1
            if not indegree[successor]:
                order.append(successor)
    return order


def find_cycle(node_count: int, sources: list[int], targets: list[int]) -> list[int] | None:
    """One cycle as a node list (its first node repeated at the end), or None for a DAG."""
    order = topological_order(node_count, sources, targets)
    if len(order) == node_count:
        return None
    # Every node Kahn could not order has a predecessor it could not order either: walk back.
    ordered = set(order)
    predecessor: dict[int, int] = {}
    for source, target in zip(sources, targets):
        if source not in ordered and target not in ordered:
            predecessor.setdefault(target, source)
    node = min(predecessor)
    position: dict[int, int] = {}
    walk: list[int] = []
    while node not in position:
        position[node] = len(walk)
        walk.append(node)
        node = predecessor[node]
    cycle = walk[position[node] :]
    cycle.reverse()
    return [*cycle, cycle[0]]


def _report_cycle(edge_indices: list[int], view: TraceView, out: _Collector) -> None:
    """Look for a cycle among the given dependency edges; report the first found."""
    local_index: dict[str, int] = {}
    sources: list[int] = []
    targets: list[int] = []
    for k in edge_indices:
        sources.append(local_index.setdefault(view.sources[k], len(local_index)))
        targets.append(local_index.setdefault(view.targets[k], len(local_index)))
    cycle = find_cycle(len(local_index), sources, targets)
    if cycle is None:
        return
    id_of = {index: event_id for event_id, index in local_index.items()}
    position = {event_id: view.ids.index(event_id) for event_id in map(id_of.get, cycle)}
    cycle_ids = [id_of[node] for node in cycle[:-1]]
    # Start the cycle at its earliest listed event, so the report does not depend on hashing.
    first = min(range(len(cycle_ids)), key=lambda k: position[cycle_ids[k]])
    cycle_ids = cycle_ids[first:] + cycle_ids[:first] + [cycle_ids[first]]
    out.error(
        f"events[{position[cycle_ids[0]]}]",
        "the dependency graph (every edge but temporal) has a cycle: " + " -> ".join(cycle_ids),
        "cycle",
        "an event cannot depend on itself, even indirectly: drop or retype one of these edges",
    )


def _all_edges_point_forward(view: TraceView) -> bool:
    """One fused pass in C: every edge joins existing events and t[src] < t[dst] strictly.

    That alone rules out dangling ends, self-loops, backward edges and cycles."""
    time_of = view.time_of
    source_times = map(time_of.get, map(view.getter("src"), view.edges))
    target_times = map(time_of.get, map(view.getter("dst"), view.edges))
    try:
        return all(map(lt, source_times, target_times))
    except TypeError:  # None: an edge end names no event
        return False


def _check_graph(view: TraceView, out: _Collector) -> None:
    if _all_edges_point_forward(view):
        return
    sources, targets, types = view.sources, view.targets, view.edge_types
    source_times = list(map(view.time_of.get, sources))
    target_times = list(map(view.time_of.get, targets))
    edge_count = len(sources)
    usable = [True] * edge_count
    if None in source_times or None in target_times:
        small = len(view.events) <= 2_000  # did-you-mean over a huge id list would be slow
        for k in range(edge_count):
            for end, event_id, end_time in (
                ("src", sources[k], source_times[k]),
                ("dst", targets[k], target_times[k]),
            ):
                if end_time is None:
                    usable[k] = False
                    out.error(
                        f"edges[{k}].{end}",
                        f"no event has id {event_id!r}",
                        "dangling_edge",
                        _did_you_mean(event_id, view.ids) if small else "",
                    )
    for k in compress(range(edge_count), map(eq, sources, targets)):
        usable[k] = False
        out.error(
            f"edges[{k}]",
            f"edge joins event {sources[k]!r} to itself",
            "self_loop",
            "drop it: a dependency on oneself means nothing",
        )
    goes_back_in_time = False
    for k in compress(range(edge_count), usable):
        if source_times[k] > target_times[k]:
            message = (
                f"{types[k]} edge points back in time: {sources[k]!r} at t={_number(source_times[k])} -> "
                f"{targets[k]!r} at t={_number(target_times[k])}"
            )
            if types[k] in ORDERED_EDGE_TYPES:
                out.error(
                    f"edges[{k}]",
                    message,
                    "backwards_edge",
                    "swap src and dst, or fix the events' t",
                )
            else:
                out.warning(f"edges[{k}]", message, "backwards_edge")
            goes_back_in_time = goes_back_in_time or types[k] not in NON_DEPENDENCY_EDGE_TYPES
    # A cycle needs a dependency edge back in time, or else a loop of same-time edges: look there only.
    candidates = [
        k
        for k in compress(range(edge_count), usable)
        if types[k] not in NON_DEPENDENCY_EDGE_TYPES
        and (goes_back_in_time or source_times[k] == target_times[k])
    ]
    if candidates:
        _report_cycle(candidates, view, out)


def _warn_on_counts(view: TraceView, out: _Collector) -> None:
    for field_name, event_type in (("messages", "message"), ("tool_calls", "tool_call")):
        recorded = view.costs.get(field_name)
        if isinstance(recorded, (int, float)) and not isinstance(recorded, bool):
            counted = view.types.count(event_type)
            if recorded != counted:
                out.warning(
                    f"costs.{field_name}",
                    f"is {_number(recorded)} but the trace has {counted} {event_type} event(s)",
                    "count_mismatch",
                    f"record every {event_type} as an event, or correct costs.{field_name}",
                )


def _warn_on_reward_names(rewards: dict, out: _Collector) -> None:
    for name in map(str, rewards):
        if not VOCABULARY.reward_channel_pattern.search(name):
            suggestion = _did_you_mean(name.split(":", 1)[0], reward_channel_bases())
            hint = (
                suggestion + " " if suggestion else ""
            ) + "name channels by credit unit or reward family, e.g. team, R7, agent:<name>"
            out.warning(
                key_path("rewards", name),
                f"reward channel {name!r} is not a credit unit or reward family",
                "reward_channel",
                hint,
            )


def _warn_on_stops(view: TraceView, out: _Collector) -> None:
    for index in view.stop_decisions():
        if not view.event_field(index, "reason"):
            out.warning(
                f"events[{index}].reason",
                "stop decision without a reason",
                "stop_without_reason",
                "say why the run stopped, e.g. solved, consensus, budget, max_rounds",
            )


def _check_semantics(view: TraceView, out: _Collector, edges_ok: bool = True) -> None:
    ids_unique = len(view.time_of) == len(view.events)
    if not ids_unique:
        _report_duplicate_ids(view.ids, out)
    _check_spawns(view, out)
    _warn_on_counts(view, out)
    _warn_on_reward_names(view.rewards, out)
    _warn_on_stops(view, out)
    if edges_ok and ids_unique:
        _check_graph(view, out)


# ---------------------------------------------------------------------------------------------
# Entry points


def _check_dict(trace: Any, out: _Collector) -> TraceView | None:
    """Schema and semantic checks on a parsed trace; the view when events are well-formed."""
    if not isinstance(trace, dict):
        out.error(
            "$",
            f"a trace must be a JSON object, found {json_type_name(trace)}",
            "type",
            "for many traces in one file, use .jsonl with one trace per line",
        )
        return None
    events_ok, edges_ok = _check_top_level(trace, out)
    if not events_ok:
        return None
    view = TraceView.from_dict(trace if edges_ok else {**trace, "edges": []})
    _check_semantics(view, out, edges_ok)
    return view


def validate_trace(
    trace: Any,
    file: str = "<trace>",
    line: int | None = None,
    max_problems: int = DEFAULT_MAX_PROBLEMS,
) -> TraceReport:
    """Check one parsed trace (dicts and lists, as from ``json.load``): schema and semantics."""
    out = _Collector(file, line, max_problems)
    with gc_paused():  # the checks make many short-lived lists; the trace itself is a tree
        _check_dict(trace, out)
    return out.report()


def check_document(
    raw: bytes,
    file: str = "<trace>",
    line: int | None = None,
    max_problems: int = DEFAULT_MAX_PROBLEMS,
) -> tuple[TraceReport, TraceView | None]:
    """Check one trace given as JSON bytes; also return its view (for metrics) when valid.

    Typed decoding first: when it succeeds the structure is right and only the semantic rules
    remain. When it fails, the trace is parsed into dicts and checked item by item, so that
    every problem is reported with its JSON path.
    """
    out = _Collector(file, line, max_problems)
    typed = decode_typed(raw)
    with gc_paused():
        if typed is not None:
            _check_required_costs(typed.costs, out)
            view = TraceView.from_typed(typed)
            _check_semantics(view, out)
        else:
            try:
                data = parse_json_bytes(raw)
            except JsonSyntaxError as exc:
                return unreadable(file, syntax_problem(exc, line)), None
            view = _check_dict(data, out)
    report = out.report()
    return report, (view if report.ok else None)


def validate_document(
    raw: bytes,
    file: str = "<trace>",
    line: int | None = None,
    max_problems: int = DEFAULT_MAX_PROBLEMS,
) -> TraceReport:
    """Check one trace given as JSON bytes."""
    return check_document(raw, file, line, max_problems)[0]


def unreadable(file: str, problem) -> TraceReport:
    """The verdict on a file or line that could not be read."""
    return TraceReport(
        (
            TraceProblem(
                file, "$", problem.message, problem.hint, "error", problem.code, problem.line
            ),
        ),
        1,
        0,
    )


@dataclass
class FileReport:
    file: str
    traces: int = 0
    invalid_traces: int = 0
    errors: int = 0
    warnings: int = 0
    problems: list[TraceProblem] = field(default_factory=list)

    def add(self, verdict: TraceReport) -> None:
        self.traces += 1
        self.invalid_traces += not verdict.ok
        self.errors += verdict.errors
        self.warnings += verdict.warnings
        self.problems.extend(verdict.problems)


def validate_file(path: Path | str, max_problems: int = DEFAULT_MAX_PROBLEMS) -> FileReport:
    """Every trace in one .json/.jsonl(.gz) file."""
    report = FileReport(str(path))
    for document in read_documents(path):
        if document.problem is not None:
            report.add(unreadable(report.file, document.problem))
        else:
            report.add(validate_document(document.raw, report.file, document.line, max_problems))
    return report


@dataclass
class ValidationReport:
    files: int = 0
    traces: int = 0
    invalid_traces: int = 0
    errors: int = 0
    warnings: int = 0
    problems: list[TraceProblem] = field(default_factory=list)

    def add(self, file_report: FileReport) -> None:
        self.files += 1
        self.traces += file_report.traces
        self.invalid_traces += file_report.invalid_traces
        self.errors += file_report.errors
        self.warnings += file_report.warnings
        self.problems.extend(file_report.problems)

    def ok(self, strict: bool = False) -> bool:
        return self.errors == 0 and not (strict and self.warnings)

    def summary_line(self) -> str:
        counted = f"{self.traces} trace(s) in {self.files} file(s)"
        if self.errors:
            return f"invalid: {self.invalid_traces} of {counted}; {self.errors} error(s), {self.warnings} warning(s)"
        return f"ok: {counted}" + (f" ({self.warnings} warning(s))" if self.warnings else "")

    def render(self, fmt: str = "text") -> str:
        if fmt == "json":
            payload = {
                "ok": self.ok(),
                "files": self.files,
                "traces": self.traces,
                "invalid_traces": self.invalid_traces,
                "errors": self.errors,
                "warnings": self.warnings,
                "problems": [asdict(problem) for problem in self.problems],
            }
            return json.dumps(payload, indent=2, sort_keys=True, ensure_ascii=False)
        render_one = TraceProblem.as_github if fmt == "github" else TraceProblem.as_text
        return "\n".join([*map(render_one, self.problems), self.summary_line()])


def validate_paths(
    paths,
    jobs: int | None = None,
    progress: bool | None = None,
    max_problems: int = DEFAULT_MAX_PROBLEMS,
) -> ValidationReport:
    """Validate files and directories (recursively; files in parallel worker processes)."""
    files, missing = find_trace_files(paths)
    report = ValidationReport()
    for path in missing:
        file_report = FileReport(str(path))
        file_report.add(
            TraceReport(
                (TraceProblem(str(path), "$", "no such file or directory", code="io"),), 1, 0
            )
        )
        report.add(file_report)
    if not files and not missing:
        report.problems.append(
            TraceProblem(
                ".",
                "$",
                "no trace files found (.json, .jsonl, .json.gz, .jsonl.gz)",
                severity="warning",
                code="no_files",
            )
        )
        report.warnings += 1
    worker = partial(validate_file, max_problems=max_problems)
    for file_report in map_files(
        worker, files, jobs=jobs, progress=progress, description="validate"
    ):
        report.add(file_report)
    return report

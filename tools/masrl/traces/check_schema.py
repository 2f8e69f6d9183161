"""Structure checks on parsed dicts: every constraint of ``taxonomy/trace.schema.json``.

Typed decoding (``decode``) proves most files well-formed in C; this module serves library
callers that hand over dicts, and files the typed decoder rejects. It runs column checks first:
one C-level pass per field over all events (``map``, ``set``, ``min``). Only when a column looks
wrong does a per-item pass run, naming every problem with its JSON path. That slow pass is the
authority: the fast ones only ever prove it would find nothing.
"""

from __future__ import annotations

import math
import sys
from operator import itemgetter
from typing import Any

from ..text import mistyped_hint
from .problems import ProblemCollector, key_path
from .schema import FieldRule, json_type_name, trace_vocabulary

VOCABULARY = trace_vocabulary()
_NUMBER_TYPES = {int, float}

MAX_SECONDS = 1e12  # about 31,700 years: beyond it a time or duration is a unit mistake
MAX_SECONDS_HINT = (
    "t and duration_s are seconds (from the run's start or the Unix epoch), at most 1e12; "
    "convert milliseconds or nanoseconds to seconds"
)
FLOAT_MAX = sys.float_info.max

NON_FINITE_HINT = (
    "JSON has no NaN or Infinity: Python's json.dumps writes them unless allow_nan=False, "
    "orjson refuses them; record a finite number or leave the field out"
)


def _json_spelling(value: float) -> str:
    if math.isnan(value):
        return "NaN"
    return "Infinity" if value > 0 else "-Infinity"


def _check_value(value: Any, rule: FieldRule, path: str, out: ProblemCollector) -> bool:
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
    if rule.json_type == "number" and isinstance(value, int) and abs(value) > FLOAT_MAX:
        out.error(
            path,
            f"a {len(str(abs(value)))}-digit number is out of range of a 64-bit float",
            "out_of_range",
            "record numbers within about 1.8e308",
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
    if int in kinds and (max(values) > FLOAT_MAX or min(values) < -FLOAT_MAX):
        return False  # an integer no float holds
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


def _check_event(event: Any, index: int, out: ProblemCollector) -> None:
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


def _check_events(events: list, out: ProblemCollector) -> bool:
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


def _check_edge(edge: Any, index: int, out: ProblemCollector) -> None:
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
                mistyped_hint(str(name), VOCABULARY.edge_rules)
                or "an edge has only src, dst and type"
            )
            out.error(key_path(path, name), "unknown edge field", "unknown_field", hint)
        else:
            _check_value(value, rule, key_path(path, name), out)


def _check_edges(edges: list, out: ProblemCollector) -> bool:
    """True when every edge is well-formed."""
    if not edges or _edges_pass_fast(edges):
        return True
    errors_before = out.errors
    for index, edge in enumerate(edges):
        _check_edge(edge, index, out)
    return out.errors == errors_before


def _check_number_map(values: dict, path: str, rule_for, out: ProblemCollector) -> None:
    for name, value in values.items():
        _check_value(value, rule_for(name), key_path(path, name), out)


def check_required_costs(costs, out: ProblemCollector) -> None:
    for name in VOCABULARY.cost_required:
        if name not in costs:
            out.error(f"costs.{name}", "required field is missing", "required")


def check_top_level(trace: dict, out: ProblemCollector) -> tuple[bool, bool]:
    """Every top-level rule; returns whether events and edges are well-formed."""
    for name in VOCABULARY.top_level_required:
        if name not in trace:
            out.error(name, "required field is missing", "required")
    for name, value in trace.items():
        rule = VOCABULARY.top_level_rules.get(name)
        if rule is None:
            hint = (
                mistyped_hint(str(name), VOCABULARY.top_level_rules)
                or "put free-form run metadata under meta"
            )
            out.error(key_path("", name), "unknown top-level field", "unknown_field", hint)
        else:  # for events and edges this checks only that they are arrays
            _check_value(value, rule, name, out)
    events, edges = trace.get("events"), trace.get("edges")
    events_ok = isinstance(events, list) and _check_events(events, out)
    edges_ok = isinstance(edges, list) and _check_edges(edges, out)
    if isinstance(trace.get("costs"), dict):
        check_required_costs(trace["costs"], out)
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


def check_magnitudes(view, out: ProblemCollector) -> None:
    """Times and durations within ``MAX_SECONDS``: 1e308 is finite, but sums of such numbers
    overflow and no run lasts that long. One C-level pass each; the slow pass names the items."""
    for name, values in (("t", view.times), ("duration_s", view.durations)):
        present = [v for v in values if v is not None] if name == "duration_s" else values
        if not present or max(present) <= MAX_SECONDS:
            continue
        for index, value in enumerate(values):
            if value is not None and value > MAX_SECONDS:
                out.error(
                    f"events[{index}].{name}",
                    f"{value:g} s is too large: at most {MAX_SECONDS:g} s (about 31,700 years)",
                    "too_large",
                    MAX_SECONDS_HINT,
                )

"""Properties of trace validation and metrics, on generated traces (hypothesis).

* Valid traces stay valid after a JSON round trip, through every path (dicts, typed decoding,
  the JSON Schema itself).
* The fast validator and the JSON Schema (jsonschema's Draft202012Validator) accept and reject
  the same traces, on valid ones and on ones broken by a random schema-level mutation.
* Traces in the survey artifact's original format are accepted.
* span <= work, parallelism >= 1, and metrics of generated DAGs match hand-computed values.
"""

from __future__ import annotations

import copy
import functools
import json
import math
from itertools import accumulate

import jsonschema
from conftest import examples
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from masrl.traces.metrics import MetricRangeError, trace_metrics
from masrl.traces.schema import load_trace_schema, reward_channel_bases, trace_vocabulary
from masrl.traces.validate import SCHEMA_CODES, decode_typed, validate_document, validate_trace

VOCABULARY = trace_vocabulary()
EVENT_TYPES = sorted(VOCABULARY.event_types)
EDGE_TYPES = sorted(VOCABULARY.edge_types)
SCHEMA_VALIDATOR = jsonschema.Draft202012Validator(load_trace_schema())
PROPERTY_SETTINGS = settings(
    max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)

names = st.text(alphabet="abcdefghij_0123456789", min_size=1, max_size=8)
finite = st.floats(min_value=-1e6, max_value=1e6, allow_nan=False, allow_infinity=False)
non_negative = st.one_of(
    st.integers(0, 10**6),
    st.floats(min_value=0, max_value=1e6, allow_nan=False, allow_infinity=False),
)
# Optional event fields of the artifact's format, then the ones masrl adds.
ARTIFACT_OPTIONAL = {
    "role": names,
    "from": names,
    "tool": names,
    "content_ref": names,
    "trusted": st.booleans(),
}
MASRL_OPTIONAL = {"duration_s": non_negative, "decision": names, "reason": st.text(max_size=10)}
ALL_OPTIONAL = {**ARTIFACT_OPTIONAL, **MASRL_OPTIONAL}

# valid_traces draws many values per trace: its strategies are built once, here, for Hypothesis
# validates every strategy object the first time it draws from it.
STEPS = st.sampled_from([0, 0, 0.5, 1, 3])
EVENT_TYPE = st.sampled_from(EVENT_TYPES)
EDGE_TYPE = st.sampled_from(EDGE_TYPES)
# artifact_fields_only -> the optional fields and a strategy for which of them an event has
OPTIONAL_FIELDS = {
    only: (fields, st.lists(st.sampled_from(sorted(fields)), unique=True, max_size=4))
    for only, fields in ((True, ARTIFACT_OPTIONAL), (False, ALL_OPTIONAL))
}
EXTRA_VALUE = st.one_of(names, st.integers(), st.lists(st.integers(), max_size=2))
# any_reward_names -> rewards
REWARDS = {
    True: st.dictionaries(names, finite, max_size=4),
    False: st.dictionaries(
        st.builds(
            lambda base, suffix: base + (f":{suffix}" if suffix else ""),
            st.sampled_from(reward_channel_bases()),
            st.one_of(st.none(), names),
        ),
        finite,
        max_size=4,
    ),
}
METRICS = st.dictionaries(names, finite, max_size=3)
TOPOLOGY = st.sampled_from(VOCABULARY.topologies)
SYSTEM = st.text(max_size=6)


@functools.cache
def agent_choice(count: int) -> st.SearchStrategy[str]:
    """One of the first ``count`` agents of a trace: the two roots, then agent_2, agent_3, ..."""
    return st.sampled_from(["root_a", "root_b", *(f"agent_{k}" for k in range(2, count))])


@functools.cache
def forward_edges(count: int) -> st.SearchStrategy[list[tuple[int, int]]]:
    """Lists of (earlier, later) event positions among ``count`` events: every such pair drawn
    directly, where drawing two positions and keeping the ordered ones gave up on most traces."""
    pairs = [(i, j) for i in range(count) for j in range(i + 1, count)]
    return st.lists(st.sampled_from(pairs), max_size=30)


@st.composite
def valid_traces(draw, artifact_fields_only: bool = False, any_reward_names: bool = False) -> dict:
    """Events in time order; each spawn creates a fresh agent that acts only later; edges run
    from earlier to later events in the list, so they never point back in time and form a DAG."""
    count = draw(st.integers(1, 20))
    steps = draw(st.lists(STEPS, min_size=count, max_size=count))
    times = list(accumulate(steps))
    agents = 2
    optional, optional_names = OPTIONAL_FIELDS[artifact_fields_only]
    events = []
    for index in range(count):
        kind = draw(EVENT_TYPE)
        event = {
            "id": f"ev{index}",
            "t": times[index],
            "type": kind,
            "agent": draw(agent_choice(agents)),
        }
        for name in draw(optional_names):
            event[name] = draw(optional[name])
        if kind == "spawn":
            event["to"] = f"agent_{agents}"
            agents += 1
        if draw(st.booleans()):
            event["x_extra"] = draw(EXTRA_VALUE)
        events.append(event)
    edges = [
        {"src": f"ev{i}", "dst": f"ev{j}", "type": draw(EDGE_TYPE)}
        for i, j in (draw(forward_edges(count)) if count > 1 else [])
    ]
    trace = {
        "trace_id": draw(names),
        "task_id": draw(names),
        "events": events,
        "edges": edges,
        "rewards": draw(REWARDS[any_reward_names]),
        "costs": {"tokens": draw(non_negative), "wall_clock_s": draw(non_negative)},
    }
    if draw(st.booleans()):
        trace["topology"] = draw(TOPOLOGY)
    if draw(st.booleans()):
        trace["system"] = draw(SYSTEM)
    if draw(st.booleans()):
        trace["metrics"] = draw(METRICS)
    if draw(st.booleans()):
        trace["costs"]["usd"] = draw(non_negative)
    if not artifact_fields_only and draw(st.booleans()):
        trace["schema_version"] = "1.0"
        trace["meta"] = {"seed": draw(st.integers())}
    return trace


def errors_of(trace) -> list:
    return [p for p in validate_trace(trace, max_problems=10_000).problems if p.severity == "error"]


@PROPERTY_SETTINGS
@given(valid_traces())
def test_valid_traces_pass_every_path_and_survive_a_json_round_trip(trace):
    result = validate_trace(trace)
    assert result.ok, [p.as_text() for p in result.problems]
    assert SCHEMA_VALIDATOR.is_valid(trace)
    round_tripped = json.loads(json.dumps(trace))
    assert round_tripped == trace and validate_trace(round_tripped).ok
    raw = json.dumps(trace).encode()
    assert decode_typed(raw) is not None
    report = validate_document(raw)
    assert report.ok and report.problems == result.problems


# Found by Hypothesis: one second of work over a wall clock of 5e-324 s.
TINY_WALL_CLOCK = {
    "trace_id": "0",
    "task_id": "0",
    "edges": [],
    "rewards": {},
    "events": [
        {
            "id": "ev0",
            "t": 0,
            "type": "aggregate",
            "agent": "root_a",
            "from": "0",
            "duration_s": 1,
            "content_ref": "0",
            "decision": "0",
        }
    ],
    "costs": {"tokens": 0, "wall_clock_s": 5e-324},
}


@PROPERTY_SETTINGS
@given(valid_traces())
@example(TINY_WALL_CLOCK)
def test_span_is_at_most_work_and_parallelism_at_least_one(trace):
    try:
        row = trace_metrics(trace)
    except MetricRangeError as error:
        # Only a wall clock so small that work over it overflows a float (5e-324 s, say) may
        # stop the metrics, and as this error, which the commands report as a problem.
        assert (error.metric, error.pointer) == ("observed_speedup", "costs.wall_clock_s")
        assert trace["costs"]["wall_clock_s"] < 1e-290, trace["costs"]
        return
    assert 0 <= row["span"] <= row["work"]
    assert row["parallelism"] >= 1
    assert row["events"] == len(trace["events"])


# ---------------------------------------------------------------------------------------------
# Schema-level agreement on mutated traces

WRONG_VALUES = [
    None,
    0,
    -1,
    2.5,
    "",
    "x",
    True,
    [],
    {},
    [1],
    {"a": 1},
    "centralized",
    "1.0",
    "causal",
    "spawn",
]
EVENT_FIELDS = sorted(VOCABULARY.event_rules)
EDGE_FIELDS = sorted(VOCABULARY.edge_rules)
TOP_FIELDS = sorted(VOCABULARY.top_level_rules)
WRONG_VALUE = st.sampled_from(WRONG_VALUES)


@st.composite
def mutated_traces(draw) -> dict:
    trace = copy.deepcopy(draw(valid_traces()))
    kind = draw(
        st.sampled_from(["top", "event", "edge", "costs", "rewards", "metrics", "drop", "extra"])
    )
    if kind == "top":
        trace[draw(st.sampled_from(TOP_FIELDS))] = draw(WRONG_VALUE)
    elif kind == "drop":
        trace.pop(draw(st.sampled_from(sorted(trace))))
    elif kind == "extra":
        trace[draw(st.sampled_from(["reward", "cost", "x-run", "Events"]))] = draw(WRONG_VALUE)
    elif kind == "event":
        event = draw(st.sampled_from(trace["events"]))
        if draw(st.booleans()):
            event[draw(st.sampled_from(EVENT_FIELDS))] = draw(WRONG_VALUE)
        else:
            event.pop(draw(st.sampled_from(sorted(VOCABULARY.event_required))))
    elif kind == "edge" and trace["edges"]:
        edge = draw(st.sampled_from(trace["edges"]))
        action = draw(st.sampled_from(["set", "drop", "extra"]))
        if action == "set":
            edge[draw(st.sampled_from(EDGE_FIELDS))] = draw(WRONG_VALUE)
        elif action == "drop":
            edge.pop(draw(st.sampled_from(EDGE_FIELDS)))
        else:
            edge["weight"] = 1
    elif kind == "costs":
        key = draw(st.sampled_from(["tokens", "wall_clock_s", "tool_calls", "usd"]))
        if draw(st.booleans()):
            trace["costs"][key] = draw(WRONG_VALUE)
        else:
            trace["costs"].pop(key, None)
    elif kind == "rewards":
        trace["rewards"][draw(names)] = draw(WRONG_VALUE)
    else:
        trace["metrics"] = {draw(names): draw(WRONG_VALUE)}
    return trace


@PROPERTY_SETTINGS
@given(st.one_of(valid_traces(), mutated_traces()))
def test_fast_validator_and_json_schema_agree_on_structure(trace):
    schema_valid = SCHEMA_VALIDATOR.is_valid(trace)
    ours = validate_trace(trace, max_problems=10_000).problems
    ours_valid = not any(p.code in SCHEMA_CODES for p in ours if p.severity == "error")
    assert ours_valid == schema_valid, (
        [p.as_text() for p in ours],
        list(SCHEMA_VALIDATOR.iter_errors(trace))[:3],
    )
    # The file path (typed decoding, with the detailed pass behind it) reaches the same verdict.
    raw = json.dumps(trace).encode()
    assert validate_document(raw, max_problems=10_000).problems == ours
    if decode_typed(raw) is None:
        assert not schema_valid


# ---------------------------------------------------------------------------------------------
# The survey artifact's original format

ARTIFACT_TOP_LEVEL = {
    "trace_id",
    "task_id",
    "system",
    "topology",
    "events",
    "edges",
    "rewards",
    "costs",
    "metrics",
}


def passes_artifact_rules(trace: dict) -> bool:
    """The original checker's rules: required fields, allowed types, unique ids, edge ends, costs >= 0."""
    if {"trace_id", "task_id", "events", "edges", "rewards", "costs"} - set(trace):
        return False
    ids = [event["id"] for event in trace["events"]]
    return (
        bool(trace["events"])
        and all(
            {"id", "t", "type", "agent"} <= set(e)
            and e["type"] in VOCABULARY.event_types
            and e["t"] >= 0
            for e in trace["events"]
        )
        and len(set(ids)) == len(ids)
        and all(
            e["type"] in VOCABULARY.edge_types and e["src"] in ids and e["dst"] in ids
            for e in trace["edges"]
        )
        and all(value >= 0 for value in trace["costs"].values())
    )


@PROPERTY_SETTINGS
@given(valid_traces(artifact_fields_only=True, any_reward_names=True))
def test_traces_in_the_artifact_format_are_accepted(trace):
    assert set(trace) <= ARTIFACT_TOP_LEVEL
    assert passes_artifact_rules(trace)
    assert errors_of(trace) == []


ANY_TIME = st.sampled_from([0, 1, 2.5, 7])


@st.composite
def artifact_traces_with_any_graph(draw) -> dict:
    """Original format and rules, but edges between any events and agents acting anywhere."""
    trace = draw(valid_traces(artifact_fields_only=True, any_reward_names=True))
    count = len(trace["events"])
    index = st.integers(0, count - 1)
    trace["edges"] = [
        {
            "src": f"ev{draw(index)}",
            "dst": f"ev{draw(index)}",
            "type": draw(EDGE_TYPE),
        }
        for _ in range(draw(st.integers(0, 10)))
    ]
    for event in trace["events"]:
        event["t"] = draw(ANY_TIME)
    return trace


@PROPERTY_SETTINGS
@given(artifact_traces_with_any_graph())
def test_the_schema_accepts_everything_the_artifact_did(trace):
    # Only masrl's semantic rules (time order, cycles, spawns) may object, never the schema.
    assert passes_artifact_rules(trace)
    assert [p for p in errors_of(trace) if p.code in SCHEMA_CODES] == []
    assert SCHEMA_VALIDATOR.is_valid(trace)


# ---------------------------------------------------------------------------------------------
# Metrics against hand-computed values


@PROPERTY_SETTINGS
@given(
    st.lists(st.floats(min_value=0.25, max_value=100, allow_nan=False), min_size=1, max_size=6),
    st.floats(min_value=0, max_value=10, allow_nan=False),
    st.floats(min_value=0, max_value=10, allow_nan=False),
)
def test_metrics_of_a_fan_out_fan_in_dag(branches, head, tail):
    """root -> each branch -> sink: work is the sum, span the root, longest branch and sink."""
    events = [
        {"id": "root", "t": 0, "type": "orchestrator_decision", "agent": "lead", "duration_s": head}
    ]
    edges = []
    for k, duration in enumerate(branches):
        events.append(
            {
                "id": f"b{k}",
                "t": head,
                "type": "tool_call",
                "agent": f"w{k}",
                "duration_s": duration,
            }
        )
        edges += [
            {"src": "root", "dst": f"b{k}", "type": "causal"},
            {"src": f"b{k}", "dst": "sink", "type": "aggregate"},
        ]
    end = head + max(branches)
    events.append(
        {"id": "sink", "t": end, "type": "aggregate", "agent": "lead", "duration_s": tail}
    )
    trace = {
        "trace_id": "fan",
        "task_id": "t",
        "events": events,
        "edges": edges,
        "rewards": {},
        "costs": {"tokens": 0, "wall_clock_s": end + tail},
    }
    row = trace_metrics(trace)
    work = math.fsum([head, *branches, tail])
    span = head + max(branches) + tail
    assert math.isclose(row["work"], work, abs_tol=1e-6)
    assert math.isclose(row["span"], span, abs_tol=1e-6)
    if span > 0:
        assert math.isclose(row["parallelism"], work / span, rel_tol=1e-5)
    assert row["max_fan_out"] == 0 and row["agents"] == len(branches) + 1


@PROPERTY_SETTINGS
@given(st.integers(1, 30))
def test_metrics_of_a_chain_and_of_independent_events(length):
    chain = {
        "trace_id": "c",
        "task_id": "t",
        "rewards": {},
        "costs": {"tokens": 1, "wall_clock_s": 1},
        "events": [{"id": f"e{i}", "t": i, "type": "message", "agent": "a"} for i in range(length)],
        "edges": [
            {"src": f"e{i}", "dst": f"e{i + 1}", "type": "causal"} for i in range(length - 1)
        ],
    }
    row = trace_metrics(chain)
    assert (row["work"], row["span"], row["parallelism"]) == (length, length, 1.0)
    chain["edges"] = [
        {**edge, "type": "temporal"} for edge in chain["edges"]
    ]  # order only, no dependency
    row = trace_metrics(chain)
    assert (row["work"], row["span"], row["parallelism"]) == (length, 1, float(length))

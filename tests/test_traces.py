"""Orchestration traces: the schema, each validation rule, reading files, metrics, figures, CLI."""

from __future__ import annotations

import copy
import gzip
import json
import math
from pathlib import Path

import jsonschema
import pytest
from click.testing import CliRunner
from masrl.cli import main
from masrl.cli.traces import trace as trace_cli
from masrl.model.taxonomy import load_taxonomy
from masrl.traces import examples_directory
from masrl.traces.figure import FigureError, render_trace_figure
from masrl.traces.io import read_traces
from masrl.traces.metrics import (
    InvalidTraceError,
    heaviest_path,
    metrics_for_paths,
    trace_metrics,
)
from masrl.traces.schema import (
    SCHEMA_VERSION,
    load_trace_schema,
    reward_channel_bases,
    schema_reference_markdown,
    trace_schema_path,
)
from masrl.traces.validate import (
    SCHEMA_CODES,
    decode_typed,
    find_cycle,
    topological_order,
    validate_document,
    validate_file,
    validate_paths,
    validate_trace,
)

REPO_ROOT = Path(__file__).resolve().parents[1]
TOPOLOGIES = (
    "centralized",
    "planner_executor_critic",
    "debate",
    "swarm",
    "hierarchical",
    "harness",
)


def small_trace() -> dict:
    """A valid trace: an orchestrator spawns a worker that calls a tool and returns."""
    return {
        "trace_id": "t1",
        "task_id": "task-1",
        "topology": "centralized",
        "events": [
            {
                "id": "e0",
                "t": 0,
                "type": "orchestrator_decision",
                "agent": "boss",
                "decision": "delegate",
            },
            {"id": "e1", "t": 1, "type": "spawn", "agent": "boss", "to": "worker"},
            {"id": "e2", "t": 2, "type": "tool_call", "agent": "worker", "tool": "search"},
            {"id": "e3", "t": 3, "type": "tool_result", "agent": "search", "trusted": False},
            {
                "id": "e4",
                "t": 4,
                "type": "return",
                "agent": "worker",
                "from": "worker",
                "to": "boss",
            },
            {
                "id": "e5",
                "t": 5,
                "type": "orchestrator_decision",
                "agent": "boss",
                "decision": "stop",
                "reason": "solved",
            },
        ],
        "edges": [
            {"src": "e0", "dst": "e1", "type": "spawn"},
            {"src": "e1", "dst": "e2", "type": "causal"},
            {"src": "e2", "dst": "e3", "type": "tool_dependency"},
            {"src": "e3", "dst": "e4", "type": "return"},
            {"src": "e4", "dst": "e5", "type": "causal"},
        ],
        "rewards": {"team": 1.0},
        "costs": {"tokens": 100, "wall_clock_s": 6, "tool_calls": 1, "messages": 0},
    }


def problems_of(trace, **kwargs):
    return validate_trace(trace, **kwargs).problems


def only_error(trace) -> tuple[str, str]:
    """(pointer, code) of the single error the trace must have."""
    errors = [p for p in problems_of(trace) if p.severity == "error"]
    assert len(errors) == 1, [p.as_text() for p in errors]
    return errors[0].pointer, errors[0].code


def write(path: Path, text: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


# ---------------------------------------------------------------------------------------------
# The schema


def test_schema_lives_in_taxonomy_and_is_valid_draft_2020_12():
    assert trace_schema_path() == REPO_ROOT / "taxonomy" / "trace.schema.json"
    schema = load_trace_schema()
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    jsonschema.Draft202012Validator.check_schema(schema)


def test_schema_topologies_are_the_taxonomy_ones_plus_mixed_and_unknown():
    taxonomy = load_taxonomy(REPO_ROOT / "taxonomy")
    expected = [*taxonomy["topologies"].ids, "mixed", "unknown"]
    assert load_trace_schema()["properties"]["topology"]["enum"] == expected


def test_reward_channels_are_credit_units_and_reward_families():
    taxonomy = load_taxonomy(REPO_ROOT / "taxonomy")
    assert list(reward_channel_bases()) == [
        *taxonomy["credit_units"].ids,
        *taxonomy["reward_families"].ids,
    ]


def test_every_field_of_the_schema_is_described():
    def walk(node, where):
        if isinstance(node, dict):
            if "type" in node or "$ref" in node:
                assert node.get("description") or "$ref" in node, f"{where} has no description"
            for key, value in node.items():
                if key in ("properties", "$defs", "patternProperties"):
                    for name, sub in value.items():
                        walk(sub, f"{where}.{name}")
                elif key in ("items", "additionalProperties") and isinstance(value, dict):
                    walk(value, f"{where}.{key}")

    walk(load_trace_schema(), "$")


def test_schema_reference_markdown_is_deterministic_and_lists_every_field():
    page = schema_reference_markdown()
    assert page == schema_reference_markdown()
    schema = load_trace_schema()
    names = [
        *schema["properties"],
        *schema["$defs"]["event"]["properties"],
        *schema["$defs"]["edge"]["properties"],
    ]
    for name in names:
        assert f"`{name}`" in page
    assert "## Rules beyond the schema" in page


def test_stop_decision_and_durations_are_optional_additions():
    event = load_trace_schema()["$defs"]["event"]
    assert {"duration_s", "decision", "reason"} <= set(event["properties"])
    assert {"duration_s", "decision", "reason"}.isdisjoint(event["required"])
    assert event["properties"]["duration_s"]["minimum"] == 0


def test_the_small_trace_is_valid_for_both_validators():
    trace = small_trace()
    assert validate_trace(trace).problems == ()
    jsonschema.Draft202012Validator(load_trace_schema()).validate(trace)
    assert decode_typed(json.dumps(trace).encode()) is not None


# ---------------------------------------------------------------------------------------------
# Structure rules: one minimal failing trace each, with the JSON path of the problem


def mutated(change) -> dict:
    trace = small_trace()
    change(trace)
    return trace


STRUCTURE_CASES = {
    "missing costs": (lambda t: t.pop("costs"), "costs", "required"),
    "unknown top-level field": (lambda t: t.update(reward={}), "reward", "unknown_field"),
    "empty trace_id": (lambda t: t.update(trace_id=""), "trace_id", "empty"),
    "task_id a number": (lambda t: t.update(task_id=7), "task_id", "type"),
    "unknown topology": (lambda t: t.update(topology="star"), "topology", "enum"),
    "bad schema_version": (lambda t: t.update(schema_version="v1"), "schema_version", "pattern"),
    "no events": (lambda t: t.update(events=[]), "events", "empty"),
    "events an object": (lambda t: t.update(events={}), "events", "type"),
    "edges missing": (lambda t: t.pop("edges"), "edges", "required"),
    "event not an object": (lambda t: t["events"].append(["e9"]), "events[6]", "type"),
    "event without t": (lambda t: t["events"][1].pop("t"), "events[1].t", "required"),
    "negative t": (lambda t: t["events"][2].update(t=-1), "events[2].t", "minimum"),
    "t a string": (lambda t: t["events"][2].update(t="2"), "events[2].t", "type"),
    "t a boolean": (lambda t: t["events"][2].update(t=True), "events[2].t", "type"),
    "unknown event type": (lambda t: t["events"][0].update(type="think"), "events[0].type", "enum"),
    "empty agent": (lambda t: t["events"][3].update(agent=""), "events[3].agent", "empty"),
    "id null": (lambda t: t["events"][3].update(id=None), "events[3].id", "type"),
    "trusted a string": (
        lambda t: t["events"][3].update(trusted="no"),
        "events[3].trusted",
        "type",
    ),
    "from a number": (lambda t: t["events"][4].update({"from": 4}), "events[4].from", "type"),
    "negative duration": (
        lambda t: t["events"][2].update(duration_s=-0.5),
        "events[2].duration_s",
        "minimum",
    ),
    "empty decision": (lambda t: t["events"][0].update(decision=""), "events[0].decision", "empty"),
    "edge field unknown": (
        lambda t: t["edges"][1].update(weight=2),
        "edges[1].weight",
        "unknown_field",
    ),
    "edge without dst": (lambda t: t["edges"][1].pop("dst"), "edges[1].dst", "required"),
    "unknown edge type": (lambda t: t["edges"][0].update(type="calls"), "edges[0].type", "enum"),
    "edge not an object": (lambda t: t["edges"].append("e0->e1"), "edges[5]", "type"),
    "costs without tokens": (lambda t: t["costs"].pop("tokens"), "costs.tokens", "required"),
    "negative wall clock": (
        lambda t: t["costs"].update(wall_clock_s=-1),
        "costs.wall_clock_s",
        "minimum",
    ),
    "negative extra cost": (lambda t: t["costs"].update(usd=-0.01), "costs.usd", "minimum"),
    "reward a string": (lambda t: t["rewards"].update(team="high"), "rewards.team", "type"),
    "odd reward name, bad value": (
        lambda t: t["rewards"].update({"agent:a b": None}),
        'rewards["agent:a b"]',
        "type",
    ),
    "metric a string": (
        lambda t: t.update(metrics={"task_success": "yes"}),
        "metrics.task_success",
        "type",
    ),
    "meta a list": (lambda t: t.update(meta=[]), "meta", "type"),
}


@pytest.mark.parametrize("case", sorted(STRUCTURE_CASES))
def test_structure_rule(case):
    change, path, code = STRUCTURE_CASES[case]
    trace = mutated(change)
    assert only_error(trace) == (path, code)
    assert code in SCHEMA_CODES
    # The JSON Schema agrees, and so does the file path (typed decoding, then the detailed pass).
    assert not jsonschema.Draft202012Validator(load_trace_schema()).is_valid(trace)
    assert validate_document(json.dumps(trace).encode()).problems == validate_trace(trace).problems


def test_a_trace_that_is_not_an_object():
    assert only_error([small_trace()]) == ("$", "type")


def test_unknown_top_level_field_suggests_the_right_one():
    problem = problems_of(mutated(lambda t: t.update(reward={})))[0]
    assert "rewards" in problem.hint


def test_unknown_event_fields_are_allowed():
    trace = mutated(lambda t: t["events"][0].update(model="gpt-x", tokens=12, nested={"a": [1]}))
    assert validate_trace(trace).ok
    assert decode_typed(json.dumps(trace).encode()) is not None


# ---------------------------------------------------------------------------------------------
# Semantic rules


def test_duplicate_event_id():
    trace = mutated(lambda t: t["events"][3].update(id="e1"))
    problems = [p for p in problems_of(trace) if p.severity == "error"]
    assert [(p.pointer, p.code) for p in problems] == [("events[3].id", "duplicate_id")]
    assert "events[1]" in problems[0].message


def test_edge_to_unknown_event():
    trace = mutated(lambda t: t["edges"][2].update(dst="e33"))
    assert only_error(trace) == ("edges[2].dst", "dangling_edge")
    assert "did you mean 'e3'" in problems_of(trace)[0].hint


def test_self_loop():
    trace = mutated(lambda t: t["edges"].append({"src": "e2", "dst": "e2", "type": "causal"}))
    assert only_error(trace) == ("edges[5]", "self_loop")


@pytest.mark.parametrize("edge_type", ["causal", "spawn", "message", "return"])
def test_ordered_edges_must_not_point_back_in_time(edge_type):
    trace = mutated(lambda t: t["edges"].append({"src": "e4", "dst": "e2", "type": edge_type}))
    errors = [(p.pointer, p.code) for p in problems_of(trace) if p.severity == "error"]
    assert ("edges[5]", "backwards_edge") in errors


@pytest.mark.parametrize("edge_type", ["temporal", "aggregate"])
def test_other_edges_back_in_time_only_warn(edge_type):
    # e5 -> e4 back in time; as temporal it is no dependency, as aggregate it closes no cycle here.
    trace = mutated(lambda t: t["edges"].append({"src": "e5", "dst": "e0", "type": edge_type}))
    report = validate_trace(trace)
    warning = report.problems[-1]
    assert (warning.pointer, warning.code, warning.severity) == (
        "edges[5]",
        "backwards_edge",
        "warning",
    )
    if edge_type == "temporal":
        assert report.ok
    else:  # e0 -> ... -> e5 -> e0 is a dependency cycle, named before the warning
        assert [p.code for p in report.problems] == ["cycle", "backwards_edge"]


@pytest.mark.parametrize("edge_type", ["aggregate", "causal"])
@pytest.mark.parametrize("max_problems", [1, 50])
def test_a_cycle_is_named_first_before_warnings_and_the_edges_that_close_it(
    tmp_path, edge_type, max_problems
):
    """The cycle, with its events, is the problem a report names first, however few are listed;
    trace export and figure name it as their error (issue 34, point 7)."""
    trace = mutated(lambda t: t["edges"].append({"src": "e5", "dst": "e0", "type": edge_type}))
    first = validate_trace(trace, max_problems=max_problems).problems[0]
    assert (first.code, first.severity) == ("cycle", "error")
    assert "e0 -> e1 -> e2 -> e3 -> e4 -> e5 -> e0" in first.message
    path = write(tmp_path / "cycle.json", json.dumps(trace))
    exported, drawn = tmp_path / "out.json", tmp_path / "out.svg"
    for out, args in (
        (exported, ["export", path, "--to", "perfetto", "-o", exported]),
        (drawn, ["figure", path, "-o", drawn]),
    ):
        result = invoke(*args)
        assert result.exit_code == 1 and "Traceback" not in result.output
        assert str(path) in result.output and "has a cycle: e0 -> e1" in result.output
        assert "points back in time" not in result.output and not out.exists()


def test_cycle_among_same_time_events():
    trace = mutated(lambda t: [t["events"][i].update(t=2) for i in (2, 3, 4)])
    trace["edges"].append({"src": "e4", "dst": "e2", "type": "causal"})
    path, code = only_error(trace)
    assert code == "cycle" and path == "events[2]"
    assert "e2 -> e3 -> e4 -> e2" in problems_of(trace)[0].message


def test_temporal_edges_may_form_cycles():
    trace = mutated(lambda t: [t["events"][i].update(t=2) for i in (2, 3)])
    trace["edges"].append({"src": "e3", "dst": "e2", "type": "temporal"})
    assert validate_trace(trace).ok


def test_agent_acting_before_it_is_spawned():
    trace = mutated(lambda t: t["events"][1].update(t=2.5))  # worker's tool call at t=2 comes first
    trace["events"][0]["t"] = 0
    trace["edges"] = [e for e in trace["edges"] if e["dst"] != "e2" and e["src"] != "e1"]
    assert only_error(trace) == ("events[2].t", "acts_before_spawn")


def test_roots_act_freely_and_equal_times_count_as_after_the_spawn():
    trace = small_trace()
    trace["events"][2]["t"] = 1  # same time as the spawn
    trace["edges"][1]["type"] = "tool_dependency"  # equal-time ordered edges are fine too
    assert validate_trace(trace).ok


def test_nan_and_infinity_in_python_objects():
    trace = mutated(lambda t: t["costs"].update(tokens=math.nan))
    trace["rewards"]["team"] = -math.inf
    trace["events"][0]["t"] = math.inf
    found = {(p.pointer, p.code) for p in problems_of(trace)}
    assert {
        ("costs.tokens", "non_finite"),
        ("rewards.team", "non_finite"),
        ("events[0].t", "non_finite"),
    } <= found
    assert "NaN" in next(p.message for p in problems_of(trace) if p.pointer == "costs.tokens")


def test_nan_and_infinity_literals_in_files(tmp_path):
    text = (
        json.dumps(small_trace())
        .replace('"tokens": 100', '"tokens": NaN')
        .replace('"t": 3', '"t": Infinity')
    )
    path = write(tmp_path / "nan.json", text)
    report = validate_file(path)
    assert {(p.pointer, p.code) for p in report.problems} == {
        ("costs.tokens", "non_finite"),
        ("events[3].t", "non_finite"),
    }
    too_big = write(
        tmp_path / "big.json", json.dumps(small_trace()).replace('"tokens": 100', '"tokens": 1e400')
    )
    assert [(p.pointer, p.code) for p in validate_file(too_big).problems] == [
        ("costs.tokens", "non_finite")
    ]


def test_count_mismatch_warns_but_passes():
    report = validate_trace(mutated(lambda t: t["costs"].update(messages=3, tool_calls=2)))
    assert report.ok
    assert {(p.pointer, p.code) for p in report.problems} == {
        ("costs.messages", "count_mismatch"),
        ("costs.tool_calls", "count_mismatch"),
    }


def test_reward_channels_outside_the_vocabulary_warn():
    report = validate_trace(
        mutated(lambda t: t["rewards"].update({"orchestration": 0.3, "agent:worker": 1, "R7": 0.1}))
    )
    assert report.ok
    assert [(p.pointer, p.code) for p in report.problems] == [
        ("rewards.orchestration", "reward_channel")
    ]
    assert "orchestrator" in report.problems[0].hint


def test_spawn_without_target_and_stop_without_reason_warn():
    trace = mutated(lambda t: t["events"][5].pop("reason"))
    trace["events"].append({"id": "e6", "t": 6, "type": "spawn", "agent": "boss"})
    report = validate_trace(trace)
    assert report.ok
    assert {(p.pointer, p.code) for p in report.problems} == {
        ("events[5].reason", "stop_without_reason"),
        ("events[6]", "spawn_without_target"),
    }


def test_problem_listing_is_capped_but_everything_is_counted():
    trace = small_trace()
    trace["events"] = [{"id": f"x{i}", "t": -1, "type": "message", "agent": "a"} for i in range(30)]
    report = validate_trace(trace, max_problems=5)
    assert report.errors == 30
    assert len(report.problems) == 6 and report.problems[-1].code == "more"
    assert "25 more" in report.problems[-1].message


def test_graph_helpers():
    assert topological_order(4, [0, 1, 0], [1, 2, 3]) == [0, 1, 3, 2]
    assert find_cycle(3, [0, 1, 2], [1, 2, 0]) in ([0, 1, 2, 0], [1, 2, 0, 1], [2, 0, 1, 2])
    assert find_cycle(3, [0, 1], [1, 2]) is None


def test_typed_and_dict_paths_agree_on_semantic_errors():
    trace = mutated(lambda t: t["edges"].append({"src": "e4", "dst": "e2", "type": "causal"}))
    raw = json.dumps(trace).encode()
    assert decode_typed(raw) is not None  # structure is fine, so the fast path runs
    assert validate_document(raw).problems == validate_trace(trace).problems


# ---------------------------------------------------------------------------------------------
# Reading files


def test_jsonl_errors_name_the_line(tmp_path):
    good = json.dumps(small_trace())
    bad = json.dumps(mutated(lambda t: t["events"][1].update(t=-2)))
    lines = [good, "", bad, "{not json", good]
    path = write(tmp_path / "runs.jsonl", "\n".join(lines) + "\n")
    report = validate_file(path)
    assert (report.traces, report.invalid_traces) == (4, 2)
    assert [(p.line, p.pointer, p.code) for p in report.problems] == [
        (3, "events[1].t", "minimum"),
        (4, "$", "parse"),
    ]
    assert report.problems[0].as_text().startswith(f"{path}:3: error: events[1].t:")


def test_gzip_files(tmp_path):
    trace = json.dumps(small_trace()).encode()
    one = write(tmp_path / "one.json.gz", gzip.compress(trace))
    many = write(tmp_path / "many.jsonl.gz", gzip.compress(trace + b"\n" + trace + b"\n"))
    assert validate_file(one).traces == 1 and validate_file(one).errors == 0
    assert validate_file(many).traces == 2 and validate_file(many).errors == 0


GARBAGE = {
    "not-json.json": (b"hello world", "parse", "not valid JSON"),
    "empty.json": (b"", "empty_file", "file is empty"),
    "blank.jsonl": (b"\n\n", "empty_file", "file is empty"),
    "array.json": (b"[1, 2]", "type", "must be a JSON object"),
    "string.jsonl": (b'"a trace"\n', "type", "must be a JSON object"),
    "truncated.json.gz": (
        gzip.compress(b'{"trace_id": "x"}' * 50)[:40],
        "gzip",
        "truncated or corrupt gzip",
    ),
    "bom.json": (b"\xef\xbb\xbf" + json.dumps({"a": 1}).encode(), "parse", "byte-order mark"),
    "latin1.json": ('{"trace_id": "caf\u00e9"}'.encode("latin-1"), "parse", "UTF-8"),
    "cut.json": (json.dumps(small_trace()).encode()[:-20], "parse", "not valid JSON"),
}


@pytest.mark.parametrize("name", sorted(GARBAGE))
def test_garbage_files_give_one_clear_error(tmp_path, name):
    content, code, words = GARBAGE[name]
    report = validate_file(write(tmp_path / name, content))
    assert report.errors == 1
    problem = report.problems[0]
    assert (problem.code, problem.pointer) == (code, "$")
    assert words in problem.message
    assert problem.path == str(tmp_path / name)


def test_truncated_jsonl_gzip_keeps_the_lines_before_the_damage(tmp_path):
    line = json.dumps(small_trace()).encode() + b"\n"
    data = gzip.compress(line * 200)
    report = validate_file(write(tmp_path / "cut.jsonl.gz", data[: len(data) - 30]))
    assert report.problems[-1].code == "gzip"
    assert report.invalid_traces == 1 and report.traces > 1


def test_directories_are_searched_recursively_and_in_order(tmp_path):
    trace = json.dumps(small_trace())
    for name in [
        "b/two.json",
        "a/one.jsonl",
        "a/deep/three.json.gz",
        "notes.txt",
        "c/four.jsonl.gz",
    ]:
        content = gzip.compress(trace.encode()) if name.endswith(".gz") else trace
        write(tmp_path / name, content)
    serial = validate_paths([tmp_path], jobs=1)
    parallel = validate_paths([tmp_path], jobs=2)
    assert (serial.files, serial.traces, serial.errors) == (4, 4, 0)
    assert serial.render("json") == parallel.render("json")


def test_missing_paths_are_errors(tmp_path):
    report = validate_paths([tmp_path / "nowhere.json"])
    assert not report.ok() and report.problems[0].message == "no such file or directory"


def test_read_traces_gives_dicts(tmp_path):
    path = write(tmp_path / "t.jsonl", json.dumps(small_trace()) + "\n")
    records = list(read_traces(path))
    assert records[0].line == 1 and records[0].data["trace_id"] == "t1"


# ---------------------------------------------------------------------------------------------
# Metrics


def dag_trace() -> dict:
    """Hand-built: a (1 s) fans out to b (2 s) and c (5 s), both feed d (1 s); a temporal edge a->d
    does not count. Work 9, span a+c+d = 7. boss spawns w1 and w2; w1 spawns w3."""
    events = [
        {"id": "a", "t": 0, "type": "orchestrator_decision", "agent": "boss", "duration_s": 1},
        {"id": "s1", "t": 1, "type": "spawn", "agent": "boss", "to": "w1", "duration_s": 0},
        {"id": "s2", "t": 1, "type": "spawn", "agent": "boss", "to": "w2", "duration_s": 0},
        {"id": "b", "t": 1, "type": "message", "agent": "w1", "to": "w2", "duration_s": 2},
        {"id": "s3", "t": 3, "type": "spawn", "agent": "w1", "to": "w3", "duration_s": 0},
        {"id": "c", "t": 1, "type": "tool_call", "agent": "w2", "tool": "x", "duration_s": 5},
        {"id": "d", "t": 6, "type": "aggregate", "agent": "boss", "duration_s": 1},
        {
            "id": "z",
            "t": 7,
            "type": "orchestrator_decision",
            "agent": "boss",
            "decision": "stop",
            "reason": "solved",
            "duration_s": 0,
        },
    ]
    edges = [
        {"src": "a", "dst": "b", "type": "causal"},
        {"src": "a", "dst": "c", "type": "causal"},
        {"src": "b", "dst": "d", "type": "aggregate"},
        {"src": "c", "dst": "d", "type": "aggregate"},
        {"src": "a", "dst": "d", "type": "temporal"},
        {"src": "d", "dst": "z", "type": "causal"},
    ]
    return {
        "trace_id": "dag",
        "task_id": "t",
        "topology": "hierarchical",
        "events": events,
        "edges": edges,
        "rewards": {"team": 1, "agent:w1": 0.5},
        "costs": {"tokens": 50, "wall_clock_s": 4.5},
    }


def test_metrics_of_a_hand_built_dag():
    row = trace_metrics(dag_trace())
    assert row["work"] == 9 and row["span"] == 7
    assert row["parallelism"] == round(9 / 7, 6)
    assert row["weight_basis"] == "duration_s"
    assert row["observed_speedup"] == 2.0
    assert (row["max_fan_out"], row["spawn_depth"]) == (2, 2)
    assert (row["events"], row["agents"], row["messages"], row["tool_calls"]) == (8, 3, 1, 1)
    assert row["messages_per_agent"] == round(1 / 3, 6)
    assert (row["stop_event"], row["stop_reason"]) == ("z", "solved")
    assert (row["reward.team"], row["reward.agent:w1"], row["tokens"]) == (1, 0.5, 50)


def test_metrics_with_unit_and_mixed_weights():
    trace = dag_trace()
    for event in trace["events"]:
        event.pop("duration_s")
    row = trace_metrics(trace)
    assert (row["work"], row["span"], row["weight_basis"], row["observed_speedup"]) == (
        8,
        4,
        "unit",
        None,
    )
    trace["events"][5]["duration_s"] = 10  # c
    row = trace_metrics(trace)
    assert (row["work"], row["span"], row["weight_basis"]) == (17, 13, "mixed")


def test_heaviest_path_needs_no_particular_order():
    # Nodes listed out of dependency order: 2 -> 0 -> 1.
    assert heaviest_path([1, 1, 5], [2, 0], [0, 1]) == 7
    with pytest.raises(ValueError):
        heaviest_path([1, 1], [0, 1], [1, 0])


def test_metrics_refuse_invalid_traces():
    with pytest.raises(InvalidTraceError) as caught:
        trace_metrics(mutated(lambda t: t["events"][0].update(t=-1)))
    assert "events[0].t" in str(caught.value)


def test_metrics_over_a_directory(tmp_path):
    report = metrics_for_paths([examples_directory()], jobs=2)
    assert [row["topology"] for row in report.rows] == sorted(TOPOLOGIES)
    summary = report.summary()
    assert summary["traces"] == 6 and summary["numeric"]["events"]["count"] == 6
    payload = json.loads(report.render("json"))
    assert list(payload) == ["summary", "traces"]
    assert report.render("json") == metrics_for_paths([examples_directory()], jobs=1).render("json")
    header = report.render("csv").splitlines()[0].split(",")
    assert header[:5] == ["file", "line", "trace_id", "task_id", "topology"]
    assert header[22:] == sorted(header[22:]) and all(h.startswith("reward.") for h in header[22:])
    assert "summary of 6 trace(s)" in report.render("table")
    assert report.render("csv", summary_only=True).startswith("metric,count,mean,min,median,max")


# ---------------------------------------------------------------------------------------------
# Examples and figures


def test_one_valid_example_per_topology():
    files = sorted(examples_directory().glob("*.json"))
    assert [f.stem for f in files] == sorted(TOPOLOGIES)
    for path in files:
        report = validate_file(path)
        assert report.errors == 0 and report.warnings == 0, [p.as_text() for p in report.problems]
        data = json.loads(path.read_text())
        assert data["topology"] == path.stem and data["schema_version"] == SCHEMA_VERSION
        jsonschema.Draft202012Validator(load_trace_schema()).validate(data)
        assert trace_metrics(data)["stop_reason"]


@pytest.mark.parametrize("suffix", [".svg", ".png"])
def test_figures_are_deterministic(tmp_path, suffix):
    trace = json.loads((examples_directory() / "harness.json").read_text())
    first = render_trace_figure(trace, tmp_path / f"one{suffix}").read_bytes()
    second = render_trace_figure(copy.deepcopy(trace), tmp_path / f"two{suffix}").read_bytes()
    assert first == second and len(first) > 1000
    if suffix == ".svg":
        assert b"<svg" in first and b"<dc:date>" not in first


def test_figures_refuse_bad_input(tmp_path):
    with pytest.raises(FigureError):
        render_trace_figure(small_trace(), tmp_path / "x.pdf")
    with pytest.raises(FigureError):
        render_trace_figure(mutated(lambda t: t.pop("edges")), tmp_path / "x.svg")


def test_large_traces_are_drawn_truncated(tmp_path):
    trace = small_trace()
    trace["events"] += [
        {"id": f"m{i}", "t": 10 + i, "type": "message", "agent": "boss"} for i in range(50)
    ]
    render_trace_figure(trace, tmp_path / "big.svg", max_events=10)
    assert "first 10 of 56 events" in (tmp_path / "big.svg").read_text()


# ---------------------------------------------------------------------------------------------
# The command line


def invoke(*args):
    return CliRunner().invoke(trace_cli, [str(a) for a in args], catch_exceptions=False)


def test_cli_validate_ok_and_invalid(tmp_path):
    good = write(tmp_path / "good.json", json.dumps(small_trace()))
    bad = write(tmp_path / "bad.json", json.dumps(mutated(lambda t: t["events"][2].update(t=-1))))
    result = invoke("validate", good)
    assert result.exit_code == 0 and "ok: 1 trace(s) in 1 file(s)" in result.output
    result = invoke("validate", good, bad, "--jobs", "1")
    assert result.exit_code == 1
    assert f"{bad}: error: events[2].t: must be at least 0" in result.output
    payload = json.loads(invoke("validate", bad, "--format", "json").output)
    assert payload["ok"] is False and payload["problems"][0]["pointer"] == "events[2].t"
    github = invoke("validate", bad, "--format", "github").output
    assert github.startswith("::error file=") and "events[2].t" in github


def test_cli_strict_fails_on_warnings(tmp_path):
    warned = write(
        tmp_path / "w.json", json.dumps(mutated(lambda t: t["costs"].update(messages=9)))
    )
    assert invoke("validate", warned).exit_code == 0
    assert invoke("validate", warned, "--strict").exit_code == 1


def test_cli_never_shows_a_traceback_on_garbage(tmp_path):
    for name, (content, _, _) in GARBAGE.items():
        write(tmp_path / name, content)
    result = invoke("validate", tmp_path, "--jobs", "2")
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert f"invalid: {len(GARBAGE)} of {len(GARBAGE)} trace(s)" in result.output


def test_cli_metrics_formats(tmp_path):
    path = write(tmp_path / "dag.json", json.dumps(dag_trace()))
    table = invoke("metrics", path)
    assert table.exit_code == 0 and "parallelism" in table.output
    rows = invoke("metrics", path, "--format", "csv").output.splitlines()
    assert len(rows) == 2 and rows[0].startswith("file,line,trace_id")
    payload = json.loads(invoke("metrics", path, "--format", "json").output)
    assert payload["traces"][0]["span"] == 7
    bad = write(tmp_path / "bad.json", "{}")
    result = CliRunner().invoke(trace_cli, ["metrics", str(path), str(bad)])
    assert result.exit_code == 1 and "costs: required field is missing" in result.output


def test_cli_figure_and_schema(tmp_path):
    source = examples_directory() / "debate.json"
    result = invoke("figure", source, "-o", tmp_path / "debate.svg")
    assert result.exit_code == 0 and (tmp_path / "debate.svg").exists()
    jsonl = write(
        tmp_path / "two.jsonl", json.dumps(small_trace()) + "\n" + json.dumps(dag_trace()) + "\n"
    )
    assert invoke("figure", jsonl, "--line", 2, "-o", tmp_path / "dag.png").exit_code == 0
    broken = CliRunner().invoke(
        trace_cli, ["figure", str(write(tmp_path / "x.json", "[")), "-o", str(tmp_path / "x.svg")]
    )
    assert broken.exit_code == 1 and "not valid JSON" in broken.output
    assert invoke("schema").output.startswith("# Orchestration trace schema reference")
    assert json.loads(invoke("schema", "--format", "json").output)["title"] == "Orchestration trace"
    assert invoke("schema", "--format", "path").output.strip().endswith("trace.schema.json")


def test_trace_is_a_masrl_subcommand():
    result = CliRunner().invoke(main, ["trace", "validate", str(examples_directory())])
    assert result.exit_code == 0 and "ok: 6 trace(s) in 6 file(s)" in result.output


def test_cli_progress_bar_goes_to_stderr_only_when_asked(tmp_path):
    for index in range(3):
        write(tmp_path / f"t{index}.json", json.dumps(small_trace()))
    quiet = CliRunner().invoke(trace_cli, ["validate", str(tmp_path), "--jobs", "1"])
    assert quiet.stderr == ""  # not a terminal, not asked
    shown = CliRunner().invoke(trace_cli, ["validate", str(tmp_path), "--jobs", "1", "--progress"])
    assert "validate" in shown.stderr and "3/3" in shown.stderr
    assert shown.stdout.strip() == "ok: 3 trace(s) in 3 file(s)"


def test_cli_on_a_directory_without_traces(tmp_path):
    write(tmp_path / "readme.txt", "no traces here")
    result = invoke("validate", tmp_path)
    assert result.exit_code == 0 and "no trace files found" in result.output
    assert CliRunner().invoke(trace_cli, ["validate", str(tmp_path), "--strict"]).exit_code == 1


def test_a_spawn_chain_deeper_than_the_python_stack_is_measured():
    """Every graph walk is iterative and linear: agent n spawns agent n + 1, 100,000 deep (the
    spawn-depth walk once re-scanned each chain as a list: minutes at this depth)."""
    depth = 100_000
    events = [
        {"id": f"e{n}", "t": n, "type": "spawn", "agent": f"a{n}", "to": f"a{n + 1}"}
        for n in range(depth)
    ]
    edges = [{"src": f"e{n}", "dst": f"e{n + 1}", "type": "spawn"} for n in range(depth - 1)]
    trace = {
        "schema_version": "1.0",
        "trace_id": "deep",
        "task_id": "deep",
        "events": events,
        "edges": edges,
        "rewards": {"team": 1},
        "costs": {"tokens": 1, "wall_clock_s": depth},
    }
    metrics = trace_metrics(trace)
    assert metrics["spawn_depth"] == depth and metrics["max_fan_out"] == 1
    assert metrics["span"] == depth

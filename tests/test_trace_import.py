"""`masrl trace import`: traces written by real agent stacks become valid masrl traces whose
metrics match a count made by hand from the fixture (see the make_*.py script beside each)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from masrl.cli.traces import trace as trace_cli
from masrl.errors import InputError, UsageError
from masrl.traces.importers import import_traces, traces_as_text
from masrl.traces.importers.span_tree import AGENT, GENERIC, TOOL, SourceSpan, build_trace
from masrl.traces.metrics import trace_metrics
from masrl.traces.validate import validate_paths, validate_trace

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "traces" / "import"


def only_trace(name: str, source_format: str) -> tuple[dict, object]:
    traces, summary = import_traces(FIXTURES / name, source_format)
    assert len(traces) == 1
    report = validate_trace(traces[0])
    assert report.ok and report.warnings == 0, [p.as_text() for p in report.problems]
    return traces[0], summary


def test_otel_genai_json_matches_the_hand_count():
    trace, summary = only_trace("otel_genai.json", "otel")
    metrics = trace_metrics(trace)
    # 12 spans: the workflow and 3 agents, 4 chats, create_agent, 2 tools, 1 HTTP span. The
    # workflow opens with a message; each nested agent with a spawn and a closing return.
    assert metrics["events"] == 15
    assert metrics["agents"] == 5  # user, research (the workflow), lead, searcher, writer
    assert metrics["tool_calls"] == 2
    assert metrics["tokens"] == 450  # (100+20) + (50+10) + (80+40) + (120+30)
    assert metrics["max_fan_out"] == 2  # lead spawns searcher and writer
    assert metrics["spawn_depth"] == 2  # research -> lead -> searcher
    assert trace["task_id"] == "conv-7"  # gen_ai.conversation.id
    assert summary.generic == {"no_gen_ai_operation": 1}
    generic = [e for e in trace["events"] if e.get("generic")]
    assert [e["source_name"] for e in generic] == ["GET /cache"]
    tools = [e for e in trace["events"] if e["type"] == "tool_call"]
    assert [e["tool_call_id"] for e in tools] == ["call_1", "call_2"]
    # Sequential tool calls form a chain: the second waits for the first.
    assert {"src": tools[0]["id"], "dst": tools[1]["id"], "type": "tool_dependency"} in trace[
        "edges"
    ]


def test_otel_protobuf_and_json_give_the_same_trace():
    pytest.importorskip("opentelemetry.proto")
    from_json, _ = only_trace("otel_genai.json", "otel")
    from_protobuf, _ = only_trace("otel_genai.pb", "otel")
    assert from_protobuf == from_json


def test_openai_agents_sdk_export_matches_the_hand_count():
    trace, summary = only_trace("openai_agents.json", "openai-agents")
    metrics = trace_metrics(trace)
    assert metrics["events"] == 14  # 13 spans; the nested summariser also closes with a return
    assert metrics["agents"] == 4  # user, triage, researcher, summariser
    assert metrics["tool_calls"] == 3
    assert metrics["tokens"] == 1020  # 120 + 240 + 360 + 300
    assert metrics["messages"] == 2  # the user to triage, triage hands off to researcher
    assert (metrics["max_fan_out"], metrics["spawn_depth"]) == (1, 1)  # summariser, as a tool
    assert trace["task_id"] == "task-42" and trace["meta"]["workflow_name"] == "Research task"
    handoff = next(e for e in trace["events"] if e["source_kind"] == "handoff")
    assert (handoff["type"], handoff["decision"], handoff["agent"], handoff["to"]) == (
        "orchestrator_decision",
        "delegate",
        "triage",
        "researcher",
    )
    opened = next(e for e in trace["events"] if e["type"] == "message" and e["to"] == "researcher")
    assert opened["from"] == "triage"
    assert summary.generic == {"custom": 1}
    assert next(e for e in trace["events"] if e.get("generic"))["source_name"] == "cache_lookup"


def test_agent_lightning_rewards_become_masrl_rewards():
    trace, summary = only_trace("agent_lightning.json", "agent-lightning")
    metrics = trace_metrics(trace)
    assert trace["rewards"] == {"team": 1.0, "team:efficiency": 0.25, "agent:verifier": 0.5}
    assert summary.rewards == 2
    assert metrics["events"] == 9  # 10 spans, 2 of them rewards, plus the verifier's return
    assert metrics["tool_calls"] == 2
    assert metrics["tokens"] == 1000
    assert metrics["work"] == 5.5  # 1.0 + 0.3 + 0.3 + 1.9 + 0 + 2.0: leaf spans only
    assert metrics["span"] == 5.5  # one chain: nothing ran in parallel
    assert trace["trace_id"] == "ro-calc-17/at-1" and trace["task_id"] == "ro-calc-17"
    assert summary.generic == {"agentlightning.message": 1}


def test_every_span_is_accounted_for():
    for name, source_format in (
        ("otel_genai.json", "otel"),
        ("openai_agents.json", "openai-agents"),
        ("agent_lightning.json", "agent-lightning"),
    ):
        traces, summary = import_traces(FIXTURES / name, source_format)
        ids = {e["source_span_id"] for t in traces for e in t["events"]}
        ids |= {
            a["source_span_id"] for t in traces for a in t["meta"].get("reward_annotations", [])
        }
        assert len(ids) == summary.spans == sum(summary.by_source_kind.values())


def test_parallel_children_fan_out_and_join():
    spans = [
        SourceSpan("root", None, GENERIC, "step", 0.0, 10.0),
        SourceSpan("a", "root", TOOL, "execute_tool", 1.0, 4.0, name="search"),
        SourceSpan("b", "root", TOOL, "execute_tool", 1.5, 3.0, name="search"),
        SourceSpan("c", "root", TOOL, "execute_tool", 5.0, 6.0, name="write"),
    ]
    trace, _ = build_trace(spans, trace_id="t", task_id=None, system="s", source_format="test")
    edges = {(e["src"], e["dst"]) for e in trace["edges"]}
    assert edges == {("root", "a"), ("root", "b"), ("a", "c"), ("b", "c")}
    metrics = trace_metrics(trace)
    assert metrics["work"] == 5.5 and metrics["span"] == 4.0  # a (3) + c (1), b runs beside a


def test_children_never_start_before_their_parent():
    spans = [
        SourceSpan("root", None, GENERIC, "step", 5.0, 10.0),
        SourceSpan("early", "root", TOOL, "execute_tool", 4.0, 6.0, name="x"),  # clock skew
    ]
    trace, _ = build_trace(spans, trace_id="t", task_id=None, system="s", source_format="test")
    assert validate_trace(trace).ok


def test_a_chain_of_spans_deeper_than_the_python_stack_imports():
    """The walk is iterative: nested agents, each a sub-agent of the one before, ten times as deep
    as Python lets a recursive walk go."""
    depth = 10 * sys.getrecursionlimit()
    spans = [
        SourceSpan(
            f"s{n}", f"s{n - 1}" if n else None, AGENT, "invoke_agent", float(n), 2.0 * depth - n
        )
        for n in range(depth)
    ]
    spans.append(
        SourceSpan("leaf", f"s{depth - 1}", TOOL, "execute_tool", depth + 0.0, depth + 0.5)
    )
    trace, summary = build_trace(spans, trace_id="t", task_id=None, system="s", source_format="x")
    types = [event["type"] for event in trace["events"]]
    assert types[0] == "message" and types[depth] == "tool_call"
    assert types.count("spawn") == types.count("return") == depth - 1
    assert trace["events"][-1]["id"] == "s1:end"  # the outermost sub-agent returns last
    assert summary.events == len(types) == 2 * depth and len(trace["edges"]) == 2 * depth - 1


def test_parent_cycles_and_duplicate_ids_are_clear_errors():
    looped = [
        SourceSpan("a", "b", GENERIC, "x", 0.0, 1.0),
        SourceSpan("b", "a", GENERIC, "x", 0.0, 1.0),
        SourceSpan("c", None, GENERIC, "x", 0.0, 1.0),
    ]
    with pytest.raises(InputError, match="2 span"):
        build_trace(looped, trace_id="t", task_id=None, system="s", source_format="test")
    twice = [SourceSpan("a", None, GENERIC, "x", 0.0, 1.0)] * 2
    with pytest.raises(InputError, match="occurs twice"):
        build_trace(twice, trace_id="t", task_id=None, system="s", source_format="test")


def run(*args):
    return CliRunner().invoke(trace_cli, [str(a) for a in args])


def test_cli_writes_traces_that_validate(tmp_path):
    out = tmp_path / "run.jsonl"
    result = run(
        "import", "--from", "agent-lightning", FIXTURES / "agent_lightning.json", "-o", out
    )
    assert result.exit_code == 0, result.output
    assert "2 reward annotation(s)" in result.output  # the summary (stderr, mixed in here)
    assert validate_paths([out]).ok()
    single = tmp_path / "run.json"
    assert (
        run("import", "--from", "otel", FIXTURES / "otel_genai.json", "-o", single).exit_code == 0
    )
    first = single.read_bytes()
    run("import", "--from", "otel", FIXTURES / "otel_genai.json", "-o", single)
    assert single.read_bytes() == first  # deterministic
    assert json.loads(first)["system"] == "opentelemetry-genai"


@pytest.mark.parametrize(
    ("content", "source_format", "expected"),
    [
        ('{"data": [1]}', "openai-agents", "not an OpenAI Agents SDK trace item"),
        ('{"spans": "x"}', "otel", "no resourceSpans list"),
        ('{"x": 1}', "autogen", "not an AutoGen run"),
        ('{"messages": [{"type": "TextMessage"}]}', "autogen", "needs type and source"),
        ('[{"a": 1}', "agent-lightning", "not valid JSON"),
        ('[{"rollout_id": "r", "attempt_id": "a", "name": "n"}]', "agent-lightning", "span_id"),
        (
            (
                '{"data": [{"object": "trace.span", "id": "s", "trace_id": "t", '
                '"started_at": "yesterday", "span_data": {"type": "agent"}}]}'
            ),
            "openai-agents",
            "not an ISO 8601 timestamp",
        ),
    ],
)
def test_malformed_input_is_one_line_naming_the_file(tmp_path, content, source_format, expected):
    bad = tmp_path / "bad.json"
    bad.write_text(content)
    result = run("import", "--from", source_format, bad)
    assert result.exit_code == 1
    assert expected in result.output and str(bad) in result.output
    assert "Traceback" not in result.output and len(result.output.strip().splitlines()) == 1


def test_several_traces_do_not_fit_one_json_file(tmp_path):
    doubled = tmp_path / "two.jsonl"
    text = (FIXTURES / "agent_lightning.json").read_text()
    spans = json.loads(text)
    again = [{**span, "attempt_id": "at-2"} for span in spans]
    doubled.write_text(json.dumps(spans) + "\n" + json.dumps(again) + "\n")
    traces, _summary = import_traces(doubled, "agent-lightning")
    assert [t["trace_id"] for t in traces] == ["ro-calc-17/at-1", "ro-calc-17/at-2"]
    result = run("import", "--from", "agent-lightning", doubled, "-o", tmp_path / "one.json")
    assert result.exit_code == 2 and "2 traces do not fit one .json file" in result.output


def test_unknown_format_is_a_usage_error():
    with pytest.raises(UsageError):
        import_traces(FIXTURES / "otel_genai.json", "zipkin")


def test_autogen_team_run_matches_the_hand_count():
    trace, summary = only_trace("autogen.json", "autogen")
    metrics = trace_metrics(trace)
    # 11 messages: 2 text, 3 tool-call requests (4 calls), 3 executions (4 results), 1 summary,
    # 2 hand-offs; plus the run's stop reason as a final stop decision.
    assert metrics["events"] == 14
    assert metrics["tool_calls"] == 4  # AutoGen hands off through transfer_to_* tool calls
    assert metrics["messages"] == 3
    assert metrics["tokens"] == 240  # 3 x (50 + 10) + (40 + 20)
    assert metrics["work"] == 14 and metrics["span"] == 12  # the two searches ran side by side
    assert metrics["stop_reason"] == "Text 'TERMINATE' mentioned"
    handoffs = [e for e in trace["events"] if e.get("decision") == "delegate"]
    assert [(e["agent"], e["to"]) for e in handoffs] == [
        ("planner", "researcher"),
        ("researcher", "planner"),
    ]
    first = trace["events"][0]
    assert (first["from"], first["to"]) == ("user", "planner")  # to whoever speaks next
    assert "content" not in first and first["content_ref"].startswith("sha256:")
    assert summary.generic == {}


def test_autogen_unknown_message_types_are_kept_and_counted(tmp_path):
    run = json.loads((FIXTURES / "autogen.json").read_text())
    thought = {**run["messages"][1], "id": "thought-1", "type": "ThoughtEvent", "content": "hmm"}
    run["messages"].insert(2, thought)
    lines = tmp_path / "stream.jsonl"  # one message a line, as run_stream yields them
    lines.write_text("".join(json.dumps(m) + "\n" for m in run["messages"]))
    traces, summary = import_traces(lines, "autogen")
    assert summary.generic == {"ThoughtEvent": 1}
    assert validate_trace(traces[0]).ok
    assert any(e["id"] == "thought-1" and e["generic"] for e in traces[0]["events"])


@pytest.mark.parametrize(
    ("fixture", "source_format"),
    [
        ("otel_genai.json", "otel"),
        ("openai_agents.json", "openai-agents"),
        ("agent_lightning.json", "agent-lightning"),
        ("autogen.json", "autogen"),
    ],
)
def test_collected_sets_keep_each_events_source_id_and_kind(tmp_path, fixture, source_format):
    """An imported event names the span or message it came from, and a collected set keeps it:
    a query can go from a surprising event back to the source trace."""
    from masrl.traces.collect import collect_traces
    from masrl.traces.query import run_query

    out = tmp_path / "run.jsonl"
    assert run("import", "--from", source_format, FIXTURES / fixture, "-o", out).exit_code == 0
    traces = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    events = [event for trace in traces for event in trace["events"]]
    assert all(event.get("source_kind") for event in events)
    with_ids = [event for event in events if event.get("source_span_id")]
    # only what the importer adds from outside any span (AutoGen's stop_reason) has no span id
    assert len(with_ids) >= len(events) - 1
    collect_traces([out], tmp_path / "set.parquet", jobs=1)
    result = run_query(
        tmp_path / "set.parquet",
        "select count(*) filter (where source_span_id is not null), "
        "count(distinct source_kind), count(*) from events",
    )
    assert result.rows == [(len(with_ids), len({e["source_kind"] for e in events}), len(events))]


@pytest.mark.parametrize("name", ["x.json", "x.jsonl"])
def test_traces_written_in_pieces_are_the_bytes_of_json_dumps(name):
    """The output is made a top-level value or a batch of events at a time, never whole."""
    trace, _ = only_trace("otel_genai.json", "otel")
    odd = {"a": [], "b": {}, "c": [1, [2, {"x": [3]}]], "d": [{"e": "é\n", "f": [{}]}], "g": "x"}
    for value in (trace, odd, {}):
        if name.endswith(".json"):
            expected = json.dumps(value, indent=2, ensure_ascii=False)
        else:
            expected = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
        assert traces_as_text([value], Path(name)) == expected + "\n"

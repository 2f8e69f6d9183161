"""`masrl trace export --to perfetto`, checked against the Trace Event Format's documented rules
(JSON object form). No real consumer runs here: the `perfetto` package's trace processor
downloads its binary from Google's storage at first use, which these tests may not do."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

import pytest
from click.testing import CliRunner
from masrl.cli.traces import trace as trace_cli
from masrl.traces import examples_directory
from masrl.traces.export_perfetto import export_perfetto, perfetto_chunks, perfetto_document
from masrl.traces.importers import import_traces

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "traces" / "import"
METADATA_NAMES = {"process_name", "process_sort_index", "thread_name", "thread_sort_index"}


def check_trace_event_rules(document: dict) -> None:
    """The rules of the Trace Event Format a viewer relies on, for the phases masrl writes."""
    assert set(document) <= {"traceEvents", "displayTimeUnit", "otherData"}
    assert document["displayTimeUnit"] in ("ms", "ns")
    events = document["traceEvents"]
    assert isinstance(events, list) and events
    named_processes, named_threads = set(), set()
    slices = defaultdict(list)  # (pid, tid) -> [(ts, end)]
    flows = defaultdict(list)
    for event in events:
        assert event["ph"] in {"M", "X", "s", "f"}
        assert isinstance(event["pid"], int) and isinstance(event["tid"], int)
        if event["ph"] == "M":
            assert event["name"] in METADATA_NAMES
            key = "name" if event["name"].endswith("_name") else "sort_index"
            assert set(event["args"]) == {key}
            if event["name"] == "process_name":
                named_processes.add(event["pid"])
            if event["name"] == "thread_name":
                named_threads.add((event["pid"], event["tid"]))
            continue
        assert isinstance(event["ts"], (int, float)) and event["ts"] >= 0  # microseconds
        assert isinstance(event["name"], str) and isinstance(event["cat"], str)
        if event["ph"] == "X":
            assert event["dur"] > 0 and isinstance(event["args"], dict)
            slices[(event["pid"], event["tid"])].append((event["ts"], event["ts"] + event["dur"]))
        else:
            flows[event["id"]].append(event)
    for thread, spans in slices.items():
        assert thread[0] in named_processes and thread in named_threads
        # Complete events on one thread must nest: no two overlap partially.
        spans.sort(key=lambda s: (s[0], -s[1]))
        stack = []
        for start, end in spans:
            while stack and stack[-1] <= start:
                stack.pop()
            assert not stack or end <= stack[-1], f"slices overlap on {thread}"
            stack.append(end)
    for flow_id, phases in flows.items():
        # One start and one finish per id, same name and category, not running backwards.
        assert sorted(p["ph"] for p in phases) == ["f", "s"], flow_id
        start = next(p for p in phases if p["ph"] == "s")
        finish = next(p for p in phases if p["ph"] == "f")
        assert start["name"] == finish["name"] and start["cat"] == finish["cat"]
        assert finish["bp"] == "e" and start["ts"] <= finish["ts"]
        # Each binds to a slice that starts where it stands, on its thread, in its category.
        for phase in (start, finish):
            thread = slices[(phase["pid"], phase["tid"])]
            assert any(s == phase["ts"] for s, _ in thread), phase


EXAMPLES = sorted(examples_directory().glob("*.json"))


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_every_example_follows_the_trace_event_rules(path):
    document = json.loads(export_perfetto(path))
    check_trace_event_rules(document)
    trace = json.loads(path.read_text())
    slices = [e for e in document["traceEvents"] if e["ph"] == "X"]
    assert len(slices) == len(trace["events"])
    spawn_flows = [e for e in document["traceEvents"] if e["ph"] == "s" and e["name"] == "spawn"]
    assert len(spawn_flows) == sum(edge["type"] == "spawn" for edge in trace["edges"])
    agents = {e["agent"] for e in trace["events"]}
    threads = {e["args"]["name"] for e in document["traceEvents"] if e["name"] == "thread_name"}
    assert agents <= {name.split(" #")[0] for name in threads}


def test_imported_traces_export_with_handoffs_as_flows():
    traces, _ = import_traces(FIXTURES / "openai_agents.json", "openai-agents")
    document = perfetto_document(traces)
    check_trace_event_rules(document)
    by_id = {e["args"]["id"]: e for e in document["traceEvents"] if e["ph"] == "X"}
    # The hand-off: triage's message opening researcher's run starts an arrow to researcher.
    handoff = next(
        e
        for e in by_id.values()
        if e["args"].get("to") == "researcher" and e["args"]["type"] == "message"
    )
    threads = {
        e["args"]["name"]: e["tid"] for e in document["traceEvents"] if e["name"] == "thread_name"
    }
    flows = [e for e in document["traceEvents"] if e["ph"] in "sf"]
    started = {
        f["id"]
        for f in flows
        if f["ph"] == "s" and f["tid"] == handoff["tid"] and f["ts"] == handoff["ts"]
    }
    assert any(
        f["ph"] == "f" and f["id"] in started and f["tid"] == threads["researcher"] for f in flows
    )


def test_overlapping_calls_of_one_agent_get_their_own_thread():
    trace = {
        "trace_id": "t",
        "events": [
            {"id": "a", "t": 0, "type": "tool_call", "agent": "w", "duration_s": 2},
            {"id": "b", "t": 1, "type": "tool_call", "agent": "w", "duration_s": 2},
            {"id": "c", "t": 1.5, "type": "tool_call", "agent": "w", "duration_s": 0.1},
        ],
        "edges": [],
    }
    document = perfetto_document([trace])
    check_trace_event_rules(document)
    names = sorted(e["args"]["name"] for e in document["traceEvents"] if e["name"] == "thread_name")
    assert names == ["w", "w #2"]


def test_cli_writes_the_same_bytes_twice_and_refuses_invalid_traces(tmp_path):
    example = EXAMPLES[0]
    out = tmp_path / "x.perfetto.json"
    runner = CliRunner()
    args = ["export", str(example), "--to", "perfetto", "-o", str(out)]
    assert runner.invoke(trace_cli, args).exit_code == 0
    first = out.read_bytes()
    runner.invoke(trace_cli, args)
    assert out.read_bytes() == first
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({**json.loads(example.read_text()), "events": []}))
    result = runner.invoke(trace_cli, ["export", str(bad), "--to", "perfetto", "-o", str(out)])
    assert result.exit_code == 1 and "invalid trace" in result.output and str(bad) in result.output
    assert "Traceback" not in result.output


def test_written_in_pieces_it_is_the_document_and_all_or_nothing(tmp_path):
    """The export is made a trace at a time and written in pieces: the bytes are those of the
    whole document, and a bad trace after good ones leaves the earlier output untouched."""
    traces = [json.loads(path.read_text(encoding="utf-8")) for path in EXAMPLES[:3]]
    lines = tmp_path / "three.jsonl"
    lines.write_text("".join(json.dumps(trace) + "\n" for trace in traces), encoding="utf-8")
    whole = json.dumps(perfetto_document(traces), ensure_ascii=False, separators=(",", ":"))
    assert "".join(perfetto_chunks(lines)) == export_perfetto(lines) == whole + "\n"
    out = tmp_path / "out.json"
    out.write_text("kept\n")
    with lines.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps({**traces[0], "events": []}) + "\n")
    args = ["export", str(lines), "--to", "perfetto", "-o", str(out)]
    result = CliRunner().invoke(trace_cli, args)
    assert result.exit_code == 1 and "invalid trace" in result.output
    assert out.read_text() == "kept\n" and sorted(tmp_path.iterdir()) == [out, lines]

"""`masrl trace collect` and `masrl trace query`: real pyarrow and DuckDB over real traces."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner
from masrl.cli.traces import trace as trace_cli
from masrl.errors import InputError, UnsafeWriteError
from masrl.traces import examples_directory
from masrl.traces.collect import collect_traces
from masrl.traces.metrics import metrics_for_paths
from masrl.traces.query import READY_QUERIES, run_query

pytest.importorskip("pyarrow")
pytest.importorskip("duckdb")

EXAMPLES = examples_directory()


@pytest.fixture(scope="module")
def example_set(tmp_path_factory) -> Path:
    output = tmp_path_factory.mktemp("sets") / "examples.parquet"
    report = collect_traces([EXAMPLES], output, jobs=1)
    assert report.traces == 6 and report.invalid_traces == 0
    return output


def example_traces() -> list[dict]:
    return [json.loads(p.read_text()) for p in sorted(EXAMPLES.glob("*.json"))]


def test_the_set_holds_what_trace_metrics_computes(example_set):
    rows = metrics_for_paths([EXAMPLES], jobs=1).rows
    result = run_query(example_set, "SELECT * FROM traces ORDER BY trace_key")
    collected = [dict(zip(result.columns, row)) for row in result.rows]
    assert [r["trace_id"] for r in collected] == [r["trace_id"] for r in rows]
    for mine, theirs in zip(collected, rows):
        for name in ("events", "agents", "max_fan_out", "spawn_depth", "stop_reason", "topology"):
            assert mine[name] == theirs[name]
        assert mine["span"] == pytest.approx(theirs["span"])
    total_events = sum(len(t["events"]) for t in example_traces())
    assert run_query(example_set, "SELECT count(*) FROM events").rows == [(total_events,)]


def test_fan_out_per_decision_matches_a_count_by_hand(example_set):
    expected = Counter()
    for trace in example_traces():
        for event in trace["events"]:
            if event["type"] == "orchestrator_decision":
                expected[
                    sum(e["src"] == event["id"] and e["type"] == "spawn" for e in trace["edges"])
                ] += 1
    assert dict(run_query(example_set, "fan-out").rows) == dict(expected)


def test_stop_reasons_and_credit_per_unit(example_set):
    stops = Counter()
    units = Counter()
    for trace in example_traces():
        decisions = [e for e in trace["events"] if e.get("decision") == "stop"]
        stops[decisions[-1].get("reason") if decisions else "(no stop decision)"] += 1
        units.update(channel.split(":")[0] for channel in trace["rewards"])
    result = run_query(example_set, "stop-reasons")
    assert {row[0]: row[1] for row in result.rows} == dict(stops)
    credit = run_query(example_set, "credit-per-unit")
    assert {row[0]: row[2] for row in credit.rows} == dict(units)
    for name in READY_QUERIES:
        assert run_query(example_set, name).rows


def test_queries_cannot_reach_outside_the_set(example_set, tmp_path):
    secret = tmp_path / "secret.csv"
    secret.write_text("a\n1\n")
    with pytest.raises(InputError, match="query failed"):
        run_query(example_set, f"SELECT * FROM read_csv('{secret}')")
    with pytest.raises(InputError, match="query failed"):
        run_query(example_set, "SET enable_external_access = true")
    with pytest.raises(InputError, match="not a trace set"):
        run_query(tmp_path, "fan-out")


def test_collect_is_deterministic_and_replaces_only_its_own_sets(tmp_path):
    first = tmp_path / "a.parquet"
    collect_traces([EXAMPLES], first, jobs=1)
    snapshot = {p.relative_to(first): p.read_bytes() for p in first.rglob("*") if p.is_file()}
    collect_traces([EXAMPLES], first, jobs=2)  # replaced; parallel reading, same bytes
    again = {p.relative_to(first): p.read_bytes() for p in first.rglob("*") if p.is_file()}
    assert again == snapshot
    foreign = tmp_path / "mine"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("keep me")
    with pytest.raises(UnsafeWriteError):
        collect_traces([EXAMPLES], foreign, jobs=1)
    assert (foreign / "notes.txt").read_text() == "keep me"


def test_cli_reports_invalid_traces_and_exits_1(tmp_path):
    runs = tmp_path / "runs"
    shutil.copytree(EXAMPLES, runs)
    (runs / "broken.json").write_text('{"trace_id": "x"}')
    out = tmp_path / "set.parquet"
    runner = CliRunner()
    result = runner.invoke(trace_cli, ["collect", str(runs), "-o", str(out), "--jobs", "1"])
    assert result.exit_code == 1
    assert "6 trace(s)" in result.output and "1 invalid trace(s) left out" in result.output
    listed = runner.invoke(trace_cli, ["query", str(out), "topologies", "--format", "csv"])
    assert listed.exit_code == 0 and listed.output.startswith("topology,traces,")
    bad_sql = runner.invoke(trace_cli, ["query", str(out), "SELECT nope FROM traces"])
    assert bad_sql.exit_code == 1 and "Traceback" not in bad_sql.output
    assert len(bad_sql.output.strip().splitlines()) == 1


def metrics_without_location(rows):
    return [
        {k: v for k, v in row.items() if k not in ("file", "line", "trace_key")} for row in rows
    ]


def test_metrics_rebuilt_from_the_set_equal_the_directory_run(example_set):
    from masrl.traces.set_metrics import key_ranges, metrics_of_range

    rebuilt = [
        row
        for first, last in key_ranges(example_set)
        for row in metrics_of_range(example_set, first, last)
    ]
    assert metrics_without_location(rebuilt) == metrics_without_location(
        metrics_for_paths([EXAMPLES], jobs=1).rows
    )


@pytest.mark.extra
def test_ray_data_computes_the_same_metrics_on_a_local_instance(example_set):
    ray = pytest.importorskip("ray")
    from masrl.traces.set_metrics import metrics_with_ray

    ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False)
    try:
        rows = metrics_with_ray(example_set)
    finally:
        ray.shutdown()
    assert metrics_without_location(rows) == metrics_without_location(
        metrics_for_paths([EXAMPLES], jobs=1).rows
    )


def test_arrow_fast_path_gives_the_same_tables_as_python(tmp_path, monkeypatch):
    import gzip

    from masrl.traces import collect

    lines = "".join(json.dumps(trace) + "\n" for trace in example_traces())
    for name, content in (
        ("runs.jsonl", lines.encode()),
        ("runs.jsonl.gz", gzip.compress(lines.encode())),
    ):
        path = tmp_path / name
        path.write_bytes(content)
        assert collect._events_and_edges_by_arrow(str(path), 6) is not None  # Arrow read it
        fast = collect.tables_of_file(str(path))
        with monkeypatch.context() as patch:
            patch.setattr(collect, "_events_and_edges_by_arrow", lambda *_: None)
            slow = collect.tables_of_file(str(path))
        assert set(fast.tables) == set(slow.tables) == set(collect.TABLES)
        for table in collect.TABLES:
            assert fast.tables[table].equals(slow.tables[table]), table


def test_jsonl_with_an_invalid_line_falls_back_to_python(tmp_path):
    from masrl.traces import collect

    traces = example_traces()
    path = tmp_path / "mixed.jsonl"
    path.write_text("".join(json.dumps(t) + "\n" for t in traces) + '{"trace_id": "broken"}\n')
    result = collect.tables_of_file(str(path))
    assert (result.traces, result.invalid_traces) == (6, 1)
    assert result.events == sum(len(t["events"]) for t in traces)
    assert result.tables["edges"].num_rows == sum(len(t["edges"]) for t in traces)

"""Hostile trace files: every trace command answers with one clear line, never a traceback, a
hang or unbounded memory (issue 11), whatever the nesting, size, keys or numbers of the file."""

from __future__ import annotations

import gzip
import json
import math
from pathlib import Path

import pytest
from click.testing import CliRunner
from masrl.cli import main
from masrl.errors import InputError
from masrl.traces.io import JsonSyntaxError, Limits, parse_json_bytes, read_documents
from masrl.traces.metrics import MetricRangeError, metrics_for_paths, trace_metrics
from masrl.traces.validate import validate_file, validate_paths, validate_trace
from test_traces import small_trace, write

DEEP = 1_000  # the depth issue 11 names
VERY_DEEP = 100_000


def deep_meta(depth: int) -> str:
    """small_trace with meta.x nested ``depth`` arrays deep (as text: json.dumps would recurse)."""
    return json.dumps(small_trace())[:-1] + ', "meta": {"x": ' + "[" * depth + "]" * depth + "}}"


def masrl(*args) -> tuple[int, str]:
    """Run `masrl ARGS` as a user would; fail the test on any traceback."""
    result = CliRunner().invoke(main, [str(a) for a in args])
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise AssertionError(f"traceback from masrl {args}") from result.exception
    assert "Traceback" not in result.output
    return result.exit_code, result.output


def trace_commands(path: Path, tmp_path: Path) -> dict[str, list]:
    """Every trace command that reads a masrl trace file."""
    return {
        "validate": ["trace", "validate", path, "--jobs", "1"],
        "metrics": ["trace", "metrics", path, "--jobs", "1"],
        "figure": ["trace", "figure", path, "-o", tmp_path / "figure.svg"],
        "export": ["trace", "export", path, "--to", "perfetto", "-o", tmp_path / "p.json"],
        "collect": ["trace", "collect", path, "-o", tmp_path / "set.parquet", "--jobs", "1"],
    }


def openai_export(tools: int = 0, **metadata) -> dict:
    """An OpenAI Agents SDK export: one agent span calling ``tools`` functions."""
    export = {
        "data": [
            {"object": "trace", "id": "tr1", "workflow_name": "w", "metadata": metadata},
            {
                "object": "trace.span",
                "id": "s1",
                "trace_id": "tr1",
                "started_at": "2025-01-01T00:00:00+00:00",
                "ended_at": "2025-01-01T00:00:01+00:00",
                "span_data": {"type": "agent", "name": "a"},
            },
        ]
    }
    for index in range(tools):
        export["data"].append(
            {
                "object": "trace.span",
                "id": f"f{index}",
                "trace_id": "tr1",
                "parent_id": "s1",
                "started_at": "2025-01-01T00:00:00+00:00",
                "span_data": {"type": "function", "name": "search"},
            }
        )
    return export


# ---------------------------------------------------------------------------------------------
# 1. Nesting


@pytest.mark.parametrize("depth", [DEEP, VERY_DEEP])
def test_deeply_nested_meta_is_one_clear_error_in_every_command(tmp_path, depth):
    path = write(tmp_path / "deep.json", deep_meta(depth))
    for name, args in trace_commands(path, tmp_path).items():
        code, output = masrl(*args)
        assert code == 1, (name, output)
        assert "nested too deeply" in output, (name, output)
    report = validate_file(path)
    assert [p.code for p in report.problems] == ["too_deep"]
    assert report.problems[0].line == 1


def test_deep_nesting_in_an_imported_file_is_one_clear_error(tmp_path):
    text = json.dumps(openai_export()).replace(
        '"metadata": {}', '"metadata": ' + "[" * DEEP + "]" * DEEP
    )
    path = write(tmp_path / "deep.json", text)
    code, output = masrl("trace", "import", "--from", "openai-agents", path)
    assert code == 1 and "nested too deeply" in output


def test_too_deep_names_the_depth_and_line_brackets_in_strings_aside():
    """Brackets and escaped quotes inside strings do not nest; the line is where the deepest
    point is first reached."""
    text = (
        '{"note": "[[[ {{ \\" [[",\n'
        '"meta": {"a": [[["x"]], "]]\\n]"],\n'
        '"deep": ' + "[" * DEEP + '"}}}"' + "]" * DEEP + "}}\n"
    )
    with pytest.raises(JsonSyntaxError) as caught:
        parse_json_bytes(text.encode())
    assert caught.value.code == "too_deep" and caught.value.line == 3
    assert caught.value.message == f"nested too deeply: arrays and objects {DEEP + 2} levels deep"


def test_deep_nesting_names_the_jsonl_line(tmp_path):
    path = write(tmp_path / "d.jsonl", json.dumps(small_trace()) + "\n" + deep_meta(DEEP) + "\n")
    report = validate_file(path)
    assert report.traces == 2 and report.invalid_traces == 1
    assert [(p.code, p.line) for p in report.problems] == [("too_deep", 2)]


# ---------------------------------------------------------------------------------------------
# 2. Size: decompressed bytes and event counts are capped


def bomb(path: Path, size: int) -> Path:
    """A valid trace padded with ``size`` spaces, gzipped: a few KB on disk."""
    text = json.dumps(small_trace())[:-1] + ', "meta": {"pad": "' + " " * size + '"}}'
    path.write_bytes(gzip.compress(text.encode(), compresslevel=9))
    return path


def test_a_gzip_bomb_stops_at_the_byte_cap(tmp_path):
    path = bomb(tmp_path / "bomb.json.gz", 3 * 2**20)
    assert path.stat().st_size < 20_000
    report = validate_paths([path], jobs=1, limits=Limits(max_bytes=2**20))
    assert [p.code for p in report.problems] == ["too_large"]
    assert "--max-trace-bytes" in report.problems[0].hint
    assert validate_paths([path], jobs=1, limits=Limits(max_bytes=4 * 2**20)).ok()


def test_the_byte_cap_reads_no_more_than_it_needs(tmp_path):
    path = bomb(tmp_path / "bomb.json.gz", 3 * 2**20)
    [document] = read_documents(path, Limits(max_bytes=1000))
    assert document.raw is None and document.problem.code == "too_large"


def test_a_refused_gzip_bomb_holds_no_more_than_the_cap(tmp_path):
    """Peak memory of refusing a bomb stays near the cap (one growing buffer, over-allocated by
    an eighth, and the decompressor's chunk), never twice the cap as a join of chunks would."""
    import tracemalloc

    cap = 16 * 2**20
    path = bomb(tmp_path / "bomb.json.gz", 3 * cap)
    tracemalloc.start()
    try:
        [document] = read_documents(path, Limits(max_bytes=cap))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert document.problem.code == "too_large"
    assert peak < 1.4 * cap, f"peak {peak / 2**20:.1f} MiB for a cap of {cap / 2**20:.0f} MiB"


def test_a_long_jsonl_line_is_capped_and_the_next_lines_still_read(tmp_path):
    good = json.dumps(small_trace())
    long = json.dumps(small_trace())[:-1] + ', "meta": {"pad": "' + " " * 50_000 + '"}}'
    path = tmp_path / "lines.jsonl.gz"
    path.write_bytes(gzip.compress(f"{good}\n{long}\n{good}\n".encode()))
    documents = list(read_documents(path, Limits(max_bytes=10_000)))
    assert [d.line for d in documents] == [1, 2, 3]
    assert [d.problem.code if d.problem else "ok" for d in documents] == ["ok", "too_large", "ok"]


def test_the_cli_caps_have_documented_defaults_and_name_the_option(tmp_path):
    path = bomb(tmp_path / "bomb.json.gz", 3 * 2**20)
    for name, args in trace_commands(path, tmp_path).items():
        code, output = masrl(*args, "--max-trace-bytes", "1M")
        assert code == 1, (name, output)
        assert str(path) in output and "--max-trace-bytes" in output, (name, output)
        help_text = masrl(*args[:2], "--help")[1]
        assert "--max-trace-bytes" in help_text and "64M" in help_text, name
        assert "--max-trace-events" in help_text and "500000" in help_text, name
    code, output = masrl("trace", "import", "--from", "otel", path, "--max-trace-bytes", "1M")
    assert code == 1 and "--max-trace-bytes" in output


def test_the_event_cap(tmp_path):
    path = write(tmp_path / "t.json", json.dumps(small_trace()))  # six events
    report = validate_paths([path], jobs=1, limits=Limits(max_events=5))
    assert [p.code for p in report.problems] == ["too_many_events"]
    assert "--max-trace-events" in report.problems[0].hint
    assert validate_paths([path], jobs=1, limits=Limits(max_events=6)).ok()
    for name, args in trace_commands(path, tmp_path).items():
        code, output = masrl(*args, "--max-trace-events", "5")
        assert code == 1 and "--max-trace-events" in output, (name, output)
    from masrl.traces.importers import import_traces

    spans = write(tmp_path / "spans.json", json.dumps(openai_export(tools=2)))  # three spans
    assert import_traces(spans, "openai-agents", Limits(max_events=3))[0]
    with pytest.raises(InputError, match="--max-trace-events"):
        import_traces(spans, "openai-agents", Limits(max_events=2))
    code, output = masrl(
        "trace", "import", "--from", "openai-agents", spans, "--max-trace-events", "2"
    )
    assert code == 1 and "--max-trace-events" in output


def otel_request(trace_id: str, spans: int) -> dict:
    return {
        "resourceSpans": [
            {
                "scopeSpans": [
                    {
                        "spans": [
                            {"traceId": trace_id, "spanId": f"{n:x}", "startTimeUnixNano": "1"}
                            for n in range(spans)
                        ]
                    }
                ]
            }
        ]
    }


def test_an_import_caps_the_whole_file_not_only_each_trace(tmp_path):
    """An importer holds every span of its input until the traces are built: many traces, or
    many lines, each within the caps, must not add up past them."""
    from masrl.traces.importers import import_traces

    lines = [json.dumps(otel_request(f"t{n}", 3)) for n in range(3)]  # three traces, 9 spans
    path = write(tmp_path / "spans.jsonl", "\n".join(lines) + "\n")
    assert len(import_traces(path, "otel", Limits(max_events=9))[0]) == 3
    with pytest.raises(InputError, match="9 spans in the file, more than the 8") as caught:
        import_traces(path, "otel", Limits(max_events=8))
    assert caught.value.line == 3 and "--max-trace-events" in caught.value.hint
    per_line = len(lines[0]) + 1
    assert import_traces(path, "otel", Limits(max_bytes=3 * per_line))[0]
    with pytest.raises(InputError, match="file larger than .* in all") as caught:
        import_traces(path, "otel", Limits(max_bytes=3 * per_line - 1))
    assert caught.value.line == 3 and "--max-trace-bytes" in caught.value.hint
    fixture = Path(__file__).parent / "fixtures" / "traces" / "import" / "autogen.json"
    run = json.loads(fixture.read_text(encoding="utf-8"))
    runs = write(tmp_path / "runs.jsonl", (json.dumps(run) + "\n") * 2)
    count = len(run["messages"])
    assert len(import_traces(runs, "autogen", Limits(max_events=2 * count))[0]) == 2
    with pytest.raises(InputError, match=f"{2 * count} messages in the file"):
        import_traces(runs, "autogen", Limits(max_events=2 * count - 1))


# ---------------------------------------------------------------------------------------------
# 3. Duplicate keys


@pytest.mark.parametrize(
    "target, duplicate, key",
    [
        ('"trace_id": "t1"', '"trace_id": "t2",', "trace_id"),
        ('"t": 2', '"t": 9,', "t"),
        ('"team": 1.0', '"team": 0.0,', "team"),
    ],
)
def test_duplicate_keys_are_rejected_with_their_line(tmp_path, target, duplicate, key):
    lines = json.dumps(small_trace(), indent=1).splitlines()
    at = next(i for i, line in enumerate(lines) if line.strip().rstrip(",") == target)
    lines.insert(at, duplicate)  # the original, now on line at + 2, repeats the key
    path = write(tmp_path / "dup.json", "\n".join(lines))
    report = validate_file(path)
    [problem] = report.problems
    assert problem.code == "duplicate_key" and f'"{key}"' in problem.message
    assert problem.line == at + 2
    for name, args in trace_commands(path, tmp_path).items():
        code, output = masrl(*args)
        assert code == 1 and "duplicate key" in output, (name, output)


def test_duplicate_keys_in_meta_and_in_jsonl_lines(tmp_path):
    dup = json.dumps(small_trace())[:-1] + ', "meta": {"run": 1, "r\\u0075n": 2}}'
    path = write(tmp_path / "d.jsonl", json.dumps(small_trace()) + "\n" + dup + "\n")
    report = validate_file(path)
    assert [(p.code, p.line) for p in report.problems] == [("duplicate_key", 2)]


def test_duplicate_keys_in_an_imported_file(tmp_path):
    text = json.dumps(openai_export()).replace('"id": "s1"', '"id": "s1", "id": "s2"')
    path = write(tmp_path / "dup.json", text)
    with pytest.raises(InputError, match="duplicate key"):
        from masrl.traces.importers import import_traces

        import_traces(path, "openai-agents")


# ---------------------------------------------------------------------------------------------
# 4. Numbers


def with_durations(value) -> dict:
    trace = small_trace()
    for event in trace["events"]:
        event["duration_s"] = value
    return trace


def test_absurd_durations_and_times_are_errors_not_overflows(tmp_path):
    report = validate_trace(with_durations(1e308))
    assert not report.ok and {p.code for p in report.problems} == {"too_large"}
    trace = small_trace()
    trace["events"][5]["t"] = 1e300
    assert [p.pointer for p in validate_trace(trace).problems] == ["events[5].t"]
    path = write(tmp_path / "big.json", json.dumps(with_durations(1e308)))
    for name, args in trace_commands(path, tmp_path).items():
        code, output = masrl(*args)
        assert code == 1 and "too large" in output, (name, output)
    assert validate_trace(with_durations(3600.0 * 24 * 365)).ok  # a year is fine


def test_numbers_beyond_float_range_are_errors(tmp_path):
    huge = "9" * 400  # a JSON integer no 64-bit float holds
    text = json.dumps(small_trace()).replace('"tokens": 100', f'"tokens": {huge}')
    path = write(tmp_path / "huge.json", text)
    assert [(p.pointer, p.code) for p in validate_file(path).problems] == [
        ("costs.tokens", "out_of_range")
    ]
    code, output = masrl("trace", "metrics", path)
    assert code == 1 and "out of range" in output
    endless = text.replace(huge, "9" * 5000)  # past Python's 4,300-digit limit
    path = write(tmp_path / "endless.json", endless)
    [problem] = validate_file(path).problems
    assert "digits" in problem.message and problem.line == 1
    for name, args in trace_commands(path, tmp_path).items():
        code, output = masrl(*args)
        assert code == 1 and "digits" in output, (name, output)


def test_metrics_never_print_infinity(tmp_path):
    tiny_clock = with_durations(1.0)
    tiny_clock["costs"]["wall_clock_s"] = 5e-324
    path = write(tmp_path / "clock.json", json.dumps(tiny_clock))
    report = metrics_for_paths([path], jobs=1)
    assert report.invalid_traces == 1 and report.problems[0].code == "out_of_range"
    with pytest.raises(MetricRangeError, match="observed_speedup"):
        trace_metrics(tiny_clock)
    rich = small_trace()
    rich["costs"]["tokens"] = 1.5e308
    rich["rewards"]["team"] = -1.7e308
    for index in range(3):
        write(tmp_path / "many" / f"{index}.json", json.dumps(rich))
    report = metrics_for_paths([tmp_path / "many"], jobs=1)
    text = report.render("json")
    assert "Infinity" not in text and "NaN" not in text
    numeric = report.summary()["numeric"]
    assert numeric["tokens"]["mean"] == pytest.approx(1.5e308)
    assert numeric["reward.team"]["median"] == pytest.approx(-1.7e308)
    assert all(math.isfinite(v) for stats in numeric.values() for v in stats.values())
    code, output = masrl("trace", "metrics", tmp_path / "many", "--format", "json", "--jobs", "1")
    assert code == 0 and "Infinity" not in output


def test_infinity_and_nan_in_trace_metrics_are_clear_errors(tmp_path):
    text = json.dumps(small_trace())[:-1] + ', "metrics": {"a": Infinity, "b": NaN}}'
    path = write(tmp_path / "m.json", text)
    for name, args in trace_commands(path, tmp_path).items():
        code, output = masrl(*args)
        assert code == 1 and "not a finite number" in output, (name, output)


# ---------------------------------------------------------------------------------------------
# 5. Names are text


def test_dollar_signs_in_agent_names_and_trace_ids_are_drawn_literally(tmp_path):
    """matplotlib reads "$...$" as mathtext; a name like "$\\frac{$" used to end in a traceback."""
    trace = small_trace()
    trace["trace_id"] = "run $\\frac{$ 7"
    for event in trace["events"]:
        event["agent"] = event["agent"].replace("worker", "$\\sqrt{$worker")
        if event.get("to") == "worker":
            event["to"] = "$\\sqrt{$worker"
        if event.get("from") == "worker":
            event["from"] = "$\\sqrt{$worker"
    path = write(tmp_path / "dollar.json", json.dumps(trace))
    code, output = masrl("trace", "figure", path, "-o", tmp_path / "dollar.svg")
    assert code == 0, output
    svg = (tmp_path / "dollar.svg").read_text(encoding="utf-8")
    assert "<svg" in svg

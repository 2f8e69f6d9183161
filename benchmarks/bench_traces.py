"""Benchmark: `masrl trace validate` and `masrl trace metrics` against a plain-stdlib baseline.

Run:  python benchmarks/bench_traces.py            (about two minutes; prints a table)
      python benchmarks/bench_traces.py --quick    (smaller inputs, for a smoke test)

Inputs, generated into a temporary directory:

* one synthetic trace of 1,000,000 events (a hierarchical team: rounds of delegation,
  tool calls, returns and aggregation, with durations and about 1.6 edges per event);
* a directory of 10,000 traces of 100 events each;
* a 50,000-event trace, to show a generic JSON Schema validator (jsonschema's
  Draft202012Validator) beside the others on an input it finishes in reasonable time;
* a gzip bomb: 1.5 GiB of whitespace in about 1.5 MiB, which masrl must refuse at a 512 MiB
  byte cap with a peak memory near the cap (printed below the table as a ratio to the cap).

The baseline is a plain-stdlib validator of the survey artifact's original rules only:
required fields, allowed event and edge types, unique event ids, edge endpoints, non-negative
costs (``json.load`` and loops, one process). masrl checks the full schema and its semantic
rules on top (time order, acyclicity, spawn order, finiteness, consistency warnings).

Every measurement runs the real command in a fresh subprocess, started by a minimal launcher
(``python -S``) that waits for it and reads ``resource.getrusage(RUSAGE_CHILDREN)``: time is
wall clock, peak memory is that peak resident set size. The launcher matters: a child's RSS
high-water mark survives ``exec`` and starts from its parent's, so measuring straight from this
(larger) process would inflate small figures. With worker processes the figure is the largest
single process (the parent's or a worker's peak), not their sum. Each command runs several
times; the table shows the fastest run and the largest peak seen, and, below it, what each
tool occupies just by starting (interpreter and imports), which dominates on small inputs.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

# ---------------------------------------------------------------------------------------------
# The baseline: only the artifact's original rules, stdlib only (this module imports nothing
# heavy, so the baseline subprocess stays lean).

ALLOWED_EVENT_TYPES = {
    "orchestrator_decision",
    "spawn",
    "despawn",
    "message",
    "tool_call",
    "tool_result",
    "return",
    "aggregate",
    "human_intervention",
    "safety_event",
}
ALLOWED_EDGE_TYPES = {
    "temporal",
    "causal",
    "spawn",
    "message",
    "tool_dependency",
    "return",
    "aggregate",
    "safety_flow",
}
TOP_LEVEL_FIELDS = {"trace_id", "task_id", "events", "edges", "rewards", "costs"}
EVENT_FIELDS = {"id", "t", "type", "agent"}
EDGE_FIELDS = {"src", "dst", "type"}


def baseline_problems(path: str) -> list[str]:
    with open(path, encoding="utf-8") as handle:
        trace = json.load(handle)
    problems = []
    missing = TOP_LEVEL_FIELDS - set(trace)
    if missing:
        return [f"missing top-level fields {sorted(missing)}"]
    if not isinstance(trace["events"], list) or not trace["events"]:
        return ["events must be a non-empty list"]
    if not isinstance(trace["edges"], list):
        return ["edges must be a list"]
    seen = set()
    for event in trace["events"]:
        missing = EVENT_FIELDS - set(event)
        if missing:
            problems.append(f"event missing {sorted(missing)}")
            continue
        if event["type"] not in ALLOWED_EVENT_TYPES:
            problems.append(f"unknown event type {event['type']}")
        if event["id"] in seen:
            problems.append(f"duplicate event id {event['id']}")
        if event["t"] < 0:
            problems.append(f"negative t in {event['id']}")
        seen.add(event["id"])
    for edge in trace["edges"]:
        missing = EDGE_FIELDS - set(edge)
        if missing:
            problems.append(f"edge missing {sorted(missing)}")
            continue
        if edge["type"] not in ALLOWED_EDGE_TYPES:
            problems.append(f"unknown edge type {edge['type']}")
        if edge["src"] not in seen:
            problems.append(f"edge src not found {edge['src']}")
        if edge["dst"] not in seen:
            problems.append(f"edge dst not found {edge['dst']}")
    for name, value in trace["costs"].items():
        if value < 0:
            problems.append(f"negative cost {name}")
    return problems


def run_baseline(target: str) -> int:
    paths = [target]
    if os.path.isdir(target):
        paths = sorted(
            str(Path(root) / name)
            for root, _, names in os.walk(target)
            for name in names
            if name.endswith(".json")
        )
    invalid = sum(bool(baseline_problems(path)) for path in paths)
    print(f"baseline: {len(paths) - invalid} valid, {invalid} invalid")
    return 1 if invalid else 0


def run_jsonschema(target: str) -> int:
    import jsonschema
    from masrl.traces.schema import load_trace_schema

    with open(target, encoding="utf-8") as handle:
        trace = json.load(handle)
    errors = list(jsonschema.Draft202012Validator(load_trace_schema()).iter_errors(trace))
    print(f"jsonschema: {len(errors)} error(s)")
    return 1 if errors else 0


# ---------------------------------------------------------------------------------------------
# Synthetic traces


def synthetic_trace(event_count: int, seed: int = 0, workers: int = 8, steps: int = 4) -> dict:
    """A hierarchical run: each round, the lead delegates to ``workers`` new agents that call
    tools ``steps`` times and return; the lead aggregates and decides the next round."""
    import random

    rng = random.Random(seed)
    events: list[dict] = []
    edges: list[dict] = []

    def add(kind: str, agent: str, t: float, duration: float, **extra) -> str:
        event_id = f"e{len(events)}"
        events.append(
            {
                "id": event_id,
                "t": round(t, 3),
                "type": kind,
                "agent": agent,
                "duration_s": duration,
                **extra,
            }
        )
        return event_id

    t = 0.0
    previous_round = None
    round_number = 0
    while len(events) < event_count - 1:
        decision = add("orchestrator_decision", "lead", t, 0.5, role="lead", decision="delegate")
        if previous_round is not None:
            edges.append({"src": previous_round, "dst": decision, "type": "causal"})
        t += 0.5
        returns = []
        end = t
        for w in range(workers):
            name = f"worker_{round_number}_{w}"
            spawn = add("spawn", "lead", t + 0.01 * w, 0.01, role="lead", to=name)
            edges.append({"src": decision, "dst": spawn, "type": "spawn"})
            previous, clock = spawn, t + 0.01 * w + 0.01
            for _ in range(steps):
                call = add(
                    "tool_call",
                    name,
                    clock,
                    0.2,
                    role="worker",
                    tool="search",
                    content_ref=f"sha256:{rng.getrandbits(64):016x}",
                )
                edges.append({"src": previous, "dst": call, "type": "causal"})
                result = add(
                    "tool_result",
                    "search",
                    clock + 0.2,
                    0.05,
                    tool="search",
                    trusted=False,
                    content_ref=f"sha256:{rng.getrandbits(64):016x}",
                )
                edges.append({"src": call, "dst": result, "type": "tool_dependency"})
                if previous != spawn:
                    edges.append({"src": previous, "dst": call, "type": "temporal"})
                previous, clock = result, clock + 0.25 + rng.random() * 0.1
            message = add("message", name, clock, 0.05, **{"from": name}, to="lead")
            edges.append({"src": previous, "dst": message, "type": "causal"})
            back = add("return", name, clock + 0.05, 0.05, to="lead")
            edges.append({"src": message, "dst": back, "type": "return"})
            returns.append(back)
            end = max(end, clock + 0.1)
        aggregate = add("aggregate", "lead", end, 0.3, role="lead")
        edges.extend({"src": r, "dst": aggregate, "type": "aggregate"} for r in returns)
        previous_round, t = aggregate, end + 0.3
        round_number += 1
    stop = add(
        "orchestrator_decision", "lead", t, 0.1, role="lead", decision="stop", reason="budget"
    )
    edges.append({"src": previous_round, "dst": stop, "type": "causal"})
    kinds = [e["type"] for e in events]
    return {
        "schema_version": "1.0",
        "trace_id": f"synthetic-{seed}",
        "task_id": f"task-{seed % 97}",
        "topology": "hierarchical",
        "events": events,
        "edges": edges,
        "rewards": {"team": 1.0, "orchestrator": 0.5, "agent:worker_0_0": 0.1},
        "costs": {
            "tokens": 40 * len(events),
            "wall_clock_s": round(t + 0.1, 3),
            "tool_calls": kinds.count("tool_call"),
            "messages": kinds.count("message"),
        },
    }


def write_json(path: Path, trace: dict) -> None:
    import orjson

    path.write_bytes(orjson.dumps(trace))


def make_inputs(
    directory: Path, big_events: int, files: int, file_events: int, sample_events: int
) -> None:
    big = directory / "big.json"
    write_json(big, synthetic_trace(big_events))
    sample = directory / "sample.json"
    write_json(sample, synthetic_trace(sample_events, seed=1))
    many = directory / "many"
    for index in range(files):
        shard = many / f"{index // 1000:02d}"
        shard.mkdir(parents=True, exist_ok=True)
        write_json(shard / f"trace-{index:05d}.json", synthetic_trace(file_events, seed=index))


# ---------------------------------------------------------------------------------------------
# Measuring


LAUNCHER = """
import json, resource, subprocess, sys, time
start = time.perf_counter()
done = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
seconds = time.perf_counter() - start
peak_kib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print(json.dumps({"seconds": seconds, "peak_kib": peak_kib, "status": done.returncode,
                  "stderr": done.stderr.decode(errors="replace")[-300:]}))
"""


def measure(command: list[str]) -> tuple[float, float, int]:
    """(seconds, peak MiB, exit status) of one run of ``command`` in a fresh subprocess."""
    import subprocess

    launched = subprocess.run(
        [sys.executable, "-S", "-c", LAUNCHER, *command], capture_output=True, text=True, check=True
    )
    result = json.loads(launched.stdout)
    if result["status"]:
        print(
            f"  ! {' '.join(command[-3:])} exited {result['status']}: {result['stderr'].strip()}",
            file=sys.stderr,
        )
    return (
        result["seconds"],
        result["peak_kib"] / 1024,
        result["status"],
    )  # ru_maxrss is in KiB on Linux


def best_of(command: list[str], repeats: int) -> tuple[float, float, int]:
    runs = [measure(command) for _ in range(repeats)]
    return min(r[0] for r in runs), max(r[1] for r in runs), max(r[2] for r in runs)


# The speed figures read a million events, above the default caps (which bound memory; see
# bench_trace_memory.py).
NO_CAPS = ("--no-progress", "--max-trace-bytes", "1G", "--max-trace-events", "2000000")


def masrl(*arguments: str) -> list[str]:
    return [
        sys.executable,
        "-c",
        "import sys; from masrl.cli import main; sys.exit(main())",
        *arguments,
    ]


def this_script(*arguments: str) -> list[str]:
    return [sys.executable, str(Path(__file__).resolve()), *arguments]


def main() -> int:
    import argparse
    import subprocess
    import tempfile
    import time

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--quick", action="store_true", help="small inputs (a smoke test, not figures to quote)"
    )
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--baseline", help=argparse.SUPPRESS)
    parser.add_argument("--jsonschema", help=argparse.SUPPRESS)
    parser.add_argument("--generate", nargs=5, help=argparse.SUPPRESS)
    arguments = parser.parse_args()
    if arguments.baseline:
        return run_baseline(arguments.baseline)
    if arguments.jsonschema:
        return run_jsonschema(arguments.jsonschema)
    if arguments.generate:
        directory, *sizes = arguments.generate
        make_inputs(Path(directory), *map(int, sizes))
        return 0

    sizes = (20_000, 200, 100, 5_000) if arguments.quick else (1_000_000, 10_000, 100, 50_000)
    big_events, files, file_events, sample_events = sizes
    with tempfile.TemporaryDirectory(prefix="masrl-bench-") as temporary:
        started = time.perf_counter()
        # Generated in a subprocess, so this process stays small.
        subprocess.run(this_script("--generate", temporary, *map(str, sizes)), check=True)
        inputs = {name: Path(temporary) / name for name in ("big.json", "many", "sample.json")}
        print(
            f"inputs generated in {time.perf_counter() - started:.1f} s "
            f"({inputs['big.json'].stat().st_size / 2**20:.0f} MiB for the big trace)",
            file=sys.stderr,
        )
        cases = [
            (f"1 trace, {big_events:,} events", inputs["big.json"], True),
            (f"{files:,} traces of {file_events} events", inputs["many"], True),
            (f"1 trace, {sample_events:,} events", inputs["sample.json"], False),
        ]
        rows = []
        for label, target, with_metrics in cases:
            tools = [
                ("baseline (artifact rules, stdlib)", this_script("--baseline", str(target))),
                ("masrl trace validate", masrl("trace", "validate", str(target), *NO_CAPS)),
            ]
            if with_metrics:
                tools.append(
                    (
                        "masrl trace metrics",
                        masrl("trace", "metrics", str(target), "--format", "csv", *NO_CAPS),
                    )
                )
            else:
                tools.append(
                    ("jsonschema Draft202012Validator", this_script("--jsonschema", str(target)))
                )
            baseline = None
            for tool, command in tools:
                seconds, peak, status = best_of(
                    command, 1 if "jsonschema" in tool else arguments.repeats
                )
                baseline = baseline or (seconds, peak)
                rows.append(
                    (label, tool, seconds, peak, seconds / baseline[0], peak / baseline[1], status)
                )
                print(f"  {label}: {tool}: {seconds:.2f} s, {peak:.0f} MiB", file=sys.stderr)
        # A gzip bomb of whitespace, refused at the byte cap: its peak memory should stay near
        # the cap (the data is never held twice).
        bomb_size, cap = (96 * 2**20, "32M") if arguments.quick else (1536 * 2**20, "512M")
        bomb = Path(temporary) / "bomb.json.gz"
        write_whitespace_bomb(bomb, bomb_size)
        seconds, peak, status = best_of(
            masrl("trace", "validate", str(bomb), "--no-progress", "--max-trace-bytes", cap), 1
        )
        cap_mib = parse_cap_mib(cap)
        bomb_line = (
            f"gzip bomb ({bomb_size / 2**30:.2f} GiB of whitespace, {bomb.stat().st_size / 2**20:.1f} MiB "
            f"on disk), refused at the {cap} cap: {seconds:.2f} s, peak {peak:.0f} MiB "
            f"({peak / cap_mib:.2f}x the cap), exit {status}"
        )
        startup = {
            "baseline": best_of(this_script("--help"), 3),
            "masrl trace validate": best_of(masrl("trace", "validate", "--help"), 3),
        }
        print(f"total {time.perf_counter() - started:.0f} s", file=sys.stderr)
    print_table(rows)
    print()
    print(bomb_line)
    print(
        "startup alone (interpreter and imports, no input): "
        + ", ".join(
            f"{tool} {seconds:.2f} s, {peak:.0f} MiB"
            for tool, (seconds, peak, _) in startup.items()
        )
    )
    return 0


def write_whitespace_bomb(path: Path, size: int) -> None:
    """``size`` bytes of spaces after a trace's opening, gzipped a chunk at a time."""
    import gzip

    chunk = b" " * 2**20
    with gzip.open(path, "wb", compresslevel=9) as handle:
        handle.write(b'{"trace_id": "bomb", "events": [], "meta": {"pad": "')
        for _ in range(size // len(chunk)):
            handle.write(chunk)


def parse_cap_mib(cap: str) -> float:
    return float(cap[:-1]) * (1024 if cap.endswith("G") else 1)


def print_table(rows) -> None:
    header = (
        "input",
        "tool",
        "seconds",
        "peak MiB",
        "time vs baseline",
        "memory vs baseline",
        "exit",
    )
    cells = [
        (label, tool, f"{s:.2f}", f"{m:.0f}", f"{rt:.2f}x", f"{rm:.2f}x", str(status))
        for label, tool, s, m, rt, rm, status in rows
    ]
    widths = [max(len(h), *(len(c[i]) for c in cells)) for i, h in enumerate(header)]
    print("| " + " | ".join(h.ljust(w) for h, w in zip(header, widths)) + " |")
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for row in cells:
        print("| " + " | ".join(c.ljust(w) for c, w in zip(row, widths)) + " |")


if __name__ == "__main__":
    sys.exit(main())

"""Benchmark: trace sets (`masrl trace collect` + `masrl trace query`) against running
`masrl trace metrics` over the directory, on many traces.

Run:  python benchmarks/bench_trace_sets.py                  (100,000 traces x 100 events;
                                                             ~3.6 GB of JSON, several minutes)
      python benchmarks/bench_trace_sets.py --traces 2000    (a quick run)

Input, generated into a temporary directory: N synthetic hierarchical traces of 100 events
each (the generator of bench_traces.py), written as JSON-lines shards of 1,000 traces, the way
RL rollouts are usually stored.

Measured, each as the real command in a fresh subprocess (the launcher of bench_traces.py:
wall-clock time, and peak resident memory of the largest single process):

* the directory run, today's way to get numbers out of many traces:
  ``masrl trace metrics DIR --format csv``;
* ``masrl trace collect DIR -o set.parquet``, which checks every trace as the directory run
  does and writes events, edges, rewards and per-trace metrics as Parquet;
* ``masrl trace query set.parquet <ready query>`` for each ready query.

Once collected, each further question costs a query, not another pass over the JSON: the
ratio printed is (directory run) / (query).
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_traces import masrl, measure, synthetic_trace

EVENTS_PER_TRACE = 100
# One round of 9 workers with 4 tool calls each, plus the stop: 102 events, the nearest the
# generator's whole rounds come to 100.
SHAPE = {"workers": 9, "steps": 4}
TRACES_PER_SHARD = 1_000
QUERIES = ("fan-out", "stop-reasons", "credit-per-unit", "topologies")


def write_shard(arguments: tuple[str, int, int]) -> int:
    import orjson

    path, first, count = arguments
    with open(path, "wb") as handle:
        handle.writelines(
            orjson.dumps(synthetic_trace(EVENTS_PER_TRACE, seed=seed, **SHAPE)) + b"\n"
            for seed in range(first, first + count)
        )
    return count


def make_inputs(directory: Path, traces: int) -> int:
    """Shards of JSON lines; returns their total size in bytes."""
    import multiprocessing

    directory.mkdir(parents=True)
    jobs = [
        (
            str(directory / f"shard-{first // TRACES_PER_SHARD:05d}.jsonl"),
            first,
            min(TRACES_PER_SHARD, traces - first),
        )
        for first in range(0, traces, TRACES_PER_SHARD)
    ]
    with multiprocessing.Pool() as pool:
        assert sum(pool.imap_unordered(write_shard, jobs)) == traces
    return sum(p.stat().st_size for p in directory.iterdir())


def size_of(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--traces", type=int, default=100_000, help="how many traces [100000]")
    parser.add_argument("--keep", action="store_true", help="keep the generated files")
    arguments = parser.parse_args()
    temporary = Path(tempfile.mkdtemp(prefix="masrl-bench-sets-"))
    try:
        runs, trace_set = temporary / "runs", temporary / "set.parquet"
        started = time.perf_counter()
        input_bytes = make_inputs(runs, arguments.traces)
        events = len(synthetic_trace(EVENTS_PER_TRACE, **SHAPE)["events"])
        print(
            f"{arguments.traces:,} traces x {events} events "
            f"({input_bytes / 2**20:,.0f} MiB of JSON lines) generated in "
            f"{time.perf_counter() - started:.0f} s"
        )
        rows = []
        seconds, peak, status = measure(masrl("trace", "metrics", str(runs), "--format", "csv"))
        rows.append(("metrics over the directory (baseline)", seconds, peak, status))
        baseline = seconds
        seconds, peak, status = measure(masrl("trace", "collect", str(runs), "-o", str(trace_set)))
        rows.append(("collect into set.parquet", seconds, peak, status))
        collect_seconds = seconds
        query_seconds = []
        for query in QUERIES:
            seconds, peak, status = measure(masrl("trace", "query", str(trace_set), query))
            rows.append((f"query {query}", seconds, peak, status))
            query_seconds.append(seconds)
        print(f"\n{'step':<40} {'time (s)':>10} {'peak (MiB)':>11}  {'vs baseline':>11}")
        for name, seconds, peak, status in rows:
            flag = "" if status == 0 else f"  exit {status}"
            print(f"{name:<40} {seconds:>10.2f} {peak:>11.0f}  {baseline / seconds:>10.1f}x{flag}")
        print(
            f"\nset on disk: {size_of(trace_set) / 2**20:,.1f} MiB "
            f"({input_bytes / max(1, size_of(trace_set)):.0f}x smaller than the JSON); "
            f"collect costs {collect_seconds / baseline:.2f}x one directory run; after it, "
            f"a question costs {sum(query_seconds) / len(query_seconds):.2f} s on average "
            f"instead of {baseline:.1f} s"
        )
        if arguments.keep:
            print(f"kept in {temporary}")
        return max(status for *_, status in rows)
    finally:
        if not arguments.keep:
            shutil.rmtree(temporary, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())

"""Benchmark the living review: loading the frozen snapshot against validating the live corpus,
and discovery's dedup check on a synthetic stream of candidates.

Figures are ratios against a baseline measured in the same run (no absolute targets).
Run:  python benchmarks/bench_living.py [--repeat 5] [--candidates 20000]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT / "tools"))

from masrl.check.snapshot import load_snapshot
from masrl.check.validate import load_corpus
from masrl.derive.stats import compute_stats
from masrl.imports.arxiv import PaperMetadata
from masrl.model.project import Project
from masrl.render.stats import stats_markdown
from masrl.screening.discover import known_records


def best(action, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--candidates", type=int, default=20000)
    args = parser.parse_args()
    project = Project(REPO_ROOT)

    live = best(lambda: stats_markdown(compute_stats(load_corpus(project))), args.repeat)
    frozen = best(
        lambda: stats_markdown(compute_stats(load_snapshot(project, "survey-2026-05"))), args.repeat
    )
    print(f"stats, live corpus (validate + load + stats): {live * 1000:8.1f} ms")
    print(
        f"stats, snapshot survey-2026-05:               {frozen * 1000:8.1f} ms  ({frozen / live:.2f} x live)"
    )

    known = known_records(project, {})
    papers = [
        PaperMetadata(
            f"2607.{i:05d}",
            "v1",
            f"A synthetic candidate number {i}",
            ("Doe, Jane",),
            "2026-07-01",
            "2026-07-01",
        )
        for i in range(args.candidates)
    ]
    build = best(lambda: known_records(project, {}), args.repeat)
    check = best(lambda: [known.where(p) for p in papers], args.repeat)
    baseline = best(lambda: [p.title.casefold() for p in papers], args.repeat)
    print(f"dedup index over corpus + exclusions:        {build * 1000:8.1f} ms")
    print(
        f"dedup check, {args.candidates} candidates:          {check * 1000:8.1f} ms  "
        f"({check / baseline:.1f} x a bare casefold of each title; "
        f"{statistics.mean([check / args.candidates * 1e6]):.1f} µs per candidate)"
    )


if __name__ == "__main__":
    main()

"""Benchmark `masrl import csv` on a generated 100,000-row papers.csv (issue 11).

The file is generated deterministically (same seed, same bytes) in the artifact's CSV layout,
then imported into an empty checkout in a fresh process, as a user runs the command.
Target: under 30 s for 100,000 rows (it took 224 s before issue 11). Wall time depends on the
machine's load and file system; the CPU time is printed too.
Run:  python benchmarks/bench_import.py [--rows 100000]
"""

from __future__ import annotations

import argparse
import csv
import json
import random
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT / "tools"))

from masrl.exports.csv import PAPERS_HEADER  # noqa: E402

MEASURE = r"""
import io, json, resource, sys, time, contextlib
start, cpu = time.perf_counter(), time.process_time()
from masrl.cli import main
out = io.StringIO()
with contextlib.redirect_stdout(out):
    try:
        main(["import", "csv", sys.argv[1], "--root", sys.argv[2]], standalone_mode=False)
    except SystemExit:
        pass
elapsed = time.perf_counter() - start
print(json.dumps({"seconds": elapsed, "cpu_seconds": time.process_time() - cpu, "peak_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "summary": [l for l in out.getvalue().splitlines() if l.startswith("papers:")][-1]}))
"""

WORDS = (
    "agent team credit reward orchestration routing debate verifier planner critic swarm token "
    "message tool role hierarchical policy gradient value decomposition counterfactual shapley"
).split()


def write_csv(path: Path, rows: int) -> None:
    rng = random.Random(11)
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, PAPERS_HEADER, lineterminator="\n")
        writer.writeheader()
        for index in range(rows):
            writer.writerow(
                {
                    "key": f"bench-{index:06d}",
                    "title": " ".join(rng.choice(WORDS).capitalize() for _ in range(8))
                    + f" {index}",
                    "first_author": f"Author{index}, First",
                    "affiliation": "Benchmark Lab",
                    "year": str(rng.randint(2019, 2026)),
                    "arxiv_id": f"2601.{index:05d}" if index < 100000 else "",
                    "venue": "arXiv",
                    "url": f"https://example.org/papers/{index} ; https://example.org/code/{index}",
                    "category": "rl_method",
                    "is_rl": "yes",
                    "reward_type": "shared;process",
                    "credit_granularity": "agent",
                    "orchestration_form": "centralized",
                    "scenario": "general",
                    "is_core": "supporting",
                    "one_liner": "A generated row that exercises every column of the layout.",
                    "verified": "no",
                    "notes": "",
                }
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        source = Path(scratch) / "papers.csv"
        write_csv(source, args.rows)
        root = Path(scratch) / "checkout"
        shutil.copytree(REPO_ROOT / "taxonomy", root / "taxonomy")
        output = subprocess.run(
            [sys.executable, "-c", MEASURE, str(source), str(root)],
            check=True,
            capture_output=True,
            text=True,
        )
        result = json.loads(output.stdout)
        written = sum(1 for _ in (root / "corpus").glob("*.yaml"))
    print(
        f"import csv: {args.rows:,} rows -> {written:,} files "
        f"in {result['seconds']:.1f} s wall ({result['cpu_seconds']:.1f} s CPU), peak {result['peak_mib']:.0f} MiB, {1000 * result['seconds'] / args.rows:.2f} ms/row "
        f"(target: under 30 s for 100,000)"
    )
    print(f"  {result['summary']}")


if __name__ == "__main__":
    main()

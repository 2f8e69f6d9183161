"""Benchmark `masrl validate`: wall time and peak memory on the real corpus and on synthetic
corpora of 1,000 / 5,000 / 10,000 entries, each measured in a fresh process.

Targets (issue 2): real corpus under 0.5 s; cost linear in the number of entries, 10,000 under 10 s.
Issue 11 (adversarial shape): 10,000 entries whose titles share their first words validate within
2x the time of 10,000 ordinary ones (the ratio is printed).
Run:  python benchmarks/bench_validate.py [--sizes 1000 5000 10000] [--shared-prefix 10000]
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT / "tools"))

from masrl.files import write_atomic  # noqa: E402
from masrl.model import yamlio  # noqa: E402
from masrl.model.records import ENTRY_SCHEMA_LINE

# Run in a child process: time the whole command as a user runs it (import, load, validate, print).
MEASURE = r"""
import io, json, resource, sys, time, contextlib
start = time.perf_counter()
from masrl.cli import main
out = io.StringIO()
with contextlib.redirect_stdout(out):
    try:
        main(["validate", "--root", sys.argv[1]], standalone_mode=False)
    except SystemExit:
        pass
elapsed = time.perf_counter() - start
print(json.dumps({"seconds": elapsed, "peak_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "summary": out.getvalue().strip().splitlines()[-1]}))
"""

WORDS = (
    "agent team credit reward orchestration routing debate verifier planner critic swarm token "
    "message tool role hierarchical policy gradient value decomposition counterfactual shapley "
    "benchmark web coding math research spawning aggregation stopping latent communication"
).split()


def synthetic_entry(index: int, rng: random.Random) -> dict:
    title = " ".join(rng.choice(WORDS).capitalize() for _ in range(7)) + f" {index}"
    return {
        "key": f"synthetic-{index:05d}",
        "title": title,
        "authors": [f"Author{index}, First", "Second, Person"],
        "authors_complete": True,
        "affiliation": "Synthetic Lab",
        "year": rng.randint(2019, 2026),
        "venue": "arXiv",
        "identifiers": {
            "arxiv": f"26{rng.randint(1, 9):02d}.{index:05d}",
            "doi": None,
            "openreview": None,
        },
        "urls": [f"https://example.org/papers/{index}"],
        "category": "rl_method",
        "is_rl": "yes",
        "reward_types": [rng.choice(["shared", "hybrid", "role", "process"])],
        "credit_units": [rng.choice(["agent", "role", "turn"])],
        "credit_mechanism": "broad",
        "topology": rng.choice(["centralized", "hierarchical", "debate"]),
        "sub_decisions": (decisions := sorted(rng.sample(["O1", "O2", "O3", "O4"], 2))),
        # every sub-decision tag carries its evidence line (validate requires it)
        "sub_decision_evidence": {tag: f"The synthetic method learns {tag}." for tag in decisions},
        "scenario": "general",
        "survey_role": "supporting",
        "verified": "no",
        "evidence_level": "preprint",
        "summary": "A synthetic entry that exercises every validation rule the real corpus does.",
        "notes": "",
        "added": "2026-05-04",
        "round": "survey-2026-05",
    }


SHARED_PREFIX = "Multi Agent Reinforcement Learning for Language Model Teams:"


def make_corpus(root: Path, size: int, shared_prefix: bool = False) -> None:
    """shared_prefix: every title starts with the same long phrase (the adversarial shape that
    made prefix blocking quadratic); the rest of each title still differs."""
    rng = random.Random(size)
    shutil.copytree(REPO_ROOT / "taxonomy", root / "taxonomy")
    for index in range(size):
        data = synthetic_entry(index, rng)
        if shared_prefix:
            data["title"] = f"{SHARED_PREFIX} {data['title']}"
        data["identifiers"]["arxiv"] = f"2601.{index:05d}"
        if data["year"] < 2026:
            data["year"] = 2026
        write_atomic(
            root / "corpus" / f"{data['key']}.yaml", yamlio.dumps(data, header=ENTRY_SCHEMA_LINE)
        )


def measure(root: Path, repeats: int = 3) -> dict:
    runs = []
    for _ in range(repeats):
        output = subprocess.run(
            [sys.executable, "-c", MEASURE, str(root)], check=True, capture_output=True, text=True
        )
        runs.append(json.loads(output.stdout))
    best = min(runs, key=lambda r: r["seconds"])
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="*", default=[1000, 5000, 10000])
    parser.add_argument(
        "--shared-prefix", type=int, default=10000, help="size of the shared-prefix case (0: skip)"
    )
    args = parser.parse_args()
    rows = [("real corpus (116 records)", measure(REPO_ROOT), 116)]
    with tempfile.TemporaryDirectory() as scratch:
        for size in args.sizes:
            root = Path(scratch) / f"synthetic-{size}"
            make_corpus(root, size)
            rows.append((f"synthetic {size:,} entries", measure(root), size))
        shared = None
        if args.shared_prefix:
            root = Path(scratch) / "shared-prefix"
            make_corpus(root, args.shared_prefix, shared_prefix=True)
            shared = (f"shared prefix {args.shared_prefix:,}", measure(root), args.shared_prefix)
            baseline = next((r for r in rows if r[2] == args.shared_prefix), None)
            if baseline is None:
                root = Path(scratch) / f"synthetic-{args.shared_prefix}"
                make_corpus(root, args.shared_prefix)
                baseline = (
                    f"synthetic {args.shared_prefix:,} entries",
                    measure(root),
                    args.shared_prefix,
                )
                rows.append(baseline)
            rows.append(shared)
    print(f"{'input':<28} {'seconds':>8} {'peak MiB':>9} {'ms/record':>10}  summary")
    for label, result, count in rows:
        print(
            f"{label:<28} {result['seconds']:>8.3f} {result['peak_mib']:>9.1f} {1000 * result['seconds'] / count:>10.3f}  {result['summary']}"
        )
    if shared:
        print(
            f"shared-prefix titles vs ordinary titles at {shared[2]:,} entries: "
            f"{shared[1]['seconds'] / baseline[1]['seconds']:.2f}x (target: under 2x)"
        )
    ordinary = [r for r in rows[1:] if not r[0].startswith("shared")]
    if len(ordinary) > 1:
        small, large = ordinary[0], ordinary[-1]
        ratio = (large[1]["seconds"] / large[2]) / (small[1]["seconds"] / small[2])
        print(
            f"per-record cost at {large[2]:,} vs {small[2]:,} entries: {ratio:.2f}x (1.00x = perfectly linear)"
        )


if __name__ == "__main__":
    main()

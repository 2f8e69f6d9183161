"""Benchmark masrl's YAML writer: the direct writer for simple records (`yamlio.dumps`) against
PyYAML's emitter (`fast=False`), which give the same bytes, on 2,000 records.

Why it is kept: `masrl import csv|bib`, `masrl add` and the screening commands write one file per
record, and a bulk import of thousands of records waits on the writer. Two kinds are measured:
records as an import writes them (facts and tags, no long prose) and the corpus's own entries
(multi-line summaries, corrections: these fall back to the emitter, so both paths cost the same).
Run:  python benchmarks/bench_yaml.py [--records 2000]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT / "tools"))

from masrl.model import yamlio  # noqa: E402
from masrl.model.records import ENTRY_SCHEMA_LINE  # noqa: E402


def imported_record(number: int) -> dict:
    return {
        "key": f"doe{2020 + number % 6}-{number}",
        "title": f"Learning to Delegate in Agent Teams, Part {number}",
        "authors": ["Doe, Jane", "Roe, Richard"],
        "authors_complete": True,
        "year": 2020 + number % 6,
        "venue": "arXiv",
        "identifiers": {"arxiv": f"2501.{number:05d}", "doi": None, "openreview": None},
        "urls": [f"https://arxiv.org/abs/2501.{number:05d}"],
        "category": "rl_method",
        "is_rl": "yes",
        "reward_types": ["shared", "process"],
        "credit_units": ["agent"],
        "credit_mechanism": "broad",
        "sub_decisions": ["O2"],
    }


def timed(records: list[dict], fast: bool) -> float:
    start = time.perf_counter()
    for record in records:
        yamlio.dumps(record, header=ENTRY_SCHEMA_LINE, fast=fast)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=2000)
    n = parser.parse_args().records
    corpus = [yamlio.load_file(p) for p in sorted((REPO_ROOT / "corpus").glob("*.yaml"))]
    kinds = {
        "import-shaped records": [imported_record(i) for i in range(n)],
        "corpus entries (copies)": [corpus[i % len(corpus)] for i in range(n)],
    }
    print(f"{'records':<26} {'direct writer':>14} {'PyYAML emitter':>15} {'ratio':>7}")
    for name, records in kinds.items():
        fast, slow = timed(records, True), timed(records, False)
        print(f"{name:<26} {fast:>12.2f} s {slow:>13.2f} s {slow / fast:>6.1f}x")


if __name__ == "__main__":
    main()

"""Benchmark the duplicate-title check of `masrl validate` (issue 34).

1. One title of 1,500 / 6,000 / 24,000 distinct words against a near copy: time and peak memory
   (tracemalloc). Before issue 34, 6,000 words peaked at 1.6 GB and 10,000 at 5.2 GB (a set of
   all other words was built for every word); now memory grows linearly with the title.
2. 300 / 3,000 / 30,000 records sharing one title plus as many ordinary titles: every repeat is
   found (before, a block of more than 200 was skipped), in time linear in the number of records.
Each figure is printed beside a floor measured in the same run: normalising the same titles.
Run:  python benchmarks/bench_titles.py
"""

from __future__ import annotations

import random
import sys
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))

from masrl.check.titles import similar_title_pairs  # noqa: E402
from masrl.model import identifiers as ids  # noqa: E402

# A vocabulary the size of a field's: titles drawn from a dozen words all collide in the blocks
# (each then meets up to MAX_BLOCK candidates per key: linear, but with a large constant).
_rng = random.Random(0)
WORDS = ["".join(_rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(7)) for _ in range(3000)]


def measure(titles: list[str]) -> tuple[float, float, float, int]:
    """(floor seconds, check seconds, check peak MiB, pairs found)."""
    start = time.perf_counter()
    items = [(ids.normalize_title(t), f"r{i:06d}", None) for i, t in enumerate(titles)]
    floor = time.perf_counter() - start
    start = time.perf_counter()
    pairs = list(similar_title_pairs(items))
    seconds = time.perf_counter() - start
    tracemalloc.start()  # a second run for memory: tracing triples the time
    list(similar_title_pairs(items))
    peak = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    return floor, seconds, peak, len(pairs)


def main() -> None:
    print(f"{'case':>32} {'floor':>8} {'check':>8} {'ratio':>6} {'peak MiB':>9} {'pairs':>7}")
    for words in (1500, 6000, 24000):
        title = " ".join(f"word{i}" for i in range(words))
        row = measure([title, title + " extra"])
        print(
            f"{f'title of {words:,} words':>32} {row[0]:>7.3f}s {row[1]:>7.3f}s "
            f"{row[1] / row[0]:>5.0f}x {row[2]:>9.1f} {row[3]:>7}"
        )
    rng = random.Random(34)
    for shared in (300, 3000, 30000):
        titles = ["Learning to Coordinate Language Agent Teams"] * shared + [
            " ".join(rng.choice(WORDS) for _ in range(7)) + f" {i}" for i in range(shared)
        ]
        row = measure(titles)
        print(
            f"{f'{shared:,} share a title (+{shared:,})':>32} {row[0]:>7.3f}s {row[1]:>7.3f}s "
            f"{row[1] / row[0]:>5.0f}x {row[2]:>9.1f} {row[3]:>7}"
        )


if __name__ == "__main__":
    main()

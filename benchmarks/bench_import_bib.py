"""Benchmark `masrl import bib` at 1,000 / 10,000 / 100,000 generated entries (issue 34).

Each size is imported into an empty checkout in a fresh process, as a user runs the command, and
compared with the floor of the same run: bibtexparser's bare parse of the same file (no masrl).
Target: linear in the number of entries, 100,000 entries under 60 s on 2 cores (before issue 34,
2,000 entries took 26 s and 10,000 did not finish in 5 minutes: every earlier title was
re-normalised for each entry). A tenth of the titles repeat an earlier one with a typo, so the
near-duplicate search works as hard as it does on real files.
"its CPU" is the import's user and system time: on a shared machine the wall time also holds the
wait for the file system (creating 90,000 files) and for other processes.
Run:  python benchmarks/bench_import_bib.py [--sizes 1000 10000 100000]
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

IMPORT = r"""
import io, json, resource, sys, time, contextlib
start = time.perf_counter()
from masrl.cli import main
out = io.StringIO()
with contextlib.redirect_stdout(out):
    try:
        main(["import", "bib", sys.argv[1], "--root", sys.argv[2]], standalone_mode=False)
    except SystemExit:
        pass
usage = resource.getrusage(resource.RUSAGE_SELF)
print(json.dumps({"seconds": time.perf_counter() - start,
                  "cpu": usage.ru_utime + usage.ru_stime,
                  "peak_mib": usage.ru_maxrss / 1024,
                  "summary": next(line for line in out.getvalue().splitlines()
                                  if line.startswith("bib:"))}))
"""

BARE_PARSE = r"""
import json, resource, sys, time
start = time.perf_counter()
import bibtexparser
library = bibtexparser.parse_file(sys.argv[1])
assert library.entries
print(json.dumps({"seconds": time.perf_counter() - start,
                  "peak_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""

WORDS = (
    "agent team credit reward orchestration routing debate verifier planner critic swarm token "
    "message tool role hierarchical policy gradient value decomposition counterfactual shapley"
).split()


def write_bib(path: Path, entries: int) -> None:
    rng = random.Random(34)
    titles: list[str] = []
    with path.open("w", encoding="utf-8") as handle:
        handle.write('@string{conf = "Benchmark Conference"}\n\n')
        for index in range(entries):
            if index % 10 == 9:  # a near-duplicate of an earlier title: skipped by the import
                earlier = titles[rng.randrange(len(titles))]
                title = earlier[:5] + earlier[6:]
            else:
                title = " ".join(rng.choice(WORDS).capitalize() for _ in range(8)) + f" {index}"
            titles.append(title)
            handle.write(
                f"@inproceedings{{bench{index:06d},\n  title = {{{title}}},\n"
                f"  author = {{Author{index}, First and Second, Person}},\n"
                f'  booktitle = "Proc. " # conf,\n  year = {{{2019 + index % 8}}},\n'
                f"  eprint = {{26{1 + index % 9:02d}.{index % 100000:05d}}},\n"
                "  archiveprefix = {arXiv},\n}\n\n"
            )


def empty_checkout(root: Path) -> None:
    shutil.copytree(REPO_ROOT / "taxonomy", root / "taxonomy")
    (root / "corpus").mkdir()
    (root / "exclusions").mkdir()


def run(script: str, *args: str) -> dict:
    env_path = str(REPO_ROOT / "tools")
    done = subprocess.run(
        [sys.executable, "-c", script, *args],
        capture_output=True,
        text=True,
        check=True,
        env={"PYTHONPATH": env_path, "PATH": "/usr/bin:/bin"},
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000, 100000])
    sizes = parser.parse_args().sizes
    print(
        f"{'entries':>8} {'bare parse':>11} {'import bib':>11} {'ratio':>6} {'its CPU':>8} "
        f"{'peak MiB':>9}  summary"
    )
    for size in sizes:
        with tempfile.TemporaryDirectory() as tmp:
            source, root = Path(tmp) / "bench.bib", Path(tmp) / "checkout"
            write_bib(source, size)
            empty_checkout(root)
            floor = run(BARE_PARSE, str(source))
            result = run(IMPORT, str(source), str(root))
            print(
                f"{size:>8,} {floor['seconds']:>10.1f}s {result['seconds']:>10.1f}s "
                f"{result['seconds'] / floor['seconds']:>5.1f}x {result['cpu']:>7.1f}s "
                f"{result['peak_mib']:>9.0f}  "
                f"{result['summary']}",
                flush=True,
            )


if __name__ == "__main__":
    main()

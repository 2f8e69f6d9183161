"""Benchmark the corpus commands at scale: `validate`, `stats`, `gaps`, `check` and `site build` on
the real corpus and on copies of the project grown to 1,000 and 5,000 entries, against the floor of
the same run: a bare PyYAML parse of the same record files, counted.

The synthetic entries are copies of the real ones with new keys, identifiers, links and titles, in a
temporary copy of the project (its generated files rebuilt first, so `check` finds them fresh).
Each command runs as a user runs it, in a fresh process: once to warm the render cache (as in issue
34), then --runs times (3), the floor and the commands taking turns, so that a busy spell of a shared
machine falls on all of them alike. Reported: the lowest wall seconds and CPU seconds (user + system,
steadier than wall time) of the runs, the highest peak resident memory of the child, and the ratio
of the lowest CPU seconds to the floor's lowest. One run against one floor sample moves the ratio by
more than the margins at stake.

Targets (issue 34): validate, stats, gaps and check at most 2.5x the floor and under 100 MB at
5,000 entries; site build at 5,000 entries under 60 s and 500 MB, growing linearly.
Run:  python benchmarks/bench_scale.py [--sizes 1000 5000] [--commands validate stats] [--runs 3]
      [--no-warmup]
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT / "tools"))
sys.path.insert(0, str(REPO_ROOT / "benchmarks"))

from bench_site import users_environment  # noqa: E402
from masrl.files import write_atomic  # noqa: E402
from masrl.model import yamlio  # noqa: E402
from masrl.model.records import ENTRY_SCHEMA_LINE  # noqa: E402

# The floor: read and parse every record file with PyYAML's fastest safe loader (the one masrl's
# reader builds on), and count them; nothing else.
FLOOR = r"""
import sys, yaml
from pathlib import Path
count = 0
for folder in ("corpus", "exclusions"):
    for path in sorted((Path(sys.argv[1]) / folder).glob("*.yaml")):
        count += yaml.load(path.read_text(encoding="utf-8"), Loader=yaml.CSafeLoader) is not None
print(count)
"""

MASRL = "import sys; from masrl.cli import main; sys.argv[0] = 'masrl'; main()"

COMMANDS = {
    "validate": ["validate"],
    "stats": ["stats"],
    "gaps": ["gaps"],
    "check": ["check"],
    "site build": ["site", "build"],
}
# Tracked folders a command never reads: left out of the copy.
NOT_COPIED = ("tools", "tests", "benchmarks", "scripts")


def copy_project(target: Path) -> None:
    """The tracked files of the checkout (as committed plus edits), without the code."""
    listed = subprocess.run(
        ["git", "-C", str(REPO_ROOT), "ls-files", "-z"], check=True, capture_output=True
    ).stdout.decode()
    for name in filter(None, listed.split("\0")):
        if name.split("/", 1)[0] in NOT_COPIED or not (REPO_ROOT / name).is_file():
            continue
        (target / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO_ROOT / name, target / name)


def grow_corpus(root: Path, size: int) -> None:
    """Add copies of the real entries until the corpus holds ``size`` entries. Each copy gets a
    new key, arXiv id (December 2026) and link, no DOI or OpenReview id, no former names, and a title of random
    words from the real titles plus its number (so neither the identifier, the former-name nor the title check
    calls it a duplicate)."""
    originals = sorted((root / "corpus").glob("*.yaml"))
    records = [yamlio.load_file(path) for path in originals]
    words = sorted({w for r in records for w in str(r["title"]).split() if w.isalpha()})
    rng = random.Random(size)
    for index in range(size - len(originals)):
        data = dict(records[index % len(records)])
        key = f"copy{index:05d}-{data['key']}"[:60]
        data["key"] = key
        data.pop("formerly", None)  # a former name belongs to one record only
        data["title"] = " ".join(rng.sample(words, 8)) + f" {index}"
        arxiv = f"2612.{90000 + index}"  # a number range no real paper of the corpus holds
        data["identifiers"] = {"arxiv": arxiv, "doi": None, "openreview": None}
        data["urls"] = [f"https://arxiv.org/abs/{arxiv}"]
        data["year"] = max(int(data["year"]), 2026)
        write_atomic(root / "corpus" / f"{key}.yaml", yamlio.dumps(data, header=ENTRY_SCHEMA_LINE))


def run(argv: list[str], env: dict[str, str]) -> dict:
    """Run a child process; its wall and CPU seconds and its own peak RSS (from wait4)."""
    # stderr goes to a file: a pipe nobody reads while wait4 waits would block a talkative child.
    with tempfile.TemporaryFile() as stderr:
        started = time.perf_counter()
        process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=stderr, env=env)
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - started
        process.returncode = os.waitstatus_to_exitcode(status)
        stderr.seek(0)
        errors = stderr.read().decode(errors="replace")
    return {
        "seconds": wall,
        "cpu": usage.ru_utime + usage.ru_stime,
        "mb": usage.ru_maxrss / 1024,
        "exit": process.returncode,
        "stderr": errors,
    }


def measure(
    root: Path, commands: list[str], warmup: bool, cache: Path, runs: int
) -> dict[str, dict]:
    env = users_environment(
        PYTHONPATH=str(REPO_ROOT / "tools"), MASRL_CACHE_DIR=str(cache), NO_MKDOCS_2_WARNING="1"
    )
    results = {}
    jobs = [("floor", [sys.executable, "-c", FLOOR, str(root)])]
    for name in commands:
        extra = ["--output", str(root / "build" / "site")] if name == "site build" else []
        jobs.append(
            (name, [sys.executable, "-c", MASRL, *COMMANDS[name], "--root", str(root), *extra])
        )
    if warmup:
        for _, argv in jobs:
            run(argv, env)
    for _ in range(runs):
        for name, argv in jobs:
            result = run(argv, env)
            if result["exit"]:
                print(
                    f"  {name} exited {result['exit']}: {result['stderr'][-500:]}", file=sys.stderr
                )
            results[name] = best(results[name], result) if name in results else result
    return results


def best(kept: dict, new: dict) -> dict:
    """The lowest time and the highest memory of two runs; a failed run is never hidden."""
    return {
        "seconds": min(kept["seconds"], new["seconds"]),
        "cpu": min(kept["cpu"], new["cpu"]),
        "mb": max(kept["mb"], new["mb"]),
        "exit": kept["exit"] or new["exit"],
        "stderr": kept["stderr"] or new["stderr"],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="*", default=[1000, 5000])
    parser.add_argument("--commands", nargs="*", choices=list(COMMANDS), default=list(COMMANDS))
    parser.add_argument(
        "--no-warmup", action="store_true", help="no run to warm the render cache first (faster)"
    )
    parser.add_argument(
        "--runs", type=int, default=3, help="measured runs of each command; the lowest is reported"
    )
    args = parser.parse_args()
    table = []
    with tempfile.TemporaryDirectory() as scratch:
        scratch = Path(scratch)
        for size in [0, *args.sizes]:
            root = scratch / f"project-{size}"
            copy_project(root)
            real = len(list((root / "corpus").glob("*.yaml")))
            cache = scratch / f"cache-{size}"
            if size > real:
                grow_corpus(root, size)
            if (
                size > real and "check" in args.commands
            ):  # the copy's generated files, rebuilt for the new entries
                env = users_environment(
                    PYTHONPATH=str(REPO_ROOT / "tools"), MASRL_CACHE_DIR=str(cache)
                )
                subprocess.run(
                    [sys.executable, "-c", MASRL, "build", "--root", str(root)],
                    check=True,
                    capture_output=True,
                    env=env,
                )
            entries = max(size, real)
            print(f"measuring {entries:,} entries ...", file=sys.stderr)
            table.append(
                (
                    entries,
                    measure(root, args.commands, not args.no_warmup, cache, max(1, args.runs)),
                )
            )
    print(
        f"{'command':<12} {'entries':>7} {'seconds':>8} {'CPU s':>7} {'peak MB':>8} {'x floor':>8}"
    )
    for entries, results in table:
        floor = results["floor"]["cpu"]
        for name, r in results.items():
            flag = "" if not r["exit"] else f"  (exit {r['exit']})"
            print(
                f"{name:<12} {entries:>7,} {r['seconds']:>8.2f} {r['cpu']:>7.2f} {r['mb']:>8.1f} "
                f"{r['cpu'] / floor:>7.2f}x{flag}"
            )
    print(
        "targets at 5,000 entries: validate, stats, gaps, check <= 2.5x floor and < 100 MB; "
        "site build < 60 s and < 500 MB"
    )


if __name__ == "__main__":
    main()

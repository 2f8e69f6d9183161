"""Benchmark `masrl site build`: wall time and peak memory for the real corpus and for a synthetic
2,000-entry corpus, each built in a fresh process into a temporary folder.

Target (site issue): the real corpus builds in under 30 s.
Run:  python benchmarks/bench_site.py [--sizes 2000] [--repeats 1]
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT / "tools"))
sys.path.insert(0, str(REPO_ROOT / "benchmarks"))

from bench_validate import make_corpus

# Run in a child process: the whole build as `masrl site build` does it, phase by phase.
MEASURE = r"""
import json, resource, sys, time
from pathlib import Path
start = time.perf_counter()
from masrl.model.records import Project, load_corpus
from masrl.render.site.builder import default_paths, generate_docs, run_mkdocs, sync_tree
project = Project(Path(sys.argv[1]))
paths = default_paths(project, output=Path(sys.argv[2]) / "site", staging=Path(sys.argv[2]) / "site-src")
phases = {}
mark = time.perf_counter()
corpus = load_corpus(project)
phases["load"] = time.perf_counter() - mark
mark = time.perf_counter()
files = generate_docs(corpus, paths.source)
phases["generate"] = time.perf_counter() - mark
mark = time.perf_counter()
sync_tree(files, paths.staging)
phases["write"] = time.perf_counter() - mark
mark = time.perf_counter()
warnings = run_mkdocs(paths)
phases["mkdocs"] = time.perf_counter() - mark
print(json.dumps({
    "seconds": time.perf_counter() - start,
    "phases": phases,
    "peak_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    "pages": sum(1 for rel in files if rel.endswith(".md")),
    "warnings": len(warnings),
}))
"""


def measure(root: Path, repeats: int) -> dict:
    runs = []
    for _ in range(repeats):
        with tempfile.TemporaryDirectory() as out:
            output = subprocess.run([sys.executable, "-c", MEASURE, str(root), out],
                                    capture_output=True, text=True, cwd=REPO_ROOT, check=False)
            if output.returncode:
                sys.exit(f"the build of {root} failed:\n{output.stderr[-3000:]}")
            runs.append(json.loads(output.stdout.strip().splitlines()[-1]))
    return min(runs, key=lambda r: r["seconds"])


def make_site_corpus(root: Path, size: int) -> None:
    """Synthetic entries plus the real screening log and claim ledger (claims will not all hold)."""
    make_corpus(root, size)
    shutil.copytree(REPO_ROOT / "exclusions", root / "exclusions")
    shutil.copytree(REPO_ROOT / "claims", root / "claims")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="*", default=[2000])
    parser.add_argument("--repeats", type=int, default=1)
    args = parser.parse_args()
    rows = [("real corpus (84 entries)", measure(REPO_ROOT, args.repeats))]
    with tempfile.TemporaryDirectory() as scratch:
        for size in args.sizes:
            root = Path(scratch) / f"synthetic-{size}"
            make_site_corpus(root, size)
            rows.append((f"synthetic {size:,} entries", measure(root, args.repeats)))
    print(f"{'input':<26} {'seconds':>8} {'peak MiB':>9} {'pages':>6}  phases (s): load, generate, write, mkdocs")
    for label, r in rows:
        phases = ", ".join(f"{r['phases'][k]:.2f}" for k in ("load", "generate", "write", "mkdocs"))
        print(f"{label:<26} {r['seconds']:>8.2f} {r['peak_mib']:>9.1f} {r['pages']:>6}  {phases}"
              + (f"  ({r['warnings']} mkdocs warnings)" if r["warnings"] else ""))


if __name__ == "__main__":
    main()

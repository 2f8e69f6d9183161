"""Benchmark `masrl site build`: wall time and peak memory for the real corpus and for a synthetic
2,000-entry corpus, each built in a fresh process into a temporary folder.

Targets (site issue 14): the whole build within 1.3x of mkdocs alone (the ratio is printed for a
cold render cache and a warm one), on the real corpus and on 2,000 entries; the home page under
400 KiB and the statistics page under 800 KiB transferred on first load (gzip, as a static host
serves it: the HTML plus every stylesheet, script and image it loads, and the search worker; the
search index is loaded only when search opens and is printed apart).
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
from masrl.check.validate import load_corpus
from masrl.model.project import Project
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
seconds = time.perf_counter() - start  # the build; the page weights below are measurement
weight = {}
if len(sys.argv) > 3:
    sys.path.insert(0, sys.argv[3])
    from bench_site import first_load_bytes, search_index_bytes
    weight = {page: first_load_bytes(paths.output, page) for page in ("", "statistics/")}
    weight["search index"] = search_index_bytes(paths.output)
print(json.dumps({
    "weight": weight,
    "seconds": seconds,
    "phases": phases,
    "peak_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    "pages": sum(1 for rel in files if rel.endswith(".md")),
    "warnings": len(warnings),
}))
"""


def first_load_bytes(site: Path, page: str) -> int:
    """gzip-compressed bytes a first visit to ``page`` transfers: the HTML and every stylesheet,
    script and image it names, plus the search worker material starts at once. The search index
    is not among them: the site requests it only when the reader opens search (see
    site/overrides/main.html and the browser test); search_index_bytes gives its size."""
    import gzip
    import re
    from urllib.parse import urljoin, urlsplit

    html_path = site / page / "index.html"
    html = html_path.read_text(encoding="utf-8")
    base = "http://x/" + page
    files = {html_path}
    urls = re.findall(
        r'<(?:link[^>]*rel="stylesheet"[^>]*href|script[^>]*src|img[^>]*src)="([^"]+)"', html
    )
    config = re.search(r'<script id="__config" type="application/json">(.*?)</script>', html, re.S)
    if config and json.loads(config.group(1)).get("search"):
        urls.append(
            urljoin(
                urljoin(base, json.loads(config.group(1))["base"] + "/"),
                json.loads(config.group(1))["search"],
            )
        )
    for url in urls:
        path = urlsplit(urljoin(base, url)).path.lstrip("/")
        if (site / path).is_file():
            files.add(site / path)
    return sum(len(gzip.compress(f.read_bytes(), 6)) for f in files)


def search_index_bytes(site: Path) -> int:
    import gzip

    index = site / "search" / "search_index.json"
    return len(gzip.compress(index.read_bytes(), 6)) if index.is_file() else 0


def users_environment(**extra: str) -> dict[str, str]:
    """The environment a user's shell gives: Python writes and reuses bytecode. (This sandbox sets
    PYTHONDONTWRITEBYTECODE, which makes every process compile masrl's modules from source, a
    cost mkdocs, installed with its bytecode, does not pay.)"""
    import os

    env = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}
    return {**env, **extra}


def measure(root: Path, repeats: int, cache: Path | None = None) -> dict:
    """The fastest of ``repeats`` builds; with ``cache``, renders are cached there (warm runs)."""
    env = users_environment(MASRL_CACHE_DIR=str(cache) if cache else "off")
    runs = []
    for _ in range(repeats):
        with tempfile.TemporaryDirectory() as out:
            output = subprocess.run(
                [sys.executable, "-c", MEASURE, str(root), out, str(REPO_ROOT / "benchmarks")],
                capture_output=True,
                text=True,
                cwd=REPO_ROOT,
                check=False,
                env=env,
            )
            if output.returncode:
                sys.exit(f"the build of {root} failed:\n{output.stderr[-3000:]}")
            runs.append(json.loads(output.stdout.strip().splitlines()[-1]))
    return min(runs, key=lambda r: r["seconds"])


def commands_as_run(repeats: int) -> tuple[float, float]:
    """The two commands as a user runs them, each a fresh process with its interpreter start and
    imports: `masrl site build`, then `mkdocs build` alone on the docs folder masrl generated."""
    import time

    def best(command: list[str]) -> float:
        times = []
        for _ in range(repeats):
            with tempfile.TemporaryDirectory() as out:
                started = time.perf_counter()
                subprocess.run(
                    command + [out],
                    cwd=REPO_ROOT,
                    check=True,
                    capture_output=True,
                    env=users_environment(NO_MKDOCS_2_WARNING="1"),
                )
                times.append(time.perf_counter() - started)
        return min(times)

    binaries = Path(sys.executable).parent
    masrl = best([str(binaries / "masrl"), "site", "build", "--output"])  # stages build/site-src
    mkdocs = best([str(binaries / "mkdocs"), "build", "--quiet", "-f", "site/mkdocs.yml", "-d"])
    return masrl, mkdocs


def make_site_corpus(root: Path, size: int) -> None:
    """Synthetic entries plus the real screening log, its rounds and the claim ledger (claims will
    not all hold)."""
    make_corpus(root, size)
    shutil.copytree(REPO_ROOT / "exclusions", root / "exclusions")
    shutil.copytree(REPO_ROOT / "claims", root / "claims")
    (root / "screening").mkdir()
    shutil.copy2(REPO_ROOT / "screening" / "rounds.yaml", root / "screening" / "rounds.yaml")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="*", default=[2000])
    parser.add_argument("--repeats", type=int, default=1)
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as scratch:
        cache = Path(scratch) / "render-cache"
        inputs = [("real corpus", REPO_ROOT)]
        for size in args.sizes:
            root = Path(scratch) / f"synthetic-{size}"
            make_site_corpus(root, size)
            inputs.append((f"synthetic {size:,}", root))
        for label, root in inputs:
            rows.append((f"{label}, cold", measure(root, args.repeats)))
            measure(root, 1, cache)  # fill the render cache
            rows.append((f"{label}, warm cache", measure(root, args.repeats, cache)))
    print(
        f"{'input':<28} {'seconds':>8} {'/mkdocs':>8} {'peak MiB':>9} {'pages':>6}  phases (s): load, generate, write, mkdocs"
    )
    for label, r in rows:
        phases = ", ".join(f"{r['phases'][k]:.2f}" for k in ("load", "generate", "write", "mkdocs"))
        ratio = r["seconds"] / r["phases"]["mkdocs"]
        print(
            f"{label:<28} {r['seconds']:>8.2f} {ratio:>7.2f}x {r['peak_mib']:>9.1f} {r['pages']:>6}  {phases}"
            + (f"  ({r['warnings']} mkdocs warnings)" if r["warnings"] else "")
        )
    print("target: whole build within 1.30x of mkdocs alone")
    masrl_seconds, mkdocs_seconds = commands_as_run(args.repeats + 2)
    print(
        f"as commands (best of {args.repeats + 2}, warm render cache, real corpus): `masrl site build` "
        f"{masrl_seconds:.2f} s, `mkdocs build` of the docs it generated {mkdocs_seconds:.2f} s: "
        f"{masrl_seconds / mkdocs_seconds:.2f}x"
    )
    weight = rows[0][1]["weight"]
    for page, target in (("", 400), ("statistics/", 800)):
        print(
            f"first load of /{page}: {weight[page] / 1024:.0f} KiB gzip (target under {target} KiB)"
        )
    print(f"search index, loaded when search opens: {weight['search index'] / 1024:.0f} KiB gzip")


if __name__ == "__main__":
    main()

"""The download weight of the site's search and of the table's data, on the real corpus.

Builds the site once (`masrl site build` into a temporary folder) and prints, raw and gzip (as a
static host serves them):
- the search index, loaded when search opens, and the share of it that the entry pages' search
  tags take (the same index without its `tags`, measured in the same run, is the baseline);
- data/entries.json, the table's (and compare view's) data, and the share of it that the
  per-entry export strings take (RIS, masrl's CSV row, the JSON record), which let every download
  of a filtered view equal `masrl export` of it.
Run:  python benchmarks/bench_site_data.py
"""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
import tempfile
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
EXPORT_STRINGS = ("ris", "masrl_csv", "json")


def weight(data: bytes) -> tuple[float, float]:
    return len(data) / 1024, len(gzip.compress(data, 6)) / 1024


def line(label: str, data: bytes, baseline: bytes) -> str:
    raw, packed = weight(data)
    base_raw, base_packed = weight(baseline)
    return (
        f"{label}: {raw:.0f} KiB raw, {packed:.0f} KiB gzip; without them "
        f"{base_raw:.0f} / {base_packed:.0f} KiB (x{packed / base_packed:.2f} gzip)"
    )


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        site = Path(folder) / "site"
        subprocess.run(
            [sys.executable, "-c", "from masrl.cli import main; main()", "site", "build", "--root", str(REPO_ROOT),
             "-o", str(site), "--docs-dir", str(Path(folder) / "src")],
            check=True, capture_output=True,
        )  # fmt: skip
        index_bytes = (site / "search" / "search_index.json").read_bytes()
        index = json.loads(index_bytes)
        as_written = json.dumps(index, separators=(",", ":")).encode()
        for doc in index["docs"]:
            doc.pop("tags", None)
        untagged = json.dumps(index, separators=(",", ":")).encode()
        raw, packed = weight(index_bytes)
        print(f"search index as served: {raw:.0f} KiB raw, {packed:.0f} KiB gzip")
        print(line("search index (re-serialised), search tags", as_written, untagged))
        table_bytes = (site / "data" / "entries.json").read_bytes()
        table = json.loads(table_bytes)
        for entry in table["entries"]:
            for name in EXPORT_STRINGS:
                entry.pop(name, None)
        compact = json.dumps(table, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
        print(line("entries.json, export strings", table_bytes, compact.encode()))


if __name__ == "__main__":
    main()

"""Benchmark the LaTeX encoding of BibTeX export and the site's downloads (issue 34).

Encodes one title of 20 KB, 200 KB and 2 MB (a mix of plain words, accents and escapes, and the
worst case: no plain run at all), and prints the time beside a linear floor of the same run
(`html.escape` of the same string). The ratio must stay flat as the length grows; before issue 34
a 2 MB title took 61 s in `export bib` (pylatexenc's encoder is quadratic in string length).
Run:  python benchmarks/bench_latex.py
"""

from __future__ import annotations

import html
import logging
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))

from masrl.exports.bibtex import _shared_encoder  # noqa: E402


def timed(function, text: str) -> float:
    start = time.perf_counter()
    function(text)
    return time.perf_counter() - start


def main() -> None:
    logging.disable(logging.WARNING)  # pylatexenc logs every character it cannot encode
    encoder = _shared_encoder()
    print(f"{'text':>22} {'floor':>9} {'encode':>9} {'ratio':>9}")
    for label, unit in (("words", "Teams of Agents é & more "), ("no plain run", "é&")):
        for size in (20_000, 200_000, 2_000_000):
            text = (unit * (size // len(unit) + 1))[:size]
            floor = timed(html.escape, text)
            encode = timed(encoder._encode, text)
            print(
                f"{label:>12} {size:>9,} {floor:>8.3f}s {encode:>8.2f}s {encode / floor:>8.0f}x",
                flush=True,
            )


if __name__ == "__main__":
    main()

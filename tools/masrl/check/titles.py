"""Exact and near-identical titles across the corpus and the exclusion log, found in linear time.

Two records are suspected to be the same paper when their normalised titles score at least
``identifiers.TITLE_SIMILARITY`` and carry the same numbers and version tokens (so Qwen2 and
Qwen3, Llama 2 and Llama 3, Part I and Part II are never called the same: see
``identifiers.same_title``). A pair a person has judged to be different papers is recorded in
``distinct_papers.yaml`` at the root of the checkout and not reported again.

Exact duplicates are found by hashing the normalised title, however many records share it; the
near-identical ones by the blocking of ``model/title_index.py`` (linear in the number of titles
and in each title's length).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from masrl.model import yamlio
from masrl.model.title_index import TitleIndex

OVERRIDES_FILE = "distinct_papers.yaml"

Item = tuple[str, str, Any]  # (normalised title, name, payload)


def similar_title_pairs(
    titles: list[Item], distinct: Callable[[Item, Item], bool] = lambda a, b: False
) -> Iterator[tuple[Item, Item]]:
    """Pairs (earlier, later) by name: every record whose title repeats or nearly repeats an
    earlier one is paired with the first such record not recorded as `distinct` from it.

    A title shared by n records gives n - 1 pairs, not n(n-1)/2; two distinct titles that are
    near-identical give one pair.
    """
    index: TitleIndex[Item] = TitleIndex()
    found = []
    for item in sorted((t for t in titles if t[0]), key=lambda t: t[1]):
        norm = item[0]
        earlier = index.exact(norm)
        if earlier:
            partner = _first_partner(earlier, item, distinct)
            if partner:
                found.append((partner, item))
        else:
            for other in index.near(norm):
                partner = _first_partner(index.exact(other), item, distinct)
                if partner:
                    found.append((partner, item))
        index.add(norm, item)
    yield from sorted(found, key=lambda p: (p[0][1], p[1][1]))


def _first_partner(candidates: list[Item], item: Item, distinct) -> Item | None:
    return next((c for c in candidates if c[1] != item[1] and not distinct(c, item)), None)


def load_overrides(root: Path) -> tuple[set[frozenset[str]], list[tuple[int, str]]]:
    """Pairs of keys/record ids recorded as different papers, and problems (line, message) with the file.

    The file holds ``different_papers:`` followed by a list of two-item lists of keys or record ids.
    """
    path = root / OVERRIDES_FILE
    if not path.exists() and not path.is_symlink():
        return set(), []
    try:
        raw = yamlio.load_file(path, root=root)
    except yamlio.YamlError as exc:
        return set(), [(exc.line or 1, exc.message)]
    pairs_raw = raw.get("different_papers") if isinstance(raw, dict) else None
    if not isinstance(pairs_raw, list):
        return set(), [(1, "expected 'different_papers:' followed by a list of [key, key] pairs")]
    pairs, problems = set(), []
    for index, item in enumerate(pairs_raw):
        if not (
            isinstance(item, list)
            and len(item) == 2
            and all(isinstance(k, str) and k for k in item)
        ):
            problems.append(
                (
                    pairs_raw.line_of(index),
                    "each item must be a pair of keys, e.g. [qwen2-2024, qwen3-2025]",
                )
            )
            continue
        pairs.add(frozenset(item))
    return pairs, problems

"""Near-identical titles across the corpus and the exclusion log, found in linear time.

Two records are suspected to be the same paper when their normalised titles score at least
``identifiers.TITLE_SIMILARITY`` and carry the same numbers and version tokens (so Qwen2 and
Qwen3, Llama 2 and Llama 3, Part I and Part II are never called the same: see
``identifiers.same_title``). A pair a person has judged to be different papers is recorded in
``distinct_papers.yaml`` at the root of the checkout and not reported again.

Blocking: comparing every pair is quadratic, and blocking on a prefix is quadratic too when many
titles share one (8,000 such titles took 24 s). Instead each title gets keys from its *words*:

- its space-free form (catches "multi-agent" vs "multiagent");
- its set of words (catches reordering and repeated words);
- for every word w, the other words plus w's first or last two letters (catches a typo in one
  word);
- for every word w, the other words, matched only against another title's full word set
  (catches one inserted or dropped word);
- its first and last 12 characters, in blocks of at most MAX_BLOCK titles.

Two titles that differ in two separate words, share neither end and still score above the
threshold can be missed; that is the price of linear time.

A block only compares titles that can be near-identical, so shared prefixes cost nothing extra.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from masrl.model import identifiers as ids
from masrl.model import yamlio

OVERRIDES_FILE = "distinct_papers.yaml"
# A key shared by more titles than this is too common to say anything (e.g. one-word titles).
MAX_BLOCK = 200


def _keys(norm: str) -> tuple[list[tuple], list[tuple]]:
    """(keys compared among themselves, 'one word fewer' keys compared with full word sets)."""
    words = norm.split()
    word_set = frozenset(words)
    # The first and last 12 characters too, as before; a block larger than MAX_BLOCK (thousands of
    # titles sharing a prefix) is skipped, so these add recall without making the check quadratic.
    own: list[tuple] = [
        ("flat", norm.replace(" ", "")),
        ("set", word_set),
        ("pre", norm[:12]),
        ("suf", norm[-12:]),
    ]
    fewer: list[tuple] = []
    if len(word_set) >= 3:
        for word in word_set:
            rest = word_set - {word}
            own.append(("typo", rest, word[:2], 0))
            own.append(("typo", rest, word[-2:], 1))
            fewer.append(("set", rest))
    return own, fewer


def similar_title_pairs(titles: list[tuple[str, str, Any]]) -> Iterator[tuple]:
    """Pairs (first, second) of items (normalised title, name, payload) whose titles name the
    same paper, each pair once, ordered by name."""
    blocks: dict[tuple, list[int]] = defaultdict(list)
    fewer_blocks: dict[tuple, list[int]] = defaultdict(list)
    for index, (norm, _, _) in enumerate(titles):
        if not norm:
            continue
        own, fewer = _keys(norm)
        for key in own:
            blocks[key].append(index)
        for key in fewer:
            fewer_blocks[key].append(index)
    candidates: set[tuple[int, int]] = set()
    for key, members in blocks.items():
        if len(members) < 2 and key not in fewer_blocks:
            continue
        if len(members) <= MAX_BLOCK:
            candidates.update((a, b) for i, a in enumerate(members) for b in members[i + 1 :])
        if key[0] == "set":
            shorter = fewer_blocks.get(key, ())
            if len(members) * len(shorter) <= MAX_BLOCK * MAX_BLOCK:
                candidates.update(
                    (min(a, b), max(a, b)) for a in members for b in shorter if a != b
                )
    found = []
    for a, b in candidates:
        first, second = titles[a], titles[b]
        if first[1] == second[1] or not ids.same_title(first[0], second[0]):
            continue
        found.append((first, second) if first[1] < second[1] else (second, first))
    seen = set()
    for pair in sorted(found, key=lambda p: (p[0][1], p[1][1])):
        names = (pair[0][1], pair[1][1])
        if names not in seen:
            seen.add(names)
            yield pair


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

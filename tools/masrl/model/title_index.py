"""Near-identical titles found in linear time: the blocking keys, and an index titles join one by one.

Two normalised titles (``identifiers.normalize_title``) name the same paper when
``identifiers.same_title`` says so; comparing every pair is quadratic. Each title instead gets keys
from its *words*, and only titles sharing a key are compared:

- its space-free form (catches "multi-agent" vs "multiagent");
- its set of words (catches reordering and repeated words);
- for every word w, the other words plus w's first or last two letters (catches a typo in one
  word);
- for every word w, the other words, matched only against another title's full word set
  (catches one inserted or dropped word);
- its first and last 12 characters.

A set of words is kept as a 64-bit sum of its words' hashes, and "the other words" as that sum
minus one word's hash, so a title of n distinct words costs O(n) keys of constant size (a set per
word cost O(n^2): 6,000 words took 1.6 GB). A collision only adds a candidate that
``same_title`` then rejects.

Exact duplicates are found by hashing the whole title, however many share it. A block holding more
than MAX_BLOCK titles (thousands sharing a prefix, or one-word titles) compares a newcomer with
its first MAX_BLOCK members only, which keeps the cost linear. Two titles that differ in two
separate words and share neither end can be missed; that is the price of linear time.
"""

from __future__ import annotations

import functools
from collections import defaultdict
from typing import Generic, TypeVar

from masrl.model import identifiers as ids

Payload = TypeVar("Payload")

MAX_BLOCK = 200
_MASK = (1 << 64) - 1


def _word_hash(word: str) -> int:
    return hash(word) & _MASK


def _set_hash(words: set[str]) -> int:
    return sum(_word_hash(w) for w in words) & _MASK


@functools.lru_cache(maxsize=64)  # a title is looked up in several indexes, then added
def block_keys(norm: str) -> tuple[tuple[tuple, ...], tuple[tuple, ...]]:
    """(keys compared among themselves, 'one word fewer' keys compared with full word sets)."""
    words = set(norm.split())
    whole = _set_hash(words)
    own: list[tuple] = [
        ("flat", norm.replace(" ", "")),
        ("set", whole),
        ("pre", norm[:12]),
        ("suf", norm[-12:]),
    ]
    fewer: list[tuple] = []
    if len(words) >= 3:
        for word in sorted(words):
            rest = (whole - _word_hash(word)) & _MASK
            own.append(("typo", rest, word[:2], 0))
            own.append(("typo", rest, word[-2:], 1))
            fewer.append(("set", rest))
    return tuple(own), tuple(fewer)


class TitleIndex(Generic[Payload]):
    """Normalised titles added one at a time; `matches` lists the earlier ones naming the same paper."""

    def __init__(self, max_block: int = MAX_BLOCK):
        self.max_block = max_block
        self._exact: dict[str, list[Payload]] = {}
        self._titles: list[str] = []  # distinct titles, in the order they came
        self._blocks: dict[tuple, list[int]] = defaultdict(list)
        self._fewer: dict[tuple, list[int]] = defaultdict(list)

    def exact(self, norm: str) -> list[Payload]:
        """Everything added under exactly this title, in the order it came."""
        return self._exact.get(norm, [])

    def near(self, norm: str) -> list[str]:
        """Earlier distinct titles near-identical to (and not equal to) this one, oldest first."""
        if not norm:
            return []
        own, fewer = block_keys(norm)
        candidates: set[int] = set()
        for key in own:
            candidates.update(self._blocks.get(key, ())[: self.max_block])
            if key[0] == "set":  # earlier titles one word longer
                candidates.update(self._fewer.get(key, ())[: self.max_block])
        for key in fewer:  # earlier titles one word shorter
            candidates.update(self._blocks.get(key, ())[: self.max_block])
        found = []
        for index in sorted(candidates):
            other = self._titles[index]
            if other != norm and ids.same_title(norm, other):
                found.append(other)
        return found

    def first_match(self, norm: str) -> Payload | None:
        """The first thing added under this title or a near-identical one, or None."""
        if not norm:
            return None
        if norm in self._exact:
            return self._exact[norm][0]
        near = self.near(norm)
        return self._exact[near[0]][0] if near else None

    def add(self, norm: str, payload: Payload) -> None:
        if not norm:
            return
        if norm in self._exact:
            self._exact[norm].append(payload)
            return
        self._exact[norm] = [payload]
        index = len(self._titles)
        self._titles.append(norm)
        own, fewer = block_keys(norm)
        for key in own:
            self._blocks[key].append(index)
        for key in fewer:
            self._fewer[key].append(index)

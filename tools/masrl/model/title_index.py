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
word cost O(n^2): 6,000 words took 1.6 GB). The index keeps each key as its hash, mapped to the
block's titles; a candidate must also carry the same numbers and version tokens
(``distinguishing_tokens``), which must agree for ``same_title`` to hold. Nearly every block
holds one title, so one map entry per block, and no count beside it, is most of the index's
size. A collision only adds a candidate that ``same_title`` then rejects, or fills a block early,
as rare as two 64-bit hashes meeting.

Exact duplicates are found by hashing the whole title, however many share it. A block holding more
than MAX_BLOCK titles (thousands sharing a prefix, or one-word titles) compares a newcomer with
its first MAX_BLOCK members only, which keeps the cost linear. Two titles that differ in two
separate words and share neither end can be missed; that is the price of linear time.
"""

from __future__ import annotations

import functools
from typing import Generic, NamedTuple, TypeVar

from masrl.model import identifiers as ids

Payload = TypeVar("Payload")

MAX_BLOCK = 200
_MASK = (1 << 64) - 1


class _Keys(NamedTuple):
    """A title's blocks, each kept as its hash, and the tokens its candidates must share."""

    own: list[int]  # blocks compared among themselves
    fewer: list[int]  # "one word fewer" blocks, compared with full word sets
    searches: frozenset[int]  # the own blocks holding its candidates (own and one word shorter)
    tokens: int  # hash of its distinguishing tokens


@functools.lru_cache(maxsize=64)  # a title is looked up in several indexes, then added
def block_keys(norm: str) -> _Keys:
    words = {word: hash(word) & _MASK for word in norm.split()}
    whole = sum(words.values()) & _MASK
    own = [
        hash(("flat", norm.replace(" ", ""))),
        hash(("set", whole)),
        hash(("pre", norm[:12])),
        hash(("suf", norm[-12:])),
    ]
    fewer = []
    if len(words) >= 3:
        for word, word_hash in words.items():
            rest = (whole - word_hash) & _MASK
            own.append(hash(("typo", rest, word[:2], 0)))
            own.append(hash(("typo", rest, word[-2:], 1)))
            fewer.append(hash(("set", rest)))
    # An own "set" block named by one of its fewer keys holds an earlier title one word shorter.
    return _Keys(own, fewer, frozenset(own + fewer), hash(ids.distinguishing_tokens(norm)))


class TitleIndex(Generic[Payload]):
    """Normalised titles added one at a time; `matches` lists the earlier ones naming the same paper."""

    def __init__(self, max_block: int = MAX_BLOCK):
        self.max_block = max_block
        self._exact: dict[str, list[Payload]] = {}
        self._titles: list[str] = []  # distinct titles, in the order they came
        self._tokens: list[int] = []  # the hash of each one's distinguishing tokens
        # The first max_block titles of each block (only that many are ever compared), by block:
        # a bare title number while a block holds one, as nearly all do.
        self._own: dict[int, int | list[int]] = {}
        self._fewer: dict[int, int | list[int]] = {}

    def exact(self, norm: str) -> list[Payload]:
        """Everything added under exactly this title, in the order it came."""
        return self._exact.get(norm, [])

    def near(self, norm: str) -> list[str]:
        """Earlier distinct titles near-identical to (and not equal to) this one, oldest first."""
        if not norm or not self._titles:
            return []
        keys = block_keys(norm)
        tokens, mine = self._tokens, keys.tokens
        candidates: set[int] = set()
        held_lists = [self._own[found] for found in self._own.keys() & keys.searches]
        if keys.own[1] in self._fewer:  # earlier titles one word longer
            held_lists.append(self._fewer[keys.own[1]])
        for held in held_lists:
            if type(held) is int:
                if tokens[held] == mine:
                    candidates.add(held)
            else:
                candidates.update(index for index in held if tokens[index] == mine)
        titles = self._titles
        return [
            titles[index]
            for index in sorted(candidates)
            if titles[index] != norm and ids.same_title(norm, titles[index])
        ]

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
        keys = block_keys(norm)
        self._tokens.append(keys.tokens)
        cap = self.max_block
        for blocks, held_by in ((keys.own, self._own), (keys.fewer, self._fewer)):
            for block in blocks:
                held = held_by.get(block)
                if held is None:
                    if cap > 0:
                        held_by[block] = index
                elif type(held) is int:
                    if cap > 1:
                        held_by[block] = [held, index]
                elif len(held) < cap:
                    held.append(index)

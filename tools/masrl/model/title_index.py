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
word cost O(n^2): 6,000 words took 1.6 GB). The index keeps each key as its hash, and within a
block groups the titles by their numbers and version tokens (``distinguishing_tokens``), which
must agree for ``same_title`` to hold. A collision only adds a candidate that ``same_title`` then
rejects, or fills a block early, as rare as two 64-bit hashes meeting.

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
    """A title's blocks (each key kept as its hash) and the member lists it joins or searches:
    a block's titles grouped by their distinguishing tokens (numbers and version tokens; titles
    whose tokens differ never name the same paper, identifiers.same_title)."""

    own: list[int]  # blocks compared among themselves
    own_joins: list[int]  # the member list of each own block, for this title's tokens
    fewer: list[int]  # "one word fewer" blocks, compared with full word sets
    fewer_joins: list[int]
    searches: frozenset[int]  # the member lists holding its candidates


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
    # A member list is its block's hash xor a hash of the tokens (and of which kind of block)
    found = ids.distinguishing_tokens(norm)
    tokens, fewer_tokens = hash(found), hash((found, "fewer"))
    own_joins = [key ^ tokens for key in own]
    searches = [key ^ tokens for key in fewer]  # earlier titles one word shorter
    searches.append(own[1] ^ fewer_tokens)  # earlier titles one word longer
    return _Keys(
        own,
        own_joins,
        fewer,
        [key ^ fewer_tokens for key in fewer],
        frozenset(own_joins + searches),
    )


class TitleIndex(Generic[Payload]):
    """Normalised titles added one at a time; `matches` lists the earlier ones naming the same paper."""

    def __init__(self, max_block: int = MAX_BLOCK):
        self.max_block = max_block
        self._exact: dict[str, list[Payload]] = {}
        self._titles: list[str] = []  # distinct titles, in the order they came
        # How many titles each block holds, up to max_block (only that many are ever compared).
        self._sizes: dict[int, int] = {}
        self._fewer_sizes: dict[int, int] = {}
        # The first max_block titles of each block, by block and distinguishing tokens.
        self._members: dict[int, int | list[int]] = {}

    def exact(self, norm: str) -> list[Payload]:
        """Everything added under exactly this title, in the order it came."""
        return self._exact.get(norm, [])

    def near(self, norm: str) -> list[str]:
        """Earlier distinct titles near-identical to (and not equal to) this one, oldest first."""
        if not norm or not self._titles:
            return []
        members = self._members
        candidates: set[int] = set()
        for found in members.keys() & block_keys(norm).searches:
            held = members[found]
            if type(held) is int:
                candidates.add(held)
            else:
                candidates.update(held)
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
        members, cap = self._members, self.max_block
        for blocks, joins, sizes in (
            (keys.own, keys.own_joins, self._sizes),
            (keys.fewer, keys.fewer_joins, self._fewer_sizes),
        ):
            for block, joined in zip(blocks, joins, strict=True):
                size = sizes.get(block, 0)
                if size < cap:
                    sizes[block] = size + 1
                    held = members.get(joined)
                    if held is None:
                        members[joined] = index  # most lists hold one title: kept bare
                    elif type(held) is int:
                        members[joined] = [held, index]
                    else:
                        held.append(index)

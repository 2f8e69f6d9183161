"""An Atom feed of the records added to the corpus and of each round's tag corrections, newest
first, built with feedgen.

Deterministic: every date comes from the records (``added``), never from the clock, so the same
corpus gives the same bytes. Links are relative to the site root, where the feed is served.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from dataclasses import dataclass

from masrl.model.project import Corpus
from masrl.model.records import Entry

FEED_FILE = "feed.xml"
FEED_ID = "tag:masrl.invalid,2026:corpus"  # a stable id that names no live host
MAX_ITEMS = 100


def _moment(day: str) -> dt.datetime:
    return dt.datetime.combine(dt.date.fromisoformat(day), dt.time(0, 0), tzinfo=dt.UTC)


def _newest_first(corpus: Corpus) -> list[Entry]:
    dated = [e for e in corpus.entries if e.added]
    return sorted(dated, key=lambda e: (e.added, e.key), reverse=True)[:MAX_ITEMS]


@dataclass(frozen=True)
class RoundCorrections:
    """The tag corrections one screening round made: one feed item announces them."""

    round: str
    date: str  # the round's date in screening/rounds.yaml
    count: int
    entries: int
    fields: tuple[tuple[str, int], ...]  # (field, corrections), most corrected first


def round_corrections(corpus: Corpus) -> list[RoundCorrections]:
    """Corrections per round with a date, newest round first (a correction that names no round,
    or a round without a date, has no moment to be announced at)."""
    from masrl.screening.rounds import read_rounds

    dates = {r.id: r.date for r in read_rounds(corpus.project)[0] if r.date}
    fields: dict[str, Counter] = {}
    keys: dict[str, set[str]] = {}
    for entry in corpus.entries:
        for item in entry.corrections:
            round_id = str(item.get("round") or "")
            if round_id in dates:
                fields.setdefault(round_id, Counter())[str(item.get("field"))] += 1
                keys.setdefault(round_id, set()).add(entry.key)
    found = [
        RoundCorrections(
            r,
            dates[r],
            sum(counts.values()),
            len(keys[r]),
            tuple(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))),
        )
        for r, counts in fields.items()
    ]
    return sorted(found, key=lambda c: (c.date, c.round), reverse=True)


def atom_feed(
    corpus: Corpus,
    entry_link=lambda key: f"entries/{key}/",
    corrections_link=lambda round_id: f"corrections/#round-{round_id}",
) -> bytes:
    from feedgen.feed import FeedGenerator

    entries = _newest_first(corpus)
    corrected = round_corrections(corpus)
    feed = FeedGenerator()
    feed.id(FEED_ID)
    feed.title("masrl: records added to the corpus")
    feed.subtitle("New corpus entries on RL in LLM-based multi-agent systems, by screening round.")
    feed.link(href=FEED_FILE, rel="self")
    feed.link(href="whats-new/", rel="alternate")
    feed.language("en")
    feed.generator("masrl")  # no version: the bytes must not change with the feedgen release
    moments = [e.added for e in entries[:1]] + [c.date for c in corrected[:1]]
    feed.updated(_moment(max(moments)) if moments else _moment("2026-05-04"))
    # Items go in oldest first (feedgen writes them in reverse): within a day, corrections after
    # the records added that day, so they come first.
    for item_of in sorted(
        [(e.added, 0, e.key, e) for e in entries] + [(c.date, 1, c.round, c) for c in corrected],
        key=lambda t: t[:3],
    ):
        record = item_of[3]
        if isinstance(record, RoundCorrections):
            _correction_item(feed, record, corrections_link)
        else:
            _entry_item(feed, record, entry_link)
    return feed.atom_str(pretty=True)


def _correction_item(feed, corrected: RoundCorrections, link) -> None:
    item = feed.add_entry()
    item.id(f"{FEED_ID}:corrections:{corrected.round}")
    noun = "correction" if corrected.count == 1 else "corrections"
    item.title(f"Round {corrected.round}: {corrected.count} tag {noun}")
    item.link(href=link(corrected.round), rel="alternate")
    item.updated(_moment(corrected.date))
    item.published(_moment(corrected.date))
    fields = ", ".join(f"{name} {count}" for name, count in corrected.fields)
    item.summary(
        f"Round {corrected.round} corrected {corrected.count} published tags on "
        f"{corrected.entries} entries ({fields})."
    )
    item.category(term=corrected.round, label=f"round {corrected.round}")


def _entry_item(feed, entry: Entry, entry_link) -> None:
    item = feed.add_entry()
    item.id(f"{FEED_ID}:{entry.key}")
    item.title(entry.title)
    item.link(href=entry_link(entry.key), rel="alternate")
    item.updated(_moment(entry.added))
    item.published(_moment(entry.added))
    for name in entry.authors[:3]:
        item.author(name=name)
    item.summary(f"{entry.summary} (round {entry.round}, {entry.category})")
    item.category(term=entry.round, label=f"round {entry.round}")

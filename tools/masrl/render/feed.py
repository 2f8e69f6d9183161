"""An Atom feed of the records added to the corpus, newest first, built with feedgen.

Deterministic: every date comes from the records (``added``), never from the clock, so the same
corpus gives the same bytes. Links are relative to the site root, where the feed is served.
"""

from __future__ import annotations

import datetime as dt

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


def atom_feed(corpus: Corpus, entry_link=lambda key: f"entries/{key}/") -> bytes:
    from feedgen.feed import FeedGenerator

    entries = _newest_first(corpus)
    feed = FeedGenerator()
    feed.id(FEED_ID)
    feed.title("masrl: records added to the corpus")
    feed.subtitle("New corpus entries on RL in LLM-based multi-agent systems, by screening round.")
    feed.link(href=FEED_FILE, rel="self")
    feed.link(href="whats-new/", rel="alternate")
    feed.language("en")
    feed.generator("masrl")  # no version: the bytes must not change with the feedgen release
    feed.updated(_moment(entries[0].added) if entries else _moment("2026-05-04"))
    # feedgen writes entries in reverse order of addition; add oldest first for newest-first output.
    for entry in reversed(entries):
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
    return feed.atom_str(pretty=True)

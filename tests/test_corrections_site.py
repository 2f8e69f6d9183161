"""Tag corrections where they apply: each entry page's Corrections section (which its notes'
"see corrections" links to), the Corrections page by round, and the feed's announcement.

In-process on the real corpus (its entries carry the corrections); the built site is checked in
test_site.py (strict build: every anchor and link resolves)."""

from __future__ import annotations

import re

import pytest
from lxml import etree
from masrl.check.validate import load_corpus
from masrl.render.feed import FEED_ID, atom_feed
from masrl.render.site.context import SiteContext
from masrl.render.site.corrections import corrections_markdown
from masrl.render.site.entries import entry_source
from shared_corpus import live_corpus

ATOM = "{http://www.w3.org/2005/Atom}"


@pytest.fixture(scope="module")
def ctx() -> SiteContext:
    return SiteContext(live_corpus())


def test_an_entry_page_lists_its_corrections_where_its_notes_point(ctx):
    entry = ctx.by_key["latentmas"]
    page = entry_source(ctx, entry)  # the body is HTML (html_body.py)
    section = page.split('<h2 id="corrections">Corrections', 1)[1].split("\n<h2 ", 1)[0]
    assert '<a href="#corrections">see corrections</a>' in page.split('<h2 id="corrections"', 1)[0]
    rows = re.findall(r"<tr><td>(.*?)</tr>", section)
    assert len(rows) == len(entry.corrections) == 2
    category = rows[0]
    # field, published value, current value (as their labels, linking to their lists), round, reason
    assert 'href="../../browse/category/"' in category
    assert ">RL and post-training methods</a>" in category
    assert f">{ctx.value_label('category', entry.category)}</a>" in category
    assert 'href="../../corrections/#round-2026-11">2026-11</a>' in category
    assert "end-to-end training-free framework" in category


def test_an_uncorrected_entry_has_no_corrections_section(ctx):
    entry = next(e for e in ctx.corpus.entries if not e.corrections)
    assert '<h2 id="corrections"' not in entry_source(ctx, entry)


def test_the_corrections_page_lists_every_correction_by_round_newest_first(ctx):
    page = corrections_markdown(ctx)
    total = sum(len(e.corrections) for e in ctx.corpus.entries)
    assert total > 100
    assert page.count("<tr><td>") == total
    assert f"{total} corrections on" in page
    newer = page.index("## Round 2026&#45;12 { #round-2026-12 }")
    assert newer < page.index("## Round 2026&#45;11 { #round-2026-11 }")


def test_the_corrections_page_says_why_it_is_empty(mini_project):
    page = corrections_markdown(SiteContext(load_corpus(mini_project)))
    assert "No tag has been corrected since publication" in page and "<table" not in page


def test_the_feed_announces_each_rounds_corrections(ctx):
    corpus = ctx.corpus
    root = etree.fromstring(atom_feed(corpus))
    items = {item.findtext(f"{ATOM}id"): item for item in root.findall(f"{ATOM}entry")}
    item = items[f"{FEED_ID}:corrections:2026-12"]
    count = sum(c.get("round") == "2026-12" for e in corpus.entries for c in e.corrections)
    assert item.findtext(f"{ATOM}title") == f"Round 2026-12: {count} tag corrections"
    assert item.find(f"{ATOM}link").get("href") == "corrections/#round-2026-12"
    assert f"{FEED_ID}:corrections:2026-11" in items
    assert atom_feed(corpus) == atom_feed(corpus)  # deterministic

"""RIS and the JSON of a selection: the files the site's table writes for the rows it shows."""

from __future__ import annotations

import json

import rispy
from masrl.check.validate import load_corpus
from masrl.exports.json import entries_document_text, entry_record_text
from masrl.exports.ris import export_ris


def test_ris_has_one_record_per_entry_in_the_order_given_and_joins_per_entry(mini_project):
    entries = sorted(load_corpus(mini_project).entries, key=lambda e: e.key, reverse=True)
    text = export_ris(entries)
    records = rispy.loads(text)
    assert [r["id"] for r in records] == [e.key for e in entries]
    assert [r["title"] for r in records] == [e.title for e in entries]
    assert records[0]["authors"] == list(entries[0].authors)
    assert not text.startswith("1.")  # no rispy counters: a selection's file is its records joined
    assert text == "\n".join(export_ris([e]) for e in entries)


def test_ris_keeps_each_value_on_one_line(mini_project):
    entry = load_corpus(mini_project).entries[0]
    broken = entry.model_copy(update={"title": "Two\nlines\nER  - of a title"})
    (record,) = rispy.loads(export_ris([broken]))
    assert record["title"] == "Two lines ER - of a title"


def test_a_selection_as_json_is_its_records_in_order(mini_project):
    entries = load_corpus(mini_project).entries
    records = [entry_record_text(e.to_data()) for e in entries]
    document = json.loads(entries_document_text(records))
    assert document["format"] == "masrl-entries"
    assert [r["key"] for r in document["entries"]] == [e.key for e in entries]
    assert json.loads(entries_document_text([]))["entries"] == []

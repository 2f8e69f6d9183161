"""Entries as RIS (through `rispy`), for reference managers: one record per entry, the entry's key
as its ID, in the order given."""

from __future__ import annotations

import functools

from masrl.exports.bibtex import entry_type
from masrl.model.records import Entry

# BibTeX entry types (exports.bibtex.entry_type) as RIS reference types.
RIS_TYPE = {"inproceedings": "CONF", "article": "JOUR", "techreport": "RPRT", "misc": "GEN"}


def _one_line(text: str) -> str:
    """RIS is line-based: a line break inside a value could start a tag of its own."""
    return " ".join(str(text).split())


def ris_record(entry: Entry) -> dict:
    record = {
        "type_of_reference": RIS_TYPE.get(entry_type(entry), "GEN"),
        "id": _one_line(entry.key),
        "title": _one_line(entry.title),
        "authors": [_one_line(a) for a in entry.authors],
        "year": str(entry.year),
        "abstract": _one_line(entry.summary),
    }
    if entry.venue:
        record["secondary_title"] = _one_line(entry.venue)
    if doi := entry.identifiers.get("doi"):
        record["doi"] = _one_line(doi)
    if entry.urls:
        record["urls"] = [_one_line(u) for u in entry.urls]
    if entry.arxiv_id:
        record["notes"] = [f"arXiv:{_one_line(entry.arxiv_id)}"]
    return record


def export_ris(entries: list[Entry]) -> str:
    """Records separated by a blank line, without rispy's "1." counters: so the records of any
    selection, each written alone, joined by a blank line give this file of that selection."""
    import rispy

    return rispy.dumps([ris_record(e) for e in entries], implementation=_uncounted_writer())


@functools.cache
def _uncounted_writer() -> type:
    """rispy's writer without the counters, its class made once (the site writes each entry alone)."""
    import rispy

    class UncountedRisWriter(rispy.RisWriter):
        def set_header(self, count: int) -> None:
            return None

    return UncountedRisWriter

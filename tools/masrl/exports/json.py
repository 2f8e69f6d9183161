"""The corpus as one JSON document: every entry and exclusion record, in field order."""

from __future__ import annotations

import hashlib
import json
import operator

from masrl.model.project import Corpus

JSON_FORMAT_VERSION = 1


def corpus_document(corpus: Corpus) -> dict:
    """Entries, exclusions and the vocabularies: everything the site needs, in one mapping."""
    return {
        "format": "masrl-corpus",
        "format_version": JSON_FORMAT_VERSION,
        "entries": [e.to_data() for e in sorted(corpus.entries, key=lambda e: e.key)],
        "exclusions": [x.to_data() for x in sorted(corpus.exclusions, key=lambda x: x.record_id)],
        "taxonomy": {
            name: {
                "label": axis.label,
                "description": axis.description,
                "values": [
                    {
                        "id": v.id,
                        "label": v.label,
                        "definition": v.definition,
                        "order": v.order,
                        **v.extra,
                    }
                    for v in axis.values
                ],
            }
            for name, axis in corpus.taxonomy.axes.items()
        },
    }


ENTRIES_FORMAT = "masrl-entries"


def entries_document_text(records: list[str]) -> str:
    """A selection of entries as one JSON document, from each entry's `entry_record_text`: the
    site's table joins the records of the rows shown, in their order, into the same file."""
    body = "\n" + ",\n".join(records) + "\n" if records else ""
    head = f'"format": "{ENTRIES_FORMAT}", "format_version": {JSON_FORMAT_VERSION}'
    return f'{{{head}, "entries": [{body}]}}\n'


def entry_record_text(data: dict) -> str:
    """One entry's record (its `to_data()`, with any derived fields) as compact, sorted JSON."""
    return json.dumps(data, sort_keys=True, ensure_ascii=False)


def export_json(corpus: Corpus) -> str:
    """Deterministic: sorted keys, two-space indent, UTF-8, a final newline."""
    return json.dumps(corpus_document(corpus), indent=2, sort_keys=True, ensure_ascii=False) + "\n"


# The records last digested and their digest: `masrl build` and `check` key several renders by
# the same corpus. Records are frozen, so the same record objects have the same content.
_last_digest: list[tuple[tuple[int, tuple], bytes]] = []


def corpus_digest(corpus: Corpus) -> bytes:
    """A SHA-256 of every record's content, entries by key, then exclusions by record id: each
    record's fields, by name and in their order, as one line of compact JSON (a JSON line holds no
    raw newline, so the lines cannot run into each other). A pure function of the records, for
    cache keys: the C encoder takes a fraction of the time that export_json's indented text
    (Python's encoder) does, and no text of the whole corpus is held."""
    records = (len(corpus.entries), (*corpus.entries, *corpus.exclusions))
    if _last_digest:
        (count, last), digest = _last_digest[0]
        if count == records[0] and len(last) == len(records[1]):
            if all(map(operator.is_, last, records[1])):
                return digest
    digest = _digest_records(corpus)
    _last_digest[:] = [(records, digest)]
    return digest


def _digest_records(corpus: Corpus) -> bytes:
    encoder = json.JSONEncoder(ensure_ascii=False, check_circular=False)
    digest = hashlib.sha256()
    groups = (
        ("entries", sorted(corpus.entries, key=lambda e: e.key)),
        ("exclusions", sorted(corpus.exclusions, key=lambda x: x.record_id)),
    )
    for name, records in groups:
        digest.update(f"{name}\n".encode())
        for record in records:
            values = record.__dict__  # where pydantic keeps the fields' values (see to_data)
            fields = {field: values[field] for field in type(record).model_fields}
            digest.update(encoder.encode(fields).encode("utf-8") + b"\n")
    return digest.digest()

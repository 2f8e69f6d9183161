"""CSV layouts of the corpus: the survey artifact's (papers.csv and excluded.csv) and masrl's own.

The artifact's headers are its own, so an existing survey in that layout can move to masrl and
back (and the artifact's scripts run on it). Fields the layout does not have (sub-decisions,
evidence level, ...) are written as the placeholder that `masrl validate` rejects until a person
fills them in.

masrl's own layout (`masrl_csv`, `masrl export csv --kind masrl`) has one column per field of the
entry model, under the field's current name, in the model's order, and the derived
`reward_families` after `reward_types`. Its one form for anything that
is not a single value: every list and mapping cell is JSON (``["message", "token"]``, ``{"arxiv":
"2605.02801"}``, ``[{"url": ..., "source": ...}]``), an empty list is ``[]``, a missing value an
empty cell, a flag ``true``/``false``.
"""

from __future__ import annotations

import json
import re

from masrl.csvsafe import csv_lines, csv_text
from masrl.model.project import Corpus
from masrl.model.records import Entry, Exclusion, entry_specs
from masrl.model.taxonomy import Taxonomy

PAPERS_HEADER = (
    "key",
    "title",
    "first_author",
    "affiliation",
    "year",
    "arxiv_id",
    "venue",
    "url",
    "category",
    "is_rl",
    "reward_type",
    "credit_granularity",
    "orchestration_form",
    "scenario",
    "is_core",
    "one_liner",
    "verified",
    "notes",
)
# The published pool ships without one_liner; both forms are read.
PAPERS_HEADER_WITHOUT_SUMMARY = tuple(c for c in PAPERS_HEADER if c != "one_liner")
# Fields the artifact's columns already carry. Every other field of the entry model gets a column
# of its own after the artifact's (masrl's columns), so export -> import loses nothing and a new
# axis or field needs no change here. Tools that read the artifact's columns by name are unaffected.
LAYOUT_FIELDS = frozenset(
    {
        "key",
        "title",
        "affiliation",
        "year",
        "venue",
        "urls",
        "category",
        "is_rl",
        "reward_types",
        "credit_units",
        "topology",
        "scenario",
        "survey_role",
        "summary",
        "verified",
        "notes",
    }
)
# The identifiers mapping is spread over arxiv_id (the artifact's) and two columns of masrl's.
IDENTIFIER_COLUMNS = ("doi", "openreview")
# Kinds written as JSON: names hold commas, evidence, corrections and links are structured.
JSON_KINDS = frozenset({"authors", "evidence", "corrections", "links", "formerly"})


def extra_columns(taxonomy: Taxonomy) -> tuple[str, ...]:
    """masrl's columns after the artifact's, in the entry model's field order."""
    columns = []
    for spec in entry_specs(taxonomy):
        if spec.name == "identifiers":
            columns += IDENTIFIER_COLUMNS
        elif spec.name not in LAYOUT_FIELDS:
            columns.append(spec.name)
    return tuple(columns)


def full_papers_header(taxonomy: Taxonomy) -> tuple[str, ...]:
    return PAPERS_HEADER + extra_columns(taxonomy)


EXCLUSIONS_HEADER = (
    "record_id",
    "source",
    "query_family",
    "screening_label",
    "identifier",
    "url",
    "date_screened",
    "stage",
    "exclusion_reason",
)
NOT_APPLICABLE = "NA"
UNKNOWN_AFFILIATION = "unknown"
URL_SEPARATOR = " ; "
LIST_SEPARATOR = ";"
DOI_URL = re.compile(r"doi\.org/(?P<doi>10\.\d{4,9}/\S+)$", re.I)

# ---------------------------------------------------------------------------------------------
# Export


# json.dumps(value, ensure_ascii=False, sort_keys=True), its encoder made once, not per cell,
# and the function that encoder quotes strings with (ensure_ascii=False).
_JSON_CELL = json.JSONEncoder(ensure_ascii=False, sort_keys=True)
_json_string = json.encoder.encode_basestring


def _json_cell(value) -> str:
    """A list or mapping cell as JSON, as json.dumps(plain_value(value), ensure_ascii=False,
    sort_keys=True) writes it; a list of strings (authors, tags) joined directly, with the
    encoder's own string quoting, since most cells are one and the encoder's setup per call
    costs more than the writing."""
    plain = plain_value(value)
    if type(plain) is list and all(type(item) is str for item in plain):
        return "[" + ", ".join(map(_json_string, plain)) + "]"
    return _JSON_CELL.encode(plain)


def _joined(values) -> str:
    return LIST_SEPARATOR.join(values) if values else NOT_APPLICABLE


def entry_row(entry: Entry, taxonomy: Taxonomy) -> dict[str, str]:
    row = {
        "key": entry.key,
        "title": entry.title,
        "first_author": entry.first_author,
        "affiliation": entry.affiliation or UNKNOWN_AFFILIATION,
        "year": str(entry.year),
        "arxiv_id": entry.arxiv_id or "",
        "venue": entry.venue,
        "url": URL_SEPARATOR.join(entry.urls),
        "category": entry.category,
        "is_rl": entry.is_rl,
        "reward_type": _joined(entry.reward_types),
        "credit_granularity": _joined(entry.credit_units),
        "orchestration_form": entry.topology or NOT_APPLICABLE,
        "scenario": entry.scenario or NOT_APPLICABLE,
        "is_core": entry.survey_role,
        "one_liner": entry.summary,
        "verified": entry.verified,
        "notes": entry.notes or "",
    }
    for name in IDENTIFIER_COLUMNS:
        row[name] = entry.identifiers.get(name) or ""
    for spec in entry_specs(taxonomy):
        if spec.name not in LAYOUT_FIELDS and spec.name != "identifiers":
            row[spec.name] = _cell(spec.kind, getattr(entry, spec.name))
    return row


def _cell(kind: str, value) -> str:
    """One field of masrl's columns as text; ``imports.csv.value_of_cell`` reads it back."""
    if kind in JSON_KINDS:
        return _json_cell(value) if value else ""
    if kind == "tags":
        return _joined(value)
    if kind == "tag":
        return value or NOT_APPLICABLE
    if kind == "bool":
        return "true" if value else "false"
    return "" if value is None else str(value)


def plain_value(value):
    """Tuples as lists, mappings as plain dicts, all the way down: what JSON writes."""
    if isinstance(value, tuple | list):
        return [plain_value(v) for v in value]
    if isinstance(value, dict):
        return {k: plain_value(v) for k, v in value.items()}
    return value


def exclusion_row(record: Exclusion, taxonomy: Taxonomy) -> dict[str, str]:
    return {
        "record_id": record.record_id,
        "source": taxonomy["source_kinds"].label_of(record.source),
        "query_family": taxonomy["query_families"].label_of(record.query_family),
        "screening_label": record.title,
        "identifier": record.identifier,
        "url": record.url,
        "date_screened": record.date_screened,
        "stage": record.stage,
        # The layout has one reason column: the code leads, so an import recovers it.
        "exclusion_reason": f"{record.reason_code}: {record.rationale}",
    }


def _render(header, rows) -> str:
    return csv_text(header, rows)


def papers_csv(entries: list[Entry], taxonomy: Taxonomy) -> str:
    rows = [entry_row(e, taxonomy) for e in sorted(entries, key=lambda e: e.key)]
    return _render(full_papers_header(taxonomy), rows)


def exclusions_csv(records: list[Exclusion], taxonomy: Taxonomy) -> str:
    return _render(
        EXCLUSIONS_HEADER,
        [exclusion_row(r, taxonomy) for r in sorted(records, key=lambda r: r.record_id)],
    )


# Fields computed from a model field, written right after it: (name, source field).
DERIVED_COLUMNS = (("reward_families", "reward_types"),)


def masrl_header(taxonomy: Taxonomy) -> tuple[str, ...]:
    """masrl's layout: every field of the entry model, under its name, in the model's order, each
    derived field after its source."""
    columns = []
    for spec in entry_specs(taxonomy):
        columns.append(spec.name)
        columns += [name for name, source in DERIVED_COLUMNS if source == spec.name]
    return tuple(columns)


def field_value(entry: Entry, name: str, taxonomy: Taxonomy):
    """A column of masrl's layout for one entry: a model field, or one derived from it."""
    if name == "reward_families":
        return taxonomy.reward_families_of(entry.reward_types)
    return getattr(entry, name)


def masrl_cell(value) -> str:
    """One field in masrl's layout: lists and mappings as JSON, a flag as true/false."""
    if isinstance(value, tuple | list | dict):
        return _json_cell(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    return "" if value is None else str(value)


def masrl_row(
    entry: Entry, taxonomy: Taxonomy, header: tuple[str, ...] | None = None
) -> dict[str, str]:
    """header: masrl_header(taxonomy), when the caller has it already."""
    header = masrl_header(taxonomy) if header is None else header
    return {name: masrl_cell(field_value(entry, name, taxonomy)) for name in header}


def masrl_csv(entries: list[Entry], taxonomy: Taxonomy) -> str:
    header = masrl_header(taxonomy)
    rows = [masrl_row(e, taxonomy, header) for e in sorted(entries, key=lambda e: e.key)]
    return _render(header, rows)


def entry_lines(entries: list[Entry], taxonomy: Taxonomy, kind: str) -> tuple[str, list[str]]:
    """(the header line, each entry's line, in the order given) of a layout, 'papers' or 'masrl':
    export_csv of any selection of entries is the header line and their lines in key order."""
    if kind == "papers":
        header = full_papers_header(taxonomy)
        rows = [entry_row(e, taxonomy) for e in entries]
    else:
        header = masrl_header(taxonomy)
        rows = [masrl_row(e, taxonomy, header) for e in entries]
    header_line, *lines = csv_lines(header, rows)
    return header_line, lines


def export_csv(corpus: Corpus, kind: str) -> str:
    """kind: 'papers' (the artifact's layout), 'masrl' (masrl's own) or 'exclusions'."""
    if kind == "papers":
        return papers_csv(corpus.entries, corpus.taxonomy)
    if kind == "masrl":
        return masrl_csv(corpus.entries, corpus.taxonomy)
    return exclusions_csv(corpus.exclusions, corpus.taxonomy)


# ---------------------------------------------------------------------------------------------
# Import

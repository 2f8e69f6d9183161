"""Reading and writing the survey artifact's CSV layout (papers.csv and excluded.csv).

The headers are the artifact's own, so an existing survey in that layout can move to masrl and
back. Fields the layout does not have (sub-decisions, evidence level, ...) are written as the
placeholder that `masrl validate` rejects until a person fills them in.
"""

from __future__ import annotations

import csv
import io
import json
import re

from masrl.model.records import (
    Corpus,
    Entry,
    Exclusion,
)
from masrl.model.taxonomy import Taxonomy

PAPERS_HEADER = (
    "key", "title", "first_author", "affiliation", "year", "arxiv_id", "venue", "url",
    "category", "is_rl", "reward_type", "credit_granularity", "orchestration_form",
    "scenario", "is_core", "one_liner", "verified", "notes",
)
# The published pool ships without one_liner; both forms are read.
PAPERS_HEADER_WITHOUT_SUMMARY = tuple(c for c in PAPERS_HEADER if c != "one_liner")
# Columns masrl adds after the artifact's own, so that export -> import loses nothing. Tools that
# read the artifact's columns by name are unaffected; authors is a JSON list (names hold commas).
EXTRA_PAPERS_COLUMNS = (
    "authors", "authors_complete", "doi", "openreview", "credit_mechanism", "sub_decisions",
    "evidence_level", "evaluation_measures", "latest_version", "primary_category", "journal_ref",
)
FULL_PAPERS_HEADER = PAPERS_HEADER + EXTRA_PAPERS_COLUMNS
EXCLUSIONS_HEADER = (
    "record_id", "source", "query_family", "screening_label", "identifier", "url",
    "date_screened", "stage", "exclusion_reason",
)
NOT_APPLICABLE = "NA"
UNKNOWN_AFFILIATION = "unknown"
URL_SEPARATOR = " ; "
LIST_SEPARATOR = ";"
DOI_URL = re.compile(r"doi\.org/(?P<doi>10\.\d{4,9}/\S+)$", re.I)




# ---------------------------------------------------------------------------------------------
# Export


def _joined(values) -> str:
    return LIST_SEPARATOR.join(values) if values else NOT_APPLICABLE


def entry_row(entry: Entry) -> dict[str, str]:
    return {
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
        "authors": json.dumps(list(entry.authors), ensure_ascii=False),
        "authors_complete": "true" if entry.authors_complete else "false",
        "doi": entry.identifiers.get("doi") or "",
        "openreview": entry.identifiers.get("openreview") or "",
        "credit_mechanism": entry.credit_mechanism or NOT_APPLICABLE,
        "sub_decisions": _joined(entry.sub_decisions),
        "evidence_level": entry.evidence_level,
        "evaluation_measures": _joined(entry.evaluation_measures),
        "latest_version": entry.latest_version or "",
        "primary_category": entry.primary_category or "",
        "journal_ref": entry.journal_ref or "",
    }


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


# OWASP "CSV injection": a spreadsheet runs a cell starting with one of these as a formula.
FORMULA_TRIGGERS = ("=", "+", "-", "@", "\t", "\r")
NEUTRALISER = "'"


def neutralise_cell(value: str) -> str:
    """Prefix a formula-like cell with a single quote (OWASP's rule) so spreadsheets show it as
    text. A cell already starting with a quote gets one more, so ``restore_cell`` is exact."""
    if value.startswith(FORMULA_TRIGGERS) or value.startswith(NEUTRALISER):
        return NEUTRALISER + value
    return value


def restore_cell(value: str) -> str:
    """The inverse of neutralise_cell, applied on import."""
    if value.startswith(NEUTRALISER) and value[1:].startswith((*FORMULA_TRIGGERS, NEUTRALISER)):
        return value[1:]
    return value


def _render(header, rows) -> str:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=header, lineterminator="\n")
    writer.writeheader()
    writer.writerows({name: neutralise_cell(value) for name, value in row.items()} for row in rows)
    return buffer.getvalue()


def papers_csv(entries: list[Entry]) -> str:
    return _render(FULL_PAPERS_HEADER, [entry_row(e) for e in sorted(entries, key=lambda e: e.key)])


def exclusions_csv(records: list[Exclusion], taxonomy: Taxonomy) -> str:
    return _render(EXCLUSIONS_HEADER, [exclusion_row(r, taxonomy) for r in sorted(records, key=lambda r: r.record_id)])


def export_csv(corpus: Corpus, kind: str) -> str:
    """kind: 'papers' or 'exclusions'."""
    if kind == "papers":
        return papers_csv(corpus.entries)
    return exclusions_csv(corpus.exclusions, corpus.taxonomy)


# ---------------------------------------------------------------------------------------------
# Import



























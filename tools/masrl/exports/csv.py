"""Reading and writing the survey artifact's CSV layout (papers.csv and excluded.csv).

The headers are the artifact's own, so an existing survey in that layout can move to masrl and
back. Fields the layout does not have (sub-decisions, evidence level, ...) are written as the
placeholder that `masrl validate` rejects until a person fills them in.
"""

from __future__ import annotations

import csv
import io
import re

from masrl.model.project import Corpus
from masrl.model.records import Entry, Exclusion
from masrl.model.taxonomy import Taxonomy

PAPERS_HEADER = (
    "key", "title", "first_author", "affiliation", "year", "arxiv_id", "venue", "url",
    "category", "is_rl", "reward_type", "credit_granularity", "orchestration_form",
    "scenario", "is_core", "one_liner", "verified", "notes",
)
# The published pool ships without one_liner; both forms are read.
PAPERS_HEADER_WITHOUT_SUMMARY = tuple(c for c in PAPERS_HEADER if c != "one_liner")
EXCLUSIONS_HEADER = (
    "record_id", "source", "query_family", "screening_label", "identifier", "url",
    "date_screened", "stage", "exclusion_reason",
)
NOT_APPLICABLE = "NA"
UNKNOWN_AFFILIATION = "unknown"
URL_SEPARATOR = " ; "
LIST_SEPARATOR = ";"
DOI_URL = re.compile(r"doi\.org/(?P<doi>10\.\d{4,9}/\S+)$", re.I)
# Tag fields the artifact layout has a column for; every other tag field of the axis registry
# is written in a column of its own after the layout's columns.
LAYOUT_TAG_COLUMNS = {
    "category": "category", "is_rl": "is_rl", "reward_types": "reward_type",
    "credit_units": "credit_granularity", "topology": "orchestration_form", "scenario": "scenario",
    "survey_role": "is_core", "verified": "verified",
}


def extension_fields(taxonomy: Taxonomy) -> tuple[str, ...]:
    """Entry tag fields beyond the artifact layout, in field order."""
    return tuple(a.field_name for a in taxonomy.record_axes("entry") if a.field_name not in LAYOUT_TAG_COLUMNS)




# ---------------------------------------------------------------------------------------------
# Export


def _joined(values) -> str:
    return LIST_SEPARATOR.join(values) if values else NOT_APPLICABLE


def entry_row(entry: Entry, extensions: tuple[str, ...] = ()) -> dict[str, str]:
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
    for name in extensions:
        value = getattr(entry, name)
        row[name] = _joined(value) if isinstance(value, tuple) else (value or NOT_APPLICABLE)
    return row


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
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=header, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return buffer.getvalue()


def papers_csv(entries: list[Entry], taxonomy: Taxonomy, extended: bool = False) -> str:
    """The artifact layout; extended adds a column per tag field the layout lacks."""
    extensions = extension_fields(taxonomy) if extended else ()
    rows = [entry_row(e, extensions) for e in sorted(entries, key=lambda e: e.key)]
    return _render(PAPERS_HEADER + extensions, rows)


def exclusions_csv(records: list[Exclusion], taxonomy: Taxonomy) -> str:
    return _render(EXCLUSIONS_HEADER, [exclusion_row(r, taxonomy) for r in sorted(records, key=lambda r: r.record_id)])


def export_csv(corpus: Corpus, kind: str, extended: bool = False) -> str:
    """kind: 'papers' or 'exclusions'."""
    if kind == "papers":
        return papers_csv(corpus.entries, corpus.taxonomy, extended)
    return exclusions_csv(corpus.exclusions, corpus.taxonomy)


# ---------------------------------------------------------------------------------------------
# Import



























"""Reading and writing the survey artifact's CSV layout (papers.csv and excluded.csv).

The headers are the artifact's own, so an existing survey in that layout can move to masrl and
back. Fields the layout does not have (sub-decisions, evidence level, ...) are written as the
placeholder that `masrl validate` rejects until a person fills them in.
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass, field
from pathlib import Path

from pylatexenc.latex2text import LatexNodes2Text

from masrl.model import identifiers as ids
from masrl.model import yamlio
from masrl.model.records import (
    ENTRY_SCHEMA_LINE,
    EXCLUSION_SCHEMA_LINE,
    PLACEHOLDER,
    Corpus,
    Entry,
    Exclusion,
    Project,
)
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


class CsvLayoutError(Exception):
    """A CSV file that is not in one of the artifact's layouts, or has bad rows."""

    def __init__(self, path: Path, problems: list[str]):
        super().__init__("\n".join(problems))
        self.path = path
        self.problems = problems


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


def _render(header, rows) -> str:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=header, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return buffer.getvalue()


def papers_csv(entries: list[Entry]) -> str:
    return _render(PAPERS_HEADER, [entry_row(e) for e in sorted(entries, key=lambda e: e.key)])


def exclusions_csv(records: list[Exclusion], taxonomy: Taxonomy) -> str:
    return _render(EXCLUSIONS_HEADER, [exclusion_row(r, taxonomy) for r in sorted(records, key=lambda r: r.record_id)])


def export_csv(corpus: Corpus, kind: str) -> str:
    """kind: 'papers' or 'exclusions'."""
    if kind == "papers":
        return papers_csv(corpus.entries)
    return exclusions_csv(corpus.exclusions, corpus.taxonomy)


# ---------------------------------------------------------------------------------------------
# Import


@dataclass
class PlannedFile:
    path: Path
    text: str
    status: str  # create | update | unchanged | exists (kept, no --force)
    changed_fields: list[str] = field(default_factory=list)


@dataclass
class ImportPlan:
    kind: str
    files: list[PlannedFile]

    def count(self, status: str) -> int:
        return sum(1 for f in self.files if f.status == status)


def _split(value: str) -> list[str]:
    value = value.strip()
    if not value or value == NOT_APPLICABLE:
        return []
    return [v.strip() for v in value.split(LIST_SEPARATOR) if v.strip()]


def _optional(value: str) -> str | None:
    value = value.strip()
    return None if not value or value == NOT_APPLICABLE else value


def latex_to_unicode(text: str) -> str:
    """Gr\\'{e}goire -> Grégoire; text without a backslash is returned untouched."""
    return LatexNodes2Text().latex_to_text(text).strip() if "\\" in text else text


def entry_data_from_row(row: dict[str, str]) -> dict:
    """Corpus data for one papers.csv row; fields the layout lacks become placeholders."""
    urls = [u.strip() for u in row["url"].split(";") if u.strip()]
    identifiers = {"arxiv": _optional(row["arxiv_id"]), "doi": None, "openreview": None}
    for url in urls:
        doi = DOI_URL.search(url)
        if doi and not identifiers["doi"]:
            identifiers["doi"] = doi["doi"]
        openreview = ids.OPENREVIEW_URL.search(url)
        if openreview and not identifiers["openreview"]:
            identifiers["openreview"] = openreview["id"]
    credit_units = _split(row["credit_granularity"])
    category = row["category"].strip()
    data = {
        "key": row["key"].strip(),
        "title": row["title"].strip(),
        "authors": [latex_to_unicode(row["first_author"].strip())],
        "authors_complete": False,
        "affiliation": None if row["affiliation"].strip() in ("", UNKNOWN_AFFILIATION) else row["affiliation"].strip(),
        "year": int(row["year"]),
        "venue": row["venue"].strip(),
        "identifiers": identifiers,
        "urls": urls,
        "category": category,
        "is_rl": row["is_rl"].strip(),
        "reward_types": _split(row["reward_type"]),
        "credit_units": credit_units,
        "credit_mechanism": PLACEHOLDER if credit_units else None,
        "topology": _optional(row["orchestration_form"]),
        "sub_decisions": PLACEHOLDER,
        "scenario": _optional(row["scenario"]),
        "survey_role": row["is_core"].strip(),
        "verified": row["verified"].strip(),
        "evidence_level": PLACEHOLDER,
    }
    if category == "benchmark":
        data["evaluation_measures"] = PLACEHOLDER
    data["summary"] = row.get("one_liner", "").strip() or PLACEHOLDER
    data["notes"] = row.get("notes", "").strip()
    return data


def exclusion_data_from_row(row: dict[str, str], taxonomy: Taxonomy) -> dict:
    """Corpus data for one excluded.csv row; labels become taxonomy ids."""
    reason = row["exclusion_reason"].strip()
    code, _, rationale = reason.partition(": ")
    if code not in taxonomy["exclusion_reasons"].by_id:
        code, rationale = PLACEHOLDER, reason
    return {
        "record_id": row["record_id"].strip(),
        "source": _id_for_label(taxonomy, "source_kinds", row["source"].strip()),
        "query_family": _id_for_label(taxonomy, "query_families", row["query_family"].strip()),
        "title": row["screening_label"].strip(),
        "identifier": row["identifier"].strip(),
        "url": row["url"].strip(),
        "date_screened": row["date_screened"].strip(),
        "stage": row["stage"].strip(),
        "reason_code": code,
        "rationale": rationale.strip(),
    }


def _id_for_label(taxonomy: Taxonomy, axis: str, text: str) -> str:
    """Map a label ('company docs') or an id ('company_docs') to the id; unknown text stays as is
    so that `masrl validate` names it with a suggestion."""
    for value in taxonomy[axis].values:
        if text in (value.id, value.label):
            return value.id
    return text


def read_layout(path: Path) -> tuple[str, list[tuple[int, dict[str, str]]]]:
    """Detect the layout from the header; return the kind and (line number, row) pairs."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        raise CsvLayoutError(path, [f"{path}: the file is not UTF-8 text; save it as UTF-8"]) from exc
    reader = csv.DictReader(io.StringIO(text, newline=""))
    header = tuple(reader.fieldnames or ())
    if header in (PAPERS_HEADER, PAPERS_HEADER_WITHOUT_SUMMARY):
        kind = "papers"
    elif header == EXCLUSIONS_HEADER:
        kind = "exclusions"
    else:
        raise CsvLayoutError(
            path,
            [
                f"{path}:1: the header matches neither artifact layout",
                "  papers:     " + ",".join(PAPERS_HEADER) + "  (one_liner may be absent)",
                "  exclusions: " + ",".join(EXCLUSIONS_HEADER),
            ],
        )
    rows = []
    for row in reader:
        line = reader.line_num
        if None in row or any(v is None for v in row.values()):
            raise CsvLayoutError(path, [f"{path}:{line}: the row has a different number of columns than the header"])
        rows.append((line, row))
    return kind, rows


def plan_import(path: Path, project: Project, force: bool = False) -> ImportPlan:
    """Work out every file an import would write, without writing anything."""
    kind, rows = read_layout(path)
    taxonomy = project.taxonomy()
    problems, planned, seen = [], [], {}
    for line, row in rows:
        try:
            if kind == "papers":
                data = entry_data_from_row(row)
                target, header = project.corpus_dir / f"{data['key']}.yaml", ENTRY_SCHEMA_LINE
            else:
                data = exclusion_data_from_row(row, taxonomy)
                target, header = project.exclusions_dir / f"{data['record_id']}.yaml", EXCLUSION_SCHEMA_LINE
        except ValueError as exc:
            problems.append(f"{path}:{line}: {exc}; the year must be a whole number")
            continue
        name = target.stem
        if not name or "/" in name or name.startswith("."):
            problems.append(f"{path}:{line}: the key {name!r} cannot name a file")
            continue
        if name in seen:
            problems.append(f"{path}:{line}: key '{name}' repeats the row on line {seen[name]}")
            continue
        seen[name] = line
        planned.append(_planned_file(target, yamlio.dumps(data, header=header), force))
    if problems:
        raise CsvLayoutError(path, problems)
    return ImportPlan(kind, planned)


def _planned_file(target: Path, text: str, force: bool) -> PlannedFile:
    if not target.exists():
        return PlannedFile(target, text, "create")
    current = target.read_text(encoding="utf-8")
    if current == text:
        return PlannedFile(target, text, "unchanged")
    changed = _changed_fields(current, text)
    return PlannedFile(target, text, "update" if force else "exists", changed)


def _changed_fields(old_text: str, new_text: str) -> list[str]:
    try:
        old, new = yamlio.loads(old_text) or {}, yamlio.loads(new_text) or {}
    except yamlio.YamlError:
        return ["(the existing file is not valid YAML)"]
    if not isinstance(old, dict):
        return ["(the existing file is not a mapping)"]
    return sorted(k for k in {*old, *new} if old.get(k) != new.get(k))


def apply_plan(plan: ImportPlan) -> None:
    for planned in plan.files:
        if planned.status in ("create", "update"):
            yamlio.write_atomic(planned.path, planned.text)

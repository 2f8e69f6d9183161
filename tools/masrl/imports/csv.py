"""CSV import: rows in the survey's CSV layout become corpus and exclusion files, through a plan that is shown before anything is written."""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field
from pathlib import Path

from pylatexenc.latex2text import LatexNodes2Text

from masrl.errors import ProblemsError
from masrl.exports.csv import (
    DOI_URL,
    EXCLUSIONS_HEADER,
    LIST_SEPARATOR,
    NOT_APPLICABLE,
    PAPERS_HEADER,
    PAPERS_HEADER_WITHOUT_SUMMARY,
    UNKNOWN_AFFILIATION,
)
from masrl.model import identifiers as ids
from masrl.model import yamlio
from masrl.model.records import (
    ENTRY_SCHEMA_LINE,
    EXCLUSION_SCHEMA_LINE,
    PLACEHOLDER,
    Project,
)
from masrl.model.taxonomy import Taxonomy


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
    data["added"] = data["round"] = PLACEHOLDER  # the artifact's layout has no provenance columns
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
        "round": PLACEHOLDER,
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


class CsvLayoutError(ProblemsError):
    """A CSV file that is not in one of the artifact's layouts, or has bad rows."""

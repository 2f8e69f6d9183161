"""CSV import: rows in the survey's CSV layout become corpus and exclusion files, through a plan that is shown before anything is written."""

from __future__ import annotations

import csv
import functools
import io
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from pylatexenc.latex2text import LatexNodes2Text, MacroTextSpec, get_default_latex_context_db

from masrl.csvsafe import restore_cell
from masrl.errors import InputError, ProblemsError
from masrl.exports.csv import (
    DOI_URL,
    EXCLUSIONS_HEADER,
    IDENTIFIER_COLUMNS,
    JSON_KINDS,
    LAYOUT_FIELDS,
    LIST_SEPARATOR,
    NOT_APPLICABLE,
    PAPERS_HEADER,
    PAPERS_HEADER_WITHOUT_SUMMARY,
    UNKNOWN_AFFILIATION,
    extra_columns,
)
from masrl.files import read_regular_text, transaction, write_atomic, write_many
from masrl.model import identifiers as ids
from masrl.model import yamlio
from masrl.model.project import Project
from masrl.model.records import ENTRY_SCHEMA_LINE, EXCLUSION_SCHEMA_LINE, PLACEHOLDER, entry_specs
from masrl.model.taxonomy import Taxonomy, load_taxonomy
from masrl.model.venues import normalise_venue


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
    root: Path | None = None  # the checkout: no planned file may be written outside it

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


def parse_year(text: str) -> int:
    """A year written as plain ASCII digits; int() alone would take '2_026', ' ٢٠٢٦' or 4,000 digits."""
    text = text.strip()
    if not re.fullmatch(r"[0-9]{1,4}", text):
        raise ValueError(f"the year {text[:20]!r} must be written as digits, e.g. 2025")
    return int(text)


@functools.cache
def latex_decoder() -> LatexNodes2Text:
    """pylatexenc's decoder, with the text-mode escapes masrl's export writes decoded to the
    ASCII characters they stand for (pylatexenc gives U+02C6 and U+02DC for these two) and
    \\url{...} to the bare address (as bibtexparser's own decoder does)."""
    context = get_default_latex_context_db()
    context.add_context_category(
        "masrl-ascii",
        prepend=True,
        macros=[
            MacroTextSpec("textasciicircum", "^"),
            MacroTextSpec("textasciitilde", "~"),
            MacroTextSpec("url", simplify_repl="%s"),
        ],
    )
    return LatexNodes2Text(latex_context=context)


def latex_to_unicode(text: str) -> str:
    """Gr\\'{e}goire -> Grégoire; text without a backslash is returned untouched."""
    return latex_decoder().latex_to_text(text).strip() if "\\" in text else text


def entry_data_from_row(row: dict[str, str], taxonomy: Taxonomy | None = None) -> dict:
    """Corpus data for one papers.csv row; fields the layout lacks become placeholders."""
    # Links are separated by ' ; ' (or ';' right before the next link): a ';' inside a link stays.
    urls = [u.strip() for u in re.split(r"\s+;\s+|;(?=\s*https?://)", row["url"]) if u.strip()]
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
        "affiliation": None
        if row["affiliation"].strip() in ("", UNKNOWN_AFFILIATION)
        else row["affiliation"].strip(),
        "year": parse_year(row["year"]),
        "venue": normalise_venue(taxonomy or load_taxonomy(), row["venue"].strip()),
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
    if "authors" in row:  # masrl's own export: every field is in the file
        data = _with_extra_columns(data, row, taxonomy or load_taxonomy())
    return data


def _with_extra_columns(data: dict, row: dict[str, str], taxonomy: Taxonomy) -> dict:
    """Fill every field masrl's columns carry, decoded by its kind, and order the fields like the model."""
    for name in IDENTIFIER_COLUMNS:
        if name in row:
            data["identifiers"][name] = _optional(row[name]) or None
    specs = {s.name: s for s in entry_specs(taxonomy)}
    for name, cell in row.items():
        spec = specs.get(name)
        if spec is None or name in LAYOUT_FIELDS or name == "identifiers":
            continue
        value = value_of_cell(spec.kind, cell, name)
        if value is None and not spec.required:
            data.pop(name, None)
        else:
            data[name] = value
    if data.get("authors") == []:
        data["authors"] = PLACEHOLDER
    if not data.get("evaluation_measures") and data["category"] != "benchmark":
        data.pop("evaluation_measures", None)
    return {name: data[name] for name in specs if name in data}


def value_of_cell(kind: str, cell: str, name: str):
    """The inverse of ``exports.csv._cell``; a malformed cell is a ValueError naming the column."""
    text = cell.strip()
    if kind in JSON_KINDS:
        if not text:
            return None
        try:
            return json.loads(text)
        except ValueError as exc:
            raise ValueError(f"the {name} cell is not valid JSON ({exc.msg})") from exc
    if kind == "tags":
        return _split(text)
    if kind == "tag":
        return _optional(text)
    if kind == "bool":
        if text.lower() not in ("true", "false"):
            raise ValueError(f"{name} {text[:20]!r} must be true or false")
        return text.lower() == "true"
    return text or None


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


def read_layout(
    path: Path, taxonomy: Taxonomy | None = None
) -> tuple[str, list[tuple[int, dict[str, str]]]]:
    """Detect the layout from the header; return the kind and (line number, row) pairs."""
    try:
        text = read_regular_text(path, encoding="utf-8-sig")  # no FIFO, device or symlink loop
    except InputError as exc:
        raise CsvLayoutError(path, [str(exc)]) from exc
    reader = csv.DictReader(io.StringIO(text, newline=""))
    header = tuple(reader.fieldnames or ())
    extras = extra_columns(taxonomy or load_taxonomy())
    if header in (PAPERS_HEADER, PAPERS_HEADER_WITHOUT_SUMMARY) or (
        header[: len(PAPERS_HEADER)] == PAPERS_HEADER
        and set(header[len(PAPERS_HEADER) :]) <= set(extras)
    ):
        kind = "papers"
    elif header == EXCLUSIONS_HEADER:
        kind = "exclusions"
    else:
        raise CsvLayoutError(
            path,
            [
                f"{path}:1: the header matches neither artifact layout",
                "  papers:     "
                + ",".join(PAPERS_HEADER)
                + "  (one_liner may be absent; masrl's columns "
                + ",".join(extras)
                + " may follow)",
                "  exclusions: " + ",".join(EXCLUSIONS_HEADER),
            ],
        )
    rows = []
    for row in reader:
        line = reader.line_num
        if None in row or any(v is None for v in row.values()):
            raise CsvLayoutError(
                path, [f"{path}:{line}: the row has a different number of columns than the header"]
            )
        rows.append((line, {name: restore_cell(value) for name, value in row.items()}))
    return kind, rows


def plan_import(path: Path, project: Project, force: bool = False) -> ImportPlan:
    """Work out every file an import would write, without writing anything."""
    kind, rows = read_layout(path, project.taxonomy())
    taxonomy = project.taxonomy()
    problems, planned, seen = [], [], {}
    folder = project.corpus_dir if kind == "papers" else project.exclusions_dir
    present = (
        set(os.listdir(folder)) if folder.is_dir() else set()
    )  # one listing, not a stat per row
    for line, row in rows:
        try:
            if kind == "papers":
                data = entry_data_from_row(row, taxonomy)
                name, header = data["key"], ENTRY_SCHEMA_LINE
            else:
                data = exclusion_data_from_row(row, taxonomy)
                name, header = data["record_id"], EXCLUSION_SCHEMA_LINE
        except ValueError as exc:
            problems.append(f"{path}:{line}: {exc}")
            continue
        # The name becomes a file name: it must match the documented pattern before any path is built.
        problem = ids.check_file_stem(name, "key" if kind == "papers" else "record_id")
        if problem:
            problems.append(f"{path}:{line}: {problem}")
            continue
        target = folder / f"{name}.yaml"
        if name in seen:
            problems.append(f"{path}:{line}: key '{name}' repeats the row on line {seen[name]}")
            continue
        seen[name] = line
        text = yamlio.dumps(data, header=header)
        if f"{name}.yaml" not in present:
            planned.append(PlannedFile(target, text, "create"))
        else:
            planned.append(_planned_file(target, text, force, data, header))
    if problems:
        raise CsvLayoutError(path, problems)
    return ImportPlan(kind, planned, project.root)


def _planned_file(
    target: Path, text: str, force: bool, data: dict | None = None, header: str | None = None
) -> PlannedFile:
    if not target.exists() and not target.is_symlink():
        return PlannedFile(target, text, "create")
    current = read_regular_text(target, root=target.parent)
    if data is not None:  # keep hand-written comments and fields the CSV does not hold
        text = yamlio.update_text(current, data, header=header)
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
    """Write every created or updated file; nothing outside the checkout, nothing but regular files."""
    writes = [
        (planned.path, planned.text)
        for planned in plan.files
        if planned.status in ("create", "update")
    ]
    if plan.root is not None:
        with transaction(plan.root):  # all files or none, even if the process is killed
            write_many(writes, plan.root)
    else:
        for path, text in writes:
            write_atomic(path, text)


class CsvLayoutError(ProblemsError):
    """A CSV file that is not in one of the artifact's layouts, or has bad rows."""

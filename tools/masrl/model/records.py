"""The data model: field specifications, Entry and Exclusion records, and loading a corpus checkout.

A corpus checkout (the "project") has ``corpus/<key>.yaml`` for retained entries,
``exclusions/<record_id>.yaml`` for the screening log and ``taxonomy/`` for the vocabularies.
The field specifications below are the single description of both record kinds: the validator,
the JSON Schemas, the CSV/BibTeX layers and the editor templates are all derived from them.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from masrl.errors import MasrlError
from masrl.model import yamlio
from masrl.model.taxonomy import Taxonomy, load_taxonomy, packaged_taxonomy_dir

# What `masrl add` and the importers write where a person still has to decide; validate rejects it.
PLACEHOLDER = "TODO"

ENTRY_SCHEMA_LINE = "# yaml-language-server: $schema=../taxonomy/schemas/entry.schema.json"
EXCLUSION_SCHEMA_LINE = "# yaml-language-server: $schema=../taxonomy/schemas/exclusion.schema.json"


@dataclass(frozen=True)
class FieldSpec:
    """One field of a record.

    kind is one of: key, record_id, text (one line of prose), str, int, bool, date, tag (one
    taxonomy value), tags (a list of taxonomy values), authors, identifiers, urls, url,
    record_identifier, version.
    """

    name: str
    kind: str
    description: str
    required: bool = True
    axis: str | None = None
    nullable: bool = False


ENTRY_FIELDS: tuple[FieldSpec, ...] = (
    FieldSpec("key", "key", "Unique key; the file is corpus/<key>.yaml. Lower case, digits and dashes."),
    FieldSpec("title", "text", "Title as published."),
    FieldSpec("authors", "authors", "Authors in order, first author first, as 'Surname, Given' or an organisation name."),
    FieldSpec("authors_complete", "bool", "false when the author list is cut short (BibTeX 'and others')."),
    FieldSpec("affiliation", "str", "Affiliation of the first author or team; null when unknown.", nullable=True),
    FieldSpec("year", "int", "Year of the version the survey cites."),
    FieldSpec("venue", "str", "Venue as cited, e.g. 'NeurIPS 2025', 'arXiv', 'Tech Blog'."),
    FieldSpec("identifiers", "identifiers", "Persistent identifiers: arxiv, doi, openreview (null where none)."),
    FieldSpec("urls", "urls", "Links to the work, primary link first."),
    FieldSpec("category", "tag", "What kind of work this is.", axis="categories"),
    FieldSpec("is_rl", "tag", "Whether agents are trained with reinforcement learning.", axis="is_rl"),
    FieldSpec("reward_types", "tags", "Reward types used; [] when not applicable.", axis="reward_types"),
    FieldSpec("credit_units", "tags", "Credit-bearing units; [] when not applicable.", axis="credit_units"),
    FieldSpec(
        "credit_mechanism",
        "tag",
        "explicit when the credit tag is a dedicated credit mechanism, broad for a reward or design signal; null without credit units.",
        axis="credit_mechanisms",
        nullable=True,
    ),
    FieldSpec("topology", "tag", "Team topology; null when not applicable.", axis="topologies", nullable=True),
    FieldSpec("sub_decisions", "tags", "Orchestration sub-decisions (O1-O5) the work learns or addresses.", axis="sub_decisions"),
    FieldSpec("scenario", "tag", "Application scenario; null when not applicable.", axis="scenarios", nullable=True),
    FieldSpec("survey_role", "tag", "Weight of the entry as evidence in the survey.", axis="survey_roles"),
    FieldSpec("verified", "tag", "Whether the metadata was checked against the primary source.", axis="verified"),
    FieldSpec("evidence_level", "tag", "Kind of publication backing the entry.", axis="evidence_levels"),
    FieldSpec(
        "evaluation_measures",
        "tags",
        "What a benchmark measures; [] for other categories.",
        axis="evaluation_measures",
        required=False,
    ),
    FieldSpec("summary", "text", "One sentence, in our own words, on what the work does."),
    FieldSpec("notes", "str", "Curator notes in our own words; may be empty.", required=False, nullable=True),
    FieldSpec("latest_version", "version", "Latest arXiv version seen, e.g. v3.", required=False, nullable=True),
    FieldSpec("primary_category", "str", "arXiv primary category, e.g. cs.LG.", required=False, nullable=True),
    FieldSpec("journal_ref", "str", "Journal reference reported by arXiv.", required=False, nullable=True),
    FieldSpec("added", "date", "Date the entry entered the corpus, YYYY-MM-DD."),
    FieldSpec("round", "str", "Screening round that brought the entry (an id from screening/rounds.yaml)."),
    FieldSpec("screened_by", "str", "Who screened it (free text).", required=False, nullable=True),
)

EXCLUSION_FIELDS: tuple[FieldSpec, ...] = (
    FieldSpec("record_id", "record_id", "Record id, E followed by digits; the file is exclusions/<record_id>.yaml."),
    FieldSpec("source", "tag", "Where the record was found.", axis="source_kinds"),
    FieldSpec("query_family", "tag", "The query family that surfaced it.", axis="query_families"),
    FieldSpec("title", "text", "Title or label of the screened record."),
    FieldSpec("identifier", "record_identifier", "Prefixed identifier (arXiv:..., OpenReview:..., ACL:..., github:...) or a local id."),
    FieldSpec("url", "url", "Link to the record."),
    FieldSpec("date_screened", "date", "Date of the screening decision, YYYY-MM-DD."),
    FieldSpec("stage", "tag", "Screening stage at which it was excluded.", axis="screening_stages"),
    FieldSpec("reason_code", "tag", "Why it was excluded.", axis="exclusion_reasons"),
    FieldSpec("rationale", "text", "One or two sentences, in our own words, on why it is out."),
    FieldSpec("round", "str", "Screening round of the decision (an id from screening/rounds.yaml)."),
    FieldSpec("screened_by", "str", "Who screened it (free text).", required=False, nullable=True),
)

IDENTIFIER_KINDS = ("arxiv", "doi", "openreview")


@dataclass(frozen=True)
class Entry:
    """A retained corpus entry, as validated."""

    key: str
    title: str
    authors: tuple[str, ...]
    authors_complete: bool
    affiliation: str | None
    year: int
    venue: str
    identifiers: dict
    urls: tuple[str, ...]
    category: str
    is_rl: str
    reward_types: tuple[str, ...]
    credit_units: tuple[str, ...]
    credit_mechanism: str | None
    topology: str | None
    sub_decisions: tuple[str, ...]
    scenario: str | None
    survey_role: str
    verified: str
    evidence_level: str
    evaluation_measures: tuple[str, ...]
    summary: str
    notes: str | None
    latest_version: str | None = None
    primary_category: str | None = None
    journal_ref: str | None = None
    added: str | None = None
    round: str | None = None
    screened_by: str | None = None
    path: Path | None = field(default=None, compare=False)

    @property
    def first_author(self) -> str:
        return self.authors[0] if self.authors else ""

    @property
    def arxiv_id(self) -> str | None:
        return self.identifiers.get("arxiv")

    def to_data(self) -> dict[str, Any]:
        """Plain data in field order, as written to corpus/<key>.yaml."""
        data = {}
        for spec in ENTRY_FIELDS:
            value = getattr(self, spec.name)
            if not spec.required and value in (None, (), ""):
                continue
            data[spec.name] = _plain(value)
        return data


@dataclass(frozen=True)
class Exclusion:
    """A screened-but-excluded record, as validated."""

    record_id: str
    source: str
    query_family: str
    title: str
    identifier: str
    url: str
    date_screened: str
    stage: str
    reason_code: str
    rationale: str
    round: str | None = None
    screened_by: str | None = None
    path: Path | None = field(default=None, compare=False)

    def to_data(self) -> dict[str, Any]:
        return {spec.name: _plain(getattr(self, spec.name)) for spec in EXCLUSION_FIELDS
                if spec.required or getattr(self, spec.name) is not None}


def _plain(value: Any) -> Any:
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


def _as_tuple(value: Any) -> tuple:
    return tuple(value) if isinstance(value, list) else ()


def entry_from_data(data: dict, path: Path | None = None) -> Entry:
    """Build an Entry from loaded YAML that has passed validation."""
    identifiers = data.get("identifiers") or {}
    values = {}
    for spec in ENTRY_FIELDS:
        value = data.get(spec.name)
        if spec.kind in ("tags", "authors", "urls"):
            value = _as_tuple(value)
        values[spec.name] = value
    values["identifiers"] = {k: identifiers.get(k) for k in IDENTIFIER_KINDS}
    return Entry(**values, path=path)


def exclusion_from_data(data: dict, path: Path | None = None) -> Exclusion:
    return Exclusion(**{spec.name: data.get(spec.name) for spec in EXCLUSION_FIELDS}, path=path)


# ---------------------------------------------------------------------------------------------
# The project: where a corpus checkout lives.


@dataclass(frozen=True)
class Project:
    root: Path

    def __post_init__(self):
        object.__setattr__(self, "root", Path(self.root))

    @property
    def corpus_dir(self) -> Path:
        return self.root / "corpus"

    @property
    def exclusions_dir(self) -> Path:
        return self.root / "exclusions"

    @property
    def taxonomy_dir(self) -> Path:
        local = self.root / "taxonomy"
        return local if (local / "categories.yaml").exists() else packaged_taxonomy_dir()

    def taxonomy(self) -> Taxonomy:
        return load_taxonomy(self.taxonomy_dir)

    def entry_paths(self) -> list[Path]:
        return sorted(self.corpus_dir.glob("*.yaml")) if self.corpus_dir.is_dir() else []

    def exclusion_paths(self) -> list[Path]:
        return sorted(self.exclusions_dir.glob("*.yaml")) if self.exclusions_dir.is_dir() else []

    def relative(self, path: Path) -> str:
        try:
            return path.resolve().relative_to(self.root.resolve()).as_posix()
        except ValueError:
            return str(path)


def find_project(start: Path | None = None) -> Project:
    """The nearest folder at or above ``start`` holding corpus/ or taxonomy/ (MASRL_ROOT wins)."""
    if os.environ.get("MASRL_ROOT"):
        return Project(Path(os.environ["MASRL_ROOT"]).resolve())
    start = (start or Path.cwd()).resolve()
    for folder in (start, *start.parents):
        if (folder / "corpus").is_dir() or (folder / "taxonomy" / "categories.yaml").is_file():
            return Project(folder)
    return Project(start)


@dataclass
class RawRecord:
    """A data file as read from disk: parsed data, or the YAML error that stopped it."""

    path: Path
    data: Any = None
    error: yamlio.YamlError | None = None

    def line_of(self, *keys: str | int) -> int:
        """Line of a nested key path, falling back to the nearest enclosing line."""
        node = self.data
        line = getattr(node, "line", 1)
        for key in keys:
            if isinstance(node, yamlio.LineDict) and isinstance(key, str) and key in node:
                line, node = node.line_of(key), node[key]
            elif isinstance(node, yamlio.LineList) and isinstance(key, int) and key < len(node):
                line, node = node.line_of(key), node[key]
            else:
                break
        return line


def read_records(paths: list[Path]) -> list[RawRecord]:
    records = []
    for path in paths:
        try:
            records.append(RawRecord(path, yamlio.load_file(path)))
        except yamlio.YamlError as exc:
            records.append(RawRecord(path, None, exc))
        except OSError as exc:
            records.append(RawRecord(path, None, yamlio.YamlError(f"cannot read the file: {exc.strerror}")))
    return records


@dataclass
class Corpus:
    project: Project
    taxonomy: Taxonomy
    entries: list[Entry]
    exclusions: list[Exclusion]

    @property
    def audited(self) -> int:
        return len(self.entries) + len(self.exclusions)


class CorpusInvalid(MasrlError):
    """The corpus has validation errors; carries the validation report."""

    def __init__(self, report):
        super().__init__(f"the corpus has {len(report.errors)} validation error(s)", hint="run `masrl validate`")
        self.report = report


def load_corpus(project: Project | None = None, allow_placeholders: bool = False) -> Corpus:
    """Load and validate everything; raise CorpusInvalid when any error is found."""
    from masrl.check.validate import validate_project  # validate builds on this module

    project = project or find_project()
    report = validate_project(project, allow_placeholders=allow_placeholders)
    if report.errors:
        raise CorpusInvalid(report)
    return report.corpus

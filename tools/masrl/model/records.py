"""The one definition of a record: corpus entries and exclusion records as pydantic models.

A record has two kinds of fields. *Core* fields (key, title, authors, summary, ...) are declared
once below, each with its validation kind, its place in the file and its description. *Tag*
fields come from the axis registry in ``taxonomy/``: every axis file that declares a ``field``
adds one to the records it names. ``entry_model(taxonomy)`` and ``exclusion_model(taxonomy)``
assemble both into a frozen pydantic model, from which the JSON Schemas are generated
(``model/schemas.py``), the validator takes its field list (``record_specs``) and the writers
take their field order. Adding an axis therefore needs no code here.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError, create_model
from pydantic.fields import FieldInfo

from masrl.model.identifiers import KEY_PATTERN, RECORD_ID_PATTERN  # noqa: F401  (part of the model's vocabulary)
from masrl.model.taxonomy import Axis, Taxonomy, load_taxonomy

# What `masrl add` and the importers write where a person still has to decide; validate rejects it.
PLACEHOLDER = "TODO"

ENTRY_SCHEMA_LINE = "# yaml-language-server: $schema=../taxonomy/schemas/entry.schema.json"
EXCLUSION_SCHEMA_LINE = "# yaml-language-server: $schema=../taxonomy/schemas/exclusion.schema.json"

DATE_PATTERN = re.compile(r"^\d{4}-\d{2}-\d{2}$")
VERSION_PATTERN = re.compile(r"^v\d+$")
EARLIEST_YEAR = 1900
IDENTIFIER_KINDS = ("arxiv", "doi", "openreview")
# Where a tag field goes when its axis file gives no position: after the other tags.
DEFAULT_TAG_POSITION = 29


@dataclass(frozen=True)
class Kind:
    """How the validator checks a core field and where the field sits in a record file.

    kind is one of: key, record_id, text (one line of prose), str, int, bool, date, authors,
    identifiers, urls, url, links ({url, source} items), record_identifier, version, venue (a label of taxonomy/venues.yaml);
    tag fields use tag/tags.
    """

    kind: str
    position: int
    max_length: int | None = None  # characters of the value, or of each item of a list or mapping


@dataclass(frozen=True)
class FieldSpec:
    """One field of a record as the validator, the writers and the docs see it."""

    name: str
    kind: str
    description: str
    required: bool = True
    axis: str | None = None
    nullable: bool = False
    position: int = 0
    max_length: int | None = None


# Links to a work's artifacts, in the order a reader looks for them; each field of an entry holds a
# list of {url, source}. The site, the exports and `masrl links check` read this one list.
ARTIFACT_LINKS = {
    "code": "Code repositories",
    "project_page": "Project pages",
    "data": "Data sets the work releases",
    "weights": "Released model weights",
}
LINK_KEYS = ("url", "source")


def _core(
    kind: str,
    position: int,
    description: str,
    annotation: Any = str,
    *,
    default: Any = ...,
    max_length: int | None = None,
):
    return Annotated[annotation, Kind(kind, position, max_length)], Field(
        default, description=description
    )


# The longest value a free-text field takes, in characters (of each item for lists and
# mappings): bounds what validate, the site and the exports process, and goes into the JSON
# Schemas as maxLength. The real corpus's longest: title 140, summary 327, notes 703.
MAX_LENGTH = {
    "title": 500,
    "summary": 2_000,
    "rationale": 2_000,
    "notes": 5_000,
    "sub_decision_evidence": 1_000,
    "affiliation": 300,
    "authors": 300,
    "venue": 200,
    "journal_ref": 500,
    "screened_by": 200,
    "round": 100,
    "primary_category": 50,
}


def _formerly(position: int):
    """The names a record was read under before it moved (one definition for both records)."""
    return _core(
        "formerly",
        position,
        "Earlier names of this record in the screening files: the key or id it had when it "
        "was read, before it moved between entries and exclusions. Its readings and decisions "
        "there count as its own; left out when it never moved.",
        tuple[str, ...],
        default=(),
    )


ENTRY_CORE = {
    "key": _core(
        "key", 1, "Unique key; the file is corpus/<key>.yaml. Lower case, digits and dashes."
    ),
    "title": _core("text", 2, "Title as published.", max_length=MAX_LENGTH["title"]),
    "authors": _core(
        "authors",
        3,
        "Authors in order, first author first, as 'Surname, Given' or an organisation name.",
        tuple[str, ...],
        max_length=MAX_LENGTH["authors"],
    ),
    "authors_complete": _core(
        "bool", 4, "false when the author list is cut short (BibTeX 'and others').", bool
    ),
    "affiliation": _core(
        "str",
        5,
        "Affiliation of the first author or team; null when unknown.",
        str | None,
        max_length=MAX_LENGTH["affiliation"],
    ),
    "year": _core("int", 6, "Year of the version the survey cites.", int),
    "venue": _core(
        "venue",
        7,
        "Venue as cited: a label of taxonomy/venues.yaml, optionally with the venue's year, "
        "e.g. 'NeurIPS 2025', 'arXiv', 'Blog'.",
        max_length=MAX_LENGTH["venue"],
    ),
    "identifiers": _core(
        "identifiers",
        8,
        "Persistent identifiers: arxiv, doi, openreview (null where none).",
        dict[str, str | None],
    ),
    "urls": _core("urls", 9, "Links to the work, primary link first.", tuple[str, ...]),
    **{
        name: _core(
            "links",
            9,
            f"{what}, each as {{url, source}}: the link and the URL of the stored page that "
            "names it (arXiv abstract, HTML full text, project page, Papers with Code page); "
            "left out when none.",
            tuple[dict[str, str], ...],
            default=(),
        )
        for name, what in ARTIFACT_LINKS.items()
    },
    "sub_decision_evidence": _core(
        "evidence",
        25,
        "For each sub-decision tag, one line in our own words: which part of the method learns or fixes it.",
        dict[str, str] | None,
        default=None,
        max_length=MAX_LENGTH["sub_decision_evidence"],
    ),
    "summary": _core(
        "text",
        30,
        "One sentence, in our own words, on what the work does.",
        max_length=MAX_LENGTH["summary"],
    ),
    "notes": _core(
        "str",
        31,
        "Curator notes in our own words; may be empty.",
        str | None,
        default=None,
        max_length=MAX_LENGTH["notes"],
    ),
    "latest_version": _core(
        "version", 32, "Latest arXiv version seen, e.g. v3.", str | None, default=None
    ),
    "primary_category": _core(
        "str",
        33,
        "arXiv primary category, e.g. cs.LG.",
        str | None,
        default=None,
        max_length=MAX_LENGTH["primary_category"],
    ),
    "journal_ref": _core(
        "str",
        34,
        "Journal reference reported by arXiv.",
        str | None,
        default=None,
        max_length=MAX_LENGTH["journal_ref"],
    ),
    "added": _core("date", 35, "Date the entry entered the corpus, YYYY-MM-DD."),
    "round": _core(
        "str",
        36,
        "Screening round that brought the entry (an id from screening/rounds.yaml).",
        max_length=MAX_LENGTH["round"],
    ),
    "screened_by": _core(
        "str",
        37,
        "Who screened it (free text).",
        str | None,
        default=None,
        max_length=MAX_LENGTH["screened_by"],
    ),
    "formerly": _formerly(38),
    "corrections": _core(
        "corrections",
        40,
        "Tags corrected after publication: field, the published value and the reason; the frozen snapshot keeps the published one.",
        tuple[dict[str, Any], ...],
        default=(),
    ),
}

EXCLUSION_CORE = {
    "record_id": _core(
        "record_id", 1, "Record id, E followed by digits; the file is exclusions/<record_id>.yaml."
    ),
    "title": _core(
        "text", 4, "Title or label of the screened record.", max_length=MAX_LENGTH["title"]
    ),
    "identifier": _core(
        "record_identifier",
        5,
        "Prefixed identifier (arXiv:..., OpenReview:..., ACL:..., github:...) or a local id.",
    ),
    "url": _core("url", 6, "Link to the record."),
    "date_screened": _core("date", 7, "Date of the screening decision, YYYY-MM-DD."),
    "rationale": _core(
        "text",
        10,
        "One or two sentences, in our own words, on why it is out.",
        max_length=MAX_LENGTH["rationale"],
    ),
    "round": _core(
        "str",
        11,
        "Screening round of the decision (an id from screening/rounds.yaml).",
        max_length=MAX_LENGTH["round"],
    ),
    "screened_by": _core(
        "str",
        12,
        "Who screened it (free text).",
        str | None,
        default=None,
        max_length=MAX_LENGTH["screened_by"],
    ),
    "formerly": _formerly(13),
}

# Fields that may be left out of a file although the model gives them a default.
_NULLABLE_CORE = {
    "affiliation",
    "notes",
    "latest_version",
    "primary_category",
    "journal_ref",
    "sub_decision_evidence",
    "screened_by",
}
# The tag field an evidence mapping documents.
EVIDENCE_OF = {"sub_decision_evidence": "sub_decisions"}


class Record(BaseModel):
    """What every record shares: immutable, no unknown fields, the file it came from."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    record_kind: ClassVar[str] = ""
    _path: Path | None = PrivateAttr(default=None)

    @property
    def path(self) -> Path | None:
        return self._path

    def to_data(self) -> dict[str, Any]:
        """Plain data in field order, as written to the record's YAML file."""
        data = {}
        values = self.__dict__  # where pydantic keeps the fields' values
        for name, required in _data_fields(type(self)):
            value = values[name]
            if not required and value in (None, (), ""):
                continue
            data[name] = _plain(value) if isinstance(value, tuple | list | dict) else value
        return data


class Entry(Record):
    """A retained corpus entry; its tag fields are added per taxonomy by ``entry_model``."""

    record_kind: ClassVar[str] = "entry"

    @property
    def first_author(self) -> str:
        return self.authors[0] if self.authors else ""

    @property
    def arxiv_id(self) -> str | None:
        return self.identifiers.get("arxiv")


class Exclusion(Record):
    """A screened-but-excluded record; its tag fields come from ``exclusion_model``."""

    record_kind: ClassVar[str] = "exclusion"


@functools.cache
def _data_fields(model: type[Record]) -> tuple[tuple[str, bool], ...]:
    """Each field's name and whether it is required, in order (to_data runs for every record,
    several times per build)."""
    return tuple((name, info.is_required()) for name, info in model.model_fields.items())


def _plain(value: Any) -> Any:
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


def _tag_field(axis: Axis) -> tuple[Any, FieldInfo]:
    declared = axis.record_field
    values = Literal[axis.ids] if axis.ids else str  # type: ignore[valid-type]
    position = declared.position if declared.position != 99 else DEFAULT_TAG_POSITION
    kind = Kind("tags" if declared.many else "tag", position)
    if declared.many:
        annotation, default = tuple[values, ...], (... if declared.required else ())
    else:
        annotation = values | None if declared.nullable else values
        default = ... if declared.required else None
    return Annotated[annotation, kind, axis.name], Field(default, description=declared.description)


def _build(base: type[Record], core: dict, taxonomy: Taxonomy) -> type[Record]:
    fields = dict(core)
    for axis in taxonomy.record_axes(base.record_kind):
        fields[axis.record_field.name] = _tag_field(axis)
    ordered = dict(sorted(fields.items(), key=lambda item: _kind_of(item[1][0]).position))
    return create_model(base.__name__, __base__=base, __module__=__name__, **ordered)


def _kind_of(annotation: Any) -> Kind:
    return next(m for m in annotation.__metadata__ if isinstance(m, Kind))


def _models(taxonomy: Taxonomy) -> tuple[type[Entry], type[Exclusion]]:
    return taxonomy.derived(
        "record models",
        lambda t: (_build(Entry, ENTRY_CORE, t), _build(Exclusion, EXCLUSION_CORE, t)),
    )


def entry_model(taxonomy: Taxonomy) -> type[Entry]:
    return _models(taxonomy)[0]


def exclusion_model(taxonomy: Taxonomy) -> type[Exclusion]:
    return _models(taxonomy)[1]


@functools.cache
def record_specs(model: type[Record]) -> tuple[FieldSpec, ...]:
    """The model's fields as the validator and writers read them, in file order (once per model)."""
    specs = []
    for name, info in model.model_fields.items():
        kind = next(m for m in info.metadata if isinstance(m, Kind))
        axis = next((m for m in info.metadata if isinstance(m, str)), None)
        nullable = name in _NULLABLE_CORE or (
            axis is not None and kind.kind == "tag" and _allows_none(info)
        )
        required = info.is_required()
        specs.append(
            FieldSpec(
                name,
                kind.kind,
                info.description or "",
                required,
                axis,
                nullable,
                kind.position,
                kind.max_length,
            )
        )
    return tuple(specs)


def _allows_none(info: FieldInfo) -> bool:
    return type(None) in getattr(info.annotation, "__args__", ())


def entry_specs(taxonomy: Taxonomy) -> tuple[FieldSpec, ...]:
    return record_specs(entry_model(taxonomy))


def exclusion_specs(taxonomy: Taxonomy) -> tuple[FieldSpec, ...]:
    return record_specs(exclusion_model(taxonomy))


def _with_path(record: Record, path: Path | None) -> Record:
    record._path = path
    # pydantic keeps a set of the names given for each record, the largest part of a record once
    # built (a corpus of 5,000 entries held 11 MB of them). Records given the same fields share
    # one set: a record is frozen, so pydantic never adds to it (a copy gets its own).
    names = record.__pydantic_fields_set__
    object.__setattr__(
        record, "__pydantic_fields_set__", _FIELDS_GIVEN.setdefault(frozenset(names), names)
    )
    return record


_FIELDS_GIVEN: dict[frozenset[str], set[str]] = {}


def _instance(model: type[Record], values: dict, path: Path | None) -> Record:
    try:
        record = model.model_validate(values)
    except ValidationError:
        if not _holds_placeholder(values):
            raise
        # Work in progress (validate --allow-placeholders): the checker has reported every TODO
        # already, so the record is built as it stands, lists as tuples like a validated one.
        record = model.model_construct(
            **{k: tuple(v) if isinstance(v, list) else v for k, v in values.items()}
        )
    return _with_path(record, path)


def _holds_placeholder(values: dict) -> bool:
    return any(
        v == PLACEHOLDER or (isinstance(v, list) and PLACEHOLDER in v) for v in values.values()
    )


def entry_from_data(
    data: dict, path: Path | None = None, taxonomy: Taxonomy | None = None
) -> Entry:
    """Build an Entry from loaded YAML that has passed validation."""
    model = entry_model(taxonomy or load_taxonomy())
    identifiers = data.get("identifiers") or {}
    values = {name: data[name] for name in model.model_fields if name in data}
    values["identifiers"] = {k: identifiers.get(k) for k in IDENTIFIER_KINDS}
    return _instance(model, values, path)


def exclusion_from_data(
    data: dict, path: Path | None = None, taxonomy: Taxonomy | None = None
) -> Exclusion:
    model = exclusion_model(taxonomy or load_taxonomy())
    values = {name: data[name] for name in model.model_fields if name in data}
    return _instance(model, values, path)

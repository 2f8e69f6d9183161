"""`masrl add`: scaffold a corpus entry (or an exclusion record) from arXiv metadata.

The facts come from arXiv (title, every author, year of the first version, latest version, DOI,
journal reference, primary category); every judgement (the tags, the summary) is left as the
placeholder that `masrl validate` rejects until a person fills it in. The abstract is printed for
the person tagging but never stored: it is the authors' text, not ours.

The scaffolding helpers here (keys, duplicate lookup, the entry skeleton) are shared with the
BibTeX importer.
"""

from __future__ import annotations

import datetime as dt
import re
import unicodedata
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from masrl import files
from masrl.errors import InputError
from masrl.files import transaction, write_atomic
from masrl.model import identifiers as ids
from masrl.model import yamlio
from masrl.model.identifiers import RECORD_ID_PATTERN
from masrl.model.project import Project, read_records
from masrl.model.records import (
    ENTRY_SCHEMA_LINE,
    EXCLUSION_SCHEMA_LINE,
    IDENTIFIER_KINDS,
    PLACEHOLDER,
    entry_specs,
)
from masrl.model.taxonomy import Taxonomy, load_taxonomy
from masrl.model.title_index import TitleIndex

if TYPE_CHECKING:  # the arXiv client (requests, lxml) is imported only when a paper is fetched
    from masrl.imports.arxiv import ArxivSettings, PaperMetadata


class AddRefused(InputError):
    """The request cannot be carried out (bad identifier, duplicate, unknown tag value)."""


# ---------------------------------------------------------------------------------------------
# Records already in the project, for duplicate detection


@dataclass(frozen=True)
class KnownRecord:
    rel: str  # path relative to the project root
    name: str  # file stem: the key or record id
    identities: frozenset[str]  # e.g. {"arxiv:2508.04652", "doi:10.1/x"}
    title_key: str  # identifiers.normalize_title of the title


def known_records(project: Project) -> list[KnownRecord]:
    """Every entry and exclusion record that parses as a mapping (invalid ones included)."""
    records = []
    for raw in read_records(project.entry_paths() + project.exclusion_paths()):
        data = raw.data if isinstance(raw.data, dict) else {}
        urls = data.get("urls") if isinstance(data.get("urls"), list) else [data.get("url")]
        identifiers = data.get("identifiers") if isinstance(data.get("identifiers"), dict) else None
        record_identifier = (
            data.get("identifier") if isinstance(data.get("identifier"), str) else None
        )
        title = data.get("title") if isinstance(data.get("title"), str) else ""
        records.append(
            KnownRecord(
                project.relative(raw.path),
                raw.path.stem,
                frozenset(ids.normalized_keys(identifiers, record_identifier, urls)),
                ids.normalize_title(title),
            )
        )
    return records


class DuplicateFinder:
    """Records indexed by identity and title, so a lookup costs the same however many there are
    (an import of 100,000 entries asks once per entry)."""

    def __init__(self, records: list[KnownRecord] = ()):
        self._order: dict[int, int] = {}  # id(record) -> position, the old search order
        self._by_identity: dict[str, list[KnownRecord]] = defaultdict(list)
        self._titles: TitleIndex[KnownRecord] = TitleIndex()
        for record in records:
            self.add(record)

    def add(self, record: KnownRecord) -> None:
        self._order[id(record)] = len(self._order)
        for identity in record.identities:
            self._by_identity[identity].append(record)
        self._titles.add(record.title_key, record)

    def find(self, identities: set[str], title: str, skip: str | None = None) -> str | None:
        """'corpus/x.yaml (arxiv:...)' for the first record holding the same paper, or None.

        skip: a relative path to ignore (the file a re-import would overwrite).
        """
        return self.find_normalized(identities, ids.normalize_title(title) if title else "", skip)

    def find_normalized(
        self, identities: set[str], title_key: str, skip: str | None = None
    ) -> str | None:
        """find, for a title already passed through identifiers.normalize_title."""

        def first(records) -> KnownRecord | None:
            kept = [r for r in records if r.rel != skip]
            return min(kept, key=lambda r: self._order[id(r)]) if kept else None

        holder = first(r for i in identities for r in self._by_identity.get(i, ()))
        if holder:
            shared = sorted(identities & holder.identities)
            return f"{holder.rel} (same identifier {shared[0]})"
        if not title_key:
            return None
        holder = first(
            r
            for same in (title_key, *self._titles.near(title_key))
            for r in self._titles.exact(same)
        )
        return f"{holder.rel} (near-identical title)" if holder else None


def find_duplicate(
    records: list[KnownRecord], identities: set[str], title: str, skip: str | None = None
) -> str | None:
    """'corpus/x.yaml (arxiv:...)' for the first record holding the same paper, or None."""
    return DuplicateFinder(records).find(identities, title, skip)


# ---------------------------------------------------------------------------------------------
# Keys


def ascii_slug(text: str) -> str:
    """'Balunović' -> 'balunovic'; 'Dr. MAS' -> 'dr-mas'."""
    folded = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii").lower()
    return re.sub(r"[^a-z0-9]+", "-", folded).strip("-")


_ACRONYM_PREFIX = re.compile(r"^\s*(?P<name>[^:]{2,30}?)\s*:\s+\S")


def title_acronym(title: str) -> str | None:
    """The system name a title leads with ('MAGRPO: ...' -> 'MAGRPO'), when it looks like one.

    A name is at most three words with at least two capitals or a digit, so 'Agents: a study'
    does not count but 'MAGRPO', 'Dr. MAS' and 'ReAct' do.
    """
    match = _ACRONYM_PREFIX.match(title)
    if not match:
        return None
    name = match["name"]
    if len(name.split()) > 3:
        return None
    capitals = sum(1 for c in name if c.isupper())
    return name if capitals >= 2 or any(c.isdigit() for c in name) else None


def surname_of(author: str) -> str:
    return author.split(",", 1)[0].strip()


def key_stem(title: str, authors: list[str] | tuple[str, ...]) -> str:
    for candidate in (title_acronym(title), surname_of(authors[0]) if authors else None, title):
        slug = ascii_slug(candidate or "")
        if slug:
            return slug[:40].strip("-")
    return "paper"


def generate_key(title: str, authors, year: int | str | None, taken: set[str]) -> str:
    """Readable unique key: 'magrpo2025' or 'liu2025', then 'liu2025-b', 'liu2025-c', ..."""
    stem = key_stem(title, authors)
    year_part = (
        str(year) if isinstance(year, int) or (isinstance(year, str) and year.isdigit()) else ""
    )
    base = f"{stem}-{year_part}" if stem[-1].isdigit() and year_part else f"{stem}{year_part}"
    if base not in taken:
        return base
    for letter in "bcdefghijklmnopqrstuvwxyz":
        if f"{base}-{letter}" not in taken:
            return f"{base}-{letter}"
    number = 2
    while f"{base}-{number}" in taken:
        number += 1
    return f"{base}-{number}"


# Files that name records by key or id: a new record never takes a name one of them uses, or it
# would inherit another paper's readings, decisions or citations.
NAMING_FILES = ("screening/decisions/*.yaml", "screening/tags/*.yaml", "citations/graph.yaml")


def named_elsewhere(project: Project) -> set[str]:
    """Every record name (key or id) the screening files and the citation graph use, moved and
    renamed records' old names included. Found by a scan of the text, not a YAML parse: a round's
    tags file runs to tens of thousands of lines, and a name is one plain token after
    ``record:``, ``from:`` or ``to:`` in any of them."""
    names: set[str] = set()
    for pattern in NAMING_FILES:
        for path in sorted(project.root.glob(pattern)):
            try:
                text = files.read_regular_text(path, project.root)
            except (OSError, InputError):
                continue  # its own check reports it
            names.update(_NAMED.findall(text))
    return names


_NAMED = re.compile(
    r"""(?:^|[\s{,])(?:record|from|to):[ \t]*['"]?([A-Za-z0-9][A-Za-z0-9._-]*)""", re.M
)


def taken_keys(project: Project) -> set[str]:
    return {p.stem for p in project.entry_paths()} | named_elsewhere(project)


def next_record_id(project: Project) -> str:
    used = {p.stem for p in project.exclusion_paths()} | named_elsewhere(project)
    numbers = [int(name[1:]) for name in used if RECORD_ID_PATTERN.match(name)]
    return f"E{max(numbers, default=0) + 1:03d}"


# ---------------------------------------------------------------------------------------------
# Skeletons


def judgement_fields(taxonomy: Taxonomy) -> tuple[str, ...]:
    """Fields a person fills in (every tag, and the summary); everything else is a bibliographic fact."""
    return tuple(s.name for s in entry_specs(taxonomy) if s.axis or s.kind == "evidence") + (
        "summary",
    )


def entry_skeleton(
    key: str,
    title: str,
    authors: list[str],
    authors_complete: bool,
    year: int | str,
    venue: str,
    identifiers: dict,
    urls: list[str],
    affiliation: str | None = PLACEHOLDER,
    extra: dict | None = None,
    taxonomy: Taxonomy | None = None,
) -> dict:
    """A corpus entry in field order: facts filled in, every judgement a placeholder."""
    facts = {
        "key": key,
        "title": title,
        "authors": list(authors) or PLACEHOLDER,
        "authors_complete": authors_complete,
        "affiliation": affiliation,
        "year": year,
        "venue": venue,
        "identifiers": {kind: identifiers.get(kind) for kind in IDENTIFIER_KINDS},
        "urls": list(urls) or PLACEHOLDER,
        "notes": "",
        # Provenance: whoever screens the record fills these in (or passes them in extra).
        "added": PLACEHOLDER,
        "round": PLACEHOLDER,
        **(extra or {}),
    }
    taxonomy = taxonomy or load_taxonomy()
    data = {}
    for name, judgement, required in _skeleton_layout(taxonomy):
        if judgement:
            data[name] = PLACEHOLDER
        elif name in facts and (required or facts[name] is not None):
            data[name] = facts[name]
    return data


def _skeleton_layout(taxonomy: Taxonomy) -> tuple[tuple[str, bool, bool], ...]:
    """(name, is a judgement, required) of every entry field in file order, once per taxonomy
    (a bulk import builds 100,000 skeletons)."""

    def layout(taxonomy: Taxonomy) -> tuple[tuple[str, bool, bool], ...]:
        judgements = judgement_fields(taxonomy)
        return tuple((s.name, s.name in judgements, s.required) for s in entry_specs(taxonomy))

    return taxonomy.derived("entry skeleton layout", layout)


def entry_from_metadata(metadata: PaperMetadata, key: str) -> dict:
    return entry_skeleton(
        key=key,
        title=metadata.title,
        authors=list(metadata.authors),
        authors_complete=True,
        year=metadata.year,
        venue="arXiv",
        identifiers={"arxiv": metadata.arxiv_id, "doi": metadata.doi, "openreview": None},
        urls=[metadata.url],
        affiliation=metadata.first_affiliation or PLACEHOLDER,
        extra={
            "latest_version": metadata.version,
            "primary_category": metadata.primary_category,
            "journal_ref": metadata.journal_ref,
        },
    )


@dataclass(frozen=True)
class ExclusionChoice:
    stage: str
    reason: str
    query_family: str = PLACEHOLDER


def exclusion_from_metadata(
    metadata: PaperMetadata, record_id: str, choice: ExclusionChoice, today: dt.date
) -> dict:
    return {
        "record_id": record_id,
        "source": "arxiv",
        "query_family": choice.query_family,
        "title": metadata.title,
        "identifier": f"arXiv:{metadata.arxiv_id}",
        "url": metadata.url,
        "date_screened": today.isoformat(),
        "stage": choice.stage,
        "reason_code": choice.reason,
        "rationale": PLACEHOLDER,
        "round": PLACEHOLDER,
    }


def placeholder_fields(data: dict) -> list[str]:
    return [name for name, value in data.items() if value == PLACEHOLDER]


# ---------------------------------------------------------------------------------------------
# The command


@dataclass
class AddResult:
    path: Path
    data: dict
    metadata: PaperMetadata
    todo: list[str] = field(default_factory=list)


def check_exclusion_choice(project: Project, choice: ExclusionChoice) -> None:
    taxonomy = project.taxonomy()
    for value, axis, option in (
        (choice.stage, "screening_stages", "--stage"),
        (choice.reason, "exclusion_reasons", "--reason"),
        (choice.query_family, "query_families", "--query-family"),
    ):
        if value == PLACEHOLDER and option == "--query-family":
            continue
        allowed = taxonomy[axis].ids
        if value not in allowed:
            raise AddRefused(
                f"{option} '{value}' is not a {taxonomy[axis].label.lower()}; use one of: {', '.join(allowed)}"
            )


def add_paper(
    project: Project,
    reference: str,
    settings: ArxivSettings | None = None,
    exclude: ExclusionChoice | None = None,
    today: dt.date | None = None,
    sleep: Callable[[float], None] | None = None,
) -> AddResult:
    """Fetch one paper from arXiv and write corpus/<key>.yaml (or exclusions/E<n>.yaml).

    Raises AddRefused or arxiv_client.ArxivLookupError; nothing is written unless every step
    succeeded, and then in one atomic rename.
    """
    arxiv_id = ids.parse_arxiv_reference(reference)
    if arxiv_id is None:
        raise AddRefused(
            f"'{reference}' is not an arXiv identifier or URL; "
            "write e.g. 2508.04652, arXiv:2508.04652 or https://arxiv.org/abs/2508.04652"
        )
    arxiv_id = ids.strip_arxiv_version(arxiv_id)
    if exclude is not None:
        check_exclusion_choice(project, exclude)
    records = known_records(project)
    _refuse_duplicate(records, {f"arxiv:{arxiv_id}"}, "")  # before spending a request

    from masrl.imports.arxiv import ArxivClient

    client = ArxivClient(settings, sleep) if sleep is not None else ArxivClient(settings)
    metadata = client.fetch_one(arxiv_id)
    _refuse_unusable(metadata)  # before anything is derived from it or written
    identities = {f"arxiv:{arxiv_id}"} | (
        {f"doi:{metadata.doi.lower()}"} if metadata.doi else set()
    )
    _refuse_duplicate(records, identities, metadata.title)

    if exclude is None:
        key = generate_key(metadata.title, metadata.authors, metadata.year, taken_keys(project))
        data = entry_from_metadata(metadata, key)
        path, header = project.corpus_dir / f"{key}.yaml", ENTRY_SCHEMA_LINE
    else:
        record_id = next_record_id(project)
        data = exclusion_from_metadata(metadata, record_id, exclude, today or dt.date.today())
        path, header = project.exclusions_dir / f"{record_id}.yaml", EXCLUSION_SCHEMA_LINE
    if path.exists():  # a key generated from the file listing can only clash in a race
        raise AddRefused(
            f"{project.relative(path)} appeared while masrl was working; run the command again"
        )
    with transaction(project.root):
        write_atomic(path, yamlio.dumps(data, header=header), root=project.root)
    return AddResult(path, data, metadata, placeholder_fields(data))


def _refuse_unusable(metadata: PaperMetadata) -> None:
    if not metadata.title.strip():
        raise AddRefused(f"arXiv's record of {metadata.arxiv_id} has no title; nothing was written")
    if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", metadata.published or ""):
        raise AddRefused(
            f"arXiv's record of {metadata.arxiv_id} has no readable publication date; nothing was written"
        )


def _refuse_duplicate(records: list[KnownRecord], identities: set[str], title: str) -> None:
    holder = find_duplicate(records, identities, title)
    if holder:
        raise AddRefused(f"this paper is already recorded in {holder}; nothing was written")

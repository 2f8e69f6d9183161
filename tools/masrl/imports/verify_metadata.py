"""`masrl verify-metadata`: compare each entry's title, year and first author with arXiv.

Entries are read as raw YAML (so a half-tagged corpus can be checked too). Metadata is fetched in
batched id_list queries and kept in an on-disk cache, one JSON file per paper with the time it
was fetched, so a second run within ``max_age`` asks arXiv nothing. Each mismatch names the file
and line and gives the exact YAML to write.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from masrl.errors import InputError
from masrl.files import read_regular_text, write_atomic
from masrl.imports.arxiv import ArxivClient, ArxivSettings, PaperMetadata
from masrl.imports.csv import latex_to_unicode
from masrl.model import identifiers as ids
from masrl.model import yamlio
from masrl.model.records import Project, RawRecord, read_records

CACHE_SUBDIR = Path(".cache") / "masrl" / "arxiv"
DEFAULT_MAX_AGE_DAYS = 30.0


# ---------------------------------------------------------------------------------------------
# Cache


def default_cache_dir(project: Project) -> Path:
    return project.root / CACHE_SUBDIR


class MetadataCache:
    """JSON per arXiv id: {"fetched_at": ISO time, "metadata": {...}} (no abstracts)."""

    def __init__(self, directory: Path, max_age: dt.timedelta, now: dt.datetime | None = None):
        self.directory = directory
        self.max_age = max_age
        self.now = now or dt.datetime.now(dt.timezone.utc)

    def path_for(self, arxiv_id: str) -> Path:
        return self.directory / (arxiv_id.replace("/", "_") + ".json")

    def get(self, arxiv_id: str) -> PaperMetadata | None:
        """Cached metadata younger than max_age; None when absent, expired or unreadable."""
        path = self.path_for(arxiv_id)
        if not path.exists():
            return None
        try:  # a cache file is untrusted: anything unexpected is a miss, never a crash
            stored = json.loads(read_regular_text(path, root=self.directory, limit=1024 * 1024))
            fetched_at = dt.datetime.fromisoformat(stored["fetched_at"])
            if fetched_at.tzinfo is None:
                return None
            metadata = PaperMetadata.from_json(stored["metadata"])
            if not _well_typed(metadata):
                return None
        except (InputError, OSError, ValueError, KeyError, TypeError, AttributeError, RecursionError):
            return None
        if self.now - fetched_at > self.max_age or metadata.arxiv_id != arxiv_id:
            return None
        return metadata

    def put(self, metadata: PaperMetadata) -> None:
        stored = {"fetched_at": self.now.isoformat(timespec="seconds"), "metadata": metadata.to_json()}
        write_atomic(self.path_for(metadata.arxiv_id), json.dumps(stored, indent=2, sort_keys=True) + "\n")


def _well_typed(metadata: PaperMetadata) -> bool:
    texts = (metadata.arxiv_id, metadata.version, metadata.title, metadata.published, metadata.updated, metadata.abstract)
    optional = (metadata.doi, metadata.journal_ref, metadata.primary_category, metadata.first_affiliation)
    return (all(isinstance(t, str) for t in texts) and all(t is None or isinstance(t, str) for t in optional)
            and all(isinstance(a, str) for a in (*metadata.authors, *metadata.raw_authors))
            and bool(re.fullmatch(r"\d{4}-\d{2}-\d{2}", metadata.published)))


# ---------------------------------------------------------------------------------------------
# Comparison


def comparable_title(title: str) -> str:
    """Case, white space, LaTeX markup, braces, accents and punctuation do not count."""
    text = latex_to_unicode(title).replace("{", "").replace("}", "")
    text = unicodedata.normalize("NFKD", text)
    return ids.normalize_title(text)


def comparable_name(name: str) -> str:
    text = unicodedata.normalize("NFKD", latex_to_unicode(name)).encode("ascii", "ignore").decode("ascii")
    return re.sub(r"[^a-z0-9]+", "", text.casefold())


def surname(author: str) -> str:
    return author.split(",", 1)[0] if "," in author else author


def same_first_author(corpus_author: str, arxiv_author: str) -> bool:
    return comparable_name(surname(corpus_author)) == comparable_name(surname(arxiv_author))


def cites_arxiv_version(venue: object) -> bool:
    return isinstance(venue, str) and venue.strip().casefold().startswith("arxiv")


def yaml_line(name: str, value) -> str:
    """The YAML masrl would write for one field, e.g. 'title: Foo: Bar' quoted as needed."""
    return yamlio.dumps({name: value}).rstrip("\n")


@dataclass(frozen=True)
class Mismatch:
    rel: str
    line: int
    key: str
    kind: str  # title | year | first_author | unknown_id
    arxiv_id: str
    corpus_value: str
    arxiv_value: str
    fix: str  # the YAML to write at that line

    def as_text(self) -> str:
        what = {
            "title": "title differs from arXiv",
            "year": "year differs from the first arXiv version",
            "first_author": "first author differs from arXiv",
            "unknown_id": "arXiv has no paper with this id",
        }[self.kind]
        lines = [f"{self.rel}:{self.line}: {what} ({self.arxiv_id})"]
        if self.kind != "unknown_id":
            lines += [f"    corpus: {self.corpus_value}", f"    arXiv:  {self.arxiv_value}"]
        lines.append("    fix:    " + self.fix.replace("\n", "\n            "))
        return "\n".join(lines)


@dataclass(frozen=True)
class Note:
    """Worth knowing, not an error: e.g. a newer arXiv version than the one recorded."""

    rel: str
    line: int
    message: str

    def as_text(self) -> str:
        return f"{self.rel}:{self.line}: note: {self.message}"


def compare_entry(rel: str, record: RawRecord, metadata: PaperMetadata) -> tuple[list[Mismatch], list[Note]]:
    data = record.data
    key = str(data.get("key", record.path.stem))
    mismatches, notes = [], []

    def mismatch(kind, keys, corpus_value, arxiv_value, fix):
        mismatches.append(Mismatch(rel, record.line_of(*keys), key, kind, metadata.arxiv_id,
                                   str(corpus_value), str(arxiv_value), fix))

    title = data.get("title")
    if isinstance(title, str) and comparable_title(title) != comparable_title(metadata.title):
        mismatch("title", ("title",), title, f"{metadata.title} ({metadata.version})", yaml_line("title", metadata.title))

    year = data.get("year")
    if isinstance(year, int) and not isinstance(year, bool):
        # A paper cited in its arXiv version carries the year of the first version; one cited
        # at a venue may carry a later year, but never an earlier one.
        wrong = year != metadata.year if cites_arxiv_version(data.get("venue")) else year < metadata.year
        if wrong:
            mismatch("year", ("year",), year, f"{metadata.year} (v1 of {metadata.published})", yaml_line("year", metadata.year))

    authors = data.get("authors")
    if isinstance(authors, list) and authors and isinstance(authors[0], str) and metadata.authors:
        if not same_first_author(authors[0], metadata.authors[0]):
            mismatch("first_author", ("authors", 0), authors[0], metadata.authors[0],
                     yamlio.dumps([metadata.authors[0]]).rstrip("\n"))

    recorded = data.get("latest_version")
    if isinstance(recorded, str) and re.fullmatch(r"v\d+", recorded) and int(recorded[1:]) < int(metadata.version[1:]):
        notes.append(Note(rel, record.line_of("latest_version"),
                          f"arXiv now has {metadata.version} of {metadata.arxiv_id} (updated {metadata.updated}); "
                          f"the entry records {recorded}"))
    return mismatches, notes


# ---------------------------------------------------------------------------------------------
# The run


@dataclass
class VerifyReport:
    checked: int = 0
    skipped: list[str] = field(default_factory=list)  # keys without an arXiv id
    from_cache: int = 0
    fetched: int = 0
    mismatches: list[Mismatch] = field(default_factory=list)
    notes: list[Note] = field(default_factory=list)

    def render(self) -> str:
        lines = [m.as_text() for m in self.mismatches] + [n.as_text() for n in self.notes]
        lines.append(self.summary_line())
        return "\n".join(lines)

    def summary_line(self) -> str:
        counts = (
            f"{self.checked} entries checked against arXiv ({self.from_cache} from the cache, "
            f"{self.fetched} fetched), {len(self.skipped)} without an arXiv id skipped"
        )
        if self.mismatches:
            return f"verify-metadata: {len(self.mismatches)} mismatch(es); {counts}"
        return f"verify-metadata: ok; {counts}"


def entries_with_arxiv_ids(project: Project) -> tuple[list[tuple[str, RawRecord, str]], list[str]]:
    """(relative path, record, bare arXiv id) for entries that have one; keys of those that do not."""
    with_ids, without = [], []
    for record in read_records(project.entry_paths()):
        if not isinstance(record.data, dict):
            continue
        identifiers = record.data.get("identifiers")
        arxiv_id = identifiers.get("arxiv") if isinstance(identifiers, dict) else None
        if isinstance(arxiv_id, str) and ids.is_arxiv_id(arxiv_id):
            with_ids.append((project.relative(record.path), record, ids.strip_arxiv_version(arxiv_id)))
        else:
            without.append(str(record.data.get("key", record.path.stem)))
    return with_ids, without


def verify_metadata(
    project: Project,
    settings: ArxivSettings | None = None,
    cache: MetadataCache | None = None,
    refresh: bool = False,
    progress_start: Callable[[int], Callable[[int], None]] | None = None,
    sleep: Callable[[float], None] | None = None,
) -> VerifyReport:
    """Check every entry with an arXiv id; raises ArxivLookupError when arXiv cannot be asked.

    progress_start(total) is called once with the number of ids to fetch and returns a callback
    that is given the size of each finished batch (the CLI plugs a tqdm bar in here).
    """
    cache = cache or MetadataCache(default_cache_dir(project), dt.timedelta(days=DEFAULT_MAX_AGE_DAYS))
    items, without = entries_with_arxiv_ids(project)
    report = VerifyReport(skipped=sorted(without))

    known: dict[str, PaperMetadata] = {}
    if not refresh:
        for _, _, arxiv_id in items:
            cached = cache.get(arxiv_id)
            if cached is not None:
                known[arxiv_id] = cached
    to_fetch = sorted({arxiv_id for _, _, arxiv_id in items} - known.keys())
    report.from_cache = len(known)
    if to_fetch:
        client = ArxivClient(settings, sleep) if sleep is not None else ArxivClient(settings)
        progress = progress_start(len(to_fetch)) if progress_start else None
        fetched = client.fetch_many(to_fetch, progress)
        for metadata in fetched.values():
            cache.put(metadata)
        known.update(fetched)
        report.fetched = len(fetched)

    for rel, record, arxiv_id in items:
        report.checked += 1
        metadata = known.get(arxiv_id)
        if metadata is None:
            report.mismatches.append(Mismatch(rel, record.line_of("identifiers", "arxiv"), record.path.stem, "unknown_id",
                                              arxiv_id, arxiv_id, "", "check identifiers.arxiv against the paper's arXiv page"))
            continue
        mismatches, notes = compare_entry(rel, record, metadata)
        report.mismatches += mismatches
        report.notes += notes
    report.mismatches.sort(key=lambda m: (m.rel, m.line))
    report.notes.sort(key=lambda n: (n.rel, n.line))
    return report

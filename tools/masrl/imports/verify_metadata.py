"""`masrl verify-metadata`: compare each entry's title, year and first author with arXiv, and
report what arXiv has learnt since: new versions, journal references and DOIs.

Entries are read as raw YAML (so a half-tagged corpus can be checked too). Metadata is fetched in
batched id_list queries and kept in an on-disk cache, one JSON file per paper with the time it
was fetched, so a second run within ``max_age`` asks arXiv nothing. A cached file is trusted only
when the key kept outside the cache folder authenticates it (masrl.sealed); any other is asked
again. Each mismatch names the file and line and gives the exact YAML to write.

News from arXiv are *updates*: a version newer than the entry's ``latest_version``, a
``journal_ref`` or DOI where the entry has none. ``apply_updates`` writes those into the entry
files (only the changed fields are rewritten, and only when the file still holds the value that
was checked), which is how the weekly workflow proposes them in its pull request. A journal
reference or DOI that *differs* from the one recorded is reported, never written over, and an
entry still cited as 'arXiv' that has been published since gets a note to check its venue.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

from masrl.files import read_regular_text, transaction, write_atomic
from masrl.imports.arxiv import ArxivClient, ArxivSettings, PaperMetadata
from masrl.imports.csv import latex_to_unicode
from masrl.model import identifiers as ids
from masrl.model import yamlio
from masrl.model.project import Project, RawRecord, read_records
from masrl.sealed import SealedFolder

CACHE_SUBDIR = Path(".cache") / "masrl" / "arxiv"
DEFAULT_MAX_AGE_DAYS = 30.0


# ---------------------------------------------------------------------------------------------
# Cache


def default_cache_dir(project: Project) -> Path:
    return project.root / CACHE_SUBDIR


class MetadataCache:
    """JSON per arXiv id: {"fetched_at": ISO time, "metadata": {...}} (no abstracts), each file
    sealed to "arxiv/<file name>" (masrl.sealed); without a usable key nothing is kept."""

    def __init__(self, directory: Path, max_age: dt.timedelta, now: dt.datetime | None = None):
        self.directory = directory
        self.max_age = max_age
        self.now = now or dt.datetime.now(dt.UTC)
        self.sealed = SealedFolder.at(directory, "arxiv", limit=1024 * 1024)

    @staticmethod
    def _name(arxiv_id: str) -> str:
        return arxiv_id.replace("/", "_") + ".json"

    def path_for(self, arxiv_id: str) -> Path:
        return self.directory / self._name(arxiv_id)

    def get(self, arxiv_id: str) -> PaperMetadata | None:
        """Cached metadata younger than max_age; None when absent, expired, unreadable or not
        authentic."""
        content = self.sealed.get(self._name(arxiv_id))
        if content is None:
            return None
        try:  # authentic, yet read as warily as any answer: anything unexpected is a miss
            stored = json.loads(content)
            fetched_at = dt.datetime.fromisoformat(stored["fetched_at"])
            if fetched_at.tzinfo is None:
                return None
            metadata = PaperMetadata.from_json(stored["metadata"])
            if not _well_typed(metadata):
                return None
        except (ValueError, KeyError, TypeError, AttributeError, RecursionError):
            return None
        if self.now - fetched_at > self.max_age or metadata.arxiv_id != arxiv_id:
            return None
        return metadata

    def put(self, metadata: PaperMetadata) -> None:
        stored = {
            "fetched_at": self.now.isoformat(timespec="seconds"),
            "metadata": metadata.to_json(),
        }
        content = json.dumps(stored, indent=2, sort_keys=True) + "\n"
        self.sealed.put(self._name(metadata.arxiv_id), content.encode("utf-8"))


def _well_typed(metadata: PaperMetadata) -> bool:
    texts = (
        metadata.arxiv_id,
        metadata.version,
        metadata.title,
        metadata.published,
        metadata.updated,
        metadata.abstract,
    )
    optional = (
        metadata.doi,
        metadata.journal_ref,
        metadata.primary_category,
        metadata.first_affiliation,
    )
    return (
        all(isinstance(t, str) for t in texts)
        and all(t is None or isinstance(t, str) for t in optional)
        and all(isinstance(a, str) for a in (*metadata.authors, *metadata.raw_authors))
        and bool(re.fullmatch(r"\d{4}-\d{2}-\d{2}", metadata.published))
    )


# ---------------------------------------------------------------------------------------------
# Comparison


def comparable_title(title: str) -> str:
    """Case, white space, LaTeX markup, braces, accents and punctuation do not count."""
    text = latex_to_unicode(title).replace("{", "").replace("}", "")
    text = unicodedata.normalize("NFKD", text)
    return ids.normalize_title(text)


def comparable_name(name: str) -> str:
    text = (
        unicodedata.normalize("NFKD", latex_to_unicode(name))
        .encode("ascii", "ignore")
        .decode("ascii")
    )
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


def compare_entry(
    rel: str, record: RawRecord, metadata: PaperMetadata
) -> tuple[list[Mismatch], list[Note]]:
    data = record.data
    key = str(data.get("key", record.path.stem))
    mismatches, notes = [], []

    def mismatch(kind, keys, corpus_value, arxiv_value, fix):
        mismatches.append(
            Mismatch(
                rel,
                record.line_of(*keys),
                key,
                kind,
                metadata.arxiv_id,
                str(corpus_value),
                str(arxiv_value),
                fix,
            )
        )

    title = data.get("title")
    if isinstance(title, str) and comparable_title(title) != comparable_title(metadata.title):
        mismatch(
            "title",
            ("title",),
            title,
            f"{metadata.title} ({metadata.version})",
            yaml_line("title", metadata.title),
        )

    year = data.get("year")
    if isinstance(year, int) and not isinstance(year, bool):
        # A paper cited in its arXiv version carries the year of the first version; one cited
        # at a venue may carry a later year, but never an earlier one.
        wrong = (
            year != metadata.year
            if cites_arxiv_version(data.get("venue"))
            else year < metadata.year
        )
        if wrong:
            mismatch(
                "year",
                ("year",),
                year,
                f"{metadata.year} (v1 of {metadata.published})",
                yaml_line("year", metadata.year),
            )

    authors = data.get("authors")
    if isinstance(authors, list) and authors and isinstance(authors[0], str) and metadata.authors:
        if not same_first_author(authors[0], metadata.authors[0]):
            mismatch(
                "first_author",
                ("authors", 0),
                authors[0],
                metadata.authors[0],
                yamlio.dumps([metadata.authors[0]]).rstrip("\n"),
            )

    return mismatches, notes


@dataclass(frozen=True)
class Update:
    """Something arXiv knows that the entry does not record (yet)."""

    rel: str
    line: int
    key: str
    arxiv_id: str
    field: str  # latest_version | journal_ref | identifiers.doi
    old: str | None  # what the entry records
    new: str  # what arXiv says
    updated: str  # date of arXiv's latest version
    applicable: (
        bool  # a newer version, or a value where the entry has none; a differing value is not
    )
    applied: bool = False

    def as_text(self) -> str:
        what = {
            "latest_version": f"new arXiv version {self.new} of {self.arxiv_id} (updated {self.updated}); "
            f"the entry records {self.old}",
            "journal_ref": f"journal reference on arXiv for {self.arxiv_id}: {self.new}",
            "identifiers.doi": f"DOI on arXiv for {self.arxiv_id}: {self.new}",
        }[self.field]
        if self.field != "latest_version":
            what += (
                "; the entry records none"
                if self.old is None
                else f"; the entry records {self.old}"
            )
        lines = [f"{self.rel}:{self.line}: {what}"]
        if not self.applicable:
            lines.append("    check by hand which one the entry should cite (not written over)")
        else:
            state = "applied" if self.applied else "to apply (or run with --apply)"
            lines.append(f"    {state}: " + self.yaml().replace("\n", "\n            "))
        return "\n".join(lines)

    def yaml(self) -> str:
        if self.field == "identifiers.doi":
            return yamlio.dumps({"identifiers": {"doi": self.new}}).rstrip("\n")
        return yaml_line(self.field, self.new)


def _version_number(value: object) -> int | None:
    return int(value[1:]) if isinstance(value, str) and re.fullmatch(r"v\d+", value) else None


def _comparable_doi(value: str) -> str:
    return re.sub(
        r"^(https?://(dx\.)?doi\.org/|doi:)", "", value.strip(), flags=re.IGNORECASE
    ).casefold()


def entry_news(
    rel: str, record: RawRecord, metadata: PaperMetadata
) -> tuple[list[Update], list[Note]]:
    """New versions, journal references and DOIs arXiv has for an entry; a venue note when the
    entry is still cited as 'arXiv' although arXiv records a publication."""
    data = record.data
    key = str(data.get("key", record.path.stem))
    updates, notes = [], []

    def update(field_name, keys, old, new, applicable):
        updates.append(
            Update(
                rel,
                record.line_of(*keys),
                key,
                metadata.arxiv_id,
                field_name,
                old,
                new,
                metadata.updated,
                applicable,
            )
        )

    recorded = _version_number(data.get("latest_version"))
    latest = _version_number(metadata.version)
    if recorded is not None and latest is not None and recorded < latest:
        update(
            "latest_version", ("latest_version",), data["latest_version"], metadata.version, True
        )

    journal_ref = data.get("journal_ref")
    if metadata.journal_ref:
        if journal_ref is None:  # a field left out is pointed at where it goes
            where = next(
                (name for name in ("journal_ref", *_JOURNAL_REF_AFTER) if name in data), "key"
            )
            update("journal_ref", (where,), None, metadata.journal_ref, True)
        elif isinstance(journal_ref, str) and " ".join(journal_ref.split()) != metadata.journal_ref:
            update("journal_ref", ("journal_ref",), journal_ref, metadata.journal_ref, False)

    identifiers = data.get("identifiers")
    if metadata.doi and isinstance(identifiers, dict):
        doi = identifiers.get("doi")
        if doi is None:
            update("identifiers.doi", ("identifiers", "doi"), None, metadata.doi, True)
        elif isinstance(doi, str) and _comparable_doi(doi) != _comparable_doi(metadata.doi):
            update("identifiers.doi", ("identifiers", "doi"), doi, metadata.doi, False)

    if (metadata.journal_ref or metadata.doi) and cites_arxiv_version(data.get("venue")):
        published = metadata.journal_ref or f"DOI {metadata.doi}"
        notes.append(
            Note(
                rel,
                record.line_of("venue"),
                f"published since as {published}; the venue still says '{data['venue']}': check venue and year",
            )
        )
    return updates, notes


# ---------------------------------------------------------------------------------------------
# The run


@dataclass
class VerifyReport:
    checked: int = 0
    skipped: list[str] = field(default_factory=list)  # keys without an arXiv id
    from_cache: int = 0
    fetched: int = 0
    mismatches: list[Mismatch] = field(default_factory=list)
    updates: list[Update] = field(default_factory=list)
    notes: list[Note] = field(default_factory=list)

    def render(self) -> str:
        lines = [m.as_text() for m in self.mismatches] + [u.as_text() for u in self.updates]
        lines += [n.as_text() for n in self.notes]
        lines.append(self.summary_line())
        return "\n".join(lines)

    @property
    def applicable(self) -> list[Update]:
        return [u for u in self.updates if u.applicable]

    def summary_line(self) -> str:
        counts = (
            f"{self.checked} entries checked against arXiv ({self.from_cache} from the cache, "
            f"{self.fetched} fetched), {len(self.skipped)} without an arXiv id skipped"
        )
        if self.updates:
            applied = sum(u.applied for u in self.updates)
            counts += (
                f"; {len(self.updates)} update(s) from arXiv ({len(self.applicable)} to write, {applied} written, "
                f"{len(self.updates) - len(self.applicable)} to check by hand)"
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
            with_ids.append(
                (project.relative(record.path), record, ids.strip_arxiv_version(arxiv_id))
            )
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
    cache = cache or MetadataCache(
        default_cache_dir(project), dt.timedelta(days=DEFAULT_MAX_AGE_DAYS)
    )
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
            report.mismatches.append(
                Mismatch(
                    rel,
                    record.line_of("identifiers", "arxiv"),
                    record.path.stem,
                    "unknown_id",
                    arxiv_id,
                    arxiv_id,
                    "",
                    "check identifiers.arxiv against the paper's arXiv page",
                )
            )
            continue
        mismatches, notes = compare_entry(rel, record, metadata)
        updates, news_notes = entry_news(rel, record, metadata)
        report.mismatches += mismatches
        report.updates += updates
        report.notes += notes + news_notes
    report.mismatches.sort(key=lambda m: (m.rel, m.line))
    report.updates.sort(key=lambda u: (u.rel, u.line, u.field))
    report.notes.sort(key=lambda n: (n.rel, n.line))
    return report


# ---------------------------------------------------------------------------------------------
# Writing the updates


_JOURNAL_REF_AFTER = ("primary_category", "latest_version", "notes", "summary")


def _current(data: dict, field_name: str):
    if field_name == "identifiers.doi":
        identifiers = data.get("identifiers")
        return identifiers.get("doi") if isinstance(identifiers, dict) else ...
    return data.get(field_name)


def _with_update(data: dict, update: Update) -> dict:
    new = dict(data)
    if update.field == "identifiers.doi":
        new["identifiers"] = {**data["identifiers"], "doi": update.new}
    elif update.field in data:
        new[update.field] = update.new
    else:  # a field the file leaves out: written where the model puts it
        after = next((name for name in _JOURNAL_REF_AFTER if name in data), None)
        items = list(data.items())
        position = [k for k, _ in items].index(after) + 1 if after else len(items)
        new = dict(items[:position] + [(update.field, update.new)] + items[position:])
    return new


def apply_updates(project: Project, report: VerifyReport) -> list[Path]:
    """Write the report's applicable updates into the entry files; return the files changed.

    A file is only changed where it still holds the value that was checked (an entry edited since
    is left alone and its update stays unwritten); only the changed fields are rewritten.
    """
    from masrl.model.records import ENTRY_SCHEMA_LINE

    by_file: dict[str, list[int]] = {}
    for index, item in enumerate(report.updates):
        if item.applicable and not item.applied:
            by_file.setdefault(item.rel, []).append(index)
    with transaction(project.root):  # every file's updates or none
        written = []
        for rel, indexes in sorted(by_file.items()):
            path = project.root / rel
            text = read_regular_text(path, root=project.root)
            try:
                data = yamlio.loads(text)
            except yamlio.YamlError:
                continue
            if not isinstance(data, dict):
                continue
            changed = dict(data)
            done = []
            for index in indexes:
                item = report.updates[index]
                if _current(changed, item.field) != item.old:
                    continue
                changed = _with_update(changed, item)
                done.append(index)
            if not done:
                continue
            write_atomic(
                path, yamlio.update_text(text, changed, header=ENTRY_SCHEMA_LINE), root=project.root
            )
            for index in done:
                report.updates[index] = replace(report.updates[index], applied=True)
            written.append(path)
    return written

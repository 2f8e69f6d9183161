"""BibTeX import: entries of a .bib file become corpus scaffolds, exactly like `masrl add` writes them (bibliographic facts filled in, every tag a placeholder)."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from pathlib import Path

from bibtexparser.middlewares import LatexDecodingMiddleware, SeparateCoAuthors
from bibtexparser.middlewares.enclosing import RemoveEnclosingMiddleware
from bibtexparser.middlewares.names import (
    parse_single_name_into_parts,
    split_multiple_persons_names,
)
from bibtexparser.model import Entry as BibEntry

from masrl.errors import InputError
from masrl.exports.bibtex import VENUE_FIELD, BibtexError, _VerbatimFieldsKept
from masrl.exports.csv import DOI_URL
from masrl.files import read_regular_text
from masrl.imports.add import (
    DuplicateFinder,
    KnownRecord,
    entry_skeleton,
    find_duplicate,
    generate_key,
    known_records,
)
from masrl.imports.bibtex_macros import ResolveMacros, fields_lost_to_stray_braces
from masrl.imports.bibtex_split import split_blocks
from masrl.imports.csv import ImportPlan, PlannedFile, latex_decoder
from masrl.memory import cycle_collection_paused
from masrl.model import identifiers as ids
from masrl.model import yamlio
from masrl.model.identifiers import KEY_PATTERN
from masrl.model.project import Project
from masrl.model.records import ENTRY_SCHEMA_LINE, PLACEHOLDER
from masrl.model.taxonomy import Taxonomy
from masrl.model.venues import normalise_venue

URL_MACRO = re.compile(r"\\url\{([^{}]*)\}")


# Text pylatexenc gives back unchanged (letters, digits, spaces, plain punctuation, no '--'
# ligature): decoding it walks every character in Python, a third of an import's time.
PLAIN_TEXT = re.compile(r"(?:[^\W_]|[ ,.:;()/+=@!?*|<>]|-(?!-))*")


class DecodeTextFields(_VerbatimFieldsKept, LatexDecodingMiddleware):
    def __init__(self):
        super().__init__(allow_inplace_modification=True, decoder=latex_decoder())
        self._decoded: dict[str, tuple[str, str]] = {}  # venues, months, names recur

    def _transform_python_value_string(self, python_string: str) -> tuple[str, str]:
        if PLAIN_TEXT.fullmatch(python_string):
            return python_string, ""
        found = self._decoded.get(python_string)
        if found is None:
            if len(self._decoded) >= _CACHED:
                self._decoded.clear()
            found = self._decoded[python_string] = super()._transform_python_value_string(
                python_string
            )
        return found


_CACHED = 1 << 16


class NamesLastFirst(SeparateCoAuthors):
    """bibtexparser's SeparateCoAuthors, SplitNameParts and MergeNameParts(style="last") in one
    pass: each name split into parts by bibtexparser and merged as "von Last, Jr, First", each
    distinct name once."""

    def _transform_field_value(self, name: str) -> list[str]:
        return [_last_first(person) for person in split_multiple_persons_names(name)]


@functools.lru_cache(maxsize=_CACHED)
def _last_first(person: str) -> str:
    return parse_single_name_into_parts(person).merge_last_name_first


@dataclass
class BibRecord:
    """The facts one BibTeX entry gives, in corpus form."""

    bib_key: str
    entry_type: str
    line: int
    title: str | None
    authors: list[str]
    authors_complete: bool
    year: int | None
    venue: str | None
    identifiers: dict
    urls: list[str]


def parse_stack() -> list:
    return [NamesLastFirst(allow_inplace_modification=True), DecodeTextFields()]


def parse_bibtex(
    text: str, source: str = "<bibtex>", warnings: list[str] | None = None
) -> list[BibRecord]:
    """Every entry of a BibTeX text, macros and `#` concatenations resolved; BibtexError lists the
    blocks that could not be read and every undefined or cyclic macro. Fields lost to a stray
    closing brace are added to `warnings` when given."""
    macros = ResolveMacros()
    try:
        library = split_blocks(text)
        for middleware in (
            macros,
            RemoveEnclosingMiddleware(allow_inplace_modification=True),
            *parse_stack(),
        ):
            library = middleware.transform(library)
    except BibtexError as exc:
        raise BibtexError(source, [f"{source}: {p}" for p in exc.problems]) from exc
    problems = [
        f"{source}:{block.start_line + 1 if block.start_line is not None else '?'}: "
        f"cannot read this block ({_first_line(block.error)})"
        for block in library.failed_blocks
    ]
    problems += [f"{source}:{p.line}: {p.message}" for p in macros.problems]
    if problems:
        raise BibtexError(source, problems)
    if warnings is not None:
        warnings += [
            f"{source}:{p.line}: {p.message}" for p in fields_lost_to_stray_braces(library)
        ]
    return [_record(entry) for entry in library.entries]


def _first_line(error) -> str:
    text = (getattr(error, "abort_reason", None) or str(error)).strip()
    return text.splitlines()[0] if text else type(error).__name__


class _Fields:
    """An entry's text fields by lower-case name (the first of a name, as BibTeX reads it),
    whitespace collapsed, looked up once each."""

    def __init__(self, entry: BibEntry):
        self.kind = entry.entry_type.lower()
        self._raw: dict[str, str] = {}
        for item in entry.fields:
            if isinstance(item.value, str):
                self._raw.setdefault(item.key.lower(), item.value)
        self._clean: dict[str, str | None] = {}

    def get(self, name: str) -> str | None:
        try:
            return self._clean[name]
        except KeyError:
            value = self._raw.get(name)
            value = " ".join(value.split()) or None if value is not None else None
            self._clean[name] = value
            return value


def _record(entry: BibEntry) -> BibRecord:
    names = next((f.value for f in entry.fields if f.key.lower() == "author"), [])
    names = [
        " ".join(n.split()) for n in (names if isinstance(names, list) else [names]) if n.strip()
    ]
    complete = not names or names[-1].casefold() != "others"
    authors = [n for n in names if n.casefold() != "others"]
    fields = _Fields(entry)
    year_text = fields.get("year") or ""
    urls = _urls(fields)
    return BibRecord(
        bib_key=entry.key,
        entry_type=fields.kind,
        line=(entry.start_line or 0) + 1,
        title=fields.get("title"),
        authors=authors,
        authors_complete=complete,
        year=int(year_text) if _YEAR.fullmatch(year_text) else None,
        venue=_venue(fields),
        identifiers=_identifiers(fields, urls),
        urls=urls,
    )


_YEAR = re.compile(r"\d{4}")
_ARXIV_JOURNAL = re.compile(r"^(arXiv preprint|CoRR\b|ArXiv\b)", re.I)
_ARXIV_NOTE = re.compile(r"arXiv:\s*(\S+?)[,;)]?(?:\s|$)", re.I)
_DOI_PREFIX = re.compile(r"^doi:\s*", re.I)
_BARE_URL = re.compile(r"https?://\S+")


def _venue(fields: _Fields) -> str | None:
    preferred = [VENUE_FIELD[fields.kind]] if fields.kind in VENUE_FIELD else []
    for name in (
        *preferred,
        "booktitle",
        "journal",
        "howpublished",
        "type",
        "institution",
        "publisher",
        "school",
    ):
        value = fields.get(name)
        if value and not URL_MACRO.search(value) and not _is_bare_url(value):
            if name == "journal" and _ARXIV_JOURNAL.match(value):
                return "arXiv"
            return value
    return "arXiv" if _arxiv_id(fields) else None


def _arxiv_id(fields: _Fields) -> str | None:
    eprint = fields.get("eprint")
    prefix = (fields.get("archiveprefix") or fields.get("eprinttype") or "arxiv").lower()
    if eprint and prefix == "arxiv":
        found = ids.parse_arxiv_reference(eprint)
        if found:
            return ids.strip_arxiv_version(found)
    for name in ("journal", "note", "howpublished"):
        match = _ARXIV_NOTE.search(fields.get(name) or "")
        if match and ids.parse_arxiv_reference(match[1]):
            return ids.strip_arxiv_version(ids.parse_arxiv_reference(match[1]))
    return None


def _identifiers(fields: _Fields, urls: list[str]) -> dict:
    doi = fields.get("doi")
    if doi:
        match = DOI_URL.search(doi)
        doi = match["doi"] if match else _DOI_PREFIX.sub("", doi)
    found = {"arxiv": _arxiv_id(fields), "doi": doi, "openreview": fields.get("openreview")}
    for url in urls:  # links stand in for missing identifier fields
        arxiv = ids.ARXIV_URL.search(url)
        if arxiv and not found["arxiv"] and ids.is_arxiv_id(arxiv["id"]):
            found["arxiv"] = ids.strip_arxiv_version(arxiv["id"])
        openreview = ids.OPENREVIEW_URL.search(url)
        if openreview and not found["openreview"]:
            found["openreview"] = openreview["id"]
        doi_link = DOI_URL.search(url)
        if doi_link and not found["doi"]:
            found["doi"] = doi_link["doi"]
    return found


def _urls(fields: _Fields) -> list[str]:
    urls = []
    url = fields.get("url")
    if url:
        urls.append(URL_MACRO.sub(r"\1", url))
    for name in ("addendum", "howpublished", "note"):
        value = fields.get(name) or ""
        urls += URL_MACRO.findall(value)
        if name != "addendum" and _is_bare_url(value):  # \url{} was decoded away
            urls.append(value)
    return list(dict.fromkeys(urls))


def _is_bare_url(value: str) -> bool:
    return bool(_BARE_URL.fullmatch(value))


@dataclass
class BibImportPlan(ImportPlan):
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (bib key, why)
    warnings: list[str] = field(default_factory=list)  # e.g. fields lost to a stray brace


# Fields a .bib file states; on --force only these replace what an existing file holds.
BIBLIOGRAPHIC_FIELDS = (
    "title",
    "authors",
    "authors_complete",
    "year",
    "venue",
    "identifiers",
    "urls",
)


def fallback_urls(identifiers: dict) -> list[str]:
    if identifiers.get("arxiv"):
        return [f"https://arxiv.org/abs/{identifiers['arxiv']}"]
    if identifiers.get("doi"):
        return [f"https://doi.org/{identifiers['doi']}"]
    if identifiers.get("openreview"):
        return [f"https://openreview.net/forum?id={identifiers['openreview']}"]
    return []


def corpus_key_for(bib_key: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", bib_key.lower()).strip("-")


def identities_of(record: BibRecord) -> set[str]:
    return ids.normalized_keys(record.identifiers, None, record.urls)


def scaffold_from_record(record: BibRecord, key: str, taxonomy: Taxonomy | None = None) -> dict:
    """The entry file a BibTeX record starts; its venue in the vocabulary's one spelling when known."""
    venue = normalise_venue(taxonomy, record.venue) if taxonomy is not None else record.venue
    return entry_skeleton(
        key=key,
        title=record.title or PLACEHOLDER,
        authors=record.authors,
        authors_complete=record.authors_complete,
        year=record.year if record.year is not None else PLACEHOLDER,
        venue=venue or PLACEHOLDER,
        identifiers=record.identifiers,
        urls=record.urls or fallback_urls(record.identifiers),
        taxonomy=taxonomy,
    )


def plan_bib_import(path: Path, project: Project, force: bool = False) -> BibImportPlan:
    """Work out every file an import would write, without writing anything."""
    with cycle_collection_paused():
        return _plan(path, project, force)


def _plan(path: Path, project: Project, force: bool) -> BibImportPlan:
    try:
        text = read_regular_text(path, encoding="utf-8-sig")  # no FIFO, device or symlink loop
    except InputError as exc:
        raise BibtexError(path, [str(exc)]) from exc
    warnings: list[str] = []
    records = parse_bibtex(text, str(path), warnings)
    if not records:
        what = (
            "is empty"
            if not text.strip()
            else "holds no @type{key, ...} entry that BibTeX tools would read"
        )
        raise BibtexError(path, [f"{path}: the file {what}; nothing to import"])
    problems = [
        f"{path}:{r.line}: entry '{r.bib_key}' has no title" for r in records if not r.title
    ]
    if problems:
        raise BibtexError(path, problems)

    known = known_records(project)
    known_by_rel = {record.rel: record for record in known}
    in_corpus = DuplicateFinder(known)
    in_file = DuplicateFinder()  # earlier entries of this file
    taxonomy = project.taxonomy()
    taken = {p.stem for p in project.entry_paths()}
    # project.relative of a file in the corpus folder: that folder's prefix, then the name
    corpus_prefix = project.relative(project.corpus_dir / "_")[:-1]
    plan = BibImportPlan("papers", [], project.root, warnings=warnings)
    text_of = ScaffoldText()
    for record in records:
        identities = identities_of(record)
        title_key = ids.normalize_title(record.title or "")
        key = _choose_key(record, project, known_by_rel, identities, taken)
        target = project.corpus_dir / f"{key}.yaml"
        holder = in_corpus.find_normalized(identities, title_key, skip=f"{corpus_prefix}{key}.yaml")
        earlier = in_file.find_normalized(identities, title_key)
        if holder or earlier:
            plan.skipped.append(
                (
                    record.bib_key,
                    f"already recorded in {holder}"
                    if holder
                    else f"repeats entry '{earlier.split(' (')[0]}' of this file",
                )
            )
            continue
        in_file.add(
            KnownRecord(
                record.bib_key,
                record.bib_key,
                frozenset(identities),
                title_key,
            )
        )
        taken.add(key)
        data = scaffold_from_record(record, key, taxonomy)
        plan.files.append(_planned(target, data, force, text_of))
    return plan


def _choose_key(
    record: BibRecord,
    project: Project,
    known_by_rel: dict[str, KnownRecord],
    identities: set[str],
    taken: set[str],
) -> str:
    """The .bib key in corpus form; a fresh key when it is unusable or names another paper."""
    key = corpus_key_for(record.bib_key)
    if key and KEY_PATTERN.match(key):
        if key not in taken:
            return key
        existing = project.relative(project.corpus_dir / f"{key}.yaml")
        same_paper = existing in known_by_rel and find_duplicate(
            [known_by_rel[existing]], identities, record.title
        )
        if same_paper:
            return key  # a re-import of the same paper: kept, or updated with --force
    return generate_key(record.title or "", record.authors, record.year, taken)


class ScaffoldText:
    """yamlio.dumps(data, header=ENTRY_SCHEMA_LINE) for many scaffolds. A record is written field
    by field, each top-level field's text independent of the others (block style, no aliases),
    and most of a scaffold's fields (every placeholder) are the same in every file: each distinct
    short (name, value) is written once."""

    def __init__(self):
        self._known: dict[tuple, str] = {}

    def __call__(self, data: dict) -> str:
        parts = [ENTRY_SCHEMA_LINE, "\n"]
        for name, value in data.items():
            if value is None or isinstance(value, bool | int) or _short_text(value):
                known = (name, type(value), value)
                text = self._known.get(known)
                if text is None:
                    if len(self._known) >= _CACHED:
                        self._known.clear()
                    text = self._known[known] = yamlio.dumps({name: value})
            else:
                text = yamlio.dumps({name: value})
            parts.append(text)
        return "".join(parts)


def _short_text(value) -> bool:
    return isinstance(value, str) and len(value) <= 40


def _planned(
    target: Path, data: dict, force: bool, text_of: ScaffoldText | None = None
) -> PlannedFile:
    if not target.exists():
        text = text_of(data) if text_of and data else yamlio.dumps(data, header=ENTRY_SCHEMA_LINE)
        return PlannedFile(target, text, "create")
    current_text = read_regular_text(target, root=target.parent)
    try:
        current = yamlio.loads(current_text)
    except yamlio.YamlError:
        current = None
    if isinstance(current, dict):
        # Keep every judgement already made; only the bibliographic facts come from the .bib file.
        merged = {name: current.get(name) for name in current}
        merged.update({name: data[name] for name in BIBLIOGRAPHIC_FIELDS})
        data = merged
    # Unchanged fields keep their text, comments included; the .bib file owns only the facts.
    text = yamlio.update_text(current_text, data, header=ENTRY_SCHEMA_LINE)
    if text == current_text:
        return PlannedFile(target, text, "unchanged")
    changed = sorted(
        k for k in data if not isinstance(current, dict) or current.get(k) != data.get(k)
    )
    return PlannedFile(target, text, "update" if force else "exists", changed)

"""BibTeX import: entries of a .bib file become corpus scaffolds, exactly like `masrl add` writes them (bibliographic facts filled in, every tag a placeholder)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import bibtexparser
from bibtexparser.middlewares import (
    LatexDecodingMiddleware,
    MergeNameParts,
    SeparateCoAuthors,
    SplitNameParts,
)
from bibtexparser.middlewares.enclosing import RemoveEnclosingMiddleware
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
from masrl.imports.csv import ImportPlan, PlannedFile, latex_decoder
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

    def _transform_python_value_string(self, python_string: str) -> tuple[str, str]:
        if PLAIN_TEXT.fullmatch(python_string):
            return python_string, ""
        return super()._transform_python_value_string(python_string)


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
    return [
        SeparateCoAuthors(allow_inplace_modification=True),
        SplitNameParts(allow_inplace_modification=True),
        MergeNameParts(style="last", allow_inplace_modification=True),
        DecodeTextFields(),
    ]


def parse_bibtex(
    text: str, source: str = "<bibtex>", warnings: list[str] | None = None
) -> list[BibRecord]:
    """Every entry of a BibTeX text, macros and `#` concatenations resolved; BibtexError lists the
    blocks that could not be read and every undefined or cyclic macro. Fields lost to a stray
    closing brace are added to `warnings` when given."""
    macros = ResolveMacros()
    try:
        library = bibtexparser.parse_string(
            text,
            parse_stack=[
                macros,
                RemoveEnclosingMiddleware(allow_inplace_modification=True),
                *parse_stack(),
            ],
        )
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


def _value(entry: BibEntry, name: str) -> str | None:
    for item in entry.fields:
        if item.key.lower() == name and isinstance(item.value, str):
            value = " ".join(item.value.split())
            return value or None
    return None


def _record(entry: BibEntry) -> BibRecord:
    names = next((f.value for f in entry.fields if f.key.lower() == "author"), [])
    names = [
        " ".join(n.split()) for n in (names if isinstance(names, list) else [names]) if n.strip()
    ]
    complete = not names or names[-1].casefold() != "others"
    authors = [n for n in names if n.casefold() != "others"]
    year_text = _value(entry, "year") or ""
    urls = _urls(entry)
    return BibRecord(
        bib_key=entry.key,
        entry_type=entry.entry_type.lower(),
        line=(entry.start_line or 0) + 1,
        title=_value(entry, "title"),
        authors=authors,
        authors_complete=complete,
        year=int(year_text) if re.fullmatch(r"\d{4}", year_text) else None,
        venue=_venue(entry),
        identifiers=_identifiers(entry, urls),
        urls=urls,
    )


def _venue(entry: BibEntry) -> str | None:
    kind = entry.entry_type.lower()
    preferred = [VENUE_FIELD[kind]] if kind in VENUE_FIELD else []
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
        value = _value(entry, name)
        if value and not URL_MACRO.search(value) and not _is_bare_url(value):
            if name == "journal" and re.match(r"^(arXiv preprint|CoRR\b|ArXiv\b)", value, re.I):
                return "arXiv"
            return value
    return "arXiv" if _arxiv_id(entry) else None


def _arxiv_id(entry: BibEntry) -> str | None:
    eprint = _value(entry, "eprint")
    prefix = (_value(entry, "archiveprefix") or _value(entry, "eprinttype") or "arxiv").lower()
    if eprint and prefix == "arxiv":
        found = ids.parse_arxiv_reference(eprint)
        if found:
            return ids.strip_arxiv_version(found)
    for name in ("journal", "note", "howpublished"):
        match = re.search(r"arXiv:\s*(\S+?)[,;)]?(?:\s|$)", _value(entry, name) or "", re.I)
        if match and ids.parse_arxiv_reference(match[1]):
            return ids.strip_arxiv_version(ids.parse_arxiv_reference(match[1]))
    return None


def _identifiers(entry: BibEntry, urls: list[str]) -> dict:
    doi = _value(entry, "doi")
    if doi:
        match = DOI_URL.search(doi)
        doi = match["doi"] if match else re.sub(r"^doi:\s*", "", doi, flags=re.I)
    found = {"arxiv": _arxiv_id(entry), "doi": doi, "openreview": _value(entry, "openreview")}
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


def _urls(entry: BibEntry) -> list[str]:
    urls = []
    url = _value(entry, "url")
    if url:
        urls.append(URL_MACRO.sub(r"\1", url))
    for name in ("addendum", "howpublished", "note"):
        value = _value(entry, name) or ""
        urls += URL_MACRO.findall(value)
        if name != "addendum" and _is_bare_url(value):  # \url{} was decoded away
            urls.append(value)
    return list(dict.fromkeys(urls))


def _is_bare_url(value: str) -> bool:
    return bool(re.fullmatch(r"https?://\S+", value))


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
    plan = BibImportPlan("papers", [], project.root, warnings=warnings)
    for record in records:
        identities = identities_of(record)
        key = _choose_key(record, project, known_by_rel, identities, taken)
        target = project.corpus_dir / f"{key}.yaml"
        holder = in_corpus.find(identities, record.title, skip=project.relative(target))
        earlier = in_file.find(identities, record.title or "")
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
                ids.normalize_title(record.title or ""),
            )
        )
        taken.add(key)
        plan.files.append(_planned(target, scaffold_from_record(record, key, taxonomy), force))
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
        existing = project.relative(project.corpus_dir / f"{key}.yaml")
        if key not in taken:
            return key
        same_paper = existing in known_by_rel and find_duplicate(
            [known_by_rel[existing]], identities, record.title
        )
        if same_paper:
            return key  # a re-import of the same paper: kept, or updated with --force
    return generate_key(record.title or "", record.authors, record.year, taken)


def _planned(target: Path, data: dict, force: bool) -> PlannedFile:
    if not target.exists():
        return PlannedFile(target, yamlio.dumps(data, header=ENTRY_SCHEMA_LINE), "create")
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

"""BibTeX export and import through bibtexparser 2, and the corpus as one JSON document.

Export: one entry per corpus entry, keyed by the corpus key, sorted by key, fields in a fixed
order. Text is LaTeX-encoded (é -> {\\'e}, & -> \\&, % -> \\%, _ -> \\_), words whose capitals a
bibliography style must not lower-case are braced ({LLM}, {ReAct}), organisation authors are
braced so BibTeX does not split them into given and family names, and a cut-short author list
ends in "and others". Links and identifiers are written verbatim.

Import: entries of a .bib file become corpus scaffolds, exactly like `masrl add` writes them:
the bibliographic facts filled in, every tag a placeholder.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

import bibtexparser
from bibtexparser.library import Library
from bibtexparser.middlewares import (
    AddEnclosingMiddleware,
    LatexDecodingMiddleware,
    LatexEncodingMiddleware,
    MergeCoAuthors,
    MergeNameParts,
    SeparateCoAuthors,
    SortFieldsCustomMiddleware,
    SplitNameParts,
)
from bibtexparser.model import Entry as BibEntry
from bibtexparser.model import Field
from pylatexenc.latexencode import RULE_DICT, UnicodeToLatexConversionRule, UnicodeToLatexEncoder

from masrl.model import identifiers as ids
from masrl.model import yamlio
from masrl.imports.add import KnownRecord, entry_skeleton, find_duplicate, generate_key, known_records
from masrl.exports.csv import DOI_URL, ImportPlan, PlannedFile
from masrl.model.records import ENTRY_SCHEMA_LINE, PLACEHOLDER, Corpus, Entry, Project
from masrl.check.validate import KEY_PATTERN

# Written and read back verbatim: escaping a '_' or '%' would break a link.
VERBATIM_FIELDS = frozenset({"url", "doi", "eprint", "openreview", "addendum"})
FIELD_ORDER = (
    "author", "title", "booktitle", "journal", "howpublished", "type", "institution", "year",
    "eprint", "archiveprefix", "primaryclass", "doi", "openreview", "url", "addendum",
)
VENUE_FIELD = {"inproceedings": "booktitle", "article": "journal", "misc": "howpublished", "techreport": "type"}
PROCEEDINGS = re.compile(
    r"\b(AAAI|AAMAS|ACL|EMNLP|NAACL|EACL|COLING|COLM|ICLR|ICML|NeurIPS|NIPS|IJCAI|UAI|AISTATS|KDD|"
    r"CVPR|ICCV|ECCV|SIGIR|WWW|CHI|AISec|CCS|USENIX|Workshop|Conference|Proceedings|Symposium|Findings)\b",
    re.I,
)
URL_MACRO = re.compile(r"\\url\{([^{}]*)\}")

# Private-use characters that mark protective braces until the LaTeX encoder turns them into
# { and }; a literal brace in a title is escaped instead.
OPEN_PROTECT, CLOSE_PROTECT = "\ue000", "\ue001"


class BibtexError(Exception):
    """A .bib file that cannot be imported; carries every problem found."""

    def __init__(self, path: Path | str, problems: list[str]):
        super().__init__("\n".join(problems))
        self.path = path
        self.problems = problems


# ---------------------------------------------------------------------------------------------
# Middlewares


class _BibtexLatexEncoder(UnicodeToLatexEncoder):
    """pylatexenc's encoder with accents in braces ({\\'e}), bare escapes for special characters
    (\\&, not {\\&}) and the protection marks turned into braces."""

    _BRACED_ESCAPE = re.compile(r"\{(\\[&%_#${}])\}")

    def __init__(self):
        super().__init__(
            conversion_rules=[
                UnicodeToLatexConversionRule(RULE_DICT, {ord(OPEN_PROTECT): "{", ord(CLOSE_PROTECT): "}"}),
                "defaults",
            ],
            replacement_latex_protection="braces-almost-all",
            unknown_char_policy="keep",
        )

    def unicode_to_latex(self, s: str) -> str:
        return self._BRACED_ESCAPE.sub(r"\1", super().unicode_to_latex(s))


class _VerbatimFieldsKept:
    """Mixin for string-transforming middlewares: skip links and identifiers, and transform
    each item of a list value (names after SeparateCoAuthors)."""

    def transform_entry(self, entry, library):
        verbatim = [f for f in entry.fields if f.key.lower() in VERBATIM_FIELDS]
        entry.fields = [f for f in entry.fields if f.key.lower() not in VERBATIM_FIELDS]
        errors = []
        for item in entry.fields:
            if isinstance(item.value, list):
                item.value = self._transform_all_strings(item.value, errors)
        block = super().transform_entry(entry, library)
        entry.fields = entry.fields + verbatim
        errors = [e for e in errors if e]
        if errors:
            raise BibtexError(entry.key, [f"{entry.key}: {e}" for e in errors])
        return block


class EncodeTextFields(_VerbatimFieldsKept, LatexEncodingMiddleware):
    def __init__(self):
        super().__init__(encoder=_BibtexLatexEncoder(), allow_inplace_modification=True)


class DecodeTextFields(_VerbatimFieldsKept, LatexDecodingMiddleware):
    def __init__(self):
        super().__init__(allow_inplace_modification=True)


# ---------------------------------------------------------------------------------------------
# Export


def _is_sentence_case(words: list[str]) -> bool:
    """True when most longer words after the first are lower case ('Learning to route agents')."""
    longer = [w for w in words[1:] if len(w) >= 4 and w[0].isalpha()]
    return bool(longer) and sum(w[0].isupper() for w in longer) / len(longer) < 0.5


_SEGMENT = re.compile(r"^(?P<lead>[^\w]*)(?P<core>.*?)(?P<trail>[^\w]*)$", re.S)


def _needs_protection(core: str, first_word: bool, sentence_case: bool) -> bool:
    if not any(c.isalpha() for c in core):
        return False
    if any(c.isupper() for c in core[1:]):  # LLM, ReAct, GRPO, MAGRPO, iPhone
        return True
    if core[0].isupper() and any(c.isdigit() for c in core):  # K2.5, GPT4
        return True
    return sentence_case and not first_word and core[0].isupper()  # a proper noun


def protect_title(title: str) -> str:
    """Mark the words a bibliography style must keep as written; see OPEN_PROTECT."""
    words = title.split()
    sentence_case = _is_sentence_case(words)
    protected = []
    for index, word in enumerate(words):
        segments = []
        for position, segment in enumerate(word.split("-")):
            match = _SEGMENT.match(segment)
            lead, core, trail = match["lead"], match["core"], match["trail"]
            if _needs_protection(core, index == 0 and position == 0, sentence_case):
                core = f"{OPEN_PROTECT}{core}{CLOSE_PROTECT}"
            segments.append(f"{lead}{core}{trail}")
        protected.append("-".join(segments))
    return " ".join(protected)


def bib_name(author: str) -> str:
    """'Surname, Given' stays; an organisation ('Kimi Team', 'OpenAI') is braced whole."""
    return author if "," in author else f"{OPEN_PROTECT}{author}{CLOSE_PROTECT}"


def entry_type(entry: Entry) -> str:
    if entry.evidence_level == "peer_reviewed":
        return "inproceedings" if PROCEEDINGS.search(entry.venue) else "article"
    if entry.evidence_level == "technical_report":
        return "techreport"
    return "misc"


def bib_entry(entry: Entry) -> BibEntry:
    """One corpus entry as a bibtexparser Entry with plain (unicode) values."""
    kind = entry_type(entry)
    authors = [bib_name(a) for a in entry.authors] + ([] if entry.authors_complete else ["others"])
    values: list[tuple[str, object]] = [
        ("author", authors),
        ("title", protect_title(entry.title)),
        (VENUE_FIELD[kind], entry.venue),
    ]
    if kind == "techreport":
        values.append(("institution", entry.affiliation or entry.first_author))
    values.append(("year", str(entry.year)))
    if entry.arxiv_id:
        values += [("eprint", entry.arxiv_id), ("archivePrefix", "arXiv")]
        if entry.primary_category:
            values.append(("primaryClass", entry.primary_category))
    if entry.identifiers.get("doi"):
        values.append(("doi", entry.identifiers["doi"]))
    if entry.identifiers.get("openreview"):
        values.append(("openreview", entry.identifiers["openreview"]))
    if entry.urls:
        values.append(("url", entry.urls[0]))
    if len(entry.urls) > 1:  # BibTeX has one url field; further links go to the addendum
        values.append(("addendum", " ".join(f"\\url{{{u}}}" for u in entry.urls[1:])))
    return BibEntry(kind, entry.key, [Field(k, v) for k, v in values])


def export_stack() -> list:
    return [
        MergeCoAuthors(allow_inplace_modification=True),
        EncodeTextFields(),
        SortFieldsCustomMiddleware(FIELD_ORDER, allow_inplace_modification=True),
        AddEnclosingMiddleware(
            reuse_previous_enclosing=False, enclose_integers=True, default_enclosing="{",
            allow_inplace_modification=True,
        ),
    ]


def export_bibtex(entries: list[Entry]) -> str:
    """The whole corpus as BibTeX: stable keys, sorted by key, deterministic."""
    library = Library([bib_entry(e) for e in sorted(entries, key=lambda e: e.key)])
    fmt = bibtexparser.BibtexFormat()
    fmt.indent = "  "
    fmt.block_separator = "\n"
    fmt.trailing_comma = True
    return bibtexparser.write_string(library, unparse_stack=export_stack(), bibtex_format=fmt)


# ---------------------------------------------------------------------------------------------
# Parsing


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


def parse_bibtex(text: str, source: str = "<bibtex>") -> list[BibRecord]:
    """Every entry of a BibTeX text; BibtexError lists the blocks that could not be read."""
    try:
        library = bibtexparser.parse_string(text, append_middleware=parse_stack())
    except BibtexError as exc:
        raise BibtexError(source, [f"{source}: {p}" for p in exc.problems]) from exc
    problems = [f"{source}:{block.start_line + 1 if block.start_line is not None else '?'}: "
                f"cannot read this block ({_first_line(block.error)})" for block in library.failed_blocks]
    if problems:
        raise BibtexError(source, problems)
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
    names = [" ".join(n.split()) for n in (names if isinstance(names, list) else [names]) if n.strip()]
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
    for name in (*preferred, "booktitle", "journal", "howpublished", "type", "institution", "publisher", "school"):
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


# ---------------------------------------------------------------------------------------------
# Import


@dataclass
class BibImportPlan(ImportPlan):
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (bib key, why)


# Fields a .bib file states; on --force only these replace what an existing file holds.
BIBLIOGRAPHIC_FIELDS = ("title", "authors", "authors_complete", "year", "venue", "identifiers", "urls")


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


def scaffold_from_record(record: BibRecord, key: str) -> dict:
    return entry_skeleton(
        key=key,
        title=record.title or PLACEHOLDER,
        authors=record.authors,
        authors_complete=record.authors_complete,
        year=record.year if record.year is not None else PLACEHOLDER,
        venue=record.venue or PLACEHOLDER,
        identifiers=record.identifiers,
        urls=record.urls or fallback_urls(record.identifiers),
    )


def plan_bib_import(path: Path, project: Project, force: bool = False) -> BibImportPlan:
    """Work out every file an import would write, without writing anything."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        raise BibtexError(path, [f"{path}: the file is not UTF-8 text; save it as UTF-8"]) from exc
    records = parse_bibtex(text, str(path))
    problems = [f"{path}:{r.line}: entry '{r.bib_key}' has no title" for r in records if not r.title]
    if problems:
        raise BibtexError(path, problems)

    known = known_records(project)
    taken = {p.stem for p in project.entry_paths()}
    plan = BibImportPlan("papers", [])
    seen_in_file: list[tuple[str, set[str], str]] = []  # (key, identities, title) of earlier entries
    for record in records:
        identities = identities_of(record)
        key = _choose_key(record, project, known, identities, taken)
        target = project.corpus_dir / f"{key}.yaml"
        holder = find_duplicate(known, identities, record.title, skip=project.relative(target))
        earlier = _earlier_in_file(seen_in_file, identities, record.title)
        if holder or earlier:
            plan.skipped.append((record.bib_key, f"already recorded in {holder}" if holder else f"repeats entry '{earlier}' of this file"))
            continue
        seen_in_file.append((record.bib_key, identities, record.title))
        taken.add(key)
        plan.files.append(_planned(target, scaffold_from_record(record, key), force))
    return plan


def _choose_key(record: BibRecord, project: Project, known, identities: set[str], taken: set[str]) -> str:
    """The .bib key in corpus form; a fresh key when it is unusable or names another paper."""
    key = corpus_key_for(record.bib_key)
    if key and KEY_PATTERN.match(key):
        existing = project.corpus_dir / f"{key}.yaml"
        if key not in taken:
            return key
        same_paper = find_duplicate([r for r in known if r.rel == project.relative(existing)], identities, record.title)
        if same_paper:
            return key  # a re-import of the same paper: kept, or updated with --force
    return generate_key(record.title or "", record.authors, record.year, taken)


def _earlier_in_file(seen, identities: set[str], title: str | None) -> str | None:
    records = [KnownRecord(key, key, frozenset(i), ids.normalize_title(t or "")) for key, i, t in seen]
    holder = find_duplicate(records, identities, title or "")
    return holder.split(" (")[0] if holder else None


def _planned(target: Path, data: dict, force: bool) -> PlannedFile:
    if not target.exists():
        return PlannedFile(target, yamlio.dumps(data, header=ENTRY_SCHEMA_LINE), "create")
    current_text = target.read_text(encoding="utf-8")
    try:
        current = yamlio.loads(current_text)
    except yamlio.YamlError:
        current = None
    if isinstance(current, dict):
        # Keep every judgement already made; only the bibliographic facts come from the .bib file.
        merged = {name: current.get(name) for name in current}
        merged.update({name: data[name] for name in BIBLIOGRAPHIC_FIELDS})
        data = merged
    text = yamlio.dumps(data, header=ENTRY_SCHEMA_LINE)
    if text == current_text:
        return PlannedFile(target, text, "unchanged")
    changed = sorted(k for k in data if not isinstance(current, dict) or current.get(k) != data.get(k))
    return PlannedFile(target, text, "update" if force else "exists", changed)


# ---------------------------------------------------------------------------------------------
# JSON


JSON_FORMAT_VERSION = 1


def corpus_document(corpus: Corpus) -> dict:
    """Entries, exclusions and the vocabularies: everything the site needs, in one mapping."""
    return {
        "format": "masrl-corpus",
        "format_version": JSON_FORMAT_VERSION,
        "entries": [e.to_data() for e in sorted(corpus.entries, key=lambda e: e.key)],
        "exclusions": [x.to_data() for x in sorted(corpus.exclusions, key=lambda x: x.record_id)],
        "taxonomy": {
            name: {
                "label": axis.label,
                "description": axis.description,
                "values": [
                    {"id": v.id, "label": v.label, "definition": v.definition, "order": v.order, **v.extra}
                    for v in axis.values
                ],
            }
            for name, axis in corpus.taxonomy.axes.items()
        },
    }


def export_json(corpus: Corpus) -> str:
    """Deterministic: sorted keys, two-space indent, UTF-8, a final newline."""
    return json.dumps(corpus_document(corpus), indent=2, sort_keys=True, ensure_ascii=False) + "\n"

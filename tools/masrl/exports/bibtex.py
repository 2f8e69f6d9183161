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

import functools
import re
import unicodedata

import bibtexparser
from bibtexparser.library import Library
from bibtexparser.middlewares import (
    AddEnclosingMiddleware,
    LatexEncodingMiddleware,
    MergeCoAuthors,
    SortFieldsCustomMiddleware,
)
from bibtexparser.model import Entry as BibEntry
from bibtexparser.model import Field
from pylatexenc.latexencode import RULE_DICT, UnicodeToLatexConversionRule, UnicodeToLatexEncoder

from masrl.errors import ProblemsError
from masrl.model.records import Entry

# Written and read back verbatim: escaping a '_' or '%' would break a link.
VERBATIM_FIELDS = frozenset({"url", "doi", "eprint", "openreview", "addendum"})
FIELD_ORDER = (
    "author",
    "title",
    "booktitle",
    "journal",
    "howpublished",
    "type",
    "institution",
    "year",
    "eprint",
    "archiveprefix",
    "primaryclass",
    "doi",
    "openreview",
    "url",
    "addendum",
)
VENUE_FIELD = {
    "inproceedings": "booktitle",
    "article": "journal",
    "misc": "howpublished",
    "techreport": "type",
}
PROCEEDINGS = re.compile(
    r"\b(AAAI|AAMAS|ACL|EMNLP|NAACL|EACL|COLING|COLM|ICLR|ICML|NeurIPS|NIPS|IJCAI|UAI|AISTATS|KDD|"
    r"CVPR|ICCV|ECCV|SIGIR|WWW|CHI|AISec|CCS|USENIX|Workshop|Conference|Proceedings|Symposium|Findings)\b",
    re.I,
)

# Private-use characters that mark protective braces until the LaTeX encoder turns them into
# { and }; a literal brace in a title is escaped instead.
OPEN_PROTECT, CLOSE_PROTECT = "\ue000", "\ue001"


class BibtexError(ProblemsError):
    """A .bib file that cannot be imported, or an entry that cannot be written; carries every problem found."""


# ---------------------------------------------------------------------------------------------
# Middlewares


class _BibtexLatexEncoder(UnicodeToLatexEncoder):
    """pylatexenc's encoder with accents in braces ({\\'e}), bare escapes for special characters
    (\\&, not {\\&}) and the protection marks turned into braces."""

    _BRACED_ESCAPE = re.compile(r"\{(\\[&%_#${}])\}")

    def __init__(self):
        super().__init__(
            conversion_rules=[
                UnicodeToLatexConversionRule(
                    RULE_DICT, {ord(OPEN_PROTECT): "{", ord(CLOSE_PROTECT): "}"}
                ),
                "defaults",
            ],
            replacement_latex_protection="braces-almost-all",
            unknown_char_policy="keep",
        )

    def unicode_to_latex(self, s: str) -> str:
        return _latex_encoded(s)

    def _encode(self, s: str) -> str:
        # pylatexenc walks every character in Python and appends to its result through an
        # attribute, which copies the string each time: quadratic (a 2 MB title took a minute).
        # Runs of ASCII it leaves as they are (checked character by character) are copied; only
        # the text between them goes through pylatexenc. NFC first, as pylatexenc does, so no
        # accent is cut from its letter.
        s = unicodedata.normalize("NFC", s)
        out, position = [], 0
        for run in _UNCHANGED_RUN.finditer(s):
            if run.start() > position:
                out.append(self._encode_piece(s[position : run.start()]))
            out.append(run.group())
            position = run.end()
        if position < len(s):
            out.append(self._encode_piece(s[position:]))
        return "".join(out)

    def _encode_piece(self, s: str) -> str:
        return "".join(
            self._BRACED_ESCAPE.sub(r"\1", super(_BibtexLatexEncoder, self).unicode_to_latex(part))
            for part in _bounded_parts(s)
        )


def _bounded_parts(s: str, size: int = 256):
    """s cut into parts of about `size` characters, each cut before a letter, digit or space or a
    non-ASCII character that starts a new character (no accent is separated from its letter)."""
    start = 0
    while len(s) - start > size:
        cut = start + size
        while cut < len(s) and not (
            s[cut].isalnum()
            or s[cut] == " "
            or (ord(s[cut]) > 127 and not unicodedata.combining(s[cut]))
        ):
            cut += 1
        if cut >= len(s):
            break
        yield s[start:cut]
        start = cut
    yield s[start:]


# ASCII the encoder gives back unchanged, alone and in sequence ('...', '--', "''" included).
_UNCHANGED_RUN = re.compile(r"[0-9A-Za-z!'()*+,\-./:;=?@\[\]`| \t\n\r]{8,}")


@functools.cache
def _shared_encoder() -> _BibtexLatexEncoder:
    return _BibtexLatexEncoder()


@functools.lru_cache(maxsize=65536)
def _latex_encoded(s: str) -> str:
    """One string LaTeX-encoded. Every encoder is configured alike, so the result depends on the
    string alone; venues, names and titles recur across entries and across the site's two passes
    (one per entry, one for the whole file), and pylatexenc walks each character in Python."""
    return _shared_encoder()._encode(s)


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


def verbatim(value: str) -> str:
    """A link or DOI safe inside {...}: validate refuses braces and backslashes in them, and this
    percent-encodes any that reach the writer anyway, so no value can close the field early."""
    return value.replace("\\", "%5C").replace("{", "%7B").replace("}", "%7D")


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
        values.append(("doi", verbatim(entry.identifiers["doi"])))
    if entry.identifiers.get("openreview"):
        values.append(("openreview", entry.identifiers["openreview"]))
    if entry.urls:
        values.append(("url", verbatim(entry.urls[0])))
    if len(entry.urls) > 1:  # BibTeX has one url field; further links go to the addendum
        values.append(("addendum", " ".join(f"\\url{{{verbatim(u)}}}" for u in entry.urls[1:])))
    return BibEntry(kind, entry.key, [Field(k, v) for k, v in values])


def export_stack() -> list:
    return [
        MergeCoAuthors(allow_inplace_modification=True),
        EncodeTextFields(),
        SortFieldsCustomMiddleware(FIELD_ORDER, allow_inplace_modification=True),
        AddEnclosingMiddleware(
            reuse_previous_enclosing=False,
            enclose_integers=True,
            default_enclosing="{",
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


# ---------------------------------------------------------------------------------------------
# Import


# ---------------------------------------------------------------------------------------------
# JSON

"""Identifier and URL formats: arXiv (new and old style), DOI, OpenReview, and the screening log's ids."""

from __future__ import annotations

import functools
import re
from urllib.parse import urlparse

from rapidfuzz import fuzz

# New style: YYMM.NNNN (2007-2014) or YYMM.NNNNN (2015 on), optional version.
ARXIV_NEW = re.compile(r"^(?P<yy>\d{2})(?P<mm>0[1-9]|1[0-2])\.\d{4,5}(?:v\d+)?$")
# Old style: archive(.SUBJ)/YYMMNNN, e.g. hep-th/9901001 or math.GT/0309136.
ARXIV_OLD = re.compile(r"^[a-z]+(?:-[a-z]+)*(?:\.[A-Z]{2})?/\d{2}(?:0[1-9]|1[0-2])\d{3}(?:v\d+)?$")
# No braces, backslashes or quotes: they would break out of a BibTeX field or an HTML attribute.
DOI = re.compile(r"^10\.\d{4,9}/[^\s{}\\\"<>\x00-\x1f\x7f]+$")
# Characters RFC 3986 never allows unencoded, and that would break out of a BibTeX field.
URL_FORBIDDEN = re.compile(r"[{}\\\"<>^`|\x00-\x1f\x7f]")
OPENREVIEW = re.compile(r"^[A-Za-z0-9_-]{8,16}$")
ACL = re.compile(r"^(?:\d{4}\.[a-z0-9]+-[a-z0-9]+\.\d+|[A-Z]\d{2}-\d{4})$")
GITHUB = re.compile(r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$")
LOCAL_ID = re.compile(r"^[A-Z][A-Z0-9]*(?:-[A-Z0-9]+)+$")

# Keys and record ids name files (corpus/<key>.yaml, exclusions/<record_id>.yaml): nothing else
# may reach a path, so no '/', '..' or absolute path can ever be built from them.
KEY_PATTERN = re.compile(r"^[a-z0-9][a-z0-9-]*[a-z0-9]$|^[a-z0-9]$")
RECORD_ID_PATTERN = re.compile(r"^E\d{3,}$")
MAX_STEM_LENGTH = 100


def check_file_stem(value, kind: str = "key") -> str | None:
    """None when ``value`` is a usable key (kind "key") or record id (kind "record_id")."""
    pattern, example = (KEY_PATTERN, "magrpo2025") if kind == "key" else (RECORD_ID_PATTERN, "E033")
    if not isinstance(value, str) or len(value) > MAX_STEM_LENGTH or not pattern.fullmatch(value):
        shown = repr(value)[:60]
        rule = (
            "only lower-case letters, digits and inner dashes"
            if kind == "key"
            else "E followed by at least three digits"
        )
        return (
            f"the {kind.replace('_', ' ')} {shown} cannot name a file: use {rule} (e.g. {example})"
        )
    return None


ARXIV_URL = re.compile(r"arxiv\.org/(?:abs|pdf)/(?P<id>[^?#\s]+?)(?:\.pdf)?/?(?:[?#]\S*)?$", re.I)
OPENREVIEW_URL = re.compile(r"openreview\.net/(?:forum|pdf)\?id=(?P<id>[A-Za-z0-9_-]+)", re.I)


def is_arxiv_id(value: str) -> bool:
    return bool(ARXIV_NEW.match(value) or ARXIV_OLD.match(value))


def strip_arxiv_version(value: str) -> str:
    return re.sub(r"v\d+$", "", value)


def arxiv_year(value: str) -> int | None:
    """The year of an arXiv id's first version (new style and old style)."""
    match = ARXIV_NEW.match(value)
    if match:
        return 2000 + int(match["yy"])
    if ARXIV_OLD.match(value):
        yy = int(value.split("/")[1][:2])
        return (1900 if yy >= 91 else 2000) + yy
    return None


def parse_arxiv_reference(text: str) -> str | None:
    """Accept '2508.04652', 'arXiv:2508.04652v2' or an abs/pdf URL; return the bare id or None."""
    text = text.strip()
    match = ARXIV_URL.search(text)
    if match:
        text = match["id"]
    if text.lower().startswith("arxiv:"):
        text = text[6:]
    return text if is_arxiv_id(text) else None


# An address every check of check_url passes, told at once (a corpus holds thousands of links):
# http(s), a host of letters, digits and dashes with a dot, an optional port, then printable
# ASCII other than space and URL_FORBIDDEN. Anything else goes through the checks one by one.
_PLAIN_URL = re.compile(
    r"https?://[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+(?::[0-9]*)?(?:[/?#][!#-;=?-\[\]_a-z~]*)?"
)


def check_url(url: str) -> str | None:
    """None when the URL is a well-formed http(s) address; otherwise what is wrong with it."""
    if isinstance(url, str) and _PLAIN_URL.fullmatch(url):
        return None
    if not isinstance(url, str) or not url.strip():
        return "is empty"
    if url != url.strip() or any(c.isspace() for c in url):
        return "contains white space"
    forbidden = URL_FORBIDDEN.search(url)
    if forbidden:
        return f"contains {forbidden.group()!r}, which a link may not hold unencoded (write it as %{ord(forbidden.group()):02X})"
    try:
        parsed = urlparse(url)
        parsed.hostname  # noqa: B018 - raises on a malformed IPv6 host
    except ValueError as exc:
        return f"cannot be parsed ({exc})"
    if parsed.scheme.lower() not in ("http", "https"):
        return (
            f"uses the scheme '{parsed.scheme or '(none)'}'; only http and https links are allowed"
        )
    if "." not in (parsed.hostname or ""):
        return "has no valid host name"
    return None


# Screening-log identifiers carry a prefix naming their kind.
_PREFIXED = {
    "arxiv": (is_arxiv_id, "arXiv:2305.14325"),
    "openreview": (lambda v: bool(OPENREVIEW.match(v)), "OpenReview:ZIpdu0cHYu"),
    "acl": (lambda v: bool(ACL.match(v)), "ACL:2024.emnlp-main.912"),
    "github": (lambda v: bool(GITHUB.match(v)), "github:owner/repo"),
    "doi": (lambda v: bool(DOI.match(v)), "doi:10.1145/1234567"),
}


def check_record_identifier(value: str) -> str | None:
    """None when a screening-log identifier is well formed; otherwise the problem."""
    if ":" in value:
        prefix, rest = value.split(":", 1)
        known = _PREFIXED.get(prefix.lower())
        if known is None:
            return (
                f"has the unknown prefix '{prefix}'; use one of arXiv, OpenReview, ACL, github, doi"
            )
        check, example = known
        return None if check(rest) else f"is not a well-formed {prefix} identifier (e.g. {example})"
    if LOCAL_ID.match(value):
        return None
    return "is neither a prefixed identifier (arXiv:..., OpenReview:..., ACL:..., github:..., doi:...) nor an upper-case local id such as DEVIN-DOCS"


def normalized_keys(
    identifiers: dict | None, record_identifier: str | None = None, urls=()
) -> set[str]:
    """Comparable identity keys ('arxiv:2305.14325', 'doi:10.x/y', ...) for duplicate detection."""
    keys: set[str] = set()
    identifiers = identifiers or {}
    if identifiers.get("arxiv"):
        keys.add("arxiv:" + strip_arxiv_version(str(identifiers["arxiv"])))
    if identifiers.get("doi"):
        keys.add("doi:" + str(identifiers["doi"]).lower())
    if identifiers.get("openreview"):
        keys.add("openreview:" + str(identifiers["openreview"]))
    if record_identifier and ":" in record_identifier:
        prefix, rest = record_identifier.split(":", 1)
        prefix = prefix.lower()
        rest = strip_arxiv_version(rest) if prefix == "arxiv" else rest
        keys.add(f"{prefix}:{rest.lower() if prefix in ('doi', 'github') else rest}")
    for url in urls:
        if not isinstance(url, str):
            continue
        match = ARXIV_URL.search(url)
        if match and is_arxiv_id(match["id"]):
            keys.add("arxiv:" + strip_arxiv_version(match["id"]))
        match = OPENREVIEW_URL.search(url)
        if match:
            keys.add("openreview:" + match["id"])
    return keys


def normalize_title(title: str) -> str:
    """Lower-case letters and digits only, single-spaced: the form near-duplicate titles are compared in."""
    return " ".join(re.sub(r"[^0-9a-z]+", " ", title.casefold()).split())


TITLE_SIMILARITY = 95  # rapidfuzz ratio at or above which two titles count as the same paper


_ROMAN = {"ii", "iii", "iv", "vi", "vii", "viii", "ix", "xi", "xii"}
_SERIES_WORDS = {
    "part",
    "volume",
    "vol",
    "chapter",
    "phase",
    "stage",
    "round",
    "season",
    "episode",
    "book",
}


@functools.lru_cache(
    maxsize=65536
)  # each title is compared with several candidates during validation
def distinguishing_tokens(normalized: str) -> tuple[str, ...]:
    """Numbers and version tokens of a normalised title: 'qwen3', '2', 'v2', 'ii', 'part i'.

    Titles that differ in these name different papers (Qwen2 vs Qwen3, Llama 2 vs Llama 3,
    Part I vs Part II) however similar the rest is.
    """
    words = normalized.split()
    tokens = []
    for index, word in enumerate(words):
        if not word.isalpha():  # letters only hold no digit: most words stop here
            if any(map(str.isdigit, word)):
                tokens.append(word)
        elif word in _ROMAN:
            tokens.append(word)
        elif word in ("i", "v", "x") and index and words[index - 1] in _SERIES_WORDS:
            tokens.append(word)
    return tuple(sorted(tokens))


def same_title(first: str, second: str) -> bool:
    """Whether two titles, already passed through normalize_title, name the same paper."""
    if first == second:
        return True
    if distinguishing_tokens(first) != distinguishing_tokens(second):
        return False
    return fuzz.ratio(first, second) >= TITLE_SIMILARITY

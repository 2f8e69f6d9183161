"""Paper metadata from the arXiv API, through the `arxiv` package, with clear errors.

The `arxiv` package does the querying, paging and Atom parsing. Around it this module adds what
a command line needs: a configurable endpoint (tests point it at a local server), a timeout on
every request, bounded retries with backoff that honour ``Retry-After``, a strict check of each
answer (so a truncated or non-XML answer is an error, not "no results") and one exception class
per failure, each with a message a person can act on.
"""

from __future__ import annotations

import datetime as dt
import email.utils
import re
import time
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from urllib.parse import urlparse

import arxiv
import requests
from lxml import etree
from requests.adapters import HTTPAdapter

from masrl.errors import RemoteError
from masrl.imports.http_body import BodyBroken, BodyTimeout, BodyTooLarge, read_body
from masrl.model import identifiers as ids
from masrl.text import strip_controls

DEFAULT_API_URL = "https://export.arxiv.org/api/query"
API_URL_ENV = "MASRL_ARXIV_API_URL"
ABS_URL = "https://arxiv.org/abs/{}"

ATOM = "http://www.w3.org/2005/Atom"
_NS = {"atom": ATOM}
RATE_LIMIT_STATUSES = (429, 503)


# ---------------------------------------------------------------------------------------------
# Settings and errors


@dataclass(frozen=True)
class ArxivSettings:
    """How to talk to the API. The defaults follow arXiv's terms of use (one request every 3 s)."""

    api_url: str = DEFAULT_API_URL
    timeout: float = 30.0  # seconds per request
    retries: int = 3  # further attempts after the first one fails
    backoff: float = 3.0  # seconds before the first retry; doubles on each further retry
    max_wait: float = 60.0  # longest Retry-After honoured; a longer one stops at once
    delay: float = 3.0  # seconds between consecutive requests
    batch_size: int = 50  # ids per id_list query
    deadline: float = 120.0  # seconds for one whole lookup, retries and waits included
    max_bytes: int = 20 * 1024 * 1024  # largest answer read (after decompression)

    def __post_init__(self):
        parsed = urlparse(self.api_url)
        if parsed.scheme not in ("http", "https") or not parsed.netloc:
            raise ArxivConfigError(f"the arXiv API address {self.api_url!r} is not an http(s) URL")
        if self.timeout <= 0:
            raise ArxivConfigError("the timeout must be a positive number of seconds")
        if self.deadline <= 0 or self.max_bytes <= 0:
            raise ArxivConfigError("the deadline and the size limit must be positive")


class ArxivLookupError(RemoteError):
    """Any failure to get metadata from arXiv; ``message`` is ready for the terminal."""

    retryable = False


class ArxivConfigError(ArxivLookupError):
    """A setting that cannot work (e.g. an API address that is not http(s))."""


class ArxivUnreachable(ArxivLookupError):
    retryable = True


class ArxivTimeout(ArxivLookupError):
    retryable = True


class ArxivServerError(ArxivLookupError):
    retryable = True


class ArxivRateLimited(ArxivLookupError):
    retryable = True

    def __init__(self, message: str, retry_after: float | None = None):
        super().__init__(message)
        self.retry_after = retry_after


class ArxivBadAnswer(ArxivLookupError):
    """An answer that is empty, not XML or not an Atom feed (often transient)."""

    retryable = True


class ArxivRequestRejected(ArxivLookupError):
    """A 4xx answer, or an error entry in the feed: asking again will not help."""


class ArxivTooLarge(ArxivLookupError):
    """An answer larger than ArxivSettings.max_bytes."""


class ArxivRedirected(ArxivLookupError):
    """A redirect to another host: masrl only talks to the address it was given."""


class ArxivNotFound(ArxivLookupError):
    """arXiv answered, but has no paper under the identifier."""


# ---------------------------------------------------------------------------------------------
# Metadata


@dataclass(frozen=True)
class PaperMetadata:
    arxiv_id: str  # without version, e.g. 2508.04652
    version: str  # latest version, e.g. v7
    title: str
    authors: tuple[str, ...]  # "Surname, Given", in order
    published: str  # date of the first version, YYYY-MM-DD
    updated: str  # date of the latest version, YYYY-MM-DD
    abstract: str = ""
    doi: str | None = None
    journal_ref: str | None = None
    primary_category: str | None = None
    first_affiliation: str | None = None
    categories: tuple[str, ...] = ()  # every arXiv category, primary first
    raw_authors: tuple[str, ...] = field(default=(), compare=False)

    @property
    def year(self) -> int:
        return int(self.published[:4])

    @property
    def url(self) -> str:
        return ABS_URL.format(self.arxiv_id)

    def to_json(self, include_abstract: bool = False) -> dict:
        data = asdict(self)
        data["authors"] = list(self.authors)
        data["raw_authors"] = list(self.raw_authors)
        if not include_abstract:
            data.pop("abstract")
        return data

    @classmethod
    def from_json(cls, data: dict) -> PaperMetadata:
        values = dict(data)
        values["authors"] = tuple(values.get("authors", ()))
        values["raw_authors"] = tuple(values.get("raw_authors", ()))
        values["categories"] = tuple(values.get("categories", ()))
        return cls(**values)


_NAME_PARTICLES = {
    "van",
    "von",
    "der",
    "den",
    "de",
    "del",
    "della",
    "di",
    "da",
    "dos",
    "du",
    "la",
    "le",
    "ten",
    "ter",
}
_NAME_SUFFIXES = {"jr", "jr.", "sr", "sr.", "ii", "iii", "iv"}
_ORGANISATION_WORDS = {
    "team",
    "lab",
    "labs",
    "group",
    "inc",
    "inc.",
    "consortium",
    "collaboration",
    "project",
}


def surname_first(name: str) -> str:
    """'Shuo Liu' -> 'Liu, Shuo'; 'Elise van der Pol' -> 'van der Pol, Elise'.

    Names that already hold a comma, single words and organisations ('Kimi Team',
    'DeepSeek-AI') are returned unchanged.
    """
    name = " ".join(name.split())
    words = name.split(" ")
    if "," in name or len(words) < 2 or _is_organisation(words):
        return name
    suffix = words.pop() if len(words) > 2 and words[-1].casefold() in _NAME_SUFFIXES else None
    start = len(words) - 1
    while start > 1 and words[start - 1] in _NAME_PARTICLES:  # lower-case particles only
        start -= 1
    surname, given = " ".join(words[start:]), " ".join(words[:start])
    return f"{surname}, {suffix}, {given}" if suffix else f"{surname}, {given}"


def _is_organisation(words: list[str]) -> bool:
    # "AI" only in capitals: "Meta AI" is a lab, "Ai Han" and "Qingyao Ai" are people
    return any(w.casefold() in _ORGANISATION_WORDS or w == "AI" or w.endswith("-AI") for w in words)


def _day(moment: dt.datetime) -> str:
    return moment.date().isoformat()


def _clean(text: str | None) -> str | None:
    if text is None:
        return None
    text = " ".join(unicodedata.normalize("NFC", text).split())
    text = strip_controls(
        text
    )  # an ESC or bidi override in a feed never reaches a file or a terminal
    return text or None


def metadata_from_result(result: arxiv.Result) -> PaperMetadata:
    short_id = result.get_short_id()
    match = re.match(r"^(?P<id>.+?)(?P<version>v\d+)?$", short_id)
    raw_authors = tuple(_clean(a.name) or "" for a in result.authors)
    first_affiliation = (
        result.authors[0].affiliation[0]
        if result.authors and result.authors[0].affiliation
        else None
    )
    return PaperMetadata(
        arxiv_id=match["id"],
        version=match["version"] or "v1",
        title=_clean(result.title) or "",
        authors=tuple(surname_first(a) for a in raw_authors if a),
        published=_day(result.published),
        updated=_day(result.updated),
        abstract=_clean(result.summary) or "",
        doi=_clean(result.doi),
        journal_ref=_clean(result.journal_ref),
        primary_category=_clean(result.primary_category),
        first_affiliation=_clean(first_affiliation),
        raw_authors=raw_authors,
        categories=tuple(
            dict.fromkeys(c for c in (result.primary_category, *result.categories) if c)
        ),
    )


# ---------------------------------------------------------------------------------------------
# The client


def _origin(url: str) -> tuple[str, str, int | None]:
    parts = urlparse(url)
    return parts.scheme.lower(), (parts.hostname or "").lower(), parts.port


class _GuardedAdapter(HTTPAdapter):
    """Every request the `arxiv` package sends passes here (redirects too), so this is where the
    limits hold: a timeout on each read, one deadline for the whole lookup, a cap on the body,
    and no redirect to another host (which would also defeat "loopback only" in tests)."""

    def __init__(self, client: ArxivClient):
        super().__init__(max_retries=0)
        self.client = client

    def send(self, request, **kwargs):
        settings = self.client.settings
        if _origin(request.url) != _origin(settings.api_url):
            raise ArxivRedirected(
                f"arXiv redirected to {urlparse(request.url).netloc or request.url}; masrl only follows "
                f"redirects within {urlparse(settings.api_url).netloc}"
            )
        remaining = self.client.remaining()
        if remaining <= 0:
            raise ArxivTimeout(
                f"arXiv did not finish answering within the {settings.deadline:g} s deadline"
            )
        # The timeout bounds the whole request, body included, not only each wait for bytes.
        limit = min(kwargs.get("timeout") or settings.timeout, settings.timeout, remaining)
        kwargs["timeout"] = limit
        kwargs["stream"] = True
        started = time.monotonic()
        response = super().send(request, **kwargs)
        try:
            content = read_body(response, started + limit, settings.max_bytes)
        except BodyTimeout:
            raise ArxivTimeout(
                f"arXiv did not finish answering within the {settings.deadline:g} s deadline"
                if limit >= remaining
                else f"arXiv did not send its whole answer within the {limit:g} s timeout"
            ) from None
        except BodyTooLarge:
            raise ArxivTooLarge(
                f"arXiv's answer is larger than {settings.max_bytes} bytes; masrl stopped reading it"
            ) from None
        except BodyBroken as exc:
            raise ArxivUnreachable(f"arXiv's answer broke off ({exc})") from None
        response._content = content  # requests' own cache of the body
        response._content_consumed = True
        return response


def check_answer(content: bytes) -> None:
    """Raise unless ``content`` is a well-formed Atom feed without an API error entry.

    The `arxiv` package parses in recovery mode, so a broken answer would otherwise read as
    an empty result ("no such paper") or a partial one.
    """
    if not content.strip():
        raise ArxivBadAnswer("arXiv sent an empty answer instead of an Atom feed")
    parser = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=False)
    try:
        root = etree.fromstring(content, parser=parser)
    except etree.XMLSyntaxError as exc:
        raise ArxivBadAnswer(f"arXiv sent malformed XML ({exc.msg}, line {exc.lineno})") from exc
    if root.tag != f"{{{ATOM}}}feed":
        raise ArxivBadAnswer(f"arXiv sent XML that is not an Atom feed (root element {root.tag!r})")
    for entry in root.iterfind("atom:entry", _NS):
        entry_id = entry.findtext("atom:id", default="", namespaces=_NS)
        if "/api/errors" in entry_id:
            reason = entry.findtext("atom:summary", default="unknown error", namespaces=_NS).strip()
            raise ArxivRequestRejected(f"arXiv rejected the query: {reason}")


class ArxivClient:
    """Fetches metadata by arXiv id; ``sleep`` is injectable so tests need not wait."""

    def __init__(
        self, settings: ArxivSettings | None = None, sleep: Callable[[float], None] = time.sleep
    ):
        self.settings = settings or ArxivSettings()
        self.sleep = sleep
        self.last_response: requests.Response | None = None
        self._deadline = time.monotonic() + self.settings.deadline
        self._client = self._build_client()

    def remaining(self) -> float:
        """Seconds left of the deadline of the current lookup."""
        return self._deadline - time.monotonic()

    def _start_lookup(self) -> None:
        self._deadline = time.monotonic() + self.settings.deadline

    def _build_client(self) -> arxiv.Client:
        settings = self.settings
        client = arxiv.Client(
            page_size=settings.batch_size, delay_seconds=settings.delay, num_retries=0
        )
        separator = "&" if "?" in settings.api_url else "?"
        client.query_url_format = settings.api_url + separator + "{}"
        # The package keeps its requests session private; it is the only place to add a
        # timeout and to see the raw answer (status headers such as Retry-After, the body).
        session: requests.Session = client._session
        adapter = _GuardedAdapter(self)
        session.mount("http://", adapter)
        session.mount("https://", adapter)
        session.hooks["response"].append(self._inspect_response)
        return client

    def _inspect_response(self, response: requests.Response, *args, **kwargs):
        self.last_response = response
        if response.status_code == requests.codes.ok:
            check_answer(response.content)
        return response

    # -- public -------------------------------------------------------------------------------

    def fetch_one(self, arxiv_id: str) -> PaperMetadata:
        """Metadata of one paper; ArxivNotFound when arXiv does not know the id."""
        self._start_lookup()
        bare = ids.strip_arxiv_version(arxiv_id)
        found = self.fetch_batch([bare])
        if bare not in found:
            raise ArxivNotFound(
                f"arXiv has no paper with the id {bare} (the answer listed no entry for it); "
                "check the identifier"
            )
        return found[bare]

    def fetch_many(
        self, arxiv_ids: Iterable[str], progress: Callable[[int], None] | None = None
    ) -> dict[str, PaperMetadata]:
        """Metadata for many ids in batched id_list queries; unknown ids are absent from the result."""
        self._start_lookup()
        wanted = list(dict.fromkeys(ids.strip_arxiv_version(i) for i in arxiv_ids))
        found: dict[str, PaperMetadata] = {}
        size = self.settings.batch_size
        for start in range(0, len(wanted), size):
            batch = wanted[start : start + size]
            found.update(self.fetch_batch(batch))
            if progress:
                progress(len(batch))
        return found

    def fetch_batch(self, bare_ids: list[str]) -> dict[str, PaperMetadata]:
        results = self._with_retries(lambda: self._query(bare_ids))
        by_id = {}
        for result in results:
            try:
                metadata = metadata_from_result(result)
            except (TypeError, ValueError, AttributeError, IndexError) as exc:
                raise ArxivBadAnswer(f"arXiv sent an entry that cannot be read ({exc})") from exc
            if metadata.arxiv_id in bare_ids:
                by_id[metadata.arxiv_id] = metadata
        return by_id

    # -- internals ----------------------------------------------------------------------------

    def search(self, query: str, max_results: int) -> list[PaperMetadata]:
        """Papers matching an arXiv search query (search_query syntax), oldest submission first."""
        search = arxiv.Search(
            query=query,
            max_results=max_results,
            sort_by=arxiv.SortCriterion.SubmittedDate,
            sort_order=arxiv.SortOrder.Ascending,
        )
        results = self._with_retries(lambda: self._run(search))
        return [metadata_from_result(result) for result in results]

    def _query(self, bare_ids: list[str]) -> list[arxiv.Result]:
        return self._run(arxiv.Search(id_list=bare_ids, max_results=len(bare_ids)))

    def _run(self, search: arxiv.Search) -> list[arxiv.Result]:
        results = []
        try:
            for result in self._client.results(search):
                results.append(result)
        except arxiv.UnexpectedEmptyPageError:
            # arXiv counts ids it does not know in totalResults, so the package asks for a
            # further page that comes back empty; the first page already held every paper.
            pass
        except arxiv.HTTPError as exc:
            raise self._http_error(exc.status) from exc
        except (TypeError, ValueError, AttributeError, IndexError, KeyError) as exc:
            # The package trusts the feed: a missing or unparseable date or id ends up here.
            raise ArxivBadAnswer(
                f"arXiv sent an entry that cannot be read ({type(exc).__name__}: {exc})"
            ) from exc
        except requests.exceptions.Timeout as exc:
            raise ArxivTimeout(f"arXiv did not answer within {self.settings.timeout:g} s") from exc
        except requests.exceptions.ConnectionError as exc:
            raise ArxivUnreachable(
                f"cannot reach the arXiv API at {self.settings.api_url} ({_root_cause(exc)})"
            ) from exc
        except requests.exceptions.RequestException as exc:
            raise ArxivUnreachable(
                f"the request to {self.settings.api_url} failed ({_root_cause(exc)})"
            ) from exc
        return results

    def _http_error(self, status: int) -> ArxivLookupError:
        headers = self.last_response.headers if self.last_response is not None else {}
        if status in RATE_LIMIT_STATUSES:
            retry_after = parse_retry_after(headers.get("Retry-After"))
            asks = f"; it asks to wait {retry_after:g} s" if retry_after is not None else ""
            return ArxivRateLimited(
                f"arXiv is limiting requests (HTTP {status}){asks}", retry_after
            )
        if status >= 500:
            return ArxivServerError(f"arXiv had a server error (HTTP {status})")
        return ArxivRequestRejected(
            f"arXiv refused the request (HTTP {status}); check the identifier and --api-url"
        )

    def _with_retries(self, action: Callable[[], list]) -> list:
        settings = self.settings
        attempts = settings.retries + 1
        for attempt in range(1, attempts + 1):
            try:
                return action()
            except ArxivLookupError as exc:
                if not exc.retryable:
                    raise
                wait = self._wait_before_retry(exc, attempt)
                if wait is not None and wait >= self.remaining():
                    wait = None  # waiting would pass the deadline of the whole lookup
                if attempt == attempts or wait is None:
                    raise type(exc)(_final_message(exc, attempt, wait, settings)) from exc
                self.sleep(wait)
        raise AssertionError("unreachable")  # the loop returns or raises

    def _wait_before_retry(self, exc: ArxivLookupError, attempt: int) -> float | None:
        """Seconds to wait before the next attempt; None when waiting is pointless."""
        if isinstance(exc, ArxivRateLimited) and exc.retry_after is not None:
            return exc.retry_after if exc.retry_after <= self.settings.max_wait else None
        return min(self.settings.backoff * 2 ** (attempt - 1), self.settings.max_wait)


def _final_message(
    exc: ArxivLookupError, attempts: int, wait: float | None, settings: ArxivSettings
) -> str:
    tried = f"gave up after {attempts} attempt{'s' if attempts != 1 else ''}"
    if isinstance(exc, ArxivRateLimited):
        if wait is None and exc.retry_after is not None:
            return f"{exc.message}, longer than the {settings.max_wait:g} s masrl waits; try again later"
        return f"{exc.message}; {tried}; try again in a few minutes"
    if isinstance(exc, ArxivTimeout):
        return f"{exc.message}; {tried}; try again later or allow more time with --timeout"
    if isinstance(exc, ArxivUnreachable):
        return f"{exc.message}; {tried}; check the network connection or --api-url"
    return f"{exc.message}; {tried}; try again later"


def _root_cause(exc: BaseException) -> str:
    """The innermost reason, e.g. 'Connection refused', without urllib3's wrapping."""
    while exc.__cause__ is not None or exc.__context__ is not None:
        exc = exc.__cause__ or exc.__context__
    return getattr(exc, "strerror", None) or str(exc) or type(exc).__name__


def parse_retry_after(value: str | None) -> float | None:
    """Retry-After as seconds: either a number or an HTTP date."""
    if not value:
        return None
    value = value.strip()
    if re.fullmatch(r"\d+(\.\d+)?", value):
        return float(value)
    try:
        moment = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=dt.UTC)
    return max(0.0, (moment - dt.datetime.now(dt.UTC)).total_seconds())

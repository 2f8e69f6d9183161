"""Works and citations from the OpenAlex REST API, with retries, a response cache and clear errors.

The same HTTP stack as the arXiv client (`requests`, one timeout per request, bounded retries with
backoff that honour ``Retry-After``, a cap on the body, no redirect to another host), talking JSON:
a single work is ``GET /works/<id>`` (an OpenAlex id ``W...`` or ``doi:<doi>``); lists are
``GET /works?filter=...`` answering ``{"meta": {"count", "per_page", "next_cursor"}, "results":
[Work, ...]}``, paged with ``cursor=*`` and ``meta.next_cursor``. Every good answer is kept under
``$MASRL_CACHE_DIR/openalex/``, so a run cut short resumes without asking OpenAlex twice. A cached
answer is trusted only when the key kept outside the cache folder authenticates it (masrl.sealed):
a missing, expired, rewritten, moved or damaged file is asked again, and without a usable key
every answer is asked afresh.
"""

from __future__ import annotations

import hashlib
import json
import re
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote, urlencode, urlparse

import requests

from masrl.errors import RemoteError
from masrl.imports.arxiv import parse_retry_after, surname_first
from masrl.imports.http_body import BodyBroken, BodyTimeout, BodyTooLarge, read_body
from masrl.model import identifiers as ids
from masrl.sealed import SealedFolder, cache_root
from masrl.text import strip_controls

DEFAULT_API_URL = "https://api.openalex.org"
API_URL_ENV = "MASRL_OPENALEX_URL"
MAILTO_ENV = "MASRL_OPENALEX_MAILTO"
PER_PAGE = 200  # the largest page OpenAlex serves
IDS_PER_FILTER = 50  # OpenAlex takes up to 50 values OR-ed in one filter
ARXIV_DOI_PREFIX = "10.48550/arxiv."
_ARXIV_URL = re.compile(r"arxiv\.org/(?:abs|pdf)/(?P<id>[^?#]+?)(?:v\d+)?(?:\.pdf)?$", re.I)


@dataclass(frozen=True)
class OpenAlexSettings:
    api_url: str = DEFAULT_API_URL
    mailto: str | None = None  # sent as mailto=, which puts masrl in OpenAlex's polite pool
    timeout: float = 30.0
    retries: int = 3
    backoff: float = 2.0
    max_wait: float = 60.0
    delay: float = 0.1  # seconds between requests; OpenAlex allows about ten a second
    max_bytes: int = 50 * 1024 * 1024
    cache_dir: Path | None = None  # None: no cache (nor without a usable key: masrl.sealed)
    max_age: float = 7 * 24 * 3600.0  # seconds a cached answer is trusted

    def __post_init__(self):
        parsed = urlparse(self.api_url)
        if parsed.scheme not in ("http", "https") or not parsed.netloc:
            raise OpenAlexError(f"the OpenAlex address {self.api_url!r} is not an http(s) URL")
        if self.timeout <= 0:
            raise OpenAlexError("the timeout must be a positive number of seconds")


def default_cache_dir() -> Path | None:
    """``$MASRL_CACHE_DIR/openalex`` (default ~/.cache/masrl/openalex); None when the setting is off."""
    root = cache_root()
    return None if root is None else root / "openalex"


class OpenAlexError(RemoteError):
    """Any failure to get an answer from OpenAlex; the message is ready for the terminal."""

    retryable = False


class OpenAlexRetryable(OpenAlexError):
    retryable = True

    def __init__(self, message: str, retry_after: float | None = None):
        super().__init__(message)
        self.retry_after = retry_after


# ---------------------------------------------------------------------------------------------
# Works


@dataclass(frozen=True)
class OpenAlexWork:
    id: str  # W..., without the https://openalex.org/ prefix
    title: str
    doi: str | None  # bare, lower-case: 10.x/y
    arxiv_id: str | None
    published: str | None  # YYYY-MM-DD
    authors: tuple[str, ...]
    abstract: str
    url: str | None
    referenced_works: tuple[str, ...]

    @property
    def identifier(self) -> str:
        """The id a log names it by: arXiv id, else DOI, else the OpenAlex id."""
        return self.arxiv_id or self.doi or self.id


def short_id(value: str) -> str:
    """'https://openalex.org/W123' -> 'W123'."""
    return value.rstrip("/").rsplit("/", 1)[-1].upper()


def _bare_doi(value) -> str | None:
    if not isinstance(value, str) or not value.strip():
        return None
    return re.sub(r"^(https?://(dx\.)?doi\.org/|doi:)", "", value.strip(), flags=re.I).lower()


def _text(value) -> str:
    return strip_controls(" ".join(value.split())) if isinstance(value, str) else ""


def abstract_text(inverted) -> str:
    """The abstract from OpenAlex's inverted index ({word: [positions]})."""
    if not isinstance(inverted, dict):
        return ""
    placed = [
        (position, word)
        for word, positions in inverted.items()
        if isinstance(positions, list)
        for position in positions
        if isinstance(position, int)
    ]
    return _text(" ".join(word for _, word in sorted(placed)))


def work_from_json(data) -> OpenAlexWork:
    """A Work object as documented (id, doi, display_name/title, publication_date, authorships,
    primary_location, locations, referenced_works, abstract_inverted_index)."""
    if not isinstance(data, dict) or not isinstance(data.get("id"), str):
        raise OpenAlexError("OpenAlex sent a work without an id; the answer cannot be read")
    doi = _bare_doi(data.get("doi")) or _bare_doi((data.get("ids") or {}).get("doi"))
    arxiv_id = None
    if doi and doi.startswith(ARXIV_DOI_PREFIX):
        arxiv_id = ids.strip_arxiv_version(doi[len(ARXIV_DOI_PREFIX) :])
    locations = [data.get("primary_location"), *(data.get("locations") or [])]
    urls = [
        loc.get(key)
        for loc in locations
        if isinstance(loc, dict)
        for key in ("landing_page_url", "pdf_url")
        if isinstance(loc.get(key), str)
    ]
    for url in urls:
        match = _ARXIV_URL.search(url)
        if arxiv_id is None and match and ids.is_arxiv_id(match["id"]):
            arxiv_id = ids.strip_arxiv_version(match["id"])
    authors = tuple(
        surname_first(_text((a.get("author") or {}).get("display_name")))
        for a in data.get("authorships") or []
        if isinstance(a, dict) and _text((a.get("author") or {}).get("display_name"))
    )
    published = data.get("publication_date")
    if not (isinstance(published, str) and re.fullmatch(r"\d{4}-\d{2}-\d{2}", published)):
        published = None
    if arxiv_id:
        url = f"https://arxiv.org/abs/{arxiv_id}"
    elif doi:
        url = f"https://doi.org/{doi}"
    else:
        url = next(iter(urls), None) or data["id"]
    references = data.get("referenced_works") or []
    return OpenAlexWork(
        id=short_id(data["id"]),
        title=_text(data.get("display_name") or data.get("title")),
        doi=doi,
        arxiv_id=arxiv_id,
        published=published,
        authors=authors,
        abstract=abstract_text(data.get("abstract_inverted_index")),
        url=url,
        referenced_works=tuple(short_id(r) for r in references if isinstance(r, str)),
    )


# ---------------------------------------------------------------------------------------------
# The client


class OpenAlexClient:
    """GETs JSON from OpenAlex; ``sleep`` is injectable so tests need not wait."""

    def __init__(
        self,
        settings: OpenAlexSettings | None = None,
        sleep: Callable[[float], None] = time.sleep,
        now: Callable[[], float] = time.time,
    ):
        self.settings = settings or OpenAlexSettings()
        self.sleep = sleep
        self.now = now
        self.session = requests.Session()
        self.requests_sent = 0
        self._last_request = 0.0
        self.cache = SealedFolder.at(self.settings.cache_dir, "openalex")

    # -- public -------------------------------------------------------------------------------

    def work(self, identifier: str) -> OpenAlexWork | None:
        """One work by OpenAlex id (W...) or 'doi:<doi>'; None when OpenAlex does not know it."""
        data = self.get(f"/works/{quote(identifier, safe=':/')}", {}, missing_ok=True)
        return None if data is None else work_from_json(data)

    def works_by_doi(self, doi: str) -> OpenAlexWork | None:
        return self.work(f"doi:{doi.lower()}")

    def works_by_ids(self, work_ids: list[str]) -> list[OpenAlexWork]:
        """Works for OpenAlex ids, 50 per request; ids OpenAlex no longer knows are left out."""
        found = []
        for start in range(0, len(work_ids), IDS_PER_FILTER):
            batch = work_ids[start : start + IDS_PER_FILTER]
            found.extend(self.list_works({"filter": "openalex:" + "|".join(batch)}))
        return found

    def title_search(self, title: str) -> list[OpenAlexWork]:
        """The first page of works whose title matches the words of ``title``."""
        # , | and : have meanings in a filter value: the words alone are searched.
        words = " ".join(re.sub(r"[^\w]+", " ", title).split())
        data = self.get("/works", {"filter": f"title.search:{words}", "per-page": 25})
        return [work_from_json(w) for w in _results(data)]

    def citing(self, work_id: str, since: str | None = None, until: str | None = None):
        """Every work citing ``work_id`` (cursor-paged), oldest filter first."""
        filters = [f"cites:{work_id}"]
        if since:
            filters.append(f"from_publication_date:{since}")
        if until:
            filters.append(f"to_publication_date:{until}")
        return list(self.list_works({"filter": ",".join(filters)}))

    def list_works(self, params: dict) -> Iterator[OpenAlexWork]:
        cursor, pages = "*", 0
        while cursor:
            data = self.get("/works", {**params, "per-page": PER_PAGE, "cursor": cursor})
            results = _results(data)
            yield from (work_from_json(w) for w in results)
            pages += 1
            following = (data.get("meta") or {}).get("next_cursor")
            if following is not None and not isinstance(following, str):
                raise OpenAlexError("OpenAlex sent a next_cursor that is not a string")
            if following == cursor or pages > 10_000:
                raise OpenAlexError("OpenAlex repeated a page cursor; stopped paging")
            cursor = following if results else None

    # -- one request ----------------------------------------------------------------------------

    def url_for(self, path: str, params: dict) -> str:
        query = urlencode(sorted(params.items()), safe=":|*,")
        return self.settings.api_url.rstrip("/") + path + (f"?{query}" if query else "")

    def get(self, path: str, params: dict, missing_ok: bool = False):
        """The JSON answer; None for a 404 when ``missing_ok``. Cached by URL (mailto left out)."""
        url = self.url_for(path, params)
        cached = self._cached(url)
        if cached is not None:
            return cached.get("answer")
        attempts = self.settings.retries + 1
        for attempt in range(1, attempts + 1):
            try:
                answer = self._ask(url, missing_ok)
                break
            except OpenAlexRetryable as exc:
                wait = exc.retry_after
                if wait is None:
                    wait = min(self.settings.backoff * 2 ** (attempt - 1), self.settings.max_wait)
                if wait > self.settings.max_wait:
                    raise OpenAlexError(
                        f"{exc.message}, longer than the {self.settings.max_wait:g} s masrl waits; "
                        "try again later"
                    ) from exc
                if attempt == attempts:
                    raise OpenAlexError(
                        f"{exc.message}; gave up after {attempts} attempt"
                        f"{'s' if attempts != 1 else ''}; try again later (answers so far are "
                        "cached, so the rerun resumes)"
                    ) from exc
                self.sleep(wait)
        self._store(url, answer)
        return answer

    def _ask(self, url: str, missing_ok: bool):
        pause = self.settings.delay - (time.monotonic() - self._last_request)
        if pause > 0:
            self.sleep(pause)
        params = {"mailto": self.settings.mailto} if self.settings.mailto else None
        self._last_request = started = time.monotonic()
        self.requests_sent += 1
        try:
            response = self.session.get(
                url,
                params=params,
                timeout=self.settings.timeout,
                allow_redirects=False,
                stream=True,
                headers={"Accept": "application/json"},
            )
        except requests.exceptions.Timeout as exc:
            raise OpenAlexRetryable(
                f"OpenAlex did not answer within {self.settings.timeout:g} s"
            ) from exc
        except requests.exceptions.RequestException as exc:
            raise OpenAlexRetryable(
                f"cannot reach OpenAlex at {self.settings.api_url} ({type(exc).__name__}); "
                "check the network connection or --api-url"
            ) from exc
        with response:
            status = response.status_code
            if status == 429 or status >= 500:
                retry_after = parse_retry_after(response.headers.get("Retry-After"))
                what = "is limiting requests" if status == 429 else "had a server error"
                raise OpenAlexRetryable(f"OpenAlex {what} (HTTP {status})", retry_after)
            if status == 404 and missing_ok:
                return None
            if 300 <= status < 400:
                raise OpenAlexError(
                    f"OpenAlex redirected to {response.headers.get('Location')!r}; masrl only "
                    "talks to the address it was given (check --api-url)"
                )
            if status != 200:
                raise OpenAlexError(
                    f"OpenAlex refused {url} (HTTP {status}); check the identifier and --api-url"
                )
            body = self._read(response, started + self.settings.timeout)
        try:
            return json.loads(body)
        except ValueError as exc:
            raise OpenAlexRetryable(f"OpenAlex sent an answer that is not JSON ({exc})") from exc

    def _read(self, response, deadline: float) -> bytes:
        """The whole body before ``deadline``: the timeout bounds the request, body included,
        so a server dripping a byte a second cannot hold a command past it."""
        try:
            return read_body(response, deadline, self.settings.max_bytes)
        except BodyTimeout:
            raise OpenAlexRetryable(
                f"OpenAlex did not send its whole answer within {self.settings.timeout:g} s"
            ) from None
        except BodyTooLarge:
            raise OpenAlexError(
                f"OpenAlex's answer is larger than {self.settings.max_bytes} bytes; "
                "masrl stopped reading it"
            ) from None
        except BodyBroken as exc:
            raise OpenAlexRetryable(f"OpenAlex's answer broke off ({exc})") from None

    # -- the cache ------------------------------------------------------------------------------

    @staticmethod
    def _cache_name(url: str) -> str:
        return f"{hashlib.sha256(url.encode()).hexdigest()}.json"

    def _cached(self, url: str) -> dict | None:
        content = self.cache.get(self._cache_name(url))
        if content is None:
            return None
        try:  # authentic, yet read as warily as any answer: anything unexpected is a miss
            stored = json.loads(content)
            if (
                isinstance(stored, dict)
                and stored.get("url") == url
                and self.now() - float(stored["stored"]) <= self.settings.max_age
            ):
                return stored
        except (ValueError, KeyError, TypeError, RecursionError):
            pass
        return None

    def _store(self, url: str, answer) -> None:
        record = {"url": url, "stored": self.now(), "answer": answer}
        self.cache.put(self._cache_name(url), json.dumps(record, separators=(",", ":")).encode())


def _results(data) -> list:
    if not isinstance(data, dict) or not isinstance(data.get("results"), list):
        raise OpenAlexError("OpenAlex sent a list answer without 'results'; it cannot be read")
    return data["results"]

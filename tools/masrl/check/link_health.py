"""Link health: does every outgoing link of the corpus still answer, and is there an archived copy?

The links are each entry's `urls` and its artifact links (`code`, `project_page`, `data`,
`weights`: the link and the page it was read from). Each is fetched once (GET, redirects followed,
body not read) with a timeout per link, a few at a time, until a total deadline; a link not reached
by the deadline keeps what the last run found. A link that no longer answers is looked up in the
Wayback Machine's availability API for its closest archived copy. The result is one YAML file,
`links/health.yaml`, sorted by URL, with the date each link was last checked, so a run on the same
day over the same answers writes the same bytes.
"""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Iterable
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import requests

from masrl.errors import InputError, UsageError
from masrl.files import write_atomic
from masrl.model import yamlio
from masrl.model.project import Corpus
from masrl.model.records import ARTIFACT_LINKS

HEALTH_FILE = Path("links") / "health.yaml"
HEADER = (
    "# Written by `masrl links check`: the health of every outgoing link of the corpus, one item per\n"
    "# URL, sorted. Do not edit; run the command again."
)
WAYBACK_API = "https://archive.org/wayback/available"
USER_AGENT = "masrl-link-check (+https://github.com/masrl)"
MOVED = {301, 302, 303, 307, 308}
PERMANENT = {301, 308}
GONE = {404, 410}
# What a link's status says, worst first: a report lists the dead and the unreachable.
STATES = ("dead", "unreachable", "timeout", "error", "moved", "live", "unchecked")
BROKEN = frozenset({"dead", "unreachable"})


@dataclass(frozen=True)
class LinkSettings:
    timeout: float = 15.0  # seconds per link (connect and first byte)
    deadline: float = 600.0  # seconds for the whole run
    workers: int = 8  # links fetched at once
    wayback_api: str = WAYBACK_API
    today: dt.date | None = None

    def __post_init__(self):
        for name in ("timeout", "deadline"):
            if getattr(self, name) <= 0:
                raise UsageError(f"--{name} must be a positive number of seconds")
        if not 1 <= self.workers <= 64:
            raise UsageError("--workers must be between 1 and 64")


@dataclass
class LinkHealth:
    """One URL: where the corpus uses it and what it answered when last checked."""

    url: str
    used_by: list[str] = field(default_factory=list)  # "<key>.<field>", sorted
    state: str = "unchecked"
    http_status: int | None = None
    redirect: int | None = None  # the first redirect's status, when the link moved
    final_url: str | None = None
    archived: str | None = None
    last_checked: str | None = None
    detail: str | None = None

    def to_data(self) -> dict[str, Any]:
        data = {"url": self.url, "used_by": self.used_by, "state": self.state}
        for name in ("http_status", "redirect", "final_url", "archived", "last_checked", "detail"):
            value = getattr(self, name)
            if value is not None:
                data[name] = value
        return data


@dataclass(frozen=True)
class LinkReport:
    links: tuple[LinkHealth, ...]
    checked: int  # links fetched in this run
    skipped: int  # links the deadline left with their previous result

    def counts(self) -> dict[str, int]:
        found: dict[str, int] = {}
        for link in self.links:
            found[link.state] = found.get(link.state, 0) + 1
        return dict(sorted(found.items()))

    @property
    def broken(self) -> list[LinkHealth]:
        return [link for link in self.links if link.state in BROKEN]

    def summary_line(self) -> str:
        counts = ", ".join(f"{n} {state}" for state, n in self.counts().items())
        late = f"; {self.skipped} left for the next run (deadline)" if self.skipped else ""
        return f"links: {len(self.links)} checked or kept ({counts}){late}"


def outgoing_links(corpus: Corpus) -> dict[str, list[str]]:
    """{url: ["<key>.<field>", ...]} for every entry's urls and artifact links and their sources."""
    found: dict[str, set[str]] = {}
    for entry in corpus.entries:
        for url in entry.urls:
            found.setdefault(url, set()).add(f"{entry.key}.urls")
        for name in ARTIFACT_LINKS:
            for link in getattr(entry, name, ()):
                found.setdefault(link["url"], set()).add(f"{entry.key}.{name}")
                found.setdefault(link["source"], set()).add(f"{entry.key}.{name}.source")
    return {url: sorted(users) for url, users in sorted(found.items())}


def read_health(path: Path) -> dict[str, LinkHealth]:
    """The last run's results by URL; an empty mapping when there is no file yet."""
    if not path.is_file():
        return {}
    data = yamlio.load_file(path)
    items = data.get("links") if isinstance(data, dict) else None
    if not isinstance(items, list):
        raise InputError(
            "expected a mapping with a 'links' list",
            path=path,
            hint="delete the file and run `masrl links check` again",
        )
    known = set(LinkHealth.__dataclass_fields__)
    found = {}
    for item in items:
        if not isinstance(item, dict) or "url" not in item or set(item) - known:
            raise InputError(
                f"malformed link item {item!r}",
                path=path,
                line=getattr(items, "line_of", lambda _: None)(items.index(item)),
                hint="delete the file and run `masrl links check` again",
            )
        found[item["url"]] = LinkHealth(**{k: _plain(v) for k, v in item.items()})
    return found


def _plain(value):
    return list(value) if isinstance(value, list | tuple) else value


def fetch_one(session: requests.Session, url: str, settings: LinkSettings) -> LinkHealth:
    """GET the link (redirects followed, body left unread) and classify the answer."""
    health = LinkHealth(url)
    try:
        with session.get(
            url, timeout=settings.timeout, allow_redirects=True, stream=True
        ) as response:
            health.http_status = response.status_code
            if response.history:
                health.redirect = response.history[0].status_code
                health.final_url = response.url
    except requests.Timeout:
        health.state, health.detail = "timeout", f"no answer within {settings.timeout:g} s"
        return health
    except requests.TooManyRedirects:
        health.state, health.detail = "error", "too many redirects"
        return health
    except requests.ConnectionError as exc:
        health.state, health.detail = "unreachable", _reason(exc)
        return health
    except requests.RequestException as exc:
        health.state, health.detail = "error", _reason(exc)
        return health
    status = health.http_status
    if status in GONE:
        health.state = "dead"
    elif status >= 400:
        health.state = "error"
    elif health.redirect in MOVED:
        health.state = "moved"
        health.detail = "permanent" if health.redirect in PERMANENT else "temporary"
    else:
        health.state = "live"
    return health


def _reason(exc: Exception) -> str:
    # requests nests the cause several levels deep; the innermost says what happened.
    cause: BaseException = exc
    while cause.__cause__ is not None or (cause.args and isinstance(cause.args[0], Exception)):
        cause = cause.__cause__ or cause.args[0]
    text = " ".join(str(cause).split())
    if "refused" in text.lower():
        return "connection refused"
    return text[:200] or type(cause).__name__


def archived_copy(session: requests.Session, url: str, settings: LinkSettings) -> str | None:
    """The closest archived copy from the Wayback availability API, or None (also when it fails)."""
    try:
        response = session.get(settings.wayback_api, params={"url": url}, timeout=settings.timeout)
        closest = response.json().get("archived_snapshots", {}).get("closest") or {}
    except (requests.RequestException, ValueError, AttributeError):
        return None
    if closest.get("available") and str(closest.get("status", "200")).startswith("2"):
        return closest.get("url") or None
    return None


def check_links(
    corpus: Corpus,
    previous: dict[str, LinkHealth] | None = None,
    settings: LinkSettings | None = None,
    session: requests.Session | None = None,
) -> LinkReport:
    """Check every outgoing link, at most ``settings.workers`` at once, until the deadline."""
    settings = settings or LinkSettings()
    previous = previous or {}
    today = (settings.today or dt.date.today()).isoformat()
    used = outgoing_links(corpus)
    session = session or _session()
    results: dict[str, LinkHealth] = {}
    stop_at = time.monotonic() + settings.deadline
    pending_urls = iter(used)
    pool = ThreadPoolExecutor(max_workers=settings.workers)
    running: dict = {}
    try:

        def submit_next() -> None:
            url = next(pending_urls, None)
            if url is not None:
                running[pool.submit(_check_one, session, url, settings)] = url

        for _ in range(settings.workers):
            submit_next()
        while running:
            left = stop_at - time.monotonic()
            if left <= 0:
                break
            done, _ = wait(running, timeout=left, return_when=FIRST_COMPLETED)
            for future in done:
                results[running.pop(future)] = future.result()
                if time.monotonic() < stop_at:
                    submit_next()
    finally:
        # Not waiting for the links still in flight keeps the deadline (each ends by its timeout).
        pool.shutdown(wait=False, cancel_futures=True)
    links = []
    for url, users in used.items():
        health = results.get(url)
        if health is None:  # the deadline came first: keep the last run's answer
            health = previous.get(url) or LinkHealth(url)
        else:
            health.last_checked = today
        health.used_by = users
        links.append(health)
    return LinkReport(tuple(links), checked=len(results), skipped=len(used) - len(results))


def _check_one(session: requests.Session, url: str, settings: LinkSettings) -> LinkHealth:
    health = fetch_one(session, url, settings)
    if health.state not in ("live", "moved"):
        health.archived = archived_copy(session, url, settings)
    return health


def _session() -> requests.Session:
    session = requests.Session()
    session.headers["User-Agent"] = USER_AGENT
    adapter = requests.adapters.HTTPAdapter(pool_connections=16, pool_maxsize=64)
    session.mount("http://", adapter)
    session.mount("https://", adapter)
    return session


def health_text(report: LinkReport) -> str:
    return yamlio.dumps({"links": [link.to_data() for link in report.links]}, header=HEADER)


def write_health(report: LinkReport, path: Path) -> None:
    write_atomic(path, health_text(report))


def broken_links_markdown(links: Iterable[LinkHealth]) -> str:
    """The dead and unreachable links as a Markdown list for an issue; empty when there are none."""
    lines = []
    for link in sorted(links, key=lambda h: (STATES.index(h.state), h.url)):
        if link.state not in BROKEN:
            continue
        why = f"HTTP {link.http_status}" if link.http_status else (link.detail or link.state)
        archived = f"; archived copy: {link.archived}" if link.archived else "; no archived copy"
        lines.append(
            f"- {link.url} ({link.state}, {why}, checked {link.last_checked}){archived}; "
            f"used by {', '.join(f'`{u}`' for u in link.used_by)}"
        )
    if not lines:
        return ""
    return "\n".join(
        [f"{len(lines)} outgoing link(s) of the corpus no longer answer:", "", *lines, ""]
    )


def check_project_links(
    corpus: Corpus, settings: LinkSettings | None = None, session: requests.Session | None = None
) -> LinkReport:
    """Check the corpus's links against its last results and write ``links/health.yaml``."""
    path = corpus.project.root / HEALTH_FILE
    report = check_links(corpus, read_health(path), settings, session)
    write_health(report, path)
    return report

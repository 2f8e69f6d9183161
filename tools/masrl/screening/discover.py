"""`masrl discover`: run the query families against arXiv and queue what is new.

Search is data: each family in taxonomy/query_families.yaml carries its arXiv query. A run asks
arXiv (through the `arxiv` client, with its polite delay and retries) for the papers submitted
in a date window, drops every candidate already known (arXiv id with or without version, DOI,
normalised title) in the corpus, the exclusions or the queue, and writes each new one at once
to screening/queue/<id>.yaml. A state file records the families finished, so a run cut short by
a network fault resumes where it stopped and never loses what it already wrote.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from masrl.errors import UsageError
from masrl.files import transaction, write_atomic
from masrl.imports.arxiv import ArxivClient, PaperMetadata
from masrl.model import identifiers as ids
from masrl.model.project import Project, read_records
from masrl.screening.identified import record_identified
from masrl.screening.queue import (
    queue_id,
    queue_record_from_data,
    read_queue,
    record_data,
    write_item,
)
from masrl.screening.rounds import ROUNDS_FILE, load_rounds

STATE_FILE = Path("screening") / ".discover-state.json"
DEFAULT_MAX_RESULTS = 500  # per family and window; arXiv pages through them 50 at a time


@dataclass
class KnownRecords:
    """Identity keys and normalised titles of every record already screened or queued."""

    keys: dict[str, str] = field(default_factory=dict)  # identity key -> where it is recorded
    titles: dict[str, str] = field(default_factory=dict)

    def add(
        self, where: str, identifiers: dict | None, record_identifier: str | None, urls, title
    ) -> None:
        for key in ids.normalized_keys(identifiers, record_identifier, urls):
            self.keys.setdefault(key, where)
        if isinstance(title, str) and title.strip():
            self.titles.setdefault(ids.normalize_title(title), where)

    def where(self, paper: PaperMetadata) -> str | None:
        """Where the paper is already recorded, or None."""
        for key in ids.normalized_keys({"arxiv": paper.arxiv_id, "doi": paper.doi}):
            if key in self.keys:
                return self.keys[key]
        return self.titles.get(ids.normalize_title(paper.title))


def known_records(project: Project, queue) -> KnownRecords:
    known = KnownRecords()
    # Raw data, not validated records: a corpus with unfinished entries still knows their ids.
    for record in read_records(project.entry_paths() + project.exclusion_paths()):
        data = record.data if isinstance(record.data, dict) else {}
        idents = data.get("identifiers") if isinstance(data.get("identifiers"), dict) else None
        urls = data.get("urls") if isinstance(data.get("urls"), list) else [data.get("url")]
        record_identifier = (
            data.get("identifier") if isinstance(data.get("identifier"), str) else None
        )
        known.add(project.relative(record.path), idents, record_identifier, urls, data.get("title"))
    return known


def family_queries(project: Project, families: list[str] | None) -> list[tuple[str, str]]:
    """(family id, arXiv query) for the chosen families (default: every family with a query)."""
    axis = project.taxonomy()["query_families"]
    with_query = {v.id: (v.extra.get("queries") or {}).get("arxiv") for v in axis.values}
    chosen = families or [f for f in axis.ids if with_query.get(f)]
    unknown = [f for f in chosen if f not in axis.by_id]
    if unknown:
        raise UsageError(
            f"unknown query family '{unknown[0]}'", hint=f"use one of: {', '.join(axis.ids)}"
        )
    missing = [f for f in chosen if not with_query.get(f)]
    if missing:
        raise UsageError(
            f"query family '{missing[0]}' has no arXiv query",
            hint="add queries: {arxiv: ...} to it in taxonomy/query_families.yaml",
        )
    return [(f, with_query[f]) for f in chosen]


def window_query(query: str, since: dt.date, until: dt.date) -> str:
    return f"({query}) AND submittedDate:[{since:%Y%m%d}0000 TO {until:%Y%m%d}2359]"


def queue_record(paper: PaperMetadata, families: list[str], today: dt.date, round_id: str) -> dict:
    """A queue file in the layout of CONTRACT.md."""
    return {
        "id": queue_id(paper.arxiv_id),
        "title": paper.title,
        "authors": list(paper.authors),
        "published": paper.published,
        "abstract": paper.abstract,
        "categories": list(
            paper.categories or ([paper.primary_category] if paper.primary_category else [])
        ),
        "identifiers": {"arxiv": paper.arxiv_id, "doi": paper.doi},
        "url": paper.url,
        "families": families,
        "discovered": today.isoformat(),
        "round": round_id,
    }


def ensure_round(
    project: Project,
    round_id: str,
    since: dt.date | None,
    until: dt.date,
    families: list[str],
    sources: tuple[str, ...] = ("arxiv",),
    opened_by: str = "masrl discover",
) -> bool:
    """Append the round to screening/rounds.yaml (as text, keeping the file's layout) unless it
    is already there; True when it was added."""
    if round_id in {r.id for r in load_rounds(project)}:
        return False
    path = project.root / ROUNDS_FILE
    text = path.read_text(encoding="utf-8") if path.is_file() else "rounds:\n"
    start = f"'{since.isoformat()}'" if since else "null"
    block = (
        f"  - id: '{round_id}'\n    date: '{until.isoformat()}'\n"
        f"    searched: {{from: {start}, until: '{until.isoformat()}'}}\n"
        f"    query_families: [{', '.join(families)}]\n    sources: [{', '.join(sources)}]\n"
        f"    notes: Opened by {opened_by}.\n"
    )
    write_atomic(path, text + ("" if text.endswith("\n") else "\n") + block)
    return True


@dataclass
class DiscoverResult:
    round: str
    added: list[str] = field(default_factory=list)  # queue ids written
    merged: list[str] = field(default_factory=list)  # queued ids another family also matched
    known: dict[str, str] = field(default_factory=dict)  # arXiv id -> where it is recorded
    families_run: list[str] = field(default_factory=list)
    resumed: list[str] = field(default_factory=list)  # families skipped as done in an earlier run


def _load_state(path: Path, run: dict) -> list[str]:
    try:
        state = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    if (
        not isinstance(state, dict)
        or state.get("run") != run
        or not isinstance(state.get("done"), list)
    ):
        return []  # a different run's state, or a damaged one: start over (dedup keeps it safe)
    return [f for f in state["done"] if isinstance(f, str)]


def discover(
    project: Project,
    since: dt.date,
    until: dt.date,
    client: ArxivClient,
    families: list[str] | None = None,
    round_id: str | None = None,
    today: dt.date | None = None,
    max_results: int = DEFAULT_MAX_RESULTS,
    progress: Callable | None = None,
) -> DiscoverResult:
    """Run the families over [since, until]; write new candidates to the queue as they come."""
    today = today or dt.date.today()
    if since > until:
        raise UsageError(f"--since {since} is after --until {until}", hint="swap the dates")
    if until > today:
        raise UsageError(f"--until {until} lies in the future", hint=f"use {today} or earlier")
    round_id = round_id or f"{until:%Y-%m}"
    queries = family_queries(project, families)
    queue = {item.id: item for item in read_queue(project)}  # a broken queue file stops here
    known = known_records(project, queue)
    for item in queue.values():
        data = record_data(item)
        known.add(
            project.relative(item.path), data["identifiers"], None, [data["url"]], data["title"]
        )
    ensure_round(project, round_id, since, until, [f for f, _ in queries])

    state_path = project.root / STATE_FILE
    run = {
        "since": since.isoformat(),
        "until": until.isoformat(),
        "round": round_id,
        "families": [f for f, _ in queries],
    }
    done = _load_state(state_path, run)
    result = DiscoverResult(round_id, resumed=[f for f, _ in queries if f in done])
    for family, query in queries:
        if family in done:
            continue
        papers = client.search(window_query(query, since, until), max_results)  # retries inside
        # A family's queue records, its log line and the resume state: together or not at all.
        with transaction(project.root):
            for paper in papers:
                stem = queue_id(paper.arxiv_id)
                if stem in queue:
                    data = record_data(queue[stem])
                    if family not in data["families"]:
                        data = {**data, "families": [*data["families"], family]}
                        queue[stem] = queue_record_from_data(data, write_item(project, dict(data)))
                        result.merged.append(stem)
                    continue
                where = known.where(paper)
                if where:
                    result.known[paper.arxiv_id] = where
                    continue
                data = queue_record(paper, [family], today, round_id)
                path = write_item(project, data)
                queue[stem] = queue_record_from_data(data, path)
                known.add(
                    project.relative(path), data["identifiers"], None, [data["url"]], data["title"]
                )
                result.added.append(stem)
            found = [p.arxiv_id for p in papers]
            record_identified(
                project, round_id, "arxiv", found, [i for i in found if i in result.known]
            )
            done.append(family)
            result.families_run.append(family)
            write_atomic(state_path, json.dumps({"run": run, "done": done}, indent=1) + "\n")
        if progress:
            progress(family, len(papers))
    state_path.unlink(missing_ok=True)  # the run is complete; a rerun starts afresh
    return result

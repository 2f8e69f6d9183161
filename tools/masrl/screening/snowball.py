"""`masrl snowball`: citation searching through OpenAlex, backward and forward from corpus entries.

Each seed entry is resolved to an OpenAlex work (by DOI, then by the arXiv DOI 10.48550/arXiv.<id>,
then by exact normalised title) once; citations/graph.yaml records the resolution so it is never
asked again. Backward chasing reads the work's ``referenced_works``; forward chasing lists the works
citing it (``filter=cites:W...``, cursor-paged). A found work that is a corpus entry becomes an edge
of the citation graph; one already recorded (exclusions, queue, earlier identified logs; by arXiv
id, DOI or near-duplicate title) is a duplicate; the rest go to screening/queue/ in discover's
layout with ``method: citation``, the direction and the seed entries (``via``), where the ranker
scores them like any candidate. The round's identified log records every hit per direction with
its seeds.

Everything is asked first and written after: a fault stops the run before any file changes, and
the client's response cache lets the rerun resume without asking OpenAlex again.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass, field

from rapidfuzz import fuzz, process

from masrl import files
from masrl.errors import ProblemsError, UsageError
from masrl.imports.openalex import OpenAlexClient, OpenAlexWork
from masrl.model import identifiers as ids
from masrl.model.citations import CitationGraph, Edge, Work, load_graph, write_graph
from masrl.model.project import Project, read_records
from masrl.screening.discover import KnownRecords, ensure_round, known_records
from masrl.screening.identified import (
    DIRECTIONS,
    IDENTIFIED_DIR,
    read_identified,
    record_citations,
    write_identified,
)
from masrl.screening.queue import (
    QueueRecord,
    check_queue_data,
    queue_id,
    queue_record_from_data,
    read_queue,
    record_data,
    write_item,
)
from masrl.text import did_you_mean

DUPLICATES_SOURCE = "openalex"  # the identified log's name for citation hits dropped as known


@dataclass(frozen=True)
class Seed:
    key: str
    title: str
    doi: str | None
    arxiv_id: str | None
    round: str | None


def corpus_seeds(project: Project) -> dict[str, Seed]:
    """Every entry's key, title and identifiers, read leniently (an unfinished entry still counts)."""
    seeds = {}
    for record in read_records(project.entry_paths()):
        data = record.data if isinstance(record.data, dict) else {}
        idents = data.get("identifiers") if isinstance(data.get("identifiers"), dict) else {}
        doi, arxiv_id = idents.get("doi"), idents.get("arxiv")
        title = data.get("title")
        seeds[record.path.stem] = Seed(
            record.path.stem,
            title if isinstance(title, str) else "",
            doi.lower() if isinstance(doi, str) and doi.strip() else None,
            ids.strip_arxiv_version(arxiv_id) if isinstance(arxiv_id, str) and arxiv_id else None,
            data.get("round") if isinstance(data.get("round"), str) else None,
        )
    return seeds


def choose_seeds(
    seeds: dict[str, Seed], keys: list[str] | None, seed_round: str | None
) -> list[str]:
    if keys:
        unknown = [k for k in keys if k not in seeds]
        if unknown:
            raise UsageError(
                f"'{unknown[0]}' is not a corpus entry{did_you_mean(unknown[0], list(seeds))}",
                hint="give the key of a file in corpus/ (without .yaml)",
            )
        chosen = list(dict.fromkeys(keys))
    else:
        chosen = sorted(seeds)
    if seed_round:
        chosen = [k for k in chosen if seeds[k].round == seed_round]
        if not chosen:
            rounds = sorted({s.round for s in seeds.values() if s.round})
            raise UsageError(
                f"no entry of round '{seed_round}' to start from",
                hint=f"rounds with entries: {', '.join(rounds)}",
            )
    return chosen


# ---------------------------------------------------------------------------------------------
# Matching found works to what is already recorded


class Matcher:
    """Finds the corpus entry, or the record, a work already is: by OpenAlex id, arXiv id, DOI,
    then near-duplicate title (rapidfuzz narrows, identifiers.same_title decides)."""

    def __init__(self):
        self.keys: dict[str, str] = {}
        self.titles: dict[str, str] = {}
        self._choices: list[str] | None = None

    def add(self, where: str, keys: set[str], title: str | None) -> None:
        for key in keys:
            self.keys.setdefault(key, where)
        if title and title.strip():
            self.titles.setdefault(ids.normalize_title(title), where)
            self._choices = None

    def find(self, work: OpenAlexWork) -> str | None:
        for key in work_keys(work):
            if key in self.keys:
                return self.keys[key]
        title = ids.normalize_title(work.title)
        if not title:
            return None
        if title in self.titles:
            return self.titles[title]
        if self._choices is None:
            self._choices = list(self.titles)
        match = process.extractOne(title, self._choices, scorer=fuzz.ratio, score_cutoff=90)
        if match and ids.same_title(title, match[0]):
            return self.titles[match[0]]
        return None


def work_keys(work: OpenAlexWork) -> set[str]:
    return {f"openalex:{work.id}"} | ids.normalized_keys({"arxiv": work.arxiv_id, "doi": work.doi})


def known_matcher(project: Project, queue: list[QueueRecord], known: KnownRecords) -> Matcher:
    """Exclusions, entries, queue and every identified log, as places a work may already be."""
    matcher = Matcher()
    for key, where in known.keys.items():
        matcher.keys.setdefault(key, where)
    for title, where in known.titles.items():
        matcher.titles.setdefault(title, where)
    for item in queue:
        where = project.relative(item.path) if item.path else f"screening/queue/{item.id}.yaml"
        matcher.add(where, ids.normalized_keys(item.identifiers), item.title)
        matcher.keys.setdefault(f"openalex:{item.id.upper()}", where)
    folder = project.root / IDENTIFIED_DIR
    for path in sorted(folder.glob("*.yaml")) if folder.is_dir() else []:
        log = read_identified(project, path.stem)
        where = f"{IDENTIFIED_DIR.as_posix()}/{path.name}"
        found = [i for v in log["identified"].values() for i in v]
        found += [i for v in log["duplicates"].values() for i in v]
        found += [i for v in log["citations"].values() for i in v]
        for identifier in found:
            matcher.keys.setdefault(_log_key(str(identifier)), where)
    return matcher


def _log_key(identifier: str) -> str:
    """The identity key of an identifier as the identified log writes it."""
    if ids.is_arxiv_id(identifier):
        return f"arxiv:{ids.strip_arxiv_version(identifier)}"
    if identifier.startswith("10."):
        return f"doi:{identifier.lower()}"
    return f"openalex:{identifier.upper()}"


# ---------------------------------------------------------------------------------------------
# The run


@dataclass
class Hit:
    work: OpenAlexWork
    seeds: dict[str, set[str]] = field(default_factory=dict)  # direction -> seed keys

    def direction(self) -> str:
        found = [d for d in DIRECTIONS if self.seeds.get(d)]
        return found[0] if len(found) == 1 else "both"

    def via(self) -> list[str]:
        return sorted(set().union(*self.seeds.values()))


@dataclass
class SnowballResult:
    round: str
    seeds: list[str]
    added: list[str] = field(default_factory=list)  # queue ids written
    merged: list[str] = field(default_factory=list)  # queued citation finds given further seeds
    known: dict[str, str] = field(default_factory=dict)  # identifier -> where it is recorded
    hits: dict[str, int] = field(default_factory=dict)  # direction -> works found
    edges: int = 0  # openalex edges among corpus entries after the run
    resolved: dict[str, str] = field(default_factory=dict)  # seed -> how it was resolved now
    unresolved: list[str] = field(default_factory=list)  # seeds OpenAlex has no work for
    no_references: list[str] = field(default_factory=list)  # seeds whose work lists none


def resolve(client: OpenAlexClient, seed: Seed) -> tuple[OpenAlexWork | None, str | None]:
    """The seed's work: by DOI, by arXiv DOI, then by exact normalised title."""
    if seed.doi:
        work = client.works_by_doi(seed.doi)
        if work:
            return work, "doi"
    if seed.arxiv_id:
        work = client.works_by_doi(f"10.48550/arXiv.{seed.arxiv_id}")
        if work:
            return work, "arxiv"
    wanted = ids.normalize_title(seed.title)
    if wanted:
        for work in client.title_search(seed.title):
            if ids.normalize_title(work.title) == wanted:
                return work, "title"
    return None, None


def _in_window(work: OpenAlexWork, since: dt.date | None, until: dt.date | None) -> bool:
    if not (since or until):
        return True
    if work.published is None:
        return False
    day = dt.date.fromisoformat(work.published)
    return (since is None or day >= since) and (until is None or day <= until)


def snowball(
    project: Project,
    client: OpenAlexClient,
    entries: list[str] | None = None,
    seed_round: str | None = None,
    direction: str = "both",
    since: dt.date | None = None,
    until: dt.date | None = None,
    round_id: str | None = None,
    today: dt.date | None = None,
    progress: Callable[[str], None] | None = None,
) -> SnowballResult:
    """Chase the seeds' citations; queue new works, refresh the graph, log the hits."""
    today = today or dt.date.today()
    if direction not in (*DIRECTIONS, "both"):
        raise UsageError(f"--direction must be backward, forward or both, not {direction!r}")
    if since and until and since > until:
        raise UsageError(f"--since {since} is after --until {until}", hint="swap the dates")
    round_id = round_id or f"{until or today:%Y-%m}"
    directions = DIRECTIONS if direction == "both" else (direction,)
    seeds = corpus_seeds(project)
    chosen = choose_seeds(seeds, entries, seed_round)
    # Every file is read, and every problem found, before the first request.
    graph = load_graph(project, set(seeds))
    queue = read_queue(project)
    entry_matcher = Matcher()
    for seed in seeds.values():
        entry_matcher.add(
            seed.key, ids.normalized_keys({"doi": seed.doi, "arxiv": seed.arxiv_id}), seed.title
        )
    for key, work in graph.works.items():
        if work.openalex:
            entry_matcher.keys[f"openalex:{work.openalex}"] = key
    records = known_matcher(project, queue, known_records(project, queue))

    result = SnowballResult(round_id, chosen)
    works = dict(graph.works)
    hits: dict[str, Hit] = {}
    found_edges: set[tuple[str, str]] = set()
    refreshed: set[str] = set()  # seeds whose reference list was read in this run
    for key in chosen:
        work = None
        recorded = works.get(key)
        if recorded is not None and recorded.openalex is None:
            result.unresolved.append(key)  # not found before; delete its works line to ask again
        elif recorded is None:
            work, how = resolve(client, seeds[key])
            if work is None:
                works[key] = Work(retrieved=today.isoformat())
                result.unresolved.append(key)
            else:
                works[key] = Work(openalex=work.id, resolved_by=how, retrieved=today.isoformat())
                entry_matcher.keys[f"openalex:{work.id}"] = key
                result.resolved[key] = how
        if works[key].openalex is None:
            if progress:
                progress(key)
            continue
        work_id = works[key].openalex
        if "backward" in directions:
            work = work or client.work(work_id)
            if work is None or not work.referenced_works:
                result.no_references.append(key)
            else:
                refreshed.add(key)
                for cited in client.works_by_ids(list(work.referenced_works)):
                    hits.setdefault(cited.id, Hit(cited)).seeds.setdefault("backward", set()).add(
                        key
                    )
            works[key] = works[key].model_copy(
                update={
                    "references_known": key in refreshed,
                    "retrieved": today.isoformat(),
                }
            )
        if "forward" in directions:
            for citing in client.citing(
                work_id, since.isoformat() if since else None, until.isoformat() if until else None
            ):
                hits.setdefault(citing.id, Hit(citing)).seeds.setdefault("forward", set()).add(key)
        if progress:
            progress(key)

    # Everything below changes files: all of it or none (masrl.files.transaction).
    with files.transaction(project.root):
        # -- classify: an entry (an edge), already recorded (a duplicate), or new ----------------
        new: list[Hit] = []
        logged: dict[str, dict[str, list[str]]] = {d: {} for d in DIRECTIONS}
        duplicates: set[str] = set()
        for hit in sorted(hits.values(), key=lambda h: h.work.id):
            entry = entry_matcher.find(hit.work)
            if entry is not None:
                for seed in hit.seeds.get("backward", ()):
                    found_edges.add((seed, entry))
                for seed in hit.seeds.get("forward", ()):
                    found_edges.add((entry, seed))
            if not _in_window(hit.work, since, until):
                continue
            identifier = hit.work.identifier
            for d, seed_keys in hit.seeds.items():
                logged[d][identifier] = sorted(seed_keys)
            if entry is not None:
                result.known[identifier] = f"corpus/{entry}.yaml"
                duplicates.add(identifier)
                continue
            where = records.find(hit.work)
            if where is None:
                new.append(hit)
            elif not where.startswith("screening/queue/"):
                result.known[identifier] = where
                duplicates.add(identifier)
            else:
                _merge_seeds(project, queue, where, hit, result)
        for d in DIRECTIONS:
            result.hits[d] = len(logged[d])

        # -- write: whole files only, each atomically ---------------------------------------------
        candidates = [candidate_record(hit, today, round_id) for hit in new]
        for data in candidates:  # a record write_item would refuse stops the run before any write
            problems = check_queue_data(
                data, f"screening/queue/{data['id']}.yaml", data["id"], None
            )
            if problems:
                raise ProblemsError("screening/queue", problems)
        ensure_round(
            project, round_id, since, until or today, [], sources=(), opened_by="masrl snowball"
        )
        for data in candidates:
            if (project.root / "screening" / "queue" / f"{data['id']}.yaml").exists():
                continue  # a record under this name is there already; never overwrite it
            write_item(project, data)
            result.added.append(data["id"])
        for d in directions:
            if logged[d]:
                record_citations(project, round_id, d, logged[d])
        if duplicates:
            log = read_identified(project, round_id)
            merged = sorted({*log["duplicates"].get(DUPLICATES_SOURCE, []), *duplicates})
            log["duplicates"] = {**log["duplicates"], DUPLICATES_SOURCE: merged}
            write_identified(project, round_id, log)
        result.edges = _refresh_graph(
            project, graph, works, found_edges, refreshed, today, client.settings.api_url
        )
    return result


def _merge_seeds(project, queue, where, hit: Hit, result: SnowballResult) -> None:
    """A queued citation find met again from further seeds gets them added to its via."""
    item = next(
        (q for q in queue if q.path and project.relative(q.path) == where and q.method), None
    )
    if item is None:
        return
    via = sorted({*item.via, *hit.via()})
    seen = {item.direction, hit.direction()} - {None}
    direction = seen.pop() if len(seen) == 1 else "both"
    if via == list(item.via) and direction == item.direction:
        return
    data = {**record_data(item), "via": via, "direction": direction}
    queue[queue.index(item)] = queue_record_from_data(data, write_item(project, data))
    result.merged.append(item.id)


def candidate_record(hit: Hit, today: dt.date, round_id: str) -> dict:
    """A queue file in discover's layout, with how citation searching found it."""
    work = hit.work
    return {
        "id": queue_id(work.arxiv_id) if work.arxiv_id else work.id,
        "title": work.title or work.id,
        "authors": list(work.authors),
        "published": work.published,
        "abstract": work.abstract or None,
        "categories": [],
        "identifiers": {"arxiv": work.arxiv_id, "doi": work.doi},
        "url": work.url,
        "families": [],
        "discovered": today.isoformat(),
        "round": round_id,
        "method": "citation",
        "direction": hit.direction(),
        "via": hit.via(),
    }


def _refresh_graph(
    project: Project,
    graph: CitationGraph,
    works: dict[str, Work],
    found: set[tuple[str, str]],
    refreshed: set[str],
    today: dt.date,
    api: str,
) -> int:
    """OpenAlex edges of the seeds whose references were read are replaced by what was found;
    other OpenAlex edges stay, and hand edges are never touched."""
    hand = [e for e in graph.edges if e.source == "hand"]
    hand_pairs = {e.pair for e in hand}
    kept = {e.pair for e in graph.edges if e.source == "openalex" and e.source_key not in refreshed}
    pairs = (kept | found) - hand_pairs
    edges = [
        *hand,
        *(
            Edge.model_validate({"from": a, "to": b, "source": "openalex"})
            for a, b in pairs
            if a != b
        ),
    ]
    write_graph(
        project,
        CitationGraph(
            retrieved=today.isoformat(),
            api=api,
            works=works,
            checked_by_hand=graph.checked_by_hand,
            edges=tuple(edges),
        ),
    )
    return len(edges) - len(hand)

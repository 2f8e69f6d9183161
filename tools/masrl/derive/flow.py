"""The PRISMA-style flow of screening, per round and cumulatively.

Per round: records identified, by method as PRISMA 2020 separates them (database search, per
source; citation searching, per direction), duplicates removed, records screened, records excluded
per stage and reason, records included, and those still waiting (queued or deferred). The
survey's own round logged only the records it audited, so its identified count is the audited
records; later rounds also count every search hit and every duplicate dropped, from
screening/identified/<round>.yaml::

    identified:            # database search: hits per source (arXiv ids, or other identifiers)
      arxiv: ['2607.01234', ...]
    citations:             # citation searching: hits per direction, each with its seed entries
      backward: {'2507.04321': [magrpo]}     # a seed's reference list names it
      forward: {'2608.00001': [malt, c3]}    # it cites the seeds
    duplicates:            # hits dropped as already known, per source
      arxiv: [...]

A record found by both methods is identified in both columns and removed once as a duplicate.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from masrl.model.project import Corpus
from masrl.model.records import Entry
from masrl.screening.identified import read_identified


@dataclass(frozen=True)
class RoundFlow:
    round: str
    date: str
    identified: dict[str, int]  # per source
    duplicates: int
    screened: int
    excluded: dict[tuple[str, str], int]  # (stage, reason) -> records
    included: int
    waiting: int  # still in the queue: undecided or deferred
    citations: dict[str, int] = field(default_factory=dict)  # citation searching, per direction
    # included records by the method(s) that found them: database, citation, both (capture-recapture)
    included_by_method: dict[str, int] = field(default_factory=dict)

    @property
    def identified_database(self) -> int:
        return sum(self.identified.values())

    @property
    def identified_citation(self) -> int:
        return sum(self.citations.values())

    @property
    def identified_total(self) -> int:
        return self.identified_database + self.identified_citation

    @property
    def excluded_total(self) -> int:
        return sum(self.excluded.values())


@dataclass(frozen=True)
class Flow:
    rounds: tuple[RoundFlow, ...]  # oldest first
    cumulative: RoundFlow = field(default=None)


def entry_source(entry: Entry) -> str:
    """Where a retained entry was found, from its identifiers (entries carry no source field)."""
    if entry.identifiers.get("arxiv"):
        return "arxiv"
    if entry.identifiers.get("openreview"):
        return "openreview"
    return "other"


def record_identifiers(record) -> set[str]:
    """The identifiers a log may name a record by: its arXiv id, DOI or OpenReview id, its
    identifier as written, or (for a work with none, such as a blog post) its URL."""
    if isinstance(record, Entry):
        found = (
            record.arxiv_id,
            record.identifiers.get("doi"),
            record.identifiers.get("openreview"),
        )
        return {i for i in (*found, *record.urls) if i}
    identifier = record.identifier
    bare = identifier.split(":", 1)[1] if identifier.startswith("arXiv:") else identifier
    return {i for i in (bare, identifier, record.url) if i}


def compute_flow(corpus: Corpus, rounds=None, queue=None) -> Flow:
    """rounds: Round objects (default: screening/rounds.yaml); queue: QueueItems (default: the
    queue). A decided record leaves the queue, so what is queued is undecided or deferred."""
    from masrl.screening.queue import read_queue
    from masrl.screening.rounds import load_rounds

    project = corpus.project
    rounds = rounds if rounds is not None else load_rounds(project)
    queue = queue if queue is not None else read_queue(project)
    known = {r.id: r for r in rounds}
    recorded = {e.round for e in corpus.entries} | {x.round for x in corpus.exclusions}
    ids = list(known) + sorted(recorded - set(known))
    flows = []
    for round_id in ids:
        entries = [e for e in corpus.entries if e.round == round_id]
        exclusions = [x for x in corpus.exclusions if x.round == round_id]
        waiting_items = [q for q in queue if q.round == round_id]
        log = read_identified(project, round_id)
        identified = Counter({s: len(v) for s, v in log["identified"].items()})
        citations = Counter({d: len(v) for d, v in log["citations"].items()})
        by_database = {i for v in log["identified"].values() for i in v}
        by_citation = {i for v in log["citations"].values() for i in v}
        # found by both methods: identified in both columns, screened once
        duplicates = sum(len(v) for v in log["duplicates"].values()) + len(
            by_database & by_citation
        )
        logged = by_database | by_citation
        methods = Counter()
        for record in (*entries, *exclusions):
            names = record_identifiers(record)
            if not names & logged:
                # decided without passing through a logged search (the survey's, or added by hand)
                identified[
                    entry_source(record) if isinstance(record, Entry) else record.source
                ] += 1
            if isinstance(record, Entry):
                found_by_citation = bool(names & by_citation)
                both = found_by_citation and bool(names & by_database)
                methods["both" if both else "citation" if found_by_citation else "database"] += 1
        excluded = Counter((x.stage, x.reason_code) for x in exclusions)
        total = sum(identified.values()) + sum(citations.values())
        flows.append(
            RoundFlow(
                round_id,
                known[round_id].date if round_id in known else "",
                dict(sorted(identified.items())),
                duplicates,
                total - duplicates,
                dict(sorted(excluded.items())),
                len(entries),
                len(waiting_items),
                dict(sorted(citations.items())),
                dict(sorted(methods.items())),
            )
        )
    flows.sort(key=lambda f: (f.date, f.round))
    return Flow(tuple(flows), _cumulative(flows))


def _cumulative(flows: list[RoundFlow]) -> RoundFlow:
    identified, excluded, citations, methods = Counter(), Counter(), Counter(), Counter()
    for f in flows:
        identified.update(f.identified)
        excluded.update(f.excluded)
        citations.update(f.citations)
        methods.update(f.included_by_method)
    return RoundFlow(
        "all rounds",
        flows[-1].date if flows else "",
        dict(sorted(identified.items())),
        sum(f.duplicates for f in flows),
        sum(f.screened for f in flows),
        dict(sorted(excluded.items())),
        sum(f.included for f in flows),
        sum(f.waiting for f in flows),
        dict(sorted(citations.items())),
        dict(sorted(methods.items())),
    )


# ---------------------------------------------------------------------------------------------
# How complete is a round? Capture-recapture over the two identification methods.

MIN_OVERLAP = 5  # below this many included records found by both methods, no number is given


@dataclass(frozen=True)
class RecallEstimate:
    round: str
    by_database: int  # included records that database search found (n1)
    by_citation: int  # included records that citation searching found (n2)
    by_both: int  # found by both (m)
    found: int  # included records found by either method
    estimate: float | None  # Chapman's estimate of the in-scope records, N
    low: float | None  # 95 % interval
    high: float | None
    reason: str | None = None  # why there is no estimate

    @property
    def recall(self) -> tuple[float, float, float] | None:
        """found / N, with the interval's ends swapped (more papers, lower recall)."""
        if self.estimate is None:
            return None
        return (
            self.found / self.estimate,
            self.found / self.high,
            self.found / max(self.low, self.found),
        )


def round_estimates(flow: Flow) -> list[RecallEstimate]:
    """The estimate of every round that used both identification methods."""
    return [
        chapman_estimate(f) for f in flow.rounds if f.identified_citation and f.identified_database
    ]


def chapman_estimate(flow: RoundFlow) -> RecallEstimate:
    """Chapman's bias-corrected Lincoln-Petersen estimator, N = (n1+1)(n2+1)/(m+1) - 1, with
    Seber's variance and a normal 95 % interval whose lower end is at least the records found.
    It assumes the two methods find papers independently and every paper is as findable as any
    other; both fail in practice (citation chasing starts from what search found), which biases
    N low, so the recall it implies is an upper bound."""
    import math

    methods = flow.included_by_method
    both = methods.get("both", 0)
    n1, n2 = methods.get("database", 0) + both, methods.get("citation", 0) + both
    found = n1 + n2 - both
    if both < MIN_OVERLAP:
        reason = (
            f"only {both} included record(s) were found by both database search and citation searching; "
            f"an estimate needs at least {MIN_OVERLAP}, so it would be unreliable"
        )
        return RecallEstimate(flow.round, n1, n2, both, found, None, None, None, reason)
    estimate = (n1 + 1) * (n2 + 1) / (both + 1) - 1
    variance = (n1 + 1) * (n2 + 1) * (n1 - both) * (n2 - both) / ((both + 1) ** 2 * (both + 2))
    half = 1.96 * math.sqrt(variance)
    return RecallEstimate(
        flow.round, n1, n2, both, found, estimate, max(found, estimate - half), estimate + half
    )

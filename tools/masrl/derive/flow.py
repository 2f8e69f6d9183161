"""The PRISMA-style flow of screening, per round and cumulatively.

Per round: records identified per source, duplicates removed, records screened, records excluded
per stage and reason, records included, and those still waiting (queued or deferred). The
survey's own round logged only the records it audited, so its identified count is the audited
records; rounds opened by `masrl discover` also count every search hit and every duplicate it
dropped (screening/identified/<round>.yaml).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from masrl.model import yamlio
from masrl.model.project import Corpus
from masrl.model.records import Entry

IDENTIFIED_DIR = Path("screening") / "identified"


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

    @property
    def identified_total(self) -> int:
        return sum(self.identified.values())

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


def read_identified(project, round_id: str) -> dict:
    path = project.root / IDENTIFIED_DIR / f"{round_id}.yaml"
    if not path.is_file():
        return {"identified": {}, "duplicates": {}}
    data = yamlio.load_file(path)
    return {"identified": dict(data.get("identified") or {}), "duplicates": dict(data.get("duplicates") or {})}


def record_identified(project, round_id: str, source: str, found: list[str], duplicates: list[str]) -> None:
    """Merge one search's hits and dropped duplicates into screening/identified/<round>.yaml."""
    data = read_identified(project, round_id)
    for name, ids in (("identified", found), ("duplicates", duplicates)):
        merged = sorted({*data[name].get(source, []), *ids})
        data[name] = {**data[name], source: merged}
    text = ("# Search hits and dropped duplicates of the round, written by `masrl discover`.\n"
            + yamlio.dumps({"identified": dict(sorted(data["identified"].items())),
                            "duplicates": dict(sorted(data["duplicates"].items()))}))
    yamlio.write_atomic(project.root / IDENTIFIED_DIR / f"{round_id}.yaml", text)


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
        duplicates = sum(len(v) for v in log["duplicates"].values())
        logged = {i for v in log["identified"].values() for i in v}
        # Records decided without passing through discover (the survey's, or added by hand).
        for e in entries:
            if not (e.arxiv_id and e.arxiv_id in logged):
                identified[entry_source(e)] += 1
        for x in exclusions:
            if not (x.identifier.startswith("arXiv:") and x.identifier.split(":", 1)[1] in logged):
                identified[x.source] += 1
        excluded = Counter((x.stage, x.reason_code) for x in exclusions)
        total = sum(identified.values())
        flows.append(RoundFlow(round_id, known[round_id].date if round_id in known else "", dict(sorted(identified.items())),
                               duplicates, total - duplicates, dict(sorted(excluded.items())), len(entries),
                               len(waiting_items)))
    flows.sort(key=lambda f: (f.date, f.round))
    return Flow(tuple(flows), _cumulative(flows))


def _cumulative(flows: list[RoundFlow]) -> RoundFlow:
    identified, excluded = Counter(), Counter()
    for f in flows:
        identified.update(f.identified)
        excluded.update(f.excluded)
    return RoundFlow("all rounds", flows[-1].date if flows else "", dict(sorted(identified.items())),
                     sum(f.duplicates for f in flows), sum(f.screened for f in flows), dict(sorted(excluded.items())),
                     sum(f.included for f in flows), sum(f.waiting for f in flows))

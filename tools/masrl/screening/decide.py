"""Record a screening decision: include, exclude or defer a queue record.

- include scaffolds corpus/<key>.yaml through the same helpers as `masrl add` (facts filled,
  judgements TODO so that validate lists what is missing), with added/round/screened_by;
- exclude writes exclusions/E<n>.yaml with stage, reason code, rationale, round, screened_by;
- defer only records the decision; the record stays in the queue.
Each decision is appended to screening/decisions/<round>.yaml. The record, the decision and the
removal of the queue file are one transaction (``masrl.files.transaction``): all three or none,
even when the process is killed in between.

A decision that contradicts an earlier include or exclude of the same record is refused and
named, never written over: the two go to adjudication.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from pathlib import Path

from masrl import files
from masrl.errors import InputError, UsageError
from masrl.imports import add
from masrl.model import identifiers as ids
from masrl.model import yamlio
from masrl.model.project import Project
from masrl.model.records import ENTRY_SCHEMA_LINE, EXCLUSION_SCHEMA_LINE, PLACEHOLDER
from masrl.screening.queue import (
    DECISIONS,
    Decision,
    QueueRecord,
    decisions_dir,
    read_decisions,
    read_decisions_file,
    read_queue,
    require_round,
)

DEFAULT_STAGE = "abstract_screen"


class Contradiction(InputError):
    """A decision that disagrees with one already recorded for the same record."""


@dataclass(frozen=True)
class DecisionResult:
    decision: Decision
    written: Path | None  # the entry or exclusion record created, if any
    todo: tuple[str, ...] = ()


def find_queue_record(project: Project, record_id: str) -> QueueRecord:
    records = {r.id: r for r in read_queue(project)}
    if record_id in records:
        return records[record_id]
    earlier = [
        d for d in read_decisions(project) if d.record == record_id and d.decision != "defer"
    ]
    if earlier:
        last = earlier[-1]
        raise InputError(
            f"'{record_id}' is no longer in the queue: {last.screener} decided '{last.decision}' on {last.date}",
            path=last.where.rsplit(":", 1)[0],
            line=int(last.where.rsplit(":", 1)[1]),
            hint="edit the corpus or exclusion record itself to change a decision",
        )
    raise InputError(
        f"'{record_id}' is not in the screening queue",
        path="screening/queue",
        hint="run `masrl screen list` to see the queue ids",
    )


def check_contradiction(
    project: Project, new: Decision, existing: list[Decision] | None = None
) -> None:
    """Refuse an include/exclude that disagrees with an earlier include/exclude of the record."""
    if new.decision == "defer":
        return
    for old in existing if existing is not None else read_decisions(project):
        if (
            old.record == new.record
            and old.decision in ("include", "exclude")
            and old.decision != new.decision
        ):
            raise Contradiction(
                f"'{new.record}': {new.screener} says {new.decision} but {old.screener} said {old.decision} on {old.date} ({old.where})",
                hint="both are kept for adjudication; settle it by editing the records, not by deciding again",
            )


def append_decision(project: Project, decision: Decision) -> Path:
    path = decisions_dir(project) / f"{decision.round}.yaml"
    existing = read_decisions_file(project, path) if path.is_file() else []
    data = {"decisions": [d.to_data() for d in existing] + [decision.to_data()]}
    files.write_atomic(path, yamlio.dumps(data))
    return path


def entry_from_queue(
    record: QueueRecord, key: str, round_id: str, screener: str, today: str
) -> dict:
    year = (record.published or "")[:4]
    identifiers = {
        "arxiv": record.arxiv_id,
        "doi": record.identifiers.get("doi"),
        "openreview": None,
    }
    data = add.entry_skeleton(
        key=key,
        title=record.title,
        authors=list(record.authors),
        authors_complete=True,
        year=int(year) if year.isdigit() else PLACEHOLDER,
        venue="arXiv" if record.arxiv_id else PLACEHOLDER,
        identifiers=identifiers,
        urls=[record.url] if record.url else [],
        extra={
            "primary_category": record.categories[0] if record.categories else None,
            "added": today,
            "round": round_id,
            "screened_by": screener,
        },
    )
    return data


def exclusion_from_queue(
    project: Project,
    record: QueueRecord,
    record_id: str,
    reason_code: str,
    rationale: str,
    round_id: str,
    screener: str,
    today: str,
) -> dict:
    families = project.taxonomy()["query_families"].ids
    family = next((f for f in record.families if f in families), PLACEHOLDER)
    if record.arxiv_id:
        source, identifier = "arxiv", f"arXiv:{record.arxiv_id}"
    else:
        source, identifier = (
            PLACEHOLDER,
            f"doi:{record.identifiers['doi']}"
            if record.identifiers.get("doi")
            else record.id.upper(),
        )
    return {
        "record_id": record_id,
        "source": source,
        "query_family": family,
        "title": record.title,
        "identifier": identifier,
        "url": record.url or PLACEHOLDER,
        "date_screened": today,
        "stage": DEFAULT_STAGE,
        "reason_code": reason_code,
        "rationale": rationale,
        "round": round_id,
        "screened_by": screener,
    }


def check_exclude_options(project: Project, reason_code: str | None, rationale: str | None) -> None:
    reasons = project.taxonomy()["exclusion_reasons"].ids
    if reason_code not in reasons:
        raise UsageError(
            f"--reason '{reason_code}' is not an exclusion reason",
            hint=f"use one of: {', '.join(reasons)}",
        )
    if (
        rationale is None
        or not rationale.strip()
        or "\n" in rationale.strip()
        or rationale.strip() == PLACEHOLDER
    ):
        raise UsageError("--rationale needs one line, in your own words, on why the record is out")


def decide(
    project: Project,
    record_id: str,
    decision: str,
    screener: str,
    *,
    round_id: str | None = None,
    reason_code: str | None = None,
    rationale: str | None = None,
    today: dt.date | None = None,
    record: QueueRecord | None = None,
    reason_to_fill: bool = False,
) -> DecisionResult:
    """Record one decision on a queue record; see the module docstring for what is written.

    reason_to_fill: an exclusion from a tool that records no reason (ASReview) is written with the
    reason code TODO (and the rationale TODO unless given), for validate to list until filled.
    """
    if decision not in DECISIONS:
        raise UsageError(f"decision '{decision}' is not one of {', '.join(DECISIONS)}")
    if not screener or not screener.strip():
        raise UsageError("name the screener with --screener NAME (or MASRL_SCREENER)")
    record = record or find_queue_record(project, record_id)
    round_id = round_id or record.round
    require_round(project, round_id)
    if decision == "exclude" and reason_to_fill:
        reason_code, rationale = PLACEHOLDER, rationale or PLACEHOLDER
    elif decision == "exclude":
        check_exclude_options(project, reason_code, rationale)
    date = (today or dt.date.today()).isoformat()
    new = Decision(
        record.id,
        screener.strip(),
        decision,
        reason_code if decision == "exclude" else None,
        " ".join(rationale.split()) if decision == "exclude" else None,
        date,
        round_id,
    )
    check_contradiction(project, new)

    with files.transaction(project.root):  # the record, the decision and the queue file together
        written, todo = None, ()
        if decision == "include":
            known = add.known_records(project)
            identities = ids.normalized_keys(
                record.identifiers, None, [record.url] if record.url else []
            )
            holder = add.find_duplicate(known, identities, record.title)
            if holder:
                raise InputError(
                    f"'{record.id}' is already recorded in {holder}",
                    path=project.relative(record.path),
                    hint="exclude it with --reason duplicate_signal or delete the queue file",
                )
            key = add.generate_key(
                record.title, record.authors, (record.published or "")[:4], add.taken_keys(project)
            )
            data = entry_from_queue(record, key, round_id, new.screener, date)
            written = project.corpus_dir / f"{key}.yaml"
            files.write_atomic(
                written, yamlio.dumps(data, header=ENTRY_SCHEMA_LINE), root=project.root
            )
            todo = tuple(add.placeholder_fields(data))
        elif decision == "exclude":
            record_id_new = add.next_record_id(project)
            data = exclusion_from_queue(
                project,
                record,
                record_id_new,
                reason_code,
                new.rationale,
                round_id,
                new.screener,
                date,
            )
            written = project.exclusions_dir / f"{record_id_new}.yaml"
            files.write_atomic(
                written, yamlio.dumps(data, header=EXCLUSION_SCHEMA_LINE), root=project.root
            )
            todo = tuple(add.placeholder_fields(data))
        append_decision(project, new)
        if decision != "defer" and record.path is not None and record.path.exists():
            files.remove(record.path, root=project.root)
    return DecisionResult(new, written, todo)

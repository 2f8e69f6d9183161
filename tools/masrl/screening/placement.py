"""Is every record where its final screening decision puts it?

A record read twice has a final decision: the ruling on the decision in the latest pass that
read it (the decisions file is pass 1; a later pass reads ``decision`` as a tag), or else that
pass's readers when they all agree. An entry must have been included and an exclusion record
excluded. A record whose place differs was moved by hand, or a ruling never reached the corpus,
or a key now names another paper than the one that was read: each is reported, and is fixed by
moving the record or by a ruling that says why it stays.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from masrl.problems import Problem
from masrl.screening.reading_passes import FIRST_PASS

PLACE_OF = {"include": "an entry", "exclude": "an exclusion record"}


@dataclass
class Readings:
    """Who read what, by record name and pass: decisions (the decisions file is pass 1; a later
    pass reads ``decision`` as a tag) and tag readings, with the rulings on decisions."""

    decisions: dict[str, dict[int, dict[str, str]]] = field(
        default_factory=lambda: defaultdict(lambda: defaultdict(dict))
    )
    taggers: dict[str, dict[int, set[str]]] = field(
        default_factory=lambda: defaultdict(lambda: defaultdict(set))
    )
    ruled: dict[tuple[str, int], tuple[str, str]] = field(default_factory=dict)  # (value, date)


def readings_from(decisions, tag_data) -> Readings:
    """Who read what, from the decisions (pass 1) and the tag readings already read."""
    found = Readings()
    for decision in decisions:
        found.decisions[decision.record][FIRST_PASS][decision.screener] = decision.decision
    for reading in tag_data.readings:
        tags = dict(reading.tags)
        if tags.get("decision") is not None:
            found.decisions[reading.record][reading.pass_number][reading.screener] = tags[
                "decision"
            ]
        if set(tags) - {"decision"}:
            found.taggers[reading.record][reading.pass_number].add(reading.screener)
    found.ruled = {
        (r.record, r.pass_number): (r.value, r.date)
        for r in tag_data.rulings
        if r.field == "decision"
    }
    return found


def final_decisions(
    readings: Readings, names: dict[str, tuple[str, ...]] | None = None
) -> dict[str, tuple[str, int]]:
    """Record -> (final decision, the pass that gave it), for every record whose latest pass is
    settled: a ruling, or readers who agree. ``names`` (record -> its former names) pools the
    readings and rulings a record had under each of its names (listed oldest first),
    and the latest ruling decides."""
    pooled: dict[str, tuple[str, ...]] = {name: (name,) for name in readings.decisions}
    for record, former in (names or {}).items():
        pooled[record] = (record, *former)
        for name in former:
            pooled.pop(name, None)
    final = {}
    for record, aliases in pooled.items():
        votes: dict[int, dict[tuple[str, str], str]] = defaultdict(dict)
        for name in aliases:
            for number, by_reader in readings.decisions.get(name, {}).items():
                votes[number].update({(name, reader): value for reader, value in by_reader.items()})
        if not votes:
            continue
        latest = max(votes)
        values = set(votes[latest].values())
        # the latest ruling wins; on the same day, the one under the newer name
        rulings = [
            (readings.ruled[(name, latest)][1], -rank, readings.ruled[(name, latest)][0])
            for rank, name in enumerate((aliases[0], *reversed(aliases[1:])))
            if (name, latest) in readings.ruled
        ]
        decision = max(rulings)[2] if rulings else (values.pop() if len(values) == 1 else None)
        if decision in PLACE_OF:
            final[record] = (decision, latest)
    return final


def thinly_read(
    readings: Readings,
    places: dict[str, tuple[str, str, int]],
    formerly: dict[str, tuple[str, ...]],
    unscreened: set[str],
) -> list[Problem]:
    """A warning for each screened record that no pass had two readers decide, and for each such
    entry that no pass had two readers tag (its own name and its former names together).
    ``unscreened``: records that came without screening files (the survey's snapshot)."""
    problems = []
    for record, (placed, path, line) in sorted(places.items()):
        if record in unscreened:
            continue
        names = (record, *formerly.get(record, ()))
        for what, table, applies in (
            ("decided", readings.decisions, True),
            ("tagged", readings.taggers, placed == "include"),
        ):
            if not applies:
                continue
            per_pass: dict[int, set[str]] = defaultdict(set)
            for name in names:
                for number, readers in table.get(name, {}).items():
                    per_pass[number] |= set(readers)
            most = max((len(readers) for readers in per_pass.values()), default=0)
            if most < 2:
                problems.append(
                    Problem(
                        path,
                        line,
                        f"{record} was {what} by one reader only"
                        if most
                        else f"no reader {what} {record}",
                        "a second reader who has not seen the first reading reads it from its "
                        "abstract; record the reading in screening/tags/<round>.yaml",
                        severity="warning",
                        code="read-twice",
                    )
                )
    return problems


def misplaced_records(
    readings: Readings,
    places: dict[str, tuple[str, str, int]],
    formerly: dict[str, tuple[str, ...]] | None = None,
) -> list[Problem]:
    """A problem for each record (id -> (its decision by place, file, line)) whose final
    decision would put it elsewhere. A record's readings under its former names (``formerly``:
    id -> earlier names) count as its own."""
    final = final_decisions(readings, names=formerly)
    problems = []
    for record, (placed, path, line) in sorted(places.items()):
        if record not in final:
            continue
        decision, number = final[record]
        if placed == decision:
            continue
        problems.append(
            Problem(
                path,
                line,
                f"{record} is {PLACE_OF[placed]}, but its final screening decision "
                f"(pass {number}) is {decision}",
                f"make it {PLACE_OF[decision]}, or record a ruling on its decision for pass "
                f"{number} in screening/tags/<round>.yaml saying why it stays",
                code="placement",
            )
        )
    return problems

"""Agreement between screeners: per decision and per tag field, observed agreement, Cohen's kappa
(two raters, scikit-learn) and Krippendorff's alpha (any number of raters, missing ratings
allowed; the `krippendorff` package), and the disagreements to adjudicate.

Ratings come from the screening decisions (screening/decisions/<round>.yaml, one decision per
screener and record), from independent tag readings (screening/tags/<round>.yaml, see
tag_readings.py: one reading per screener and record, each tag field a rated item) and from
second-annotator audits in the survey's spot-check CSV layout:
``key``, ``orig_<field>`` and ``ann_<field>`` for each audited field, then
``strict_explicit_credit``, ``agreement_note`` and ``annotator_note``; multi-valued cells are
joined with ';' and ``NA`` means not applicable (a value, not a missing rating).

A round's tags file may declare later passes, fields every reader read again under changed
definitions (reading_passes.py). For each round and field the ratings of the latest pass that
declares the field are reported; the figures of the pass they superseded come along
(``FieldAgreement.earlier``), and its disagreements are no longer to adjudicate. A re-read decision
is a ``decision`` tag of a later pass; the decisions file stays the first pass.

A disagreement is settled by an adjudication in a tag-readings file (record, field, pass, value,
by, date); the report then shows the ruling and, for a tag field of a corpus entry, whether the
entry already holds the ruled value, so a ruling that never reached the corpus is not lost.
"""

from __future__ import annotations

import csv
import math
from collections import defaultdict
from dataclasses import dataclass, field, replace
from pathlib import Path

from masrl.errors import InputError
from masrl.screening.reading_passes import (
    FIRST_PASS,
    ReadingPass,
    latest_pass,
    superseded_pass,
)

DECISIONS_DIR = Path("screening") / "decisions"
AUDIT_FIELDS = ("category", "is_rl", "reward_type", "credit_granularity", "orchestration_form")
AUDIT_TRAILING = ("strict_explicit_credit", "agreement_note", "annotator_note")
DECISIONS = ("include", "exclude", "defer")
AUDIT_RATERS = ("original", "annotator")  # the orig_ and ann_ columns


@dataclass
class Ratings:
    """field -> unit -> rater -> value (a label string)."""

    by_field: dict[str, dict[str, dict[str, str]]] = field(
        default_factory=lambda: defaultdict(lambda: defaultdict(dict))
    )

    def add(self, field_name: str, unit: str, rater: str, value: str) -> None:
        self.by_field[field_name][unit][rater] = value


AUDITS = ""  # the round of the audits' ratings: they belong to no round file and have one pass


@dataclass
class PassedRatings:
    """Every rating kept apart by the round file and the pass it was read in, and the later passes
    each round declares."""

    sets: dict[tuple[str, int], Ratings] = field(default_factory=dict)
    declared: dict[str, dict[int, ReadingPass]] = field(default_factory=dict)
    decided_in: dict[str, str] = field(default_factory=dict)  # record -> round of its decisions

    def of(self, round_id: str, pass_number: int = FIRST_PASS) -> Ratings:
        return self.sets.setdefault((round_id, pass_number), Ratings())


def _cell(value: str) -> str | None:
    """A CSV cell as a label: multi-valued cells as their sorted set, '' as missing."""
    value = (value or "").strip()
    if not value:
        return None
    parts = sorted({p.strip() for p in value.split(";") if p.strip()})
    return ";".join(parts)


def read_audit_csv(path: Path, ratings: Ratings, rel: str | None = None) -> int:
    """Add the ratings of a spot-check CSV; return the number of rows read."""
    rel = rel or str(path)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(
            f"cannot read the audit CSV ({getattr(exc, 'strerror', None) or exc})", path=rel
        ) from exc
    reader = csv.DictReader(text.splitlines())
    header = reader.fieldnames or []
    expected = ["key", *(f"{p}_{f}" for f in AUDIT_FIELDS for p in ("orig", "ann"))]
    missing = [c for c in expected if c not in header]
    if missing:
        raise InputError(
            f"the audit CSV lacks the column(s) {', '.join(missing)}",
            path=rel,
            line=1,
            hint="columns: key, orig_<field>, ann_<field> for "
            + ", ".join(AUDIT_FIELDS)
            + ", then "
            + ", ".join(AUDIT_TRAILING),
        )
    rows = 0
    seen: dict[str, int] = {}
    for line, row in enumerate(reader, start=2):
        key = (row.get("key") or "").strip()
        if not key:
            raise InputError(
                "a row has no key",
                path=rel,
                line=line,
                hint="every row names the corpus key it audits",
            )
        if key in seen:
            raise InputError(
                f"key '{key}' is audited twice (first on line {seen[key]})",
                path=rel,
                line=line,
                hint="keep one row per key",
            )
        seen[key] = line
        for name in AUDIT_FIELDS:
            for prefix, rater in zip(("orig", "ann"), AUDIT_RATERS, strict=True):
                value = _cell(row.get(f"{prefix}_{name}", ""))
                if value is not None:
                    ratings.add(name, key, rater, value)
        rows += 1
    return rows


def read_decisions(project, passed: PassedRatings) -> int:
    """Add every screener's decision per record from screening/decisions/*.yaml, the first pass of
    its round (read and checked by the same reader as `masrl screen`; every problem of a file is
    reported at once)."""
    from masrl.screening.queue import read_decisions as read_all

    decisions = read_all(project)
    for decision in decisions:
        passed.of(decision.round).add(
            "decision", decision.record, decision.screener, decision.decision
        )  # a later one wins
        passed.decided_in[decision.record] = decision.round
    return len(decisions)


@dataclass(frozen=True)
class Disagreement:
    field: str
    unit: str
    values: tuple[tuple[str, str], ...]  # (rater, value), by rater
    ruling: str | None = None  # the adjudicated value, when settled
    ruled_by: str | None = None
    ruled_at: str | None = None  # 'path:line' of the ruling
    ruling_note: str | None = None  # the one-line reason for the ruling
    pass_number: int = FIRST_PASS  # the pass whose readings disagree
    corpus: str | None = None  # the corpus entry's value of a tag field, as a label
    corpus_at: str | None = None  # 'path:line' of that value

    @property
    def settled(self) -> bool:
        return self.ruling is not None

    @property
    def pending_in_corpus(self) -> bool:
        """Ruled, but the corpus entry still holds another value."""
        return self.ruling is not None and self.corpus is not None and self.corpus != self.ruling


@dataclass(frozen=True)
class EarlierPass:
    """A re-read field's figures in the pass(es) its re-reading superseded."""

    passes: tuple[int, ...]
    units: int
    observed: float | None
    kappa: float | None
    alpha: float | None


@dataclass(frozen=True)
class FieldAgreement:
    field: str
    raters: tuple[str, ...]
    units: int  # units rated by at least two raters
    observed: float | None  # share of those units where every rater agrees
    kappa: float | None  # Cohen's kappa, two raters only
    alpha: float | None  # Krippendorff's alpha (nominal)
    disagreements: tuple[Disagreement, ...]
    passes: tuple[int, ...] = (FIRST_PASS,)  # the passes reported (several over several rounds)
    earlier: EarlierPass | None = None  # the superseded figures, for a re-read field
    rereads: tuple[ReadingPass, ...] = ()  # the declared passes reported, with their reasons


def _finite(value) -> float | None:
    return (
        None
        if value is None or (isinstance(value, float) and math.isnan(value))
        else round(float(value), 4)
    )


def cohen_kappa(first: list[str], second: list[str]) -> float:
    """Cohen's kappa of two raters' labels, NaN when undefined (one label only). The arithmetic
    of scikit-learn's ``cohen_kappa_score`` (its test checks the two agree), without importing
    scikit-learn, which takes a second: the site's reliability page needs only this."""
    import numpy as np

    labels = sorted(set(first) | set(second))
    index = {label: i for i, label in enumerate(labels)}
    confusion = np.zeros((len(labels), len(labels)), dtype=np.int64)
    np.add.at(confusion, ([index[a] for a in first], [index[b] for b in second]), 1)
    sum0, sum1 = confusion.sum(axis=0), confusion.sum(axis=1)
    expected = np.outer(sum0, sum1) / np.sum(sum0)
    disagree = np.ones_like(confusion)
    disagree.flat[:: len(labels) + 1] = 0
    with np.errstate(divide="ignore", invalid="ignore"):
        return float(1 - np.sum(disagree * confusion) / np.sum(disagree * expected))


def field_agreement(field_name: str, units: dict[str, dict[str, str]]) -> FieldAgreement:
    raters = tuple(sorted({r for ratings in units.values() for r in ratings}))
    shared = {u: r for u, r in sorted(units.items()) if len(r) >= 2}
    agreed = [u for u, r in shared.items() if len(set(r.values())) == 1]
    disagreements = tuple(
        Disagreement(field_name, u, tuple(sorted(r.items())))
        for u, r in shared.items()
        if len(set(r.values())) > 1
    )
    kappa = alpha = None
    if len(raters) == 2 and shared:
        first = [shared[u][raters[0]] for u in shared]
        second = [shared[u][raters[1]] for u in shared]
        kappa = _finite(cohen_kappa(first, second))
    labels = sorted({v for r in units.values() for v in r.values()})
    if len(raters) >= 2 and len(labels) >= 2 and shared:
        import krippendorff
        import numpy as np  # here, not at the top: the site's reliability page imports this module

        code = {label: i for i, label in enumerate(labels)}
        matrix = np.array(
            [
                [code[units[u][r]] if r in units[u] else np.nan for u in sorted(units)]
                for r in raters
            ],
            dtype=float,
        )
        alpha = _finite(krippendorff.alpha(reliability_data=matrix, level_of_measurement="nominal"))
    elif shared and len(labels) == 1:
        alpha = None  # every rating the same: agreement is perfect but alpha is undefined
    observed = round(len(agreed) / len(shared), 4) if shared else None
    return FieldAgreement(field_name, raters, len(shared), observed, kappa, alpha, disagreements)


def _field_order(names) -> list[str]:
    order = {
        name: i for i, name in enumerate(("decision", *AUDIT_FIELDS))
    }  # then tag fields by name
    return sorted(names, key=lambda n: (order.get(n, len(order)), n))


def agreement(ratings: Ratings) -> list[FieldAgreement]:
    """Agreement over ratings of one pass."""
    return [
        field_agreement(name, ratings.by_field[name]) for name in _field_order(ratings.by_field)
    ]


def _field_over_passes(passed: PassedRatings, name: str, keep) -> FieldAgreement:
    """One field's agreement: per round, the ratings of its latest pass, and, when a round re-read
    the field, the figures of the ratings that pass superseded."""
    reported, before = Ratings(), Ratings()
    unit_pass: dict[str, int] = {}
    before_passes: set[int] = set()
    rereads: dict[tuple[str, int], ReadingPass] = {}
    for (round_id, number), ratings in sorted(passed.sets.items()):
        declared = passed.declared.get(round_id, {})
        latest = latest_pass(declared, name)
        superseded = superseded_pass(declared, name)
        for unit, by_rater in sorted(ratings.by_field.get(name, {}).items()):
            if keep is not None and not keep(unit):
                continue
            if latest != FIRST_PASS:
                rereads[round_id, latest] = declared[latest]
            if number == latest:
                unit_pass[unit] = number
                for rater, value in by_rater.items():
                    reported.add(name, unit, rater, value)
            if number == (latest if superseded is None else superseded):
                before_passes.add(number)
                for rater, value in by_rater.items():
                    before.add(name, unit, rater, value)
    result = field_agreement(name, reported.by_field[name])
    passes = set(unit_pass.values()) | {number for _, number in rereads}
    earlier = None
    if rereads:
        was = field_agreement(name, before.by_field[name])
        earlier = EarlierPass(
            tuple(sorted(before_passes)), was.units, was.observed, was.kappa, was.alpha
        )
    return replace(
        result,
        disagreements=tuple(
            replace(d, pass_number=unit_pass[d.unit]) for d in result.disagreements
        ),
        passes=tuple(sorted(passes)) or (FIRST_PASS,),
        earlier=earlier,
        rereads=tuple(rereads[key] for key in sorted(rereads)),
    )


def reported_agreement(passed: PassedRatings, keep=None) -> list[FieldAgreement]:
    """Agreement per field over the reported pass of each round (``keep``: which units count)."""
    names = {name for ratings in passed.sets.values() for name in ratings.by_field}
    results = [_field_over_passes(passed, name, keep) for name in _field_order(names)]
    return [r for r in results if r.raters or r.rereads]


def read_tag_readings(project, passed: PassedRatings):
    """Add every screener's tag readings and the rounds' declared passes; return the
    adjudications (rulings)."""
    from masrl.screening.tag_readings import read_tag_data

    data = read_tag_data(project)
    for reading in data.readings:
        for name, value in reading.tags:
            passed.of(reading.round, reading.pass_number).add(
                name, reading.record, reading.screener, value
            )
    passed.declared.update(data.passes)
    return data.rulings


def _corpus_labels(
    project, keys: set[str], fields: set[str]
) -> dict[tuple[str, str], tuple[str, str]]:
    """(entry key, tag field) -> (label, 'path:line') from the corpus entries named, read as raw YAML."""
    from masrl.model.project import read_records
    from masrl.screening.tag_readings import label, tag_fields

    specs = tag_fields(project.taxonomy())
    wanted = [p for p in project.entry_paths() if p.stem in keys]
    found = {}
    for record in read_records(wanted):
        if not isinstance(record.data, dict):
            continue
        for name in fields & set(specs) & set(record.data):
            value = record.data[name]
            many = specs[name].kind == "tags"
            if (many and isinstance(value, list) and all(isinstance(v, str) for v in value)) or (
                not many and (value is None or isinstance(value, str))
            ):
                found[record.path.stem, name] = (
                    label(value, many),
                    f"{project.relative(record.path)}:{record.line_of(name)}",
                )
    return found


def settle(
    results: list[FieldAgreement], rulings, corpus: dict[tuple[str, str], tuple[str, str]]
) -> list[FieldAgreement]:
    """Attach each disagreement's ruling and the corpus value of its field."""
    by_unit = {(r.record, r.field, r.pass_number): r for r in rulings}
    settled = []
    for result in results:
        disagreements = []
        for d in result.disagreements:
            ruling = by_unit.get((d.unit, d.field, d.pass_number))
            value, where = corpus.get((d.unit, d.field), (None, None))
            disagreements.append(
                replace(
                    d,
                    ruling=ruling.value if ruling else None,
                    ruled_by=ruling.by if ruling else None,
                    ruled_at=ruling.where if ruling else None,
                    ruling_note=ruling.note if ruling else None,
                    corpus=value,
                    corpus_at=where,
                )
            )
        settled.append(replace(result, disagreements=tuple(disagreements)))
    return settled


def record_rounds(project, decided_in: dict[str, str], corpus=None) -> dict[str, str]:
    """Record id (entry key, exclusion record_id, or a decided record's id) -> its round: a
    decided record's from ``decided_in`` (the decisions as read), the records' from ``corpus``
    when the caller has loaded it, else from their files."""
    from masrl.model.project import read_records

    # a decided record's round is its decisions file's, even after a ruling moved the record
    # (an entry adjudicated out becomes an exclusion record with another id)
    rounds = dict(decided_in)
    if corpus is not None:
        rounds.update({e.key: e.round for e in corpus.entries if e.round is not None})
        rounds.update({x.record_id: x.round for x in corpus.exclusions if x.round is not None})
        return rounds
    for record in read_records([*project.entry_paths(), *project.exclusion_paths()]):
        if isinstance(record.data, dict) and record.data.get("round") is not None:
            rounds[
                str(record.data.get("key") or record.data.get("record_id") or record.path.stem)
            ] = str(record.data["round"])
    return rounds


def _project_ratings(project, audits: list[Path] = ()):
    """Every rating of the project (decisions, tag readings, the given audit CSVs) and the rulings."""
    passed = PassedRatings()
    read_decisions(project, passed)
    rulings = read_tag_readings(project, passed)
    _read_audits(project, passed, audits)
    return passed, rulings


def _read_audits(project, passed: PassedRatings, audits: list[Path]) -> None:
    for path in audits:
        read_audit_csv(Path(path), passed.of(AUDITS), project.relative(Path(path)))


def _settled_agreement(project, results: list[FieldAgreement], rulings) -> list[FieldAgreement]:
    disputed = {(d.unit, d.field) for r in results for d in r.disagreements}
    corpus = (
        _corpus_labels(project, {unit for unit, _ in disputed}, {name for _, name in disputed})
        if disputed
        else {}
    )
    return settle(results, rulings, corpus)


def _by_round(project, passed, rulings, round_ids, corpus=None) -> dict[str, list[FieldAgreement]]:
    rounds = record_rounds(project, passed.decided_in, corpus)
    return {
        round_id: _settled_agreement(
            project,
            reported_agreement(passed, lambda unit, r=round_id: rounds.get(unit) == r),
            rulings,
        )
        for round_id in round_ids
    }


def agreement_by_round(
    project, round_ids: list[str], audits: list[Path] = ()
) -> dict[str, list[FieldAgreement]]:
    """Agreement over the records of each round, the project's files read once for all of them
    (a round with no records, or none of that name, gets no results)."""
    passed, rulings = _project_ratings(project, audits)
    return _by_round(project, passed, rulings, round_ids)


def agreement_report(
    project, round_ids: list[str], audits: list[Path] = (), corpus=None
) -> tuple[dict[str, list[FieldAgreement]], list[FieldAgreement]]:
    """Each round's agreement (screeners' readings only) and the whole project's (with the
    audits), the rating files read once for both; ``corpus``: the loaded records, so that their
    rounds are not read from their files again."""
    passed, rulings = _project_ratings(project)
    by_round = _by_round(project, passed, rulings, round_ids, corpus)
    _read_audits(project, passed, audits)
    return by_round, _settled_agreement(project, reported_agreement(passed), rulings)


def project_agreement(
    project, audits: list[Path] = (), round_id: str | None = None
) -> list[FieldAgreement]:
    """Agreement over the project's decisions, tag readings and the given audit CSVs, with rulings;
    with ``round_id``, over the records of that round only."""
    if round_id is not None:
        return agreement_by_round(project, [round_id], audits)[round_id]
    passed, rulings = _project_ratings(project, audits)
    return _settled_agreement(project, reported_agreement(passed), rulings)

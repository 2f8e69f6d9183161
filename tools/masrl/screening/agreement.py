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

A disagreement is settled by an adjudication in a tag-readings file (record, field, value, by,
date); the report then shows the ruling and, for a tag field of a corpus entry, whether the entry
already holds the ruled value, so a ruling that never reached the corpus is not lost.
"""

from __future__ import annotations

import csv
import math
import warnings
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from masrl.errors import InputError

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


def read_decisions(project, ratings: Ratings) -> int:
    """Add every screener's decision per record from screening/decisions/*.yaml (read and checked
    by the same reader as `masrl screen`; every problem of a file is reported at once)."""
    from masrl.screening.queue import read_decisions as read_all

    decisions = read_all(project)
    for decision in decisions:
        ratings.add(
            "decision", decision.record, decision.screener, decision.decision
        )  # a later one wins
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
class FieldAgreement:
    field: str
    raters: tuple[str, ...]
    units: int  # units rated by at least two raters
    observed: float | None  # share of those units where every rater agrees
    kappa: float | None  # Cohen's kappa, two raters only
    alpha: float | None  # Krippendorff's alpha (nominal)
    disagreements: tuple[Disagreement, ...]


def _finite(value) -> float | None:
    return (
        None
        if value is None or (isinstance(value, float) and math.isnan(value))
        else round(float(value), 4)
    )


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
        from sklearn.metrics import cohen_kappa_score

        first = [shared[u][raters[0]] for u in shared]
        second = [shared[u][raters[1]] for u in shared]
        with warnings.catch_warnings():  # one label only: kappa is undefined, reported as such
            warnings.simplefilter("ignore")
            kappa = _finite(cohen_kappa_score(first, second))
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


def agreement(ratings: Ratings) -> list[FieldAgreement]:
    order = {
        name: i for i, name in enumerate(("decision", *AUDIT_FIELDS))
    }  # then tag fields by name
    names = sorted(ratings.by_field, key=lambda n: (order.get(n, len(order)), n))
    return [field_agreement(name, ratings.by_field[name]) for name in names]


def read_tag_readings(project, ratings: Ratings):
    """Add every screener's tag readings; return the adjudications (rulings)."""
    from masrl.screening.tag_readings import read_tag_files

    readings, rulings = read_tag_files(project)
    for reading in readings:
        for name, value in reading.tags:
            ratings.add(name, reading.record, reading.screener, value)
    return rulings


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
    from dataclasses import replace

    by_unit = {(r.record, r.field): r for r in rulings}
    settled = []
    for result in results:
        disagreements = []
        for d in result.disagreements:
            ruling = by_unit.get((d.unit, d.field))
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


def record_rounds(project) -> dict[str, str]:
    """Record id (entry key, exclusion record_id, or a decided record's id) -> its round."""
    from masrl.model.project import read_records
    from masrl.screening.queue import read_decisions as read_all

    # a decided record's round is its decisions file's, even after a ruling moved the record
    # (an entry adjudicated out becomes an exclusion record with another id)
    rounds = {d.record: d.round for d in read_all(project)}
    for record in read_records([*project.entry_paths(), *project.exclusion_paths()]):
        if isinstance(record.data, dict) and record.data.get("round") is not None:
            rounds[
                str(record.data.get("key") or record.data.get("record_id") or record.path.stem)
            ] = str(record.data["round"])
    return rounds


def only_round(ratings: Ratings, rounds: dict[str, str], round_id: str) -> Ratings:
    """The ratings of the records that round ``round_id`` brought."""
    kept = Ratings()
    for name, units in ratings.by_field.items():
        for unit, by_rater in units.items():
            if rounds.get(unit) == round_id:
                for rater, value in by_rater.items():
                    kept.add(name, unit, rater, value)
    return kept


def _project_ratings(project, audits: list[Path] = ()):
    """Every rating of the project (decisions, tag readings, the given audit CSVs) and the rulings."""
    ratings = Ratings()
    read_decisions(project, ratings)
    rulings = read_tag_readings(project, ratings)
    for path in audits:
        read_audit_csv(Path(path), ratings, project.relative(Path(path)))
    return ratings, rulings


def _settled_agreement(project, ratings: Ratings, rulings) -> list[FieldAgreement]:
    results = agreement(ratings)
    disputed = {(d.unit, d.field) for r in results for d in r.disagreements}
    corpus = (
        _corpus_labels(project, {unit for unit, _ in disputed}, {name for _, name in disputed})
        if disputed
        else {}
    )
    return settle(results, rulings, corpus)


def agreement_by_round(
    project, round_ids: list[str], audits: list[Path] = ()
) -> dict[str, list[FieldAgreement]]:
    """Agreement over the records of each round, the project's files read once for all of them
    (a round with no records, or none of that name, gets no results)."""
    ratings, rulings = _project_ratings(project, audits)
    rounds = record_rounds(project)
    return {
        round_id: _settled_agreement(project, only_round(ratings, rounds, round_id), rulings)
        for round_id in round_ids
    }


def project_agreement(
    project, audits: list[Path] = (), round_id: str | None = None
) -> list[FieldAgreement]:
    """Agreement over the project's decisions, tag readings and the given audit CSVs, with rulings;
    with ``round_id``, over the records of that round only."""
    if round_id is not None:
        return agreement_by_round(project, [round_id], audits)[round_id]
    return _settled_agreement(project, *_project_ratings(project, audits))

"""The executable claim ledger: the survey's central claims, re-checked against the corpus.

``claims/ledger.yaml`` lists claims, each with an id, a statement in our own words, a query over
the tagged fields, the result the survey reports (``expect``) and its boundary (what the claim
does and does not say). ``evaluate_claims`` runs every query and reports the live result, the
entries behind it and, when a claim no longer holds, the entries that make the difference.

The query language is declarative and small; nothing in the ledger is ever evaluated as code.
A query holds exactly one operation:

    count: WHERE                  number of entries matching WHERE            expect: 2
                                  (optionally with entries: [keys], see below)
    count: WHERE                  ... and how many of those also match        expect: {count: 8, of_which: 5}
    of_which: WHERE
    none: WHERE                   true when no entry matches WHERE            expect: true
    most_common: FIELD            the value of FIELD most entries hold         expect: agent
    where: WHERE                  (optional: among the entries matching WHERE)
    counts: FIELD                 entries per value of FIELD (non-zero values) expect: {rl_method: 42, ...}
    where: WHERE                  (optional)
    totals: [retained, excluded, audited]   record totals                    expect: {retained: 84, ...}

WHERE maps field names (as in corpus/*.yaml, plus reward_families and year) to a list of values
(the entry holds at least one of them), "*" (the field is set) or "-" (the field is empty); all
fields must match, as in taxonomy/rules.yaml. ``most_common`` ignores "not applicable"; a tie
never satisfies it.

A count claim may also list ``entries``: the keys of the entries the survey counts. The claim then
also fails when that set changes, and the report names exactly the entries that now match or no
longer match; ``none`` claims name the entries that match. Other operations name the entries
behind the live value, but cannot tell which of them changed.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from masrl.check.snapshot import PUBLISHED_SNAPSHOT, published_snapshot
from masrl.derive.stats import NOT_APPLICABLE, countable_fields, entries_with_value, entry_values
from masrl.errors import ProblemsError
from masrl.model import yamlio
from masrl.model.project import Corpus
from masrl.model.records import Entry, Record
from masrl.model.taxonomy import Condition
from masrl.text import did_you_mean

LEDGER_PATH = Path("claims") / "ledger.yaml"
CLAIM_FIELDS = ("id", "statement", "query", "expect", "boundary")
OPTIONAL_CLAIM_FIELDS = ("entries",)  # count queries: the entries the survey counts
TOTALS = ("retained", "excluded", "audited")
# Query operations and the optional keys each accepts next to it.
OPERATIONS = {
    "count": ("of_which",),
    "none": (),
    "most_common": ("where",),
    "counts": ("where",),
    "totals": (),
}
CLAIM_ID_PATTERN = re.compile(r"^[a-z0-9][a-z0-9-]*[a-z0-9]$")


class LedgerError(ProblemsError):
    """The ledger file is malformed; every command that reads it (claims, build, check) stops
    with the list of problems."""

    def __init__(self, problems: list[str]):
        super().__init__(LEDGER_PATH, problems, heading="the claim ledger is invalid:")


# ---------------------------------------------------------------------------------------------
# The ledger.


@dataclass(frozen=True)
class Query:
    operation: str
    where: tuple[Condition, ...] = ()
    of_which: tuple[Condition, ...] | None = None
    field_name: str | None = None
    totals: tuple[str, ...] = ()
    text: str = ""  # the query as written, for reports


@dataclass(frozen=True)
class Claim:
    id: str
    statement: str
    query: Query
    expect: Any
    boundary: str
    line: int
    path: str = str(LEDGER_PATH)
    entries: tuple[str, ...] | None = None


def load_ledger(path: Path, corpus: Corpus, display_path: str | None = None) -> list[Claim]:
    """Read and check the ledger; raise LedgerError naming file and line of every problem."""
    shown = display_path or str(path)
    try:
        raw = yamlio.load_file(path)
    except FileNotFoundError as exc:
        raise LedgerError([f"{shown}: no such file"]) from exc
    except yamlio.YamlError as exc:
        raise LedgerError([f"{shown}:{exc.line or 1}: {exc.message}"]) from exc
    parser = _LedgerParser(shown, corpus)
    claims = parser.parse(raw)
    if parser.problems:
        raise LedgerError(parser.problems)
    return claims


class _LedgerParser:
    """Turns the loaded YAML into Claims, collecting every problem with its line."""

    def __init__(self, path: str, corpus: Corpus):
        self.path = path
        self.corpus = corpus
        self.fields = countable_fields(corpus.taxonomy)
        self.problems: list[str] = []

    def problem(self, line: int, message: str) -> None:
        self.problems.append(f"{self.path}:{line}: {message}")

    def parse(self, raw: Any) -> list[Claim]:
        if not isinstance(raw, yamlio.LineDict) or not isinstance(
            raw.get("claims"), yamlio.LineList
        ):
            self.problem(1, "expected a mapping with one key, claims, holding a list of claims")
            return []
        for key in raw:
            if key != "claims":
                self.problem(
                    raw.line_of(key), f"unknown top-level key '{key}'; the ledger holds only claims"
                )
        claims, seen = [], {}
        for index, item in enumerate(raw["claims"]):
            claim = self.parse_claim(item, raw["claims"].line_of(index))
            if claim is None:
                continue
            if claim.id in seen:
                self.problem(
                    claim.line,
                    f"claim id '{claim.id}' is used twice (first on line {seen[claim.id]})",
                )
            seen.setdefault(claim.id, claim.line)
            claims.append(claim)
        return claims

    def parse_claim(self, item: Any, line: int) -> Claim | None:
        if not isinstance(item, yamlio.LineDict):
            self.problem(line, "a claim must be a mapping with " + ", ".join(CLAIM_FIELDS))
            return None
        ok = True
        allowed = (*CLAIM_FIELDS, *OPTIONAL_CLAIM_FIELDS)
        for key in item:
            if key not in allowed:
                self.problem(
                    item.line_of(key),
                    f"unknown claim field '{key}'.{did_you_mean(key, allowed)}"
                    f" Allowed: {', '.join(allowed)}",
                )
                ok = False
        missing = [name for name in CLAIM_FIELDS if name not in item]
        if missing:
            self.problem(item.line, f"claim is missing {', '.join(missing)}")
            return None
        claim_id = item["id"]
        if not isinstance(claim_id, str) or not CLAIM_ID_PATTERN.match(claim_id):
            self.problem(
                item.line_of("id"),
                f"claim id {claim_id!r} must be lower-case letters, digits and dashes",
            )
            ok = False
        for name in ("statement", "boundary"):
            if not isinstance(item[name], str) or not item[name].strip():
                self.problem(item.line_of(name), f"'{name}' must be non-empty text")
                ok = False
        query = self.parse_query(item["query"], item.line_of("query"))
        if query is None:
            return None
        ok &= self.check_expect(query, item["expect"], item.line_of("expect"))
        entries = self.parse_entries(item, query) if "entries" in item else None
        if not ok or ("entries" in item and entries is None):
            return None
        return Claim(
            str(claim_id),
            " ".join(item["statement"].split()),
            query,
            _plain(item["expect"]),
            " ".join(item["boundary"].split()),
            item.line,
            self.path,
            entries,
        )

    def parse_entries(self, item: yamlio.LineDict, query: Query) -> tuple[str, ...] | None:
        """The optional list of counted entries: keys, unique, as many as the expected count."""
        raw, line = item["entries"], item.line_of("entries")
        if query.operation != "count":
            self.problem(line, f"entries may only accompany a count query, not {query.operation}")
            return None
        if not isinstance(raw, list) or not all(isinstance(k, str) and k for k in raw):
            self.problem(line, "entries must be a list of entry keys")
            return None
        if len(set(raw)) != len(raw):
            self.problem(line, "entries lists a key twice")
            return None
        expect = item["expect"]
        expected = expect.get("count") if isinstance(expect, dict) else expect
        if _is_count(expected) and expected != len(raw):
            self.problem(line, f"entries lists {len(raw)} keys but expect counts {expected}")
            return None
        return tuple(sorted(raw))

    # -- queries -------------------------------------------------------------------------------

    def parse_query(self, raw: Any, line: int) -> Query | None:
        if not isinstance(raw, yamlio.LineDict):
            self.problem(line, f"query must be a mapping with one of: {', '.join(OPERATIONS)}")
            return None
        operations = [key for key in raw if key in OPERATIONS]
        if len(operations) != 1:
            self.problem(
                line,
                f"query must hold exactly one of {', '.join(OPERATIONS)}; found {operations or 'none'}",
            )
            return None
        operation = operations[0]
        allowed = (operation, *OPERATIONS[operation])
        ok = True
        for key in raw:
            if key not in allowed:
                hint = did_you_mean(key, allowed)
                self.problem(
                    raw.line_of(key),
                    f"'{key}' is not allowed in a {operation} query.{hint}"
                    f" Allowed: {', '.join(allowed)}",
                )
                ok = False
        text = _query_text(raw)
        value, op_line = raw[operation], raw.line_of(operation)
        if operation in ("count", "none"):
            where = self.parse_where(value, op_line)
            of_which = (
                self.parse_where(raw["of_which"], raw.line_of("of_which"))
                if "of_which" in raw
                else None
            )
            ok &= where is not None and ("of_which" not in raw or of_which is not None)
            return Query(operation, where or (), of_which, text=text) if ok else None
        if operation == "totals":
            if not isinstance(value, list) or not value or any(v not in TOTALS for v in value):
                self.problem(op_line, f"totals must be a list drawn from {', '.join(TOTALS)}")
                return None
            return Query(operation, totals=tuple(value), text=text) if ok else None
        if value not in self.fields:
            self.problem(
                op_line,
                f"unknown field {value!r}.{did_you_mean(str(value), list(self.fields))}"
                f" Fields: {', '.join(self.fields)}",
            )
            return None
        where = self.parse_where(raw["where"], raw.line_of("where")) if "where" in raw else ()
        ok &= where is not None
        return Query(operation, where or (), field_name=value, text=text) if ok else None

    def parse_where(self, raw: Any, line: int) -> tuple[Condition, ...] | None:
        if not isinstance(raw, yamlio.LineDict) or not raw:
            self.problem(line, 'expected a mapping of field to a list of values, "*" or "-"')
            return None
        conditions, ok = [], True
        for name, allowed in raw.items():
            field_line = raw.line_of(name)
            if name not in self.fields:
                self.problem(
                    field_line,
                    f"unknown field '{name}'.{did_you_mean(name, list(self.fields))}"
                    f" Fields: {', '.join(self.fields)}",
                )
                ok = False
            elif allowed in ("*", "-"):
                conditions.append(Condition(name, allowed))
            elif isinstance(allowed, list) and allowed:
                values = tuple(str(v) for v in allowed)
                ok &= self.check_values(name, values, allowed, field_line)
                conditions.append(Condition(name, values))
            else:
                self.problem(
                    field_line, f'{name} must be a list of values, "*" (set) or "-" (empty)'
                )
                ok = False
        return tuple(conditions) if ok else None

    def check_values(self, field_name: str, values: tuple[str, ...], raw: list, line: int) -> bool:
        known = self.known_values(field_name)
        ok = True
        for index, value in enumerate(values):
            if known is not None and value not in known:
                item_line = raw.line_of(index) if isinstance(raw, yamlio.LineList) else line
                self.problem(
                    item_line,
                    f"unknown value '{value}' for {field_name}.{did_you_mean(value, known)}"
                    f" Values: {', '.join(known)}",
                )
                ok = False
            elif known is None and not re.fullmatch(r"\d{4}", value):
                self.problem(line, f"year values must be four-digit years, got '{value}'")
                ok = False
        return ok

    def known_values(self, field_name: str) -> list[str] | None:
        axis = self.fields[field_name].axis
        return list(self.corpus.taxonomy[axis].ids) if axis else None

    # -- expectations --------------------------------------------------------------------------

    def check_expect(self, query: Query, expect: Any, line: int) -> bool:
        problem = _expect_problem(query, expect, self)
        if problem:
            self.problem(line, problem)
        return not problem


def _is_count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _expect_problem(query: Query, expect: Any, parser: _LedgerParser) -> str:
    """What is wrong with ``expect`` for this query, or ''."""
    operation = query.operation
    if operation == "count" and query.of_which is None:
        return "" if _is_count(expect) else "a count query expects a whole number, e.g. expect: 2"
    if operation == "count":
        if (
            isinstance(expect, dict)
            and set(expect) == {"count", "of_which"}
            and all(map(_is_count, expect.values()))
        ):
            return ""
        return "a count query with of_which expects {count: N, of_which: M}"
    if operation == "none":
        return "" if isinstance(expect, bool) else "a none query expects true or false"
    if operation == "totals":
        if (
            isinstance(expect, dict)
            and set(expect) == set(query.totals)
            and all(map(_is_count, expect.values()))
        ):
            return ""
        return f"a totals query expects a whole number for each of {', '.join(query.totals)}"
    known = parser.known_values(query.field_name)
    if operation == "most_common":
        value = str(expect)
        if known is not None and value not in known:
            return f"unknown value '{value}' for {query.field_name}.{did_you_mean(value, known)} Values: {', '.join(known)}"
        return ""
    if not isinstance(expect, dict) or not all(map(_is_count, expect.values())):
        return f"a counts query expects a mapping of {query.field_name} values to whole numbers"
    allowed = [*(known or []), NOT_APPLICABLE]
    unknown = [str(v) for v in expect if known is not None and str(v) not in allowed]
    if unknown:
        return f"unknown value '{unknown[0]}' for {query.field_name}.{did_you_mean(unknown[0], allowed)} Values: {', '.join(allowed)}"
    return ""


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def _query_text(raw: dict) -> str:
    """The query in one line of flow-style YAML, e.g. {count: {credit_units: [message]}}."""
    return yaml.safe_dump(
        _plain(raw), default_flow_style=True, sort_keys=False, width=10_000
    ).strip()


# ---------------------------------------------------------------------------------------------
# Evaluation.


@dataclass(frozen=True)
class ClaimResult:
    """One claim checked against the corpus.

    live has the shape of claim.expect. entries names the entries behind the live value, per
    part ("count", "of_which", "matching", or a value of the counted field). culprits are the
    entries that make a failing claim fail, where they can be told: those matching a none claim,
    and those that joined or left the entries a count claim lists. detail says why it fails.
    """

    claim: Claim
    live: Any
    holds: bool
    entries: dict[str, tuple[str, ...]]
    culprits: tuple[str, ...] = ()
    detail: str = ""  # why the claim fails, in one sentence (empty when it holds)
    note: str = ""  # context for the live value, e.g. the top counts of a most_common query

    @property
    def id(self) -> str:
        return self.claim.id


@dataclass
class _Evaluation:
    live: Any
    entries: dict[str, tuple[str, ...]] = field(default_factory=dict)
    culprits: tuple[str, ...] = ()
    detail: str = ""
    note: str = ""


def _matching(
    corpus: Corpus, conditions: tuple[Condition, ...], among: list[Entry] | None = None
) -> list[Entry]:
    entries = corpus.entries if among is None else among
    taxonomy = corpus.taxonomy
    fields = countable_fields(taxonomy)  # looked up once, not once per entry
    # Each condition reads the one field it tests, straight from the entry; a field that is not
    # countable reads as unset.
    tests = [(c, c.field if c.field in fields else None) for c in conditions]

    def holds_all(entry: Entry) -> bool:
        return all(
            c.holds_for(entry_values(entry, name, taxonomy) if name else ()) for c, name in tests
        )

    return sorted(filter(holds_all, entries), key=lambda e: e.key)


def _keys(entries: list[Entry]) -> tuple[str, ...]:
    return tuple(e.key for e in entries)


def _plural(count: int, one: str, many: str) -> str:
    return f"{count} {one if count == 1 else many}"


def _evaluate_count(claim: Claim, corpus: Corpus) -> _Evaluation:
    query, expect = claim.query, claim.expect
    matching = _matching(corpus, query.where)
    expected_count = expect["count"] if query.of_which is not None else expect
    if query.of_which is None:
        result = _Evaluation(len(matching), {"count": _keys(matching)})
    else:
        subset = _matching(corpus, query.of_which, matching)
        result = _Evaluation(
            {"count": len(matching), "of_which": len(subset)},
            {"count": _keys(matching), "of_which": _keys(subset)},
        )
    if claim.entries is not None:
        _compare_entries(result, claim.entries, _keys(matching))
    elif len(matching) != expected_count:
        result.detail = (
            f"{_plural(len(matching), 'entry matches', 'entries match')} where the ledger "
            f"expects {expected_count}: {named_keys(_keys(matching))}"
        )
    if not result.detail and query.of_which is not None and len(subset) != expect["of_which"]:
        result.detail = (
            f"{_plural(len(subset), 'entry matches', 'entries match')} of_which where the ledger "
            f"expects {expect['of_which']}: {named_keys(_keys(subset))}"
        )
    return result


def _compare_entries(result: _Evaluation, listed: tuple[str, ...], live: tuple[str, ...]) -> None:
    """Name exactly the entries that joined or left the set the ledger lists."""
    added = tuple(k for k in live if k not in listed)
    missing = tuple(k for k in listed if k not in live)
    if added or missing:
        result.culprits = added + missing
        changes = (
            [f"{named_keys(added, None)} now {'matches' if len(added) == 1 else 'match'}"]
            if added
            else []
        )
        changes += (
            [f"{named_keys(missing, None)} no longer {'matches' if len(missing) == 1 else 'match'}"]
            if missing
            else []
        )
        result.detail = f"{_plural(len(live), 'entry matches', 'entries match')}: " + " and ".join(
            changes
        )


def _evaluate_none(claim: Claim, corpus: Corpus) -> _Evaluation:
    matching = _matching(corpus, claim.query.where)
    result = _Evaluation(not matching, {"matching": _keys(matching)})
    if result.live != claim.expect:
        result.culprits = _keys(matching)
        result.detail = (
            f"{_plural(len(matching), 'entry now matches', 'entries now match')}: "
            f"{', '.join(_keys(matching))}"
            if matching
            else "no entry matches any more"
        )
    return result


def _value_counts(claim: Claim, corpus: Corpus) -> dict[str, tuple[str, ...]]:
    """Entries per value of the query's field among the entries its where selects, zeros dropped."""
    selected = {e.key for e in _matching(corpus, claim.query.where)}
    groups = entries_with_value(corpus, claim.query.field_name)
    kept = {value: tuple(k for k in members if k in selected) for value, members in groups.items()}
    return {value: members for value, members in kept.items() if members}


def _evaluate_most_common(claim: Claim, corpus: Corpus) -> _Evaluation:
    groups = {v: m for v, m in _value_counts(claim, corpus).items() if v != NOT_APPLICABLE}
    if not groups:
        return _Evaluation(None, {}, (), "no entry holds a value of this field")
    top = max(len(members) for members in groups.values())
    leaders = [value for value, members in groups.items() if len(members) == top]
    live = leaders[0] if len(leaders) == 1 else leaders
    ranking = ", ".join(
        f"{v} {len(m)}" for v, m in sorted(groups.items(), key=lambda item: -len(item[1]))[:3]
    )
    result = _Evaluation(live, {value: groups[value] for value in leaders}, note=ranking)
    if live != str(claim.expect):
        tie = " (a tie)" if len(leaders) > 1 else ""
        result.detail = f"the most common value is now {', '.join(leaders)}{tie}: {ranking}"
    return result


def _evaluate_counts(claim: Claim, corpus: Corpus) -> _Evaluation:
    groups = _value_counts(claim, corpus)
    live = {value: len(members) for value, members in groups.items()}
    result = _Evaluation(live, dict(groups))
    expect = {str(k): v for k, v in claim.expect.items()}
    changed = [value for value in [*live, *expect] if live.get(value, 0) != expect.get(value, 0)]
    if changed:
        changed = list(dict.fromkeys(changed))
        result.detail = "; ".join(
            f"{v}: {live.get(v, 0)} (expected {expect.get(v, 0)})" for v in changed
        )
    return result


def _evaluate_totals(claim: Claim, corpus: Corpus) -> _Evaluation:
    totals = {
        "retained": len(corpus.entries),
        "excluded": len(corpus.exclusions),
        "audited": corpus.audited,
    }
    live = {name: totals[name] for name in claim.query.totals}
    result = _Evaluation(live)
    changed = [name for name in live if live[name] != claim.expect[name]]
    if changed:
        result.detail = "; ".join(
            f"{name}: {live[name]} (expected {claim.expect[name]})" for name in changed
        )
    return result


EVALUATORS: dict[str, Callable[[Claim, Corpus], _Evaluation]] = {
    "count": _evaluate_count,
    "none": _evaluate_none,
    "most_common": _evaluate_most_common,
    "counts": _evaluate_counts,
    "totals": _evaluate_totals,
}


def evaluate_claim(claim: Claim, corpus: Corpus) -> ClaimResult:
    evaluation = EVALUATORS[claim.query.operation](claim, corpus)
    holds = not evaluation.detail
    return ClaimResult(
        claim,
        evaluation.live,
        holds,
        evaluation.entries,
        evaluation.culprits,
        evaluation.detail,
        evaluation.note,
    )


def ledger_path_of(corpus: Corpus) -> Path:
    return corpus.project.root / LEDGER_PATH


def evaluate_claims(corpus: Corpus, ledger_path: Path | None = None) -> list[ClaimResult]:
    """Check every claim of the ledger (default: claims/ledger.yaml of the corpus's project)."""
    path = Path(ledger_path) if ledger_path else ledger_path_of(corpus)
    claims = load_ledger(path, corpus, corpus.project.relative(path))
    return [evaluate_claim(claim, corpus) for claim in claims]


# ---------------------------------------------------------------------------------------------
# Reports.


MAX_NAMED = 12  # entries named per list in text and Markdown output; JSON names all


def named_keys(keys: tuple[str, ...], limit: int | None = MAX_NAMED) -> str:
    if not keys:
        return "none"
    if limit is None or len(keys) <= limit:
        return ", ".join(keys)
    return ", ".join(keys[:limit]) + f", … and {len(keys) - limit} more"


# ---------------------------------------------------------------------------------------------
# Claims on both: the frozen snapshot (a failure there is a bug) and the live corpus (a claim
# may stop holding as the field moves; it is then reported as changed, with the records and
# rounds that changed it).

DEFAULT_SNAPSHOT = PUBLISHED_SNAPSHOT


@dataclass(frozen=True)
class ChangeCause:
    """A record that differs from the snapshot and bears on a claim."""

    record: str  # corpus key or exclusion record id
    round: str | None  # the record's round in the live corpus (None when removed)
    how: str  # added | retagged | removed

    def describe(self) -> str:
        if self.how == "added":
            return f"{self.record} (added in round {self.round})"
        if self.how == "retagged":
            return f"{self.record} (round {self.round}, tags changed since the snapshot)"
        return f"{self.record} (removed since the snapshot)"


@dataclass(frozen=True)
class ClaimComparison:
    frozen: ClaimResult | None  # None when there is no snapshot to compare with
    live: ClaimResult
    causes: tuple[ChangeCause, ...] = ()

    @property
    def id(self) -> str:
        return self.live.id

    @property
    def status(self) -> str:
        """holds | changed (holds on the snapshot, not live) | fails (fails where it must hold)."""
        if self.frozen is not None and not self.frozen.holds:
            return "fails"
        if self.live.holds:
            return "holds"
        return "changed" if self.frozen is not None else "fails"


@dataclass(frozen=True)
class ClaimsReport:
    snapshot: str | None
    comparisons: tuple[ClaimComparison, ...]

    @property
    def live_results(self) -> list[ClaimResult]:
        return [c.live for c in self.comparisons]

    @property
    def changed(self) -> list[ClaimComparison]:
        return [c for c in self.comparisons if c.status == "changed"]

    @property
    def failed(self) -> list[ClaimComparison]:
        return [c for c in self.comparisons if c.status == "fails"]

    def ok(self, strict: bool = False) -> bool:
        return not self.failed and not (strict and self.changed)


def _tag_fields(*corpora: Corpus) -> frozenset[str]:
    return frozenset(
        a.record_field.name for c in corpora for a in c.taxonomy.axes.values() if a.record_field
    )


def _records(corpus: Corpus) -> dict[str, Record]:
    records: dict[str, Record] = {e.key: e for e in corpus.entries}
    records.update({x.record_id: x for x in corpus.exclusions})
    return records


def _tags(record: Record, tags: frozenset[str]) -> dict:
    """A record's tags (not its bibliographic fields or notes: a respelt venue retags nothing)."""
    return {k: v for k, v in record.to_data().items() if k in tags}


def record_changes(frozen: Corpus, live: Corpus) -> dict[str, ChangeCause]:
    """Every record added, retagged or removed since the snapshot, by key or record id. Only the
    records on both sides have their tags compared: as the corpus grows, most records are new."""
    tags = _tag_fields(frozen, live)
    before, after = _records(frozen), _records(live)
    changes = {}
    for key in sorted(before.keys() | after.keys()):
        if key not in before:
            changes[key] = ChangeCause(key, after[key].round, "added")
        elif key not in after:
            changes[key] = ChangeCause(key, None, "removed")
        elif _tags(before[key], tags) != _tags(after[key], tags):
            changes[key] = ChangeCause(key, after[key].round, "retagged")
    return changes


def _causes(
    frozen: ClaimResult, live: ClaimResult, changes: dict[str, ChangeCause]
) -> tuple[ChangeCause, ...]:
    """The changed records behind a claim that stopped holding: the culprits the evaluation names,
    else the records that joined or left the entries behind its value, else (totals) the records
    added or removed since the snapshot."""
    if live.culprits:
        keys = [k for k in live.culprits if k in changes] or list(live.culprits)
    else:
        before = {(part, k) for part, ks in frozen.entries.items() for k in ks}
        after = {(part, k) for part, ks in live.entries.items() for k in ks}
        moved = {k for _, k in before ^ after}
        keys = (
            sorted(moved & changes.keys())
            or sorted(moved)
            or [k for k, c in changes.items() if c.how != "retagged"]
            or sorted(changes)
        )
    return tuple(changes.get(k, ChangeCause(k, None, "retagged")) for k in keys)


def compare_claims(
    live: Corpus, frozen: Corpus | None, snapshot: str | None, ledger_path: Path | None = None
) -> ClaimsReport:
    """The ledger on the snapshot and on the live corpus, claim by claim."""
    live_results = evaluate_claims(live, ledger_path)
    if frozen is None:
        return ClaimsReport(None, tuple(ClaimComparison(None, r) for r in live_results))
    path = Path(ledger_path) if ledger_path else ledger_path_of(live)
    claims = load_ledger(path, frozen, live.project.relative(path))
    frozen_results = [evaluate_claim(claim, frozen) for claim in claims]
    changes = record_changes(frozen, live)
    comparisons = []
    for before, after in zip(frozen_results, live_results, strict=True):
        causes = _causes(before, after, changes) if before.holds and not after.holds else ()
        comparisons.append(ClaimComparison(before, after, causes))
    return ClaimsReport(snapshot, tuple(comparisons))


def claims_report(
    live: Corpus, ledger_path: Path | None = None, snapshot: str = DEFAULT_SNAPSHOT
) -> ClaimsReport:
    """compare_claims against the named snapshot when the project has it; live only otherwise."""
    frozen = published_snapshot(live.project, snapshot)
    return compare_claims(live, frozen, snapshot if frozen is not None else None, ledger_path)

"""Screening rounds as data: ``screening/rounds.yaml``.

Each round records when it closed, which publication dates it searched, the query families it
ran and the sources it searched. Every record names its round; ``round_problems`` is what
`masrl validate` runs to make sure that round exists and the rounds file itself is sound.
"""

from __future__ import annotations

import datetime as dt
import functools
import re
from dataclasses import dataclass
from pathlib import Path

from masrl.errors import InputError
from masrl.model import yamlio
from masrl.problems import Problem

# every problem of this file kind carries the code that names it in annotations
_problem = functools.partial(Problem, code="round")

ROUNDS_FILE = Path("screening") / "rounds.yaml"
ROUND_ID_PATTERN = re.compile(r"^[a-z0-9][a-z0-9.-]*[a-z0-9]$")
SURVEY_ROUND = "survey-2026-05"
ROUND_FIELDS = ("id", "date", "searched", "query_families", "sources", "notes")
# terms: {query family id: [the search terms run for it in this round]}, the search as run.
OPTIONAL_ROUND_FIELDS = ("terms",)


@dataclass(frozen=True)
class Round:
    id: str
    date: str
    searched_from: str | None
    searched_until: str | None
    query_families: tuple[str, ...]
    sources: tuple[str, ...]
    notes: str
    line: int = 1
    terms: tuple[tuple[str, tuple[str, ...]], ...] = ()  # (query family, its terms) as run


def _is_date(value) -> bool:
    try:
        return isinstance(value, str) and bool(dt.date.fromisoformat(value)) and len(value) == 10
    except ValueError:
        return False


def parse_rounds(raw, rel: str, taxonomy) -> tuple[list[Round], list[Problem]]:
    """Rounds from loaded YAML, with a problem (file, line, fix) for everything wrong."""
    problems: list[Problem] = []
    if not isinstance(raw, yamlio.LineDict) or not isinstance(raw.get("rounds"), list):
        return [], [
            _problem(
                rel,
                1,
                "expected a mapping with one key, rounds, holding a list of rounds",
                "see the comment at the top of screening/rounds.yaml",
            )
        ]
    rounds, seen = [], set()
    for index, item in enumerate(raw["rounds"]):
        line = raw["rounds"].line_of(index)
        if not isinstance(item, yamlio.LineDict):
            problems.append(
                _problem(rel, line, "a round must be a mapping with " + ", ".join(ROUND_FIELDS))
            )
            continue
        before = len(problems)

        def bad(key, message, hint="", item=item):
            problems.append(_problem(rel, item.line_of(key), message, hint))

        for key in item:
            if key not in ROUND_FIELDS + OPTIONAL_ROUND_FIELDS:
                bad(
                    key,
                    f"unknown round field '{key}'",
                    f"allowed: {', '.join(ROUND_FIELDS + OPTIONAL_ROUND_FIELDS)}",
                )
        for key in ROUND_FIELDS:
            if key not in item:
                bad(key, f"round is missing '{key}'", "see the comment at the top of the file")
        round_id = item.get("id")
        if "id" in item and (not isinstance(round_id, str) or not ROUND_ID_PATTERN.match(round_id)):
            bad(
                "id",
                f"round id {round_id!r} may hold only lower-case letters, digits, dots and dashes",
                "e.g. survey-2026-05 or 2026-11",
            )
        elif round_id in seen:
            bad("id", f"round id '{round_id}' is used twice", "give each round its own id")
        if "date" in item and not _is_date(item["date"]):
            bad(
                "date",
                f"round date {item['date']!r} must be a date YYYY-MM-DD",
                "quote it: '2026-05-04'",
            )
        searched = item.get("searched")
        if "searched" in item and (
            not isinstance(searched, dict)
            or set(searched) - {"from", "until"}
            or any(v is not None and not _is_date(v) for v in searched.values())
        ):
            bad(
                "searched", "searched must be {from: YYYY-MM-DD or null, until: YYYY-MM-DD or null}"
            )
            searched = {}
        for key, axis in (("query_families", "query_families"), ("sources", "source_kinds")):
            values = item.get(key)
            if key not in item:
                continue
            if not isinstance(values, list):
                bad(key, f"'{key}' must be a list of ids from taxonomy/{axis}.yaml")
                continue
            unknown = [v for v in values if v not in taxonomy[axis].by_id]
            if unknown:
                bad(
                    key,
                    f"unknown {key.replace('_', ' ')} {', '.join(map(str, unknown))}",
                    f"allowed values (taxonomy/{axis}.yaml): {', '.join(taxonomy[axis].ids)}",
                )
        if "notes" in item and not isinstance(item["notes"], str):
            bad("notes", "notes must be one line of text")
        terms = _round_terms(item, bad)
        if len(problems) == before:
            searched = searched or {}
            rounds.append(
                Round(
                    round_id,
                    item["date"],
                    searched.get("from"),
                    searched.get("until"),
                    tuple(item["query_families"]),
                    tuple(item["sources"]),
                    item["notes"],
                    line,
                    terms,
                )
            )
        if isinstance(round_id, str):
            seen.add(round_id)
    return rounds, problems


def _round_terms(item, bad) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """The optional terms mapping: each key one of the round's query families, each value a list
    of non-empty search terms."""
    raw = item.get("terms")
    if raw is None:
        return ()
    families = item.get("query_families") if isinstance(item.get("query_families"), list) else []
    if not isinstance(raw, dict):
        bad(
            "terms",
            "terms must map each query family of the round to a list of search terms",
            "e.g. terms: {orchestration: [orchestrator, delegation]}",
        )
        return ()
    terms = []
    for family, values in raw.items():
        if family not in families:
            bad(
                "terms",
                f"terms given for '{family}', which is not among this round's query_families",
                "add it to query_families or drop its terms",
            )
        elif (
            not isinstance(values, list)
            or not values
            or not all(isinstance(v, str) and v.strip() for v in values)
        ):
            bad("terms", f"the terms of '{family}' must be a non-empty list of search terms")
        else:
            terms.append((family, tuple(values)))
    return tuple(terms)


def load_rounds(project) -> list[Round]:
    """The project's rounds; raise InputError (file, line, fix) when the file is unusable."""
    rounds, problems = read_rounds(project)
    if problems:
        first = problems[0]
        raise InputError(first.message, path=first.path, line=first.line, hint=first.hint or None)
    return rounds


def read_rounds(project) -> tuple[list[Round], list[Problem]]:
    path = project.root / ROUNDS_FILE
    rel = ROUNDS_FILE.as_posix()
    if not path.is_file():
        return [], []
    try:
        raw = yamlio.load_file(path)
    except yamlio.YamlError as exc:
        return [], [_problem(rel, exc.line or 1, exc.message, exc.hint or "")]
    return parse_rounds(raw, rel, project.taxonomy())


def round_problems(project, records) -> list[Problem]:
    """Problems with the rounds file, and each record whose round is not in it.

    records: (relative path, RawRecord) pairs of parsed data files.
    """
    rounds, problems = read_rounds(project)
    file_exists = (project.root / ROUNDS_FILE).is_file()
    # A checkout without a rounds file (a fork of the published data, a test corpus) knows only
    # the survey's own round, which every published record names.
    known = {r.id for r in rounds} if file_exists else {SURVEY_ROUND}
    for rel, record in records:
        value = record.data.get("round") if isinstance(record.data, dict) else None
        if not isinstance(value, str) or not value or value == "TODO" or value in known:
            continue  # missing, placeholder or wrong type is reported by the field checks
        if not file_exists:
            hint = f"create {ROUNDS_FILE.as_posix()} with a round of id '{value}'"
        else:
            hint = f"known rounds: {', '.join(sorted(known)) or 'none'}; add the round to {ROUNDS_FILE.as_posix()}"
        problems.append(
            _problem(rel, record.line_of("round"), f"unknown screening round '{value}'", hint)
        )
    return problems


def rounds_by_id(project) -> dict[str, Round]:
    return {r.id: r for r in load_rounds(project)}

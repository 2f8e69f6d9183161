"""Re-reading passes of a round's tag readings: the ``passes:`` block of screening/tags/<round>.yaml.

Pass 1 is the round's first reading (the decisions file and the readings without ``pass:``) and is
never declared. A later pass names the fields every reader read again under changed definitions::

    passes:
      - pass: 2
        date: '2026-11-25'
        fields: [decision, reward_types]   # tag fields, and/or 'decision'
        why: reward_types 'role' now requires a role-specific reward signal

For a field, the latest pass of the round that declares it is the one reported (``latest_pass``);
the pass it superseded (``superseded_pass``) is kept beside it so a reader sees what the re-reading
changed. Problems come back as (line, message, hint) for tag_readings.py to report with its own.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from masrl.model import yamlio

FIRST_PASS = 1
PASS_KEYS = {"pass", "date", "fields", "why"}
DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
LAYOUT_HINT = "e.g. - {pass: 2, date: '2026-11-25', fields: [reward_types], why: one line}"


@dataclass(frozen=True)
class ReadingPass:
    round: str
    number: int
    date: str
    fields: tuple[str, ...]  # as declared
    why: str
    where: str  # 'path:line'


def pass_number(value) -> int | None:
    """A ``pass:`` value as a pass number, or None when it is not a whole number of at least 1."""
    if isinstance(value, bool) or not isinstance(value, int) or value < FIRST_PASS:
        return None
    return value


def check_passes(
    rel: str, round_id: str, items, field_names: set[str]
) -> tuple[dict[int, ReadingPass], list[tuple[int, str, str]]]:
    """The declared passes by number, and every problem of the ``passes:`` block.

    A pass whose number is valid counts as declared even when another of its keys is wrong, so
    the readings of that pass are not reported a second time as undeclared."""
    declared: dict[int, ReadingPass] = {}
    problems: list[tuple[int, str, str]] = []
    if not isinstance(items, list):
        return declared, [(1, "'passes:' must be a list", LAYOUT_HINT)]
    numbers_at: dict[int, int] = {}
    for index, item in enumerate(items):
        line = items.line_of(index) if isinstance(items, yamlio.LineList) else 1
        if not isinstance(item, dict):
            problems.append((line, "each pass must be a mapping (pass:, date:, fields:, why:)", ""))
            continue
        at = item.line_of if isinstance(item, yamlio.LineDict) else (lambda _name, _l=line: _l)
        unknown = sorted(set(item) - PASS_KEYS)
        if unknown:
            problems.append(
                (line, f"unknown key '{unknown[0]}' in a pass", "keys: date, fields, pass, why")
            )
        number = pass_number(item.get("pass"))
        if number is None or number == FIRST_PASS:
            problems.append(
                (
                    at("pass") if "pass" in item else line,
                    f"a declared pass needs 'pass:' 2 or more, not {item.get('pass')!r}",
                    "pass 1 is the round's first reading and is never declared",
                )
            )
            number = None
        elif number in numbers_at:
            problems.append(
                (
                    at("pass"),
                    f"pass {number} is declared twice (first on line {numbers_at[number]})",
                    "declare each pass once",
                )
            )
            number = None
        date, why = item.get("date"), item.get("why")
        if not isinstance(date, str) or not DATE.match(date):
            problems.append(
                (at("date") if "date" in item else line, "a pass needs 'date:' as YYYY-MM-DD", "")
            )
        if not isinstance(why, str) or not why.strip():
            problems.append(
                (
                    line,
                    "a pass without 'why'",
                    "add 'why: ...', one line on which definitions changed and why",
                )
            )
        fields = item.get("fields")
        names: tuple[str, ...] = ()
        if not isinstance(fields, list) or not fields:
            problems.append(
                (
                    at("fields") if "fields" in item else line,
                    "a pass needs 'fields:', the list of fields every reader read again",
                    "tag fields and/or 'decision'",
                )
            )
        else:
            wrong = [f for f in fields if f not in field_names]
            if wrong:
                problems.append(
                    (
                        at("fields"),
                        f"{wrong[0]!r} is neither a tag field nor 'decision'",
                        "fields: " + ", ".join(sorted(field_names)),
                    )
                )
            elif len(set(fields)) != len(fields):
                problems.append((at("fields"), "a pass lists a field twice", ""))
            else:
                names = tuple(fields)
        if number is not None:
            numbers_at[number] = line
            declared[number] = ReadingPass(
                round_id,
                number,
                date if isinstance(date, str) else "",
                names,
                why.strip() if isinstance(why, str) else "",
                f"{rel}:{line}",
            )
    return declared, problems


def latest_pass(declared: dict[int, ReadingPass], field_name: str) -> int:
    """The pass whose readings of a field are reported: the latest that declares it."""
    return max((n for n, p in declared.items() if field_name in p.fields), default=FIRST_PASS)


def superseded_pass(declared: dict[int, ReadingPass], field_name: str) -> int | None:
    """The pass the reported one re-read (the one before it that read the field), or None."""
    latest = latest_pass(declared, field_name)
    if latest == FIRST_PASS:
        return None
    return max(
        (n for n, p in declared.items() if field_name in p.fields and n < latest),
        default=FIRST_PASS,
    )

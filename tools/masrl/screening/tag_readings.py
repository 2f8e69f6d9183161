"""Tags read independently by two or more screeners, and the rulings that settle their disagreements.

Layout, one file per round (the file stem is the round id, as for decisions):

screening/tags/<round>.yaml::

    passes:                       # optional: later passes, fields every reader read again
      - pass: 2                   # 2 or more; pass 1 (the first reading) is never declared
        date: '2026-11-25'
        fields: [decision, reward_types]   # tag fields, and/or 'decision'
        why: one line on which definitions changed and why
    readings:                     # one item per screener, record and pass
      - record: aciarena2026      # a corpus key
        screener: alice
        date: '2026-11-23'
        tags:                     # any of the entry's tag fields, in the entry's own shape
          category: benchmark
          is_rl: 'no'
          reward_types: []        # a list field: [] means none applies
          credit_mechanism: null  # a nullable field: null means not applicable
      - record: aciarena2026      # the same record, read again in pass 2
        screener: alice
        pass: 2                   # optional, 1 when absent; a later pass must be declared above
        date: '2026-11-25'
        tags: {reward_types: [], decision: include}   # only the fields of the pass
      - record: E123              # a re-read decision alone may name any record of the round's
        screener: alice           # decisions file (an exclusion id too)
        pass: 2
        date: '2026-11-25'
        tags: {decision: exclude}
    adjudications:                # optional: one ruling per record, field and pass that was disputed
      - record: aciarena2026
        field: category           # a tag field, or 'decision' for an include/exclude dispute
        pass: 1                   # optional, 1 when absent: the pass whose disagreement it settles
        value: benchmark
        by: carol
        date: '2026-11-24'
        note: one line on why     # optional

Every value is checked against the axis registry (field names, vocabularies, one value or a list,
null only where the field allows it); every record must be a corpus entry (or, for a decision
ruling, any record id; for a re-read decision, any record of the round's decisions file). A
screener reads a record once per pass. Pass 1 decisions stay in screening/decisions/<round>.yaml;
``decision`` is a tag only in a later pass that declares it. For each field the latest pass that
declares it is the one `masrl agreement` reports, beside the figures of the pass it superseded
(reading_passes.py). Problems are reported together as ``path:line: message`` by
``read_tag_files`` and by ``masrl validate``; nothing here writes.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from pathlib import Path

from masrl.errors import InputError, ProblemsError
from masrl.model import yamlio
from masrl.problems import Problem
from masrl.screening.reading_passes import (
    FIRST_PASS,
    LAYOUT_HINT,
    ReadingPass,
    check_passes,
    pass_number,
)

# every problem of this file kind carries the code that names it in annotations
_reading_problem = functools.partial(Problem, code="tag-readings")

TAGS_DIR = Path("screening") / "tags"
DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
DECISION_FIELD = "decision"
DECISION_VALUES = ("include", "exclude")
NONE_LABEL = "(none)"  # an empty list, as a label
NULL_LABEL = "NA"  # null (not applicable), the audit CSV's spelling
READING_KEYS = {"record", "screener", "pass", "date", "tags", "note"}
RULING_KEYS = {"record", "field", "pass", "value", "by", "date", "note"}
FILE_KEYS = ("passes", "readings", "adjudications")


@dataclass(frozen=True)
class TagReading:
    record: str
    screener: str
    date: str
    round: str
    tags: tuple[tuple[str, str], ...]  # (field, label), in file order
    where: str  # 'path:line'
    pass_number: int = FIRST_PASS


@dataclass(frozen=True)
class Ruling:
    record: str
    field: str
    value: str  # as a label, comparable with the readings' labels
    by: str
    date: str
    note: str | None
    where: str
    pass_number: int = FIRST_PASS


@dataclass
class TagFile:
    """What one tags file holds, checked: only the items without a problem are kept."""

    readings: list[TagReading] = field(default_factory=list)
    rulings: list[Ruling] = field(default_factory=list)
    passes: dict[int, ReadingPass] = field(default_factory=dict)  # the declared (later) passes
    problems: list[Problem] = field(default_factory=list)


@dataclass(frozen=True)
class TagData:
    """Every reading, ruling and declared pass of the project's tags files."""

    readings: list[TagReading]
    rulings: list[Ruling]
    passes: dict[str, dict[int, ReadingPass]]  # round -> pass number -> its declaration


def tags_dir(project) -> Path:
    return project.root / TAGS_DIR


def tag_fields(taxonomy) -> dict[str, object]:
    """Tag field name -> its FieldSpec (kind 'tag' or 'tags', with an axis)."""
    from masrl.model.records import entry_specs

    return {s.name: s for s in entry_specs(taxonomy) if s.axis and s.kind in ("tag", "tags")}


def label(value, many: bool) -> str:
    """A tag value as one comparable label: a list as its sorted ';'-joined set."""
    if value is None:
        return NULL_LABEL
    if many:
        return ";".join(sorted(set(value))) or NONE_LABEL
    return str(value)


def _value_problem(spec, taxonomy, value) -> str | None:
    """Why a value does not fit a tag field, or None."""
    allowed = taxonomy[spec.axis].ids
    if value is None:
        return None if spec.nullable else f"{spec.name} may not be null"
    if spec.kind == "tags":
        if not isinstance(value, list):
            return f"{spec.name} takes a list (e.g. [{allowed[0]}], or [] when none applies)"
        wrong = [v for v in value if not isinstance(v, str) or v not in allowed]
        if wrong:
            return f"{spec.name}: {', '.join(map(str, wrong))} not in the vocabulary ({', '.join(allowed)})"
        if len(set(value)) != len(value):
            return f"{spec.name} lists a value twice"
        return None
    if not isinstance(value, str) or value not in allowed:
        return f"{spec.name}: {value!r} is not one of {', '.join(allowed)}"
    return None


def _at(item: dict, name: str, line: int) -> int:
    return item.line_of(name) if isinstance(item, yamlio.LineDict) and name in item else line


def _text(item: dict, name: str) -> str | None:
    value = item.get(name)
    return value.strip() if isinstance(value, str) and value.strip() else None


def _key_problems(
    rel: str, line: int, item: dict, what: str, keys: set[str], required: tuple[str, ...]
) -> list[Problem]:
    """What readings and adjudications check alike: no unknown key, every required text given.
    ``what`` names the item with its article ("a reading")."""
    problems = []
    unknown = sorted(set(item) - keys)
    if unknown:
        problems.append(
            _reading_problem(
                rel,
                line,
                f"unknown key '{unknown[0]}' in {what}",
                "keys: " + ", ".join(sorted(keys)),
            )
        )
    noun = what.split(" ", 1)[1]
    problems += [
        _reading_problem(rel, line, f"{noun} without '{name}'", f"add '{name}: ...'")
        for name in required
        if _text(item, name) is None
    ]
    return problems


def _in_pass(number: int) -> str:
    """' in pass N' for a later pass, '' for the first (whose messages read as before passes)."""
    return f" in pass {number}" if number != FIRST_PASS else ""


@dataclass
class _FileChecker:
    """The checks of one tags file; ``check_tag_file`` runs them in file order."""

    rel: str
    round_id: str
    taxonomy: object
    fields: dict[str, object]
    entry_keys: set[str]
    decided: set[str] | None  # the records of the round's decisions file, None when unreadable
    found: TagFile

    def problem(self, line: int, message: str, hint: str = "") -> None:
        self.found.problems.append(_reading_problem(self.rel, line, message, hint))

    def item_pass(self, item: dict, line: int, what: str) -> int | None:
        """The item's pass number when it is 1 or declared; otherwise None, the problem noted."""
        number = pass_number(item.get("pass", FIRST_PASS))
        if number is None:
            self.problem(
                _at(item, "pass", line),
                f"'pass: {item.get('pass')!r}' is not a pass number",
                "1 (the first reading, the default) or a pass declared under 'passes:'",
            )
        elif number != FIRST_PASS and number not in self.found.passes:
            self.problem(
                _at(item, "pass", line),
                f"{what} of pass {number}, which is not declared under 'passes:'",
                f"declare it ({LAYOUT_HINT}) or drop 'pass:' for the first reading",
            )
            number = None
        return number

    def declared_for(self, number: int | None, name: str, line: int) -> bool:
        """Whether a later pass re-reads the field (pass 1 reads every tag field); notes why not."""
        if number is None or number == FIRST_PASS:
            return True
        declared = self.found.passes[number]
        if name in declared.fields:
            return True
        self.problem(
            line,
            f"pass {number} does not re-read '{name}'",
            f"pass {number} ({declared.where}) re-reads {', '.join(declared.fields) or 'nothing'}; "
            f"read '{name}' in pass 1 or add it to the pass's fields",
        )
        return False

    def reading(self, item, line: int, seen: dict) -> None:
        before = len(self.found.problems)
        self.found.problems += _key_problems(
            self.rel, line, item, "a reading", READING_KEYS, ("record", "screener", "date")
        )
        record, screener, date = _text(item, "record"), _text(item, "screener"), _text(item, "date")
        number = self.item_pass(item, line, "a reading")
        if date and not DATE.match(date):
            self.problem(_at(item, "date", line), f"date '{date}' is not YYYY-MM-DD")
        tags = item.get("tags")
        names = set(tags) if isinstance(tags, dict) else set()
        if record and number and number != FIRST_PASS and names == {DECISION_FIELD}:
            if self.decided is not None and record not in self.decided:
                self.problem(
                    _at(item, "record", line),
                    f"'{record}' is not a record of screening/decisions/{self.round_id}.yaml",
                    "a re-read decision names a record decided in the round's first pass",
                )
        elif record and record not in self.entry_keys:
            self.problem(
                _at(item, "record", line),
                f"'{record}' is not a corpus entry",
                "tags are read for corpus entries; use its key",
            )
        if record and screener and number is not None:
            if (record, screener, number) in seen:
                self.problem(
                    line,
                    f"{screener} reads '{record}' twice{_in_pass(number)} "
                    f"(first on line {seen[record, screener, number]})",
                    "keep one reading per screener and record in a pass; correct it in place",
                )
            else:
                seen[record, screener, number] = line
        labels = []
        if not isinstance(tags, dict) or not tags:
            self.problem(
                _at(item, "tags", line),
                "reading without 'tags:' (a mapping of tag field to value)",
            )
        else:
            for name, value in tags.items():
                tag_line = tags.line_of(name) if isinstance(tags, yamlio.LineDict) else line
                found = self.tag_label(name, value, number, tag_line)
                if found is not None:
                    labels.append((name, found))
        if len(self.found.problems) == before and number is not None:
            self.found.readings.append(
                TagReading(
                    record,
                    screener,
                    date,
                    self.round_id,
                    tuple(labels),
                    f"{self.rel}:{line}",
                    number,
                )
            )

    def tag_label(self, name: str, value, number: int | None, line: int) -> str | None:
        """One tag of a reading as a label, or None with the problem noted."""
        if name == DECISION_FIELD:
            if number == FIRST_PASS:
                self.problem(
                    line,
                    "'decision' is not a tag of a first reading",
                    f"first-pass decisions go to screening/decisions/{self.round_id}.yaml; a "
                    "re-read decision goes in a reading of a later pass that declares 'decision'",
                )
                return None
            if not self.declared_for(number, name, line):
                return None
            if value not in DECISION_VALUES:
                self.problem(line, f"a re-read decision is one of {', '.join(DECISION_VALUES)}")
                return None
            return value
        spec = self.fields.get(name)
        if spec is None:
            self.problem(
                line, f"'{name}' is not a tag field", "tag fields: " + ", ".join(self.fields)
            )
            return None
        problem = _value_problem(spec, self.taxonomy, value)
        if problem:
            self.problem(line, problem)
            return None
        if not self.declared_for(number, name, line):
            return None
        return label(value, spec.kind == "tags")

    def ruling(self, item, line: int, ruled: dict) -> None:
        before = len(self.found.problems)
        self.found.problems += _key_problems(
            self.rel, line, item, "an adjudication", RULING_KEYS, ("record", "field", "by", "date")
        )
        record, name, by, date = (
            _text(item, "record"),
            _text(item, "field"),
            _text(item, "by"),
            _text(item, "date"),
        )
        number = self.item_pass(item, line, "an adjudication")
        if "value" not in item:
            self.problem(
                line, "adjudication without 'value'", "the value the adjudicator settled on"
            )
        if date and not DATE.match(date):
            self.problem(_at(item, "date", line), f"date '{date}' is not YYYY-MM-DD")
        value_label = None
        if name == DECISION_FIELD:
            if item.get("value") not in DECISION_VALUES:
                self.problem(line, f"a decision ruling is one of {', '.join(DECISION_VALUES)}")
            else:
                value_label = item["value"]
        elif name is not None:
            spec = self.fields.get(name)
            if spec is None:
                self.problem(
                    line,
                    f"'{name}' is neither a tag field nor 'decision'",
                    "tag fields: " + ", ".join(self.fields),
                )
            else:
                if record and record not in self.entry_keys:
                    self.problem(line, f"'{record}' is not a corpus entry")
                problem = (
                    _value_problem(spec, self.taxonomy, item["value"]) if "value" in item else None
                )
                if problem:
                    self.problem(line, problem)
                elif "value" in item:
                    value_label = label(item["value"], spec.kind == "tags")
        if name is not None and (name == DECISION_FIELD or name in self.fields):
            self.declared_for(number, name, _at(item, "field", line))
        if record and name and number is not None:
            if (record, name, number) in ruled:
                self.problem(
                    line,
                    f"'{record}' {name} is adjudicated twice{_in_pass(number)} "
                    f"(first on line {ruled[record, name, number]})",
                )
            else:
                ruled[record, name, number] = line
        if len(self.found.problems) == before and value_label is not None:
            self.found.rulings.append(
                Ruling(
                    record,
                    name,
                    value_label,
                    by,
                    date,
                    _text(item, "note"),
                    f"{self.rel}:{line}",
                    number,
                )
            )


def _items(data: dict, name: str, checker: _FileChecker) -> list:
    """A list under ``name`` (absent: none); anything else is a problem and counts as none."""
    items = data.get(name, [])
    if not isinstance(items, list):
        checker.problem(data.line_of(name), f"'{name}:' must be a list")
        return []
    return items


def _item_line(items: list, index: int) -> int:
    return items.line_of(index) if isinstance(items, yamlio.LineList) else 1


def check_tag_file(
    project,
    path: Path,
    taxonomy,
    entry_keys: set[str],
    known_rounds: set[str] | None,
    decided: set[str] | None = None,
) -> TagFile:
    """The readings, rulings and passes of one file and every problem of the file at once.
    ``decided`` is the round's decided records (None: not checked)."""
    rel = project.relative(path)
    found = TagFile()
    try:
        data = yamlio.load_file(path)
    except yamlio.YamlError as exc:
        found.problems.append(_reading_problem(rel, exc.line or 1, exc.message, exc.hint or ""))
        return found
    if not isinstance(data, dict) or not isinstance(data.get("readings"), list):
        found.problems.append(
            _reading_problem(
                rel,
                1,
                "expected a mapping with a list 'readings:' (and optionally 'passes:' and "
                "'adjudications:')",
                "see the layout in CONTRIBUTING.md, 'Two screeners'",
            )
        )
        return found
    round_id = path.stem
    fields = tag_fields(taxonomy)
    checker = _FileChecker(rel, round_id, taxonomy, fields, entry_keys, decided, found)
    extra = sorted(set(data) - set(FILE_KEYS))
    if extra:
        checker.problem(
            data.line_of(extra[0]),
            f"unknown key '{extra[0]}'",
            "the keys are " + ", ".join(FILE_KEYS),
        )
    if known_rounds is not None and round_id not in known_rounds:
        checker.problem(
            1,
            f"unknown screening round '{round_id}' (the file name is the round)",
            f"known rounds: {', '.join(sorted(known_rounds)) or 'none'}",
        )
    if "passes" in data:
        found.passes, pass_problems = check_passes(
            rel, round_id, data["passes"], {*fields, DECISION_FIELD}
        )
        line = data.line_of("passes")
        found.problems += [
            _reading_problem(rel, at if isinstance(data["passes"], list) else line, message, hint)
            for at, message, hint in pass_problems
        ]
    seen: dict[tuple[str, str, int], int] = {}
    items = data["readings"]
    for index, item in enumerate(items):
        line = _item_line(items, index)
        if not isinstance(item, dict):
            checker.problem(
                line, "each reading must be a mapping (record:, screener:, date:, tags:)"
            )
            continue
        checker.reading(item, line, seen)
    ruled: dict[tuple[str, str, int], int] = {}
    rulings = _items(data, "adjudications", checker)
    for index, item in enumerate(rulings):
        line = _item_line(rulings, index)
        if not isinstance(item, dict):
            checker.problem(
                line, "each adjudication must be a mapping (record:, field:, value:, by:, date:)"
            )
            continue
        checker.ruling(item, line, ruled)
    return found


def _known_rounds(project) -> set[str] | None:
    from masrl.screening.queue import read_rounds, rounds_path

    return set(read_rounds(project)) if rounds_path(project).is_file() else None


def _decided_records(project, round_id: str) -> set[str] | None:
    """The record ids of the round's decisions file; None when the file has problems (its own
    reader reports them)."""
    from masrl.screening.queue import decisions_dir, read_decisions_file

    path = decisions_dir(project) / f"{round_id}.yaml"
    if not path.is_file():
        return set()
    try:
        return {d.record for d in read_decisions_file(project, path)}
    except InputError:  # ProblemsError too
        return None


def tag_files(project) -> list[Path]:
    folder = tags_dir(project)
    return sorted(folder.glob("*.yaml")) if folder.is_dir() else []


_FORMERLY = re.compile(r"^formerly:[ \t]*\n((?:-[ \t].*\n?)+)", re.M)


def entry_names(project) -> set[str]:
    """Every entry's key, and every name a record had before it moved (``formerly:``, in the
    corpus and the exclusions): tags read under a name are that record's, and a record that was
    an entry when it was tagged keeps its readings after it moves to the exclusions."""
    names = {path.stem for path in project.entry_paths()}
    for path in [*project.entry_paths(), *project.exclusion_paths()]:
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue  # validate reports the file
        for block in _FORMERLY.findall(text):
            names.update(line[1:].strip().strip("'\"") for line in block.splitlines())
    return names


def check_tag_files(
    project,
    taxonomy,
    entry_keys: set[str],
    decided_by_round: dict[str, set[str] | None] | None = None,
) -> dict[Path, TagFile]:
    """Every tags file checked, each read once. ``decided_by_round``: each round's decided
    records as the caller already read them (a round it lacks decided nothing; None: read here)."""
    rounds = _known_rounds(project)
    return {
        path: check_tag_file(
            project,
            path,
            taxonomy,
            entry_keys,
            rounds,
            _decided_records(project, path.stem)
            if decided_by_round is None
            else decided_by_round.get(path.stem, set()),
        )
        for path in tag_files(project)
    }


def tag_data_from(project, files: dict[Path, TagFile]) -> TagData:
    """The readings, rulings and declared passes of checked files; raises ProblemsError naming
    every problem when any file is wrong."""
    problems = [p for found in files.values() for p in found.problems]
    if problems:
        raise ProblemsError(
            tags_dir(project),
            [p.as_line() for p in problems],
            heading=f"the tag readings have {len(problems)} problem(s); fix them and run the command again:",
        )
    readings = [r for found in files.values() for r in found.readings]
    rulings = [r for found in files.values() for r in found.rulings]
    seen: dict[tuple[str, str, int], str] = {}
    for ruling in rulings:  # one ruling per record, field and pass across rounds as well
        key = (ruling.record, ruling.field, ruling.pass_number)
        if key in seen:
            raise ProblemsError(
                tags_dir(project),
                [
                    f"{ruling.where}: '{ruling.record}' {ruling.field} is adjudicated twice"
                    f"{_in_pass(ruling.pass_number)} (first at {seen[key]})"
                ],
                heading="the tag readings have 1 problem(s); fix them and run the command again:",
            )
        seen[key] = ruling.where
    passes = {path.stem: found.passes for path, found in files.items() if found.passes}
    return TagData(readings, rulings, passes)


def read_tag_data(project) -> TagData:
    """Every reading, ruling and declared pass; raises ProblemsError naming every problem when any
    file is wrong."""
    if not tag_files(project):
        return TagData([], [], {})
    return tag_data_from(
        project, check_tag_files(project, project.taxonomy(), entry_names(project))
    )


def read_tag_files(project) -> tuple[list[TagReading], list[Ruling]]:
    """Every reading and ruling (``read_tag_data`` adds the declared passes)."""
    data = read_tag_data(project)
    return data.readings, data.rulings

"""Tags read independently by two or more screeners, and the rulings that settle their disagreements.

Layout, one file per round (the file stem is the round id, as for decisions):

screening/tags/<round>.yaml::

    readings:                     # one item per screener and record
      - record: aciarena2026      # a corpus key
        screener: alice
        date: '2026-11-23'
        tags:                     # any of the entry's tag fields, in the entry's own shape
          category: benchmark
          is_rl: 'no'
          reward_types: []        # a list field: [] means none applies
          credit_mechanism: null  # a nullable field: null means not applicable
    adjudications:                # optional: one ruling per record and field that was disputed
      - record: aciarena2026
        field: category           # a tag field, or 'decision' for an include/exclude dispute
        value: benchmark
        by: carol
        date: '2026-11-24'
        note: one line on why     # optional

Every value is checked against the axis registry (field names, vocabularies, one value or a list,
null only where the field allows it); every record must be a corpus entry (or, for a decision
ruling, any record id). A screener reads a record once per file. Problems are reported together
as ``path:line: message`` by ``read_tag_files`` and by ``masrl validate``; nothing here writes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from masrl.errors import ProblemsError
from masrl.model import yamlio

TAGS_DIR = Path("screening") / "tags"
DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
DECISION_FIELD = "decision"
DECISION_VALUES = ("include", "exclude")
NONE_LABEL = "(none)"  # an empty list, as a label
NULL_LABEL = "NA"  # null (not applicable), the audit CSV's spelling
READING_KEYS = {"record", "screener", "date", "tags", "note"}
RULING_KEYS = {"record", "field", "value", "by", "date", "note"}


@dataclass(frozen=True)
class TagReading:
    record: str
    screener: str
    date: str
    round: str
    tags: tuple[tuple[str, str], ...]  # (field, label), in file order
    where: str  # 'path:line'


@dataclass(frozen=True)
class Ruling:
    record: str
    field: str
    value: str  # as a label, comparable with the readings' labels
    by: str
    date: str
    note: str | None
    where: str


@dataclass(frozen=True)
class TagProblem:
    path: str
    line: int
    message: str
    hint: str = ""

    def as_text(self) -> str:
        return f"{self.path}:{self.line}: {self.message}" + (f" ({self.hint})" if self.hint else "")


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
) -> list[TagProblem]:
    """What readings and adjudications check alike: no unknown key, every required text given.
    ``what`` names the item with its article ("a reading")."""
    problems = []
    unknown = sorted(set(item) - keys)
    if unknown:
        problems.append(
            TagProblem(
                rel,
                line,
                f"unknown key '{unknown[0]}' in {what}",
                "keys: " + ", ".join(sorted(keys)),
            )
        )
    noun = what.split(" ", 1)[1]
    problems += [
        TagProblem(rel, line, f"{noun} without '{name}'", f"add '{name}: ...'")
        for name in required
        if _text(item, name) is None
    ]
    return problems


def check_tag_file(
    project, path: Path, taxonomy, entry_keys: set[str], known_rounds: set[str] | None
):
    """(readings, rulings, problems) of one file; every problem of the file at once."""
    rel = project.relative(path)
    readings: list[TagReading] = []
    rulings: list[Ruling] = []
    problems: list[TagProblem] = []
    try:
        data = yamlio.load_file(path)
    except yamlio.YamlError as exc:
        return [], [], [TagProblem(rel, exc.line or 1, exc.message, exc.hint or "")]
    if not isinstance(data, dict) or not isinstance(data.get("readings"), list):
        return (
            [],
            [],
            [
                TagProblem(
                    rel,
                    1,
                    "expected a mapping with a list 'readings:' (and optionally 'adjudications:')",
                    "see the layout in CONTRIBUTING.md, 'Two screeners'",
                )
            ],
        )
    extra = sorted(set(data) - {"readings", "adjudications"})
    if extra:
        problems.append(
            TagProblem(
                rel,
                data.line_of(extra[0]),
                f"unknown key '{extra[0]}'",
                "the keys are readings and adjudications",
            )
        )
    round_id = path.stem
    if known_rounds is not None and round_id not in known_rounds:
        problems.append(
            TagProblem(
                rel,
                1,
                f"unknown screening round '{round_id}' (the file name is the round)",
                f"known rounds: {', '.join(sorted(known_rounds)) or 'none'}",
            )
        )
    fields = tag_fields(taxonomy)
    seen: dict[tuple[str, str], int] = {}
    items = data["readings"]
    for index, item in enumerate(items):
        line = items.line_of(index) if isinstance(items, yamlio.LineList) else 1
        if not isinstance(item, dict):
            problems.append(
                TagProblem(
                    rel, line, "each reading must be a mapping (record:, screener:, date:, tags:)"
                )
            )
            continue
        before = len(problems)
        problems += _key_problems(
            rel, line, item, "a reading", READING_KEYS, ("record", "screener", "date")
        )
        record, screener, date = _text(item, "record"), _text(item, "screener"), _text(item, "date")
        if date and not DATE.match(date):
            problems.append(
                TagProblem(rel, _at(item, "date", line), f"date '{date}' is not YYYY-MM-DD")
            )
        if record and record not in entry_keys:
            problems.append(
                TagProblem(
                    rel,
                    _at(item, "record", line),
                    f"'{record}' is not a corpus entry",
                    "tags are read for corpus entries; use its key",
                )
            )
        if record and screener:
            if (record, screener) in seen:
                problems.append(
                    TagProblem(
                        rel,
                        line,
                        f"{screener} reads '{record}' twice (first on line {seen[record, screener]})",
                        "keep one reading per screener and record; correct it in place",
                    )
                )
            else:
                seen[record, screener] = line
        tags = item.get("tags")
        labels = []
        if not isinstance(tags, dict) or not tags:
            problems.append(
                TagProblem(
                    rel,
                    _at(item, "tags", line),
                    "reading without 'tags:' (a mapping of tag field to value)",
                )
            )
        else:
            for name, value in tags.items():
                tag_line = tags.line_of(name) if isinstance(tags, yamlio.LineDict) else line
                spec = fields.get(name)
                if spec is None:
                    problems.append(
                        TagProblem(
                            rel,
                            tag_line,
                            f"'{name}' is not a tag field",
                            "tag fields: " + ", ".join(fields),
                        )
                    )
                    continue
                problem = _value_problem(spec, taxonomy, value)
                if problem:
                    problems.append(TagProblem(rel, tag_line, problem))
                else:
                    labels.append((name, label(value, spec.kind == "tags")))
        if len(problems) == before:
            readings.append(
                TagReading(record, screener, date, round_id, tuple(labels), f"{rel}:{line}")
            )

    rulings_items = data.get("adjudications", [])
    if not isinstance(rulings_items, list):
        problems.append(
            TagProblem(rel, data.line_of("adjudications"), "'adjudications:' must be a list")
        )
        rulings_items = []
    ruled: dict[tuple[str, str], int] = {}
    for index, item in enumerate(rulings_items):
        line = rulings_items.line_of(index) if isinstance(rulings_items, yamlio.LineList) else 1
        if not isinstance(item, dict):
            problems.append(
                TagProblem(
                    rel,
                    line,
                    "each adjudication must be a mapping (record:, field:, value:, by:, date:)",
                )
            )
            continue
        before = len(problems)
        problems += _key_problems(
            rel, line, item, "an adjudication", RULING_KEYS, ("record", "field", "by", "date")
        )
        record, name, by, date = (
            _text(item, "record"),
            _text(item, "field"),
            _text(item, "by"),
            _text(item, "date"),
        )
        if "value" not in item:
            problems.append(
                TagProblem(
                    rel,
                    line,
                    "adjudication without 'value'",
                    "the value the adjudicator settled on",
                )
            )
        if date and not DATE.match(date):
            problems.append(
                TagProblem(rel, _at(item, "date", line), f"date '{date}' is not YYYY-MM-DD")
            )
        value_label = None
        if name == DECISION_FIELD:
            if item.get("value") not in DECISION_VALUES:
                problems.append(
                    TagProblem(
                        rel, line, f"a decision ruling is one of {', '.join(DECISION_VALUES)}"
                    )
                )
            else:
                value_label = item["value"]
        elif name is not None:
            spec = fields.get(name)
            if spec is None:
                problems.append(
                    TagProblem(
                        rel,
                        line,
                        f"'{name}' is neither a tag field nor 'decision'",
                        "tag fields: " + ", ".join(fields),
                    )
                )
            else:
                if record and record not in entry_keys:
                    problems.append(TagProblem(rel, line, f"'{record}' is not a corpus entry"))
                problem = _value_problem(spec, taxonomy, item["value"]) if "value" in item else None
                if problem:
                    problems.append(TagProblem(rel, line, problem))
                elif "value" in item:
                    value_label = label(item["value"], spec.kind == "tags")
        if record and name:
            if (record, name) in ruled:
                problems.append(
                    TagProblem(
                        rel,
                        line,
                        f"'{record}' {name} is adjudicated twice (first on line {ruled[record, name]})",
                    )
                )
            else:
                ruled[record, name] = line
        if len(problems) == before and value_label is not None:
            rulings.append(
                Ruling(record, name, value_label, by, date, _text(item, "note"), f"{rel}:{line}")
            )
    return readings, rulings, problems


def _known_rounds(project) -> set[str] | None:
    from masrl.screening.queue import read_rounds, rounds_path

    return set(read_rounds(project)) if rounds_path(project).is_file() else None


def tag_files(project) -> list[Path]:
    folder = tags_dir(project)
    return sorted(folder.glob("*.yaml")) if folder.is_dir() else []


def tag_problems(project, taxonomy=None, entry_keys: set[str] | None = None) -> list[TagProblem]:
    """Every problem of every tag-readings file (for `masrl validate`)."""
    paths = tag_files(project)
    if not paths:
        return []
    taxonomy = taxonomy or project.taxonomy()
    keys = entry_keys if entry_keys is not None else {p.stem for p in project.entry_paths()}
    rounds = _known_rounds(project)
    return [p for path in paths for p in check_tag_file(project, path, taxonomy, keys, rounds)[2]]


def read_tag_files(project) -> tuple[list[TagReading], list[Ruling]]:
    """Every reading and ruling; raises ProblemsError naming every problem when any file is wrong."""
    paths = tag_files(project)
    if not paths:
        return [], []
    taxonomy = project.taxonomy()
    keys = {p.stem for p in project.entry_paths()}
    rounds = _known_rounds(project)
    readings, rulings, problems = [], [], []
    for path in paths:
        found = check_tag_file(project, path, taxonomy, keys, rounds)
        readings += found[0]
        rulings += found[1]
        problems += found[2]
    if problems:
        raise ProblemsError(
            tags_dir(project),
            [p.as_text() for p in problems],
            heading=f"the tag readings have {len(problems)} problem(s); fix them and run the command again:",
        )
    seen: dict[tuple[str, str], str] = {}
    for ruling in rulings:  # one ruling per record and field across rounds as well
        if (ruling.record, ruling.field) in seen:
            first = seen[ruling.record, ruling.field]
            raise ProblemsError(
                tags_dir(project),
                [
                    f"{ruling.where}: '{ruling.record}' {ruling.field} is adjudicated twice (first at {first})"
                ],
                heading="the tag readings have 1 problem(s); fix them and run the command again:",
            )
        seen[ruling.record, ruling.field] = ruling.where
    return readings, rulings

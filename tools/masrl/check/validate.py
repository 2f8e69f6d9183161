"""`masrl validate`: every check on the corpus, each problem with its file, line and a fix.

All problems are collected in one run. Per-file checks follow the field specifications in
``model``; cross-file checks find repeated keys and the same paper recorded twice, by
identifier or by a near-identical title, across the corpus and the exclusion log.
"""

from __future__ import annotations

import datetime as dt
import json
from collections import defaultdict
from dataclasses import asdict, dataclass, field

from pydantic import ValidationError

from masrl.check.layout import stray_files
from masrl.check.rules import unknown_rule_fields
from masrl.check.titles import OVERRIDES_FILE, load_overrides, similar_title_pairs
from masrl.errors import MasrlError
from masrl.memory import cycle_collection_paused
from masrl.model import identifiers as ids
from masrl.model import yamlio
from masrl.model.identifiers import KEY_PATTERN, RECORD_ID_PATTERN
from masrl.model.project import Corpus, Project, RawRecord, find_project, iter_records
from masrl.model.records import (
    DATE_PATTERN,
    EARLIEST_YEAR,
    EVIDENCE_OF,
    IDENTIFIER_KINDS,
    LINK_KEYS,
    PLACEHOLDER,
    VERSION_PATTERN,
    FieldSpec,
    entry_from_data,
    entry_specs,
    exclusion_from_data,
    exclusion_specs,
)
from masrl.model.taxonomy import Taxonomy
from masrl.model.venues import canonical_venue, split_venue, venue_axis
from masrl.problems import Problem
from masrl.screening.rounds import SURVEY_ROUND
from masrl.text import did_you_mean, forbidden_characters

NOT_APPLICABLE_SPELLINGS = {"na", "n/a", "none", "null", "-", "not applicable"}


@dataclass
class Report:
    problems: list[Problem] = field(default_factory=list)
    corpus: Corpus | None = None

    @property
    def errors(self) -> list[Problem]:
        return [p for p in self.problems if p.severity == "error"]

    @property
    def warnings(self) -> list[Problem]:
        return [p for p in self.problems if p.severity == "warning"]

    def summary_line(self) -> str:
        entries = len(self.corpus.entries) if self.corpus else 0
        exclusions = len(self.corpus.exclusions) if self.corpus else 0
        counts = (
            f"{entries} entries, {exclusions} exclusions, {entries + exclusions} audited records"
        )
        if self.errors:
            return (
                f"invalid: {len(self.errors)} error(s), {len(self.warnings)} warning(s) in {counts}"
            )
        suffix = f" ({len(self.warnings)} warning(s))" if self.warnings else ""
        return f"ok: {counts}{suffix}"

    def render(self, fmt: str = "text") -> str:
        if fmt == "json":
            payload = {
                "ok": not self.errors,
                "entries": len(self.corpus.entries) if self.corpus else 0,
                "exclusions": len(self.corpus.exclusions) if self.corpus else 0,
                "problems": [asdict(p) for p in self.problems],
            }
            return json.dumps(payload, indent=2, sort_keys=True)
        if fmt == "github":
            lines = [p.as_github() for p in self.problems]
        else:
            lines = [p.as_text() for p in self.problems]
        return "\n".join([*lines, self.summary_line()])


class _RecordChecker:
    """Checks one record against field specifications; collects Problems."""

    def __init__(
        self,
        record: RawRecord,
        rel: str,
        taxonomy: Taxonomy,
        problems: list[Problem],
        allow_placeholders: bool = False,
    ):
        self.record, self.rel, self.taxonomy, self.problems = record, rel, taxonomy, problems
        self.data = record.data
        self.placeholder_severity = "warning" if allow_placeholders else "error"

    def add(
        self, keys: tuple, message: str, hint: str = "", code: str = "", severity: str = "error"
    ):
        self.problems.append(
            Problem(self.rel, self.record.line_of(*keys), message, hint, severity, code)
        )

    def check_fields(self, specs: tuple[FieldSpec, ...]) -> None:
        known = {s.name for s in specs}
        for name in self.data:
            if name not in known:
                suggestion = did_you_mean(name, sorted(known))
                self.add(
                    (name,),
                    f"unknown field '{name}'.{suggestion}",
                    f"allowed fields: {', '.join(s.name for s in specs)}",
                    "unknown-field",
                )
        for spec in specs:
            if spec.name not in self.data:
                if spec.required:
                    self.add(
                        (),
                        f"missing required field '{spec.name}'",
                        self._expectation(spec),
                        "missing-field",
                    )
                continue
            self.check_value(spec, self.data[spec.name])

    def _expectation(self, spec: FieldSpec) -> str:
        if spec.axis:
            values = ", ".join(self.taxonomy[spec.axis].ids)
            shape = "a list of" if spec.kind == "tags" else "one of"
            empty = (
                " ([] when not applicable)"
                if spec.kind == "tags"
                else (" or null" if spec.nullable else "")
            )
            return f"{spec.name}: {spec.description} Write {shape}: {values}{empty}."
        return f"{spec.name}: {spec.description}"

    def check_value(self, spec: FieldSpec, value) -> None:
        keys = (spec.name,)
        if value == PLACEHOLDER or (isinstance(value, list) and PLACEHOLDER in value):
            self.add(
                keys,
                f"'{spec.name}' is still the placeholder {PLACEHOLDER}",
                self._expectation(spec),
                "placeholder",
                self.placeholder_severity,
            )
            return
        if value is None:
            if not spec.nullable and spec.kind != "tags":
                self.add(keys, f"'{spec.name}' must not be null", self._expectation(spec), "null")
            elif spec.kind == "tags":
                self.add(
                    keys,
                    f"'{spec.name}' must be a list; write [] when not applicable",
                    self._expectation(spec),
                    "type",
                )
            return
        getattr(self, f"_check_{spec.kind}")(spec, value)
        if spec.max_length is not None:
            self._check_length(spec, value)

    def _check_length(self, spec: FieldSpec, value) -> None:
        """A free-text value within its limit (model/records.py MAX_LENGTH)."""
        if isinstance(value, str):
            items = [((spec.name,), value)]
        elif isinstance(value, list):
            items = [((spec.name, i), v) for i, v in enumerate(value) if isinstance(v, str)]
        elif isinstance(value, dict):
            items = [((spec.name, k), v) for k, v in value.items() if isinstance(v, str)]
        else:
            items = []
        for keys, text in items:
            if len(text) > spec.max_length:
                what = spec.name if len(keys) == 1 else f"{spec.name} ({keys[1]})"
                self.add(
                    keys,
                    f"'{what}' is {len(text):,} characters long; the limit is {spec.max_length:,}",
                    f"shorten it to at most {spec.max_length:,} characters",
                    "too-long",
                )

    # -- kinds ---------------------------------------------------------------------------------

    def _type_error(self, spec: FieldSpec, value, expected: str, keys: tuple | None = None):
        got = type(value).__name__ if not isinstance(value, bool) else "boolean"
        self.add(
            keys or (spec.name,),
            f"'{spec.name}' must be {expected}, got {got} {value!r}",
            self._expectation(spec),
            "type",
        )

    def _check_key(self, spec, value):
        if not isinstance(value, str):
            return self._type_error(spec, value, "a string")
        if not KEY_PATTERN.match(value):
            self.add(
                (spec.name,),
                f"key '{value}' may hold only lower-case letters, digits and inner dashes",
                "e.g. magrpo, dr-mas, vdn2018",
                "key-format",
            )
        stem = self.record.path.stem
        if value != stem:
            self.add(
                (spec.name,),
                f"key '{value}' differs from the file name '{self.record.path.name}'",
                f"rename the file to {value}.yaml or set key: {stem}",
                "key-filename",
            )

    def _check_record_id(self, spec, value):
        if not isinstance(value, str) or not RECORD_ID_PATTERN.match(value):
            return self.add(
                (spec.name,),
                f"record_id {value!r} must be E followed by at least three digits",
                "e.g. E033",
                "record-id-format",
            )
        if value != self.record.path.stem:
            self.add(
                (spec.name,),
                f"record_id '{value}' differs from the file name '{self.record.path.name}'",
                f"rename the file to {value}.yaml",
                "key-filename",
            )

    def _check_text(self, spec, value):
        if not isinstance(value, str):
            return self._type_error(spec, value, "a string")
        if not value.strip():
            self.add((spec.name,), f"'{spec.name}' is empty", self._expectation(spec), "empty")
        elif "\n" in value.strip():
            self.add(
                (spec.name,),
                f"'{spec.name}' must be a single line of text",
                "join the lines; use a folded scalar (>-) to wrap long text in the file",
                "multiline",
            )

    def _check_str(self, spec, value):
        if not isinstance(value, str):
            return self._type_error(spec, value, "a string")
        if spec.required and not value.strip():
            self.add((spec.name,), f"'{spec.name}' is empty", self._expectation(spec), "empty")

    def _check_venue(self, spec, value):
        if not isinstance(value, str):
            return self._type_error(spec, value, "a string")
        axis = venue_axis(self.taxonomy)
        if not value.strip() or axis is None:
            return self._check_str(spec, value)
        name, year = split_venue(value)
        if any(v.label == name for v in axis.values):
            this_year = dt.date.today().year
            if year is not None and not EARLIEST_YEAR <= year <= this_year + 1:
                self.add(
                    (spec.name,),
                    f"venue year {year} is not plausible",
                    f"use a year between {EARLIEST_YEAR} and {this_year + 1}",
                    "year",
                )
            return
        spelling = canonical_venue(axis, value)
        suggestion = f" Did you mean '{spelling}'?" if spelling else ""
        self.add(
            (spec.name,),
            f"unknown venue '{value}' in '{spec.name}'.{suggestion}",
            f"write one spelling from {self.taxonomy.directory.name}/{axis.name}.yaml, optionally followed by the year: "
            f"{', '.join(v.label for v in axis.values)} (add a venue there, with its aliases, if it is new)",
            "unknown-venue",
        )

    def _check_version(self, spec, value):
        if not isinstance(value, str) or not VERSION_PATTERN.match(value):
            self.add(
                (spec.name,),
                f"'{spec.name}' {value!r} must look like v1, v2, ...",
                "",
                "version-format",
            )

    def _check_int(self, spec, value):
        if isinstance(value, bool) or not isinstance(value, int):
            return self._type_error(spec, value, "a whole number")
        this_year = dt.date.today().year
        if spec.name == "year" and not EARLIEST_YEAR <= value <= this_year + 1:
            self.add(
                (spec.name,),
                f"year {value} is not plausible",
                f"use a year between {EARLIEST_YEAR} and {this_year + 1}",
                "year",
            )

    def _check_bool(self, spec, value):
        if not isinstance(value, bool):
            self._type_error(spec, value, "true or false")

    def _check_date(self, spec, value):
        if not isinstance(value, str) or not DATE_PATTERN.match(value):
            return self.add(
                (spec.name,), f"'{spec.name}' {value!r} must be a date YYYY-MM-DD", "", "date"
            )
        try:
            day = dt.date.fromisoformat(value)
        except ValueError:
            return self.add(
                (spec.name,), f"'{spec.name}' {value!r} is not a calendar date", "", "date"
            )
        if day > dt.date.today():
            self.add(
                (spec.name,),
                f"'{spec.name}' {value} lies in the future",
                "use the date the record was screened",
                "date",
            )

    def _check_tag(self, spec, value, keys: tuple | None = None):
        keys = keys or (spec.name,)
        axis = self.taxonomy[spec.axis]
        if isinstance(value, bool):
            return self._type_error(spec, value, f"one of {', '.join(axis.ids)}", keys)
        value = str(value) if isinstance(value, int | float) else value
        if not isinstance(value, str):
            return self._type_error(spec, value, f"one of {', '.join(axis.ids)}", keys)
        if value in axis.by_id:
            return
        if value.strip().casefold() in NOT_APPLICABLE_SPELLINGS:
            empty = "[]" if spec.kind == "tags" else "null"
            self.add(
                keys,
                f"'{spec.name}' uses '{value}' for not applicable",
                f"write {empty} instead of a string",
                "not-applicable",
            )
            return
        labels = {v.id: v.label for v in axis.values}
        self.add(
            keys,
            f"unknown {axis.label.lower()} '{value}' in '{spec.name}'.{did_you_mean(value, axis.ids, labels)}",
            f"allowed values ({self.taxonomy.directory.name}/{axis.name}.yaml): {', '.join(axis.ids)}",
            "unknown-value",
        )

    def _check_tags(self, spec, value):
        if isinstance(value, str):
            if value.strip().casefold() in NOT_APPLICABLE_SPELLINGS:
                return self.add(
                    (spec.name,),
                    f"'{spec.name}' uses '{value}' for not applicable",
                    "write [] instead",
                    "not-applicable",
                )
            return self._type_error(spec, value, f"a list, e.g. [{value}]")
        if not isinstance(value, list):
            return self._type_error(spec, value, "a list")
        seen = set()
        for index, item in enumerate(value):
            self._check_tag(spec, item, (spec.name, index))
            if not isinstance(item, str | int | float | bool):
                continue  # a list or mapping where a value belongs: reported as a type error above
            if item in seen:
                self.add(
                    (spec.name, index),
                    f"'{item}' is listed twice in '{spec.name}'",
                    "remove the repeat",
                    "repeat",
                )
            seen.add(item)
        order = {v: i for i, v in enumerate(self.taxonomy[spec.axis].ids)}
        if all(isinstance(v, str) and v in order for v in value) and list(value) != sorted(
            value, key=order.get
        ):
            self.add(
                (spec.name,),
                f"'{spec.name}' is not in taxonomy order",
                f"write {sorted(value, key=order.get)}",
                "order",
                "warning",
            )

    def _check_authors(self, spec, value):
        if not isinstance(value, list) or not value:
            return self._type_error(spec, value, "a non-empty list of names")
        for index, name in enumerate(value):
            if not isinstance(name, str) or not name.strip():
                self.add(
                    (spec.name, index),
                    "each author must be a non-empty name",
                    "write 'Surname, Given' or an organisation name",
                    "author",
                )
            elif name.strip().casefold() in ("others", "et al.", "et al"):
                self.add(
                    (spec.name, index),
                    f"'{name}' is not an author",
                    "drop it and set authors_complete: false",
                    "author",
                )

    def _check_identifiers(self, spec, value):
        if not isinstance(value, dict):
            return self._type_error(spec, value, "a mapping with arxiv, doi, openreview")
        for name, ident in value.items():
            keys = (spec.name, name)
            if name not in IDENTIFIER_KINDS:
                self.add(
                    keys,
                    f"unknown identifier kind '{name}'.{did_you_mean(name, IDENTIFIER_KINDS)}",
                    f"use {', '.join(IDENTIFIER_KINDS)}",
                    "unknown-field",
                )
                continue
            if ident is None:
                continue
            if ident == PLACEHOLDER:
                self.add(
                    keys,
                    f"identifier '{name}' is still the placeholder {PLACEHOLDER}",
                    "fill it in or write null",
                    "placeholder",
                )
                continue
            if not isinstance(ident, str):
                self.add(
                    keys,
                    f"identifier '{name}' must be a string, got {ident!r}",
                    'quote it, e.g. arxiv: "2508.04652"',
                    "type",
                )
                continue
            problem = {
                "arxiv": (
                    ids.is_arxiv_id,
                    "an arXiv id such as 2508.04652 or hep-th/9901001 (no 'arXiv:' prefix, no URL)",
                ),
                "doi": (
                    lambda v: bool(ids.DOI.match(v)),
                    "a DOI such as 10.1287/moor.27.4.819.297 (no https://doi.org/ prefix)",
                ),
                "openreview": (
                    lambda v: bool(ids.OPENREVIEW.match(v)),
                    "an OpenReview forum id such as ur295YVtmt",
                ),
            }[name]
            if not problem[0](ident):
                self.add(
                    keys,
                    f"'{ident}' is not a well-formed {name} identifier",
                    f"write {problem[1]}",
                    "identifier-format",
                )
        arxiv = value.get("arxiv")
        year = self.data.get("year")
        if isinstance(arxiv, str) and isinstance(year, int) and not isinstance(year, bool):
            first = ids.arxiv_year(arxiv)
            if first and year < first:
                self.add(
                    ("year",),
                    f"year {year} is before the first arXiv version of {arxiv} ({first})",
                    f"use {first} or later",
                    "year",
                )

    def _check_urls(self, spec, value):
        if not isinstance(value, list) or not value:
            return self._type_error(spec, value, "a non-empty list of links")
        for index, url in enumerate(value):
            self._check_one_url(spec, url, (spec.name, index))

    def _check_url(self, spec, value):
        self._check_one_url(spec, value, (spec.name,))

    def _check_one_url(self, spec, url, keys):
        problem = ids.check_url(url) if isinstance(url, str) else "is not a string"
        if problem:
            self.add(
                keys,
                f"link {url!r} {problem}",
                "write a full http(s) address, one per list item",
                "url",
            )

    def _check_links(self, spec, value):
        """A list of {url, source}: the link and the stored page that names it, both http(s)."""
        shape = f"{spec.name}:\n  - url: https://github.com/org/repo\n    source: https://arxiv.org/abs/2505.13516"
        if not isinstance(value, list):
            return self.add(
                (spec.name,),
                f"'{spec.name}' must be a list of {{url, source}}, got {type(value).__name__} {value!r}",
                f"write it as\n{shape}",
                "type",
            )
        seen: set[str] = set()
        for index, item in enumerate(value):
            keys = (spec.name, index)
            if not isinstance(item, dict) or set(item) != set(LINK_KEYS):
                got = sorted(item) if isinstance(item, dict) else repr(item)
                self.add(
                    keys,
                    f"each {spec.name} link needs exactly url and source, got {got}",
                    f"source is the URL of the stored page that names the link; write\n{shape}",
                    "link",
                )
                continue
            for part in LINK_KEYS:
                self._check_one_url(spec, item[part], (*keys, part))
            if item["url"] in seen:
                self.add(
                    (*keys, "url"),
                    f"{item['url']!r} is listed twice in {spec.name}",
                    "keep one item per link",
                    "link",
                )
            seen.add(item["url"])

    def _check_formerly(self, spec, value):
        """A list of record names (keys or E-ids), none of them this record's own."""
        if not isinstance(value, list) or not value:
            return self.add(
                (spec.name,),
                f"'{spec.name}' must be a non-empty list of earlier keys or ids, got {value!r}",
                f"write it as\n{spec.name}:\n  - E141\n(or leave the field out)",
                "type",
            )
        own = self.record.path.stem
        for index, name in enumerate(value):
            if not isinstance(name, str) or not (
                KEY_PATTERN.match(name) or RECORD_ID_PATTERN.match(name)
            ):
                self.add(
                    (spec.name, index),
                    f"{name!r} is not a record key or id",
                    "an entry key (lower case, digits, dashes) or an exclusion id such as E141",
                    "formerly",
                )
            elif name == own:
                self.add(
                    (spec.name, index),
                    f"'{name}' is this record's own name",
                    "list only the names it had before it moved",
                    "formerly",
                )

    def _check_record_identifier(self, spec, value):
        if not isinstance(value, str):
            return self._type_error(spec, value, "a string")
        problem = ids.check_record_identifier(value)
        if problem:
            self.add((spec.name,), f"identifier '{value}' {problem}", "", "identifier-format")

    def _check_evidence(self, spec, value):
        """One line of evidence per tag of the field it documents, and none for other values."""
        documented = EVIDENCE_OF[spec.name]
        if not isinstance(value, dict):
            return self._type_error(
                spec, value, f"a mapping from each {documented} tag to one line of evidence"
            )
        tags = self.data.get(documented) if isinstance(self.data.get(documented), list) else []
        for tag, line in value.items():
            if tag not in tags:
                self.add(
                    (spec.name, tag),
                    f"evidence for '{tag}', which is not in {documented}",
                    f"add {tag} to {documented} or drop its evidence line",
                    "evidence",
                )
            elif not isinstance(line, str) or not line.strip() or "\n" in line.strip():
                self.add(
                    (spec.name, tag),
                    f"the evidence for '{tag}' must be one line of text",
                    "",
                    "evidence",
                )

    def check_evidence_complete(self, specs) -> None:
        for spec in specs:
            if spec.kind != "evidence":
                continue
            tags = self.data.get(EVIDENCE_OF[spec.name])
            given = self.data.get(spec.name) if isinstance(self.data.get(spec.name), dict) else {}
            for index, tag in enumerate(tags if isinstance(tags, list) else []):
                if isinstance(tag, str) and tag != PLACEHOLDER and tag not in given:
                    self.add(
                        (EVIDENCE_OF[spec.name], index),
                        f"'{tag}' has no evidence line in {spec.name}",
                        f"add `{tag}: <which part of the method learns or fixes it>` under {spec.name}",
                        "evidence-missing",
                    )

    def _check_corrections(self, spec, value):
        """Each correction names a tag field, its published value and the reason it changed."""
        if not isinstance(value, list):
            return self._type_error(spec, value, "a list of {field, published, reason}")
        tag_specs = {s.name: s for s in self.specs if s.axis}
        for index, item in enumerate(value):
            keys = (spec.name, index)
            if (
                not isinstance(item, dict)
                or set(item) - {"field", "published", "reason", "round"}
                or not {"field", "reason"} <= set(item)
            ):
                self.add(
                    keys,
                    "a correction needs field, published and reason (and may name its round)",
                    "",
                    "correction",
                )
                continue
            target = tag_specs.get(item["field"])
            if target is None:
                self.add(
                    keys,
                    f"'{item['field']}' is not a tag field",
                    f"use one of {', '.join(tag_specs)}",
                    "correction",
                )
                continue
            published = item.get("published")
            values = (
                published
                if isinstance(published, list)
                else ([] if published is None else [published])
            )
            for value_id in values:
                if str(value_id) not in self.taxonomy[target.axis].by_id:
                    self.add(
                        keys,
                        f"published value '{value_id}' is not in {target.axis}",
                        "",
                        "correction",
                    )
            if published == self.data.get(item["field"]):
                self.add(
                    keys,
                    f"{item['field']} still holds its published value",
                    "drop the correction or change the tag",
                    "correction",
                )
            if not isinstance(item["reason"], str) or not item["reason"].strip():
                self.add(keys, "a correction needs a one-line reason", "", "correction")

    def check_rules(self) -> None:
        for rule in self.taxonomy.rules:
            # A rule cannot be judged while a field it reads is still TODO (reported above).
            if any(self.data.get(c.field) == PLACEHOLDER for c in (*rule.when, *rule.then)):
                continue
            for condition in rule.violated_by(self.data):
                self.add(
                    (condition.field,),
                    f"{rule.message} (rule {rule.id}: needs {condition.describe()})",
                    rule.hint,
                    "rule",
                )


def _former_name_problems(project, places, formerly, lines, screened=True) -> list[Problem]:
    """A former name is no live record's name, belongs to one record only, and is named by a
    screening file (else nothing was read under it), when the project keeps its screening files."""
    from masrl.imports.add import named_elsewhere

    # Every screening file is scanned for the names: only when some record has a former name.
    named = named_elsewhere(project) if screened and formerly else None
    claimed: dict[str, str] = {}
    problems = []
    for record, names in sorted(formerly.items()):
        path, line = places[record][1], lines[record]
        for name in names:
            if name == record or not (
                isinstance(name, str) and (KEY_PATTERN.match(name) or RECORD_ID_PATTERN.match(name))
            ):
                continue  # the field's own check reports it
            if name in places and name != record:
                problems.append(
                    Problem(
                        path,
                        line,
                        f"formerly names '{name}', a record of today",
                        f"'{name}' is its own record; list only names no record has now",
                        code="formerly",
                    )
                )
            elif name in claimed:
                problems.append(
                    Problem(
                        path,
                        line,
                        f"'{name}' is also a former name of {claimed[name]}",
                        "a name was one record's; keep it on that record only",
                        code="formerly",
                    )
                )
            elif named is not None and name not in named:
                problems.append(
                    Problem(
                        path,
                        line,
                        f"formerly names '{name}', which no screening file names",
                        "list the key or id under which the record was read in "
                        "screening/decisions or screening/tags",
                        code="formerly",
                    )
                )
            claimed.setdefault(name, record)
    return problems


def _check_file(
    record: RawRecord,
    rel: str,
    taxonomy: Taxonomy,
    specs,
    problems: list[Problem],
    allow_placeholders: bool = False,
) -> bool:
    """Check one file; True when it is clean enough to build a record from."""
    if record.error is not None:
        problems.append(
            Problem(
                rel,
                record.error.line or 1,
                record.error.message,
                record.error.hint or "",
                "error",
                "yaml",
            )
        )
        return False
    if record.data is None:
        problems.append(
            Problem(
                rel,
                1,
                "the file is empty",
                "copy a neighbouring file as a template",
                "error",
                "empty",
            )
        )
        return False
    if not isinstance(record.data, dict):
        problems.append(
            Problem(rel, 1, "the file must hold one mapping of field: value", "", "error", "type")
        )
        return False
    first_new = len(problems)
    checker = _RecordChecker(record, rel, taxonomy, problems, allow_placeholders)
    checker.specs = specs
    checker.check_fields(specs)
    checker.check_evidence_complete(specs)
    for keys, message in forbidden_characters(record.data):
        checker.add(
            keys,
            message,
            "delete the character; it can disguise text in a terminal or on the site",
            "control-character",
        )
    if specs and specs[0].kind == "key":  # tag-combination rules are about entries
        checker.check_rules()
    # Only this file's problems are scanned, so checking many files stays linear.
    return not any(p.severity == "error" for p in problems[first_new:])


# The fields the checks across records read (_duplicate_problems, round_problems): only these of
# each record are kept after its own checks, so validate holds a few KB per record, not the
# whole parsed file (about 10 KB each; 50 MB at 5,000 entries).
CROSS_RECORD_FIELDS = (
    "key",
    "record_id",
    "identifier",
    "identifiers",
    "urls",
    "url",
    "title",
    "round",
)


def _identity_part(record: RawRecord) -> RawRecord:
    data = record.data
    part = yamlio.LineDict(
        (name, _without_lines(data[name])) for name in CROSS_RECORD_FIELDS if name in data
    )
    part.line = getattr(data, "line", 1)
    part.key_lines = {name: record.line_of(name) for name in part}
    return RawRecord(record.path, part, record.error)


def _without_lines(value):
    """``value`` as plain dicts and lists: the checks across records read only the lines of the
    fields themselves, and each line map costs as much as the values it maps."""
    if isinstance(value, dict):
        return {key: _without_lines(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_without_lines(item) for item in value]
    return value


def _duplicate_problems(
    items: list[tuple[str, RawRecord, str]],
    problems: list[Problem],
    different_papers: set[frozenset[str]] = frozenset(),
) -> None:
    """Same key, same identifier or near-identical title across all records.

    items: (relative path, record, its key or record id).
    """
    by_key: dict[str, list[tuple[str, RawRecord]]] = defaultdict(list)
    by_identity: dict[str, list[tuple[str, RawRecord]]] = defaultdict(list)
    titles: list[tuple[str, str, RawRecord]] = []
    for rel, record, key in items:
        data = record.data
        by_key[key].append((rel, record))
        record_identifier = (
            data.get("identifier") if isinstance(data.get("identifier"), str) else None
        )
        idents = data.get("identifiers") if isinstance(data.get("identifiers"), dict) else None
        urls = data.get("urls") if isinstance(data.get("urls"), list) else [data.get("url")]
        for identity in ids.normalized_keys(idents, record_identifier, urls):
            by_identity[identity].append((rel, record))
        if isinstance(data.get("title"), str):
            titles.append((ids.normalize_title(data["title"]), rel, record))
    for key, holders in by_key.items():
        if len(holders) < 2:
            continue
        # The file named after the key owns it; every other holder is reported.
        owner = next((h for h in holders if h[1].path.stem == key), holders[0])
        for rel, record in holders:
            if (rel, record) is not owner and rel != owner[0]:
                field_name = "key" if "key" in record.data else "record_id"
                problems.append(
                    Problem(
                        rel,
                        record.line_of(field_name),
                        f"key '{key}' is already used by {owner[0]}",
                        "give each record its own key",
                        "error",
                        "duplicate-key",
                    )
                )
    reported: set[tuple[str, str]] = set()
    for identity, holders in sorted(by_identity.items()):
        distinct = list(dict.fromkeys(rel for rel, _ in holders))
        for rel in distinct[1:]:
            pair = (distinct[0], rel)
            if pair in reported:
                continue
            reported.add(pair)
            record = next(r for h, r in holders if h == rel)
            problems.append(
                Problem(
                    rel,
                    record.line_of("identifiers")
                    if "identifiers" in record.data
                    else record.line_of("identifier"),
                    f"the same paper ({identity}) is already recorded in {distinct[0]}",
                    "keep one record: a paper is either retained or excluded, once",
                    "error",
                    "duplicate-paper",
                )
            )
    # The title search builds validate's largest index: what is done with goes first.
    del by_key, by_identity

    def recorded_distinct(first, second) -> bool:
        return frozenset((first[2].path.stem, second[2].path.stem)) in different_papers

    for first, second in similar_title_pairs(titles, recorded_distinct):
        if frozenset((first[2].path.stem, second[2].path.stem)) in different_papers:
            continue  # recorded in distinct_papers.yaml as different papers
        pair = (first[1], second[1])
        if pair in reported or (pair[1], pair[0]) in reported:
            continue
        reported.add(pair)
        problems.append(
            Problem(
                second[1],
                second[2].line_of("title"),
                f"title is near-identical to the one in {first[1]}",
                "if this is the same paper, keep one record; if not, record the pair under different_papers in "
                f"{OVERRIDES_FILE}: [{first[2].path.stem}, {second[2].path.stem}]",
                "error",
                "duplicate-title",
            )
        )


def validate_project(project: Project, allow_placeholders: bool = False) -> Report:
    """Run every check; the report carries the problems and the records that were clean.

    allow_placeholders turns unfilled TODO fields into warnings (for exports of work in progress).
    """
    with cycle_collection_paused():
        return _validate_project(project, allow_placeholders)


def _validate_project(project: Project, allow_placeholders: bool) -> Report:
    taxonomy = project.taxonomy()
    problems: list[Problem] = []
    entries, exclusions, identity_items = [], [], []
    places = {}  # record id -> (the decision its place implies, file, line)
    formerly, formerly_lines, unscreened = {}, {}, set()  # names a moved record was read under
    files_read = 0
    entry_paths = project.entry_paths()  # listed once: the citation and tag checks need the keys
    entry_keys = {path.stem for path in entry_paths}
    for paths, specs, build, sink, key_field in (
        (entry_paths, entry_specs(taxonomy), entry_from_data, entries, "key"),
        (
            project.exclusion_paths(),
            exclusion_specs(taxonomy),
            exclusion_from_data,
            exclusions,
            "record_id",
        ),
    ):
        for record in iter_records(paths):
            files_read += 1
            rel = project.relative(record.path)
            if _check_file(record, rel, taxonomy, specs, problems, allow_placeholders):
                try:
                    sink.append(build(record.data, record.path, taxonomy))
                except (
                    ValidationError
                ) as exc:  # the checker above should have said it; never a traceback
                    first = exc.errors()[0]
                    field_path = tuple(first.get("loc", ()))
                    problems.append(
                        Problem(
                            rel,
                            record.line_of(*field_path[:1]) if field_path else 1,
                            f"{'.'.join(map(str, field_path)) or 'record'}: {first.get('msg')}",
                            "",
                            "error",
                            "model",
                        )
                    )
            if isinstance(record.data, dict):
                key = record.data.get(key_field)
                identity_items.append(
                    (rel, _identity_part(record), str(key) if key is not None else record.path.stem)
                )
                places[identity_items[-1][2]] = (
                    "include" if key_field == "key" else "exclude",
                    rel,
                    record.line_of(key_field),
                )
                name = identity_items[-1][2]
                if isinstance(record.data.get("formerly"), list):
                    formerly[name] = tuple(record.data["formerly"])
                    formerly_lines[name] = record.line_of("formerly")
                if record.data.get("round") == SURVEY_ROUND:
                    unscreened.add(name)  # the snapshot's records came without screening files
    # The screening files first: the tags files are the largest data files, and their parse
    # does not then come on top of the duplicate search's index.
    problems += _screening_problems(
        project, taxonomy, entry_keys, places, formerly, formerly_lines, unscreened
    )
    different_papers, override_problems = load_overrides(project.root)
    problems += [
        Problem(OVERRIDES_FILE, line, message, "", "error", "overrides")
        for line, message in override_problems
    ]
    _duplicate_problems(identity_items, problems, different_papers)
    for found in (
        *stray_files(project),
        *unknown_rule_fields(taxonomy, {s.name for s in entry_specs(taxonomy)}, project),
    ):
        problems.append(Problem(*found))
    from masrl.screening.rounds import round_problems  # rounds are screening data

    problems += round_problems(project, [(rel, record) for rel, record, _ in identity_items])
    from masrl.model.citations import read_graph

    problems += read_graph(project, entry_keys)[1]
    if not files_read:
        problems.append(
            Problem(
                project.relative(project.root) or ".",
                1,
                "no corpus/ or exclusions/ YAML files were found here",
                "run masrl from a corpus checkout or pass --root",
                "error",
                "no-data",
            )
        )
    problems.sort(key=lambda p: (p.path, p.line, p.message))
    corpus = Corpus(project, taxonomy, entries, exclusions)
    return Report(problems, corpus)


def _screening_problems(
    project, taxonomy, entry_keys, places, formerly, formerly_lines, unscreened
):
    """The screening files' own problems, then whether each record sits where its final decision
    puts it and was read twice. Each file is read once for all of these checks."""
    from masrl.screening.file_checks import check_screening_files
    from masrl.screening.placement import misplaced_records, readings_from, thinly_read
    from masrl.screening.tag_readings import check_tag_files, tag_data_from

    screening = check_screening_files(project)
    former_names = {name for names in formerly.values() for name in names}
    tag_files = check_tag_files(
        project, taxonomy, entry_keys | former_names, screening.decided_by_round()
    )
    problems = [*screening.problems, *(p for found in tag_files.values() for p in found.problems)]
    # a corpus copied without its screening history (an import, a fork) has nothing to check
    screened = bool(screening.decisions or tag_files)
    problems += _former_name_problems(project, places, formerly, formerly_lines, screened)
    decisions = screening.all_decisions()
    if decisions is None:
        return problems  # a decisions file that cannot be read is reported above
    try:
        readings = readings_from(decisions, tag_data_from(project, tag_files))
    except MasrlError:
        return problems  # so is a tags file
    problems += misplaced_records(readings, places, formerly)
    if screened:
        problems += thinly_read(readings, places, formerly, unscreened)
    return problems


class CorpusInvalid(MasrlError):
    """The corpus has validation errors; carries the validation report."""

    def __init__(self, report):
        super().__init__(
            f"the corpus has {len(report.errors)} validation error(s)", hint="run `masrl validate`"
        )
        self.report = report


def load_corpus(project: Project | None = None, allow_placeholders: bool = False) -> Corpus:
    """Load and validate everything; raise CorpusInvalid when any error is found."""
    from masrl.check.validate import validate_project

    project = project or find_project()
    report = validate_project(project, allow_placeholders=allow_placeholders)
    if report.errors:
        raise CorpusInvalid(report)
    return report.corpus

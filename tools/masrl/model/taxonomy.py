"""The controlled vocabularies in ``taxonomy/`` and the tag-combination rules.

Each axis file lists values with an id, a label, a one-sentence definition and an order.
Everything that needs a vocabulary (validation, JSON Schemas, statistics, the site) reads it
from here, so a value added to a YAML file is known everywhere at once.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from importlib import resources
from pathlib import Path
from typing import Any, TypeVar

from masrl import files
from masrl.errors import InputError
from masrl.model import yamlio
from masrl.model.taxonomy_shape import axis_problem, rules_problem

T = TypeVar("T")

# Files in a taxonomy directory that are not axes.
NOT_AXES = frozenset({"rules.yaml"})
# Where an axis can show; each key's number is the axis's place in that list ("figure": a panel of
# the axis-counts overview figure).
SHOW_PLACES = ("stats", "tags", "facet", "column", "chip", "figure")
HEATMAP_KEYS = ("name", "title", "caption")
RECORD_KINDS = ("entry", "exclusion")


class TaxonomyError(InputError):
    """A vocabulary file that is missing or malformed."""


@dataclass(frozen=True)
class Value:
    id: str
    label: str
    definition: str
    order: int
    extra: dict = field(default_factory=dict)  # axis-specific keys, e.g. a reward type's family


@dataclass(frozen=True)
class FieldDecl:
    """The record field that carries an axis: its name, the records that have it, its shape."""

    name: str
    records: tuple[str, ...]
    many: bool
    nullable: bool
    required: bool
    position: int
    description: str


@dataclass(frozen=True)
class Heatmap:
    """A cross-tab drawn as a figure: figures/<name>.svg, with its title and caption."""

    name: str
    title: str
    caption: str
    row: str
    column: str


@dataclass(frozen=True)
class Axis:
    name: str
    label: str
    description: str
    values: tuple[Value, ...]
    order: int = 0
    record_field: FieldDecl | None = None  # None for an axis no record carries
    derived_name: str | None = None  # a field computed from another axis (reward families)
    derived_from: str | None = None  # the axis whose values roll up into this one
    derived_by: str | None = None  # the key of those values that names this axis's value
    show: dict = field(default_factory=dict)  # place -> position, plus crosstabs/unused_values/hue

    @property
    def field_name(self) -> str | None:
        return self.record_field.name if self.record_field else self.derived_name

    @cached_property
    def ids(self) -> tuple[str, ...]:
        return tuple(v.id for v in self.values)

    @cached_property
    def by_id(self) -> dict[str, Value]:
        return {v.id: v for v in self.values}

    def label_of(self, value_id: str) -> str:
        value = self.by_id.get(value_id)
        return value.label if value else value_id


@dataclass(frozen=True)
class Condition:
    """One field test inside a rule: a set of values, or "*" (set) or "-" (empty)."""

    field: str
    allowed: tuple[str, ...] | str

    def holds(self, record: dict) -> bool:
        value = record.get(self.field)
        return self.holds_for(
            value if isinstance(value, list) else ([] if value is None else [value])
        )

    def holds_for(self, values: Sequence[Any]) -> bool:
        """The test on the field's values (empty when the field is unset), for a caller that
        has them without a record to read them from."""
        if self.allowed == "*":
            return bool(values)
        if self.allowed == "-":
            return not values
        return any(str(v) in self.allowed for v in values)

    def describe(self) -> str:
        if self.allowed == "*":
            return f"{self.field} is set"
        if self.allowed == "-":
            return f"{self.field} is empty"
        return f"{self.field} in {list(self.allowed)}"


@dataclass(frozen=True)
class Rule:
    id: str
    when: tuple[Condition, ...]
    then: tuple[Condition, ...]
    message: str
    hint: str

    def violated_by(self, record: dict) -> list[Condition]:
        """The `then` conditions an entry breaks (none when `when` does not apply)."""
        if not all(c.holds(record) for c in self.when):
            return []
        return [c for c in self.then if not c.holds(record)]


def packaged_taxonomy_dir() -> Path:
    """The taxonomy that comes with masrl: the checkout's taxonomy/ when masrl runs from source,
    else the copy a wheel installs as masrl/taxonomy_data (pyproject maps one onto the other)."""
    source_checkout = Path(__file__).resolve().parents[3] / "taxonomy"
    if (source_checkout / "categories.yaml").is_file():
        return source_checkout
    return Path(str(resources.files("masrl") / "taxonomy_data"))


@dataclass(frozen=True)
class Taxonomy:
    """The axis registry: every axis, the record field that carries it and where it shows.

    Everything that lists fields or axes (the record model, validation, statistics, exports,
    the site) asks these methods instead of keeping a list of its own.
    """

    directory: Path
    axes: dict[str, Axis]
    rules: tuple[Rule, ...]
    # what derived() computed; copies of the same files (load_taxonomy) share it
    _derived: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    def derived(self, name: str, compute: Callable[[Taxonomy], T]) -> T:
        """``compute(self)``, computed once for these vocabularies: the record models and the
        countable fields are asked for by every record and every label, so a build stays
        linear in the corpus. The one cache of what the registry implies."""
        if name not in self._derived:
            self._derived[name] = compute(self)
        return self._derived[name]

    def __getitem__(self, name: str) -> Axis:
        return self.axes[name]

    def record_axes(self, record: str) -> tuple[Axis, ...]:
        """The axes a record kind ("entry", "exclusion") carries, in field order."""
        carried = [
            a for a in self.axes.values() if a.record_field and record in a.record_field.records
        ]
        return tuple(sorted(carried, key=lambda a: a.record_field.position))

    @cached_property
    def axis_of_field(self) -> dict[str, str]:
        return {a.field_name: a.name for a in self.axes.values() if a.field_name}

    def shown(self, place: str, record: str = "entry") -> tuple[str, ...]:
        """Field names shown in one place (stats, tags, facet, column, chip), in its order."""
        placed = [
            a
            for a in self.axes.values()
            if place in a.show
            and a.field_name
            and (record in a.record_field.records if a.record_field else record == "entry")
        ]
        return tuple(a.field_name for a in sorted(placed, key=lambda a: a.show[place]))

    def crosstabs(self) -> tuple[tuple[str, str], ...]:
        """(row field, column field) of every declared cross-tab, in their order."""
        pairs = [
            (c["order"], a.field_name, str(c["with"]))
            for a in self.axes.values()
            for c in a.show.get("crosstabs", [])
        ]
        return tuple((row, column) for _, row, column in sorted(pairs))

    def heatmaps(self) -> tuple[Heatmap, ...]:
        """The cross-tabs drawn as heatmap figures (a cross-tab with a ``figure:``), in their order."""
        found = [
            (c["order"], Heatmap(row=a.field_name, column=str(c["with"]), **c["figure"]))
            for a in self.axes.values()
            for c in a.show.get("crosstabs", [])
            if c.get("figure")
        ]
        return tuple(heatmap for _, heatmap in sorted(found, key=lambda pair: pair[0]))

    def unused_value_fields(self) -> tuple[str, ...]:
        return tuple(a.field_name for a in self.axes.values() if a.show.get("unused_values"))

    @cached_property
    def family_of_reward_type(self) -> dict[str, str]:
        """reward_families.yaml's derivation: each value of its `from` axis, by its `by` key."""
        families = self["reward_families"]
        return {v.id: v.extra[families.derived_by] for v in self.axes[families.derived_from].values}

    def reward_families_of(self, reward_types: tuple[str, ...]) -> tuple[str, ...]:
        """The families an entry's reward types roll up into (the derived reward_families
        field), in the families' order."""
        families = {self.family_of_reward_type[t] for t in reward_types}
        return tuple(f for f in self["reward_families"].ids if f in families)


def _parse_conditions(raw: Any, path: Path, line: int) -> tuple[Condition, ...]:
    if not isinstance(raw, dict) or not raw:
        raise TaxonomyError("expected a mapping of field to values", path=path, line=line)
    conditions = []
    for name, allowed in raw.items():
        if allowed in ("*", "-"):
            conditions.append(Condition(name, allowed))
        elif isinstance(allowed, list) and allowed:
            conditions.append(Condition(name, tuple(str(a) for a in allowed)))
        else:
            raise TaxonomyError(
                f'{name} must be a list of values, "*" or "-"', path=path, line=line
            )
    return tuple(conditions)


def _load_axis(path: Path) -> Axis:
    try:
        raw = yamlio.load_file(path)
    except FileNotFoundError as exc:
        raise TaxonomyError("missing vocabulary file", path=path) from exc
    except yamlio.YamlError as exc:
        raise TaxonomyError(exc.message, path=path, line=exc.line or 1, hint=exc.hint) from exc
    problem = axis_problem(path, raw)
    if problem:
        raise problem.error(TaxonomyError)
    values = []
    for index, item in enumerate(raw["values"]):
        line = raw["values"].line_of(index)
        missing = [k for k in ("id", "label", "definition", "order") if k not in item]
        if missing:
            raise TaxonomyError(f"value is missing {', '.join(missing)}", path=path, line=line)
        extra = {k: v for k, v in item.items() if k not in ("id", "label", "definition", "order")}
        values.append(
            Value(
                str(item["id"]),
                str(item["label"]),
                str(item["definition"]),
                int(item["order"]),
                extra,
            )
        )
    field_decl = _field_decl(raw.get("field"), path, raw.line_of("field") if "field" in raw else 1)
    derived = raw.get("derived") or {}
    show = dict(raw.get("show") or {})
    for place in SHOW_PLACES:
        if place in show and (isinstance(show[place], bool) or not isinstance(show[place], int)):
            raise TaxonomyError(
                f"show.{place} must be a whole number (its place in that list)",
                path=path,
                line=raw["show"].line_of(place),
            )
    _check_heatmaps(raw, path)
    orders = [v.order for v in values]
    if orders != list(range(1, len(values) + 1)):
        raise TaxonomyError(
            f"orders must run 1..{len(values)} in file order, found {orders}", path=path
        )
    ids = [v.id for v in values]
    if len(set(ids)) != len(ids):
        raise TaxonomyError(f"value ids must be unique, found {ids}", path=path)
    if raw.get("axis", path.stem) != path.stem:
        raise TaxonomyError(
            f"axis '{raw.get('axis')}' differs from the file name",
            path=path,
            line=1,
            hint=f"write axis: {path.stem}",
        )
    order = raw.get("order", 0)
    if isinstance(order, bool) or not isinstance(order, int):
        raise TaxonomyError(
            "order must be a whole number (the axis's place among axes)", path=path, line=1
        )
    return Axis(
        path.stem,
        str(raw.get("label", path.stem)),
        str(raw.get("description", "")),
        tuple(values),
        order,
        field_decl,
        derived.get("name"),
        derived.get("from"),
        derived.get("by"),
        show,
    )


def _value_line(path: Path, value_id: str) -> int:
    raw = yamlio.load_file(path)
    values = raw["values"]
    return next((values.line_of(i) for i, v in enumerate(values) if str(v["id"]) == value_id), 1)


def _check_heatmaps(raw: Any, path: Path) -> None:
    """A cross-tab's ``figure:`` names the heatmap file and gives its title and caption."""
    show = raw.get("show") or {}
    for item in show.get("crosstabs") or [] if isinstance(show, dict) else []:
        figure = item.get("figure") if isinstance(item, dict) else None
        if figure is None:
            continue
        line = figure.line_of("name") if hasattr(figure, "line_of") and "name" in figure else 1
        if (
            not isinstance(figure, dict)
            or set(figure) != set(HEATMAP_KEYS)
            or not all(isinstance(figure[k], str) and figure[k].strip() for k in HEATMAP_KEYS)
        ):
            raise TaxonomyError(
                "a cross-tab's figure must give exactly name, title and caption as text",
                path=path,
                line=line,
                hint="e.g. figure: {name: heatmap-topology-credit-unit, title: ..., caption: ...}",
            )
        if not re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", figure["name"]):
            raise TaxonomyError(
                f"figure name '{figure['name']}' must be lower-case words joined by '-'",
                path=path,
                line=line,
                hint="it becomes the file name figures/<name>.svg",
            )


def _field_decl(raw: Any, path: Path, line: int) -> FieldDecl | None:
    if raw is None:
        return None
    where = {"path": path, "line": line}
    if not isinstance(raw, dict) or not isinstance(raw.get("name"), str):
        raise TaxonomyError("field must be a mapping with at least a name", **where)
    records = raw.get("records", ["entry"])
    if not isinstance(records, list) or not records or any(r not in RECORD_KINDS for r in records):
        raise TaxonomyError(
            f"field.records must list record kinds among {list(RECORD_KINDS)}", **where
        )
    flags = {}
    for name, default in (("many", False), ("nullable", False), ("required", True)):
        flags[name] = raw.get(name, default)
        if not isinstance(flags[name], bool):
            raise TaxonomyError(f"field.{name} must be true or false", **where)
    position = raw.get("position", 99)
    if isinstance(position, bool) or not isinstance(position, int):
        raise TaxonomyError("field.position must be a whole number", **where)
    return FieldDecl(
        raw["name"],
        tuple(records),
        flags["many"],
        flags["nullable"],
        flags["required"],
        position,
        str(raw.get("description", "")),
    )


def _load_rules(path: Path) -> tuple[Rule, ...]:
    if not path.exists():
        return ()
    try:
        raw = yamlio.load_file(path)
    except yamlio.YamlError as exc:
        raise TaxonomyError(exc.message, path=path, line=exc.line or 1, hint=exc.hint) from exc
    problem = rules_problem(path, raw)
    if problem:
        raise problem.error(TaxonomyError)
    raw = raw or {}
    rules = []
    for index, item in enumerate(raw.get("rules", [])):
        line = raw["rules"].line_of(index)
        rules.append(
            Rule(
                id=str(item["id"]),
                when=_parse_conditions(item.get("when"), path, line),
                then=_parse_conditions(item.get("then"), path, line),
                message=str(item.get("message", "")),
                hint=str(item.get("hint", "")),
            )
        )
    return tuple(rules)


# The files' names and bytes -> the taxonomy read from them: a site build or a check asks for
# the same vocabularies several times (live corpus, snapshot, claims), and a copy of them in
# another folder (a snapshot's, a temporary checkout's) is parsed once per process. Keyed on
# content, so an edited file is always read again.
_READ: dict[tuple, Taxonomy] = {}


def load_taxonomy(directory: Path | None = None) -> Taxonomy:
    """Load every axis and the rules from ``directory`` (default: the packaged copy)."""
    directory = Path(directory) if directory is not None else packaged_taxonomy_dir()
    if not directory.is_dir():
        raise TaxonomyError("missing taxonomy directory", path=directory)
    contents = _contents(directory)
    if contents is None:
        return _read_taxonomy(directory)
    known = _READ.get(contents)
    if known is None:
        if len(_READ) > 16:
            _READ.clear()
        known = _READ[contents] = _read_taxonomy(directory)
    # a copy in another folder shares what was derived from the same files (see derived())
    return known if known.directory == directory else replace(known, directory=directory)


def _contents(directory: Path) -> tuple | None:
    try:
        return tuple(
            (path.name, files.read_regular_bytes(path, directory))
            for path in sorted(directory.glob("*.yaml"))
        )
    except (OSError, InputError):
        return None  # read as usual, which reports the problem with its file


def _read_taxonomy(directory: Path) -> Taxonomy:
    loaded = [
        _load_axis(path) for path in sorted(directory.glob("*.yaml")) if path.name not in NOT_AXES
    ]
    axes = {axis.name: axis for axis in sorted(loaded, key=lambda a: (a.order, a.name))}
    for required in ("categories", "reward_families", "reward_types"):
        if required not in axes:
            raise TaxonomyError("missing vocabulary file", path=directory / (required + ".yaml"))
    fields = [(a.field_name, a.name) for a in axes.values() if a.field_name]
    seen: dict[str, str] = {}
    for name, axis_name in fields:
        if name in seen:
            raise TaxonomyError(
                f"field '{name}' is already carried by axis {seen[name]}",
                path=directory / (axis_name + ".yaml"),
            )
        seen[name] = axis_name
    for axis in axes.values():  # a derivation names an axis, and each of its values rolls up
        if not axis.derived_name:
            continue
        where = directory / f"{axis.name}.yaml"
        source = axes.get(axis.derived_from)
        if source is None or source.record_field is None:
            raise TaxonomyError(
                f"derived.from names '{axis.derived_from}', which is not an axis records carry",
                path=where,
                hint=f"name one of {sorted(a.name for a in axes.values() if a.record_field)}",
            )
        for value in source.values:
            if value.extra.get(axis.derived_by) not in axis.ids:
                raise TaxonomyError(
                    f"value {value.id} of {source.name} needs '{axis.derived_by}:' among "
                    f"{sorted(axis.ids)} (derived.by of {axis.name})",
                    path=directory / f"{source.name}.yaml",
                    line=_value_line(directory / f"{source.name}.yaml", value.id),
                )
    if "reward_families" in axes and axes["reward_families"].derived_name is None:
        raise TaxonomyError(
            "reward_families must be derived (derived: {name, from, by})",
            path=directory / "reward_families.yaml",
        )
    return Taxonomy(directory, axes, _load_rules(directory / "rules.yaml"))

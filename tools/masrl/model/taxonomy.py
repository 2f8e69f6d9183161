"""The controlled vocabularies in ``taxonomy/`` and the tag-combination rules.

Each axis file lists values with an id, a label, a one-sentence definition and an order.
Everything that needs a vocabulary (validation, JSON Schemas, statistics, the site) reads it
from here, so a value added to a YAML file is known everywhere at once.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from importlib import resources
from pathlib import Path
from typing import Any

from masrl.errors import InputError
from masrl.model import yamlio
from masrl.model.taxonomy_shape import axis_problem, rules_problem

# The axes every taxonomy directory must define, in the order the site and STATS.md show them.
AXIS_NAMES = (
    "categories",
    "is_rl",
    "reward_families",
    "reward_types",
    "credit_units",
    "credit_mechanisms",
    "sub_decisions",
    "topologies",
    "scenarios",
    "survey_roles",
    "verified",
    "evidence_levels",
    "evaluation_measures",
    "screening_stages",
    "exclusion_reasons",
    "source_kinds",
    "query_families",
)


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
class Axis:
    name: str
    label: str
    description: str
    values: tuple[Value, ...]

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
        values = [v for v in value] if isinstance(value, list) else ([] if value is None else [value])
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
    directory: Path
    axes: dict[str, Axis]
    rules: tuple[Rule, ...]

    def __getitem__(self, name: str) -> Axis:
        return self.axes[name]

    @cached_property
    def family_of_reward_type(self) -> dict[str, str]:
        return {v.id: v.extra["family"] for v in self.axes["reward_types"].values}


def _parse_conditions(raw: Any, where: str) -> tuple[Condition, ...]:
    if not isinstance(raw, dict) or not raw:
        raise TaxonomyError(f"{where}: expected a mapping of field to values")
    conditions = []
    for name, allowed in raw.items():
        if allowed in ("*", "-"):
            conditions.append(Condition(name, allowed))
        elif isinstance(allowed, list) and allowed:
            conditions.append(Condition(name, tuple(str(a) for a in allowed)))
        else:
            raise TaxonomyError(f'{where}: {name} must be a list of values, "*" or "-"')
    return tuple(conditions)


def _load_axis(path: Path) -> Axis:
    try:
        raw = yamlio.load_file(path)
    except FileNotFoundError as exc:
        raise TaxonomyError(f"{path}: missing vocabulary file") from exc
    except yamlio.YamlError as exc:
        raise TaxonomyError(f"{path}:{exc.line or 1}: {exc.message}") from exc
    problem = axis_problem(path, raw)
    if problem:
        raise TaxonomyError(problem)
    values = []
    for index, item in enumerate(raw["values"]):
        line = raw["values"].line_of(index)
        missing = [k for k in ("id", "label", "definition", "order") if k not in item]
        if missing:
            raise TaxonomyError(f"{path}:{line}: value is missing {', '.join(missing)}")
        extra = {k: v for k, v in item.items() if k not in ("id", "label", "definition", "order")}
        values.append(Value(str(item["id"]), str(item["label"]), str(item["definition"]), int(item["order"]), extra))
    orders = [v.order for v in values]
    if orders != list(range(1, len(values) + 1)):
        raise TaxonomyError(f"{path}: orders must run 1..{len(values)} in file order, found {orders}")
    ids = [v.id for v in values]
    if len(set(ids)) != len(ids):
        raise TaxonomyError(f"{path}: value ids must be unique, found {ids}")
    return Axis(path.stem, str(raw.get("label", path.stem)), str(raw.get("description", "")), tuple(values))


def _load_rules(path: Path) -> tuple[Rule, ...]:
    if not path.exists():
        return ()
    try:
        raw = yamlio.load_file(path)
    except yamlio.YamlError as exc:
        raise TaxonomyError(f"{path}:{exc.line or 1}: {exc.message}") from exc
    problem = rules_problem(path, raw)
    if problem:
        raise TaxonomyError(problem)
    raw = raw or {}
    rules = []
    for index, item in enumerate(raw.get("rules", [])):
        where = f"{path}:{raw['rules'].line_of(index)}"
        rules.append(
            Rule(
                id=str(item["id"]),
                when=_parse_conditions(item.get("when"), where),
                then=_parse_conditions(item.get("then"), where),
                message=str(item.get("message", "")),
                hint=str(item.get("hint", "")),
            )
        )
    return tuple(rules)


def load_taxonomy(directory: Path | None = None) -> Taxonomy:
    """Load every axis and the rules from ``directory`` (default: the packaged copy)."""
    directory = Path(directory) if directory is not None else packaged_taxonomy_dir()
    axes = {name: _load_axis(directory / f"{name}.yaml") for name in AXIS_NAMES}
    families = set(axes["reward_families"].ids)
    for value in axes["reward_types"].values:
        if value.extra.get("family") not in families:
            raise TaxonomyError(
                f"{directory / 'reward_types.yaml'}: reward type {value.id} needs a family among {sorted(families)}"
            )
    return Taxonomy(directory, axes, _load_rules(directory / "rules.yaml"))

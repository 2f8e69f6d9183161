"""Shape checks for taxonomy files, before any value is read from them.

A vocabulary or rules file of the wrong type (a list where a mapping belongs, a number where a
list of values belongs, an order that is not a whole number) must end in one message naming the
file and line, not in an AttributeError deep inside the loader.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from masrl.problems import Problem
from masrl.text import did_you_mean

VALUE_KEYS = ("id", "label", "definition", "order")
# Every key an axis file may hold, each read by the code (taxonomy.py, the renderers): a key
# outside these lists is refused, so an edit never silently does nothing.
AXIS_KEYS = ("axis", "label", "description", "order", "values", "field", "derived", "show")
FIELD_KEYS = ("name", "records", "many", "nullable", "required", "position", "description")
DERIVED_KEYS = ("name", "from", "by")  # a field computed from another axis's values
SHOW_KEYS = (
    *("stats", "tags", "facet", "column", "chip", "figure"),  # SHOW_PLACES
    *("crosstabs", "unused_values", "hue", "column_heading", "form", "muted"),
)
CROSSTAB_KEYS = ("with", "order", "figure")


def unknown_key_problem(path: Path, raw: Any) -> Problem | None:
    """The first key of an axis file (top level, field, derived, show, cross-tabs) that no code reads."""
    blocks = [("", raw, AXIS_KEYS)]
    for name, keys in (("field", FIELD_KEYS), ("derived", DERIVED_KEYS), ("show", SHOW_KEYS)):
        if isinstance(raw.get(name), dict):
            blocks.append((f"{name}.", raw[name], keys))
    show = raw.get("show")
    crosstabs = show.get("crosstabs") if isinstance(show, dict) else None
    for item in crosstabs if isinstance(crosstabs, list) else []:
        if isinstance(item, dict):
            blocks.append(("show.crosstabs.", item, CROSSTAB_KEYS))
    for prefix, block, allowed in blocks:
        for key in block:
            if key not in allowed:
                return Problem(
                    str(path),
                    _line(block, key),
                    f"unknown key '{prefix}{key}'; nothing reads it.{did_you_mean(str(key), allowed)}",
                    f"the keys allowed here: {', '.join(allowed)}",
                )
    derived = raw.get("derived")
    if derived is not None and (
        not isinstance(derived, dict)
        or sorted(derived) != sorted(DERIVED_KEYS)
        or not all(isinstance(derived[k], str) and derived[k] for k in DERIVED_KEYS)
    ):
        return Problem(
            str(path),
            _line(raw, "derived"),
            "'derived' must give name, from and by as text",
            "e.g. derived: {name: reward_families, from: reward_types, by: family}: the field "
            "name, the axis whose values roll up, and the key of those values naming this axis's value",
        )
    return None


def _line(node: Any, key: str | int | None = None) -> int:
    if key is not None and hasattr(node, "line_of"):
        return node.line_of(key)
    return getattr(node, "line", 1)


def axis_problem(path: Path, raw: Any) -> Problem | None:
    """None when ``raw`` has the shape of a vocabulary file; else what is wrong, and where."""
    if not isinstance(raw, dict) or not isinstance(raw.get("values"), list):
        return Problem(
            str(path),
            1,
            "expected a mapping with keys axis, label, description and a list of values",
        )
    for key in ("label", "description"):
        if key in raw and not isinstance(raw[key], str):
            return Problem(str(path), _line(raw, key), f"'{key}' must be text")
    unknown = unknown_key_problem(path, raw)
    if unknown:
        return unknown
    for index, item in enumerate(raw["values"]):
        line = _line(raw["values"], index)
        if not isinstance(item, dict):
            return Problem(
                str(path), line, f"each value must be a mapping with {', '.join(VALUE_KEYS)}"
            )
        missing = [k for k in VALUE_KEYS if k not in item]
        if missing:
            return Problem(str(path), line, f"value is missing {', '.join(missing)}")
        for key in ("id", "label", "definition"):
            if (
                not isinstance(item[key], str | int)
                or isinstance(item[key], bool)
                or not str(item[key]).strip()
            ):
                return Problem(str(path), _line(item, key), f"'{key}' must be non-empty text")
        if not isinstance(item["order"], int) or isinstance(item["order"], bool):
            return Problem(str(path), _line(item, "order"), "'order' must be a whole number")
    return None


def rules_problem(path: Path, raw: Any) -> Problem | None:
    """None when ``raw`` has the shape of rules.yaml; else what is wrong, and where."""
    if raw is None:
        return None
    if not isinstance(raw, dict):
        return Problem(str(path), 1, "expected a mapping with a list under 'rules'")
    rules = raw.get("rules", [])
    if not isinstance(rules, list):
        return Problem(str(path), _line(raw, "rules"), "'rules' must be a list")
    for index, item in enumerate(rules):
        line = _line(rules, index)
        if not isinstance(item, dict):
            return Problem(
                str(path), line, "each rule must be a mapping with id, when, then, message, hint"
            )
        if not isinstance(item.get("id"), str | int) or isinstance(item.get("id"), bool):
            return Problem(str(path), line, "each rule needs an id")
        for key in ("message", "hint"):
            if key in item and not isinstance(item[key], str):
                return Problem(str(path), _line(item, key), f"'{key}' must be text")
        for key in ("when", "then"):
            conditions = item.get(key)
            if isinstance(conditions, dict):
                for name, allowed in conditions.items():
                    if isinstance(allowed, list) and not all(
                        isinstance(a, str | int) and not isinstance(a, bool) for a in allowed
                    ):
                        return Problem(
                            str(path),
                            _line(conditions, name),
                            f"the values of '{name}' must be plain values",
                        )
    return None

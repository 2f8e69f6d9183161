"""The orchestration-trace JSON Schema: where it lives, what the fast validator reads from it,
and its Markdown reference page.

``taxonomy/trace.schema.json`` is the reference definition. The fast validator in ``validate``
does not run a generic JSON Schema engine (far too slow on a million events); instead it reads
its vocabularies and field rules from this schema at import time, and the tests check that both
accept and reject the same traces.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

SCHEMA_FILE_NAME = "trace.schema.json"
SCHEMA_VERSION = "1.0"  # what masrl writes into schema_version


def trace_schema_path() -> Path:
    """``<checkout>/taxonomy/trace.schema.json`` when running from a checkout, else the packaged copy."""
    checkout_copy = Path(__file__).resolve().parents[3] / "taxonomy" / SCHEMA_FILE_NAME
    if checkout_copy.is_file():
        return checkout_copy
    return Path(str(resources.files("masrl") / "taxonomy_data" / SCHEMA_FILE_NAME))


@lru_cache(maxsize=1)
def load_trace_schema() -> dict:
    """The schema as a dict (cached; treat it as read-only)."""
    with open(trace_schema_path(), encoding="utf-8") as handle:
        return json.load(handle)


# ---------------------------------------------------------------------------------------------
# Field rules, read from the schema so the fast validator cannot drift from it.


@dataclass(frozen=True)
class FieldRule:
    """The constraints the schema puts on one leaf field (a subset of JSON Schema we use)."""

    name: str
    json_type: str  # string | number | boolean | object | array
    min_length: int = 0  # strings
    minimum: float | None = None  # numbers
    enum: frozenset[str] | None = None  # strings
    pattern: re.Pattern | None = None  # strings; searched, as JSON Schema does
    description: str = ""

    def problem_with(self, value: Any) -> tuple[str, str] | None:
        """(code, message) saying how ``value`` breaks this rule, or None.

        Codes: type, empty, enum, pattern, minimum. Non-finite numbers are checked elsewhere:
        JSON Schema cannot see them (NaN passes ``minimum``).
        """
        found = json_type_name(value)
        if found != self.json_type:
            return "type", f"must be {_article(self.json_type)}, found {found}"
        if self.json_type == "string":
            if len(value) < self.min_length:
                return "empty", "must not be empty"
            if self.enum is not None and value not in self.enum:
                return "enum", f"{value!r} is not one of {', '.join(sorted(self.enum))}"
            if self.pattern is not None and not self.pattern.search(value):
                return "pattern", f"{value!r} does not match {self.pattern.pattern}"
        if self.json_type == "number" and self.minimum is not None and value < self.minimum:
            return "minimum", f"must be at least {_format_number(self.minimum)}, found {value!r}"
        return None


def json_type_name(value: Any) -> str:
    """The JSON type of a parsed value: object, array, string, number, boolean or null."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, dict):
        return "object"
    if isinstance(value, (list, tuple)):
        return "array"
    return type(value).__name__


def _article(json_type: str) -> str:
    return f"an {json_type}" if json_type[0] in "aeiou" else f"a {json_type}"


def _format_number(number: float) -> str:
    return str(int(number)) if float(number).is_integer() else str(number)


def _rule_from(name: str, subschema: dict) -> FieldRule:
    enum = subschema.get("enum")
    pattern = subschema.get("pattern")
    return FieldRule(
        name=name,
        json_type=subschema["type"],
        min_length=int(subschema.get("minLength", 0)),
        minimum=subschema.get("minimum"),
        enum=frozenset(enum) if enum is not None else None,
        pattern=re.compile(pattern) if pattern else None,
        description=subschema.get("description", ""),
    )


@dataclass(frozen=True)
class TraceVocabulary:
    """Everything the fast validator needs from the schema, precompiled."""

    top_level_rules: dict[str, FieldRule]
    top_level_required: tuple[str, ...]
    event_rules: dict[str, FieldRule]
    event_required: tuple[str, ...]
    edge_rules: dict[str, FieldRule]
    edge_required: tuple[str, ...]
    cost_rules: dict[str, FieldRule]
    cost_other_rule: FieldRule
    cost_required: tuple[str, ...]
    reward_rule: FieldRule
    metric_rule: FieldRule
    reward_channel_pattern: re.Pattern
    event_types: frozenset[str]
    edge_types: frozenset[str]
    topologies: tuple[str, ...]


@lru_cache(maxsize=1)
def trace_vocabulary() -> TraceVocabulary:
    schema = load_trace_schema()
    top = schema["properties"]
    event = schema["$defs"]["event"]
    edge = schema["$defs"]["edge"]
    costs = top["costs"]
    rewards = top["rewards"]
    ((channel_pattern, channel_schema),) = rewards["patternProperties"].items()
    return TraceVocabulary(
        top_level_rules={name: _rule_from(name, sub) for name, sub in top.items()},
        top_level_required=tuple(schema["required"]),
        event_rules={name: _rule_from(name, sub) for name, sub in event["properties"].items()},
        event_required=tuple(event["required"]),
        edge_rules={name: _rule_from(name, sub) for name, sub in edge["properties"].items()},
        edge_required=tuple(edge["required"]),
        cost_rules={name: _rule_from(name, sub) for name, sub in costs["properties"].items()},
        cost_other_rule=_rule_from("cost", costs["additionalProperties"]),
        cost_required=tuple(costs["required"]),
        reward_rule=_rule_from("reward", channel_schema),
        metric_rule=_rule_from("metric", top["metrics"]["additionalProperties"]),
        reward_channel_pattern=re.compile(channel_pattern),
        event_types=frozenset(event["properties"]["type"]["enum"]),
        edge_types=frozenset(edge["properties"]["type"]["enum"]),
        topologies=tuple(top["topology"]["enum"]),
    )


def reward_channel_bases() -> tuple[str, ...]:
    """The names a reward channel may start with (credit units and reward families), in schema order."""
    pattern = trace_vocabulary().reward_channel_pattern.pattern
    alternatives = re.match(r"\^\(([^()]*)\)", pattern)
    return tuple(alternatives.group(1).split("|")) if alternatives else ()


# ---------------------------------------------------------------------------------------------
# The Markdown reference page.


def _constraints(subschema: dict) -> str:
    parts = []
    if "enum" in subschema:
        parts.append("one of " + ", ".join(f"`{v}`" for v in subschema["enum"]))
    if "minLength" in subschema:
        parts.append("not empty")
    if "minimum" in subschema:
        parts.append(f"≥ {_format_number(subschema['minimum'])}")
    if "minItems" in subschema:
        parts.append(f"at least {subschema['minItems']} item(s)")
    if "pattern" in subschema:
        parts.append(f"matches `{subschema['pattern']}`")
    return "; ".join(parts)


def _type_of(subschema: dict) -> str:
    if "$ref" in subschema:
        return subschema["$ref"].rsplit("/", 1)[-1]
    if subschema.get("type") == "array" and "items" in subschema:
        return f"array of {_type_of(subschema['items'])}"
    return subschema.get("type", "any")


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _field_table(properties: dict, required: list[str]) -> list[str]:
    lines = ["| Field | Type | Required | Constraints | Meaning |", "|---|---|---|---|---|"]
    ordered = [name for name in required if name in properties]
    ordered += [name for name in properties if name not in required]
    for name in ordered:
        sub = properties[name]
        lines.append(
            f"| `{name}` | {_type_of(sub)} | {'yes' if name in required else 'no'} | "
            f"{_cell(_constraints(sub))} | {_cell(sub.get('description', ''))} |"
        )
    return lines


def schema_reference_markdown() -> str:
    """The schema rendered as a Markdown reference page, field by field (deterministic)."""
    schema = load_trace_schema()
    top = schema["properties"]
    lines = [
        f"# {schema['title']} schema reference",
        "",
        schema["description"],
        "",
        (
            f"Schema: `taxonomy/{SCHEMA_FILE_NAME}` (JSON Schema 2020-12, `$id` `{schema['$id']}`); "
            f"current `schema_version`: `{SCHEMA_VERSION}`."
        ),
        "",
        "## Trace (top level)",
        "",
        "No other top-level fields are allowed.",
        "",
        *_field_table(top, schema["required"]),
        "",
        "## Event",
        "",
        schema["$defs"]["event"]["description"],
        "",
        *_field_table(schema["$defs"]["event"]["properties"], schema["$defs"]["event"]["required"]),
        "",
        "## Edge",
        "",
        schema["$defs"]["edge"]["description"] + " No other fields are allowed.",
        "",
        *_field_table(schema["$defs"]["edge"]["properties"], schema["$defs"]["edge"]["required"]),
        "",
        "## Costs",
        "",
        top["costs"]["description"],
        "",
        *_field_table(top["costs"]["properties"], top["costs"]["required"]),
        "",
        "## Rewards",
        "",
        top["rewards"]["description"],
        "",
        "Recognised channel names: "
        + ", ".join(f"`{name}`" for name in reward_channel_bases())
        + ", each optionally followed by `:<name>`.",
        "",
        "## Rules beyond the schema",
        "",
        "`masrl trace validate` also checks what JSON Schema cannot express:",
        "",
        *[f"- {rule}" for rule in SEMANTIC_RULES],
        "",
    ]
    return "\n".join(lines)


# Kept beside the schema so the reference page and the validator's docstring tell the same story.
SEMANTIC_RULES = (
    "event ids are unique;",
    "every edge's `src` and `dst` name an existing event, and no edge joins an event to itself;",
    (
        "`causal`, `spawn`, `message` and `return` edges never point back in time "
        "(`t` of the source ≤ `t` of the destination; other edge types only get a warning);"
    ),
    "the dependency graph (every edge type but `temporal`) has no cycle;",
    (
        "an agent that some `spawn` event creates (its `to`) acts only from its first spawn on; "
        "agents never spawned are roots;"
    ),
    (
        "numbers in `t`, `duration_s`, `costs`, `rewards` and `metrics` are finite (no NaN or "
        "Infinity) and fit a 64-bit float; `t` and `duration_s` are at most 1e12 seconds "
        "(about 31,700 years);"
    ),
    "no key repeats within one JSON object (readers disagree on which value would win);",
    (
        "warnings: reward channels outside the vocabulary, `costs.messages` or `costs.tool_calls` "
        "differing from the number of `message` or `tool_call` events, a `spawn` without `to`, "
        "a stop decision without a `reason`."
    ),
)

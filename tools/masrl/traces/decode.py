"""Reading trace bytes into typed events: msgspec structs generated from the schema.

A generic JSON Schema engine takes minutes on a million events. msgspec checks the whole
structure in C while parsing and builds objects about half the size of dicts; a document it
rejects is handed to the item-by-item checks (``check_schema``), which name every problem.
"""

from __future__ import annotations

import keyword
from functools import lru_cache
from typing import Annotated, Any, Literal

import msgspec

from .io import gc_paused
from .schema import FieldRule, trace_vocabulary

VOCABULARY = trace_vocabulary()


def _msgspec_type(rule: FieldRule):
    if rule.json_type == "string":
        if rule.enum is not None:
            return Literal[tuple(sorted(rule.enum))]
        constraints = {}
        if rule.min_length:
            constraints["min_length"] = rule.min_length
        if rule.pattern is not None:
            constraints["pattern"] = rule.pattern.pattern
        return Annotated[str, msgspec.Meta(**constraints)] if constraints else str
    if rule.json_type == "number":
        return (
            Annotated[float, msgspec.Meta(ge=rule.minimum)] if rule.minimum is not None else float
        )
    return {"boolean": bool, "object": dict[str, Any], "array": list}[rule.json_type]


def python_name(json_name: str) -> str:
    return (
        json_name + "_"
        if keyword.iskeyword(json_name) or not json_name.isidentifier()
        else json_name
    )


def _struct_fields(
    rules: dict[str, FieldRule], required: tuple[str, ...], overrides: dict | None = None
) -> list:
    overrides = overrides or {}
    fields = []
    for name in required:
        fields.append(
            (
                python_name(name),
                overrides.get(name) or _msgspec_type(rules[name]),
                msgspec.field(name=name),
            )
        )
    for name, rule in rules.items():
        if name not in required:
            kind = overrides.get(name) or _msgspec_type(rule)
            fields.append(
                (
                    python_name(name),
                    kind | msgspec.UnsetType,
                    msgspec.field(default=msgspec.UNSET, name=name),
                )
            )
    return fields


@lru_cache(maxsize=1)
def typed_trace_decoder() -> msgspec.json.Decoder:
    """A decoder that accepts exactly the traces the schema accepts (NaN cannot occur: msgspec,
    like JSON, has no such literal). Events keep only their schema fields; unknown ones are
    allowed and skipped, as the schema allows them."""
    vocabulary = VOCABULARY
    event = msgspec.defstruct(
        "TraceEvent", _struct_fields(vocabulary.event_rules, vocabulary.event_required), gc=False
    )
    edge = msgspec.defstruct(
        "TraceEdge",
        _struct_fields(vocabulary.edge_rules, vocabulary.edge_required),
        gc=False,
        forbid_unknown_fields=True,
    )
    cost_type = _msgspec_type(vocabulary.cost_other_rule)
    assert all(_msgspec_type(rule) == cost_type for rule in vocabulary.cost_rules.values()), (
        "costs need one rule"
    )
    containers = {
        "events": Annotated[list[event], msgspec.Meta(min_length=1)],
        "edges": list[edge],
        "rewards": dict[str, _msgspec_type(vocabulary.reward_rule)],
        "costs": dict[str, cost_type],
        "metrics": dict[str, _msgspec_type(vocabulary.metric_rule)],
    }
    trace = msgspec.defstruct(
        "TypedTrace",
        _struct_fields(vocabulary.top_level_rules, vocabulary.top_level_required, containers),
        gc=False,
        forbid_unknown_fields=True,
    )
    return msgspec.json.Decoder(trace)


def decode_typed(raw: bytes):
    """The trace as typed structs, or None when it breaks any schema rule (or is not JSON)."""
    try:
        with gc_paused():
            return typed_trace_decoder().decode(raw)
    except (msgspec.ValidationError, msgspec.DecodeError, UnicodeDecodeError):
        return None

"""JSON Schemas for entry and exclusion files, derived from the field specifications and the
vocabularies (never kept by hand), so editors that read the `$schema` line check tags as you type."""

from __future__ import annotations

import json

from masrl.model import identifiers as ids
from masrl.model.identifiers import KEY_PATTERN, RECORD_ID_PATTERN
from masrl.model.records import (
    DATE_PATTERN,
    EARLIEST_YEAR,
    LINK_KEYS,
    PLACEHOLDER,
    VERSION_PATTERN,
    FieldSpec,
    entry_specs,
    exclusion_specs,
)
from masrl.model.taxonomy import Condition, Taxonomy
from masrl.model.venues import venue_axis, venue_pattern

SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"
URL_PATTERN = r"^https?://[^\s/?#]+\.[^\s]+$"


def _tag_schema(spec: FieldSpec, taxonomy: Taxonomy) -> dict:
    axis = taxonomy[spec.axis]
    enum = list(axis.ids)
    descriptions = [f"**{v.label}**: {v.definition}" for v in axis.values]
    if spec.nullable:
        enum.append(None)
        descriptions.append("Not applicable.")
    return {"enum": enum, "markdownEnumDescriptions": descriptions}


def _field_schema(spec: FieldSpec, taxonomy: Taxonomy) -> dict:
    kind = spec.kind
    if kind == "tag":
        schema = _tag_schema(spec, taxonomy)
    elif kind == "tags":
        item = _tag_schema(FieldSpec(spec.name, "tag", "", axis=spec.axis), taxonomy)
        schema = {"type": "array", "items": item, "uniqueItems": True}
    elif kind == "key":
        schema = {"type": "string", "pattern": KEY_PATTERN.pattern}
    elif kind == "record_id":
        schema = {"type": "string", "pattern": RECORD_ID_PATTERN.pattern}
    elif kind == "text":
        schema = {
            "type": "string",
            "minLength": 1,
            "pattern": r"^[^\n]*\S[^\n]*$",
            "not": {"const": PLACEHOLDER},
        }
    elif kind == "str":
        schema = {"type": "string"}
    elif kind == "int":
        schema = {"type": "integer", "minimum": EARLIEST_YEAR}
    elif kind == "bool":
        schema = {"type": "boolean"}
    elif kind == "date":
        schema = {"type": "string", "pattern": DATE_PATTERN.pattern}
    elif kind == "version":
        schema = {"type": "string", "pattern": VERSION_PATTERN.pattern}
    elif kind == "authors":
        schema = {"type": "array", "minItems": 1, "items": {"type": "string", "minLength": 1}}
    elif kind == "urls":
        schema = {
            "type": "array",
            "minItems": 1,
            "items": {"type": "string", "pattern": URL_PATTERN},
        }
    elif kind == "formerly":
        schema = {
            "type": "array",
            "minItems": 1,
            "uniqueItems": True,
            "items": {
                "type": "string",
                "pattern": f"{KEY_PATTERN.pattern}|{RECORD_ID_PATTERN.pattern}",
            },
        }
    elif kind == "url":
        schema = {"type": "string", "pattern": URL_PATTERN}
    elif kind == "links":
        url = {"type": "string", "pattern": URL_PATTERN}
        item = {
            "type": "object",
            "additionalProperties": False,
            "required": list(LINK_KEYS),
            "properties": {
                "url": {**url, "description": "The link."},
                "source": {**url, "description": "The stored page that names the link."},
            },
        }
        schema = {"type": "array", "items": item}
    elif kind == "evidence":
        schema = {"type": "object", "additionalProperties": {"type": "string", "minLength": 1}}
    elif kind == "corrections":
        item = {
            "type": "object",
            "additionalProperties": False,
            "required": ["field", "reason"],
            "properties": {
                "field": {"type": "string"},
                "published": {},
                "reason": {"type": "string", "minLength": 1},
                "round": {"type": "string"},
            },
        }
        schema = {"type": "array", "items": item}
    elif kind == "venue":
        axis = venue_axis(taxonomy)
        schema = (
            {"type": "string", "pattern": venue_pattern(axis)}
            if axis
            else {"type": "string", "minLength": 1}
        )
        if axis:
            schema["examples"] = [v.label for v in axis.values]
    elif kind == "record_identifier":
        schema = {"type": "string", "minLength": 1}
    elif kind == "identifiers":
        arxiv = f"{ids.ARXIV_NEW.pattern}|{ids.ARXIV_OLD.pattern}"
        schema = {
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "arxiv": {
                    "type": ["string", "null"],
                    "pattern": arxiv,
                    "description": "arXiv id, e.g. 2508.04652",
                },
                "doi": {
                    "type": ["string", "null"],
                    "pattern": ids.DOI.pattern,
                    "description": "DOI, e.g. 10.1287/moor.27.4.819.297",
                },
                "openreview": {
                    "type": ["string", "null"],
                    "pattern": ids.OPENREVIEW.pattern,
                    "description": "OpenReview forum id",
                },
            },
        }
    else:  # pragma: no cover - a new kind must be taught here
        raise ValueError(f"no schema for field kind {kind}")
    if spec.max_length is not None:  # of the text, or of each item (MAX_LENGTH in records.py)
        target = {"array": "items", "object": "additionalProperties"}.get(schema.get("type"))
        (schema[target] if target else schema)["maxLength"] = spec.max_length
    if (
        spec.nullable
        and kind not in ("tag",)
        and "type" in schema
        and isinstance(schema["type"], str)
    ):
        schema["type"] = [schema["type"], "null"]
    return {"description": spec.description, **schema}


def _condition_schema(condition: Condition) -> dict:
    if condition.allowed == "*":
        return {
            "required": [condition.field],
            "properties": {condition.field: {"not": {"enum": [None, []]}}},
        }
    if condition.allowed == "-":
        return {"properties": {condition.field: {"enum": [None, []]}}}
    allowed = list(condition.allowed)
    return {
        "required": [condition.field],
        "properties": {
            condition.field: {
                "anyOf": [{"enum": allowed}, {"type": "array", "contains": {"enum": allowed}}]
            }
        },
    }


def _record_schema(title: str, specs, taxonomy: Taxonomy, with_rules: bool) -> dict:
    schema = {
        "$schema": SCHEMA_DIALECT,
        "title": title,
        "description": "Generated by `masrl build` from tools/masrl/model.py and taxonomy/*.yaml. Do not edit.",
        "type": "object",
        "additionalProperties": False,
        "required": [s.name for s in specs if s.required],
        "properties": {s.name: _field_schema(s, taxonomy) for s in specs},
    }
    if with_rules and taxonomy.rules:
        schema["allOf"] = [
            {
                "$comment": f"rule {rule.id}: {rule.message}",
                "if": {"allOf": [_condition_schema(c) for c in rule.when]},
                "then": {"allOf": [_condition_schema(c) for c in rule.then]},
            }
            for rule in taxonomy.rules
        ]
    return schema


def entry_schema(taxonomy: Taxonomy) -> dict:
    return _record_schema("masrl corpus entry", entry_specs(taxonomy), taxonomy, with_rules=True)


def exclusion_schema(taxonomy: Taxonomy) -> dict:
    return _record_schema(
        "masrl exclusion record", exclusion_specs(taxonomy), taxonomy, with_rules=False
    )


def render(schema: dict) -> str:
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"

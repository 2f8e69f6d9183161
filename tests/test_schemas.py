"""The generated JSON Schemas agree with the validator on the real corpus and on broken entries."""

from __future__ import annotations

import json

import jsonschema
import pytest
from conftest import REPO_ROOT, entry_data
from masrl.model import yamlio
from masrl.model.records import ENTRY_SCHEMA_LINE, EXCLUSION_SCHEMA_LINE

ENTRY_SCHEMA = json.loads((REPO_ROOT / "taxonomy/schemas/entry.schema.json").read_text())
EXCLUSION_SCHEMA = json.loads((REPO_ROOT / "taxonomy/schemas/exclusion.schema.json").read_text())


def plain(data):
    return json.loads(json.dumps(data))


@pytest.mark.parametrize(
    ("folder", "schema", "header"),
    [
        ("corpus", ENTRY_SCHEMA, ENTRY_SCHEMA_LINE),
        ("exclusions", EXCLUSION_SCHEMA, EXCLUSION_SCHEMA_LINE),
    ],
)
def test_every_data_file_matches_its_schema_and_names_it(folder, schema, header):
    validator = jsonschema.Draft202012Validator(schema)
    paths = sorted((REPO_ROOT / folder).glob("*.yaml"))
    assert paths
    for path in paths:
        assert path.read_text(encoding="utf-8").splitlines()[0] == header, path
        errors = list(validator.iter_errors(plain(yamlio.load_file(path))))
        assert not errors, (path, errors[0].message)


@pytest.mark.parametrize(
    "overrides",
    [
        {"category": "rl-method"},
        {"credit_units": ["NA"]},
        {"topology": "NA"},
        {"summary": "TODO"},
        {"survey_role": "case"},  # rule: case is industrial
        {"credit_mechanism": None},  # rule: credit units need a strength
        {"evaluation_measures": ["outcome"]},  # rule: measures only for benchmarks
        {"urls": ["javascript:alert(1)"]},
        {"identifiers": {"arxiv": "arXiv:2508.04652"}},
        {"extra_field": 1},
    ],
)
def test_schema_rejects_what_validate_rejects(overrides):
    validator = jsonschema.Draft202012Validator(ENTRY_SCHEMA)
    assert not list(validator.iter_errors(plain(entry_data("alpha2025"))))
    assert list(validator.iter_errors(plain(entry_data("alpha2025", **overrides))))

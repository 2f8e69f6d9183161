"""Rules in taxonomy/rules.yaml that can never fire because they name a field entries lack."""

from __future__ import annotations

import re

from masrl.model.project import Project
from masrl.model.taxonomy import Taxonomy


def unknown_rule_fields(taxonomy: Taxonomy, field_names: set[str], project: Project) -> list[tuple]:
    """(path, line, message, hint, severity, code) for each condition naming no entry field."""
    path = taxonomy.directory / "rules.yaml"
    found = []
    for rule in taxonomy.rules:
        for condition in (*rule.when, *rule.then):
            if condition.field not in field_names:
                found.append(
                    (
                        project.relative(path),
                        _line_of(path, rule.id),
                        f"rule {rule.id} tests the field '{condition.field}', which entries do not have, "
                        "so the rule never fires",
                        f"use one of: {', '.join(sorted(field_names))}",
                        "error",
                        "rule-field",
                    )
                )
    return found


def _line_of(path, rule_id: str) -> int:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return 1
    pattern = re.compile(rf"^\s*-?\s*id:\s*['\"]?{re.escape(rule_id)}['\"]?\s*$")
    return next((number for number, line in enumerate(lines, 1) if pattern.match(line)), 1)

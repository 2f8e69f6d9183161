"""Agreement reports as text, Markdown and JSON."""

from __future__ import annotations

import json
from dataclasses import asdict

from masrl.screening.agreement import FieldAgreement


def _num(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def agreement_rows(results: list[FieldAgreement]) -> list[list[str]]:
    return [[r.field, str(len(r.raters)), str(r.units), _num(r.observed), _num(r.kappa), _num(r.alpha),
             str(len(r.disagreements))] for r in results]


HEADER = ["Field", "Raters", "Units", "Observed", "Cohen's κ", "Krippendorff's α", "Disagreements"]


def render_markdown(results: list[FieldAgreement], heading_level: int = 2) -> str:
    from masrl.render.stats import markdown_table

    if not results:
        return "No double-screened decisions or audits yet.\n"
    h = "#" * heading_level
    parts = [markdown_table(HEADER, agreement_rows(results), "lrrrrrr"), ""]
    disagreements = [d for r in results for d in r.disagreements]
    parts += [f"{h} Disagreements to adjudicate", ""]
    if not disagreements:
        parts += ["None.", ""]
    for d in disagreements:
        parts.append(f"- `{d.unit}` {d.field}: " + "; ".join(f"{rater} `{value}`" for rater, value in d.values))
    return "\n".join(parts).rstrip() + "\n"


def render_text(results: list[FieldAgreement]) -> str:
    if not results:
        return "agreement: no double-screened decisions or audits yet\n"
    widths = [max(len(row[i]) for row in [HEADER, *agreement_rows(results)]) for i in range(len(HEADER))]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip()
             for row in [HEADER, *agreement_rows(results)]]
    for r in results:
        for d in r.disagreements:
            lines.append(f"disagree {d.field} {d.unit}: " + "; ".join(f"{rater}={value}" for rater, value in d.values))
    total = sum(len(r.disagreements) for r in results)
    lines.append(f"agreement: {len(results)} field(s), {total} disagreement(s) to adjudicate")
    return "\n".join(lines) + "\n"


def render_json(results: list[FieldAgreement]) -> str:
    return json.dumps({"fields": [asdict(r) for r in results]}, indent=2, sort_keys=True, ensure_ascii=False) + "\n"

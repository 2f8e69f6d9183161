"""Agreement reports as text, Markdown and JSON."""

from __future__ import annotations

import json
from dataclasses import asdict

from masrl.screening.agreement import Disagreement, FieldAgreement


def _num(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def _ruling_text(d: Disagreement, code: str = "", escape=str) -> str:
    """' -> ruled X by Y: reason', and where the corpus still says otherwise; ``escape`` makes the
    reason (free text) safe for Markdown."""
    if not d.settled:
        return ""
    text = f" -> ruled {code}{d.ruling}{code} by {d.ruled_by} ({d.ruled_at})"
    if d.ruling_note:
        text += f": {escape(d.ruling_note)}"
    if d.pending_in_corpus:
        text += f"; the corpus still says {code}{d.corpus}{code} at {d.corpus_at}"
    return text


def _counts(results: list[FieldAgreement]) -> str:
    disagreements = [d for r in results for d in r.disagreements]
    open_ = sum(not d.settled for d in disagreements)
    text = f"{open_} disagreement(s) to adjudicate"
    ruled = len(disagreements) - open_
    if ruled:
        pending = sum(d.pending_in_corpus for d in disagreements)
        text += f", {ruled} ruled" + (f" ({pending} not yet in the corpus)" if pending else "")
    return text


def agreement_rows(results: list[FieldAgreement]) -> list[list[str]]:
    return [
        [
            r.field,
            str(len(r.raters)),
            str(r.units),
            _num(r.observed),
            _num(r.kappa),
            _num(r.alpha),
            str(len(r.disagreements)),
        ]
        for r in results
    ]


HEADER = ["Field", "Raters", "Units", "Observed", "Cohen's κ", "Krippendorff's α", "Disagreements"]


def render_markdown(results: list[FieldAgreement], heading_level: int = 2) -> str:
    from masrl.render.site.escape import md_text
    from masrl.render.stats import markdown_table

    if not results:
        return "No double-screened decisions or audits yet.\n"
    h = "#" * heading_level
    parts = [markdown_table(HEADER, agreement_rows(results), "lrrrrrr"), ""]
    disagreements = [d for r in results for d in r.disagreements]
    parts += [f"{h} Disagreements to adjudicate", ""]
    if not any(not d.settled for d in disagreements):
        parts += ["None.", ""]
    for d in disagreements:
        if not d.settled:
            parts.append(
                f"- `{d.unit}` {d.field}: "
                + "; ".join(f"{rater} `{value}`" for rater, value in d.values)
            )
    if any(d.settled for d in disagreements):
        parts += ["", f"{h} Adjudicated", ""]
        for d in disagreements:
            if d.settled:
                parts.append(
                    f"- `{d.unit}` {d.field}: "
                    + "; ".join(f"{rater} `{value}`" for rater, value in d.values)
                    + _ruling_text(d, "`", md_text)
                )
    return "\n".join(parts).rstrip() + "\n"


def render_text(results: list[FieldAgreement]) -> str:
    if not results:
        return "agreement: no double-screened decisions or audits yet\n"
    widths = [
        max(len(row[i]) for row in [HEADER, *agreement_rows(results)]) for i in range(len(HEADER))
    ]
    lines = [
        "  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip()
        for row in [HEADER, *agreement_rows(results)]
    ]
    for r in results:
        for d in r.disagreements:
            verb = "ruled" if d.settled else "disagree"
            lines.append(
                f"{verb} {d.field} {d.unit}: "
                + "; ".join(f"{rater}={value}" for rater, value in d.values)
                + _ruling_text(d)
            )
    lines.append(f"agreement: {len(results)} field(s), {_counts(results)}")
    return "\n".join(lines) + "\n"


def render_json(results: list[FieldAgreement]) -> str:
    return (
        json.dumps(
            {"fields": [asdict(r) for r in results]}, indent=2, sort_keys=True, ensure_ascii=False
        )
        + "\n"
    )

"""Agreement reports as text, Markdown and JSON.

Every report names the pass each field's figures come from; a field re-read in a later pass also
shows the figures of the pass it superseded, and the passes' reasons (``why``)."""

from __future__ import annotations

import json
from dataclasses import asdict

from masrl.screening.agreement import Disagreement, FieldAgreement
from masrl.screening.reading_passes import FIRST_PASS, ReadingPass


def _num(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def _ruling_text(d: Disagreement, code: str = "", escape=str, value=None) -> str:
    """' -> ruled X by Y: reason', and where the corpus still says otherwise; ``escape`` makes the
    reason (free text) safe for Markdown; ``value`` shows a value of the field."""
    if not d.settled:
        return ""
    ruling = value(d.field, d.ruling) if value else f"{code}{d.ruling}{code}"
    text = f" -> ruled {ruling} by {d.ruled_by} ({d.ruled_at})"
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


NOT_REREAD = "-"


def _passes(numbers: tuple[int, ...]) -> str:
    return ", ".join(map(str, numbers))


def _before(r: FieldAgreement) -> str:
    """The superseded kappa (alpha when more than two raters read) of a re-read field, with its
    pass; '-' for a field read once."""
    if r.earlier is None:
        return NOT_REREAD
    # Cohen's kappa needs the same two raters throughout; with more, alpha is the figure
    if r.earlier.kappa is None and r.earlier.alpha is not None:
        return f"α {_num(r.earlier.alpha)} (pass {_passes(r.earlier.passes)})"
    return f"{_num(r.earlier.kappa)} (pass {_passes(r.earlier.passes)})"


def _unit(d: Disagreement, code: str = "") -> str:
    """The record of a disagreement, and its pass when it is a later one."""
    where = f"{code}{d.unit}{code}"
    return where if d.pass_number == FIRST_PASS else f"{where} (pass {d.pass_number})"


def agreement_rows(results: list[FieldAgreement], field_name=str) -> list[list[str]]:
    """One row per field; ``field_name`` shows a field (the site: its label, linked)."""
    return [
        [
            field_name(r.field),
            _passes(r.passes),
            str(len(r.raters)),
            str(r.units),
            _num(r.observed),
            _num(r.kappa),
            _num(r.alpha),
            _before(r),
            str(len(r.disagreements)),
        ]
        for r in results
    ]


HEADER = [
    "Field",
    "Pass",
    "Raters",
    "Units",
    "Observed",
    "Cohen's κ",
    "Krippendorff's α",
    "κ before re-read",
    "Disagreements",
]


def rereading_passes(results: list[FieldAgreement]) -> list[ReadingPass]:
    """The declared passes the results report, by round and number."""
    found = {(p.round, p.number): p for r in results for p in r.rereads}
    return [found[key] for key in sorted(found)]


def _pass_line(p: ReadingPass, escape=str, field_name=None) -> str:
    fields = (
        ", ".join(field_name(f) for f in p.fields) if field_name else escape(", ".join(p.fields))
    )
    return (
        f"Pass {p.number} of round {escape(p.round)} ({escape(p.date)}) re-read "
        f"{fields}: {escape(p.why)}"
    )


def _before_after_rows(results: list[FieldAgreement], field_name=str) -> list[list[str]]:
    rows = []
    for r in results:
        if r.earlier is not None:
            e = r.earlier
            rows.append(
                [
                    field_name(r.field),
                    f"{_passes(e.passes)} (superseded)",
                    str(e.units),
                    _num(e.observed),
                    _num(e.kappa),
                    _num(e.alpha),
                ]
            )
            rows.append(
                [
                    field_name(r.field),
                    _passes(r.passes),
                    str(r.units),
                    _num(r.observed),
                    _num(r.kappa),
                    _num(r.alpha),
                ]
            )
    return rows


BEFORE_AFTER_HEADER = ["Field", "Pass", "Units", "Observed", "Cohen's κ", "Krippendorff's α"]


def _code_value(field: str, value: str) -> str:
    return f"`{value}`"


def render_markdown(
    results: list[FieldAgreement],
    heading_level: int = 2,
    field_name=str,
    empty: str | None = None,
    value_shown=_code_value,
) -> str:
    """Markdown of the agreement figures; ``field_name`` shows a field (default: its name),
    ``value_shown`` a reader's value of a field (default: in code), ``empty`` says why there is
    nothing to show."""
    from masrl.render.site.escape import md_text
    from masrl.render.stats import markdown_table

    if not results:
        return (empty or "No double-screened decisions or audits yet.") + "\n"
    h = "#" * heading_level
    parts = [markdown_table(HEADER, agreement_rows(results, field_name), "lrrrrrrrr"), ""]
    passes = rereading_passes(results)
    if passes:
        parts += [f"{h} Re-read fields", ""]
        shown = None if field_name is str else field_name  # the CLI's names are escaped
        parts += [f"- {_pass_line(p, md_text, shown)}" for p in passes]
        parts += [
            "",
            "Each re-read field's figures in the pass it superseded, then in the pass reported:",
            "",
            markdown_table(BEFORE_AFTER_HEADER, _before_after_rows(results, field_name), "lrrrrr"),
            "",
        ]
    disagreements = [d for r in results for d in r.disagreements]
    parts += [f"{h} Disagreements to adjudicate", ""]
    if not any(not d.settled for d in disagreements):
        parts += ["None.", ""]
    for d in disagreements:
        if not d.settled:
            parts.append(
                f"- {_unit(d, '`')} {field_name(d.field)}: "
                + "; ".join(f"{rater} {value_shown(d.field, value)}" for rater, value in d.values)
            )
    if any(d.settled for d in disagreements):
        parts += ["", f"{h} Adjudicated", ""]
        for d in disagreements:
            if d.settled:
                parts.append(
                    f"- {_unit(d, '`')} {field_name(d.field)}: "
                    + "; ".join(
                        f"{rater} {value_shown(d.field, value)}" for rater, value in d.values
                    )
                    + _ruling_text(d, "`", md_text, value_shown)
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
    lines += [f"re-read: {_pass_line(p)}" for p in rereading_passes(results)]
    lines += [
        f"before re-read {row[0]} (pass {row[1].removesuffix(' (superseded)')}): units {row[2]}, "
        f"observed {row[3]}, κ {row[4]}, α {row[5]}"
        for row in _before_after_rows(results)[::2]
    ]
    for r in results:
        for d in r.disagreements:
            verb = "ruled" if d.settled else "disagree"
            lines.append(
                f"{verb} {d.field} {_unit(d)}: "
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

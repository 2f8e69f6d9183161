"""The claim ledger's results as text, Markdown, JSON and GitHub annotations."""

from __future__ import annotations

import json
from typing import Any

from masrl.annotations import github_annotation
from masrl.derive.claims import MAX_NAMED, ClaimComparison, ClaimResult, ClaimsReport, named_keys
from masrl.model.project import Corpus


def format_value(value: Any) -> str:
    """A live or expected value in a few words: 2; count 8, of_which 5; true; agent; O2, O3 (tie)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict):
        return ", ".join(f"{k} {v}" for k, v in value.items())
    if isinstance(value, list):
        return ", ".join(map(str, value)) + " (tie)"
    return "-" if value is None else str(value)


def live_text(result: ClaimResult) -> str:
    """The live value, with its context when there is one: agent (agent 23, role 10, orchestrator 8)."""
    text = format_value(result.live)
    return f"{text} ({result.note})" if result.note else text


def _entries_line(result: ClaimResult, limit: int | None = MAX_NAMED) -> str:
    return "; ".join(f"{part}: {named_keys(keys, limit)}" for part, keys in result.entries.items())


def _changes(report: ClaimsReport | None) -> dict[str, ClaimComparison]:
    return {c.id: c for c in report.changed} if report else {}


def changed_by_text(comparison: ClaimComparison) -> str:
    return "; ".join(cause.describe() for cause in comparison.causes) or "no single record"


def summary_line(results: list[ClaimResult], report: ClaimsReport | None = None) -> str:
    changes = _changes(report)
    failed = [r.id for r in results if not r.holds and r.id not in changes]
    if report and report.snapshot:
        failed = [c.id for c in report.failed]
        where = f" on snapshot {report.snapshot}"
        if failed:
            text = (
                f"claims: {len(failed)} of {len(results)} fail{where} (a bug): {', '.join(failed)}"
            )
        else:
            text = f"claims: all {len(results)} hold{where}"
        if changes:
            text += f"; {len(changes)} changed in the live corpus: {', '.join(changes)}"
        elif not failed:
            text += " and in the live corpus"
        return text
    if failed:
        return f"claims: {len(failed)} of {len(results)} no longer hold: {', '.join(failed)}"
    return f"claims: all {len(results)} hold"


def _status_word(result: ClaimResult, changes: dict) -> str:
    if result.id in changes:
        return "CHANGED"
    return "ok  " if result.holds else "FAIL"


def render_text(results: list[ClaimResult], report: ClaimsReport | None = None) -> str:
    changes = _changes(report)
    lines = []
    for result in results:
        lines.append(f"{_status_word(result, changes)} {result.id}: {result.claim.statement}")
        lines.append(
            f"     expected: {format_value(result.claim.expect)} | live: {live_text(result)}"
        )
        if result.entries:
            lines.append(f"     entries: {_entries_line(result)}")
        if not result.holds:
            lines.append(f"     why: {result.detail}")
            if result.id in changes:
                lines.append(
                    f"     holds on snapshot {report.snapshot}; changed by: {changed_by_text(changes[result.id])}"
                )
            elif result.culprits:
                lines.append(f"     entries to look at: {named_keys(result.culprits)}")
    if report:
        for comparison in report.failed:
            if comparison.frozen is not None and comparison.live.holds:
                lines.append(
                    f"FAIL {comparison.id}: fails on snapshot {report.snapshot}: {comparison.frozen.detail}"
                )
    lines.append(summary_line(results, report))
    return "\n".join(lines) + "\n"


def changed_banner(report: ClaimsReport | None) -> list[str]:
    """Markdown lines announcing the claims that changed in the live corpus (none when none did)."""
    if not report or not report.changed:
        return []
    lines = [
        (
            f"> **{len(report.changed)} claim(s) changed.** They hold on the frozen snapshot "
            f"`{report.snapshot}` but no longer hold on the live corpus:"
        ),
        ">",
    ]
    for c in report.changed:
        lines.append(f"> - `{c.id}`: {c.live.detail}. Changed by {changed_by_text(c)}.")
    return lines + [""]


def render_markdown(
    results: list[ClaimResult], heading_level: int = 2, report: ClaimsReport | None = None
) -> str:
    """A status table, then each claim with its query, entries and boundary."""
    from masrl.render.stats import markdown_table

    changes = _changes(report)
    h = "#" * heading_level
    rows = [
        [f"`{r.id}`", format_value(r.claim.expect), live_text(r), _status(r, changes)]
        for r in results
    ]
    parts = changed_banner(report)
    parts += [
        markdown_table(["Claim", "Expected", "Live", "Status"], rows, "lllr"),
        "",
        summary_line(results, report),
        "",
    ]
    for r in results:
        parts += [f"{h} `{r.id}`", "", r.claim.statement, ""]
        parts += [f"- Query: `{r.claim.query.text}`"]
        parts += [
            f"- Expected: {format_value(r.claim.expect)}; live: {live_text(r)} ({_status(r, changes)})"
        ]
        if r.entries:
            parts += [f"- Entries: {_entries_line(r)}"]
        if not r.holds:
            parts += [f"- Why it fails: {r.detail}"]
        if r.id in changes:
            parts += [
                f"- Holds on snapshot `{report.snapshot}`; changed by {changed_by_text(changes[r.id])}"
            ]
        parts += [f"- Boundary: {r.claim.boundary}", ""]
    return "\n".join(parts).rstrip() + "\n"


def _status(result: ClaimResult, changes: dict | None = None) -> str:
    if changes and result.id in changes:
        return "**CHANGED**"
    return "holds" if result.holds else "**FAILS**"


def results_data(results: list[ClaimResult], report: ClaimsReport | None = None) -> dict:
    if report is not None:
        by_id = {c.id: c for c in report.comparisons}
        data = results_data(results)
        data["ok"] = not report.failed
        data["snapshot"] = report.snapshot
        data["changed"] = [c.id for c in report.changed]
        for item in data["claims"]:
            comparison = by_id[item["id"]]
            item["status"] = comparison.status
            item["holds_on_snapshot"] = comparison.frozen.holds if comparison.frozen else None
            item["changed_by"] = [
                {"record": c.record, "round": c.round, "how": c.how} for c in comparison.causes
            ]
        return data
    return {
        "ok": all(r.holds for r in results),
        "claims": [
            {
                "id": r.id,
                "statement": r.claim.statement,
                "boundary": r.claim.boundary,
                "query": r.claim.query.text,
                "line": r.claim.line,
                "expected": r.claim.expect,
                "live": r.live,
                "holds": r.holds,
                "entries": {part: list(keys) for part, keys in r.entries.items()},
                "culprits": list(r.culprits),
                "detail": r.detail,
                "note": r.note,
            }
            for r in results
        ],
    }


def render_json(results: list[ClaimResult], report: ClaimsReport | None = None) -> str:
    return (
        json.dumps(results_data(results, report), indent=2, sort_keys=True, ensure_ascii=False)
        + "\n"
    )


def _annotation(path: str, line: int, title: str, message: str, level: str = "error") -> str:
    return github_annotation(level, path, line, title, message)


def render_github(
    results: list[ClaimResult],
    corpus: Corpus,
    report: ClaimsReport | None = None,
    strict: bool = False,
) -> str:
    """GitHub Actions annotations: one on the ledger line of each failing claim, one on each
    entry file that makes the difference, so a pull request shows which claim and entry flipped."""
    paths = {
        e.key: corpus.project.relative(e.path) if e.path else f"corpus/{e.key}.yaml"
        for e in corpus.entries
    }
    changes = _changes(report)
    lines = []
    for r in results:
        if r.holds:
            continue
        # A claim that changed as the field moved is a warning unless --strict asks for an error.
        level = "warning" if r.id in changes and not strict else "error"
        title = f"masrl claims: {r.id}"
        message = (
            f"Claim '{r.id}' no longer holds: expected {format_value(r.claim.expect)}, "
            f"live {live_text(r)}. {r.detail}."
        )
        if r.id in changes:
            message += f" It holds on snapshot {report.snapshot}; changed by {changed_by_text(changes[r.id])}."
        elif r.culprits:
            message += f" Entries that make the difference: {named_keys(r.culprits, None)}."
        lines.append(_annotation(r.claim.path, r.claim.line, title, message, level))
        for key in r.culprits:
            if key in paths:  # an entry that was deleted has no file to annotate
                lines.append(
                    _annotation(
                        paths[key],
                        1,
                        title,
                        f"This entry makes claim '{r.id}' fail: {r.detail}. Claim: {r.claim.statement}",
                        level,
                    )
                )
    lines.append(summary_line(results, report))
    return "\n".join(lines) + "\n"


def render(
    results: list[ClaimResult],
    fmt: str,
    corpus: Corpus,
    report: ClaimsReport | None = None,
    strict: bool = False,
) -> str:
    if fmt == "json":
        return render_json(results, report)
    if fmt == "markdown":
        return render_markdown(results, report=report)
    if fmt == "github":
        return render_github(results, corpus, report, strict)
    return render_text(results, report)

"""The claim ledger's results as text, Markdown, JSON and GitHub annotations."""

from __future__ import annotations

import json
from typing import Any

from masrl.annotations import github_annotation
from masrl.derive.claims import MAX_NAMED, ClaimResult, named_keys
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


def summary_line(results: list[ClaimResult]) -> str:
    failed = [r.id for r in results if not r.holds]
    if failed:
        return f"claims: {len(failed)} of {len(results)} no longer hold: {', '.join(failed)}"
    return f"claims: all {len(results)} hold"


def render_text(results: list[ClaimResult]) -> str:
    lines = []
    for result in results:
        status = "ok  " if result.holds else "FAIL"
        lines.append(f"{status} {result.id}: {result.claim.statement}")
        lines.append(f"     expected: {format_value(result.claim.expect)} | live: {live_text(result)}")
        if result.entries:
            lines.append(f"     entries: {_entries_line(result)}")
        if not result.holds:
            lines.append(f"     why: {result.detail}")
            if result.culprits:
                lines.append(f"     entries to look at: {named_keys(result.culprits)}")
    lines.append(summary_line(results))
    return "\n".join(lines) + "\n"


def render_markdown(results: list[ClaimResult], heading_level: int = 2) -> str:
    """A status table, then each claim with its query, entries and boundary."""
    from masrl.render.stats import markdown_table

    h = "#" * heading_level
    rows = [[f"`{r.id}`", format_value(r.claim.expect), live_text(r), _status(r)] for r in results]
    parts = [markdown_table(["Claim", "Expected", "Live", "Status"], rows, "lllr"), "", summary_line(results), ""]
    for r in results:
        parts += [f"{h} `{r.id}`", "", r.claim.statement, ""]
        parts += [f"- Query: `{r.claim.query.text}`"]
        parts += [f"- Expected: {format_value(r.claim.expect)}; live: {live_text(r)} ({_status(r)})"]
        if r.entries:
            parts += [f"- Entries: {_entries_line(r)}"]
        if not r.holds:
            parts += [f"- Why it fails: {r.detail}"]
        parts += [f"- Boundary: {r.claim.boundary}", ""]
    return "\n".join(parts).rstrip() + "\n"


def _status(result: ClaimResult) -> str:
    return "holds" if result.holds else "**FAILS**"


def results_data(results: list[ClaimResult]) -> dict:
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


def render_json(results: list[ClaimResult]) -> str:
    return json.dumps(results_data(results), indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def _annotation(path: str, line: int, title: str, message: str) -> str:
    return github_annotation("error", path, line, title, message)


def render_github(results: list[ClaimResult], corpus: Corpus) -> str:
    """GitHub Actions annotations: one on the ledger line of each failing claim, one on each
    entry file that makes the difference, so a pull request shows which claim and entry flipped."""
    paths = {e.key: corpus.project.relative(e.path) if e.path else f"corpus/{e.key}.yaml" for e in corpus.entries}
    lines = []
    for r in results:
        if r.holds:
            continue
        title = f"masrl claims: {r.id}"
        message = (f"Claim '{r.id}' no longer holds: expected {format_value(r.claim.expect)}, "
                   f"live {live_text(r)}. {r.detail}.")
        if r.culprits:
            message += f" Entries that make the difference: {named_keys(r.culprits, None)}."
        lines.append(_annotation(r.claim.path, r.claim.line, title, message))
        for key in r.culprits:
            if key in paths:  # an entry that was deleted has no file to annotate
                lines.append(_annotation(paths[key], 1, title,
                                         f"This entry makes claim '{r.id}' fail: {r.detail}. Claim: {r.claim.statement}"))
    lines.append(summary_line(results))
    return "\n".join(lines) + "\n"


def render(results: list[ClaimResult], fmt: str, corpus: Corpus) -> str:
    if fmt == "json":
        return render_json(results)
    if fmt == "markdown":
        return render_markdown(results)
    if fmt == "github":
        return render_github(results, corpus)
    return render_text(results)

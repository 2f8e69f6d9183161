"""`masrl claims`."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from masrl.cli import load_or_exit, root_option
from masrl.cli.snapshot import corpus_or_snapshot, snapshot_option


@click.command("claims")
@root_option
@click.option(
    "--ledger",
    type=click.Path(dir_okay=False, exists=True, path_type=Path),
    default=None,
    help="Claim ledger to check (default: claims/ledger.yaml of the project).",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "markdown", "json", "github"]),
    default="text",
    show_default=True,
    help="text for people, markdown for reports, json for tools, github for Actions annotations.",
)
@snapshot_option
@click.option("--strict", is_flag=True, help="Exit 1 also when a claim changed in the live corpus.")
def claims_command(
    root: str | None, ledger: Path | None, fmt: str, snapshot: str | None, strict: bool
) -> None:
    """Check every claim of the ledger on the frozen snapshot survey-2026-05 (a failure there is a
    bug: exit 1) and on the live corpus, where a claim that stops holding is reported as changed,
    with the records and rounds behind the change (exit 0 unless --strict). With --snapshot NAME,
    check that snapshot alone. Without any snapshot, a claim that fails live exits 1."""
    from masrl.derive.claims import claims_report, evaluate_claims
    from masrl.render.claims import render

    if snapshot:
        corpus = corpus_or_snapshot(root, snapshot)
        results = evaluate_claims(corpus, ledger)
        click.echo(render(results, fmt, corpus), nl=False)
        sys.exit(0 if all(r.holds for r in results) else 1)
    corpus = load_or_exit(root)
    report = claims_report(corpus, ledger)  # a malformed ledger stops here with file:line problems
    shown = report if report.snapshot else None
    click.echo(render(report.live_results, fmt, corpus, shown, strict), nl=False)
    sys.exit(0 if report.ok(strict) else 1)

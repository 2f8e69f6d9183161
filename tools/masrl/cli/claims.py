"""`masrl claims`."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from masrl.cli import load_or_exit, root_option


@click.command("claims")
@root_option
@click.option("--ledger", type=click.Path(dir_okay=False, exists=True, path_type=Path), default=None,
              help="Claim ledger to check (default: claims/ledger.yaml of the project).")
@click.option("--format", "fmt", type=click.Choice(["text", "markdown", "json", "github"]), default="text",
              show_default=True, help="text for people, markdown for reports, json for tools, github for Actions annotations.")
def claims_command(root: str | None, ledger: Path | None, fmt: str) -> None:
    """Check every claim of the ledger against the corpus: the live value beside the expected one
    and the entries behind it. Exit 1 when a claim no longer holds."""
    from masrl.derive.claims import evaluate_claims
    from masrl.render.claims import render

    corpus = load_or_exit(root)
    results = evaluate_claims(corpus, ledger)  # a malformed ledger stops here with file:line problems
    click.echo(render(results, fmt, corpus), nl=False)
    sys.exit(0 if all(r.holds for r in results) else 1)

"""`masrl build` and `masrl check`."""

from __future__ import annotations

import sys

import click

from masrl.check.validate import CorpusInvalid
from masrl.cli import project_from, root_option


@click.command("build")
@root_option
def build_command(root: str | None) -> None:
    """Regenerate every generated file (schemas, STATS.md, figures, README list)."""
    from masrl.render.build import build

    try:
        written = build(project_from(root))
    except CorpusInvalid as exc:
        click.echo(exc.report.render("text"), err=True)
        sys.exit(1)
    for rel in written:
        click.echo(f"wrote {rel}")
    click.echo(f"build: {len(written)} file(s) changed")


@click.command("check")
@root_option
def check_command(root: str | None) -> None:
    """Fail with a diff when a committed generated file is stale."""
    from masrl.render.build import check

    try:
        stale = check(project_from(root))
    except CorpusInvalid as exc:
        click.echo(exc.report.render("text"), err=True)
        sys.exit(1)
    for item in stale:
        click.echo(item.diff)
    if stale:
        click.echo(
            f"check: {len(stale)} generated file(s) are stale: run `masrl build` and commit the result",
            err=True,
        )
        sys.exit(1)
    click.echo("check: every generated file is fresh")

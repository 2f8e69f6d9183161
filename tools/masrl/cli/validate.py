"""`masrl validate`."""

from __future__ import annotations

import sys

import click

from masrl.check.validate import validate_project
from masrl.cli import project_from, root_option
from masrl.text import terminal_safe


@click.command()
@root_option
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "github", "json"]),
    default="text",
    show_default=True,
    help="text for people, github for Actions annotations, json for tools.",
)
def validate(root: str | None, fmt: str) -> None:
    """Check every entry and exclusion record; exit 1 on any error."""
    report = validate_project(project_from(root))
    click.echo(report.render(fmt) if fmt == "json" else terminal_safe(report.render(fmt)))
    sys.exit(1 if report.errors else 0)

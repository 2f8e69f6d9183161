"""`masrl stats`."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from .cli import project_from, root_option
from .model import Corpus, CorpusInvalid, load_corpus

output_option = click.option(
    "-o", "--output", type=click.Path(dir_okay=False, path_type=Path), default=None,
    help="File to write (default: standard output).",
)


def load_or_exit(root: str | None) -> Corpus:
    """The validated corpus, or the validation report and exit status 1."""
    try:
        return load_corpus(project_from(root))
    except CorpusInvalid as exc:
        click.echo(exc.report.render("text"), err=True)
        sys.exit(1)


def emit(text: str, output: Path | None) -> None:
    """Write to ``output`` or standard output."""
    if output:
        from .yamlio import write_atomic

        write_atomic(output, text)
        click.echo(f"wrote {output}", err=True)
    else:
        click.echo(text, nl=False)


@click.command("stats")
@root_option
@click.option("--format", "fmt", type=click.Choice(["markdown", "json", "csv"]), default="markdown",
              show_default=True, help="markdown for people, json for tools, csv in long form (table,row,column,count).")
@output_option
def stats_command(root: str | None, fmt: str, output: Path | None) -> None:
    """Print headline counts, counts per axis, cross-tabs and exclusion counts."""
    from .stats import compute_stats, stats_csv, stats_json, stats_markdown

    stats = compute_stats(load_or_exit(root))
    render = {"markdown": stats_markdown, "json": stats_json, "csv": stats_csv}[fmt]
    emit(render(stats), output)

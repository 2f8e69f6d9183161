"""`masrl stats`."""

from __future__ import annotations

from pathlib import Path

import click

from masrl.cli import emit, output_option, root_option
from masrl.cli.snapshot import corpus_or_snapshot, snapshot_option


@click.command("stats")
@root_option
@click.option("--format", "fmt", type=click.Choice(["markdown", "json", "csv"]), default="markdown",
              show_default=True, help="markdown for people, json for tools, csv in long form (table,row,column,count).")
@output_option
@snapshot_option
def stats_command(root: str | None, fmt: str, output: Path | None, snapshot: str | None) -> None:
    """Print headline counts, counts per axis, cross-tabs and exclusion counts."""
    from masrl.derive.stats import compute_stats
    from masrl.render.stats import stats_csv, stats_json, stats_markdown

    stats = compute_stats(corpus_or_snapshot(root, snapshot))
    render = {"markdown": stats_markdown, "json": stats_json, "csv": stats_csv}[fmt]
    emit(render(stats), output)

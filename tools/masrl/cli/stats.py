"""`masrl stats`."""

from __future__ import annotations

from pathlib import Path

import click

from masrl.cli import emit, output_option, root_option
from masrl.cli.snapshot import baseline_corpus, beside_option, corpus_or_snapshot, snapshot_option


@click.command("stats")
@root_option
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["markdown", "json", "csv"]),
    default="markdown",
    show_default=True,
    help="markdown for people, json for tools, csv in long form (table,row,column,count).",
)
@output_option
@snapshot_option
@beside_option
def stats_command(
    root: str | None, fmt: str, output: Path | None, snapshot: str | None, beside: str | None
) -> None:
    """Print headline counts, counts per axis, cross-tabs and exclusion counts."""
    from masrl.derive.stats import compute_stats
    from masrl.render.stats import stats_csv, stats_json, stats_markdown

    stats = compute_stats(corpus_or_snapshot(root, snapshot))
    baseline = baseline_corpus(root, beside, fmt)
    if baseline is not None:
        emit(stats_markdown(stats, baseline=compute_stats(baseline), baseline_name=beside), output)
        return
    render = {"markdown": stats_markdown, "json": stats_json, "csv": stats_csv}[fmt]
    emit(render(stats), output)

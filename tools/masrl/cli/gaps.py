"""`masrl gaps`."""

from __future__ import annotations

from pathlib import Path

import click

from masrl.cli import emit, output_option, root_option
from masrl.cli.snapshot import baseline_corpus, beside_option, corpus_or_snapshot, snapshot_option
from masrl.derive.gaps import DEFAULT_SPARSE


@click.command("gaps")
@root_option
@click.option(
    "--sparse",
    type=click.IntRange(min=0),
    default=DEFAULT_SPARSE,
    show_default=True,
    metavar="N",
    help="Cells with 1 to N entries count as sparse.",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["markdown", "json"]),
    default="markdown",
    show_default=True,
)
@output_option
@snapshot_option
@beside_option
def gaps_command(
    root: str | None,
    sparse: int,
    fmt: str,
    output: Path | None,
    snapshot: str | None,
    beside: str | None,
) -> None:
    """Show empty and sparse cross-tab cells, unused reward families and credit units,
    sub-decision coverage of RL-trained entries and benchmark coverage of evaluation measures."""
    from masrl.derive.gaps import find_gaps
    from masrl.render.gaps import gaps_json, gaps_markdown

    gaps = find_gaps(corpus_or_snapshot(root, snapshot), sparse=sparse)
    baseline = baseline_corpus(root, beside, fmt)
    if baseline is not None:
        emit(
            gaps_markdown(gaps, baseline=find_gaps(baseline, sparse=sparse), baseline_name=beside),
            output,
        )
        return
    emit(gaps_json(gaps) if fmt == "json" else gaps_markdown(gaps), output)

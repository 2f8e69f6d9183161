"""`masrl agreement`."""

from __future__ import annotations

from pathlib import Path

import click

from masrl.cli import emit, output_option, project_from, root_option


@click.command("agreement")
@click.option(
    "--audit",
    "audits",
    multiple=True,
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="A second-annotator audit in the spot-check CSV layout (repeatable).",
)
@click.option(
    "--round", "round_id", help="Only the records this screening round brought (e.g. 2026-12)."
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "markdown", "json"]),
    default="text",
    show_default=True,
)
@root_option
@output_option
def agreement_command(
    audits: tuple[Path, ...], round_id: str | None, fmt: str, root: str | None, output: Path | None
) -> None:
    """Agreement between screeners per decision and per tag field (observed, Cohen's kappa,
    Krippendorff's alpha) from screening/decisions/, screening/tags/ and audit CSVs, with the
    disagreements and their rulings. A field re-read in a later pass (screening/tags/, 'passes:')
    is reported from its latest pass, beside the kappa before the re-read."""
    from masrl.render.agreement import render_json, render_markdown, render_text
    from masrl.screening.agreement import project_agreement

    project = project_from(root)
    if round_id is not None:
        from masrl.errors import UsageError
        from masrl.screening.rounds import load_rounds

        known = [r.id for r in load_rounds(project)]
        if round_id not in known:
            raise UsageError(
                f"no screening round {round_id!r} in screening/rounds.yaml",
                hint=f"known rounds: {', '.join(known)}",
            )
    results = project_agreement(project, list(audits), round_id)
    emit(
        {"text": render_text, "markdown": render_markdown, "json": render_json}[fmt](results),
        output,
    )

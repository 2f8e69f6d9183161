"""`masrl agreement`."""

from __future__ import annotations

from pathlib import Path

import click

from masrl.cli import emit, output_option, project_from, root_option


@click.command("agreement")
@click.option("--audit", "audits", multiple=True, type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="A second-annotator audit in the spot-check CSV layout (repeatable).")
@click.option("--format", "fmt", type=click.Choice(["text", "markdown", "json"]), default="text", show_default=True)
@root_option
@output_option
def agreement_command(audits: tuple[Path, ...], fmt: str, root: str | None, output: Path | None) -> None:
    """Agreement between screeners per decision and per tag field (observed, Cohen's kappa,
    Krippendorff's alpha) from screening/decisions/ and audit CSVs, with the disagreements."""
    from masrl.render.agreement import render_json, render_markdown, render_text
    from masrl.screening.agreement import project_agreement

    results = project_agreement(project_from(root), list(audits))
    emit({"text": render_text, "markdown": render_markdown, "json": render_json}[fmt](results), output)

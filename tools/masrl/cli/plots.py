"""`masrl plots`."""

from __future__ import annotations

from pathlib import Path

import click

from masrl.cli import load_or_exit, project_from, root_option
from masrl.files import write_if_changed
from masrl.render.figures import FORMATS


@click.command("plots")
@root_option
@click.option(
    "--only",
    "names",
    multiple=True,
    metavar="NAME",
    help="Render only this figure (repeatable; default: all). The names are those of the"
    " figures/ files: axis-counts, the heatmaps the taxonomy declares, sub-decision-coverage,"
    " entries-per-year, screening-flow.",
)
@click.option(
    "--format",
    "formats",
    multiple=True,
    type=click.Choice(FORMATS),
    help="File format (repeatable; default: svg and png).",
)
@click.option(
    "--output-dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Folder for the files (default: figures/ of the project).",
)
def plots_command(
    root: str | None, names: tuple[str, ...], formats: tuple[str, ...], output_dir: Path | None
) -> None:
    """Render the figures as deterministic SVG and PNG files; rewrite only those that changed."""
    from masrl.render.figures import render_figures

    corpus = load_or_exit(root)
    target = output_dir or project_from(root).root / "figures"
    files = render_figures(corpus, list(names) or None, formats or FORMATS)
    changed = 0
    for rel, content in files.items():
        path = target / Path(rel).name
        if not write_if_changed(path, content, root=target):
            continue
        changed += 1
        click.echo(f"wrote {path}")
    click.echo(f"plots: {len(files)} file(s), {changed} changed")

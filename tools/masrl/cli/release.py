"""`masrl release VERSION`: write the versioned, citable release of a closed round."""

from __future__ import annotations

import click

from masrl.cli import load_or_exit, root_option


@click.command("release")
@click.argument("version")
@root_option
@click.option(
    "--force",
    is_flag=True,
    help="Write over an existing release with other data (only to correct it before it is published).",
)
def release_command(version: str, root: str | None, force: bool) -> None:
    """Write releases/VERSION/ for the round VERSION closes (2026.12 closes round 2026-12): JSON,
    both CSV layouts, Parquet, BibTeX, the round's flow and agreement, the changes since the
    previous release, datapackage.json and SHA256SUMS. Then run `masrl build` so CITATION.cff and
    .zenodo.json carry the version."""
    from masrl.render.release import write_release

    corpus = load_or_exit(root)
    folder, names = write_release(corpus, version, force=force)
    rel = folder.relative_to(corpus.project.root).as_posix()
    click.echo(f"release {version}: wrote {len(names)} files to {rel}/ ({', '.join(names)})")

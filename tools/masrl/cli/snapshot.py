"""`masrl snapshot` and the --snapshot option shared by stats, gaps, claims and export."""

from __future__ import annotations

import click

from masrl.cli import load_or_exit, project_from, root_option

snapshot_option = click.option(
    "--snapshot",
    "snapshot",
    default=None,
    metavar="NAME",
    help="Read the frozen snapshot snapshots/NAME.json instead of the live corpus (e.g. survey-2026-05).",
)


def corpus_or_snapshot(root: str | None, snapshot: str | None, allow_placeholders: bool = False):
    """The live corpus, or the frozen one when a snapshot is named."""
    if snapshot:
        from masrl.check.snapshot import load_snapshot

        return load_snapshot(project_from(root), snapshot)
    return load_or_exit(root, allow_placeholders=allow_placeholders)


def beside_option(function):
    return click.option(
        "--beside",
        metavar="SNAPSHOT",
        default=None,
        help="Show each count beside its count on this frozen snapshot (markdown only), "
        "e.g. survey-2026-05.",
    )(function)


def baseline_corpus(root: str | None, beside: str | None, fmt: str):
    """The snapshot named by --beside, or None; the comparison is a table layout, so markdown only."""
    if not beside:
        return None
    if fmt != "markdown":
        from masrl.errors import UsageError

        raise UsageError("--beside works with --format markdown only")
    from masrl.check.snapshot import load_snapshot

    return load_snapshot(project_from(root), beside)


@click.group("snapshot")
def snapshot_group() -> None:
    """Freeze the corpus under a name, or list the frozen snapshots."""


@snapshot_group.command("freeze")
@click.argument("name")
@root_option
@click.option(
    "--force", is_flag=True, help="Overwrite an existing snapshot (only to correct it on purpose)."
)
def freeze_command(name: str, root: str | None, force: bool) -> None:
    """Write snapshots/NAME.json from the live corpus; never overwrites without --force."""
    from masrl.check.snapshot import freeze

    project = project_from(root)
    path = freeze(project, name, force=force)
    click.echo(f"froze {project.relative(path)}")


@snapshot_group.command("list")
@root_option
def list_command(root: str | None) -> None:
    """Print the names of the frozen snapshots."""
    from masrl.check.snapshot import known_snapshots

    for name in known_snapshots(project_from(root)):
        click.echo(name)

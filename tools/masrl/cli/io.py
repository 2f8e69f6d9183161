"""`masrl import ...` and `masrl export ...`."""

from __future__ import annotations

from pathlib import Path

import click

from masrl.cli import emit, output_option, project_from, root_option
from masrl.cli.snapshot import corpus_or_snapshot, snapshot_option


@click.group("import")
def import_group() -> None:
    """Scaffold corpus files from a CSV or BibTeX file."""


@import_group.command("csv")
@click.argument("csv_file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@root_option
@click.option("--force", is_flag=True, help="Overwrite existing files that differ.")
@click.option("--dry-run", is_flag=True, help="Show what would be written, write nothing.")
def import_csv(csv_file: Path, root: str | None, force: bool, dry_run: bool) -> None:
    """Import papers.csv or excluded.csv (the artifact layout) into corpus/ or exclusions/."""
    from masrl.imports.csv import CsvLayoutError, plan_import

    project = project_from(root)
    try:
        plan = plan_import(csv_file, project, force=force)
    except CsvLayoutError as exc:
        raise exc.nothing_written() from None
    _carry_out(plan, project, dry_run, plan.kind, "--force overwrites")


def _carry_out(
    plan, project, dry_run: bool, label: str, force_hint: str, extra_summary: str = ""
) -> None:
    """Write the planned files unless it is a dry run (all or none), then report each and
    summarise: nothing is reported as created before it is."""
    from masrl.imports.csv import apply_plan

    if not dry_run:
        apply_plan(plan)
    for planned in plan.files:
        if planned.status == "unchanged":
            continue
        rel = project.relative(planned.path)
        if planned.status == "exists":
            click.echo(
                f"kept    {rel} (differs in {', '.join(planned.changed_fields)}; {force_hint})"
            )
        else:
            verb = {
                "create": "would create" if dry_run else "created",
                "update": "would update" if dry_run else "updated",
            }
            extra = f" ({', '.join(planned.changed_fields)})" if planned.changed_fields else ""
            click.echo(f"{verb[planned.status]:<12} {rel}{extra}")
    click.echo(
        f"{label}: {plan.count('create')} new, {plan.count('update')} updated, "
        f"{plan.count('unchanged')} unchanged, {plan.count('exists')} kept{extra_summary}"
        + (" (dry run: nothing written)" if dry_run else "")
    )
    if not dry_run and plan.count("create") + plan.count("update"):
        click.echo("next: fill the TODO placeholders, then run `masrl validate`")


@click.group("export")
def export_group() -> None:
    """Write the corpus as CSV, BibTeX or JSON."""


@export_group.command("csv")
@root_option
@click.option(
    "--kind",
    type=click.Choice(["papers", "masrl", "exclusions"]),
    default="papers",
    show_default=True,
    help="papers: the survey artifact's layout; masrl: every entry field under its own name.",
)
@output_option
@snapshot_option
def export_csv_command(
    root: str | None, kind: str, output: Path | None, snapshot: str | None
) -> None:
    """Export entries (papers: the artifact's layout; masrl: masrl's own) or the screening log."""
    from masrl.exports.csv import export_csv

    emit(export_csv(corpus_or_snapshot(root, snapshot, allow_placeholders=True), kind), output)


@import_group.command("bib")
@click.argument("bib_file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@root_option
@click.option(
    "--force",
    is_flag=True,
    help="Update the bibliographic fields of existing files that differ (tags are kept).",
)
@click.option("--dry-run", is_flag=True, help="Show what would be written, write nothing.")
def import_bib(bib_file: Path, root: str | None, force: bool, dry_run: bool) -> None:
    """Scaffold corpus entries from a BibTeX file (tags left as TODO; known papers skipped)."""
    from masrl.exports.bibtex import BibtexError
    from masrl.imports.bibtex import plan_bib_import

    project = project_from(root)
    try:
        plan = plan_bib_import(bib_file, project, force=force)
    except BibtexError as exc:
        raise exc.nothing_written() from None
    for warning in plan.warnings:
        click.echo(f"warning: {warning}", err=True)
    for bib_key, why in plan.skipped:
        click.echo(f"skipped {bib_key}: {why}")
    _carry_out(
        plan,
        project,
        dry_run,
        "bib",
        "--force updates",
        f", {len(plan.skipped)} skipped as already recorded",
    )


@export_group.command("bib")
@root_option
@output_option
@snapshot_option
def export_bib_command(root: str | None, output: Path | None, snapshot: str | None) -> None:
    """Export every entry as BibTeX, keyed and sorted by corpus key (untagged entries too)."""
    from masrl.exports.bibtex import export_bibtex

    emit(export_bibtex(corpus_or_snapshot(root, snapshot, allow_placeholders=True).entries), output)


@export_group.command("json")
@root_option
@output_option
@snapshot_option
def export_json_command(root: str | None, output: Path | None, snapshot: str | None) -> None:
    """Export entries, exclusions and the taxonomy as one deterministic JSON document."""
    from masrl.exports.json import export_json

    # Strict: the site must never show a TODO.
    emit(export_json(corpus_or_snapshot(root, snapshot, allow_placeholders=False)), output)

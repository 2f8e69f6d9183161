"""`masrl import ...` and `masrl export ...`."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from .cli import project_from, root_option


def _fail(message: str) -> None:
    click.echo(message, err=True)
    sys.exit(1)


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
    from .csvio import CsvLayoutError, apply_plan, plan_import

    project = project_from(root)
    try:
        plan = plan_import(csv_file, project, force=force)
    except CsvLayoutError as exc:
        _fail("\n".join(exc.problems) + "\nnothing was written")
    for planned in plan.files:
        if planned.status == "unchanged":
            continue
        rel = project.relative(planned.path)
        if planned.status == "exists":
            click.echo(f"kept    {rel} (differs in {', '.join(planned.changed_fields)}; --force overwrites)")
        else:
            verb = {"create": "would create" if dry_run else "created", "update": "would update" if dry_run else "updated"}
            extra = f" ({', '.join(planned.changed_fields)})" if planned.changed_fields else ""
            click.echo(f"{verb[planned.status]:<12} {rel}{extra}")
    if not dry_run:
        apply_plan(plan)
    click.echo(
        f"{plan.kind}: {plan.count('create')} new, {plan.count('update')} updated, "
        f"{plan.count('unchanged')} unchanged, {plan.count('exists')} kept"
        + (" (dry run: nothing written)" if dry_run else "")
    )
    if not dry_run and plan.count("create") + plan.count("update"):
        click.echo("next: fill the TODO placeholders, then run `masrl validate`")


@click.group("export")
def export_group() -> None:
    """Write the corpus as CSV, BibTeX or JSON."""


@export_group.command("csv")
@root_option
@click.option("--kind", type=click.Choice(["papers", "exclusions"]), default="papers", show_default=True)
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="File to write (default: standard output).")
def export_csv_command(root: str | None, kind: str, output: Path | None) -> None:
    """Export entries (papers) or the screening log (exclusions) in the artifact's CSV layout."""
    from .csvio import export_csv
    from .model import CorpusInvalid, load_corpus

    try:
        corpus = load_corpus(project_from(root), allow_placeholders=True)
    except CorpusInvalid as exc:
        _fail(exc.report.render("text"))
    text = export_csv(corpus, kind)
    if output:
        from .yamlio import write_atomic

        write_atomic(output, text)
        click.echo(f"wrote {output}", err=True)
    else:
        click.echo(text, nl=False)

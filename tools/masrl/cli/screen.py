"""`masrl screen`: the ranked queue, decisions on it, and ASReview LAB export/import."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from masrl.cli import emit, output_option, project_from, root_option

screener_option = click.option(
    "--screener",
    envvar="MASRL_SCREENER",
    default=None,
    help="Who decides (free text; env MASRL_SCREENER).",
)
round_option = click.option(
    "--round", "round_id", default=None, help="Screening round (default: the record's round)."
)
date_option = click.option(
    "--date",
    type=click.DateTime(["%Y-%m-%d"]),
    default=None,
    help="Decision date (default: today).",
)


@click.group("screen")
def screen_group() -> None:
    """Screen the candidate queue, ranked by predicted relevance."""


@screen_group.command("list")
@root_option
@click.option(
    "--top", type=click.IntRange(min=1), default=None, help="Show only the first N records."
)
@click.option(
    "--terms",
    type=click.IntRange(min=0, max=20),
    default=3,
    show_default=True,
    help="Features shown per record.",
)
@click.option(
    "--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True
)
def list_command(root, top, terms, fmt) -> None:
    """The queue, most likely include first, with the features behind each score."""
    from masrl.screening.rank import rank_project

    ranked = rank_project(project_from(root), top_terms=terms)[:top]
    if fmt == "json":
        click.echo(
            json.dumps(
                [
                    {
                        "id": r.document.id,
                        "title": r.document.title,
                        "score": round(r.score, 4),
                        "features": [{"feature": n, "weight": round(w, 4)} for n, w in r.reasons],
                    }
                    for r in ranked
                ],
                indent=2,
            )
        )
        return
    if not ranked:
        click.echo("the screening queue is empty")
        return
    for position, item in enumerate(ranked, start=1):
        click.echo(f"{position:3}. {item.score:.3f}  {item.document.id}  {item.document.title}")
        if item.reasons:
            click.echo(
                "       " + ", ".join(f"{name} (+{weight:.2f})" for name, weight in item.reasons)
            )


@screen_group.command("show")
@click.argument("record_id")
@root_option
@click.option("--terms", type=click.IntRange(min=1, max=50), default=10, show_default=True)
def show_command(record_id, root, terms) -> None:
    """One queue record with its score and the features that drove it."""
    from masrl.errors import InputError
    from masrl.screening.rank import rank_project

    ranked = rank_project(project_from(root), top_terms=terms)
    for position, item in enumerate(ranked, start=1):
        if item.document.id == record_id:
            d = item.document
            click.echo(
                f"{d.id}: {d.title}\nrank {position} of {len(ranked)}, score {item.score:.3f}"
            )
            click.echo(
                f"authors: {'; '.join(d.authors) or '-'}\ncategories: {', '.join(d.categories) or '-'}"
            )
            click.echo(
                f"families: {', '.join(d.families) or '-'}\n\n{d.text[len(d.title) :].lstrip('. ')}\n"
            )
            for name, weight in item.reasons:
                click.echo(f"  +{weight:.3f}  {name}")
            return
    raise InputError(
        f"'{record_id}' is not in the screening queue",
        path="screening/queue",
        hint="run `masrl screen list` to see the queue ids",
    )


def _decide(
    root, record_id, decision, screener, round_id, date, reason=None, rationale=None
) -> None:
    from masrl.screening.decide import decide

    result = decide(
        project_from(root),
        record_id,
        decision,
        screener or "",
        round_id=round_id,
        reason_code=reason,
        rationale=rationale,
        today=date.date() if date else None,
    )
    click.echo(
        f"{result.decision.decision}: {record_id} (round {result.decision.round}, {result.decision.screener})"
    )
    if result.written:
        click.echo(f"wrote {result.written}")
    if result.todo:
        click.echo(f"to fill in before `masrl validate` passes: {', '.join(result.todo)}")


@screen_group.command("include")
@click.argument("record_id")
@root_option
@screener_option
@round_option
@date_option
def include_command(record_id, root, screener, round_id, date) -> None:
    """Include a queue record: scaffold its corpus entry (tags left TODO)."""
    _decide(root, record_id, "include", screener, round_id, date)


@screen_group.command("exclude")
@click.argument("record_id")
@click.option("--reason", required=True, help="Exclusion reason code, e.g. no_rl_component.")
@click.option("--rationale", required=True, help="One line, in your own words, on why it is out.")
@root_option
@screener_option
@round_option
@date_option
def exclude_command(record_id, reason, rationale, root, screener, round_id, date) -> None:
    """Exclude a queue record: write its exclusion record."""
    _decide(root, record_id, "exclude", screener, round_id, date, reason, rationale)


@screen_group.command("defer")
@click.argument("record_id")
@root_option
@screener_option
@round_option
@date_option
def defer_command(record_id, root, screener, round_id, date) -> None:
    """Defer a queue record: record the decision, keep it in the queue."""
    _decide(root, record_id, "defer", screener, round_id, date)


@screen_group.command("export")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["asreview", "ris"]),
    default="asreview",
    show_default=True,
    help="asreview: ASReview LAB's CSV layout; ris: RIS (ASReview LAB and reference managers read it).",
)
@click.option(
    "--labelled", is_flag=True, help="Add masrl's decided records as prior labels (included 1/0)."
)
@root_option
@output_option
def export_command(fmt, labelled, root, output) -> None:
    """Write the queue as a CSV or RIS file that ASReview LAB imports."""
    from masrl.screening.asreview_io import export_csv, export_ris

    emit((export_ris if fmt == "ris" else export_csv)(project_from(root), labelled), output)


@screen_group.command("import")
@click.argument("project_file", type=click.Path(dir_okay=False, path_type=Path))
@root_option
@screener_option
@round_option
def import_command(project_file, root, screener, round_id) -> None:
    """Read an ASReview LAB project's decisions (PROJECT.asreview) into masrl."""
    from masrl.screening.asreview_io import import_project

    report = import_project(project_from(root), project_file, screener, round_id)
    for line in report.applied:
        click.echo(f"decided {line}")
    click.echo(
        f"{len(report.applied)} decision(s) imported, {len(report.agreed)} already recorded the same way"
    )
    for title, lines in (
        ("contradicts masrl (adjudicate; nothing was overwritten)", report.contradictions),
        ("not matched (nothing was written for them)", report.unmatched),
        ("refused", report.problems),
    ):
        if lines:
            click.echo(f"{len(lines)} {title}:", err=True)
            for line in lines:
                click.echo(f"  {line}", err=True)
    if not report.clean:
        sys.exit(1)

"""`masrl discover`."""

from __future__ import annotations

import datetime as dt

import click

from masrl.cli import project_from, root_option
from masrl.cli.contribute import _settings, arxiv_options
from masrl.screening.discover import DEFAULT_MAX_RESULTS


@click.command("discover")
@click.option(
    "--since",
    type=click.DateTime(["%Y-%m-%d"]),
    required=True,
    help="First submission date searched.",
)
@click.option(
    "--until",
    type=click.DateTime(["%Y-%m-%d"]),
    default=None,
    help="Last submission date searched (default: today).",
)
@click.option(
    "--family",
    "families",
    multiple=True,
    metavar="ID",
    help="Query family to run (repeatable; default: every family with an arXiv query).",
)
@click.option(
    "--round",
    "round_id",
    default=None,
    help="Round the candidates belong to (default: YYYY-MM of --until).",
)
@click.option(
    "--max-results",
    type=click.IntRange(min=1),
    default=DEFAULT_MAX_RESULTS,
    show_default=True,
    help="Most papers asked for per family.",
)
@root_option
@arxiv_options
def discover_command(
    since,
    until,
    families,
    round_id,
    max_results,
    root,
    api_url,
    timeout,
    retries,
    backoff,
    max_wait,
    delay,
) -> None:
    """Run the query families against arXiv for papers submitted from --since to --until, drop
    those already in the corpus, the exclusions or the queue, and write the rest to
    screening/queue/. Resumes after an interruption; a second run adds nothing twice."""
    from tqdm import tqdm

    from masrl.imports.arxiv import ArxivClient
    from masrl.screening.discover import discover, family_queries

    project = project_from(root)
    settings = _settings(api_url, timeout, retries, backoff, max_wait, delay)
    total = len(family_queries(project, list(families) or None))
    with tqdm(total=total, unit="family", desc="discover", disable=None, leave=False) as bar:

        def progress(family: str, found: int) -> None:
            bar.set_postfix_str(f"{family}: {found} found")
            bar.update(1)

        result = discover(
            project,
            since.date(),
            (until or dt.datetime.now()).date(),
            ArxivClient(settings),
            families=list(families) or None,
            round_id=round_id,
            max_results=max_results,
            progress=progress,
        )
    if result.resumed:
        click.echo(
            f"resumed: skipped {', '.join(result.resumed)} (finished in the interrupted run)"
        )
    for stem in result.added:
        click.echo(f"queued screening/queue/{stem}.yaml")
    click.echo(
        f"discover: {len(result.added)} new candidate(s) in round {result.round}, "
        f"{len(result.known)} already recorded, {len(set(result.merged))} matched another family too"
    )

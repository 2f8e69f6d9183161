"""`masrl snowball`."""

from __future__ import annotations

import click

from masrl.cli import project_from, root_option
from masrl.imports.openalex import API_URL_ENV, DEFAULT_API_URL, MAILTO_ENV


@click.command("snowball")
@click.option(
    "--entry",
    "entries",
    multiple=True,
    metavar="KEY",
    help="Seed entry (repeatable; default: every entry).",
)
@click.option(
    "--round", "seed_round", default=None, metavar="ROUND", help="Seed from this round's entries."
)
@click.option(
    "--direction",
    type=click.Choice(["backward", "forward", "both"]),
    default="both",
    show_default=True,
    help="backward: works the seeds cite; forward: works citing the seeds.",
)
@click.option(
    "--since",
    type=click.DateTime(["%Y-%m-%d"]),
    default=None,
    help="Earliest publication date of a work found.",
)
@click.option(
    "--until",
    type=click.DateTime(["%Y-%m-%d"]),
    default=None,
    help="Latest publication date of a work found.",
)
@click.option(
    "--to-round",
    "round_id",
    default=None,
    metavar="ROUND",
    help="Round the candidates belong to (default: YYYY-MM of --until or today; opened if new).",
)
@click.option(
    "--api-url",
    envvar=API_URL_ENV,
    default=DEFAULT_API_URL,
    show_default=True,
    help=f"OpenAlex API address (env {API_URL_ENV}).",
)
@click.option(
    "--mailto",
    envvar=MAILTO_ENV,
    default=None,
    metavar="EMAIL",
    help=f"E-mail sent to OpenAlex for its polite pool (env {MAILTO_ENV}).",
)
@click.option(
    "--timeout",
    type=click.FloatRange(min=0.01),
    default=30.0,
    show_default=True,
    help="Seconds for each request, the whole answer included.",
)
@click.option(
    "--retries",
    type=click.IntRange(min=0),
    default=3,
    show_default=True,
    help="Further attempts after a timeout, busy server or unreadable answer.",
)
@click.option(
    "--max-wait",
    type=click.FloatRange(min=0),
    default=60.0,
    show_default=True,
    help="Longest Retry-After (seconds) masrl waits for before giving up.",
)
@click.option(
    "--delay",
    envvar="MASRL_OPENALEX_DELAY",
    type=click.FloatRange(min=0),
    default=0.1,
    show_default=True,
    help="Seconds between requests (OpenAlex allows about ten a second).",
)
@click.option(
    "--refresh",
    is_flag=True,
    help="Ask OpenAlex again instead of reading answers cached under $MASRL_CACHE_DIR/openalex.",
)
@root_option
def snowball_command(
    entries,
    seed_round,
    direction,
    since,
    until,
    round_id,
    api_url,
    mailto,
    timeout,
    retries,
    max_wait,
    delay,
    refresh,
    root,
) -> None:
    """Citation searching: resolve each seed entry to an OpenAlex work (DOI, arXiv id, exact
    title; recorded in citations/graph.yaml), then follow its references (backward) and the works
    citing it (forward). Corpus entries found become edges of citations/graph.yaml; works already
    recorded are dropped; the rest go to screening/queue/ with method: citation, the direction and
    the seeds. Nothing is written when a request fails; answers are cached, so a rerun resumes."""
    from tqdm import tqdm

    from masrl.imports.openalex import OpenAlexClient, OpenAlexSettings, default_cache_dir
    from masrl.screening.snowball import choose_seeds, corpus_seeds, snowball

    project = project_from(root)
    settings = OpenAlexSettings(
        api_url=api_url,
        mailto=mailto,
        timeout=timeout,
        retries=retries,
        max_wait=max_wait,
        delay=delay,
        cache_dir=default_cache_dir(),
        max_age=0.0 if refresh else OpenAlexSettings.max_age,
    )
    total = len(choose_seeds(corpus_seeds(project), list(entries) or None, seed_round))
    with tqdm(total=total, unit="entry", desc="snowball", disable=None, leave=False) as bar:

        def progress(key: str) -> None:
            bar.set_postfix_str(key)
            bar.update(1)

        result = snowball(
            project,
            OpenAlexClient(settings),
            entries=list(entries) or None,
            seed_round=seed_round,
            direction=direction,
            since=since.date() if since else None,
            until=until.date() if until else None,
            round_id=round_id,
            progress=progress,
        )
    for stem in result.added:
        click.echo(f"queued screening/queue/{stem}.yaml")
    if result.unresolved:
        click.echo(
            f"not in OpenAlex ({len(result.unresolved)}): {', '.join(result.unresolved)}; record "
            "their references by hand in citations/graph.yaml (CONTRIBUTING.md)"
        )
    if result.no_references:
        click.echo(
            f"no references in OpenAlex ({len(result.no_references)}): "
            f"{', '.join(result.no_references)}"
        )
    hits = ", ".join(f"{n} {d}" for d, n in result.hits.items() if n) or "none"
    click.echo(
        f"snowball: {len(result.seeds)} seed(s), hits {hits}; {len(result.added)} new "
        f"candidate(s) in round {result.round}, {len(result.known)} already recorded; "
        f"{result.edges} OpenAlex edge(s) in citations/graph.yaml"
    )

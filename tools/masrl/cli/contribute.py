"""`masrl add` and `masrl verify-metadata`: thin shells over add.py and verify_metadata.py."""

from __future__ import annotations

import datetime as dt
import sys
import textwrap
from pathlib import Path

import click

from masrl.cli import project_from, root_option
from masrl.imports.arxiv import API_URL_ENV, DEFAULT_API_URL, ArxivLookupError, ArxivSettings
from masrl.text import terminal_safe

# Options shared by every command that talks to arXiv; each can also be set in the environment.
_ARXIV_OPTIONS = (
    click.option(
        "--api-url",
        envvar=API_URL_ENV,
        default=DEFAULT_API_URL,
        show_default=True,
        help=f"arXiv API endpoint (env {API_URL_ENV}).",
    ),
    click.option(
        "--timeout",
        envvar="MASRL_ARXIV_TIMEOUT",
        type=click.FloatRange(min=0.01),
        default=30.0,
        show_default=True,
        help="Seconds for each request, the whole answer included.",
    ),
    click.option(
        "--retries",
        envvar="MASRL_ARXIV_RETRIES",
        type=click.IntRange(min=0),
        default=3,
        show_default=True,
        help="Further attempts after a network error, timeout or busy server.",
    ),
    click.option(
        "--backoff",
        envvar="MASRL_ARXIV_BACKOFF",
        type=click.FloatRange(min=0),
        default=3.0,
        show_default=True,
        help="Seconds before the first retry; doubles on each further retry.",
    ),
    click.option(
        "--max-wait",
        envvar="MASRL_ARXIV_MAX_WAIT",
        type=click.FloatRange(min=0),
        default=60.0,
        show_default=True,
        help="Longest Retry-After (seconds) masrl waits for before giving up.",
    ),
    click.option(
        "--delay",
        envvar="MASRL_ARXIV_DELAY",
        type=click.FloatRange(min=0),
        default=3.0,
        show_default=True,
        help="Seconds between requests (arXiv asks for 3).",
    ),
)


def arxiv_options(command):
    for option in reversed(_ARXIV_OPTIONS):
        command = option(command)
    return command


def _settings(api_url, timeout, retries, backoff, max_wait, delay) -> ArxivSettings:
    try:
        return ArxivSettings(
            api_url=api_url,
            timeout=timeout,
            retries=retries,
            backoff=backoff,
            max_wait=max_wait,
            delay=delay,
        )
    except ArxivLookupError as exc:
        raise click.BadParameter(exc.message, param_hint="--api-url") from exc


# ---------------------------------------------------------------------------------------------
# add


@click.command("add")
@click.argument("reference")
@root_option
@click.option(
    "--exclude", is_flag=True, help="Write an exclusion record instead of a corpus entry."
)
@click.option("--stage", help="With --exclude: the screening stage, e.g. abstract_screen.")
@click.option("--reason", help="With --exclude: the exclusion reason code, e.g. no_rl_component.")
@click.option(
    "--query-family", default=None, help="With --exclude: the query family (default: a TODO)."
)
@arxiv_options
def add_command(reference, root, exclude, stage, reason, query_family, **arxiv):
    """Scaffold corpus/<key>.yaml from arXiv (an id such as 2508.04652, or an arXiv URL).

    The facts are filled in; every tag is a TODO that `masrl validate` rejects until you fill it.
    """
    from masrl.imports.add import ExclusionChoice, add_paper
    from masrl.model.records import PLACEHOLDER

    if exclude and not (stage and reason):
        raise click.UsageError("--exclude needs --stage and --reason")
    if not exclude and (stage or reason or query_family):
        raise click.UsageError("--stage, --reason and --query-family go with --exclude")
    project = project_from(root)
    choice = ExclusionChoice(stage, reason, query_family or PLACEHOLDER) if exclude else None
    try:
        result = add_paper(project, reference, _settings(**arxiv), exclude=choice)
    except ArxivLookupError as exc:
        raise exc.nothing_written() from None
    click.echo(
        terminal_safe(_describe_added(project, result))
    )  # arXiv's text is not ours to print raw


def _describe_added(project, result) -> str:
    meta = result.metadata
    rel = project.relative(result.path)
    authors = (
        (meta.authors[0].split(",")[0] + (" et al." if len(meta.authors) > 1 else ""))
        if meta.authors
        else "no authors listed"
    )
    lines = [
        f"created {rel}",
        f"  {meta.title} ({authors}, {meta.year}; arXiv {meta.arxiv_id}{meta.version})",
    ]
    if meta.journal_ref:
        lines.append(
            f"  arXiv reports a journal reference: {meta.journal_ref} (set venue if you cite that version)"
        )
    lines += ["", "abstract (for tagging only; it is not stored in the corpus):"]
    lines += textwrap.wrap(
        meta.abstract or "(none)", width=96, initial_indent="  ", subsequent_indent="  "
    )
    lines += ["", f"left to fill in {rel}:"]
    lines += [f"  {name:<20} {_hint_for(project, name)}" for name in result.todo]
    lines += ["", "then run: masrl validate"]
    return "\n".join(lines)


def _hint_for(project, name: str) -> str:
    from masrl.model.records import entry_specs, exclusion_specs

    taxonomy = project.taxonomy()
    specs = {s.name: s for s in (*entry_specs(taxonomy), *exclusion_specs(taxonomy))}
    spec = specs[name]
    if not spec.axis:
        return spec.description
    values = ", ".join(project.taxonomy()[spec.axis].ids)
    if spec.kind == "tags":
        return f"a list of: {values}; [] when none"
    return f"one of: {values}" + ("; or null" if spec.nullable else "")


# ---------------------------------------------------------------------------------------------
# verify-metadata


@click.command("verify-metadata")
@root_option
@click.option(
    "--max-age",
    type=click.FloatRange(min=0),
    default=30.0,
    show_default=True,
    help="Days a cached arXiv answer stays fresh.",
)
@click.option("--refresh", is_flag=True, help="Ignore the cache and ask arXiv again.")
@click.option(
    "--cache-dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Cache folder (default: .cache/masrl/arxiv under the corpus root).",
)
@click.option("--report-only", is_flag=True, help="Report mismatches but exit 0.")
@click.option(
    "--apply",
    "apply",
    is_flag=True,
    help="Write new arXiv versions, and journal references and DOIs where the entry has none, into the "
    "entry files (a differing value is only reported).",
)
@arxiv_options
def verify_metadata_command(root, max_age, refresh, cache_dir, report_only, apply, **arxiv):
    """Compare each entry's title, year and first author with arXiv; exit 1 on mismatches.

    Also reports what arXiv has learnt since: new versions, journal references and DOIs."""
    from tqdm import tqdm

    from masrl.imports.verify_metadata import (
        MetadataCache,
        apply_updates,
        default_cache_dir,
        verify_metadata,
    )

    project = project_from(root)
    cache = MetadataCache(cache_dir or default_cache_dir(project), dt.timedelta(days=max_age))
    bars = []

    def progress_start(total: int):
        bar = tqdm(
            total=total, desc="arXiv", unit="paper", file=sys.stderr, disable=None, leave=False
        )
        bars.append(bar)
        return bar.update

    try:
        report = verify_metadata(
            project, _settings(**arxiv), cache, refresh=refresh, progress_start=progress_start
        )
    finally:
        for bar in bars:
            bar.close()
    if apply:
        apply_updates(project, report)
    click.echo(report.render())
    sys.exit(1 if report.mismatches and not report_only else 0)

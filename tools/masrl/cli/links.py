"""`masrl links check`: the health of every outgoing link, written to links/health.yaml."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import click

from masrl.cli import load_or_exit, root_option


@click.group("links")
def links_group() -> None:
    """Outgoing links of the corpus: check that they still answer."""


@links_group.command("check")
@root_option
@click.option(
    "--timeout", type=float, default=15.0, show_default=True, help="Seconds to wait for each link."
)
@click.option(
    "--deadline",
    type=float,
    default=600.0,
    show_default=True,
    help="Seconds for the whole run; links not reached keep their last result.",
)
@click.option(
    "--workers", type=int, default=8, show_default=True, help="Links fetched at once (1 to 64)."
)
@click.option(
    "--wayback-api",
    default="https://archive.org/wayback/available",
    show_default=True,
    help="The Wayback Machine availability API, asked for an archived copy of each broken link.",
)
@click.option(
    "--date",
    "today",
    type=click.DateTime(["%Y-%m-%d"]),
    default=None,
    help="The 'last checked' date to record (default: today).",
)
@click.option(
    "--broken-report",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Also write the dead and unreachable links as Markdown (an empty file when none), "
    "for the weekly workflow's issue.",
)
def check_links_command(
    root: str | None,
    timeout: float,
    deadline: float,
    workers: int,
    wayback_api: str,
    today: dt.datetime | None,
    broken_report: Path | None,
) -> None:
    """Fetch every entry's links (urls, code, project_page, data, weights and the pages they were
    read from), follow redirects, look up archived copies of broken ones, and record each link's
    state and the date it was last checked in links/health.yaml."""
    from masrl.check.link_health import (
        HEALTH_FILE,
        LinkSettings,
        broken_links_markdown,
        check_project_links,
    )
    from masrl.files import write_atomic

    settings = LinkSettings(
        timeout=timeout,
        deadline=deadline,
        workers=workers,
        wayback_api=wayback_api,
        today=today.date() if today else None,
    )
    report = check_project_links(load_or_exit(root), settings)
    if broken_report is not None:
        write_atomic(broken_report, broken_links_markdown(report.links))
    click.echo(f"{report.summary_line()}; wrote {HEALTH_FILE.as_posix()}")

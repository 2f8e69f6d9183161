"""`masrl flow`."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path

import click

from masrl.cli import emit, load_or_exit, output_option, root_option


@click.command("flow")
@root_option
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["markdown", "json"]),
    default="markdown",
    show_default=True,
)
@click.option(
    "--estimate",
    is_flag=True,
    help="Also estimate each round's completeness by capture-recapture (Chapman) over the records "
    "included via database search and via citation searching.",
)
@output_option
def flow_command(root: str | None, fmt: str, estimate: bool, output: Path | None) -> None:
    """Records identified (by database search per source, and by citation searching per direction),
    duplicates removed, screened, excluded per stage and reason, included and waiting, for each
    screening round and over all rounds."""
    from masrl.derive.flow import compute_flow, round_estimates
    from masrl.render.flow import estimate_markdown, flow_markdown, last_screened_line

    flow = compute_flow(load_or_exit(root))
    estimates = round_estimates(flow) if estimate else []
    if fmt == "json":

        def plain(f):
            data = asdict(f)
            data["excluded"] = [
                {"stage": s, "reason": r, "records": n} for (s, r), n in f.excluded.items()
            ]
            return data

        data = {"rounds": [plain(f) for f in flow.rounds], "cumulative": plain(flow.cumulative)}
        if estimate:
            data["estimates"] = [asdict(e) for e in estimates]
        text = json.dumps(data, indent=2, sort_keys=True) + "\n"
    else:
        text = last_screened_line(flow) + "\n\n" + flow_markdown(flow)
        if estimate:
            text += "\n## How complete is each round?\n\n" + estimate_markdown(estimates)
    emit(text, output)

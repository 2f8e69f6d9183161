"""`masrl flow`."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path

import click

from masrl.cli import emit, load_or_exit, output_option, root_option


@click.command("flow")
@root_option
@click.option("--format", "fmt", type=click.Choice(["markdown", "json"]), default="markdown", show_default=True)
@output_option
def flow_command(root: str | None, fmt: str, output: Path | None) -> None:
    """Records identified per source, duplicates removed, screened, excluded per stage and reason,
    included and waiting, for each screening round and over all rounds."""
    from masrl.derive.flow import compute_flow
    from masrl.render.flow import flow_markdown, last_screened_line

    flow = compute_flow(load_or_exit(root))
    if fmt == "json":
        def plain(f):
            data = asdict(f)
            data["excluded"] = [{"stage": s, "reason": r, "records": n} for (s, r), n in f.excluded.items()]
            return data

        text = json.dumps({"rounds": [plain(f) for f in flow.rounds], "cumulative": plain(flow.cumulative)},
                          indent=2, sort_keys=True) + "\n"
    else:
        text = last_screened_line(flow) + "\n\n" + flow_markdown(flow)
    emit(text, output)

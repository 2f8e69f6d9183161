"""The orchestration-trace schema reference and the example traces, each with its figure."""

from __future__ import annotations

import json
import tempfile
from functools import lru_cache
from pathlib import Path
from urllib.parse import quote

from masrl.render.site.context import CHECKOUT_ROOT, SiteContext, html_href
from masrl.render.site.escape import anchor_id, md_text
from masrl.render.site.markdown import code_block, compact_tables, figure

OVERVIEW_PAGE = "traces/index.md"
SCHEMA_PAGE = "traces/schema.md"
OVERVIEW_FRAGMENT = Path("docs_fragments") / "traces.md"
EXAMPLES_PAGE = "traces/examples.md"
FIGURE_DIR = "figures/traces"
# Metrics shown for each example, as `masrl trace metrics` names them.
METRIC_ROWS = (
    ("events", "Events"),
    ("edges", "Edges"),
    ("agents", "Agents"),
    ("work", "Work (sum of event durations)"),
    ("span", "Span (critical path)"),
    ("parallelism", "Parallelism (work / span)"),
    ("max_fan_out", "Largest fan-out of one spawner"),
    ("spawn_depth", "Spawn depth"),
    ("messages", "Messages"),
    ("tool_calls", "Tool calls"),
    ("stop_reason", "Stop reason"),
)


PERFETTO_UI = "https://ui.perfetto.dev/"


def trace_pages(ctx: SiteContext) -> tuple[dict[str, str], dict[str, bytes]]:
    """(pages, files): the overview, the schema reference, the examples with their figures and
    their Perfetto files."""
    pages, files = _trace_pages(ctx.site_url)
    return {OVERVIEW_PAGE: overview_markdown(ctx.corpus.project.root), **pages}, files


def overview_markdown(project_root: Path) -> str:
    """docs_fragments/traces.md (the project's, else the checkout's), which the README shares."""
    for root in (project_root, CHECKOUT_ROOT):
        if (root / OVERVIEW_FRAGMENT).is_file():
            text = (root / OVERVIEW_FRAGMENT).read_text(encoding="utf-8")
            break
    else:
        text = "# Orchestration traces\n\nAn orchestration trace records one run of an agent team as a temporal event graph.\n"
    return (
        text.rstrip()
        + "\n\nSee the [field-by-field schema reference](schema.md) and the [example traces](examples.md).\n"
    )


@lru_cache(maxsize=4)
def _trace_pages(site_url: str | None) -> tuple[dict[str, str], dict[str, bytes]]:
    # The trace pages do not depend on the corpus: render them once per process.
    from masrl.traces import examples_directory
    from masrl.traces.export_perfetto import export_perfetto
    from masrl.traces.schema import schema_reference_markdown

    folder = examples_directory()
    examples = sorted(folder.glob("*.json")) if folder.is_dir() else []
    files = {f"{FIGURE_DIR}/{path.stem}.svg": _figure_svg(path) for path in examples}
    files.update({perfetto_file(path): export_perfetto(path).encode("utf-8") for path in examples})
    schema = schema_reference_markdown().rstrip() + "\n\n" + _examples_pointer(examples) + "\n"
    return {SCHEMA_PAGE: schema, EXAMPLES_PAGE: examples_markdown(examples, site_url)}, files


def perfetto_file(example: Path) -> str:
    """Where the site ships an example's trace-event file (as `masrl trace export --to perfetto`)."""
    return f"{FIGURE_DIR}/{example.stem}.perfetto.json"


def perfetto_links(page: str, example: Path, site_url: str | None) -> str:
    """Download the example's Perfetto file; on a published https site also open it in the
    Perfetto UI directly (the UI fetches a public https file by its address: url=)."""
    download = html_href(page, perfetto_file(example))
    links = [
        f'<a href="{download}" download>Perfetto trace-event file</a> '
        f'(<code>masrl trace export --to perfetto</code>; open it at <a href="{PERFETTO_UI}">ui.perfetto.dev</a> '
        "or chrome://tracing)"
    ]
    if site_url and site_url.startswith("https://"):
        address = quote(site_url + perfetto_file(example), safe=":/")
        links.insert(
            0,
            f'<a href="{PERFETTO_UI}#!/?url={address}" rel="noopener">Open in the Perfetto UI</a>',
        )
    return '<p class="masrl-perfetto">' + " · ".join(links) + "</p>"


def _examples_pointer(examples: list[Path]) -> str:
    return f"## Examples\n\nThe [{len(examples)} example traces](examples.md) show the schema in use, each with its figure."


def _figure_svg(path: Path) -> bytes:
    from masrl.render.cache import cached_files, code_fingerprint
    from masrl.traces import figure as trace_figure

    source = path.read_bytes()

    def draw() -> dict[str, bytes]:
        trace = json.loads(source.decode("utf-8"))
        with tempfile.TemporaryDirectory() as scratch:
            target = Path(scratch) / f"{path.stem}.svg"
            trace_figure.render_trace_figure(trace, target)
            return {"svg": target.read_bytes()}

    # The trace file and the drawing code (with the view it lays events out from) decide the
    # picture: drawn again only when they change.
    return cached_files("trace", [source, code_fingerprint()], draw)["svg"]


def examples_markdown(examples: list[Path], site_url: str | None = None) -> str:
    page = EXAMPLES_PAGE
    parts = [
        "# Example traces",
        "",
        (
            "Small orchestration traces, valid under the [trace schema](schema.md), one per kind of team. "
            "Each figure draws the events on a time axis, one lane per agent, with the dependency edges "
            "between them. The files ship with masrl in `tools/masrl/traces/examples/`; "
            "`masrl trace validate`, `masrl trace metrics` and `masrl trace figure` read them."
        ),
        "",
    ]
    if not examples:
        parts += ["No example traces ship with this version.", ""]
    for path in examples:
        trace = json.loads(path.read_text(encoding="utf-8"))
        description = _describe(trace)
        heading = f"{path.stem.replace('_', ' ').capitalize()} ({path.name})"
        parts += [f"## {md_text(heading)} {{ #{anchor_id(path.stem)} }}", ""]
        if description:
            parts += [md_text(description), ""]
        src = html_href(page, f"{FIGURE_DIR}/{path.stem}.svg")
        parts += [
            figure(
                src, md_text(f"Trace {trace.get('trace_id', path.stem)}"), md_text(_facts(trace))
            ),
            "",
        ]
        parts += [perfetto_links(page, path, site_url), ""]
        parts += [_metrics_table(trace), ""]
        parts += [f'??? example "The trace as JSON ({md_text(path.name)})"', ""]
        block = code_block(json.dumps(trace, indent=2, ensure_ascii=False), "json")
        parts += ["    " + line if line else "" for line in block.splitlines()]
        parts += [""]
    return "\n".join(parts)


def _metrics_table(trace: dict) -> str:
    from masrl.traces.metrics import trace_metrics

    metrics = trace_metrics(trace)
    rows = [
        [label, md_text(metrics[key])] for key, label in METRIC_ROWS if metrics.get(key) is not None
    ]
    rewards = [
        f"{md_text(k.split('.', 1)[1])} = {md_text(v)}"
        for k, v in sorted(metrics.items())
        if k.startswith("reward.")
    ]
    if rewards:
        rows.append(["Rewards by channel", ", ".join(rewards)])
    return compact_tables(
        [("Orchestration metrics (<code>masrl trace metrics</code>)", ["Metric", "Value"], rows)]
    )


def _describe(trace: dict) -> str:
    meta = trace.get("meta") if isinstance(trace.get("meta"), dict) else {}
    return str(meta.get("description") or meta.get("summary") or "")


def _facts(trace: dict) -> str:
    """The figure caption: what the trace is and how to read the drawing."""
    topology = trace.get("topology") or "unknown"
    return (
        f"Task {trace.get('task_id', '?')}, topology {topology}. One lane per agent, time from left "
        "to right; markers are event types and lines the edges between events, styled by edge type."
    )

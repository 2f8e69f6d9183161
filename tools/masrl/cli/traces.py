"""`masrl trace ...`: thin shells over ``validate``, ``metrics``, ``figure``, ``schema``,
``importers``, ``export_perfetto`` and the trace-set modules."""

from __future__ import annotations

import functools
import itertools
import sys
from pathlib import Path

import click

from ..traces.importers import FORMATS
from ..traces.io import DEFAULT_MAX_TRACE_BYTES, DEFAULT_MAX_TRACE_EVENTS, Limits, format_size
from ..traces.problems import DEFAULT_MAX_PROBLEMS
from . import CONTEXT_SETTINGS, ErrorReportingGroup

paths_argument = click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
jobs_option = click.option(
    "--jobs",
    "-j",
    type=click.IntRange(min=1),
    default=None,
    help="Worker processes for many files [default: all CPUs].",
)
progress_option = click.option(
    "--progress/--no-progress",
    default=None,
    help="Progress bar on stderr [default: only on a terminal].",
)


class ByteSize(click.ParamType):
    """A size in bytes: 1500, 64K, 512M, 2G (powers of 1024)."""

    name = "size"
    UNITS = {"": 1, "K": 2**10, "M": 2**20, "G": 2**30}

    def convert(self, value, param, ctx):
        if isinstance(value, int):
            return value
        text = str(value).strip().upper().removesuffix("B").removesuffix("I")
        number, unit = text.rstrip("KMG"), text[len(text.rstrip("KMG")) :]
        if number.isdigit() and unit in self.UNITS and int(number) > 0:
            return int(number) * self.UNITS[unit]
        self.fail(f"{value!r} is not a size such as 1500, 64K, 512M or 2G", param, ctx)


def limit_options(command):
    """--max-trace-bytes and --max-trace-events, handed to the command as ``limits``."""

    @functools.wraps(command)
    def wrapper(*args, max_trace_bytes, max_trace_events, **kwargs):
        return command(*args, limits=Limits(max_trace_bytes, max_trace_events), **kwargs)

    wrapper = click.option(
        "--max-trace-events",
        type=click.IntRange(min=1),
        default=DEFAULT_MAX_TRACE_EVENTS,
        show_default=True,
        help="Refuse a trace with more events (spans, for import) than this.",
    )(wrapper)
    return click.option(
        "--max-trace-bytes",
        type=ByteSize(),
        default=format_size(DEFAULT_MAX_TRACE_BYTES),
        show_default=True,
        help="Refuse a trace larger than this once decompressed (a gzip bomb stops here).",
    )(wrapper)


@click.group(cls=ErrorReportingGroup, context_settings=CONTEXT_SETTINGS)
def trace() -> None:
    """Validate orchestration traces, compute their metrics, import them from agent stacks,
    export them to trace viewers, and collect and query trace sets.

    A trace is one run of an agent team as a temporal event graph; see `masrl trace schema`.
    FILE arguments may be .json, .jsonl (one trace per line) or either gzipped; DIR arguments
    are searched recursively.
    """


@trace.command()
@paths_argument
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "json", "github"]),
    default="text",
    show_default=True,
    help="text for people, github for Actions annotations, json for tools.",
)
@click.option("--strict", is_flag=True, help="Fail on warnings too.")
@click.option(
    "--max-problems",
    type=click.IntRange(min=1),
    default=DEFAULT_MAX_PROBLEMS,
    show_default=True,
    help="Problems listed per trace (all are counted).",
)
@jobs_option
@progress_option
@limit_options
def validate(paths, fmt, strict, max_problems, jobs, progress, limits) -> None:
    """Check traces against the schema and the semantic rules; exit 1 if any is invalid.

    \b
    Examples:
      masrl trace validate run.json
      masrl trace validate traces/ --format github
    """
    from ..traces.validate import validate_paths

    report = validate_paths(
        paths, jobs=jobs, progress=progress, max_problems=max_problems, limits=limits
    )
    click.echo(report.render(fmt))
    sys.exit(0 if report.ok(strict) else 1)


@trace.command()
@paths_argument
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["table", "json", "csv"]),
    default="table",
    show_default=True,
)
@click.option("--summary", "summary_only", is_flag=True, help="Only the aggregate over all traces.")
@jobs_option
@progress_option
@limit_options
def metrics(paths, fmt, summary_only, jobs, progress, limits) -> None:
    """Orchestration metrics per trace (work, span, parallelism, fan-out, costs, rewards) and
    an aggregate summary. Invalid traces are listed on stderr and make the exit status 1.

    \b
    Examples:
      masrl trace metrics run.json
      masrl trace metrics traces/ --format csv > metrics.csv
    """
    from ..traces.metrics import metrics_for_paths

    report = metrics_for_paths(paths, jobs=jobs, progress=progress, limits=limits)
    for problem in report.problems:
        click.echo(problem.as_text(), err=True)
    click.echo(report.render(fmt, summary_only=summary_only))
    sys.exit(1 if report.invalid_traces else 0)


@trace.command()
@click.argument("file", type=click.Path(path_type=Path))
@click.option(
    "--output",
    "-o",
    type=click.Path(dir_okay=False, path_type=Path),
    required=True,
    help="Where to write the figure: .svg or .png.",
)
@click.option(
    "--line",
    type=click.IntRange(min=1),
    default=None,
    help="For .jsonl: the line of the trace to draw [default: the first].",
)
@click.option(
    "--max-events",
    type=click.IntRange(min=1),
    default=None,
    help="Draw at most this many (earliest) events.",
)
@limit_options
def figure(file, output, line, max_events, limits) -> None:
    """Draw a trace's event graph: agents as lanes, time left to right, edges by type."""
    from ..traces.figure import DEFAULT_MAX_EVENTS, figure_of_file

    written = figure_of_file(file, output, line, max_events or DEFAULT_MAX_EVENTS, limits)
    click.echo(f"wrote {written}")


@trace.command()
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["markdown", "json", "path"]),
    default="markdown",
    show_default=True,
)
def schema(fmt) -> None:
    """Print the trace schema: its Markdown reference, the JSON Schema itself, or its path."""
    from ..traces.schema import schema_reference_markdown, trace_schema_path

    if fmt == "path":
        click.echo(str(trace_schema_path()))
    elif fmt == "json":
        click.echo(trace_schema_path().read_text(encoding="utf-8").rstrip("\n"))
    else:
        click.echo(schema_reference_markdown().rstrip("\n"))


@trace.command(name="import")
@click.argument("file", type=click.Path(path_type=Path))
@click.option(
    "--from",
    "source_format",
    required=True,
    # the importer registry's names: a new importer is one line in traces/importers FORMATS
    type=click.Choice(list(FORMATS)),
    help="The format FILE is in.",
)
@click.option(
    "--output",
    "-o",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Where to write: .jsonl (one trace a line) or .json (one trace) [default: stdout].",
)
@limit_options
def import_command(file, source_format, output, limits) -> None:
    """Turn a trace written by an agent stack into masrl traces; a summary goes to stderr.

    \b
    Formats:
      otel             OpenTelemetry GenAI spans, OTLP JSON (.json/.jsonl) or protobuf (.pb)
      openai-agents    OpenAI Agents SDK trace export ({"data": [...]})
      agent-lightning  Agent Lightning store spans (a JSON list); rewards become masrl rewards
      autogen          AutoGen AgentChat TaskResult or messages (sender/receiver chat events)

    Every event keeps the id and kind of the span or message it came from (source_span_id,
    source_kind), and `masrl trace collect` keeps both as columns of the set's events table.
    Span kinds masrl has no event type for are kept as generic events and counted in the summary.

    \b
    Examples:
      masrl trace import --from otel spans.json -o run.jsonl
      masrl trace import --from openai-agents export.json -o run.json
    """
    from ..traces.importers import import_traces, traces_as_pieces

    traces, summary = import_traces(file, source_format, limits)
    pieces = traces_as_pieces(traces, output)
    first = next(pieces, "")  # the checks run before anything is written
    if output is None:
        for piece in itertools.chain([first], pieces):
            click.echo(piece, nl=False)
    else:
        from ..files import write_atomic

        write_atomic(output, itertools.chain([first], pieces))
    click.echo(summary.as_text(), err=True)


@trace.command(name="export")
@click.argument("file", type=click.Path(path_type=Path))
@click.option(
    "--to",
    "target",
    required=True,
    type=click.Choice(["perfetto"]),
    help="perfetto: Chrome trace-event JSON for ui.perfetto.dev and chrome://tracing.",
)
@click.option(
    "--output",
    "-o",
    type=click.Path(dir_okay=False, path_type=Path),
    required=True,
    help="Where to write the JSON.",
)
@click.option(
    "--line",
    type=click.IntRange(min=1),
    default=None,
    help="For .jsonl: only the trace on this line [default: every trace, one process each].",
)
@limit_options
def export_command(file, target, output, line, limits) -> None:
    """Write a trace for a trace viewer: agents as tracks, spawns and hand-offs as arrows.

    \b
    Example:
      masrl trace export run.json --to perfetto -o run.perfetto.json
      (then open run.perfetto.json at https://ui.perfetto.dev)
    """
    from ..files import write_atomic
    from ..traces.export_perfetto import perfetto_chunks

    chunks = perfetto_chunks(file, line, limits)
    first = next(chunks)  # the first trace read and checked before anything is written
    write_atomic(output, itertools.chain([first], chunks))
    click.echo(f"wrote {output}")


@trace.command(name="collect")
@paths_argument
@click.option(
    "--output",
    "-o",
    type=click.Path(file_okay=False, path_type=Path),
    required=True,
    help="The trace set to write: a directory such as set.parquet (replaced if masrl wrote it).",
)
@jobs_option
@progress_option
@limit_options
def collect_command(paths, output, jobs, progress, limits) -> None:
    """Collect traces into a Parquet trace set: traces (with metrics), events, edges, rewards.

    Invalid traces are left out, listed on stderr, and make the exit status 1.

    \b
    Example:
      masrl trace collect runs/ -o set.parquet
      masrl trace query set.parquet stop-reasons
    """
    from ..traces.collect import collect_traces

    report = collect_traces(paths, output, jobs=jobs, progress=progress, limits=limits)
    for problem in report.problems:
        click.echo(problem.as_text(), err=True)
    click.echo(report.summary_line())
    sys.exit(1 if report.invalid_traces else 0)


@trace.command(name="query")
@click.argument("trace_set", type=click.Path(path_type=Path), required=False)
@click.argument("query", required=False)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["table", "csv", "json"]),
    default="table",
    show_default=True,
)
@click.option("--list", "list_ready", is_flag=True, help="List the ready queries.")
def query_command(trace_set, query, fmt, list_ready) -> None:
    """Run SQL, or a ready query by name, over a trace set (DuckDB, sandboxed to the set).

    Tables: traces, events, edges, rewards (joined on trace_key).

    \b
    Ready queries: fan-out, stop-reasons, credit-per-unit, topologies (see --list).
    Examples:
      masrl trace query set.parquet fan-out
      masrl trace query set.parquet "SELECT agent, count(*) FROM events GROUP BY agent"
    """
    from ..errors import UsageError
    from ..traces.query import ready_query_list, run_query

    if list_ready:
        click.echo(ready_query_list())
        return
    if trace_set is None or not query:
        raise UsageError("give a trace set and SQL or a ready query name", hint="see --list")
    click.echo(run_query(trace_set, query).render(fmt))

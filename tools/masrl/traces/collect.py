"""`masrl trace collect`: many traces into one columnar trace set (Parquet, through pyarrow).

A set is a directory (conventionally named ``*.parquet``, as Spark and Ray write them) of four
tables, each a folder of Parquet files that DuckDB, pandas, Polars, Spark or Ray Data read as is:

* ``traces/``: one row per valid trace: ``trace_key`` (the row's number in the set), the file
  and line it came from, and every column of ``masrl trace metrics``;
* ``events/``: one row per event, the schema's event fields (``from`` and ``to`` are named
  ``from_agent`` and ``to_agent``, which SQL need not quote); fields beyond the schema are left out;
* ``edges/``: one row per edge; ``rewards/``: one row per reward channel.

Rows join on ``trace_key``. Traces are checked exactly as ``masrl trace validate`` checks them;
invalid ones are counted and left out. Files are read in parallel worker processes and written
as they arrive, so memory stays flat however many traces there are.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

from ..errors import InputError, UnsafeWriteError
from ..problems import Problem
from .io import (
    Limits,
    find_trace_files,
    gc_paused,
    is_gzip,
    is_jsonl,
    map_files,
    read_documents,
)
from .metrics import COLUMNS, MetricRangeError, metrics_from_view, range_problem
from .problems import unreadable
from .validate import check_document

MARKER = "_masrl_trace_set.json"  # marks a directory as a set masrl may replace
TABLES = ("traces", "events", "edges", "rewards")
ARROW_JSON_BLOCK_BYTES = 16 * 1024 * 1024  # a trace on one line must fit in a block
ROW_GROUP_EVENTS = 100_000  # events pooled into one row group (about 1 to 4 MB compressed)
EVENT_FIELDS = (  # (schema field, column name, arrow type name)
    ("id", "id", "string"),
    ("t", "t", "float64"),
    ("type", "type", "string"),
    ("agent", "agent", "string"),
    ("role", "role", "string"),
    ("from", "from_agent", "string"),
    ("to", "to_agent", "string"),
    ("tool", "tool", "string"),
    ("decision", "decision", "string"),
    ("reason", "reason", "string"),
    ("duration_s", "duration_s", "float64"),
    ("trusted", "trusted", "bool"),
    ("content_ref", "content_ref", "string"),
    ("source_span_id", "source_span_id", "string"),  # imported traces keep their source's ids
    ("source_kind", "source_kind", "string"),
)
INTEGER_METRICS = frozenset(
    {"line", "events", "edges", "agents", "max_fan_out", "spawn_depth", "messages", "tool_calls"}
)
TEXT_METRICS = frozenset(
    {"file", "trace_id", "task_id", "topology", "weight_basis", "stop_event", "stop_reason"}
)


def _arrow():
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise InputError("trace sets need pyarrow", hint="pip install 'masrl[sets]'") from None
    return pa, pq


def schemas():
    """The arrow schema of each table."""
    pa, _ = _arrow()

    def kind(name: str):
        return {"string": pa.string(), "float64": pa.float64(), "bool": pa.bool_()}[name]

    trace_columns = [("trace_key", pa.int64())]
    for name in COLUMNS:
        if name in INTEGER_METRICS:
            trace_columns.append((name, pa.int64()))
        elif name in TEXT_METRICS:
            trace_columns.append((name, pa.string()))
        else:
            trace_columns.append((name, pa.float64()))
    return {
        "traces": pa.schema(trace_columns),
        "events": pa.schema(
            [("trace_key", pa.int64())] + [(column, kind(t)) for _, column, t in EVENT_FIELDS]
        ),
        "edges": pa.schema(
            [
                ("trace_key", pa.int64()),
                ("src", pa.string()),
                ("dst", pa.string()),
                ("type", pa.string()),
            ]
        ),
        "rewards": pa.schema(
            [("trace_key", pa.int64()), ("channel", pa.string()), ("value", pa.float64())]
        ),
    }


@dataclass
class FileTables:
    """Everything one file adds to the set, as arrow tables (built in the worker process, so
    the parent only writes them); ``trace_key`` counts from 0 per file. ``events`` counts rows."""

    file: str
    tables: dict = field(default_factory=dict)
    traces: int = 0
    events: int = 0
    problems: list[Problem] = field(default_factory=list)
    invalid_traces: int = 0


def _extend(columns: dict[str, list], name: str, values) -> None:
    columns.setdefault(name, []).extend(values)


def tables_of_file(path: str, limits: Limits = Limits()) -> FileTables:
    """Check and measure every trace of one file (runs in a worker process)."""
    pa, _ = _arrow()
    columns: dict[str, dict[str, list]] = {table: {} for table in TABLES}
    out = FileTables(path)
    # A .jsonl file's events usually come from Arrow's reader: keep no views for them.
    keep_views = not is_jsonl(Path(path))
    views = []
    for document in read_documents(path, limits):
        if document.problem is not None:
            report, view = unreadable(path, document.problem), None
        else:
            report, view = check_document(document.raw, path, document.line, limits=limits)
        if view is None:
            out.invalid_traces += 1
            out.problems.extend(p for p in report.problems if p.severity == "error")
            continue
        try:
            with gc_paused():
                measured = metrics_from_view(view)
        except MetricRangeError as exc:
            out.invalid_traces += 1
            out.problems.append(range_problem(exc, path, document.line))
            continue
        key = out.traces
        out.traces += 1
        if keep_views:
            views.append(view)
        with gc_paused():
            row = {"file": path, "line": document.line, **measured}
            traces = columns["traces"]
            for name in COLUMNS:
                _extend(traces, name, [row.get(name)])
            _extend(traces, "trace_key", [key])
            channels = sorted(view.rewards)
            rewards = columns["rewards"]
            _extend(rewards, "trace_key", [key] * len(channels))
            _extend(rewards, "channel", channels)
            _extend(rewards, "value", [view.rewards[c] for c in channels])
    fast = None
    if not keep_views and out.traces and not out.invalid_traces:
        fast = _events_and_edges_by_arrow(path, out.traces)
    if fast is None and out.traces:
        if not keep_views:  # a second pass, only when Arrow could not help
            views = _valid_views(path, limits)
        with gc_paused():
            _events_and_edges_by_python(views, columns)
    for table, schema in schemas().items():
        if fast is not None and table in fast:
            out.tables[table] = fast[table]
        elif columns[table].get("trace_key"):
            arrays = [pa.array(columns[table][f.name], type=f.type) for f in schema]
            out.tables[table] = pa.Table.from_arrays(arrays, schema=schema)
    out.events = out.tables["events"].num_rows if "events" in out.tables else 0
    return out


def _valid_views(path: str, limits: Limits) -> list:
    views = []
    for document in read_documents(path, limits):
        if document.problem is None:
            _, view = check_document(document.raw, path, document.line, limits=limits)
            if view is not None:
                views.append(view)
    return views


def _events_and_edges_by_python(views: list, columns: dict[str, dict[str, list]]) -> None:
    events, edges = columns["events"], columns["edges"]
    for key, view in enumerate(views):
        _extend(events, "trace_key", [key] * len(view.events))
        for source, column, _ in EVENT_FIELDS:
            _extend(events, column, view.column(source))
        _extend(edges, "trace_key", [key] * len(view.edges))
        _extend(edges, "src", view.sources)
        _extend(edges, "dst", view.targets)
        _extend(edges, "type", view.edge_types)


def _events_and_edges_by_arrow(path: str, traces: int) -> dict | None:
    """Events and edges of a .jsonl file whose every trace is valid, parsed again by Arrow's
    multithreaded JSON reader: much faster than moving them through Python objects. None when
    Arrow cannot read the file (a line longer than its block, say); the caller then falls back."""
    pa, _ = _arrow()
    import pyarrow.compute as pc
    import pyarrow.json as pj

    target = schemas()
    event_type = pa.struct(
        [(source, target["events"].field(column).type) for source, column, _ in EVENT_FIELDS]
    )
    edge_type = pa.struct([(name, pa.string()) for name in ("src", "dst", "type")])
    wanted = pa.schema([("events", pa.list_(event_type)), ("edges", pa.list_(edge_type))])
    try:
        source = pa.input_stream(path, compression="gzip" if is_gzip(Path(path)) else None)
        table = pj.read_json(
            source,
            # One thread: collect already runs a worker process per CPU.
            read_options=pj.ReadOptions(block_size=ARROW_JSON_BLOCK_BYTES, use_threads=False),
            parse_options=pj.ParseOptions(
                explicit_schema=wanted, unexpected_field_behavior="ignore"
            ),
        )
    except (pa.ArrowException, OSError):
        return None
    if table.num_rows != traces:
        return None
    tables = {}
    for name, fields in (
        ("events", [(s, c) for s, c, _ in EVENT_FIELDS]),
        ("edges", [("src", "src"), ("dst", "dst"), ("type", "type")]),
    ):
        lists = table.column(name).combine_chunks()
        flat = pc.list_flatten(lists)
        arrays = [pc.list_parent_indices(lists).cast(pa.int64())]
        arrays += [pc.struct_field(flat, source) for source, _ in fields]  # offset-safe
        tables[name] = pa.Table.from_arrays(arrays, schema=target[name])
    return tables


@dataclass
class CollectReport:
    output: str
    files: int = 0
    traces: int = 0
    events: int = 0
    invalid_traces: int = 0
    problems: list[Problem] = field(default_factory=list)

    def summary_line(self) -> str:
        text = (
            f"wrote {self.output}: {self.traces} trace(s), {self.events} event(s) "
            f"from {self.files} file(s)"
        )
        if self.invalid_traces:
            text += f"; {self.invalid_traces} invalid trace(s) left out (masrl trace validate)"
        return text


class _SetWriter:
    """The four tables, each one Parquet file. Small input files are pooled until a row group
    holds ``ROW_GROUP_EVENTS`` events, so ten thousand one-trace files do not make ten thousand
    tiny row groups; a row group always holds whole traces (a contiguous trace_key range)."""

    def __init__(self, directory: Path):
        pa, pq = _arrow()
        import pyarrow.compute as pc

        self.pa, self.pc = pa, pc
        self.writers = {}
        for table, schema in schemas().items():
            (directory / table).mkdir(parents=True)
            self.writers[table] = pq.ParquetWriter(
                directory / table / "part-00000.parquet", schema, compression="zstd"
            )
        self.pending: dict[str, list] = {table: [] for table in TABLES}
        self.pending_events = 0
        self.next_key = 0

    def add(self, part: FileTables) -> None:
        """Append one file's tables, shifting its trace keys past those already written."""
        offset = self.pa.scalar(self.next_key, self.pa.int64())
        for table, data in part.tables.items():
            keys = self.pc.add(data.column("trace_key"), offset)
            self.pending[table].append(data.set_column(0, "trace_key", keys))
        self.next_key += part.traces
        self.pending_events += part.events
        if self.pending_events >= ROW_GROUP_EVENTS:
            self.flush()

    def flush(self) -> None:
        for table, parts in self.pending.items():
            if parts:
                self.writers[table].write_table(self.pa.concat_tables(parts))
        self.pending = {table: [] for table in TABLES}
        self.pending_events = 0

    def close(self) -> None:
        self.flush()
        for writer in self.writers.values():
            writer.close()


def _prepare_output(output: Path) -> Path:
    """A fresh temporary directory beside ``output``; refuses to replace what masrl did not write."""
    if output.is_symlink() or (output.exists() and not output.is_dir()):
        raise UnsafeWriteError(
            "exists and is not a trace set directory",
            path=output,
            hint="choose a new name, e.g. set.parquet",
        )
    if output.is_dir() and any(output.iterdir()) and not (output / MARKER).is_file():
        raise UnsafeWriteError(
            "is a directory masrl did not write",
            path=output,
            hint="choose a new name; masrl only replaces trace sets it wrote",
        )
    temporary = output.with_name(f".{output.name}.tmp")
    if temporary.exists():
        shutil.rmtree(temporary)
    temporary.mkdir(parents=True)
    return temporary


def collect_traces(
    paths,
    output: Path | str,
    jobs: int | None = None,
    progress: bool | None = None,
    limits: Limits = Limits(),
) -> CollectReport:
    """Write every valid trace under ``paths`` into the trace set ``output``."""
    output = Path(output)
    files, missing = find_trace_files(paths)
    if missing:
        raise InputError("no such file or directory", path=missing[0])
    if not files:
        raise InputError(
            "no trace files found (.json, .jsonl, .json.gz, .jsonl.gz)",
            path=", ".join(map(str, paths)),
        )
    temporary = _prepare_output(output)
    report = CollectReport(str(output), files=len(files))
    writer = _SetWriter(temporary)
    try:
        for part in map_files(
            partial(tables_of_file, limits=limits),
            files,
            jobs=jobs,
            progress=progress,
            description="collect",
        ):
            writer.add(part)
            report.traces += part.traces
            report.events += part.events
            report.invalid_traces += part.invalid_traces
            report.problems.extend(part.problems)
        writer.close()
    except BaseException:
        shutil.rmtree(temporary, ignore_errors=True)
        raise
    (temporary / MARKER).write_text(
        json.dumps({"format": "masrl trace set", "version": 1, "tables": list(TABLES)}) + "\n",
        encoding="utf-8",
    )
    if output.exists():
        shutil.rmtree(output)
    temporary.rename(output)
    return report

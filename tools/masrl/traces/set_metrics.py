"""Metrics recomputed from a trace set's Parquet tables, one slice of traces at a time, locally
or on a Ray cluster with Ray Data (the optional ``ray`` extra).

A slice is the traces one input file contributed: a contiguous ``trace_key`` range, found from
the ``traces`` table's row-group statistics, and read from every table with a range filter, so
each task reads only its own rows. Events, edges and rewards are turned back into traces and
measured by ``metrics.trace_metrics``, so the numbers are those of ``masrl trace metrics``.

On a cluster, every node must see the set at the same path (a shared file system), or the set
must live where pyarrow can read it (e.g. ``s3://bucket/set.parquet`` with credentials in the
environment):

    import ray; ray.init(address="auto")
    from masrl.traces.set_metrics import metrics_with_ray
    rows = metrics_with_ray("s3://bucket/set.parquet")
"""

from __future__ import annotations

from pathlib import Path

from .collect import EVENT_FIELDS, TABLES, _arrow
from .metrics import trace_metrics

TRACE_FIELDS = ("trace_id", "task_id", "topology", "tokens", "wall_clock_s", "file", "line")


def key_ranges(trace_set: str | Path) -> list[tuple[int, int]]:
    """[first, last] trace keys of each row group of the traces table."""
    _, pq = _arrow()
    ranges = []
    for part in sorted(Path(trace_set, "traces").glob("*.parquet")):
        metadata = pq.ParquetFile(part).metadata
        column = metadata.schema.to_arrow_schema().get_field_index("trace_key")
        for group in range(metadata.num_row_groups):
            statistics = metadata.row_group(group).column(column).statistics
            ranges.append((statistics.min, statistics.max))
    return ranges


def _read(trace_set: str | Path, table: str, first: int, last: int):
    _, pq = _arrow()
    return pq.read_table(
        str(Path(trace_set, table)),
        filters=[("trace_key", ">=", first), ("trace_key", "<=", last)],
    ).to_pylist()


def metrics_of_range(trace_set: str | Path, first: int, last: int) -> list[dict]:
    """Metrics of the traces with keys first..last, rebuilt from the set's tables."""
    rows = {table: _read(trace_set, table, first, last) for table in TABLES}
    traces: dict[int, dict] = {}
    for row in rows["traces"]:
        traces[row["trace_key"]] = {
            "trace_id": row["trace_id"],
            "task_id": row["task_id"],
            "events": [],
            "edges": [],
            "rewards": {},
            "costs": {"tokens": row["tokens"], "wall_clock_s": row["wall_clock_s"]},
            **({"topology": row["topology"]} if row["topology"] else {}),
        }
    for row in rows["events"]:
        event = {field: row[column] for field, column, _ in EVENT_FIELDS if row[column] is not None}
        traces[row["trace_key"]]["events"].append(event)
    for row in rows["edges"]:
        traces[row["trace_key"]]["edges"].append(
            {"src": row["src"], "dst": row["dst"], "type": row["type"]}
        )
    for row in rows["rewards"]:
        traces[row["trace_key"]]["rewards"][row["channel"]] = row["value"]
    return [{"trace_key": key, **trace_metrics(traces[key])} for key in sorted(traces)]


def metrics_with_ray(trace_set: str | Path) -> list[dict]:
    """Every trace's metrics, computed by Ray Data tasks over the set (one task per slice).
    Uses the running Ray instance, or starts a local one."""
    try:
        import ray
    except ImportError:
        from ..errors import InputError

        raise InputError("Ray is not installed", hint="pip install 'masrl[ray]'") from None
    if not ray.is_initialized():
        ray.init(include_dashboard=False, log_to_driver=False)
    location = str(trace_set)
    slices = ray.data.from_items(
        [{"first": first, "last": last} for first, last in key_ranges(trace_set)]
    )
    measured = slices.flat_map(lambda item: metrics_of_range(location, item["first"], item["last"]))
    rows = sorted(measured.take_all(), key=lambda row: row["trace_key"])
    # Ray Data gives every row every column; a trace has only its own reward channels.
    return [
        {k: v for k, v in row.items() if not (k.startswith("reward.") and v is None)}
        for row in rows
    ]

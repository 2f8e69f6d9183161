"""`masrl trace query`: SQL over a trace set (see ``collect``), run by DuckDB.

The set's tables are views named ``traces``, ``events``, ``edges`` and ``rewards``. DuckDB runs
sandboxed: it may read the set's own directory and nothing else (no other files, no network, no
extension downloads), and the sandbox cannot be switched off from the query.

Ready queries answer the survey's orchestration sub-decision questions by name.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from ..csvsafe import csv_text
from ..errors import InputError, UsageError
from .collect import MARKER, TABLES

READY_QUERIES: dict[str, tuple[str, str]] = {
    "fan-out": (
        (
            "O1/O2: how many agents each orchestrator decision spawns or delegates to "
            "(spawn edges out of the decision), as a histogram."
        ),
        """
        WITH per_decision AS (
            SELECT e.trace_key, e.id, count(x.dst) AS fan_out
            FROM events e
            LEFT JOIN edges x
              ON x.trace_key = e.trace_key AND x.src = e.id AND x.type = 'spawn'
            WHERE e.type = 'orchestrator_decision'
            GROUP BY e.trace_key, e.id
        )
        SELECT fan_out, count(*) AS decisions
        FROM per_decision GROUP BY fan_out ORDER BY fan_out
        """,
    ),
    "stop-reasons": (
        "O5: why runs stop, with how long they ran and the team reward they earned.",
        """
        SELECT coalesce(t.stop_reason, '(no stop decision)') AS stop_reason,
               count(*) AS traces,
               round(avg(t.events), 3) AS mean_events,
               round(avg(t.wall_clock_s), 6) AS mean_wall_clock_s,
               round(avg(r.value), 6) AS mean_team_reward
        FROM traces t
        LEFT JOIN rewards r ON r.trace_key = t.trace_key AND r.channel = 'team'
        GROUP BY 1 ORDER BY traces DESC, stop_reason
        """,
    ),
    "credit-per-unit": (
        "Credit-bearing units: the reward recorded per unit (the channel name before ':').",
        """
        SELECT split_part(channel, ':', 1) AS unit,
               count(DISTINCT trace_key) AS traces,
               count(*) AS channels,
               round(avg(value), 6) AS mean,
               round(min(value), 6) AS min,
               round(max(value), 6) AS max
        FROM rewards GROUP BY unit ORDER BY unit
        """,
    ),
    "topologies": (
        "Per topology: traces, mean parallelism, mean largest fan-out and spawn depth.",
        """
        SELECT topology, count(*) AS traces,
               round(avg(parallelism), 6) AS mean_parallelism,
               round(avg(max_fan_out), 6) AS mean_max_fan_out,
               round(avg(spawn_depth), 6) AS mean_spawn_depth
        FROM traces GROUP BY topology ORDER BY topology
        """,
    ),
}


@dataclass
class QueryResult:
    columns: list[str]
    rows: list[tuple]

    def render(self, fmt: str = "table") -> str:
        if fmt == "json":
            return json.dumps(
                [dict(zip(self.columns, row)) for row in self.rows],
                indent=2,
                ensure_ascii=False,
                default=str,
            )
        if fmt == "csv":
            return csv_text(self.columns, self.rows).rstrip("\n")
        cells = [["-" if v is None else str(v) for v in row] for row in self.rows]
        widths = [max([len(c), *(len(r[i]) for r in cells)]) for i, c in enumerate(self.columns)]
        lines = [
            "  ".join(c.ljust(w) for c, w in zip(self.columns, widths)),
            "  ".join("-" * w for w in widths),
        ]
        lines += ["  ".join(v.ljust(w) for v, w in zip(row, widths)) for row in cells]
        return "\n".join(line.rstrip() for line in lines)


def _connect(trace_set: Path):
    try:
        import duckdb
    except ImportError:
        raise InputError(
            "querying trace sets needs duckdb", hint="pip install 'masrl[sets]'"
        ) from None
    if not (trace_set / MARKER).is_file():
        raise InputError(
            "not a trace set", path=trace_set, hint="write one with masrl trace collect DIR -o SET"
        )
    root = str(trace_set.resolve())
    connection = duckdb.connect()
    for statement in (
        f"SET allowed_directories = ['{_quoted(root)}/']",
        "SET enable_external_access = false",
        "SET autoinstall_known_extensions = false",
        "SET autoload_known_extensions = false",
        "SET lock_configuration = true",
    ):
        connection.execute(statement)
    for table in TABLES:
        try:
            connection.execute(
                f"CREATE VIEW {table} AS SELECT * FROM "
                f"read_parquet('{_quoted(root)}/{table}/*.parquet')"
            )
        except duckdb.Error as exc:  # a part missing, not Parquet, or damaged
            connection.close()
            raise InputError(
                f"the {table} table cannot be read: {_first_line(exc)}",
                path=trace_set / table,
                hint=DAMAGED_SET_HINT,
            ) from None
    return connection, duckdb


DAMAGED_SET_HINT = "the set is damaged or incomplete: write it again with `masrl trace collect`"


def _first_line(exc: Exception) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]


def _quoted(text: str) -> str:
    return text.replace("'", "''")


def run_query(trace_set: Path | str, query: str) -> QueryResult:
    """Run a ready query (by name) or any SQL over the set; rows as DuckDB returns them."""
    trace_set = Path(trace_set)
    sql = READY_QUERIES[query][1] if query in READY_QUERIES else query
    if not sql.strip():
        raise UsageError("empty query", hint="give SQL or one of " + ", ".join(READY_QUERIES))
    connection, duckdb = _connect(trace_set)
    try:
        cursor = connection.execute(sql)
        columns = [d[0] for d in cursor.description] if cursor.description else []
        return QueryResult(columns, cursor.fetchall() if columns else [])
    except duckdb.Error as exc:
        message = _first_line(exc)
        # A part file that DuckDB could open but not decode is named in the message: the set,
        # not the query, is at fault.
        damaged = ".parquet" in message and not isinstance(
            exc, duckdb.ParserException | duckdb.BinderException | duckdb.CatalogException
        )
        raise InputError(
            f"query failed: {message}",
            path=trace_set,
            hint=DAMAGED_SET_HINT if damaged else "tables: traces, events, edges, rewards",
        ) from None
    finally:
        connection.close()


def ready_query_list() -> str:
    return "\n".join(f"{name}: {text}" for name, (text, _) in READY_QUERIES.items())

"""Orchestration traces: the schema, a strict and fast validator, orchestration metrics, figures,
importers from agent stacks, a trace-viewer export, and columnar trace sets.

A trace records one run of an agent team as a temporal event graph (see
``taxonomy/trace.schema.json``). Heavy modules (pandas, matplotlib, pyarrow, duckdb) load only
when used. One job per module:

* reading: ``io`` (files, JSON lines, gzip, parallel map), ``decode`` (bytes to typed events),
  ``view`` (a trace as columns);
* checking: ``check_schema``, ``check_graph`` (ids, spawn order, time order, cycles, over
  ``graph``'s algorithms), ``check_conventions`` (warnings), reported as ``problems``;
  ``validate`` composes them;
* measuring and drawing: ``metrics``, ``figure``;
* elsewhere from and to: ``importers`` (one module per source format), ``export_perfetto``;
* many traces: ``collect`` (Parquet), ``query`` (DuckDB), ``set_metrics`` (locally or on Ray).
"""

from __future__ import annotations

EXAMPLES_DIRECTORY_NAME = "examples"


def examples_directory():
    """The bundled example traces, one per topology."""
    from pathlib import Path

    return Path(__file__).resolve().parent / EXAMPLES_DIRECTORY_NAME


__all__ = ["examples_directory"]

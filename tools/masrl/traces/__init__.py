"""Orchestration traces: the schema, a strict and fast validator, orchestration metrics, figures.

A trace records one run of an agent team as a temporal event graph (see
``taxonomy/trace.schema.json``). Heavy modules (pandas, matplotlib) load only when used.
"""

from __future__ import annotations

EXAMPLES_DIRECTORY_NAME = "examples"


def examples_directory():
    """The bundled example traces, one per topology."""
    from pathlib import Path

    return Path(__file__).resolve().parent / EXAMPLES_DIRECTORY_NAME


__all__ = ["examples_directory"]

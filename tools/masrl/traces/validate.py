"""`masrl trace validate`: the trace schema plus the rules no schema can state.

Two layers, one verdict, each in its own module:

* reading: ``io`` finds files and splits them into one JSON document per trace; ``decode``
  turns a document into typed events (checking the structure while parsing) and ``view`` sees
  either typed events or plain dicts as columns;
* structure (``check_schema``): every constraint of ``taxonomy/trace.schema.json``, for dicts
  and for documents the typed decoder rejects;
* semantics (``check_graph``): unique event ids, edges between existing events, no self-loops,
  ordered edges that never point back in time, an acyclic dependency graph, agents acting only
  once spawned; and warnings (``check_conventions``) for inconsistent counts and unusual names.

This module composes them into verdicts on traces, files and directories. The names other
modules and tests import from here before the split are re-exported.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from ..problems import Problem
from .check_conventions import warn_on_counts, warn_on_reward_names, warn_on_stops
from .check_graph import (
    NON_DEPENDENCY_EDGE_TYPES,
    ORDERED_EDGE_TYPES,
    check_graph,
    check_spawns,
    report_duplicate_ids,
)
from .check_schema import check_magnitudes, check_required_costs, check_top_level
from .decode import decode_typed, typed_trace_decoder
from .graph import compressed_adjacency, find_cycle, topological_order
from .io import (
    JsonSyntaxError,
    Limits,
    event_count_problem,
    find_trace_files,
    gc_paused,
    map_files,
    parse_json_bytes,
    read_documents,
    scan_json,
    syntax_problem,
    too_deep,
)
from .problems import (
    DEFAULT_MAX_PROBLEMS,
    SCHEMA_CODES,
    ProblemCollector,
    TraceReport,
    key_path,
    unreadable,
)
from .schema import json_type_name
from .view import TraceView


def check_semantics(view: TraceView, out: ProblemCollector, edges_ok: bool = True) -> None:
    ids_unique = len(view.time_of) == len(view.events)
    if not ids_unique:
        report_duplicate_ids(view.ids, out)
    check_magnitudes(view, out)
    check_spawns(view, out)
    warn_on_counts(view, out)
    warn_on_reward_names(view.rewards, out)
    warn_on_stops(view, out)
    if edges_ok and ids_unique:
        check_graph(view, out)


# ---------------------------------------------------------------------------------------------
# Entry points


def _check_dict(trace: Any, out: ProblemCollector) -> TraceView | None:
    """Schema and semantic checks on a parsed trace; the view when events are well-formed."""
    if not isinstance(trace, dict):
        out.error(
            "$",
            f"a trace must be a JSON object, found {json_type_name(trace)}",
            "type",
            "for many traces in one file, use .jsonl with one trace per line",
        )
        return None
    events_ok, edges_ok = check_top_level(trace, out)
    if not events_ok:
        return None
    view = TraceView.from_dict(trace if edges_ok else {**trace, "edges": []})
    check_semantics(view, out, edges_ok)
    return view


def validate_trace(
    trace: Any,
    file: str = "<trace>",
    line: int | None = None,
    max_problems: int = DEFAULT_MAX_PROBLEMS,
    limits: Limits = Limits(),
) -> TraceReport:
    """Check one parsed trace (dicts and lists, as from ``json.load``): schema and semantics."""
    too_many = event_count_problem(trace, limits, line)
    if too_many is not None:
        return unreadable(file, too_many)
    out = ProblemCollector(file, line, max_problems)
    with gc_paused():  # the checks make many short-lived lists; the trace itself is a tree
        _check_dict(trace, out)
    return out.report()


def check_document(
    raw: bytes,
    file: str = "<trace>",
    line: int | None = None,
    max_problems: int = DEFAULT_MAX_PROBLEMS,
    limits: Limits = Limits(),
) -> tuple[TraceReport, TraceView | None]:
    """Check one trace given as JSON bytes; also return its view (for metrics) when valid.

    The strict scan first (repeated keys, nesting, endless numbers: see ``io``). Then typed
    decoding: when it succeeds the structure is right and only the semantic rules remain. When
    it fails, the trace is parsed into dicts and checked item by item, so that every problem is
    reported with its JSON path.
    """
    out = ProblemCollector(file, line, max_problems)
    try:
        with gc_paused():
            scan_json(raw)
            typed = decode_typed(raw)
            data = parse_json_bytes(raw) if typed is None else None
    except JsonSyntaxError as exc:
        return unreadable(file, syntax_problem(exc, line)), None
    except RecursionError:  # the typed decoder's nesting limit can be lower than the scan's
        return unreadable(file, syntax_problem(too_deep(raw), line)), None
    too_many = event_count_problem(
        {"events": typed.events} if typed is not None else data, limits, line
    )
    if too_many is not None:
        return unreadable(file, too_many), None
    with gc_paused():
        if typed is not None:
            check_required_costs(typed.costs, out)
            view = TraceView.from_typed(typed)
            check_semantics(view, out)
        else:
            view = _check_dict(data, out)
    report = out.report()
    return report, (view if report.ok else None)


def validate_document(
    raw: bytes,
    file: str = "<trace>",
    line: int | None = None,
    max_problems: int = DEFAULT_MAX_PROBLEMS,
    limits: Limits = Limits(),
) -> TraceReport:
    """Check one trace given as JSON bytes."""
    return check_document(raw, file, line, max_problems, limits)[0]


@dataclass
class FileReport:
    file: str
    traces: int = 0
    invalid_traces: int = 0
    errors: int = 0
    warnings: int = 0
    problems: list[Problem] = field(default_factory=list)

    def add(self, verdict: TraceReport) -> None:
        self.traces += 1
        self.invalid_traces += not verdict.ok
        self.errors += verdict.errors
        self.warnings += verdict.warnings
        self.problems.extend(verdict.problems)


def validate_file(
    path: Path | str, max_problems: int = DEFAULT_MAX_PROBLEMS, limits: Limits = Limits()
) -> FileReport:
    """Every trace in one .json/.jsonl(.gz) file."""
    report = FileReport(str(path))
    for document in read_documents(path, limits):
        if document.problem is not None:
            report.add(unreadable(report.file, document.problem))
        else:
            report.add(
                validate_document(document.raw, report.file, document.line, max_problems, limits)
            )
    return report


@dataclass
class ValidationReport:
    files: int = 0
    traces: int = 0
    invalid_traces: int = 0
    errors: int = 0
    warnings: int = 0
    problems: list[Problem] = field(default_factory=list)

    def add(self, file_report: FileReport) -> None:
        self.files += 1
        self.traces += file_report.traces
        self.invalid_traces += file_report.invalid_traces
        self.errors += file_report.errors
        self.warnings += file_report.warnings
        self.problems.extend(file_report.problems)

    def ok(self, strict: bool = False) -> bool:
        return self.errors == 0 and not (strict and self.warnings)

    def summary_line(self) -> str:
        counted = f"{self.traces} trace(s) in {self.files} file(s)"
        if self.errors:
            return f"invalid: {self.invalid_traces} of {counted}; {self.errors} error(s), {self.warnings} warning(s)"
        return f"ok: {counted}" + (f" ({self.warnings} warning(s))" if self.warnings else "")

    def render(self, fmt: str = "text") -> str:
        if fmt == "json":
            payload = {
                "ok": self.ok(),
                "files": self.files,
                "traces": self.traces,
                "invalid_traces": self.invalid_traces,
                "errors": self.errors,
                "warnings": self.warnings,
                "problems": [asdict(problem) for problem in self.problems],
            }
            return json.dumps(payload, indent=2, sort_keys=True, ensure_ascii=False)
        render_one = (lambda p: p.as_github("masrl trace")) if fmt == "github" else Problem.as_text
        return "\n".join([*map(render_one, self.problems), self.summary_line()])


def validate_paths(
    paths,
    jobs: int | None = None,
    progress: bool | None = None,
    max_problems: int = DEFAULT_MAX_PROBLEMS,
    limits: Limits = Limits(),
) -> ValidationReport:
    """Validate files and directories (recursively; files in parallel worker processes)."""
    files, missing = find_trace_files(paths)
    report = ValidationReport()
    for path in missing:
        file_report = FileReport(str(path))
        file_report.add(
            TraceReport(
                (Problem(str(path), None, "no such file or directory", code="io", pointer="$"),),
                1,
                0,
            )
        )
        report.add(file_report)
    if not files and not missing:
        report.problems.append(
            Problem(
                ".",
                None,
                "no trace files found (.json, .jsonl, .json.gz, .jsonl.gz)",
                severity="warning",
                code="no_files",
                pointer="$",
            )
        )
        report.warnings += 1
    worker = partial(validate_file, max_problems=max_problems, limits=limits)
    for file_report in map_files(
        worker, files, jobs=jobs, progress=progress, description="validate"
    ):
        report.add(file_report)
    return report


__all__ = [
    "DEFAULT_MAX_PROBLEMS",
    "NON_DEPENDENCY_EDGE_TYPES",
    "ORDERED_EDGE_TYPES",
    "SCHEMA_CODES",
    "FileReport",
    "TraceReport",
    "TraceView",
    "ValidationReport",
    "check_document",
    "compressed_adjacency",
    "decode_typed",
    "find_cycle",
    "key_path",
    "topological_order",
    "typed_trace_decoder",
    "unreadable",
    "validate_document",
    "validate_file",
    "validate_paths",
    "validate_trace",
]

"""Drawing a trace's event graph: agents as lanes, time from left to right, edges by type.

Output is deterministic (byte-identical for the same trace), so the site can commit figures:
SVG ids are salted with a fixed string and the date and creator metadata are dropped; PNG
files carry no software tag. Agent names and trace ids are drawn literally: a ``$`` is a
dollar sign, never the start of matplotlib mathtext. The file is written atomically and never
through a symlink or over anything but a regular file.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

from ..errors import InputError, UsageError
from .io import Limits, read_traces
from .validate import validate_trace
from .view import TraceView

# Okabe-Ito colours (safe for colour-blind readers), each edge type also with its own dash.
EDGE_STYLES: dict[str, tuple[str, Any]] = {
    "temporal": ("#999999", (0, (1, 2))),
    "causal": ("#000000", "solid"),
    "spawn": ("#0072B2", "solid"),
    "message": ("#E69F00", (0, (5, 2))),
    "tool_dependency": ("#009E73", (0, (3, 1, 1, 1))),
    "return": ("#56B4E9", (0, (6, 2, 1, 2))),
    "aggregate": ("#CC79A7", (0, (2, 1))),
    "safety_flow": ("#D55E00", (0, (8, 2))),
}
EVENT_MARKERS: dict[str, str] = {
    "orchestrator_decision": "D",
    "spawn": "^",
    "despawn": "v",
    "message": "o",
    "tool_call": "s",
    "tool_result": "P",
    "return": "<",
    "aggregate": "*",
    "human_intervention": "X",
    "safety_event": "h",
}
DEFAULT_MAX_EVENTS = 400  # beyond this a figure is unreadable; the earliest events are drawn


class FigureError(UsageError):
    """The trace cannot be drawn (it does not validate, or the output type is unknown)."""


def _lanes(view: TraceView, shown: list[int]) -> dict[str, int]:
    """Agents in order of their first event (ties by list order): lane 0 at the top."""
    lanes: dict[str, int] = {}
    for index in sorted(shown, key=lambda i: (view.times[i], i)):
        lanes.setdefault(view.agents[index], len(lanes))
    return lanes


def figure_of_file(
    file: Path | str,
    output: Path | str,
    line: int | None = None,
    max_events: int = DEFAULT_MAX_EVENTS,
    limits: Limits = Limits(),
) -> Path:
    """Draw the trace of ``file`` (the one on ``line`` of a .jsonl file, else the first)."""
    record = next((r for r in read_traces(file, limits) if line is None or r.line == line), None)
    if record is None:
        raise InputError(f"no trace on line {line}" if line else "no trace found", path=file)
    if record.problem is not None:
        problem = record.problem
        raise InputError(problem.message, path=file, line=problem.line, hint=problem.hint or None)
    try:
        return render_trace_figure(record.data, output, max_events)
    except FigureError as exc:
        raise InputError(str(exc), path=file, line=record.line) from None


def render_trace_figure(
    trace: dict, path: Path | str, max_events: int = DEFAULT_MAX_EVENTS
) -> Path:
    """Draw ``trace`` to ``path`` (.svg or .png, by suffix); returns the path written."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in (".svg", ".png"):
        raise FigureError(f"{path}: write .svg or .png, not {suffix or 'no suffix'}")
    figure = draw_trace(trace, max_events)
    metadata = {"Date": None, "Creator": None} if suffix == ".svg" else {"Software": None}
    buffer = io.BytesIO()
    import matplotlib

    with matplotlib.rc_context(STYLE):
        figure.savefig(buffer, format=suffix[1:], metadata=metadata)
    from ..files import write_atomic

    write_atomic(path, buffer.getvalue())  # refuses devices, folders and symlinks elsewhere
    return path


STYLE = {
    "svg.hashsalt": "masrl",
    "svg.fonttype": "none",  # text stays text: searchable, selectable, read by screen readers
    "font.size": 9,
    "axes.spines.top": False,
    "axes.spines.right": False,
}


def draw_trace(trace: dict, max_events: int = DEFAULT_MAX_EVENTS):
    """The matplotlib Figure of a valid trace (FigureError when it does not validate)."""
    report = validate_trace(trace)
    if not report.ok:
        first = report.problems[0]
        raise FigureError(
            f"the trace does not validate ({report.errors} error(s)); first: {first.pointer}: {first.message}"
        )

    import matplotlib  # the Agg canvas is used directly: no pyplot, no global backend switch
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.lines import Line2D

    view = TraceView.from_dict(trace)
    order = sorted(range(len(view.events)), key=lambda i: (view.times[i], i))
    shown = order[:max_events]
    shown_set = set(shown)
    lanes = _lanes(view, shown)
    index_of = {view.ids[i]: i for i in shown}
    durations = view.durations

    with matplotlib.rc_context(STYLE):
        height = 1.2 + 0.45 * len(lanes)
        figure = Figure(figsize=(9, height), dpi=100)
        FigureCanvasAgg(figure)
        axes = figure.add_subplot()
        for index in shown:  # duration bars first, so markers sit on top
            if durations[index]:
                axes.plot(
                    [view.times[index], view.times[index] + durations[index]],
                    [lanes[view.agents[index]]] * 2,
                    color="#BBBBBB",
                    linewidth=5,
                    solid_capstyle="butt",
                    zorder=1,
                )
        edge_types_drawn = []
        for source, target, edge_type in zip(view.sources, view.targets, view.edge_types):
            if source not in index_of or target not in index_of:
                continue
            s, t = index_of[source], index_of[target]
            colour, dash = EDGE_STYLES[edge_type]
            axes.annotate(
                "",
                xy=(view.times[t], lanes[view.agents[t]]),
                xytext=(view.times[s], lanes[view.agents[s]]),
                arrowprops={
                    "arrowstyle": "-|>",
                    "color": colour,
                    "linestyle": dash,
                    "linewidth": 1.1,
                    "shrinkA": 4,
                    "shrinkB": 4,
                    "mutation_scale": 8,
                },
                zorder=2,
            )
            if edge_type not in edge_types_drawn:
                edge_types_drawn.append(edge_type)
        event_types_drawn = []
        for event_type, marker in EVENT_MARKERS.items():
            members = [i for i in shown if view.types[i] == event_type]
            if members:
                axes.scatter(
                    [view.times[i] for i in members],
                    [lanes[view.agents[i]] for i in members],
                    marker=marker,
                    s=36,
                    color="white",
                    edgecolors="black",
                    linewidths=0.9,
                    zorder=3,
                )
                event_types_drawn.append(event_type)
        axes.set_yticks(range(len(lanes)), list(lanes))
        for label in axes.get_yticklabels():
            label.set_parse_math(False)  # agent names are text: "$x$" is not mathtext
        axes.set_ylim(len(lanes) - 0.5, -0.5)
        axes.set_xlabel("t")
        title = f"{view.trace_id}" + (f" ({view.topology})" if view.topology else "")
        if len(shown_set) < len(view.events):
            title += f": first {len(shown_set)} of {len(view.events)} events"
        axes.set_title(title, loc="left", parse_math=False)

        def heading(text: str) -> Line2D:
            return Line2D([], [], linestyle="none", label=text)

        handles = [heading("edges")] if edge_types_drawn else []
        handles += [
            Line2D([], [], color=EDGE_STYLES[e][0], linestyle=EDGE_STYLES[e][1], label=e)
            for e in sorted(edge_types_drawn)
        ]
        handles += [heading("events")]
        handles += [
            Line2D(
                [],
                [],
                marker=EVENT_MARKERS[e],
                linestyle="none",
                color="white",
                markeredgecolor="black",
                label=e,
            )
            for e in event_types_drawn
        ]
        axes.legend(
            handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False, fontsize=8
        )
        figure.tight_layout()
    return figure

"""The screening flow as Markdown tables: one column per round, newest last, and the total."""

from __future__ import annotations

from masrl.derive.flow import MIN_OVERLAP, Flow, RecallEstimate, RoundFlow
from masrl.screening.identified import DIRECTIONS


def _as_is(axis: str, value: str) -> str:
    return value


def flow_rows(flow: Flow, name=_as_is) -> tuple[list[str], list[list[str]]]:
    """The table's header and rows; ``name(axis, value)`` shows a source, stage or reason (the
    site: its taxonomy label, linked), by default as its id."""
    columns: list[RoundFlow] = (
        [*flow.rounds, flow.cumulative] if len(flow.rounds) > 1 else list(flow.rounds)
    )
    header = ["Stage", *(c.round for c in columns)]
    sources = sorted({s for c in columns for s in c.identified})
    directions = [d for d in DIRECTIONS if any(d in c.citations for c in columns)]
    reasons = sorted({k for c in columns for k in c.excluded})
    # PRISMA 2020's two identification columns, as two blocks of rows
    rows = [
        ["Identified", *(str(c.identified_total) for c in columns)],
        ["  by database search", *(str(c.identified_database) for c in columns)],
    ]
    rows += [
        [f"    from {name('source_kinds', s)}", *(str(c.identified.get(s, 0)) for c in columns)]
        for s in sources
    ]
    rows += [["  by citation searching", *(str(c.identified_citation) for c in columns)]]
    rows += [[f"    {d}", *(str(c.citations.get(d, 0)) for c in columns)] for d in directions]
    rows += [
        ["Duplicates removed", *(str(c.duplicates) for c in columns)],
        ["Screened", *(str(c.screened) for c in columns)],
        ["Excluded", *(str(c.excluded_total) for c in columns)],
    ]
    rows += [
        [
            f"  {name('screening_stages', stage)}: {name('exclusion_reasons', reason)}",
            *(str(c.excluded.get((stage, reason), 0)) for c in columns),
        ]
        for stage, reason in reasons
    ]
    rows += [
        ["Included", *(str(c.included) for c in columns)],
        ["Waiting in the queue", *(str(c.waiting) for c in columns)],
    ]
    return header, rows


def flow_markdown(flow: Flow, name=_as_is) -> str:
    from masrl.render.stats import markdown_table

    if not flow.rounds:
        return "No screening rounds yet.\n"
    header, rows = flow_rows(flow, name)
    return markdown_table(header, rows, "l" + "r" * (len(header) - 1)) + "\n"


ESTIMATE_METHOD = (
    "Capture-recapture (Chapman's estimator, 95 % interval) over the records included in a round: "
    "database search and citation searching are two independent 'captures', and the included records "
    "that both found tell how many in-scope papers neither found. It assumes the two methods find papers "
    "independently and every paper is equally findable; citation chasing starts from what search found, "
    f"so the estimate is biased low and the recall it implies is an upper bound. Below {MIN_OVERLAP} "
    "records found by both methods no number is given."
)


def estimate_markdown(estimates: list[RecallEstimate]) -> str:
    """One row per round that used both methods: n1, n2, m, found, N with its interval, recall."""
    if not estimates:
        return "No round has used both database search and citation searching yet, so there is nothing to estimate.\n"
    header = [
        "Round",
        "by database (n1)",
        "by citation (n2)",
        "by both (m)",
        "found",
        "estimated in scope (95 % CI)",
        "estimated recall (95 % CI)",
    ]
    rows = []
    for e in estimates:
        if e.estimate is None:
            rows.append(
                [
                    e.round,
                    str(e.by_database),
                    str(e.by_citation),
                    str(e.by_both),
                    str(e.found),
                    "unreliable",
                    e.reason,
                ]
            )
            continue
        recall, low, high = e.recall
        rows.append(
            [
                e.round,
                str(e.by_database),
                str(e.by_citation),
                str(e.by_both),
                str(e.found),
                f"{e.estimate:.0f} ({e.low:.0f} to {e.high:.0f})",
                f"{recall:.0%} ({low:.0%} to {high:.0%})",
            ]
        )
    from masrl.render.stats import markdown_table

    return markdown_table(header, rows, "lrrrrrl") + "\n\n" + ESTIMATE_METHOD + "\n"


def last_screened_line(flow: Flow) -> str:
    """The README's line on when the corpus was last screened and what each round added."""
    if not flow.rounds:
        return "The corpus has not been screened in any recorded round yet."
    last = flow.rounds[-1]
    added = "; ".join(
        f"{f.round}: {f.included} entries, {f.excluded_total} exclusions"
        for f in reversed(flow.rounds)
    )
    when = (
        f"Last screened {last.date} (round {last.round})"
        if last.date
        else f"Last screened in round {last.round}"
    )
    return f"{when}. Records added per round, newest first: {added}."


FLOW_FIGURE = "figures/round-flow.svg"  # on the site only: it changes with every round
FLOW_STAGES = (
    ("identified", "identified"),
    ("duplicates", "duplicates removed"),
    ("excluded", "excluded"),
    ("included", "included"),
    ("waiting", "waiting"),
)


def flow_figure(flow: Flow) -> bytes:
    """Records per stage for each round, as grouped horizontal bars (SVG), drawn with the
    corpus figures' style so the site looks of a piece; from the render cache when the flow and
    the drawing code are unchanged."""

    from masrl.render.cache import cached_files, code_fingerprint

    inputs = [repr(flow).encode("utf-8"), code_fingerprint()]
    return cached_files("flow", inputs, lambda: {"svg": _draw_flow(flow)})["svg"]


def _draw_flow(flow: Flow) -> bytes:
    import numpy as np

    from masrl.render.figures import OKABE_ITO, _new_figure, _style, figure_bytes

    rounds = list(flow.rounds)
    values = {
        "identified": [f.identified_total for f in rounds],
        "duplicates": [f.duplicates for f in rounds],
        "excluded": [f.excluded_total for f in rounds],
        "included": [f.included for f in rounds],
        "waiting": [f.waiting for f in rounds],
    }
    with _style():
        figure = _new_figure(8.0, 1.2 + 1.1 * max(len(rounds), 1))
        ax = figure.subplots()
        height = 0.8 / len(FLOW_STAGES)
        positions = np.arange(len(rounds))
        top = max([1, *(v for series in values.values() for v in series)])
        for index, ((key, label), colour) in enumerate(zip(FLOW_STAGES, OKABE_ITO, strict=False)):
            ys = positions + (index - (len(FLOW_STAGES) - 1) / 2) * height
            ax.barh(ys, values[key], height=height * 0.9, color=colour, label=label)
            for y, count in zip(ys, values[key], strict=True):
                ax.text(count + top * 0.01, y, str(count), va="center", fontsize=7)
        ax.set_yticks(positions, [f.round for f in rounds])
        ax.invert_yaxis()
        ax.set_xlim(0, top * 1.12)
        ax.set_xlabel("records")
        ax.set_title("Screening flow per round", loc="left")
        ax.legend(frameon=False, fontsize=8, loc="lower right")
        return figure_bytes(figure, "svg")

"""Figures of the corpus statistics, as deterministic SVG and PNG files under figures/.

Every figure of ``figure_list`` (the axis overview and heatmaps the taxonomy's ``show:`` blocks\ndeclare, then the fixed figures) is drawn from the same tables as STATS.md (``masrl.derive.stats``). Output is
byte-for-byte reproducible on one matplotlib version: a fixed SVG hash salt, no date or software
metadata, fixed sizes and resolution, text drawn as paths in DejaVu Sans (bundled with
matplotlib), and figures built with the object-oriented API (no pyplot state between figures).

Colours are colour-blind safe: the Okabe-Ito palette for categories and cividis for heatmaps,
whose empty cells are hatched in grey with a "·" marker and whose sparse cells are outlined.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from contextlib import contextmanager

from masrl.check.snapshot import PUBLISHED_SNAPSHOT, published_snapshot
from masrl.derive.gaps import DEFAULT_SPARSE
from masrl.derive.stats import (
    NOT_APPLICABLE,
    axis_counts,
    countable_fields,
    crosstab,
    exclusion_crosstab,
    field_labels,
)
from masrl.errors import UsageError
from masrl.model.project import Corpus
from masrl.model.taxonomy import Taxonomy
from masrl.render.cache import RenderCache, code_fingerprint, corpus_inputs

# matplotlib (and numpy) take seconds to import and only drawing needs them: a figure read back
# from the render cache does not. _load_matplotlib() binds these names the first time a figure
# is drawn.
matplotlib = Figure = FancyBboxPatch = Patch = Rectangle = np = None


def _load_matplotlib() -> None:
    global matplotlib, Figure, FancyBboxPatch, Patch, Rectangle, np
    if Rectangle is not None:
        return
    import matplotlib as _matplotlib
    import matplotlib.lines
    import matplotlib.ticker
    import numpy as _numpy
    from matplotlib.figure import Figure as _Figure
    from matplotlib.patches import FancyBboxPatch as _FancyBboxPatch
    from matplotlib.patches import Patch as _Patch
    from matplotlib.patches import Rectangle as _Rectangle

    np = _numpy
    matplotlib, Figure, FancyBboxPatch, Patch = _matplotlib, _Figure, _FancyBboxPatch, _Patch
    Rectangle = _Rectangle


FIGURE_DIR = "figures"
FORMATS = ("svg", "png")
PNG_DPI = 150

# Okabe & Ito (2008), without yellow first: it is hard to read on white.
OKABE_ITO = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#56B4E9", "#CC79A7", "#F0E442", "#000000")
NOT_APPLICABLE_COLOUR = "#BBBBBB"
EMPTY_COLOUR = "#EEEEEE"
EMPTY_HATCH_COLOUR = "#BBBBBB"
SPARSE_OUTLINE = "#D55E00"
TEXT_COLOUR = "#222222"
HEATMAP_CMAP = "cividis"

STYLE = {
    "font.family": "sans-serif",
    "font.sans-serif": ["DejaVu Sans", "Arial", "Helvetica"],
    "font.size": 10,
    "axes.titlesize": 11,
    "axes.titleweight": "bold",
    "axes.labelsize": 10,
    "axes.edgecolor": "#444444",
    "axes.spines.top": False,
    "axes.spines.right": False,
    "text.color": TEXT_COLOUR,
    "axes.labelcolor": TEXT_COLOUR,
    "xtick.color": TEXT_COLOUR,
    "ytick.color": TEXT_COLOUR,
    "hatch.linewidth": 0.6,
    "svg.hashsalt": "masrl",  # stable ids for clip paths and hatch patterns
    # Text stays text: searchable, selectable, read by screen readers, and the files are smaller.
    "svg.fonttype": "none",
    "figure.dpi": 100,
    "savefig.dpi": PNG_DPI,
    "path.simplify": True,
}

# The figures that do not come from the taxonomy's ``show:`` blocks: (name, title, caption), drawn
# after the axis overview and the heatmaps.
FIXED_FIGURES: tuple[tuple[str, str, str], ...] = (
    (
        "sub-decision-coverage",
        "Orchestration sub-decisions by RL training",
        "Entries addressing each orchestration sub-decision (O1 spawn to O5 stop), split by whether their "
        "agents are trained with RL; the figure beside each bar is its total.",
    ),
    (
        "entries-per-year",
        "Entries per year by category",
        "Retained entries per publication year, stacked by category; years without an entry are left out.",
    ),
    (
        "screening-flow",
        "Screening flow",
        "PRISMA-style flow of the audit: records audited, records excluded at each screening stage with "
        "their reasons, and the retained entries by category.",
    ),
)
AXIS_COUNTS = "axis-counts"
NUMBER_WORDS = (
    "no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
    "twelve",
)  # fmt: skip


def overview_fields(taxonomy: Taxonomy) -> tuple[str, ...]:
    """The axes drawn as panels of the axis-counts figure: each axis's ``show: figure``, in order."""
    return taxonomy.shown("figure")


def figure_list(taxonomy: Taxonomy) -> list[tuple[str, str, str]]:
    """(name, title, caption) of every figure, in the order pages show them: the axis overview,
    the heatmaps the taxonomy declares, then the fixed figures."""
    count = len(overview_fields(taxonomy))
    axes = NUMBER_WORDS[count] if count < len(NUMBER_WORDS) else str(count)
    overview = (
        AXIS_COUNTS,
        "Entries per value of each axis",
        f"Number of retained entries holding each value of {axes} tagged axes, in taxonomy order; grey bars "
        "count entries for which the axis is not applicable, and a black tick marks the count on the "
        "published snapshot. Multi-valued axes count an entry once per value.",
    )
    heatmaps = [(h.name, h.title, h.caption) for h in taxonomy.heatmaps()]
    return [overview, *heatmaps, *FIXED_FIGURES]


def figure_names(taxonomy: Taxonomy) -> list[str]:
    return [name for name, _, _ in figure_list(taxonomy)]


@contextmanager
def _style():
    _load_matplotlib()
    with matplotlib.rc_context(STYLE):
        yield


def _new_figure(width: float, height: float) -> Figure:
    _load_matplotlib()
    return Figure(figsize=(width, height), dpi=STYLE["figure.dpi"], layout="constrained")


def figure_bytes(figure: Figure, fmt: str) -> bytes:
    """The figure as SVG or PNG bytes, without any date or software stamp."""
    metadata = {"Date": None, "Creator": None} if fmt == "svg" else {"Software": None}
    buffer = io.BytesIO()
    figure.savefig(buffer, format=fmt, dpi=PNG_DPI, metadata=metadata, facecolor="white")
    return buffer.getvalue()


def _read_cached(cache, files: dict[str, bytes | None], names: list[str], formats) -> list[str]:
    """Fills in the files not read yet that the cache holds; the names still missing a format."""
    for path, content in files.items():
        if content is None:
            files[path] = cache.get(path)
    return [
        name
        for name in names
        if any(files[f"{FIGURE_DIR}/{name}.{fmt}"] is None for fmt in formats)
    ]


def render_figures(
    corpus: Corpus, names: list[str] | None = None, formats=FORMATS
) -> dict[str, bytes]:
    """{"figures/<name>.<format>": bytes} for the named figures (default: all of figure_list)."""
    known = drawers(corpus.taxonomy)
    wanted = names or list(known)
    unknown = sorted(set(wanted) - set(known))
    if unknown:
        raise UsageError(
            f"unknown figure(s): {', '.join(unknown)}",
            hint=f"known: {', '.join(known)}",
        )
    if not formats or not set(formats) <= set(FORMATS):
        raise UsageError(
            f"unknown format(s) in {', '.join(formats) or 'none'}",
            hint=f"known: {', '.join(FORMATS)}",
        )
    cache = figure_cache(corpus)
    files: dict[str, bytes | None] = dict.fromkeys(
        f"{FIGURE_DIR}/{name}.{fmt}" for name in wanted for fmt in formats
    )
    missing = _read_cached(cache, files, wanted, formats)
    # Saved in FORMATS order, whatever was asked for: saving a figure runs its constrained layout
    # again, so a PNG saved after the SVG differs from one saved alone, and `masrl plots --format
    # png` must give the bytes `masrl build` commits. Every format saved goes into the cache.
    saved = FORMATS[: max(FORMATS.index(fmt) for fmt in formats) + 1]
    if not missing:
        return files
    with cache.making():
        # Another process may have drawn some of them while this one waited for the lock.
        missing = _read_cached(cache, files, missing, formats)
        if missing:  # only drawing needs matplotlib (and its style)
            with _style():
                for name in missing:
                    figure = known[name](corpus)
                    for fmt in saved:
                        path = f"{FIGURE_DIR}/{name}.{fmt}"
                        content = figure_bytes(figure, fmt)
                        cache.put(path, content)
                        if fmt in formats:
                            files[path] = content
    return files


def figure_cache(corpus: Corpus) -> RenderCache:
    """The cache of this corpus's figures: keyed by the corpus's records, the taxonomy, the
    published snapshot (corpus_inputs), all of masrl's code and matplotlib (see
    masrl.render.cache). `masrl build`, `masrl check` and the site build compute the same key."""
    inputs = corpus_inputs(corpus)
    return RenderCache.keyed("figures", [inputs[0], code_fingerprint(), *inputs[1:]])


def figure_files(corpus: Corpus) -> dict[str, bytes]:
    """Generator hook for `masrl build`: every figure in both formats."""
    return render_figures(corpus)


# ---------------------------------------------------------------------------------------------
# Labels.


def value_name(corpus: Corpus, field_name: str, value: str) -> str:
    """A short readable name: O2 delegate, R6 Debate / verifier, Tool call, not applicable."""
    if value == NOT_APPLICABLE:
        return NOT_APPLICABLE
    taxonomy = corpus.taxonomy
    if field_name == "sub_decisions":
        return f"{value} {taxonomy['sub_decisions'].by_id[value].extra.get('name', '')}".strip()
    if field_name == "reward_families":
        label = taxonomy["reward_families"].label_of(value).removesuffix(" reward")
        return f"{value} {label}"
    axis = countable_fields(taxonomy)[field_name].axis
    return taxonomy[axis].label_of(value) if axis else value


def _panel_title(corpus: Corpus, field_name: str) -> str:
    return field_labels(corpus.taxonomy)[field_name]


# ---------------------------------------------------------------------------------------------
# Figures.


def draw_axis_counts(corpus: Corpus) -> Figure:
    fields = overview_fields(corpus.taxonomy)
    rows = max(1, -(-len(fields) // 3))
    figure = _new_figure(11.0, 10.0 * rows / 3)
    panels = figure.subplots(rows, 3, squeeze=False)
    for unused in panels.flat[len(fields) :]:
        unused.set_visible(False)
    tables = {name: axis_counts(corpus, name) for name in fields}
    frozen = published_snapshot(corpus.project)
    # an axis newer than the published snapshot has no published counts to mark
    frozen_tables = (
        {
            name: axis_counts(frozen, name)
            for name in fields
            if name in countable_fields(frozen.taxonomy)
        }
        if frozen is not None
        else {}
    )
    most_rows = max(len(table) for table in tables.values())
    for ax, field_name in zip(panels.flat, fields, strict=False):
        table = tables[field_name]
        names = [value_name(corpus, field_name, v) for v in table.values]
        counts = np.array(table.counts)
        colours = [
            NOT_APPLICABLE_COLOUR if v == NOT_APPLICABLE else OKABE_ITO[0] for v in table.values
        ]
        positions = np.arange(len(names))
        ax.barh(positions, counts, color=colours, height=0.7)
        ax.set_yticks(positions, names)
        ax.set_ylim(most_rows - 0.5, -0.5)  # the same bar thickness in every panel, top-aligned
        ax.spines["left"].set_bounds(len(names) - 0.5, -0.5)  # the axis line ends with the last bar
        ax.set_title(_panel_title(corpus, field_name), loc="left")
        old = frozen_tables.get(field_name)
        old_counts = [old.get(v, 0) if old is not None else 0 for v in table.values]
        limit = max(int(counts.max()), *old_counts, 1)
        ax.set_xlim(0, limit * 1.18)
        if old is not None:
            # The published count as a black tick across the bar: growth shows as bar beyond the tick.
            ax.scatter(
                old_counts,
                positions,
                marker="|",
                s=140,
                color=OKABE_ITO[7],
                linewidths=1.6,
                zorder=3,
            )
        for y, count, before in zip(positions, counts, old_counts, strict=True):
            ax.text(max(count, before) + limit * 0.02, y, str(int(count)), va="center", fontsize=8)
        ax.tick_params(axis="y", length=0)
        # Every bar carries its count, so the x axis would only repeat it.
        ax.xaxis.set_visible(False)
        ax.spines["bottom"].set_visible(False)
    figure.suptitle("Retained entries per value of each axis", fontsize=12, fontweight="bold")
    if frozen_tables:
        marker = matplotlib.lines.Line2D(
            [],
            [],
            color=OKABE_ITO[7],
            marker="|",
            linestyle="none",
            markersize=12,
            markeredgewidth=1.6,
        )
        figure.legend(
            [Patch(color=OKABE_ITO[0]), marker],
            ["live corpus", f"snapshot {PUBLISHED_SNAPSHOT}"],
            loc="upper right",
            frameon=False,
            ncols=2,
            fontsize=9,
        )
    return figure


def _draw_heatmap(
    corpus: Corpus, row_field: str, column_field: str, sparse: int = DEFAULT_SPARSE
) -> Figure:
    table = crosstab(corpus, row_field, column_field)
    rows, columns = list(table.rows), list(table.columns)
    counts = table.to_numpy()
    figure = _new_figure(1.9 + 0.85 * len(columns), 1.5 + 0.5 * len(rows))
    ax = figure.subplots()
    shown = np.ma.masked_equal(counts, 0)
    cmap = matplotlib.colormaps[HEATMAP_CMAP].with_extremes(bad=EMPTY_COLOUR)
    top = max(int(counts.max()), 2)
    image = ax.imshow(shown, cmap=cmap, vmin=1, vmax=top, aspect="auto")
    for (i, j), count in np.ndenumerate(counts):
        _annotate_cell(ax, i, j, int(count), top, sparse)
    ax.set_xticks(np.arange(len(columns) + 1) - 0.5, minor=True)
    ax.set_yticks(np.arange(len(rows) + 1) - 0.5, minor=True)
    ax.grid(which="minor", color="white", linewidth=1.5)
    ax.tick_params(which="minor", length=0)
    ax.set_xticks(
        range(len(columns)),
        [value_name(corpus, column_field, c) for c in columns],
        rotation=35,
        ha="right",
    )
    ax.set_yticks(range(len(rows)), [value_name(corpus, row_field, r) for r in rows])
    ax.set_xlabel(field_labels(corpus.taxonomy)[column_field])
    ax.set_ylabel(field_labels(corpus.taxonomy)[row_field])
    ax.tick_params(length=0)
    for spine in ax.spines.values():
        spine.set_visible(False)
    colourbar = figure.colorbar(image, ax=ax, shrink=0.8, pad=0.02)
    colourbar.set_label("entries")
    colourbar.ax.yaxis.set_major_locator(matplotlib.ticker.MaxNLocator(integer=True))
    title = f"{field_labels(corpus.taxonomy)[row_field]} × {field_labels(corpus.taxonomy)[column_field]}"
    ax.set_title(title, loc="left")
    thin = "1 entry" if sparse == 1 else f"1-{sparse} entries"
    legend = [
        Patch(
            facecolor=EMPTY_COLOUR,
            edgecolor=EMPTY_HATCH_COLOUR,
            hatch="///",
            label="· no entry (empty)",
        ),
        Patch(facecolor="white", edgecolor=SPARSE_OUTLINE, linewidth=2, label=f"sparse ({thin})"),
    ]
    figure.legend(handles=legend, loc="outside lower center", ncol=2, frameon=False, fontsize=8)
    return figure


def _annotate_cell(ax, i: int, j: int, count: int, top: int, sparse: int) -> None:
    if count == 0:
        ax.add_patch(
            Rectangle(
                (j - 0.5, i - 0.5),
                1,
                1,
                facecolor="none",
                edgecolor=EMPTY_HATCH_COLOUR,
                hatch="///",
                linewidth=0,
            )
        )
        ax.text(
            j, i, "·", ha="center", va="center", fontsize=14, color="#777777", fontweight="bold"
        )
        return
    if count <= sparse:
        ax.add_patch(
            Rectangle(
                (j - 0.46, i - 0.46),
                0.92,
                0.92,
                facecolor="none",
                edgecolor=SPARSE_OUTLINE,
                linewidth=2,
            )
        )
    dark = (count - 1) / (top - 1) < 0.55  # cividis is dark at the low end
    ax.text(
        j,
        i,
        str(count),
        ha="center",
        va="center",
        fontsize=9,
        fontweight="bold",
        color="white" if dark else "black",
    )


def _heatmap_drawer(row_field: str, column_field: str) -> Callable[[Corpus], Figure]:
    def draw(corpus: Corpus) -> Figure:
        return _draw_heatmap(corpus, row_field, column_field)

    return draw


def draw_sub_decision_coverage(corpus: Corpus) -> Figure:
    table = crosstab(corpus, "sub_decisions", "is_rl")
    figure = _new_figure(7.5, 3.6)
    ax = figure.subplots()
    positions = np.arange(len(table.rows))
    left = np.zeros(len(table.rows))
    colours = dict(zip(table.columns, (OKABE_ITO[0], OKABE_ITO[4], OKABE_ITO[1]), strict=False))
    for status in table.columns:
        values = np.array(table.column(status), dtype=np.int64)
        label = corpus.taxonomy["is_rl"].label_of(status)
        ax.barh(
            positions,
            values,
            left=left,
            color=colours.get(status, OKABE_ITO[7]),
            height=0.65,
            label=label,
        )
        for y, (start, width) in enumerate(zip(left, values, strict=True)):
            if width:
                ax.text(
                    start + width / 2,
                    y,
                    str(int(width)),
                    ha="center",
                    va="center",
                    fontsize=8,
                    color="white" if status != "partial" else "black",
                )
        left += values
    top = max(left.max(), 1)
    for y, total in enumerate(left):
        note = f"{int(total)}" if total else "no entry"
        ax.text(
            total + top * 0.015,
            y,
            note,
            va="center",
            fontsize=8,
            fontstyle="normal" if total else "italic",
        )
    ax.set_yticks(positions, [_sub_decision_label(corpus, v) for v in table.rows])
    ax.invert_yaxis()
    ax.set_xlim(0, top * 1.15)
    ax.xaxis.set_major_locator(matplotlib.ticker.MaxNLocator(integer=True))
    ax.set_xlabel("entries addressing the sub-decision")
    ax.tick_params(axis="y", length=0)
    ax.set_title("Orchestration sub-decisions by RL training", loc="left")
    ax.legend(title="agents trained with", frameon=False, loc="lower right")
    return figure


def _sub_decision_label(corpus: Corpus, value: str) -> str:
    return f"{value} {corpus.taxonomy['sub_decisions'].label_of(value).lower()}"


def draw_entries_per_year(corpus: Corpus) -> Figure:
    table = crosstab(corpus, "year", "category")
    figure = _new_figure(9.0, 4.2)
    ax = figure.subplots()
    positions = np.arange(len(table.rows))
    bottom = np.zeros(len(table.rows))
    for colour, category in zip(OKABE_ITO, table.columns, strict=False):
        values = np.array(table.column(category), dtype=np.int64)
        ax.bar(
            positions,
            values,
            bottom=bottom,
            color=colour,
            width=0.75,
            label=corpus.taxonomy["categories"].label_of(category),
            edgecolor="white",
            linewidth=0.5,
        )
        bottom += values
    for x, total in enumerate(bottom):
        ax.text(x, total + 0.4, str(int(total)), ha="center", va="bottom", fontsize=8)
    ax.set_xticks(positions, list(table.rows))
    ax.set_ylim(0, bottom.max() * 1.12 + 1)
    ax.set_ylabel("retained entries")
    ax.set_xlabel("year (years without an entry left out)")
    ax.set_title("Retained entries per year by category", loc="left")
    ax.legend(frameon=False, loc="upper left", fontsize=8)
    return figure


# -- the screening flow -----------------------------------------------------------------------

FLOW_BOX = {"boxstyle": "round,pad=0.4,rounding_size=0.8", "linewidth": 1.0}
FLOW_INCHES_PER_UNIT = 0.1  # the flow is drawn on a 100-unit-wide canvas
MAIN_FILL, EXCLUDED_FILL, RETAINED_FILL = "#DCEBF5", "#FBE3D6", "#D9F0E6"


def screening_flow_data(corpus: Corpus) -> dict:
    """The numbers behind the flow: audited, per stage excluded (with reasons) and remaining,
    retained per category. Stages run in taxonomy order."""
    by_stage = exclusion_crosstab(corpus, "stage", "reason_code")
    remaining = corpus.audited
    stages = []
    for stage in by_stage.rows:
        reasons = {reason: n for reason, n in by_stage.row(stage).items() if n}
        excluded = sum(reasons.values())
        remaining -= excluded
        stages.append(
            {"stage": stage, "excluded": excluded, "reasons": reasons, "remaining": remaining}
        )
    categories = axis_counts(corpus, "category").as_dict()
    return {
        "audited": corpus.audited,
        "stages": stages,
        "retained": len(corpus.entries),
        "categories": categories,
    }


def _box(
    ax, x: float, y: float, width: float, height: float, text: str, fill: str, **text_options
) -> None:
    ax.add_patch(
        FancyBboxPatch(
            (x - width / 2, y - height / 2),
            width,
            height,
            facecolor=fill,
            edgecolor="#555555",
            **FLOW_BOX,
        )
    )
    ax.text(
        x,
        y,
        text,
        ha="center",
        va="center",
        fontsize=text_options.pop("fontsize", 9),
        **text_options,
    )


def _arrow(ax, start: tuple[float, float], end: tuple[float, float]) -> None:
    ax.annotate(
        "",
        xy=end,
        xytext=start,
        arrowprops={
            "arrowstyle": "-|>",
            "color": "#555555",
            "linewidth": 1.1,
            "shrinkA": 0,
            "shrinkB": 0,
        },
    )


def draw_screening_flow(corpus: Corpus) -> Figure:
    _load_matplotlib()
    data = screening_flow_data(corpus)
    taxonomy = corpus.taxonomy
    figure = Figure(figsize=(100 * FLOW_INCHES_PER_UNIT, 10.5), dpi=STYLE["figure.dpi"])
    ax = figure.add_axes((0, 0, 1, 1))
    ax.set_xlim(0, 100)
    ax.set_ylim(0, 105)
    ax.set_axis_off()
    main_x, side_x, main_w, side_w = 25, 71, 34, 48
    step = 17.0
    y = 98.0
    _box(
        ax,
        main_x,
        y,
        main_w,
        5,
        f"Records audited\nn = {data['audited']}",
        MAIN_FILL,
        fontweight="bold",
    )
    for index, stage in enumerate(data["stages"]):
        next_y = y - step
        # The exclusion branch leaves the main stream halfway between two boxes.
        branch_y = y - step / 2
        label = taxonomy["screening_stages"].label_of(stage["stage"])
        reasons = "\n".join(
            f"{taxonomy['exclusion_reasons'].label_of(r)}: {n}"
            for r, n in sorted(stage["reasons"].items(), key=lambda item: (-item[1], item[0]))
        )
        height = 3.6 + 2.1 * max(len(stage["reasons"]), 1)
        _box(ax, side_x, branch_y, side_w, height, "", EXCLUDED_FILL)
        top = branch_y + height / 2
        ax.text(
            side_x,
            top - 1.6,
            f"Excluded at {label.lower()}: n = {stage['excluded']}",
            ha="center",
            va="center",
            fontsize=9,
            fontweight="bold",
        )
        ax.text(side_x, top - 3.0, reasons, ha="center", va="top", fontsize=8.5, linespacing=1.45)
        ax.plot(
            [main_x, side_x - side_w / 2 - 0.9],
            [branch_y, branch_y],
            color="#555555",
            linewidth=1.1,
        )
        _arrow(ax, (side_x - side_w / 2 - 1.5, branch_y), (side_x - side_w / 2 - 0.9, branch_y))
        _arrow(ax, (main_x, y - 2.5 - 0.9), (main_x, next_y + 2.5 + 0.9))
        last = index == len(data["stages"]) - 1
        text = (
            f"Retained entries\nn = {data['retained']}"
            if last
            else f"Passed {label.lower()}\nn = {stage['remaining']}"
        )
        _box(
            ax,
            main_x,
            next_y,
            main_w,
            5,
            text,
            RETAINED_FILL if last else MAIN_FILL,
            fontweight="bold" if last else "normal",
        )
        y = next_y
    bottom = _draw_category_row(ax, data, taxonomy, main_x, y) - 2
    ax.set_ylim(bottom, 105)
    figure.set_size_inches(10.0, (105 - bottom) * FLOW_INCHES_PER_UNIT)  # one scale on both axes
    return figure


def _draw_category_row(ax, data: dict, taxonomy, from_x: float, from_y: float) -> float:
    """The retained entries by category, in a row under the flow; returns the row's lowest y."""
    categories = data["categories"]
    width, gap = 14.6, 1.6
    total_width = len(categories) * width + (len(categories) - 1) * gap
    start = (100 - total_width) / 2 + width / 2
    row_y = from_y - 14
    ax.plot([from_x, from_x], [from_y - 3.4, row_y + 6.5], color="#555555", linewidth=1.1)
    ax.plot(
        [start, start + (len(categories) - 1) * (width + gap)],
        [row_y + 6.5] * 2,
        color="#555555",
        linewidth=1.1,
    )
    for index, (category, count) in enumerate(categories.items()):
        x = start + index * (width + gap)
        _arrow(ax, (x, row_y + 6.5), (x, row_y + 4.6))
        label = _wrap(taxonomy["categories"].label_of(category), 16)
        _box(ax, x, row_y, width, 7.4, f"{label}\nn = {count}", RETAINED_FILL, fontsize=8)
    return row_y - 3.7 - 0.8


def _wrap(text: str, width: int) -> str:
    lines, current = [], ""
    for word in text.split():
        if current and len(current) + 1 + len(word) > width:
            lines.append(current)
            current = word
        else:
            current = f"{current} {word}".strip()
    return "\n".join([*lines, current])


def drawers(taxonomy: Taxonomy) -> dict[str, Callable[[Corpus], Figure]]:
    """Figure name -> the function that draws it, in figure_list order."""
    return {
        AXIS_COUNTS: draw_axis_counts,
        **{h.name: _heatmap_drawer(h.row, h.column) for h in taxonomy.heatmaps()},
        "sub-decision-coverage": draw_sub_decision_coverage,
        "entries-per-year": draw_entries_per_year,
        "screening-flow": draw_screening_flow,
    }

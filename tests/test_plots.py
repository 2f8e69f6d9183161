"""Figures: every listed figure in SVG and PNG, byte-for-byte deterministic, empty cells marked."""

from __future__ import annotations

import xml.etree.ElementTree as ElementTree

import pytest
from click.testing import CliRunner
from conftest import REPO_ROOT
from masrl.check.validate import load_corpus
from masrl.cli import main
from masrl.derive.stats import crosstab
from masrl.errors import UsageError
from masrl.model.project import Project
from masrl.model.taxonomy import load_taxonomy
from masrl.render import figures as plots
from masrl.render.cache import CACHE_ENV
from masrl.render.figures import drawers, figure_list, render_figures, screening_flow_data
from shared_corpus import live_corpus

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
TAXONOMY = load_taxonomy(REPO_ROOT / "taxonomy")
FIGURES = figure_list(TAXONOMY)
DRAWERS = drawers(TAXONOMY)

# One worker renders every figure once for the whole module (the fixture below), not one per worker.
pytestmark = pytest.mark.xdist_group("figures")


@pytest.fixture(scope="module")
def real_corpus():
    return live_corpus()


# Drawn afresh in every run, cache or not: one figure of each drawing function, in SVG, and the
# smallest heatmap in PNG alone (`masrl plots --format png`), which must still be the PNG that
# `masrl build` commits, saved after the SVG.
FRESH_SVG = sorted(
    {drawer.__qualname__: name for name, drawer in reversed(DRAWERS.items())}.values()
)
FRESH_PNG = ["heatmap-sub-decision-topology"]


@pytest.fixture(scope="module")
def rendered(real_corpus, drawn_afresh):
    """Every figure as `masrl build` renders it (through the render cache, which a cold checkout
    fills by drawing, here drawn_afresh), beside the committed ones."""
    files = render_figures(real_corpus)
    return files, {path: (REPO_ROOT / path).read_bytes() for path in files}


@pytest.fixture(scope="module")
def drawn_afresh(real_corpus, tmp_path_factory):
    """Every figure of the live corpus drawn in this process into an empty cache, as `masrl check`
    in a cold checkout draws them: the smallest heatmap first with its PNG alone asked for (`masrl
    plots --format png`), then check draws the rest. Both tests below check these drawings, so the
    slowest work of the module is done once. Returns the names drawn (in order), the PNG asked for
    alone, check's stale files, and the FRESH_SVG files as drawn here."""
    from masrl.render import build

    drawn = []

    def recording(name, draw):
        def record(corpus):
            drawn.append(name)
            return draw(corpus)

        return record

    real_drawers = plots.drawers
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(CACHE_ENV, str(tmp_path_factory.mktemp("empty-cache")))
        patch.setattr(
            plots,
            "drawers",
            lambda taxonomy: {
                name: recording(name, draw) for name, draw in real_drawers(taxonomy).items()
            },
        )
        png_alone = render_figures(real_corpus, FRESH_PNG, ("png",))
        stale = build.check(Project(REPO_ROOT))
        cache = plots.figure_cache(real_corpus)
        svgs = {f"figures/{name}.svg": cache.get(f"figures/{name}.svg") for name in FRESH_SVG}
        every = render_figures(real_corpus)  # read back: all drawn above
    # They are the renders the shared cache keeps for this corpus (same place, same key): a run
    # after a code change reads them there instead of drawing them again (rendered, and builds
    # of the live corpus in the other worker that come later).
    shared = plots.figure_cache(real_corpus)
    for path, content in every.items():
        if shared.get(path) is None:
            shared.put(path, content)
    return drawn, png_alone, stale, svgs


def test_figures_list_is_fixed_and_complete():
    names = [name for name, _, _ in FIGURES]
    assert names == list(DRAWERS)
    assert len(set(names)) == len(names)
    assert all(title and caption.endswith(".") for _, title, caption in FIGURES)


def test_every_figure_in_both_formats(rendered):
    files, _ = rendered
    expected = {f"figures/{name}.{fmt}" for name, _, _ in FIGURES for fmt in ("svg", "png")}
    assert set(files) == expected
    for path, content in files.items():
        if path.endswith(".png"):
            assert content.startswith(PNG_SIGNATURE), path
        else:
            ElementTree.fromstring(content)  # well-formed XML


def test_rendering_is_deterministic(rendered):
    first, second = rendered  # the render of the current data and the committed one
    different = [path for path in first if first[path] != second[path]]
    assert not different


@pytest.mark.slow  # shares the drawing of every figure with the empty-cache check below
def test_drawing_afresh_gives_the_committed_bytes(drawn_afresh):
    """Drawn here, not read from any cache, in a process other than the one that wrote the
    committed files: the bytes are the same, so the drawing itself is deterministic, not only the
    cache."""
    drawn, png_alone, _, svgs = drawn_afresh
    assert set(FRESH_SVG) | set(FRESH_PNG) <= set(drawn)
    fresh = {**svgs, **png_alone}
    assert len(FRESH_SVG) >= 5 and len(fresh) == len(FRESH_SVG) + len(FRESH_PNG)
    assert [
        path for path, content in fresh.items() if content != (REPO_ROOT / path).read_bytes()
    ] == []


def test_files_carry_no_date_or_software_stamp(rendered):
    files, _ = rendered
    for path, content in files.items():
        if path.endswith(".svg"):
            assert b"<dc:date>" not in content and b"Matplotlib v" not in content, path
        else:
            assert b"Software" not in content and b"matplotlib" not in content.lower(), path


def test_heatmaps_mark_every_empty_cell(mini_project):
    corpus = load_corpus(mini_project)
    with plots._style():
        figure = plots._draw_heatmap(corpus, "reward_types", "credit_units")
    table = crosstab(corpus, "reward_types", "credit_units")
    ax = figure.axes[0]
    hatched = [p for p in ax.patches if p.get_hatch() == "///"]
    dots = [t for t in ax.texts if t.get_text() == "·"]
    empty = int((table.to_numpy() == 0).sum())
    assert len(hatched) == len(dots) == empty
    outlined = [p for p in ax.patches if not p.get_hatch()]
    assert len(outlined) == 2  # two sparse cells of one entry each


def test_screening_flow_numbers(published_corpus):
    data = screening_flow_data(published_corpus)
    assert data["audited"] == 116 and data["retained"] == 84
    assert [(s["stage"], s["excluded"], s["remaining"]) for s in data["stages"]] == [
        ("abstract_screen", 16, 100),
        ("full_text_screen", 9, 91),
        ("artifact_screen", 6, 85),
        ("duplicate_screen", 1, 84),
    ]
    assert sum(data["categories"].values()) == 84
    assert sum(sum(s["reasons"].values()) for s in data["stages"]) == 32


def test_unknown_figure_name_is_refused(mini_project):
    with pytest.raises(UsageError, match="unknown figure"):
        render_figures(load_corpus(mini_project), ["pie-chart"])
    with pytest.raises(UsageError, match="unknown format"):
        render_figures(load_corpus(mini_project), ["axis-counts"], formats=("pdf",))


def test_cli_renders_selected_figures_and_skips_unchanged(mini_project):
    runner = CliRunner()
    args = [
        "plots",
        "--root",
        str(mini_project.root),
        "--only",
        "entries-per-year",
        "--format",
        "svg",
    ]
    result = runner.invoke(main, args)
    assert result.exit_code == 0, result.output
    assert (mini_project.root / "figures" / "entries-per-year.svg").is_file()
    assert not (mini_project.root / "figures" / "entries-per-year.png").exists()
    assert "1 changed" in result.output
    again = runner.invoke(main, args)
    assert again.exit_code == 0 and "0 changed" in again.output


def test_the_figure_cache_serves_identical_bytes_and_ignores_a_tampered_file(
    mini_project, tmp_path, monkeypatch
):
    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "cache"))
    corpus = load_corpus(mini_project)
    first = render_figures(corpus, ["entries-per-year"])
    cache = plots.figure_cache(corpus)
    stored = cache._file("figures/entries-per-year.svg")
    assert (
        stored.is_file()
        and cache.get("figures/entries-per-year.svg") == first["figures/entries-per-year.svg"]
    )
    stored.write_bytes(stored.read_bytes()[:-20] + b"<!-- tampered -->")
    assert cache.get("figures/entries-per-year.svg") is None
    assert render_figures(corpus, ["entries-per-year"]) == first


def test_the_figure_key_is_a_function_of_the_records(tmp_path, monkeypatch):
    """`masrl build`, `masrl check` and the site build key the figures by the same digest of the
    records: the same records, in any order, find the same figures; one changed field draws them
    again."""
    import dataclasses

    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "cache"))
    corpus = live_corpus()
    directory = plots.figure_cache(corpus).directory
    assert directory is not None
    shuffled = dataclasses.replace(
        corpus, entries=corpus.entries[::-1], exclusions=corpus.exclusions[::-1]
    )
    assert plots.figure_cache(shuffled).directory == directory
    first, *rest = corpus.entries
    moved = dataclasses.replace(corpus, entries=[first.model_copy(update={"year": 1999}), *rest])
    assert plots.figure_cache(moved).directory != directory
    excluded, *others = corpus.exclusions
    retitled = excluded.model_copy(update={"title": excluded.title + " (v2)"})
    changed = dataclasses.replace(corpus, exclusions=[retitled, *others])
    assert plots.figure_cache(changed).directory != directory


def test_a_change_to_any_code_draws_again(mini_project, tmp_path, monkeypatch):
    """Cached renders are keyed by all of masrl's code (content only, no hand-kept list of the
    modules a picture depends on): a change to how a table is counted or a trace is laid out
    must not serve a stale picture, and `masrl check` may trust what the cache gives back."""
    import shutil
    from pathlib import Path

    import masrl
    from masrl.render import cache
    from masrl.render.site.trace_pages import _figure_svg
    from masrl.traces import examples_directory

    package = Path(masrl.__file__).parent
    copies = [tmp_path / name / "masrl" for name in ("same", "stats", "view")]
    for copy in copies:
        shutil.copytree(package, copy, ignore=shutil.ignore_patterns("__pycache__"))
    for copy, module in zip(copies[1:], ("derive/stats.py", "traces/view.py"), strict=True):
        (copy / module).write_bytes((copy / module).read_bytes() + b"\n# edited\n")
    digests = [cache.package_source_digest(copy) for copy in copies]
    assert digests[0] == cache.package_source_digest(package)
    assert len(set(digests)) == 3

    corpus = load_corpus(mini_project)
    before = plots.figure_cache(corpus).directory
    monkeypatch.setattr(cache, "package_source_digest", lambda: digests[1])
    assert plots.figure_cache(corpus).directory != before

    keys = []
    monkeypatch.setattr(
        cache,
        "cached_files",
        lambda kind, inputs, produce: keys.append(list(inputs)) or {"svg": b""},
    )
    example = min(examples_directory().glob("*.json"))
    _figure_svg(example)
    monkeypatch.setattr(cache, "package_source_digest", lambda: digests[2])
    _figure_svg(example)
    assert keys[0] != keys[1]


@pytest.mark.slow  # draws every figure of the live corpus (about 6 s of CPU)
def test_check_is_right_with_an_empty_cache(drawn_afresh):
    """With nothing cached, check draws every figure afresh and finds the committed ones fresh
    (check only reads the checkout)."""
    drawn, _, stale, _ = drawn_afresh
    assert sorted(drawn) == sorted(DRAWERS)  # each figure drawn once, none read from a cache
    assert stale == []

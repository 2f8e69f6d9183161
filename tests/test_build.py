"""`masrl build`/`check` with the statistics snapshot, the figures and the README paper list."""

from __future__ import annotations

import re
import shutil

import pytest
from click.testing import CliRunner
from conftest import REPO_ROOT, entry_data, write_entry
from masrl.check.validate import load_corpus
from masrl.cli import main
from masrl.model.project import Project
from masrl.render import build
from masrl.render.readme import (
    BEGIN_MARKER,
    END_MARKER,
    ReadmeMarkersError,
    escape_markdown,
    paper_list,
    readme_files,
    replace_block,
    safe_url,
)
from masrl.render.stats_page import stats_snapshot

README = f"""# masrl

Hand-written introduction with a [link](https://example.org).

## Papers

{BEGIN_MARKER}
old generated text
{END_MARKER}

## Licence

Hand-written closing words.
"""


@pytest.fixture
def readme_only(monkeypatch):
    """Only the README generator: the figures are slow and not under test here."""
    monkeypatch.setattr(build, "GENERATOR_HOOKS", [("masrl.render.readme", "readme_files")])


# -- the README block ---------------------------------------------------------------------------


def test_replace_block_keeps_everything_outside_the_markers():
    new = replace_block(README, "1. fresh\n")
    before, after = README.split(BEGIN_MARKER)[0], README.split(END_MARKER)[1]
    assert new.startswith(before + BEGIN_MARKER + "\n1. fresh\n" + END_MARKER)
    assert new.endswith(END_MARKER + after)
    assert replace_block(new, "1. fresh\n") == new


@pytest.mark.parametrize(
    ("readme", "message"),
    [
        ("# masrl\n\nno markers\n", f"the marker {BEGIN_MARKER} is missing"),
        (f"# masrl\n{BEGIN_MARKER}\n", f"the marker {END_MARKER} is missing"),
        (
            f"{BEGIN_MARKER}\n{END_MARKER}\n{BEGIN_MARKER}\n",
            f"{BEGIN_MARKER} appears 2 times (lines 1, 3)",
        ),
        (
            f"{END_MARKER}\n{BEGIN_MARKER}\n",
            f"README.md:1: {END_MARKER} comes before {BEGIN_MARKER} (line 2)",
        ),
    ],
)
def test_replace_block_refuses_bad_markers(readme, message):
    with pytest.raises(ReadmeMarkersError) as caught:
        replace_block(readme, "x\n")
    assert message in caught.value.message
    assert "nothing was written" in caught.value.message


def test_no_readme_means_no_readme_output(mini_project):
    assert readme_files(load_corpus(mini_project)) == {}


def test_paper_list_groups_by_category_in_taxonomy_order(mini_project):
    text = paper_list(load_corpus(mini_project))
    methods, benchmarks = (
        text.index("### RL and post-training methods (2)"),
        text.index("### Benchmarks (1)"),
    )
    assert methods < benchmarks
    assert "### Surveys" not in text  # empty categories are left out
    # newest first, numbered per category, linked bold title, year, chips, first author, venue, summary
    assert (
        "1. **[Alpha Team Training for alpha2025](https://example.org/alpha2025)** (2025) `RL`"
        in text
    )
    assert "2. **[Beta Routing of Subtasks](https://example.org/beta2024)** (2024)" in text
    assert (
        "`reward:shared` `credit:message` `explicit credit` `topology:centralized` `O2 delegate`"
        in text
    )
    assert (
        "— Doe et al., _arXiv_.<br>\n   Trains a small team of language agents with a shared reward."
        in text
    )
    assert "`measures:outcome`" in text


def test_corpus_strings_cannot_inject_links_or_html(mini_project):
    write_entry(
        mini_project.root,
        entry_data(
            "evil2025",
            title="Click [here](https://evil.example) <script>alert(1)</script>",
            summary="A *bold* claim with `code` and <img src=x onerror=alert(1)> inside.",
            urls=[
                "https://example.org/a_(b)"
            ],  # "<" in a link is refused by validate (venues are a vocabulary)
        ),
    )
    text = paper_list(load_corpus(mini_project))
    assert "<script>" not in text and "<img" not in text
    assert not re.search(r"(?<!\\)\]\(https://evil", text)  # the bracket is escaped: no link
    assert "Click \\[here\\](https://evil.example) &lt;script&gt;alert(1)&lt;/script&gt;" in text
    assert "A \\*bold\\* claim with \\`code\\` and &lt;img" in text
    assert "](https://example.org/a_%28b%29)**" in text


def test_escaping_helpers():
    assert escape_markdown("1. not a list") == "1\\. not a list"
    assert escape_markdown("- not a bullet\nor a break") == "\\- not a bullet or a break"
    assert escape_markdown("R&D") == "R&amp;D"
    assert safe_url("javascript:alert(1)") is None
    assert safe_url("https://example.org/x y") == "https://example.org/x%20y"


def test_stats_snapshot_holds_claims_gaps_stats_and_figures(repo_copy):
    text = stats_snapshot(load_corpus(repo_copy))
    assert text.startswith("# Corpus statistics\n")
    for heading in ("## Claims", "## Gaps", "## Statistics", "## Figures"):
        assert f"\n{heading}\n" in text
    assert "| `no-rl-stopping` | true | true | holds |" in text
    assert (
        "84 retained entries and 32 excluded records: 116 audited records in all." in text
    )  # the published state
    assert "![Screening flow](figures/screening-flow.svg)" in text


# -- build and check ----------------------------------------------------------------------------


@pytest.mark.slow
def test_build_twice_gives_identical_bytes(tmp_path):
    # The live corpus, not the published one: its figures are the ones test_plots and test_repo
    # render too, so a cold render cache draws them once per run, not twice.
    for name in ("corpus", "exclusions", "taxonomy", "screening", "claims", "snapshots"):
        shutil.copytree(REPO_ROOT / name, tmp_path / name)
    project = Project(tmp_path)
    (tmp_path / "README.md").write_text(README, encoding="utf-8")
    written = build.build(project)  # no STATS.md or figures yet
    assert {
        "README.md",
        "STATS.md",
        "figures/screening-flow.png",
        "figures/axis-counts.svg",
    } <= set(written)
    first = {rel: (tmp_path / rel).read_bytes() for rel in written}
    assert (
        build.build(project) == []
    )  # a second build regenerates every file and finds the same bytes
    assert {rel: (tmp_path / rel).read_bytes() for rel in written} == first
    readme = (tmp_path / "README.md").read_text()
    assert readme.startswith("# masrl\n\nHand-written introduction")
    assert readme.endswith("## Licence\n\nHand-written closing words.\n")
    assert "old generated text" not in readme


def test_check_catches_a_hand_edit_of_the_list(repo_copy, readme_only):
    (repo_copy.root / "README.md").write_text(README, encoding="utf-8")
    build.build(repo_copy)
    path = repo_copy.root / "README.md"
    fresh = path.read_text()
    path.write_text(fresh.replace("(2025)", "(1999)", 1))
    stale = build.check(repo_copy)
    assert [s.path for s in stale] == ["README.md"]
    assert "-" in stale[0].diff and "(1999)" in stale[0].diff
    result = CliRunner().invoke(main, ["check", "--root", str(repo_copy.root)])
    assert result.exit_code == 1 and "README.md" in result.output
    # hand-written text outside the markers is the author's: editing it keeps the list fresh
    path.write_text(fresh.replace("Hand-written closing words.", "Other closing words."))
    assert build.check(repo_copy) == []


def test_build_refuses_a_readme_without_markers(repo_copy, readme_only):
    path = repo_copy.root / "README.md"
    path.write_text("# masrl\n\nNo markers here.\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["build", "--root", str(repo_copy.root)])
    assert result.exit_code == 1
    assert f"README.md: the marker {BEGIN_MARKER} is missing" in result.output
    assert path.read_text() == "# masrl\n\nNo markers here.\n"

"""The screening flow per round, the "What's new" page, the Atom feed and the README line."""

from __future__ import annotations

from conftest import entry_data, exclusion_data, write_entry, write_exclusion
from lxml import etree
from masrl.check.validate import load_corpus
from masrl.derive.flow import chapman_estimate, compute_flow
from masrl.render.cache import CACHE_ENV
from masrl.render.feed import atom_feed
from masrl.render.flow import estimate_markdown, flow_figure, flow_markdown, last_screened_line
from masrl.render.readme import readme_files
from masrl.screening.identified import record_citations, record_identified
from masrl.screening.queue import write_item

NEW_ROUND = (
    "  - id: '2026-11'\n    date: '2026-11-20'\n    searched: {from: '2026-05-04', until: '2026-11-20'}\n"
    "    query_families: [orchestration]\n    sources: [arxiv]\n    notes: First living round.\n"
)
ATOM = "{http://www.w3.org/2005/Atom}"


def second_round(project):
    root = project.root
    with (root / "screening" / "rounds.yaml").open("a", encoding="utf-8") as handle:
        handle.write(NEW_ROUND)
    write_entry(
        root,
        entry_data(
            "halt2026",
            title="Learning to Halt an Agent Team",
            year=2026,
            added="2026-11-21",
            round="2026-11",
            identifiers={"arxiv": "2606.01001", "doi": None, "openreview": None},
            urls=["https://arxiv.org/abs/2606.01001"],
        ),
    )
    write_exclusion(
        root,
        exclusion_data(
            "E033",
            title="A Prompted Debate Without Training",
            round="2026-11",
            identifier="arXiv:2606.01004",
            url="https://arxiv.org/abs/2606.01004",
            date_screened="2026-11-21",
        ),
    )
    record_identified(
        project,
        "2026-11",
        "arxiv",
        ["2606.01001", "2606.01004", "2606.01005", "2508.04652"],
        ["2508.04652"],
    )
    write_item(
        project,
        {
            "id": "2606.01005",
            "title": "Queued",
            "authors": ["Doe, Jane"],
            "published": "2026-06-01",
            "abstract": "A queued candidate.",
            "categories": ["cs.MA"],
            "identifiers": {"arxiv": "2606.01005", "doi": None},
            "url": "https://arxiv.org/abs/2606.01005",
            "families": ["orchestration"],
            "discovered": "2026-11-21",
            "round": "2026-11",
        },
    )


def test_flow_per_round_and_cumulative(repo_copy):
    second_round(repo_copy)
    flow = compute_flow(load_corpus(repo_copy))
    survey, living = flow.rounds
    assert (survey.round, survey.identified_total, survey.included, survey.excluded_total) == (
        "survey-2026-05",
        116,
        84,
        32,
    )
    assert (living.identified, living.duplicates, living.screened) == ({"arxiv": 4}, 1, 3)
    assert (living.included, living.excluded, living.waiting) == (
        1,
        {("abstract_screen", "no_rl_component"): 1},
        1,
    )
    total = flow.cumulative
    assert (total.identified_total, total.duplicates, total.included, total.excluded_total) == (
        120,
        1,
        85,
        33,
    )
    table = flow_markdown(flow)
    assert table.splitlines()[0] == "| Stage | survey-2026-05 | 2026-11 | all rounds |"
    assert "| Duplicates removed | 0 | 1 | 1 |" in table
    assert last_screened_line(flow) == (
        "Last screened 2026-11-20 (round 2026-11). Records added per round, newest "
        "first: 2026-11: 1 entries, 1 exclusions; survey-2026-05: 84 entries, 32 exclusions."
    )
    readme = readme_files(load_corpus(repo_copy))["README.md"].decode("utf-8")
    assert "_Last screened 2026-11-20 (round 2026-11)." in readme


def test_citation_searching_is_its_own_identification_column(repo_copy):
    """PRISMA 2020: database search per source and citation searching per direction; a record found
    by both is identified in both columns and removed once as a duplicate."""
    second_round(repo_copy)
    record_citations(
        repo_copy, "2026-11", "backward", {"2606.01001": ["magrpo"], "2607.00002": ["malt"]}
    )
    record_citations(repo_copy, "2026-11", "forward", {"2608.00003": ["c3", "magrpo"]})
    record_citations(
        repo_copy, "2026-11", "backward", {"2607.00002": ["c3"]}
    )  # merged, not repeated
    log = (repo_copy.root / "screening" / "identified" / "2026-11.yaml").read_text(encoding="utf-8")
    assert "2607.00002':\n    - c3\n    - malt" in log or "'2607.00002': [c3, malt]" in log, log
    living = compute_flow(load_corpus(repo_copy)).rounds[1]
    assert (living.identified_database, living.identified_citation, living.identified_total) == (
        4,
        3,
        7,
    )
    assert living.citations == {"backward": 2, "forward": 1}
    assert (living.duplicates, living.screened) == (
        2,
        5,
    )  # 2508.04652 known, 2606.01001 found twice
    assert living.included_by_method == {"both": 1}
    table = flow_markdown(compute_flow(load_corpus(repo_copy)))
    assert "|   by database search | 116 | 4 | 120 |" in table
    assert (
        "|   by citation searching | 0 | 3 | 3 |" in table
        and "|     backward | 0 | 2 | 2 |" in table
    )


def test_a_work_without_an_identifier_is_logged_by_its_url(repo_copy):
    """A blog post has no arXiv id: the log names it by URL and the flow counts it once."""
    second_round(repo_copy)
    url = "https://example.org/blog/agent-teams"
    write_entry(
        repo_copy.root,
        entry_data(
            "blogteam2026",
            title="How We Run Agent Teams",
            year=2026,
            round="2026-11",
            category="industry",
            survey_role="case",
            evidence_level="documentation_blog",
            venue="Blog",
            identifiers={"arxiv": None, "doi": None, "openreview": None},
            urls=[url],
        ),
    )
    record_identified(repo_copy, "2026-11", "company_blog", [url], [])
    living = compute_flow(load_corpus(repo_copy)).rounds[1]
    assert living.identified == {"arxiv": 4, "company_blog": 1}
    assert (living.screened, living.included) == (4, 2)


def test_capture_recapture_gives_chapmans_estimate_or_says_why_not():
    from masrl.derive.flow import RoundFlow

    def round_with(database, citation, both):
        return RoundFlow(
            "r",
            "2026-12-01",
            {},
            0,
            0,
            {},
            database + citation + both,
            0,
            {},
            {"database": database, "citation": citation, "both": both},
        )

    # n1 = 40, n2 = 25, m = 20: N = 41 * 26 / 21 - 1 = 49.76
    estimate = chapman_estimate(round_with(20, 5, 20))
    assert (estimate.by_database, estimate.by_citation, estimate.by_both, estimate.found) == (
        40,
        25,
        20,
        45,
    )
    # Seber: var = 41 * 26 * 20 * 5 / (21 ** 2 * 22) = 10.99; high = 49.76 + 1.96 * 3.315
    assert (
        round(estimate.estimate, 2) == 49.76
        and estimate.low == 45
        and round(estimate.high, 1) == 56.3
    )
    recall, low, high = estimate.recall
    assert round(recall, 3) == round(45 / 49.76, 3) and low < recall <= high == 1.0
    text = estimate_markdown([estimate])
    assert (
        "| r | 40 | 25 | 20 | 45 | 50 (45 to " in text
        and "Chapman" in text
        and "upper bound" in text
    )
    few = chapman_estimate(round_with(30, 10, 4))
    assert few.estimate is None and "only 4 included record(s)" in few.reason
    assert "unreliable" in estimate_markdown([few])


def test_the_flow_figure_drawn_afresh_is_the_one_the_cache_serves(repo_copy, monkeypatch):
    """Drawn without the cache in every run (the site reads it through the cache), twice: the same
    well-formed SVG each time, and the bytes the cache holds."""
    second_round(repo_copy)
    flow = compute_flow(load_corpus(repo_copy))
    cached = flow_figure(flow)
    monkeypatch.setenv(CACHE_ENV, "off")
    first, again = flow_figure(flow), flow_figure(flow)
    assert first == again == cached
    assert etree.fromstring(first).tag == "{http://www.w3.org/2000/svg}svg"


def test_the_feed_lists_added_records_newest_first_and_is_deterministic(repo_copy):
    second_round(repo_copy)
    corpus = load_corpus(repo_copy)
    feed = atom_feed(corpus)
    assert feed == atom_feed(load_corpus(repo_copy))
    root = etree.fromstring(feed)
    assert root.findtext(f"{ATOM}updated") == "2026-11-21T00:00:00+00:00"
    first = root.find(f"{ATOM}entry")
    assert first.findtext(f"{ATOM}title") == "Learning to Halt an Agent Team"
    assert first.find(f"{ATOM}link").get("href") == "entries/halt2026/"
    assert first.find(f"{ATOM}category").get("term") == "2026-11"
    assert len(root.findall(f"{ATOM}entry")) == 85


def test_whats_new_page_shows_rounds_newest_first(repo_copy):
    from masrl.render.site.context import SiteContext
    from masrl.render.site.living import living_files, whats_new_markdown

    second_round(repo_copy)
    ctx = SiteContext(load_corpus(repo_copy))
    page = whats_new_markdown(ctx)
    newer, older = (
        "## Round 2026&#45;11",
        "## Round survey&#45;2026&#45;05",
    )  # dashes escaped as text
    assert page.index(newer) < page.index(older)
    assert "Learning to Halt an Agent Team" in page.split(older)[0]
    assert "## Screening flow" in page
    files = living_files(ctx)
    assert files["feed.xml"].startswith(b"<?xml")
    assert b"2026-11" in files["figures/round-flow.svg"] and "figures/round-flow.svg" in page


def test_flow_cli(repo_copy):
    import json

    from click.testing import CliRunner
    from masrl.cli import main

    second_round(repo_copy)
    result = CliRunner().invoke(main, ["flow", "--format", "json", "--root", str(repo_copy.root)])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert [r["round"] for r in data["rounds"]] == ["survey-2026-05", "2026-11"]
    assert data["cumulative"]["included"] == 85


def test_a_malformed_identified_log_is_one_clear_error(repo_copy):
    import pytest
    from masrl.errors import InputError, UsageError
    from masrl.screening.identified import read_identified

    log = repo_copy.root / "screening" / "identified" / "2026-11.yaml"
    log.parent.mkdir(parents=True, exist_ok=True)
    log.write_text(
        "identified: {}\ncitations:\n  sideways: {'2601.00001': [c3]}\n", encoding="utf-8"
    )
    with pytest.raises(
        InputError, match="citations.sideways must be backward or forward"
    ) as caught:
        read_identified(repo_copy, "2026-11")
    assert "screening/identified/2026-11.yaml:3" in str(caught.value)
    log.write_text("citations: [a, b]\n", encoding="utf-8")
    with pytest.raises(InputError, match="'citations' must be a mapping"):
        read_identified(repo_copy, "2026-11")
    with pytest.raises(UsageError):
        record_citations(repo_copy, "2026-11", "sideways", {})

"""The citation graph on the site: entry pages' lineage, the graph page and its data, the
vendored graph library; the mini corpus with hand-written citations (conftest.MINI_CITATIONS),
built for real by mkdocs and driven in the real headless Chromium of test_site_browser.py.

alpha2025 cites beta2024 and gamma2023, beta2024 cites gamma2023; alpha's and gamma's
references are known, beta's are not.
"""

from __future__ import annotations

import hashlib
import json
import re

import pytest
from conftest import REPO_ROOT, make_mini_project, write_mini_citations
from masrl.check.validate import load_corpus
from masrl.render.site.builder import generate_docs, site_source_dir
from masrl.render.site.citation_graph import CITATIONS_PAGE, GRAPH_DATA, GRAPH_LIBRARY
from test_site import BuiltSite, _build
from test_site_browser import (
    AXE_COLOURS,
    AXE_ON_PAGE,
    AXE_STRUCTURE,
    OVERFLOW,
    PHONE,
    shared_session,
    toggle_palette,
    watched_by_one_test,
)

VENDOR = REPO_ROOT / "site" / "assets" / "vendor" / "cytoscape"
KEYS = ["alpha2025", "beta2024", "gamma2023"]  # the graph's reading order: newest first


def _docs(tmp_path, citations: bool = True) -> dict[str, str]:
    project = make_mini_project(tmp_path)
    if citations:
        write_mini_citations(tmp_path)
    files = generate_docs(load_corpus(project), site_source_dir(project))
    return {path: content.decode("utf-8") for path, content in files.items()}


def _section(page: str, heading: str) -> str:
    """An entry page's section (its body is HTML: html_body.py), up to the next heading."""
    return page.split(f">{heading}<a ", 1)[1].split("\n<h2 ", 1)[0]


# ---------------------------------------------------------------------------------------------
# Generated pages and data, without a browser.


def test_entry_pages_list_what_an_entry_builds_on_and_what_builds_on_it(tmp_path):
    docs = _docs(tmp_path)
    alpha = docs["entries/alpha2025.md"]
    builds_on = _section(alpha, "Builds on (in this corpus)")
    assert 'href="../../entries/beta2024/">Beta Routing of Subtasks</a>' in builds_on
    assert 'href="../../entries/gamma2023/">Gamma Benchmark' in builds_on
    assert "No entry whose references are known cites it." in _section(alpha, "Built upon by")
    # beta's references are not known: its hand edge is listed, and the page says so
    beta = docs["entries/beta2024.md"]
    assert "gamma2023" in _section(beta, "Builds on (in this corpus)")
    assert "full reference list is not yet retrieved" in beta
    gamma = docs["entries/gamma2023.md"]
    assert "It cites no other entry of this corpus." in gamma
    cited_by = _section(gamma, "Built upon by")
    assert cited_by.index("alpha2025") < cited_by.index("beta2024")  # newest first
    assert "Citations known for 2 of 3 entries, retrieved 2026-11-25." in gamma


def test_without_citations_the_pages_say_not_yet_retrieved(tmp_path):
    docs = _docs(tmp_path, citations=False)
    assert "References not yet retrieved for this entry." in docs["entries/alpha2025.md"]
    page = docs[CITATIONS_PAGE]
    assert "Citations known for 0 of 3 entries: not yet retrieved." in page
    assert 'data-nodes="3" data-edges="0"' in page
    data = json.loads(docs[GRAPH_DATA])
    assert data["edges"] == [] and len(data["nodes"]) == 3
    assert data["coverage"] == {"known": 0, "entries": 3, "retrieved": None}


def test_the_graph_data_holds_every_node_and_edge_and_is_the_same_bytes_each_build(tmp_path):
    first = _docs(tmp_path / "one")[GRAPH_DATA]
    assert _docs(tmp_path / "two")[GRAPH_DATA] == first
    data = json.loads(first)
    assert [n["key"] for n in data["nodes"]] == KEYS
    assert [(e["from"], e["to"]) for e in data["edges"]] == [
        ("alpha2025", "beta2024"),
        ("alpha2025", "gamma2023"),
        ("beta2024", "gamma2023"),
    ]
    sizes = {n["key"]: (n["builds_on"], n["built_upon_by"]) for n in data["nodes"]}
    assert sizes == {"alpha2025": (2, 0), "beta2024": (1, 1), "gamma2023": (0, 2)}
    # colour by category: the first category takes the category axis's chip hue
    assert data["categories"][0] == {
        "id": "rl_method",
        "label": "RL and post-training methods",
        "color": "hsl(215, 60%, 48%)",
    }
    colours = {n["category"]: n["color"] for n in data["nodes"]}
    assert colours["rl_method"] != colours["benchmark"]


def test_a_hostile_title_stays_text_in_the_lineage_and_the_graph_page(tmp_path):
    from test_site import HOSTILE_KEY, HOSTILE_TITLE, make_hostile_project

    project = make_hostile_project(tmp_path, url="https://example.org/hostile")
    (tmp_path / "citations").mkdir()
    (tmp_path / "citations" / "graph.yaml").write_text(
        f"edges:\n- {{from: alpha2025, to: {HOSTILE_KEY}, source: hand, evidence: 'ref. [1]'}}\n",
        encoding="utf-8",
    )
    files = generate_docs(load_corpus(project), site_source_dir(project))
    for path in ("entries/alpha2025.md", CITATIONS_PAGE):
        text = files[path].decode("utf-8")
        assert "<script>" not in text and "<img" not in text, path
        assert "&lt;script&gt;window.__pwned=1&lt;/script&gt;" in text, path
    titles = [node["title"] for node in json.loads(files[GRAPH_DATA])["nodes"]]
    assert HOSTILE_TITLE in titles  # JSON, read by the script as text (textContent)


def test_the_vendored_graph_library_is_the_pinned_file_with_its_licence():
    record = json.loads((VENDOR / "vendor.json").read_text(encoding="utf-8"))
    library = VENDOR / record["file"]
    assert hashlib.sha256(library.read_bytes()).hexdigest() == record["sha256"]
    assert f'version="{record["version"]}"' in library.read_text(encoding="utf-8")
    assert "Cytoscape Consortium" in (VENDOR / record["licence_file"]).read_text(encoding="utf-8")
    assert GRAPH_LIBRARY == f"assets/vendor/cytoscape/{record['file']}"


# ---------------------------------------------------------------------------------------------
# The built site in Chromium, one page load per check: in an xdist group of their own, so one
# worker builds the graph's site.


def in_browser(test):
    return pytest.mark.browser(pytest.mark.xdist_group("citation-graph")(test))


@pytest.fixture(scope="module")
def graph_site(tmp_path_factory) -> BuiltSite:
    scratch = tmp_path_factory.mktemp("site-citations")
    project = make_mini_project(scratch / "corpus-root")
    write_mini_citations(project.root)
    return _build(project, scratch)


@pytest.fixture(scope="module")
def graph_session(browser, graph_site):
    with shared_session(browser, graph_site) as session:
        yield session


@pytest.fixture
def session(graph_session):
    yield from watched_by_one_test(graph_session)


def graph_ready(page):
    page.wait_for_selector("#masrl-graph-app[data-ready=true]")


def shown(page) -> tuple[int, int]:
    app = page.locator("#masrl-graph-app")
    return int(app.get_attribute("data-shown-nodes")), int(app.get_attribute("data-shown-edges"))


def drawn(page) -> tuple[int, int]:
    """The nodes and edges the graph library shows."""
    return tuple(
        page.evaluate(
            "() => [masrlCitationGraph.nodes(':visible').length,"
            " masrlCitationGraph.edges(':visible').length]"
        )
    )


def node_point(page, key: str) -> tuple[float, float]:
    """Where a node is drawn, in the page's coordinates."""
    return page.evaluate(
        """key => {
            const box = document.querySelector('#masrl-graph').getBoundingClientRect();
            const at = window.masrlCitationGraph.getElementById(key).renderedPosition();
            return [box.left + at.x, box.top + at.y];
        }""",
        key,
    )


@in_browser
def test_lineage_links_open_the_cited_and_the_citing_entries(session, graph_site):
    assert graph_site.warnings == []
    page = session.goto("entries/beta2024/")
    page.locator("h2#builds-on-in-this-corpus + ul.masrl-lineage a", has_text="Gamma").click()
    page.wait_for_url(re.compile(r"/entries/gamma2023/$"))
    cited_by = page.locator("h2#built-upon-by + ul.masrl-lineage a")
    # beta's page has the same list: wait for a link that only gamma's can hold
    cited_by.filter(has_text="Beta Routing of Subtasks").wait_for(state="visible")
    assert cited_by.all_inner_texts() == [
        "Alpha Team Training for alpha2025",
        "Beta Routing of Subtasks",
    ]
    cited_by.first.click()
    page.wait_for_url(re.compile(r"/entries/alpha2025/$"))
    builds_on = page.locator("h2#builds-on-in-this-corpus + ul.masrl-lineage a")
    # gamma's page has the same heading: wait for a link that only alpha's can hold
    builds_on.filter(has_text="Beta Routing of Subtasks").wait_for(state="visible")
    assert builds_on.count() == 2


@in_browser
def test_the_graph_page_draws_every_node_and_edge_and_a_click_opens_the_entry(session):
    page = session.goto("citations/")
    graph_ready(page)
    app = page.locator("#masrl-graph-app")
    assert (app.get_attribute("data-nodes"), app.get_attribute("data-edges")) == ("3", "3")
    assert shown(page) == drawn(page) == (3, 3)
    assert page.locator("#masrl-graph canvas").count() > 0
    assert page.locator("#masrl-graph-nodes tr[data-key]").count() == 3
    assert page.locator("#masrl-graph-edges li[data-from]").count() == 3
    assert "Citations known for 2 of 3 entries, retrieved 2026-11-25." in page.inner_text("article")
    # the most cited entry is drawn largest
    sizes = page.evaluate(
        "() => Object.fromEntries(masrlCitationGraph.nodes().map(n => [n.id(), n.width()]))"
    )
    assert sizes["gamma2023"] > sizes["beta2024"] > sizes["alpha2025"]
    page.mouse.click(*node_point(page, "gamma2023"))
    page.wait_for_url(re.compile(r"/entries/gamma2023/$"))
    page.locator("h2#built-upon-by").wait_for(state="visible")


@in_browser
def test_a_node_opens_from_the_keyboard(session):
    page = session.goto("citations/")
    graph_ready(page)
    page.locator("#masrl-graph").focus()
    assert page.locator("#masrl-graph-app").get_attribute("data-focused") == KEYS[0]
    page.keyboard.press("ArrowDown")
    assert page.locator("#masrl-graph-app").get_attribute("data-focused") == KEYS[1]
    assert "Beta Routing of Subtasks (2024)" in page.locator("#masrl-graph-status").inner_text()
    page.keyboard.press("Enter")
    page.wait_for_url(re.compile(r"/entries/beta2024/$"))


@in_browser
def test_filters_reduce_the_nodes_and_the_lists_and_live_in_the_address(session):
    # gamma2023 has no sub-decision: choosing O2 leaves alpha and beta and the edge between them
    page = session.goto("citations/?sub_decisions=O2")
    graph_ready(page)
    assert shown(page) == drawn(page) == (2, 1)
    assert page.locator('input[data-axis="sub_decisions"][value="O2"]').is_checked()
    assert page.locator('#masrl-graph-nodes tr[data-key="gamma2023"]').is_hidden()
    assert page.locator("#masrl-graph-edges li[data-from]:visible").count() == 0  # list closed
    assert "Showing 2 of 3 entries and 1 of 3 citations." in page.inner_text("#masrl-graph-status")
    page.locator('details[data-axis="reward_families"] > summary').click()
    page.locator('input[data-axis="reward_families"][value="R2"]').check()
    page.wait_for_function("document.querySelector('#masrl-graph-app').dataset.shownNodes === '0'")
    assert "reward_families=R2" in page.url and "sub_decisions=O2" in page.url
    page.locator("#masrl-graph-reset").click()
    page.wait_for_function("document.querySelector('#masrl-graph-app').dataset.shownNodes === '3'")
    assert drawn(page) == (3, 3) and "reward_families" not in page.url


@in_browser
def test_the_graph_page_fits_a_phone_and_axe_finds_no_violation_in_either_scheme(session):
    axe_script = pytest.importorskip("axe_playwright_python.sync_playwright").Axe().axe_script
    session.page.set_viewport_size(PHONE)
    page = session.goto("citations/")
    graph_ready(page)
    assert page.evaluate(OVERFLOW) == 0
    assert page.locator("#masrl-graph").bounding_box()["width"] <= PHONE["width"]
    page.locator("details.masrl-graph-list > summary").first.click()  # the list shown too
    assert page.evaluate(OVERFLOW) == 0
    page.evaluate(axe_script)

    def serious(options) -> list[str]:
        result = page.evaluate(AXE_ON_PAGE, options)
        return [
            f"{v['id']}: {v['nodes'][0]['target']}"
            for v in result["violations"]
            if v["impact"] in ("serious", "critical")
        ]

    assert serious(AXE_STRUCTURE) == []
    assert serious(AXE_COLOURS) == []
    toggle_palette(page)
    assert serious(AXE_COLOURS) == []

"""citations/graph.yaml: the corpus citation graph as data, its reader, writer and checks."""

from __future__ import annotations

import pytest
from conftest import REPO_ROOT
from masrl.check.validate import validate_project
from masrl.errors import InputError
from masrl.model.citations import (
    GRAPH_FILE,
    CitationGraph,
    Edge,
    HandCheck,
    Work,
    load_graph,
    read_graph,
    write_graph,
)
from masrl.model.project import Project

GOOD = """\
retrieved: '2026-11-25'
api: https://api.openalex.org
works:
  alpha2025: {openalex: W11, resolved_by: arxiv, references_known: true, retrieved: '2026-11-25'}
  beta2024: {openalex: null, resolved_by: null, references_known: false, retrieved: '2026-11-25'}
checked_by_hand:
  gamma2023: {evidence: 'https://example.org/gamma.pdf reference list', date: '2026-11-24'}
edges:
- {from: alpha2025, to: beta2024, source: openalex}
- {from: gamma2023, to: beta2024, source: hand, evidence: 'https://example.org/gamma.pdf ref. [4]'}
"""


def write(project: Project, text: str) -> None:
    (project.root / GRAPH_FILE).parent.mkdir(exist_ok=True)
    (project.root / GRAPH_FILE).write_text(text, encoding="utf-8")


def problems(project: Project) -> list[str]:
    report = validate_project(project)
    return [f"{p.path}:{p.line}: {p.message}" for p in report.errors]


def test_the_graph_answers_lineage_and_coverage(mini_project):
    write(mini_project, GOOD)
    graph = load_graph(mini_project)
    assert graph.builds_on("alpha2025") == ["beta2024"]
    assert graph.built_upon_by("beta2024") == ["alpha2025", "gamma2023"]
    assert graph.built_upon_by("alpha2025") == []
    # alpha's references come from OpenAlex, gamma's were read by hand; beta was not found
    assert graph.coverage(["alpha2025", "beta2024", "gamma2023"]) == (2, 3, "2026-11-25")
    assert problems(mini_project) == []


def test_the_file_is_written_sorted_and_reads_back_byte_identical(mini_project):
    graph = CitationGraph(
        retrieved="2026-11-25",
        works={
            "beta2024": Work(retrieved="2026-11-25"),
            "alpha2025": Work(
                openalex="W11", resolved_by="arxiv", references_known=True, retrieved="2026-11-25"
            ),
        },
        checked_by_hand={
            "gamma2023": HandCheck(evidence="https://example.org/g", date="2026-11-24")
        },
        edges=(
            Edge.model_validate({"from": "gamma2023", "to": "beta2024", "source": "openalex"}),
            Edge.model_validate({"from": "alpha2025", "to": "beta2024", "source": "openalex"}),
        ),
    )
    assert write_graph(mini_project, graph) is True
    text = (mini_project.root / GRAPH_FILE).read_text(encoding="utf-8")
    assert text.index("alpha2025: {openalex: W11") < text.index("beta2024: {openalex: null")
    assert text.index("- {from: alpha2025") < text.index("- {from: gamma2023")
    assert load_graph(mini_project) == graph
    assert write_graph(mini_project, load_graph(mini_project)) is False  # unchanged bytes


def test_no_file_is_an_empty_graph(mini_project):
    graph = load_graph(mini_project)
    assert graph.edges == () and graph.coverage(["alpha2025"]) == (0, 1, None)


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        (
            ("to: beta2024, source: openalex", "to: nobody, source: openalex"),
            "citations/graph.yaml:9: edge names 'nobody', which is not a corpus entry",
        ),
        (
            ("from: alpha2025, to: beta2024", "from: beta2024, to: beta2024"),
            "citations/graph.yaml:9: edge from 'beta2024' to itself",
        ),
        (
            ("gamma2023, to: beta2024, source: hand", "alpha2025, to: beta2024, source: hand"),
            "citations/graph.yaml:10: edge alpha2025 -> beta2024 is listed twice (first on line 9)",
        ),
        (
            (", evidence: 'https://example.org/gamma.pdf ref. [4]'", ""),
            "citations/graph.yaml:10: edge: a hand edge needs evidence",
        ),
        (
            ("date: '2026-11-24'", "date: '2026-13-24'"),
            "citations/graph.yaml:7: checked_by_hand.gamma2023.date: '2026-13-24' is not a date",
        ),
        (
            ("alpha2025: {openalex: W11", "alfa2025: {openalex: W11"),
            "citations/graph.yaml:4: works: 'alfa2025' is not a corpus entry",
        ),
        (
            ("source: openalex", "source: google"),
            "citations/graph.yaml:9: edge source: Input should be 'openalex' or 'hand'",
        ),
        (
            ("retrieved: '2026-11-25'\napi", "retrieved: 'last week'\napi"),
            "citations/graph.yaml:1: retrieved: 'last week' is not a date",
        ),
    ],
)
def test_validate_reports_each_problem_at_its_line(mini_project, edit, expected):
    write(mini_project, GOOD.replace(*edit, 1))
    found = problems(mini_project)
    assert any(p.startswith(expected) for p in found), found
    with pytest.raises(InputError):
        load_graph(mini_project)


def test_broken_yaml_is_one_problem_with_its_line(mini_project):
    write(mini_project, GOOD.replace("edges:\n", "edges: [\n"))
    _, found = read_graph(mini_project)
    assert len(found) == 1 and found[0].line > 1


def test_the_committed_graph_is_valid_and_names_only_entries():
    project = Project(REPO_ROOT)
    keys = {p.stem for p in project.entry_paths()}
    graph, found = read_graph(project, keys)
    assert found == [] and graph is not None
    assert all(e.source != "hand" or e.evidence for e in graph.edges)

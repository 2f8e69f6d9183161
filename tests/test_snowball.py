"""`masrl snowball`: the real OpenAlex client against a local server replaying documented answers."""

from __future__ import annotations

import datetime as dt
import json
import sys
import uuid
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import entry_data, write_entry, write_forged
from masrl.cli import main
from masrl.derive.flow import compute_flow
from masrl.errors import UsageError
from masrl.imports.openalex import OpenAlexClient, OpenAlexError, OpenAlexSettings
from masrl.model import yamlio
from masrl.model.citations import load_graph
from masrl.screening.identified import read_identified
from masrl.screening.queue import read_queue
from masrl.screening.snowball import snowball
from masrl.sealed import CACHE_ENV, KEY_ENV
from pytest_httpserver import HTTPServer

sys.path.insert(0, str(Path(__file__).resolve().parent / "fixtures" / "openalex"))
from fake_openalex import FakeOpenAlex

TODAY = dt.date(2026, 11, 25)
ROUND = "2026-11"
NEW = ["2410.00010", "2610.00020", "2610.00021", "W12"]


@pytest.fixture
def project(mini_project):
    """The mini corpus, its entries given the identifiers the fake OpenAlex knows them by:
    alpha by arXiv id, beta by DOI, gamma by title only."""
    write_entry(
        mini_project.root,
        entry_data(
            "alpha2025", identifiers={"arxiv": "2501.00001", "doi": None, "openreview": None}
        ),
    )
    beta = entry_data("beta2024", title="Beta Routing of Subtasks", year=2024)
    beta["identifiers"] = {"arxiv": None, "doi": "10.1000/beta", "openreview": None}
    write_entry(mini_project.root, beta)
    return mini_project


@pytest.fixture
def openalex():
    # A server of its own per test, answering each request in its own thread: a slow answer
    # left over from one test can never take another test's request.
    server = HTTPServer(threaded=True)
    server.start()
    yield FakeOpenAlex(server)
    server.clear()
    server.stop()


class Sleeps(list):
    def __call__(self, seconds: float) -> None:
        self.append(seconds)


def client_for(openalex, cache: Path | None = None, **overrides) -> OpenAlexClient:
    values = dict(api_url=openalex.url, retries=1, backoff=0, delay=0, timeout=5, cache_dir=cache)
    return OpenAlexClient(OpenAlexSettings(**{**values, **overrides}), sleep=Sleeps())


def run(project, client, **kwargs):
    return snowball(project, client, today=TODAY, **kwargs)


def tree(project) -> dict[str, bytes]:
    """Every file of the checkout, hidden temporaries included."""
    return {
        p.relative_to(project.root).as_posix(): p.read_bytes()
        for p in sorted(project.root.rglob("*"))
        if p.is_file()
    }


def queued(project) -> dict[str, dict]:
    return {q.id: q for q in read_queue(project)}


def test_snowball_queues_exactly_the_new_works_with_method_direction_and_seeds(project, openalex):
    result = run(project, client_for(openalex))
    assert sorted(result.added) == sorted(NEW)
    queue = queued(project)
    assert sorted(queue) == sorted(NEW)
    assert (queue["2410.00010"].method, queue["2410.00010"].direction) == ("citation", "backward")
    assert queue["2410.00010"].via == ("alpha2025",)
    assert queue["2610.00020"].direction == "forward"
    assert queue["2610.00020"].via == ("alpha2025", "beta2024")  # cites both seeds
    assert queue["W12"].identifiers == {"arxiv": None, "doi": "10.1000/journal.12"}
    data = yamlio.load_file(project.root / "screening" / "queue" / "2410.00010.yaml")
    assert dict(data) == {
        "id": "2410.00010",
        "title": "Credit Assignment Across Language Agents",
        "authors": ["van der Pol, Elise"],
        "published": "2024-10-01",
        "abstract": "We assign credit.",
        "categories": [],
        "identifiers": {"arxiv": "2410.00010", "doi": None},
        "url": "https://arxiv.org/abs/2410.00010",
        "families": [],
        "discovered": "2026-11-25",
        "round": ROUND,
        "method": "citation",
        "direction": "backward",
        "via": ["alpha2025"],
    }
    # the corpus entry and the excluded paper (by arXiv DOI, and by near-duplicate title) are not queued
    assert result.known == {
        "10.1000/beta": "corpus/beta2024.yaml",
        "2301.00001": "exclusions/E001.yaml",
        "2501.00001": "corpus/alpha2025.yaml",
        "W22": "exclusions/E001.yaml",
        "W3": "corpus/gamma2023.yaml",
    }
    assert result.resolved == {"alpha2025": "arxiv", "beta2024": "doi", "gamma2023": "title"}
    assert result.no_references == ["beta2024"]  # a work with no references is no error
    # the graph: resolutions, and the edges among entries found on the way
    graph = load_graph(project)
    assert graph.builds_on("alpha2025") == ["beta2024"]
    assert graph.built_upon_by("alpha2025") == ["gamma2023"]
    assert graph.works["gamma2023"].openalex == "W3"
    assert graph.coverage(["alpha2025", "beta2024", "gamma2023"]) == (2, 3, "2026-11-25")
    # the log: citation hits per direction with their seeds, the dropped ones as duplicates
    log = read_identified(project, ROUND)
    assert log["citations"]["forward"]["2610.00020"] == ["alpha2025", "beta2024"]
    assert log["citations"]["backward"]["10.1000/journal.12"] == ["alpha2025"]
    assert "2301.00001" in log["duplicates"]["openalex"]
    # cursor paging: the works citing alpha came in pages of two
    assert any("cursor=page-2" in asked for asked in openalex.asked)


def test_a_second_run_changes_nothing(project, openalex):
    run(project, client_for(openalex))
    before = tree(project)
    again = run(project, client_for(openalex))
    assert again.added == [] and again.merged == []
    assert tree(project) == before


def test_an_interrupted_run_resumes_from_the_cache_without_asking_again(
    project, openalex, tmp_path_factory
):
    cache = tmp_path_factory.mktemp("cache")
    before = tree(project)
    run(project, client_for(openalex, cache))
    first = tree(project)
    asked = len(openalex.asked)
    # start over from the same files: every answer comes from the cache
    for name in set(first) - set(before):
        (project.root / name).unlink()
    for name, content in before.items():
        (project.root / name).write_bytes(content)
    client = client_for(openalex, cache)
    run(project, client)
    assert client.requests_sent == 0 and len(openalex.asked) == asked
    assert tree(project) == first


def test_a_fault_mid_run_writes_nothing_and_the_rerun_asks_only_what_failed(
    project, openalex, tmp_path_factory
):
    cache = tmp_path_factory.mktemp("cache")
    openalex.fail(times=2, status=503, when="cites:W3")  # gamma's forward search, last of all
    before = tree(project)
    with pytest.raises(OpenAlexError, match=r"OpenAlex had a server error \(HTTP 503\)"):
        run(project, client_for(openalex, cache))
    assert tree(project) == before
    answered = set(openalex.asked) - {a for a in openalex.asked if "cites:W3" in a}
    openalex.asked.clear()
    result = run(project, client_for(openalex, cache))
    assert not set(openalex.asked) & answered
    assert sorted(result.added) == sorted(NEW)


INVENTED = {
    "id": "https://openalex.org/W666",
    "display_name": "An Invented Work on Agent Teams",
    "doi": "https://doi.org/10.6666/invented",
    "publication_date": "2026-11-01",
    "referenced_works": [],
}


def _rewrite(files: list[Path], how: str) -> None:
    """Every cached answer rewritten by someone who can write the cache: an invented work in
    each list and each work's references, valid JSON, the right URL and a fresh time."""
    contents = [path.read_bytes() for path in files]
    for path, stored in zip(files, contents, strict=True):
        tag, _, content = stored.partition(b"\n")
        record = json.loads(content)
        answer = record["answer"]
        if isinstance(answer, dict) and "results" in answer:
            answer["results"].append(INVENTED)
        elif isinstance(answer, dict):
            answer["referenced_works"] = [*answer.get("referenced_works", []), INVENTED["id"]]
        else:
            record["answer"] = INVENTED
        forged = json.dumps(record, separators=(",", ":")).encode()
        if not write_forged(path, forged, tag, how) and how == "truncated":
            path.write_bytes(stored[: len(stored) // 2])
    if how == "moved from another answer":
        for path, stored in zip(files, contents[1:] + contents[:1], strict=True):
            path.write_bytes(stored)


@pytest.mark.parametrize(
    "how",
    [
        "checksum recomputed",
        "tag kept",
        "unsealed, as before",
        "moved from another answer",
        "truncated",
        "under another key",
    ],
)
def test_a_rewritten_cache_file_is_not_trusted_and_openalex_is_asked_again(
    project, openalex, tmp_path_factory, monkeypatch, how
):
    cache = tmp_path_factory.mktemp("cache")
    before = tree(project)
    first_client = client_for(openalex, cache)
    run(project, first_client)
    first = tree(project)
    files = sorted(cache.iterdir())
    assert len(files) == first_client.requests_sent > 1
    if how == "under another key":
        monkeypatch.setenv(KEY_ENV, str(tmp_path_factory.mktemp("state") / "another.key"))
    else:
        _rewrite(files, how)
    for name in set(first) - set(before):
        (project.root / name).unlink()
    for name, content in before.items():
        (project.root / name).write_bytes(content)
    client = client_for(openalex, cache)
    result = run(project, client)
    assert client.requests_sent == first_client.requests_sent  # every answer asked again
    assert "W666" not in result.added and tree(project) == first
    assert all(b"W666" not in path.read_bytes() for path in files)  # sealed afresh


def test_without_a_usable_key_openalex_is_asked_every_time(
    project, openalex, tmp_path_factory, monkeypatch
):
    cache = tmp_path_factory.mktemp("cache")
    monkeypatch.setenv(KEY_ENV, str(cache / "cache.key"))  # inside the cache folder
    clients = [client_for(openalex, cache) for _ in range(2)]
    run(project, clients[0])
    assert clients[0].requests_sent > 1 and list(cache.iterdir()) == []
    assert clients[1].get("/works/W3", {}) == clients[0].get("/works/W3", {})
    assert clients[1].requests_sent == 1


def test_a_key_in_the_cache_root_turns_the_openalex_cache_off(
    project, openalex, tmp_path_factory, monkeypatch
):
    root = tmp_path_factory.mktemp("cache-root")
    monkeypatch.setenv(CACHE_ENV, str(root))
    monkeypatch.setenv(KEY_ENV, str(root / "cache.key"))  # beside the caches, not in openalex/
    client = client_for(openalex, root / "openalex")
    run(project, client)
    assert client.requests_sent > 1 and not (root / "openalex").exists()


FAULTS = {
    "rate limited beyond the wait": (
        dict(status=429, headers={"Retry-After": "120"}, times=1),
        "OpenAlex is limiting requests (HTTP 429), longer than the 60 s masrl waits",
    ),
    "server error": (
        dict(status=500, times=2),
        "OpenAlex had a server error (HTTP 500); gave up after 2 attempts",
    ),
    "malformed JSON": (
        dict(status=200, body=b'{"meta": {"count": 1', times=2),
        "OpenAlex sent an answer that is not JSON",
    ),
    "an answer without results": (
        dict(status=200, body=b'{"meta": {"count": 0}}', times=1, when="cites:"),
        "OpenAlex sent a list answer without 'results'",
    ),
    "slow answer": (
        dict(status=200, slow=0.8, times=2),
        "OpenAlex did not answer within 0.3 s; gave up after 2 attempts",
    ),
    "refused": (
        dict(status=403, times=1),
        "OpenAlex refused",
    ),
}


@pytest.mark.parametrize("case", list(FAULTS))
def test_each_fault_is_one_clear_error_and_changes_no_file(case, project, openalex):
    arrange, message = FAULTS[case]
    # Only this client's requests fail: a request from anywhere else that reaches this port
    # (another worker's client, its server gone, its port reused) cannot take the failures.
    sender = f"fault{uuid.uuid4().hex}"
    openalex.fail(**arrange, sender=sender)
    before = tree(project)
    sleeps = Sleeps()
    client = client_for(
        openalex, timeout=0.3 if "slow" in arrange else 5, mailto=f"{sender}@example.org"
    )
    client.sleep = sleeps
    with pytest.raises(OpenAlexError) as caught:
        run(project, client)
        pytest.fail(f"no error; the fake OpenAlex was asked {openalex.asked}")
    assert message in str(caught.value) and "\n" not in str(caught.value)
    assert tree(project) == before


def test_a_429_with_retry_after_is_waited_for_then_the_run_succeeds(project, openalex):
    openalex.fail(status=429, headers={"Retry-After": "7"}, times=1)
    client = client_for(openalex)
    result = run(project, client)
    assert 7.0 in client.sleep and sorted(result.added) == sorted(NEW)


def test_an_entry_openalex_does_not_know_is_recorded_and_not_asked_again(project, openalex):
    write_entry(project.root, entry_data("delta2022", title="Delta Unknown Work", year=2022))
    result = run(project, client_for(openalex), entries=["delta2022"])
    assert result.unresolved == ["delta2022"] and result.added == []
    assert load_graph(project).works["delta2022"].openalex is None
    openalex.asked.clear()
    run(project, client_for(openalex), entries=["delta2022"])
    assert openalex.asked == []


def test_seeds_direction_and_window(project, openalex):
    result = run(
        project,
        client_for(openalex),
        entries=["alpha2025"],
        direction="forward",
        since=dt.date(2026, 10, 10),
    )
    assert result.added == ["2610.00020"]  # 2610.00021 was published before --since
    assert any("from_publication_date:2026-10-10" in a for a in openalex.asked)
    assert not any("openalex:" in a for a in openalex.asked)  # no backward lookups
    with pytest.raises(UsageError, match="'alpha' is not a corpus entry"):
        run(project, client_for(openalex), entries=["alpha"])
    with pytest.raises(UsageError, match="no entry of round 'nope'"):
        run(project, client_for(openalex), seed_round="nope")


def test_hand_edges_are_kept_and_the_mailto_is_sent(project, openalex):
    (project.root / "citations").mkdir()
    (project.root / "citations" / "graph.yaml").write_text(
        "retrieved: null\napi: https://api.openalex.org\nworks: {}\nchecked_by_hand: {}\n"
        "edges:\n- {from: beta2024, to: gamma2023, source: hand, evidence: 'https://x.org ref 3'}\n"
        "- {from: alpha2025, to: beta2024, source: hand, evidence: 'https://x.org ref 9'}\n",
        encoding="utf-8",
    )
    run(project, client_for(openalex, mailto="review@example.org"))
    graph = load_graph(project)
    assert {(e.pair, e.source) for e in graph.edges} == {
        (("beta2024", "gamma2023"), "hand"),
        (("alpha2025", "beta2024"), "hand"),  # also found by OpenAlex: the hand edge stays
        (("gamma2023", "alpha2025"), "openalex"),
    }
    assert all("mailto=review%40example.org" in a for a in openalex.asked)


def test_the_cli_runs_and_flow_shows_both_identification_columns(project, openalex, monkeypatch):
    monkeypatch.setenv("MASRL_OPENALEX_URL", openalex.url)
    monkeypatch.setenv("MASRL_CACHE_DIR", "off")
    result = CliRunner().invoke(
        main, ["snowball", "--root", str(project.root), "--to-round", ROUND, "--retries", "0"]
    )
    assert result.exit_code == 0, result.output
    assert "4 new candidate(s) in round 2026-11" in result.output
    assert "no references in OpenAlex (1): beta2024" in result.output
    validate = CliRunner().invoke(main, ["validate", "--root", str(project.root)])
    assert validate.exit_code == 0, validate.output
    from masrl.check.validate import load_corpus

    corpus = load_corpus(project)
    flow = next(f for f in compute_flow(corpus).rounds if f.round == ROUND)
    assert flow.identified_citation > 0 and flow.citations["forward"] > 0
    flow_out = CliRunner().invoke(main, ["flow", "--root", str(project.root)])
    assert flow_out.exit_code == 0, flow_out.output
    assert "by database search" in flow_out.output  # PRISMA 2020's two identification columns
    assert "by citation searching" in flow_out.output and "    forward" in flow_out.output


def test_a_fault_in_the_cli_is_one_line(project, openalex, monkeypatch):
    monkeypatch.setenv("MASRL_CACHE_DIR", "off")
    openalex.fail(status=500, times=5)
    result = CliRunner().invoke(
        main,
        ["snowball", "--root", str(project.root), "--api-url", openalex.url, "--retries", "0"],
    )
    assert result.exit_code == 1
    assert "OpenAlex had a server error (HTTP 500)" in result.output
    assert "Traceback" not in result.output

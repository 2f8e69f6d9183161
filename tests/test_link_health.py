"""`masrl links check` against a local server: live, moved (301, 302, 308), dead (404, 410,
connection refused) and slow links, archived copies from a local Wayback availability API, the
per-link timeout, the total deadline and the bound on links fetched at once."""

from __future__ import annotations

import datetime as dt
import json
import re
import socket
import threading
import time

import pytest
from click.testing import CliRunner
from conftest import entry_data, write_entry
from masrl.check.link_health import (
    HEALTH_FILE,
    LinkHealth,
    LinkSettings,
    broken_links_markdown,
    check_links,
    check_project_links,
    read_health,
)
from masrl.check.validate import load_corpus
from masrl.cli import main
from masrl.errors import InputError, UsageError
from pytest_httpserver import HTTPServer
from werkzeug import Request, Response

DAY = dt.date(2026, 12, 1)
SLOW_SECONDS = 1.5


@pytest.fixture
def server():
    # Threaded, so that a slow link does not hold up the others (as on the real web).
    http = HTTPServer(host="127.0.0.1", threaded=True)
    http.start()
    yield http
    http.clear()
    if http.is_running():
        http.stop()


def url(server: HTTPServer, path: str) -> str:
    return f"http://127.0.0.1:{server.port}{path}"


def closed_port_url() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}/gone"


def wayback(server: HTTPServer, archived: dict[str, str]) -> None:
    """The availability API's documented answer: archived_snapshots.closest, or {} for none."""

    def answer(request: Request) -> Response:
        target = request.args.get("url", "")
        closest = {}
        if target in archived:
            closest = {
                "closest": {
                    "status": "200",
                    "available": True,
                    "url": archived[target],
                    "timestamp": "20250101000000",
                }
            }
        body = {"url": target, "archived_snapshots": closest}
        return Response(json.dumps(body), content_type="application/json")

    server.expect_request("/wayback/available").respond_with_handler(answer)


def slow(request: Request) -> Response:
    time.sleep(SLOW_SECONDS)
    return Response("late")


@pytest.fixture
def links(server):
    """Every kind of link, served locally, and the project whose entry uses them."""
    refused = closed_port_url()
    paths = {
        "live": url(server, "/live"),
        "moved301": url(server, "/old301"),
        "moved302": url(server, "/old302"),
        "moved308": url(server, "/old308"),
        "dead404": url(server, "/missing"),
        "dead410": url(server, "/removed"),
        "refused": refused,
        "slow": url(server, "/slow"),
    }
    server.expect_request("/live").respond_with_data("ok")
    server.expect_request("/new").respond_with_data("here now")
    for code in (301, 302, 308):
        server.expect_request(f"/old{code}").respond_with_data(
            "", status=code, headers={"Location": url(server, "/new")}
        )
    server.expect_request("/missing").respond_with_data("no", status=404)
    server.expect_request("/removed").respond_with_data("gone", status=410)
    server.expect_request("/slow").respond_with_handler(slow)
    wayback(server, {paths["dead404"]: "http://web.archive.org/web/20250101000000/missing"})
    return paths


def only_entry(mini_project, data: dict):
    """The mini project with this one entry (the others' links are not served here)."""
    for path in (mini_project.root / "corpus").glob("*.yaml"):
        path.unlink()
    write_entry(mini_project.root, data)
    return load_corpus(mini_project)


def project_with(mini_project, paths: dict[str, str]):
    code = [{"url": paths["moved301"], "source": paths["live"]}]
    others = [u for name, u in paths.items() if name not in ("moved301", "live")]
    return only_entry(mini_project, entry_data("alpha2025", urls=others, code=code))


def settings(server, **overrides) -> LinkSettings:
    values = {
        "timeout": 0.5,
        "deadline": 30,
        "workers": 4,
        "wayback_api": url(server, "/wayback/available"),
        "today": DAY,
    }
    return LinkSettings(**(values | overrides))


def test_every_kind_of_link_is_classified_with_its_date_and_archived_copy(
    mini_project, server, links
):
    corpus = project_with(mini_project, links)
    report = check_links(corpus, settings=settings(server))
    by_url = {h.url: h for h in report.links}
    state = {name: by_url[u] for name, u in links.items()}

    assert state["live"].state == "live" and state["live"].http_status == 200
    for code in (301, 302, 308):
        moved = state[f"moved{code}"]
        assert (moved.state, moved.redirect, moved.http_status) == ("moved", code, 200)
        assert moved.final_url == url(server, "/new")
        assert moved.detail == ("temporary" if code == 302 else "permanent")
    assert (state["dead404"].state, state["dead404"].http_status) == ("dead", 404)
    assert state["dead404"].archived == "http://web.archive.org/web/20250101000000/missing"
    assert (state["dead410"].state, state["dead410"].archived) == ("dead", None)
    assert (state["refused"].state, state["refused"].detail) == (
        "unreachable",
        "connection refused",
    )
    assert state["slow"].state == "timeout" and state["slow"].http_status is None
    assert {h.last_checked for h in report.links} == {"2026-12-01"}
    # where each link is used: the code link, and the page it was read from
    assert state["moved301"].used_by == ["alpha2025.code"]
    assert state["live"].used_by == ["alpha2025.code.source"]
    assert report.checked == len(links) and report.skipped == 0

    markdown = broken_links_markdown(report.links)
    assert markdown.startswith("3 outgoing link(s) of the corpus no longer answer:")
    assert f"- {links['dead404']} (dead, HTTP 404, checked 2026-12-01); archived copy:" in markdown
    assert links["refused"] in markdown and links["slow"] not in markdown
    assert broken_links_markdown([state["live"], LinkHealth("https://a.org/never-reached")]) == ""


def test_the_health_file_is_written_sorted_and_byte_identical_on_a_rerun(
    mini_project, server, links
):
    corpus = project_with(mini_project, {k: v for k, v in links.items() if k != "slow"})
    path = mini_project.root / HEALTH_FILE
    first = check_project_links(corpus, settings(server))
    text = path.read_bytes()
    check_project_links(corpus, settings(server))
    assert path.read_bytes() == text
    assert [h.url for h in first.links] == sorted(h.url for h in first.links)
    assert {h.url: h.state for h in read_health(path).values()} == {
        h.url: h.state for h in first.links
    }


def test_the_deadline_stops_the_run_and_unreached_links_keep_their_last_result(
    mini_project, server, links
):
    served = {k: v for k, v in links.items() if k != "refused"}
    corpus = project_with(mini_project, served)
    path = mini_project.root / HEALTH_FILE
    check_project_links(corpus, settings(server, today=dt.date(2026, 11, 1)))
    # One link at a time, every link slow and a deadline shorter than one: none is reached.
    server.clear()
    server.expect_request(re.compile("/.*")).respond_with_handler(slow)
    started = time.monotonic()
    report = check_links(
        corpus,
        read_health(path),
        settings(server, timeout=5, deadline=0.4, workers=1),
    )
    assert time.monotonic() - started < SLOW_SECONDS  # the run did not wait for the slow link
    assert report.checked == 0 and report.skipped == len(served)
    assert {h.last_checked for h in report.links} == {"2026-11-01"}
    assert "left for the next run (deadline)" in report.summary_line()


def test_no_more_links_are_fetched_at_once_than_workers(mini_project, server):
    lock, now, most = threading.Lock(), [0], [0]

    def counted(request: Request) -> Response:
        with lock:
            now[0] += 1
            most[0] = max(most[0], now[0])
        time.sleep(0.1)
        with lock:
            now[0] -= 1
        return Response("ok")

    for n in range(9):
        server.expect_request(f"/page{n}").respond_with_handler(counted)
    urls = [url(server, f"/page{n}") for n in range(9)]
    corpus = only_entry(mini_project, entry_data("alpha2025", urls=urls))
    report = check_links(corpus, settings=settings(server, workers=3))
    assert {h.state for h in report.links if "/page" in h.url} == {"live"}
    assert 2 <= most[0] <= 3  # concurrent, and never more than the bound


def test_cli_writes_the_health_file_and_the_broken_report(mini_project, server, links, tmp_path):
    project_with(mini_project, {k: v for k, v in links.items() if k != "slow"})
    report = tmp_path / "broken.md"
    args = ["links", "check", "--root", str(mini_project.root), "--date", "2026-12-01"]
    args += ["--timeout", "2", "--wayback-api", url(server, "/wayback/available")]
    result = CliRunner().invoke(main, [*args, "--broken-report", str(report)])
    assert result.exit_code == 0, result.output
    assert "2 dead" in result.output and "wrote links/health.yaml" in result.output
    assert links["dead410"] in report.read_text(encoding="utf-8")
    assert (mini_project.root / HEALTH_FILE).read_text(encoding="utf-8").startswith("# Written by")


def test_bad_settings_and_a_malformed_health_file_are_clear_errors(mini_project):
    with pytest.raises(UsageError, match="--workers must be between 1 and 64"):
        LinkSettings(workers=0)
    with pytest.raises(UsageError, match="--timeout must be a positive"):
        LinkSettings(timeout=0)
    path = mini_project.root / HEALTH_FILE
    path.parent.mkdir()
    path.write_text("links:\n- url: https://a.org/x\n  colour: red\n", encoding="utf-8")
    with pytest.raises(InputError) as raised:
        read_health(path)
    assert str(raised.value).startswith(f"{path}:2: malformed link item")
    result = CliRunner().invoke(main, ["links", "check", "--root", str(mini_project.root)])
    assert result.exit_code == 1 and "malformed link item" in result.output

"""scripts/discover_pr.sh (what the weekly workflow runs) against the recorded arXiv server."""

from __future__ import annotations

import datetime as dt
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO_ROOT

sys.path.insert(0, str(Path(__file__).resolve().parent / "fixtures" / "arxiv"))
sys.path.insert(0, str(Path(__file__).resolve().parent / "fixtures" / "openalex"))
from fake_openalex import FakeOpenAlex
from fake_search import FakeSearch
from pytest_httpserver import HTTPServer

SCRIPT = REPO_ROOT / "scripts" / "discover_pr.sh"
BIN = Path(sys.executable).parent


def git(root, *args):
    return subprocess.run(
        ["git", *args], cwd=root, capture_output=True, text=True, check=True
    ).stdout


@pytest.fixture
def checkout(repo_copy):
    root = repo_copy.root
    shutil.copytree(REPO_ROOT / "scripts", root / "scripts")
    git(root, "init", "--quiet", "--initial-branch=main")
    git(root, "-c", "user.name=t", "-c", "user.email=t@example.org", "add", "-A")
    git(
        root,
        "-c",
        "user.name=t",
        "-c",
        "user.email=t@example.org",
        "commit",
        "--quiet",
        "-m",
        "base",
    )
    return root


@pytest.fixture
def openalex():
    """OpenAlex, knowing magrpo and one new work citing it, published this week."""
    server = HTTPServer(threaded=True)
    server.start()
    fake = FakeOpenAlex(server).add_work(
        {
            "id": "https://openalex.org/W900",
            "doi": "https://doi.org/10.48550/arxiv.2508.04652",
            "display_name": "LLM Collaboration With Multi-Agent Reinforcement Learning",
            "publication_date": "2025-08-06",
            "referenced_works": [],
        }
    )
    fake.add_work(
        {
            "id": "https://openalex.org/W901",
            "doi": "https://doi.org/10.48550/arxiv.2611.00901",
            "display_name": "Building on MAGRPO: Shared Rewards for Coding Teams",
            "publication_date": (dt.date.today() - dt.timedelta(days=2)).isoformat(),
            "authorships": [{"author": {"display_name": "Ada Lovelace"}}],
            "referenced_works": ["https://openalex.org/W900"],
        }
    )
    yield fake
    server.clear()
    server.stop()


def run_script(root, url, openalex_url="http://127.0.0.1:9", **env):
    environment = {
        **os.environ,
        "MASRL_OPENALEX_URL": openalex_url,
        "MASRL_OPENALEX_DELAY": "0",
        "MASRL_CACHE_DIR": "off",
        "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}",
        "MASRL_ROOT": str(root),
        "MASRL_ARXIV_API_URL": url,
        "MASRL_ARXIV_DELAY": "0",
        "MASRL_ARXIV_BACKOFF": "0",
        "DRY_RUN": "1",
        "GH_TOKEN": "",
        "GITHUB_REPOSITORY": "",
        **env,
    }
    return subprocess.run(
        ["bash", str(root / "scripts" / "discover_pr.sh")],
        cwd=root,
        env=environment,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
@pytest.mark.slow
def test_the_weekly_script_commits_the_new_queue_and_writes_the_pull_request_body(
    checkout, httpserver, openalex
):
    fake = FakeSearch(httpserver, checkout / "taxonomy")
    # an entry that records an older arXiv version than arXiv now has: the pull request proposes v7
    entry = checkout / "corpus" / "magrpo.yaml"
    recorded = entry.read_text(encoding="utf-8")
    assert "latest_version: v7\n" in recorded
    entry.write_text(
        recorded.replace("latest_version: v7\n", "latest_version: v5\n"), encoding="utf-8"
    )
    git(
        checkout,
        "-c",
        "user.name=t",
        "-c",
        "user.email=t@example.org",
        "commit",
        "--quiet",
        "-am",
        "older version",
    )
    first = run_script(checkout, fake.url, openalex.url, WEEKS="3")
    assert first.returncode == 0, first.stdout + first.stderr
    assert "discover_pr: dry run; would push masrl/discover" in first.stdout
    assert (
        "- `2606.01001`: Learning to Halt: Policy-Gradient Stopping for LLM Orchestrators"
        in first.stdout
    )
    assert "### masrl verify-metadata" in first.stdout
    # the queue ranked for the reviewer, new records among it
    ranked = first.stdout.split("### Predicted relevance", 1)[1].split("###", 1)[0]
    assert "2606.01001" in ranked and "Usage:" not in ranked and "could not rank" not in ranked
    assert git(checkout, "rev-parse", "--abbrev-ref", "HEAD").strip() == "masrl/discover"
    files = git(checkout, "show", "--name-only", "--format=", "HEAD").split()
    assert "screening/queue/2606.01003.yaml" in files and "screening/rounds.yaml" in files
    assert "corpus/magrpo.yaml" in files and entry.read_text(encoding="utf-8") == recorded, (
        first.stdout
    )  # v7, nothing else changed
    assert (
        "### Metadata updates from arXiv" in first.stdout
        and "- `corpus/magrpo.yaml`" in first.stdout
    )
    assert "corpus/magrpo.yaml:38: new arXiv version v7 of 2508.04652" in first.stdout
    # forward snowballing put the new work citing magrpo in the same commit and body
    assert "screening/queue/2611.00901.yaml" in files and "citations/graph.yaml" in files
    assert (
        "- `2611.00901`: Building on MAGRPO: Shared Rewards for Coding Teams "
        "(citation searching, forward from magrpo)" in first.stdout
    )
    assert "### masrl snowball (forward citation searching)" in first.stdout
    assert any("cites:W900" in asked for asked in openalex.asked)
    # verify-metadata asked arXiv for the corpus's ids in the same job
    assert any(family == "empty" for family, _ in fake.asked)

    # The next week: the branch is continued (a local bare repository stands in for GitHub),
    # and the same answers add nothing, so no new commit and no pull request change.
    remote = checkout.parent / "remote.git"
    git(checkout.parent, "init", "--quiet", "--bare", str(remote))
    git(checkout, "push", "--quiet", str(remote), "masrl/discover")
    git(checkout, "checkout", "--quiet", "main")
    second = run_script(checkout, fake.url, openalex.url, REMOTE_URL=str(remote))
    assert second.returncode == 0, second.stdout + second.stderr
    assert "nothing new since the last run" in second.stdout


def test_the_script_refuses_a_nonsense_week_count(checkout, httpserver):
    result = run_script(checkout, "http://127.0.0.1:9/api/query", WEEKS="two")
    assert result.returncode == 2
    assert (
        result.stderr.strip()
        == "discover_pr: WEEKS must be a whole number of weeks from 1 to 99, got 'two'"
    )

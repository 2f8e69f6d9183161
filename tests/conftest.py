"""Shared fixtures: a copy of the real corpus to break, and a tiny hand-made corpus."""

from __future__ import annotations

import functools
import hashlib
import json
import os
import re
import shutil
from pathlib import Path

import pytest
import yaml
from hypothesis import settings
from masrl import files
from masrl.check.snapshot import PUBLISHED_SNAPSHOT
from masrl.model import yamlio
from masrl.model.project import Project
from masrl.model.records import ENTRY_SCHEMA_LINE, EXCLUSION_SCHEMA_LINE

REPO_ROOT = Path(__file__).resolve().parents[1]

# The survey's published state, frozen: tests of published numbers read it, not the live corpus.
PUBLISHED = PUBLISHED_SNAPSHOT

# The real corpus's size, counted from its files: tests derive expected counts from the data.
REAL_ENTRIES = len(list((REPO_ROOT / "corpus").glob("*.yaml")))
REAL_EXCLUSIONS = len(list((REPO_ROOT / "exclusions").glob("*.yaml")))
REAL_AUDITED = REAL_ENTRIES + REAL_EXCLUSIONS
# record ids are never reused (an exclusion ruled in leaves its number free): the next is max + 1
NEXT_EXCLUSION_ID = 1 + max(int(p.stem[1:]) for p in (REPO_ROOT / "exclusions").glob("E*.yaml"))

# Property tests run a modest number of examples in the suite; MASRL_PROPERTY_SCALE multiplies
# them for a deep run (`make test-deep`). Failures Hypothesis finds are replayed first next time.
PROPERTY_SCALE = max(1, int(os.environ.get("MASRL_PROPERTY_SCALE", "1")))


def examples(suite: int, deep: int | None = None) -> int:
    """How many examples a property test draws: ``suite`` in the suite; in a deep run, ``deep``
    (default ``suite``) times MASRL_PROPERTY_SCALE. A test whose examples cost more than the
    bugs they find in the suite draws fewer there and keeps its former count as ``deep``."""
    if PROPERTY_SCALE == 1:
        return suite
    return (deep or suite) * PROPERTY_SCALE


# In CI (CI=true) every property test draws the same examples on every run, so a pull request's
# result does not depend on luck; local runs draw new ones and keep what fails for the next run.
settings.register_profile("ci", derandomize=True, database=None, print_blob=True)
if os.environ.get("CI", "").lower() == "true":
    settings.load_profile("ci")


# Rendered figures are cached by content hash; tests keep that cache inside the checkout.
os.environ.setdefault("MASRL_CACHE_DIR", str(REPO_ROOT / ".cache" / "masrl"))
# ... and the secret that authenticates it beside it, outside the cache folder, not in the home.
os.environ.setdefault("MASRL_CACHE_KEY_FILE", str(REPO_ROOT / ".cache" / "masrl-cache.key"))


def entry_data(key: str = "alpha2025", /, **overrides) -> dict:
    """A valid corpus entry; keyword arguments replace fields (None-valued keys are removed with drop=[...])."""
    data = {
        "key": key,
        "title": f"Alpha Team Training for {key}",
        "authors": ["Doe, Jane", "Roe, Richard"],
        "authors_complete": True,
        "affiliation": "Example University",
        "year": 2025,
        "venue": "arXiv",
        "identifiers": {"arxiv": None, "doi": None, "openreview": None},
        "urls": [f"https://example.org/{key}"],
        "category": "rl_method",
        "is_rl": "yes",
        "reward_types": ["shared"],
        "credit_units": ["agent"],
        "credit_mechanism": "broad",
        "topology": "centralized",
        "sub_decisions": ["O2"],
        "scenario": "general",
        "survey_role": "core",
        "verified": "yes",
        "evidence_level": "preprint",
        "summary": "Trains a small team of language agents with a shared reward.",
        "notes": "",
        "added": "2026-05-04",
        "round": "survey-2026-05",
    }
    drop = overrides.pop("drop", ())
    data.update(overrides)
    data = with_required_axes(data)
    if (
        "sub_decision_evidence" not in overrides
        and isinstance(data.get("sub_decisions"), list)
        and data["sub_decisions"]
    ):
        # Every O-tag carries one line of evidence, as validate expects.
        evidence = {
            tag: f"The method learns decision {tag}."
            for tag in data["sub_decisions"]
            if isinstance(tag, str) and tag != "TODO"
        }
        data = {
            **{k: v for k, v in data.items() if k != "summary"},
            "sub_decision_evidence": evidence,
            "summary": data["summary"],
        }
    for name in drop:
        data.pop(name, None)
    return data


def with_required_axes(data: dict, live: dict | None = None, placeholders: bool = False) -> dict:
    """``data`` with a value for every required tag field of the repository's taxonomy it lacks
    (or, with ``placeholders``, holds as the placeholder TODO): the live record's value where it
    has one, else the axis's first value (an empty list for a list field). So a new required axis
    file needs no edit to the fixtures."""
    unset = ("TODO", ["TODO"]) if placeholders else ()
    missing = [
        s for s in _repo_tag_specs() if s.required and (s.name not in data or data[s.name] in unset)
    ]
    if not missing:
        return data
    data = dict(data)
    for spec in missing:
        if live and spec.name in live:
            data[spec.name] = live[spec.name]
        else:
            values = list(_repo_taxonomy()[spec.axis].ids)
            data[spec.name] = [] if spec.kind == "tags" else values[0]
    return data


def write_forged(path: Path, forged: bytes, tag: bytes, how: str) -> bool:
    """A sealed cache file rewritten to hold ``forged`` by someone who can write the cache but has
    no key: a plain checksum for its tag ("checksum recomputed"), the real tag kept ("tag kept"),
    or no tag ("unsealed, as before"). False, and nothing written, for any other ``how``."""
    if how == "checksum recomputed":
        path.write_bytes(hashlib.sha256(forged).hexdigest().encode() + b"\n" + forged)
    elif how == "tag kept":
        path.write_bytes(tag + b"\n" + forged)
    elif how == "unsealed, as before":
        path.write_bytes(forged)
    else:
        return False
    return True


def exclusion_data(record_id: str = "E001", /, **overrides) -> dict:
    data = {
        "record_id": record_id,
        "source": "arxiv",
        "query_family": "multi_agent_llm",
        "title": f"A prompted agent framework {record_id}",
        "identifier": f"arXiv:2301.{int(record_id[1:]):05d}",
        "url": f"https://arxiv.org/abs/2301.{int(record_id[1:]):05d}",
        "date_screened": "2026-04-26",
        "stage": "abstract_screen",
        "reason_code": "no_rl_component",
        "rationale": "Agents are only prompted; nothing is trained.",
        "round": "survey-2026-05",
    }
    data.update(overrides)
    return data


def write_entry(root: Path, data: dict, name: str | None = None) -> Path:
    path = root / "corpus" / f"{name or data['key']}.yaml"
    files.write_atomic(path, yamlio.dumps(data, header=ENTRY_SCHEMA_LINE))
    return path


def write_exclusion(root: Path, data: dict, name: str | None = None) -> Path:
    path = root / "exclusions" / f"{name or data['record_id']}.yaml"
    files.write_atomic(path, yamlio.dumps(data, header=EXCLUSION_SCHEMA_LINE))
    return path


@pytest.fixture
def mini_project(tmp_path: Path) -> Project:
    """A tiny valid corpus (three entries, one exclusion) with the real taxonomy."""
    return make_mini_project(tmp_path)


def make_mini_project(tmp_path: Path) -> Project:
    """The files of ``mini_project`` under ``tmp_path``."""
    shutil.copytree(REPO_ROOT / "taxonomy", tmp_path / "taxonomy")
    shutil.copytree(
        REPO_ROOT / "screening",
        tmp_path / "screening",
        ignore=shutil.ignore_patterns("queue", "decisions", "tags"),
    )
    write_entry(tmp_path, entry_data("alpha2025"))
    write_entry(
        tmp_path,
        entry_data(
            "beta2024",
            title="Beta Routing of Subtasks",
            year=2024,
            credit_units=["message"],
            credit_mechanism="explicit",
        ),
    )
    write_entry(
        tmp_path,
        entry_data(
            "gamma2023",
            title="Gamma Benchmark for Agent Teams",
            category="benchmark",
            is_rl="no",
            reward_types=[],
            credit_units=[],
            credit_mechanism=None,
            sub_decisions=[],
            evaluation_measures=["outcome"],
            year=2023,
        ),
    )
    write_exclusion(tmp_path, exclusion_data("E001"))
    return Project(tmp_path)


# Citations among the mini corpus's entries: alpha's references came from OpenAlex, gamma's were
# read by hand, beta's are not known (yet a hand edge says it cites gamma).
MINI_CITATIONS = """\
retrieved: '2026-11-25'
api: https://api.openalex.org
works:
  alpha2025: {openalex: W11, resolved_by: arxiv, references_known: true, retrieved: '2026-11-25'}
  beta2024: {openalex: null, resolved_by: null, references_known: false, retrieved: '2026-11-25'}
checked_by_hand:
  gamma2023: {evidence: 'https://example.org/gamma.pdf reference list', date: '2026-11-24'}
edges:
- {from: alpha2025, to: beta2024, source: openalex}
- {from: alpha2025, to: gamma2023, source: openalex}
- {from: beta2024, to: gamma2023, source: hand, evidence: 'https://example.org/beta.pdf ref. [7]'}
"""


def write_mini_citations(root: Path) -> None:
    """The mini corpus's citations/graph.yaml (MINI_CITATIONS)."""
    (root / "citations").mkdir(exist_ok=True)
    (root / "citations" / "graph.yaml").write_text(MINI_CITATIONS, encoding="utf-8")


@functools.cache
def _repo_tag_specs():
    from masrl.model.records import entry_specs

    return [s for s in entry_specs(_repo_taxonomy()) if s.axis and s.kind in ("tag", "tags")]


@functools.cache
def _repo_taxonomy():
    from masrl.model.taxonomy import load_taxonomy

    return load_taxonomy(REPO_ROOT / "taxonomy")


def _with_evidence(data: dict) -> dict:
    """A published entry with an evidence line for each sub-decision tag, as validation requires:
    the live record's line where it has one (the snapshot predates evidence lines), its venue
    in the one spelling of taxonomy/venues.yaml (the snapshot predates that vocabulary too), and
    the live record's value for any required axis added since."""
    from masrl.model.venues import normalise_venue

    live_file = REPO_ROOT / "corpus" / f"{data['key']}.yaml"
    live = (
        yaml.safe_load(live_file.read_text(encoding="utf-8")) if live_file.is_file() else {}
    ) or {}
    # Axes made required after the snapshot was frozen take the live record's tags.
    data = with_required_axes(data, live)
    data = {**data, "venue": normalise_venue(_repo_taxonomy(), data["venue"])}
    tags = data.get("sub_decisions") or []
    if not tags:
        return data
    known = live.get("sub_decision_evidence") or {}
    evidence = {tag: known.get(tag, f"{tag} as tagged in the published survey") for tag in tags}
    return {**data, "sub_decision_evidence": evidence}


@pytest.fixture(scope="session")
def _published_checkout(tmp_path_factory) -> Path:
    """The survey's published corpus as a checkout: the records, tags and rounds of the frozen
    snapshot, with this repository's taxonomy, ledger, README, STATS.md and figures.

    Tests that change the corpus start from the published state, so they do not depend on how the
    live corpus has grown since (later rounds, corrected tags). Written once per test process and
    never changed: each test gets a copy (``repo_copy``)."""
    tmp_path = tmp_path_factory.mktemp("published-checkout")
    for name in ("taxonomy", "snapshots", "claims", "figures"):
        if (REPO_ROOT / name).exists():
            shutil.copytree(REPO_ROOT / name, tmp_path / name)
    for name in ("README.md", "STATS.md"):
        if (REPO_ROOT / name).exists():
            shutil.copy(REPO_ROOT / name, tmp_path / name)
    published = json.loads(
        (REPO_ROOT / "snapshots" / f"{PUBLISHED}.json").read_text(encoding="utf-8")
    )
    for data in published["entries"]:
        write_entry(tmp_path, _with_evidence(data))
    for data in published["exclusions"]:
        write_exclusion(tmp_path, data)
    # The rounds file as written, up to the first round after the published one.
    rounds = (REPO_ROOT / "screening" / "rounds.yaml").read_text(encoding="utf-8")
    later = [m.start() for m in re.finditer(r"^  - id: ", rounds, re.MULTILINE)][1:]
    (tmp_path / "screening").mkdir()
    (tmp_path / "screening" / "rounds.yaml").write_text(
        rounds[: later[0]] if later else rounds, encoding="utf-8"
    )
    return tmp_path


@pytest.fixture
def repo_copy(_published_checkout: Path, tmp_path: Path) -> Project:
    """A fresh copy of the published checkout (``_published_checkout``) to modify freely."""
    shutil.copytree(_published_checkout, tmp_path, dirs_exist_ok=True)
    return Project(tmp_path)


@pytest.fixture(scope="session")
def browser():
    """The headless Chromium the browser tests drive (see test_site_browser.py)."""
    from test_site_browser import launched_chromium

    with launched_chromium() as chromium:
        yield chromium


@pytest.fixture(scope="session")
def published_corpus():
    """The survey as published (the frozen snapshot): the corpus every published number is read from."""
    from masrl.check.snapshot import load_snapshot

    return load_snapshot(Project(REPO_ROOT), PUBLISHED)


@pytest.fixture
def screening(tmp_path: Path) -> Project:
    """The real corpus and exclusions, the screening fixture's rounds file and its six invented
    queue candidates (the screen and ASReview tests share it)."""
    return make_screening_project(tmp_path)


def make_screening_project(tmp_path: Path) -> Project:
    """The files of ``screening`` under ``tmp_path``."""
    fixtures = Path(__file__).parent / "fixtures" / "screening"
    for name in ("corpus", "exclusions", "taxonomy"):
        shutil.copytree(REPO_ROOT / name, tmp_path / name)
    (tmp_path / "screening").mkdir()
    shutil.copy(fixtures / "rounds.yaml", tmp_path / "screening" / "rounds.yaml")
    shutil.copytree(fixtures / "queue", tmp_path / "screening" / "queue")
    return Project(tmp_path)


def pytest_sessionfinish(session, exitstatus):
    """The sites built once for the whole run (test_site.built_site, in the folder all xdist
    workers share) go when the run passes, as each test's own folder does."""
    if exitstatus != 0 or os.environ.get("PYTEST_XDIST_WORKER"):
        return
    factory = getattr(session.config, "_tmp_path_factory", None)
    if factory is None or getattr(factory, "_basetemp", None) is None:
        return  # no test asked for a temporary folder
    for folder in factory.getbasetemp().glob("site-*"):
        shutil.rmtree(folder, ignore_errors=True)


def pytest_collection_modifyitems(config, items):
    """The tests marked slow and in no xdist group first, each kind in its order: xdist hands out
    the groups (largest first) and then the tests in this order, so the longest single tests
    start early and the workers finish together instead of one running a long test alone at the
    end. A group's tests keep their order: the group runs on one worker as one piece anyway."""

    def later(item) -> bool:
        return item.get_closest_marker("slow") is None or bool(
            item.get_closest_marker("xdist_group")
        )

    items[:] = sorted(items, key=later)

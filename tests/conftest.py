"""Shared fixtures: a copy of the real corpus to break, and a tiny hand-made corpus."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from masrl.model import yamlio
from masrl.model.project import Project
from masrl.model.records import ENTRY_SCHEMA_LINE, EXCLUSION_SCHEMA_LINE

REPO_ROOT = Path(__file__).resolve().parents[1]

# The real corpus's size, counted from its files: tests derive expected counts from the data.
REAL_ENTRIES = len(list((REPO_ROOT / "corpus").glob("*.yaml")))
REAL_EXCLUSIONS = len(list((REPO_ROOT / "exclusions").glob("*.yaml")))
REAL_AUDITED = REAL_ENTRIES + REAL_EXCLUSIONS

# Rendered figures are cached by content hash; tests keep that cache inside the checkout.
os.environ.setdefault("MASRL_CACHE_DIR", str(REPO_ROOT / ".cache" / "masrl"))


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
    if "sub_decision_evidence" not in overrides and isinstance(data.get("sub_decisions"), list) and data["sub_decisions"]:
        # Every O-tag carries one line of evidence, as validate expects.
        evidence = {tag: f"The method learns decision {tag}." for tag in data["sub_decisions"] if isinstance(tag, str) and tag != "TODO"}
        data = {**{k: v for k, v in data.items() if k != "summary"}, "sub_decision_evidence": evidence, "summary": data["summary"]}
    for name in drop:
        data.pop(name, None)
    return data


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
    yamlio.write_atomic(path, yamlio.dumps(data, header=ENTRY_SCHEMA_LINE))
    return path


def write_exclusion(root: Path, data: dict, name: str | None = None) -> Path:
    path = root / "exclusions" / f"{name or data['record_id']}.yaml"
    yamlio.write_atomic(path, yamlio.dumps(data, header=EXCLUSION_SCHEMA_LINE))
    return path


@pytest.fixture
def mini_project(tmp_path: Path) -> Project:
    """A tiny valid corpus (three entries, one exclusion) with the real taxonomy."""
    shutil.copytree(REPO_ROOT / "taxonomy", tmp_path / "taxonomy")
    shutil.copytree(REPO_ROOT / "screening", tmp_path / "screening", ignore=shutil.ignore_patterns("queue"))
    write_entry(tmp_path, entry_data("alpha2025"))
    write_entry(tmp_path, entry_data("beta2024", title="Beta Routing of Subtasks", year=2024,
                                     credit_units=["message"], credit_mechanism="explicit"))
    write_entry(tmp_path, entry_data("gamma2023", title="Gamma Benchmark for Agent Teams", category="benchmark",
                                     is_rl="no", reward_types=[], credit_units=[], credit_mechanism=None,
                                     sub_decisions=[], evaluation_measures=["outcome"], year=2023))
    write_exclusion(tmp_path, exclusion_data("E001"))
    return Project(tmp_path)


@pytest.fixture
def repo_copy(tmp_path: Path) -> Project:
    """A copy of this repository's data (corpus, exclusions, taxonomy, README) to modify freely."""
    for name in ("corpus", "exclusions", "taxonomy", "screening", "snapshots"):
        if (REPO_ROOT / name).exists():
            shutil.copytree(REPO_ROOT / name, tmp_path / name)
    for name in ("README.md", "STATS.md"):
        if (REPO_ROOT / name).exists():
            shutil.copy(REPO_ROOT / name, tmp_path / name)
    for name in ("figures", "claims"):
        if (REPO_ROOT / name).exists():
            shutil.copytree(REPO_ROOT / name, tmp_path / name)
    return Project(tmp_path)

"""Near-duplicate titles: numbers and versions tell papers apart, a person can record a pair as
different papers, and blocking finds the same pairs as comparing everything, in linear time."""

from __future__ import annotations

import itertools
import random

import pytest
from conftest import entry_data, write_entry
from masrl.check.titles import similar_title_pairs
from masrl.check.validate import validate_project
from masrl.model import identifiers as ids


def _duplicates(project):
    return [p for p in validate_project(project).errors if p.code == "duplicate-title"]


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("Qwen2 Technical Report for Agent Teams", "Qwen3 Technical Report for Agent Teams"),
        (
            "Llama 2: Open Foundation and Fine-Tuned Chat Models",
            "Llama 3: Open Foundation and Fine-Tuned Chat Models",
        ),
        (
            "Credit Assignment in Language Agent Teams, Part I",
            "Credit Assignment in Language Agent Teams, Part II",
        ),
        ("Routing Agents with Learned Rewards v2", "Routing Agents with Learned Rewards v3"),
    ],
)
def test_numbers_and_versions_tell_papers_apart(mini_project, first, second):
    write_entry(mini_project.root, entry_data("one2025", title=first))
    write_entry(mini_project.root, entry_data("two2025", title=second))
    assert not _duplicates(mini_project)


def test_a_recorded_pair_of_different_papers_is_not_reported_again(mini_project):
    write_entry(
        mini_project.root,
        entry_data("one2025", title="Learning to Coordinate Language Agent Teams"),
    )
    write_entry(
        mini_project.root,
        entry_data("two2025", title="Learning to Co-ordinate Language Agent Teams"),
    )
    [problem] = _duplicates(mini_project)
    assert "different_papers" in problem.hint and "[one2025, two2025]" in problem.hint
    (mini_project.root / "distinct_papers.yaml").write_text(
        "different_papers:\n  - [two2025, one2025]\n", encoding="utf-8"
    )
    assert not _duplicates(mini_project)
    (mini_project.root / "distinct_papers.yaml").write_text(
        "different_papers:\n  - just-one\n", encoding="utf-8"
    )
    assert [p.line for p in validate_project(mini_project).errors if p.code == "overrides"] == [2]


def _brute_force(titles):
    found = set()
    for a, b in itertools.combinations(titles, 2):
        if ids.same_title(a[0], b[0]):
            found.add(tuple(sorted((a[1], b[1]))))
    return found


def test_blocking_finds_typos_hyphenation_reordering_and_a_missing_word():
    base = "hierarchical credit assignment for multi agent language model teams"
    variants = [
        base,
        base.replace("credit", "credti"),
        base.replace("multi agent", "multiagent"),
        base + " today",
        base.replace("language model", "model language"),
    ]
    titles = [(ids.normalize_title(t), f"r{i}", None) for i, t in enumerate(variants)]
    blocked = {(a[1], b[1]) for a, b in similar_title_pairs(titles)}
    # Every single change is found; two changes in different words (r1 vs r2) may be missed by design.
    assert {("r0", f"r{i}") for i in range(1, 4)} <= blocked <= _brute_force(titles)


def test_blocking_agrees_with_brute_force_on_shared_prefixes():
    rng = random.Random(3)
    words = "agent team credit reward routing debate verifier planner critic swarm token message".split()
    prefix = "multi agent reinforcement learning for language model teams "
    titles, planted = [], set()
    for index in range(300):
        title = prefix + " ".join(rng.choice(words) for _ in range(4)) + f" {index}"
        if index % 10 == 0 and titles:
            title = titles[-1][0].replace(
                "multi agent", "multiagent"
            )  # a near-duplicate of the previous one
            planted.add((titles[-1][1], f"r{index:03d}"))
        titles.append((ids.normalize_title(title), f"r{index:03d}", None))
    blocked = {(a[1], b[1]) for a, b in similar_title_pairs(titles)}
    assert planted <= blocked <= _brute_force(titles)


def test_every_record_of_a_title_shared_by_300_is_reported(mini_project):
    title = "Learning to Coordinate Language Agent Teams"
    for index in range(300):
        write_entry(
            mini_project.root,
            entry_data(
                f"same{index:03d}-2025",
                title=title,
                identifiers={"arxiv": f"2601.{index:05d}", "doi": None, "openreview": None},
                urls=[f"https://arxiv.org/abs/2601.{index:05d}"],
            ),
        )
    problems = _duplicates(mini_project)
    assert len(problems) == 299  # each record after the first, once
    assert {p.path for p in problems} == {f"corpus/same{i:03d}-2025.yaml" for i in range(1, 300)}
    assert all(
        "near-identical to the one in corpus/same000-2025.yaml" in p.message for p in problems
    )


def test_near_identical_titles_are_found_beside_a_block_of_300():
    shared = ids.normalize_title("Learning to Coordinate Language Agent Teams")
    titles = [(shared, f"r{i:03d}", None) for i in range(300)]
    titles.append((shared.replace("coordinate", "co ordinate"), "x-typo", None))
    pairs = {(a[1], b[1]) for a, b in similar_title_pairs(titles)}
    assert len(pairs) == 300 and ("r000", "x-typo") in pairs


def test_a_title_of_thousands_of_distinct_words_is_checked():
    words = " ".join(f"w{i}" for i in range(6000))
    titles = [(words, "a", None), (words + " extra", "b", None)]
    assert [(a[1], b[1]) for a, b in similar_title_pairs(titles)] == [("a", "b")]

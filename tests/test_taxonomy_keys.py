"""Taxonomy files accept only the keys the code reads, and a derivation is what its file declares
(issue 34: `derived.from` and `by` were accepted and ignored)."""

from __future__ import annotations

import shutil

import pytest
from click.testing import CliRunner
from conftest import REPO_ROOT
from masrl.cli import main
from masrl.model.taxonomy import TaxonomyError, load_taxonomy


@pytest.fixture
def taxonomy_dir(tmp_path):
    target = tmp_path / "taxonomy"
    shutil.copytree(REPO_ROOT / "taxonomy", target)
    return target


def _edit(path, old, new):
    text = path.read_text("utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), "utf-8")


@pytest.mark.parametrize(
    ("file", "old", "new", "expected"),
    [
        (
            "reward_families.yaml",
            "  by: family",
            "  by: family\n  weight: 2",
            "unknown key 'derived.weight'",
        ),
        (
            "reward_families.yaml",
            "order: 3\n",
            "order: 3\nshwo:\n  stats: 1\n",
            "unknown key 'shwo'; nothing reads it. Did you mean 'show'?",
        ),
        ("topologies.yaml", "  hue: 135", "  hue: 135\n  colour: red", "unknown key 'show.colour'"),
        (
            "reward_families.yaml",
            "  by: family\n",
            "",
            "'derived' must give name, from and by as text",
        ),
    ],
)
def test_an_unknown_or_missing_key_is_refused_with_its_line(taxonomy_dir, file, old, new, expected):
    path = taxonomy_dir / file
    _edit(path, old, new)
    line = (
        next(
            i
            for i, text in enumerate(path.read_text("utf-8").splitlines(), 1)
            if new.strip().splitlines()[-1].strip() in text
        )
        if new
        else None
    )
    with pytest.raises(TaxonomyError) as caught:
        load_taxonomy(taxonomy_dir)
    assert expected in caught.value.message
    assert caught.value.path.endswith(file)
    if expected.startswith("unknown"):
        assert caught.value.line == line or caught.value.line == line - 1


def test_derived_from_and_by_are_read(taxonomy_dir):
    _edit(taxonomy_dir / "reward_families.yaml", "  from: reward_types", "  from: reward_type")
    with pytest.raises(
        TaxonomyError, match="derived.from names 'reward_type', which is not an axis"
    ):
        load_taxonomy(taxonomy_dir)
    _edit(taxonomy_dir / "reward_families.yaml", "  from: reward_type", "  from: reward_types")
    _edit(taxonomy_dir / "reward_families.yaml", "  by: family", "  by: group")
    with pytest.raises(
        TaxonomyError, match=r"needs 'group:' among .* \(derived.by of reward_families\)"
    ) as caught:
        load_taxonomy(taxonomy_dir)
    assert caught.value.path.endswith("reward_types.yaml") and caught.value.line > 1
    # Declared under another key, the derivation follows the declaration.
    text = (
        (taxonomy_dir / "reward_types.yaml").read_text("utf-8").replace("    family:", "    group:")
    )
    (taxonomy_dir / "reward_types.yaml").write_text(text, "utf-8")
    taxonomy = load_taxonomy(taxonomy_dir)
    assert (
        taxonomy.family_of_reward_type
        == load_taxonomy(REPO_ROOT / "taxonomy").family_of_reward_type
    )


def test_the_cli_names_the_file_and_line_without_a_traceback(mini_project):
    _edit(
        mini_project.root / "taxonomy" / "reward_families.yaml",
        "  by: family",
        "  by: family\n  weight: 2",
    )
    result = CliRunner().invoke(main, ["validate", "--root", str(mini_project.root)])
    assert result.exit_code != 0 and "Traceback" not in result.output
    assert "reward_families.yaml:11" in result.output and "derived.weight" in result.output

"""ARCHITECTURE.md's layers, enforced: import-linter's contracts in pyproject.toml (the same run
`make check` makes) must hold for every import in tools/masrl, lazy ones inside functions included."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

from conftest import REPO_ROOT


def test_the_import_layers_hold():
    lint_imports = shutil.which("lint-imports", path=str(Path(sys.executable).parent))
    assert lint_imports, "import-linter is not installed: run `make setup`"
    result = subprocess.run(
        [lint_imports, "--no-cache"], cwd=REPO_ROOT, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr
    assert "0 broken" in result.stdout


def test_architecture_md_states_the_contracts_layers():
    """The one-page description and the enforced contract name the same layers, in the same order."""
    import tomllib

    config = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"][
        "importlinter"
    ]
    (layers,) = [c["layers"] for c in config["contracts"] if c["type"] == "layers"]
    text = (REPO_ROOT / "ARCHITECTURE.md").read_text(encoding="utf-8")
    stated = text.split("<!-- layers -->")[1].split("<!-- /layers -->")[0]
    order = re.findall(r"^- `([^`]+)`", stated, flags=re.MULTILINE)
    assert order == layers, (order, layers)


def test_the_tree_is_linted_and_formatted():
    """`ruff check` and `ruff format --check` with the settings in pyproject.toml, as `make check`."""
    ruff = shutil.which("ruff", path=str(Path(sys.executable).parent))
    assert ruff, "ruff is not installed: run `make setup`"
    paths = ["tools", "tests", "benchmarks", "scripts"]
    for command in (["check", "--output-format", "concise"], ["format", "--check"]):
        result = subprocess.run(
            [ruff, *command, *paths], cwd=REPO_ROOT, capture_output=True, text=True, timeout=120
        )
        assert result.returncode == 0, (
            f"ruff {command[0]}:\n" + result.stdout[-3000:] + result.stderr
        )


def test_every_import_is_declared_and_nothing_unused_is():
    """deptry over tools/masrl with the settings in pyproject.toml, as `make check` runs it."""
    deptry = shutil.which("deptry", path=str(Path(sys.executable).parent))
    assert deptry, "deptry is not installed: run `make setup`"
    result = subprocess.run(
        [deptry, "tools"], cwd=REPO_ROOT, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr

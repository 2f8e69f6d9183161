"""What `make check` enforces beside the data, run as tests so CI enforces it too: ARCHITECTURE.md's
layers (import-linter's contracts in pyproject.toml, lazy imports inside functions included), the
style (ruff) and the declared dependencies (deptry)."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

from conftest import REPO_ROOT


def run_tool(name: str, *args: str) -> subprocess.CompletedProcess:
    """One of the dev extra's checkers, from this interpreter's environment, on the checkout."""
    tool = shutil.which(name, path=str(Path(sys.executable).parent))
    assert tool, f"{name} is not installed: run `make setup`"
    result = subprocess.run(
        [tool, *args], cwd=REPO_ROOT, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, f"{name} {args[0]}:\n" + result.stdout[-3000:] + result.stderr
    return result


def test_the_import_layers_hold():
    assert "0 broken" in run_tool("lint-imports", "--no-cache").stdout


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
    """`ruff check` and `ruff format --check` with the settings in pyproject.toml."""
    paths = ("tools", "tests", "benchmarks", "scripts")
    run_tool("ruff", "check", "--output-format", "concise", *paths)
    run_tool("ruff", "format", "--check", *paths)


def test_every_import_is_declared_and_nothing_unused_is():
    """deptry over tools/masrl with the settings in pyproject.toml."""
    run_tool("deptry", "tools")

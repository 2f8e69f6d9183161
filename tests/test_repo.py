"""Repository-level guarantees: the CLI lists every command, packaging ships every package,
generated files are fresh, and no reference data is committed."""

from __future__ import annotations

import subprocess
import tomllib

import click
from click.testing import CliRunner
from conftest import REPO_ROOT
from masrl.cli import LAZY_COMMANDS, main


def test_help_lists_every_command_with_a_description():
    result = CliRunner().invoke(main, ["--help"])
    assert result.exit_code == 0
    flowing = " ".join(result.output.split())  # help text wraps long descriptions
    for name, (_, _, description) in LAZY_COMMANDS.items():
        assert f"{name} {description}" in flowing


def test_every_lazy_command_loads_and_has_help():
    context = click.Context(main)
    for name in LAZY_COMMANDS:
        command = main.get_command(context, name)
        assert command is not None, name
        assert CliRunner().invoke(main, [name, "--help"]).exit_code == 0, name


def test_pyproject_ships_every_package():
    config = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())
    declared = set(config["tool"]["setuptools"]["packages"])
    on_disk = {
        ".".join(path.parent.relative_to(REPO_ROOT / "tools").parts)
        for path in (REPO_ROOT / "tools" / "masrl").rglob("__init__.py")
    }
    assert on_disk <= declared, on_disk - declared


def test_generated_files_are_fresh():
    result = CliRunner().invoke(main, ["check", "--root", str(REPO_ROOT)])
    assert result.exit_code == 0, result.output


def test_no_reference_data_is_tracked():
    tracked = subprocess.run(
        ["git", "ls-files"], cwd=REPO_ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    for name in tracked:
        assert name.rsplit("/", 1)[-1] not in ("papers.csv", "excluded.csv", "papers.bib"), name

"""Reproducible installs: uv.lock matches pyproject.toml, `make lock` rewrites it byte for byte when
nothing changed, the installed versions are the lock's, and the weekly update script (what
.github/workflows/update-lock.yml runs) proposes newer versions with the suite's verdict. No test
here reaches a package index: the update script resolves against a folder of wheels made here."""

from __future__ import annotations

import base64
import hashlib
import os
import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest
from conftest import REPO_ROOT

UV = REPO_ROOT / ".tools" / "uv" / "bin" / "uv"
SCRIPT = REPO_ROOT / "scripts" / "update_lock_pr.sh"


@pytest.fixture(scope="module")
def uv() -> Path:
    if not UV.is_file():
        pytest.fail("uv is not installed: run `make setup` (scripts/sync.sh puts it in .tools/uv)")
    return UV


def run(
    *args, cwd: Path, env: dict | None = None, check: bool = True
) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(a) for a in args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        check=check,
        env={**os.environ, **(env or {})},
    )


def test_the_lock_matches_pyproject_and_relocking_changes_no_byte(uv, tmp_path):
    run(uv, "lock", "--check", "--offline", cwd=REPO_ROOT)
    for name in ("pyproject.toml", "uv.lock"):
        shutil.copy(REPO_ROOT / name, tmp_path / name)
    run(uv, "lock", "--offline", cwd=tmp_path)
    assert (tmp_path / "uv.lock").read_bytes() == (REPO_ROOT / "uv.lock").read_bytes()


def test_the_lock_refuses_a_pyproject_it_does_not_match(uv, tmp_path):
    for name in ("pyproject.toml", "uv.lock"):
        shutil.copy(REPO_ROOT / name, tmp_path / name)
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text(
        pyproject.read_text().replace('"click>=8.1",', '"click>=8.1",\n  "six>=1.0",')
    )
    result = run(uv, "lock", "--check", "--offline", cwd=tmp_path, check=False)
    assert result.returncode != 0


def test_the_installed_versions_are_exactly_the_locks(uv):
    """What `make test` runs on: uv checks .venv against the lock (dev extra), changing nothing."""
    result = run(
        uv,
        "sync",
        "--locked",
        "--extra",
        "dev",
        "--check",
        "--offline",
        cwd=REPO_ROOT,
        check=False,
        env={"UV_PYTHON_DOWNLOADS": "never"},
    )
    assert result.returncode == 0, (
        "installed versions differ from uv.lock (run `make setup`):\n" + result.stderr
    )
    assert "Would make no changes" in result.stderr


# ---------------------------------------------------------------------------------------------
# The weekly update, against a folder of wheels


def make_wheel(folder: Path, name: str, version: str) -> None:
    """A minimal, valid pure-Python wheel."""
    tag = f"{name}-{version}"
    files = {
        f"{name}/__init__.py": f"__version__ = {version!r}\n",
        f"{tag}.dist-info/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n",
        f"{tag}.dist-info/WHEEL": "Wheel-Version: 1.0\nGenerator: masrl-tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    }
    record = []
    for path, text in files.items():
        digest = (
            base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b"=").decode()
        )
        record.append(f"{path},sha256={digest},{len(text.encode())}")
    files[f"{tag}.dist-info/RECORD"] = "\n".join([*record, f"{tag}.dist-info/RECORD,,"]) + "\n"
    with zipfile.ZipFile(folder / f"{tag}-py3-none-any.whl", "w") as archive:
        for path, text in files.items():
            archive.writestr(path, text)


def git(root: Path, *args: str) -> str:
    return run("git", "-c", "user.name=t", "-c", "user.email=t@example.org", *args, cwd=root).stdout


@pytest.fixture
def toy_project(uv, tmp_path) -> Path:
    """A project depending on `masrltoy>=1.0`, locked at 1.0, with 1.1 now in its wheel folder."""
    root, wheels = tmp_path / "project", tmp_path / "wheels"
    (root / "scripts").mkdir(parents=True)
    wheels.mkdir()
    for name in ("update_lock_pr.sh", "pull_request.sh", "sync.sh", "uv-requirements.txt"):
        shutil.copy(REPO_ROOT / "scripts" / name, root / "scripts" / name)
    (root / ".tools").symlink_to(REPO_ROOT / ".tools")  # the same pinned uv, no install
    (root / ".gitignore").write_text(".tools\n")
    (root / "pyproject.toml").write_text(
        '[project]\nname = "lockdemo"\nversion = "0"\nrequires-python = ">=3.11"\n'
        'dependencies = ["masrltoy>=1.0"]\n\n'
        f'[tool.uv]\npackage = false\nno-index = true\nfind-links = ["{wheels}"]\n'
    )
    make_wheel(wheels, "masrltoy", "1.0")
    run(uv, "lock", cwd=root)
    git(root, "init", "--quiet", "--initial-branch=main")
    git(root, "add", "-A")
    git(root, "commit", "--quiet", "-m", "base")
    make_wheel(wheels, "masrltoy", "1.1")
    return root


def update(root: Path, suite: str) -> subprocess.CompletedProcess:
    return run(
        "bash",
        SCRIPT,
        cwd=root,
        check=False,
        env={"DRY_RUN": "1", "SUITE": suite, "GH_TOKEN": "", "GITHUB_REPOSITORY": ""},
    )


def test_the_update_script_proposes_newer_versions_with_a_green_suite(toy_project):
    result = update(toy_project, "echo '3 passed'")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "would push masrl/update-lock" in result.stdout
    assert "- Updated masrltoy v1.0 -> v1.1" in result.stdout
    assert "The whole suite passes on them" in result.stdout and "3 passed" in result.stdout
    assert git(toy_project, "rev-parse", "--abbrev-ref", "HEAD").strip() == "masrl/update-lock"
    assert git(toy_project, "show", "--name-only", "--format=", "HEAD").split() == ["uv.lock"]
    assert 'version = "1.1"' in (toy_project / "uv.lock").read_text()


def test_a_breaking_release_makes_the_update_red(toy_project):
    result = update(toy_project, "echo '1 failed, 2 passed'; exit 1")
    assert result.returncode == 1
    assert (
        "The whole suite FAILS (exit 1)" in result.stdout and "1 failed, 2 passed" in result.stdout
    )
    assert "bound that package's range" in result.stdout


def test_no_newer_versions_no_pull_request(toy_project):
    (toy_project.parent / "wheels" / "masrltoy-1.1-py3-none-any.whl").unlink()
    result = update(toy_project, "exit 1")
    assert result.returncode == 0 and "no pull request needed" in result.stdout
    assert git(toy_project, "rev-parse", "--abbrev-ref", "HEAD").strip() == "main"


def test_the_update_is_pushed_and_opens_one_pull_request(toy_project, tmp_path):
    """Not a dry run: the branch goes to the remote, and `gh` is asked for the open pull request
    of the branch and then to create one (a stand-in `gh` records what it is asked)."""
    remote = tmp_path / "remote.git"
    run("git", "init", "--quiet", "--bare", remote, cwd=tmp_path)
    fake_bin = tmp_path / "bin"
    fake_bin.mkdir()
    calls = tmp_path / "gh-calls.txt"
    (fake_bin / "gh").write_text(f'#!/bin/sh\necho "$@" >> {calls}\n')
    (fake_bin / "gh").chmod(0o755)
    result = run(
        "bash",
        SCRIPT,
        cwd=toy_project,
        check=False,
        env={
            "SUITE": "true",
            "GH_TOKEN": "t",
            "GITHUB_REPOSITORY": "o/r",
            "REMOTE_URL": str(remote),
            "PATH": f"{fake_bin}:{os.environ['PATH']}",
        },
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert run("git", "rev-parse", "--verify", "masrl/update-lock", cwd=remote).returncode == 0
    asked = calls.read_text().splitlines()
    assert asked[0].startswith("pr list --head masrl/update-lock --base main")
    assert asked[1].startswith(
        "pr create --head masrl/update-lock --base main --title Update locked dependencies"
    )

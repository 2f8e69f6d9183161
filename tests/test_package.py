"""The package as a user gets it: `python -m build` makes an sdist and a wheel from the project's
files, and the wheel, installed in a fresh venv away from the checkout, runs `masrl --help`,
`masrl trace validate` on a bundled example and `masrl validate --root <a corpus checkout>`."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import venv
import zipfile
from pathlib import Path

import pytest
from conftest import REPO_ROOT

pytestmark = pytest.mark.slow
UV = REPO_ROOT / ".tools" / "uv" / "bin" / "uv"


def project_files(root: Path) -> list[str]:
    """What git tracks, plus new files it does not ignore: what a commit would ship."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=root,
        capture_output=True,
        check=True,
    ).stdout.decode()
    return [name for name in listed.split("\0") if name and (root / name).is_file()]


def copy_project(destination: Path) -> Path:
    for name in project_files(REPO_ROOT):
        target = destination / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO_ROOT / name, target)
    return destination


def build_distributions(source: Path, out: Path) -> tuple[Path, Path]:
    # No isolation: the build backend (setuptools) comes from the locked dev extra, so the test
    # needs no network; the wheel is built from the sdist, as `python -m build` does by default.
    subprocess.run(
        [sys.executable, "-m", "build", "--no-isolation", "--outdir", str(out), str(source)],
        check=True,
        capture_output=True,
        text=True,
        timeout=300,
    )
    (sdist,) = out.glob("masrl-*.tar.gz")
    (wheel,) = out.glob("masrl-*.whl")
    return sdist, wheel


def purelib_of(python: Path) -> str:
    """The site-packages folder of the interpreter ``python``."""
    return subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()


def venv_with_dependencies(path: Path) -> Path:
    """A fresh venv holding none of the checkout. Its dependencies are those already installed
    here (a .pth line naming this interpreter's site-packages, whose own .pth files, such as the
    editable install of masrl, are not read from there), so the test needs no network."""
    venv.create(path, with_pip=False)
    python = path / "bin" / "python"
    purelib = purelib_of(python)
    Path(purelib, "masrl-test-dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    return python


def test_the_wheel_installs_and_runs_away_from_the_checkout(tmp_path):
    source = copy_project(tmp_path / "source")
    sdist, wheel = build_distributions(source, tmp_path / "dist")
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
    assert (
        "masrl/taxonomy_data/sub_decisions.yaml" in names
    )  # the vocabularies travel with the wheel
    assert "masrl/traces/examples/debate.json" in names
    assert not any(name.startswith(("tests/", "corpus/")) for name in names)

    python = venv_with_dependencies(tmp_path / "venv")
    # Installed as a user's installer would (uv, which scripts/sync.sh puts in .tools), with its
    # console script; --no-deps, as the dependencies are importable through the .pth file.
    subprocess.run(
        [
            str(UV),
            "pip",
            "install",
            "--quiet",
            "--no-deps",
            "--offline",
            "--python",
            str(python),
            str(wheel),
        ],
        check=True,
        capture_output=True,
        text=True,
        timeout=120,
    )
    purelib = purelib_of(python)
    away = tmp_path / "elsewhere"
    away.mkdir()
    # as a user runs it: no PYTHONPATH pointing at a checkout (the worktree's or the toy axis's)
    clean = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}

    def masrl(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [tmp_path / "venv" / "bin" / "masrl", *args],
            cwd=away,
            env=clean,
            capture_output=True,
            text=True,
            timeout=120,
        )

    where = subprocess.run(
        [python, "-c", "import masrl; print(masrl.__file__)"],
        cwd=away,
        env=clean,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert where.startswith(purelib), where  # the wheel's masrl, not the checkout's
    result = masrl("--help")
    assert result.returncode == 0 and "validate" in result.stdout, result.stderr
    example = Path(purelib) / "masrl" / "traces" / "examples" / "debate.json"
    result = masrl("trace", "validate", str(example), "--no-progress")
    assert result.returncode == 0, result.stdout + result.stderr
    corpus_checkout = tmp_path / "corpus-checkout"
    shutil.copytree(
        source,
        corpus_checkout,
        ignore=shutil.ignore_patterns("tools", "tests", "build", "*.egg-info"),
    )
    result = masrl("validate", "--root", str(corpus_checkout))
    assert result.returncode == 0, result.stdout + result.stderr
    assert sdist.name.startswith("masrl-") and sdist.stat().st_size > 0

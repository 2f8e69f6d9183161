"""Hostile input must never write, delete or replace anything outside what a command documents."""

from __future__ import annotations

import csv
import io
import os
import stat
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import entry_data
from masrl.cli import main
from masrl.errors import UnsafeWriteError
from masrl.exports.csv import EXCLUSIONS_HEADER, PAPERS_HEADER
from masrl.files import write_atomic, write_if_changed
from masrl.imports.csv import CsvLayoutError, plan_import
from masrl.model.project import Project
from masrl.render.site import SiteError, build_site
from masrl.render.site.builder import sync_tree

runner = CliRunner()


def _papers_csv(path: Path, key: str) -> Path:
    row = {name: "" for name in PAPERS_HEADER}
    row.update(
        key=key,
        title="A hostile row",
        first_author="Doe, Jane",
        year="2025",
        venue="arXiv",
        url="https://example.org/x",
        category="rl_method",
        is_rl="yes",
        is_core="core",
        verified="yes",
    )
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, PAPERS_HEADER, lineterminator="\n")
    writer.writeheader()
    writer.writerow(row)
    path.write_text(buffer.getvalue(), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    "key",
    [
        "../../taxonomy/categories",
        "../claims/ledger",
        "/tmp/owned",
        "a/b",
        "..",
        ".hidden",
        "UPPER",
    ],
)
def test_import_csv_refuses_a_key_that_is_not_a_file_name(tmp_path, key):
    project = Project(tmp_path / "checkout")
    (project.root / "taxonomy").mkdir(parents=True)
    source = _papers_csv(tmp_path / "papers.csv", key)
    with pytest.raises(CsvLayoutError, match="cannot name a file"):
        plan_import(source, project, force=True)
    result = runner.invoke(
        main, ["import", "csv", str(source), "--root", str(project.root), "--force"]
    )
    assert result.exit_code == 1 and "cannot name a file" in result.output
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["checkout", "papers.csv", "taxonomy"]


def test_import_csv_refuses_a_record_id_that_is_not_a_file_name(tmp_path):
    row = {name: "" for name in EXCLUSIONS_HEADER}
    row.update(record_id="../corpus/alpha2025", exclusion_reason="x")
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, EXCLUSIONS_HEADER, lineterminator="\n")
    writer.writeheader()
    writer.writerow(row)
    source = tmp_path / "excluded.csv"
    source.write_text(buffer.getvalue(), encoding="utf-8")
    result = runner.invoke(main, ["import", "csv", str(source), "--root", str(tmp_path), "--force"])
    assert (
        result.exit_code == 1
        and "record id" in result.output
        and "cannot name a file" in result.output
    )
    assert not (tmp_path / "corpus").exists() and not (tmp_path / "exclusions").exists()


def test_import_csv_refuses_years_python_would_read(tmp_path):
    for year in ("2_026", "0x7EA", "9" * 5000, "٢٠٢٥"):
        source = _papers_csv(tmp_path / "papers.csv", "fine2025")
        source.write_text(
            source.read_text(encoding="utf-8").replace(",2025,", f",{year},"), encoding="utf-8"
        )
        result = runner.invoke(main, ["import", "csv", str(source), "--root", str(tmp_path)])
        assert result.exit_code == 1 and "must be written as digits" in result.output, (
            year,
            result.output,
        )
        assert result.exception is None or isinstance(result.exception, SystemExit)


def test_output_option_refuses_a_device(mini_project, tmp_path):
    # A device node of our own (a twin of /dev/null), so a regression cannot replace the real one.
    device = tmp_path / "null"
    try:
        os.mknod(device, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    except PermissionError:
        os.mkfifo(device)  # without root: a FIFO is refused the same way
    result = runner.invoke(
        main, ["export", "json", "--root", str(mini_project.root), "-o", str(device)]
    )
    assert result.exit_code == 1 and "not a regular file" in result.output
    assert not stat.S_ISREG(os.stat(device).st_mode)
    with pytest.raises(UnsafeWriteError, match="not a regular file"):
        write_atomic(Path("/dev/null"), "x")  # refused before anything is written


def test_writes_refuse_fifos_folders_and_symlinks_out_of_the_tree(tmp_path):
    tree, outside = tmp_path / "tree", tmp_path / "outside.txt"
    tree.mkdir()
    outside.write_text("precious", encoding="utf-8")
    os.mkfifo(tree / "pipe")
    (tree / "folder").mkdir()
    (tree / "link").symlink_to(outside)
    (tree / "subdir-link").symlink_to(tmp_path)
    for name in ("pipe", "folder", "link", "subdir-link/outside.txt", "subdir-link/new.txt"):
        with pytest.raises(UnsafeWriteError):
            write_atomic(tree / name, "x", root=tree)
        with pytest.raises(UnsafeWriteError):
            write_if_changed(tree / name, b"x", root=tree)
    assert outside.read_text(encoding="utf-8") == "precious" and not (tmp_path / "new.txt").exists()
    assert stat.S_ISFIFO(os.stat(tree / "pipe").st_mode)


def test_temporary_file_names_cannot_be_predicted(tmp_path):
    tree, outside = tmp_path / "tree", tmp_path / "outside.txt"
    tree.mkdir()
    outside.write_text("precious", encoding="utf-8")
    (tree / ".README.md.tmp").symlink_to(outside)  # the old fixed temporary name
    write_atomic(tree / "README.md", "generated\n", root=tree)
    assert (tree / "README.md").read_text(encoding="utf-8") == "generated\n"
    assert outside.read_text(encoding="utf-8") == "precious"
    assert sorted(p.name for p in tree.iterdir()) == [".README.md.tmp", "README.md"]


def test_write_keeps_a_symlink_inside_the_tree_and_the_file_mode(tmp_path):
    (tmp_path / "real.md").write_text("old", encoding="utf-8")
    (tmp_path / "real.md").chmod(0o640)
    (tmp_path / "alias.md").symlink_to("real.md")
    assert write_if_changed(tmp_path / "alias.md", b"new", root=tmp_path)
    assert (tmp_path / "alias.md").is_symlink() and (tmp_path / "real.md").read_text(
        encoding="utf-8"
    ) == "new"
    assert stat.S_IMODE((tmp_path / "real.md").stat().st_mode) == 0o640
    assert not write_if_changed(tmp_path / "alias.md", b"new", root=tmp_path)


def test_build_refuses_a_generated_file_that_links_out_of_the_checkout(
    repo_copy, tmp_path, monkeypatch
):
    from masrl.render import build as builder
    from masrl.render.build import build

    # Only the STATS.md generator: the figures are slow and not under test here.
    monkeypatch.setattr(builder, "GENERATOR_HOOKS", [("masrl.render.stats_page", "snapshot_files")])
    outside = tmp_path.parent / f"{tmp_path.name}-outside.md"
    outside.write_text("precious", encoding="utf-8")
    readme = repo_copy.root / "STATS.md"
    readme.unlink()
    readme.symlink_to(outside)
    with pytest.raises(UnsafeWriteError, match="outside"):
        build(repo_copy)
    assert outside.read_text(encoding="utf-8") == "precious"


def test_site_build_does_not_clean_a_folder_that_merely_holds_a_sitemap(mini_project, tmp_path):
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "sitemap.xml").write_text("<urlset/>", encoding="utf-8")
    (folder / "thesis.tex").write_text("keep me", encoding="utf-8")
    with pytest.raises(SiteError, match="no .masrl-site marker"):
        build_site(mini_project, output=folder, staging=tmp_path / "src")
    assert (folder / "thesis.tex").read_text(encoding="utf-8") == "keep me"
    result = runner.invoke(
        main, ["site", "build", "--root", str(mini_project.root), "-o", str(folder)]
    )
    assert result.exit_code == 1 and "refusing" in result.output


def test_sync_tree_removes_planted_symlinks_without_following_them(tmp_path):
    target, elsewhere = tmp_path / "docs", tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "keep.txt").write_text("keep", encoding="utf-8")
    sync_tree({"a.md": b"1"}, target)
    (target / "escape").symlink_to(elsewhere)
    (target / "file-link.md").symlink_to(elsewhere / "keep.txt")
    sync_tree({"a.md": b"1"}, target)
    assert (elsewhere / "keep.txt").read_text(encoding="utf-8") == "keep"
    assert sorted(p.name for p in target.iterdir()) == [".masrl-site-src", "a.md"]


def test_bib_keys_never_reach_a_path(tmp_path):
    from masrl.imports.bibtex import plan_bib_import

    project = Project(tmp_path)
    source = tmp_path / "refs.bib"
    source.write_text(
        "@article{../../taxonomy/categories, title={A Paper}, author={Doe, Jane}, year={2025}}\n",
        encoding="utf-8",
    )
    plan = plan_bib_import(source, project)
    assert [p.path.parent for p in plan.files] == [project.corpus_dir]
    assert entry_data  # the shared fixture module is importable


def test_bulk_writes_create_new_files_in_place_without_following_or_replacing(
    tmp_path, monkeypatch
):
    """write_many creates a new file directly (no temporary file and rename: an import of 100,000
    rows took twice as long), so the creation itself must refuse a name planted since the check
    and leave nothing half-written behind when writing fails."""
    from masrl import files

    outside = tmp_path / "outside.txt"
    outside.write_text("precious", encoding="utf-8")
    planted = tmp_path / "planted.yaml"
    planted.symlink_to(outside)
    with pytest.raises(files.WriteError, match="planted.yaml.*File exists"):
        files._create_new(str(planted), b"key: x\n")
    assert outside.read_text(encoding="utf-8") == "precious"

    def full_disk(descriptor, data):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(files.os, "write", full_disk)
    with pytest.raises(files.WriteError, match="new.yaml: cannot write the file .No space left"):
        files.write_many([(tmp_path / "corpus" / "new.yaml", "key: new\n")], tmp_path)
    assert not (tmp_path / "corpus" / "new.yaml").exists()

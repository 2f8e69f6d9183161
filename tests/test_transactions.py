"""All or nothing (issue 34): a command that changes several files applies all of them or none,
and a re-run repairs what a killed one left; a bad project file changes nothing at all."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import REPO_ROOT, entry_data, make_screening_project, write_entry
from masrl import files
from masrl.cli import main
from masrl.errors import InputError, WriteError
from masrl.screening.asreview_io import read_project

runner = CliRunner()
TOOLS = str(REPO_ROOT / "tools")


def tree(root: Path) -> dict[str, bytes]:
    """Every file under root but masrl's lock folder and git's, by relative path."""
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and not {".masrl", ".git"} & set(p.relative_to(root).parts)
    }


def git(root: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(root), *args], check=True, capture_output=True, text=True
    ).stdout


def committed(root: Path) -> None:
    (root / ".gitignore").write_text(".masrl/\n", encoding="utf-8")
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "start")


def test_an_error_inside_a_transaction_undoes_every_change(tmp_path):
    (tmp_path / "kept.yaml").write_text("old\n", encoding="utf-8")
    (tmp_path / "gone.yaml").write_text("still here\n", encoding="utf-8")
    before = tree(tmp_path)
    with pytest.raises(RuntimeError), files.transaction(tmp_path):
        files.write_atomic(tmp_path / "kept.yaml", "new\n", root=tmp_path)
        files.write_many([(tmp_path / "sub" / f"n{i}.yaml", "x\n") for i in range(3)], tmp_path)
        files.remove(tmp_path / "gone.yaml", root=tmp_path)
        files.write_atomic(tmp_path / "kept.yaml", "newer\n", root=tmp_path)  # recorded once
        raise RuntimeError("a later step failed")
    assert tree(tmp_path) == before
    assert not (tmp_path / ".masrl" / "journal").exists()


def test_a_committed_transaction_leaves_no_journal(tmp_path):
    with files.transaction(tmp_path):
        files.write_many([(tmp_path / "a.yaml", "a\n"), (tmp_path / "b.yaml", "b\n")], tmp_path)
    assert tree(tmp_path) == {"a.yaml": b"a\n", "b.yaml": b"b\n"}
    assert not (tmp_path / ".masrl" / "journal").exists()


def test_a_full_disk_in_the_middle_undoes_the_files_already_written(tmp_path, monkeypatch):
    (tmp_path / "corpus").mkdir()
    written = []
    real_write = os.write

    def disk_fills_up(descriptor, data):
        if len(written) == 2:
            raise OSError(28, "No space left on device")
        written.append(descriptor)
        return real_write(descriptor, data)

    with files.transaction(tmp_path):  # the journal itself is written before the disk fills
        pass
    monkeypatch.setattr(files.os, "write", disk_fills_up)
    items = [(tmp_path / "corpus" / f"e{i}.yaml", f"key: e{i}\n") for i in range(5)]
    with pytest.raises(WriteError, match=r"e2.yaml: cannot write the file \(No space left"):
        with files.transaction(tmp_path):
            files.write_many(items, tmp_path)
    monkeypatch.undo()
    assert sorted(os.listdir(tmp_path / "corpus")) == []


def papers_csv(rows: list[tuple[str, str]]) -> str:
    from masrl.exports.csv import PAPERS_HEADER

    lines = [",".join(PAPERS_HEADER)]
    for key, affiliation in rows:
        values = dict.fromkeys(PAPERS_HEADER, "")
        values.update(
            key=key,
            title=f"A Paper Called {key}",
            authors="Doe, Jane",
            affiliation=affiliation,
            year="2025",
            venue="arXiv",
            url=f"https://example.org/{key}",
        )
        lines.append(",".join(values[name] for name in PAPERS_HEADER))
    return "\n".join(lines) + "\n"


def masrl(*args: str, **env: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-c", "from masrl.cli import main; main()", *args],
        env={**os.environ, "PYTHONPATH": TOOLS, **env},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


@pytest.mark.parametrize("force", [True, False])
def test_kill_9_during_import_then_a_rerun_repairs_the_checkout(tmp_path, force):
    """The issue's case: `kill -9` during `import csv --force` left a 0-byte corpus file that a
    re-run kept. Now the killed import is rolled back by the next command, and a re-run of the
    import completes it."""
    root = tmp_path / "project"
    (root / "screening").mkdir(parents=True)
    (root / "screening" / "rounds.yaml").write_bytes(
        (REPO_ROOT / "screening" / "rounds.yaml").read_bytes()
    )
    source = tmp_path / "papers.csv"
    keys = [f"paper{i}" for i in range(20)]
    source.write_text(papers_csv([(k, "Old University") for k in keys]), encoding="utf-8")
    assert runner.invoke(main, ["import", "csv", str(source), "--root", str(root)]).exit_code == 0
    committed(root)
    before = tree(root)
    # the new version updates the 20 files (with --force) and creates 5 more
    source.write_text(
        papers_csv([(k, "New Institute") for k in [*keys, *(f"extra{i}" for i in range(5))]]),
        encoding="utf-8",
    )
    args = ["import", "csv", str(source), "--root", str(root)] + (["--force"] if force else [])
    killed = masrl(*args, MASRL_TEST_PAUSE_BEFORE_COMMIT="60")
    journal = root / ".masrl" / "journal" / "undo.jsonl"
    deadline = time.monotonic() + 60
    # every file is written when the pause starts: wait for the last new one
    while not (root / "corpus" / "extra4.yaml").exists():
        assert killed.poll() is None and time.monotonic() < deadline, killed.communicate()
        time.sleep(0.05)
    assert journal.is_file()
    os.kill(killed.pid, signal.SIGKILL)
    killed.wait()
    assert git(root, "status", "--porcelain") != ""  # the kill left the change half done

    repaired = runner.invoke(main, ["validate", "--root", str(root)])
    assert "repaired: an interrupted masrl command was rolled back" in repaired.output
    assert git(root, "status", "--porcelain") == "" and tree(root) == before
    assert not journal.parent.exists()

    rerun = masrl(*args)
    out, err = rerun.communicate(timeout=120)
    assert rerun.returncode == 0, err
    assert "papers: 5 new, " + ("20 updated" if force else "0 updated") in out
    assert "New Institute" in (root / "corpus" / "extra4.yaml").read_text(encoding="utf-8")
    assert ("New Institute" in (root / "corpus" / "paper0.yaml").read_text()) is force
    assert not journal.parent.exists()


def test_the_import_reports_nothing_as_created_when_it_cannot_write(tmp_path, monkeypatch):
    """The import printed 'created' for a file it could not create: now it writes first, and a
    full disk half-way undoes the files already written."""
    (tmp_path / "screening").mkdir()
    (tmp_path / "screening" / "rounds.yaml").write_bytes(
        (REPO_ROOT / "screening" / "rounds.yaml").read_bytes()
    )
    source = tmp_path / "papers.csv"
    source.write_text(papers_csv([(f"p{i}", "U") for i in range(5)]), encoding="utf-8")
    before = tree(tmp_path)
    real_write, calls = os.write, []

    def disk_fills_up(descriptor, data):
        calls.append(descriptor)
        if len(calls) == 3:
            raise OSError(28, "No space left on device")
        return real_write(descriptor, data)

    monkeypatch.setattr(files.os, "write", disk_fills_up)
    result = runner.invoke(main, ["import", "csv", str(source), "--root", str(tmp_path)])
    monkeypatch.undo()
    assert result.exit_code == 1 and "created" not in result.output
    assert "corpus/p2.yaml: cannot write the file (No space left on device)" in result.output
    assert "Traceback" not in result.output
    assert tree(tmp_path) == before


# -- screen import: a bad .asreview file changes nothing -------------------------------------


def asreview_file(
    path: Path,
    rows: list[tuple],
    config: object = None,
    compression: int = zipfile.ZIP_DEFLATED,
) -> Path:
    """A hand-made ASReview v3 project: rows are (masrl id, label, time) as results.db holds
    them; the data file is a masrl export naming each row's masrl id."""
    database = path.with_suffix(".db")
    database.unlink(missing_ok=True)
    connection = sqlite3.connect(database)
    connection.execute(
        "CREATE TABLE record (record_id, title, doi, url, dataset_row)"
    )  # no types: SQLite keeps what it is given, as a hostile file may
    connection.execute("CREATE TABLE results (record_id, label, time, note, user_id)")
    for number, (masrl_id, label, stamp) in enumerate(rows):
        record_id = number + 1 if masrl_id != "text-id" else "seven"
        connection.execute(
            "INSERT INTO record VALUES (?, ?, NULL, NULL, ?)",
            (record_id, f"Title of {masrl_id}", number),
        )
        connection.execute(
            "INSERT INTO results VALUES (?, ?, ?, NULL, NULL)", (record_id, label, stamp)
        )
    connection.commit()
    connection.close()
    data = "record_id,masrl_id,title\n" + "".join(
        f"{n + 1},{m},Title of {m}\n" for n, (m, _, _) in enumerate(rows)
    )
    if config is None:
        config = {"project_file_version": 3, "datasets": [{"name": "export.csv"}]}
    with zipfile.ZipFile(path, "w", compression=compression) as archive:
        archive.writestr("project.json", json.dumps(config))
        archive.writestr("data/export.csv", data)
        archive.writestr("results.db", database.read_bytes())
    database.unlink()
    return path


def damaged(path: Path, member: str) -> Path:
    """The zip with a byte of ``member``'s stored data flipped (a bad CRC or a broken stream)."""
    with zipfile.ZipFile(path) as archive:
        info = archive.getinfo(member)
    raw = bytearray(path.read_bytes())
    start = info.header_offset + 30 + len(info.filename.encode()) + len(info.extra)
    start += info.compress_size // 2
    for offset in range(start, start + 8):
        raw[offset] ^= 0x5A
    path.write_bytes(bytes(raw))
    return path


GOOD = ("2606.00002", 1, 1_780_000_000.0)  # a queue record of the screening fixture, June 2026

BAD_PROJECTS = {
    "impossible time stamp on the second row": (
        lambda p: asreview_file(p, [GOOD, ("2606.00004", 0, 1e300)]),
        "results.db: ASReview record 2: the time 1e+300 is not a possible time stamp",
    ),
    "a time in the year 2200": (
        lambda p: asreview_file(p, [GOOD, ("2606.00004", 0, 7_300_000_000)]),
        "results.db: ASReview record 2: the time 7300000000 falls in 2201",
    ),
    "a label that is text": (
        lambda p: asreview_file(p, [GOOD, ("2606.00004", "yes", None)]),
        "results.db: ASReview record 2 has the label 'yes', not 0 or 1",
    ),
    "a record id that is text": (
        lambda p: asreview_file(p, [GOOD, ("text-id", 1, None)]),
        "results.db: results row 2: record_id 'seven' is not a whole number",
    ),
    "project.json a list": (
        lambda p: asreview_file(p, [GOOD], config=[3]),
        "project.json: project.json inside the project file holds a list, not an object",
    ),
    "version a string": (
        lambda p: asreview_file(p, [GOOD], config={"project_file_version": "3"}),
        "unsupported ASReview project file version '3'",
    ),
    "datasets a number": (
        lambda p: asreview_file(p, [GOOD], config={"project_file_version": 3, "datasets": 5}),
        "project.json: 'datasets' in project.json is a int, not a list",
    ),
    "dataset name a number": (
        lambda p: asreview_file(
            p, [GOOD], config={"project_file_version": 3, "datasets": [{"name": 7}]}
        ),
        "project.json: 'datasets[0].name' in project.json is a int, not a file name",
    ),
    "a project.json of more than 10 MB": (
        lambda p: asreview_file(p, [GOOD], config={"project_file_version": 3, "pad": "x" * 10**7}),
        "project.json: project.json inside the project file is larger than 10 MB",
    ),
    "a title of more than 10,000 characters": (
        lambda p: asreview_file(p, [GOOD, ("x" * 10_000, 0, None)]),
        "results.db: ASReview record 2: the title is longer than 10,000 characters",
    ),
    "bad CRC": (
        lambda p: damaged(asreview_file(p, [GOOD], compression=zipfile.ZIP_STORED), "results.db"),
        "results.db: the member results.db is damaged (Bad CRC-32",
    ),
    "broken deflate stream": (
        lambda p: damaged(asreview_file(p, [GOOD]), "data/export.csv"),
        "data/export.csv: the member data/export.csv is damaged",
    ),
}


@pytest.fixture(scope="module")
def untouched_screening(tmp_path_factory):
    """One copy of the screening fixture, and its files as copied, for the refused imports
    below: each must change nothing, so they need not copy it each (and each fails if one
    before it left anything behind)."""
    project = make_screening_project(tmp_path_factory.mktemp("screening"))
    return project, tree(project.root)


@pytest.mark.parametrize("case", sorted(BAD_PROJECTS))
def test_a_bad_asreview_project_is_named_and_changes_nothing(untouched_screening, tmp_path, case):
    screening, as_copied = untouched_screening
    make, expected = BAD_PROJECTS[case]
    path = make(tmp_path / "lab.asreview")
    before = tree(screening.root)
    assert before == as_copied
    result = runner.invoke(
        main, ["screen", "import", str(path), "--root", str(screening.root), "--screener", "s"]
    )
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output and str(path) in result.output
    assert expected in result.output
    assert tree(screening.root) == before


def test_a_ris_data_file_is_streamed_for_its_ids(tmp_path):
    """The data file is read as a stream (it may be hundreds of megabytes): a RIS file with a
    byte-order mark and CRLF line ends still names each row's masrl id, and damage to it is
    reported, not taken for a RIS file without ids."""
    path = asreview_file(
        tmp_path / "lab.asreview",
        [GOOD],
        config={"project_file_version": 3, "datasets": [{"name": "export.ris"}]},
    )
    note = "".join(f"word{n} " for n in range(1000))  # enough stored data to damage
    ris = f"\ufeffTY  - JOUR\r\nID  - 2606.00002\r\nN1  - {note}\r\nER  - \r\n"
    with zipfile.ZipFile(path, "a") as archive:
        archive.writestr("data/export.ris", ris.encode())
    [row] = read_project(path)
    assert row.masrl_id == "2606.00002"
    with pytest.raises(InputError, match="the member data/export.ris is damaged"):
        read_project(damaged(path, "data/export.ris"))


def test_a_project_with_more_labelled_rows_than_the_cap_is_refused(tmp_path, monkeypatch):
    """Every labelled row is held until all are checked: their number is capped."""
    from masrl.screening import asreview_io

    path = asreview_file(tmp_path / "lab.asreview", [GOOD, ("2606.00004", 0, None)])
    monkeypatch.setattr(asreview_io, "MAX_LABELLED_ROWS", 2)
    assert len(read_project(path)) == 2
    monkeypatch.setattr(asreview_io, "MAX_LABELLED_ROWS", 1)
    with pytest.raises(InputError, match="more than 1 labelled records") as caught:
        read_project(path)
    assert "split the review" in caught.value.hint


def test_a_good_hand_made_project_imports(screening, tmp_path):
    """The generator above makes a project the import accepts, so the cases above fail for the
    reason they name."""
    path = asreview_file(tmp_path / "lab.asreview", [GOOD, ("2606.00004", 0, 1_780_000_000)])
    result = runner.invoke(
        main, ["screen", "import", str(path), "--root", str(screening.root), "--screener", "s"]
    )
    assert result.exit_code == 0, result.output
    assert "2 decision(s) imported" in result.output


def test_an_entry_written_by_hand_is_kept_by_a_rolled_back_import(mini_project):
    """Rollback restores the bytes that were there, comments and all, not a re-rendering."""
    path = write_entry(mini_project.root, entry_data("delta2025"))
    path.write_text("# hand comment\n" + path.read_text(encoding="utf-8"), encoding="utf-8")
    before = path.read_bytes()
    with pytest.raises(KeyboardInterrupt), files.transaction(mini_project.root):
        files.write_atomic(path, "replaced\n", root=mini_project.root)
        raise KeyboardInterrupt
    assert path.read_bytes() == before


@pytest.mark.slow
def test_kill_9_during_an_asreview_import_is_rolled_back_whole(screening, tmp_path):
    """The issue's headline case: an .asreview import stopped half-way left one decision
    applied (decision written, queue file deleted, entry created). Killed with every decision
    written, the next command undoes all of them; the import run again applies all of them."""
    root = screening.root
    path = asreview_file(tmp_path / "lab.asreview", [GOOD, ("2606.00004", 0, 1_780_000_000)])
    before = tree(root)
    args = ["screen", "import", str(path), "--root", str(root), "--screener", "s"]
    killed = masrl(*args, MASRL_TEST_PAUSE_BEFORE_COMMIT="60")
    deadline = time.monotonic() + 60
    queue = root / "screening" / "queue"
    while (queue / "2606.00004.yaml").exists() or (queue / "2606.00002.yaml").exists():
        assert killed.poll() is None and time.monotonic() < deadline, killed.communicate()
        time.sleep(0.05)
    os.kill(killed.pid, signal.SIGKILL)
    killed.wait()
    assert tree(root) != before  # both decisions were applied when the kill came

    # Any command repairs the checkout first; this reader of the queue is the one that does not
    # rank it (ranking would cost seconds and is not under test here).
    repaired = runner.invoke(main, ["screen", "export", "--root", str(root)])
    assert "repaired: an interrupted masrl command was rolled back" in repaired.output
    assert tree(root) == before

    rerun = runner.invoke(main, args)  # the killed process was real; the rerun need not be
    assert rerun.exit_code == 0, rerun.output
    assert "2 decision(s) imported" in rerun.output
    assert not (queue / "2606.00002.yaml").exists() and not (queue / "2606.00004.yaml").exists()


def test_a_running_transaction_is_not_rolled_back_by_another_command(tmp_path):
    """A reader that starts while a change is under way leaves it alone (the lock is held)."""
    with files.transaction(tmp_path):
        files.write_atomic(tmp_path / "new.yaml", "new\n", root=tmp_path)
        assert files.recover(tmp_path) == []  # another open of the lock: busy, so hands off
        assert (tmp_path / "new.yaml").read_text(encoding="utf-8") == "new\n"
    assert (tmp_path / "new.yaml").is_file()


def test_a_damaged_journal_is_named_and_nothing_is_guessed(tmp_path):
    journal = tmp_path / ".masrl" / "journal" / "undo.jsonl"
    journal.parent.mkdir(parents=True)
    journal.write_text('{"path": "a.yaml", "existed": false}\nnot json\n{"path": "b"}\n')
    (tmp_path / "a.yaml").write_text("kept\n", encoding="utf-8")
    with pytest.raises(files.InputError, match=r"undo.jsonl:2: the journal .* is damaged"):
        files.recover(tmp_path)
    assert (tmp_path / "a.yaml").read_text(encoding="utf-8") == "kept\n" and journal.is_file()


def test_a_journal_torn_in_its_last_line_rolls_back_the_rest(tmp_path):
    """A kill while a batch was being recorded tears its last line; the files of that batch
    were not touched yet, so the lines before it are enough."""
    journal = tmp_path / ".masrl" / "journal" / "undo.jsonl"
    journal.parent.mkdir(parents=True)
    journal.write_text('{"path": "a.yaml", "existed": false}\n{"path": "b.ya')
    (tmp_path / "a.yaml").write_text("half\n", encoding="utf-8")
    assert files.recover(tmp_path) == ["a.yaml"]
    assert not (tmp_path / "a.yaml").exists() and not journal.parent.exists()

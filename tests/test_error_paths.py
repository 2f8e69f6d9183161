"""One error path (issue 34): every failure to read a user's file or to write an output ends in
one message naming the file and the fix, a non-zero exit, no traceback, and nothing changed.

A read-only folder and a full disk are simulated portably (the suite may run as root, where
chmod does not stop a write): an audit hook (PEP 578) refuses, with the errno the system would
give, every write the process attempts under a chosen folder: opening for writing, mkdir,
rename, remove, rmtree.
"""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import socket
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import REPO_ROOT
from masrl.cli import main

runner = CliRunner()
EXAMPLES = REPO_ROOT / "tools" / "masrl" / "traces" / "examples"
TRACE_IMPORTS = Path(__file__).parent / "fixtures" / "traces" / "import"
_REFUSED: list[tuple[str, int]] = []  # (folder, errno) the audit hook refuses writes under
WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC
WRITE_EVENTS = {"os.mkdir", "os.rename", "os.remove", "os.rmdir", "shutil.rmtree", "os.chmod"}


def _refuse_writes(event: str, args: tuple) -> None:
    if not _REFUSED:
        return
    if event == "open":
        path, _, flags = args
        if not (flags or 0) & WRITE_FLAGS:
            return
    elif event in WRITE_EVENTS:
        path = args[0]
        if event in ("os.remove", "os.rmdir") and args[-1] not in (-1, None):
            return  # relative to a folder descriptor (rmtree): its top was checked
    else:
        return
    if not isinstance(path, str | bytes | os.PathLike):
        return
    full = os.path.abspath(os.fsdecode(path))
    for folder, code in _REFUSED:
        if full == folder or full.startswith(folder + os.sep):
            raise OSError(code, os.strerror(code), full)


sys.addaudithook(_refuse_writes)  # inert unless a test lists a folder in _REFUSED


@contextlib.contextmanager
def refused_writes(folder: Path, code: int = errno.EROFS):
    _REFUSED.append((os.path.abspath(folder), code))
    try:
        yield
    finally:
        _REFUSED.clear()


def tree(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".masrl" not in p.relative_to(root).parts
    }


def assert_refused(result, named: str) -> None:
    assert result.exit_code not in (0, None), result.output
    assert "Traceback" not in result.output, result.output
    assert named in result.output, result.output


def papers_csv(tmp_path: Path) -> Path:
    from masrl.exports.csv import PAPERS_HEADER

    values = dict.fromkeys(PAPERS_HEADER, "")
    values.update(key="fresh2025", title="A Fresh Paper", authors="Doe, Jane", year="2025")
    path = tmp_path / "in.csv"
    path.write_text(
        ",".join(PAPERS_HEADER) + "\n" + ",".join(values[n] for n in PAPERS_HEADER) + "\n",
        encoding="utf-8",
    )
    return path


def bib_file(tmp_path: Path) -> Path:
    path = tmp_path / "in.bib"
    path.write_text(
        "@article{fresh, title={A Fresh Paper}, author={Doe, Jane}, year={2025}}\n",
        encoding="utf-8",
    )
    return path


# command (given root, out folder, tmp folder) -> (args, the folder whose writes are refused)
WRITERS = {
    "import csv": lambda r, o, t: (["import", "csv", str(papers_csv(t)), "--root", r], "corpus"),
    "import bib": lambda r, o, t: (["import", "bib", str(bib_file(t)), "--root", r], "corpus"),
    "export csv -o": lambda r, o, t: (["export", "csv", "--root", r, "-o", f"{o}/x.csv"], o),
    "export bib -o": lambda r, o, t: (["export", "bib", "--root", r, "-o", f"{o}/x.bib"], o),
    "export json -o": lambda r, o, t: (["export", "json", "--root", r, "-o", f"{o}/x.json"], o),
    "stats -o": lambda r, o, t: (["stats", "--root", r, "-o", f"{o}/s.md"], o),
    "gaps -o": lambda r, o, t: (["gaps", "--root", r, "-o", f"{o}/g.md"], o),
    "flow -o": lambda r, o, t: (["flow", "--root", r, "-o", f"{o}/f.md"], o),
    "screen export -o": lambda r, o, t: (["screen", "export", "--root", r, "-o", f"{o}/q.csv"], o),
    "plots": lambda r, o, t: (["plots", "--root", r, "--only", "entries-per-year"], "figures"),
    "build": lambda r, o, t: (["build", "--root", r], "."),
    "site build -o": lambda r, o, t: (
        ["site", "build", "--root", r, "-o", f"{o}/site", "--docs-dir", f"{o}/src"],
        o,
    ),
    "snapshot freeze": lambda r, o, t: (["snapshot", "freeze", "s1", "--root", r], "snapshots"),
    "trace export -o": lambda r, o, t: (
        ["trace", "export", str(EXAMPLES / "debate.json"), "--to", "perfetto", "-o", f"{o}/p.json"],
        o,
    ),
    "trace import -o": lambda r, o, t: (
        ["trace", "import", str(TRACE_IMPORTS / "otel_genai.json"), "--from", "otel"]
        + ["-o", f"{o}/t.jsonl"],
        o,
    ),
    "trace figure -o": lambda r, o, t: (
        ["trace", "figure", str(EXAMPLES / "debate.json"), "-o", f"{o}/p.svg"],
        o,
    ),
    "trace collect -o": lambda r, o, t: (
        ["trace", "collect", str(EXAMPLES), "-o", f"{o}/set.parquet", "--jobs", "1"],
        o,
    ),
}


@pytest.mark.parametrize("code", [errno.EROFS, errno.ENOSPC, errno.EACCES])
@pytest.mark.parametrize("command", sorted(WRITERS))
def test_every_writing_command_names_a_refused_write_and_changes_nothing(
    mini_project, tmp_path_factory, command, code, monkeypatch
):
    """A read-only folder (EROFS), a full disk (ENOSPC) or a folder without write permission
    (EACCES) under each command that writes."""
    if command in ("trace collect -o",):
        pytest.importorskip("pyarrow")
    if command == "build":  # the figures are slow and not under test here (`plots` writes them)
        from masrl.render import build

        monkeypatch.setattr(
            build, "GENERATOR_HOOKS", [h for h in build.GENERATOR_HOOKS if h[1] != "figure_files"]
        )
    root = mini_project.root
    out = tmp_path_factory.mktemp("out")
    args, refused = WRITERS[command](str(root), str(out), tmp_path_factory.mktemp("in"))
    folder = Path(refused) if os.path.isabs(refused) else root / refused
    before, before_out = tree(root), tree(out)
    with refused_writes(folder, code):
        result = runner.invoke(main, args)
    assert_refused(result, str(folder))
    assert os.strerror(code) in result.output
    assert tree(root) == before and tree(out) == before_out


@pytest.mark.parametrize(
    "target", ["/proc/masrl-test.csv", "/proc/self/masrl/x.csv", "/dev/null/x.csv"]
)
def test_an_output_path_that_cannot_exist_is_named(mini_project, target):
    if not Path("/proc/self").exists():
        pytest.skip("no /proc on this system")
    result = runner.invoke(main, ["export", "csv", "--root", str(mini_project.root), "-o", target])
    assert_refused(result, target.rsplit("/", 1)[0])


@pytest.mark.parametrize("decision", ["include", "exclude"])
def test_a_decision_that_cannot_be_recorded_leaves_no_record_behind(screening, decision):
    """decide writes the record, then the decision, then removes the queue file: when the
    decision cannot be written, the record already written is undone and the queue file stays."""
    before = tree(screening.root)
    args = ["screen", decision, "2606.00002", "--root", str(screening.root), "--screener", "s"]
    if decision == "exclude":
        args += ["--reason", "no_rl_component", "--rationale", "Prompted only."]
    with refused_writes(screening.root / "screening" / "decisions", errno.ENOSPC):
        result = runner.invoke(main, args)
    assert_refused(result, "screening/decisions")
    assert tree(screening.root) == before


def deep_snapshot(project_root: Path, depth: int = 100_000) -> Path:
    path = project_root / "snapshots" / "survey-2026-05.json"
    path.parent.mkdir(exist_ok=True)
    path.write_text("[" * depth + "]" * depth, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    "args",
    [
        ["stats", "--snapshot", "survey-2026-05"],
        ["stats", "--beside", "survey-2026-05"],
        ["claims"],
        ["build"],
    ],
    ids=["stats --snapshot", "stats --beside", "claims", "build"],
)
def test_a_snapshot_nested_100000_deep_is_named(mini_project, args):
    path = deep_snapshot(mini_project.root)
    before = tree(mini_project.root)
    result = runner.invoke(main, [*args, "--root", str(mini_project.root)])
    assert_refused(result, "snapshots/survey-2026-05.json")
    assert "nested too deeply" in result.output
    assert tree(mini_project.root) == before and path.is_file()


def test_an_unexpected_error_is_one_line_unless_debug(monkeypatch, mini_project):
    from masrl.derive import stats

    def broken(*_, **__):
        raise ZeroDivisionError("a bug")

    monkeypatch.setattr(stats, "compute_stats", broken)  # imported by the command when it runs
    quiet = runner.invoke(main, ["stats", "--root", str(mini_project.root)])
    assert quiet.exit_code == 1 and "Traceback" not in quiet.output
    assert "masrl failed unexpectedly: ZeroDivisionError: a bug" in quiet.output
    assert "masrl --debug" in quiet.output
    loud = runner.invoke(main, ["--debug", "stats", "--root", str(mini_project.root)])
    assert isinstance(loud.exception, ZeroDivisionError)  # raised on, with its traceback


# -- trace sets: a damaged, missing or non-Parquet part ----------------------------------------


@pytest.fixture(scope="module")
def trace_set(tmp_path_factory) -> Path:
    pytest.importorskip("duckdb")
    from masrl.traces.collect import collect_traces

    output = tmp_path_factory.mktemp("sets") / "examples.parquet"
    collect_traces([EXAMPLES], output, jobs=1)
    return output


def _missing(part: Path) -> None:
    part.unlink()


def _not_parquet(part: Path) -> None:
    part.write_text("these are not the bytes of a Parquet file\n" * 20, encoding="utf-8")


def _truncated(part: Path) -> None:
    data = part.read_bytes()
    part.write_bytes(data[: len(data) // 2] + data[-2000:])


def _zeroed(part: Path) -> None:
    data = bytearray(part.read_bytes())
    data[4 : len(data) - 3000] = bytes(len(data) - 3004)
    part.write_bytes(bytes(data))


@pytest.mark.parametrize("damage", [_missing, _not_parquet, _truncated, _zeroed])
@pytest.mark.parametrize("query", ["stop-reasons", "SELECT count(*) FROM events"])
def test_a_damaged_trace_set_is_named_not_a_duckdb_traceback(trace_set, tmp_path, damage, query):
    broken = tmp_path / "set.parquet"
    shutil.copytree(trace_set, broken)
    damage(broken / "events" / "part-00000.parquet")
    result = runner.invoke(main, ["trace", "query", str(broken), query])
    assert_refused(result, str(broken / "events"))
    assert "write it again with `masrl trace collect`" in result.output


# -- site serve: a port taken or out of range --------------------------------------------------


@pytest.mark.parametrize("port", ["70000", "0", "-1"])
def test_site_serve_refuses_a_port_out_of_range(mini_project, port):
    result = runner.invoke(
        main, ["site", "serve", "--root", str(mini_project.root), "--port", port]
    )
    assert_refused(result, f"--port {port}")


def test_site_serve_names_a_taken_port(mini_project):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = runner.invoke(
            main, ["site", "serve", "--root", str(mini_project.root), "--port", str(port)]
        )
    assert_refused(result, f"cannot listen on 127.0.0.1:{port}")
    assert "choose another with --port" in result.output


def test_debug_is_documented_in_the_help():
    result = runner.invoke(main, ["--help"])
    assert "--debug" in result.output

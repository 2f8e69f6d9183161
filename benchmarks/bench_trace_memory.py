"""Benchmark: peak memory of the trace and ASReview commands on the worst inputs the default
caps let in, against a baseline of the same run (a bare interpreter parsing the same file).

Run:  python benchmarks/bench_trace_memory.py           (a few minutes; prints a table)
      python benchmarks/bench_trace_memory.py --quick   (small inputs, a smoke test)

Inputs, generated into a temporary directory, each as large as the default caps of
``masrl.traces.io`` allow (``DEFAULT_MAX_TRACE_BYTES`` decompressed and
``DEFAULT_MAX_TRACE_EVENTS`` events or spans a trace) or of ``masrl.screening.asreview_io``
(``MAX_PROJECT_BYTES`` unpacked):

* an OpenTelemetry export of bare spans forming one parent chain, read by
  ``masrl trace import --from otel``;
* three native traces, read by ``trace validate``, ``metrics``, ``figure`` and ``export``: the
  hierarchical run of ``bench_traces.py``, bare events (id, t, type, agent: the most events a
  byte holds), and a small trace carrying one string that fills the byte cap with an astral
  character in it (Python then stores four bytes a character);
* ASReview project files whose data file, or whose ``results.db``, fills the unpacked cap,
  or holding as many labelled records as ``MAX_LABELLED_ROWS`` allows, read by ``masrl screen import`` (on a corpus with no matching record: the command reads the
  whole project, then refuses, writing nothing; what is measured is the reading).

Each command runs once in a fresh subprocess started by the minimal launcher of
``bench_traces.py``, which reports ``resource.getrusage(RUSAGE_CHILDREN).ru_maxrss``: the peak
resident set size. The target is 1 GiB per command; the baseline is ``json.load`` of the same
trace (or a byte count of the project file) in a bare interpreter.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sqlite3
import sys
import tempfile
import zipfile
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT / "tools"))
sys.path.insert(0, str(REPO_ROOT / "benchmarks"))

from bench_traces import masrl, measure, synthetic_trace  # noqa: E402
from masrl.screening.asreview_io import MAX_LABELLED_ROWS, MAX_PROJECT_BYTES  # noqa: E402
from masrl.traces.io import DEFAULT_MAX_TRACE_BYTES, DEFAULT_MAX_TRACE_EVENTS  # noqa: E402

TARGET_MIB = 1024
NANOSECONDS = 1_000_000_000


def write_otel_chain(path: Path, spans: int, max_bytes: int) -> int:
    """One OTLP JSON request: bare spans (the most spans a byte can hold), each the child of
    the one before, as many as ``spans`` and ``max_bytes`` allow. Returns how many."""
    head, tail = '{"resourceSpans":[{"scopeSpans":[{"spans":[', "]}]}]}"
    return write_items(path, head, tail, spans, max_bytes, _otel_span)


def _otel_span(index: int) -> str:
    parent = f',"parentSpanId":"{index - 1:x}"' if index else ""
    start = 1_700_000_000 * NANOSECONDS + index * 1000
    return f'{{"traceId":"t","spanId":"{index:x}"{parent},"startTimeUnixNano":"{start}"}}'


def write_items(path: Path, head: str, tail: str, count: int, max_bytes: int, item) -> int:
    """``head``, up to ``count`` items (``item(index)``) joined by commas, ``tail``, in at most
    ``max_bytes``. Returns how many items."""
    written = len(head) + len(tail)
    with open(path, "w", encoding="utf-8") as out:
        out.write(head)
        for index in range(count):
            text = ("," if index else "") + item(index)
            if written + len(text) > max_bytes:
                return _close(out, tail, index)
            out.write(text)
            written += len(text)
        return _close(out, tail, count)


def _close(out, tail: str, count: int) -> int:
    out.write(tail)
    return count


def write_compact_trace(path: Path, events: int, max_bytes: int) -> int:
    """A valid trace of bare events (id, t, type, agent), as many as the caps allow."""
    head = '{"schema_version":"1.0","trace_id":"c","task_id":"c","events":['
    tail = '],"edges":[],"rewards":{"team":1},"costs":{"tokens":1,"wall_clock_s":1}}'
    return write_items(path, head, tail, events, max_bytes, _bare_event)


def _bare_event(index: int) -> str:
    return f'{{"id":"{index:x}","t":{index},"type":"message","agent":"a{index % 7}"}}'


def write_fat_trace(path: Path, max_bytes: int) -> None:
    """A small valid trace whose meta holds one string filling the byte cap, with one astral
    character, so Python stores the whole string at four bytes a character."""
    trace = synthetic_trace(100)
    trace["meta"] = {"note": ""}
    room = max_bytes - len(json.dumps(trace).encode()) - 8
    trace["meta"]["note"] = "\U0001f600" + "a" * room
    path.write_bytes(json.dumps(trace, ensure_ascii=False).encode())


def write_native_trace(path: Path, events: int, max_bytes: int) -> int:
    """The hierarchical run of ``bench_traces.py`` with as many events as the caps allow (it
    grows a round of 98 events at a time). Returns how many."""
    import orjson

    while True:
        trace = synthetic_trace(events - 100)
        data = orjson.dumps(trace)
        if len(data) <= max_bytes:
            path.write_bytes(data)
            return len(trace["events"])
        events = int(events * max_bytes / len(data) * 0.99)


def write_asreview(path: Path, data_bytes: int, db_bytes: int, labelled: int = 10) -> None:
    """A version 3 project: a masrl-export CSV data file of about ``data_bytes`` and a
    ``results.db`` of about ``db_bytes`` (record abstracts), with ``labelled`` labelled rows
    whose titles match nothing in any corpus."""
    with tempfile.TemporaryDirectory() as folder:
        database = Path(folder) / "results.db"
        connection = sqlite3.connect(database)
        connection.executescript(
            "CREATE TABLE record (record_id INTEGER PRIMARY KEY, title TEXT, abstract TEXT,"
            " doi TEXT, url TEXT, dataset_row INTEGER);"
            "CREATE TABLE results (record_id INTEGER, label INTEGER, time REAL, note TEXT,"
            " user_id INTEGER);"
        )
        abstract = "x" * (4000 if db_bytes > labelled * 4100 else 10)
        rows = max(labelled, db_bytes // 4100)
        connection.executemany(
            "INSERT INTO record VALUES (?, ?, ?, NULL, NULL, ?)",
            ((n, f"Unmatched benchmark title {n}", abstract, n) for n in range(rows)),
        )
        connection.executemany(
            "INSERT INTO results VALUES (?, 1, 1750000000.0, 'a note', 1)",
            ((n,) for n in range(labelled)),
        )
        connection.commit()
        connection.close()
        with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
            project = {"project_file_version": 3, "datasets": [{"name": "data.csv"}]}
            archive.writestr("project.json", json.dumps(project))
            archive.write(database, "results.db")
            with archive.open("data/data.csv", "w", force_zip64=True) as member:
                member.write(b"record_id,masrl_id,title,abstract\n")
                line = 0
                written = 0
                while written < data_bytes:
                    row = f"{line},bench-{line},Title {line},{'word ' * 80}\n".encode()
                    member.write(row)
                    written += len(row)
                    line += 1


def screening_root(folder: Path) -> Path:
    """A corpus checkout to import into: the repository's data folders, copied."""
    root = folder / "corpus-copy"
    for name in ("taxonomy", "corpus", "exclusions", "screening"):
        if (REPO_ROOT / name).is_dir():
            shutil.copytree(REPO_ROOT / name, root / name)
    return root


BASELINE = "import json, sys; json.load(open(sys.argv[1], 'rb'))"
COUNT_BYTES = "import sys; f = open(sys.argv[1], 'rb'); sum(len(c) for c in iter(lambda: f.read(1 << 20), b''))"


def mib(path: Path) -> str:
    return f"{path.stat().st_size / 2**20:.0f}"


def trace_commands(path: Path, folder: Path) -> list[tuple[str, list[str]]]:
    return [
        ("trace validate", masrl("trace", "validate", str(path), "--no-progress")),
        ("trace metrics", masrl("trace", "metrics", str(path), "--no-progress")),
        ("trace figure", masrl("trace", "figure", str(path), "-o", str(folder / "figure.png"))),
        (
            "trace export",
            masrl("trace", "export", str(path), "--to", "perfetto", "-o", str(folder / "out.json")),
        ),
    ]


def bare(code: str, path: Path) -> list[str]:
    return [sys.executable, "-S", "-c", code, str(path)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="small inputs (a smoke test)")
    parser.add_argument("--events", type=int, help="events and spans a trace (default: the cap)")
    parser.add_argument("--project-bytes", type=int, help="unpacked size of the projects")
    parser.add_argument(
        "--only",
        nargs="+",
        default=["OTel", "native", "ASReview"],
        help="cases whose label holds a word",
    )
    arguments = parser.parse_args()
    events = arguments.events or (20_000 if arguments.quick else DEFAULT_MAX_TRACE_EVENTS)
    max_bytes = 2**20 if arguments.quick else DEFAULT_MAX_TRACE_BYTES
    project_bytes = arguments.project_bytes or (8 * 2**20 if arguments.quick else MAX_PROJECT_BYTES)
    rows = []
    with tempfile.TemporaryDirectory(prefix="masrl-bench-memory-") as temporary:
        folder = Path(temporary)
        chain, native = folder / "chain.json", folder / "native.json"
        compact, fat = folder / "compact.json", folder / "fat.json"
        data_project, db_project = folder / "data.asreview", folder / "results.asreview"
        print("generating inputs ...", file=sys.stderr)
        chain_spans = write_otel_chain(chain, events, max_bytes)
        native_events = write_native_trace(native, events, max_bytes)
        compact_events = write_compact_trace(compact, events, max_bytes)
        write_fat_trace(fat, max_bytes)
        # The other members take about 1 MiB; the data file may overshoot by a row.
        write_asreview(data_project, project_bytes - 3 * 2**20, 2**20)
        write_asreview(db_project, 2**20, project_bytes - 3 * 2**20)
        rows_project = folder / "rows.asreview"
        labelled = 2_000 if arguments.quick else MAX_LABELLED_ROWS
        write_asreview(rows_project, 2**20, 0, labelled)
        root = screening_root(folder)
        cases = [
            (
                f"OTel chain, {chain_spans:,} deep ({mib(chain)} MiB)",
                bare(BASELINE, chain),
                [
                    (
                        "trace import",
                        masrl(
                            "trace",
                            "import",
                            "--from",
                            "otel",
                            str(chain),
                            "-o",
                            str(folder / "chain.jsonl"),
                        ),
                    )
                ],
            ),
            *(
                (label, bare(BASELINE, path), trace_commands(path, folder))
                for label, path in (
                    (f"native trace, {native_events:,} events ({mib(native)} MiB)", native),
                    (f"native trace, {compact_events:,} bare events ({mib(compact)} MiB)", compact),
                    (f"native trace, one {mib(fat)} MiB astral string", fat),
                )
            ),
            (
                f"ASReview, data file of {project_bytes / 2**20:.0f} MiB",
                bare(COUNT_BYTES, data_project),
                [
                    (
                        "screen import",
                        masrl("screen", "import", str(data_project), "--root", str(root)),
                    )
                ],
            ),
            (
                f"ASReview, results.db of {project_bytes / 2**20:.0f} MiB",
                bare(COUNT_BYTES, db_project),
                [
                    (
                        "screen import",
                        masrl("screen", "import", str(db_project), "--root", str(root)),
                    )
                ],
            ),
            (
                f"ASReview, {labelled:,} labelled records",
                bare(COUNT_BYTES, rows_project),
                [
                    (
                        "screen import",
                        masrl("screen", "import", str(rows_project), "--root", str(root)),
                    )
                ],
            ),
        ]
        cases = [case for case in cases if any(word in case[0] for word in arguments.only)]
        for label, baseline_command, commands in cases:
            _, baseline, _ = measure(baseline_command)
            rows.append((label, "baseline (bare parse)", baseline, 1.0, 0))
            for name, command in commands:
                _, peak, status = measure(command)
                rows.append((label, f"masrl {name}", peak, peak / baseline, status))
                print(f"  {label}: {name}: {peak:.0f} MiB, exit {status}", file=sys.stderr)
    print_table(rows)
    over = [f"{label}: {tool}" for label, tool, peak, _, _ in rows if peak > TARGET_MIB]
    print(
        f"\ntarget: every command under {TARGET_MIB} MiB; "
        + (f"over: {'; '.join(over)}" if over else "all met")
    )
    return 0


def print_table(rows) -> None:
    header = ("input", "command", "peak MiB", "vs baseline", "exit")
    cells = [
        (label, tool, f"{peak:.0f}", f"{ratio:.2f}x", str(status))
        for label, tool, peak, ratio, status in rows
    ]
    widths = [max(len(h), *(len(c[i]) for c in cells)) for i, h in enumerate(header)]
    print("| " + " | ".join(h.ljust(w) for h, w in zip(header, widths)) + " |")
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for row in cells:
        print("| " + " | ".join(c.ljust(w) for c, w in zip(row, widths)) + " |")


if __name__ == "__main__":
    sys.exit(main())

"""masrl -> ASReview LAB -> masrl with the real asreview package, bad project files, and the benchmark."""

from __future__ import annotations

import io
import os
import re
import sys
import zipfile
from contextlib import redirect_stdout
from pathlib import Path

import pytest
from conftest import NEXT_EXCLUSION_ID, REAL_AUDITED
from masrl.errors import InputError
from masrl.screening.asreview_io import export_csv, export_ris, import_project
from masrl.screening.queue import read_decisions, read_queue

# One worker imports scikit-learn, pandas and ASReview (2 s) for the screening tests, not both.
pytestmark = [pytest.mark.asreview, pytest.mark.xdist_group("screening")]

FIXTURES = Path(__file__).parent / "fixtures" / "screening"
REPO = Path(__file__).resolve().parents[1]


def require_asreview():
    try:
        import asreview  # noqa: F401
    except ImportError:
        if os.environ.get("CI") == "true":
            pytest.fail(
                "asreview is not installed but CI must run this test: pip install -e '.[dev]'"
            )
        pytest.skip("asreview is not installed (pip install 'masrl[asreview]')")


def asreview_project(
    tmp_path: Path, csv_text: str, labels: dict[str, tuple[int, str | None]]
) -> Path:
    """Load the export into a real ASReview project, label by masrl id, export the .asreview file."""
    from asreview import Project as AsreviewProject

    data = tmp_path / "export.csv"
    data.write_text(csv_text, encoding="utf-8")
    project = AsreviewProject.create(tmp_path / "lab", project_mode="oracle")
    project.add_dataset(data)
    project.label_priors()
    frame = project.db.input.get_df()
    by_row = {int(r.dataset_row): int(r.record_id) for r in frame.itertuples()}
    masrl_ids = [line.split(",")[1] for line in csv_text.splitlines()[1:]]
    with project.db as db:
        for masrl_id, (label, note) in labels.items():
            record_id = by_row[masrl_ids.index(masrl_id)]
            db.label_record(record_id, label)
            if note:
                db.update_note(record_id, note)
    out = tmp_path / "screened.asreview"
    project.export(out)
    project.close()
    return out


def snapshot(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*.yaml"))}


def test_round_trip_through_asreview_lab(screening, tmp_path):
    require_asreview()
    before = snapshot(screening.root)
    csv_text = export_csv(screening, labelled=True)
    assert csv_text == export_csv(screening, labelled=True)  # deterministic
    assert (
        csv_text.splitlines()[0]
        == "record_id,masrl_id,title,abstract,authors,doi,url,arxiv_id,keywords,included"
    )
    labels = {
        "2606.00002": (1, None),
        "2606.00006": (0, "no_rl_component: Prompted debate; nothing is trained."),
        "2606.00004": (0, None),
    }
    project_file = asreview_project(tmp_path, csv_text, labels)

    report = import_project(screening, project_file, screener="lab-team", round_id="2026-11")
    assert sorted(line.split(":")[0] for line in report.applied) == sorted(labels)
    assert len(report.agreed) == REAL_AUDITED and report.clean, report
    decisions = {d.record: d for d in read_decisions(screening)}
    assert set(decisions) == set(labels) and {d.screener for d in decisions.values()} == {
        "lab-team"
    }
    assert decisions["2606.00006"].reason_code == "no_rl_component"
    assert (
        decisions["2606.00004"].reason_code == "TODO"
    )  # ASReview records no reason: left for validate to flag
    assert {r.id for r in read_queue(screening)} == {"2606.00001", "2606.00003", "2606.00005"}
    after = snapshot(screening.root)
    changed = {k for k in before.keys() & after.keys() if before[k] != after[k]}
    assert changed == set()  # no existing record was touched
    new = sorted(after.keys() - before.keys())
    assert new == [
        "corpus/okafor2026.yaml",
        f"exclusions/E{NEXT_EXCLUSION_ID:03d}.yaml",
        f"exclusions/E{NEXT_EXCLUSION_ID + 1:03d}.yaml",
        "screening/decisions/2026-11.yaml",
    ]

    again = import_project(screening, project_file, screener="lab-team", round_id="2026-11")
    assert (
        again.applied == [] and len(again.agreed) == REAL_AUDITED + 3
    )  # a second import adds nothing


def test_round_trip_through_asreview_lab_in_ris(screening, tmp_path):
    """The same round trip with a RIS file: ASReview reads the labels from the N1 notes as priors,
    and the import maps ASReview's rows back to masrl ids through the ID tags."""
    require_asreview()
    import rispy
    from asreview import Project as AsreviewProject

    ris = export_ris(screening, labelled=True)
    assert ris == export_ris(screening, labelled=True)  # deterministic
    entries = rispy.loads(ris)
    ids = [e["id"] for e in entries]
    assert len(ids) == len(set(ids)) == len(export_csv(screening, labelled=True).splitlines()) - 1
    assert entries[0]["id"] == "2606.00001" and not any(
        n.startswith("ASReview_") for n in entries[0].get("notes", [])
    )
    assert sum("ASReview_relevant" in e.get("notes", []) for e in entries) == len(
        list((screening.root / "corpus").glob("*.yaml"))
    )
    data = tmp_path / "export.ris"
    data.write_text(ris, encoding="utf-8")
    lab = AsreviewProject.create(tmp_path / "lab", project_mode="oracle")
    lab.add_dataset(data)
    lab.label_priors()
    frame = lab.db.input.get_df()
    by_row = {int(r.dataset_row): int(r.record_id) for r in frame.itertuples()}
    with lab.db as db:
        priors = db.get_results_table()
        assert (
            len(priors) == REAL_AUDITED
        )  # masrl's decisions came along as ASReview's prior labels
        for masrl_id, label in (("2606.00002", 1), ("2606.00004", 0)):
            db.label_record(by_row[ids.index(masrl_id)], label)
        db.update_note(by_row[ids.index("2606.00004")], "single_agent: One agent only.")
    out = tmp_path / "screened.asreview"
    lab.export(out)
    lab.close()

    before = snapshot(screening.root)
    report = import_project(screening, out, screener="lab-team", round_id="2026-11")
    assert sorted(line.split(":")[0] for line in report.applied) == ["2606.00002", "2606.00004"]
    assert len(report.agreed) == REAL_AUDITED and report.clean, report
    decisions = {d.record: d for d in read_decisions(screening)}
    assert (decisions["2606.00004"].reason_code, decisions["2606.00004"].rationale) == (
        "single_agent",
        "One agent only.",
    )
    after = snapshot(screening.root)
    assert {k for k in before.keys() & after.keys() if before[k] != after[k]} == set()


def test_ris_values_stay_on_one_line():
    from masrl.screening.asreview_io import ris_entries

    row = {
        "masrl_id": "x",
        "title": "A\nTY  - JOUR",
        "abstract": "one\nER  - two",
        "authors": "Doe, J;Roe, R",
        "doi": "",
        "url": "",
        "arxiv_id": "2606.1",
        "keywords": "",
        "included": "0",
    }
    entry = ris_entries([row])[0]
    assert entry["title"] == "A TY - JOUR" and entry["abstract"] == "one ER - two"
    assert entry["notes"] == ["ASReview_irrelevant", "arXiv:2606.1"] and entry["authors"] == [
        "Doe, J",
        "Roe, R",
    ]


def test_contradiction_and_unmatched_rows_are_listed_not_written(screening, tmp_path):
    require_asreview()
    csv_text = export_csv(screening, labelled=True)
    extra = "999,,A Paper masrl Never Saw,About something else.,,,,,,\n"
    project_file = asreview_project(
        tmp_path, csv_text + extra, {"agent-lightning": (0, None), "2606.00002": (1, None)}
    )
    entry = (screening.root / "corpus" / "agent-lightning.yaml").read_bytes()
    report = import_project(screening, project_file, screener="lab")
    assert any("agent-lightning (included in masrl)" in line for line in report.contradictions)
    assert report.applied == ["2606.00002: include -> " + report.applied[0].split(" -> ")[1]]
    assert (screening.root / "corpus" / "agent-lightning.yaml").read_bytes() == entry


@pytest.mark.parametrize("kind", ["garbage", "foreign_zip", "bad_version", "empty"])
def test_corrupt_or_foreign_project_files_are_refused(screening, tmp_path, kind):
    path = tmp_path / "x.asreview"
    if kind == "garbage":
        path.write_bytes(b"\x00not a zip at all")
        expected = "not a zip archive"
    else:
        with zipfile.ZipFile(path, "w") as archive:
            if kind == "foreign_zip":
                archive.writestr("readme.txt", "hello")
                expected = "project.json or results.db is missing"
            elif kind == "bad_version":
                archive.writestr("project.json", '{"project_file_version": 99}')
                archive.writestr("results.db", b"")
                expected = "unsupported ASReview project file version 99"
            else:
                archive.writestr("project.json", '{"project_file_version": 3}')
                archive.writestr("results.db", b"garbage bytes, not sqlite")
                expected = "results.db inside the project file cannot be read"
    with pytest.raises(InputError, match=re.escape(expected)) as caught:
        import_project(screening, path)
    assert str(path) in str(caught.value)
    assert not (screening.root / "screening" / "decisions").exists()


def test_project_matching_nothing_is_refused(screening, tmp_path):
    require_asreview()
    csv_text = "title,abstract,included\nUnrelated One,x,\nUnrelated Two,y,\n"
    from asreview import Project as AsreviewProject

    (tmp_path / "other.csv").write_text(csv_text)
    project = AsreviewProject.create(tmp_path / "lab", project_mode="oracle")
    project.add_dataset(tmp_path / "other.csv")
    with project.db as db:
        db.label_record(0, 1)
    project.export(tmp_path / "other.asreview")
    project.close()
    with pytest.raises(InputError, match="none of the project's 1 labelled records matches"):
        import_project(screening, tmp_path / "other.asreview")


def test_benchmark_quick_run_gives_sane_figures():
    require_asreview()
    sys.path.insert(0, str(REPO / "benchmarks"))
    import bench_screening

    out = io.StringIO()
    with redirect_stdout(out):
        assert (
            bench_screening.main(["--quick", "--dataset", str(FIXTURES / "other_field.csv")]) == 0
        )
    lines = out.getvalue().splitlines()
    assert re.fullmatch(r"WSS@95 ratio masrl/asreview: \d+\.\d\d", lines[-1])
    rows = {
        line[:32].strip(): [
            float(x)
            for x in re.findall(r"^\s*(-?[\d.]+)", line[32:53])
            + re.findall(r"(-?[\d.]+) \[", line[53:])
        ]
        for line in lines
        if line.startswith(("random", "asreview ", "masrl"))
    }
    assert set(rows) == {
        "random",
        "asreview elas_u4 (default)",
        "asreview elas_u3 (naive Bayes)",
        "masrl",
    }
    for name, (wss, r10, r25, r50) in rows.items():
        assert 0 <= r10 <= r25 <= r50 <= 100, name
    assert abs(rows["random"][0]) < 25
    assert rows["masrl"][0] > rows["random"][0]


def test_benchmark_without_the_asreview_extra_says_so_and_runs_masrl_alone():
    """Not a traceback: one line naming the extra, then the rows that need no ASReview."""
    import subprocess

    hide = "import sys; sys.modules['asreview'] = None; sys.argv[0] = 'bench_screening.py'; "
    run = "import runpy; runpy.run_path('benchmarks/bench_screening.py', run_name='__main__')"
    result = subprocess.run(
        [
            sys.executable,
            "-c",
            hide + run,
            "--quick",
            "--dataset",
            str(FIXTURES / "other_field.csv"),
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    assert "ASReview LAB is not installed" in result.stderr and "asreview extra" in result.stderr
    methods = {
        line.split()[0]
        for line in result.stdout.splitlines()
        if line.startswith(("random", "asreview ", "masrl"))
    }
    assert methods == {"random", "masrl"}

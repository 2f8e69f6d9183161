"""Carry screening between masrl and ASReview LAB.

Export writes a CSV in the layout ASReview LAB imports: record_id, title, abstract, authors
(';'-joined, ASReview's list separator), doi, url, arxiv_id, keywords (arXiv categories),
included (1/0, empty when unscreened) and masrl_id. With labelled=True the corpus entries
(included=1) and exclusion records (included=0) ride along as prior knowledge, their text being
our summary or rationale. The same rows can be written as RIS (through `rispy`, the library
ASReview reads RIS with), for reference managers and for teams that keep their reviews in RIS:
the masrl id goes in ``ID``, a known label in an ``N1`` note as ASReview writes it
(``ASReview_relevant`` / ``ASReview_irrelevant``), every field on one line.

Import reads a project file (.asreview: a zip holding project.json, the data file as imported and
results.db, an SQLite database) with the standard library, so it works without ASReview
installed. Each labelled row is matched to masrl by its masrl_id column when the data file came
from an export, then by arXiv id or DOI, then by normalised title. Rows that match a queue record
become decisions; rows that match a record masrl already decided are checked for agreement;
contradictions and unmatched rows are reported, never dropped or written over.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import json
import re
import sqlite3
import tempfile
import zipfile
import zlib
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from masrl import files
from masrl.csvsafe import csv_text
from masrl.errors import InputError, UsageError
from masrl.model import identifiers as ids
from masrl.model.project import Project, read_records
from masrl.model.records import PLACEHOLDER
from masrl.screening.decide import Contradiction, decide
from masrl.screening.queue import QueueRecord, read_queue

EXPORT_COLUMNS = (
    "record_id",
    "masrl_id",
    "title",
    "abstract",
    "authors",
    "doi",
    "url",
    "arxiv_id",
    "keywords",
    "included",
)
MAX_PROJECT_BYTES = 500_000_000  # uncompressed; a bigger "project" is refused rather than unpacked
MAX_CONFIG_BYTES = 10_000_000  # project.json: a few kilobytes as ASReview writes it
# Every labelled row is held (checked before anything is written): about 1 KB each.
MAX_LABELLED_ROWS = 200_000
MAX_FIELD_CHARS = 10_000  # title, doi, url, note of one row; longer is refused, never cut
TEXT_COLUMNS = ("title", "doi", "url", "note")
COPY_CHUNK = 2**20
ZIP_DAMAGE = (zipfile.BadZipFile, zlib.error, EOFError)


def _clean(value) -> str:
    return value if isinstance(value, str) and value != PLACEHOLDER else ""


def export_rows(project: Project, labelled: bool = False) -> list[dict]:
    """Queue records first (ranked order is ASReview's job), then, with labelled, the decided records."""
    rows = []
    for record in read_queue(project):
        rows.append(
            {
                "masrl_id": record.id,
                "title": record.title,
                "abstract": record.abstract,
                "authors": ";".join(record.authors),
                "doi": record.identifiers.get("doi") or "",
                "url": record.url or "",
                "arxiv_id": record.arxiv_id or "",
                "keywords": ";".join(record.categories),
                "included": "",
            }
        )
    if labelled:
        for raw in read_records(project.entry_paths()):
            data = raw.data if isinstance(raw.data, dict) else {}
            identifiers = (
                data.get("identifiers") if isinstance(data.get("identifiers"), dict) else {}
            )
            urls = data.get("urls") if isinstance(data.get("urls"), list) else []
            authors = data.get("authors") if isinstance(data.get("authors"), list) else []
            rows.append(
                {
                    "masrl_id": raw.path.stem,
                    "title": _clean(data.get("title")),
                    "abstract": _clean(data.get("summary")),
                    "authors": ";".join(a for a in authors if isinstance(a, str)),
                    "doi": identifiers.get("doi") or "",
                    "url": urls[0] if urls and isinstance(urls[0], str) else "",
                    "arxiv_id": identifiers.get("arxiv") or "",
                    "keywords": "",
                    "included": "1",
                }
            )
        for raw in read_records(project.exclusion_paths()):
            data = raw.data if isinstance(raw.data, dict) else {}
            identifier = _clean(data.get("identifier"))
            arxiv = identifier.split(":", 1)[1] if identifier.lower().startswith("arxiv:") else ""
            doi = identifier.split(":", 1)[1] if identifier.lower().startswith("doi:") else ""
            rows.append(
                {
                    "masrl_id": raw.path.stem,
                    "title": _clean(data.get("title")),
                    "abstract": _clean(data.get("rationale")),
                    "authors": "",
                    "doi": doi,
                    "url": _clean(data.get("url")),
                    "arxiv_id": arxiv,
                    "keywords": "",
                    "included": "0",
                }
            )
    for number, row in enumerate(rows, start=1):
        row["record_id"] = str(number)
    return rows


def export_csv(project: Project, labelled: bool = False) -> str:
    return csv_text(EXPORT_COLUMNS, export_rows(project, labelled))


RIS_LABEL_NOTES = {"1": "ASReview_relevant", "0": "ASReview_irrelevant"}  # ASReview's own spelling


def _one_line(text: str) -> str:
    """RIS is line-based: a line break inside a value could start a tag of its own."""
    return " ".join(text.split())


def ris_entries(rows: list[dict]) -> list[dict]:
    """export_rows as rispy entries, in the same order (ASReview's dataset_row is the position)."""
    entries = []
    for row in rows:
        entry = {
            "type_of_reference": "GEN",
            "id": _one_line(row["masrl_id"]),
            "title": _one_line(row["title"]),
        }
        if row["abstract"]:
            entry["abstract"] = _one_line(row["abstract"])
        authors = [_one_line(a) for a in row["authors"].split(";") if a.strip()]
        if authors:
            entry["authors"] = authors
        if row["doi"]:
            entry["doi"] = _one_line(row["doi"])
        if row["url"]:
            entry["urls"] = [_one_line(row["url"])]
        keywords = [_one_line(k) for k in row["keywords"].split(";") if k.strip()]
        if keywords:
            entry["keywords"] = keywords
        notes = [f"arXiv:{_one_line(row['arxiv_id'])}"] if row["arxiv_id"] else []
        if row["included"] in RIS_LABEL_NOTES:
            notes.insert(0, RIS_LABEL_NOTES[row["included"]])
        if notes:
            entry["notes"] = notes
        entries.append(entry)
    return entries


def export_ris(project: Project, labelled: bool = False) -> str:
    import rispy

    return rispy.dumps(ris_entries(export_rows(project, labelled)))


# ---------------------------------------------------------------------------------------------
# Reading an ASReview project file


@dataclass(frozen=True)
class LabelledRow:
    row: int  # ASReview record_id
    title: str
    doi: str | None
    url: str | None
    masrl_id: str | None
    label: int  # 1 relevant, 0 irrelevant
    time: float | None
    note: str | None
    user: str | None
    date: dt.date | None = None  # the day of ``time`` (UTC), checked when the file is read

    @property
    def where(self) -> str:
        return f"ASReview record {self.row} '{self.title[:60]}'"


def read_project(path: Path) -> list[LabelledRow]:
    """Every labelled record of an ASReview (v2/v3) project file, in labelling order."""
    shown = str(path)
    if not path.is_file():
        raise InputError(
            "no such file", path=shown, hint="give the .asreview file exported from ASReview LAB"
        )
    try:
        archive = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError) as exc:
        raise InputError(
            "not an ASReview project file (it is not a zip archive)",
            path=shown,
            hint="export the project from ASReview LAB with 'Export project' (.asreview)",
        ) from exc
    with archive:
        names = set(archive.namelist())
        if "project.json" not in names or "results.db" not in names:
            raise InputError(
                "not an ASReview project file (project.json or results.db is missing)",
                path=shown,
                hint="export the project from ASReview LAB with 'Export project' (.asreview)",
            )
        if sum(info.file_size for info in archive.infolist()) > MAX_PROJECT_BYTES:
            raise InputError(
                "the project file unpacks to more than 500 MB; refusing to read it", path=shown
            )
        if archive.getinfo("project.json").file_size > MAX_CONFIG_BYTES:
            raise InputError(
                "project.json inside the project file is larger than 10 MB; refusing to read it",
                path=f"{shown}:project.json",
                hint="ASReview writes a project.json of a few kilobytes; export the project again",
            )
        try:
            with _member(archive, "project.json", shown) as member:
                config = json.loads(member.read())
        except (ValueError, UnicodeDecodeError, RecursionError) as exc:
            raise InputError(
                "project.json inside the project file is not valid JSON", path=shown
            ) from exc
        if not isinstance(config, dict):
            raise InputError(
                f"project.json inside the project file holds a {type(config).__name__}, not an object",
                path=f"{shown}:project.json",
                hint="export the project again from ASReview LAB",
            )
        version = config.get("project_file_version")
        if type(version) is not int or version not in (2, 3):
            raise InputError(
                f"unsupported ASReview project file version {version!r} (masrl reads versions 2 and 3)",
                path=shown,
                hint="open and re-export the project in ASReview LAB 2 or 3",
            )
        data_rows = _data_file_ids(archive, config, shown)
        with tempfile.TemporaryDirectory() as folder:
            database = Path(folder) / "results.db"
            _unpack(archive, "results.db", shown, database)
            return _labelled_rows(database, data_rows, shown)


def _unpack(archive: zipfile.ZipFile, name: str, shown: str, target: Path) -> None:
    """Copy one member to ``target`` a chunk at a time (never whole in memory)."""
    with _member(archive, name, shown) as member, open(target, "wb") as out:
        while chunk := member.read(COPY_CHUNK):
            try:
                out.write(chunk)
            except OSError as exc:  # a full or read-only temporary folder, not a damaged zip
                raise InputError(
                    f"cannot unpack {name} into a temporary file ({exc.strerror or exc})",
                    path=str(target),
                    hint="free disk space in the temporary folder (TMPDIR) and run it again",
                ) from exc


@contextmanager
def _member(archive: zipfile.ZipFile, name: str, shown: str) -> Iterator[IO[bytes]]:
    """One member, opened for streaming; a damaged archive (bad CRC, broken deflate stream,
    encryption, an unknown compression), found on opening or on any read inside the block, is
    an InputError naming the file and the member."""
    try:
        with archive.open(name) as member:
            yield member
    except (zipfile.BadZipFile, zlib.error, EOFError, OSError) as exc:
        raise InputError(
            f"the member {name} is damaged ({exc})",
            path=f"{shown}:{name}",
            hint="the file was cut short or corrupted in transfer; export the project again",
        ) from exc
    except (NotImplementedError, RuntimeError) as exc:  # unknown compression, encrypted member
        raise InputError(
            f"the member {name} cannot be unpacked ({exc})",
            path=f"{shown}:{name}",
            hint="export the project again from ASReview LAB, without encryption",
        ) from exc


def _data_file_ids(archive: zipfile.ZipFile, config: dict, shown: str) -> dict[int, str]:
    """dataset_row -> masrl_id, when the project's data file is a masrl export."""
    datasets = config.get("datasets")
    if datasets is not None and not isinstance(datasets, list):
        raise InputError(
            f"'datasets' in project.json is a {type(datasets).__name__}, not a list",
            path=f"{shown}:project.json",
            hint="export the project again from ASReview LAB",
        )
    name = datasets[0].get("name") if datasets and isinstance(datasets[0], dict) else None
    if name is not None and not isinstance(name, str):
        raise InputError(
            f"'datasets[0].name' in project.json is a {type(name).__name__}, not a file name",
            path=f"{shown}:project.json",
            hint="export the project again from ASReview LAB",
        )
    member = f"data/{name}" if name else None
    if not member or member not in archive.namelist():
        return {}
    if not name.lower().endswith((".ris", ".txt", ".csv", ".tsv", ".tab")):
        return {}
    # Streamed: the data file can be hundreds of megabytes; only its masrl ids are kept.
    ris = name.lower().endswith((".ris", ".txt"))
    with _member(archive, member, shown) as raw:
        # csv reads line ends itself; rispy reads lines with the ends translated.
        text = io.TextIOWrapper(
            raw, encoding="utf-8", errors="replace", newline=None if ris else ""
        )
        if ris:
            return _ris_ids(text)
        delimiter = "\t" if name.lower().endswith((".tsv", ".tab")) else ","
        return _csv_ids(text, delimiter, f"{shown}:{member}")


def _csv_ids(text: IO[str], delimiter: str, where: str) -> dict[int, str]:
    reader = csv.DictReader(text, delimiter=delimiter)
    try:
        if "masrl_id" not in (reader.fieldnames or []):
            return {}
        return {
            row: (record.get("masrl_id") or "").strip()
            for row, record in enumerate(reader)
            if (record.get("masrl_id") or "").strip()
        }
    except csv.Error as exc:
        raise InputError(
            f"the data file cannot be read as CSV ({exc})",
            path=where,
            line=reader.line_num,
            hint="export the project again from ASReview LAB",
        ) from exc


def _ris_ids(text: IO[str]) -> dict[int, str]:
    """dataset_row -> masrl_id from a RIS data file (its ID tags), read as ASReview reads it:
    by rispy, given only the lines that open, close or identify a record (with the ID's
    continuation lines), so a data file of hundreds of megabytes is not held as records."""
    import rispy

    parser = rispy.RisParser(skip_unknown_tags=True)
    try:
        entries = parser.parse_lines(_record_id_lines(text, parser))
    except ZIP_DAMAGE:  # the member, not its RIS: reported by _member
        raise
    except Exception:  # noqa: BLE001  (a RIS file rispy cannot read: match by identifiers and titles)
        return {}
    return {
        row: entry["id"].strip()
        for row, entry in enumerate(entries)
        if isinstance(entry.get("id"), str) and entry["id"].strip()
    }


RIS_RECORD_TAGS = frozenset({"TY", "ID", "ER"})  # start, masrl id, end


def _record_id_lines(lines: Iterable[str], parser) -> Iterator[str]:
    keep = False
    for number, line in enumerate(lines):
        if number == 0:
            line = line.lstrip("\ufeff")  # rispy drops a byte-order mark the same way
        if parser.is_tag(line):
            keep = parser.get_tag(line) in RIS_RECORD_TAGS
        if keep:
            yield line


def _capped(column: str) -> str:
    """SQL for a text column read no longer than one character past the limit (so one huge
    value is refused without being read whole); other types as they are, for the type check."""
    return (
        f"CASE WHEN typeof({column}) IN ('text', 'blob') "
        f"THEN substr({column}, 1, {MAX_FIELD_CHARS + 1}) ELSE {column} END"
    )


def _labelled_rows(database: Path, data_rows: dict[int, str], shown: str) -> list[LabelledRow]:
    try:
        connection = sqlite3.connect(f"file:{database}?mode=ro", uri=True)
        try:
            rows = connection.execute(
                f"SELECT res.record_id, {_capped('rec.title')}, {_capped('rec.doi')}, "
                f"{_capped('rec.url')}, rec.dataset_row, res.label, res.time, "
                f"{_capped('res.note')}, res.user_id "
                "FROM results AS res JOIN record AS rec ON rec.record_id = res.record_id "
                "WHERE res.label IS NOT NULL ORDER BY res.rowid"
            ).fetchmany(MAX_LABELLED_ROWS + 1)
        finally:
            connection.close()
    except sqlite3.DatabaseError as exc:
        raise InputError(
            f"results.db inside the project file cannot be read ({exc})",
            path=shown,
            hint="the file is damaged or from an ASReview version masrl does not read; re-export it",
        ) from exc
    # Every row is checked here, before anything is matched or written: a bad value names its row.
    result = []
    where = f"{shown}:results.db"
    if len(rows) > MAX_LABELLED_ROWS:
        raise InputError(
            f"the project holds more than {MAX_LABELLED_ROWS:,} labelled records, "
            "more than masrl imports at once",
            path=where,
            hint="split the review into several ASReview projects and import each",
        )
    for number, (record_id, title, doi, url, dataset_row, label, time, note, user) in enumerate(
        rows, start=1
    ):
        fix = "the database was edited or damaged; export the project again from ASReview LAB"
        if type(record_id) is not int:
            raise InputError(
                f"results row {number}: record_id {record_id!r} is not a whole number",
                path=where,
                hint=fix,
            )
        if label not in (0, 1) or type(label) is float:
            raise InputError(
                f"ASReview record {record_id} has the label {label!r}, not 0 or 1",
                path=where,
                hint=fix,
            )
        for column, value in zip(TEXT_COLUMNS, (title, doi, url, note), strict=True):
            if value is not None and not isinstance(value, str):
                raise InputError(
                    f"ASReview record {record_id}: the {column} is a {type(value).__name__}, not text",
                    path=where,
                    hint=fix,
                )
            if value is not None and len(value) > MAX_FIELD_CHARS:
                raise InputError(
                    f"ASReview record {record_id}: the {column} is longer than "
                    f"{MAX_FIELD_CHARS:,} characters",
                    path=where,
                    hint=fix,
                )
        day = _day(time, record_id, where) if time else None  # 0: ASReview wrote no time
        result.append(
            LabelledRow(
                record_id,
                title or "",
                doi or None,
                url or None,
                data_rows.get(dataset_row) if isinstance(dataset_row, int) else None,
                int(label),
                float(time) if time is not None else None,
                note or None,
                str(user) if user is not None else None,
                day,
            )
        )
    return result


def _day(time, record_id: int, where: str) -> dt.date:
    """The UTC day of a labelling time (seconds since 1970, as ASReview stores it)."""
    try:
        if isinstance(time, bool) or not isinstance(time, int | float | str):
            raise TypeError
        day = dt.datetime.fromtimestamp(float(time), dt.UTC).date()
    except (TypeError, ValueError, OverflowError, OSError) as exc:
        raise InputError(
            f"ASReview record {record_id}: the time {time!r} is not a possible time stamp",
            path=where,
            hint="the database was edited or damaged; export the project again from ASReview LAB",
        ) from exc
    if not 1990 <= day.year <= dt.date.today().year + 1:
        raise InputError(
            f"ASReview record {record_id}: the time {time!r} falls in {day.year}",
            path=where,
            hint="the clock of the labelling machine was wrong, or the database was edited",
        )
    return day


# ---------------------------------------------------------------------------------------------
# Matching and importing


@dataclass
class ImportReport:
    applied: list[str] = field(default_factory=list)  # 'queue id: include'
    agreed: list[str] = field(default_factory=list)  # already decided the same way in masrl
    contradictions: list[str] = field(default_factory=list)
    unmatched: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)  # matched but refused (e.g. duplicate)

    @property
    def clean(self) -> bool:
        return not (self.contradictions or self.unmatched or self.problems)


@dataclass(frozen=True)
class _Known:
    name: str
    kind: str  # queue | include | exclude
    identities: frozenset[str]
    title_key: str


def _known(project: Project, queue: list[QueueRecord]) -> list[_Known]:
    known = [
        _Known(
            r.id,
            "queue",
            frozenset(ids.normalized_keys(r.identifiers, None, [r.url] if r.url else [])),
            ids.normalize_title(r.title),
        )
        for r in queue
    ]
    for kind, paths in (("include", project.entry_paths()), ("exclude", project.exclusion_paths())):
        for raw in read_records(paths):
            data = raw.data if isinstance(raw.data, dict) else {}
            urls = data.get("urls") if isinstance(data.get("urls"), list) else [data.get("url")]
            identifiers = (
                data.get("identifiers") if isinstance(data.get("identifiers"), dict) else None
            )
            identifier = data.get("identifier") if isinstance(data.get("identifier"), str) else None
            known.append(
                _Known(
                    raw.path.stem,
                    kind,
                    frozenset(ids.normalized_keys(identifiers, identifier, urls)),
                    ids.normalize_title(
                        data.get("title") if isinstance(data.get("title"), str) else ""
                    ),
                )
            )
    return known


def _match(row: LabelledRow, known: list[_Known]) -> _Known | None:
    if row.masrl_id:
        for item in known:
            if item.name == row.masrl_id:
                return item
    identities = ids.normalized_keys(
        {"doi": row.doi.removeprefix("https://doi.org/")} if row.doi else None,
        None,
        [row.url] if row.url else [],
    )
    for item in known:
        if identities & item.identities:
            return item
    title = ids.normalize_title(row.title)
    if title:
        for item in known:
            if item.title_key and ids.same_title(title, item.title_key):
                return item
    return None


NOTE_REASON = re.compile(r"^\s*(?P<code>[a-z_]+)\s*:\s*(?P<rationale>.+)$", re.DOTALL)


def import_project(
    project: Project, path: Path, screener: str | None = None, round_id: str | None = None
) -> ImportReport:
    """Turn an ASReview project's labels into masrl decisions; see the module docstring."""
    rows = read_project(path)
    if not rows:
        raise InputError("the project holds no labelled records; nothing to import", path=str(path))
    queue = read_queue(project)
    by_id = {r.id: r for r in queue}
    known = _known(project, queue)
    reasons = project.taxonomy()["exclusion_reasons"].ids
    matches = [(row, _match(row, known)) for row in rows]
    if all(item is None for _, item in matches):
        raise InputError(
            f"none of the project's {len(rows)} labelled records matches a queue, corpus or exclusion record",
            path=str(path),
            hint="is it the project exported from this corpus's queue? nothing was written",
        )
    # Every decision of the project or none: an error on any row undoes the rows before it.
    with files.transaction(project.root):
        report = ImportReport()
        decided_here: dict[str, int] = {}
        for row, item in matches:
            wanted = "include" if row.label == 1 else "exclude"
            if item is None:
                report.unmatched.append(
                    f"{row.where}: no queue, corpus or exclusion record with its id or title"
                )
                continue
            if item.kind != "queue":
                (report.agreed if item.kind == wanted else report.contradictions).append(
                    f"{row.where} ({wanted}) vs {item.name} ({item.kind}d in masrl)"
                    if item.kind != wanted
                    else f"{item.name}: {wanted}"
                )
                continue
            if (
                item.name in decided_here
            ):  # ASReview groups duplicates; the first label of a record wins
                if decided_here[item.name] != row.label:
                    report.contradictions.append(
                        f"{row.where}: labelled both ways in the project for {item.name}"
                    )
                continue
            decided_here[item.name] = row.label
            who = screener or (f"asreview-user-{row.user}" if row.user else "asreview")
            date = row.date
            reason, rationale, unreviewed = None, None, False
            if wanted == "exclude":
                match = NOTE_REASON.match(row.note or "")
                if match and match["code"] in reasons:
                    reason, rationale = match["code"], " ".join(match["rationale"].split())
                else:  # ASReview records no reason: written as TODO, which validate lists until filled
                    reason, rationale, unreviewed = (
                        PLACEHOLDER,
                        " ".join((row.note or "").split()) or PLACEHOLDER,
                        True,
                    )
            try:
                result = decide(
                    project,
                    item.name,
                    wanted,
                    who,
                    round_id=round_id,
                    reason_code=reason,
                    rationale=rationale,
                    today=date,
                    record=by_id[item.name],
                    reason_to_fill=unreviewed,
                )
            except Contradiction as exc:
                report.contradictions.append(f"{row.where}: {exc}")
                continue
            except (InputError, UsageError) as exc:
                report.problems.append(f"{row.where}: {exc}")
                continue
            report.applied.append(
                f"{item.name}: {wanted}"
                + (f" -> {project.relative(result.written)}" if result.written else "")
            )
    return report

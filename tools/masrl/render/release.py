"""Versioned, citable releases of the dataset: `releases/<version>/`, one per closed round.

A release is the corpus as it stood when a round closed, in every format a reader may want (JSON,
the survey's CSV layout and masrl's, Parquet, BibTeX, the screening log), the round's flow and
agreement, the changes since the previous release (added, removed and re-tagged records), a
Frictionless `datapackage.json` describing every file, and `SHA256SUMS`. Version `2026.12` is
round `2026-12`. Every byte follows from the data and the round's date (no clock is read), so a
release written twice from the same data is identical.

`CITATION.cff` and `.zenodo.json` carry the newest release's version and date; `citation_files`
is a generator hook, so `masrl check` fails when they lag behind `releases/`.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import re
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from masrl.check.snapshot import PUBLISHED_SNAPSHOT, published_snapshot
from masrl.derive.flow import RoundFlow, compute_flow
from masrl.errors import InputError, UsageError
from masrl.exports.bibtex import export_bibtex
from masrl.exports.csv import (
    exclusions_csv,
    field_value,
    masrl_csv,
    masrl_header,
    papers_csv,
    plain_value,
)
from masrl.exports.json import corpus_document
from masrl.files import write_atomic
from masrl.model import yamlio
from masrl.model.project import Corpus, Project
from masrl.model.records import entry_specs
from masrl.render.agreement import render_json as agreement_json
from masrl.screening.agreement import project_agreement
from masrl.screening.rounds import load_rounds

RELEASES_DIR = Path("releases")
VERSION = re.compile(r"^(?P<year>\d{4})\.(?P<month>0[1-9]|1[0-2])$")
CHECKSUMS = "SHA256SUMS"
PACKAGE = "datapackage.json"
CHANGES = "changes.json"
DATA_LICENSE = {
    "name": "CC0-1.0",
    "path": "https://creativecommons.org/publicdomain/zero/1.0/",
    "title": "Creative Commons Zero v1.0 Universal",
}
# (file, resource name, format, media type, what it holds); CSV resources get a table schema.
RELEASE_FILES = (
    ("corpus.json", "corpus", "json", "application/json", "Every entry and exclusion record, and the vocabularies"),
    ("entries.csv", "entries", "csv", "text/csv", "Entries in masrl's layout: every field under its name, lists as JSON (`masrl export csv --kind masrl`)"),
    ("entries-survey-layout.csv", "entries-survey-layout", "csv", "text/csv", "Entries in the survey artifact's layout, masrl's fields after its columns (`masrl export csv`)"),
    ("exclusions.csv", "exclusions", "csv", "text/csv", "The screening log of excluded records (survey layout)"),
    ("entries.parquet", "entries-parquet", "parquet", "application/vnd.apache.parquet", "Entries as Parquet: masrl's columns, lists as lists"),
    ("entries.bib", "bibtex", "bib", "application/x-bibtex", "BibTeX of every entry"),
    ("flow.json", "flow", "json", "application/json", "The round's screening flow: identified, screened, excluded, included"),
    ("agreement.json", "agreement", "json", "application/json", "The round's agreement between screeners, per field"),
    (CHANGES, "changes", "json", "application/json", "Records added, removed and re-tagged since the previous release"),
)  # fmt: skip


@dataclass(frozen=True)
class Release:
    version: str
    round: str
    date: str  # the round's closing date
    path: Path
    entries: int
    exclusions: int
    changes: dict[str, Any]


def round_of(version: str) -> str:
    """`2026.12` -> `2026-12`, the round the release closes; a UsageError for any other shape."""
    match = VERSION.match(version or "")
    if not match:
        raise UsageError(
            f"'{version}' is not a release version",
            hint="write YEAR.MONTH of the round it closes, e.g. 2026.12 for round 2026-12",
        )
    return f"{match['year']}-{match['month']}"


def _closed_round(project: Project, version: str):
    round_id = round_of(version)
    rounds = {r.id: r for r in load_rounds(project)}
    if round_id not in rounds:
        raise InputError(
            f"release {version} closes round {round_id}, which screening/rounds.yaml does not have",
            path="screening/rounds.yaml",
            hint=f"known rounds: {', '.join(rounds)}",
        )
    return rounds[round_id]


def _json(data: Any) -> bytes:
    return (json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n").encode("utf-8")


def _flow_data(flow: RoundFlow | None) -> dict:
    if flow is None:
        return {}
    data = asdict(flow)
    data["excluded"] = [
        {"stage": stage, "reason": reason, "records": n}
        for (stage, reason), n in sorted(flow.excluded.items())
    ]
    return data


def _parquet(corpus: Corpus) -> bytes:
    """Entries with typed columns: tag lists as lists of strings, structured fields as JSON text."""
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError as exc:
        raise UsageError(
            "writing a release's Parquet file needs pyarrow",
            hint="install masrl with the sets extra: scripts/sync.sh sets dev",
        ) from exc

    # masrl's CSV layout (every model field, derived fields after their source), typed.
    kinds = {s.name: s.kind for s in entry_specs(corpus.taxonomy)}
    entries = sorted(corpus.entries, key=lambda e: e.key)
    columns: dict[str, pa.Array] = {}
    for name in masrl_header(corpus.taxonomy):
        kind = kinds.get(name, "tags")  # a derived column is a list of ids
        values = [field_value(e, name, corpus.taxonomy) for e in entries]
        if kind in ("tags", "urls", "authors"):
            columns[name] = pa.array([list(v) for v in values], pa.list_(pa.string()))
        elif kind == "int":
            columns[name] = pa.array(values, pa.int64())
        elif kind == "bool":
            columns[name] = pa.array(values, pa.bool_())
        elif kind in ("identifiers", "evidence", "corrections", "links"):
            columns[name] = pa.array(
                [
                    json.dumps(plain_value(v), sort_keys=True, ensure_ascii=False) if v else None
                    for v in values
                ],
                pa.string(),
            )
        else:
            columns[name] = pa.array([None if v is None else str(v) for v in values], pa.string())
    buffer = io.BytesIO()
    # No statistics or page index: the bytes depend on the data alone.
    pq.write_table(pa.table(columns), buffer, compression="zstd", write_statistics=False)
    return buffer.getvalue()


def _tag_fields(corpus: Corpus) -> list[str]:
    return [s.name for s in entry_specs(corpus.taxonomy) if s.axis]


def changes_between(previous: dict | None, current: dict, tag_fields: list[str]) -> dict:
    """Entries added, removed and re-tagged (with the fields that changed) between two corpus.json."""
    now = {e["key"]: e for e in current["entries"]}
    if previous is None:
        return {"previous": None, "added": sorted(now), "removed": [], "retagged": []}
    before = {e["key"]: e for e in previous["corpus"]["entries"]}
    retagged = []
    for key in sorted(set(now) & set(before)):
        fields = [f for f in tag_fields if now[key].get(f) != before[key].get(f)]
        if fields:
            retagged.append({"key": key, "fields": fields})
    return {
        "previous": previous["version"],
        "added": sorted(set(now) - set(before)),
        "removed": sorted(set(before) - set(now)),
        "retagged": retagged,
    }


def _schema(header: str) -> dict:
    names = next(csv.reader([header]))
    return {
        "fields": [{"name": n, "type": "integer" if n == "year" else "string"} for n in names],
        "missingValues": [""],
    }


def _package(version: str, round_, files: dict[str, bytes], counts: dict[str, int]) -> dict:
    resources = []
    for name, resource, fmt, mediatype, description in RELEASE_FILES:
        content = files[name]
        item = {
            "name": resource,
            "path": name,
            "format": fmt,
            "mediatype": mediatype,
            "encoding": "utf-8",
            "bytes": len(content),
            "hash": f"sha256:{hashlib.sha256(content).hexdigest()}",
            "description": description,
        }
        if fmt == "csv":
            item["type"] = "table"
            item["profile"] = "tabular-data-resource"
            item["schema"] = _schema(content.decode("utf-8").split("\n", 1)[0])
            item["dialect"] = {"delimiter": ",", "lineTerminator": "\n"}
        else:  # checked by size and hash; their shapes are masrl's own (or binary)
            item["type"] = "file"
            if fmt == "parquet":
                item.pop("encoding")
        resources.append(item)
    return {
        "profile": "data-package",
        "name": "masrl",
        "id": f"masrl-{version}",
        "title": "masrl: reinforcement learning in LLM-based multi-agent systems, a curated corpus",
        "description": (
            f"Release {version}: the corpus as it stood when screening round {round_.id} closed "
            f"on {round_.date} ({counts['entries']} entries, {counts['exclusions']} excluded records)."
        ),
        "version": version,
        "created": f"{round_.date}T00:00:00Z",
        "licenses": [DATA_LICENSE],
        "keywords": ["reinforcement learning", "multi-agent systems", "large language models"],
        "masrl": {"round": round_.id, "round_date": round_.date, **counts},
        "resources": resources,
    }


def release_files(corpus: Corpus, version: str) -> dict[str, bytes]:
    """Every file of the release, by name; the same bytes for the same data."""
    project = corpus.project
    round_ = _closed_round(project, version)
    document = corpus_document(corpus)
    flows = {f.round: f for f in compute_flow(corpus).rounds}
    previous = _previous_release(project, version)
    files = {
        "corpus.json": _json(document),
        "entries.csv": masrl_csv(corpus.entries, corpus.taxonomy).encode("utf-8"),
        "entries-survey-layout.csv": papers_csv(corpus.entries, corpus.taxonomy).encode("utf-8"),
        "exclusions.csv": exclusions_csv(corpus.exclusions, corpus.taxonomy).encode("utf-8"),
        "entries.parquet": _parquet(corpus),
        "entries.bib": export_bibtex(sorted(corpus.entries, key=lambda e: e.key)).encode("utf-8"),
        "flow.json": _json(_flow_data(flows.get(round_.id))),
        "agreement.json": agreement_json(project_agreement(project, round_id=round_.id)).encode(
            "utf-8"
        ),
        CHANGES: _json(changes_between(previous, document, _tag_fields(corpus))),
    }
    counts = {"entries": len(corpus.entries), "exclusions": len(corpus.exclusions)}
    files[PACKAGE] = _json(_package(version, round_, files, counts))
    files[CHECKSUMS] = "".join(
        f"{hashlib.sha256(content).hexdigest()}  {name}\n"
        for name, content in sorted(files.items())
    ).encode("utf-8")
    return files


def _previous_release(project: Project, version: str) -> dict | None:
    """The newest release before this one (else the published snapshot): its name and corpus."""
    earlier = [r for r in list_releases(project) if r.version < version]
    if not earlier:
        # The first release is compared with the corpus as the survey published it.
        snapshot = published_snapshot(project)
        if snapshot is None:
            return None
        return {"version": PUBLISHED_SNAPSHOT, "corpus": corpus_document(snapshot)}
    newest = earlier[-1]
    corpus = json.loads((newest.path / "corpus.json").read_text(encoding="utf-8"))
    return {"version": newest.version, "corpus": corpus}


def write_release(corpus: Corpus, version: str, force: bool = False) -> tuple[Path, list[str]]:
    """Write `releases/<version>/` (its folder and file names); an existing release with the
    same bytes is kept, one with other data is refused unless ``force``."""
    folder = corpus.project.root / RELEASES_DIR / version
    files = release_files(corpus, version)
    if folder.exists() and not force:
        same = all(
            (folder / n).is_file() and (folder / n).read_bytes() == c for n, c in files.items()
        )
        if same:
            return folder, sorted(files)
        raise UsageError(
            f"release {version} exists already, with other data",
            path=folder.relative_to(corpus.project.root),
            hint="a published release is never rewritten; cut the next round's release, "
            "or pass --force to correct this one before it is published",
        )
    for name, content in files.items():
        write_atomic(folder / name, content)
    return folder, sorted(files)


def list_releases(project: Project) -> list[Release]:
    """Every release under releases/, oldest first, from its datapackage.json and changes.json."""
    found = []
    base = project.root / RELEASES_DIR
    for folder in sorted(base.iterdir()) if base.is_dir() else []:
        package_path = folder / PACKAGE
        if not VERSION.match(folder.name) or not package_path.is_file():
            continue
        try:
            package = json.loads(package_path.read_text(encoding="utf-8"))
            changes = json.loads((folder / CHANGES).read_text(encoding="utf-8"))
            info = package["masrl"]
            found.append(
                Release(
                    folder.name,
                    info["round"],
                    info["round_date"],
                    folder,
                    info["entries"],
                    info["exclusions"],
                    changes,
                )
            )
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise InputError(
                f"unreadable release ({exc})",
                path=package_path.relative_to(project.root),
                hint=f"write it again with `masrl release {folder.name} --force`",
            ) from exc
    return found


def verify_release(folder: Path) -> list[str]:
    """The files whose SHA-256 differs from SHA256SUMS (empty when the release is intact)."""
    sums = folder / CHECKSUMS
    if not sums.is_file():
        return [CHECKSUMS]
    wrong = []
    for line in sums.read_text(encoding="utf-8").splitlines():
        digest, _, name = line.partition("  ")
        path = folder / name
        if (
            not name
            or "/" in name
            or not path.is_file()
            or hashlib.sha256(path.read_bytes()).hexdigest() != digest
        ):
            wrong.append(name or CHECKSUMS)
    return wrong


# ---------------------------------------------------------------------------------------------
# CITATION.cff and .zenodo.json carry the newest release


CITATION = "CITATION.cff"
ZENODO = ".zenodo.json"


def _with_release(text: str, release: Release) -> str:
    """CITATION.cff with `version` and `date-released` of the release; the rest kept as written."""
    text = re.sub(r"(?m)^version: .*$", f"version: '{release.version}'", text, count=1)
    if re.search(r"(?m)^date-released: ", text):
        return re.sub(r"(?m)^date-released: .*$", f"date-released: '{release.date}'", text, count=1)
    return re.sub(r"(?m)^(version: .*)$", rf"\1\ndate-released: '{release.date}'", text, count=1)


def zenodo_metadata(citation: dict, release: Release | None) -> dict:
    """Zenodo's deposit metadata for a GitHub release, from CITATION.cff and the release."""
    creators = [
        {"name": a.get("name") or f"{a.get('family-names', '')}, {a.get('given-names', '')}"}
        for a in citation.get("authors", [])
        if isinstance(a, dict)
    ]
    data = {
        "title": citation.get("title", "masrl"),
        "description": " ".join(str(citation.get("abstract", "")).split()),
        "upload_type": "dataset",
        "creators": creators,
        "keywords": list(citation.get("keywords", [])),
        "license": "cc0-1.0",
        "notes": "Data (corpus/, exclusions/, taxonomy/) CC0-1.0; code MIT.",
    }
    preferred = citation.get("preferred-citation") or {}
    if preferred.get("doi"):
        data["related_identifiers"] = [
            {"identifier": preferred["doi"], "relation": "isSupplementTo", "scheme": "doi"}
        ]
    if release is not None:
        data["version"] = release.version
        data["publication_date"] = release.date
    return data


def citation_files(corpus: Corpus) -> dict[str, bytes]:
    """Generator hook: CITATION.cff and .zenodo.json with the newest release (none: left alone)."""
    root = corpus.project.root
    path = root / CITATION
    if not path.is_file():
        return {}
    releases = list_releases(corpus.project)
    newest = releases[-1] if releases else None
    text = path.read_text(encoding="utf-8")
    if newest is not None:
        text = _with_release(text, newest)
    citation = yamlio.loads(text)
    if not isinstance(citation, dict):
        raise InputError("expected a mapping", path=CITATION)
    return {
        CITATION: text.encode("utf-8"),
        ZENODO: _json(zenodo_metadata(citation, newest)),
    }

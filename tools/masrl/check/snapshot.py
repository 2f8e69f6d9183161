"""Frozen snapshots: the corpus as published, tags and vocabularies included.

`masrl snapshot freeze NAME` writes ``snapshots/NAME.json`` once; later corrections and new
records in the live corpus never rewrite it. Loading a snapshot gives a ``Corpus`` that every
derived report (stats, gaps, claims, exports) accepts, so ``--snapshot NAME`` reproduces the
published numbers byte for byte. A digest over the content catches a snapshot edited by hand.
"""

from __future__ import annotations

import hashlib
import json
import re
import tempfile
from dataclasses import replace
from pathlib import Path

from masrl.check.validate import load_corpus
from masrl.errors import InputError, UnsafeWriteError, UsageError
from masrl.files import write_atomic
from masrl.model.project import Corpus, Project
from masrl.model.records import entry_from_data, exclusion_from_data
from masrl.model.taxonomy import load_taxonomy

SNAPSHOT_DIR = Path("snapshots")
# The survey as published: the snapshot every live report is compared with.
PUBLISHED_SNAPSHOT = "survey-2026-05"
FORMAT = "masrl-snapshot/1"
NAME_PATTERN = re.compile(r"^[a-z0-9][a-z0-9.-]{0,63}$")
# Every vocabulary file of the registry (and rules.yaml) is frozen with the records.
TAXONOMY_FILE = re.compile(r"^[a-z0-9_]+\.yaml$")


def snapshot_path(project: Project, name: str) -> Path:
    if not isinstance(name, str) or not NAME_PATTERN.match(name) or ".." in name:
        raise UsageError(
            f"snapshot name {name!r} may hold only lower-case letters, digits, dots and dashes",
            hint="e.g. survey-2026-05",
        )
    return project.root / SNAPSHOT_DIR / f"{name}.json"


def _digest(content: dict) -> str:
    canonical = json.dumps(content, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def snapshot_content(corpus: Corpus, name: str) -> dict:
    taxonomy_dir = corpus.taxonomy.directory
    names = sorted(
        p.name for p in taxonomy_dir.glob("*.yaml") if TAXONOMY_FILE.match(p.name) and p.is_file()
    )
    taxonomy = {name: (taxonomy_dir / name).read_text(encoding="utf-8") for name in names}
    content = {
        "format": FORMAT,
        "name": name,
        "taxonomy": taxonomy,
        "entries": [e.to_data() for e in sorted(corpus.entries, key=lambda e: e.key)],
        "exclusions": [x.to_data() for x in sorted(corpus.exclusions, key=lambda x: x.record_id)],
    }
    return {**content, "sha256": _digest(content)}


def render_snapshot(corpus: Corpus, name: str) -> str:
    return json.dumps(snapshot_content(corpus, name), indent=1, ensure_ascii=False) + "\n"


def freeze(project: Project, name: str, force: bool = False) -> Path:
    """Write snapshots/<name>.json from the validated live corpus; refuse to overwrite unless force."""
    path = snapshot_path(project, name)
    if path.exists() and not force:
        raise UnsafeWriteError(
            f"snapshot '{name}' already exists and is never overwritten",
            path=project.relative(path),
            hint="pass --force only to correct a snapshot on purpose",
        )
    write_atomic(path, render_snapshot(load_corpus(project), name))
    return path


def known_snapshots(project: Project) -> list[str]:
    folder = project.root / SNAPSHOT_DIR
    return sorted(p.stem for p in folder.glob("*.json")) if folder.is_dir() else []


def load_snapshot(project: Project, name: str) -> Corpus:
    """The corpus frozen under ``name``; InputError (file + fix) for a missing or damaged snapshot."""
    path = snapshot_path(project, name)
    rel = project.relative(path)
    if not path.is_file():
        known = ", ".join(known_snapshots(project)) or "none"
        raise InputError(
            f"no snapshot named '{name}' (known: {known})",
            path=rel,
            hint=f"freeze one with `masrl snapshot freeze {name}`",
        )
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        line = getattr(exc, "lineno", None)
        raise InputError(
            f"the snapshot is not valid JSON ({getattr(exc, 'msg', exc)})",
            path=rel,
            line=line,
            hint="restore it from git; snapshots are never edited by hand",
        ) from exc
    except RecursionError as exc:  # a hostile file nested 100,000 deep
        raise InputError(
            "the snapshot is nested too deeply to read (a real snapshot is a few levels deep)",
            path=rel,
            hint="restore it from git; snapshots are never edited by hand",
        ) from exc
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise InputError(
            f"not a masrl snapshot (expected format {FORMAT})", path=rel, hint="restore it from git"
        )
    content = {k: v for k, v in data.items() if k != "sha256"}
    try:
        digest = _digest(content)
    except RecursionError as exc:
        raise InputError(
            "the snapshot is nested too deeply to check", path=rel, hint="restore it from git"
        ) from exc
    if data.get("sha256") != digest:
        raise InputError(
            "the snapshot was changed after it was frozen (its digest does not match)",
            path=rel,
            hint="restore it from git, or refreeze on purpose with `masrl snapshot freeze --force`",
        )
    try:
        with tempfile.TemporaryDirectory(prefix="masrl-snapshot-") as folder:
            for file_name, text in data["taxonomy"].items():
                if isinstance(file_name, str) and TAXONOMY_FILE.match(file_name):
                    (Path(folder) / file_name).write_text(text, encoding="utf-8")
            taxonomy = load_taxonomy(Path(folder))
        taxonomy = replace(taxonomy, directory=project.root / SNAPSHOT_DIR / name)
        entries = [entry_from_data(item, taxonomy=taxonomy) for item in data["entries"]]
        exclusions = [exclusion_from_data(item, taxonomy=taxonomy) for item in data["exclusions"]]
    except (KeyError, TypeError, AttributeError, ValueError, RecursionError) as exc:
        raise InputError(
            f"the snapshot is incomplete ({type(exc).__name__ if isinstance(exc, RecursionError) else exc})",
            path=rel,
            hint="restore it from git",
        ) from exc
    return Corpus(project, taxonomy, entries, exclusions)


def published_snapshot(project: Project, name: str = PUBLISHED_SNAPSHOT) -> Corpus | None:
    """The snapshot live reports stand beside, or None in a project that has not frozen it."""
    return load_snapshot(project, name) if snapshot_path(project, name).is_file() else None

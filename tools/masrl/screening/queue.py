"""The screening queue: one YAML file per candidate in ``screening/queue/<id>.yaml``.

`masrl discover` writes it and `masrl screen` reads it. Reading is strict: a queue file edited
into nonsense stops the run with its file and line before anything is fetched or written.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from masrl.errors import InputError
from masrl.model import identifiers as ids
from masrl.model import yamlio

QUEUE_DIR = Path("screening") / "queue"
QUEUE_FIELDS = ("id", "title", "authors", "published", "abstract", "categories", "identifiers", "url",
                "families", "discovered", "round")
QUEUE_ID_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


def queue_id(arxiv_id: str) -> str:
    """The file stem of an arXiv candidate: the id without its version, '/' as '_'."""
    return ids.strip_arxiv_version(arxiv_id).replace("/", "_")


@dataclass
class QueueItem:
    path: Path
    data: dict

    @property
    def id(self) -> str:
        return self.data["id"]


def _problem(rel: str, line: int, message: str) -> InputError:
    return InputError(message, path=rel, line=line,
                      hint="fix the file by hand, or delete it and run `masrl discover` again")


def check_queue_data(data, rel: str, stem: str) -> dict:
    """The queue record, or InputError naming the first problem with its line."""
    if not isinstance(data, yamlio.LineDict):
        raise _problem(rel, 1, "a queue file must hold one mapping of field: value")
    unknown = [k for k in data if k not in QUEUE_FIELDS]
    if unknown:
        raise _problem(rel, data.line_of(unknown[0]), f"unknown queue field '{unknown[0]}'; allowed: {', '.join(QUEUE_FIELDS)}")
    missing = [k for k in QUEUE_FIELDS if k not in data]
    if missing:
        raise _problem(rel, 1, f"missing queue field(s) {', '.join(missing)}")
    if str(data["id"]) != stem:
        raise _problem(rel, data.line_of("id"), f"id {data['id']!r} differs from the file name {stem}.yaml")
    for key in ("title", "abstract", "url", "discovered", "round"):
        if not isinstance(data[key], str) or not data[key].strip():
            raise _problem(rel, data.line_of(key), f"'{key}' must be a non-empty string")
    for key in ("authors", "categories", "families"):
        if not isinstance(data[key], list) or not all(isinstance(v, str) for v in data[key]):
            raise _problem(rel, data.line_of(key), f"'{key}' must be a list of strings")
    if not isinstance(data["identifiers"], dict):
        raise _problem(rel, data.line_of("identifiers"), "'identifiers' must be a mapping {arxiv: ..., doi: ...}")
    return data


def read_queue(project) -> list[QueueItem]:
    folder = project.root / QUEUE_DIR
    items = []
    for path in sorted(folder.glob("*.yaml")) if folder.is_dir() else []:
        rel = project.relative(path)
        try:
            data = yamlio.load_file(path)
        except yamlio.YamlError as exc:
            raise _problem(rel, exc.line or 1, exc.message) from exc
        items.append(QueueItem(path, check_queue_data(data, rel, path.stem)))
    return items


def write_item(project, data: dict) -> Path:
    stem = data["id"]
    if not QUEUE_ID_PATTERN.match(stem):
        raise InputError(f"queue id {stem!r} cannot be a file name")
    path = project.root / QUEUE_DIR / f"{stem}.yaml"
    yamlio.write_atomic(path, yamlio.dumps(data))
    return path

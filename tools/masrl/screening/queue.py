"""Read and check the screening files: the queue, the decisions and the rounds.

Layouts (shared with `masrl discover` and `masrl agreement`):
- screening/queue/<id>.yaml: one candidate (id, title, authors, published, abstract, categories,
  identifiers, url, families, discovered, round; a citation-searching find also method: citation,
  direction: backward|forward|both and via: [seed entry keys]);
- screening/decisions/<round>.yaml: ``decisions:`` a list of {record, screener, decision,
  reason_code, rationale, date};
- screening/rounds.yaml: ``rounds:`` a list of {id, date, searched, query_families, sources, notes}.

These files are edited by hand too, so every problem is reported as ``path:line: message (fix)``
and all problems of a file at once; nothing here writes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from masrl.errors import InputError, ProblemsError
from masrl.files import write_atomic
from masrl.model import yamlio
from masrl.model.project import Project, read_records
from masrl.model.records import PLACEHOLDER

DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
QUEUE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
DECISIONS = ("include", "exclude", "defer")
MAX_QUEUE_FILE = 1_000_000  # bytes; a queue file is one record, so anything bigger is a mistake


def screening_dir(project: Project) -> Path:
    return project.root / "screening"


def queue_dir(project: Project) -> Path:
    return screening_dir(project) / "queue"


def decisions_dir(project: Project) -> Path:
    return screening_dir(project) / "decisions"


def rounds_path(project: Project) -> Path:
    return screening_dir(project) / "rounds.yaml"


def queue_id_for(arxiv_id: str) -> str:
    """The file stem of an arXiv candidate: version dropped, '/' made '_'."""
    return re.sub(r"v\d+$", "", arxiv_id).replace("/", "_")


# ---------------------------------------------------------------------------------------------
# Queue records


@dataclass(frozen=True)
class QueueRecord:
    id: str
    title: str
    authors: tuple[str, ...]
    published: str | None
    abstract: str
    categories: tuple[str, ...]
    identifiers: dict
    url: str | None
    families: tuple[str, ...]
    discovered: str | None
    round: str
    path: Path | None = field(default=None, compare=False)
    # How citation searching found it (None for database search): the direction and seed entries.
    method: str | None = None
    direction: str | None = None
    via: tuple[str, ...] = ()

    @property
    def arxiv_id(self) -> str | None:
        return self.identifiers.get("arxiv")


# name -> (required, kind); kinds: text, date, strings, mapping, url
QUEUE_FIELDS: dict[str, tuple[bool, str]] = {
    "id": (True, "text"),
    "title": (True, "text"),
    "authors": (True, "strings"),
    "published": (False, "date"),
    "abstract": (False, "text"),
    "categories": (False, "strings"),
    "identifiers": (False, "mapping"),
    "url": (False, "text"),
    "families": (False, "strings"),
    "discovered": (False, "date"),
    "round": (True, "text"),
    "method": (False, "method"),
    "direction": (False, "direction"),
    "via": (False, "strings"),
}
CITATION_FIELDS = ("method", "direction", "via")  # written only for citation-searching finds
METHODS = ("database", "citation")
QUEUE_DIRECTIONS = ("backward", "forward", "both")


def _check_value(kind: str, value) -> str | None:
    """None when ``value`` fits ``kind``; otherwise what is wrong and how to fix it."""
    if value is None:
        return None
    if kind == "text":
        if not isinstance(value, str) or not value.strip():
            return "must be a non-empty string"
    elif kind == "date":
        if not isinstance(value, str) or not DATE.match(value):
            return f"must be a date YYYY-MM-DD, not {value!r}"
    elif kind == "strings":
        if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
            return "must be a list of non-empty strings, e.g. [cs.AI, cs.LG]"
    elif kind in ("method", "direction"):
        allowed = METHODS if kind == "method" else QUEUE_DIRECTIONS
        if value not in allowed:
            return f"must be one of {', '.join(allowed)}, not {value!r}"
    elif kind == "mapping" and (
        not isinstance(value, dict)
        or not all(v is None or isinstance(v, str) for v in value.values())
    ):
        return "must be a mapping such as {arxiv: 2606.01234, doi: null}"
    return None


def check_queue_data(data, rel: str, stem: str, known_rounds: set[str] | None) -> list[str]:
    """Every problem of one parsed queue file, each as 'rel:line: message'."""
    if not isinstance(data, dict):
        return [
            f"{rel}:1: a queue file must be a mapping of fields (id:, title:, ...), not {type(data).__name__}"
        ]
    line_of = data.line_of if isinstance(data, yamlio.LineDict) else (lambda _key: 1)
    problems = []
    for name in data:
        if name not in QUEUE_FIELDS:
            problems.append(
                f"{rel}:{line_of(name)}: unknown field '{name}' (known fields: {', '.join(QUEUE_FIELDS)})"
            )
    for name, (required, kind) in QUEUE_FIELDS.items():
        if name not in data or data[name] is None:
            if required:
                problems.append(
                    f"{rel}:{getattr(data, 'line', 1)}: missing field '{name}' (add '{name}: ...')"
                )
            continue
        problem = _check_value(kind, data[name])
        if problem:
            problems.append(f"{rel}:{line_of(name)}: '{name}' {problem}")
    if isinstance(data.get("id"), str) and data["id"] != stem:
        problems.append(
            f"{rel}:{line_of('id')}: id '{data['id']}' does not match the file name '{stem}.yaml' (rename the file or fix the id)"
        )
    rnd = data.get("round")
    if known_rounds is not None and isinstance(rnd, str) and rnd not in known_rounds:
        problems.append(
            f"{rel}:{line_of('round')}: unknown round '{rnd}' (add it to screening/rounds.yaml or use one of: {', '.join(sorted(known_rounds)) or 'none defined'})"
        )
    return problems


def queue_record_from_data(data: dict, path: Path | None = None) -> QueueRecord:
    identifiers = dict(data.get("identifiers") or {})
    return QueueRecord(
        id=data["id"],
        title=" ".join(data["title"].split()),
        authors=tuple(data.get("authors") or ()),
        published=data.get("published"),
        abstract=" ".join((data.get("abstract") or "").split()),
        categories=tuple(data.get("categories") or ()),
        identifiers={"arxiv": identifiers.get("arxiv"), "doi": identifiers.get("doi")},
        url=data.get("url"),
        families=tuple(data.get("families") or ()),
        discovered=data.get("discovered"),
        round=data["round"],
        path=path,
        method=data.get("method"),
        direction=data.get("direction"),
        via=tuple(data.get("via") or ()),
    )


def record_data(record: QueueRecord) -> dict:
    """A queue record as the plain data of its file, fields in QUEUE_FIELDS order."""
    values = {
        "authors": list(record.authors),
        "categories": list(record.categories),
        "families": list(record.families),
        "identifiers": dict(record.identifiers),
        "via": list(record.via),
    }
    names = [n for n in QUEUE_FIELDS if record.method is not None or n not in CITATION_FIELDS]
    return {name: values.get(name, getattr(record, name)) for name in names}


def write_item(project: Project, data: dict) -> Path:
    """Write one candidate to screening/queue/<id>.yaml, refusing data the reader would refuse."""
    stem = data.get("id")
    if not isinstance(stem, str) or not QUEUE_ID.match(stem):
        raise InputError(
            f"queue id {stem!r} cannot be a file name", hint="use the arXiv id without its version"
        )
    rel = f"screening/queue/{stem}.yaml"
    problems = check_queue_data(yamlio.loads(yamlio.dumps(data)), rel, stem, None)
    if problems:
        raise ProblemsError(rel, problems)
    path = queue_dir(project) / f"{stem}.yaml"
    write_atomic(path, yamlio.dumps(data), root=project.root)
    return path


# The id of an arXiv candidate's queue file (discover's name for it).
queue_id = queue_id_for


def read_queue(project: Project, check_rounds: bool = True) -> list[QueueRecord]:
    """Every queue record, sorted by id; raises ProblemsError listing every bad file."""
    folder = queue_dir(project)
    paths = sorted(folder.glob("*.yaml")) if folder.is_dir() else []
    rounds = set(read_rounds(project)) if check_rounds and rounds_path(project).is_file() else None
    problems, records = [], []
    for path in paths:
        rel = project.relative(path)
        if path.is_symlink() or not path.is_file():
            problems.append(f"{rel}:1: not a regular file (replace the link with the file itself)")
            continue
        if path.stat().st_size > MAX_QUEUE_FILE:
            problems.append(
                f"{rel}:1: the file is larger than {MAX_QUEUE_FILE} bytes; a queue file holds one record"
            )
            continue
        try:
            data = yamlio.load_file(path)
        except yamlio.YamlError as exc:
            problems.append(
                f"{rel}:{exc.line or 1}: {exc.message}" + (f" ({exc.hint})" if exc.hint else "")
            )
            continue
        found = check_queue_data(data, rel, path.stem, rounds)
        if found:
            problems.extend(found)
        else:
            records.append(queue_record_from_data(data, path))
    if problems:
        raise ProblemsError(
            folder,
            problems,
            heading=f"the screening queue has {len(problems)} problem(s); fix them and run the command again:",
        )
    return records


# ---------------------------------------------------------------------------------------------
# Rounds


def read_rounds(project: Project) -> dict[str, dict]:
    """Round id -> round data from screening/rounds.yaml (empty when the file does not exist)."""
    path = rounds_path(project)
    if not path.is_file():
        return {}
    rel = project.relative(path)
    try:
        data = yamlio.load_file(path)
    except yamlio.YamlError as exc:
        raise InputError(exc.message, path=rel, line=exc.line, hint=exc.hint) from exc
    rounds = data.get("rounds") if isinstance(data, dict) else None
    if not isinstance(rounds, list):
        raise InputError(
            "expected a mapping with a list 'rounds:'",
            path=rel,
            line=1,
            hint="see CONTRIBUTING.md for the rounds layout",
        )
    result = {}
    for index, item in enumerate(rounds):
        line = rounds.line_of(index) if isinstance(rounds, yamlio.LineList) else 1
        if not isinstance(item, dict) or not isinstance(item.get("id"), str):
            raise InputError("every round needs an 'id:'", path=rel, line=line)
        result[item["id"]] = dict(item)
    return result


def require_round(project: Project, round_id: str) -> None:
    rounds = read_rounds(project)
    if round_id not in rounds:
        known = ", ".join(sorted(rounds)) or "none defined"
        raise InputError(
            f"unknown round '{round_id}'",
            path=project.relative(rounds_path(project)),
            hint=f"add the round to the rounds file or use one of: {known}",
        )


# ---------------------------------------------------------------------------------------------
# Decisions


@dataclass(frozen=True)
class Decision:
    record: str
    screener: str
    decision: str
    reason_code: str | None
    rationale: str | None
    date: str
    round: str
    where: str = field(default="", compare=False)  # 'path:line' for messages

    def to_data(self) -> dict:
        return {
            "record": self.record,
            "screener": self.screener,
            "decision": self.decision,
            "reason_code": self.reason_code,
            "rationale": self.rationale,
            "date": self.date,
        }


def read_decisions_file(project: Project, path: Path) -> list[Decision]:
    rel = project.relative(path)
    try:
        data = yamlio.load_file(path)
    except yamlio.YamlError as exc:
        raise InputError(exc.message, path=rel, line=exc.line, hint=exc.hint) from exc
    items = data.get("decisions") if isinstance(data, dict) else None
    if not isinstance(items, list):
        value = items if isinstance(data, dict) else data
        found = "list" if isinstance(value, list) else type(value).__name__  # not LineList
        raise InputError(
            f"expected a mapping with a list 'decisions:', found {found}",
            path=rel,
            line=data.line_of("decisions") if isinstance(data, dict) else 1,
            hint="write 'decisions:' followed by '- record: ...' items (an empty round: 'decisions: []')",
        )
    problems, decisions = [], []
    for index, item in enumerate(items):
        line = items.line_of(index) if isinstance(items, yamlio.LineList) else 1
        if not isinstance(item, dict):
            problems.append(
                f"{rel}:{line}: each decision must be a mapping (record:, screener:, decision:, date:)"
            )
            continue
        for name in ("record", "screener", "decision", "date"):
            if not isinstance(item.get(name), str) or not item[name].strip():
                problems.append(f"{rel}:{line}: decision without '{name}' (add '{name}: ...')")
        if item.get("decision") not in (None, *DECISIONS) and isinstance(item.get("decision"), str):
            problems.append(
                f"{rel}:{line}: decision '{item['decision']}' is not one of {', '.join(DECISIONS)}"
            )
        if isinstance(item.get("date"), str) and not DATE.match(item["date"]):
            problems.append(f"{rel}:{line}: date '{item['date']}' is not YYYY-MM-DD")
        if item.get("decision") == "exclude" and not item.get("reason_code"):
            problems.append(f"{rel}:{line}: an exclude decision needs a 'reason_code'")
        if not problems:
            decisions.append(
                Decision(
                    item["record"],
                    item["screener"],
                    item["decision"],
                    item.get("reason_code"),
                    item.get("rationale"),
                    item["date"],
                    path.stem,
                    f"{rel}:{line}",
                )
            )
    if problems:
        raise ProblemsError(path, problems, heading=f"{rel} has {len(problems)} problem(s):")
    return decisions


def read_decisions(project: Project) -> list[Decision]:
    """Every decision in every round's file, in file then list order."""
    folder = decisions_dir(project)
    decisions = []
    for path in sorted(folder.glob("*.yaml")) if folder.is_dir() else []:
        decisions.extend(read_decisions_file(project, path))
    return decisions


# ---------------------------------------------------------------------------------------------
# Labelled records: what the ranking learns from


@dataclass(frozen=True)
class Document:
    """One record as the ranking sees it; label 1 include, 0 exclude, None unscreened."""

    id: str
    title: str
    text: str  # title + abstract (queue) or title + our summary/rationale (screened records)
    authors: tuple[str, ...] = ()
    categories: tuple[str, ...] = ()
    families: tuple[str, ...] = ()
    label: int | None = None
    reason_code: str | None = None


def _prose(value) -> str:
    return value if isinstance(value, str) and value != PLACEHOLDER else ""


def labelled_documents(project: Project) -> list[Document]:
    """Corpus entries (include) and exclusion records (exclude), read leniently.

    Records are read as raw YAML, not through validate, so a freshly scaffolded entry with TODO
    tags still counts as an include. Decided queue records are among them: an include or exclude
    writes the entry or exclusion record. Entries carry our summary, not an abstract; exclusions
    carry our rationale; both stand in for the abstract a queue record has.
    """
    documents = []
    for raw in read_records(project.entry_paths()):
        data = raw.data if isinstance(raw.data, dict) else None
        if data is None or not isinstance(data.get("title"), str):
            continue
        authors = (
            tuple(a for a in data.get("authors") or () if isinstance(a, str))
            if isinstance(data.get("authors"), list)
            else ()
        )
        category = data.get("primary_category")
        documents.append(
            Document(
                id=raw.path.stem,
                title=data["title"],
                text=f"{data['title']}. {_prose(data.get('summary'))}".strip(),
                authors=authors,
                categories=(category,) if isinstance(category, str) else (),
                label=1,
            )
        )
    for raw in read_records(project.exclusion_paths()):
        data = raw.data if isinstance(raw.data, dict) else None
        if data is None or not isinstance(data.get("title"), str):
            continue
        documents.append(
            Document(
                id=raw.path.stem,
                title=data["title"],
                text=f"{data['title']}. {_prose(data.get('rationale'))}".strip(),
                label=0,
                reason_code=data.get("reason_code")
                if isinstance(data.get("reason_code"), str)
                else None,
            )
        )
    return documents


def queue_documents(records: list[QueueRecord]) -> list[Document]:
    return [
        Document(
            id=r.id,
            title=r.title,
            text=f"{r.title}. {r.abstract}".strip(),
            authors=r.authors,
            categories=r.categories,
            families=r.families,
        )
        for r in records
    ]

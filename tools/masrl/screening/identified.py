"""The round's log of search hits, screening/identified/<round>.yaml: database-search hits per
source and dropped duplicates (written by `masrl discover`), citation-searching hits per direction
with their seed entries. `masrl flow` counts from it (derive/flow.py describes the layout)."""

from __future__ import annotations

from pathlib import Path

from masrl import files
from masrl.errors import InputError, UsageError
from masrl.model import yamlio

IDENTIFIED_DIR = Path("screening") / "identified"
DIRECTIONS = ("backward", "forward")
LAYOUT = "identified: {source: [ids]}, citations: {direction: {id: [seeds]}}"


def read_identified(project, round_id: str) -> dict:
    path = project.root / IDENTIFIED_DIR / f"{round_id}.yaml"
    if not path.is_file():
        return {"identified": {}, "duplicates": {}, "citations": {}}
    data = yamlio.load_file(path)
    rel = f"{IDENTIFIED_DIR.as_posix()}/{round_id}.yaml"
    if not isinstance(data, dict):
        raise InputError("the identified log must be a mapping", path=rel, hint=LAYOUT)
    for name in ("identified", "duplicates", "citations"):
        if not isinstance(data.get(name) or {}, dict):
            raise InputError(
                f"'{name}' must be a mapping", path=rel, line=data.line_of(name), hint=LAYOUT
            )
    for name in ("identified", "duplicates"):
        for source, hits in (data.get(name) or {}).items():
            if not isinstance(hits or [], list):
                raise InputError(
                    f"{name}.{source} must be a list of identifiers, not {type(hits).__name__}",
                    path=rel,
                    line=data[name].line_of(source),
                    hint=LAYOUT,
                )
    citations = data.get("citations") or {}
    for direction, hits in citations.items():
        if direction not in DIRECTIONS or not isinstance(hits or {}, dict):
            raise InputError(
                f"citations.{direction} must be backward or forward, each a mapping of "
                "identifier to seed entries",
                path=rel,
                line=citations.line_of(direction),
            )
    return {
        "identified": dict(data.get("identified") or {}),
        "duplicates": dict(data.get("duplicates") or {}),
        "citations": {d: dict(v or {}) for d, v in citations.items()},
    }


def record_identified(
    project, round_id: str, source: str, found: list[str], duplicates: list[str]
) -> None:
    """Merge one search's hits and dropped duplicates into screening/identified/<round>.yaml."""
    data = read_identified(project, round_id)
    for name, ids in (("identified", found), ("duplicates", duplicates)):
        merged = sorted({*data[name].get(source, []), *ids})
        data[name] = {**data[name], source: merged}
    write_identified(project, round_id, data)


def record_citations(project, round_id: str, direction: str, found: dict[str, list[str]]) -> None:
    """Merge citation-searching hits ({identifier: [seed entry keys]}) into the round's log."""
    if direction not in DIRECTIONS:
        raise UsageError(f"direction must be one of {', '.join(DIRECTIONS)}, got {direction!r}")
    data = read_identified(project, round_id)
    merged = dict(data["citations"].get(direction, {}))
    for identifier, seeds in found.items():
        merged[identifier] = sorted({*merged.get(identifier, []), *seeds})
    data["citations"] = {**data["citations"], direction: dict(sorted(merged.items()))}
    write_identified(project, round_id, data)


def write_identified(project, round_id: str, data: dict) -> None:
    body = {
        "identified": dict(sorted(data["identified"].items())),
        "duplicates": dict(sorted(data["duplicates"].items())),
    }
    if data.get("citations"):
        body["citations"] = {
            d: data["citations"][d] for d in DIRECTIONS if data["citations"].get(d)
        }
    text = (
        "# Search hits of the round: database search per source, citation searching per direction\n"
        "# with the seed entries, and dropped duplicates (masrl discover writes the first and last).\n"
        + yamlio.dumps(body)
    )
    files.write_atomic(project.root / IDENTIFIED_DIR / f"{round_id}.yaml", text)

"""The corpus citation graph as data: citations/graph.yaml, the one definition of its layout.

`masrl snowball` writes the file; people add edges for works OpenAlex does not index. Layout::

    retrieved: '2026-11-25'      # last snowball run (null before the first)
    api: https://api.openalex.org
    works:                       # each entry resolved to an OpenAlex work, so it is never asked again
      magrpo: {openalex: W4385, resolved_by: arxiv, references_known: true, retrieved: '2026-11-25'}
      blog-post: {openalex: null, resolved_by: null, references_known: false, retrieved: '2026-11-25'}
    checked_by_hand:             # entries whose reference list a person read
      some-key: {evidence: 'https://arxiv.org/html/2510.11062', date: '2026-11-25'}
    edges:                       # entry `from` cites entry `to`, sorted
    - {from: at-grpo, to: magrpo, source: openalex}
    - {from: x, to: y, source: hand, evidence: 'https://... reference [12]'}

``parse_graph`` reports every problem as (path, line, message, hint) so `masrl validate` can
show them; ``load_graph`` raises on the first. Reading never touches the network.
"""

from __future__ import annotations

import datetime as dt
import functools
from collections.abc import Iterable
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from masrl.errors import InputError
from masrl.files import write_atomic
from masrl.model import yamlio
from masrl.problems import Problem

# every problem of this file kind carries the code that names it in annotations
_problem = functools.partial(Problem, code="citations")

GRAPH_FILE = Path("citations") / "graph.yaml"
DEFAULT_API = "https://api.openalex.org"
RESOLVERS = ("doi", "arxiv", "title")
SOURCES = ("openalex", "hand")
HEADER = (
    "# The corpus citation graph: entry `from` cites entry `to`. Written by `masrl snowball`;\n"
    "# edges with source: hand (each with its evidence) and checked_by_hand are kept across runs.\n"
    "# works: how each entry was resolved to an OpenAlex work (null: not found; delete the line\n"
    "# to ask again). See CONTRIBUTING.md, 'Citation chasing'."
)


def _date(cls, value: str | None) -> str | None:
    if value is not None:
        try:
            if len(value) != 10 or dt.date.fromisoformat(value).isoformat() != value:
                raise ValueError
        except ValueError:
            raise ValueError(f"{value!r} is not a date YYYY-MM-DD") from None
    return value


class _Strict(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)


class Work(_Strict):
    """An entry's OpenAlex work, or the record that none was found."""

    openalex: str | None = Field(default=None, pattern=r"^W\d+$")
    resolved_by: Literal["doi", "arxiv", "title"] | None = None
    references_known: bool = False
    retrieved: str

    _check_date = field_validator("retrieved")(_date)

    def model_post_init(self, _context) -> None:
        if (self.openalex is None) != (self.resolved_by is None):
            raise ValueError("openalex and resolved_by are both set or both null")
        if self.openalex is None and self.references_known:
            raise ValueError("references_known needs a resolved work (openalex: W...)")


class HandCheck(_Strict):
    evidence: str = Field(min_length=1)
    date: str

    _check_date = field_validator("date")(_date)


class Edge(_Strict):
    source_key: str = Field(alias="from", min_length=1)
    target_key: str = Field(alias="to", min_length=1)
    source: Literal["openalex", "hand"]
    evidence: str | None = Field(default=None, min_length=1)

    def model_post_init(self, _context) -> None:
        if self.source == "hand" and not self.evidence:
            raise ValueError(
                "a hand edge needs evidence: the URL or citation of the reference list"
            )

    @property
    def pair(self) -> tuple[str, str]:
        return self.source_key, self.target_key

    def to_data(self) -> dict:
        data = {"from": self.source_key, "to": self.target_key, "source": self.source}
        return data | ({"evidence": self.evidence} if self.evidence else {})


class CitationGraph(_Strict):
    retrieved: str | None = None
    api: str = DEFAULT_API
    works: dict[str, Work] = {}
    checked_by_hand: dict[str, HandCheck] = {}
    edges: tuple[Edge, ...] = ()

    _check_date = field_validator("retrieved")(_date)

    def model_post_init(self, _context) -> None:
        # One order for everything, so equal graphs are equal objects and write the same bytes.
        for name in ("works", "checked_by_hand"):
            object.__setattr__(self, name, dict(sorted(getattr(self, name).items())))
        edges = sorted(self.edges, key=lambda e: (e.pair, e.source))
        object.__setattr__(self, "edges", tuple(edges))

    def builds_on(self, key: str) -> list[str]:
        """The entries ``key`` cites, sorted."""
        return sorted({e.target_key for e in self.edges if e.source_key == key})

    def built_upon_by(self, key: str) -> list[str]:
        """The entries citing ``key``, sorted."""
        return sorted({e.source_key for e in self.edges if e.target_key == key})

    def references_known(self) -> set[str]:
        """Entries whose reference list is known: from OpenAlex, or read by a person."""
        return {k for k, w in self.works.items() if w.references_known} | set(self.checked_by_hand)

    def coverage(self, entry_keys: Iterable[str]) -> tuple[int, int, str | None]:
        """(entries with references known, all entries, retrieval date)."""
        keys = set(entry_keys)
        return len(keys & self.references_known()), len(keys), self.retrieved

    def to_text(self) -> str:
        """The file's text: one line per work, check and edge, everything sorted."""
        parts = [
            HEADER + "\n",
            yamlio.dumps({"retrieved": self.retrieved, "api": self.api}),
            _mapping("works", {k: w.model_dump() for k, w in self.works.items()}),
            _mapping(
                "checked_by_hand", {k: c.model_dump() for k, c in self.checked_by_hand.items()}
            ),
        ]
        edges = self.edges
        parts.append(
            "edges:"
            + ("\n" if edges else " []\n")
            + "".join(f"- {yamlio.dumps_flow(e.to_data())}\n" for e in edges)
        )
        return "".join(parts)


def _mapping(name: str, items: dict[str, dict]) -> str:
    if not items:
        return f"{name}: {{}}\n"
    lines = [
        f"  {yamlio.dumps_flow(key)}: {yamlio.dumps_flow(value)}\n" for key, value in items.items()
    ]
    return f"{name}:\n" + "".join(lines)


def _first_error(exc: ValidationError) -> tuple[tuple, str]:
    first = exc.errors()[0]
    message = first.get("msg", "invalid value").removeprefix("Value error, ")
    return tuple(first.get("loc", ())), message


def parse_graph(
    raw, rel: str, entry_keys: set[str] | None = None
) -> tuple[CitationGraph | None, list[Problem]]:
    """The graph from loaded YAML and every problem with it; ``entry_keys`` (the corpus's entry
    keys) also checks that every key the graph names is an entry."""
    problems: list[Problem] = []

    def bad(line: int, message: str, hint: str = "") -> None:
        problems.append(_problem(rel, line, message, hint))

    if not isinstance(raw, yamlio.LineDict):
        bad(
            1,
            "expected a mapping with retrieved, api, works, checked_by_hand and edges",
            "see the comment at the top of the file, or delete it and run `masrl snowball`",
        )
        return None, problems
    known = {"retrieved", "api", "works", "checked_by_hand", "edges"}
    for key in raw:
        if key not in known:
            bad(raw.line_of(key), f"unknown field '{key}'", f"allowed: {', '.join(sorted(known))}")
    values = {}
    for key in ("retrieved", "api"):
        if key in raw:
            values[key] = raw[key]
    for name, model in (("works", Work), ("checked_by_hand", HandCheck)):
        block = raw.get(name) or {}
        if not isinstance(block, dict):
            bad(raw.line_of(name), f"'{name}' must be a mapping of entry keys")
            continue
        parsed = {}
        for key, item in block.items():
            line = block.line_of(key) if isinstance(block, yamlio.LineDict) else raw.line_of(name)
            if entry_keys is not None and key not in entry_keys:
                bad(
                    line,
                    f"{name}: '{key}' is not a corpus entry",
                    "fix the key (corpus/<key>.yaml) or delete the line",
                )
            try:
                parsed[key] = model.model_validate(item)
            except ValidationError as exc:
                loc, message = _first_error(exc)
                bad(line, f"{name}.{key}{''.join(f'.{p}' for p in loc)}: {message}", _HINTS[name])
        values[name] = parsed
    edges = raw.get("edges") or []
    if not isinstance(edges, list):
        bad(raw.line_of("edges"), "'edges' must be a list of {from, to, source}")
        edges = []
    parsed_edges, seen = [], {}
    for index, item in enumerate(edges):
        line = edges.line_of(index) if isinstance(edges, yamlio.LineList) else raw.line_of("edges")
        try:
            edge = Edge.model_validate(item)
        except ValidationError as exc:
            loc, message = _first_error(exc)
            field = "".join(f" {p}" for p in loc)
            bad(line, f"edge{field}: {message}", _HINTS["edges"])
            continue
        if edge.source_key == edge.target_key:
            bad(
                line,
                f"edge from '{edge.source_key}' to itself",
                "an entry cannot cite itself; delete the edge",
            )
        if edge.pair in seen:
            bad(
                line,
                f"edge {edge.source_key} -> {edge.target_key} is listed twice "
                f"(first on line {seen[edge.pair]})",
                "delete one of them",
            )
        seen.setdefault(edge.pair, line)
        for end in (edge.source_key, edge.target_key):
            if entry_keys is not None and end not in entry_keys:
                bad(
                    line,
                    f"edge names '{end}', which is not a corpus entry",
                    "fix the key (corpus/<key>.yaml) or delete the edge",
                )
        parsed_edges.append(edge)
    values["edges"] = tuple(parsed_edges)
    try:
        graph = CitationGraph.model_validate(values)
    except ValidationError as exc:
        loc, message = _first_error(exc)
        key = str(loc[0]) if loc else ""
        bad(
            raw.line_of(key) if key in raw else 1,
            f"{key or 'graph'}: {message}",
            "retrieved: 'YYYY-MM-DD' or null; api: the OpenAlex address",
        )
        return None, problems
    return (None if problems else graph), problems


_HINTS = {
    "works": "e.g. {openalex: W4385, resolved_by: arxiv, references_known: true, retrieved: "
    "'2026-11-25'}, or delete the line and run `masrl snowball`",
    "checked_by_hand": "e.g. {evidence: 'https://arxiv.org/html/2510.11062', date: '2026-11-25'}",
    "edges": "e.g. {from: x, to: y, source: hand, evidence: 'https://... reference list'}",
}


def read_graph(project, entry_keys: set[str] | None = None):
    """(graph or None, problems); an absent file is an empty graph."""
    path = project.root / GRAPH_FILE
    rel = GRAPH_FILE.as_posix()
    if not path.is_file() and not path.is_symlink():
        return CitationGraph(), []
    try:
        raw = yamlio.load_file(path, root=project.root)
    except yamlio.YamlError as exc:
        return None, [_problem(rel, exc.line or 1, exc.message, exc.hint or "")]
    return parse_graph(raw, rel, entry_keys)


def load_graph(project, entry_keys: set[str] | None = None) -> CitationGraph:
    """The project's citation graph; InputError (file, line, fix) when the file is unusable or
    names a key that is not an entry (default: the corpus/ files)."""
    if entry_keys is None:
        entry_keys = {path.stem for path in project.entry_paths()}
    graph, problems = read_graph(project, entry_keys)
    if problems:
        first = problems[0]
        raise InputError(first.message, path=first.path, line=first.line, hint=first.hint or None)
    return graph


def write_graph(project, graph: CitationGraph) -> bool:
    """Write citations/graph.yaml atomically; False when it already held these bytes."""
    path, text = project.root / GRAPH_FILE, graph.to_text()
    if path.is_file() and path.read_text(encoding="utf-8") == text:
        return False
    write_atomic(path, text, root=project.root)
    return True

"""The project on disk: where a corpus checkout lives, reading its data files, and the loaded corpus."""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from masrl.model import yamlio
from masrl.model.records import Entry, Exclusion
from masrl.model.taxonomy import Taxonomy, load_taxonomy, packaged_taxonomy_dir


@dataclass(frozen=True)
class Project:
    root: Path

    def __post_init__(self):
        object.__setattr__(self, "root", Path(self.root))
        # Folder as given -> its prefix relative to the root, for relative(): an import names
        # 100,000 files in a few folders, and resolving each folder again was a third of its time.
        # Used for display names only.
        object.__setattr__(self, "_prefixes", {})

    @property
    def corpus_dir(self) -> Path:
        return self.root / "corpus"

    @property
    def exclusions_dir(self) -> Path:
        return self.root / "exclusions"

    @property
    def taxonomy_dir(self) -> Path:
        local = self.root / "taxonomy"
        return local if (local / "categories.yaml").exists() else packaged_taxonomy_dir()

    def taxonomy(self) -> Taxonomy:
        return load_taxonomy(self.taxonomy_dir)

    def entry_paths(self) -> list[Path]:
        return _yaml_files(self.corpus_dir)

    def exclusion_paths(self) -> list[Path]:
        return _yaml_files(self.exclusions_dir)

    def relative(self, path: Path) -> str:
        """``path`` relative to the root, for messages; a path outside the root is shown as given."""
        text = os.fspath(path)
        folder, name = os.path.split(text)
        try:
            # The file itself is not resolved: a symlink is reported under its own name (and a loop cannot raise).
            prefix = self._relative_prefix(folder or ".")
        except (ValueError, OSError, RuntimeError):
            return str(path)
        return str(path) if prefix is None or not name else prefix + name

    def _relative_prefix(self, folder: str) -> str | None:
        """'corpus/' for the real corpus folder, '' for the root, None outside the root; worked
        out once per folder."""
        if folder not in self._prefixes:
            if len(self._prefixes) > 1024:
                self._prefixes.clear()
            self._prefixes[folder] = self._prefix_of(folder)
        return self._prefixes[folder]

    def _prefix_of(self, folder: str) -> str | None:
        parent, root = os.path.realpath(folder), os.path.realpath(self.root)
        if parent == root:
            return ""
        inside = os.path.relpath(parent, root)
        if inside == os.pardir or inside.startswith(os.pardir + os.sep) or os.path.isabs(inside):
            return None
        return Path(inside).as_posix() + "/"


def find_project(start: Path | None = None) -> Project:
    """The nearest folder at or above ``start`` holding corpus/ or taxonomy/ (MASRL_ROOT wins)."""
    if os.environ.get("MASRL_ROOT"):
        return Project(Path(os.environ["MASRL_ROOT"]).resolve())
    start = (start or Path.cwd()).resolve()
    for folder in (start, *start.parents):
        if (folder / "corpus").is_dir() or (folder / "taxonomy" / "categories.yaml").is_file():
            return Project(folder)
    return Project(start)


@dataclass
class RawRecord:
    """A data file as read from disk: parsed data, or the YAML error that stopped it."""

    path: Path
    data: Any = None
    error: yamlio.YamlError | None = None

    def line_of(self, *keys: str | int) -> int:
        """Line of a nested key path, falling back to the nearest enclosing line."""
        node = self.data
        line = getattr(node, "line", 1)
        for key in keys:
            if isinstance(node, yamlio.LineDict) and isinstance(key, str) and key in node:
                line, node = node.line_of(key), node[key]
            elif isinstance(node, yamlio.LineList) and isinstance(key, int) and key < len(node):
                line, node = node.line_of(key), node[key]
            else:
                break
        return line


def _yaml_files(folder: Path) -> list[Path]:
    """The folder's YAML files in name order (the order of the paths themselves; comparing
    names is ten times cheaper than comparing Path objects, a second at 5,000 entries)."""
    if not folder.is_dir():
        return []
    return sorted(folder.glob("*.yaml"), key=lambda path: path.name)


def iter_records(paths: list[Path]) -> Iterator[RawRecord]:
    """Read the files one at a time (a caller that keeps little of each holds little)."""
    for path in paths:
        try:
            yield RawRecord(path, yamlio.load_file(path))
        except yamlio.YamlError as exc:
            yield RawRecord(path, None, exc)
        except OSError as exc:
            yield RawRecord(path, None, yamlio.YamlError(f"cannot read the file: {exc.strerror}"))


def read_records(paths: list[Path]) -> list[RawRecord]:
    return list(iter_records(paths))


@dataclass
class Corpus:
    project: Project
    taxonomy: Taxonomy
    entries: list[Entry]
    exclusions: list[Exclusion]

    @property
    def audited(self) -> int:
        return len(self.entries) + len(self.exclusions)

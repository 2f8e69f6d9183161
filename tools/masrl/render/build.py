"""`masrl build` and `masrl check`: every generated file, regenerated from the YAML.

Generators are pure functions of the corpus that return {path relative to the root: content}.
`build` writes what changed; `check` regenerates in memory and reports each stale file with a
unified diff, so CI can prove that what is committed is fresh.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from masrl.check.validate import load_corpus
from masrl.files import read_regular_bytes, write_if_changed
from masrl.model import schemas
from masrl.model.project import Corpus, Project

Generated = dict[str, bytes]
Generator = Callable[[Corpus], Generated]


def schema_files(corpus: Corpus) -> Generated:
    taxonomy = corpus.taxonomy
    return {
        "taxonomy/schemas/entry.schema.json": schemas.render(
            schemas.entry_schema(taxonomy)
        ).encode(),
        "taxonomy/schemas/exclusion.schema.json": schemas.render(
            schemas.exclusion_schema(taxonomy)
        ).encode(),
    }


def _generators() -> list[Generator]:
    """Imported lazily: some generators pull in pandas or matplotlib."""
    generators: list[Generator] = [schema_files]
    for module_name, function_name in GENERATOR_HOOKS:
        module = __import__(module_name, fromlist=[function_name])
        generators.append(getattr(module, function_name))
    return generators


# (module, function) pairs contributing generated files; each takes a Corpus.
GENERATOR_HOOKS: list[tuple[str, str]] = [
    ("masrl.render.stats_page", "snapshot_files"),  # STATS.md
    ("masrl.render.figures", "figure_files"),  # figures/*.svg, figures/*.png
    ("masrl.render.readme", "readme_files"),  # the paper list inside README.md
    ("masrl.cli.reference", "cli_reference_files"),  # site/docs/cli.md
    ("masrl.render.forms", "form_files"),  # issue-form dropdowns, CONTRIBUTING tag reference
    ("masrl.render.release", "citation_files"),  # CITATION.cff, .zenodo.json: the newest release
]


def generate_all(corpus: Corpus) -> Generated:
    return dict(sorted(_generated(corpus)))


def _generated(corpus: Corpus) -> Iterator[tuple[str, bytes]]:
    """Each generated file, generator by generator (each generator's files are made at once)."""
    paths: set[str] = set()
    for generator in _generators():
        for path, content in generator(corpus).items():
            if path in paths:
                raise RuntimeError(f"two generators write {path}")
            paths.add(path)
            yield path, content


@dataclass(frozen=True)
class StaleFile:
    path: str
    diff: str


def build(project: Project) -> list[str]:
    """Write every generated file whose content changed; return their paths."""
    corpus = load_corpus(project)
    written = []
    for rel, content in generate_all(corpus).items():
        if write_if_changed(project.root / rel, content, root=project.root):
            written.append(rel)
    return written


def check(project: Project) -> list[StaleFile]:
    """Every committed generated file that differs from a fresh build, with its diff."""
    corpus = load_corpus(project)
    stale = []
    # Each file is compared as its generator makes it, and let go: holding every generated file
    # and its committed copy at once would raise the peak by both (the README list and STATS.md
    # grow with the corpus).
    for rel, content in _generated(corpus):
        target = project.root / rel
        current = (
            read_regular_bytes(target, root=project.root)
            if target.exists() or target.is_symlink()
            else None
        )
        if current != content:
            stale.append(StaleFile(rel, _diff(rel, current, content)))
        del current, content
    return sorted(stale, key=lambda found: found.path) + damaged_releases(project)


def damaged_releases(project: Project) -> list[StaleFile]:
    """Release files that no longer match their SHA256SUMS: a published release is never edited."""
    from masrl.render.release import list_releases, verify_release

    found = []
    for release in list_releases(project):
        for name in verify_release(release.path):
            rel = f"releases/{release.version}/{name}"
            found.append(
                StaleFile(
                    rel,
                    f"{rel}: differs from its SHA256SUMS; restore it (git checkout -- {rel}), "
                    f"or cut the release again with `masrl release {release.version} --force`",
                )
            )
    return found


def _diff(rel: str, current: bytes | None, fresh: bytes) -> str:
    if current is None:
        return f"{rel}: missing; run `masrl build`"
    try:
        old, new = current.decode("utf-8"), fresh.decode("utf-8")
    except UnicodeDecodeError:
        return f"{rel}: binary content differs ({len(current)} bytes committed, {len(fresh)} fresh); run `masrl build`"
    lines = difflib.unified_diff(
        old.splitlines(keepends=True),
        new.splitlines(keepends=True),
        f"{rel} (committed)",
        f"{rel} (fresh)",
    )
    return "".join(lines)

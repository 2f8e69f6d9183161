"""Assemble the site's docs folder from the corpus and build it with mkdocs in strict mode.

Two folders are involved, neither committed:

- the generated docs folder (default ``build/site-src/``): the hand-written pages of
  ``site/docs/`` (markers filled in), ``site/assets/``, and every generated page and data file;
- the built site (default ``build/site/``), written by mkdocs from ``site/mkdocs.yml`` with
  ``docs_dir`` pointed at the generated folder.

Generation is a pure function of the corpus (``generate_docs``) returning {path: bytes}; syncing
writes only files whose content changed and removes files that are no longer generated, so
``masrl site serve`` (which watches the generated folder) rebuilds only on real changes.
"""

from __future__ import annotations

import logging
import os
import shutil
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from masrl.check.validate import load_corpus
from masrl.model.project import Corpus, Project
from masrl.model.yamlio import write_if_changed
from masrl.render.site.browse import browse_pages
from masrl.render.site.context import CHECKOUT_ROOT, SiteContext
from masrl.render.site.downloads import download_files
from masrl.render.site.entries import entry_pages
from masrl.render.site.errors import SiteError
from masrl.render.site.fragments import fill_markers
from masrl.render.site.reports import figure_files, report_pages
from masrl.render.site.table import table_pages
from masrl.render.site.trace_pages import trace_pages

# mkdocs-material prints a multi-line notice on every run unless told not to.
os.environ.setdefault("NO_MKDOCS_2_WARNING", "1")

STAGING_MARKER = ".masrl-site-src"


@dataclass(frozen=True)
class SitePaths:
    source: Path  # site/: mkdocs.yml, docs/ (hand-written pages), assets/
    staging: Path  # the generated docs folder
    output: Path  # the built site

    @property
    def config_file(self) -> Path:
        return self.source / "mkdocs.yml"


@dataclass
class SiteBuild:
    paths: SitePaths
    pages: int
    files: int
    seconds: float
    warnings: list[str] = field(default_factory=list)


def site_source_dir(project: Project) -> Path:
    """The project's own site/ when it has one, else the one of the masrl checkout."""
    for candidate in (project.root / "site", CHECKOUT_ROOT / "site"):
        if (candidate / "mkdocs.yml").is_file():
            return candidate
    raise SiteError("no site/mkdocs.yml found in the project or in the masrl checkout")


def default_paths(project: Project, output: Path | None = None, staging: Path | None = None) -> SitePaths:
    build_dir = project.root / "build"
    return SitePaths(
        source=site_source_dir(project),
        staging=Path(staging or build_dir / "site-src").resolve(),
        output=Path(output or build_dir / "site").resolve(),
    )


# ---------------------------------------------------------------------------------------------
# Generation.


def generated_pages(ctx: SiteContext) -> dict[str, str]:
    """Every generated Markdown page, by its path in the docs folder."""
    pages: dict[str, str] = {}
    for part in (entry_pages, browse_pages, report_pages, table_pages):
        pages.update(part(ctx))
    trace_markdown, _ = trace_pages(ctx)
    pages.update(trace_markdown)
    return pages


AXES_CSS = "assets/css/axes.css"


def axes_css(ctx: SiteContext) -> str:
    """Chip colours per axis, from each taxonomy file's `show.hue` (and `show.muted`)."""
    lines = ["/* Generated from taxonomy/*.yaml (show.hue) by masrl site build. */"]
    for axis in ctx.taxonomy.axes.values():
        if "hue" in axis.show and axis.field_name:
            muted = " --masrl-chip-s: 10%;" if axis.show.get("muted") else ""
            lines.append(f".md-typeset .masrl-chip--{axis.field_name} {{ --masrl-hue: {int(axis.show['hue'])};{muted} }}")
    return "\n".join(lines) + "\n"


def generated_files(ctx: SiteContext) -> dict[str, bytes]:
    """Every generated non-page file: data downloads, figures, trace figures."""
    files = {**download_files(ctx), **figure_files(ctx), AXES_CSS: axes_css(ctx).encode("utf-8")}
    _, trace_files = trace_pages(ctx)
    files.update(trace_files)
    return files


def hand_written_files(source: Path, ctx: SiteContext) -> dict[str, bytes]:
    """site/docs/** (markers filled in on Markdown pages) and site/assets/** as assets/**."""
    files: dict[str, bytes] = {}
    docs = source / "docs"
    for path in sorted(p for p in docs.rglob("*") if p.is_file()):
        rel = path.relative_to(docs).as_posix()
        if path.suffix == ".md":
            files[rel] = fill_markers(ctx, rel, path.read_text(encoding="utf-8")).encode("utf-8")
        else:
            files[rel] = path.read_bytes()
    assets = source / "assets"
    for path in sorted(p for p in assets.rglob("*") if p.is_file()):
        files[f"assets/{path.relative_to(assets).as_posix()}"] = path.read_bytes()
    return files


def site_settings(source: Path) -> dict:
    """`extra.masrl` of site/mkdocs.yml: settings the generator needs (the repository URL)."""
    import yaml

    try:
        config = yaml.safe_load((source / "mkdocs.yml").read_text(encoding="utf-8")) or {}
    except (OSError, yaml.YAMLError) as exc:
        raise SiteError(f"{source / 'mkdocs.yml'}: cannot be read ({exc}); fix the file") from exc
    extra = config.get("extra") if isinstance(config, dict) else None
    settings = extra.get("masrl") if isinstance(extra, dict) else None
    return settings if isinstance(settings, dict) else {}


def generate_docs(corpus: Corpus, source: Path) -> dict[str, bytes]:
    """The whole docs folder as {relative path: content}; raises SiteError on a clash."""
    repository = site_settings(source).get("repository")
    ctx = SiteContext(corpus, repository=str(repository).rstrip("/") if repository else None)
    generated = {path: text.encode("utf-8") for path, text in generated_pages(ctx).items()}
    generated.update(generated_files(ctx))
    ctx.generated_paths = frozenset(generated)  # hand-written pages link to optional pages that exist
    files = hand_written_files(source, ctx)
    clashes = sorted(set(files) & set(generated))
    if clashes:
        raise SiteError(f"site/docs/ holds files that the generator writes: {', '.join(clashes)}")
    files.update(generated)
    return dict(sorted(files.items()))


# ---------------------------------------------------------------------------------------------
# Writing the generated docs folder.


def _check_disposable(folder: Path, marker: str | None, what: str) -> None:
    """Refuse to clean a folder that does not look like one we made (e.g. --output .)."""
    if not folder.exists() or not any(folder.iterdir()):
        return
    if marker and (folder / marker).exists():
        return
    if not marker and (folder / "sitemap.xml").exists():
        return
    if (folder / "corpus").exists() or (folder / ".git").exists():
        raise SiteError(f"refusing to overwrite {folder}: it looks like a checkout, not a {what}")
    raise SiteError(f"refusing to overwrite {folder}: it is not empty and was not written by `masrl site build`")


def sync_tree(files: dict[str, bytes], target: Path) -> list[str]:
    """Make ``target`` hold exactly ``files``; return the paths written or removed."""
    _check_disposable(target, STAGING_MARKER, "generated docs folder")
    target.mkdir(parents=True, exist_ok=True)
    (target / STAGING_MARKER).write_text("generated by `masrl site build`; safe to delete\n", encoding="utf-8")
    changed = []
    for rel, content in files.items():
        if write_if_changed(target / rel, content):
            changed.append(rel)
    keep = set(files) | {STAGING_MARKER}
    for path in sorted(target.rglob("*"), reverse=True):
        rel = path.relative_to(target).as_posix()
        if path.is_file() and rel not in keep:
            path.unlink()
            changed.append(rel)
        elif path.is_dir() and not any(path.iterdir()):
            path.rmdir()
    return changed


def stage(project: Project, paths: SitePaths, corpus: Corpus | None = None) -> list[str]:
    corpus = corpus or load_corpus(project)
    return sync_tree(generate_docs(corpus, paths.source), paths.staging)


# ---------------------------------------------------------------------------------------------
# mkdocs.


class _Collect(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


@contextmanager
def _mkdocs_warnings() -> Iterator[list[str]]:
    """Collect mkdocs' warnings (strict mode turns them into a failure) instead of printing them."""
    logger = logging.getLogger("mkdocs")
    handler = _Collect()
    logger.addHandler(handler)
    try:
        yield handler.messages
    finally:
        logger.removeHandler(handler)


def mkdocs_config(paths: SitePaths, strict: bool = True, site_url: str | None = None):
    from mkdocs.config import load_config

    overrides = {"docs_dir": str(paths.staging), "site_dir": str(paths.output), "strict": strict}
    if site_url:
        overrides["site_url"] = site_url
    return load_config(str(paths.config_file), **overrides)


def run_mkdocs(paths: SitePaths, strict: bool = True, site_url: str | None = None) -> list[str]:
    """Build the staged docs folder into paths.output; return mkdocs' warnings."""
    from mkdocs.commands.build import build
    from mkdocs.exceptions import Abort, ConfigurationError

    _check_disposable(paths.output, None, "built site")
    with _mkdocs_warnings() as warnings:
        try:
            config = mkdocs_config(paths, strict, site_url)
            config.plugins.on_startup(command="build", dirty=False)
            try:
                build(config)
            finally:
                config.plugins.on_shutdown()
        except (Abort, ConfigurationError) as exc:
            details = "".join(f"\n  {w}" for w in warnings)
            raise SiteError(f"mkdocs: {exc}{details}") from exc
    return list(warnings)


def build_site(
    project: Project,
    output: Path | None = None,
    staging: Path | None = None,
    site_url: str | None = None,
    strict: bool = True,
) -> SiteBuild:
    """Generate the docs folder from the corpus and build the site; the whole `masrl site build`."""
    start = time.perf_counter()
    paths = default_paths(project, output, staging)
    _check_disposable(paths.staging, STAGING_MARKER, "generated docs folder")  # before any work
    _check_disposable(paths.output, None, "built site")
    corpus = load_corpus(project)
    files = generate_docs(corpus, paths.source)
    sync_tree(files, paths.staging)
    warnings = run_mkdocs(paths, strict, site_url)
    pages = sum(1 for rel in files if rel.endswith(".md"))
    return SiteBuild(paths, pages, len(files), time.perf_counter() - start, warnings)


def clean(paths: SitePaths) -> None:
    for folder, marker in ((paths.staging, STAGING_MARKER), (paths.output, None)):
        if folder.exists():
            _check_disposable(folder, marker, "site folder")
            shutil.rmtree(folder)

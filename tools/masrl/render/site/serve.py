"""`masrl site serve`: mkdocs' live-reloading server over the generated docs folder, plus a
watcher that regenerates that folder when the YAML or the hand-written site sources change.

mkdocs watches the generated folder itself; since syncing rewrites only changed files, an edit
to one entry rebuilds the site once, and an invalid edit leaves the last good pages in place.
"""

from __future__ import annotations

import logging
import signal
import threading
from collections.abc import Callable
from pathlib import Path

from masrl.check.validate import CorpusInvalid, load_corpus
from masrl.model.project import Project
from masrl.render.site.builder import MKDOCS_HOOKS, default_paths, generate_docs, sync_tree
from masrl.render.site.errors import SiteError

# As often as mkdocs polls the generated folder; one look at a 200-file corpus costs 3-4 ms.
POLL_SECONDS = 0.5


def watched_paths(project: Project, source: Path) -> list[Path]:
    """Everything the pages are generated from (folders are watched recursively)."""
    names = ("corpus", "exclusions", "taxonomy", "claims", "docs_fragments", "CONTRIBUTING.md")
    return [project.root / name for name in names] + [source]


def fingerprint(paths: list[Path]) -> tuple:
    """A cheap summary of every file's path, size and modification time."""
    files = []
    for path in paths:
        files += (
            [p for p in path.rglob("*") if p.is_file()]
            if path.is_dir()
            else [path]
            if path.is_file()
            else []
        )
    return tuple(sorted((str(p), p.stat().st_size, p.stat().st_mtime_ns) for p in files))


def regenerate(project: Project, source: Path, staging: Path, echo: Callable[[str], None]) -> None:
    try:
        changed = sync_tree(generate_docs(load_corpus(project), source), staging)
    except CorpusInvalid as exc:
        echo(
            exc.report.render("text")
            + "the pages stay as they were until the corpus validates again"
        )
        return
    except SiteError as exc:
        echo(f"site: {exc}")
        return
    if changed:
        echo(f"site: regenerated {len(changed)} file(s)")


def _watch(project: Project, source: Path, staging: Path, echo, stop: threading.Event) -> None:
    folders = watched_paths(project, source)
    last = fingerprint(folders)
    while not stop.wait(POLL_SECONDS):
        current = fingerprint(folders)
        if current != last:
            last = current
            regenerate(project, source, staging, echo)


def serve_site(
    project: Project,
    host: str = "127.0.0.1",
    port: int = 8000,
    staging: Path | None = None,
    echo: Callable[[str], None] = print,
) -> None:
    from mkdocs.commands.serve import serve

    check_address(host, port)  # before the site is generated: a taken port fails at once
    paths = default_paths(project, staging=staging)
    sync_tree(generate_docs(load_corpus(project), paths.source), paths.staging)
    handler = logging.StreamHandler()
    handler.setFormatter(logging.Formatter("%(levelname)-7s -  %(message)s"))
    logger = logging.getLogger("mkdocs")
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    stop = threading.Event()
    watcher = threading.Thread(
        target=_watch, args=(project, paths.source, paths.staging, echo, stop), daemon=True
    )
    watcher.start()
    stopped_as_by_ctrl_c = _stop_on_sigterm()
    try:
        # The preview lives at the root of the local address, not under the published site_url's path.
        serve(
            str(paths.config_file),
            livereload=True,
            dev_addr=f"{host}:{port}",
            docs_dir=str(paths.staging),
            site_url=f"http://{host}:{port}/",
            hooks=[MKDOCS_HOOKS],
        )
    finally:
        stop.set()
        logger.removeHandler(handler)
        stopped_as_by_ctrl_c()


def check_address(host: str, port: int) -> None:
    """Refuse a port out of range, a host that is not this machine's, or a port already taken,
    with the fix, rather than mkdocs' traceback."""
    import socket

    if not 1 <= port <= 65535:
        raise SiteError(f"--port {port} is not a port number", hint="use one from 1 to 65535")
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError) as exc:
        raise SiteError(
            f"--host {host!r} is not an address of this machine ({exc})",
            hint="use 127.0.0.1 (this machine only) or 0.0.0.0 (every network)",
        ) from exc
    family, kind, protocol, _, address = infos[0]
    with socket.socket(family, kind, protocol) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as the server binds
        try:
            probe.bind(address)
        except OSError as exc:
            raise SiteError(
                f"cannot listen on {host}:{port} ({exc.strerror or exc})",
                hint="the port is taken (another preview still running?): choose another with --port",
            ) from exc


def _interrupt(signum, frame):
    raise KeyboardInterrupt


def _stop_on_sigterm() -> Callable[[], None]:
    """SIGTERM (`kill`, a process manager, a test) stops the preview as Ctrl-C does, so mkdocs
    removes the temporary folder it serves from; returns the undo."""
    if threading.current_thread() is not threading.main_thread():
        return lambda: None
    previous = signal.signal(signal.SIGTERM, _interrupt)
    return lambda: signal.signal(signal.SIGTERM, previous)

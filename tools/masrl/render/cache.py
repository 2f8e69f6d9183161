"""The render cache: output kept by a hash of everything it is drawn from.

matplotlib is the slow part of `masrl build`, `masrl check` and the site build. The same inputs
(corpus, taxonomy, trace file, all of masrl's code, matplotlib version) always give the same bytes, so a
render is read back instead of drawn again, and output stays byte-identical. STATS.md and README's
paper list, which grow with the corpus, are kept the same way (corpus_inputs below).

One folder, one setting: ``MASRL_CACHE_DIR`` (default ``~/.cache/masrl``; ``off`` draws every
time). Each kind of render keeps its entries under ``<folder>/<kind>/<key>/``, where the key
hashes the inputs. Delete the folder at any time.

A cache entry is trusted only if it is authentic: every stored file is sealed by an HMAC of its
place in the cache and its content, keyed by a secret kept outside the cache folder
(``MASRL_CACHE_KEY_FILE``; see masrl.sealed), so a file rewritten by anyone who can write the
cache is a miss and is drawn afresh. Without a usable key the cache is off.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from masrl.files import lock_within
from masrl.sealed import CACHE_ENV as CACHE_ENV
from masrl.sealed import KEY_ENV as KEY_ENV
from masrl.sealed import SealedFolder, cache_key, cache_root

if TYPE_CHECKING:
    from masrl.model.project import Corpus

INDEX = "index.json"
LOCK = ".lock"  # beside the sealed files, whose names never start with a dot
# How long a render waits for another process making the same renders before making them too: a
# lock held longer (a stuck process, or a lock file someone else holds on purpose) only costs time.
LOCK_WAIT = 600.0


@functools.cache
def _version(package: str) -> str:
    # Looked up once per process: each importlib.metadata lookup scans site-packages, and the
    # site build asks once per figure kind and trace example.
    from importlib.metadata import version

    return version(package)


@functools.cache
def package_source_digest(package: Path = Path(__file__).resolve().parents[1]) -> bytes:
    """A digest of every source file of the masrl package, by path: read once per process."""
    digest = hashlib.sha256()
    for path in sorted(package.rglob("*")):
        if path.is_file() and path.suffix in (".py", ".js", ".css", ".html", ".json", ".yaml"):
            digest.update(
                path.relative_to(package).as_posix().encode() + b"\0" + path.read_bytes() + b"\0"
            )
    return digest.digest()


def code_fingerprint(packages: tuple[str, ...] = ("matplotlib",)) -> bytes:
    """All of masrl's code, and the versions of the packages a render is made with: any change to
    either renders again. Keyed on content only, with no list of the modules a render depends on
    to keep up to date, so `masrl check` can trust what the cache gives back (versions read from
    the installed metadata: importing matplotlib would cost seconds)."""
    parts = [f"{package} {_version(package)}".encode() for package in packages]
    return b"\0".join([*parts, package_source_digest()])


def corpus_inputs(corpus: Corpus) -> list[bytes]:
    """What a render of the corpus is made from, besides the code: its records (as a digest), its
    taxonomy files and the published snapshot that reports stand beside."""
    from masrl.check.snapshot import PUBLISHED_SNAPSHOT, snapshot_path
    from masrl.exports.json import corpus_digest

    inputs: list[bytes] = [Hashed(corpus_digest(corpus))]
    inputs += [
        path.name.encode() + b"\0" + path.read_bytes()
        for path in sorted(Path(corpus.taxonomy.directory).glob("*.yaml"))
    ]
    snapshot = snapshot_path(corpus.project, PUBLISHED_SNAPSHOT)
    inputs.append(snapshot.read_bytes() if snapshot.is_file() else b"no snapshot")
    return inputs


class Hashed(bytes):
    """The SHA-256 of an input, given to RenderCache.keyed in place of an input too large to hold
    (the corpus's records: exports.json.corpus_digest)."""


class RenderCache(SealedFolder):
    """The stored renders of one set of inputs, each file sealed to "<kind>/<digest>/<name>"; a
    cache without a folder or a key stores nothing."""

    @classmethod
    def keyed(cls, kind: str, inputs: Iterable[bytes]) -> RenderCache:
        """The cache of the renders of ``inputs`` (each bytes, or the Hashed digest of one)."""
        root = cache_root()
        if root is None:
            return cls(None)
        digest = hashlib.sha256()
        for part in inputs:
            digest.update(part if isinstance(part, Hashed) else hashlib.sha256(part).digest())
        place = f"{kind}/{digest.hexdigest()[:32]}"
        return cls(root / place, cache_key(root), place)

    def _file(self, name: str) -> Path:
        return self.path_for(name)

    @contextlib.contextmanager
    def making(self) -> Iterator[None]:
        """Held while this key's renders are made: another process wanting the same renders (two
        `masrl` commands at once, a site build beside `masrl build`) waits, then reads them back
        instead of drawing them again. Callers look in the cache again once they hold it."""
        descriptor = self._lock_file()
        if descriptor is None:  # no cache, or one that cannot be written: only costs time
            yield
            return
        try:
            # Not taken in time, or not at all: this process makes the renders too.
            with contextlib.suppress(OSError):
                lock_within(descriptor, LOCK_WAIT)
            yield
        finally:
            os.close(descriptor)  # releases the lock

    def _lock_file(self) -> int | None:
        if self.directory is None:
            return None
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            # Never through a planted link; a planted FIFO opens without blocking.
            return os.open(
                self.directory / LOCK,
                os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK,
                0o600,
            )
        except OSError:
            return None

    def get_all(self) -> dict[str, bytes] | None:
        """Every file stored by put_all, or None unless all of them are there and intact."""
        index = self.get(INDEX)
        if index is None:
            return None
        try:
            names = json.loads(index)
        except ValueError:
            return None
        files = {name: self.get(f"files/{name}") for name in names}
        return files if all(content is not None for content in files.values()) else None  # type: ignore[return-value]

    def put_all(self, files: dict[str, bytes]) -> None:
        for name, content in files.items():
            self.put(f"files/{name}", content)
        self.put(INDEX, json.dumps(sorted(files)).encode("utf-8"))


def cached_files(
    kind: str, inputs: Iterable[bytes], produce: Callable[[], dict[str, bytes]]
) -> dict[str, bytes]:
    """produce() once per distinct inputs; later calls (in any process) read its files back."""
    cache = RenderCache.keyed(kind, inputs)
    stored = cache.get_all()
    if stored is not None:
        return stored
    with cache.making():
        stored = cache.get_all()  # made by another process while this one waited
        if stored is not None:
            return stored
        files = produce()
        cache.put_all(files)
    return files

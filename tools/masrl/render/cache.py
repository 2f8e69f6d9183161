"""The render cache: output kept by a hash of everything it is drawn from.

matplotlib is the slow part of `masrl build`, `masrl check` and the site build. The same inputs
(corpus, taxonomy, trace file, all of masrl's code, matplotlib version) always give the same bytes, so a
render is read back instead of drawn again, and output stays byte-identical.

One folder, one setting: ``MASRL_CACHE_DIR`` (default ``~/.cache/masrl``; ``off`` draws every
time). Each kind of render keeps its entries under ``<folder>/<kind>/<key>/``, where the key
hashes the inputs. Every stored file carries its own SHA-256, and a file that no longer matches
it (tampered with, truncated) is ignored and drawn afresh. Delete the folder at any time.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
from collections.abc import Callable, Iterable
from pathlib import Path

from masrl.files import replace_atomically

CACHE_ENV = "MASRL_CACHE_DIR"
INDEX = "index.json"


def cache_root() -> Path | None:
    """The cache folder, or None when MASRL_CACHE_DIR is "off"."""
    setting = os.environ.get(CACHE_ENV, "")
    if setting.lower() == "off":
        return None
    return Path(setting) if setting else Path.home() / ".cache" / "masrl"


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


class RenderCache:
    """The stored renders of one set of inputs; a cache without a folder stores nothing."""

    def __init__(self, directory: Path | None):
        self.directory = directory

    @classmethod
    def keyed(cls, kind: str, inputs: Iterable[bytes]) -> RenderCache:
        root = cache_root()
        if root is None:
            return cls(None)
        digest = hashlib.sha256()
        for part in inputs:
            digest.update(hashlib.sha256(part).digest())
        return cls(root / kind / digest.hexdigest()[:32])

    def _file(self, name: str) -> Path:
        return self.directory / name.replace("/", "__")

    def get(self, name: str) -> bytes | None:
        """The stored bytes, or None when absent or when they fail their checksum."""
        if self.directory is None:
            return None
        try:
            stored = self._file(name).read_bytes()
        except OSError:
            return None
        checksum, _, content = stored.partition(b"\n")
        return content if hashlib.sha256(content).hexdigest().encode() == checksum else None

    def put(self, name: str, content: bytes) -> None:
        if self.directory is None:
            return
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            stored = hashlib.sha256(content).hexdigest().encode() + b"\n" + content
            replace_atomically(self._file(name), stored, 0o600)
        except OSError:
            pass  # a cache that cannot be written only costs time

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
    """produce() once per distinct inputs; later calls read its files back."""
    cache = RenderCache.keyed(kind, inputs)
    stored = cache.get_all()
    if stored is not None:
        return stored
    files = produce()
    cache.put_all(files)
    return files

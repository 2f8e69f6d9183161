"""The render cache: output kept by a hash of everything it is drawn from.

matplotlib is the slow part of `masrl build`, `masrl check` and the site build. The same inputs
(corpus, taxonomy, trace file, all of masrl's code, matplotlib version) always give the same bytes, so a
render is read back instead of drawn again, and output stays byte-identical.

One folder, one setting: ``MASRL_CACHE_DIR`` (default ``~/.cache/masrl``; ``off`` draws every
time). Each kind of render keeps its entries under ``<folder>/<kind>/<key>/``, where the key
hashes the inputs. Delete the folder at any time.

A cache entry is trusted only if it is authentic: every stored file carries an HMAC-SHA256 of its
place in the cache and its content, keyed by a secret kept outside the cache folder, so a file
rewritten by anyone who can write the cache (with a recomputed checksum or moved from another
entry) is a miss and is drawn afresh. The secret is 32 random bytes in ``MASRL_CACHE_KEY_FILE``
(default ``$XDG_STATE_HOME/masrl/cache.key``, i.e. ``~/.local/state/masrl/cache.key``), created
on first use with mode 0600. A key file that cannot be read or created, or that lies inside the
cache folder, turns the cache off.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import json
import os
import secrets
from collections.abc import Callable, Iterable
from pathlib import Path

from masrl.errors import WriteError
from masrl.files import replace_atomically

CACHE_ENV = "MASRL_CACHE_DIR"
KEY_ENV = "MASRL_CACHE_KEY_FILE"
KEY_BYTES = 32
INDEX = "index.json"


def cache_root() -> Path | None:
    """The cache folder, or None when MASRL_CACHE_DIR is "off"."""
    setting = os.environ.get(CACHE_ENV, "")
    if setting.lower() == "off":
        return None
    return Path(setting) if setting else Path.home() / ".cache" / "masrl"


def key_file() -> Path:
    """Where the cache's secret lives: MASRL_CACHE_KEY_FILE, else the user's state folder."""
    setting = os.environ.get(KEY_ENV, "")
    if setting:
        return Path(setting)
    state = os.environ.get("XDG_STATE_HOME") or Path.home() / ".local" / "state"
    return Path(state) / "masrl" / "cache.key"


def cache_key(root: Path) -> bytes | None:
    """The secret that authenticates the entries under ``root``, created on first use; None when
    it cannot be read or created, or would sit inside the cache folder it guards."""
    path = key_file()
    if path.resolve().is_relative_to(root.resolve()):
        return None
    return _read_or_create_key(str(path.resolve()))


@functools.cache
def _read_or_create_key(path: str) -> bytes | None:
    # Read once per process. Two processes creating the key at once each write a whole key and
    # the last rename wins: the loser's entries are misses, drawn again, never trusted wrongly.
    try:
        key = Path(path).read_bytes()
    except FileNotFoundError:
        try:
            os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
            replace_atomically(path, secrets.token_bytes(KEY_BYTES), 0o600)
            key = Path(path).read_bytes()
        except (OSError, WriteError):
            return None
    except OSError:
        return None
    return key if len(key) >= KEY_BYTES else None


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
    """The stored renders of one set of inputs; a cache without a folder or a key stores nothing."""

    def __init__(self, directory: Path | None, key: bytes | None = None, place: str = ""):
        self.directory = directory if key is not None else None
        self.key = key
        self.place = place  # "<kind>/<digest>": bound into each file's HMAC

    @classmethod
    def keyed(cls, kind: str, inputs: Iterable[bytes]) -> RenderCache:
        root = cache_root()
        if root is None:
            return cls(None)
        digest = hashlib.sha256()
        for part in inputs:
            digest.update(hashlib.sha256(part).digest())
        place = f"{kind}/{digest.hexdigest()[:32]}"
        return cls(root / place, cache_key(root), place)

    def _file(self, name: str) -> Path:
        return self.directory / name.replace("/", "__")

    def _tag(self, name: str, content: bytes) -> bytes:
        message = f"{self.place}/{name}".encode() + b"\0" + content
        return hmac.new(self.key, message, hashlib.sha256).hexdigest().encode()

    def get(self, name: str) -> bytes | None:
        """The stored bytes, or None when absent or not authentic (tampered with, truncated,
        moved from another entry, written under another key)."""
        if self.directory is None:
            return None
        try:
            stored = self._file(name).read_bytes()
        except OSError:
            return None
        tag, _, content = stored.partition(b"\n")
        return content if hmac.compare_digest(tag, self._tag(name, content)) else None

    def put(self, name: str, content: bytes) -> None:
        if self.directory is None:
            return
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            stored = self._tag(name, content) + b"\n" + content
            # Not fsynced: a file cut short by a power failure fails its HMAC and is drawn again.
            replace_atomically(self._file(name), stored, 0o600, durable=False)
        except (OSError, WriteError):
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

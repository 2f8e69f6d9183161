"""Cache files trusted only when a key kept outside the cache folder authenticates them.

Every cache masrl keeps (renders, OpenAlex answers, arXiv metadata) stores each file as a line
holding an HMAC-SHA256 tag, then the content. The tag covers the file's place in its cache and
its content, so a file rewritten by anyone who can write the cache (with a recomputed checksum,
cut short, moved from another place, or written under another key) is a miss: the caller derives
or asks for it afresh. Files from before sealing are misses too.

The secret is 32 random bytes in ``MASRL_CACHE_KEY_FILE`` (default
``$XDG_STATE_HOME/masrl/cache.key``, i.e. ``~/.local/state/masrl/cache.key``), created on first
use with mode 0600. A key file that cannot be read or created, or that lies inside the cache
folder it would guard, turns that cache off: nothing is stored and nothing read back.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import os
import secrets
from pathlib import Path

from masrl.errors import InputError, WriteError
from masrl.files import read_regular_bytes, replace_atomically

CACHE_ENV = "MASRL_CACHE_DIR"
KEY_ENV = "MASRL_CACHE_KEY_FILE"
KEY_BYTES = 32
MAX_ENTRY_BYTES = 64 * 1024 * 1024


def cache_root() -> Path | None:
    """The cache folder, or None when MASRL_CACHE_DIR is "off"."""
    setting = os.environ.get(CACHE_ENV, "")
    if setting.lower() == "off":
        return None
    return Path(setting) if setting else Path.home() / ".cache" / "masrl"


def key_file() -> Path:
    """Where the caches' secret lives: MASRL_CACHE_KEY_FILE, else the user's state folder."""
    setting = os.environ.get(KEY_ENV, "")
    if setting:
        return Path(setting)
    state = os.environ.get("XDG_STATE_HOME") or Path.home() / ".local" / "state"
    return Path(state) / "masrl" / "cache.key"


def cache_key(root: Path) -> bytes | None:
    """The secret that authenticates the entries under ``root``, created on first use; None when
    it cannot be read or created, or would sit inside the cache folder it guards (or inside the
    cache root, where whoever writes one cache writes them all)."""
    path = key_file().resolve()
    guarded = [root, *filter(None, [cache_root()])]
    if any(path.is_relative_to(folder.resolve()) for folder in guarded):
        return None
    return _read_or_create_key(str(path))


@functools.cache
def _read_or_create_key(path: str) -> bytes | None:
    # Read once per process. Two processes creating the key at once each write a whole key and
    # the last rename wins: the loser's entries are misses, made again, never trusted wrongly.
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


def tag(key: bytes, place: str, content: bytes) -> bytes:
    """The hex HMAC-SHA256 of a file's place and content."""
    return hmac.new(key, place.encode() + b"\0" + content, hashlib.sha256).hexdigest().encode()


def seal(key: bytes, place: str, content: bytes) -> bytes:
    """What is stored: the tag, a newline, the content."""
    return tag(key, place, content) + b"\n" + content


def unseal(key: bytes, place: str, stored: bytes) -> bytes | None:
    """The content of a stored file, or None unless its tag authenticates it at ``place``."""
    found, _, content = stored.partition(b"\n")
    return content if hmac.compare_digest(found, tag(key, place, content)) else None


class SealedFolder:
    """Sealed files under one folder, the file ``name`` sealed to the place ``<place>/<name>``.
    Without a folder or a key it stores nothing and finds nothing."""

    def __init__(
        self,
        directory: Path | None,
        key: bytes | None = None,
        place: str = "",
        limit: int = MAX_ENTRY_BYTES,
    ):
        self.directory = directory if key is not None else None
        self.key = key
        self.place = place
        self.limit = limit  # a larger file is a miss, never read whole

    @classmethod
    def at(cls, directory: Path | None, place: str, limit: int = MAX_ENTRY_BYTES) -> SealedFolder:
        """The folder, authenticated by the caches' key unless that key is unusable."""
        key = cache_key(directory) if directory is not None else None
        return cls(directory, key, place, limit)

    def path_for(self, name: str) -> Path:
        return self.directory / name.replace("/", "__")

    def get(self, name: str) -> bytes | None:
        """The stored bytes, or None when absent or not authentic (tampered with, truncated,
        moved from another place, written under another key, not a regular file)."""
        if self.directory is None:
            return None
        try:
            stored = read_regular_bytes(self.path_for(name), self.directory, self.limit)
        except (OSError, InputError):
            return None
        return unseal(self.key, f"{self.place}/{name}", stored)

    def put(self, name: str, content: bytes) -> None:
        if self.directory is None:
            return
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            stored = seal(self.key, f"{self.place}/{name}", content)
            # Not fsynced: a file cut short by a power failure fails its HMAC and is made again.
            replace_atomically(self.path_for(name), stored, 0o600, durable=False)
        except (OSError, WriteError):
            pass  # a cache that cannot be written only costs time

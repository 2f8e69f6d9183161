"""Renders cached by the hash of everything they are drawn from.

matplotlib is the slowest part of a site build; a figure whose inputs (data, drawing code,
matplotlib version) have not changed is read back instead of drawn again. The cache holds only
what a render would produce, so output stays byte-identical; delete the folder at any time.
Set MASRL_RENDER_CACHE to move it, or to "off" to draw every time.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable
from pathlib import Path


def cache_dir() -> Path | None:
    setting = os.environ.get("MASRL_RENDER_CACHE", "")
    if setting.lower() == "off":
        return None
    return Path(setting) if setting else Path.home() / ".cache" / "masrl" / "renders"


def code_fingerprint(*modules) -> bytes:
    """The drawing code's source and the matplotlib version: a change to either redraws."""
    import matplotlib

    parts = [matplotlib.__version__.encode()]
    for module in modules:
        parts.append(Path(module.__file__).read_bytes())
    return b"\0".join(parts)


def cached_files(kind: str, inputs: list[bytes], produce: Callable[[], dict[str, bytes]]) -> dict[str, bytes]:
    """produce() once per distinct inputs; text files only (SVG), stored as one JSON file."""
    folder = cache_dir()
    if folder is None:
        return produce()
    digest = hashlib.sha256()
    for part in inputs:
        digest.update(hashlib.sha256(part).digest())
    path = folder / f"{kind}-{digest.hexdigest()}.json"
    try:
        stored = json.loads(path.read_text(encoding="utf-8"))
        return {name: text.encode("utf-8") for name, text in stored.items()}
    except (OSError, ValueError, AttributeError):
        pass  # not cached yet, or unreadable: draw it
    files = produce()
    try:
        folder.mkdir(parents=True, exist_ok=True)
        temp = path.with_suffix(f".{os.getpid()}.tmp")
        temp.write_text(json.dumps({k: v.decode("utf-8") for k, v in files.items()}, sort_keys=True), encoding="utf-8")
        os.replace(temp, path)
    except (OSError, UnicodeDecodeError):
        pass  # a cache that cannot be written only costs time
    return files

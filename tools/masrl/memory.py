"""Memory handling shared by the commands that build many small objects at once."""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator


@contextlib.contextmanager
def cycle_collection_paused() -> Iterator[None]:
    """Pause Python's cycle collector while a command builds and keeps many small objects (the
    fields of every record, an import's plan): each full collection would walk everything built
    so far, and what is built holds no cycles, so reference counting frees it. A cycle, if any,
    waits for the first collection after the pause."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()

"""The live corpus of this checkout, loaded once per test process.

Loading and validating the real corpus is the costliest fixture of the suite, and a dozen modules
read it (xdist runs a module's tests on both workers, so a module fixture loads it up to twice).
Every one of them reads the same records and none changes them (entries and exclusions are frozen
models), so they share one load.
"""

from __future__ import annotations

import functools

from conftest import REPO_ROOT
from masrl.check.validate import load_corpus
from masrl.model.project import Corpus, Project


@functools.cache
def live_corpus() -> Corpus:
    return load_corpus(Project(REPO_ROOT))

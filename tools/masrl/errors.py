"""The one family of errors masrl's library raises.

Library code never prints and never exits: it raises a ``MasrlError`` (or a subclass) carrying
the file, the line where there is one, and a hint. The command line (``masrl.cli``) turns every
``MasrlError`` into a single line on standard error and the error's exit code, so a user never
sees a traceback for something their input caused.
"""

from __future__ import annotations

from pathlib import Path


class MasrlError(Exception):
    """Something a user can cause and fix: bad input, a refused write, an unreachable server."""

    exit_code = 1

    def __init__(
        self,
        message: str,
        *,
        path: str | Path | None = None,
        line: int | None = None,
        hint: str | None = None,
    ):
        super().__init__(message)
        self.message = message
        self.path = str(path) if path is not None else None
        self.line = line
        self.hint = hint

    def nothing_written(self) -> MasrlError:
        """The same error, saying that the command wrote nothing."""
        return _suffixed(self, "; nothing was written")

    def __str__(self) -> str:
        where = ""
        if self.path:
            where = f"{self.path}:{self.line}: " if self.line else f"{self.path}: "
        hint = f" ({self.hint})" if self.hint else ""
        return f"{where}{self.message}{hint}"


class InputError(MasrlError):
    """A file or value that is malformed, of the wrong type, or too large to accept."""


class UsageError(MasrlError):
    """Options that do not fit together, or a request masrl does not understand."""

    exit_code = 2


class UnsafeWriteError(MasrlError):
    """A write masrl refuses: outside the tree, over a non-regular file, or through a symlink."""


class WriteError(MasrlError):
    """A write the system refused: a full disk, no permission, a read-only file system."""


class RemoteError(MasrlError):
    """A server (arXiv, a mirror) that did not answer usefully."""


class ProblemsError(InputError):
    """A file with several problems, each already a `path:line: message` line."""

    def __init__(self, path: str | Path, problems: list[str], heading: str | None = None):
        self.problems = list(problems)
        lines = ([heading] if heading else []) + [f"  {p}" if heading else p for p in self.problems]
        super().__init__("\n".join(lines))
        self.path = str(path)

    def __str__(self) -> str:  # the problems name their own files and lines
        return self.message

    def nothing_written(self) -> ProblemsError:
        """The same problems, saying that the command wrote nothing (its plan was refused)."""
        return ProblemsError(self.path, [*self.problems, "nothing was written"])


def _suffixed(error: MasrlError, suffix: str) -> MasrlError:
    """A plain MasrlError of the same exit code whose message ends with ``suffix``."""
    copy = MasrlError(error.message + suffix, path=error.path, line=error.line, hint=error.hint)
    copy.exit_code = error.exit_code
    return copy

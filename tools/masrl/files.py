"""Safe file writing and reading: the one place masrl touches the file system for data.

Every writer (generated files, ``-o`` outputs, imports, ``add``, the site builder) goes through
``write_atomic`` / ``write_if_changed``, which:

- write a temporary file with an unpredictable name (``tempfile``) in the target's own folder and
  rename it over the target, so a crash never leaves half a file and a symlink planted at a
  guessable temporary name cannot redirect the write;
- refuse to replace anything that is not a regular file (a device such as ``/dev/null``, a FIFO,
  a folder, a socket);
- refuse a target, or a folder on the way to it, that resolves outside ``root`` (the checkout or
  the output folder), so a symlink cannot send a write out of the tree.

``read_regular_text`` is the reading counterpart: only regular files inside the tree, with a
size cap, so a symlink to ``/dev/zero``, a FIFO or a symlink loop is a clear error, not a hang.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from pathlib import Path

from masrl.errors import InputError, UnsafeWriteError

# Largest data file masrl reads (YAML records, taxonomy, CSV/BibTeX imports); far above any real one.
MAX_READ_BYTES = 64 * 1024 * 1024


def _inside(path: str | Path, root: str | Path) -> bool:
    """Whether a resolved path is the resolved root or lies below it (compared as strings: cheaper
    than Path.parents, and a sibling sharing the root's name prefix is outside)."""
    path, root = os.fspath(path), os.fspath(root)
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def resolve_target(path: Path, root: Path | None = None) -> Path:
    """The real path a write to ``path`` lands on, after checking it is safe to replace.

    root: the folder the write must stay in; by default the target's own folder, so a symlink
    named on the command line cannot point anywhere else.
    """
    path = Path(path).absolute()
    root = Path(root if root is not None else path.parent).resolve()
    try:
        real = path.resolve()  # follows every symlink that exists; a loop raises
    except (OSError, RuntimeError) as exc:
        raise UnsafeWriteError(
            "cannot resolve the path (a symlink loop?)", path=path, hint="remove the symlink"
        ) from exc
    if not _inside(real, root):
        raise UnsafeWriteError(
            f"refusing to write outside {root}: the path resolves to {real}",
            path=path,
            hint="remove the symlink or choose a path inside the folder",
        )
    try:
        mode = os.stat(real).st_mode
    except FileNotFoundError:
        return real
    except OSError as exc:
        raise UnsafeWriteError(f"cannot inspect the target ({exc.strerror})", path=path) from exc
    if not stat.S_ISREG(mode):
        kind = "a folder" if stat.S_ISDIR(mode) else "not a regular file (a device, FIFO or socket)"
        raise UnsafeWriteError(
            f"refusing to replace it: it is {kind}",
            path=path,
            hint="write to a regular file instead",
        )
    return real


def write_atomic(path: Path, content: str | bytes, root: Path | None = None) -> None:
    """Write through an unpredictable temporary file in the same folder, then rename."""
    real = resolve_target(path, root)
    real.parent.mkdir(parents=True, exist_ok=True)
    data = content.encode("utf-8") if isinstance(content, str) else content
    try:
        mode = os.stat(real).st_mode & 0o777
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        mode = 0o666 & ~umask
    replace_atomically(real, data, mode)


def replace_atomically(target: Path | str, data: bytes, mode: int) -> None:
    """Write ``data`` to an unpredictable temporary file beside ``target`` (created with O_EXCL,
    so a planted name is never followed), give it ``mode``, then rename it over ``target``."""
    folder, name = os.path.split(os.fspath(target))
    descriptor, temporary = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(data)
        os.chmod(temporary, mode)
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def write_if_changed(path: Path, content: bytes, root: Path | None = None) -> bool:
    """Write unless the file already holds exactly these bytes; True when written. An existing
    file is replaced atomically; a new one is created in place, as write_many does (a generated
    site is mostly new files, and a temporary file and a rename each cost as much as the write)."""
    real = resolve_target(path, root)
    if not real.is_file():
        real.parent.mkdir(parents=True, exist_ok=True)
        _create_new(os.fspath(real), content)
        return True
    if real.stat().st_size == len(content) and real.read_bytes() == content:
        return False
    write_atomic(real, content, root=root if root is not None else real.parent)
    return True


def read_regular_bytes(path: Path, root: Path | None = None, limit: int = MAX_READ_BYTES) -> bytes:
    """Bytes of a regular file inside ``root`` (when given), at most ``limit`` of them.

    Raises InputError for a FIFO, a device (a symlink to /dev/zero), a folder, a symlink loop, a
    symlink leading out of the tree, or a file over the limit; nothing here can block forever.
    """
    path = Path(path)
    # os.path rather than pathlib: a corpus is read file by file, and Path objects for every
    # parent made this check cost eight times the read itself.
    try:
        real = os.path.realpath(path, strict=True)
    except FileNotFoundError as exc:
        raise InputError("the file does not exist (or is a dangling symlink)", path=path) from exc
    except (OSError, RuntimeError) as exc:
        raise InputError(
            "cannot resolve the path (a symlink loop?)", path=path, hint="remove the symlink"
        ) from exc
    if root is not None:
        folder = os.path.realpath(root)
        if not _inside(real, folder):
            raise InputError(
                f"refusing to read outside {folder}: the path resolves to {real}",
                path=path,
                hint="replace the symlink by the file itself",
            )
    # O_NONBLOCK: opening a FIFO must not wait for a writer; the mode check below refuses it.
    try:
        descriptor = os.open(real, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise InputError(f"cannot read the file ({exc.strerror})", path=path) from exc
    try:
        info = os.fstat(descriptor)
        if not stat.S_ISREG(info.st_mode):
            kind = (
                "a folder"
                if stat.S_ISDIR(info.st_mode)
                else "not a regular file (a device, FIFO or socket)"
            )
            raise InputError(
                f"refusing to read it: it is {kind}", path=path, hint="replace it by a regular file"
            )
        if info.st_size > limit:
            raise InputError(
                f"the file is {info.st_size} bytes, over the limit of {limit}", path=path
            )
    except BaseException:
        os.close(descriptor)
        raise
    with os.fdopen(descriptor, "rb") as handle:
        # The size fstat gave and one byte more (asking for limit + 1 at once would allocate 64 MiB
        # per file); a file that grew since is read on, up to the limit.
        data = handle.read(info.st_size + 1)
        if len(data) > info.st_size:
            data += handle.read(limit + 1 - len(data))
    if len(data) > limit:
        raise InputError(f"the file is over the limit of {limit} bytes", path=path)
    return data


def read_regular_text(
    path: Path, root: Path | None = None, encoding: str = "utf-8", limit: int = MAX_READ_BYTES
) -> str:
    """Text of a regular file (see read_regular_bytes); undecodable bytes are an InputError."""
    data = read_regular_bytes(path, root, limit)
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as exc:
        raise InputError(
            f"the file is not valid UTF-8 text (byte {exc.start})",
            path=path,
            hint="save the file as UTF-8",
        ) from exc


def write_many(items: list[tuple[Path, str | bytes]], root: Path) -> None:
    """write_atomic for many files (a bulk import): each folder is checked once, each target by
    one lstat; a target that is a symlink takes the full write_atomic path."""
    root = Path(root).resolve()
    checked: dict[
        str, str
    ] = {}  # folder as given -> its checked real path (strings: 100,000 files)
    for path, content in items:
        given_folder, name = os.path.split(os.path.abspath(path))
        folder = checked.get(given_folder)
        if folder is None:
            Path(given_folder).mkdir(parents=True, exist_ok=True)
            folder = checked[given_folder] = os.fspath(
                resolve_target(Path(given_folder, ".masrl-probe"), root).parent
            )
        target = os.path.join(folder, name)
        try:
            info = os.lstat(target)
        except FileNotFoundError:
            info = None
        if info is not None and stat.S_ISLNK(info.st_mode):
            write_atomic(Path(given_folder, name), content, root=root)
            continue
        if info is not None and not stat.S_ISREG(info.st_mode):
            raise UnsafeWriteError(
                "refusing to replace it: it is not a regular file",
                path=Path(given_folder, name),
                hint="write to a regular file instead",
            )
        data = content.encode("utf-8") if isinstance(content, str) else content
        if info is None:
            # A new file is created in place: O_EXCL refuses a name planted in the meantime, so
            # nothing is replaced or followed, and an error removes the part written. (A temporary
            # file and a rename per file doubled the time of a 100,000-row import; only a process
            # killed mid-write can leave one short new file, which validate then reports.)
            _create_new(target, data)
            continue
        replace_atomically(target, data, stat.S_IMODE(info.st_mode))


def _create_new(path: str, data: bytes) -> None:
    """Create ``path`` (never an existing name, never through a symlink) holding ``data``."""
    descriptor = os.open(
        path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o666
    )
    try:
        view = memoryview(data)
        while view:  # os.write may write less than asked
            view = view[os.write(descriptor, view) :]
    except BaseException:
        os.close(descriptor)
        with contextlib.suppress(OSError):
            os.unlink(path)
        raise
    os.close(descriptor)

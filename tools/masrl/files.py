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

``transaction(root)`` makes a command that changes several files all-or-nothing (an undo
journal, below); every writer here records into it while one is open.
"""

from __future__ import annotations

import base64
import contextlib
import contextvars
import errno
import json
import os
import stat
import tempfile
import time
from collections.abc import Iterable, Iterator
from pathlib import Path

from masrl.errors import InputError, UnsafeWriteError, WriteError

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


def write_atomic(
    path: Path, content: str | bytes | Iterable[str | bytes], root: Path | None = None
) -> None:
    """Write through an unpredictable temporary file in the same folder, then rename.
    ``content`` may come in pieces (an iterable of str or bytes), so a large output is never
    whole in memory; an error while making a piece leaves the old file as it was."""
    real = resolve_target(path, root)
    _make_folder(real.parent, shown=Path(path).parent)
    data = content.encode("utf-8") if isinstance(content, str) else content
    _before_change([os.fspath(real)])
    try:
        mode = os.stat(real).st_mode & 0o777
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        mode = 0o666 & ~umask
    replace_atomically(real, data, mode)


def replace_atomically(
    target: Path | str, data: bytes | Iterable[str | bytes], mode: int, durable: bool = True
) -> None:
    """Write ``data`` to an unpredictable temporary file beside ``target`` (created with O_EXCL,
    so a planted name is never followed), give it ``mode``, then rename it over ``target``.

    durable: fsync the file before the rename and the folder after it, so a power cut leaves the
    old or the new content, never an empty file (a bulk writer passes False and syncs once)."""
    folder, name = os.path.split(os.fspath(target))
    try:
        descriptor, temporary = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=folder)
    except OSError as exc:
        raise write_error(exc, target) from exc
    try:
        with os.fdopen(descriptor, "wb") as handle:
            if isinstance(data, bytes | bytearray):
                handle.write(data)
            else:
                for piece in data:
                    handle.write(piece.encode("utf-8") if isinstance(piece, str) else piece)
            if durable:
                handle.flush()
                os.fsync(handle.fileno())
        os.chmod(temporary, mode)
        os.replace(temporary, target)
        if durable:
            _sync_folder(folder)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        if isinstance(exc, OSError):
            raise write_error(exc, target) from exc
        raise


def write_if_changed(path: Path, content: bytes, root: Path | None = None) -> bool:
    """Write unless the file already holds exactly these bytes; True when written. An existing
    file is replaced atomically; a new one is created in place, as write_many does (a generated
    site is mostly new files, and a temporary file and a rename each cost as much as the write)."""
    real = resolve_target(path, root)
    if not real.is_file():
        _make_folder(real.parent)
        _before_change([os.fspath(real)])
        _create_new(os.fspath(real), content)
        return True
    if real.stat().st_size == len(content) and real.read_bytes() == content:
        return False
    write_atomic(real, content, root=root if root is not None else real.parent)
    return True


def sync_folder(
    root: Path, contents: dict[str, bytes], keep: frozenset[str] = frozenset()
) -> list[str]:
    """Make ``root``, a folder masrl makes again from its inputs (the site's generated docs),
    hold exactly ``contents`` ({"/"-separated path inside root: bytes}) and the paths in ``keep``;
    return the paths written, then those removed.

    One walk reads what the folder holds, never following a link. A file already holding the
    bytes is left alone; another is replaced atomically; a new one is created in place (O_EXCL,
    no link followed), as write_many does. Nothing is flushed to disk: a file a crash cuts short
    differs from its content and is written again by the next run. A symlink, or anything else
    that is not a regular file or folder, is removed, never followed; a folder standing where a
    file goes takes write_if_changed's way, which refuses it; folders left empty are removed."""
    real_root = os.path.realpath(root)
    files: dict[str, tuple[str, int]] = {}  # regular files: path -> (real path, size)
    folders: dict[str, str] = {"": real_root}
    others: dict[str, str] = {}  # links and anything else: removed
    pending = [("", real_root)]
    while pending:
        below, folder = pending.pop()
        with os.scandir(folder) as found:
            for item in found:
                rel = f"{below}/{item.name}" if below else item.name
                if item.is_dir(follow_symlinks=False):
                    folders[rel] = item.path
                    pending.append((rel, item.path))
                elif item.is_file(follow_symlinks=False):
                    files[rel] = (item.path, item.stat(follow_symlinks=False).st_size)
                else:
                    others[rel] = item.path
    removed = [rel for rel in others if rel not in keep]
    for rel in removed:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(others[rel])
    actions = []  # (path, its real path, content, how), in the order given
    for rel, content in contents.items():
        if rel in files:
            path, size = files[rel]
            if size != len(content) or _read_unfollowed(path, size) != content:
                actions.append((rel, path, content, "replace"))
        elif rel in folders:
            actions.append((rel, folders[rel], content, "refuse"))
        else:
            actions.append((rel, os.path.join(real_root, rel), content, "create"))
    _before_change([path for _, path, _, how in actions if how != "refuse"])
    written = []
    for rel, path, content, how in actions:
        if how == "create":
            parent = rel.rpartition("/")[0]
            if parent not in folders:
                _make_folder(Path(real_root, parent))
                while parent not in folders:
                    folders[parent] = os.path.join(real_root, parent)
                    parent = parent.rpartition("/")[0]
            _create_new(path, content)
        elif how == "replace":
            replace_atomically(path, content, stat.S_IMODE(os.lstat(path).st_mode), durable=False)
        elif not write_if_changed(Path(real_root, rel), content, root=Path(real_root)):
            continue  # (it raises: a folder is never replaced)
        written.append(rel)
    stale = [rel for rel in files if rel not in contents and rel not in keep]
    for rel in stale:
        os.unlink(files[rel][0])
    for rel in sorted(folders, reverse=True):
        if rel and rel not in keep and _is_empty(folders[rel]):
            os.rmdir(folders[rel])
    # removed paths listed folder by folder, the last folder first, names in order
    by_name = sorted([*removed, *stale], key=lambda rel: rel.rpartition("/")[2])
    return written + sorted(by_name, key=lambda rel: rel.rpartition("/")[0], reverse=True)


def _is_empty(folder: str) -> bool:
    with os.scandir(folder) as found:
        return next(found, None) is None


def _read_unfollowed(path: str, size: int) -> bytes:
    """A regular file's bytes (size and one more, to see it grew), not through a link."""
    descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    try:
        return os.read(descriptor, size + 1)
    finally:
        os.close(descriptor)


def read_regular_bytes(path: Path, root: Path | None = None, limit: int = MAX_READ_BYTES) -> bytes:
    """Bytes of a regular file inside ``root`` (when given), at most ``limit`` of them.

    Raises InputError for a FIFO, a device (a symlink to /dev/zero), a folder, a symlink loop, a
    symlink leading out of the tree, or a file over the limit; nothing here can block forever.
    """
    path = Path(path)
    descriptor = _open_in_own_folder(path, root)
    if descriptor is None:
        descriptor = _open_resolved(path, root)
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


# O_NONBLOCK: opening a FIFO must not wait for a writer; the mode check refuses it.
_READ_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0)


def _open_in_own_folder(path: Path, root: Path | None) -> int | None:
    """A descriptor for a file read from its own folder, opened without resolving any path: not
    following a final symlink is what keeps it inside that folder. None when the file is read
    against another root, or is a symlink or missing (the resolving open says which)."""
    no_follow = getattr(os, "O_NOFOLLOW", 0)
    if root is None or not no_follow:
        return None
    if os.path.dirname(os.path.abspath(path)) != os.path.abspath(root):
        return None
    try:
        return os.open(path, _READ_FLAGS | no_follow)
    except OSError:
        return None


def _open_resolved(path: Path, root: Path | None) -> int:
    """A descriptor for the file the path resolves to, refused when that is outside ``root``."""
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
    try:
        return os.open(real, _READ_FLAGS)
    except OSError as exc:
        raise InputError(f"cannot read the file ({exc.strerror})", path=path) from exc


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
    targets = []
    for path, _ in items:
        given_folder, name = os.path.split(os.path.abspath(path))
        folder = checked.get(given_folder)
        if folder is None:
            _make_folder(Path(given_folder))
            folder = checked[given_folder] = os.fspath(
                resolve_target(Path(given_folder, ".masrl-probe"), root).parent
            )
        targets.append((given_folder, name, os.path.join(folder, name)))
    _before_change([target for _, _, target in targets])  # one journal record for the batch
    for (given_folder, name, target), (_, content) in zip(targets, items, strict=True):
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
            # file and a rename per file doubled the time of a 100,000-row import; a process killed
            # mid-write leaves one short new file, which the transaction around an import rolls
            # back.)
            _create_new(target, data)
            continue
        replace_atomically(target, data, stat.S_IMODE(info.st_mode), durable=False)
    if _active.get() is None:  # inside a transaction its commit syncs, once for all its files
        make_durable([target for _, _, target in targets])


def _create_new(path: str, data: bytes) -> None:
    """Create ``path`` (never an existing name, never through a symlink) holding ``data``."""
    try:
        descriptor = os.open(
            path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o666
        )
    except OSError as exc:
        raise write_error(exc, path) from exc
    try:
        view = memoryview(data)
        while view:  # os.write may write less than asked
            view = view[os.write(descriptor, view) :]
    except BaseException as exc:
        os.close(descriptor)
        with contextlib.suppress(OSError):
            os.unlink(path)
        if isinstance(exc, OSError):
            raise write_error(exc, path) from exc
        raise
    os.close(descriptor)


# Up to this many files are fsynced one by one (with their folders); more are flushed by one
# sync() of every file system (an fsync costs about 0.7 ms a file: 70 s for a 100,000-row import).
FSYNC_EACH_UP_TO = 256


def make_durable(paths: list[str]) -> None:
    """Flush the files at ``paths`` (and the folders naming them) to disk; a path that is gone
    (removed in the change) has only its folder flushed."""
    if len(paths) > FSYNC_EACH_UP_TO:
        os.sync()
        return
    for path in paths:
        try:
            descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        except OSError:
            continue  # removed, or a symlink: its folder below is what holds the change
        try:
            os.fsync(descriptor)
        except OSError:
            pass
        finally:
            os.close(descriptor)
    for folder in sorted({os.path.dirname(path) for path in paths}):
        _sync_folder(folder)


def _make_folder(folder: Path, shown: Path | None = None) -> None:
    """Create ``folder`` and its parents; an error names ``shown`` (the folder as the user
    gave it) when given."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise write_error(exc, shown or folder) from exc


def _sync_folder(folder: str | Path) -> None:
    """fsync a folder, so a rename or an unlink in it survives a power cut."""
    try:
        descriptor = os.open(folder, os.O_RDONLY)
    except OSError:
        return  # a platform that cannot open folders (Windows) has nothing to sync
    try:
        os.fsync(descriptor)
    except OSError:
        pass  # some file systems refuse fsync on a folder; the rename itself is done
    finally:
        os.close(descriptor)


WRITE_HINTS = {
    errno.ENOSPC: "free some space on that disk, then run the command again",
    errno.EDQUOT: "free some space within your quota, then run the command again",
    errno.EACCES: "make the folder writable for you, or choose another output path",
    errno.EPERM: "make the folder writable for you, or choose another output path",
    errno.EROFS: "the file system is read-only: choose an output path on a writable one",
    errno.EEXIST: "a file of that name appeared meanwhile: run the command again",
}


def write_error(exc: OSError, path: str | Path) -> WriteError:
    """An OSError from writing ``path`` as a masrl error naming the file and the fix."""
    reason = exc.strerror or str(exc)
    hint = WRITE_HINTS.get(exc.errno, "check the path and the folder's permissions")
    return WriteError(f"cannot write the file ({reason})", path=path, hint=hint)


def remove(path: Path, root: Path | None = None) -> None:
    """Delete a file (recorded in the open transaction, so a rollback brings it back)."""
    real = resolve_target(path, root)
    if not os.path.lexists(real):
        return
    _before_change([os.fspath(real)])
    try:
        os.unlink(real)
    except OSError as exc:
        raise write_error(exc, path) from exc
    _sync_folder(real.parent)


# ---------------------------------------------------------------------------------------------
# Transactions: several files changed together or not at all.
#
# An undo journal (as SQLite's rollback journal): before a file in the checkout changes for the
# first time, its current bytes (or its absence) are appended to .masrl/journal/undo.jsonl and
# fsynced; then the file is written in place. The commit syncs the data and deletes the journal.
# An error undoes every change at once; a killed process leaves the journal, and the next masrl
# command in that checkout (``recover``) rolls the change back before it reads anything. A lock
# file keeps two writers (or a writer and a recovering reader) apart.

JOURNAL_FOLDER = ".masrl/journal"
JOURNAL_FILE = "undo.jsonl"
LOCK_FILE = ".masrl/lock"
LOCK_WAIT_SECONDS = 30.0
# For tests: seconds to sleep once every file is written and before the commit, so a test can
# kill the process at the worst moment.
PAUSE_ENV = "MASRL_TEST_PAUSE_BEFORE_COMMIT"


class _Transaction:
    def __init__(self, root: str):
        self.root = root
        self.folder = os.path.join(root, JOURNAL_FOLDER)
        self.log = None
        self.recorded: set[str] = set()

    def before_change(self, reals: list[str]) -> None:
        """Durably record the current state of every path not yet recorded, before it changes."""
        records = []
        for real in reals:
            if real in self.recorded or not _inside(real, self.root):
                continue
            self.recorded.add(real)
            record = {"path": os.path.relpath(real, self.root)}
            try:
                info = os.lstat(real)
            except FileNotFoundError:
                record["existed"] = False
            else:
                if not stat.S_ISREG(info.st_mode):
                    continue  # the writers refuse to replace anything else
                with open(real, "rb") as handle:
                    record["data"] = base64.b64encode(handle.read()).decode("ascii")
                record.update(existed=True, mode=stat.S_IMODE(info.st_mode))
            records.append(json.dumps(record, separators=(",", ":")) + "\n")
        if not records:
            return
        try:
            if self.log is None:
                os.makedirs(self.folder, exist_ok=True)
                self.log = open(os.path.join(self.folder, JOURNAL_FILE), "ab")  # noqa: SIM115
                _sync_folder(self.folder)
            self.log.write("".join(records).encode("ascii"))
            self.log.flush()
            os.fsync(self.log.fileno())
        except OSError as exc:
            raise write_error(exc, os.path.join(self.folder, JOURNAL_FILE)) from exc

    def close(self) -> None:
        if self.log is not None:
            self.log.close()

    def commit(self) -> None:
        """Make every change durable, then drop the journal (the moment the change is done)."""
        if self.log is None:
            return
        pause = os.environ.get(PAUSE_ENV)
        if pause:
            time.sleep(float(pause))
        make_durable(sorted(self.recorded))
        self.close()
        _drop_journal(self.folder)


_active: contextvars.ContextVar[_Transaction | None] = contextvars.ContextVar(
    "masrl_transaction", default=None
)


def _before_change(reals: list[str]) -> None:
    current = _active.get()
    if current is not None:
        current.before_change(reals)


@contextlib.contextmanager
def transaction(root: Path) -> Iterator[None]:
    """Apply every write inside the block to the checkout ``root`` all together or not at all.

    A transaction already open on the same root is joined (a command made of commands). An
    exception inside the block undoes every change and is raised again.
    """
    real_root = os.path.realpath(root)
    current = _active.get()
    if current is not None and current.root == real_root:
        yield
        return
    with _locked(real_root, wait=LOCK_WAIT_SECONDS):
        _roll_back(real_root)  # a change a killed command left half done
        state = _Transaction(real_root)
        token = _active.set(state)
        try:
            yield
        except BaseException:
            _active.reset(token)
            state.close()
            _roll_back(real_root)
            raise
        _active.reset(token)
        state.commit()


def recover(root: Path) -> list[str]:
    """Roll back a change that a killed masrl command left half done in ``root``; the paths
    restored. Nothing to do (one stat) when there is no journal; a transaction still running in
    another process is left alone."""
    real_root = os.path.realpath(root)
    if not os.path.isdir(os.path.join(real_root, JOURNAL_FOLDER)):
        return []
    try:
        with _locked(real_root, wait=0):
            return _roll_back(real_root)
    except _Busy:
        return []


class _Busy(Exception):
    pass


def _pause_between_tries() -> None:
    """Between two tries of a lock another process holds."""
    time.sleep(0.05)


def lock_within(descriptor: int, wait: float) -> bool:
    """Take the exclusive lock on the open file ``descriptor``, trying again (with a short pause
    between tries) until ``wait`` seconds have passed; whether it was taken. Other errors of the
    lock call are raised."""
    import fcntl

    deadline = time.monotonic() + wait
    while True:
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            if time.monotonic() >= deadline:
                return False
            _pause_between_tries()


@contextlib.contextmanager
def _locked(real_root: str, wait: float) -> Iterator[None]:
    lock_path = os.path.join(real_root, LOCK_FILE)
    try:
        os.makedirs(os.path.dirname(lock_path), exist_ok=True)
        descriptor = os.open(
            lock_path, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o666
        )
    except OSError as exc:
        raise write_error(exc, lock_path) from exc
    try:
        if not lock_within(descriptor, wait):
            if not wait:
                raise _Busy()
            raise UnsafeWriteError(
                "another masrl command is changing this checkout",
                path=real_root,
                hint="wait for it to finish, then run the command again",
            )
        yield
    finally:
        os.close(descriptor)  # releases the lock


def _roll_back(real_root: str) -> list[str]:
    """Undo what the journal in ``real_root`` records (the caller holds the lock)."""
    folder = os.path.join(real_root, JOURNAL_FOLDER)
    journal = os.path.join(folder, JOURNAL_FILE)
    try:
        with open(journal, "rb") as handle:
            lines = handle.read().split(b"\n")
    except FileNotFoundError:
        if os.path.isdir(folder):
            _drop_journal(folder)
        return []
    records = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
            rel = record["path"]
            existed = bool(record["existed"])
        except (ValueError, KeyError, TypeError) as exc:
            if number == len(lines):
                break  # torn by a kill while it was written: its files were not touched yet
            raise InputError(
                "the journal of an interrupted change is damaged",
                path=journal,
                line=number,
                hint="restore the changed files with `git checkout`, then delete .masrl/journal",
            ) from exc
        records.append((rel, existed, record))
    restored = []
    for rel, existed, record in reversed(records):
        target = Path(real_root, rel)
        if existed:
            data = base64.b64decode(record.get("data", ""))
            real = resolve_target(target, Path(real_root))
            try:
                with open(real, "rb") as handle:
                    if handle.read() == data:
                        continue
            except OSError:
                pass
            _make_folder(real.parent)
            replace_atomically(real, data, int(record.get("mode", 0o644)), durable=False)
            restored.append(rel)
        elif os.path.lexists(target) and _inside(
            os.path.realpath(target.parent), os.path.realpath(real_root)
        ):
            try:
                os.unlink(target)
            except OSError as exc:
                raise write_error(exc, target) from exc
            restored.append(rel)
    make_durable([os.path.join(real_root, rel) for rel in restored])
    _drop_journal(folder)
    return sorted(restored)


def _drop_journal(folder: str) -> None:
    for name in os.listdir(folder):
        os.unlink(os.path.join(folder, name))
    os.rmdir(folder)
    _sync_folder(os.path.dirname(folder))

"""Atomic file writes: a temporary file beside the target, renamed into place.

A reader (or an interrupted run) sees either the old file or the whole new one, never half.
Used by weights files, run directories, sweep tables and analysis reports.

Also the one overwrite rule of every command that writes a folder or a file
(:func:`prepare_output_dir`, :func:`check_output_file`): a non-empty folder or an existing file
is refused unless ``--force`` (replace it) or, where it applies, ``--resume`` (continue it); and
the lock a process holds on a folder while it writes it (:class:`FolderLock`).

A new file gets the mode an ordinary ``open(path, "w")`` would give it (0666 less the process
umask, so 0644 under umask 022): ``tempfile.mkstemp`` alone would leave it 0600, unreadable to
colleagues on a shared machine; a file that replaces a regular file keeps that file's mode.  An
error while writing names the target file (a full disk's ``No space left on device`` too).
"""

from __future__ import annotations

import os
import tempfile
import threading
from pathlib import Path
from typing import BinaryIO, Callable

__all__ = [
    "atomic_write", "atomic_write_text", "default_file_mode", "check_output_dir", "prepare_output_dir",
    "check_output_file", "check_apart", "FolderLock", "LOCK_FILE",
]

_UMASK_LOCK = threading.Lock()


def default_file_mode() -> int:
    """The mode a newly created regular file gets: ``0o666 & ~umask``.

    >>> import os
    >>> old = os.umask(0o022)
    >>> oct(default_file_mode())
    '0o644'
    >>> _ = os.umask(old)
    """
    with _UMASK_LOCK:  # os.umask can only be read by setting it
        mask = os.umask(0o077)
        os.umask(mask)
    return 0o666 & ~mask


def atomic_write(path, write: Callable[[BinaryIO], object]) -> Path:
    """Call ``write(binary_file)`` on a temporary file next to ``path``, then move it into place.

    >>> import tempfile, pathlib
    >>> target = pathlib.Path(tempfile.mkdtemp()) / "x.bin"
    >>> atomic_write(target, lambda fh: fh.write(b"ok")).read_bytes()
    b'ok'
    """
    path = Path(path)
    if path.exists() and not path.is_file():  # never replace a device node, FIFO or socket (or a folder)
        from bilinear.errors import OutputExistsError

        raise OutputExistsError(f"{path} exists and is not a regular file: refusing to replace it")
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    except OSError as exc:  # name the target, not the temporary file that could not be made
        raise type(exc)(exc.errno, exc.strerror, str(path)) from None
    try:
        os.fchmod(fd, _mode_for(path))
        with os.fdopen(fd, "wb") as fh:
            write(fh)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException as exc:
        if os.path.exists(tmp):
            os.unlink(tmp)
        # name the target, not the temporary file, nor nothing (a full disk fails fh.write and
        # fh.flush with no file name: "cannot write the output" did not say which)
        if isinstance(exc, OSError) and exc.filename in (tmp, None) and exc.errno is not None:
            raise type(exc)(exc.errno, exc.strerror, str(path)) from None
        raise
    return path


def _mode_for(path: Path) -> int:
    """The mode of the file written to ``path``: that of the regular file it replaces (``sign`` in
    place widened a 0600 file to 0644), else :func:`default_file_mode`.  A symbolic link is
    replaced by the file, so its target's mode is not taken."""
    import stat

    try:
        info = os.lstat(path)
    except OSError:
        return default_file_mode()
    return stat.S_IMODE(info.st_mode) if stat.S_ISREG(info.st_mode) else default_file_mode()


def atomic_write_text(path, text: str) -> Path:
    """Write ``text`` (UTF-8) to ``path`` atomically; returns the path."""
    return atomic_write(path, lambda fh: fh.write(text.encode("utf-8")))


# --- the overwrite rule -------------------------------------------------------------------
#: The lock file a writing process holds in its folder (see :class:`FolderLock`).
LOCK_FILE = ".lock"


def _leftovers(folder: Path) -> list[str]:
    """The entries of ``folder`` that make it non-empty (a stale lock file does not, but a
    ``.lock`` that is a symbolic link, a folder or a device is no lock of ours and does)."""
    return sorted(p.name for p in folder.iterdir() if p.name != LOCK_FILE or not _is_plain_file(p))


def _is_plain_file(path: Path) -> bool:
    """True for a regular file that is not a symbolic link."""
    import stat

    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except FileNotFoundError:
        return False


def _protected(folder: Path) -> bool:
    """True for folders ``--force`` must never remove: the root, home, the working folder and its parents."""
    here = Path.cwd().resolve()
    target = folder.resolve()
    return target == Path(target.anchor) or target == Path.home().resolve() or target in (here, *here.parents)


def check_output_dir(path, force: bool = False, resume: bool = False, what: str = "output folder") -> Path:
    """Apply the overwrite rule to ``path`` without touching anything; returns it as a Path.

    Allowed: an absent or empty folder; a non-empty one with ``resume`` (continue it) or
    ``force`` (it will be replaced).  Otherwise :class:`~bilinear.errors.OutputExistsError`.

    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "old.txt").write_text("x")
    >>> check_output_dir(d)
    Traceback (most recent call last):
    ...
    bilinear.errors.OutputExistsError: output folder ... is not empty (old.txt): use --force to replace it
    >>> check_output_dir(d, force=True) == d
    True
    """
    from bilinear.errors import OutputExistsError

    if not str(path).strip():
        raise OutputExistsError(f"{what}: an empty path names no folder")
    folder = Path(path)
    if folder.exists() and not folder.is_dir():
        raise OutputExistsError(f"{what} {folder} exists and is not a folder")
    if not folder.is_dir() or resume:
        return folder
    names = _leftovers(folder)
    if names and force and _protected(folder):
        raise OutputExistsError(f"--force will not replace {folder}: it is the root, home or working folder")
    if names and not force:
        shown = ", ".join(names[:3]) + (", ..." if len(names) > 3 else "")
        hint = "use --force to replace it" + (", or --resume to continue it" if what != "output folder" else "")
        raise OutputExistsError(f"{what} {folder} is not empty ({shown}): {hint}")
    return folder


def prepare_output_dir(path, force: bool = False, resume: bool = False, what: str = "output folder") -> Path:
    """:func:`check_output_dir`, then make the folder (emptied first when ``force``); returns it.

    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "old.txt").write_text("x")
    >>> sorted(p.name for p in prepare_output_dir(d, force=True).iterdir())
    []
    """
    import shutil

    from bilinear.errors import OutputExistsError

    folder = check_output_dir(path, force=force, resume=resume, what=what)
    lock = folder / LOCK_FILE
    if force and not resume and os.path.lexists(lock) and not _is_plain_file(lock):
        if lock.is_dir() and not lock.is_symlink():  # a link is removed, never what it points to
            raise OutputExistsError(f"{what} {folder}: {lock} is a folder, not a lock file: remove it by hand")
        lock.unlink()
    if force and not resume and folder.is_dir() and _leftovers(folder):
        with FolderLock(folder, what=what):  # never empty a folder another process is writing
            for entry in folder.iterdir():
                if entry.name == LOCK_FILE:
                    continue
                if entry.is_dir() and not entry.is_symlink():
                    shutil.rmtree(entry)
                else:
                    entry.unlink()
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def check_output_file(path, force: bool = False, what: str = "output file") -> Path:
    """The overwrite rule for a file: refuse an existing one unless ``force``; never a folder.

    >>> import tempfile, pathlib
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "w.json"
    >>> _ = f.write_text("{}")
    >>> check_output_file(f)
    Traceback (most recent call last):
    ...
    bilinear.errors.OutputExistsError: output file ... exists: use --force to replace it
    """
    from bilinear.errors import OutputExistsError

    if not str(path).strip():
        raise OutputExistsError(f"{what}: an empty path names no file")
    target = Path(path)
    if target.is_dir():
        raise OutputExistsError(f"{what} {target} is a folder")
    if target.exists() and not target.is_file():  # a device, a FIFO, a socket (or a link to one)
        raise OutputExistsError(f"{what} {target} exists and is not a regular file (a device, FIFO or socket): "
                                "choose a file name (--force never replaces it)")
    if target.is_symlink() and not target.exists() and not force:  # a dangling link is there too
        raise OutputExistsError(f"{what} {target} exists (a link to a missing file): use --force to replace it")
    if target.exists() and not force:
        raise OutputExistsError(f"{what} {target} exists: use --force to replace it")
    return target


def check_apart(output, inputs, what: str = "output folder") -> None:
    """OutputExistsError when ``output`` is one of ``inputs``, holds one of them, or lies inside one
    (``analyze RUN --out RUN --force`` would otherwise empty the run it reads, ``export RUN
    RUN/model.pt --force`` overwrite the run's own model).  The one guard of every command that
    reads a file or folder and writes another: ``analyze``, ``certify --write``, ``export``,
    ``train --data`` / an automaton file.  Paths are compared
    after resolving links; inputs that are None or do not exist are skipped.

    >>> import tempfile, pathlib
    >>> run = pathlib.Path(tempfile.mkdtemp())
    >>> check_apart(run / "report", [run])
    Traceback (most recent call last):
    ...
    bilinear.errors.OutputExistsError: output folder ... lies inside the input ...: choose a folder apart from the inputs
    >>> check_apart(run.parent / (run.name + "-report"), [run])
    """
    from bilinear.errors import OutputExistsError

    out = Path(os.path.abspath(output)).resolve()
    for given in inputs:
        if given is None or not os.path.lexists(given):
            continue
        source = Path(os.path.abspath(given)).resolve()
        if out == source:
            why = "is the input"
        elif out in source.parents:
            why = "holds the input"
        elif source in out.parents:
            why = "lies inside the input"
        else:
            continue
        noun = "file" if what.endswith("file") else "folder"
        raise OutputExistsError(f"{what} {output} {why} {given}: choose a {noun} apart from the inputs")


class FolderLock:
    """An exclusive, non-blocking ``fcntl.flock`` on ``folder/.lock`` while a process writes it.

    A second writer fails at once with :class:`~bilinear.errors.FolderLockedError` naming the
    folder and the holder's process id.  The lock file is removed on release (a lock file left by
    a killed process holds no lock: the kernel drops it with the process).

    >>> import tempfile
    >>> d = tempfile.mkdtemp()
    >>> with FolderLock(d):
    ...     FolderLock(d).acquire()
    Traceback (most recent call last):
    ...
    bilinear.errors.FolderLockedError: folder ... is being written by process ... (lock file ...); wait for it to end
    """

    def __init__(self, folder, what: str = "folder"):
        self.path = Path(folder) / LOCK_FILE
        self.what = what
        self._fd: int | None = None

    def acquire(self) -> "FolderLock":
        """Take the lock (FolderLockedError when another process holds it)."""
        import fcntl

        from bilinear.errors import FolderLockedError

        for _ in range(10):  # retry only when the file we locked was unlinked by its releasing holder
            fd = self._open()
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                holder = os.read(fd, 32).decode(errors="replace").strip() or "unknown"
                os.close(fd)
                raise FolderLockedError(
                    f"{self.what} {self.path.parent} is being written by process {holder} "
                    f"(lock file {self.path}); wait for it to end"
                ) from None
            try:
                same = os.fstat(fd).st_ino == os.stat(self.path).st_ino
            except FileNotFoundError:
                same = False
            if same:
                os.ftruncate(fd, 0)
                os.write(fd, f"{os.getpid()}\n".encode())
                self._fd = fd
                return self
            os.close(fd)
        raise FolderLockedError(f"{self.what} {self.path.parent}: could not take the lock {self.path}")

    def _open(self) -> int:
        """The lock file's descriptor, opened without following a symbolic link (a planted
        ``.lock -> VICTIM`` would otherwise have VICTIM truncated and given our pid) and never
        blocking on a FIFO; FolderLockedError for anything but a regular file."""
        import stat

        from bilinear.errors import FolderLockedError

        flags = os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
        not_ours = (f"{self.what} {self.path.parent}: the lock file {self.path} is {{}}, not a lock file "
                    "this toolkit wrote; remove it (it was left untouched)")
        try:
            fd = os.open(self.path, flags, default_file_mode())
        except OSError as exc:
            if os.path.islink(self.path):
                raise FolderLockedError(not_ours.format(f"a symbolic link to {os.readlink(self.path)!r}")) from None
            if os.path.isdir(self.path):
                raise FolderLockedError(not_ours.format("a folder")) from None
            raise FolderLockedError(f"{self.what} {self.path.parent}: cannot open the lock file {self.path}: "
                                    f"{exc.strerror}") from None
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            os.close(fd)
            raise FolderLockedError(not_ours.format("not a regular file (a FIFO, socket or device)"))
        return fd

    def release(self) -> None:
        """Remove the lock file and drop the lock (idempotent)."""
        if self._fd is None:
            return
        try:
            self.path.unlink()
        except FileNotFoundError:  # pragma: no cover - removed by hand
            pass
        os.close(self._fd)
        self._fd = None

    @property
    def held(self) -> bool:
        return self._fd is not None

    def __enter__(self) -> "FolderLock":
        return self.acquire()

    def __exit__(self, *exc) -> None:
        self.release()

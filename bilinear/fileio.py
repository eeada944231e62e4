"""Atomic file writes: a temporary file beside the target, renamed into place.

A reader (or an interrupted run) sees either the old file or the whole new one, never half.
Used by weights files, run directories, sweep tables and analysis reports.

The file gets the mode an ordinary ``open(path, "w")`` would give it (0666 less the process
umask, so 0644 under umask 022): ``tempfile.mkstemp`` alone would leave it 0600, unreadable to
colleagues on a shared machine.
"""

from __future__ import annotations

import os
import tempfile
import threading
from pathlib import Path
from typing import BinaryIO, Callable

__all__ = ["atomic_write", "atomic_write_text", "default_file_mode"]

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
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        os.fchmod(fd, default_file_mode())
        with os.fdopen(fd, "wb") as fh:
            write(fh)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    return path


def atomic_write_text(path, text: str) -> Path:
    """Write ``text`` (UTF-8) to ``path`` atomically; returns the path."""
    return atomic_write(path, lambda fh: fh.write(text.encode("utf-8")))

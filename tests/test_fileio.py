"""Atomic writes: whole files only, and the mode an ordinary open() would give."""

import os
import stat

import pytest

from bilinear.fileio import atomic_write, atomic_write_text


@pytest.mark.parametrize("umask, mode", [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664)])
def test_atomic_write_respects_umask(tmp_path, umask, mode):
    old = os.umask(umask)
    try:
        path = atomic_write_text(tmp_path / "report.md", "hello\n")
    finally:
        os.umask(old)
    assert stat.S_IMODE(path.stat().st_mode) == mode
    assert path.read_text() == "hello\n"


def test_failed_write_leaves_old_file_and_no_temporary(tmp_path):
    target = atomic_write_text(tmp_path / "x.json", "old")

    def boom(fh):
        fh.write(b"half")
        raise RuntimeError("disk full")

    with pytest.raises(RuntimeError):
        atomic_write(target, boom)
    assert target.read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.json"]

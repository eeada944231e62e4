"""Hostile output targets (issue 25): a planted ``.lock`` link, a device node or FIFO given as an
output file, an existing file without ``--force`` — nothing outside the output is clobbered."""

from __future__ import annotations

import contextlib
import json
import os
import stat

import pytest

from bilinear.cli import main
from bilinear.errors import FolderLockedError, OutputExistsError
from bilinear.fileio import LOCK_FILE, FolderLock, atomic_write_text, check_output_dir, prepare_output_dir


def _planted(tmp_path, dangling=False):
    victim = tmp_path / "victim.txt"
    if not dangling:
        victim.write_text("precious\n")
    out = tmp_path / "out"
    out.mkdir()
    (out / LOCK_FILE).symlink_to(victim)
    return out, victim


def test_a_lock_link_is_never_followed(tmp_path):
    out, victim = _planted(tmp_path)
    with pytest.raises(FolderLockedError, match="is a symbolic link to .*victim.txt.*left untouched"):
        FolderLock(out).acquire()
    assert victim.read_text() == "precious\n"
    with pytest.raises(OutputExistsError, match=r"is not empty \(\.lock\)"):  # a link is not an empty folder
        check_output_dir(out)
    prepare_output_dir(out, force=True)  # --force removes the link, not what it points to
    assert victim.read_text() == "precious\n" and not os.path.lexists(out / LOCK_FILE)
    with FolderLock(out):
        assert (out / LOCK_FILE).read_text() == f"{os.getpid()}\n"


def test_a_dangling_lock_link_creates_nothing(tmp_path):
    out, victim = _planted(tmp_path, dangling=True)
    with pytest.raises(FolderLockedError, match="symbolic link"):
        FolderLock(out).acquire()
    assert not victim.exists()


def test_a_fifo_lock_is_refused_without_blocking(tmp_path):
    (tmp_path / LOCK_FILE).unlink(missing_ok=True)
    os.mkfifo(tmp_path / LOCK_FILE)
    with pytest.raises(FolderLockedError, match="not a regular file"):
        FolderLock(tmp_path).acquire()


@pytest.mark.parametrize("command", [["train", "parity", "diagonal", "--steps", "20"],
                                     ["analyze", "--construction", "parity", "diagonal", "--no-figures"]])
def test_commands_refuse_a_folder_holding_a_lock_link(tmp_path, capsys, command):
    out, victim = _planted(tmp_path)
    assert main([*command, "--out", str(out)]) == 2
    assert "is not empty (.lock)" in capsys.readouterr().err
    assert victim.read_text() == "precious\n"


def test_sweep_refuses_a_folder_holding_a_lock_link(tmp_path, capsys):
    out, victim = _planted(tmp_path)
    grid = tmp_path / "grid.toml"
    grid.write_text('families = ["parity"]\nmodels = ["diagonal"]\nlrs = [1e-2]\nseeds = [0]\n'
                    '[train]\nsteps = 5\n')
    assert main(["sweep", str(grid), "--out", str(out)]) == 2
    assert "is not empty (.lock)" in capsys.readouterr().err
    assert victim.read_text() == "precious\n"


def test_verify_save_refuses_an_existing_file_without_force(tmp_path, capsys):
    target = tmp_path / "w.json"
    target.write_text("mine\n")
    assert main(["verify", "parity", "diagonal", "--save", str(target)]) == 2
    assert "exists: use --force to replace it" in capsys.readouterr().err
    assert target.read_text() == "mine\n"
    assert main(["verify", "parity", "diagonal", "--save", str(target), "--force"]) == 0
    assert json.loads(target.read_text())["format"] == "bilinear.weights"
    assert main(["verify", "parity", "diagonal", "--force"]) == 2
    assert "--force needs --save FILE" in capsys.readouterr().err
    assert main(["verify", "parity", "diagonal", "--save", ""]) == 2  # not silently ignored
    assert "an empty path names no file" in capsys.readouterr().err


def test_save_through_a_link_replaces_the_link_not_its_target(tmp_path):
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    link = tmp_path / "w.json"
    link.symlink_to(victim)
    assert main(["verify", "parity", "diagonal", "--save", str(link), "--force"]) == 0
    assert victim.read_text() == "precious\n" and not link.is_symlink()


@pytest.mark.parametrize("argv", [
    ["verify", "parity", "diagonal", "--save", "{fifo}", "--force"],
    ["verify", "parity", "diagonal", "--save", "{link}", "--force"],
    ["certify", "--weights", "{weights}", "parity", "--write", "{fifo}", "--force"],
])
def test_special_files_are_never_replaced(tmp_path, capsys, argv):
    """A FIFO (standing in for a device node such as /dev/full, which as root was replaced by a
    regular file), or a link to one: refused, even with --force, before any work."""
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    link = tmp_path / "link"
    link.symlink_to(fifo)
    weights = tmp_path / "parity.json"
    assert main(["verify", "parity", "diagonal", "--save", str(weights)]) == 0
    capsys.readouterr()
    argv = [a.format(fifo=fifo, link=link, weights=weights) for a in argv]
    assert main(argv) == 2
    assert "is not a regular file" in capsys.readouterr().err
    assert stat.S_ISFIFO(os.stat(fifo).st_mode) and link.is_symlink()


def test_atomic_write_never_replaces_a_special_file(tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(OutputExistsError, match="not a regular file"):
        atomic_write_text(fifo, "x")
    assert stat.S_ISFIFO(os.stat(fifo).st_mode) and sorted(p.name for p in tmp_path.iterdir()) == ["fifo"]


def test_analyze_never_writes_over_or_around_its_input(tmp_path, capsys):
    """``analyze RUN --out RUN --force`` used to empty the run it analysed (only the report was
    left); an output that is, holds or lies inside an input is refused before any work."""
    run = tmp_path / "run"
    assert main(["train", "parity", "diagonal", "--steps", "5", "--hidden", "2", "--out", str(run)]) == 0
    before = sorted(p.name for p in run.iterdir())
    for out in (run, tmp_path, run / "report"):
        assert main(["analyze", str(run), "--out", str(out), "--force", "--no-figures"]) == 2
        err = capsys.readouterr().err
        assert "choose a folder apart from the inputs" in err and err.count("\n") == 1
    assert sorted(p.name for p in run.iterdir()) == before
    weights = tmp_path / "w" / "parity.json"
    assert main(["verify", "parity", "diagonal", "--save", str(weights)]) == 0
    assert main(["analyze", "--weights", str(weights), "parity", "--out", str(weights.parent), "--force",
                 "--no-figures"]) == 2
    assert weights.is_file()
    assert main(["certify", "--weights", str(weights), "parity", "--write", str(weights), "--force"]) == 2
    assert "--write file" in capsys.readouterr().err and json.loads(weights.read_text())["exact"] is True


def test_a_read_only_folder_is_named_not_the_temporary_file(tmp_path, capsys, unwritable_folders):
    """Runs as root too (it was skipped there): the folders are unwritable to root as well."""
    for folder, error, named in unwritable_folders:
        target = os.path.join(folder, "w.json")
        assert main(["verify", "parity", "diagonal", "--save", target]) == 2
        captured = capsys.readouterr()
        assert captured.err == f"bilinear: error: {error}: {named!r}\n" and ".tmp" not in captured.err
        assert "parity diagonal: proved" in captured.out  # the verdict is printed all the same
        assert f"nothing written to {target}: {error}" in captured.out
    assert sorted(p.name for p in tmp_path.iterdir()) == ["afile"]


def test_sign_in_place_keeps_the_mode_and_signs_through_a_link(tmp_path):
    """N18 (issue 46): ``sign FILE`` widened a 0600 file to 0644, and replaced a symbolic link by a
    signed regular file, leaving the file it pointed to unsigned."""
    weights = tmp_path / "w.json"
    assert main(["verify", "parity", "diagonal", "--save", str(weights)]) == 0
    data = json.loads(weights.read_text())
    del data["checksum"]
    weights.write_text(json.dumps(data))
    weights.chmod(0o600)
    link = tmp_path / "link.json"
    link.symlink_to(weights)
    assert main(["sign", str(link)]) == 0
    assert link.is_symlink() and os.readlink(link) == str(weights)
    assert "checksum" in json.loads(weights.read_text())
    assert stat.S_IMODE(os.stat(weights).st_mode) == 0o600
    weights.chmod(0o640)
    assert main(["sign", str(weights)]) == 0 and stat.S_IMODE(os.stat(weights).st_mode) == 0o640


@contextlib.contextmanager
def _file_size_cap(limit: int = 64):
    """Writes past ``limit`` bytes fail (EFBIG; Python ignores SIGXFSZ), as on a full disk: the
    soft RLIMIT_FSIZE of this process, lowered for the block and put back."""
    import resource

    old = resource.getrlimit(resource.RLIMIT_FSIZE)
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, old[1]))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, old)


@pytest.mark.parametrize("argv, target, kept, left", [
    (["verify", "parity", "diagonal", "--save", "{out}/w.json"], "{out}/w.json", "parity diagonal: proved", []),
    (["data", "parity", "--count", "20", "--out", "{out}/words.csv"], "{out}/words.csv", None, []),
    (["sign", "{out}/../w.json", "--out", "{out}/signed.json"], "{out}/signed.json", None, []),
    (["train", "parity", "diagonal", "--steps", "5", "--out", "{out}/run"], "{out}/run/config.json", None,
     ["run"]),  # the run folder, empty: a rerun needs no --force
])
def test_a_write_that_fails_names_its_file(tmp_path, capsys, argv, target, kept, left):
    """N19 (issue 46): on a full disk every writer said "cannot write the output: No space left on
    device" without the file's name, and ``verify --save`` dropped the verdict from stdout.  A
    real failing write: files are capped at 64 bytes while the command runs (RLIMIT_FSIZE)."""
    assert main(["verify", "parity", "diagonal", "--save", str(tmp_path / "w.json")]) == 0  # to sign
    tmp_path = tmp_path / "out"
    tmp_path.mkdir()
    argv = [a.format(out=tmp_path) for a in argv]
    target = target.format(out=tmp_path)
    capsys.readouterr()
    with _file_size_cap():
        code = main(argv)
    out, err = capsys.readouterr()
    assert code == 2 and err == f"bilinear: error: File too large: {target!r}\n", err
    if kept is not None:
        assert kept in out and f"nothing written to {target}: File too large" in out
    assert sorted(p.name for p in tmp_path.iterdir()) == left  # no partial file, no temporary file
    assert all(not list((tmp_path / name).iterdir()) for name in left)


def test_errors_name_the_target_and_a_failed_report_leaves_no_folder(tmp_path, capsys, monkeypatch):
    """Simulated: the temporary file cannot be made (as in a read-only folder, which root cannot
    test), and the disk fills while analyze writes its report."""
    import errno
    import tempfile

    from bilinear.analysis import report as report_module

    def refuse(*args, **kwargs):
        raise PermissionError(errno.EACCES, "Permission denied", str(tmp_path / ".w.json.x.tmp"))

    monkeypatch.setattr(tempfile, "mkstemp", refuse)
    with pytest.raises(PermissionError) as info:
        atomic_write_text(tmp_path / "w.json", "x")
    assert info.value.filename == str(tmp_path / "w.json")
    monkeypatch.undo()

    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device", str(tmp_path / "report" / "report.md"))

    monkeypatch.setattr(report_module, "atomic_write_text", full)
    out = tmp_path / "report"
    assert main(["analyze", "--construction", "parity", "diagonal", "--out", str(out), "--no-figures"]) == 2
    assert "No space left on device" in capsys.readouterr().err
    assert not out.exists()

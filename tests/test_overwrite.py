"""One overwrite rule for every command that writes a folder or a file: a non-empty folder (an
existing file) is refused unless --force (replace) or, where it applies, --resume (continue)."""

from __future__ import annotations

import json
import os

import pytest

from bilinear.cli import main
from bilinear.errors import FolderLockedError, OutputExistsError
from bilinear.fileio import LOCK_FILE, FolderLock, check_output_dir, check_output_file, prepare_output_dir

FAST = ["--words", "100", "--length", "20"]


def _one_line(capsys) -> str:
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    return err[0]


def test_the_rule_on_folders(tmp_path):
    assert check_output_dir(tmp_path / "absent") == tmp_path / "absent"
    assert check_output_dir(tmp_path) == tmp_path  # empty
    (tmp_path / "a.txt").write_text("x")
    with pytest.raises(OutputExistsError, match=r"output folder .* is not empty \(a.txt\): use --force to replace it$"):
        check_output_dir(tmp_path)
    assert check_output_dir(tmp_path, resume=True) == tmp_path
    with pytest.raises(OutputExistsError, match="is not a folder"):
        check_output_dir(tmp_path / "a.txt", force=True)
    with pytest.raises(OutputExistsError, match="empty path"):
        check_output_dir("", force=True)
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "deep.txt").write_text("y")
    prepare_output_dir(tmp_path, force=True)
    assert list(tmp_path.iterdir()) == []
    assert prepare_output_dir(tmp_path / "new" / "er").is_dir()


def test_a_stale_lock_file_does_not_make_a_folder_non_empty(tmp_path):
    (tmp_path / LOCK_FILE).write_text("99999\n")
    assert check_output_dir(tmp_path) == tmp_path


def test_force_never_removes_the_working_folder_or_home(tmp_path, monkeypatch):
    (tmp_path / "precious.txt").write_text("x")
    monkeypatch.chdir(tmp_path)
    for target in (".", str(tmp_path.parent), os.path.expanduser("~"), "/"):
        with pytest.raises(OutputExistsError, match="will not replace"):
            prepare_output_dir(target, force=True)
    assert (tmp_path / "precious.txt").exists()


def test_force_does_not_empty_a_folder_another_process_writes(tmp_path):
    (tmp_path / "run.txt").write_text("x")
    with FolderLock(tmp_path):
        with pytest.raises(FolderLockedError, match=f"being written by process {os.getpid()}"):
            prepare_output_dir(tmp_path, force=True)
    assert (tmp_path / "run.txt").exists() and not (tmp_path / LOCK_FILE).exists()


def test_the_rule_on_files(tmp_path):
    f = tmp_path / "w.json"
    assert check_output_file(f) == f
    f.write_text("{}")
    with pytest.raises(OutputExistsError, match="exists: use --force to replace it"):
        check_output_file(f)
    assert check_output_file(f, force=True) == f
    with pytest.raises(OutputExistsError, match="is a folder"):
        check_output_file(tmp_path, force=True)


def test_a_dangling_link_is_kept_unless_force(tmp_path, capsys):
    """A link to a missing file is an existing entry too (``Path.exists`` follows it and says no):
    ``verify --save`` replaced it with a regular file without --force."""
    link = tmp_path / "l.json"
    link.symlink_to(tmp_path / "nowhere.json")
    with pytest.raises(OutputExistsError, match="exists \\(a link to a missing file\\): use --force"):
        check_output_file(link)
    assert main(["verify", "parity", "full", "--save", str(link)]) == 2
    assert "(a link to a missing file): use --force to replace it" in _one_line(capsys)
    assert link.is_symlink() and not (tmp_path / "nowhere.json").exists()
    assert check_output_file(link, force=True) == link


def test_analyze_out_refuses_a_non_empty_folder_unless_force(tmp_path, capsys):
    out = tmp_path / "rep"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    argv = ["analyze", "--construction", "cyclic:5", "rotation2d", "--no-figures", "--out", str(out), *FAST]
    assert main(argv) == 2
    assert f"output folder {out} is not empty (notes.txt): use --force" in _one_line(capsys)
    assert (out / "notes.txt").read_text() == "mine"
    assert main(argv + ["--force", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["commutators"]["verdict"]
    assert sorted(p.name for p in out.iterdir()) == ["report.json", "report.md"]
    assert main(["analyze", "--construction", "cyclic:5", "rotation2d", "--force", *FAST]) == 2
    assert "--force needs --out" in _one_line(capsys)


def test_certify_write_refuses_an_existing_file_unless_force(tmp_path, capsys):
    from bilinear.constructions import build
    from bilinear.constructions import drift

    src, out = tmp_path / "float.json", tmp_path / "snap.json"
    drift(build("cyclic:5", "rotation2d"), 0.01, hidden=8).save(src)
    out.write_text("keep")
    argv = ["certify", "--weights", str(src), "cyclic:5", "--search-length", "200", "--json", "--write", str(out)]
    assert main(argv) == 2
    assert f"output file {out} exists: use --force to replace it" in _one_line(capsys)
    assert out.read_text() == "keep"
    assert main(argv + ["--force"]) == 0
    assert json.loads(capsys.readouterr().out)["status"] == "snapped"
    assert json.loads(out.read_text())  # the snapped weights replaced it


def test_tour_out_refuses_a_non_empty_folder_before_any_work(tmp_path, capsys):
    out = tmp_path / "report"
    out.mkdir()
    (out / "old.md").write_text("old")
    assert main(["tour", "--out", str(out), "--quiet", "--steps", "10"]) == 2
    assert f"tour report folder {out} is not empty (old.md): use --force" in _one_line(capsys)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report"]  # no staging folder either


@pytest.mark.parametrize("argv", [
    ["train", "parity", "diagonal", "--out", ""],
    ["train", "parity", "diagonal", "--out", "  "],
    ["sweep", "grid.toml", "--out", ""],
    ["reproduce", "--quick", "--out", ""],
    ["analyze", "--construction", "cyclic:5", "rotation2d", "--out", ""],
])
def test_an_empty_out_is_an_error_not_the_default(argv, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(argv + ["--quiet"] if argv[0] != "analyze" else argv) == 2
    assert "--out needs a folder name" in _one_line(capsys)
    assert list(tmp_path.iterdir()) == []


def test_certify_write_to_an_empty_name_is_an_error(capsys):
    assert main(["certify", "--weights", "x.json", "cyclic:5", "--write", ""]) == 2
    assert "empty path names no file" in _one_line(capsys)

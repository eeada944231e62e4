"""The train / sweep / reproduce commands."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from bilinear.cli import main

FAST = ["--steps", "30", "--test-len", "40", "--test-words", "8", "--quiet"]


def test_train_json(capsys):
    assert main(["train", "parity", "diagonal", "--hidden", "4", "--lr", "0.05", "--json", *FAST]) == 0
    result = json.loads(capsys.readouterr().out)
    for key in ("test_accuracy_normalized", "train_accuracy", "params", "steps"):
        assert key in result
    assert result["params"] == 2 * 4 + 4 + 2 * 4 and result["test_len"] == 40


def test_train_text_and_run_directory(tmp_path, capsys):
    out = tmp_path / "run"
    assert main(["train", "cyclic:3", "block:2", "--hidden", "4", "--out", str(out), *FAST]) == 0
    text = capsys.readouterr().out
    assert "normalised accuracy at length 40" in text and str(out) in text
    assert (out / "result.json").exists()
    # the same command with --resume returns the finished result
    assert main(["train", "cyclic:3", "block:2", "--hidden", "4", "--out", str(out), "--resume", "--json", *FAST]) == 0
    assert json.loads(capsys.readouterr().out) == json.loads((out / "result.json").read_text())


@pytest.mark.parametrize(
    "argv, message",
    [
        (["train", "parity", "gru"], "unknown model 'gru'"),
        (["train", "nosuch:3", "full"], "family spec 'nosuch:3'"),
        (["train", "parity", "block:3", "--hidden", "8"], "not divisible by the block size 3"),
        (["train", "parity", "full", "--train-len", "10", "2"], "out of order"),
        (["train", "parity", "full", "--lr", "0"], "learning rate must be positive"),
        (["train", "parity", "full", "--steps", "-1"], "steps must be positive"),
        (["train", "parity", "full", "--resume"], "--resume needs --out"),
        (["train", "parity", "full", "--lr-grid", "1e-3,x"], "comma-separated numbers"),
        (["train", "parity", "full", "--lr-grid", "1e-3,-1"], "must be a positive number"),
        (["train", "parity", "full", "--lr-grid", "", "--quiet"], "empty"),
    ],
)
def test_train_bad_input(argv, message, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1


def test_resume_of_missing_or_corrupt_run(tmp_path, capsys):
    assert main(["train", "parity", "full", "--out", str(tmp_path / "none"), "--resume", *FAST]) == 2
    assert "does not exist" in capsys.readouterr().err
    run = tmp_path / "run"
    run.mkdir()
    (run / "config.json").write_text("{not json")
    assert main(["train", "parity", "full", "--out", str(run), "--resume", *FAST]) == 2
    assert "corrupt" in capsys.readouterr().err
    assert not (run / "result.json").exists()


def test_sweep_command(tmp_path, capsys):
    f = tmp_path / "grid.toml"
    f.write_text('families = ["parity"]\nmodels = ["diagonal", "full"]\n[train]\nsteps = 10\nhidden = 2\n'
                 "test_len = 20\ntest_words = 4\n")
    assert main(["sweep", str(f), "--out", str(tmp_path / "out"), "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "| parity |" in out and (tmp_path / "out" / "results.md").exists()
    f.write_text('families = ["parity"]\nmodels = ["full"]\nbogus = 1\n')
    assert main(["sweep", str(f), "--out", str(tmp_path / "out2")]) == 2
    assert "unknown key 'bogus'" in capsys.readouterr().err
    assert not (tmp_path / "out2").exists()


def test_train_through_a_subprocess(tmp_path):
    proc = subprocess.run(
        [sys.executable, "-m", "bilinear.cli", "train", "parity", "diagonal", "--hidden", "2", "--lr", "0.05",
         "--json", *FAST],
        capture_output=True, text=True, timeout=120, cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["steps"] == 30


def test_train_with_a_learning_rate_grid(capsys):
    assert main(["train", "parity", "diagonal", "--hidden", "2", "--lr-grid", "1e-6,0.05", "--json", *FAST]) == 0
    result = json.loads(capsys.readouterr().out)
    assert [lr for lr, _ in result["lr_results"]] == [1e-6, 0.05]
    assert result["lr"] == max(result["lr_results"], key=lambda x: x[1])[0]

"""Run directories: atomic files, resume equals an uninterrupted run, clear errors."""

from __future__ import annotations

import json
import os

import pytest
import torch

from bilinear.errors import CheckpointError, ConfigError, FolderLockedError, OutputExistsError
from bilinear.learned import TrainConfig
from bilinear.learned.runs import RunDir, load_run
from bilinear.learned import train_run

torch.set_num_threads(1)

CONFIG = TrainConfig(spec="cyclic:3", model="full", hidden=6, steps=120, eval_every=20, patience=50,
                     test_len=60, test_words=10, lr=0.01)


class Interrupt(BaseException):
    pass


def _interrupting(monkeypatch, after: int):
    """Make the run die right after its ``after``-th checkpoint is written."""
    original = RunDir.save_checkpoint
    calls = {"n": 0}

    def save(self, state):
        original(self, state)
        calls["n"] += 1
        if calls["n"] == after:
            raise Interrupt()

    monkeypatch.setattr(RunDir, "save_checkpoint", save)


def _strip(result):
    return {k: v for k, v in result.items() if not k.endswith("seconds")}


def test_resume_ends_where_the_uninterrupted_run_ends(tmp_path, monkeypatch):
    whole = train_run(CONFIG, tmp_path / "whole")
    _interrupting(monkeypatch, after=3)
    with pytest.raises(Interrupt):
        train_run(CONFIG, tmp_path / "cut")
    assert not (tmp_path / "cut" / "result.json").exists()
    with pytest.raises(CheckpointError, match="has not finished"):
        load_run(tmp_path / "cut")
    monkeypatch.undo()
    resumed = train_run(CONFIG, tmp_path / "cut", resume=True)
    assert _strip(resumed) == _strip(whole)
    a = torch.load(tmp_path / "whole" / "model.pt", weights_only=True)
    b = torch.load(tmp_path / "cut" / "model.pt", weights_only=True)
    assert all(torch.equal(a[k], b[k]) for k in a)
    metrics = [json.loads(line) for line in (tmp_path / "cut" / "metrics.jsonl").read_text().splitlines()]
    assert [m["step"] for m in metrics] == [20, 40, 60, 80, 100, 120]
    assert metrics == [json.loads(line) for line in (tmp_path / "whole" / "metrics.jsonl").read_text().splitlines()]


def test_metrics_past_the_checkpoint_are_dropped_on_resume(tmp_path, monkeypatch):
    _interrupting(monkeypatch, after=2)
    with pytest.raises(Interrupt):
        train_run(CONFIG, tmp_path / "run")
    monkeypatch.undo()
    with open(tmp_path / "run" / "metrics.jsonl", "a") as fh:  # a record written after the checkpoint
        fh.write('{"step": 60, "loss": 1.0}\n{"step": 8')  # and a torn line
    state = RunDir(tmp_path / "run", CONFIG, resume=True).load_checkpoint()
    assert state["step"] == 40
    steps = [json.loads(line)["step"] for line in (tmp_path / "run" / "metrics.jsonl").read_text().splitlines()]
    assert steps == [20, 40]


def test_resuming_a_finished_run_returns_its_result(tmp_path):
    first = train_run(CONFIG, tmp_path / "run")
    assert train_run(CONFIG, tmp_path / "run", resume=True) == first


def test_load_run_gives_config_model_automaton_result(tmp_path):
    result = train_run(CONFIG, tmp_path / "run")
    config, model, automaton, stored = load_run(tmp_path / "run")
    assert config == CONFIG and stored == result and automaton.n_states == 3
    assert not model.training
    assert model.to_weights().dim == 6


def test_missing_run_on_resume(tmp_path):
    with pytest.raises(CheckpointError, match="does not exist"):
        train_run(CONFIG, tmp_path / "nothing", resume=True)


def test_a_run_killed_before_its_first_checkpoint_resumes_from_scratch(tmp_path, capsys):
    whole = train_run(CONFIG, tmp_path / "whole")
    RunDir(tmp_path / "cut", CONFIG).close()  # config written, no checkpoint yet
    (tmp_path / "cut" / "metrics.jsonl").write_text('{"step": 20, "loss": 1.0}\n{"step": 4')  # partial
    (tmp_path / "cut" / ".checkpoint.pt.x1y2.tmp").write_bytes(b"half a checkpoint")
    resumed = train_run(CONFIG, tmp_path / "cut", resume=True, quiet=False)
    assert "no checkpoint yet: starting the run from scratch" in capsys.readouterr().err
    assert _strip(resumed) == _strip(whole)
    assert (tmp_path / "cut" / "metrics.jsonl").read_text() == (tmp_path / "whole" / "metrics.jsonl").read_text()
    assert sorted(p.name for p in (tmp_path / "cut").iterdir()) == sorted(p.name for p in (tmp_path / "whole").iterdir())


def test_a_run_killed_before_its_config_resumes_from_scratch(tmp_path):
    (tmp_path / "cut").mkdir()
    (tmp_path / "cut" / ".config.json.abc.tmp").write_text("{")
    (tmp_path / "cut" / ".lock").write_text("12345\n")  # left by a killed process: holds no lock
    result = train_run(CONFIG.replace(steps=20), tmp_path / "cut", resume=True)
    assert result["steps"] == 20 and not list((tmp_path / "cut").glob(".*"))


def test_orphan_temporary_files_are_removed_on_resume(tmp_path, monkeypatch):
    _interrupting(monkeypatch, after=1)
    with pytest.raises(Interrupt):
        train_run(CONFIG, tmp_path / "run")
    monkeypatch.undo()
    orphan = tmp_path / "run" / ".checkpoint.pt.k3j_x9.tmp"
    orphan.write_bytes(b"\0" * 1000)
    RunDir(tmp_path / "run", CONFIG, resume=True).close()
    assert not orphan.exists()


def test_a_second_writer_fails_at_once_naming_the_folder_and_pid(tmp_path, monkeypatch):
    _interrupting(monkeypatch, after=1)
    with pytest.raises(Interrupt):
        train_run(CONFIG, tmp_path / "run")
    monkeypatch.undo()
    with RunDir(tmp_path / "run", CONFIG, resume=True):
        with pytest.raises(FolderLockedError, match=f"run folder {tmp_path / 'run'} is being written by process {os.getpid()}"):
            train_run(CONFIG, tmp_path / "run", resume=True)
        with pytest.raises(FolderLockedError):
            train_run(CONFIG, tmp_path / "run", force=True)
    assert train_run(CONFIG, tmp_path / "run", resume=True)["steps"] == CONFIG.steps  # released
    assert not (tmp_path / "run" / ".lock").exists()


def test_force_replaces_a_run(tmp_path):
    train_run(CONFIG.replace(steps=20), tmp_path / "run")
    (tmp_path / "run" / "stray.txt").write_text("x")
    result = train_run(CONFIG.replace(steps=40), tmp_path / "run", force=True)
    assert result["steps"] == 40 and not (tmp_path / "run" / "stray.txt").exists()


def test_a_non_finite_loss_stops_the_run(tmp_path):
    with pytest.raises(ConfigError, match="training diverged.*lower the learning rate"):
        train_run(CONFIG.replace(lr=1e30), tmp_path / "run")
    assert not (tmp_path / "run" / "result.json").exists()
    assert not (tmp_path / "run" / "checkpoint.pt").exists()  # nothing non-finite is saved


def _checkpoint_after_one(tmp_path, monkeypatch):
    _interrupting(monkeypatch, after=1)
    with pytest.raises(Interrupt):
        train_run(CONFIG, tmp_path / "run")
    monkeypatch.undo()
    path = tmp_path / "run" / "checkpoint.pt"
    return path, torch.load(path, weights_only=True)


def _nan_weight(state):
    key = next(iter(state["model"]))
    state["model"][key] = torch.full_like(state["model"][key], float("nan"))


def _wrong_shape(state):
    key = next(iter(state["model"]))
    state["model"][key] = torch.zeros(7, 3)


def _moment_shape(state):
    for buffers in state["optimizer"]["state"].values():
        buffers["exp_avg"] = torch.zeros(2, 2)


@pytest.mark.parametrize("edit, message", [
    (lambda s: s.update(step=-100), "step -100 is not an integer in 0..120"),
    (lambda s: s.update(step="abc"), "step 'abc' is not an integer"),
    (lambda s: s.update(step=10**30), "is not an integer in 0..120"),
    (lambda s: s.update(step=True), "step True is not an integer"),
    (lambda s: s.update(streak=99), "streak 99 is not an integer in 0..20"),
    (lambda s: s.update(stopped_early="yes"), "stopped_early"),
    (_nan_weight, "not finite .the run diverged"),
    (_wrong_shape, "does not fit the model"),
    (lambda s: s.update(model={"x": 1}), "not a table of tensors"),
    (lambda s: s.update(optimizer={"param_groups": "garbage"}), "optimizer state is malformed"),
    (lambda s: s.update(optimizer={"state": {}, "param_groups": [{"params": [0]}]}), "does not fit the model"),
    (_moment_shape, "optimizer buffer 'exp_avg' has shape"),
    (lambda s: s["optimizer"]["param_groups"][0].update(lr=float("nan")), "learning rate nan"),
    (lambda s: s.update(torch_rng=torch.zeros(3, dtype=torch.uint8)), "bad RNG state"),
    (lambda s: s.update(torch_rng=torch.zeros(3)), "RNG state is not a byte tensor"),
    (lambda s: s.update(format=1), "has format 1; this version reads format 2 .* --force"),
    (lambda s: s.pop("format"), "has format None; this version reads format 2"),
    (lambda s: s.pop("config"), "carries no config"),
    (lambda s: s["config"].update(seed=7), "belongs to another run: its config differs in seed"),
    (lambda s: s["config"].update(steps=-1), "carries an invalid config: steps must be positive"),
    (lambda s: s.update(config="parity"), "carries an invalid config"),
])
def test_a_checkpoint_with_bad_contents_is_one_line(tmp_path, monkeypatch, edit, message):
    path, state = _checkpoint_after_one(tmp_path, monkeypatch)
    edit(state)
    torch.save(state, path)
    with pytest.raises(CheckpointError, match=message) as info:
        train_run(CONFIG, tmp_path / "run", resume=True)
    assert "\n" not in str(info.value) and len(str(info.value)) <= 300
    assert not (tmp_path / "run" / "result.json").exists()


@pytest.mark.parametrize("lines, message", [
    ('{"step": 20}\n[1, 2]\n', "line 2 is not a metric record"),
    ('{"step": "abc"}\n', "line 1 is not a metric record"),
    ('{"step": 20}\n{"step": 20}\n', "step 20 is out of order"),
    ('{"step": 20}\nnot json\n{"step": 40}\n', "line 2 is not JSON"),
])
def test_bad_metric_lines_are_one_line(tmp_path, monkeypatch, lines, message):
    _checkpoint_after_one(tmp_path, monkeypatch)
    (tmp_path / "run" / "metrics.jsonl").write_text(lines)
    with pytest.raises(CheckpointError, match=message):
        train_run(CONFIG, tmp_path / "run", resume=True)


def test_corrupt_checkpoint_on_resume(tmp_path, monkeypatch):
    _interrupting(monkeypatch, after=1)
    with pytest.raises(Interrupt):
        train_run(CONFIG, tmp_path / "run")
    monkeypatch.undo()
    (tmp_path / "run" / "checkpoint.pt").write_bytes(b"not a checkpoint")
    with pytest.raises(CheckpointError, match="checkpoint.pt is corrupt: not a readable torch file"):
        train_run(CONFIG, tmp_path / "run", resume=True)
    assert not (tmp_path / "run" / "result.json").exists()


def test_incomplete_checkpoint_on_resume(tmp_path, monkeypatch):
    _interrupting(monkeypatch, after=1)
    with pytest.raises(Interrupt):
        train_run(CONFIG, tmp_path / "run")
    monkeypatch.undo()
    torch.save({"step": 3}, tmp_path / "run" / "checkpoint.pt")
    with pytest.raises(CheckpointError, match="incomplete"):
        train_run(CONFIG, tmp_path / "run", resume=True)


def test_corrupt_config_and_result(tmp_path):
    train_run(CONFIG, tmp_path / "run")
    (tmp_path / "run" / "result.json").write_text("{")
    with pytest.raises(CheckpointError, match="corrupt"):
        load_run(tmp_path / "run")
    (tmp_path / "run" / "config.json").write_text('{"spec": "parity", "bogus": 1}')
    with pytest.raises(CheckpointError, match="bogus"):
        load_run(tmp_path / "run")


def test_existing_directory_is_not_overwritten(tmp_path):
    train_run(CONFIG, tmp_path / "run")
    with pytest.raises(OutputExistsError, match="is not empty .*use --force to replace it, or --resume"):
        train_run(CONFIG, tmp_path / "run")


def test_resume_with_a_different_config(tmp_path, monkeypatch):
    _interrupting(monkeypatch, after=1)
    with pytest.raises(Interrupt):
        train_run(CONFIG, tmp_path / "run")
    monkeypatch.undo()
    with pytest.raises(ConfigError, match="differs from the stored one in steps"):
        train_run(CONFIG.replace(steps=999), tmp_path / "run", resume=True)


def test_no_temporary_files_left(tmp_path):
    train_run(CONFIG, tmp_path / "run")
    assert sorted(p.name for p in (tmp_path / "run").iterdir()) == [
        "checkpoint.pt", "config.json", "metrics.jsonl", "model.pt", "result.json"
    ]


def test_a_lock_held_by_another_process_names_its_pid(tmp_path):
    import subprocess
    import sys

    (tmp_path / "run").mkdir()
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys, time; from bilinear.fileio import FolderLock; "
         "FolderLock(sys.argv[1]).acquire(); print('held', flush=True); time.sleep(60)", str(tmp_path / "run")],
        stdout=subprocess.PIPE, text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "held"
        with pytest.raises(FolderLockedError, match=f"being written by process {holder.pid} "):
            train_run(CONFIG, tmp_path / "run", resume=True)
    finally:
        holder.kill()
        holder.wait()
    assert train_run(CONFIG.replace(steps=20), tmp_path / "run", resume=True)["steps"] == 20  # lock gone with it


def test_a_checkpoint_carries_its_config_and_format(tmp_path, monkeypatch):
    from bilinear.learned.runs import CHECKPOINT_FORMAT, RunFiles

    _, state = _checkpoint_after_one(tmp_path, monkeypatch)
    assert state["format"] == CHECKPOINT_FORMAT == 2
    assert TrainConfig.from_dict(state["config"]) == CONFIG and state["step"] == 20
    read = RunFiles(tmp_path / "run").checkpoint()  # read only: no lock, metrics untouched
    assert read["step"] == 20 and not (tmp_path / "run" / ".lock").exists()


def test_runs_is_storage_only():
    """runs.py never imports the training module (the runs <-> train cycle is gone), and a
    fresh interpreter reads its file names without torch."""
    import ast
    import subprocess
    import sys
    from pathlib import Path

    import bilinear.learned.runs as runs

    tree = ast.parse(Path(runs.__file__).read_text())
    imported = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    assert "train" not in imported and not any(m and m.endswith(".train") for m in imported)
    code = ("import sys\nfrom bilinear.learned.runs import RESULTS_CSV, CHECKPOINT_FILE\n"
            "from bilinear.learned import cli\nassert cli.RESULTS_CSV is RESULTS_CSV\n"
            "assert 'torch' not in sys.modules\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]


def test_load_run_needs_no_writer(tmp_path):
    from bilinear.learned.runs import RunFiles

    train_run(CONFIG.replace(steps=20), tmp_path / "run")
    with RunDir(tmp_path / "run", resume=True):  # a writer holds the lock: reading still works
        config, model, _, result = load_run(tmp_path / "run")
        assert config == CONFIG.replace(steps=20) and result["steps"] == 20
        assert RunFiles(tmp_path / "run").finished
    with pytest.raises(CheckpointError, match="does not exist"):
        RunFiles(tmp_path / "nothing")

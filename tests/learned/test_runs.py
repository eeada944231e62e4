"""Run directories: atomic files, resume equals an uninterrupted run, clear errors."""

from __future__ import annotations

import json

import pytest
import torch

from bilinear.errors import CheckpointError, ConfigError
from bilinear.learned.config import TrainConfig
from bilinear.learned.runs import RunDir, load_run, train_run

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


def test_missing_checkpoint_on_resume(tmp_path):
    with pytest.raises(CheckpointError, match="does not exist"):
        train_run(CONFIG, tmp_path / "nothing", resume=True)
    RunDir(tmp_path / "fresh", CONFIG)  # config written, no checkpoint yet
    with pytest.raises(CheckpointError, match="checkpoint.pt is missing"):
        train_run(CONFIG, tmp_path / "fresh", resume=True)


def test_corrupt_checkpoint_on_resume(tmp_path, monkeypatch):
    _interrupting(monkeypatch, after=1)
    with pytest.raises(Interrupt):
        train_run(CONFIG, tmp_path / "run")
    monkeypatch.undo()
    (tmp_path / "run" / "checkpoint.pt").write_bytes(b"not a checkpoint")
    with pytest.raises(CheckpointError, match="corrupt"):
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
    with pytest.raises(CheckpointError, match="already exists"):
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

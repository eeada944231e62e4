"""--log tensorboard / wandb beside metrics.jsonl (wandb: a stand-in module, offline mode asserted)."""

from __future__ import annotations

import json
import sys
import types

import pytest

from bilinear.errors import ConfigError, ExtraMissingError
from bilinear.learned.config import TrainConfig
from bilinear.learned.loggers import check_loggers, parse_log
from bilinear.learned.train import train_run

CONFIG = dict(spec="parity", model="diagonal", hidden=2, steps=60, eval_every=20, test_len=20, test_words=5,
              early_stop="none", lr=0.05)


def _fake_wandb(monkeypatch) -> list:
    calls: list = []

    class Run:
        def __init__(self, **kwargs):
            calls.append(("init", kwargs))
            self.summary = {}

        def log(self, values, step):
            calls.append(("log", step, dict(values)))

        def finish(self):
            calls.append(("finish", dict(self.summary)))

    module = types.ModuleType("wandb")
    module.init = lambda **kwargs: Run(**kwargs)
    monkeypatch.setitem(sys.modules, "wandb", module)
    return calls


def test_tensorboard_events_hold_every_evaluation(tmp_path) -> None:
    pytest.importorskip("tensorboard")
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    result = train_run(TrainConfig(**CONFIG, log="tensorboard"), tmp_path / "run")
    metrics = [json.loads(line) for line in (tmp_path / "run" / "metrics.jsonl").read_text().splitlines()]
    events = EventAccumulator(str(tmp_path / "run" / "tensorboard"))
    events.Reload()
    losses = events.Scalars("loss")
    assert [e.step for e in losses] == [m["step"] for m in metrics] == [20, 40, 60]
    assert [e.value for e in losses] == pytest.approx([m["loss"] for m in metrics], rel=1e-6)
    final = events.Scalars("result/accuracy_at_length")
    assert final[0].value == pytest.approx(result["accuracy_at_length"])


def test_wandb_runs_offline_with_the_same_records(tmp_path, monkeypatch) -> None:
    calls = _fake_wandb(monkeypatch)
    result = train_run(TrainConfig(**CONFIG, log="wandb"), tmp_path / "run")
    init = calls[0][1]
    assert init["mode"] == "offline" and init["dir"] == str(tmp_path / "run") and init["config"]["spec"] == "parity"
    logged = [c for c in calls if c[0] == "log"]
    assert [c[1] for c in logged] == [20, 40, 60] and "train_batch_accuracy" in logged[0][2]
    assert calls[-1][0] == "finish" and calls[-1][1]["accuracy_at_length"] == result["accuracy_at_length"]


def test_a_missing_extra_is_named_before_any_training(tmp_path, monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "wandb", None)  # import wandb raises ImportError
    with pytest.raises(ExtraMissingError, match=r"pip install 'bilinear\[wandb\]'"):
        check_loggers("wandb")
    with pytest.raises(ExtraMissingError):
        train_run(TrainConfig(**CONFIG, log="wandb"), tmp_path / "run")
    assert not (tmp_path / "run" / "metrics.jsonl").exists()


def test_log_names_are_checked_and_do_not_change_the_run() -> None:
    assert parse_log("tensorboard,wandb") == ("tensorboard", "wandb")
    with pytest.raises(ConfigError, match="named twice"):
        parse_log("wandb,wandb")
    with pytest.raises(ConfigError, match="unknown logger 'csv'"):
        TrainConfig(**CONFIG, log="csv")
    assert TrainConfig(**CONFIG, log="wandb") == TrainConfig(**CONFIG)


def test_sweep_logs_every_run(tmp_path, monkeypatch) -> None:
    from bilinear.learned.sweep import Sweep, run_sweep

    calls = _fake_wandb(monkeypatch)
    sweep = Sweep.from_toml_text('families = ["parity"]\nmodels = ["diagonal"]\nseeds = [0, 1]\nlrs = [0.05]\n'
                                 "workers = 1\n[train]\nsteps = 20\nhidden = 2\neval_every = 10\ntest_len = 10\n"
                                 "test_words = 5\n")
    run_sweep(sweep, tmp_path / "sweep", log="wandb")
    assert sorted(c[1]["name"] for c in calls if c[0] == "init") == sorted(
        p.name for p in (tmp_path / "sweep" / "runs").iterdir())
    assert sum(c[0] == "finish" for c in calls) == 2

"""--log tensorboard / wandb beside metrics.jsonl (wandb: a stand-in module, offline mode asserted, and
the real wandb in offline mode when it is installed)."""

from __future__ import annotations

import json
import sys
import types

import pytest

from bilinear.errors import ConfigError, ExtraMissingError
from bilinear.learned import TrainConfig
from bilinear.learned.loggers import check_loggers, parse_log
from bilinear.learned import train_run

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


def _wandb_records(path) -> list:
    """The protobuf records of an offline W&B run file (``run-ID.wandb``): a 7-byte header
    (``:W&B``, magic, version), then LevelDB-style blocks of 32 KiB whose chunks carry a 7-byte
    header (checksum, little-endian length, type: 1 full, 2 first, 3 middle, 4 last)."""
    import struct

    from wandb.proto import wandb_internal_pb2

    raw = path.read_bytes()
    assert raw[:4] == b":W&B", raw[:7]
    block, pos, records, pending = 32768, 7, [], b""
    while pos + 7 <= len(raw):
        if block - pos % block < 7:  # a block's tail too short for a header is padding
            pos += block - pos % block
            continue
        _, length, kind = struct.unpack("<IHB", raw[pos:pos + 7])
        if kind == 0 and length == 0:
            break
        pending += raw[pos + 7:pos + 7 + length]
        pos += 7 + length
        if kind in (1, 4):
            record = wandb_internal_pb2.Record()
            record.ParseFromString(pending)
            records.append(record)
            pending = b""
    return records


def _items(items) -> dict:
    """W&B's key/value items (a key is ``key`` or the path ``nested_key``), values decoded."""
    return {item.key or "/".join(item.nested_key): json.loads(item.value_json) for item in items}


def test_a_real_wandb_writes_an_offline_run_with_every_record(tmp_path, monkeypatch) -> None:
    """``train --log wandb`` with the real wandb (skipped without it): an offline run in
    RUN_DIR/wandb whose history holds every metrics.jsonl record at its step and whose summary
    holds the result (wandb's own folders are pointed into tmp_path)."""
    pytest.importorskip("wandb")
    from bilinear.cli import main

    for name, value in {"WANDB_MODE": "offline", "WANDB_DIR": tmp_path / "wandb-dir", "WANDB_SILENT": "true",
                        "WANDB_CONFIG_DIR": tmp_path / "wandb-config", "WANDB_CACHE_DIR": tmp_path / "wandb-cache",
                        "WANDB_DATA_DIR": tmp_path / "wandb-data", "WANDB_ERROR_REPORTING": "false"}.items():
        monkeypatch.setenv(name, str(value))
    run = tmp_path / "run"
    argv = ["train", "parity", "diagonal", "--hidden", "2", "--steps", "60", "--eval-every", "20", "--test-len", "20",
            "--test-words", "5", "--early-stop", "none", "--lr", "0.05", "--log", "wandb", "--quiet", "--json",
            "--out", str(run)]
    assert main(argv) == 0
    runs = sorted((run / "wandb").glob("offline-run-*"))
    assert len(runs) == 1
    files = list(runs[0].glob("run-*.wandb"))
    assert len(files) == 1 and files[0].stat().st_size > 0
    records = _wandb_records(files[0])
    kinds = [r.WhichOneof("record_type") for r in records]
    assert kinds[0] == "header" and "run" in kinds and kinds[-1] == "exit"
    started = next(r.run for r in records if r.WhichOneof("record_type") == "run")
    assert started.project == "bilinear" and started.display_name == "run"
    config = _items(started.config.update)
    assert config["spec"] == "parity" and config["model"] == "diagonal" and config["steps"] == 60

    metrics = [json.loads(line) for line in (run / "metrics.jsonl").read_text().splitlines()]
    history = [_items(r.history.item) for r in records if r.WhichOneof("record_type") == "history"]
    assert [h["_step"] for h in history] == [m["step"] for m in metrics] == [20, 40, 60]
    assert [h["loss"] for h in history] == [m["loss"] for m in metrics]
    assert [h["train_batch_accuracy"] for h in history] == [m["train_batch_accuracy"] for m in metrics]

    result = json.loads((run / "result.json").read_text())
    summary: dict = {}
    for r in records:
        if r.WhichOneof("record_type") == "summary":
            summary.update(_items(r.summary.update))
    assert summary["accuracy_at_length"] == result["accuracy_at_length"]
    assert summary["steps"] == result["steps"] == 60
    assert not list((tmp_path / "wandb-dir").rglob("*.wandb"))  # the run is in RUN_DIR/wandb, not WANDB_DIR

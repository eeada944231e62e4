"""Hostile sizes in training (issue 25): refused with the estimate before anything is allocated."""

from __future__ import annotations

import pytest

from bilinear.errors import ConfigError
from bilinear.learned import TrainConfig
from bilinear.learned.limits import estimate_bytes


def test_the_477_gib_validation_run_is_refused_up_front(capped_cli, tmp_path):
    """``--val-len 20 1000000000`` asked numpy for 477 GiB at the first validation."""
    proc = capped_cli("train", "parity", "diagonal", "--val-len", "20", "1000000000", "--steps", "2000",
                      "--eval-every", "10", "--out", tmp_path / "run")
    assert proc.returncode == 2, proc.stderr[-2000:]
    assert proc.stderr.count("\n") == 1 and "over the limit of 8 GB" in proc.stderr
    assert not (tmp_path / "run").exists()


def test_a_sweep_with_huge_validation_words_writes_nothing(capped_cli, tmp_path):
    grid = tmp_path / "grid.toml"
    grid.write_text('families = ["parity"]\nmodels = ["diagonal"]\nlrs = [1e-2]\nseeds = [0]\n'
                    '[train]\nsteps = 20\nval_max_len = 1000000000\n')
    proc = capped_cli("sweep", grid, "--out", tmp_path / "out")
    assert proc.returncode == 2, proc.stderr[-2000:]
    assert "over the limit of 8 GB" in proc.stderr and proc.stderr.count("\n") == 1
    assert not (tmp_path / "out").exists()


def test_the_validation_words_count_whether_or_not_early_stopping_reads_them():
    """Every run reads its validation words once at the end (``val_accuracy``, which chooses
    learning rates), so they count with ``early_stop="none"`` too."""
    base = dict(spec="parity", model="diagonal", val_max_len=10**6, val_words=64)
    kwargs = dict(n_symbols=2, n_classes=2)
    validated = estimate_bytes(TrainConfig(**base, max_memory_gb=1e6), **kwargs)
    plain = estimate_bytes(TrainConfig(**base, early_stop="none", max_memory_gb=1e6), **kwargs)
    assert validated == plain
    short = estimate_bytes(TrainConfig(**dict(base, val_max_len=200), early_stop="none"), **kwargs)
    assert plain["sampled words"] - short["sampled words"] == 64 * (10**6 - 200) * 24
    assert plain["activations"] == 64 * 10**6 * (16 * 16 + 8) > short["activations"]
    with pytest.raises(ConfigError, match=r"1.8e\+03 GB \(activations"):
        TrainConfig(spec="parity", model="diagonal", val_max_len=10**8, val_words=64, max_memory_gb=100)


def test_run_files_and_sweep_files_are_read_within_limits(tmp_path, capped_cli):
    """An 8 GiB sparse config.json was read whole (MemoryError), 10^5 nested lists overflowed the
    parser's stack (RecursionError), a 255 MiB sweep file took 41.6 s to refuse."""
    from bilinear.errors import CheckpointError
    from bilinear.learned.runs import MAX_RUN_FILE_BYTES, RunFiles, load_config
    from bilinear.learned.sweep import MAX_SWEEP_FILE_BYTES, Sweep

    run = tmp_path / "run"
    run.mkdir()
    with open(run / "config.json", "wb") as fh:  # sparse: no disk used
        fh.truncate(8 * 2**30)
    with pytest.raises(CheckpointError, match=f"over the limit of {MAX_RUN_FILE_BYTES}"):
        load_config(run)
    proc = capped_cli("train", "parity", "diagonal", "--out", run, "--resume")
    assert proc.returncode == 2 and "over the limit" in proc.stderr and proc.stderr.count("\n") == 1
    (run / "config.json").write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(CheckpointError, match="is corrupt: JSON nested deeper than 64 levels"):
        load_config(run)
    (run / "result.json").write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(CheckpointError, match="corrupt"):
        RunFiles(run, TrainConfig(spec="parity", model="diagonal")).result()
    (run / "metrics.jsonl").write_text('{"step": 1}\n' + "[" * 100_000 + "]" * 100_000 + "\n" + '{"step": 2}\n')
    with pytest.raises(CheckpointError, match="line 2 is not JSON"):
        RunFiles(run, TrainConfig(spec="parity", model="diagonal")).metrics()
    big = tmp_path / "big.toml"
    with open(big, "wb") as fh:
        fh.truncate(255 * 2**20)
    with pytest.raises(ConfigError, match=f"over the limit of {MAX_SWEEP_FILE_BYTES}"):
        Sweep.load(big)
    deep = tmp_path / "deep.toml"
    deep.write_text("families = " + "[" * 100_000 + "]" * 100_000 + "\n")
    with pytest.raises(ConfigError, match="is not valid TOML"):
        Sweep.load(deep)


def test_a_pickled_model_is_refused_as_code_not_as_corrupt(finished_run, tmp_path):
    """torch's refusal advised re-running with weights_only=False, which would run the file's code."""
    import pickle
    import shutil

    from bilinear.errors import CheckpointError
    from bilinear.learned import load_run

    run = tmp_path / "run"
    shutil.copytree(finished_run, run)
    with open(run / "model.pt", "wb") as fh:
        pickle.dump({"A": TrainConfig}, fh)  # a class: a global, refused by weights_only
    with pytest.raises(CheckpointError) as info:
        load_run(run)
    message = str(info.value)
    assert "holds pickled Python objects, not only tensors, and was not loaded" in message
    assert "weights_only=False" not in message and "corrupt" not in message


def test_a_wrong_shape_model_keeps_its_detail(finished_run, tmp_path):
    import shutil

    import torch

    from bilinear.errors import CheckpointError
    from bilinear.learned import load_run

    run = tmp_path / "run"
    shutil.copytree(finished_run, run)
    state = torch.load(run / "model.pt", weights_only=True)
    name = next(iter(state))
    state[name] = torch.zeros(7, 7)
    torch.save(state, run / "model.pt")
    with pytest.raises(CheckpointError, match=f"does not fit the run's diagonal model: the tensor '{name}' has "
                                              r"shape \(7, 7\), the model's \(") as refused:
        load_run(run)
    assert "size mismatch" not in str(refused.value) and "torch.Size" not in str(refused.value)  # the toolkit's words
    state.pop(name)
    torch.save(state, run / "model.pt")
    with pytest.raises(CheckpointError, match=f"the tensor '{name}' is missing"):
        load_run(run)
    state[name], state["extra.weight"] = torch.zeros(1), torch.zeros(1)
    torch.save(state, run / "model.pt")
    with pytest.raises(CheckpointError, match="it has the tensor 'extra.weight', which the model has not"):
        load_run(run)


def test_a_stride0_tensor_is_refused_before_it_is_read(finished_run, tmp_path, capped_cli):
    """10 kB on disk, 400 GB once torch.isfinite touched it during --resume."""
    import shutil

    import torch

    run = tmp_path / "run"
    shutil.copytree(finished_run, run)
    state = torch.load(run / "checkpoint.pt", weights_only=True)
    name = next(iter(state["model"]))
    state["model"][name] = torch.zeros(1).expand(10**11)
    torch.save(state, run / "checkpoint.pt")
    assert (run / "checkpoint.pt").stat().st_size < 100_000
    (run / "result.json").unlink()  # unfinished: --resume reads the checkpoint
    proc = capped_cli("train", "parity", "diagonal", "--hidden", "2", "--steps", "4", "--eval-every", "2",
                      "--test-len", "10", "--test-words", "4", "--out", run, "--resume")
    assert proc.returncode == 2, proc.stderr[-2000:]
    assert "(strides (0,)) has 400,000,000,000 bytes of elements in a storage of 4 bytes" in proc.stderr
    assert proc.stderr.count("\n") == 1


def test_train_refuses_a_factor_rank_its_readers_refuse():
    """``factorized:100000`` trained, then analyze and certify refused the run."""
    with pytest.raises(ConfigError, match=r"R = 100,000 exceeds the factor-rank limit 256 .* for 2 symbols and hidden 16"):
        TrainConfig(spec="parity", model="factorized:100000")
    assert TrainConfig(spec="parity", model="factorized:256").model == "factorized:256"


def test_a_full_disk_while_checkpointing_is_an_os_error_naming_the_file(tmp_path, monkeypatch):
    """torch's RuntimeError of a failed write became a traceback; no partial file is left."""
    import torch

    from bilinear.learned import runs

    def failing_save(obj, fh):
        fh.write(b"partial")
        raise RuntimeError("[enforce fail at inline_container.cc:603] . unexpected pos 64 vs 0: file write failed")

    monkeypatch.setattr(torch, "save", failing_save)
    with pytest.raises(OSError, match="is the disk full") as info:
        runs._save_tensors(tmp_path / "checkpoint.pt", {"x": torch.zeros(2)})
    assert info.value.filename == str(tmp_path / "checkpoint.pt")
    assert list(tmp_path.iterdir()) == []


def test_a_bad_ray_address_is_one_config_error(monkeypatch):
    """``sweep --ray "not a host"``: Ray's ValueError was a traceback (a stand-in module here)."""
    import sys
    import types

    from bilinear.learned.sweep import _run_ray

    fake = types.ModuleType("ray")

    def init(address=None, **kwargs):
        raise ValueError(f"Malformed address {address}\nmore detail")

    fake.init = init
    monkeypatch.setitem(sys.modules, "ray", fake)
    with pytest.raises(ConfigError, match=r"--ray 'not a host': cannot connect to a Ray cluster there \(Malformed"):
        _run_ray([], "not a host")

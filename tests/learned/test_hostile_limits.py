"""Hostile sizes in training (issue 25): refused with the estimate before anything is allocated."""

from __future__ import annotations

import pytest

from bilinear.errors import ConfigError
from bilinear.learned.config import TrainConfig
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
        TrainConfig(**dict(base, val_max_len=10**8), max_memory_gb=100)

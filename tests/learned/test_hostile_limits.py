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


def test_the_validation_words_are_in_the_estimate():
    """Validation runs at the end of every run (and at each early-stop check): its words count."""
    kwargs = dict(n_symbols=2, n_classes=2)
    big = estimate_bytes(TrainConfig(spec="parity", model="diagonal", val_max_len=10**6, val_words=64,
                                     max_memory_gb=1e6), **kwargs)
    small = estimate_bytes(TrainConfig(spec="parity", model="diagonal", val_max_len=20, val_words=64), **kwargs)
    assert big["sampled words"] - small["sampled words"] == 64 * (10**6 - 20) * 24
    assert big["activations"] == 64 * 10**6 * (16 * 16 + 8) > small["activations"]
    with pytest.raises(ConfigError, match=r"1.8e\+03 GB \(activations"):
        TrainConfig(spec="parity", model="diagonal", val_max_len=10**8, val_words=64, max_memory_gb=100)

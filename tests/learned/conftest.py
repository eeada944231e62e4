"""Fixtures shared by the tests of ``bilinear.learned``."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="module")
def finished_run(tmp_path_factory):
    """A finished four-step run (parity, diagonal, hidden 2) in a folder of its own, per module."""
    from bilinear.learned import TrainConfig, train_run

    run = tmp_path_factory.mktemp("finished") / "run"
    train_run(TrainConfig(spec="parity", model="diagonal", hidden=2, steps=4, eval_every=2, test_len=10,
                          test_words=4), run)
    return run

"""Validation words that reach the test length stay apart from the test words (--val-len 20 500)."""

import numpy as np
import pytest

from bilinear.automata import from_spec
from bilinear.automata.data import sample_words
from bilinear.errors import ConfigError
from bilinear.learned.config import TrainConfig
from bilinear.learned.train import validation_set


def _words(ds):
    return [tuple(ds.words[b, : ds.lengths[b]].tolist()) for b in range(len(ds))]


def test_validation_words_at_the_test_length_are_not_test_words():
    a = from_spec("parity")
    # 2^4 = 16 words of length 4; 6 test words; 8 validation words of length 4 would share some
    c = TrainConfig(spec="parity", model="diagonal", hidden=2, test_len=4, test_words=6, val_min_len=4,
                    val_max_len=4, val_words=8)
    test = set(_words(sample_words(a, 6, 4, 4, seed=np.random.default_rng((0, 3)))))  # as the test draws them
    plain = _words(sample_words(a, 8, 4, 4, seed=np.random.default_rng((0, 5))))
    assert test & set(plain), "the case must have a clash to remove"
    val = validation_set(a, c)
    assert len(val) == 8 and not test & set(_words(val))
    assert val.labels[np.arange(8), val.lengths - 1].tolist() == [sum(w) % 2 for w in _words(val)]


def test_validation_words_short_of_the_test_length_are_the_plain_draw():
    a = from_spec("cyclic:3")
    c = TrainConfig(spec="cyclic:3", model="full", hidden=2, test_len=50, val_min_len=5, val_max_len=20, val_words=16)
    assert _words(validation_set(a, c)) == _words(sample_words(a, 16, 5, 20, seed=np.random.default_rng((0, 5))))


def test_validation_words_that_cannot_avoid_the_test_words_are_refused():
    a = from_spec("parity")
    c = TrainConfig(spec="parity", model="diagonal", hidden=2, test_len=1, test_words=50, val_min_len=1,
                    val_max_len=1, val_words=4)
    with pytest.raises(ConfigError, match="apart from the test words"):
        validation_set(a, c)

"""Route 2 (docs/your-model.md: any torch module) in the float check and the assertions of
constructions/horizon/testing.py: the size limit counts the directed words and a tracker's
logits before any word is drawn or the module run, the seed and the symbols of a word are
checked, and a module's own ``to_weights`` does not stop it from being run as a module."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from bilinear.automata import from_spec
from bilinear.constructions import Weights, build, check
from bilinear.constructions.horizon import floatcheck
from bilinear.constructions.horizon.floatcheck import check_bytes, directed_words
from bilinear.constructions.horizon.testing import assert_tracks, assert_tracks_word, first_wrong
from bilinear.constructions.values.tracker import ModuleTracker, WeightsTracker, as_tracker
from bilinear.errors import UnknownSymbolError, WeightsError

PARITY = from_spec("parity")


class Parity(torch.nn.Module):
    """The route-2 example of docs/your-model.md: parity as the sign of a running product."""

    def forward(self, words):
        sign = torch.cumprod(1.0 - 2.0 * words.double(), dim=1)
        return torch.stack([sign, -sign], dim=-1)


class AlwaysEven(torch.nn.Module):
    def forward(self, words):
        return torch.stack([torch.ones(words.shape, dtype=torch.float64),
                            torch.zeros(words.shape, dtype=torch.float64)], dim=-1)


def _refuse_to_run(monkeypatch):
    """Make every way of running a module or drawing directed words fail the test."""
    def never(*args, **kwargs):
        raise AssertionError("ran before the size was checked")

    monkeypatch.setattr(ModuleTracker, "run", never)
    monkeypatch.setattr(floatcheck, "directed_words", never)


def test_the_directed_words_count_in_the_size_limit(monkeypatch):
    """parity has 12 directed words: 12 + 10 words of length 100 and one hidden unit need
    22 x 100 x 24 + 22 x 16 = 53,152 bytes; 10 words alone (24,160) passed the old estimate."""
    w = build("parity", "diagonal")
    n = directed_words(PARITY, 100, w.variant).shape[0]
    assert n == 12 and check_bytes(n + 10, 100, w.dim) == 53_152
    monkeypatch.setattr(floatcheck, "MAX_CHECK_BYTES", 53_152)
    assert check(w, PARITY, length=100, words=10).directed == 12  # exactly at the limit: runs
    monkeypatch.setattr(floatcheck, "MAX_CHECK_BYTES", 53_151)
    _refuse_to_run(monkeypatch)
    with pytest.raises(WeightsError, match=r"the float check of 12 directed \+ 10 random words of length 100 "
                                           r"\(hidden size 1\) would need about 4.95e-05 GiB"):
        check(w, PARITY, length=100, words=10)


def test_a_trackers_logits_count_in_the_size_limit(monkeypatch):
    """A torch module's logits (words x length x classes x 16, and one forward pass of them) are
    counted, and the refusal comes before the module runs: 22 words of 100 symbols and 2 classes
    need 22 x 100 x (24 + 32) + 2,200 x 2 x 16 = 193,600 bytes (52,800 by the old estimate)."""
    assert check_bytes(22, 100, 0, classes=2) == 193_600
    monkeypatch.setattr(floatcheck, "MAX_CHECK_BYTES", 193_600)
    assert check(Parity(), PARITY, length=100, words=10).passed  # exactly at the limit: runs
    monkeypatch.setattr(floatcheck, "MAX_CHECK_BYTES", 193_599)
    _refuse_to_run(monkeypatch)
    with pytest.raises(WeightsError, match=r"12 directed \+ 10 random words of length 100 \(2 logits a symbol\) "
                                           r"would need about 0.00018 GiB .*MAX_CHECK_BYTES"):
        assert_tracks(Parity(), PARITY, length=100, words=10)


def test_a_thousand_symbols_are_refused_before_the_directed_words_are_listed(monkeypatch):
    """Every symbol's power is a directed word: cyclic:1000 at length 10^6 holds 1,001 words for
    one random word (the 22.4 GiB of `verify cyclic:1000 rotation2d --float --length 1000000
    --words 1`, a MemoryError after 37 s); refused before the seconds of listing them."""
    def never(*args, **kwargs):
        raise AssertionError("listed the directed words before the size was checked")

    monkeypatch.setattr(floatcheck, "_directed_parts", never)
    a = from_spec("cyclic:1000")
    w = Weights("full", np.tile(np.eye(2), (1000, 1, 1)), [1.0, 0.0], np.ones((1000, 2)))  # only its sizes count
    with pytest.raises(WeightsError, match=r"1,000 directed \+ 1 random words of length 1,000,000 \(hidden size 2\) "
                                           r"would need about 22.4 GiB"):
        check(w, a, length=10**6, words=1)


@pytest.mark.parametrize("seed", [-1, "a", 2.5, True, None])
def test_the_seed_is_a_non_negative_integer(seed):
    with pytest.raises(WeightsError, match=f"seed must be a non-negative integer, got {seed!r}"):
        assert_tracks(Parity(), PARITY, length=10, words=2, seed=seed)


def test_a_numpy_seed_is_taken():
    r = check(Parity(), PARITY, length=10, words=2, seed=np.int64(3))
    assert r.passed and r.seed == 3 and type(r.seed) is int


@pytest.mark.parametrize("word, message", [
    ([0.9], "symbol 0.9 at position 0 is neither a name nor an index"),  # was run as [0]
    ([1.9], "symbol 1.9 at position 0 is neither a name nor an index"),  # was run as [1]
    ([0, 1, 1.0], "symbol 1.0 at position 2 is neither a name nor an index"),
    ([True], "symbol True at position 0 is neither a name nor an index"),
    (np.array([0.0, 0.5]), "symbol 0.0 at position 0 is neither a name nor an index"),
    ([0, 2], r"unknown symbol index 2 at position 1 \(valid 0..1\)"),
    ([[0, 1]], r"symbol \[0, 1\] at position 0 is neither a name nor an index"),
])
def test_a_word_is_checked_as_the_automaton_checks_it(word, message):
    with pytest.raises(UnknownSymbolError, match=message):
        first_wrong(AlwaysEven(), PARITY, word)
    with pytest.raises(UnknownSymbolError, match=message):
        assert_tracks_word(AlwaysEven(), PARITY, word)


def test_integer_words_and_names_still_run():
    assert first_wrong(AlwaysEven(), PARITY, [0, 1, 1]) == (2, 1, 0)
    assert first_wrong(AlwaysEven(), PARITY, np.array([0, 0], dtype=np.int32)) is None
    assert first_wrong(AlwaysEven(), PARITY, [np.int64(0), 1]) == (2, 1, 0)
    assert first_wrong(AlwaysEven(), PARITY, "001") == (3, 1, 0)  # symbol names, as the automaton reads them
    assert first_wrong(AlwaysEven(), PARITY, []) is None
    with pytest.raises(AssertionError, match=r"after 0\^2 1 \(length 3\) the automaton says odd, the model says "
                                             r"even \(word of 4 symbols\)"):
        assert_tracks_word(AlwaysEven(), PARITY, "0011")


class OwnToWeights(Parity):
    def to_weights(self):
        return {"A": 1}  # a method of the user's, of another meaning


class FailingToWeights(Parity):
    def to_weights(self):
        raise NotImplementedError("not exported")


@pytest.mark.parametrize("model", [OwnToWeights(), FailingToWeights()], ids=["returns a dict", "raises"])
def test_a_module_with_its_own_to_weights_is_run_as_a_module(model):
    tracker = as_tracker(model)
    assert isinstance(tracker, ModuleTracker) and tracker.weights is None and tracker.name == type(model).__name__
    assert_tracks(model, PARITY, length=50, words=5)
    assert check(model, PARITY, length=50, words=5).passed


def test_our_models_still_export_their_weights():
    from bilinear.learned.baselines import LSTMModel
    from bilinear.learned.models import BilinearRNN

    tracker = as_tracker(BilinearRNN(2, 2, 3, "diagonal", seed=0))
    assert isinstance(tracker, WeightsTracker) and tracker.weights.variant == "diagonal"
    lstm = as_tracker(LSTMModel(2, 2, 4))  # a baseline's to_weights raises ConfigError: run as a module
    assert isinstance(lstm, ModuleTracker) and lstm.has_hidden

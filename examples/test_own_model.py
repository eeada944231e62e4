"""A worked example: property tests and the float check pointed at *your own* torch model.

Copy this file into your project and replace ``RotationRNN`` or ``LeakyGRU`` by your model.
Any model with a ``forward(words)`` that returns logits ``(batch, time, classes)`` can be checked
at length 500 (:func:`bilinear.constructions.horizon.testing.assert_tracks`, the float check) and have its
automaton extracted from its hidden states (:func:`bilinear.constructions.values.tracker.as_tracker`);
a ``to_weights()`` that hands its transition matrices to
:class:`bilinear.constructions.values.weights.Weights` adds the exact proof and the spectra.

Run it with ``python -m pytest examples/test_own_model.py``.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings

from bilinear.automata import from_spec
from bilinear.automata.strategies import long_words, words
from bilinear.constructions.horizon.testing import assert_tracks
from bilinear.constructions.horizon.floatcheck import check
from bilinear.constructions.values.weights import Weights

M = 5
AUTOMATON = from_spec(f"cyclic:{M}")  # Z_5: the label is the sum of the symbols mod 5


class RotationRNN(torch.nn.Module):
    """A user-defined bilinear RNN: symbol k rotates h by k * angle; readout = the M directions."""

    def __init__(self, m: int, angle: float):
        super().__init__()
        theta = torch.arange(m, dtype=torch.float64) * angle  # (symbols,)
        c, s = torch.cos(theta), torch.sin(theta)
        self.A = torch.nn.Parameter(torch.stack([torch.stack([c, -s], -1), torch.stack([s, c], -1)], -2))
        phi = torch.arange(m, dtype=torch.float64) * 2 * math.pi / m  # (classes,)
        self.readout = torch.nn.Parameter(torch.stack([torch.cos(phi), torch.sin(phi)], -1))  # (classes, hidden)
        self.register_buffer("h0", torch.tensor([1.0, 0.0], dtype=torch.float64))

    def forward(self, words: torch.Tensor) -> torch.Tensor:  # (batch, time) -> (batch, time, classes)
        h = self.h0.expand(words.shape[0], 2)
        out = []
        for t in range(words.shape[1]):
            h = torch.einsum("bij,bj->bi", self.A[words[:, t]], h)
            h = h / h.norm(dim=-1, keepdim=True)  # scale-invariant: renormalising changes nothing
            out.append(h @ self.readout.T)
        return torch.stack(out, 1)

    def to_weights(self) -> Weights:
        with torch.no_grad():
            return Weights("rotation2d", A=self.A.numpy(), h0=self.h0.numpy(), readout=self.readout.numpy())


def predictions(model: torch.nn.Module, word: list[int]) -> list[int]:
    with torch.no_grad():
        logits = model(torch.tensor([word], dtype=torch.long))
    return logits.argmax(-1)[0].tolist()


GOOD = RotationRNN(M, 2 * math.pi / M)
BROKEN = RotationRNN(M, 2 * math.pi / M + 0.01)  # right on short words, wrong on long ones


@settings(max_examples=50, deadline=None)
@given(words(AUTOMATON, min_size=1, max_size=60))
def test_model_agrees_with_automaton_on_random_words(word):
    """Property: on every word, the prediction after each prefix is the automaton's label."""
    expected = AUTOMATON.labels[AUTOMATON.trace(word)[1:]].tolist()
    assert predictions(GOOD, word) == expected


def test_float_check_at_length_500():
    result = check(GOOD.to_weights(), AUTOMATON, length=500, words=100, seed=0)
    assert result.passed and result.accuracy == 1.0 and result.worst_margin > 0.1


def test_float_check_catches_a_slightly_wrong_angle():
    # the broken model is right on every word of length <= 10 ...
    rng = np.random.default_rng(0)
    short = rng.integers(0, M, size=(200, 10))
    assert all(predictions(BROKEN, w.tolist()) == AUTOMATON.labels[AUTOMATON.trace(w)[1:]].tolist() for w in short)
    # ... but not at length 500, and the check names a failing word
    result = check(BROKEN.to_weights(), AUTOMATON, length=500, words=100, seed=0)
    assert not result.passed and result.first_failure is not None
    failing = list(result.first_failure)
    assert predictions(BROKEN, failing)[-1] != AUTOMATON.label(failing)


@pytest.mark.parametrize("model, proved", [(GOOD, False), (BROKEN, False)])
def test_exact_proof_of_float_weights_is_never_a_false_positive(model, proved):
    """The exact prover treats float weights as the binary fractions they are: cos(2*pi/5) in
    float64 is not exactly a 5th root, so even the good float model is not *proved*; the
    hand-construction ``bilinear verify cyclic:5 rotation2d`` is (exact cyclotomic entries)."""
    from bilinear.constructions.proof.prover import Proof, prove

    outcome = prove(model.to_weights(), AUTOMATON, bound=4)
    assert isinstance(outcome, Proof) == proved


# ------------------------------------------------------------------------------------------
# A GRU of your own: right on every word up to length 100, wrong at length 500
# ------------------------------------------------------------------------------------------
FLIPFLOP = from_spec("flipflop:2")  # symbols w0, w1, r: the label is the last bit written


class LeakyGRU(torch.nn.Module):
    """One ``nn.GRU`` unit set by hand: ``w0``/``w1`` write -1/+1 (update gate shut), ``r``
    keeps the state (update gate open) -- but lets ``leak`` of it flow towards a small negative
    candidate, so a stored +1 decays and turns negative after about 240 reads."""

    def __init__(self, leak: float = 0.01, K: float = 30.0):
        super().__init__()
        self.gru = torch.nn.GRU(3, 1, batch_first=True, dtype=torch.float64)
        self.readout = torch.nn.Linear(1, 2, dtype=torch.float64)
        keep = math.log((1 - leak) / leak)  # sigmoid(keep) = 1 - leak
        with torch.no_grad():
            for p in self.parameters():
                p.zero_()
            # gates in torch's order r, z, n; inputs one-hot (w0, w1, r)
            self.gru.weight_ih_l0[1] = torch.tensor([-K, -K, keep])  # update gate z
            self.gru.weight_ih_l0[2] = torch.tensor([-K, K, -0.1])  # candidate n = tanh(...)
            self.readout.weight[:] = torch.tensor([[-1.0], [1.0]])  # class 1 iff h > 0

    def forward(self, words: torch.Tensor) -> torch.Tensor:
        x = torch.nn.functional.one_hot(words, 3).double()
        out, _ = self.gru(x)
        return self.readout(out)


GRU = LeakyGRU()


@settings(max_examples=200, deadline=None)
@given(words(FLIPFLOP, min_size=1, max_size=100))
def test_gru_passes_the_property_on_words_up_to_length_100(word):
    expected = FLIPFLOP.labels[FLIPFLOP.trace(word)[1:]].tolist()
    assert predictions(GRU, word) == expected


def test_assert_tracks_finds_the_gru_failure_at_length_500():
    assert_tracks(GRU, FLIPFLOP, length=100, words=200)  # every directed and random word passes
    with pytest.raises(AssertionError) as failure:
        assert_tracks(GRU, FLIPFLOP, length=500, words=200)
    message = str(failure.value)
    assert "w1 r^" in message and "the automaton says 1" in message
    n = int(message.split("w1 r^")[1].split()[0])
    assert 100 < n < 500
    word = [1] + [2] * n  # the named word really fails, and one read less does not
    assert predictions(GRU, word)[-1] != 1 and predictions(GRU, word[:-1])[-1] == 1


@settings(max_examples=20, deadline=None)
@given(long_words(FLIPFLOP, length=500))
def test_long_words_strategy_draws_words_of_the_fixed_length(word):
    assert len(word) == 500 and set(word) <= {0, 1, 2}


# The one-line property: ``test_gru = tracks(GRU, FLIPFLOP)`` at module level is a Hypothesis test
# over failing_words (long structured words that shrink); here it is expected to fail, so it is
# wrapped to check the report: the shortest failure, w1 r^n, not a seed.
def test_tracks_finds_the_gru_failure_and_shrinks_it():
    from bilinear.constructions.horizon.testing import tracks

    with pytest.raises(AssertionError, match=r"after (w0 )?w1 r\^\d+ \(length") as failure:
        settings(max_examples=100, derandomize=True, database=None)(tracks(GRU, FLIPFLOP, max_length=500))()
    n = int(str(failure.value).split("w1 r^")[1].split()[0])
    assert predictions(GRU, [1] + [2] * n)[-1] != 1 and predictions(GRU, [1] + [2] * (n - 1))[-1] == 1


def test_the_gru_automaton_is_extracted_from_its_hidden_states():
    from bilinear.analysis.extract import ExtractConfig, extract_tracker

    ex = extract_tracker(GRU, FLIPFLOP, ExtractConfig(words=300, length=60, burn_in=1))
    assert ex.accuracy == 1.0 and ex.isomorphic

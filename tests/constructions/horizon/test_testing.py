"""tracks, assert_tracks_word and first_wrong: a one-line property for a model, on every kind of
model the tracker protocol takes, composing with settings and the example database."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
import torch
from hypothesis import Phase, settings
from hypothesis.database import InMemoryExampleDatabase

from bilinear.automata import from_spec
from bilinear.automata.strategies import directed, long_words
from bilinear.constructions.horizon.floatcheck import directed_words
from bilinear.constructions.horizon.testing import assert_tracks_word, first_wrong, tracks
from bilinear.constructions.values.tracker import TrackerRun
from bilinear.constructions.values.weights import Weights
from bilinear.errors import MismatchError

C3 = from_spec("cyclic:3")
PARITY = from_spec("parity")


def rotation_weights(delta: float) -> Weights:
    """cyclic:3 by rotations by s (2 pi / 3 + delta): with delta = 1e-3 first wrong on 2^524."""
    A = np.stack([[[math.cos(t), -math.sin(t)], [math.sin(t), math.cos(t)]]
                  for t in np.arange(3) * (2 * math.pi / 3 + delta)])
    phi = np.arange(3) * 2 * math.pi / 3
    return Weights("rotation2d", A=A, h0=np.array([1.0, 0.0]), readout=np.stack([np.cos(phi), np.sin(phi)], 1))


def window_parity(ids: np.ndarray) -> np.ndarray:
    """Parity of the last 30 symbols only: first wrong on 1 0^30."""
    c = np.cumsum(ids, axis=1)
    past = np.pad(c, ((0, 0), (30, 0)))[:, :-30]
    return np.eye(2)[(c - past) % 2]


class WindowModule(torch.nn.Module):
    def forward(self, ids):
        return torch.as_tensor(window_parity(ids.numpy()))


class WindowTracker:
    """The tracker protocol written by hand (as a loaded fla/transformers model would be)."""

    n_symbols, n_classes, has_hidden, weights, name = 2, 2, False, None, "window tracker"

    def run(self, words, hidden=False):
        return TrackerRun(window_parity(np.asarray(words)))


@pytest.mark.parametrize("model", [window_parity, WindowModule(), WindowTracker()], ids=["callable", "torch", "tracker"])
def test_assert_tracks_word_names_the_first_failing_prefix(model):
    assert_tracks_word(model, PARITY, [1] + [0] * 29)  # right up to 30 symbols
    with pytest.raises(AssertionError, match=r"after 1 0\^30 \(length 31\) the automaton says odd, the model says "
                                             r"even \(word of 45 symbols\)"):
        assert_tracks_word(model, PARITY, [1] + [0] * 44)
    assert first_wrong(model, PARITY, [0, 1] + [0] * 40) == (32, 1, 0)


def test_first_wrong_on_weights_and_on_a_tie():
    assert first_wrong(rotation_weights(1e-3), C3, [2] * 600)[0] == 524
    assert first_wrong(rotation_weights(0.0), C3, [2] * 600) is None

    def tie(ids):
        return np.zeros(ids.shape + (3,))

    assert first_wrong(tie, C3, [0, 1]) == (1, 0, -1)
    with pytest.raises(AssertionError, match="the model says nothing"):
        assert_tracks_word(tie, C3, [1])


def test_tracks_finds_and_shrinks_the_failure_of_weights():
    test = settings(max_examples=100, derandomize=True, database=None, phases=[Phase.generate, Phase.shrink])(
        tracks(rotation_weights(1e-3), C3, max_length=800))
    with pytest.raises(AssertionError, match=r"does not track cyclic:3: after .* \(length (\d+)\)") as info:
        test()
    length = int(str(info.value).split("(length ")[1].split(")")[0])
    assert 524 <= length <= 1.5 * 524
    notes = "\n".join(info.value.__notes__)
    # Hypothesis's own header changed wording across versions ("Falsifying example" before 6.16x,
    # "Failing test case" after); the word the strategy drew is what matters
    assert re.search(r"Falsifying example|Failing test case", notes) and "word=Word(" in notes and "drawn=[" in notes


def test_tracks_passes_a_correct_model_and_takes_another_strategy():
    settings(max_examples=20, database=None)(tracks(rotation_weights(0.0), C3, max_length=300))()
    seen = []

    def recording(ids):
        seen.append(ids.shape[1])
        return window_parity(ids)

    with pytest.raises(AssertionError):
        settings(max_examples=50, database=None, derandomize=True)(tracks(recording, PARITY, words=long_words(PARITY, 64)))()
    assert set(seen) == {64}


def test_tracks_replays_the_failure_from_the_example_database():
    db = InMemoryExampleDatabase()
    calls = []

    def counted(ids):
        calls.append(1)
        return window_parity(ids)

    test = settings(max_examples=100, database=db, derandomize=False, phases=[Phase.reuse, Phase.generate, Phase.shrink])(
        tracks(counted, PARITY, max_length=200))
    with pytest.raises(AssertionError):
        test()
    first = len(calls)
    calls.clear()
    with pytest.raises(AssertionError):
        test()
    assert len(calls) < first and len(calls) <= 3  # the saved example fails at once
    other = settings(database=db)(tracks(window_parity, PARITY, max_length=200))
    assert other._hypothesis_internal_add_digest != test._hypothesis_internal_add_digest


def test_the_directed_strategy_draws_the_float_checks_directed_words():
    rows = {tuple(r) for r in directed_words(C3, 40).tolist()}
    drawn = []

    @settings(max_examples=60, database=None, derandomize=True)
    @directed_given
    def record(word):
        drawn.append(list(word))

    record()
    assert all(any(r[:len(w)] == tuple(w) for r in rows) for w in drawn)  # each a prefix of a directed row
    assert len({tuple(w[:3]) for w in drawn}) > 5


def directed_given(fn):
    from hypothesis import given

    return given(directed(C3, max_length=40))(fn)


def test_tracks_refuses_what_is_not_an_automaton():
    with pytest.raises(MismatchError, match="expected an Automaton"):
        tracks(window_parity, "parity")

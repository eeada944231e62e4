"""long_words and assert_tracks: the helper fails on a model that is wrong only on long words."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings

from bilinear.automata import from_spec
from bilinear.automata.strategies import long_words
from bilinear.constructions import assert_tracks
from bilinear.constructions import as_tracker
from bilinear.errors import AutomatonError

C3 = from_spec("cyclic:3")


def _counter(limit=None):
    """Logits of the running sum mod 3; with ``limit``, wrong once a word has read ``limit``
    symbols 1 in a row (the long-word failure random words never reach)."""
    def f(w):
        state = np.cumsum(w, axis=1) % 3
        if limit is not None:
            run = np.zeros(w.shape[0], dtype=int)
            for t in range(w.shape[1]):
                run = np.where(w[:, t] == 1, run + 1, 0)
                state[run >= limit, t] = (state[run >= limit, t] + 1) % 3
        return np.eye(3)[state]
    return as_tracker(f, n_symbols=3, n_classes=3, name="counter")


def test_assert_tracks_passes_a_correct_model():
    assert_tracks(_counter(), C3, length=300, words=50)


def test_assert_tracks_fails_on_a_model_wrong_only_on_long_words():
    late = _counter(limit=180)
    assert_tracks(late, C3, length=150, words=200)  # right on every word up to 150 symbols
    with pytest.raises(AssertionError, match=r"on 1\^180 \(length 180\) the automaton says 0"):
        assert_tracks(late, C3, length=500, words=200)
    # random words alone miss it
    assert_tracks(late, C3, length=500, words=200, directed=False)


@settings(max_examples=30, database=None, deadline=None)
@given(long_words(C3, length=257))
def test_long_words_have_the_fixed_length(word):
    assert len(word) == 257 and set(word) <= {0, 1, 2}


def test_long_words_rejects_bad_lengths():
    with pytest.raises(AutomatonError, match="length"):
        long_words(C3, length=0)

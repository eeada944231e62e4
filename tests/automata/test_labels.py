"""prefix_labels: the labels after every prefix, by parts, equal the plain run's."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bilinear.automata import Automaton, from_spec
from bilinear.automata.labels import SHORT_PART, prefix_labels, prefix_states, runs
from bilinear.automata.strategies import automata, structured_words
from bilinear.errors import AutomatonError


def plain(automaton, word):
    rows, q, out = automaton.delta.tolist(), automaton.start, []
    for a in word:
        q = rows[a][q]
        out.append(q)
    return np.array(out, dtype=np.int64)


@settings(max_examples=40, deadline=None)
@given(automata(max_states=7, max_symbols=3), st.data())
def test_parts_give_the_plain_run(a, data):
    """Long powers of short blocks from any state: the rho (a tail, then a cycle) of non-permutation
    automata included."""
    block = data.draw(st.lists(st.integers(0, a.n_symbols - 1), min_size=1, max_size=3))
    n = data.draw(st.integers(0, 200))
    head = data.draw(st.lists(st.integers(0, a.n_symbols - 1), max_size=5))
    word = head + block * n + head
    assert (prefix_states(a, word) == plain(a, word)).all()
    assert (prefix_labels(a, np.array(word, dtype=np.int64)) == a.labels[plain(a, word)]).all()


@settings(max_examples=25, deadline=None)
@given(structured_words(from_spec("dihedral:4"), max_length=500))
def test_a_structured_word_is_labelled_by_its_own_parts(word):
    a = from_spec("dihedral:4")
    assert (prefix_states(a, word) == plain(a, list(word))).all()


def test_a_reset_then_a_cycle():
    """0 resets to state 0, 1 moves along 0 -> 1 -> 2 -> 3 -> 1 (a tail of one, a cycle of three)."""
    a = Automaton([[0, 0, 0, 0], [1, 2, 3, 1]], labels=[0, 1, 2, 3])
    word = [0] + [1] * 100
    assert prefix_labels(a, word).tolist() == [0] + [1, 2, 3] * 33 + [1]
    assert len(word) > SHORT_PART  # the vectorised path ran


def test_runs_and_bad_words():
    assert runs(np.array([2, 2, 0])) == [((2,), 2), ((0,), 1)] and runs(np.array([], dtype=np.int64)) == []
    a = from_spec("parity")
    assert prefix_labels(a, []).tolist() == []
    with pytest.raises(AutomatonError, match="index 2"):
        prefix_labels(a, [0, 2])
    with pytest.raises(AutomatonError, match="1-D"):
        prefix_labels(a, [[0, 1]])
    with pytest.raises(AutomatonError, match="needs an Automaton"):
        prefix_labels("parity", [0])

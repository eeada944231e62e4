"""The automata of a stack's layers (constructions/horizon/horizon_stack.py; docs/theory.md, Theorem S5),
checked on layers small enough to read their automaton off by hand: the mutants of
``benchmarks/mutate_auto.py -k horizon_stack`` that the other tests leave alive.

Every expected automaton here is derived by hand from the weights (which directions a word reaches,
which row of the readout is the largest on each), never by running the code under test."""

from __future__ import annotations

import math

import numpy as np
import pytest

from bilinear.constructions import Weights
from bilinear.constructions.horizon.horizon_stack import float_layer_automaton, layer_automaton


def _sign_layer(readout=((1,), (-1,))):
    """One coordinate, symbol 0 keeps it and symbol 1 negates it: the directions +1 and -1."""
    return Weights("diagonal", A=[[[1]], [[-1]]], h0=[1], readout=[list(r) for r in readout])


def _rotation(n: int, classes: int | None = None) -> Weights:
    """A float rotation by 2 pi / n started on e1: exactly n directions, e1 turned k times for k < n,
    read out by the rows at those same angles (class k on the k-th direction) or, with ``classes``,
    only the first ``classes`` of them."""
    c, s = math.cos(2 * math.pi / n), math.sin(2 * math.pi / n)
    rows = [[math.cos(2 * math.pi * k / n), math.sin(2 * math.pi * k / n)] for k in range(classes or n)]
    return Weights("full", A=[[[c, -s], [s, c]]], h0=[1.0, 0.0], readout=rows)


def test_an_exact_layer_is_required():
    with pytest.raises(ValueError, match="exact layer"):
        layer_automaton(_sign_layer().to_float())


def test_the_exact_sign_layer_by_hand():
    m, why = layer_automaton(_sign_layer())
    assert m is not None, why
    # state 0 = +1 (found first, the start), state 1 = -1; symbol 0 fixes both, symbol 1 swaps them
    assert (m.start, m.delta.tolist(), list(m.labels), m.n_classes) == (0, [[0, 1], [1, 0]], [0, 1], 2)


def test_the_float_sign_layer_by_hand():
    m, why = float_layer_automaton(_sign_layer().to_float())
    assert m is not None, why
    assert (m.start, m.delta.tolist(), list(m.labels), m.n_classes) == (0, [[0, 1], [1, 0]], [0, 1], 2)


def test_a_float_rotation_reaches_exactly_its_order_of_directions():
    """Five directions: read off with a limit of five states, refused with four."""
    m, why = float_layer_automaton(_rotation(5), limit=5)
    assert m is not None, why
    assert m.n_states == 5 and m.delta.tolist() == [[1, 2, 3, 4, 0]] and list(m.labels) == [0, 1, 2, 3, 4]
    assert m.start == 0 and m.n_classes == 5
    m, why = float_layer_automaton(_rotation(5), limit=4)
    assert m is None and "more than 4 directions" in why


def test_a_limit_below_one_direction_refuses_even_a_layer_of_one_state():
    """The start direction is one state: a limit of 0 (or less) is passed by it, so nothing is read
    off, not even from a layer whose symbols all fix the start (an automaton of one state), and a
    layer that reaches a second direction is refused the same way (not an index out of range)."""
    fixed = Weights("diagonal", A=[[[1]], [[2]]], h0=[1], readout=[[1], [-1]])
    assert float_layer_automaton(fixed, limit=1)[0] is not None
    for limit in (0, -3):
        for layer in (fixed, _rotation(5)):
            m, why = float_layer_automaton(layer, limit=limit)
            assert m is None and f"more than {limit} directions" in why


def test_three_classes_read_on_five_directions():
    """Rows at angles 0, 72 and 144 degrees: the directions at 216 and 288 degrees are nearest the
    rows at 144 and 0 degrees (cos 72 > cos 144), so the labels are 0, 1, 2, 2, 0."""
    m, why = float_layer_automaton(_rotation(5, classes=3))
    assert m is not None, why
    assert list(m.labels) == [0, 1, 2, 2, 0] and m.n_classes == 3


def test_a_direction_at_exactly_the_merge_distance_is_a_new_state():
    """e1 and e2 lie sqrt(2) apart: with ``merge`` the very float that distance rounds to, e2 is
    not closer than ``merge`` to e1, so it is a state of its own."""
    swap = Weights("full", A=[[[0.0, 1.0], [1.0, 0.0]]], h0=[1.0, 0.0], readout=[[1.0, 0.0], [0.0, 1.0]])
    merge = float(np.linalg.norm(np.array([1.0, -1.0])))
    m, why = float_layer_automaton(swap, merge=merge)
    assert m is not None, why
    assert m.delta.tolist() == [[1, 0]] and list(m.labels) == [0, 1]
    # a merge distance one float wider takes e2 for e1's state: one state, e1's class
    m, why = float_layer_automaton(swap, merge=np.nextafter(merge, 3.0))
    assert m is not None and m.delta.tolist() == [[0]] and list(m.labels) == [0]


def test_a_direction_sent_to_zero_has_no_automaton():
    """Symbol 1 is the zero matrix: every direction is sent to 0 (norm 0, a finite one)."""
    w = Weights("diagonal", A=[[[1.0, 0.0], [0.0, 1.0]], [[0.0, 0.0], [0.0, 0.0]]], h0=[1.0, 0.0],
                readout=[[1.0, 0.0], [0.0, 1.0]])
    m, why = float_layer_automaton(w)
    assert m is None and "to zero" in why


def test_one_class_is_never_a_tie():
    m, why = float_layer_automaton(_sign_layer(readout=((1.0,),)).to_float())
    assert m is not None, why
    assert m.n_classes == 1 and list(m.labels) == [0, 0]


def test_the_tie_screen_is_relative_to_the_largest_top_score():
    """e1 and e2 swapped: on e1 the scores are (1e6, 0), on e2 (1, 1 + 1e-6).  The screen is 1e-9
    times the largest *top* score, 1e6: 1e-3, and e2's gap of about 1e-6 lies within it (a tie);
    measured against the largest second score (1) it would not."""
    swap = Weights("full", A=[[[0.0, 1.0], [1.0, 0.0]]], h0=[1.0, 0.0], readout=[[1e6, 1.0], [0.0, 1.0 + 1e-6]])
    m, why = float_layer_automaton(swap)
    assert m is None and "tie" in why


@pytest.mark.parametrize("readout", [((0.0,), (0.0,)), ((1.0,), (1.0,)), ((1.0,), (1.0 + 1e-12,))])
def test_a_tie_or_a_near_tie_has_no_float_automaton(readout):
    """A zero readout (all scores 0), an exact tie, and a gap of 1e-12 on scores of size 1 (within
    the 1e-9 relative screen)."""
    m, why = float_layer_automaton(_sign_layer(readout=readout).to_float())
    assert m is None and "tie" in why

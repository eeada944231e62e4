"""Theorem F8 (docs/theory.md section 9): real monomial weights with d = 2 compute no automaton
with three constant-map words onto states of pairwise different labels.  The bound's trigger, its
use in ``lower_bound``, and the facts about 2 x 2 monomial matrices its proof rests on, checked
directly on sampled matrices."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bilinear.automata import from_spec, from_transformations
from bilinear.constructions.impossible.bounds import lower_bound, monomial_reset_bound


@pytest.mark.parametrize("spec", ["reset:3", "reset:4", "flipflop:3", "gridworld:3"])
def test_three_resets_with_different_labels_trigger_the_bound(spec):
    assert monomial_reset_bound(spec)[0] == 3
    assert lower_bound(spec, "monomial")[:2] == (3, "Theorem F8")


@pytest.mark.parametrize("spec", ["flipflop:2", "reset:2", "cyclic:3", "dihedral:3"])
def test_fewer_than_three_resets_leave_it_silent(spec):
    assert monomial_reset_bound(spec) is None


def test_maps_of_rank_two_are_not_resets():
    # four states, each its own label: a = (0 1 0 1) has rank 2 and r rotates; every product keeps
    # rank 2 or 4 (a's image is two consecutive states, one even, one odd), so no constant map,
    # while the rank-2 images {m, m + 1} reach every state
    a = from_transformations([(0, 1, 0, 1), (1, 2, 3, 0)], symbols=["a", "r"])
    assert a.n_states == 4
    assert monomial_reset_bound(a) is None


def test_resets_onto_states_of_one_label_do_not_count():
    # resets onto states 0, 1, 2 (t tells 1 and 2 apart, so they stay two states), but 1 and 2
    # share a label: two labels among the targets
    a = from_transformations([(0, 0, 0), (1, 1, 1), (2, 2, 2), (0, 0, 1)], symbols=["a", "b", "c", "t"],
                             labels=[0, 1, 1])
    from bilinear.constructions.values.memo import minimal

    assert minimal(a).n_states == 3
    assert monomial_reset_bound(a) is None


def test_the_bound_is_the_variants_not_every_variants():
    # full does reset:3 in d = 2 (Theorem 10): F8 is about monomial matrices only
    assert lower_bound("reset:3", "full")[0] == 2


def test_verify_reports_the_construction_minimal():
    from bilinear.constructions.settle import settle

    cell = settle(from_spec("reset:3"), "monomial")
    assert cell.status == "proved" and cell.dim == 3 and cell.lower_bound == 3 and cell.minimal


# ---- the facts the proof uses, on sampled 2 x 2 monomial matrices --------------------------------
entries = st.integers(-3, 3)


@st.composite
def monomial2(draw):
    rows = draw(st.tuples(st.integers(0, 1), st.integers(0, 1)))  # column j's nonzero row
    D = draw(st.tuples(entries, entries))
    A = np.zeros((2, 2), dtype=np.int64)
    for j in range(2):
        A[rows[j], j] = D[j]
    return A


def is_monomial(A):
    return all(np.count_nonzero(A[:, j]) <= 1 for j in range(A.shape[1]))


@settings(max_examples=200)
@given(monomial2(), monomial2())
def test_products_of_monomial_matrices_are_monomial(A, B):
    assert is_monomial(A @ B)


@settings(max_examples=200)
@given(monomial2())
def test_a_two_by_two_monomial_is_zero_axis_rank_one_or_diagonal_or_antidiagonal(A):
    rank = np.linalg.matrix_rank(A)
    if rank == 1:  # the image is an axis: one row is zero
        assert np.count_nonzero(A[0]) == 0 or np.count_nonzero(A[1]) == 0
    if rank == 2:
        diagonal = A[0, 1] == 0 and A[1, 0] == 0
        anti = A[0, 0] == 0 and A[1, 1] == 0
        assert diagonal or anti
        if anti:  # its square is a scalar
            S = A @ A
            assert S[0, 1] == 0 and S[1, 0] == 0 and S[0, 0] == S[1, 1] == A[0, 1] * A[1, 0]

"""The exact rank decomposition (constructions/values/linalg.py) against sympy's rank and reduced
row echelon form, for every kind of rational entry it takes: ints, Fractions, numpy integers and
floats (each an exact dyadic rational)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
import sympy

from bilinear.constructions.values.linalg import rank_decomposition


def _cases():
    rng = np.random.default_rng(5)
    ints = rng.integers(-3, 4, size=(5, 6)).astype(object)
    ints[:, 4] = ints[:, 0] - 2 * ints[:, 2]  # rank at most 5: a dependent column
    fracs = np.array([[Fraction(int(rng.integers(-4, 5)), int(rng.integers(1, 5))) for _ in range(4)] for _ in range(4)],
                     dtype=object)
    fracs[3] = fracs[0] + fracs[1] / 2  # a dependent row
    numpy_ints = np.array([[np.int64(2), np.int64(4), np.int64(0)], [np.int64(1), np.int64(2), np.int64(3)]], dtype=object)
    floats = np.array([[0.5, 1.5, -2.0], [1.0, 3.0, -4.0], [0.25, 0.0, 1.0]], dtype=object)  # rows 1 = 2 x row 0
    mixed = np.array([[1, Fraction(1, 3)], [0.75, np.int64(2)]], dtype=object)
    zero = np.zeros((2, 3), dtype=object)
    return [ints, fracs, numpy_ints, floats, mixed, zero]


@pytest.mark.parametrize("M", _cases(), ids=["ints", "fractions", "numpy-ints", "floats", "mixed", "zero"])
def test_rank_decomposition_against_sympy(M):
    U, W = rank_decomposition(M)
    exact = sympy.Matrix([[sympy.Rational(Fraction(x)) for x in row] for row in M])
    rank = exact.rank()
    assert U.shape == (M.shape[0], rank) and W.shape == (M.shape[1], rank)
    assert all(Fraction(x) == Fraction(y) for x, y in zip((U @ W.T).flat, M.flat))  # M = U W^T exactly
    rref, pivots = exact.rref()
    assert [[Fraction(x) for x in row] for row in W.T.tolist()] == [
        [Fraction(int(rref[i, j].p), int(rref[i, j].q)) for j in range(M.shape[1])] for i in range(rank)]
    assert [[Fraction(x) for x in U[:, k]] for k in range(rank)] == [[Fraction(x) for x in M[:, j]] for j in pivots]
    assert all(type(x) in (int, Fraction) for x in W.flat)  # lowest terms: an int when integral


@pytest.mark.parametrize("M", _cases()[:2] + _cases()[-1:], ids=["ints", "fractions", "zero"])
def test_a_flint_matrix_made_already_gives_the_same_decomposition(M):
    """``rational=``: the caller's FLINT matrix of M (derive_dplr's, made for the rank that picked
    the diagonal) is used as it is; the factors are those made from M itself, entry and type."""
    from bilinear.constructions.values.linalg import rational_matrix

    fm = rational_matrix(M.flat, *M.shape)
    assert fm is not None
    U, W = rank_decomposition(M)
    U2, W2 = rank_decomposition(M, rational=fm)
    assert U.shape == U2.shape and W.shape == W2.shape
    assert [(type(x), x) for x in U.flat] == [(type(x), x) for x in U2.flat]
    assert [(type(x), x) for x in W.flat] == [(type(x), x) for x in W2.flat]
    assert fm.rank() == U.shape[1]

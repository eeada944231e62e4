"""The FLINT paths of exact rational arithmetic (issue 48) give the entries the Fraction paths give,
type for type: Householder products (values/factored.py) and the half-turns' orthogonal
complements (handmade/halfturns.py)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from bilinear.constructions.exact.field import cos2pi
from bilinear.constructions.handmade import halfturns
from bilinear.constructions.values import factored, linalg
from bilinear.constructions.values.linalg import from_rational_matrix, rational_matrix
from bilinear.constructions.values.memo import clear_caches


def _random_factors(seed: int, S: int = 2, K: int = 6, d: int = 5):
    rng = np.random.default_rng(seed)
    V = np.empty((S, K, d), dtype=object)
    beta = np.empty((S, K), dtype=object)
    for idx in np.ndindex(S, K, d):
        V[idx] = Fraction(int(rng.integers(-4, 5)), int(rng.integers(1, 4)))
    for idx in np.ndindex(S, K):
        V[idx][0] = Fraction(1) if all(x == 0 for x in V[idx]) else V[idx][0]
        beta[idx] = [0, 1, 2, Fraction(1, 3), Fraction(7, 4)][int(rng.integers(0, 5))]
    return V, beta


@pytest.mark.parametrize("seed", range(4))
def test_householder_products_in_flint_equal_the_fraction_products(seed, monkeypatch):
    V, beta = _random_factors(seed)
    fast = factored.householder_compose(V, beta)
    clear_caches()  # else the kept compositions answer, and the Fraction path is never taken
    refused: list = []
    monkeypatch.setattr(linalg, "_rational_householder", lambda *args: refused.append(1))  # None: not in FLINT
    slow = factored.householder_compose(V, beta)
    assert len(refused) == V.shape[0]
    assert fast.shape == slow.shape
    assert all(x == y and type(x) is type(y) for x, y in zip(fast.flat, slow.flat))


def test_a_field_entry_keeps_the_general_path():
    V = np.array([[[cos2pi(1, 5), 1]]], dtype=object)
    assert linalg._rational_householder(V[0], [Fraction(1)], 2) is None
    assert rational_matrix([1, 0.5], 1, 2) is None and rational_matrix([True], 1, 1) is None
    assert from_rational_matrix(rational_matrix([Fraction(4, 2), Fraction(1, 3)], 1, 2)).tolist() == [[2, Fraction(1, 3)]]


@pytest.mark.parametrize("d", [3, 5, 9])
def test_complements_in_flint_equal_the_gram_schmidt_ones(d, monkeypatch):
    rng = np.random.default_rng(d)
    u = np.array([Fraction(int(x)) for x in rng.integers(1, 4, d)], dtype=object)
    v = np.array([Fraction(int(x), 2) for x in rng.integers(-3, 4, d)], dtype=object)
    w = v - u * (halfturns._dot(v, u) / halfturns._dot(u, u))
    fast = halfturns._complement([u, w], d)
    monkeypatch.setattr(halfturns, "_rational_complement", lambda *args: None)
    slow = halfturns._complement([u, w], d)
    assert len(fast) == len(slow) == d - 2
    for a, b in zip(fast, slow):
        assert all(x == y and type(x) is type(y) for x, y in zip(a, b))

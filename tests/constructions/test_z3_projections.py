"""``z3-projections`` (Theorem F10 of docs/theory.md): Z_3 as ``householder:3,nonneg`` in d = 2.

The factors are multiplied out here with plain Fractions; the claims of the theorem (a positive
multiple of B, B^3 = I, the inverse from the perpendicular vectors, betas in [0, 1]) are checked on
those products, every word up to length 8 is classified through them, and the prover agrees.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import pytest

from bilinear.automata import Automaton
from bilinear.automata.families import from_spec
from bilinear.constructions.bounds import lower_bound
from bilinear.constructions.prover import Proof, prove
from bilinear.constructions.reflections import Z3_FACTORS, z3_projections
from bilinear.constructions.settle import factor_bound
from bilinear.errors import ConstructionError


def _mul(A, B):
    return [[sum(A[i][k] * B[k][j] for k in range(len(B))) for j in range(len(B[0]))] for i in range(len(A))]


def _factor(v, b):
    v = [Fraction(x) for x in v]
    n = sum(x * x for x in v)
    return [[Fraction(int(i == j)) - Fraction(b) * v[i] * v[j] / n for j in range(2)] for i in range(2)]


def _product(V, beta):
    M = [[Fraction(1), Fraction(0)], [Fraction(0), Fraction(1)]]
    for v, b in zip(V, beta):
        M = _mul(M, _factor(v, b))
    return M


def _positive_multiple(M, P) -> bool:
    """M = c P for some c > 0 (2 x 2, P non-zero)."""
    i, j = next((i, j) for i in range(2) for j in range(2) if P[i][j] != 0)
    c = M[i][j] / P[i][j]
    return c > 0 and all(M[r][s] == c * P[r][s] for r in range(2) for s in range(2))


def test_the_theorem_on_the_factors_multiplied_out():
    g = _product([v for v, _ in Z3_FACTORS], [b for _, b in Z3_FACTORS])
    assert all(0 <= b <= 1 for _, b in Z3_FACTORS)
    B = [[Fraction(-10, 6), Fraction(19, 6)], [Fraction(-4, 6), Fraction(4, 6)]]
    assert g == [[Fraction(2, 231) * x for x in row] for row in B]
    identity = [[Fraction(1), Fraction(0)], [Fraction(0), Fraction(1)]]
    assert _mul(_mul(B, B), B) == identity and B != identity and _mul(B, B) != identity
    inverse = _product([(-v[1], v[0]) for v, _ in reversed(Z3_FACTORS)], [b for _, b in reversed(Z3_FACTORS)])
    assert _positive_multiple(inverse, _mul(B, B))  # H(u, b)^-1 ~ H(u_perp, b)
    trace, det = g[0][0] + g[1][1], g[0][0] * g[1][1] - g[0][1] * g[1][0]
    assert trace < 0 and trace * trace == det  # eigenvalues r e^(+-2 pi i / 3)


@pytest.mark.parametrize("automaton", [
    from_spec("cyclic:3"),
    Automaton([[1, 2, 0], [2, 0, 1]], symbols=("x", "y"), name="z3-by-hand"),  # +1 and +2, no identity
    Automaton([[2, 0, 1], [0, 1, 2]], start=1, labels=[2, 0, 1], name="z3-relabelled"),
])
def test_every_word_is_classified_and_the_prover_agrees(automaton):
    w = z3_projections(automaton)
    assert w.variant == "householder:3,nonneg" and w.dim == 2
    V, beta = w.factors
    mats = [_product(V[s], beta[s]) for s in range(w.n_symbols)]
    assert all(0 <= Fraction(b) <= 1 for b in beta.flat)
    for s in range(w.n_symbols):
        assert [[Fraction(x) for x in row] for row in w.A[s]] == mats[s]
    R = [[Fraction(x) for x in row] for row in w.readout]
    for n in range(9):
        for word in itertools.product(range(w.n_symbols), repeat=n):
            h, q = [Fraction(x) for x in w.h0], int(automaton.start)
            for a in word:
                h = [sum(mats[a][i][j] * h[j] for j in range(2)) for i in range(2)]
                q = int(automaton.delta[a][q])
            scores = [r[0] * h[0] + r[1] * h[1] for r in R]
            best = max(scores)
            assert scores.count(best) == 1 and scores.index(best) == int(automaton.labels[q]), word
    assert isinstance(prove(w, automaton), Proof)


def test_minimal_in_d_and_k():
    a = from_spec("cyclic:3")
    assert lower_bound(a, "householder:3,nonneg")[0] == 2
    assert factor_bound(a, "householder", ("nonneg",))[0] == 3


@pytest.mark.parametrize("spec", ["cyclic:5", "cyclic:6", "parity", "dihedral:3"])
def test_other_groups_are_refused(spec):
    with pytest.raises(ConstructionError):
        z3_projections(from_spec(spec))

"""``rotation-projections`` (Theorem F10 of docs/theory.md): Z_3, Z_4 and Z_6 as
``householder:K,nonneg`` in d = 2.

The factors are multiplied out here with plain Fractions; the claims of the theorem (a positive
multiple of B, B^m = I and no smaller power, the inverse from the perpendicular vectors, betas in
[0, 1]) are checked on those products, every word up to a length is classified through them, and
the prover agrees.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import pytest

from bilinear.automata import Automaton
from bilinear.automata.families import from_spec
from bilinear.constructions.bounds import lower_bound
from bilinear.constructions.prover import Proof, prove
from bilinear.constructions.reflections import ROTATION_FACTORS, ROTATIONS, rotation_projections
from bilinear.constructions.settle import _build, factor_bound
from bilinear.errors import ConstructionError
from plain_eval import householder_product

IDENTITY = [[Fraction(1), Fraction(0)], [Fraction(0), Fraction(1)]]


def _mul(A, B):
    return [[sum(A[i][k] * B[k][j] for k in range(len(B))) for j in range(len(B[0]))] for i in range(len(A))]


def _positive_multiple(M, P) -> bool:
    """M = c P for some c > 0 (2 x 2, P non-zero)."""
    i, j = next((i, j) for i in range(2) for j in range(2) if P[i][j] != 0)
    c = M[i][j] / P[i][j]
    return c > 0 and all(M[r][s] == c * P[r][s] for r in range(2) for s in range(2))


@pytest.mark.parametrize("m, scale, trace_sign", [(3, Fraction(2, 231), -1), (4, Fraction(1, 76), 0),
                                                  (6, Fraction(1, 21), 1)])
def test_the_theorem_on_the_factors_multiplied_out(m, scale, trace_sign):
    factors = ROTATION_FACTORS[m]
    g = householder_product([v for v, _ in factors], [b for _, b in factors])
    assert all(0 <= b <= 1 for _, b in factors)
    B = [list(row) for row in ROTATIONS[m]]
    assert g == [[scale * x for x in row] for row in B]
    powers = [IDENTITY]
    for _ in range(m):
        powers.append(_mul(powers[-1], B))
    assert powers[m] == IDENTITY and all(P != IDENTITY for P in powers[1:m])  # order exactly m
    inverse = householder_product([(-v[1], v[0]) for v, _ in reversed(factors)], [b for _, b in reversed(factors)])
    assert _positive_multiple(inverse, powers[m - 1])  # H(u, b)^-1 ~ H(u_perp, b)
    trace, det = g[0][0] + g[1][1], g[0][0] * g[1][1] - g[0][1] * g[1][0]
    assert det > 0 and (trace > 0) - (trace < 0) == trace_sign  # eigenvalues r e^(+-2 pi i / m):
    assert trace * trace == {3: det, 4: 0, 6: det}[m]  # tr = 2 r cos(2 pi / m), det = r^2


def _check_words(automaton, length):
    w = rotation_projections(automaton)
    V, beta = w.factors
    mats = [householder_product(V[s], beta[s]) for s in range(w.n_symbols)]
    assert all(0 <= Fraction(b) <= 1 for b in beta.flat)
    for s in range(w.n_symbols):
        assert [[Fraction(x) for x in row] for row in w.A[s]] == mats[s]
    R = [[Fraction(x) for x in row] for row in w.readout]
    for n in range(length + 1):
        for word in itertools.product(range(w.n_symbols), repeat=n):
            h, q = [Fraction(x) for x in w.h0], int(automaton.start)
            for a in word:
                h = [sum(mats[a][i][j] * h[j] for j in range(2)) for i in range(2)]
                q = int(automaton.delta[a][q])
            scores = [r[0] * h[0] + r[1] * h[1] for r in R]
            best = max(scores)
            assert scores.count(best) == 1 and scores.index(best) == int(automaton.labels[q]), word
    assert isinstance(prove(w, automaton), Proof)
    return w


@pytest.mark.parametrize("automaton, length, variant", [
    (from_spec("cyclic:3"), 8, "householder:3,nonneg"),
    (Automaton([[1, 2, 0], [2, 0, 1]], symbols=("x", "y"), name="z3-by-hand"), 8, "householder:3,nonneg"),
    (Automaton([[2, 0, 1], [0, 1, 2]], start=1, labels=[2, 0, 1], name="z3-relabelled"), 8, "householder:3,nonneg"),
    (from_spec("cyclic:4"), 6, "householder:6,nonneg"),
    (from_spec("cyclic:6"), 4, "householder:9,nonneg"),
    (from_spec("cyclic:2*cyclic:3"), 4, "householder:9,nonneg"),
    (Automaton([[1, 2, 3, 4, 5, 0], [3, 4, 5, 0, 1, 2]], symbols=("+1", "+3"), name="z6-by-hand"), 9,
     "householder:9,nonneg"),
])
def test_every_word_is_classified_and_the_prover_agrees(automaton, length, variant):
    assert _check_words(automaton, length).variant == variant


def test_bounds_and_the_matrix_columns_choice():
    """Z_3: minimal in d and K.  Z_6 (as ``cyclic:2*cyclic:3``): d = 2 is minimal, K = 9 past
    the six counts the column tries in turn, against K >= 3."""
    a = from_spec("cyclic:3")
    assert lower_bound(a, "householder:3,nonneg")[0] == 2
    assert factor_bound(a, "householder", ("nonneg",))[0] == 3
    z6 = from_spec("cyclic:2*cyclic:3")
    assert factor_bound(z6, "householder", ("nonneg",))[0] == 3
    w = _build(z6, "householder,nonneg")
    assert w.variant == "householder:9,nonneg" and w.dim == 2 and isinstance(prove(w, z6), Proof)


@pytest.mark.parametrize("spec", ["cyclic:5", "cyclic:8", "parity", "dihedral:3", "cyclic:2*cyclic:2"])
def test_other_groups_are_refused(spec):
    with pytest.raises(ConstructionError):
        rotation_projections(from_spec(spec))


def test_two_states_of_one_class_are_refused_as_by_every_orbit_construction():
    """The readout comes from ``orbit_weights`` (Theorem 2 needs a class per state): a Z_3 with two
    states of one class is refused with that reason instead of getting a readout row overwritten."""
    with pytest.raises(ConstructionError, match="the orbit readout needs one class per state"):
        rotation_projections(Automaton([[1, 2, 0]], labels=[0, 1, 1], name="z3-merged-labels"))

"""``rotation-projections`` (Theorem F10 of docs/theory.md): Z_3, Z_4, Z_5 and Z_6 as
``householder:K,nonneg`` in d = 2.

The factors are multiplied out here with plain Fractions; the claims of the theorem (a positive
multiple of B, B^m = I and no smaller power, the inverse from the perpendicular vectors, betas in
[0, 1]) are checked on those products, every word up to a length is classified through them, and
the prover agrees.
"""

from __future__ import annotations

import itertools
import re
from fractions import Fraction

import pytest

from bilinear.automata import Automaton
from bilinear.automata import from_spec
from bilinear.constructions import lower_bound
from bilinear.constructions import Proof, prove
from bilinear.constructions.handmade.reflections import ROTATION_FACTORS, ROTATIONS, rotation_projections
from bilinear.constructions.settle import _build, _factor_bound
from bilinear.errors import ConstructionError
from plain_eval import householder_product, householder_weights_min_margin

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
    assert _factor_bound(a, "householder", ("nonneg",))[0] == 3
    z6 = from_spec("cyclic:2*cyclic:3")
    assert _factor_bound(z6, "householder", ("nonneg",))[0] == 3
    w = _build(z6, "householder,nonneg")
    assert w.variant == "householder:9,nonneg" and w.dim == 2 and isinstance(prove(w, z6), Proof)


@pytest.mark.parametrize("spec", ["cyclic:7", "cyclic:8", "parity", "dihedral:3", "cyclic:2*cyclic:2"])
def test_other_groups_are_refused(spec):
    with pytest.raises(ConstructionError, match=f"^{re.escape(spec)}: "):
        rotation_projections(from_spec(spec))


@pytest.mark.parametrize("m", [3, 4, 5, 6])
def test_the_readout_is_theorem_2s_for_an_invariant_inner_product(m):
    """Theorem 2's readout ``r_k = G B^k h0`` with ``G = sum_k (B^k)^T B^k`` invariant under B: the
    score of class k at the state B^l h0 is ``<B^k h0, B^l h0>_G``, which depends only on l - k
    mod m (a circulant score table).  A G summed over the wrong powers is not invariant, and the
    table stops being circulant."""
    w = rotation_projections(from_spec(f"cyclic:{m}"))
    B = [[float(x) for x in row] for row in ROTATIONS[m]]
    h = [float(x) for x in w.h0]
    states = []
    for _ in range(m):
        states.append(h)
        h = [B[0][0] * h[0] + B[0][1] * h[1], B[1][0] * h[0] + B[1][1] * h[1]]
    R = [[float(x) for x in row] for row in w.readout]
    table = [[r[0] * x[0] + r[1] * x[1] for x in states] for r in R]
    for k in range(m):
        for l in range(m):
            assert table[k][l] == pytest.approx(table[(k + 1) % m][(l + 1) % m], rel=1e-9, abs=1e-12), (k, l)


def test_two_states_of_one_class_are_refused_as_by_every_orbit_construction():
    """The readout comes from ``orbit_weights`` (Theorem 2 needs a class per state): a Z_3 with two
    states of one class is refused with that reason instead of getting a readout row overwritten."""
    with pytest.raises(ConstructionError, match="the orbit readout needs one class per state"):
        rotation_projections(Automaton([[1, 2, 0]], labels=[0, 1, 1], name="z3-merged-labels"))


# ---- order 5 (Theorem F10, its order-5 product): entries in Q(sqrt 5), checked in sympy ----------------------

def _sympy_h(v, beta):
    import sympy as sp

    v = sp.Matrix(v)
    return sp.eye(2) - beta * v * v.T / (v.T * v)[0]


def test_order_five_on_the_theorems_numbers_in_sympy():
    """The order-5 identities of Theorem F10 with sympy's sqrt(5), independent of the project's
    cyclotomic arithmetic: the product is (sqrt 5 - 1)/42 B_5, B_5 has order exactly 5, the
    perpendicular factors in reverse order give a positive multiple of B_5^-1, the betas lie in
    [0, 1]; and the stored factors and B_5 are those numbers."""
    import sympy as sp

    s5 = sp.sqrt(5)
    b3 = (43 + 2 * s5) / 49
    factors = [((2, 1), sp.Rational(5, 6)), ((2, -1), sp.Rational(5, 6)), ((0, 1), b3)]
    M = sp.eye(2)
    for v, b in factors:
        M = M * _sympy_h(v, b)
    B = sp.Matrix([[0, (1 - s5) / 7], [7 * (s5 + 1) / 4, (s5 - 1) / 2]])
    assert sp.simplify(M - (s5 - 1) / 42 * B) == sp.zeros(2, 2)
    assert sp.simplify(B.det()) == 1 and sp.simplify(B.trace() - 2 * sp.cos(2 * sp.pi / 5)) == 0
    powers = [sp.eye(2)]
    for _ in range(5):
        powers.append(sp.simplify(powers[-1] * B))
    assert powers[5] == sp.eye(2) and all(P != sp.eye(2) for P in powers[1:5])
    inverse = sp.eye(2)
    for v, b in reversed(factors):
        inverse = inverse * _sympy_h((-v[1], v[0]), b)
    ratio = sp.simplify(inverse[1, 0] / powers[4][1, 0])
    assert ratio.is_positive and sp.simplify(inverse - ratio * powers[4]) == sp.zeros(2, 2)
    assert all(0 <= float(b) <= 1 for _, b in factors) and 0 < float(b3) < 1
    for (v, b), (v_, b_) in zip(factors, ROTATION_FACTORS[5]):
        assert tuple(v) == tuple(v_) and abs(float(b) - float(b_)) < 1e-15
    for i in range(2):
        for j in range(2):
            assert abs(float(B[i, j]) - float(ROTATIONS[5][i][j])) < 1e-14


@pytest.mark.parametrize("automaton, length, variant", [
    (from_spec("cycle_navigation:5"), 7, "householder:3,nonneg"),
    (from_spec("cyclic:5"), 5, "householder:6,nonneg"),
    # one symbol adding 3 generates Z_5 by itself (exponent 1); with +1 beside it, it is 3 (or -2)
    (Automaton([[3, 4, 0, 1, 2]], labels=[4, 0, 1, 2, 3], start=2, name="z5-adding-3"), 12, "householder:3,nonneg"),
    (Automaton([[1, 2, 3, 4, 0], [3, 4, 0, 1, 2]], symbols=("+1", "+3"), name="z5-by-hand"), 7,
     "householder:6,nonneg"),
])
def test_order_five_words_and_the_prover(automaton, length, variant):
    w = rotation_projections(automaton)
    assert w.variant == variant and w.dim == 2
    assert all(0 <= float(b) <= 1 for b in w.factors[1].flat)
    assert householder_weights_min_margin(automaton, w, length) > 1e-3
    assert isinstance(prove(w, automaton), Proof)


def test_order_five_is_minimal_in_d_and_k_where_no_symbol_adds_two():
    """cycle_navigation:5 (symbols -1, 0, +1): d = 2 and K = 3 meet Theorem 13 and Theorem F2;
    cyclic:5 has symbols adding 2 and 3, which take the generator or its inverse twice."""
    nav = from_spec("cycle_navigation:5")
    assert _factor_bound(nav, "householder", ("nonneg",))[0] == 3
    w = _build(nav, "householder,nonneg")
    assert w.variant == "householder:3,nonneg" and w.dim == 2 and isinstance(prove(w, nav), Proof)
    w = _build(from_spec("cyclic:5"), "householder,nonneg")
    assert w.variant == "householder:6,nonneg"


def test_positive_multiple_is_the_definition():
    """``factored.positive_multiple``, the self-check of Theorems F10 and F13, against the
    definition: the leading block c P with c > 0, zeros between it and the rest, anything in the
    rest."""
    from fractions import Fraction as F

    import numpy as np

    from bilinear.constructions.values.factored import positive_multiple

    def m(rows):
        return np.array([[F(x) for x in r] for r in rows], dtype=object)

    P = m([[0, 1], [-1, 0]])  # its first non-zero entry is not the corner
    assert positive_multiple(m([[0, F(3, 2)], [F(-3, 2), 0]]), P)
    assert not positive_multiple(m([[0, -2], [2, 0]]), P)  # c < 0
    assert not positive_multiple(m([[0, 0], [0, 0]]), P)  # c = 0
    assert not positive_multiple(m([[0, 2], [-2, 1]]), P)  # an entry where P has 0
    assert not positive_multiple(m([[0, 2], [-3, 0]]), P)  # two scales
    assert not positive_multiple(m([[0, 1], [-1, 0]]), m([[0, 0], [0, 0]]))  # no scale at all
    Q = m([[2, 1], [1, 3]])
    assert positive_multiple(m([[4, 2, 0], [2, 6, 0], [0, 0, -5]]), Q)  # the rest is free
    assert not positive_multiple(m([[4, 2, 1], [2, 6, 0], [0, 0, -5]]), Q)  # block to rest
    assert not positive_multiple(m([[4, 2, 0], [2, 6, 0], [0, 7, -5]]), Q)  # rest to block
    assert not positive_multiple(m([[4, 2, 0], [2, 7, 0], [0, 0, 1]]), Q)  # the last entry of the block

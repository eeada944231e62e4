"""``half-turns`` (Theorem F13 of docs/theory.md): half-turns from factors with beta in [0, 1), and
orthogonal or one-hot weights as ``householder:K,nonneg``.

The factors are multiplied out here with plain Fractions (rational planes) or floats (a plane with
cyclotomic entries), and compared with half-turns built here from their definition; the
constructions' networks are run on every word up to a length by an evaluator written here, and
the prover agrees.
"""

from __future__ import annotations

import random
from fractions import Fraction

import pytest

from bilinear.automata import Automaton
from bilinear.automata import from_spec
from bilinear.constructions.handmade import halfturns
from bilinear.constructions.exact.field import cos2pi
from bilinear.constructions.handmade.halfturns import half_turn_factors, rotation_half_turns
from bilinear.constructions.handmade.registry import half_turns
from bilinear.constructions import Proof, prove
from bilinear.errors import ConstructionError
from plain_eval import householder_weights_min_margin


def _h(v, b):
    n = sum(x * x for x in v)
    return [[(1 if i == j else 0) - b * v[i] * v[j] / n for j in range(len(v))] for i in range(len(v))]


def _mul(A, B):
    return [[sum(A[i][k] * B[k][j] for k in range(len(B))) for j in range(len(B[0]))] for i in range(len(A))]


def _product(factors, d):
    M = [[Fraction(int(i == j)) for j in range(d)] for i in range(d)]
    for v, b in factors:
        M = _mul(M, _h(list(v), b))
    return M


def _half_turn(u, w):
    """-1 on span(u, w) (u orthogonal to w), +1 on its complement: I - 2 P_u - 2 P_w."""
    d = len(u)
    nu, nw = sum(x * x for x in u), sum(x * x for x in w)
    return [[(1 if i == j else 0) - 2 * u[i] * u[j] / nu - 2 * w[i] * w[j] / nw for j in range(d)] for i in range(d)]


@pytest.mark.parametrize("u, w", [
    ((1, 0, 0), (0, 1, 0)),
    ((1, -1, 0), (0, 0, 1)),
    ((1, 2, 2), (2, 1, -2)),
    ((3, 0, 4, 0), (0, 1, 0, 0)),
    ((1, 1, 1, 1, 1), (1, -1, 0, 0, 0)),
    ((5, 0, 0), (0, 1, 0)),  # very unequal norms: t = 6
])
def test_a_half_turn_is_d_plus_4_factors_up_to_a_positive_scale(u, w):
    d = len(u)
    factors, delta = half_turn_factors([Fraction(x) for x in u], [Fraction(x) for x in w])
    assert len(factors) == d + 4
    assert all(0 <= b < 1 for _, b in factors)
    assert delta > 0 and delta == (1 - factors[0][1]) * (1 - factors[1][1]) * (1 - factors[2][1])
    target = _half_turn([Fraction(x) for x in u], [Fraction(x) for x in w])
    assert _product(factors, d) == [[delta * x for x in row] for row in target]


def _recipe(u, w):
    """The recipe of Theorem F13 (i), written here with 2 x 2 matrices in the plane's orthonormal
    coordinates (floats): t the least positive integer with t^2 |w|^2 > |u|^2, beta_1 = beta_2 =
    1 - 2^-k for the first k = 1, 2, ... whose beta_3 (trace 0 on the plane) lies in (0, 1)."""
    nu, nw = sum(x * x for x in u), sum(x * x for x in w)
    t = 1
    while t * t * nw <= nu:
        t += 1
    su, sw = float(nu) ** 0.5, float(nw) ** 0.5  # a = (su, 0), b = (su, t sw), c = (su, -t sw)
    vecs = [(su, 0.0), (su, t * sw), (su, -t * sw)]

    def h(v, b):
        n = v[0] ** 2 + v[1] ** 2
        return [[1 - b * v[0] * v[0] / n, -b * v[0] * v[1] / n], [-b * v[0] * v[1] / n, 1 - b * v[1] * v[1] / n]]

    for k in range(1, 61):
        beta = 1 - 2.0**-k
        N = _mul(h(vecs[0], beta), h(vecs[1], beta))
        tr0 = N[0][0] + N[1][1]
        M1 = _mul(N, h(vecs[2], 1.0))
        slope = tr0 - (M1[0][0] + M1[1][1])  # tr(N H(c, beta3)) = tr0 - beta3 * slope
        beta3 = tr0 / slope
        if 0 < beta3 < 1:
            return t, beta, beta3
    raise AssertionError("no k")


@pytest.mark.parametrize("u, w", [((1, 0, 0), (0, 1, 0)), ((5, 0, 0), (0, 1, 0)), ((1, 2, 2), (2, 1, -2)),
                                  ((1, 1, 1, 1, 1), (1, -1, 0, 0, 0)),
                                  ((1, 0, 0), (0, 2, 0))])  # |w| > |u|: t = 1
def test_the_factors_follow_the_theorems_recipe(u, w):
    factors, _ = half_turn_factors([Fraction(x) for x in u], [Fraction(x) for x in w])
    t, beta, beta3 = _recipe(u, w)
    a, b, c = ([Fraction(x) for x in u], [Fraction(x + t * y) for x, y in zip(u, w)],
               [Fraction(x - t * y) for x, y in zip(u, w)])
    assert [list(v) for v, _ in factors[:6]] == [a, b, c, a, b, c]
    assert [float(x) for _, x in factors[:6]] == pytest.approx([beta, beta, beta3] * 2, rel=1e-12)


def test_a_half_turn_in_a_plane_with_cyclotomic_entries():
    """u = (cos(pi/4), 1, 0), w = (-1, cos(pi/4), 0): entries in Q(zeta_8), checked in floats."""
    c = cos2pi(1, 8)
    u, w = [c, Fraction(1), Fraction(0)], [Fraction(-1), c, Fraction(0)]
    factors, delta = half_turn_factors(u, w)
    assert all(0 <= float(b) < 1 for _, b in factors)
    M = [[1.0 * (i == j) for j in range(3)] for i in range(3)]
    for v, b in factors:
        M = _mul(M, _h([float(x) for x in v], float(b)))
    target = _half_turn([float(x) for x in u], [float(x) for x in w])
    for i in range(3):
        for j in range(3):
            assert M[i][j] == pytest.approx(float(delta) * target[i][j], abs=1e-12)


def _cayley(S):
    """(I - S)^-1 (I + S) for a skew-symmetric rational S: orthogonal, determinant 1."""
    import sympy as sp

    S = sp.Matrix(S)
    n = S.shape[0]
    Q = (sp.eye(n) - S).inv() * (sp.eye(n) + S)
    return [[Fraction(int(Q[i, j].p), int(Q[i, j].q)) for j in range(n)] for i in range(n)]


@pytest.mark.parametrize("seed", range(6))
def test_a_rotation_is_at_most_rank_g_minus_i_half_turns(seed):
    rng = random.Random(seed)
    n = 3 + seed % 3
    S = [[0] * n for _ in range(n)]
    for i in range(n):
        for j in range(i + 1, n):
            S[i][j] = Fraction(rng.randint(-3, 3), rng.randint(1, 3))
            S[j][i] = -S[i][j]
    g = _cayley(S)
    planes = rotation_half_turns(g)
    M = [[Fraction(int(i == j)) for j in range(n)] for i in range(n)]
    for u, w in planes:
        u, w = [Fraction(x) for x in u], [Fraction(x) for x in w]
        assert sum(a * b for a, b in zip(u, w)) == 0
        M = _mul(M, _half_turn(u, w))
    assert M == g
    import sympy as sp

    assert len(planes) <= (sp.Matrix(g) - sp.eye(n)).rank()


@pytest.mark.parametrize("g, count", [
    ([[-1, 0, 0], [0, -1, 0], [0, 0, 1]], 1),  # a half-turn: two orthogonal reflections, one plane
    ([[0, -1, 0], [1, 0, 0], [0, 0, 1]], 2),  # a quarter turn: reflections at 45 degrees, two planes
    ([[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]], 0),
])
def test_half_turn_counts_of_small_rotations(g, count):
    g = [[Fraction(x) for x in row] for row in g]
    planes = rotation_half_turns(g)
    assert len(planes) == count
    M = [[Fraction(int(i == j)) for j in range(len(g))] for i in range(len(g))]
    for u, w in planes:
        M = _mul(M, _half_turn([Fraction(x) for x in u], [Fraction(x) for x in w]))
    assert M == g


@pytest.mark.parametrize("spec, length, dim, K, top", [
    # groups: an orthogonal source, every factor a half-turn's (beta < 1)
    ("dihedral:4", 6, 3, 14, "<1"),
    ("dihedral:5", 5, 3, 14, "<1"),
    ("symmetric:3", 6, 3, 14, "<1"),
    ("alternating:4", 5, 3, 14, "<1"),
    ("quaternion", 5, 4, 32, "<1"),
    # the one-hot source keeps its projections (beta = 1)
    ("modarith:3", 4, 4, 16, "<=1"),
    ("random:states=5,symbols=2,seed=0", 8, 5, 28, "<=1"),
    ("flipflop:2", 6, 3, 8, "<=1"),
])
def test_every_word_is_classified_and_the_prover_agrees(spec, length, dim, K, top):
    automaton = from_spec(spec)
    w = half_turns(automaton)
    assert (w.variant, w.dim) == (f"householder:{K},nonneg", dim)
    betas = [Fraction(b) if not hasattr(b, "field") else b for b in w.factors[1].flat]
    assert all(0 <= b for b in betas) and all((b < 1) if top == "<1" else (b <= 1) for b in betas)
    assert householder_weights_min_margin(automaton, w, length) > 1e-6
    assert isinstance(prove(w, automaton), Proof)


def test_an_automaton_built_by_hand_is_recognised_from_its_algebra():
    """D_3 acting on its six elements without a spec: the dihedral construction reads the algebra."""
    d3 = from_spec("dihedral:3")
    by_hand = Automaton([list(row) for row in d3.delta], symbols=("a", "b"), name="d3-by-hand")
    w = half_turns(by_hand)
    assert w.dim == 3 and isinstance(prove(w, by_hand), Proof)
    assert householder_weights_min_margin(by_hand, w, 6) > 1e-6


def test_a_one_state_automaton_gets_one_identity_factor():
    """No symbol has a factor: K is 1 (one factor with beta = 0), not 0."""
    trivial = Automaton([[0]], symbols=("a",), name="one-state")
    w = half_turns(trivial)
    assert (w.variant, w.dim) == ("householder:1,nonneg", 1)
    assert [float(b) for b in w.factors[1].flat] == [0.0]
    assert isinstance(prove(w, trivial), Proof)


def test_source_factors_read_householder_factors_and_split_other_orthogonal_weights():
    """A ``monomial`` source carries factors too (perm and D), which are no Householder factors:
    its orthogonal matrices are split into reflections whose product is the matrix."""
    from bilinear.constructions.handmade.halfturns import source_factors
    from bilinear.constructions import build

    w = build("cyclic:3", "monomial")  # a 3-cycle permutation matrix, factors (perm, D)
    assert w.factors is not None
    factors = source_factors(w)
    for s, f in enumerate(factors):
        assert all(b == 2 for _, b in f)
        assert _product([([Fraction(x) for x in v], b) for v, b in f], 3) == [[Fraction(x) for x in row]
                                                                              for row in w.A[s]]
    h = build("cyclic:3", "householder:2")
    assert [len(f) for f in source_factors(h)] == [sum(1 for b in h.factors[1][s] if b != 0)
                                                    for s in range(h.n_symbols)]
    assert source_factors(build("modarith:3", "full")) is None  # not orthogonal, no Householder factors


def test_bad_planes_and_matrices_are_refused():
    with pytest.raises(ConstructionError, match="non-zero and orthogonal"):
        half_turn_factors([Fraction(1), Fraction(1), Fraction(0)], [Fraction(1), Fraction(0), Fraction(0)])
    with pytest.raises(ConstructionError, match="determinant -1"):
        rotation_half_turns([[Fraction(-1), 0, 0], [0, Fraction(1), 0], [0, 0, Fraction(1)]])


@pytest.mark.parametrize("spec, limit, built", [
    ("gridworld:9", 9, True), ("gridworld:9", 8, False),  # one-hot d = 9, every run even: no extra coordinate
    ("modarith:3", 4, True), ("modarith:3", 3, False),  # one-hot d = 3 and one extra coordinate
])
def test_the_size_limit_is_checked_before_the_work(monkeypatch, spec, limit, built):
    monkeypatch.setattr(halfturns, "HALF_TURNS_MAX_DIM", limit)
    half_turns.cache_clear()  # the per-automaton cache would answer from an earlier build
    automaton = from_spec(spec)
    if built:
        assert half_turns(automaton).dim == limit
    else:
        with pytest.raises(ConstructionError, match=f"{spec}: .*HALF_TURNS_MAX_DIM = {limit}"):
            half_turns(automaton)
    half_turns.cache_clear()  # nothing built under the patched limit stays behind


def test_a_factor_that_is_neither_nonneg_nor_a_reflection_is_refused():
    w = half_turns(from_spec("dihedral:4"))
    one = [Fraction(1), Fraction(0), Fraction(0)]
    for beta in (Fraction(3, 2), Fraction(-1, 2), Fraction(5, 2)):
        with pytest.raises(ConstructionError, match="neither in \\[0, 1\\] nor a reflection"):
            halfturns._convert(w, [[(one, beta)], [(one, Fraction(1, 2))]])
    assert halfturns._convert(w, [[(one, Fraction(0))], [(one, Fraction(1))]])[0] == 3  # no run: no extra coordinate

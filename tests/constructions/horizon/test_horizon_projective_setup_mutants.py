"""Theorem 23's set-up and search heuristics (constructions/horizon/horizon_projective.py; docs/theory.md,
the projective orbit horizon): the mutants of ``benchmarks/mutate_auto.py -k horizon_projective_setup``
that the other tests leave alive.

Every expected value here is computed independently: the dropped blocks in Fractions, the descent's
subgradient by finite differences, the exits' front by a brute-force domination written here, the
couplings and run constants by hand on chosen dyadic matrices (so that the balls are exact points)."""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from fractions import Fraction as Q
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

from bilinear.constructions.exact.balls import arb, precision
from bilinear.constructions.horizon.horizon_projective import (_float_blocks, _front, _vnorm, _worst,
                                                                 contracting_dropped)


def _q(x) -> Q:
    """The exact value of a point ball (every ball compared here has radius 0)."""
    assert x.rad() == 0, x
    man, exp = x.mid().man_exp()
    return Q(int(man)) * Q(2) ** int(exp)


@dataclass(frozen=True)
class _Snap:
    """The fields of a snap that the dropped coordinates' re-basing reads (``dataclasses.replace`` works)."""

    basis: Any
    kept_coords: tuple
    block_weights: Any
    scale: tuple


def _floats(A):
    return SimpleNamespace(float_arrays=lambda: (np.array(A, dtype=float),))


def _mat(M):
    return [[Q(x) for x in row] for row in M]


def _mul(X, Y):
    return [[sum((X[i][k] * Y[k][j] for k in range(len(Y))), Q(0)) for j in range(len(Y[0]))] for i in range(len(X))]


def _inv(P):
    """The inverse of a matrix of Fractions by Gauss-Jordan elimination written here."""
    n = len(P)
    M = [list(map(Q, row)) + [Q(int(i == j)) for j in range(n)] for i, row in enumerate(P)]
    for c in range(n):
        p = next(i for i in range(c, n) if M[i][c] != 0)
        M[c], M[p] = M[p], M[c]
        M[c] = [x / M[c][c] for x in M[c]]
        for i in range(n):
            if i != c and M[i][c] != 0:
                M[i] = [x - M[i][c] * y for x, y in zip(M[i], M[c])]
    return [row[n:] for row in M]


# ------------------------------------------------------------------------------------------
# the float dropped blocks and the descent's objective
# ------------------------------------------------------------------------------------------
BASIS = [[1, 1, 0], [0, 1, 0], [0, 0, 2]]
K3, D3 = (0, 2), [1]
FLOAT_A = [[[1, 2, 0], [0, Q(1, 2), 1], [Q(1, 4), 0, 1]],
           [[0, 3, 0], [0, 3, 0], [0, 0, 0]],  # P (3 e1 e1^T) P^-1: zero on K x K in the snap's basis
           [[2, 0, 1], [1, Q(3, 4), 0], [0, 1, -1]]]
SCALE = (2.0, 0.5, 0.25)
SNAP_K = [[[2, 0], [0, 2]], [[1, 0], [0, 1]], [[-1, 0], [0, 1]]]  # S_a[K, K]; zero elsewhere


def _three_snap(basis=BASIS):
    S = np.zeros((3, 3, 3))
    for a, M in enumerate(SNAP_K):
        S[a][np.ix_(K3, K3)] = M
    return _Snap(None if basis is None else np.array(_mat(basis), dtype=object), K3, _floats(S), SCALE)


def _hand_blocks(basis):
    """``|c_a| (P^-1 A_a P)[D,D]`` in Fractions, c_a = <F_K, S_K> / <F_K, F_K> (1 where F_K = 0)."""
    P = _mat(basis)
    out = []
    for A, s, SK in zip(FLOAT_A, SCALE, SNAP_K):
        F = _mul(_mul(_inv(P), [[Q(x) * Q(s) for x in row] for row in A]), P)
        fk = [F[i][j] for i in K3 for j in K3]
        sk = [Q(x) for row in SK for x in row]
        ff = sum(x * x for x in fk)
        c = sum(x * y for x, y in zip(fk, sk)) / ff if ff else Q(1)
        out.append([[abs(c) * F[i][j] for j in D3] for i in D3])
    return out


@pytest.mark.parametrize("basis", [BASIS, None])
def test_float_blocks_are_the_dropped_blocks_computed_in_fractions(basis):
    """``(P, [|c_a| (P^-1 s_a A_a P)[D,D]])``: symbol 1's K x K block vanishes in the basis (c = 1,
    not 0/0), symbol 2's fit is negative (|c|), every scale differs from 1."""
    P, blocks = _float_blocks(_floats(FLOAT_A), _three_snap(basis))
    assert np.array_equal(P, np.array(basis or np.eye(3), dtype=float))
    want = _hand_blocks(basis or np.eye(3, dtype=int).tolist())
    assert [B.shape for B in blocks] == [(1, 1)] * 3
    assert [float(B[0, 0]) for B in blocks] == pytest.approx([float(W[0][0]) for W in want], rel=1e-12)
    if basis is not None:
        assert blocks[1].tolist() == [[1.5]] and np.all(np.isfinite(blocks[2]))


def _fd_grad(f, T, h=1e-6):
    G = np.zeros_like(T)
    for i, j in itertools.product(range(T.shape[0]), range(T.shape[1])):
        E = np.zeros_like(T)
        E[i, j] = h
        G[i, j] = (f(T + E) - f(T - E)) / (2 * h)
    return G


def test_worst_is_the_largest_conjugated_norm_and_its_gradient_by_finite_differences():
    """``max_a ||T B_a T^-1||`` (numpy's 2-norm) and the gradient of the largest one in T, by
    central differences (the largest block is the middle one: neither the first nor the last)."""
    rng = np.random.default_rng(5)
    blocks = [0.3 * rng.normal(size=(3, 3)), 2.0 * rng.normal(size=(3, 3)), 0.5 * rng.normal(size=(3, 3))]
    T = np.triu(rng.normal(size=(3, 3))) + 2 * np.eye(3)
    norms = [np.linalg.norm(T @ B @ np.linalg.inv(T), 2) for B in blocks]
    assert int(np.argmax(norms)) == 1
    best, grad = _worst(T, blocks)
    assert best == pytest.approx(max(norms), rel=1e-12)
    fd = _fd_grad(lambda X: np.linalg.norm(X @ blocks[1] @ np.linalg.inv(X), 2), T)
    assert np.allclose(grad, fd, rtol=1e-5, atol=1e-7)


# ------------------------------------------------------------------------------------------
# the re-basing of the dropped coordinates: when, and what comes out
# ------------------------------------------------------------------------------------------
def _dropped_snap(blocks, k=1):
    """A snap of ``k`` kept coordinates (identity on them, scale 1) and dropped blocks ``blocks``
    (one matrix per symbol on the remaining coordinates), basis None; the float weights are the
    snapped ones plus the dropped blocks (so the fit c is 1 exactly)."""
    m = len(blocks[0])
    d = k + m
    A = np.zeros((len(blocks), d, d))
    S = np.zeros((len(blocks), d, d))
    for a, B in enumerate(blocks):
        A[a][:k, :k] = S[a][:k, :k] = np.eye(k)
        A[a][k:, k:] = B
    return _floats(A), _Snap(None, tuple(range(k)), _floats(S), (1.0,) * len(blocks))


def test_worst_takes_the_largest_top_singular_value_not_the_largest_second_one():
    """The block with the largest norm (2) has the smaller second singular value (0 against 1/2):
    at T = I the norms are exact, and the gradient is the largest block's ``u (B v)^T - (B^T u) v^T``
    written here."""
    wide = np.array([[0.0, 2.0], [0.0, 0.0]])  # u = e1, v = e2, sigma = (2, 0)
    even = np.array([[1.0, 0.0], [0.0, 0.5]])  # sigma = (1, 1/2)
    for blocks in ([even, wide], [wide, even]):
        best, grad = _worst(np.eye(2), blocks)
        assert best == 2.0
        assert np.allclose(grad, [[2.0, 0.0], [0.0, -2.0]], atol=1e-15)


def test_worst_keeps_the_first_of_equal_norms():
    """Two blocks of norm exactly 2 (the transpose of each other, at T = I): the gradient is the
    first one's, ``2 (e1 e1^T - e2 e2^T)`` or its negative for the second (a deterministic descent)."""
    wide, tall = np.array([[0.0, 2.0], [0.0, 0.0]]), np.array([[0.0, 0.0], [2.0, 0.0]])
    for blocks, sign in (([wide, tall], 1), ([tall, wide], -1)):
        best, grad = _worst(np.eye(2), blocks)
        assert best == 2.0 and np.allclose(grad, sign * np.array([[2.0, 0.0], [0.0, -2.0]]), atol=1e-15)


def test_no_dropped_coordinates_or_contracting_blocks_are_not_rebased(monkeypatch):
    """None where D is empty, where every dropped block has norm below 1 already, and where D has
    more than MAX_REBASED coordinates (set to 2 here: 2 are re-based, 3 are not)."""
    import bilinear.constructions.horizon.horizon_projective as hp

    w = _floats(np.stack([np.eye(2), 2 * np.eye(2)]))
    assert contracting_dropped(w, _Snap(None, (0, 1), w, (1.0, 1.0))) is None
    assert contracting_dropped(*_dropped_snap([[[0.5, 0.5], [0.0, 0.5]], [[0.9, 0.0], [0.0, -0.9]]])) is None
    monkeypatch.setattr(hp, "MAX_REBASED", 2)
    nil2 = [[0.0, 1.5], [0.0, 0.0]]
    assert contracting_dropped(*_dropped_snap([nil2])) is not None
    nil3 = [[0.0, 1.5, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]
    assert contracting_dropped(*_dropped_snap([nil3])) is None


def _check_rebased(new, blocks, k, base, bound=0.8):
    """The new basis is ``base diag(I, W)`` exactly, W upper triangular with float (dyadic) entries,
    and the dropped blocks contract below TARGET_RHO in it (numpy, from the exact basis)."""
    d = k + len(blocks[0])
    P = [[Q(x) for x in row] for row in new.basis]
    M = _mul(_inv(base), P)  # diag(I, W)
    for i, j in itertools.product(range(d), repeat=2):
        if i < k or j < k:
            assert M[i][j] == (1 if i == j else 0), (i, j)
        elif i > j:
            assert M[i][j] == 0
        else:
            assert M[i][j].denominator & (M[i][j].denominator - 1) == 0  # a float read exactly
    A = [np.array(_mul(_mul(base, [[Q(int(i == j)) if i < k or j < k else Q(B[i - k][j - k]) for j in range(d)]
                                   for i in range(d)]), _inv(base)), dtype=float) for B in blocks]
    norms = [np.linalg.norm((np.linalg.solve(np.array(P, dtype=float), a) @ np.array(P, dtype=float))[k:, k:], 2)
             for a in A]
    assert max(norms) < bound
    return norms


def test_a_nilpotent_block_of_norm_exactly_one_is_rebased_to_contract():
    """A dropped block of norm exactly 1 (spectral radius 0) is not contracting in the snap's
    basis (``< 1`` needed) but is in a re-scaled one: the new basis is diag(I, W), W upper
    triangular, and the block's norm in it (numpy, from the exact basis) is below TARGET_RHO."""
    blocks = [[[0.0, 1.0], [0.0, 0.0]], [[0.25, 0.0], [0.0, 0.25]]]
    w, snap = _dropped_snap(blocks)
    new = contracting_dropped(w, snap)
    assert new is not None and new.kept_coords == snap.kept_coords and new.scale == snap.scale
    _check_rebased(new, blocks, 1, [[Q(int(i == j)) for j in range(3)] for i in range(3)])


def test_the_rebased_basis_is_the_snaps_basis_times_the_dropped_change():
    """A snap with its own exact basis P0 (not the identity): the new basis is P0 diag(I, W) exactly
    (P0^-1 P computed here in Fractions), and the float network's dropped blocks, read in it,
    contract; a dropped part that cannot contract (a block of spectral radius 1: a reflection) is
    refused."""
    base = _mat([[1, 0, 1], [1, 1, 0], [0, 1, 2]])
    blocks = [[[0.5, 3.0], [0.0, 0.5]], [[-0.5, 0.0], [0.0, 0.25]]]
    d, k = 3, 1
    A = np.array([np.array(_mul(_mul(base, [[Q(int(i == j)) if i < k or j < k else Q(B[i - k][j - k])
                                            for j in range(d)] for i in range(d)]), _inv(base)), dtype=float)
                  for B in blocks])
    S = np.zeros((2, 3, 3))
    S[:, 0, 0] = 1
    snap = _Snap(np.array(base, dtype=object), (0,), _floats(S), (1.0, 1.0))
    new = contracting_dropped(_floats(A), snap)
    assert new is not None
    _check_rebased(new, blocks, k, base)
    refl = [[[0.0, 1.0], [1.0, 0.0]]]
    assert contracting_dropped(*_dropped_snap(refl)) is None


# ------------------------------------------------------------------------------------------
# the exits' front: merged by (|g.z|, ||g||), then the dominated ones dropped
# ------------------------------------------------------------------------------------------
def _hand_front(exits):
    """The merge and the domination, by brute force in Fractions (first of equals kept)."""
    merged: dict = {}
    for e in exits:
        key = (e[2], e[3])
        merged[key] = (max(merged[key][0], e[0]), max(merged[key][1], e[1])) if key in merged else (e[0], e[1])
    out = [(a, b, g, n) for (g, n), (a, b) in merged.items()]

    def over(f, e):
        return f[0] >= e[0] and f[1] >= e[1] and f[2] <= e[2] and f[3] >= e[3]

    return [e for e in out if not any(over(f, e) for f in out if f != e)]


def _arb_exits(exits):
    return tuple(tuple(arb(x) for x in e) for e in exits)


def _front_q(exits):
    with precision():
        return [tuple(_q(x) for x in e) for e in _front(_arb_exits(exits))]


def _demand_q(exits, u, v):
    """max over exits of ``(eta + u) / (gz - gn u)`` and ``(xi + v) / (gz - gn u)`` (None: a sign lost)."""
    if any(gz - gn * u <= 0 for _, _, gz, gn in exits):
        return None
    return (max([(a + u) / (g - n * u) for a, _, g, n in exits], default=Q(0)),
            max([(b + v) / (g - n * u) for _, b, g, n in exits], default=Q(0)))


FRONT_CASES = [
    [],
    [(Q(1, 4), Q(1, 8), 1, Q(1, 2))],
    # the same (|g.z|, ||g||) twice: one exit with the larger drift of one and leak of the other
    [(Q(1, 4), Q(1, 8), 1, Q(1, 2)), (Q(1, 8), Q(1, 2), 1, Q(1, 2))],
    # the same |g.z|, different ||g||: neither dominates (the first drifts more, the second has the larger ||g||)
    [(Q(1, 2), Q(1, 8), 1, Q(1, 4)), (Q(1, 8), Q(1, 8), 1, Q(1, 2))],
    # the same ||g||, different |g.z|: the smaller |g.z| with larger drift and leak dominates, listed second
    [(Q(1, 8), Q(1, 8), 2, Q(1, 2)), (Q(1, 4), Q(1, 8), 1, Q(1, 2))],
    # a dominating exit listed first, then dominated ones on each of the four components alone
    [(Q(1, 2), Q(1, 2), 1, 1), (Q(1, 4), Q(1, 2), 1, Q(1, 2)), (Q(1, 2), Q(1, 4), 2, 1), (Q(1, 2), Q(1, 2), 2, Q(1, 2)),
     (Q(1, 2), Q(1, 2), 3, 1)],
    # each dominated on one component only (no exit dominates another): all kept
    [(Q(1, 2), Q(1, 8), 1, 1), (Q(1, 8), Q(1, 2), 1, Q(1, 2)), (Q(1, 4), Q(1, 4), Q(1, 2), Q(1, 4)),
     (Q(1, 4), Q(1, 4), 2, 2)],
]


@pytest.mark.parametrize("exits", FRONT_CASES)
def test_front_is_the_merge_and_domination_by_brute_force_and_keeps_every_demand(exits):
    """The front against the brute force, and the demand over it equal to the demand over all the
    exits at every (U, V) of a grid (the docstring's promise: the merged and dominated exits demand
    no more)."""
    got = _front_q(exits)
    assert got == _hand_front([tuple(Q(x) for x in e) for e in exits])
    for u, v in itertools.product([Q(0), Q(1, 4), Q(1, 2), Q(3, 2)], [Q(0), Q(1, 2)]):
        assert _demand_q(got, u, v) == _demand_q([tuple(Q(x) for x in e) for e in exits], u, v)


def test_front_of_random_exits_is_the_brute_force():
    """300 random lists of up to 6 exits on a small grid of dyadic values (so that equal
    components, merges and chains of domination are common): the front is the brute force's."""
    rng = np.random.default_rng(7)
    vals = [Q(1, 4), Q(1, 2), Q(1), Q(2)]
    for _ in range(300):
        exits = [tuple(vals[i] for i in rng.integers(0, 4, size=4)) for _ in range(rng.integers(1, 7))]
        assert _front_q(exits) == _hand_front(exits), exits


def test_front_of_64_distinct_exits_is_reduced_and_of_65_is_left_as_given():
    """Domination is quadratic: beyond 64 distinct exits (after merging) they are returned as
    given; at 64 the one with the smallest |g.z| (the others equal) dominates every other."""
    for n, want in ((64, 1), (65, 65)):
        exits = [(Q(1, 4), Q(1, 8), Q(i + 1), 1) for i in range(n)]
        got = _front_q(exits)
        assert len(got) == want and got[0] == (Q(1, 4), Q(1, 8), 1, 1)
        if n == 65:
            assert got == [tuple(Q(x) for x in e) for e in exits]
    # 65 exits that merge into 64 (two share (|g.z|, ||g||)): reduced
    exits = [(Q(1, 4), Q(1, 8), Q(i + 1), 1) for i in range(64)] + [(Q(1, 8), Q(1, 16), Q(64), 1)]
    assert _front_q(exits) == [(Q(1, 4), Q(1, 8), 1, 1)]


def test_vector_norm_is_the_square_root_of_the_sum_of_squares():
    with precision():
        assert _q(_vnorm([arb(3), arb(4)])) == 5
        assert _q(_vnorm([arb(Q(3, 4)), arb(-1)])) == Q(5, 4)
        assert _q(_vnorm([])) == 0


# ------------------------------------------------------------------------------------------
# Theorem 19's couplings over a set of symbols
# ------------------------------------------------------------------------------------------
DELTA = Q(1, 1024)
# two symbols on K = (0, 1) (one kept 2x2 group) and D = (2, 3) (one dropped 2x2 group); S is a
# quarter turn on K for both, F - S is given by its blocks (non-normal, so that a bound by powers
# of M^T M is not the exact norm the 2x2 groups give)
COUPLING_BLOCKS = [
    dict(kk=[[Q(1, 8), Q(1, 4)], [0, Q(1, 8)]], kd=[[Q(1, 16), 0], [0, Q(1, 32)]],
         dk=[[Q(1, 8), 0], [0, 0]], dd=[[Q(1, 2), Q(1, 4)], [0, Q(1, 2)]]),
    dict(kk=[[Q(1, 16), 0], [0, Q(1, 32)]], kd=[[0, 0], [Q(1, 4), 0]],
         dk=[[0, Q(1, 64)], [0, 0]], dd=[[Q(1, 4), 0], [Q(3, 8), Q(1, 4)]]),
]


def _coupling_setup(blocks=COUPLING_BLOCKS, dropped=True):
    from bilinear.constructions.exact.balls import arb_matrix

    turn = [[0, -1], [1, 0]]
    F, S = [], []
    d = 4 if dropped else 2
    for b in blocks:
        f = [[Q(0)] * d for _ in range(d)]
        s = [[Q(0)] * d for _ in range(d)]
        for i, j in itertools.product(range(2), repeat=2):
            s[i][j] = Q(turn[i][j])
            f[i][j] = turn[i][j] + b["kk"][i][j]
            if dropped:
                f[i][2 + j], f[2 + i][j], f[2 + i][2 + j] = b["kd"][i][j], b["dk"][i][j], b["dd"][i][j]
        F.append(arb_matrix(f))
        S.append(arb_matrix(s))
    st = SimpleNamespace(K=[0, 1], D=[2, 3] if dropped else [], delta=arb(DELTA), F=F, S=S)
    snap = SimpleNamespace(blocks=((0, 1), (2, 3)) if dropped else ((0, 1),), kept=(0,))
    return st, snap


def _norm(M) -> float:
    return float(np.linalg.norm(np.array(M, dtype=float), 2))


@pytest.mark.parametrize("symbols", [[0], [1], [0, 1]])
def test_couplings_are_the_largest_block_norms_plus_delta(symbols):
    """``(eps, gamma, beta, rho)`` = max over ``symbols`` of ``||(F - S)[K,K]||, ||F[K,D]||,
    ||F[D,K]||, ||F[D,D]||``, each plus delta (numpy's 2-norms here): at least them, and within
    1e-9 of them (the kept and dropped 2x2 groups give the exact norm of a diagonal block; a bound
    by powers of M^T M is more than 1e-3 above for these non-normal blocks)."""
    from bilinear.constructions.horizon.horizon_projective import _couplings

    st, snap = _coupling_setup()
    with precision():
        got = [float(x.mid()) for x in _couplings(st, snap, symbols)]
        assert all(x.rad() == 0 for x in _couplings(st, snap, symbols))
    want = [max(_norm(COUPLING_BLOCKS[a][part]) for a in symbols) + float(DELTA) for part in ("kk", "kd", "dk", "dd")]
    assert got == pytest.approx(want, rel=1e-9)
    assert all(g >= w * (1 - 1e-15) for g, w in zip(got, want))


def test_couplings_over_no_symbol_are_zero_and_without_dropped_coordinates_only_eps():
    from bilinear.constructions.horizon.horizon_projective import _couplings

    st, snap = _coupling_setup()
    with precision():
        assert [_q(x) for x in _couplings(st, snap, [])] == [0, 0, 0, 0]
        st, snap = _coupling_setup(dropped=False)
        got = _couplings(st, snap, [0, 1])
        assert [_q(x) for x in got[1:]] == [0, 0, 0]
        assert float(got[0].mid()) == pytest.approx(_norm(COUPLING_BLOCKS[0]["kk"]) + float(DELTA), rel=1e-9)


def _descent(monkeypatch, blocks):
    """``contracting_dropped`` on ``_dropped_snap(blocks)``, with every call of ``_worst`` recorded: ``(result, [(T, max, gradient)])``."""
    import bilinear.constructions.horizon.horizon_projective as hp

    calls: list = []
    real = hp._worst

    def record(T, bl):
        out = real(T, bl)
        calls.append((T.copy(), out[0], out[1]))
        return out

    monkeypatch.setattr(hp, "_worst", record)
    return contracting_dropped(*_dropped_snap(blocks)), calls


@pytest.mark.parametrize("blocks,steps,rebased", [
    ([[[0.0, 1.0], [0.0, 0.0]], [[0.25, 0.0], [0.0, 0.25]]], 3, True),      # below TARGET_RHO on the 2nd step
    ([[[0.5, 3.0], [0.0, 0.5]], [[-0.5, 0.0], [0.0, 0.25]]], 5, True),
    ([[[0.9, 0.5, 0.3], [0.0, 0.5, 0.4], [0.0, 0.0, -0.7]]], 219, True),   # stalls at 0.9 (an eigenvalue): the step shrinks
    ([[[1.0]]], 18, False),                                                 # 1 x 1: T B T^-1 = B, norm exactly 1
    ([[[0.0, 1.0], [1.0, 0.0]]], 18, False),                                # a reflection: never below 1
])
def test_the_descent_is_the_documented_one(monkeypatch, blocks, steps, rebased):
    """The descent of docs/theory.md Theorem 23 (the docstring's), replayed from the recorded calls:
    T starts at the identity; each trial is upper triangular, ``T - step g / ||g||`` scaled to norm
    1, from the current T and its subgradient; a trial is kept only where it lowers the maximum
    (the step then grows by half), else the step is halved (from 0.1); the descent stops at the
    first maximum below TARGET_RHO, at a step below 1e-6 or after DESCENT_STEPS trials; the basis
    is diag(I, W) with W the float inverse of the last T kept, read exactly, or None where its
    maximum is not below 1."""
    new, calls = _descent(monkeypatch, blocks)
    assert np.array_equal(calls[0][0], np.eye(len(blocks[0])))
    cur, step = calls[0], 0.1
    for T, f, grad in calls[1:]:
        assert not (cur[1] < 0.8 or step < 1e-6)
        g = cur[2]
        want = np.triu(cur[0] - step * g / max(np.linalg.norm(g), 1e-300))
        assert np.array_equal(T, np.triu(T)) and np.allclose(T, want / np.linalg.norm(want, 2), rtol=1e-13, atol=1e-16)
        if f < cur[1]:
            cur, step = (T, f, grad), step * 1.5
        else:
            step /= 2
    assert cur[1] < 0.8 or step < 1e-6 or len(calls) == 401
    assert len(calls) == steps and (new is not None) == rebased == (cur[1] < 1)
    if new is not None:
        P = [[Q(x) for x in row] for row in new.basis]
        W = np.linalg.inv(cur[0])
        assert [row[1:] for row in P[1:]] == [[Q(float(x)) for x in row] for row in W]
        assert all(P[0][j] == P[j][0] == (j == 0) for j in range(len(P)))
        assert max(_check_rebased(new, blocks, 1, [[Q(int(i == j)) for j in range(len(P))] for i in range(len(P))],
                                  bound=1.0)) == pytest.approx(cur[1], rel=1e-9)


# ------------------------------------------------------------------------------------------
# the grid of restart errors
# ------------------------------------------------------------------------------------------
GRID_EXIT = (Q(1, 2), Q(1, 4), Q(1, 8), Q(1, 2))  # eps, gamma, beta, rho at a reset
GRID_US, GRID_VS = Q(1, 8), Q(1, 16)
START_EXIT = (Q(1, 16), Q(1, 32), 1, 0)   # demand at (us, vs): (1/16 + us/2 + vs/4, 1/32 + us/8 + vs/2) = (9/64, 5/64)
RESTART_EXIT = (Q(1, 8), Q(1, 4), 1, Q(1, 4))  # demand at (0, 0): (1/8, 1/4); at U = 1 it would be (1/6, 1/3)
U_LO, RATIO = Q(9, 64), Q(16, 9)


def _grid_runs(start_exit=START_EXIT, restart_exit=RESTART_EXIT):
    from bilinear.constructions.horizon.horizon_projective import _Common, _Run

    def run(e):
        return _Run(arb(1), arb(1), arb(0), arb(0), (), () if e is None else (tuple(arb(x) for x in e),))

    cm = _Common(*(arb(0),) * 5, exit=tuple(arb(x) for x in GRID_EXIT))
    return [run(start_exit)], [run(restart_exit)], cm


def _grid(monkeypatch, profile, traces, beat, s=3, runs=None):
    """``_grid_search`` with ``_certified`` replaced by ``profile`` (the length at grid point j,
    read back from the restart error it is given); returns its answer and the points asked."""
    import math

    import bilinear.constructions.horizon.horizon_projective as hp

    asked: list = []

    def certified(tr, restarts, cm, s_, need, check):
        assert check and s_ == s and tr is traces
        j = round(2 * math.log2(float(need[0].mid()) / float(U_LO)))
        assert float(need[0].mid()) == pytest.approx(float(U_LO) * 2 ** (j / 2), rel=1e-12)
        assert float(need[1].mid()) == pytest.approx(float(need[0].mid()) * float(RATIO), rel=1e-12)
        asked.append(j)
        return profile(j), None

    monkeypatch.setattr(hp, "_certified", certified)
    starts, restarts, cm = runs or _grid_runs()
    with precision():
        length, need = hp._grid_search(starts, traces, restarts, cm, s, arb(GRID_US), arb(GRID_VS), beat)
        return length, (float(need[0].mid()), float(need[1].mid())), asked


def _hand_grid(value):
    """The documented search: every 3rd of 48 points, then the two on each side of the best (the
    smallest j among equals), the best of all the points visited."""
    seen = {j: value(j) for j in range(0, 48, 3)}
    best = max(seen, key=lambda j: (seen[j], -j))
    seen.update({j: value(j) for j in (best - 2, best - 1, best + 1, best + 2) if 0 <= j < 48})
    return max(seen, key=lambda j: (seen[j], -j)), seen


@pytest.mark.parametrize("peak", [22, 20, 0, 1, 47, 46, 45])
def test_grid_search_is_every_third_point_then_the_neighbours_of_the_best(monkeypatch, peak):
    """A single peak at ``peak`` (lengths 100 - |j - peak|): the search finds it from the nearest
    multiple of 3, with the restart error u_lo 2^(j/2) (u_lo the largest demand at the runs'
    starts: 9/64 of the start run at (u_s, v_s), above the restart run's 1/8 at 0) and v_R in the
    largest proportion of the demands (16/9: the restart run's 1/4 over u_lo)."""
    def value(j):
        return 100 - abs(j - peak)

    traces = [[(arb(0), arb(0))] * 1000]
    length, need, asked = _grid(monkeypatch, value, traces, beat=0)
    j, seen = _hand_grid(value)
    assert j == peak and length == 100 and sorted(asked) == sorted(seen)
    assert need == pytest.approx((float(U_LO) * 2 ** (j / 2), float(U_LO) * 2 ** (j / 2) * float(RATIO)), rel=1e-12)


def test_grid_search_ties_go_to_the_smallest_restart_error(monkeypatch):
    """Equal lengths on a plateau: the smallest j among the best (of the 3rd points, then of all)."""
    def value(j):
        return 50 if 7 <= j <= 30 else 10

    length, need, asked = _grid(monkeypatch, value, [[(arb(0), arb(0))] * 1000], beat=0)
    j, seen = _hand_grid(value)
    assert j == 7 and length == 50 and sorted(asked) == sorted(seen)
    assert need[0] == pytest.approx(float(U_LO) * 2 ** 3.5, rel=1e-12)


def test_grid_search_skips_the_points_where_the_start_runs_alone_are_no_better(monkeypatch):
    """A start trace within the restart error only up to k = 4 below j = 10 (its 6th demand is
    u_lo 2^5): there s + 4 = ``beat`` (not better), so the point counts s, not the profile's
    length, and only the points j >= 10 are asked for; with beat one less all are asked."""
    s = 3
    big = arb(U_LO * 32)
    traces = [[(arb(0), arb(0))] * 5 + [(big, arb(0))] * 995]

    def value(j):
        return 200 - abs(j - 4)  # best below j = 10, where the start runs decide

    length, need, asked = _grid(monkeypatch, value, traces, beat=s + 4, s=s)
    j, seen = _hand_grid(lambda j: s if j < 10 else value(j))
    assert (j, length) == (10, value(10)) and min(asked) == 10 and sorted(asked) == sorted(k for k in seen if k >= 10)
    length, need, asked = _grid(monkeypatch, value, traces, beat=s + 3, s=s)
    assert length == 200 and need[0] == pytest.approx(float(U_LO) * 4, rel=1e-12)


def test_grid_search_without_a_demand_or_with_a_lost_sign_certifies_the_exhaustive_depth(monkeypatch):
    """No exit demands anything (u_lo = 0: no grid; the start run has no exit, the restart run's
    demands 0 at (0, 0)), or a start run's reset loses its sign at u_s (|g.z| = 1/8 = ||g|| u_s):
    ``(s, (0, 0))`` and no length asked for."""
    def value(j):
        raise AssertionError("no grid point is asked for")

    for runs in (_grid_runs(None, (0, 0, 1, 0)), _grid_runs((Q(1, 16), Q(1, 32), Q(1, 8), 1))):
        length, need, asked = _grid(monkeypatch, value, [[(arb(0), arb(0))] * 10], beat=0, s=5, runs=runs)
        assert (length, need, asked) == (5, (0.0, 0.0), [])


# ------------------------------------------------------------------------------------------
# the restart error's rounds and the decision to search the grid
# ------------------------------------------------------------------------------------------
def _scripted(monkeypatch, table, s=10, grid=None, rebased=False):
    """``projective_horizon`` with its set-up, exhaustive phase and traces stubbed, and
    ``_certified`` answering from ``table``: ``{(u_R, v_R, check): (length, top)}`` (restart
    errors as Fractions).  Returns the horizon, the restart errors asked for and the grid's calls."""
    import bilinear.constructions.horizon.horizon_projective as hp

    asked, searched = [], []
    starts, restarts = [SimpleNamespace(n=arb(Q(3, 2)))], [SimpleNamespace()] * 3  # one start run: starts[0]
    cm, us, vs = object(), arb(Q(1, 64)), arb(Q(1, 128))

    def certified(traces, rs, cm_, s_, restart, check):
        assert traces == ["trace"] and rs is restarts and cm_ is cm and s_ == s
        key = (_q(restart[0]), _q(restart[1]), check)
        asked.append(key)
        length, top = table[key]
        return length, (arb(top[0]), arb(top[1]))

    def grid_search(st, traces, rs, cm_, s_, us_, vs_, beat):
        assert st is starts and rs is restarts and (s_, us_, vs_) == (s, us, vs)
        searched.append(beat)
        return grid[0], (arb(grid[1][0]), arb(grid[1][1]))

    monkeypatch.setattr(hp, "contracting_dropped", lambda w, snap: "rebased" if rebased else None)
    monkeypatch.setattr(hp, "_setup", lambda w, snap, a, ro: ((starts, restarts, cm, "c", "st"), ""))
    monkeypatch.setattr(hp, "exhaustive_phase", lambda a, st, c, ro, m: (None, {"start_error": 0.5}, s, us, vs))

    def trace(run, cm_, u, v, first, limit):  # the start runs from (u_s, v_s), the readout from k = 1 on
        assert run in starts and cm_ is cm and (u, v, first, limit) == (us, vs, 1, hp.MAX_STEPS)
        return "trace"

    monkeypatch.setattr(hp, "_trace", trace)
    monkeypatch.setattr(hp, "_certified", certified)
    monkeypatch.setattr(hp, "_grid_search", grid_search)
    monkeypatch.setattr(hp, "resetting_symbols", lambda snap: {0: None, 2: None})
    h = hp.projective_horizon("w", "snap", None, "a", SimpleNamespace(arithmetic="float64"))
    return h, asked, searched


def test_the_restart_error_is_raised_to_the_demand_until_it_covers_it(monkeypatch):
    """Round 0 at no restart error (length 40, the ceiling; demand (1/4, 1/8)): only the checked
    length 12 counts; round 1 at (1/4, 1/8): the demand (1/8, 1/4) is within it in u only, so
    the checked 20 counts and the error becomes the componentwise maximum (1/4, 1/4); round 2:
    a demand equal to it settles, and its length 30 counts.  2 (30 - 10) >= 40 - 10: no grid."""
    table = {(0, 0, False): (40, (Q(1, 4), Q(1, 8))), (0, 0, True): (12, (0, 0)),
             (Q(1, 4), Q(1, 8), False): (35, (Q(1, 8), Q(1, 4))), (Q(1, 4), Q(1, 8), True): (20, (0, 0)),
             (Q(1, 4), Q(1, 4), False): (30, (Q(1, 4), Q(1, 4)))}
    h, asked, searched = _scripted(monkeypatch, table)
    assert (h.kind, h.count, h.bound) == ("up to", 30, "projective") and searched == []
    assert asked == [(0, 0, False), (0, 0, True), (Q(1, 4), Q(1, 8), False), (Q(1, 4), Q(1, 8), True),
                     (Q(1, 4), Q(1, 4), False)]
    assert h.constants == {"start_error": 0.5, "product_norm": 1.5, "restart_error": 0.25}
    assert h.note == ("every word up to length 10 run exhaustively in ball arithmetic; 4 runs after the exhaustive "
                      "depth or a reset, the error forgotten at each of 2 resetting symbols")


def test_the_restart_error_settles_only_where_both_components_are_covered(monkeypatch):
    """Round 1 at (1/4, 1/2) demands (3/8, 1/8): within it in v (and below both components' error
    in v), not in u; the error becomes (3/8, 1/2), which round 2 covers (its length 33 counts)."""
    table = {(0, 0, False): (40, (Q(1, 4), Q(1, 2))), (0, 0, True): (12, (0, 0)),
             (Q(1, 4), Q(1, 2), False): (35, (Q(3, 8), Q(1, 8))), (Q(1, 4), Q(1, 2), True): (20, (0, 0)),
             (Q(3, 8), Q(1, 2), False): (33, (Q(3, 8), Q(1, 2)))}
    h, asked, searched = _scripted(monkeypatch, table)
    assert h.count == 33 and len(asked) == 5 and searched == [] and h.constants["restart_error"] == 0.375


def test_a_restart_error_that_needs_none_settles_at_once(monkeypatch):
    """No demand at no restart error: the ceiling itself, one call, the note of a re-based snap."""
    h, asked, searched = _scripted(monkeypatch, {(0, 0, False): (25, (0, 0))}, rebased=True)
    assert h.count == 25 and asked == [(0, 0, False)] and searched == []
    assert h.constants["restart_error"] == 0.0
    assert h.note.endswith("resetting symbols; the dropped coordinates re-based so that their blocks contract")


def _unsettled(s=10):
    """Five rounds whose demand doubles each time (never covered): checked lengths 11 .. 15."""
    table = {}
    r = (Q(0), Q(0))
    for i in range(5):
        top = (Q(1, 2) * 2 ** i, Q(1, 2) * 2 ** i)
        table[r + (False,)] = (100 - 10 * i, top)
        table[r + (True,)] = (s + 1 + i, (0, 0))
        r = top
    return table


@pytest.mark.parametrize("grid,want,restart", [((50, (Q(3, 4), Q(3, 2))), 50, 0.75), ((15, (Q(3, 4), Q(3, 2))), 15, 8.0),
                                               ((14, (Q(3, 4), Q(3, 2))), 15, 8.0)])
def test_an_unsettled_restart_error_far_below_the_ceiling_searches_the_grid(monkeypatch, grid, want, restart):
    """After ROUNDS rounds the best checked length is 15 (the fixed point never settled; the error
    is (8, 8)), far below the ceiling 100: the grid is searched (beating 15), and its answer is
    taken, with its restart error, only where it is longer."""
    h, asked, searched = _scripted(monkeypatch, _unsettled(), grid=grid)
    assert len(asked) == 10 and searched == [15]
    assert h.count == want and h.constants["restart_error"] == restart


@pytest.mark.parametrize("ceiling,search", [(30, False), (31, True)])
def test_the_grid_is_searched_only_below_half_the_ceiling(monkeypatch, ceiling, search):
    """The checked length 20 with s = 10: no grid where 2 (20 - 10) = ceiling - s (30), a grid
    where it is less (31); the grid's 25 taken."""
    table = {(0, 0, False): (ceiling, (Q(1, 4), Q(1, 4))), (0, 0, True): (20, (0, 0)),
             (Q(1, 4), Q(1, 4), False): (18, (Q(1, 8), Q(1, 8)))}
    h, asked, searched = _scripted(monkeypatch, table, grid=(25, (Q(1, 2), Q(1, 2))))
    assert searched == ([20] if search else []) and h.count == (25 if search else 20)


# ------------------------------------------------------------------------------------------
# the set-up: the runs, their constants and the couplings, on a network written by hand
# ------------------------------------------------------------------------------------------
DELTA_S, TAU_S = Q(1, 4096), Q(1, 1024)
# symbol 0 resets (S_0[K,K] = b g^T, b = (1, 0), g = (1, 1)) to state 0; symbol 1 swaps the kept
# coordinates and the two states; F_a = S_a plus the blocks below (K = (0, 1), D = (2,))
SETUP_S = [[[1, 1, 0], [0, 0, 0], [0, 0, 0]], [[0, 1, 0], [1, 0, 0], [0, 0, 0]]]
SETUP_F = [[[1 + Q(1, 64), 1, 0], [0, Q(1, 32), Q(1, 8)], [Q(1, 16), 0, Q(1, 4)]],
           [[Q(1, 128), 1 + Q(1, 256), Q(1, 64)], [1, 0, 0], [0, Q(1, 32), Q(1, 2)]]]
SETUP_RB = [[1, 0, Q(1, 8)], [0, 1, -Q(1, 8)]]


def _setup_stubs(monkeypatch, S=SETUP_S, delta=((0, 0), (1, 0)), labels=(0, 1), pairs=((0, (1, 0)), (1, (0, 1))),
                 orbit=True, ingredients=True, F=SETUP_F, Rb=SETUP_RB, K=(0, 1)):
    """``_setup``'s arguments for the network above, with Theorem 19's orbit and ingredients stubbed
    (the orbit's pairs given; the float matrices, readout and rounding of the table above)."""
    import bilinear.constructions.horizon.horizon_projective as hp
    from bilinear.automata.automaton import Automaton
    from bilinear.constructions.exact.balls import arb_matrix

    A = np.array([[[Q(x) for x in row] for row in M] for M in S], dtype=object)
    D = [j for j in range(len(S[0])) if j not in K]
    snap = SimpleNamespace(block_weights=SimpleNamespace(A=A, n_symbols=len(S)), kept_coords=tuple(K),
                           blocks=(tuple(K), tuple(D)), kept=(0,))
    st = SimpleNamespace(K=list(K), D=D, F=[arb_matrix(M) for M in F], S=[arb_matrix(M) for M in A],
                         delta=arb(DELTA_S), Rb=arb_matrix(Rb))
    c = SimpleNamespace(tau=arb(TAU_S))
    monkeypatch.setattr(hp, "exact_orbit", lambda snap_, a, limit: SimpleNamespace(pairs=list(pairs)) if orbit else None)
    monkeypatch.setattr(hp, "orbit_ingredients",
                        lambda w, snap_, orb, a, ro: (c, st) if ingredients else (None, "Theorem 19 refuses"))
    return SimpleNamespace(dim=len(S[0])), snap, Automaton([list(r) for r in delta], labels=list(labels)), c, st


def _f(x) -> float:
    return float(x.mid())


def test_setup_builds_the_runs_and_couplings_of_the_theorem_by_hand(monkeypatch):
    """One start run and one restart run, each over the two pairs (0, e1), (1, e2) (the swap's
    closure; the reset sends both to (0, e1)): Y = 1; eta, xi the swap's drift and leak at the
    states (1/128 at e1, 1/32 at e2, plus delta); the readout pairs (margin 1, ||L_K|| = sqrt 2,
    ||L_D|| = 1/4) per label; the reset's exits at each state (|g.z| = 1, ||g|| = sqrt 2); the
    product norm of the swap's group 1; the couplings over the swap, and over the reset at exits."""
    from bilinear.constructions.horizon.horizon_projective import _setup

    w, snap, aut, c, st = _setup_stubs(monkeypatch)
    with precision():
        (starts, restarts, cm, c_, st_), why = _setup(w, snap, aut, None)
        assert why == "" and c_ is c and st_ is st and len(starts) == len(restarts) == 1
        d = float(DELTA_S)
        r2 = 2 ** 0.5
        for run in starts + restarts:
            assert [_f(x) for x in (run.n, run.ymax)] == pytest.approx([1, 1], rel=1e-12)
            assert [_f(run.eta), _f(run.xi)] == pytest.approx([1 / 128 + d, 1 / 32 + d], rel=1e-12)
            assert [[_f(x) for x in p] for p in run.pairs] == [pytest.approx([1, r2, 0.25], rel=1e-12)] * 2
            assert [[_f(x) for x in e] for e in run.exits] == [pytest.approx([1 / 64 + d, 1 / 16 + d, 1, r2], rel=1e-12),
                                                             pytest.approx([1 / 32 + d, d, 1, r2], rel=1e-12)]
        assert [_f(x) for x in (cm.eps, cm.gamma, cm.beta, cm.rho, cm.tau)] == pytest.approx(
            [(1 / 128 ** 2 + 1 / 256 ** 2) ** 0.5 + d, 1 / 64 + d, 1 / 32 + d, 1 / 2 + d, float(TAU_S)], rel=1e-12)
        assert [_f(x) for x in cm.exit] == pytest.approx([1 / 32 + d, 1 / 8 + d, 1 / 16 + d, 1 / 4 + d], rel=1e-12)


def test_setup_refusals_say_why(monkeypatch):
    """No rank-one symbol; no finite orbit; Theorem 19's ingredients refused; a reset sending a
    reachable state to 0; the non-resetting symbols' products or closures past MAX_PRODUCTS (one
    closure alone too large: the restart pair's, or the start pair's)."""
    import bilinear.constructions.horizon.horizon_projective as hp
    from bilinear.constructions.horizon import horizon_orbit

    def why(**kw):
        with precision():
            got, reason = hp._setup(*_setup_stubs(monkeypatch, **kw)[:3], None)
        assert got is None
        return reason

    full = [[[1, 0, 0], [0, 1, 0], [0, 0, 0]], SETUP_S[1]]
    assert why(S=full) == "no symbol's snapped matrix has rank one (Theorem 23 needs a resetting symbol)"
    assert why(orbit=False) == (f"the snapped matrices generate more than {horizon_orbit.MAX_PRODUCTS} products or "
                                "reachable states")
    assert why(ingredients=False) == "Theorem 19 refuses"
    assert why(pairs=[(0, (1, -1))]) == "a reset sends a reachable snapped state to 0"
    monkeypatch.setattr(horizon_orbit, "MAX_PRODUCTS", 1)
    assert why() == "the non-resetting symbols generate more than 1 products"
    # symbol 1 the identity on K: state 0 fixed, states 1 and 2 swapped; the reset goes to state 1 or 0
    ident = [SETUP_S[0], [[1, 0, 0], [0, 1, 0], [0, 0, 0]]]
    reach = "the non-resetting symbols reach more than 1 states from one"
    assert why(S=ident, delta=((1, 1, 1), (0, 2, 1)), labels=(0, 1, 1), pairs=[(0, (1, 0))]) == reach
    assert why(S=ident, delta=((0, 0, 0), (0, 2, 1)), labels=(0, 1, 1), pairs=[(1, (1, 0))]) == reach
    assert hp._setup(*_setup_stubs(monkeypatch, S=ident, delta=((0, 0, 0), (0, 2, 1)), labels=(0, 1, 1),
                                   pairs=[(0, (1, 0))])[:3], None)[1] == ""


def test_run_constants_of_short_states_without_dropped_coordinates():
    """States of norm 1/2 and 1/4 (Y = 1/2, not 1), no dropped coordinates (no leak: xi and every
    exit's leak exactly 0, no delta added), two labels' margins the smallest over their states;
    written out by hand: the drift of symbol 0 is (1/4) z_1 on e1 and (1/8) z_2 on e2."""
    from bilinear.constructions.horizon.horizon_projective import _matrices, _run
    from bilinear.constructions.exact.balls import arb_matrix

    F = [arb_matrix([[Q(5, 4), 0], [0, Q(1, 8)]]), arb_matrix([[2, 2], [0, 0]])]
    S = [arb_matrix([[1, 0], [0, 0]]), arb_matrix([[2, 2], [0, 0]])]
    states = [(0, (Q(1, 2), 0)), (1, (0, Q(1, 4))), (0, (Q(1, 4), 0))]
    diffs = {0: {1: ([arb(1), arb(-1)], arb(3), arb(0))}, 1: {0: ([arb(-1), arb(1)], arb(3), arb(0))}}
    d = Q(1, 64)
    with precision():
        mats = _matrices(F, S, [0, 1], [])
        assert [m[1] for m in mats] == [None, None]
        run = _run(states, [0, 1], mats, {1: ((1, 0), (2, 2))}, [0], arb(d), diffs, arb(Q(3, 2)))
        assert _q(run.ymax) == Q(1, 2) and _q(run.n) == Q(3, 2) and _q(run.xi) == 0
        assert _q(run.eta) == max(Q(1, 4) * Q(1, 2) + d * Q(1, 2), Q(1, 8) * Q(1, 4) + d * Q(1, 4))
        assert [tuple(_q(x) for x in p) for p in run.pairs] == [(Q(1, 4), 3, 0), (Q(1, 4), 3, 0)]
        assert [(_q(e[0]), _q(e[1]), _q(e[2])) for e in run.exits] == [(d * Q(1, 2), 0, 1), (d * Q(1, 4), 0, Q(1, 2)),
                                                                       (d * Q(1, 4), 0, Q(1, 2))]


def test_setup_product_norm_counts_the_identity(monkeypatch):
    """One kept coordinate: symbol 0 resets (1 on K), symbol 1 is 0 on K (not rank one: not a reset),
    so the non-resetting products are {1, 0} (the identity, the empty word, included): N_0 = 1."""
    from bilinear.constructions.horizon.horizon_projective import _setup

    S = [[[1, 0], [0, 0]], [[0, 0], [0, 0]]]
    F = [[[1, 0], [0, Q(1, 2)]], [[Q(1, 16), 0], [0, Q(1, 2)]]]
    args = _setup_stubs(monkeypatch, S=S, F=F, Rb=[[1, 0], [-1, 0]], K=(0,), delta=((0,), (0,)), labels=(0,),
                        pairs=[(0, (1,))])
    with precision():
        (starts, restarts, cm, _, _), why = _setup(*args[:3], None)
    assert why == "" and [_q(r.n) for r in starts + restarts] == [1, 1]


@pytest.mark.parametrize("first,gn,want", [
    (0, 0, [(Q(3, 16), Q(1, 32))]),                                          # the readout fails at k = 1
    (1, 0, [(Q(3, 16), Q(1, 32))]),
    (2, 0, [(Q(3, 16), Q(1, 32)), (Q(5, 16), Q(1, 32))]),                     # k = 1 not checked, k = 2 fails
    (3, 0, [(Q(3, 16), Q(1, 32)), (Q(5, 16), Q(1, 32)), (Q(7, 16), Q(1, 32))]),  # the limit ends it
    (3, 2, [(Q(3, 8), Q(1, 16))]),                                             # |g.z| - 2 U = 0 at k = 1
])
def test_trace_is_the_demands_while_the_readout_holds_from_first_on(first, gn, want):
    """N_0 = 1, eta = 1/4, no other coupling in the run, u_0 = 1/4: U_k = 1/4, 1/2, 3/4; the readout
    margin 1/2 - U_k is positive at k = 0 only (exactly 0 at k = 1); the exit (1/16, 1/32, 1, gn) with
    eps = 1/2 at a reset demands ((1/16 + U_k / 2) / (1 - gn U_k), (1/32) / (1 - gn U_k))."""
    from bilinear.constructions.horizon.horizon_projective import _Common, _Run, _trace

    run = _Run(arb(1), arb(1), arb(Q(1, 4)), arb(0), ((arb(Q(1, 2)), arb(1), arb(0)),),
               ((arb(Q(1, 16)), arb(Q(1, 32)), arb(1), arb(gn)),))
    cm = _Common(*(arb(0),) * 5, exit=(arb(Q(1, 2)), arb(0), arb(0), arb(0)))
    with precision():
        got = _trace(run, cm, arb(Q(1, 4)), arb(0), first, 2)
        assert [(_q(a), _q(b)) for a, b in got] == want

"""The block-wise horizon (Theorem 16 block by block, docs/theory.md Section 6) on the pieces its
own tests reach only through whole networks: the block norms, the block-diagonal check, the pair
and difference norms of the readout, one rounded step, and the recurrence with blocks that grow
(sigma > 1, theta > 1) past STEPPED.

Every expected value is worked out here by hand, or by stepping the theorem's recurrence in
Fractions (:func:`_direct`)."""

from __future__ import annotations

import dataclasses
import math
from fractions import Fraction as Fr

import flint
import numpy as np
import pytest

from bilinear.automata import Automaton
from bilinear.constructions.exact.balls import arb, arb_matrix, precision
from bilinear.constructions.horizon import horizon_blocks as hb
from bilinear.constructions.horizon.horizon_base import STEPPED
from bilinear.constructions.horizon.roundoff import RoundOff


def _f(x: flint.arb) -> float:
    return float(x.mid())


def test_block_norms_by_hand():
    """|x| of a 1x1 block; ||[[3, 0], [4, 0]]|| = 5, ||[[1, 1], [0, 1]]|| = the golden ratio;
    the Frobenius norm of |M| and products of balls (1 for none)."""
    with precision():
        assert hb._norm(arb_matrix([[-0.75]])) == arb(Fr(3, 4))
        assert abs(_f(hb._norm(arb_matrix([[3, 0], [4, 0]]))) - 5) < 1e-30
        assert abs(_f(hb._norm(arb_matrix([[1, 1], [0, 1]]))) - (1 + math.sqrt(5)) / 2) < 1e-15
        assert abs(_f(hb._fro(arb_matrix([[3, 4], [0, 12]]))) - 13) < 1e-30
        assert _f(hb._prod([arb(2), arb(3), arb(Fr(1, 2))])) == 3 and _f(hb._prod([])) == 1
        sub = hb._sub(arb_matrix([[1, 2, 3], [4, 5, 6], [7, 8, 9]]), (0, 2))
        assert [[_f(sub[i, j]) for j in range(2)] for i in range(2)] == [[1, 3], [7, 9]]


def test_block_diagonal_check():
    """Blocks (0, 1), (2,): an entry at (1, 0) is inside a block, one at (2, 0) or (0, 2) is not."""
    blocks = ((0, 1), (2,))
    A = np.zeros((2, 3, 3))
    A[0, 1, 0], A[1, 2, 2] = 1.0, 2.0
    assert hb._is_block_diagonal(A, blocks)
    for where in [(1, 2, 0), (0, 0, 2)]:
        B = A.copy()
        B[where] = 1e-300
        assert not hb._is_block_diagonal(B, blocks)


def test_readout_pair_and_difference_norms_over_the_reachable_labels():
    """Labels 0 and 1 only; class 2 (never a label) has the largest row.  On block (0, 1):
    rows (3, 4), (0, 1), (6, 8) of norms 5, 1, 10: the largest ||R_l|| + ||R_c|| over l in {0, 1},
    c != l is 5 + 10 = 15; the largest ||R_l - R_c|| is |(3, 4) - (6, 8)| = 5 or |(0, 1) - (6, 8)|
    = sqrt(85)."""
    aut = Automaton([[1, 0]], start=0, labels=[0, 1])
    R = arb_matrix([[3, 4, 0], [0, 1, 0], [6, 8, 1]])
    with precision():
        assert _f(hb._pair_norm(R, aut, (0, 1))) == 15
        assert abs(_f(hb._diff_norm(R, aut, (0, 1))) - math.sqrt(85)) < 1e-15
        assert _f(hb._pair_norm(R, aut, (2,))) == 1 and _f(hb._diff_norm(R, aut, (2,))) == 1


def test_one_rounded_step():
    """x = (1, -2) through M = [[1, 2], [-3, 4]]: M x = (-3, -11); with step 2^-4 and underflow
    2^-8 the box around coordinate j has radius 2^-4 (|M| |x|)_j + 2^-8 ||M||_F (|x_0| + |x_1|):
    (|M| |x|) = (5, 11), ||M||_F = sqrt 30."""
    ro = dataclasses.replace(RoundOff.of("float64", 2), step=arb(Fr(1, 16)), underflow=arb(Fr(1, 256)))
    with precision():
        M = arb_matrix([[1, 2], [-3, 4]])
        absM = arb_matrix([[1, 2], [3, 4]])
        x = [arb(1), arb(-2)]
        exact = hb._step(M, absM, hb._fro(absM), x, RoundOff.of("real", 2))
        assert [_f(t) for t in exact] == [-3, -11] and all(t.rad() == 0 for t in exact)
        out = hb._step(M, absM, hb._fro(absM), x, ro)
    for t, mid, spread in zip(out, (-3, -11), (5, 11)):
        want = spread / 16 + 3 * math.sqrt(30) / 256
        assert _f(t) == mid and want <= _f(flint.arb(t.rad())) <= want * (1 + 1e-8)


def _direct(eps, sig, margin, lip, weight, u, r, theta, s, limit):
    """The block-wise recurrence stepped in Fractions from depth s: the largest T <= limit with
    ``min_i (m_i - L_i u_{t,i}) / p_i > sum_j L_j r_{t,j}`` at every s <= t <= T
    (``u_{t+1,i} = sigma_i u_{t,i} + eps_i``, ``r_{t+1,j} = theta_j r_{t,j}``); s - 1 when it fails at s."""
    for t in range(s, limit + 1):
        slack = min((margin[i] - lip[i] * u[i]) / weight[i] for i in u)
        if not slack > sum((lip[j] * r[j] for j in r), Fr(0)):
            return t - 1
        u = {i: sig[i] * u[i] + eps[i] for i in u}
        r = {j: theta[j] * r[j] for j in r}
    return limit


def _run(eps, sig, margin, lip, weight, u, r, theta, s=0):
    A = lambda d: {k: arb(v) for k, v in d.items()}  # noqa: E731
    with precision():
        return hb._run_bound(list(u), list(r), A(eps), A(sig), A(margin), A(lip), A(weight), A(u), A(r), A(theta), s)


#: one good block (weight 1, margin 1, L 1) and one other block (L 1)
RUNS = [
    # sigma > 1: u_t = eps (sigma^t - 1) / (sigma - 1), failing past STEPPED
    dict(eps=Fr(1, 2 ** 20), sig=1 + Fr(1, 128), r0=Fr(0), theta=Fr(1, 2)),
    # theta > 1: r_t = r_0 theta^t, failing past STEPPED
    dict(eps=Fr(0), sig=Fr(1), r0=Fr(1, 2 ** 20), theta=1 + Fr(1, 64)),
    # both, failing inside the stepped part
    dict(eps=Fr(1, 2 ** 10), sig=1 + Fr(1, 16), r0=Fr(1, 2 ** 10), theta=1 + Fr(1, 8)),
    # sigma = 1, theta = 1: linear growth u_t = t eps past STEPPED, r constant (u_t < 3/4 up to 749)
    dict(eps=Fr(1, 1000), sig=Fr(1), r0=Fr(1, 4), theta=Fr(1)),
    # u_t = t / 256 reaches the margin 1 exactly at t = STEPPED: the last stepped check decides (255)
    dict(eps=Fr(1, 256), sig=Fr(1), r0=Fr(0), theta=Fr(1)),
    # u_t = t / 257: the first step of the closed form fails (256, not 257)
    dict(eps=Fr(1, 257), sig=Fr(1), r0=Fr(0), theta=Fr(1)),
    # sigma > 1 with eps / (sigma - 1) = 1/4: u_t = (sigma^t - 1) / 4 < 1 while sigma^t < 5 (t <= 1648)
    dict(eps=Fr(1, 2 ** 12), sig=1 + Fr(1, 1024), r0=Fr(0), theta=Fr(1, 2)),
]


@pytest.mark.parametrize("case", RUNS)
def test_block_wise_recurrence_with_growing_blocks(case):
    args = ({0: case["eps"]}, {0: case["sig"]}, {0: Fr(1)}, {0: Fr(1), 1: Fr(1)}, {0: Fr(1)}, {0: Fr(0)},
            {1: case["r0"]}, {1: case["theta"]})
    truth = _direct(*args, 0, 5000)
    got = _run(*args)
    assert truth < 5000
    if truth < STEPPED or case["sig"] == case["theta"] == 1:
        assert got == truth  # the stepped part is exact, and so is u + k eps (sigma = 1, theta = 1)
    else:
        assert truth - 2 <= got <= truth  # the closed forms are the recurrence itself, up to rounding


def test_block_constants_by_hand():
    """Block (0, 1) snapped to the quarter turn S = [[0, -1], [1, 0]]: the float block 2 S + e I
    (e I orthogonal to S) has the least-squares scale c = <A, S> / |S|^2 = 2, N = S + (e/2) I with
    sigma = |i + e/2| = sqrt(1 + e^2 / 4) and eps = e / 2; symbol 1's block 3 S: c = 3, N = S.
    A scale that is 0 (a zero block, or a zero snapped block) or negative (-S) is refused."""
    e = 2.0 ** -6
    Sq = np.array([[0.0, -1.0], [1.0, 0.0]])
    g = (0, 1)

    def constants(A0, A1, S1=Sq):
        Af = np.stack([np.pad(A0, ((0, 1), (0, 1))), np.pad(A1, ((0, 1), (0, 1)))])
        Sf = np.stack([np.pad(Sq, ((0, 1), (0, 1))), np.pad(S1, ((0, 1), (0, 1)))])
        with precision():
            return hb._block_constants([arb_matrix(M) for M in Af], [arb_matrix(M) for M in Sf], Sf, Af, g)

    cs, sig, eps = constants(2 * Sq + e * np.eye(2), 3 * Sq)
    assert [_f(c) for c in cs] == [2, 3]
    assert math.sqrt(1 + e * e / 4) <= _f(sig) <= math.sqrt(1 + e * e / 4) * (1 + 1e-15)
    assert e / 2 <= _f(eps) <= e / 2 * (1 + 1e-15)
    assert constants(2 * Sq, np.zeros((2, 2))) is None
    assert constants(2 * Sq, -Sq) is None
    assert constants(2 * Sq, 3 * Sq, S1=np.zeros((2, 2))) is None


@dataclasses.dataclass
class _Proof:
    """The two things _block_margins reads of a proof: the hidden vectors and the state map."""

    vectors: list
    state_map: list

    def hidden_vectors(self):
        return self.vectors


def test_block_margins_by_hand():
    """Two states labelled 0 and 1 with hidden vectors (3, 4 | 1) and (0, -2 | 1), readout rows
    R_0 = (1, 0 | 1), R_1 = (0, 1 | 0).  Block (0, 1): (R_0 - R_1) . (3, 4) / 5 = -1/5 and
    (R_1 - R_0) . (0, -2) / 2 = -1: m = -1, L = sqrt 2.  Block (2,): 1 and -1 (m = -1), L = 1.
    A state whose vector vanishes on the block: no margin (None).  R / 4: m = -1/4, L = 1/4."""
    aut = Automaton([[1, 0]], start=0, labels=[0, 1])
    R = arb_matrix([[1, 0, 1], [0, 1, 0]])
    proof = _Proof([(3, 4, 1), (0, -2, 1)], [[0], [1]])
    with precision():
        m, L = hb._block_margins(proof, aut, R, (0, 1))
        assert _f(m) == -1 and abs(_f(L) - math.sqrt(2)) < 1e-15
        m, L = hb._block_margins(proof, aut, R, (2,))
        assert _f(m) == -1 and _f(L) == 1
        m, L = hb._block_margins(_Proof([(3, 4, 1), (0, 0, 1)], [[0], [1]]), aut, R, (0, 1))
        assert m is None
        m, L = hb._block_margins(proof, aut, arb_matrix([[0.25, 0, 0.25], [0, 0.25, 0]]), (2,))  # R / 4
        assert _f(m) == -0.25 and _f(L) == 0.25


def test_block_wise_bound_applies_only_to_block_diagonal_isometric_snaps_of_small_blocks():
    """Z_2 on one symbol, float diag(-1, 1/2) snapped to diag(-1, 0) with blocks (0,), (1,): a
    horizon.  None with a basis P, a snap that is no isometry, an off-block float entry, or one
    block of both coordinates (2x2 allowed) widened to three."""
    from bilinear.constructions import Weights
    from bilinear.constructions.horizon.snap import Snap

    aut = Automaton([[1, 0]], start=0, labels=[0, 1])
    R = [[1.0, 0.0], [-1.0, 0.0]]
    w = Weights("diagonal", [np.diag([-1.0, 0.5])], [1.0, 0.25], R)
    exact = Weights("diagonal", [[[-1, 0], [0, 0]]], [1, 0], [[1, 0], [-1, 0]])
    snap = Snap(exact, ((0,), (1,)), (0,), (), (1.0,), (0.0,), None, "diagonal", "hand", True)
    proof = _Proof([(1, 0), (-1, 0)], [[0], [1]])
    real = RoundOff.of("real", 2)
    h = hb.blockwise_horizon(w, snap, proof, aut, real)
    assert h is not None and h.bound == "block-wise"
    I2 = np.array([[Fr(1), Fr(0)], [Fr(0), Fr(1)]], dtype=object)
    assert hb.blockwise_horizon(w, dataclasses.replace(snap, basis=I2), proof, aut, real) is None
    assert hb.blockwise_horizon(w, dataclasses.replace(snap, isometric=False), proof, aut, real) is None
    off = Weights("full", [[[-1.0, 1e-9], [0.0, 0.5]]], [1.0, 0.25], R)
    assert hb.blockwise_horizon(off, snap, proof, aut, real) is None
    w3 = Weights("diagonal", [np.diag([-1.0, 0.5, 0.5])], [1.0, 0.25, 0.0], [[1.0, 0.0, 0.0], [-1.0, 0.0, 0.0]])
    exact3 = Weights("diagonal", [[[-1, 0, 0], [0, 0, 0], [0, 0, 0]]], [1, 0, 0], [[1, 0, 0], [-1, 0, 0]])
    snap3 = Snap(exact3, ((0,), (1, 2)), (0,), (), (1.0,), (0.0,), None, "diagonal", "hand", True)
    assert hb.blockwise_horizon(w3, snap3, _Proof([(1, 0, 0), (-1, 0, 0)], [[0], [1]]), aut, real) is not None
    snap3 = dataclasses.replace(snap3, blocks=((0, 1, 2),))
    assert hb.blockwise_horizon(w3, snap3, _Proof([(1, 0, 0), (-1, 0, 0)], [[0], [1]]), aut, real) is None


# ------------------------------------------------------------------------------------------
# the exhaustive levels
# ------------------------------------------------------------------------------------------
Z2 = Automaton([[1, 0]], start=0, labels=[0, 1])


def _levels(diag, R, ro, x0=(1, Fr(1, 4)), automaton=Z2, max_nodes=hb.MAX_NODES):
    """_levels on the one-symbol network diag(``diag``) (snapped to diag(-1, 0)) from ``x0``."""
    k = automaton.delta.shape[0]
    with precision():
        F = [arb_matrix(np.diag([float(x) for x in diag]))] * k
        S = [arb_matrix([[-1, 0], [0, 0]])] * k
        return hb._levels(automaton, F, S, [arb(x) for x in x0], [arb(1), arb(0)], arb_matrix(R), ro, max_nodes)


def test_levels_fail_at_the_first_wrong_word():
    """x_t = ((-1)^t, (1/4) (3/2)^t) read by R_0 = (1, 1/2), R_1 = (-1, 0): at odd t (label 1) the
    margin is 2 - (1/8) (3/2)^t, positive at t = 5 (2 - 0.949), negative at t = 7 (2 - 2.136).
    With R_0 = (1, 1/4) and diag(-1, 2) the margin at t = 5 is 2 - 2^5 / 16 = 0 exactly: a tie is
    wrong."""
    real = RoundOff.of("real", 2)
    s, level, failed = _levels((-1, Fr(3, 2)), [[1, 0.5], [-1, 0]], real)
    assert (s, level, failed) == (7, None, 7)
    s, level, failed = _levels((-1, 2), [[1, 0.25], [-1, 0]], real)
    assert (s, level, failed) == (5, None, 5)


@pytest.mark.parametrize("readout, under, first", [(Fr(1, 4), Fr(3, 8), 5), (Fr(3, 4), 0, 3)])
def test_levels_charge_the_readout_rounding(readout, under, first):
    """The same network with readout rounding rho_r and readout underflow rho_u (step rounding 0):
    a margin must exceed rho_r (|R_l| + |R_c|) . |x| + rho_u r_max (|x_0| + |x_1|), r_max = |R_0| =
    sqrt(5) / 2; the first t where it does not, computed here: 5 for (1/4, 3/8), where the
    underflow decides, and 3 for (3/4, 0), where |R_0| + |R_1| = (2, 1/2) on |x| decides."""
    ro = dataclasses.replace(RoundOff.of("float64", 2), step=arb(0), underflow=arb(0), readout=arb(readout),
                             readout_underflow=arb(under))
    R = np.array([[1, 0.5], [-1, 0]])
    rmax = max(np.linalg.norm(r) for r in R)

    def right(t):
        x = np.array([(-1) ** t, 0.25 * 1.5 ** t])
        lab = t % 2
        margin = (R[lab] - R[1 - lab]) @ x
        spread = (np.abs(R[lab]) + np.abs(R[1 - lab])) @ np.abs(x)
        return margin - float(readout) * spread - float(under) * rmax * np.abs(x).sum() > 0

    assert next(t for t in range(40) if not right(t)) == first
    assert _levels((-1, Fr(3, 2)), R.tolist(), ro) == (first, None, first)


def test_levels_stop_at_the_node_limit_or_the_depth_limit():
    """Never failing (diag(-1, 1/2)): one symbol runs to MAX_EXHAUSTIVE_DEPTH; two symbols with a
    limit of 8 words stop at depth 3 (8 words, whose 16 successors pass the limit), every word of
    length 3 in the level, its state diag(-1, 1/2)^3 x0."""
    real = RoundOff.of("real", 2)
    s, level, failed = _levels((-1, Fr(1, 2)), [[1, 0], [-1, 0]], real)
    assert (s, failed, len(level)) == (hb.MAX_EXHAUSTIVE_DEPTH, None, 1)
    two = Automaton([[1, 0], [1, 0]], start=0, labels=[0, 1])
    s, level, failed = _levels((-1, Fr(1, 2)), [[1, 0], [-1, 0]], real, automaton=two, max_nodes=8)
    assert (s, failed, len(level)) == (3, None, 8)
    assert sorted(w for _, _, w, _ in level) == [(a, b, c) for a in (0, 1) for b in (0, 1) for c in (0, 1)]
    assert all([_f(t) for t in x] == [-1, 1 / 32] and q == 1 for x, _, _, q in level)


def test_block_wise_readout_condition_is_strict():
    """margin 1, L 1, u = 1/2 against L_j r_j = 1/2 at the exhaustive depth 4: a tie, so the
    recurrence certifies nothing past the depth (whose words the exhaustive run proved: the length
    is 4); nothing grows, so with r = 1/4 instead every length is."""
    args = ({0: Fr(0)}, {0: Fr(1)}, {0: Fr(1)}, {0: Fr(1), 1: Fr(1)}, {0: Fr(1)}, {0: Fr(1, 2)}, {1: Fr(1, 2)},
            {1: Fr(1)})
    assert _direct(*args, 4, 1000) == 3
    assert _run(*args, s=4) == 4
    assert _run(*args[:5], {0: Fr(1, 2)}, {1: Fr(1, 4)}, args[7], s=4) == hb.CAP


@pytest.mark.parametrize("K", [2 ** 59, 3 ** 37 + 2 ** 40, 8 * 10 ** 17, hb.CAP - 10 ** 6, hb.CAP + 100,
                               hb.CAP + 10 ** 6])
def test_block_wise_closed_form_is_exact_up_to_cap(K):
    """u_t = t / K against the margin 1 (sigma = 1, nothing else): the words are right up to
    K - 1 exactly, whatever the gallop's powers of two, and CAP is reported only for K > CAP.
    (The gallop once returned CAP as soon as it passed CAP, without checking CAP: 8e17 was
    reported as 10^18.)"""
    args = ({0: Fr(1, K)}, {0: Fr(1)}, {0: Fr(1)}, {0: Fr(1), 1: Fr(1)}, {0: Fr(1)}, {0: Fr(0)}, {1: Fr(0)},
            {1: Fr(1)})
    assert _run(*args) == min(K - 1, hb.CAP)


def test_block_wise_closed_form_holds_a_decaying_block_at_its_stepped_value():
    """theta = 1023/1024 < 1: the closed form does not credit the decay past STEPPED (r stays
    r_256 = (1/4) theta^256), so with u_t = t / 1000 the length is the largest t with
    1 - t / 1000 > r_256 (805), below the recurrence's own (895)."""
    theta, r0 = Fr(1023, 1024), Fr(1, 4)
    args = ({0: Fr(1, 1000)}, {0: Fr(1)}, {0: Fr(1)}, {0: Fr(1), 1: Fr(1)}, {0: Fr(1)}, {0: Fr(0)}, {1: r0},
            {1: theta})
    r256 = r0 * theta ** 256
    want = math.ceil(1000 * (1 - r256)) - 1
    assert 1 - Fr(want, 1000) > r256 >= 1 - Fr(want + 1, 1000) and want == 805
    assert _run(*args) == want < _direct(*args, 0, 2000)


# ------------------------------------------------------------------------------------------
# the start of the recurrence, the per-block constants with rounding, a whole network
# ------------------------------------------------------------------------------------------
def test_start_errors_of_the_last_level():
    """One word (0,) of the last level: x = (-5/4, 1/8) against y = (-1, 0), block 0 good with
    scale c = 5/4 (w = 5/4, y norm 1): u_0 = |x_0 / w - y_0| = 0; block 1 other: W = 5/4,
    r_1 = (1/8) / (5/4) = 1/10."""
    with precision():
        level = [([arb(Fr(-5, 4)), arb(Fr(1, 8))], [arb(-1), arb(0)], (0,), 1)]
        u, r = hb._start(level, ((0,), (1,)), [0], [1], {0: [arb(Fr(5, 4))]}, {0: arb(1)}, {0: arb(1)}, {0: arb(1)})
        assert u[0] == 0 and abs(_f(r[1]) - 0.1) < 1e-30


def _diagonal_case(R):
    from bilinear.constructions import Weights
    from bilinear.constructions.horizon.snap import Snap

    w = Weights("diagonal", [np.diag([-1.0, 0.5])], [1.0, 0.25], R)
    exact = Weights("diagonal", [[[-1, 0], [0, 0]]], [1, 0], [[1, 0], [-1, 0]])
    snap = Snap(exact, ((0,), (1,)), (0,), (), (1.0,), (0.0,), None, "diagonal", "hand", True)
    return w, snap, _Proof([(1, 0), (-1, 0)], [[0], [1]])


def test_per_block_constants_charge_every_rounding_term():
    """diag(-1, 1/2) snapped to diag(-1, 0), readout R_0 = (1, 1/2), R_1 = (-1, 0); step 2^-4,
    underflow 2^-8, readout 2^-5, readout underflow 2^-7.  Per step an underflow of
    sqrt(d) 2^-8 ||A||_F = 2^-8 sqrt(5/2) (d = 2); r_max = |R_0| = sqrt(5)/2.  Block 0: tau =
    2^-5 (1 + 1) + 2^-7 r_max, L = 2 + tau, growth 1 + 2^-4 + under, margin 2 - tau, scale 1,
    sigma = 1 + delta, eps = delta = 2^-4 + under.  Block 1 (dropped): tau = 2^-5 / 2 + 2^-7 r_max,
    L = 1/2 + tau, growth 1/2 + 2^-5 + under.  A readout that ties block 0 (R_1 = (1, 0)): no
    candidate."""
    w, snap, proof = _diagonal_case([[1.0, 0.5], [-1.0, 0.0]])
    ro = dataclasses.replace(RoundOff.of("float64", 2), step=arb(Fr(1, 16)), underflow=arb(Fr(1, 256)),
                             readout=arb(Fr(1, 32)), readout_underflow=arb(Fr(1, 128)))
    under, rmax = math.sqrt(2.5) / 256, math.sqrt(5) / 2
    with precision():
        A = w.float_arrays()[0]
        F, S = [arb_matrix(A[0])], [arb_matrix(snap.block_weights.A[0])]
        cand, lip, growth = hb._per_block(w, snap, proof, Z2, F, S, arb_matrix(w.float_arrays()[2]), ro)
    tau0, tau1 = 2 / 32 + rmax / 128, 0.5 / 32 + rmax / 128
    close = lambda x, want: want <= _f(x) <= want * (1 + 1e-12)  # noqa: E731
    assert set(cand) == {0} and set(lip) == set(growth) == {0, 1}
    m, cs, sig, eps = cand[0]
    assert (2 - tau0) * (1 - 1e-12) <= _f(m) <= 2 - tau0 and [_f(c) for c in cs] == [1.0]
    assert close(sig, 1 + 1 / 16 + under) and close(eps, 1 / 16 + under)
    assert close(lip[0], 2 + tau0) and close(lip[1], 0.5 + tau1)
    assert close(growth[0][0], 1 + 1 / 16 + under) and close(growth[1][0], 0.5 + 0.5 / 16 + under)
    w, snap, proof = _diagonal_case([[1.0, 0.5], [1.0, 0.0]])
    with precision():
        cand, _, _ = hb._per_block(w, snap, proof, Z2, F, S, arb_matrix(w.float_arrays()[2]), RoundOff.of("real", 2))
    assert cand == {}


def test_block_wise_horizon_of_a_failing_network():
    """diag(-1, 3/2) read by R_0 = (1, 1/2), R_1 = (-1, 0) fails at 7 (test_levels...): up to 6;
    R_1 = (3, 0) is wrong on the empty word: no length."""
    from bilinear.constructions import Weights

    _, snap, proof = _diagonal_case([[1.0, 0.5], [-1.0, 0.0]])
    for R, kind, count in [([[1.0, 0.5], [-1.0, 0.0]], "up to", 6), ([[1.0, 0.5], [3.0, 0.0]], "none", 0)]:
        w = Weights("diagonal", [np.diag([-1.0, 1.5])], [1.0, 0.25], R)
        h = hb.blockwise_horizon(w, snap, proof, Z2, RoundOff.of("real", 2))
        assert (h.kind, h.count, h.bound) == (kind, count, "block-wise")
        assert h.note == f"a word of length {count + (kind == 'up to')} is not certified in ball arithmetic"


def test_one_good_set_weighs_its_block_one_and_scales_the_others_by_its_growth():
    """One good block (margin 1, L 1, scale 5/4, sigma 1, eps 1/1000) and one other block growing
    by (5/4)(65/64) a step: its weight p = 1 and g_a = 5/4, so theta = 65/64 and, from the level of
    the start test (u = 0, r = 1/10 at depth 1), the recurrence of depth 1 fails where
    1 - (t - 1) / 1000 <= (1/10) (65/64)^(t - 1)."""
    with precision():
        level = [([arb(Fr(-5, 4)), arb(Fr(1, 8))], [arb(-1), arb(0)], (0,), 1)]
        cand = {0: (arb(1), [arb(Fr(5, 4))], arb(1), arb(Fr(1, 1000)))}
        growth = {1: [arb(Fr(5, 4) * Fr(65, 64))]}
        got = hb._try_set([0], [1], cand, {0: cand[0][1]}, {0: arb(1), 1: arb(1)}, growth, level, ((0,), (1,)),
                          {0: arb(1)}, {0: arb(1)}, 1, 1)
    truth = _direct({0: Fr(1, 1000)}, {0: Fr(1)}, {0: Fr(1)}, {0: Fr(1), 1: Fr(1)}, {0: Fr(1)}, {0: Fr(0)},
                    {1: Fr(1, 10)}, {1: Fr(65, 64)}, 1, 1000)
    assert 100 < truth < STEPPED and truth - 1 <= got <= truth


def test_two_blocks_that_classify_alone_keep_the_smaller_set_on_a_tie():
    """diag(-1, -1) read by R_0 = (1, 1), R_1 = (-1, -1) from (1, 2^-10), both blocks kept: each
    classifies alone (normalised margin 2).  With block 0 alone, block 1 weighs L r = 2 x 2^-10 < 2
    and never grows (theta = 1): every length, as with both; on that tie the first set (one block)
    is kept."""
    from bilinear.constructions import Weights
    from bilinear.constructions.horizon.snap import Snap

    R = [[1.0, 1.0], [-1.0, -1.0]]
    w = Weights("diagonal", [np.diag([-1.0, -1.0])], [1.0, 2.0 ** -10], R)
    exact = Weights("diagonal", [[[-1, 0], [0, -1]]], [1, Fr(1, 1024)], [[1, 1], [-1, -1]])
    snap = Snap(exact, ((0,), (1,)), (0, 1), (), (1.0,), (0.0,), None, "diagonal", "hand", True)
    h = hb.blockwise_horizon(w, snap, _Proof([(1, Fr(1, 1024)), (-1, Fr(-1, 1024))], [[0], [1]]), Z2, RoundOff.of("real", 2))
    assert h.count == hb.CAP and h.note.startswith("block-wise bound on 1 of 2 blocks")
    assert h.constants == {"epsilon": 0.0, "margin": 2.0, "lipschitz_kept": 2.0, "lipschitz_dropped": 2.0}
    # a float start 0 on block 0 (its weight w0 = x0 . y0 / |y0|^2 = 0): block 0 is no candidate, and
    # block 1 alone (margin 2 x 2^-10 > 0 at every length, block 0 staying 0) gives every length
    w = Weights("diagonal", [np.diag([-1.0, -1.0])], [0.0, 2.0 ** -10], R)
    h = hb.blockwise_horizon(w, snap, _Proof([(1, Fr(1, 1024)), (-1, Fr(-1, 1024))], [[0], [1]]), Z2,
                             RoundOff.of("real", 2))
    assert h.count == hb.CAP and h.note.startswith("block-wise bound on 1 of 2 blocks")


@pytest.mark.parametrize("start, under, first", [(0, Fr(1, 3), 5), (Fr(1, 4), Fr(5, 16), 3)])
def test_block_wise_start_ball_charges_the_start_underflow_on_the_start_norm(start, under, first):
    """diag(-1, 3/2) read by (1, 1/2), (-1, 0) from h0 = (1, 1/4) with only start rounding:
    start coordinate j gets a ball of radius r_j = start |h0_j| + under |h0| (|h0| = sqrt(17) / 4);
    the margin's lower end at t is 2 (1 - r_0) -+ (1/2) (1/4 +- r_1) (3/2)^t (- at odd t, label 1),
    first negative (computed here) at 5 for (0, 1/3) and at 3 for (1/4, 5/16)."""
    from bilinear.constructions import Weights

    _, snap, proof = _diagonal_case([[1.0, 0.5], [-1.0, 0.0]])
    zero = {k: arb(0) for k in ("step", "readout", "underflow", "readout_underflow")}
    ro = dataclasses.replace(RoundOff.of("float64", 2), **zero, start=arb(start), start_underflow=arb(under))
    r0, r1 = (float(start) * x + float(under) * math.sqrt(17) / 4 for x in (1, 0.25))

    def right(t):
        p = 1.5 ** t
        return 2 * (1 - r0) - 0.5 * (0.25 + r1) * p > 0 if t % 2 else 2 * (1 - r0) + 0.5 * (0.25 - r1) * p > 0

    assert next(t for t in range(40) if not right(t)) == first
    w = Weights("diagonal", [np.diag([-1.0, 1.5])], [1.0, 0.25], [[1.0, 0.5], [-1.0, 0.0]])
    h = hb.blockwise_horizon(w, snap, proof, Z2, ro)
    assert (h.kind, h.count) == ("up to", first - 1)

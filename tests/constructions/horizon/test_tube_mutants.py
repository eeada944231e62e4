"""Theorem 17 (docs/theory.md Section 7), the invariant tube, on small networks built by hand: each
quantity of its conditions (the image's alpha, z, n, b per pair and symbol, the margins m - k r,
the start's radius r0) worked out here from the theorem's definitions, each rounding constant
charged alone, and the radius checked against the conditions it must satisfy.

The network: Z_2 on one symbol, snapped to S = diag(-1, 0) with hidden vectors y = (+-1, 0), the
float matrix F = ((-1, g), (c, p)) and readout rows R_0, R_1.  For the pair (q, y) and its
successor y' = -y: F y = (-1, c) y[0], so alpha = y'^T F y = 1, z = ||F y - alpha y'|| = |c|; the
projection off y (and y') keeps coordinate 1, so n = ||P F P||_F = |p| and b = ||P F^T y'|| = |g|.
The margins are m = (R_l - R_c) . y = |R_0[0] - R_1[0]| (y = +-1 on coordinate 0) and k = ||(R_l -
R_c) P|| = |R_0[1] - R_1[1]|.  The start h0 = (1, h): y0 = (1, 0), s0 = 1, r0 = |h|."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

import bilinear.constructions.horizon.tube as tube
from bilinear.automata import Automaton
from bilinear.constructions import Weights
from bilinear.constructions.exact.balls import arb, precision
from bilinear.constructions.horizon.roundoff import RoundOff
from bilinear.constructions.horizon.snap import Snap
from bilinear.constructions.proof.prover import prove

#: Z_2 on one symbol: the states alternate, labelled 0 and 1.
Z2 = Automaton([[1, 0]], start=0, labels=[0, 1])
#: g = c = 1/16, p = 1/2; read with margin 2 on coordinate 0 and 3/4 on coordinate 1.
CONTRACTING = ([[-1, 1 / 16], [1 / 16, 0.5]], [1, 0.25], [[1, 0.25], [-1, -0.5]])
#: A basis with a dyadic inverse (P^-1 = ((1, 0), (-1/4, 1/2))).
BASIS = [[1, 0], [0.5, 2]]


def _network(F, h0, R, basis=None):
    """The float network F (in the basis P when given: P F P^-1, P h0, R P^-1) and its snap."""
    exact = Weights("full", np.array([[[-1, 0], [0, 0]]]), np.array([1, 0]), np.array([[1, 0], [-1, 0]]))
    F, h0, R = (np.array(x, dtype=float) for x in (F, h0, R))
    P = None
    if basis is not None:
        from fractions import Fraction

        P = np.array([[Fraction(x) for x in row] for row in basis], dtype=object)
        Pf = np.array(basis, dtype=float)
        F, h0, R = Pf @ F @ np.linalg.inv(Pf), Pf @ h0, R @ np.linalg.inv(Pf)
    w = Weights("full", F[None], h0, R)
    snap = Snap(exact, ((0,), (1,)), (0,), (), (1.0,), (0.0,), P, "full", "by hand")
    proof = prove(exact, Z2)
    assert proof.status == "proved"
    return w, snap, proof


def _parts(monkeypatch, w, snap, proof, ro):
    """What _tube hands to _tube_radius: ``(need, margins, r0)`` as floats (mid-points)."""
    seen = {}

    def keep(need, margins, r0):
        f = lambda x: float(x.mid())  # noqa: E731
        seen.update(need=[tuple(map(f, t)) for t in need], margins=[tuple(map(f, t)) for t in margins], r0=f(r0))
        return 0.0

    monkeypatch.setattr(tube, "_tube_radius", keep)
    assert tube.invariant_tube(w, snap, proof, Z2, ro) == 0.0
    return seen["need"], seen["margins"], seen["r0"]


def _rounding(**constants) -> RoundOff:
    """float64's rounding model with the given constants (the others 0)."""
    zero = {k: 0 for k in ("step", "readout", "start", "underflow", "readout_underflow", "start_underflow")}
    return dataclasses.replace(RoundOff.of("float64", 2), **{k: arb(v) for k, v in {**zero, **constants}.items()})


def _holds(r, need, margins, r0) -> bool:
    """Theorem 17's conditions at radius r, written from the module docstring."""
    return r >= r0 and all(a - b * r > 0 and z + n * r <= r * (a - b * r) for a, z, n, b in need) and all(
        m - k * r > 0 for m, k in margins)


# ------------------------------------------------------------------------------------------
# the conditions' terms
# ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("basis", [None, BASIS])
def test_the_terms_of_the_tube_conditions(monkeypatch, basis):
    """CONTRACTING in real arithmetic (module docstring): (alpha, z, n, b) = (1, |c|, |p|, |g|) =
    (1, 1/16, 1/2, 1/16) for both pairs, margins (2, 3/4) for both states, r0 = 1/4; in the basis P
    the same (the basis is undone)."""
    need, margins, r0 = _parts(monkeypatch, *_network(*CONTRACTING, basis=basis), RoundOff.of("real", 2))
    np.testing.assert_allclose(need, [(1, 1 / 16, 1 / 2, 1 / 16)] * 2, rtol=0, atol=1e-15)
    np.testing.assert_allclose(margins, [(2, 0.75)] * 2, rtol=0, atol=1e-15)
    assert r0 == pytest.approx(0.25, abs=1e-15)


def test_each_rounding_constant_is_charged(monkeypatch):
    """A step gamma of 2^-10 (delta = 2^-10 ||F||_F, the basis the identity), a score gamma of 2^-8
    (tau = 2^-8 (||R_0|| + ||R_1||)) and a start gamma of 2^-6 (err0 = 2^-6 ||h0||): alpha - delta,
    z, n, b + delta; m - tau, k + tau; s0 = 1 - err0 and r0 = (|h| + 2 err0) / s0."""
    F, h0, R = CONTRACTING
    delta = 2**-10 * np.linalg.norm(F)
    tau = 2**-8 * (np.linalg.norm(R[0]) + np.linalg.norm(R[1]))
    err0 = 2**-6 * np.linalg.norm(h0)
    need, margins, r0 = _parts(monkeypatch, *_network(*CONTRACTING),
                               _rounding(step=2.0**-10, readout=2.0**-8, start=2.0**-6))
    np.testing.assert_allclose(need, [(1 - delta, 1 / 16 + delta, 1 / 2 + delta, 1 / 16 + delta)] * 2, rtol=1e-12)
    np.testing.assert_allclose(margins, [(2 - tau, 0.75 + tau)] * 2, rtol=1e-12)
    assert r0 == pytest.approx((0.25 + 2 * err0) / (1 - err0), rel=1e-12)


def test_the_rounding_in_a_basis_is_charged_with_its_condition_number(monkeypatch):
    """In the basis P = ((1, 0), (1/2, 2)): delta = gamma ||P|| ||P^-1|| ||A||_F, tau = gamma_r ||P||
    (||R'_0|| + ||R'_1||) and err0 = gamma_s ||P^-1|| ||h0'|| with the float network's A, R', h0'
    (||P|| = 2.0797 from P^T P = ((5/4, 1), (1, 4)), ||P^-1|| = ||P|| / det P); the norms are bounded
    from above, within 2%."""
    w, snap, proof = _network(*CONTRACTING, basis=BASIS)
    A, h0f, Rf = w.float_arrays()
    p = math.sqrt((5.25 + math.sqrt(2.75**2 + 4)) / 2)
    pinv = p / 2
    delta = 2**-10 * p * pinv * np.linalg.norm(A[0])
    tau = 2**-8 * p * (np.linalg.norm(Rf[0]) + np.linalg.norm(Rf[1]))
    err0 = 2**-6 * pinv * np.linalg.norm(h0f)
    need, margins, r0 = _parts(monkeypatch, w, snap, proof, _rounding(step=2.0**-10, readout=2.0**-8, start=2.0**-6))
    for got, true, lo, hi in ((1 - need[0][0], delta, 1, 1.03), (need[0][1] - 1 / 16, delta, 1, 1.03),
                              (2 - margins[0][0], tau, 1, 1.03), (margins[0][1] - 0.75, tau, 1, 1.03)):
        assert lo * true * (1 - 1e-9) <= got <= hi * true
    assert (0.25 + 2 * err0) / (1 - err0) * (1 - 1e-9) <= r0 <= (0.25 + 2 * 1.03 * err0) / (1 - 1.03 * err0)


# ------------------------------------------------------------------------------------------
# the radius: the smallest the conditions allow, or None
# ------------------------------------------------------------------------------------------
def _radius(F, h0, R, ro=None):
    w, snap, proof = _network(F, h0, R)
    return tube.invariant_tube(w, snap, proof, Z2, ro or RoundOff.of("real", 2))


@pytest.mark.parametrize("h, smallest", [(0.25, 0.25), (0.0, 4 - math.sqrt(15))])
def test_the_radius_is_the_smallest_the_conditions_allow(h, smallest):
    """CONTRACTING (alpha, z, n, b) = (1, 1/16, 1/2, 1/16): the image of the tube of radius r lies in
    the tube where 1/16 + r/2 <= r (1 - r/16), r^2 - 8 r + 1 <= 0, from r = 4 - sqrt 15 = 0.127 on;
    and the start must lie in it, r >= r0 = |h|.  The radius found satisfies both, within 2% of
    the smallest (and the conditions fail 2% below it)."""
    F, _, R = CONTRACTING
    need, margins = [(1, 1 / 16, 1 / 2, 1 / 16)] * 2, [(2, 0.75)] * 2
    r = _radius(F, [1, h], R)
    assert r is not None and _holds(r, need, margins, h)
    assert smallest <= r <= 1.02 * smallest
    assert not _holds(0.98 * smallest, need, margins, h)


@pytest.mark.parametrize("F, smallest", [
    ([[-1, 0], [1 / 16, 0.5]], 1 / 8),  # b = 0: (n - alpha) r + z = -r/2 + 1/16 <= 0 from r = 1/8
    ([[-1, 1.0], [1 / 16, 0]], (1 - math.sqrt(3 / 4)) / 2),  # b = 1, n = 0: r^2 - r + 1/16 <= 0 (not linear)
    ([[-1, 0], [1 / 16, 1.0]], None),  # b = 0, n = alpha: the image never shrinks into the tube
    ([[-1, 0], [1 / 16, 1.5]], None),  # n > alpha
    ([[-1, 1.0], [1.0, 0.5]], None),  # r^2 - r/2 + 1 > 0 for every r (discriminant 1/4 - 4)
    ([[1, 1 / 16], [1 / 16, 0.5]], None),  # alpha = y'^T F y = -1: the successor's direction reversed
])
def test_the_tube_conditions_of_a_coupling_or_its_absence(F, smallest):
    """With b = |g| = 0 the condition is linear in r (with b = 1 it is not); with n >= alpha or a
    negative discriminant, or alpha <= 0, no radius works (None)."""
    r = _radius(F, [1, 0], CONTRACTING[2])
    if smallest is None:
        assert r is None
    else:
        assert smallest <= r <= 1.02 * smallest


@pytest.mark.parametrize("R, ok", [([[1, 4], [-1, -4]], True), ([[1, 8], [-1, -8]], False)])
def test_the_tube_must_stay_inside_the_margins(R, ok):
    """CONTRACTING from h0 = (1, 0) needs r >= 0.127 (4 - sqrt 15); read with margin m = 2 and k =
    |R_0[1] - R_1[1]| the tube keeps its label while 2 - k r > 0: k = 8 allows r < 1/4, k = 16 only
    r < 1/8 (None)."""
    r = _radius(CONTRACTING[0], [1, 0], R)
    assert (r is not None) == ok
    if ok:
        assert 2 - 8 * r > 0


@pytest.mark.parametrize("h0, ro", [
    ([-1, 0.25], RoundOff.of("real", 2)),  # y0^T h0 = -1: the start is on the wrong side
    ([0, 1], RoundOff.of("real", 2)),  # y0^T h0 = 0: no scale puts it in a tube
    ([1, 0.25], _rounding(start=1.0)),  # s0 = 1 - ||h0|| < 0
    ([1, 0.25], _rounding(step=1.0)),  # alpha = 1 - ||F||_F < 0
])
def test_a_start_or_a_step_that_no_tube_can_hold(h0, ro):
    assert _radius(CONTRACTING[0], h0, CONTRACTING[2], ro) is None
    assert _radius(CONTRACTING[0], [1, 0.25], CONTRACTING[2]) is not None


def test_the_radius_search_on_its_own():
    """_tube_radius from the terms: one need (1, 1/16, 1/2, 1/16) gives r in [0.127, 0.1295]; the
    start's r0 = 0.2 raises it to [0.2, 0.204]; a margin (2, 16) refuses both (16 r >= 2)."""
    with precision():
        need = [tuple(arb(x) for x in (1, 0.0625, 0.5, 0.0625))]
        low = 4 - math.sqrt(15)
        r = tube._tube_radius(need, [(arb(2), arb(0.75))], arb(0))
        assert low <= r <= 1.02 * low
        r = tube._tube_radius(need, [(arb(2), arb(0.75))], arb(0.2))
        assert 0.2 <= r <= 0.204
        assert tube._tube_radius(need, [(arb(2), arb(16))], arb(0)) is None


# ------------------------------------------------------------------------------------------
# several snapped vectors for one state: the successor and the start's vector are chosen
# ------------------------------------------------------------------------------------------
#: One reachable state (labelled 0; state 1, labelled 1, is never reached) on two symbols.
ONE = Automaton([[0, 1], [0, 1]], start=0, labels=[0, 1])


@pytest.mark.parametrize("h0, low", [((1, 0, 0), 0.0), ((1, 1 / 8, 0), 1 / 8), ((1 / 8, 1, 0), 1 / 8)])
def test_the_successor_and_the_start_vector_are_the_nearest(monkeypatch, h0, low):
    """Two resets: symbol a sends every state to e_(a+1) times its coordinate sum (S_a = e_(a+1)
    1^T), read by R_0 = (1, 1, 1) against R_1 = 0: the one state has the snapped vectors e_0, e_1,
    e_2.  From e_i, symbol a leads to e_(a+1), the vector nearest S_a e_i: alpha = 1, z = 0, n =
    ||P F P||_F = 0 (P_j e_j = 0), b = ||P_i 1|| = sqrt 2, so b r^2 - r <= 0 and the margin 1 -
    sqrt(2) r > 0 for r < 1 / sqrt 2.  The start's vector is the one nearest h0: e_0 for (1, 1/8,
    0), e_1 for (1/8, 1, 0), both at r0 = 1/8 (any other is 8 away)."""
    S = np.zeros((2, 3, 3), dtype=int)
    S[0, 1, :] = S[1, 2, :] = 1
    exact = Weights("full", S, np.array([1, 0, 0]), np.array([[1, 1, 1], [0, 0, 0]]))
    proof = prove(exact, ONE)
    assert proof.state_map == ((0, 1, 2), ()) and sorted(proof.hidden_vectors()) == [(0, 0, 1), (0, 1, 0), (1, 0, 0)]
    snap = Snap(exact, ((0,), (1,), (2,)), (0, 1, 2), (), (1.0, 1.0), (0.0, 0.0), None, "full", "by hand")
    w = Weights("full", S.astype(float), np.array(h0, dtype=float), np.array([[1.0, 1, 1], [0, 0, 0]]))
    for ro in (RoundOff.of("real", 3), RoundOff.of("float64", 3)):
        r = tube.invariant_tube(w, snap, proof, ONE, ro)
        assert r is not None and low <= r <= 1.02 * low + 1e-9 and r > 0  # a tube, not the ray itself
    with monkeypatch.context() as m:
        seen = {}
        m.setattr(tube, "_tube_radius", lambda need, margins, r0: seen.update(need=need, margins=margins, r0=r0))
        tube.invariant_tube(w, snap, proof, ONE, RoundOff.of("real", 3))
    f = lambda rows: [[float(x.mid()) for x in row] for row in rows]  # noqa: E731
    np.testing.assert_allclose(f(seen["need"]), [[1, 0, 0, math.sqrt(2)]] * 6, atol=1e-15)
    np.testing.assert_allclose(f(seen["margins"]), [[1, math.sqrt(2)]] * 3, atol=1e-15)
    assert float(seen["r0"].mid()) == pytest.approx(low, abs=1e-15)


def test_a_tube_whose_edge_maps_to_zero_is_refused():
    """g = 1/4 (b = 1/4), c = p = 0 (z = n = 0): the tube of radius r maps into its successor's while
    r^2 / 4 - r <= 0 and 1 - r/4 > 0, so for r < 4.  From h0 = (1, 4 / 1.01) (r0 = 3.96) the search
    tries r = 4 (r0 with its 1% of slack, as a dyadic), where alpha - b r = 0: the tube's direction
    (1, 4) maps to F (1, 4) = (0, 0), in no tube.  Refused (None); from h0 = (1, 3.9), r = 3.939."""
    from bilinear.constructions.exact.balls import dyadic_up

    F, R = [[-1, 0.25], [0, 0]], [[1, 0], [-1, 0]]
    assert dyadic_up(4 / 1.01 * 1.01 + 1e-300) == 4
    assert np.array_equal(np.array(F) @ np.array([1, 4]), [0, 0])
    assert _radius(F, [1, 4 / 1.01], R) is None
    assert 3.9 <= _radius(F, [1, 3.9], R) <= 3.9 * 1.02


def test_a_tube_mapped_onto_itself_is_invariant():
    """g = 1/4, c = 3/4, p = 0: (alpha, z, n, b) = (1, 3/4, 0, 1/4), and the tube of radius r maps
    into radius (3/4) / (1 - r/4), at most r for r^2 - 4 r + 3 <= 0, 1 <= r <= 3.  From h0 = (1,
    3 / 1.01) the search tries r = 3 exactly, where the image's radius is 3 itself: a closed tube
    mapped onto itself, invariant (3.0); from h0 = (1, 0), r = 1.01."""
    F, R = [[-1, 0.25], [0.75, 0]], [[1, 0], [-1, 0]]
    assert 3 / 1.01 * 1.01 == 3.0 and 0.75 / (1 - 3 / 4) == 3
    assert _radius(F, [1, 3 / 1.01], R) == 3.0
    assert 1 <= _radius(F, [1, 0], R) <= 1.02


def test_a_tube_touching_a_tie_is_refused():
    """The same tube of radius 3, read with R = ((3/4, 1/4), (-3/4, -1/4)): m = 3/2, k = 1/2, and m - k
    r = 0 at r = 3: the direction (1, -3) of the tube around (1, 0) scores a tie, (R_0 - R_1) . (1,
    -3) = 3/2 - 3/2.  Refused (None)."""
    F, R = [[-1, 0.25], [0.75, 0]], [[0.75, 0.25], [-0.75, -0.25]]
    assert np.dot(np.subtract(R[0], R[1]), [1, -3]) == 0
    assert _radius(F, [1, 3 / 1.01], R) is None
    assert _radius(F, [1, 0], R) is not None

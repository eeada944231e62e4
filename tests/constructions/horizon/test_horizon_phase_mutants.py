"""Theorem 24 (docs/theory.md Section 7), the phase horizon, on the cases its own tests left open:
1x1 blocks (diagonal networks) whose moduli drift apart, each constant of the rounding model, the
ratio under which underflow is charged, a block whose phase passes pi, a margin below float64's
resolution, the snaps it must refuse (a state-map snap, dense; a scalar 0), and the two searches
for the length (the float one and the one in balls), each checked at the length and one past it.

Every certified length is compared with a closed form worked out in the test's docstring, or with
Theorem 24's condition evaluated here in mpmath straight from its statement
(:func:`_theorem_length`), and where the network fails, with a plain float64 run of it."""

from __future__ import annotations

import dataclasses
import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from plain_eval import float64_margins

import bilinear.constructions.horizon.horizon_phase as phase
from bilinear.automata import Automaton, from_spec
from bilinear.constructions import Weights, build
from bilinear.constructions.horizon.horizon_base import CAP
from bilinear.constructions.horizon.roundoff import RoundOff
from bilinear.constructions.horizon.snap import factor_snap, snap_candidates
from bilinear.constructions.proof.prover import prove
from bilinear.constructions.values.factored import monomial_compose

#: Z_2 on one symbol: the states alternate, labelled 0 and 1.
Z2 = Automaton([[1, 0]], start=0, labels=[0, 1])

#: Two 1x1 blocks drifting apart: the second coordinate flips sign and shrinks by 31/32 a step.
DRIFT = ([1.0, -31 / 32], [[0.25, 0.5], [-0.25, -0.5]])
#: Both coordinates flip; the second shrinks by 3/4 a step, and each one alone has the right sign.
APART = ([-1.0, -0.75], [[1.0, 1.0], [-1.0, -1.0]])


def _diagonal(entries, R, h0=(1.0, 1.0)) -> Weights:
    return Weights("diagonal", np.diag(entries)[None], np.array(h0), np.array(R))


def _case(w, automaton, kept=None):
    """The first snap keeping the blocks ``kept`` (any where None), and its proof."""
    snap = next(s for s in snap_candidates(w, automaton) if kept is None or s.kept == kept)
    proof = prove(snap.block_weights, automaton)
    assert proof.status == "proved"
    return snap, proof


def _horizon(w, automaton, ro, kept=(0, 1)):
    snap, proof = _case(w, automaton, kept)
    return phase.phase_horizon(w, snap, proof, automaton, ro)


def _condition(w, automaton, ro, kept=(0, 1)):
    """The module's own terms and box for ``w`` (to ask its two searches about one length)."""
    snap, proof = _case(w, automaton, kept)
    A, h0, R = w.float_arrays()
    tracked = [b for b, g in enumerate(snap.blocks) if np.any(h0[list(g)])]
    with phase.precision():
        box = phase._box(A, h0, snap.block_weights.A, snap.block_weights.h0, snap.blocks, tracked, ro)
        terms = phase._terms(proof, automaton, R, snap.blocks, tracked, box, ro)
    return terms, box, not ro.exact and ro.underflow > 0, phase._ratio_bits(ro)


def _balls_hold(w, automaton, ro, t, kept=(0, 1)) -> bool:
    terms, box, under, bits = _condition(w, automaton, ro, kept)
    with phase.precision():
        return phase._holds(terms, box, t, under, bits)


def _floats_hold(w, automaton, ro, t, kept=(0, 1)) -> bool:
    terms, box, under, _ = _condition(w, automaton, ro, kept)
    with phase.precision():
        return phase._Floats.of(terms, box).holds(t, under)


def _rounding(arithmetic="float64", **constants) -> RoundOff:
    """A rounding model with the given constants (the others 0): each charged alone, and large."""
    zero = {k: 0 for k in ("step", "readout", "start", "underflow", "readout_underflow", "start_underflow")}
    return dataclasses.replace(RoundOff.of(arithmetic, 2), **{k: phase.arb(v) for k, v in {**zero, **constants}.items()})


def _theorem_length(entries, signs, R, ro, h0=(1.0, 1.0)):
    """Theorem 24 for the one-symbol diagonal network ``diag(entries)`` of :data:`Z2` snapped to
    ``diag(signs)``, written from its statement and its Rounding paragraph (docs/theory.md) in
    mpmath: per block ``r = |entry|``, the log-scale in the middle of the log r, kappa = gamma +
    (underflow charge) ||F|| / |alpha|, ell = |log r - middle| - log(1 - kappa), pi = asin kappa;
    the start's kappa_0 = gamma_1 ||h0||_1 / |h0[b]|; per row ``K = |Delta_b y_b|``, theta 0 or pi,
    v = K cos(min(theta + p0 + t pi, pi)) - tau |y_b|.  The largest t <= CAP at which every row's
    sum (and where underflow is charged, the ratio ``2^bits``) holds; None where a kappa reaches 1
    or the condition fails at 0."""
    with mpmath.workdps(60):
        f = lambda x: mpmath.mpf(float(x.mid()))  # noqa: E731 - a model's constants, at their mid-points
        exact = ro.arithmetic == "real"
        bits = 500 if ro.arithmetic == "float64" else 40
        d = len(entries)
        a = [mpmath.mpf(x) for x in entries]
        under = mpmath.sqrt(d) * f(ro.underflow) * mpmath.mpf(2) ** bits if not exact and ro.underflow > 0 else 0
        frob = mpmath.sqrt(sum(x * x for x in a))
        kappa = [(f(ro.step) * abs(x) + under * frob) / abs(x) for x in a]
        logs = [mpmath.log(abs(x)) for x in a]
        middle = (max(logs) + min(logs)) / 2
        if max(kappa) >= 1:
            return None
        ell = [abs(x - middle) - mpmath.log(1 - k) for x, k in zip(logs, kappa)]
        pi = [mpmath.asin(k) for k in kappa]
        h = [mpmath.mpf(x) for x in h0]
        top = max(abs(x) for x in h)
        y0 = [x / top for x in h]
        k0 = [0 if exact else f(ro.start) * sum(abs(x) for x in h) / abs(x) for x in h]
        if max(k0) >= 1:
            return None
        lam = [mpmath.log(abs(x / y)) for x, y in zip(h, y0)]
        l0 = [-mpmath.log(1 - k) for k in k0]
        p0 = [mpmath.asin(k) for k in k0]
        Rm = [[mpmath.mpf(x) for x in row] for row in R]
        norms = [mpmath.sqrt(sum(x * x for x in row)) for row in Rm]
        rows = []
        for q, y in enumerate((y0, [s * x for s, x in zip(signs, y0)])):  # state q, label q
            c = 1 - q
            prods = [(Rm[q][b] - Rm[c][b]) * y[b] for b in range(d)]
            tau = 0 if exact else f(ro.readout) * (norms[q] + norms[c]) + f(ro.readout_underflow) * max(norms)
            rows.append(([abs(z) for z in prods], [0 if z > 0 else mpmath.pi for z in prods], tau, [abs(x) for x in y]))

        def holds(t):
            low = [mpmath.exp(x - r - t * e) for x, r, e in zip(lam, l0, ell)]
            high = [mpmath.exp(x + r + t * e) for x, r, e in zip(lam, l0, ell)]
            for K, theta, tau, y in rows:
                total = 0
                for b in range(d):
                    angle = theta[b] + p0[b] + t * pi[b]
                    v = K[b] * (mpmath.cos(angle) if angle < mpmath.pi else -1) - tau * y[b]
                    total += (low[b] if v >= 0 else high[b]) * v
                if not total > 0:
                    return False
                if under and not all(low[b] * y[b] * mpmath.mpf(2) ** bits >= sum(high[j] * y[j] for j in range(d))
                                     for b in range(d)):
                    return False
            return True

        if not holds(0):
            return None
        if holds(CAP):
            return CAP
        good, bad = 0, CAP
        while bad - good > 1:
            mid = (good + bad) // 2
            good, bad = (mid, bad) if holds(mid) else (good, mid)
        return good


def _first_failure(w, automaton, length: int) -> int | None:
    """The first length at which the float64 run of the one word of a one-symbol network fails."""
    A, h0, R = w.float_arrays()
    m = float64_margins(A, h0, R, automaton, np.zeros((1, length), dtype=np.int64))[0]
    bad = np.nonzero(m <= 0)[0]
    return int(bad[0]) if bad.size else None


# ------------------------------------------------------------------------------------------
# 1x1 blocks: the modulus
# ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("arithmetic", ["real", "float64", "float32"])
def test_two_diagonal_coordinates_drifting_apart_are_certified_to_the_closed_form(arithmetic):
    """DRIFT: the second coordinate shrinks by r = 31/32 a step against the first.  The snap is
    diag(1, -1) (kappa 0 in real arithmetic), so ell = log(32/31) / 2 for both blocks, with the
    log-scale in their middle.  In state 1 (y = (1, -1)) against class 0 the blocks give
    v = (-1/2, 1): the condition e^(-t ell) - e^(t ell) / 2 > 0 holds while t log(32/31) < log 2,
    t <= 21 (21.8; the rounding of float64 and float32 moves it by less than 1e-5).  The network
    fails at the first odd length past it (state 1 at 23: 2 (31/32)^23 < 1)."""
    w = _diagonal(*DRIFT)
    ro = RoundOff.for_network(arithmetic, w)
    h = _horizon(w, Z2, ro)
    assert math.ceil(math.log(2) / math.log(32 / 31)) - 1 == 21
    assert h.length == 21 == _theorem_length(DRIFT[0], (1, -1), DRIFT[1], ro)
    assert abs(h.constants["modulus_step"] - math.log(32 / 31) / 2) < 1e-6
    assert f"{math.log(32 / 31) / 2:.3g} per step" in h.note and "on 2 complex blocks" in h.note
    assert _first_failure(w, Z2, 30) == 23
    # the condition itself, in balls and in floats: true at 21, false at 22
    assert _balls_hold(w, Z2, ro, 21) and not _balls_hold(w, Z2, ro, 22)
    assert _floats_hold(w, Z2, ro, 21) and not _floats_hold(w, Z2, ro, 22)


@pytest.mark.parametrize("constants, length", [
    ({"step": 2.0**-7}, 14), ({"start": 2.0**-6}, 19), ({"readout": 2.0**-5}, 18),
    ({"readout_underflow": 2.0**-5}, 20), ({"underflow": 2.0**-506}, 7)])
def test_each_rounding_constant_is_charged_as_the_theorem_says(constants, length):
    """DRIFT with one constant of the rounding model made large (the others 0), so that each
    moves the length off the 21 of exact arithmetic: the step's gamma raises kappa (a phase of
    asin kappa and a modulus of -log(1 - kappa) a step); the start's gamma_1 is charged relative
    to the block, gamma_1 ||h0||_1 / |h0[b]| = 2 gamma_1, once; the score's gamma_r (||R_l|| +
    ||R_c||) and its underflow r_max lower each v by tau |y_b|; the underflow nu adds
    sqrt(d) nu 2^500 ||F||_F / |alpha| to kappa (and asks the ratio, far from binding here).  Each
    length is Theorem 24's, from :func:`_theorem_length`."""
    w = _diagonal(*DRIFT)
    ro = _rounding(**constants)
    expected = _theorem_length(DRIFT[0], (1, -1), DRIFT[1], ro)
    assert expected == length
    assert _horizon(w, Z2, ro).length == length
    assert _balls_hold(w, Z2, ro, length) and not _balls_hold(w, Z2, ro, length + 1)
    assert _floats_hold(w, Z2, ro, length) and not _floats_hold(w, Z2, ro, length + 1)


@pytest.mark.parametrize("constants", [{"step": 1.0}, {"step": 1.5}, {"start": 0.5}, {"start": 0.75}])
def test_a_rounding_that_reaches_the_whole_block_certifies_nothing(constants):
    """kappa < 1 is the theorem's hypothesis (|eta| <= kappa < 1: the factor 1 + eta is not 0):
    gamma = 1 makes kappa = gamma ||F_b|| / |alpha| = 1 exactly on a 1x1 block, and gamma_1 = 1/2
    makes the start's kappa_0 = gamma_1 ||h0||_1 / |h0[b]| = 1 exactly; at 1 and past it no bound."""
    assert _horizon(_diagonal(*DRIFT), Z2, _rounding(**constants)) is None


# ------------------------------------------------------------------------------------------
# the ratio under which underflow is charged
# ------------------------------------------------------------------------------------------
def test_the_underflow_ratio_limits_float_arithmetic_and_nothing_limits_real_arithmetic():
    """APART: each coordinate alone has the label's sign, so every v is positive at every length,
    and in real arithmetic every length is certified (the cap, 10^18).  Underflow is charged per
    block as if the state were at most 2^k times the block (k = 500 in float64, 40 in float32),
    and the blocks drift apart by e^(2 t ell) with ell = log(4/3) / 2: the ratio holds while
    e^(2 t ell) <= 2^k / 2, t <= (k - 1) log 2 / log(4/3): 1202 in float64 (1202.3), 93 in
    float32 (93.97).  A model without underflow (RoundOff.of) asks no ratio: only the phase of
    its step's rounding, 4.7e15 steps to pi/2.  (The float search's exponentials underflow at
    t ell > 745, t = 5180: the length was that, in real arithmetic, before the balls took over
    past the float search's guess.)"""
    w = _diagonal(*APART)
    lengths = {x: _horizon(w, Z2, RoundOff.for_network(x, w)).length for x in ("real", "float64", "float32")}
    assert lengths == {"real": CAP, "float64": 1202, "float32": 93}
    assert math.floor(499 * math.log(2) / math.log(4 / 3)) == 1202 and math.floor(39 * math.log(2) / math.log(4 / 3)) == 93
    for x in ("real", "float64", "float32"):
        assert _theorem_length(APART[0], (-1, -1), APART[1], RoundOff.for_network(x, w)) == lengths[x]
    plain = RoundOff.of("float64", 2)  # the step's rounding alone: its phase, asin(gamma) a step
    length = _horizon(w, Z2, plain).length
    assert 10**15 < length < CAP and abs(length / _theorem_length(APART[0], (-1, -1), APART[1], plain) - 1) < 1e-9
    ro = RoundOff.for_network("float64", w)
    assert _balls_hold(w, Z2, ro, 1202) and not _balls_hold(w, Z2, ro, 1203)
    assert _floats_hold(w, Z2, ro, 1203)  # the float search asks no ratio: the balls cut it


def test_the_ratio_counts_the_whole_state_against_a_small_block():
    """APART's readout from h0 = (1, 2^-22), the second coordinate shrinking by 1 - 2^-12 a step, in
    float32 (k = 40): the second block is 2^-22 of the first, and the ratio asks 2^40 |x_2| >= |x_1|
    + |x_2| on the box, e^(-2 l0 - 2 t ell) 2^18 >= 1 + 2^-22, with ell = -log(1 - 2^-12) / 2 and the
    start's radius l0 = -log(1 - kappa_0), kappa_0 = gamma_1 (1 + 2^-22) / 2^-22 (about 1/2): 48165,
    Theorem 24's length (:func:`_theorem_length`); every v stays positive that far."""
    entries, h0 = [-1.0, -(1 - 2.0**-12)], (1.0, 2.0**-22)
    w = _diagonal(entries, APART[1], h0=h0)
    ro = RoundOff.for_network("float32", w)
    assert _horizon(w, Z2, ro).length == 48165 == _theorem_length(entries, (-1, -1), APART[1], ro, h0=h0)
    assert _balls_hold(w, Z2, ro, 48165) and not _balls_hold(w, Z2, ro, 48166)


def test_a_ratio_past_two_to_the_forty_in_one_step_leaves_float32_the_empty_word():
    """The second coordinate shrinks by 2^-40 a step: after one step the blocks are 2^40 apart,
    exactly float32's ratio 2^40, less than the 2^40 |x_b| >= ||x|| the charge needs (the whole
    state, 1 + 2^-40 times the block, is counted): only length 0.  The float search, which does not
    ask the ratio, goes much further; the balls' bisection brings it back to 0."""
    w = _diagonal([-1.0, -(2.0**-40)], APART[1])
    ro = RoundOff.for_network("float32", w)
    h = _horizon(w, Z2, ro)
    assert h.kind == "up to" and h.length == 0
    assert _floats_hold(w, Z2, ro, 1) and not _balls_hold(w, Z2, ro, 1)


# ------------------------------------------------------------------------------------------
# 2x2 blocks: the phase
# ------------------------------------------------------------------------------------------
def test_a_quarter_turn_off_by_a_dyadic_angle_fails_one_step_after_the_certified_length():
    """cyclic:4 rotation2d with every matrix times [[1, -2^-10], [2^-10, 1]] (exact in floats): a
    scaled rotation, beta = 0, turning by delta = atan(2^-10) a step.  The worst row is a
    neighbouring class, K = 1 - i (theta = pi/4), so the condition is pi/4 + t delta < pi/2,
    t <= floor(pi / (4 delta)) = 804 (804.25), and the power of the identity fails at 805 (its
    phase passes pi/4)."""
    a = from_spec("cyclic:4")
    A, h0, R = build("cyclic:4", "rotation2d").to_float().float_arrays()
    w = Weights("rotation2d", A @ np.array([[1.0, -(2.0**-10)], [2.0**-10, 1.0]]), h0, R)
    assert int(mpmath.floor(mpmath.pi / (4 * mpmath.atan(mpmath.mpf(2) ** -10)))) == 804
    for x in ("real", "float64"):
        ro = RoundOff.for_network(x, w)
        assert _horizon(w, a, ro, kept=None).length == 804
        assert _balls_hold(w, a, ro, 804, kept=None) and not _balls_hold(w, a, ro, 805, kept=None)
        assert _floats_hold(w, a, ro, 804, kept=None) and not _floats_hold(w, a, ro, 805, kept=None)
    assert _first_failure(w, a, 810) == 805


def test_the_start_rounding_widens_the_phase_once():
    """The same turned cyclic:4 network with only the start's rounding charged, gamma_1 = 2^-6 (a
    rounding model made large): kappa_0 = gamma_1 ||h0||_1 / |h0| = 2^-6 gives the start a phase
    radius asin(2^-6) once, so the condition is pi/4 + asin(2^-6) + t delta < pi/2:
    t <= floor((pi/4 - asin(2^-6)) / atan(2^-10)) = 788 (788.2)."""
    a = from_spec("cyclic:4")
    A, h0, R = build("cyclic:4", "rotation2d").to_float().float_arrays()
    w = Weights("rotation2d", A @ np.array([[1.0, -(2.0**-10)], [2.0**-10, 1.0]]), h0, R)
    delta, p0 = mpmath.atan(mpmath.mpf(2) ** -10), mpmath.asin(mpmath.mpf(2) ** -6)
    assert int(mpmath.floor((mpmath.pi / 4 - p0) / delta)) == 788
    ro = _rounding(start=2.0**-6)
    assert _horizon(w, a, ro, kept=None).length == 788
    assert _balls_hold(w, a, ro, 788, kept=None) and not _balls_hold(w, a, ro, 789, kept=None)
    assert _floats_hold(w, a, ro, 788, kept=None) and not _floats_hold(w, a, ro, 789, kept=None)


def test_where_the_float_search_stops_a_step_short_the_balls_go_on():
    """The same turned cyclic:4 network with only the score's rounding charged, gamma_r chosen (a
    110-bit dyadic) so that the worst row's v = sqrt 2 cos(pi/4 + t delta) - 2 gamma_r is positive
    at t = 601 by about 2^-100 and negative at 602: Theorem 24's length is 601, which the balls
    prove (they hold at 601, not at 602).  The float search, whose cosine is off by an ulp, may stop
    at 600 (here it does): the length is still the balls' 601."""
    a = from_spec("cyclic:4")
    A, h0, R = build("cyclic:4", "rotation2d").to_float().float_arrays()
    w = Weights("rotation2d", A @ np.array([[1.0, -(2.0**-10)], [2.0**-10, 1.0]]), h0, R)
    with mpmath.workdps(60):
        angle = mpmath.pi / 4 + 601 * mpmath.atan(mpmath.mpf(2) ** -10) + mpmath.mpf(2) ** -100
        gamma = int(mpmath.floor(mpmath.sqrt(2) / 2 * mpmath.cos(angle) * mpmath.mpf(2) ** 110))
    with phase.precision():
        ro = dataclasses.replace(_rounding(), readout=phase.arb(gamma) * phase.arb(2) ** -110)
    assert _balls_hold(w, a, ro, 601, kept=None) and not _balls_hold(w, a, ro, 602, kept=None)
    assert _floats_hold(w, a, ro, 600, kept=None)
    assert _horizon(w, a, ro, kept=None).length == 601


def test_a_block_turned_past_pi_counts_minus_its_modulus():
    """One state, two planes: the first exactly still, the second turning by atan(1/8) a step and
    growing by |r| = sqrt(65)/8 (ell = log(65/64) / 4 for both blocks, about their middle), read
    with a quarter of the first's weight (K = (1, 1/4), theta = 0).  Once t atan(1/8) >= pi (t >= 26)
    the second block's cosine is bounded by -1, and the condition is e^(-t ell) - e^(t ell) / 4 > 0:
    t < 4 log 2 / log(65/64) = 178.8, so 178.  The float64 run is right that far (its first failure
    is later: the turning block points backwards only every 50.5 steps)."""
    one = Automaton([[0]], start=0, labels=[0], classes=("0", "1"))
    F = np.zeros((1, 4, 4))
    F[0, :2, :2] = np.eye(2)
    F[0, 2:, 2:] = [[1.0, -0.125], [0.125, 1.0]]
    w = Weights("rotation2d", F, np.array([1.0, 0.0, 1.0, 0.0]), np.array([[1.0, 0.0, 0.25, 0.0], [0.0, 0.0, 0.0, 0.0]]))
    assert math.floor(4 * math.log(2) / math.log(65 / 64)) == 178 and math.pi / math.atan(1 / 8) < 26
    ro = RoundOff.for_network("real", w)
    assert _horizon(w, one, ro).length == 178
    assert _balls_hold(w, one, ro, 178) and not _balls_hold(w, one, ro, 179)
    assert _floats_hold(w, one, ro, 178) and not _floats_hold(w, one, ro, 179)
    found = _first_failure(w, one, 400)
    assert found is not None and 178 < found


# ------------------------------------------------------------------------------------------
# the two searches
# ------------------------------------------------------------------------------------------
def test_a_margin_below_float64_resolution_is_proved_by_the_balls():
    """One state, readout p = fl(q y2) with q = 1 + 2^-52 and y2 = 3/4 + 2^-24 (the snapped start's
    second coordinate): the margin against class 1 is p - q y2 = 2^-54 - 2^-76 > 0 (fl rounds up),
    but the float search's K = (p, fl(q y2)) = (p, p) gives 0, not > 0: it finds no length.  The
    balls hold at every length (nothing turns or drifts): the cap.  Class 2 sets the readout's
    scale (5), so the snapped readout still separates the classes."""
    one = Automaton([[0]], start=0, labels=[0], classes=("0", "1", "2"))
    q, y2 = 1 + 2.0**-52, Fraction(3, 4) + Fraction(1, 2**24)
    p = float(Fraction(q) * y2)
    assert Fraction(p) - Fraction(q) * y2 == Fraction(1, 2**54) - Fraction(1, 2**76)
    w = Weights("diagonal", np.eye(2)[None], np.array([1.0, float(y2)]), np.array([[p, 0.0], [0.0, q], [-5.0, -5.0]]))
    ro = RoundOff.for_network("real", w)
    assert not _floats_hold(w, one, ro, 0) and _balls_hold(w, one, ro, 0) and _balls_hold(w, one, ro, CAP)
    assert _horizon(w, one, ro, kept=None).length == CAP


def test_a_float_readout_that_ties_on_the_start_certifies_no_length():
    """The same state with p = y2, q = 1: the float readout ties exactly on the start (p - q y2 = 0,
    the float64 run's margin at length 0 is 0), while the snapped readout, p / 5 and q / 5 rounded
    to 24 bits, still separates the classes (the proof holds).  The condition needs a positive
    sum: at 0 it is exactly 0, in floats and in balls, so no length, not even the empty word."""
    one = Automaton([[0]], start=0, labels=[0], classes=("0", "1", "2"))
    y2 = 0.75 + 2.0**-24
    w = Weights("diagonal", np.eye(2)[None], np.array([1.0, y2]), np.array([[y2, 0.0], [0.0, 1.0], [-5.0, -5.0]]))
    assert _first_failure(w, one, 1) == 0
    ro = RoundOff.for_network("real", w)
    assert not _floats_hold(w, one, ro, 0) and not _balls_hold(w, one, ro, 0)
    h = _horizon(w, one, ro, kept=None)
    assert h.kind == "none" and h.note == "the phase bound does not hold at the start" and h.bound == "phase"


def test_a_block_the_readout_does_not_read_adds_nothing_to_the_float_sum():
    """APART's matrices read by the first coordinate only (R = (1, 0), (-1, 0)): the second block
    has K = 0, v = 0, and adds 0 to a row's sum however far its factor has grown.  At t = 5000 its
    upper factor e^(t ell) (ell = log(4/3) / 2, t ell = 719) overflows float64 while the first
    block's lower factor e^(-t ell) is still positive: the float search holds there, as the balls
    do at every length (real arithmetic: the cap)."""
    R = [[1.0, 0.0], [-1.0, 0.0]]
    w = _diagonal(APART[0], R)
    ro = RoundOff.for_network("real", w)
    assert 709.8 < 5000 * math.log(4 / 3) / 2 < 745
    assert _floats_hold(w, Z2, ro, 5000) and _balls_hold(w, Z2, ro, 5000)
    assert _horizon(w, Z2, ro).length == CAP


def test_the_bisection_finds_the_last_true_length_and_asks_only_inside_its_range():
    """For every threshold m in 0..40 (ok(t) = t <= m) the largest t in 0..40, and no question
    about a length outside 0..40; None when ok(0) is false."""
    for m in range(41):
        asked = []

        def ok(t, m=m, asked=asked):
            asked.append(t)
            return t <= m

        assert phase._bisect(ok, 0, 40) == m
        assert all(0 <= t <= 40 for t in asked)
    assert phase._bisect(lambda t: t < 0, 0, 40) is None
    assert phase._bisect(lambda t: 5 <= t <= 9, 5, 40) == 9


# ------------------------------------------------------------------------------------------
# where it does not apply
# ------------------------------------------------------------------------------------------
def test_one_dimension_and_two_classes_are_in_scope():
    """A one-dimensional diagonal network (d = 1, two classes: the sign of its one coordinate):
    one block, no drift against itself, so every length in real arithmetic; in float64 the step's
    rounding turns it by asin(kappa) <= 2.3e-16 a step: the length is (acos(tau / 2) - asin
    kappa_0) / asin kappa, 7.07e15, as :func:`_theorem_length` gives it."""
    w = Weights("diagonal", np.array([[[-1.0]]]), np.array([1.0]), np.array([[1.0], [-1.0]]))
    assert _horizon(w, Z2, RoundOff.for_network("real", w), kept=None).length == CAP
    snap, proof = _case(w, Z2)
    ro = RoundOff.for_network("float64", w)
    h = phase.phase_horizon(w, snap, proof, Z2, ro)
    assert 7.07e15 < h.length < 7.08e15 and h.constants["phase_step"] < 2.3e-16


def test_one_class_has_no_score_difference_to_bound():
    """A network with one readout row: no class to compare, no phase bound (None)."""
    one = Automaton([[0]], start=0, labels=[0])
    w = Weights("rotation2d", np.eye(2)[None], np.array([1.0, 0.0]), np.array([[1.0, 0.0]]))
    assert _horizon(w, one, RoundOff.for_network("real", w), kept=None) is None


def _monomial(D, h0, R) -> Weights:
    perm = np.array([list(range(len(D)))])
    D = np.array([D])
    return Weights("monomial", monomial_compose(perm, D, exact=False), np.array(h0), np.array(R), factors=(perm, D))


def test_factor_snaps_whose_block_is_no_complex_scalar_are_refused():
    """The factor snap keeps one block of every coordinate.  With three coordinates it is larger
    than 2 (no complex scalar); with two, D = (-1, -0.4) loses its second entry (relative modulus
    below FACTOR_SNAP_ZERO = 0.5): the exact block diag(-1, 0) is no scalar, although the float
    one, alpha = -0.7, beta = -0.3, passes kappa = 3/7 < 1.  Both: None."""
    w = _monomial([-1.0, -0.4], [1.0, 1.0], [[1.0, 0.0], [-1.0, 0.0]])
    snap = factor_snap(w, Z2)
    assert snap.blocks == ((0, 1),) and snap.block_weights.A.tolist() == [[[-1, 0], [0, 0]]]
    proof = prove(snap.block_weights, Z2)
    assert proof.status == "proved"
    assert phase.phase_horizon(w, snap, proof, Z2, RoundOff.for_network("real", w)) is None
    w = _monomial([-1.0, -1.0, 1.0], [1.0, 1.0, 1.0], [[1.0, 1.0, 0.0], [-1.0, -1.0, 0.0]])
    snap = factor_snap(w, Z2)
    assert snap.blocks == ((0, 1, 2),) and snap.basis is None
    proof = prove(snap.block_weights, Z2)
    assert phase.phase_horizon(w, snap, proof, Z2, RoundOff.for_network("real", w)) is None


def test_a_start_the_snap_rounds_to_zero_on_a_kept_block_is_refused():
    """APART from h0 = (1, 2^-30): the snapped start (24 bits) is (1, 0), so the kept second block
    starts at 0 in the snap but not in the float network, which the theorem cannot follow: None.
    With the second coordinate at 2^-20 the snap follows it: every length (real arithmetic)."""
    w = _diagonal(*APART, h0=(1.0, 2.0**-30))
    snap, proof = _case(w, Z2, (0, 1))
    assert list(snap.block_weights.h0) == [1, 0]
    assert phase.phase_horizon(w, snap, proof, Z2, RoundOff.for_network("real", w)) is None
    assert _horizon(_diagonal(*APART, h0=(1.0, 2.0**-20)), Z2, RoundOff.of("real", 2)).length == CAP


def test_a_snap_with_off_block_entries_is_refused():
    """A ``full`` network whose matrices happen to be diagonal, diag(-1, -5/8) and diag(1/2, 5/8),
    on the automaton where symbol 0 leads to state 1 and symbol 1 to state 0; the state-map snap
    maps the states' representatives exactly, by dense matrices: Theorem 24 does not apply (the
    snapped step is not a scalar per block).  Certified anyway, the length was 4, but the word
    0 0 fails: from (1, 1) to (1, 25/64), state 1, whose scores are -1/4 + 50/64 = 17/32 for
    class 0 and 1/4 - 25/128 = 7/128 for class 1."""
    from bilinear.constructions.horizon.snap import state_map_snap

    reset = Automaton([[1, 1], [0, 0]], start=0, labels=[0, 1])
    R = np.array([[-0.25, 2.0], [0.25, -0.5]])
    w = Weights("full", np.stack([np.diag([-1.0, -0.625]), np.diag([0.5, 0.625])]), np.array([1.0, 1.0]), R)
    x = np.diag([-1.0, -0.625]) @ np.diag([-1.0, -0.625]) @ np.array([1.0, 1.0])
    assert x.tolist() == [1.0, 25 / 64] and (R @ x).tolist() == [17 / 32, 7 / 128]
    words = np.array([[0, 0], [0, 1], [1, 0], [1, 1]])
    margins = float64_margins(*w.float_arrays(), reset, words)
    assert (margins[:, :2] > 0).all() and (margins[:2, 2] <= 0).all()
    snap = state_map_snap(w, reset)
    assert snap.basis is None and any(x != 0 for x in snap.block_weights.A[0][[0, 1], [1, 0]])
    proof = prove(snap.block_weights, reset)
    assert proof.status == "proved"
    for arithmetic in ("real", "float64"):
        assert phase.phase_horizon(w, snap, proof, reset, RoundOff.for_network(arithmetic, w)) is None


def test_a_snap_that_zeroes_a_followed_block_is_refused():
    """A snap (made by hand) whose symbol 1 sends the second coordinate to 0, where the float
    network keeps 3/4 of it: the snapped network is proved (y = (1, 1), then (1, 0) on symbol 1),
    the float one fails at length 1 (x = (1, 3/4) reads 3/4 > 1/2 for class 0, label 1).  A
    snapped scalar 0 is outside the theorem (r = alpha / s): None, not a bound."""
    reset = Automaton([[0, 1], [1, 1]], start=0, labels=[0, 1])
    w = Weights("diagonal", np.array([np.eye(2), np.diag([1.0, 0.75])]), np.array([1.0, 1.0]),
                np.array([[0.0, 1.0], [0.5, 0.0]]))
    assert float64_margins(*w.float_arrays(), reset, np.array([[1]]))[0, 1] < 0
    exact = Weights("diagonal", [[[1, 0], [0, 1]], [[1, 0], [0, 0]]], [1, 1], [[0, 1], [Fraction(1, 2), 0]])
    snap = dataclasses.replace(next(snap_candidates(w, reset)), block_weights=exact, kept=(0, 1))
    proof = prove(exact, reset)
    assert proof.status == "proved"
    assert phase.phase_horizon(w, snap, proof, reset, RoundOff.for_network("real", w)) is None


def test_the_work_limit_counts_every_tracked_block(monkeypatch):
    """DRIFT: 2 pairs x 1 other class x 2 blocks = 4 rows of work."""
    w = _diagonal(*DRIFT)
    monkeypatch.setattr(phase, "PHASE_WORK_LIMIT", 4)
    assert _horizon(w, Z2, RoundOff.of("real", 2)).length == 21
    monkeypatch.setattr(phase, "PHASE_WORK_LIMIT", 3)
    assert _horizon(w, Z2, RoundOff.of("real", 2)) is None

"""Theorem 16 (docs/theory.md Section 7), the global horizon, on the cases its own tests left open:
the rounding charged alone (delta without tau, tau without delta, each exactly 1), the readout
condition at equality, a recurrence that fails exactly at the stepped length or stays at rho = 1.

Every expected value is worked out in the test's docstring from the theorem's recurrence
``u' = sigma u + eps + gamma v``, ``v' = rho v + beta (1 + u)`` and its readout condition
``mu > L_K u + L_D v``, with dyadic constants so that the balls are exact points."""

from __future__ import annotations

import dataclasses
import math
from fractions import Fraction

import numpy as np
import pytest
from plain_eval import float64_margins

from bilinear.automata import Automaton
from bilinear.constructions import Weights
from bilinear.constructions.exact.balls import arb, precision
from bilinear.constructions.horizon.horizon_base import STEPPED
from bilinear.constructions.horizon.horizon_global import PerturbationBound, global_horizon, ingredients, iterate
from bilinear.constructions.horizon.roundoff import RoundOff
from bilinear.constructions.horizon.snap import Snap
from bilinear.constructions.proof.prover import prove

NAMES = ("eps", "gamma", "beta", "rho", "sigma", "mu", "lk", "ld")


def _bound(**values) -> PerturbationBound:
    """The constants given (Fractions or ints), the others 0."""
    return PerturbationBound(*(arb(Fraction(values.get(k, 0))) for k in NAMES))


def _fraction(x) -> Fraction:
    """The exact point of a ball (radius 0), as a Fraction."""
    assert x.rad() == 0
    man, exp = x.man_exp()
    return Fraction(int(man)) * Fraction(2) ** int(exp)


# ------------------------------------------------------------------------------------------
# the rounding, each part alone
# ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("delta, tau", [(0, 1), (1, 0), (Fraction(1, 64), 0), (0, Fraction(1, 8)), (0, 0)])
def test_each_part_of_the_rounding_is_charged_alone(delta, tau):
    """with_roundoff adds delta to eps, gamma, beta, rho and sigma, adds tau to L_K and L_D and
    takes it from mu, whichever of the two is 0 (and when one of them is exactly 1)."""
    given = {k: Fraction(i + 1, 16) for i, k in enumerate(NAMES)}
    with precision():
        c = _bound(**given).with_roundoff(arb(delta), arb(tau))
        got = {k: _fraction(getattr(c, k)) for k in NAMES}
    expected = {k: v + delta for k, v in given.items() if k in ("eps", "gamma", "beta", "rho", "sigma")}
    expected.update(mu=given["mu"] - tau, lk=given["lk"] + tau, ld=given["ld"] + tau)
    assert got == expected


def test_the_readout_condition_is_strict_at_equality():
    """mu = 1, L_K = L_D = 2, u = v = 1/4: 1 - 2/4 - 2/4 = 0 exactly, not > 0."""
    with precision():
        c = _bound(mu=1, lk=2, ld=2)
        assert not c.holds(arb(Fraction(1, 4)), arb(Fraction(1, 4)))
        assert c.holds(arb(Fraction(1, 4)), arb(Fraction(1, 5)))


# ------------------------------------------------------------------------------------------
# the stepped recurrence and its end
# ------------------------------------------------------------------------------------------
def test_a_recurrence_failing_exactly_at_the_stepped_length():
    """sigma = 1, eps = 1/256, mu = L_K = 1, the rest 0: u_t = t / 256 and 1 > t / 256 holds for
    t <= 255 only, so 255 = STEPPED - 1 (u_STEPPED is checked before the closed form); with rho
    = 1 (no closed form) as with rho = 0 (closed form from u = 1: nothing more)."""
    assert STEPPED == 256
    with precision():
        for rho in (0, 1):
            assert iterate(_bound(eps=Fraction(1, 256), sigma=1, rho=rho, mu=1, lk=1), arb(0), arb(0), 0) == 255


def test_rho_one_is_stepped_only():
    """rho = 1 exactly and no error at all (eps = gamma = beta = 0, sigma = 1): every stepped
    length holds, but with rho = 1 there is no closed form (beta / (1 - rho)): STEPPED."""
    with precision():
        assert iterate(_bound(sigma=1, rho=1, mu=1, lk=1, ld=1), arb(0), arb(0), 0) == STEPPED
        # and from a start s past 0: still STEPPED
        assert iterate(_bound(sigma=1, rho=1, mu=1, lk=1, ld=1), arb(0), arb(0), 7) == STEPPED
        # even where nothing is read (L_K = L_D = 0): rho = 1 has no closed form to go further
        assert iterate(_bound(sigma=1, rho=1, mu=1), arb(0), arb(0), 0) == STEPPED


# ------------------------------------------------------------------------------------------
# the closed form: no growth factor, the dropped readout alone, no readout difference
# ------------------------------------------------------------------------------------------
def _direct(limit: int, u=Fraction(0), v=Fraction(0), **values) -> int:
    """The largest T <= limit with mu > L_K u_t + L_D v_t for every t <= T, the recurrence stepped
    in Fractions (the constants given, the others 0); -1 when t = 0 fails."""
    g = {k: Fraction(values.get(k, 0)) for k in NAMES}
    for t in range(limit + 1):
        if not g["mu"] > g["lk"] * u + g["ld"] * v:
            return t - 1
        u, v = g["sigma"] * u + g["eps"] + g["gamma"] * v, g["rho"] * v + g["beta"] * (1 + u)
    return limit


def _closed_form(**values):
    from bilinear.constructions.horizon.horizon_global import closed_form

    with precision():
        return closed_form(_bound(**values), arb(0), arb(0))


def test_closed_form_without_growth_is_linear():
    """sigma = 1, gamma = 0: a = sigma - 1 + gamma beta / (1 - rho) = 0, and u_s = s eps = s / 1024
    stays below mu / L_K = 1 for s <= 1023 (the closed form may keep a step or two of slack)."""
    values = dict(eps=Fraction(1, 1024), sigma=1, rho=Fraction(1, 2), mu=1, lk=1)
    assert _direct(1100, **values) == 1023
    assert 1020 <= _closed_form(**values) <= 1023


def test_closed_form_with_the_dropped_readout_alone():
    """L_K = 0, L_D = 1: only v is read.  With beta = 1/8, rho = 1/2, v tends to beta (1 + u) /
    (1 - rho) = (1 + u) / 4, which reaches mu = 1 when u = 3, after about 3 / eps = 3072 steps
    (u_s = s / 1024); the closed form's cap is (mu - L_D e) / (L_K + L_D e) = (3/4) / (1/4) = 3
    with e = beta / (1 - rho) = 1/4, so it certifies a little below 3072, never past the
    recurrence."""
    values = dict(eps=Fraction(1, 1024), sigma=1, beta=Fraction(1, 8), rho=Fraction(1, 2), mu=1, ld=1)
    direct = _direct(3100, **values)
    assert 3072 <= direct <= 3074
    got = _closed_form(**values)
    assert 3060 <= got <= direct


def test_closed_form_with_no_readout_difference_is_every_length():
    """L_K = L_D = 0: mu > 0 whatever u and v (every length, None); and L_K = 0 with beta = 0:
    v_s = rho^s V only shrinks, L_D v never grows (None again)."""
    assert _closed_form(eps=Fraction(1, 1024), sigma=1, rho=Fraction(1, 2), mu=1) is None
    assert _closed_form(eps=Fraction(1, 1024), sigma=1, rho=Fraction(1, 2), mu=1, ld=1) is None
    assert _direct(2000, eps=Fraction(1, 1024), sigma=1, rho=Fraction(1, 2), mu=1, ld=1) == 2000


def test_closed_form_from_a_start_on_the_cap_certifies_nothing_more():
    """u = mu / L_K = 1 exactly, with no growth at all (eps = gamma = 0, sigma = 1): mu > L_K u is
    false already, so no step is certified (0), not every one."""
    assert _direct(10, u=Fraction(1), sigma=1, rho=Fraction(1, 2), mu=1, lk=1) == -1
    from bilinear.constructions.horizon.horizon_global import closed_form

    with precision():
        assert closed_form(_bound(sigma=1, rho=Fraction(1, 2), mu=1, lk=1), arb(1), arb(0)) == 0


def test_closed_form_with_an_unbounded_constant_certifies_nothing_more():
    """eps = +inf (a ball that is not finite, as bmax returns for a NaN norm): with sigma = 1 the
    step count X = (u_max - u) / c' is 0, with sigma = 17/16 (a = 1/16) it is log(inf) / log(17/16),
    no number; no step is certified either way (0)."""
    from bilinear.constructions.exact.balls import INF
    from bilinear.constructions.horizon.horizon_global import closed_form

    with precision():
        for sigma in (1, Fraction(17, 16)):
            c = PerturbationBound(INF, *(arb(Fraction(x)) for x in (0, 0, Fraction(1, 2), sigma, 1, 1, 0)))
            assert closed_form(c, arb(0), arb(0)) == 0


def test_closed_form_at_the_cap():
    """eps = 2^-60, sigma = 1, mu = 5^18, L_K = 2^42 (all exact): u_s = s 2^-60, and mu > L_K u_s
    holds exactly while s < 5^18 2^18 = 10^18 = CAP: the last certified step is 10^18 - 1, so the
    answer is below CAP (the closed form's relative slack of 1e-12 may take a little more off)."""
    from bilinear.constructions.horizon.horizon_base import CAP

    assert 5**18 * 2**18 == CAP == 10**18
    got = _closed_form(eps=Fraction(1, 2**60), sigma=1, rho=Fraction(1, 2), mu=5**18, lk=2**42)
    assert CAP * (1 - 1e-11) <= got <= CAP - 1


def test_closed_form_of_one_step_too_many():
    """eps = 1, sigma = 1, mu = L_K = 1 from u = 0: u_1 = 1 and 1 > 1 fails, so no step past the
    start is certified (0)."""
    values = dict(eps=1, sigma=1, rho=Fraction(1, 2), mu=1, lk=1)
    assert _direct(10, **values) == 0
    assert _closed_form(**values) == 0


# ------------------------------------------------------------------------------------------
# a network built by hand: Z_2 on one symbol, one kept coordinate and one dropped
# ------------------------------------------------------------------------------------------
#: Z_2 on one symbol: the states alternate, labelled 0 and 1.
Z2 = Automaton([[1, 0]], start=0, labels=[0, 1])


def _network(F, h0, R, basis=None, scale=1.0):
    """The float network ``F`` (one 2x2 matrix; in the basis ``basis`` when given: the float
    matrix is P F P^-1, start P h0, readout R P^-1), snapped by hand to S = diag(-1, 0) with y0 =
    (1, 0) and readout ((1, 0), (-1, 0)): kept coordinate 0, dropped 1.  ``scale`` divides the
    float matrix (the snap's scale multiplies it back)."""
    exact = Weights("full", np.array([[[-1, 0], [0, 0]]]), np.array([1, 0]), np.array([[1, 0], [-1, 0]]))
    F, h0, R = (np.array(x, dtype=float) for x in (F, h0, R))
    P = None
    if basis is not None:
        P = np.array([[Fraction(x) for x in row] for row in basis], dtype=object)
        Pf, Pinv = np.array(basis, dtype=float), np.linalg.inv(np.array(basis, dtype=float))
        F, h0, R = Pf @ F @ Pinv, Pf @ h0, R @ Pinv
    w = Weights("full", (F / scale)[None], h0, R)
    snap = Snap(exact, ((0,), (1,)), (0,), (), (scale,), (0.0,), P, "full", "by hand")
    proof = prove(exact, Z2)
    assert proof.status == "proved"
    return w, snap, proof


def _theorem16(F, h0, R, s: int = 32, limit: int = 256) -> int:
    """Theorem 16 for :func:`_network`'s network (in its own basis, ||F[K,K]|| = |F[0,0]| = 1), in
    Fractions: the start scaled by c0 > 0 (least squares against y0 = (1, 0) where that is
    positive, else 1: a scale may not flip the state), the words of length <= s run exactly (-1: the first failing one's
    length - 1), then u_s = |x_s[0] - y_s[0]|, v_s = |x_s[1]| and the recurrence with eps = 0 (F[0,0] =
    -1 = S[0,0]), gamma = |F[0,1]|, beta = |F[1,0]|, rho = |F[1,1]|, sigma = 1, mu = L_K = |R[0,0] -
    R[1,0]| (y = +-1), L_D = |R[0,1] - R[1,1]|, stepped to ``limit`` (the words of length s are right: s at least)."""
    F = [[Fraction(x) for x in row] for row in F]
    c0 = 1 / Fraction(h0[0]) if h0[0] > 0 else 1  # the least-squares scale y0[K] . h0[K] / |h0[K]|^2, if positive
    x, y = [c0 * Fraction(v) for v in h0], Fraction(1)
    R = [[Fraction(v) for v in row] for row in R]
    assert F[0][0] == -1
    for t in range(s + 1):
        lab = t % 2
        if not (R[lab][0] - R[1 - lab][0]) * x[0] + (R[lab][1] - R[1 - lab][1]) * x[1] > 0:
            return t - 1
        if t < s:
            x, y = [F[0][0] * x[0] + F[0][1] * x[1], F[1][0] * x[0] + F[1][1] * x[1]], -y
    lk, ld = abs(R[0][0] - R[1][0]), abs(R[0][1] - R[1][1])
    return s + max(0, _direct(limit - s, u=abs(x[0] - y), v=abs(x[1]), gamma=abs(F[0][1]), beta=abs(F[1][0]),
                              rho=abs(F[1][1]), sigma=1, mu=lk, lk=lk, ld=ld))


#: Coupled both ways by 1/16, the dropped coordinate halving; read on both coordinates.
COUPLED = ([[-1, 1 / 16], [1 / 16, 0.5]], [1, 0.25], [[1, 0.25], [-1, -0.5]])
#: A basis with a dyadic inverse whose dropped column has norm 2 (P^-1 = ((1, 0), (-1/4, 1/2))).
BASIS = [[1, 0], [Fraction(1, 2), 2]]


def _constants(c) -> dict:
    return {k: float(getattr(c, k).mid()) for k in NAMES}


@pytest.mark.parametrize("basis, orthonormal", [(None, False), (BASIS, False), (BASIS, True)])
@pytest.mark.parametrize("read", [1, 1 / 8])
def test_the_constants_of_a_hand_built_network(basis, orthonormal, read):
    """COUPLED in real arithmetic: eps = |F[0,0] + 1| = 0, gamma = beta = 1/16, rho = 1/2, sigma =
    1; the margin (R_l - R_c)[K] . y over the states y = +-1 is 2 = L_K, and L_D = |1/4 + 1/2|
    (the readout times ``read``: each of them times ``read``).  Written in the basis P, the snap's
    basis gives them back; the dropped coordinate made orthonormal (P_D / 2: T_DD = +-1/2) gives
    gamma / 2, 2 beta and L_D / 2."""
    F, h0, R = COUPLED
    w, snap, proof = _network(F, h0, np.array(R) * read, basis=basis)
    with precision():
        c, st = ingredients(w, snap, proof, Z2, RoundOff.of("real", 2), orthonormal)
    k = 2 if orthonormal else 1
    assert _constants(c) == pytest.approx(dict(eps=0, gamma=1 / 16 / k, beta=k / 16, rho=0.5, sigma=1, mu=2 * read,
                                               lk=2 * read, ld=0.75 / k * read), abs=1e-15)
    assert st.K == [0] and st.D == [1] and st.delta == 0 and st.tau == 0


@pytest.mark.parametrize("basis, orthonormal", [(None, False), (BASIS, False), (BASIS, True)])
def test_the_length_is_theorem_16_stepped_by_hand(basis, orthonormal):
    """COUPLED: every word up to 32 is right (run exactly), and the recurrence from (u_32, v_32)
    first fails past 108 (:func:`_theorem16`); in float64 the rounding is far too small to move
    it.  The orthonormal basis scales v by 2 and gamma, L_D by 1/2: the same length."""
    assert _theorem16(*COUPLED) == 108
    w, snap, proof = _network(*COUPLED, basis=basis)
    for arithmetic in ("real", "float64"):
        h = global_horizon(w, snap, proof, Z2, RoundOff.of(arithmetic, 2), orthonormal)
        assert (h.kind, h.length) == ("up to", 108)


def _rounding(**constants) -> RoundOff:
    """float64's rounding model with the given constants (the others 0)."""
    zero = {k: 0 for k in ("step", "readout", "start", "underflow", "readout_underflow", "start_underflow")}
    return dataclasses.replace(RoundOff.of("float64", 2), **{k: arb(v) for k, v in {**zero, **constants}.items()})


@pytest.mark.parametrize("factor", [1, 4])
def test_the_rounding_of_a_hand_built_network(factor):
    """COUPLED (its matrix times ``factor``: the scale brings it back to ||F[K,K]|| = 1) with a
    step gamma of 2^-10, a score gamma of 2^-8 and a start gamma of 2^-6, in the snap's own
    basis (kappa = 1): delta = 2^-10 ||F||_F (relative to the state, whatever the factor), tau =
    2^-8 (||R_0|| + ||R_1||) and a start ball of radius 2^-6 ||h0|| on each coordinate (c0 = 1:
    h0[K] = y0[K])."""
    F, h0, R = COUPLED
    w, snap, proof = _network(np.array(F) * factor, h0, R)
    with precision():
        _, st = ingredients(w, snap, proof, Z2, _rounding(step=2.0**-10, readout=2.0**-8, start=2.0**-6))
        radii = [float(st.x0[j, 0].rad()) for j in range(2)]
        centres = [float(st.x0[j, 0].mid()) for j in range(2)]
    assert float(st.delta.mid()) == pytest.approx(2**-10 * np.linalg.norm(F), rel=1e-12)
    assert float(st.tau.mid()) == pytest.approx(2**-8 * (np.linalg.norm(R[0]) + np.linalg.norm(R[1])), rel=1e-12)
    assert radii == pytest.approx([2**-6 * np.linalg.norm(h0)] * 2, rel=1e-6)
    assert centres == pytest.approx(h0, abs=1e-12)


def test_the_rounding_in_a_basis_is_charged_with_its_condition_number():
    """COUPLED in the basis P = ((1, 0), (1/2, 2)): a step error of gamma ||A||_F ||h|| in the
    float basis is at most kappa = ||P|| ||P^-1|| times that relative to the state in P's basis
    (||P|| = 2.0797, ||P^-1|| = ||P|| / det P, the singular values written out by hand from
    P^T P = ((5/4, 1), (1, 4))); a score error gamma_r (||R_0|| + ||R_1||) ||h|| is at most ||P||
    times that; a start error gamma_s ||h0|| at most ||P^-1|| times that.  The norms are bounded
    from above (powers of M^T M): within 2% of the true ones."""
    F, h0, R = COUPLED
    w, snap, proof = _network(F, h0, R, basis=BASIS)
    A, h0f, Rf = w.float_arrays()
    top = np.sqrt((5.25 + np.sqrt(2.75**2 + 4)) / 2)  # the largest singular value of P
    assert top == pytest.approx(np.linalg.norm(np.array(BASIS, dtype=float), 2), rel=1e-12)
    p, pinv = top, top / 2
    with precision():
        _, st = ingredients(w, snap, proof, Z2, _rounding(step=2.0**-10, readout=2.0**-8, start=2.0**-6))
        radius = float(st.x0[0, 0].rad())
    for got, true in ((st.delta, 2**-10 * p * pinv * np.linalg.norm(A[0])),
                      (st.tau, 2**-8 * p * (np.linalg.norm(Rf[0]) + np.linalg.norm(Rf[1]))),
                      (radius, 2**-6 * pinv * np.linalg.norm(h0f))):
        assert true * (1 - 1e-9) <= float(got if isinstance(got, float) else got.mid()) <= 1.02**2 * true


def test_the_real_part_is_made_once_per_network_and_basis():
    """certify asks for the horizon in three arithmetics on one snap: the basis change and the
    constants are made once per (weights, snap, proof, automaton, orthonormal) and given back as
    the same object, and another basis or another network gets its own."""
    from bilinear.constructions.horizon.horizon_global import _real_part

    w, snap, proof = _network(*COUPLED, basis=BASIS)
    with precision():
        first = _real_part(w, snap, proof, Z2, False)
        assert _real_part(w, snap, proof, Z2, False) is first
        other = _real_part(w, snap, proof, Z2, True)
        assert other is not first and _real_part(w, snap, proof, Z2, True) is other
        w2 = Weights("full", *w.float_arrays())
        assert _real_part(w2, snap, proof, Z2, False) is not first


def test_a_dropped_two_by_two_block_has_its_exact_norm():
    """d = 3, the dropped block (1, 2) a Jordan-like [[1/2, 1/4], [0, 1/2]]: its 2-norm, from
    M^T M = ((1/4, 1/8), (1/8, 5/16)) (trace 9/16, determinant 1/16), is sqrt((9 + sqrt 17) / 32),
    which the exact formula of a 2x2 block gives (the powers of M^T M only bound it from above)."""
    exact = Weights("full", np.array([np.diag([-1, 0, 0])]), np.array([1, 0, 0]), np.array([[1, 0, 0], [-1, 0, 0]]))
    F = np.array([[[-1, 0, 0], [0, 0.5, 0.25], [0, 0, 0.5]]])
    w = Weights("full", F, np.array([1.0, 0.25, 0.25]), np.array([[1.0, 0, 0], [-1.0, 0, 0]]))
    snap = Snap(exact, ((0,), (1, 2)), (0,), (), (1.0,), (0.0,), None, "full", "by hand")
    proof = prove(exact, Z2)
    with precision():
        c, _ = ingredients(w, snap, proof, Z2, RoundOff.of("real", 3))
    assert float(c.rho.mid()) == pytest.approx(((9 + 17**0.5) / 32) ** 0.5, rel=1e-12)


# ------------------------------------------------------------------------------------------
# the exhaustive start: a word that fails, at 0 and later
# ------------------------------------------------------------------------------------------
#: The dropped coordinate doubles a step; read by the score with weight 3/4: the start's 1/4 is
#: 2^t / 4 at length t, and the margin 2 - (3/4) 2^t / 4 is negative first at t = 5 (label 1,
#: x = (-1, 8): (R_1 - R_0) . x = 2 - 6).
GROWING = ([[-1, 0], [0, 2]], [1, 0.25], COUPLED[2])


def test_a_word_failing_in_the_exhaustive_start_ends_the_horizon_before_it():
    """GROWING fails at length 5 (run exactly here, :func:`_theorem16`): certified up to 4, in
    both bases; a start on the wrong side (h0 = (1, -8): 2 - 6 < 0 on the empty word) certifies
    nothing."""
    assert _theorem16(*GROWING) == 4
    for basis in (None, BASIS):
        w, snap, proof = _network(*GROWING, basis=basis)
        h = global_horizon(w, snap, proof, Z2, RoundOff.of("real", 2))
        assert (h.kind, h.length) == ("up to", 4) and h.note.startswith("a word of length 5 ")
    assert _theorem16(GROWING[0], [1, -8], GROWING[2]) == -1
    w, snap, proof = _network(GROWING[0], [1, -8], GROWING[2])
    h = global_horizon(w, snap, proof, Z2, RoundOff.of("float64", 2))
    assert h.kind == "none" and h.note.startswith("a word of length 0 ")


# ------------------------------------------------------------------------------------------
# the ceiling: never below the horizon, and the bound its docstring states
# ------------------------------------------------------------------------------------------
IDENTITY = [[1, 0], [0, 1]]


@pytest.mark.parametrize("F, basis, ceiling, horizon", [
    # the dropped coordinate just below 1: every length, so no ceiling
    ([[-1, 0], [0, 1 - 2.0**-30]], IDENTITY, float("inf"), None),
    # just at 1 + 1e-6 (the float norm's slack) in both bases: stepped only, to 256
    ([[-1, 0], [0, 1 + 1e-6]], IDENTITY, 256, 256),
    # doubling in both bases (the orthonormal one scales it by T_DD and back): at most 256
    (GROWING[0], BASIS, 256, 4),
    # and with no basis of its own, the dropped norm is not looked at
    (GROWING[0], None, float("inf"), 4),
])
def test_the_ceiling_of_a_dropped_coordinate(F, basis, ceiling, horizon):
    """eps = 0 (F[0,0] = -1 = S[0,0]), so only the dropped norm rho can bound: where it is at least
    1 + 1e-6 in both bases (P's, and P_D orthonormal) the recurrence is only stepped, to 256."""
    from bilinear.constructions.horizon.horizon_global import global_ceiling

    w, snap, proof = _network(F, [1, 0.25], COUPLED[2], basis=basis)
    assert global_ceiling(w, snap) == ceiling
    h = global_horizon(w, snap, proof, Z2, RoundOff.of("real", 2))
    assert h.length == horizon and (h.length is None) == h.every
    assert h.order_key() <= ceiling


def test_the_ceiling_of_a_kept_coordinate_off_by_its_sign():
    """F[0,0] = +1 against S[0,0] = -1: eps = 2, and no length beyond the exhaustive depth plus
    1 / eps passes mu > L_K u (u_t >= (t - s) eps, mu <= L_K): the ceiling is 32 + 2 + (1 + 1e-6)
    / 2 (two steps and a relative 1e-6 of slack, the docstring's).  A zero kept block (no scale)
    has no ceiling."""
    from bilinear.constructions.horizon.horizon_global import global_ceiling

    w, snap, _ = _network([[1, 1 / 16], [1 / 16, 0.5]], [1, 0.25], COUPLED[2])
    assert global_ceiling(w, snap) == 32 + 2 + (1 + 1e-6) / 2
    w, snap, _ = _network([[0, 0], [0, 0.5]], [1, 0.25], COUPLED[2], basis=BASIS)
    assert global_ceiling(w, snap) == float("inf")


# ------------------------------------------------------------------------------------------
# the start's scale
# ------------------------------------------------------------------------------------------
def test_a_start_pointing_away_from_the_snapped_one_is_not_flipped():
    """A bug this file found: COUPLED started at -h0 = (-1, -1/4) is wrong on every word (on the
    empty word (R_0 - R_1) . h0 = 2 (-1) + (3/4)(-1/4) < 0; each state is -1 times COUPLED's),
    but the least-squares scale of the start was -1, so the horizon was certified for COUPLED's
    states instead (up to 108).  A scale must be positive: nothing is certified now."""
    F, h0, R = COUPLED
    start = [-x for x in h0]
    assert _theorem16(F, start, R) == -1
    A, h, Rf = _network(F, start, R)[0].float_arrays()
    assert float64_margins(A, h, Rf, Z2, np.zeros((1, 8), dtype=np.int64))[0].max() < 0
    w, snap, proof = _network(F, start, R)
    for arithmetic in ("real", "float64"):
        h = global_horizon(w, snap, proof, Z2, RoundOff.of(arithmetic, 2))
        assert h.kind == "none" and h.note.startswith("a word of length 0 "), h


#: Coupled with negative signs: from a start with no kept part the coupling builds one up.
TOWARDS = [[-1, -1 / 4], [-1 / 8, 1 / 2]]


@pytest.mark.parametrize("F, start, length", [(COUPLED[0], (0.5, 0.125), 108), (COUPLED[0], (4.0, 1.0), 108),
                                              (COUPLED[0], (0.0, 1.0), 0), (TOWARDS, (0.0, 1.0), 35)])
def test_the_start_is_scaled_to_the_snapped_one(F, start, length):
    """COUPLED's start halved or quadrupled: scaled back by c0 = 2 or 1/4 (least squares against y0
    = (1, 0)), the same 108.  A start with no kept part (h0[K] = 0) is taken as it is (scale 1):
    COUPLED's is right on the empty word ((R_0 - R_1) . (0, 1) = 3/4) and wrong at length 1
    ((R_1 - R_0) . (1/16, 1/2) = -1/8 - 3/8); TOWARDS's passes the 32 words run exactly, and the
    recurrence from there (:func:`_theorem16`) gives 35 (38 for the start doubled: the scale
    counts)."""
    R = COUPLED[2]
    assert _theorem16(F, start, R) == length
    if start[0] == 0:
        assert _theorem16(F, [2 * x for x in start], R) == {0: 0, 35: 38}[length]
    w, snap, proof = _network(F, start, R)
    h = global_horizon(w, snap, proof, Z2, RoundOff.of("real", 2))
    assert (h.kind, h.length) == ("up to", length)


def test_with_nothing_dropped_the_dropped_constants_are_zero():
    """d = 1, the float network the snapped one (-1 on Z_2): no dropped coordinate, so gamma =
    beta = rho = L_D = 0; eps = 0 and u stays 0: every length."""
    exact = Weights("full", np.array([[[-1]]]), np.array([1]), np.array([[1], [-1]]))
    w = Weights("full", np.array([[[-1.0]]]), np.array([1.0]), np.array([[1.0], [-1.0]]))
    snap = Snap(exact, ((0,),), (0,), (), (1.0,), (0.0,), None, "full", "by hand")
    proof = prove(exact, Z2)
    with precision():
        c, st = ingredients(w, snap, proof, Z2, RoundOff.of("real", 1))
    assert st.D == [] and _constants(c) == dict(eps=0, gamma=0, beta=0, rho=0, sigma=1, mu=2, lk=2, ld=0)
    assert global_horizon(w, snap, proof, Z2, RoundOff.of("real", 1)).every


# ------------------------------------------------------------------------------------------
# the rounding in the exhaustive start
# ------------------------------------------------------------------------------------------
def test_a_state_is_rounded_by_delta_times_its_norm():
    """(3, 4) with delta = 1/4: a box of radius 5/4 around each coordinate; delta = 0 leaves it."""
    from bilinear.constructions.exact.balls import column
    from bilinear.constructions.horizon.horizon_global import _round

    with precision():
        x = column([arb(3), arb(4)])
        r = _round(x, arb(Fraction(1, 4)))
        assert [float(r[j, 0].mid()) for j in range(2)] == [3, 4]
        assert [float(r[j, 0].rad()) for j in range(2)] == pytest.approx([1.25, 1.25], rel=1e-8)  # radii: 30 bits
        assert _round(x, arb(0)) is x


def test_a_step_error_as_large_as_the_state_fails_at_the_first_step():
    """F = diag(-1, 0) (||F||_F = 1) with a step gamma of exactly 1: delta = 1, so the state after
    one symbol is only known within ||x|| per coordinate, and its margin (R_1 - R_0) . x = 2 -/+
    2.75 is not certainly positive: certified up to 0 (the empty word is exact)."""
    w, snap, proof = _network([[-1, 0], [0, 0]], [1, 0], COUPLED[2])
    h = global_horizon(w, snap, proof, Z2, _rounding(step=1.0))
    assert float(h.constants["roundoff_step"]) == 1.0
    assert (h.kind, h.length) == ("up to", 0) and h.note.startswith("a word of length 1 ")


@pytest.mark.parametrize("readout, length", [(0.0, 4), (0.1, 4), (0.125, 2)])
def test_the_score_rounding_is_charged_on_the_exhaustive_start(readout, length):
    """GROWING fails at 5 (2 - 6 < 0).  At length 3 (x = (-1, 2), label 1) its margin is 2 - (3/4) 2
    = 1/2, less tau ||x|| = tau sqrt 5; tau = gamma_r (||R_0|| + ||R_1||) = gamma_r (sqrt(17/16) +
    sqrt(5/4)) = 2.1488 gamma_r, so gamma_r = 1/10 (tau sqrt 5 = 0.4805) still passes 3 (but
    would not against tau sqrt 6, a norm one too large), and 1/8 (0.6006) fails there: up to 2.
    Lengths 0, 1 and 2 keep margins 2.1875, 1.625 and 2.75 against tau times 1.03, 1.12 and 1.41."""
    w, snap, proof = _network(*GROWING)
    pair = (17 / 16) ** 0.5 + (5 / 4) ** 0.5
    assert 0.1 * pair * 5**0.5 < 0.5 < min(0.1 * pair * 6**0.5, 0.125 * pair * 5**0.5)
    assert 0.125 * pair * 1.42 < 1.625
    h = global_horizon(w, snap, proof, Z2, _rounding(readout=readout))
    assert (h.kind, h.length) == ("up to", length)


def test_a_margin_of_exactly_zero_in_the_exhaustive_start_is_a_failure():
    """GROWING read with R = ((1, 1/4), (-1, -3/4)): at length 3 (x = (-1, 2), label 1) the margin
    (R_1 - R_0) . x = (-2, -1) . (-1, 2) = 0 exactly, a tie: certified up to 2."""
    R = [[1, 0.25], [-1, -0.75]]
    assert _theorem16(GROWING[0], GROWING[1], R) == 2
    w, snap, proof = _network(GROWING[0], GROWING[1], R)
    h = global_horizon(w, snap, proof, Z2, RoundOff.of("real", 2))
    assert (h.kind, h.length) == ("up to", 2) and h.note.startswith("a word of length 3 ")


@pytest.mark.parametrize("max_nodes, depth", [(4, 2), (3, 1), (8, 3), (1, 0)])
def test_the_exhaustive_start_stops_before_a_level_of_more_words_than_its_limit(max_nodes, depth):
    """Parity on two symbols (0 keeps the state, 1 flips it), the float network its snap: levels
    of 1, 2, 4, 8 words; the last level run is the deepest not more than ``max_nodes`` words."""
    from bilinear.constructions.horizon.horizon_global import exhaustive

    parity = Automaton([[0, 1], [1, 0]], start=0, labels=[0, 1])
    S = np.array([np.diag([1, 0]), np.diag([-1, 0])])
    exact = Weights("full", S, np.array([1, 0]), np.array([[1, 0], [-1, 0]]))
    w = Weights("full", S.astype(float), np.array([1.0, 0.0]), np.array([[1.0, 0.0], [-1.0, 0.0]]))
    snap = Snap(exact, ((0,), (1,)), (0,), (), (1.0, 1.0), (0.0, 0.0), None, "full", "by hand")
    proof = prove(exact, parity)
    with precision():
        _, st = ingredients(w, snap, proof, parity, RoundOff.of("real", 2))
        s, u, v, failed = exhaustive(parity, st, max_nodes)
    assert (s, failed) == (depth, None) and u == 0 and v == 0


def test_one_symbol_is_run_exhaustively_to_the_deepest_level():
    """One symbol never makes a level grow: the exhaustive start stops at MAX_EXHAUSTIVE_DEPTH =
    32, with u_32 = |x_32[0] - y_32[0]| and v_32 = |x_32[1]| of COUPLED's state run here exactly
    (y_32 = (-1)^32 = 1), reported as the start error u + v; with nothing dropped (d = 1, the snap itself) v = 0 and the start error
    u + v is 0."""
    from bilinear.constructions.horizon.horizon_base import MAX_EXHAUSTIVE_DEPTH
    from bilinear.constructions.horizon.horizon_global import exhaustive

    F = [[Fraction(x) for x in row] for row in COUPLED[0]]
    x = [Fraction(v) for v in COUPLED[1]]
    for _ in range(32):
        x = [F[0][0] * x[0] + F[0][1] * x[1], F[1][0] * x[0] + F[1][1] * x[1]]
    w, snap, proof = _network(*COUPLED)
    with precision():
        _, st = ingredients(w, snap, proof, Z2, RoundOff.of("real", 2))
        s, u, v, failed = exhaustive(Z2, st)
    assert (MAX_EXHAUSTIVE_DEPTH, s, failed) == (32, 32, None)
    assert float(u.mid()) == pytest.approx(float(abs(x[0] - 1)), rel=1e-12)
    assert float(v.mid()) == pytest.approx(float(abs(x[1])), rel=1e-12)
    h = global_horizon(w, snap, proof, Z2, RoundOff.of("real", 2))
    assert h.constants["start_error"] == pytest.approx(float(abs(x[0] - 1) + abs(x[1])), rel=1e-12)
    exact = Weights("full", np.array([[[-1]]]), np.array([1]), np.array([[1], [-1]]))
    w = Weights("full", np.array([[[-1.0]]]), np.array([1.0]), np.array([[1.0], [-1.0]]))
    snap = Snap(exact, ((0,),), (0,), (), (1.0,), (0.0,), None, "full", "by hand")
    h = global_horizon(w, snap, prove(exact, Z2), Z2, RoundOff.of("real", 1))
    assert h.every and h.constants["start_error"] == 0


@pytest.mark.parametrize("F, start, rho_below_one", [
    ([[-1, 0], [0, 1]], [1, 0.25], False),  # rho = 1 exactly: stepped only, 256
    ([[-1, 1 / 64], [1 / 8, 1 / 4]], [1, 1 / 8], True),  # rho = 1/4: the recurrence fails past 258
])
def test_the_note_says_when_the_dropped_blocks_do_not_contract(F, start, rho_below_one):
    """The note says "stepped bound only" exactly where rho >= 1 stopped the recurrence at 256: a
    dropped coordinate kept at norm 1 (decoupled: right at every length, but no closed form), and
    not for rho = 1/4 where the recurrence stepped here first fails at 259 and the closed form
    from 256 adds nothing."""
    R = COUPLED[2]
    w, snap, proof = _network(F, start, R)
    h = global_horizon(w, snap, proof, Z2, RoundOff.of("real", 2))
    assert ("do not contract (rho >= 1): stepped bound only" in h.note) == (not rho_below_one)
    if rho_below_one:
        assert _theorem16(F, start, R, limit=400) == 258
        assert 256 <= h.length <= 258
    else:
        assert _theorem16(F, start, R, limit=400) == 400 and h.length == 256


def test_a_score_rounding_of_exactly_one_is_charged():
    """GROWING read by R = ((1, 0), (-1, 0)) (||R_0|| + ||R_1|| = 2) with a score gamma of 1/2: tau =
    1 exactly, and the margin 2 - tau ||x|| = 2 - sqrt(1 + 4^t / 16) of x = (+-1, 2^t / 4) is
    positive for t <= 2 only (4^3 / 16 = 4 > 3): up to 2."""
    R = [[1, 0], [-1, 0]]
    assert [2 - (1 + 4**t / 16) ** 0.5 > 0 for t in range(4)] == [True, True, True, False]
    w, snap, proof = _network(GROWING[0], GROWING[1], R)
    h = global_horizon(w, snap, proof, Z2, _rounding(readout=0.5))
    assert (h.kind, h.length) == ("up to", 2) and h.note.startswith("a word of length 3 ")


def test_the_ceiling_of_a_turned_plane():
    """One kept 2x2 block snapped to the quarter turn S = ((0, -1), (1, 0)), the float matrix ((e,
    -1), (1, e)) with e = 1/8: scaled to norm 1 it is the turn by pi/2 - atan(1/8), so eps = ||F -
    S|| = 2 sin(atan(1/8) / 2) (two rotations differ by a chord) and the ceiling is 32 + 2 + (1 +
    1e-6) / eps; nothing is dropped."""
    from bilinear.constructions.horizon.horizon_global import global_ceiling

    e = 1 / 8
    exact = Weights("full", np.array([[[0, -1], [1, 0]]]), np.array([1, 0]),
                    np.array([[1, 0], [0, 1], [-1, 0], [0, -1]]))
    w = Weights("full", np.array([[[e, -1], [1, e]]]), np.array([1.0, 0.0]), np.array(exact.readout, dtype=float))
    snap = Snap(exact, ((0, 1),), (0,), (), (1.0,), (0.0,), None, "full", "by hand")
    eps = 2 * math.sin(math.atan(e) / 2)
    assert global_ceiling(w, snap) == pytest.approx(32 + 2 + (1 + 1e-6) / eps, rel=1e-12)

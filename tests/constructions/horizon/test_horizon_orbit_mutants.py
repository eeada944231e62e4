"""Theorem 19 (docs/theory.md Section 7), the orbit horizon, on the cases its own tests left open:
the recurrence started past STEPPED, dropped blocks that do not contract (rho = 1, rho = 3/2),
the closed form's length to the step, the readout condition at a tie, and the constants of
hand-made snaps (one kept coordinate, lengths and norms below 1, one class, a basis P, the
rounding model's delta, tau and start ball, each refusal).

Every expected value is worked out here: lengths by stepping the theorem's recurrence in
Fractions (:func:`_stepped`), constants by hand from their definitions in the module docstring."""

from __future__ import annotations

import dataclasses
import math
from fractions import Fraction as Fr

import flint
import mpmath
import numpy as np
import pytest

from bilinear.automata import Automaton
from bilinear.constructions import Weights
from bilinear.constructions.exact.balls import arb, precision
from bilinear.constructions.horizon import horizon_orbit as ho
from bilinear.constructions.horizon.horizon_base import STEPPED
from bilinear.constructions.horizon.horizon_orbit import OrbitPerturbationBound, iterate_orbit
from bilinear.constructions.horizon.roundoff import RoundOff
from bilinear.constructions.horizon.snap import Snap

NAMES = ("eps", "gamma", "beta", "rho", "n", "ymax", "mu", "lk", "ld", "tau")


def _bound(pairs=(), **values) -> OrbitPerturbationBound:
    """A bound of exact points: the constants given (Fractions), the others 0."""
    xs = {k: Fr(values.get(k, 0)) for k in NAMES}
    return OrbitPerturbationBound(**{k: arb(x) for k, x in xs.items()},
                                  pairs=tuple(tuple(arb(Fr(x)) for x in p) for p in pairs))


def _stepped(s: int, limit: int, u=0, v=0, pairs=(), **values) -> int:
    """Theorem 19's recurrence stepped in 80-digit numbers from the errors (u, v) after depth s: the
    largest T <= limit with ``m_lc - tau (W_t + V_t) > L_K U_t + L_D V_t`` for every pair at
    every s < t <= T (``C_t = C_{t-1} + eps W_{t-1} + gamma V_{t-1}``, ``V_t = rho V_{t-1} +
    beta W_{t-1}``, ``U_t = N (u + C_t)``, ``W_t = Ymax + U_t``, ``W_s = Ymax + u``)."""
    with mpmath.workdps(80):
        f = lambda x: mpmath.mpf(Fr(x).numerator) / Fr(x).denominator  # noqa: E731
        c = {k: f(values.get(k, 0)) for k in NAMES}
        checks = [tuple(f(x) for x in p) for p in pairs] or [(c["mu"], c["lk"], c["ld"])]
        C, V, W = mpmath.mpf(0), f(v), c["ymax"] + f(u)
        for t in range(s + 1, limit + 1):
            C, V = C + c["eps"] * W + c["gamma"] * V, c["rho"] * V + c["beta"] * W
            U = c["n"] * (f(u) + C)
            W = c["ymax"] + U
            if not all(m - c["tau"] * (W + V) - lk * U - ld * V > 0 for m, lk, ld in checks):
                return t - 1
        return limit


def _iterate(s: int, u=0, v=0, pairs=(), **values):
    with precision():
        return iterate_orbit(_bound(pairs, **values), arb(Fr(u)), arb(Fr(v)), s)


# ------------------------------------------------------------------------------------------
# the readout condition
# ------------------------------------------------------------------------------------------
def test_the_readout_condition_is_strict_and_charges_tau_on_w_plus_v():
    """``holds`` against ``m - tau (W + V) - L_K U - L_D V > 0`` on a grid of dyadic points, where
    the difference is often exactly 0 (a tie is not right) and tau (W - V) would differ."""
    grid = [Fr(0), Fr(1, 4), Fr(1, 2), Fr(1), Fr(2)]
    seen = set()
    with precision():
        for m, tau, lk, ld in [(1, Fr(1, 4), 1, 0), (1, Fr(1, 2), Fr(1, 2), 1), (Fr(3, 2), 0, 1, Fr(1, 2))]:
            c = _bound(mu=m, tau=tau, lk=lk, ld=ld)
            for u in grid:
                for v in grid:
                    for w in grid:
                        want = m - tau * (w + v) - lk * u - ld * v > 0
                        seen.add((want, m - tau * (w + v) - lk * u - ld * v == 0))
                        assert c.holds(arb(u), arb(v), arb(w)) == want, (m, tau, lk, ld, u, v, w)
    assert {(False, True), (True, False), (False, False)} <= seen  # ties, and both answers


# ------------------------------------------------------------------------------------------
# the recurrence: stepped part, closed form, rho >= 1, an exhaustive depth past STEPPED
# ------------------------------------------------------------------------------------------
#: eps, gamma, beta, rho, N, Y, mu, L_K, L_D, tau, u_s, v_s: each fails inside the stepped part
STEPPED_CASES = [
    # a start error u_s as large as the margin: W_s = Y + u_s (not Y - u_s) decides the first step
    ("1/2", 0, 0, 0, 1, 1, 1, 1, 0, 0, "1/2", 0),
    ("1/4", 0, 0, 0, 1, 1, 1, 1, 0, 0, "1/4", 0),
    ("1/8", 0, 0, 0, 2, "3/2", 2, 1, 0, 0, "1/8", 0),
    ("1/16", "1/8", "1/4", "1/2", 1, 1, 2, 1, 1, "1/8", "1/4", "1/2"),
]


@pytest.mark.parametrize("case", STEPPED_CASES)
def test_theorem_19_stepped_part_starts_from_y_plus_u(case):
    values = dict(zip(NAMES, case[:10]))
    want = _stepped(0, STEPPED, u=case[10], v=case[11], **values)
    assert want < STEPPED
    assert _iterate(0, u=case[10], v=case[11], **values) == want


#: W_t = Y (1 + N eps)^t exactly (gamma = beta = 0, u = v = 0): the closed form is exact but
#: for its one step of slack (``ceil(X) - 2``), so the length is the recurrence's minus one.
GEOMETRIC = dict(eps=Fr(1, 1024), n=1, ymax=1, mu=1, lk=1)


@pytest.mark.parametrize("s", [0, 5, STEPPED - 1, STEPPED, 300])
def test_theorem_19_closed_form_is_the_recurrence_less_one_step(s):
    """(1 + 1/1024)^t < 2 up to t = 710 (ln 2 / ln(1 + 1/1024) = 710.1): from depth s the
    recurrence holds to s + 710, the closed form certifies s + 709; from s >= STEPPED the
    recurrence is stepped once (to s + 1) before the closed form."""
    want = _stepped(s, 2000, **GEOMETRIC)
    assert want == s + 710 and math.log(2) / math.log1p(1 / 1024) - 710 > 0.1
    assert _iterate(s, **GEOMETRIC) == want - 1


@pytest.mark.parametrize("s", [0, 300])
def test_theorem_19_without_contraction_stops_at_the_stepped_part(s):
    """rho = 1 exactly, and rho = 3/2 with a dropped part growing from beta = 2^-200: the length
    is the stepped part's (STEPPED, or s + 1 from a depth s past it), below the recurrence's."""
    want = max(STEPPED, s + 1)
    for rho, beta, ld in [(1, 0, 0), (1, Fr(1, 2 ** 40), 1), (Fr(3, 2), Fr(1, 2 ** 200), 1)]:
        values = dict(GEOMETRIC, rho=rho, beta=beta, ld=ld)
        assert _stepped(s, want + 1, **values) == want + 1  # the recurrence holds one step more
        assert _iterate(s, **values) == want, (rho, beta)
    # the growing dropped part fails the recurrence itself near t = 339 (V_t ~ 2^-199 (3/2)^t meets
    # 1 - U_t ~ 0.6), well before the 709 a closed form that ignored rho >= 1 would certify
    assert 300 < _stepped(0, 400, **dict(GEOMETRIC, rho=Fr(3, 2), beta=Fr(1, 2 ** 200), ld=1)) < 400


def test_theorem_19_one_step_past_a_deep_exhaustive_phase_can_fail():
    """From a depth s = 300 past STEPPED the first step (301) is checked: U_301 = N eps Y = 1/2
    against a margin of 1/2 fails, so the length is the depth itself."""
    values = dict(eps=Fr(1, 2), n=1, ymax=1, mu=Fr(1, 2), lk=1)
    assert _stepped(300, 400, **values) == 300
    assert _iterate(300, **values) == 300


def test_theorem_19_closed_form_charges_the_coupling_through_the_dropped_part():
    """eps = 0: W grows only through gamma V with V ~ beta W / (1 - rho), i.e. by about
    N gamma beta / (1 - rho) = 1/1024 a step (the recurrence holds to 713); the closed form must
    not pass the recurrence, and certifies well past the stepped part (a = eps - gamma beta /
    (1 - rho) < 0 would certify nothing past it)."""
    values = dict(gamma=Fr(1, 4), beta=Fr(1, 512), rho=Fr(1, 2), n=1, ymax=1, mu=1, lk=1)
    truth = _stepped(0, 1000, **values)
    assert 700 < truth < 1000
    got = _iterate(0, **values)
    assert 0.6 * truth <= got <= truth


#: the dropped part V ~ r W (r = beta / (1 - rho) = 1/8) read by L_D, the readout rounding tau on
#: W + V, both in the closed form's cap on W: (mu + L_K Y - (tau + L_D) V) / (L_K + tau + (tau + L_D) r)
CAPPED = [dict(GEOMETRIC, beta=Fr(1, 16), rho=Fr(1, 2), ld=1), dict(GEOMETRIC, tau=Fr(1, 8)),
          dict(GEOMETRIC, beta=Fr(1, 16), rho=Fr(1, 2), ld=Fr(1, 2), tau=Fr(1, 16))]


@pytest.mark.parametrize("values", CAPPED)
def test_theorem_19_closed_form_cap_charges_tau_and_the_dropped_part(values):
    truth = _stepped(0, 2000, **values)
    assert STEPPED < truth < 2000
    got = _iterate(0, **values)
    assert 0.8 * truth <= got <= truth


def test_theorem_19_closed_form_certifies_nothing_when_its_cap_is_reached_exactly():
    """eps = gamma = 0, beta = 1/2, rho = 0: W_t = Y = 1 and V_t = 1/2 at every step (the
    recurrence holds at every length: 1 - 1/2 > 0), but the closed form bounds V_{T+k} by
    V + r W = 1 with r = beta / (1 - rho) = 1/2, and its cap on W is then
    (1 + 1 - 1/2) / (1 + 1/2) = 1 = W exactly: the strict condition fails there, so not one step
    is added to the stepped part (and a = 0, which would certify every length, is not reached)."""
    values = dict(beta=Fr(1, 2), n=1, ymax=1, mu=1, lk=1, ld=1)
    assert _stepped(0, 400, **values) == 400
    assert _iterate(0, **values) == STEPPED


def test_theorem_19_closed_form_adds_nothing_when_the_cap_is_less_than_one_step_away():
    """(1 + 1/1024)^256 - 1 < mu = 0.2847 < (1 + 1/1024)^257 - 1: the recurrence fails at 257,
    and the closed form from step 256, whose cap is less than one step away, adds nothing."""
    values = dict(GEOMETRIC, mu=Fr(2847, 10000))
    assert (1 + Fr(1, 1024)) ** 256 - 1 < values["mu"] < (1 + Fr(1, 1024)) ** 257 - 1
    assert _stepped(0, 400, **values) == STEPPED
    assert _iterate(0, **values) == STEPPED


def test_theorem_19_closed_form_crossing_at_an_integer_keeps_its_step_of_slack():
    """mu = (1 + 1/1024)^600 - 1 exactly: W_t = (1 + 1/1024)^t reaches the cap 1 + mu at t = 600
    exactly, so the recurrence holds to 599 and the closed form (X = 600 - 256 steps to the cap,
    an integer up to the balls' last bits) certifies one step less, 598."""
    values = dict(GEOMETRIC, mu=(1 + Fr(1, 1024)) ** 600 - 1)
    assert _stepped(0, 700, **values) == 599
    assert _iterate(0, **values) == 598


# ------------------------------------------------------------------------------------------
# the orbit and the constants of hand-made snaps
# ------------------------------------------------------------------------------------------
def _snap(S, h0, R, blocks, kept, scale, basis=None) -> Snap:
    """A snap made by hand: the exact block-basis network (S, h0, R), its blocks and kept blocks."""
    n = len(S)
    return Snap(Weights("full", S, h0, R), blocks, kept, (), tuple(scale), (0.0,) * n, basis, "full", "hand", False)


def test_products_and_vectors_of_any_shape():
    """_mat_mul and _mat_vec by hand: (3x2)(2x3), (2x1)(1x2) and a 1x1 product, zeros skipped."""
    X = ((1, 2), (0, 0), (Fr(1, 2), -1))
    Y = ((1, 0, 2), (0, 3, -1))
    assert ho._mat_mul(X, Y) == ((1, 6, 0), (0, 0, 0), (Fr(1, 2), -3, 2))
    assert ho._mat_mul(((2,), (3,)), ((5, 7),)) == ((10, 14), (15, 21))
    assert ho._mat_mul(((-1,),), ((Fr(1, 2),),)) == ((Fr(-1, 2),),)
    assert ho._mat_vec(X, (4, 5)) == (14, 0, -3)
    assert ho._mat_vec(((3,),), (Fr(1, 3),)) == (1,)


def test_the_orbit_of_one_kept_coordinate():
    """Z_2 on one symbol, the kept coordinate 0 flipped by -1 (coordinate 1 dropped): the products
    {1, -1}, the pairs (0, 1/2) and (1, -1/2)."""
    aut = Automaton([[1, 0]], start=0, labels=[0, 1])
    snap = _snap([[[-1, 0], [0, 0]]], [Fr(1, 2), 0], [[1, 0], [-1, 0]], ((0,), (1,)), (0,), (1.0,))
    orbit = ho.exact_orbit(snap, aut)
    assert orbit.products == (((1,),), ((-1,),))
    assert orbit.pairs == ((0, (Fr(1, 2),)), (1, (Fr(-1, 2),)))
    assert ho.exact_orbit(snap, aut, limit=2) == orbit
    assert ho.exact_orbit(snap, aut, limit=1) is None


E = 2.0 ** -10
#: Four states on two symbols: symbol 0 maps K = (0, 1) by [[1, 1], [0, 0]] (not an isometry),
#: symbol 1 swaps the two; the label says which coordinate of z is larger.
AUT = Automaton([[1, 1, 1, 1], [2, 3, 0, 1]], start=0, labels=[0, 0, 1, 1])
S_EXACT = [[[1, 1, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]],
           [[0, 1, 0, 0], [1, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]]]
Y0 = [Fr(1, 2), Fr(1, 4), 0, 0]
#: class 2 is never a label; its row has the largest norm (1/2 against sqrt(33)/16)
R_EXACT = [[Fr(1, 4), Fr(-1, 4), Fr(1, 16), 0], [Fr(-1, 4), Fr(1, 4), Fr(-1, 16), 0], [0, 0, Fr(1, 2), 0]]
#: the float matrices times the snap's scales (1/2, 4): S plus couplings e = 2^-10 between K and
#: the dropped block D = (2, 3), whose matrices are [[1/2, 1/2], [0, 1/4]] and diag(1/4, 1/4)
F_SCALED = np.array([[[1, 1, E, 0], [0, 0, 0, 0], [2 * E, 0, 0.5, 0.5], [0, 0, 0, 0.25]],
                     [[0, 1, 0, 0], [1, 0, 0, E], [0, 2 * E, 0.25, 0], [0, 0, 0, 0.25]]])
SCALE = (0.5, 4.0)
H0F = np.array([0.5, 0.25, E, 0])


def _network(h0=H0F, F=F_SCALED):
    snap = _snap(S_EXACT, Y0, R_EXACT, ((0, 1), (2, 3)), (0,), SCALE)
    w = Weights("full", np.stack([F[a] / SCALE[a] for a in range(2)]), np.asarray(h0), np.array(R_EXACT, dtype=float))
    return w, snap


def _ingredients(w, snap, ro):
    with precision():
        return ho.orbit_ingredients(w, snap, ho.exact_orbit(snap, AUT), AUT, ro)


def _close(x: flint.arb, want: float, rel: float = 1e-12) -> bool:
    """An upper bound (or exact value) ``x`` of ``want``, tight to ``rel``."""
    return want * (1 - 1e-15) <= float(x.mid()) <= want * (1 + rel) + 1e-300


def test_orbit_constants_by_hand():
    """The products I, S_0, S_1, S_1 S_0 (norms 1, sqrt 2, 1, sqrt 2), the states (1/2, 1/4),
    (3/4, 0), (1/4, 1/2), (0, 3/4) (largest norm 3/4); margins (R_l - R_c)[K] . z: 1/8 against
    the other label, 1/16 against class 2; L_K = |(1/2, -1/2)| = sqrt 2 / 2, L_D the largest of
    |1/16 -+ 1/2| and 1/8: 9/16; eps = 0 (the float K block is S's, scale 1), gamma = e,
    beta = 2e, rho = |[[1/2, 1/2], [0, 1/4]]| = sqrt((9 + sqrt 65) / 32); no rounding."""
    w, snap = _network()
    orbit = ho.exact_orbit(snap, AUT)
    assert orbit.products == (((1, 0), (0, 1)), ((1, 1), (0, 0)), ((0, 1), (1, 0)), ((0, 0), (1, 1)))
    assert orbit.pairs == ((0, (Fr(1, 2), Fr(1, 4))), (1, (Fr(3, 4), 0)), (2, (Fr(1, 4), Fr(1, 2))),
                           (3, (0, Fr(3, 4))))
    c, st = _ingredients(w, snap, RoundOff.of("real", 4))
    r2 = math.sqrt(2)
    assert _close(c.n, r2) and _close(c.lk, r2 / 2)
    exact = {"ymax": 0.75, "mu": 1 / 16, "ld": 9 / 16, "eps": 0.0, "gamma": E, "beta": 2 * E, "tau": 0.0}
    assert {k: float(getattr(c, k).mid()) for k in exact} == exact
    assert _close(c.rho, math.sqrt((9 + math.sqrt(65)) / 32))
    want = [(1 / 8, r2 / 2, 1 / 8), (1 / 16, r2 / 4, 7 / 16), (1 / 8, r2 / 2, 1 / 8), (1 / 16, r2 / 4, 9 / 16)]
    assert len(c.pairs) == 4
    for got, pair in zip(c.pairs, want):
        assert all(_close(x, y) for x, y in zip(got, pair)), (got, pair)
    assert st.delta == 0 and st.tau == 0 and st.D == [2, 3] and st.K == [0, 1]
    assert [float(st.x0[j, 0].mid()) for j in range(4)] == list(H0F) and st.x0[0, 0].rad() == 0


def test_orbit_rounding_constants_by_hand():
    """step 2^-10, readout 2^-6, start 2^-8, basis I (kappa = 1): delta = 2^-10 max_a |scale_a| x
    1 x ||A_a||_F = 2^-10 ||F_0||_F (symbol 0's, at scale 1/2, is the larger); tau = 2^-6 (|R_0| +
    |R_2|) over the reachable labels 0, 1 against every other class; the start ball's radius
    2^-8 c0 ||h0|| with c0 = 1, 1/2 and 2 (float starts h0, 2 h0, h0 / 2)."""
    ro = dataclasses.replace(RoundOff.of("float64", 4), step=arb(Fr(1, 1024)), readout=arb(Fr(1, 64)),
                             start=arb(Fr(1, 256)))
    for k, c0 in [(1.0, 1.0), (2.0, 0.5), (0.5, 2.0)]:
        w, snap = _network(h0=k * H0F)
        c, st = _ingredients(w, snap, ro)
        delta = float(np.linalg.norm(F_SCALED[0])) / 1024
        assert _close(st.delta, delta) and delta > float(np.linalg.norm(F_SCALED[1])) / 1024
        assert _close(c.eps, delta) and _close(c.gamma, E + delta) and _close(c.beta, 2 * E + delta)
        assert _close(c.rho, math.sqrt((9 + math.sqrt(65)) / 32) + delta)
        assert _close(c.tau, (math.sqrt(33) / 16 + 0.5) / 64) and _close(st.tau, float(c.tau.mid()), 0)
        start = c0 * float(np.linalg.norm(k * H0F)) / 256
        for j in range(4):
            assert float(st.x0[j, 0].mid()) == H0F[j] * k * c0
            assert _close(flint.arb(st.x0[j, 0].rad()), start, 1e-8)  # a radius: 30 bits


REFUSED = {  # what changes in the float network, and the refusal's reason
    "K block 0": ("a float matrix points away", (1, slice(0, 2), slice(0, 2)), 0, H0F),
    "K block orthogonal": ("a float matrix points away", (0, 0, 1), -1, H0F),
    "start 0 on K": ("the float start state points away", None, None, np.array([0, 0, 1, 0])),
    "start orthogonal": ("the float start state points away", None, None, np.array([0.25, -0.5, 0, 0])),
}


@pytest.mark.parametrize("case", list(REFUSED))
def test_orbit_constants_refused(case):
    """Symbol 1's float K block 0 (no scale at all), symbol 0's [[1, -1], [0, 0]] against S_0 =
    [[1, 1], [0, 0]] (inner product 0: scale 0), a float start 0 on K, and one orthogonal to
    y0[K] = (1/2, 1/4): each is refused by name, in real arithmetic and in float64."""
    reason, where, value, h0 = REFUSED[case]
    F = F_SCALED.copy()
    if where is not None:
        F[where] = value
    w, snap = _network(h0=h0, F=F)
    for arithmetic in ("real", "float64"):
        c, why = _ingredients(w, snap, RoundOff.of(arithmetic, 4))
        assert c is None and why.startswith(reason)
        with precision():
            h = ho.orbit_horizon(w, snap, None, AUT, RoundOff.of(arithmetic, 4))
        assert h.kind == "none" and h.note.startswith(reason) and h.bound == "orbit"


def test_orbit_constants_without_dropped_coordinates_or_a_second_class():
    """Every coordinate kept (D empty): gamma = beta = rho = 0 (no dropped block), plus the step
    rounding delta in float64, as eps (the float K block is exactly S's).  One class only: no margin to take a minimum of, so
    mu = 0 and no pairs (the readout condition then never holds: nothing past the exhaustive
    phase), L_K = L_D = 0."""
    aut = Automaton([[1, 0]], start=0, labels=[0, 1])
    w = Weights("full", [[[0.0, 1.0], [1.0, 0.0]]], [1.0, 0.0], [[1.0, 0.0], [0.0, 1.0]])
    snap = _snap([[[0, 1], [1, 0]]], [1, 0], [[1, 0], [0, 1]], ((0, 1),), (0,), (1.0,))
    with precision():
        orbit = ho.exact_orbit(snap, aut)
        for arithmetic in ("real", "float64"):
            c, st = ho.orbit_ingredients(w, snap, orbit, aut, RoundOff.of(arithmetic, 2))
            assert st.D == [] and c.mu == 1 and c.ymax == 1 and (st.delta == 0) == (arithmetic == "real")
            assert c.eps == st.delta and c.gamma == st.delta and c.beta == st.delta and c.rho == st.delta
    one = Automaton([[0]], start=0, labels=[0])
    w1 = Weights("full", [[[1.0, 0.0], [0.0, 0.5]]], [1.0, 0.0], [[1.0, 1.0]])
    snap1 = _snap([[[1, 0], [0, 0]]], [1, 0], [[1, 1]], ((0,), (1,)), (0,), (1.0,))
    with precision():
        c, st = ho.orbit_ingredients(w1, snap1, ho.exact_orbit(snap1, one), one, RoundOff.of("real", 2))
    assert c.mu == 0 and c.pairs == () and c.lk == 0 and c.ld == 0 and float(c.rho.mid()) == 0.5


def test_orbit_rounding_constants_in_a_basis():
    """The same network seen through the basis P = diag(2, 1, 1, 1/2) (float matrices P F P^-1 /
    scale, start P h0, readout R P^-1): the real constants are the block basis's, and the rounding
    is charged with ||P|| = ||P^-1|| = 2 on the original basis's floats: kappa = 4 in delta,
    ||P|| in tau, ||P^-1|| in the start ball."""
    P = np.diag([2.0, 1.0, 1.0, 0.5])
    Pi = np.diag([0.5, 1.0, 1.0, 2.0])
    A = np.stack([P @ F_SCALED[a] @ Pi / SCALE[a] for a in range(2)])
    R = np.array(R_EXACT, dtype=float) @ Pi
    w = Weights("full", A, P @ H0F, R)
    basis = np.array([[Fr(x) for x in row] for row in P], dtype=object)
    snap = _snap(S_EXACT, Y0, R_EXACT, ((0, 1), (2, 3)), (0,), SCALE, basis=basis)
    ro = dataclasses.replace(RoundOff.of("float64", 4), step=arb(Fr(1, 1024)), readout=arb(Fr(1, 64)),
                             start=arb(Fr(1, 256)))
    real, _ = _ingredients(w, snap, RoundOff.of("real", 4))
    assert float(real.gamma.mid()) == E and float(real.beta.mid()) == 2 * E and float(real.mu.mid()) == 1 / 16
    c, st = _ingredients(w, snap, ro)
    delta = 4 * max(abs(SCALE[a]) * float(np.linalg.norm(A[a])) for a in range(2)) / 1024
    assert _close(st.delta, delta, 1e-9) and _close(c.eps, delta, 1e-9)
    norms = [float(np.linalg.norm(r)) for r in R]
    assert _close(c.tau, 2 * max(norms[l] + norms[k] for l in (0, 1) for k in range(3) if k != l) / 64, 1e-9)
    start = 2 * float(np.linalg.norm(P @ H0F)) / 256
    assert _close(flint.arb(st.x0[3, 0].rad()), start, 1e-8)


def _coupled(e: float, dd0) -> np.ndarray:
    """:data:`F_SCALED` with couplings e (K to D) and 2e (D to K), and symbol 0's D block ``dd0``."""
    F = F_SCALED.copy()
    F[0, 0, 2], F[0, 2, 0], F[1, 1, 3], F[1, 2, 1] = e, 2 * e, e, 2 * e
    F[0, 2:, 2:] = dd0
    return F


def test_orbit_horizon_says_when_the_dropped_blocks_do_not_contract():
    """Symbol 0's D block diag(1, 1/4) (rho = 1 exactly) with couplings 2^-30: V_t <= 2^-29 t W
    keeps L_D V far below the margin 1/16 for STEPPED steps, so the length is STEPPED, stepped
    only, and the note says so.  With [[1/2, 1/2], [0, 1/4]] (rho < 1) and couplings 2^-6, the
    recurrence fails inside the stepped part: a length past the exhaustive depth and below
    STEPPED, and no such note."""
    ro = RoundOff.of("real", 4)
    w, snap = _network(F=_coupled(2.0 ** -30, [[1, 0], [0, 0.25]]))
    with precision():
        h = ho.orbit_horizon(w, snap, None, AUT, ro)
    assert h.constants["rho"] == 1.0 and h.count == STEPPED
    assert h.note.startswith("the dropped blocks do not contract (rho >= 1): stepped bound only; every word up to")
    w, snap = _network(F=_coupled(2.0 ** -6, [[0.5, 0.5], [0, 0.25]]))
    with precision():
        h = ho.orbit_horizon(w, snap, None, AUT, ro)
    assert h.constants["rho"] < 1 and 10 < h.count < STEPPED and h.kind == "up to"
    assert h.note.startswith("every word up to length 10 run exhaustively") and "contract" not in h.note

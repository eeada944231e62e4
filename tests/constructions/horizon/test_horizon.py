"""Tests that would catch an unsound horizon (docs/theory.md Section 7).

Three kinds, none trusting the code under test:

* each theorem's recurrence is stepped here, directly, in exact rationals, and the length the
  implementation certifies is compared with it (never longer; equal where no closed form is used);
* constants with a closed form (the phase error of a rotation, the margin of a construction) are
  computed here from the construction and compared with the implementation's;
* an evaluator written here (a plain float64 loop, not ``floatrun.py``) and a search (every word
  to a depth, periodic words, a beam search on the margin) on strongly coupled, non-normal,
  slowly contracting networks of several variants: no failure at or below the certified length.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import flint
import numpy as np
import pytest
from plain_eval import float64_margins

from bilinear.analysis.certify import certify_network
from bilinear.automata import from_spec
from bilinear.constructions.exact.balls import arb, arb_matrix, precision
from bilinear.constructions.horizon.horizon_base import CAP, STEPPED, Horizon
from bilinear.constructions.horizon.horizon_global import PerturbationBound, closed_form, iterate
from bilinear.constructions import prove
from bilinear.constructions import build
from bilinear.constructions.horizon.roundoff import RoundOff
from bilinear.constructions.horizon.snap import drift, snap_candidates
from bilinear.constructions import Weights

C5 = from_spec("cyclic:5")


# ------------------------------------------------------------------------------------------
# Theorem 16: the recurrence stepped here against iterate / closed_form
# ------------------------------------------------------------------------------------------
def _direct_global(eps, gamma, beta, rho, sigma, mu, lk, ld, u, v, limit):
    """The largest T <= limit with mu > lk u_t + ld v_t for every t <= T (60-digit mpmath
    numbers); -1 when t = 0 already fails."""
    import mpmath

    mpmath.mp.dps = 60
    eps, gamma, beta, rho, sigma, mu, lk, ld, u, v = (
        mpmath.mpf(x.numerator) / x.denominator for x in (eps, gamma, beta, rho, sigma, mu, lk, ld, u, v))
    for t in range(limit + 1):
        if not mu > lk * u + ld * v:
            return t - 1
        u, v = sigma * u + eps + gamma * v, rho * v + beta * (1 + u)
    return limit


CASES16 = [
    # eps, gamma, beta, rho, sigma, mu, lk, ld, u0, v0: phase drift, coupling, slow contraction
    ("1/1000", 0, 0, 0, 1, "1/2", 1, 0, 0, 0),
    ("1/5000", "1/10", "1/200", "9/10", 1, "1/2", 1, "1/2", 0, "1/100"),
    ("1/20000", "3/10", "1/1000", "199/200", 1, 1, 1, 1, 0, 10),  # V large at step 256: gamma*V matters
    ("1/50000", "1/2", "1/500", "99/100", "1001/1000", 1, 1, 2, "1/100", 1),
    ("1/3000", 2, "1/50", "1/2", 1, 1, "3/2", 3, 0, "1/2"),  # strongly coupled
    (0, "1/4", "1/100", "97/100", 1, "1/10", 1, 4, 0, "1/20"),  # only the coupling grows u
    ("1/100000", 0, 0, 0, "1001/1000", 1, 1, 0, 0, 0),  # sigma > 1: geometric growth
    ("1/10000000", "1/10", "1/1000", "9/10", 1, 1, 1, 0, 0, 0),  # growth through the coupling alone
]


@pytest.mark.parametrize("case", CASES16)
def test_theorem_16_length_is_the_recurrence_stepped_directly(case):
    eps, gamma, beta, rho, sigma, mu, lk, ld, u0, v0 = (Fraction(x) for x in case)
    direct = _direct_global(eps, gamma, beta, rho, sigma, mu, lk, ld, u0, v0, 20000)
    with precision():
        c = PerturbationBound(*(arb(x) for x in (eps, gamma, beta, rho, sigma, mu, lk, ld)))
        got = iterate(c, arb(u0), arb(v0), 0)
    got = CAP if got is None else got
    if direct < STEPPED:
        assert got == max(direct, 0)  # the stepped part is exact
    else:
        assert got <= direct or direct == 20000  # never beyond the recurrence
        if direct < 20000:
            assert got >= 0.3 * direct  # the closed form is not uselessly loose


def test_theorem_16_step_and_readout_condition_are_the_theorem():
    with precision():
        c = PerturbationBound(*(arb(Fraction(x)) for x in ("1/10", "1/5", "1/3", "1/2", "11/10", 1, 2, 3)))
        u, v = c.step(arb(Fraction(1, 7)), arb(Fraction(1, 11)))
        eu = Fraction(11, 10) * Fraction(1, 7) + Fraction(1, 10) + Fraction(1, 5) * Fraction(1, 11)
        ev = Fraction(1, 2) * Fraction(1, 11) + Fraction(1, 3) * (1 + Fraction(1, 7))
        assert abs(float(u.mid()) - float(eu)) < 1e-30 and abs(float(v.mid()) - float(ev)) < 1e-30
        assert c.holds(arb(Fraction(1, 4)), arb(Fraction(1, 7)))  # 1 > 2/4 + 3/7
        assert not c.holds(arb(Fraction(1, 4)), arb(Fraction(1, 6)))  # 1 = 2/4 + 3/6: not strict
        r = c.with_roundoff(arb(Fraction(1, 100)), arb(Fraction(1, 10)))
        assert float(r.eps.mid()) >= 0.11 and float(r.rho.mid()) >= 0.51 and float(r.gamma.mid()) >= 0.21
        assert float(r.mu.mid()) <= 0.9 and float(r.lk.mid()) >= 2.1 and float(r.ld.mid()) >= 3.1


def test_closed_form_never_beyond_the_stepped_recurrence():
    rng = np.random.default_rng(5)
    for _ in range(40):
        eps = Fraction(int(rng.integers(1, 50)), 100000)
        gamma, beta = Fraction(int(rng.integers(0, 100)), 100), Fraction(int(rng.integers(0, 30)), 1000)
        rho, sigma = Fraction(int(rng.integers(50, 999)), 1000), Fraction(1) + Fraction(int(rng.integers(0, 3)), 10000)
        mu, lk, ld = Fraction(1), Fraction(int(rng.integers(1, 30)), 10), Fraction(int(rng.integers(0, 30)), 10)
        u, V = Fraction(int(rng.integers(0, 10)), 1000), Fraction(int(rng.integers(0, 300)), 100)
        direct = _direct_global(eps, gamma, beta, rho, sigma, mu, lk, ld, u, V, 30000)
        with precision():
            c = PerturbationBound(*(arb(x) for x in (eps, gamma, beta, rho, sigma, mu, lk, ld)))
            got = closed_form(c, arb(u), arb(V))
        assert got is not None and (got <= direct + 1 or direct == 30000)


def test_closed_form_is_the_linear_recurrence_it_states():
    """closed_form solves u' = (1 + a) u + c below u_max, with a, c and u_max written here from
    the theorem (docs/theory.md, Section 7, closed form): every term is pinned."""
    rng = np.random.default_rng(11)
    for _ in range(30):
        eps = Fraction(int(rng.integers(1, 100)), 10**6)
        gamma, beta = Fraction(int(rng.integers(0, 50)), 10**4), Fraction(int(rng.integers(0, 50)), 10**4)
        rho = Fraction(int(rng.integers(500, 990)), 1000)
        sigma = 1 + Fraction(int(rng.integers(0, 3)), 10**5)
        mu, lk, ld = Fraction(1), Fraction(int(rng.integers(5, 20)), 10), Fraction(int(rng.integers(0, 20)), 10)
        u, V = Fraction(int(rng.integers(0, 100)), 10**4), Fraction(int(rng.integers(0, 200)), 1000)
        eps = eps + Fraction(1, 10**5)  # every case ends within 10^5 steps
        e = beta / (1 - rho)
        a = max(Fraction(0), sigma - 1 + gamma * e)
        c = eps + gamma * V + gamma * e
        u_max = min((mu - ld * V) / lk, (mu - ld * e) / (lk + ld * e))
        import mpmath

        mpmath.mp.dps = 40
        m = lambda q: mpmath.mpf(q.numerator) / q.denominator  # noqa: E731
        steps, x, A_, C_, U_ = 0, m(u), 1 + m(a), m(c), m(u_max)
        if u_max > u:
            while x <= U_ and steps < 10**6:
                x, steps = A_ * x + C_, steps + 1
            expected = steps - 1  # the last s with u_s <= u_max
        else:
            expected = 0
        with precision():
            got = closed_form(PerturbationBound(*(arb(x) for x in (eps, gamma, beta, rho, sigma, mu, lk, ld))), arb(u), arb(V))
        assert expected - 3 <= got <= expected, (got, expected)


# ------------------------------------------------------------------------------------------
# the block-wise theorem: its recurrence stepped here
# ------------------------------------------------------------------------------------------
def _direct_blocks(eps, sig, margin, lip, weight, u, r, theta, limit):
    for t in range(limit + 1):
        slack = min((margin[i] - lip[i] * u[i]) / weight[i] for i in u)
        if not slack > sum(lip[j] * r[j] for j in r):
            return t - 1
        u = {i: sig[i] * u[i] + eps[i] for i in u}
        r = {j: theta[j] * r[j] for j in r}
    return limit


@pytest.mark.parametrize("theta_other", ["0", "1/2", "1", "1001/1000"])
def test_block_wise_length_is_its_recurrence_stepped_directly(theta_other):
    from bilinear.constructions.horizon.horizon_blocks import _run_bound

    F = Fraction
    good, others = [0, 1], [2]
    eps = {0: F(1, 4000), 1: F(1, 9000)}
    sig = {0: F(1), 1: F(1)}
    margin = {0: F(1, 2), 1: F(3, 4)}
    lip = {0: F(1), 1: F(2), 2: F(3)}
    weight = {0: F(2, 5), 1: F(3, 5)}
    u, r, theta = {0: F(0), 1: F(1, 1000)}, {2: F(1, 100)}, {2: F(theta_other)}
    direct = _direct_blocks(eps, sig, margin, lip, weight, u, r, theta, 50000)
    with precision():
        A = lambda d: {k: arb(v) for k, v in d.items()}  # noqa: E731
        got = _run_bound(good, others, A(eps), A(sig), A(margin), A(lip), A(weight), A(u), A(r), A(theta), 0)
    assert got <= direct  # never beyond
    assert got >= direct - 2  # sigma = 1: the closed form u + k eps is the recurrence itself


# ------------------------------------------------------------------------------------------
# constants with a closed form
# ------------------------------------------------------------------------------------------
def test_margin_and_phase_error_of_a_drifted_rotation_are_the_constructions():
    from bilinear.constructions.horizon.horizon_blocks import blockwise_horizon
    from bilinear.constructions.horizon.horizon_global import global_horizon

    exact = build("cyclic:5", "rotation2d")
    A, h0, R = exact.float_arrays()
    delta = 0.002
    w = drift(exact.to_float(), delta)  # hidden 2: the construction turned by delta per use
    snap = next(snap_candidates(w, C5))
    proof = prove(snap.block_weights, C5)
    # the margin, computed here: the smallest (R_l - R_c) . y / |y| over the five states
    mu = min(((R[q] - R[c]) @ (np.linalg.matrix_power(A[1], q) @ h0)) / np.linalg.norm(h0)
             for q in range(5) for c in range(5) if c != q)
    real = RoundOff.of("real", 2)
    g = global_horizon(w, snap, proof, C5, real)
    b = blockwise_horizon(w, snap, proof, C5, real)
    for h in (g, b):
        assert abs(h.constants["margin"] - mu) < 1e-6 * mu
        lk = max(np.linalg.norm(R[l] - R[c]) for l in range(5) for c in range(5) if c != l)
        assert abs(h.constants["lipschitz_kept"] - lk) < 1e-9
    assert abs(b.constants["epsilon"] - 2 * math.sin(delta / 2)) < 1e-5 * delta  # the chord of the angle error
    # and the length: mu / (L_K eps) within the exhaustive start's head start
    assert abs(b.length - mu / (lk * 2 * math.sin(delta / 2))) < 12


# ------------------------------------------------------------------------------------------
# the invariant tube: its hypotheses are checked
# ------------------------------------------------------------------------------------------
def test_tube_radius_needs_the_start_state_and_the_margins():
    from bilinear.constructions.horizon.tube import _tube_radius

    with precision():
        a = lambda x: flint.arb(x)  # noqa: E731
        need = [(a(1), a(0.01), a(0.5), a(0.1))]  # contracting: radius about 0.02 suffices
        assert _tube_radius(need, [(a(1), a(1))], a(0.0)) is not None
        assert _tube_radius(need, [(a(100), a(1))], a(8.0)) is None  # the start lies outside any tube
        assert _tube_radius(need, [(a(0.01), a(1))], a(0.0)) is None  # the tube leaves the margin
        assert _tube_radius(need, [(a(-0.1), a(0))], a(0.0)) is None


def _last_symbol():
    from bilinear.automata import Automaton

    return Automaton(np.array([[0, 0, 0], [1, 1, 1], [2, 2, 2]]), start=0, name="last symbol")


def test_tube_refuses_a_start_state_on_the_wrong_side():
    from bilinear.constructions.handmade.onehot import onehot
    from bilinear.constructions.horizon.snap import state_map_snap
    from bilinear.constructions.horizon.tube import invariant_tube

    a = _last_symbol()
    A, h0, R = onehot(a).to_float().float_arrays()
    good = Weights("full", A + 0.001 * np.random.default_rng(0).normal(size=A.shape), h0, R)
    snap = state_map_snap(good, a)
    proof = prove(snap.block_weights, a)
    assert invariant_tube(good, snap, proof, a, RoundOff.of("float64", 3)) is not None
    bad = Weights("full", good.float_arrays()[0], -h0, R)  # fails on the empty word
    for arithmetic in ("real", "float64"):
        assert invariant_tube(bad, snap, proof, a, RoundOff.of(arithmetic, 3)) is None


# ------------------------------------------------------------------------------------------
# the snap keeps the blocks the network visits
# ------------------------------------------------------------------------------------------
def test_visited_span_keeps_every_block_of_a_four_block_rotation_network():
    R1 = build("cyclic:5", "rotation2d").float_arrays()
    A = np.zeros((5, 8, 8))
    for i in range(4):  # four copies, each turned by k = 1..4 times the angle: each classifies alone
        for s in range(5):
            A[s, 2 * i:2 * i + 2, 2 * i:2 * i + 2] = np.linalg.matrix_power(R1[0][1], ((i + 1) * s) % 5)
    h0 = np.tile(R1[1], 4)
    R = np.zeros((5, 8))
    for c in range(5):
        for i in range(4):
            R[c, 2 * i:2 * i + 2] = R1[2][(c * (i + 1)) % 5]
    w = Weights("rotation2d", A, h0, R)
    first = next(snap_candidates(w, C5))
    assert first.rule == "blocks on the span visited at length" and first.kept == (0, 1, 2, 3)


# ------------------------------------------------------------------------------------------
# an independent evaluator and search against the certified length
# ------------------------------------------------------------------------------------------
_float64_margins = float64_margins  # the plain loop of tests/plain_eval.py


def _no_failure_up_to(w: Weights, automaton, L: int, depth: int = 5, beam: int = 24) -> None:
    A, h0, R = w.float_arrays()
    k = A.shape[0]
    n = min(L, 600)  # the searched lengths (a certified length beyond is checked up to here)
    # every word up to ``depth``
    for t in range(1, min(depth, n) + 1):
        words = np.array(list(itertools.product(range(k), repeat=t)))
        assert (_float64_margins(A, h0, R, automaton, words) > 0).all()
    # periodic words (period <= 3) up to n
    loops = [u for p in (1, 2, 3) for u in itertools.product(range(k), repeat=p)]
    words = np.stack([np.resize(np.array(u), n) for u in loops])
    assert (_float64_margins(A, h0, R, automaton, words) > 0).all(), "a periodic word fails within L"
    # beam search on the margin, up to n
    frontier = [()]
    for t in range(n):
        cands = [u + (a,) for u in frontier for a in range(k)]
        m = _float64_margins(A, h0, R, automaton, np.array(cands))[:, -1]
        assert (m > 0).all(), f"the beam found a failure at length {t + 1} <= {L}"
        frontier = [cands[i] for i in np.argsort(m)[:beam]]
        if t > 60:  # keep it fast: the beam's last steps are the periodic words' job
            break


def _coupled_full(seed: int, coupling: float, rho: float, nonnormal: float, delta: float) -> Weights:
    """cyclic:5 full (d0 = 2) turned by ``delta``, with 4 dropped coordinates that contract by
    ``rho`` along a non-normal (Jordan-like) map and are coupled both ways to the kept plane."""
    rng = np.random.default_rng(seed)
    A0, h, R0 = build("cyclic:5", "full").float_arrays()
    c, s = math.cos(delta), math.sin(delta)
    turn = np.array([[c, -s], [s, c]])
    d = 6
    F = np.zeros((5, d, d))
    N = np.diag(np.ones(3), 1)
    for a in range(5):
        F[a, :2, :2] = turn @ A0[a] if a else A0[a]
        F[a, 2:, 2:] = rho * (np.eye(4) + nonnormal * N)
        F[a, :2, 2:] = coupling * rng.normal(size=(2, 4))
        F[a, 2:, :2] = coupling * 0.1 * rng.normal(size=(4, 2))
    H = np.concatenate([h, 0.05 * rng.normal(size=4)])
    R = np.concatenate([R0, 0.2 * rng.normal(size=(5, 4))], axis=1)
    P = np.linalg.qr(rng.normal(size=(d, d)))[0] @ np.diag(rng.uniform(0.7, 1.4, size=d))
    Pinv = np.linalg.inv(P)
    return Weights("full", np.einsum("ij,sjk,kl->sil", P, F, Pinv), P @ H, R @ Pinv)


NETWORKS = {
    "full, strongly coupled, non-normal": lambda: (_coupled_full(1, 0.3, 0.9, 0.5, 0.004), C5),
    "full, slowly contracting": lambda: (_coupled_full(2, 0.05, 0.98, 0.2, 0.002), C5),
    "rotation2d, drifting": lambda: (drift(build("cyclic:5", "rotation2d"), 0.01, hidden=6, contraction=0.95), C5),
    "block:2 dihedral, drifting": lambda: (drift(build("dihedral:3", "block:2"), 0.01, hidden=4, contraction=0.9),
                                           from_spec("dihedral:3")),
}


@pytest.mark.parametrize("name", list(NETWORKS))
def test_no_word_fails_at_or_below_the_certified_length(name):
    w, a = NETWORKS[name]()
    cert = certify_network(w, a, search_length=1500, random_words=64, shorten_seconds=1.0)
    h = cert.horizon
    assert h.arithmetic == "float64" and h.certified, cert.to_text()
    L = h.length if h.length is not None else 600
    _no_failure_up_to(w, a, L)
    if cert.failing is not None:  # the search's word fails, and beyond L
        m = _float64_margins(*w.float_arrays(), a, np.array([cert.failing]))
        assert m[0, -1] <= 0 and len(cert.failing) > L


def test_horizon_kinds_are_named_constructors():
    assert Horizon.up_to(0, "real", "global", "").covers(0) and not Horizon.up_to(0, "real", "", "").covers(1)
    assert Horizon.every_length("float64", "tube", "").covers(10**30)
    assert not Horizon.none("real", "why").covers(0)
    with pytest.raises(ValueError):
        Horizon.up_to(-1, "real", "", "")
    assert sorted(h.order_key() for h in (Horizon.every_length("real", "", ""), Horizon.none("real", ""),
                                          Horizon.up_to(5, "real", "", ""))) == [-1.0, 5.0, float("inf")]


def test_round_off_charges_grow_with_the_unit_roundoff():
    r64, r32, real = (RoundOff.of(x, 8) for x in ("float64", "float32", "real"))
    assert real.step == 0 and real.readout == 0
    assert 9 * 2**-53 <= float(r64.step.mid()) < 10 * 2**-53
    assert float(r32.step.mid()) >= 10 * 2**-24
    with pytest.raises(Exception, match="arithmetic"):
        RoundOff.of("float16", 8)
    # the exact balls: a matrix of floats is exact
    M = arb_matrix(np.array([[0.1, 0.2], [0.3, 0.4]]))
    assert M[0, 0] == arb(0.1)


# ------------------------------------------------------------------------------------------
# tests that kill the mutants a first mutation run left alive (benchmarks/mutate.py)
# ------------------------------------------------------------------------------------------
def test_float64_rounding_is_charged_in_the_recurrence():
    cert = certify_network(build("cyclic:5", "rotation2d").to_float(), C5, search_length=50, random_words=0,
                           shorten_seconds=10.0)
    real, f64 = cert.horizons["real"].length, cert.horizon.length
    assert f64 < real / 2  # eps ~ 5e-17 against a rounding of ~3e-16 per step


def test_a_network_wrong_on_the_empty_word_fails_at_length_0():
    from bilinear.constructions.horizon.failsearch import first_failures, search_failure

    parity = from_spec("parity")
    w = Weights("diagonal", [np.diag([1.0, 0.5]), np.diag([-1.0, 0.5])], [1.0, 1.0], [[-1.0, 0.0], [1.0, 0.0]])
    assert first_failures(w, parity, np.array([[0, 1, 0]])).tolist() == [0]
    assert search_failure(w, parity, 20, random_words=4) == ()


def test_one_readout_scale_for_every_row_of_the_block_snap():
    d5 = from_spec("dihedral:5")
    A, h0, R = build("dihedral:5", "block:2").float_arrays()
    snap = next(snap_candidates(Weights("block:2", A, h0, R), d5))
    Rs = np.array(snap.block_weights.readout, dtype=float)
    ratio = Rs[R != 0] / R[R != 0]
    assert np.allclose(ratio, ratio[0], rtol=1e-6)
    assert prove(snap.block_weights, d5).status == "proved"


def test_the_block_snap_of_a_hidden_16_full_network_writes_a_loadable_file(tmp_path):
    w = drift(build("cyclic:5", "full"), 0.0005, hidden=16)
    snap = next(snap_candidates(w, C5))
    assert snap.basis is not None
    path = tmp_path / "s.json"
    snap.original().save(path)
    assert prove(Weights.load(path), C5).status == "proved"


def test_balls_never_let_nan_pass_for_small():
    from bilinear.constructions.exact.balls import INF, block_norm, bmax, root

    nan = flint.arb("nan")
    assert root(nan) == INF and bmax([flint.arb(1), nan]) == INF
    rng = np.random.default_rng(3)
    for _ in range(20):
        M = rng.normal(size=(2, 2))
        b = float(block_norm(arb_matrix(M), (0, 1)).mid())
        assert np.linalg.norm(M, 2) * (1 - 1e-12) <= b <= np.linalg.norm(M, 2) * (1 + 1e-12)


def test_round_off_charges_the_readout():
    r = RoundOff.of("float64", 8)
    assert 8 * 2**-53 <= float(r.readout.mid()) < 9 * 2**-53
    assert float(RoundOff.of("float32", 8).readout.mid()) >= 9 * 2**-24


def test_a_failure_at_the_test_length_is_snapped():
    w = drift(build("cyclic:5", "rotation2d"), 0.01, hidden=8)
    at = certify_network(w, C5, search_length=100, test_length=63, random_words=0, shorten_seconds=10.0)
    before = certify_network(w, C5, search_length=100, test_length=62, random_words=0, shorten_seconds=10.0)
    assert len(at.failing) == 63 and at.status == "snapped" and before.status == "horizon"


def test_a_margin_below_the_readout_rounding_is_not_certified_at_the_exhaustive_start():
    """The float network h0 = (1, 2.5e-16), matrices I and diag(1, -1), readout (1, 1), (1, -1)
    against the exact snap with h0 = (1, 1): its exact margin 2 |h_1| is positive on every word
    and above the start state's rounding, but below the score rounding tau ||x||: Theorem 18
    certifies nothing in float64
    (the exhaustive start must charge the readout rounding, as the recurrence does), while in
    real arithmetic the exhaustive start certifies at least its whole depth."""
    from bilinear.constructions.horizon.horizon_global import global_horizon
    from bilinear.constructions.horizon.snap import Snap

    a = from_spec("parity")
    w = Weights("diagonal", [np.eye(2), np.diag([1.0, -1.0])], [1.0, 2.5e-16], [[1.0, 1.0], [1.0, -1.0]])
    exact = Weights("diagonal", [np.eye(2, dtype=int), np.diag([1, -1])], [1, 1], [[1, 1], [1, -1]])
    snap = Snap(exact, ((0,), (1,)), (0, 1), (), (1.0, 1.0), (0.0, 0.0), None, "diagonal", "by hand")
    proof = prove(exact, a)
    assert proof.status == "proved"
    real = global_horizon(w, snap, proof, a, RoundOff.of("real", 2))
    f64 = global_horizon(w, snap, proof, a, RoundOff.of("float64", 2))
    assert real.covers(8)  # at least the exhaustive depth: every word is right
    assert f64.kind == "none" and f64.note.startswith("a word of length 0")


def test_the_block_wise_bound_charges_rounding_on_every_step_of_an_exact_block():
    """An exactly representable rotation block (cyclic:4, angles 90 degrees) has eps_i = 0 in
    real arithmetic (CAP) but gains delta ~ 1e-15 per float64 step: the float64 length is about
    m / (L delta) (~1e14-1e15), finite.  The start error of the exhaustive level is a ball
    around 0 in float64 and must be bounded from above (an infinite start error gave 5)."""
    from bilinear.constructions.horizon.horizon_blocks import blockwise_horizon

    a = from_spec("cyclic:4")
    w = drift(build("cyclic:4", "rotation2d").to_float(), 0.0, hidden=6, contraction=0.999)
    snap = next(snap_candidates(w, a))
    proof = prove(snap.block_weights, a)
    real = blockwise_horizon(w, snap, proof, a, RoundOff.of("real", w.dim))
    f64 = blockwise_horizon(w, snap, proof, a, RoundOff.of("float64", w.dim))
    delta = float(RoundOff.of("float64", w.dim).step.mid()) * math.sqrt(2)  # ||A_a[i]||_F = sqrt 2
    assert real.length == CAP
    assert 0.2 / (2 * delta) <= f64.length <= 2 / (2 * delta), f64.length  # m ~ 1, L ~ 2


def test_a_snap_keeping_every_block_is_written_with_fewer_bits_and_loads(tmp_path):
    """Keeping all 16 blocks of a hidden-16 ``full`` network, the written form with a 24-bit
    basis needs 112-digit numbers (over the loader's limit): ``original`` lowers the bits until
    every number fits, and the file it writes loads and scores every word as the snap does."""
    from bilinear.constructions.horizon.snap import _score_equivalent
    from bilinear.errors import WeightsError

    w = drift(build("cyclic:5", "full"), 0.0005, hidden=16)
    snap = [s for s in snap_candidates(w, C5) if len(s.kept_coords) == 16][0]
    with pytest.raises(WeightsError):
        Weights.from_json(_score_equivalent(snap, 24).to_json())  # 24 bits do not fit
    path = tmp_path / "s.json"
    snap.original().save(path)
    back = Weights.load(path)
    A1, h1, R1 = back.float_arrays()
    A2, h2, R2 = snap.block_weights.float_arrays()
    rng = np.random.default_rng(0)
    for word in rng.integers(0, 5, size=(20, 8)):
        x1, x2 = h1, h2
        for s in word:
            x1, x2 = A1[s] @ x1, A2[s] @ x2
        assert np.argmax(R1 @ x1) == np.argmax(R2 @ x2) == int(C5.labels[C5.run([int(s) for s in word])])

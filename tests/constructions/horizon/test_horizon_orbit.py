"""Theorem 19 (the orbit horizon, docs/theory.md Section 7), tested without trusting its code.

* its constants (the products' norm N, the largest state norm Y, the margin, the perturbation
  norms) against numpy on products and states enumerated here in floats;
* its recurrence stepped here, directly, in 60-digit numbers, against ``iterate_orbit``;
* an evaluator written here (a float64 loop, not ``floatrun.py``) and a search (every word to a
  depth, periodic words, a beam search on the margin) on perturbed S_4, A_4 and reset:3 ``full``
  networks: no failure at or below the certified length.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from plain_eval import first_failure, float64_margins, no_node_horizon

from bilinear.analysis.certify import certify_network
from bilinear.automata import from_spec
from bilinear.constructions.exact.balls import arb, precision
from bilinear.constructions.horizon.horizon import certified_horizon
from bilinear.constructions.horizon.horizon_base import CAP, STEPPED
from bilinear.constructions.horizon.horizon_orbit import OrbitPerturbationBound, exact_orbit, orbit_ingredients, iterate_orbit
from bilinear.constructions import prove
from bilinear.constructions import build
from bilinear.constructions.horizon.roundoff import RoundOff
from bilinear.constructions.horizon.snap import construction_snap, drift
from bilinear.constructions import Weights


def _perturbed(spec: str, noise: float, seed: int = 1) -> Weights:
    """The ``full`` construction of ``spec`` with 3-4 contracting extra dimensions, in a random
    dense basis (``drift``), plus seeded Gaussian noise of size ``noise`` on every entry."""
    w = drift(build(spec, "full").to_float(), 0.0, hidden=6, seed=seed)
    A, h, R = w.float_arrays()
    A = A + noise * np.random.default_rng(seed).normal(size=A.shape)
    return Weights("full", A, h, R)


def _proved_snap(w, a):
    snap = construction_snap(w, a)
    proof = prove(snap.block_weights, a)
    assert proof.status == "proved" and not snap.isometric
    return snap, proof


# ------------------------------------------------------------------------------------------
# the constants, against numpy
# ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("spec", ["symmetric:4", "reset:3"])
def test_orbit_constants_are_the_ones_numpy_computes(spec):
    a = from_spec(spec)
    w = _perturbed(spec, 1e-3)
    snap, _ = _proved_snap(w, a)
    K = list(snap.kept_coords)
    D = [j for j in range(w.dim) if j not in K]
    S = snap.block_weights.float_arrays()[0]
    # every product S_w[K,K] and every reachable (state, z), enumerated here in floats
    gens = [S[s][np.ix_(K, K)] for s in range(w.n_symbols)]
    key = lambda M: tuple(np.round(M, 9).ravel())  # noqa: E731
    prods = {key(np.eye(len(K))): np.eye(len(K))}
    todo = list(prods.values())
    while todo:
        M = todo.pop()
        for g in gens:
            P = g @ M
            if key(P) not in prods:
                prods[key(P)] = P
                todo.append(P)
    y0 = snap.block_weights.float_arrays()[1][K]
    states = {(int(a.start), key(y0)): (int(a.start), y0)}
    todo = list(states.values())
    while todo:
        q, z = todo.pop()
        for s in range(w.n_symbols):
            p = (int(a.delta[s, q]), gens[s] @ z)
            if (p[0], key(p[1])) not in states:
                states[p[0], key(p[1])] = p
                todo.append(p)
    orbit = exact_orbit(snap, a)
    assert len(orbit.products) == len(prods) and len(orbit.pairs) == len(states)
    N = max(np.linalg.norm(M, 2) for M in prods.values())
    Y = max(np.linalg.norm(z) for _, z in states.values())
    A, h0, R = w.float_arrays()
    P = np.array(snap.basis, dtype=float)
    Pinv = np.linalg.inv(P)
    Rb = R @ P
    mu = min((Rb[a.labels[q]] - Rb[c])[K] @ z for q, z in states.values() for c in range(R.shape[0])
             if c != a.labels[q])
    F = np.stack([Pinv @ (snap.scale[s] * A[s]) @ P for s in range(w.n_symbols)])
    ls = [np.sum(F[s][np.ix_(K, K)] * S[s][np.ix_(K, K)]) / np.sum(F[s][np.ix_(K, K)] ** 2) for s in range(len(F))]
    F = np.stack([ls[s] * F[s] for s in range(len(F))])
    blk = lambda r, c: max(np.linalg.norm((F[s] - S[s])[np.ix_(r, c)], 2) for s in range(len(F)))  # noqa: E731
    with precision():
        c, _ = orbit_ingredients(w, snap, orbit, a, RoundOff.of("real", w.dim))
    got = {k: float(getattr(c, k).mid()) for k in ("n", "ymax", "mu", "eps", "gamma", "beta", "rho")}
    want = {"n": N, "ymax": Y, "mu": mu, "eps": blk(K, K), "gamma": blk(K, D), "beta": blk(D, K), "rho": blk(D, D)}
    assert N > 1.2  # the snap is not orthogonal: the products do amplify
    assert got["mu"] <= want["mu"] + 1e-12 and got["mu"] >= want["mu"] - 1e-9
    for k in ("n", "ymax", "eps", "gamma", "beta", "rho"):  # upper bounds, and tight ones
        assert want[k] - 1e-12 <= got[k] <= 1.1 * want[k] + 1e-12, (k, got[k], want[k])
    # per ordered pair of classes (l, c): the smallest margin over the states of label l, and the
    # norms of (R_l - R_c) on K and on D
    pairs: dict = {}
    for q, z in states.values():
        l = int(a.labels[q])
        for cl in range(R.shape[0]):
            if cl != l:
                m = (Rb[l] - Rb[cl])[K] @ z
                pairs[l, cl] = min(pairs.get((l, cl), np.inf), m)
    assert len(c.pairs) == len(pairs)
    for (m, lk, ld), key in zip(c.pairs, sorted(pairs)):
        diff = Rb[key[0]] - Rb[key[1]]
        assert pairs[key] - 1e-9 <= float(m.mid()) <= pairs[key] + 1e-12
        assert abs(float(lk.mid()) - np.linalg.norm(diff[K])) <= 1e-9
        assert abs(float(ld.mid()) - (np.linalg.norm(diff[D]) if D else 0.0)) <= 1e-9
    assert min(float(m.mid()) / float(lk.mid()) for m, lk, _ in c.pairs) > got["mu"] / float(c.lk.mid())


@pytest.mark.parametrize("spec", ["symmetric:4", "reset:3"])
def test_the_step_rounding_is_charged_on_every_constant(spec):
    """In float64 each of eps, gamma, beta and rho carries the step's round-off delta over its
    real-arithmetic value (a bound without it certifies lengths that rounding can break)."""
    a = from_spec(spec)
    w = _perturbed(spec, 1e-3)
    snap, _ = _proved_snap(w, a)
    orbit = exact_orbit(snap, a)
    with precision():
        real, _ = orbit_ingredients(w, snap, orbit, a, RoundOff.of("real", w.dim))
        f64, st = orbit_ingredients(w, snap, orbit, a, RoundOff.of("float64", w.dim))
    delta = float(st.delta.mid())
    assert delta > 0
    charged = ("eps", "gamma", "beta", "rho") if st.D else ("eps",)  # no dropped block: gamma... are 0
    for k in charged:
        assert float(getattr(f64, k).mid()) >= float(getattr(real, k).mid()) + 0.99 * delta, k


def test_an_orbit_larger_than_the_limit_is_refused():
    a = from_spec("symmetric:4")
    snap, _ = _proved_snap(_perturbed("symmetric:4", 1e-3), a)
    assert len(exact_orbit(snap, a).products) == 24
    assert exact_orbit(snap, a, limit=20) is None


# ------------------------------------------------------------------------------------------
# the recurrence, stepped here
# ------------------------------------------------------------------------------------------
def _direct_orbit(eps, gamma, beta, rho, n, ymax, mu, lk, ld, tau, u, v, limit):
    """The largest T <= limit with the condition at every s < t <= T (60-digit numbers)."""
    import mpmath

    mpmath.mp.dps = 60
    eps, gamma, beta, rho, n, ymax, mu, lk, ld, tau, u, v = (
        mpmath.mpf(x.numerator) / x.denominator for x in (eps, gamma, beta, rho, n, ymax, mu, lk, ld, tau, u, v))
    C, V, W = mpmath.mpf(0), v, ymax + u
    for t in range(1, limit + 1):
        C, V, W = C + eps * W + gamma * V, rho * V + beta * W, None
        U = n * (u + C)
        W = ymax + U
        if not mu - tau * (W + V) > lk * U + ld * V:
            return t - 1
    return limit


CASES19 = [
    # eps, gamma, beta, rho, N, Y, mu, L_K, L_D, tau, u0, v0
    ("1/1000", 0, 0, 0, 1, 1, "1/2", 1, 0, 0, 0, 0),
    ("1/20000", "1/10", "1/200", "9/10", 3, 2, "1/2", 1, "1/2", 0, 0, "1/100"),
    ("1/50000", "3/10", "1/1000", "199/200", "5/2", "3/2", 1, 1, 1, "1/10000", "1/100", 2),
    ("1/3000", 2, "1/50", "1/2", 2, 1, 1, "3/2", 3, 0, 0, "1/2"),
    (0, "1/4", "1/100", "97/100", 2, 1, "1/10", 1, 4, 0, 0, "1/20"),
    ("1/10000000", "1/10", "1/1000", "9/10", "7/4", 1, 1, 1, 0, 0, 0, 0),
    # each of these makes one term of the theorem decide the length (without it the bound passes
    # the recurrence): the readout rounding tau in the stepped part, the products' norm N in the
    # closed form's growth, and the coupling gamma V of a slowly decaying V in the closed form
    ("1/500", 0, 0, 0, 1, 1, "1/2", 1, 0, "1/10", 0, 0),
    ("1/100000", 0, 0, 0, 3, 1, "1/2", 1, 0, 0, 0, 0),
    ("1/10000000", "1/100", "1/10000000", "999/1000", 1, 1, "1/2", 1, 0, 0, 0, "1/10"),
    # and L_D V in the closed form's cap: a dropped part V that hardly decays (rho = 1 - 1e-6)
    ("1/10000", 0, 0, "999999/1000000", 1, 1, 1, 1, 1, 0, 0, "1/2"),
]


@pytest.mark.parametrize("case", CASES19)
def test_theorem_19_length_is_the_recurrence_stepped_directly(case):
    xs = [Fraction(x) for x in case]
    direct = _direct_orbit(*xs, 20000)
    with precision():
        c = OrbitPerturbationBound(*(arb(x) for x in xs[:10]))
        got = iterate_orbit(c, arb(xs[10]), arb(xs[11]), 0)
    got = CAP if got is None else got
    if direct < STEPPED:
        assert got == direct  # the stepped part is exact
    else:
        assert got <= direct or direct == 20000  # never beyond the recurrence
        if direct < 20000:
            assert got >= 0.3 * direct  # the closed form is not uselessly loose


def test_theorem_19_checks_the_readout_pair_by_pair():
    """With per-pair margins (m_lc, L_K,lc, L_D,lc) the length is the recurrence stepped with the
    condition for every pair, and longer than with the global (min m, max L_K, max L_D)."""
    base = [Fraction(x) for x in ("1/20000", 0, 0, 0, 2, 1, "1/2", 3, 0, 0)]  # mu = 1/2 with L_K = 3
    pairs = [(Fraction(1, 2), Fraction(1), Fraction(0)), (Fraction(2), Fraction(3), Fraction(0))]
    direct = min(_direct_orbit(*base[:6], m, lk, ld, base[9], Fraction(0), Fraction(0), 20000) for m, lk, ld in pairs)
    glob = _direct_orbit(*base, Fraction(0), Fraction(0), 20000)
    assert STEPPED < glob < direct < 20000  # the pairs decide, and in the closed form
    with precision():
        c = OrbitPerturbationBound(*(arb(x) for x in base), pairs=tuple(tuple(arb(x) for x in p) for p in pairs))
        got = iterate_orbit(c, arb(0), arb(0), 0)
        c1 = OrbitPerturbationBound(*(arb(x) for x in base))
        one = iterate_orbit(c1, arb(0), arb(0), 0)
    assert got <= direct and got >= 0.3 * direct and got > one


def test_theorem_19_starts_after_the_exhaustive_depth():
    with precision():
        c = OrbitPerturbationBound(*(arb(Fraction(x)) for x in ("1/100", 0, 0, 0, 2, 1, "1/2", 1, 0, 0)))
        # from u_5 = 0: U_t = 2 (t - 5) / 100 * (1 + ...) stays below 1/2 for a few steps only
        got = iterate_orbit(c, arb(0), arb(0), 5)
    assert got == 5 + _direct_orbit(*(Fraction(x) for x in ("1/100", 0, 0, 0, 2, 1, "1/2", 1, 0, 0, 0, 0)), 100)


# ------------------------------------------------------------------------------------------
# an independent evaluator and search against the certified length
# ------------------------------------------------------------------------------------------
_margins = float64_margins  # the plain loop of tests/plain_eval.py


_first_failure = first_failure  # tests/plain_eval.py


ORBIT_NETWORKS = {"symmetric:4": 3e-4, "alternating:4": 1e-3, "reset:3": 3e-4}


@pytest.mark.parametrize("spec", list(ORBIT_NETWORKS))
def test_no_word_fails_at_or_below_the_orbit_horizon(spec, monkeypatch):
    """Theorem 19 alone (the node horizon and Theorem 23, which may certify more, are not run here)."""
    from bilinear.constructions.horizon import horizon
    monkeypatch.setattr(horizon, "node_horizon_widest", no_node_horizon)
    monkeypatch.setattr(horizon, "projective_horizon", lambda *args: horizon.Horizon.none("float64", "off"))
    a = from_spec(spec)
    w = _perturbed(spec, ORBIT_NETWORKS[spec])
    cert = certify_network(w, a, search_length=1000, random_words=64, shorten_seconds=1.0)
    h = cert.horizon
    assert h.bound == "orbit" and h.arithmetic == "float64", cert.to_text()
    assert h.length is not None and h.length > 30, cert.to_text()  # beyond the exhaustive depth
    first = _first_failure(w, a, min(h.length + 40, 800))  # every length up to L, and a little beyond
    assert first is None or first > h.length, (first, h.length)
    if cert.failing is not None:  # the certificate's own failing word fails here too, beyond L
        assert _margins(*w.float_arrays(), a, np.array([cert.failing]))[0, -1] <= 0
        assert len(cert.failing) > h.length


def test_the_dispatcher_sends_a_non_isometric_snap_to_the_orbit_bound():
    a = from_spec("alternating:4")
    w = _perturbed("alternating:4", 1e-3)
    snap, proof = _proved_snap(w, a)
    h64 = certified_horizon(w, snap, proof, a, "float64", nodes=False)
    real = certified_horizon(w, snap, proof, a, "real", nodes=False)
    h32 = certified_horizon(w, snap, proof, a, "float32", nodes=False)
    assert h64.bound == real.bound == h32.bound == "orbit"
    assert h32.length <= h64.length <= real.length  # rounding only shortens the bound

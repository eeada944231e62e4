"""Theorem 23 (the projective orbit horizon, docs/theory.md Section 7), tested without trusting its code.

* the resetting symbols against numpy (a rank-one snapped matrix is its column times its row);
* an evaluator written here (``plain_eval``'s float64 loop) on directed words (every short prefix,
  then the powers of every symbol and of every loop of two symbols): on reset:3 and flipflop:3
  ``full`` networks with noise and seeds, no failure at or below the certified length, a failure
  found above it, and the length longer than Theorem 19's;
* its runs, restart rays, exits and fixed point computed here in floats (from Theorem 19's
  constants, tested in test_horizon_orbit.py), against ``projective_horizon``'s length;
* where no symbol resets (a noisy S_4 construction), the projective bound certifies nothing and
  ``certified_horizon`` is Theorem 19's length.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest
from plain_eval import float64_margins, no_node_horizon

from bilinear.automata import from_spec
from bilinear.constructions import Weights, build, prove
from bilinear.constructions.horizon.horizon import certified_horizon
from bilinear.constructions.exact.balls import arb, arb_matrix, precision
from bilinear.constructions.horizon.horizon_global import exhaustive_phase
from bilinear.constructions.horizon.horizon_orbit import exact_orbit, orbit_horizon, orbit_ingredients
from bilinear.constructions.horizon.horizon_projective import (MAX_STEPS, _certified, _Common, _matrices, _run, _Run, _trace,
                                                                 contracting_dropped,
                                                                 projective_horizon, resetting_symbols)
from bilinear.constructions.horizon.roundoff import RoundOff
from bilinear.constructions.horizon.snap import construction_snap, drift


def _noisy(spec: str, noise: float, seed: int) -> Weights:
    A, h0, R = build(spec, "full").to_float().float_arrays()
    return Weights("full", A + noise * np.random.default_rng(seed).normal(size=A.shape), h0, R)


def _directed_failure(w: Weights, automaton, length: int) -> int | None:
    """The shortest failure (margin <= 0) over the words: every prefix of length <= 2, then the
    powers of one symbol or of a loop of two, cut to ``length``."""
    A, h0, R = w.float_arrays()
    k = A.shape[0]
    prefixes = [p for n in range(3) for p in itertools.product(range(k), repeat=n)]
    loops = [(s,) for s in range(k)] + list(itertools.permutations(range(k), 2))
    words = np.array([np.resize(np.array(p + tuple(np.resize(np.array(u), length))), length)
                      for p in prefixes for u in loops])
    bad = np.nonzero((float64_margins(A, h0, R, automaton, words) <= 0).any(axis=0))[0]
    return int(bad[0]) if len(bad) else None


def test_resetting_symbols_are_the_rank_one_snapped_matrices():
    a = from_spec("reset:3")
    w = _noisy("reset:3", 1e-3, 0)
    snap = construction_snap(w, a)
    resets = resetting_symbols(snap)
    S = snap.block_weights.float_arrays()[0]
    K = list(snap.kept_coords)
    ranks = [np.linalg.matrix_rank(S[s][np.ix_(K, K)]) for s in range(w.n_symbols)]
    assert sorted(resets) == [s for s in range(w.n_symbols) if ranks[s] == 1] == [0, 1, 2]
    for s, (b, g) in resets.items():
        assert np.array_equal(np.outer(np.array(b, dtype=float), np.array(g, dtype=float)), S[s][np.ix_(K, K)])


@pytest.mark.parametrize("spec,noise,seed", [("reset:3", 1e-3, 0), ("reset:3", 3e-3, 1), ("flipflop:3", 3e-3, 0)])
def test_projective_length_is_below_the_first_failure_and_beats_theorem_19(spec, noise, seed, monkeypatch):
    monkeypatch.setattr("bilinear.constructions.horizon.horizon.node_horizon_widest", no_node_horizon)
    a = from_spec(spec)
    w = _noisy(spec, noise, seed)
    snap = construction_snap(w, a)
    proof = prove(snap.block_weights, a)
    assert proof.status == "proved"
    ro = RoundOff.for_network("float64", w)
    h = certified_horizon(w, snap, proof, a, "float64")
    orbit = orbit_horizon(w, snap, None, a, ro)
    assert h.bound == "projective" and h.length == projective_horizon(w, snap, None, a, ro).length
    assert h.length > 3 * orbit.length
    failure = _directed_failure(w, a, 8 * h.length)
    assert failure is not None and h.length < failure <= 8 * h.length


def test_projective_length_with_dropped_coordinates_in_a_random_basis(monkeypatch):
    """reset:3 with 4 contracting extra dimensions in a random dense basis (``drift``): the dropped
    part (gamma, beta, rho, xi) enters every run."""
    monkeypatch.setattr("bilinear.constructions.horizon.horizon.node_horizon_widest", no_node_horizon)
    a = from_spec("reset:3")
    A, h0, R = drift(build("reset:3", "full").to_float(), 0.0, hidden=6, seed=1).float_arrays()
    w = Weights("full", A + 3e-4 * np.random.default_rng(1).normal(size=A.shape), h0, R)
    snap = construction_snap(w, a)
    assert len(snap.kept_coords) < w.dim
    proof = prove(snap.block_weights, a)
    h = certified_horizon(w, snap, proof, a, "float64")
    orbit = orbit_horizon(w, snap, None, a, RoundOff.for_network("float64", w))
    assert h.bound == "projective" and h.length > 1.5 * orbit.length  # 236 against 124
    failure = _directed_failure(w, a, 2 * h.length)  # 304
    assert failure is not None and h.length < failure


def test_a_reset_with_a_permutation_between_resets(monkeypatch):
    """permutation_reset:2: the swap moves the state between the two rays after a reset (runs of two
    states), and the restart error's fixed point settles at a useless point (the reset's scale
    |g.z| - ||g|| U reaches 0 where the readout's margin does): the grid of restart errors finds
    a length, twice Theorem 19's, with no failure up to it."""
    monkeypatch.setattr("bilinear.constructions.horizon.horizon.node_horizon_widest", no_node_horizon)
    a = from_spec("permutation_reset:2")
    w = _noisy("permutation_reset:2", 3e-3, 1)
    snap = construction_snap(w, a)
    h = certified_horizon(w, snap, prove(snap.block_weights, a), a, "float64")
    orbit = orbit_horizon(w, snap, None, a, RoundOff.for_network("float64", w))
    assert h.bound == "projective" and h.length > 1.5 * orbit.length  # 150 against 85
    failure = _directed_failure(w, a, h.length + 1)
    assert failure is None or failure > h.length


def test_no_resetting_symbol_gets_nothing_from_the_projective_bound(monkeypatch):
    monkeypatch.setattr("bilinear.constructions.horizon.horizon.node_horizon_widest", no_node_horizon)
    a = from_spec("symmetric:4")
    w = _noisy("symmetric:4", 1e-3, 0)
    snap = construction_snap(w, a)
    ro = RoundOff.for_network("float64", w)
    assert resetting_symbols(snap) == {}
    assert not projective_horizon(w, snap, None, a, ro).certified
    h = certified_horizon(w, snap, prove(snap.block_weights, a), a, "float64")
    assert h.bound == "orbit" and h.length == orbit_horizon(w, snap, None, a, ro).length


# ------------------------------------------------------------------------------------------
# the theorem's runs, computed here
# ------------------------------------------------------------------------------------------
def _closure(pair, automaton, gens):
    """The pairs reached from ``pair`` by the matrices ``gens`` ({symbol: float matrix})."""
    seen, todo = {(pair[0], tuple(np.round(pair[1], 12)))}, [pair]
    out = [pair]
    while todo:
        q, z = todo.pop()
        for s, M in gens.items():
            p = (int(automaton.delta[s, q]), M @ z)
            key = (p[0], tuple(np.round(p[1], 12)))
            if key not in seen:
                seen.add(key)
                out.append(p)
                todo.append(p)
    return out


def _direct_projective(w, automaton) -> int:
    """Theorem 23's length for a network without dropped coordinates, in floats: the snapped
    states and the float matrices in the snap's basis from Theorem 19's setup, everything else
    (resets, restart rays, runs, exits, the rounds of the restart error) here."""
    snap = construction_snap(w, automaton)
    ro = RoundOff.for_network("float64", w)
    orbit = exact_orbit(snap, automaton)
    with precision():
        c, st = orbit_ingredients(w, snap, orbit, automaton, ro)
        _, _, s, us, _ = exhaustive_phase(automaton, st, c, ro, "test")
    assert not st.D
    f = lambda x: float(x.mid())  # noqa: E731
    tau, delta, us = f(c.tau), f(st.delta), f(us)
    k = len(st.K)
    F = [np.array([[f(M[i, j]) for j in st.K] for i in st.K]) for M in st.F]
    S = [np.array([[float(M[i, j]) for j in st.K] for i in st.K]) for M in snap.block_weights.A]
    R = np.array([[f(st.Rb[i, j]) for j in st.K] for i in range(st.Rb.nrows())])
    resets = {}
    for a, M in enumerate(S):
        if np.linalg.matrix_rank(M) == 1:
            j = int(np.nonzero(np.abs(M).sum(axis=0))[0][0])
            i = int(np.nonzero(M[:, j])[0][0])
            resets[a] = (M[:, j].copy(), M[i] / M[i, j])
    others = {a: S[a] for a in range(len(S)) if a not in resets}
    pairs = [(q, np.array([float(x) for x in z])) for q, z in orbit.pairs]
    starts = [_closure(p, automaton, others) for p in pairs]
    rays = {(int(automaton.delta[a, q]), tuple(np.sign(g @ z) * b)) for q, z in pairs for a, (b, g) in resets.items()}
    restarts = [_closure((q, np.array(r)), automaton, others) for q, r in sorted(rays)]
    n0 = max(np.linalg.norm(M, 2) for M in [np.eye(k)] + list(others.values()))  # id and its powers: 1
    # the steps' coupling over the non-resetting symbols, the exits' over the resetting ones (in numpy)
    eps = max([np.linalg.norm(F[a] - S[a], 2) + delta for a in others], default=0.0)
    eps_exit = max(np.linalg.norm(F[a] - S[a], 2) + delta for a in resets)

    def run(states):
        lab = lambda q: int(automaton.labels[q])  # noqa: E731
        margins = {}
        for q, z in states:
            for cl in range(len(R)):
                if cl != lab(q):
                    m = (R[lab(q)] - R[cl]) @ z
                    margins[lab(q), cl] = min(m, margins.get((lab(q), cl), np.inf))
        pairs = [(m, np.linalg.norm(R[l] - R[cl])) for (l, cl), m in margins.items()]
        drift = lambda a, z: np.linalg.norm((F[a] - S[a]) @ z) + delta * np.linalg.norm(z)  # noqa: E731
        eta = max(drift(a, z) for q, z in states for a in others)
        exits = [(drift(a, z), abs(g @ z), np.linalg.norm(g)) for q, z in states for a, (b, g) in resets.items()]
        return max(np.linalg.norm(z) for _, z in states), eta, pairs, exits

    def steps(rn, u0, first, limit, need):
        y, eta, pairs, exits = rn
        C, U, top = 0.0, u0, 0.0
        for t in range(limit + 1):
            if t:
                C += eta + eps * U
                U = n0 * (u0 + C)
            if t >= first and not all(m - tau * (y + U) - lk * U > 0 for m, lk in pairs):
                return t - 1, top
            if any(g - gn * U <= 0 for _, g, gn in exits):
                return t - 1, top
            d = max((e + eps_exit * U) / (g - gn * U) for e, g, gn in exits)
            if need is not None and d > need:
                return t - 1, top
            top = d
        return limit, top

    def length(restart, check):
        need = restart if check else None
        total, top = s + 10**5, 0.0
        for rn in map(run, starts):
            t, d = steps(rn, us, 1, total - s, need)
            total, top = min(total, s + t), max(top, d)
        for rn in map(run, restarts):
            t, d = steps(rn, restart, 0, max(0, total - s - 1), need)
            total, top = min(total, s + 1 + t), max(top, d)
        return total, top

    restart, best = 0.0, s
    for _ in range(5):
        got, top = length(restart, False)
        if top <= restart:
            return max(best, got)
        best = max(best, length(restart, True)[0])
        restart = max(restart, top)
    return best


@pytest.mark.parametrize("spec,noise,seed", [("reset:3", 1e-3, 0), ("flipflop:3", 3e-3, 1)])
def test_projective_length_is_the_theorem_computed_directly(spec, noise, seed):
    a = from_spec(spec)
    w = _noisy(spec, noise, seed)
    snap = construction_snap(w, a)
    h = projective_horizon(w, snap, None, a, RoundOff.for_network("float64", w))
    assert abs(h.length - _direct_projective(w, a)) <= 1


# ------------------------------------------------------------------------------------------
# the runs' recurrence, exits and composition, stepped here on chosen constants
# ------------------------------------------------------------------------------------------
def _direct_run(run, cm, u0, v0, first, limit, need):
    """``(last k, largest exit)`` of one run (docs/theory.md, Theorem 23), in 60-digit numbers."""
    import mpmath

    mpmath.mp.dps = 60
    eta, xi, y, n = run["eta"], run["xi"], run["y"], run["n"]
    eps, gamma, beta, rho, tau = cm
    C, U, V, vmax, top = 0, u0, v0, v0, (0, 0)
    for k in range(limit + 1):
        if k:
            C = C + eta + eps * U + gamma * V
            U, V = n * (u0 + C), rho * V + xi + beta * U
            vmax = max(vmax, V)
        if k >= first and not all(m - tau * (y + U + V) > lk * U + ld * V for m, lk, ld in run["pairs"]):
            return k - 1, top
        if any(g - gn * U <= 0 for _, _, g, gn in run["exits"]):
            return k - 1, top
        d = (max((e + eps * U + gamma * vmax) / (g - gn * U) for e, _, g, gn in run["exits"]),
             max((x + beta * U + rho * vmax) / (g - gn * U) for _, x, g, gn in run["exits"]))
        if need is not None and not (d[0] <= need[0] and d[1] <= need[1]):
            return k - 1, top
        top = d
    return limit, top


def _frac(x):
    return tuple(_frac(y) for y in x) if isinstance(x, (tuple, list)) else Fraction(x)


# (common eps, gamma, beta, rho, tau), start run, restart run, s, restart error (u_R, v_R)
RUN_CASES = [
    # the identity's drift after a reset decides (eta, eps U; exits checked)
    (("1/1000", 0, 0, 0, 0), dict(eta="1/1000", xi=0, y=1, n=1, pairs=[(1, 3, 0)], exits=[("1/1000", 0, 1, 1)]),
     dict(eta="1/500", xi=0, y=1, n=1, pairs=[("1/2", 3, 0)], exits=[("1/1000", 0, 1, 1)]), 3, ("1/100", 0)),
    # the restart's own error decides: a large u_R, and its readout at k = 0
    (("1/1000", 0, 0, 0, 0), dict(eta="1/1000", xi=0, y=1, n=1, pairs=[(1, 10, 0)], exits=[("1/1000", 0, 1, 1)]),
     dict(eta="1/1000", xi=0, y=1, n=1, pairs=[("1/2", 2, 0)], exits=[("1/1000", 0, 1, 1)]), 2, ("1/4", 0)),
    (("1/1000", 0, 0, 0, 0), dict(eta="1/1000", xi=0, y=1, n=1, pairs=[(1, 10, 0)], exits=[("1/1000", 0, 1, 1)]),
     dict(eta="1/1000", xi=0, y=1, n=1, pairs=[("1/2", 3, 0)], exits=[("1/1000", 0, 1, 1)]), 2, ("3/20", 0)),
    # the sign of the reset's scale (kappa: |g.z| - ||g|| U) ends the run before the readout does
    (("1/1000", 0, 0, 0, 0), dict(eta="1/1000", xi=0, y=1, n=1, pairs=[(1, "1/10", 0)], exits=[("1/1000", 0, "1/10", 1)]),
     dict(eta="1/1000", xi=0, y=1, n=1, pairs=[(1, "1/10", 0)], exits=[("1/1000", 0, "1/5", 2)]), 1, ("1/5", 0)),
    # the exit's demand (with gn U) exceeds u_R before the readout fails
    (("1/1000", 0, 0, 0, 0), dict(eta="1/1000", xi=0, y=1, n=1, pairs=[(1, "1/2", 0)], exits=[("1/1000", 0, 1, 2)]),
     dict(eta="1/1000", xi=0, y=1, n=1, pairs=[(1, "1/2", 0)], exits=[("1/1000", 0, 1, 2)]), 1, ("1/200", 0)),
    # a dropped part: gamma V, xi, beta U, rho V, L_D and the readout rounding tau all enter
    (("1/2000", "1/10", "1/100", "1/2", "1/1000"),
     dict(eta="1/2000", xi="1/500", y=2, n="3/2", pairs=[(1, 2, 1), (2, 5, 3)], exits=[("1/1000", "1/300", 1, 1)]),
     dict(eta="1/1000", xi="1/400", y=1, n="3/2", pairs=[("1/2", 2, 2)], exits=[("1/1000", "1/300", 2, 1)]),
     4, ("1/50", "1/20")),
]


def _make(run):
    return _Run(arb(run["n"]), arb(run["y"]), arb(run["eta"]), arb(run["xi"]),
                tuple(tuple(arb(x) for x in p) for p in run["pairs"]), tuple(tuple(arb(x) for x in e) for e in run["exits"]))


@pytest.mark.parametrize("case", RUN_CASES)
@pytest.mark.parametrize("check", [False, True])
def test_runs_and_their_composition_are_the_theorem_stepped_directly(case, check):
    common, start, restart, s, need = _frac(case[0]), case[1], case[2], case[3], _frac(case[4])
    start, restart = ({k: _frac(v) for k, v in r.items()} for r in (start, restart))
    limit = 2000  # every case ends before (the module steps to MAX_STEPS)
    t0, d0 = _direct_run(start, common, Fraction(1, 1000), Fraction(0), 1, limit, need if check else None)
    k, d1 = _direct_run(restart, common, need[0], need[1], 0, max(0, t0 - 1), need if check else None)
    direct = min(s + t0, s + 1 + k)
    with precision():
        cm = _Common(*(arb(x) for x in common))
        trace = _trace(_make(start), cm, arb(Fraction(1, 1000)), arb(0), 1, MAX_STEPS)
        got, top = _certified([trace], [_make(restart)], cm, s, (arb(need[0]), arb(need[1])), check)
    assert got == direct and t0 < limit, (got, direct, t0, k)
    if not check:  # the largest exit seen, on the runs stepped to their own end
        assert float(top[0].mid()) == pytest.approx(float(max(d0[0], d1[0])), rel=1e-9, abs=1e-15)


def test_run_constants_are_the_ones_numpy_computes():
    """One run's constants (docs/theory.md, Theorem 23) on chosen matrices: the largest state,
    the drift eta and leak xi of the non-resetting symbol at the states, each pair's smallest
    margin over the states of its label (two states share label 0), and the exits of the reset."""
    rng = np.random.default_rng(3)
    K, D = [0, 1], [2]
    S = [np.array([[0, -1, 0], [1, 0, 0], [0, 0, 0]]), np.array([[1, 2, 0], [0, 0, 0], [0, 0, 0]])]  # a turn, a reset
    F = [M + 1e-2 * rng.normal(size=(3, 3)) for M in S]
    R = rng.normal(size=(3, 3))
    states = [(0, (1, 0)), (1, (0, 1)), (0, (-1, 0)), (2, (0, -1))]
    labels, delta, g = [0, 0, 1], 1e-3, np.array([1.0, 2.0])
    diffs = {l: {c: ([arb(float(x)) for x in (R[l] - R[c])[K]], arb(float(np.linalg.norm((R[l] - R[c])[K]))),
                     arb(float(np.linalg.norm((R[l] - R[c])[D])))) for c in range(3) if c != l} for l in (0, 1)}
    with precision():
        mats = _matrices([arb_matrix(M) for M in F], [arb_matrix(M) for M in S], K, D)
        run = _run(states, labels, mats, {1: ((1, 0), (1, 2))}, [0], arb(delta), diffs, arb(1))
    f = lambda x: float(x.mid())  # noqa: E731
    Z = [np.array(z, dtype=float) for _, z in states]
    assert f(run.ymax) == pytest.approx(1.0)
    drift = lambda a, z: np.linalg.norm(((F[a] - S[a])[np.ix_(K, K)]) @ z) + delta * np.linalg.norm(z)  # noqa: E731
    leak = lambda a, z: np.linalg.norm(F[a][np.ix_(D, K)] @ z) + delta * np.linalg.norm(z)  # noqa: E731
    assert f(run.eta) == pytest.approx(max(drift(0, z) for z in Z), rel=1e-9)
    assert f(run.xi) == pytest.approx(max(leak(0, z) for z in Z), rel=1e-9)
    want = {}
    for (q, _), z in zip(states, Z):
        l = labels[q]
        for c in range(3):
            if c != l:
                want[l, c] = min(want.get((l, c), np.inf), (R[l] - R[c])[K] @ z)
    assert [f(m) for m, _, _ in run.pairs] == pytest.approx([want[k] for k in sorted(want)], rel=1e-9)
    assert [f(lk) for _, lk, _ in run.pairs] == pytest.approx([np.linalg.norm((R[l] - R[c])[K]) for l, c in sorted(want)])
    exits = [(drift(1, z), leak(1, z), abs(g @ z), np.linalg.norm(g)) for z in Z]
    assert [tuple(f(x) for x in e) for e in run.exits] == [pytest.approx(e, rel=1e-9) for e in exits]


# ------------------------------------------------------------------------------------------
# dropped coordinates whose blocks contract only in another basis (the padded networks)
# ------------------------------------------------------------------------------------------
def _padded(spec: str, turn: float):
    """``spec``'s ``full`` construction padded by ``drift`` as benchmarks/certify_coverage.py pads it."""
    e = build(spec, "full")
    return drift(e.to_float(), turn, hidden=e.dim + 4 + e.dim % 2)


def _dropped_norms(w, snap, basis) -> list:
    """``||c_a (P^-1 A_a P)[D,D]||`` per symbol in numpy, ``c_a`` the least-squares fit of the
    float ``[K,K]`` block to the snapped one (the theorem's scale)."""
    P = np.array(basis, dtype=float)
    K = list(snap.kept_coords)
    D = [j for j in range(w.dim) if j not in set(K)]
    out = []
    for A, S in zip(w.float_arrays()[0], snap.block_weights.float_arrays()[0]):
        F = np.linalg.solve(P, A) @ P
        c = np.linalg.lstsq(F[np.ix_(K, K)].reshape(-1, 1), S[np.ix_(K, K)].reshape(-1), rcond=None)[0][0]
        out.append(abs(c) * np.linalg.norm(F[np.ix_(D, D)], 2))
    return out


def test_the_dropped_coordinates_are_rebased_to_contract_and_the_snap_is_unchanged():
    a = from_spec("reset:3")
    w = _padded("reset:3", 1e-3)
    snap = construction_snap(w, a)
    K = list(snap.kept_coords)
    assert max(_dropped_norms(w, snap, snap.basis)) > 1  # the snap's own basis: rho >= 1
    new = contracting_dropped(w, snap)
    assert new is not None and max(_dropped_norms(w, snap, new.basis)) < 0.9
    P, Q = (np.array(b, dtype=object) for b in (snap.basis, new.basis))
    assert all(P[i, j] == Q[i, j] for i in range(w.dim) for j in K)  # the kept columns exactly as they were
    for S in snap.block_weights.A:  # S is zero outside K x K: P S P^-1 = Q S Q^-1 exactly
        Sm = np.array(S, dtype=object)
        assert all(Sm[i, j] == 0 for i in range(w.dim) for j in range(w.dim) if i not in K or j not in K)
    assert contracting_dropped(_noisy("reset:3", 1e-3, 0), construction_snap(_noisy("reset:3", 1e-3, 0), a)) is None


def test_padded_network_is_certified_below_its_first_failure_and_far_above_theorem_19(monkeypatch):
    """The padded reset:3 network (phase error 1e-3, as the benchmark's) with noise 3e-4 on every
    entry: the projective bound in the snap's basis (rho = 1.03) gives nothing past the
    exhaustive depth; re-based, it certifies 311 against Theorem 19's 79, with no failure at or
    below it among the directed words."""
    monkeypatch.setattr("bilinear.constructions.horizon.horizon.node_horizon_widest", no_node_horizon)
    a = from_spec("reset:3")
    A, h0, R = _padded("reset:3", 1e-3).float_arrays()
    w = Weights("full", A + 3e-4 * np.random.default_rng(0).normal(size=A.shape), h0, R)
    snap = construction_snap(w, a)
    ro = RoundOff.for_network("float64", w)
    h = projective_horizon(w, snap, None, a, ro)
    orbit = orbit_horizon(w, snap, None, a, ro)
    assert h.bound == "projective" and h.length > 3 * orbit.length and "re-based" in h.note
    assert certified_horizon(w, snap, prove(snap.block_weights, a), a, "float64").length == h.length
    failure = _directed_failure(w, a, 2 * h.length)
    assert failure is None or failure > h.length
    monkeypatch.setattr("bilinear.constructions.horizon.horizon_projective.contracting_dropped", lambda w, s: None)
    assert projective_horizon(w, snap, None, a, ro).length < orbit.length  # the snap's own basis

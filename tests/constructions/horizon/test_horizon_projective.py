"""Theorem 22 (the projective orbit horizon, docs/theory.md Section 7), tested without trusting its code.

* the resetting symbols against numpy (a rank-one snapped matrix is its column times its row);
* an evaluator written here (``plain_eval``'s float64 loop) on directed words (every short prefix,
  then the powers of every symbol and of every loop of two symbols): on reset:3 and flipflop:3
  ``full`` networks with noise and seeds, no failure at or below the certified length, a failure
  found above it, and the length longer than Theorem 19's;
* where no symbol resets (a noisy S_4 construction), the projective bound certifies nothing and
  ``certified_horizon`` is Theorem 19's length.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from plain_eval import float64_margins, no_node_horizon

from bilinear.automata import from_spec
from bilinear.constructions import Weights, build, prove
from bilinear.constructions.horizon.horizon import certified_horizon
from bilinear.constructions.horizon.horizon_orbit import orbit_horizon
from bilinear.constructions.horizon.horizon_projective import projective_horizon, resetting_symbols
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


@pytest.mark.parametrize("spec,noise,seed", [("reset:3", 1e-3, 0), ("reset:3", 3e-3, 1), ("flipflop:3", 1e-3, 2),
                                             ("flipflop:3", 3e-3, 0)])
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
    failure = _directed_failure(w, a, 4 * h.length)
    assert failure is not None and h.length < failure


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

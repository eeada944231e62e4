"""Theorem 20 (the node horizon, docs/theory.md Section 7), tested without trusting its code:
an evaluator written for the tests (tests/plain_eval.py, a float64 loop) and a search (every word
to a depth, periodic words of period <= 4, a beam search on the margin) on perturbed ``full``
networks in a random dense basis: no failure at or below the certified length, and a network
where the node bound certifies strictly more than Theorems 16 / 19."""

from __future__ import annotations


import numpy as np
import pytest
from plain_eval import first_failure

from bilinear.automata.families import from_spec
from bilinear.constructions.horizon import certified_horizon
from bilinear.constructions.horizon_nodes import node_horizon, suffix_length
from bilinear.constructions.prover import prove
from bilinear.constructions.registry import build
from bilinear.constructions.roundoff import RoundOff
from bilinear.constructions.snap import construction_snap, drift
from bilinear.constructions.weights import Weights


def _network(spec: str, noise: float, seed: int = 1):
    w = drift(build(spec, "full").to_float(), 0.0, hidden=6, seed=seed)
    A, h, R = w.float_arrays()
    A = A + noise * np.random.default_rng(seed).normal(size=A.shape)
    w, a = Weights("full", A, h, R), from_spec(spec)
    snap = construction_snap(w, a)
    proof = prove(snap.block_weights, a)
    assert proof.status == "proved"
    return w, a, snap, proof


_first_failure = first_failure  # tests/plain_eval.py


def test_suffix_length():
    assert [suffix_length(n, 729) for n in (1, 2, 3, 5, 729, 1000)] == [64, 9, 6, 4, 1, 1]


# (spec, noise, max_keys): an isometric snap (cyclic:3), non-isometric ones (S_4, reset:3)
@pytest.mark.parametrize("spec,noise,keys", [("cyclic:3", 3e-3, 81), ("symmetric:4", 3e-4, 16),
                                             ("reset:3", 3e-4, 81), ("dihedral:3", 3e-3, 64)])
def test_no_word_fails_at_or_below_the_node_horizon(spec, noise, keys):
    w, a, snap, proof = _network(spec, noise)
    h = node_horizon(w, snap, proof, a, RoundOff.of("float64", w.dim), max_steps=300, max_keys=keys)
    assert h.bound == "node" and h.length is not None and h.length >= 8, h
    first = _first_failure(w, a, min(4 * h.length, 600))
    assert first is None or first > h.length, (first, h.length)


def test_the_node_bound_certifies_more_than_theorem_16():
    w, a, snap, proof = _network("dihedral:3", 1e-3)
    old = certified_horizon(w, snap, proof, a, "float64")
    h = node_horizon(w, snap, proof, a, RoundOff.of("float64", w.dim), max_steps=400, max_keys=64)
    assert old.length is not None and h.length is not None and h.length > old.length, (old, h)
    first = _first_failure(w, a, min(3 * h.length, 600))
    assert first is None or first > h.length, (first, h.length)


@pytest.mark.parametrize("spec,noise", [("cyclic:3", 3e-3), ("reset:3", 3e-4)])
def test_every_word_lies_in_its_node_set(spec, noise):
    """Every word to depth 6, its state computed here by a plain float64 loop in the snap's basis:
    its ray meets the ball of its node (distance from the centre to the ray <= the radius)."""
    from bilinear.constructions.balls import op_norm, precision
    from bilinear.constructions.horizon_global import ingredients
    from bilinear.constructions.horizon_nodes import step_nodes

    w, a, snap, proof = _network(spec, noise)
    ro = RoundOff.of("float64", w.dim)
    with precision():
        _, st = ingredients(w, snap, proof, a, ro)
        d = st.x0.nrows()
        F = [np.array([[float(M[i, j].mid()) for j in range(d)] for i in range(d)]) for M in st.F]
        norms = [op_norm(M, range(d), range(d)) for M in st.F]
        k = 2
        nodes = {(int(a.start), ()): (st.x0, __import__("flint").arb(0))}
        level = [((), np.array([float(st.x0[j, 0].mid()) for j in range(d)]))]
        worst = 0.0
        for t in range(1, 7):
            nodes = step_nodes(nodes, st.F, a, st.delta, norms, k)
            level = [(u + (s,), F[s] @ x) for u, x in level for s in range(len(F))]
            for u, x in level:
                q = int(a.start)
                for s in u:
                    q = int(a.delta[s, q])
                m, r = nodes[(q, u[-k:])]
                c = np.array([float(m[j, 0].mid()) for j in range(d)])
                xh = x / np.linalg.norm(x)
                along = max(float(c @ xh), 0.0)
                dist = float(np.linalg.norm(c - along * xh))
                assert dist <= float(r.mid()) * (1 + 1e-9) + 1e-12, (t, u, dist, float(r.mid()))
                worst = max(worst, dist / max(float(r.mid()), 1e-300))
        assert worst > 0.05  # not vacuous: some word lies away from its ball's centre


def test_the_length_is_where_a_ball_first_crosses_a_decision_boundary():
    """The sets stepped by ``step_nodes`` (checked above to contain every word), the margin of each
    ball computed here in floats (centre's margin minus ||R_l - R_c|| r): the certified length is
    the last length before one ball reaches a boundary."""
    from bilinear.constructions.balls import op_norm, precision
    from bilinear.constructions.horizon_global import ingredients
    from bilinear.constructions.horizon_nodes import step_nodes
    import flint

    w, a, snap, proof = _network("cyclic:3", 3e-3)
    ro = RoundOff.of("float64", w.dim)
    h = node_horizon(w, snap, proof, a, ro, max_steps=300, max_keys=81)
    with precision():
        _, st = ingredients(w, snap, proof, a, ro)
        d = st.x0.nrows()
        R = np.array([[float(st.Rb[i, j].mid()) for j in range(d)] for i in range(st.Rb.nrows())])
        norms = [op_norm(M, range(d), range(d)) for M in st.F]
        nodes = {(int(a.start), ()): (st.x0, flint.arb(0))}
        t = 0
        while True:
            ok = True
            for (q, _), (m, r) in nodes.items():
                c = np.array([float(m[j, 0].mid()) for j in range(d)])
                lab = int(a.labels[q])
                for o in range(len(R)):
                    if o != lab and (R[lab] - R[o]) @ c - np.linalg.norm(R[lab] - R[o]) * float(r.mid()) <= 0:
                        ok = False
            if not ok or t > 300:
                break
            nodes = step_nodes(nodes, st.F, a, st.delta, norms, 4)
            t += 1
    assert h.length == t - 1, (h.length, t)


def test_float32_rounding_is_charged_in_the_sets():
    """Rounding is charged in every step's radius (Theorem 18's model): on this network float32's
    larger unit costs one step against exact real arithmetic (186 -> 185), while an uncharged
    radius would certify 186 in float32 too."""
    w, a, snap, proof = _network("dihedral:3", 1e-3)
    real = node_horizon(w, snap, proof, a, RoundOff.of("real", w.dim), max_keys=64)
    single = node_horizon(w, snap, proof, a, RoundOff.of("float32", w.dim), max_keys=64)
    assert single.length < real.length

"""NodeSets.margins gathers per label only that label's pairs' readout norms and sums the radii's
share of the error for all of them at once; here the margins as first written, pair by pair over
every node's gathered table, computed beside it at every length of node-horizon runs (one ball,
aged balls, clusters, a radius per block; 2, 3 and 24 classes): the same numbers, bit for bit."""

from __future__ import annotations

import math

import numpy as np
import pytest

from bilinear.automata.families import from_spec
from bilinear.constructions.handmade.registry import build
from bilinear.constructions.horizon import horizon_nodes
from bilinear.constructions.horizon.horizon_nodes import NodeSets, _gamma, _inflate, node_horizon
from bilinear.constructions.horizon.roundoff import RoundOff
from bilinear.constructions.horizon.snap import construction_snap
from bilinear.constructions.proof.prover import prove
from bilinear.constructions.values.weights import Weights


def _pairwise(sets: NodeSets) -> np.ndarray:
    """Per node, min over the label's pairs of centre margin less the error bound, one pair at a
    time, from the table of every pair gathered for every node."""
    xb = sets.state_bound()
    g = _gamma(sets.d)
    absc = np.abs(sets.c)
    out = np.full(len(sets.q), math.inf)
    ndv = sets._t_ndv[sets.sid]
    node_labels = sets.labels[sets.q]
    for p, (l, _) in enumerate(sets.pairs):
        rows = np.flatnonzero(node_labels == l)
        if not len(rows):
            continue
        centre = sets.c[rows] @ sets.dvm[p]
        err = (g * (absc[rows] @ np.abs(sets.dvm[p])) + absc[rows] @ sets.dve[p]
               + (ndv[rows, p] * sets.r[rows]).sum(axis=(1, 2)) + sets.tau * xb[rows])
        out[rows] = np.minimum(out[rows], centre - _inflate(err))
    return out


@pytest.mark.parametrize("spec, variant, noise", [("parity", "full", 1e-3), ("cyclic:3", "full", 3e-3),
                                                  ("symmetric:4", "full", 3e-4)])
def test_margins_are_those_of_the_pairwise_loop_bit_for_bit(monkeypatch, spec, variant, noise):
    a = from_spec(spec)
    A, h0, R = build(spec, variant).to_float().float_arrays()
    w = Weights("full", A + noise * np.random.default_rng(3).normal(size=A.shape), h0, R)
    snap = construction_snap(w, a)
    proof = prove(snap.block_weights, a)
    assert proof.status == "proved"
    seen = []
    fast = NodeSets.margins

    def both(sets):
        got = fast(sets)
        want = _pairwise(sets)
        assert got.shape == want.shape and np.array_equal(got, want), (sets.t, got, want)
        seen.append((len(sets.pairs), bool((got > 0).all())))
        return got

    monkeypatch.setattr(horizon_nodes.NodeSets, "margins", both)
    h = node_horizon(w, snap, proof, a, RoundOff.of("float64", w.dim), max_steps=40, max_keys=27)
    assert seen and {p for p, _ in seen} == {a.n_classes * (a.n_classes - 1)}
    assert h.length is not None and h.length >= 1


def test_one_class_has_no_pair_and_every_margin_is_infinite():
    """One class: no pair (l, c) with c != l, so no margin to take a minimum over: every node's
    margin is +inf at every length (the empty minimum), and the node horizon stops only at its
    step limit with every node certified."""
    from bilinear.automata import Automaton
    from bilinear.constructions.horizon.horizon_nodes import node_sets

    a = Automaton([[0], [0]], start=0, labels=[0])
    A = np.array([[[0.6, 0.1], [0.0, 0.5]], [[0.5, 0.0], [0.2, 0.4]]])
    w = Weights("full", A, np.array([1.0, 0.3]), np.array([[1.0, 0.5]]))
    snap = construction_snap(w, a)
    proof = prove(snap.block_weights, a)
    assert a.n_classes == 1 and proof.status == "proved"
    ro = RoundOff.of("float64", w.dim)
    sets = node_sets(w, snap, proof, a, ro)
    assert sets.C == 1 and sets.pairs == []
    for _ in range(4):
        m = sets.margins()
        assert m.shape == (len(sets.q),) and len(m) >= 1 and (m == math.inf).all(), (sets.t, m)
        sets.step()
    h = node_horizon(w, snap, proof, a, ro, max_steps=6)
    assert h.bound == "node" and h.count == 6 and h.note.startswith("stopped after 6 steps, every node certified"), h

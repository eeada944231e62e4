"""The ceiling of a snap's certified horizon (constructions/horizon/horizon.py, ``horizon_ceiling``;
Theorem 16's recurrence, horizon_global.py ``global_ceiling``) is never below the horizon it bounds,
computed in balls, and it is low enough to rule out the candidates that lose (issue 48 item 3:
certify computes no horizon that cannot win)."""

from __future__ import annotations

import math

import pytest

from bilinear.analysis.certify import _candidates
from bilinear.automata.families import from_spec
from bilinear.constructions.handmade.registry import build
from bilinear.constructions.horizon.horizon import certified_horizon, horizon_ceiling
from bilinear.constructions.horizon.snap import drift
from bilinear.constructions.proof.prover import prove

C5 = from_spec("cyclic:5")


@pytest.fixture(scope="module")
def full16():
    """Each proved candidate of a drifting full network (hidden 16): (snap, its ceiling, its
    float64 and real horizons)."""
    w = drift(build("cyclic:5", "full"), 0.0005, hidden=16)
    out: list = []
    for snap in _candidates(w, C5, [], out):
        proof = prove(snap.block_weights, C5, bound=64)
        if proof.status == "proved":
            out.append((snap, horizon_ceiling(w, snap),
                        [certified_horizon(w, snap, proof, C5, a, nodes=False).order_key() for a in ("float64", "real")]))
    return out


def test_the_ceiling_is_above_every_horizon(full16):
    assert len(full16) >= 2
    for snap, ceiling, keys in full16:
        assert all(k <= ceiling for k in keys), (snap.rule, ceiling, keys)


def test_the_ceiling_rules_out_the_losers(full16):
    """The first candidate certifies 725 (float64); every other one certifies less, and its
    ceiling says so without balls (the construction read in the network's basis: its dropped
    block grows, rho >= 1 in both bases, so at most 256)."""
    (_, _, first), *others = full16
    assert first[0] == 725
    assert others
    for snap, ceiling, keys in others:
        assert keys[0] <= ceiling < first[0], (snap.rule, ceiling, keys)


def test_no_ceiling_where_the_block_wise_bound_applies():
    """rotation2d snaps have no basis of their own: the block-wise bound (one scale per block)
    may exceed Theorem 16's, so no ceiling is claimed."""
    w = drift(build("cyclic:5", "rotation2d"), 0.0005, hidden=8)
    snap = next(iter(_candidates(w, C5, [], [])))
    assert snap.basis is None and horizon_ceiling(w, snap) == math.inf

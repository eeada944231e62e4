"""Factor counts known before building (issue 48 item 2): ``one-hot-householder``'s K and its
reflections, read off the automaton, against the weights built; ``half-turns`` against every
source converted on its own; and the bare ``householder`` columns' counts without building."""

from __future__ import annotations

import numpy as np
import pytest

from bilinear.automata import from_spec
from bilinear.constructions.handmade.halfturns import nonneg_dim, nonneg_weights, source_factors
from bilinear.constructions.handmade.reflections import onehot_householder
from bilinear.constructions.handmade.registry import (
    CONSTRUCTIONS,
    HALF_TURN_SOURCES,
    _family,
    _onehot_householder_count,
    _onehot_householder_nonneg,
    build,
    candidates,
    factor_counts,
    half_turns,
)
from bilinear.constructions.values.memo import minimal
from bilinear.errors import ConstructionError

GROUPS = ["parity", "cyclic:5", "dihedral:4", "quaternion", "symmetric:3", "alternating:4", "cyclic:3*parity"]
OTHERS = ["flipflop:2", "reset:3", "modarith:3", "random:states=5,symbols=2,seed=0", "gridworld:3"]


@pytest.mark.parametrize("spec", GROUPS)
def test_onehot_householder_count_is_the_k_built_for_a_group(spec):
    a = from_spec(spec)
    w = onehot_householder(a)
    V, beta = w.factors
    assert _onehot_householder_count(minimal(a)) == V.shape[1]
    # a non-identity permutation needs a reflection (beta = 2): never nonneg
    assert _onehot_householder_nonneg(minimal(a)) is (not any(b == 2 for b in np.asarray(beta).ravel()))


@pytest.mark.parametrize("spec", OTHERS)
def test_onehot_householder_count_is_unknown_past_permutations(spec):
    """No count is claimed where the one-hot unit vectors are not one-hot (a symbol merges states)."""
    m = minimal(from_spec(spec))
    if all(len(set(row.tolist())) == m.n_states for row in m.delta):
        pytest.skip("a permutation automaton")
    assert _onehot_householder_count(m) is None and _onehot_householder_nonneg(m) is None


def test_identity_symbols_are_nonneg():
    """Every symbol the identity: no reflection, K = 1 (identity factors), nonneg."""
    from bilinear.automata import Automaton

    a = Automaton(np.array([[0, 1, 2], [0, 1, 2]]), labels=[0, 1, 2])
    assert _onehot_householder_count(minimal(a)) == onehot_householder(a).factors[0].shape[1] == 1
    assert _onehot_householder_nonneg(minimal(a)) is True


@pytest.mark.parametrize("spec,kind,tried_for", [
    ("dihedral:5", "householder", "householder:7,nonneg"),
    ("symmetric:3", "householder", "householder:7,nonneg"),
    ("quaternion", "householder", "householder:7"),
    ("flipflop:2", "householder", "householder:7,nonneg"),
    ("cyclic:5", "dplr", "dplr:7"),
])
def test_factor_counts_are_the_counts_of_the_built_candidates(spec, kind, tried_for):
    a = from_spec(spec)
    built = [w.variant_info.param for _, w in candidates(a, kind, tried_for=tried_for)]
    assert factor_counts(a, kind, tried_for=tried_for) == [k for k in built if k is not None]


@pytest.mark.parametrize("spec", ["parity", "cyclic:3", "dihedral:4", "alternating:4", "flipflop:2", "modarith:3"])
def test_half_turns_is_the_best_source_converted_alone(spec):
    """Each source converted on its own (no source skipped), the smallest (d, K), the first among
    equals: what ``half_turns`` returns without building one-hot-householder where it cannot win."""
    a = from_spec(spec)
    family = _family(a)
    sources = []
    for c in CONSTRUCTIONS:
        if c.name in HALF_TURN_SOURCES and c.applies(family):
            try:
                sources.append(c.builder(a))
            except ConstructionError:
                continue
    sources.append(onehot_householder(a))
    best = None
    for src in sources:
        if source_factors(src) is None:
            continue
        w = nonneg_weights(spec, a.symbols, [src])
        assert nonneg_dim(src) == w.dim  # the d known before converting
        if best is None or (w.dim, w.factors[0].shape[1]) < (best.dim, best.factors[0].shape[1]):
            best = w
    got = half_turns(a)
    assert got.variant == best.variant and got.dim == best.dim
    assert all((x == y).all() for x, y in zip(got.factors, best.factors))


def test_build_refuses_one_hot_householder_by_its_known_count():
    refusals: list = []
    w = build("cyclic:5", "householder:2", refusals=refusals)
    assert w.dim == 2
    assert ("one-hot-householder", "its K = 4 exceeds K = 2") in refusals
    refusals = []
    build("cyclic:5", "householder:6,nonneg", refusals=refusals)
    assert ("one-hot-householder", "its factors include reflections (beta = 2), not householder:6,nonneg") in refusals


def test_build_still_builds_one_hot_householder_where_its_count_is_unknown():
    """reset:3 is no group: its one-hot-householder weights (projections only) are nonneg and win."""
    refusals: list = []
    w = build("reset:3", "householder:2,nonneg", refusals=refusals)
    reasons = dict(refusals)
    assert "exceeds" not in reasons.get("one-hot-householder", "")
    assert "reflections" not in reasons.get("one-hot-householder", "")
    assert w.variant == "householder:2,nonneg"

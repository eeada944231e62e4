"""The parts of an extraction that decide its verdict, each against a computation written for the
test: the separation bounds of the clusters (both radii), the majority vote of the transitions,
the refill of an unobserved transition (into cluster 0 too), and the count of label conflicts.

The helpers are private and ``analysis/extract.py`` may be split into modules, so they are looked
up by name in the analysis room's extraction modules (:func:`_private`)."""

from __future__ import annotations

import importlib
import pkgutil
from collections import Counter

import numpy as np
import pytest

import bilinear.analysis as analysis
from bilinear.analysis.examples import cyclic_rotation2d
from bilinear.analysis.extract import ExtractConfig, extract
from bilinear.automata import from_spec
from bilinear.constructions.values.floatrun import float_steps


def _private(name: str):
    """``name`` from ``bilinear.analysis.extract`` or the module of the analysis room it moved to."""
    modules = ["bilinear.analysis.extract"] + sorted(
        f"bilinear.analysis.{m.name}" for m in pkgutil.iter_modules(analysis.__path__)
        if any(part in m.name for part in ("extract", "cluster", "radius", "signature", "vote")))
    for module in modules:
        found = getattr(importlib.import_module(module), name, None)
        if found is not None:
            return found
    raise LookupError(f"{name} is in none of {modules}")


# ------------------------------------------------------------------------------------------------
# the separation bounds: within = max 2 r_i, between = min |c_i - c_j| - r_i - r_j
# ------------------------------------------------------------------------------------------------
def _brute_bounds(points: np.ndarray, ids: np.ndarray, centres: np.ndarray) -> tuple[float, float]:
    radius = np.array([max(np.linalg.norm(points[ids == c] - centres[c], axis=1)) for c in range(len(centres))])
    within = float(2 * radius.max())
    between = min((float(np.linalg.norm(centres[i] - centres[j]) - radius[i] - radius[j])
                   for i in range(len(centres)) for j in range(len(centres)) if i != j), default=float("inf"))
    return within, between


def test_clusters_whose_radii_overlap_are_not_separated():
    """Two clusters of radius 1 with centres 3.5 apart: between = 3.5 - 1 - 1 = 1.5 < within = 2.
    Charging only one of the two radii would give 2.5 > 2 and call them separated."""
    clusters = _private("_Clusters")(dim=2, tol=1.0, max_states=10)
    points = np.array([[0.0, 0.0], [1.0, 0.0], [3.5, 0.0], [4.5, 0.0]])
    ids = clusters.assign(points)
    assert ids.tolist() == [0, 0, 1, 1]
    within, between = clusters.bounds()
    assert (within, between) == pytest.approx((2.0, 1.5))
    assert (within, between) == pytest.approx(_brute_bounds(points, ids, clusters.centres[: clusters.k]))
    assert not between > within  # the verdict `separated` of a geometric extraction


@pytest.mark.parametrize("seed", range(5))
def test_bounds_against_every_pair(seed):
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(4, 3)) * 5
    points = np.concatenate([c + rng.normal(size=(20, 3)) * rng.uniform(0.05, 0.5) for c in centres])
    clusters = _private("_Clusters")(dim=3, tol=2.0, max_states=50)
    ids = clusters.assign(points)
    assert (ids >= 0).all()
    got = clusters.bounds()
    assert got == pytest.approx(_brute_bounds(points, ids, clusters.centres[: clusters.k]))


# ------------------------------------------------------------------------------------------------
# the majority vote of the observed transitions
# ------------------------------------------------------------------------------------------------
def _brute_majority(ids: np.ndarray, words: np.ndarray, K: int, S: int):
    votes: dict[int, Counter] = {}
    for row, word in zip(ids.tolist(), words.tolist()):
        for t, s in enumerate(word):
            votes.setdefault(row[t] * S + s, Counter())[row[t + 1]] += 1
    delta = np.full(K * S, -1)
    extra = against = total = 0
    for src, counter in votes.items():
        best = max(counter.values())
        delta[src] = min(c for c, n in counter.items() if n == best)  # a tie: the smaller cluster
        extra += len(counter) - 1
        against += sum(counter.values()) - best
        total += sum(counter.values())
    return delta, extra, against / total


def test_the_majority_successor_wins_a_conflicting_vote():
    """From cluster 0 under symbol 0: three votes for cluster 1, one for cluster 0."""
    ids = np.array([[0, 1], [0, 1], [0, 1], [0, 0], [1, 0], [1, 0]])
    words = np.zeros((6, 1), dtype=np.int64)
    delta, conflicts, fraction = _private("_majority")(ids, words, 2, 1)
    assert delta.tolist() == [1, 0]
    assert conflicts == 1 and fraction == pytest.approx(1 / 6)


@pytest.mark.parametrize("seed", range(6))
def test_the_vote_against_a_plain_count(seed):
    rng = np.random.default_rng(seed)
    K, S, N, T = 5, 3, 40, 6
    ids = rng.integers(0, K, size=(N, T + 1))
    words = rng.integers(0, S, size=(N, T))
    delta, conflicts, fraction = _private("_majority")(ids, words, K, S)
    want_delta, want_conflicts, want_fraction = _brute_majority(ids, words, K, S)
    assert delta.tolist() == want_delta.tolist()
    assert conflicts == want_conflicts and fraction == pytest.approx(want_fraction)


# ------------------------------------------------------------------------------------------------
# an unobserved transition, refilled by the behaviour of the network
# ------------------------------------------------------------------------------------------------
def test_an_unobserved_transition_into_cluster_0_is_refilled_there():
    """cyclic:3 as rotations: states h0 (cluster 0), A_1 h0 (1), A_1^2 h0 (2).  The transition
    (2, symbol 1) leads back to cluster 0; left unobserved, it is refilled by applying A_1 to the
    state's first member and finding its signature: cluster 0, not a self-loop."""
    A, h0, R = cyclic_rotation2d(3, exact=False).float_arrays()
    signatures = _private("_Signatures")(A, R, 2, 10)
    states = [h0 / np.linalg.norm(h0)]
    for _ in range(2):
        x = A[1] @ states[-1]
        states.append(x / np.linalg.norm(x))
    assert signatures.assign(np.array(states)).tolist() == [0, 1, 2]
    S = A.shape[0]
    truth = np.array([signatures.lookup(A[s] @ signatures.representatives[c]) for c in range(3) for s in range(S)])
    assert (truth >= 0).all() and truth[2 * S + 1] == 0
    delta = truth.copy()
    delta[2 * S + 1] = -1  # never observed
    labels, unobserved, _, _, margin = _private("_complete_behaviour")(signatures, delta, A)
    assert delta.tolist() == truth.tolist()
    assert unobserved == 0 and margin > 0
    assert labels.tolist() == [int(np.argmax(R @ x)) for x in states]


# ------------------------------------------------------------------------------------------------
# label conflicts: for each cluster, the labels its members get beyond the first
# ------------------------------------------------------------------------------------------------
def test_label_conflicts_count_every_extra_label_of_a_cluster():
    """With a radius of 2 every state of the cyclic:3 rotation network is one cluster, and its
    members are predicted all three classes: two labels beyond the first (not one per conflicting
    cluster, and not zero per class)."""
    w = cyclic_rotation2d(3, exact=False)
    config = ExtractConfig(words=50, length=20, tol=2.0, method="geometry", burn_in=0)
    ex = extract(w, from_spec("cyclic:3"), config)
    assert ex.n_clusters == 1
    A, h0, R = w.float_arrays()
    words = np.random.default_rng(config.seed).integers(0, 3, size=(config.words, config.length))
    seen = {int(c) for H in float_steps(A, h0, words) for c in np.argmax(H @ R.T, axis=1)}
    assert len(seen) == 3
    assert ex.label_conflicts == len(seen) - 1 == 2


def test_label_conflicts_of_two_clusters():
    """cyclic:4 as quarter turns with a radius of 1.5: the first centre takes the states at 0, 90
    and 270 degrees (three labels), the state at 180 degrees is a cluster of its own (one label):
    2 + 0 label conflicts."""
    w = cyclic_rotation2d(4, exact=False)
    ex = extract(w, from_spec("cyclic:4"), ExtractConfig(words=50, length=20, tol=1.5, method="geometry", burn_in=0))
    assert ex.n_clusters == 2 and ex.label_conflicts == 2

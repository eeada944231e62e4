"""The geometric clustering of an extraction (analysis/clusters.py, ``_Clusters``) against the
leader rule written out row by row: each row, in order, joins the nearest existing centre within
the radius (the first on a tie) or, failing that, starts a centre of its own; a cluster's radius is
its largest distance to a row it took.  Fed in several batches, with a state limit that overflows."""

from __future__ import annotations

import numpy as np
import pytest

from bilinear.analysis.clusters import _Clusters


def _leader(X, tol, max_states):
    """Row by row: the nearest centre within ``tol`` (distances by np.linalg.norm), else a new one."""
    centres, radius, labels = [], [], []
    for x in X:
        if centres:
            d = np.linalg.norm(np.array(centres) - x, axis=1)
            c = int(np.argmin(d))
            if d[c] <= tol:
                labels.append(c)
                radius[c] = max(radius[c], float(d[c]))
                continue
        if len(centres) >= max_states:
            labels.append(-1)
            continue
        centres.append(x)
        radius.append(0.0)
        labels.append(len(centres) - 1)
    return np.array(labels), radius


@pytest.mark.parametrize("seed", range(6))
def test_assignments_and_radii_are_the_leader_rule(seed):
    rng = np.random.default_rng(seed)
    d, tol = int(rng.integers(2, 9)), 0.5
    # a few well separated directions, each row a small perturbation of one of them
    anchors = np.eye(d)[: min(d, 5)]
    X = anchors[rng.integers(0, len(anchors), 300)] + 0.05 * rng.normal(size=(300, d))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    limit = len(anchors) if seed % 2 else len(anchors) - 1  # an odd seed: room for every direction
    want, radius = _leader(X, tol, limit)
    clusters = _Clusters(d, tol, limit)
    got = np.concatenate([clusters.assign(part) for part in np.array_split(X, 4)])
    assert np.array_equal(got, want)
    assert clusters.k == min(limit, len(anchors))
    assert clusters.overflow == (limit < len(anchors))
    assert np.allclose(clusters.radius, radius, rtol=0, atol=1e-12)
    assert max(radius) > 0.01  # the radii are the rows' real spread, not the zeros they start at


def test_more_centres_than_the_first_allocation_holds():
    """150 far-apart rows (the centres' array starts with room for 65 and grows, to at most the
    limit's size): each its own cluster, in order, radius 0; the 151st is over the limit of 150 and
    refused."""
    X = np.eye(151)
    clusters = _Clusters(151, 0.5, 150)
    got = clusters.assign(X)
    assert got.tolist() == list(range(150)) + [-1]
    assert clusters.k == 150 and clusters.overflow and clusters.radius == [0.0] * 150
    assert clusters.centres.shape[0] <= 2 * (150 + 1)  # grown as needed, not by every centre added
    again = clusters.assign(X[[3, 149, 150]])  # later batches find the grown centres
    assert again.tolist() == [3, 149, -1]


def test_a_row_at_exactly_the_radius_joins_in_a_later_batch_as_in_its_own():
    """Distance 0.5 exactly (0.5^2 + 0 - 0 = 0.25, its root 0.5) with radius 0.5: the row joins the
    centre, whether it comes in the centre's batch (new centres take rows within the radius) or in
    a later one (existing centres take rows within the radius too)."""
    same = _Clusters(1, 0.5, 10)
    assert same.assign(np.array([[0.0], [0.5]])).tolist() == [0, 0]
    later = _Clusters(1, 0.5, 10)
    later.assign(np.array([[0.0]]))
    assert later.assign(np.array([[0.5]])).tolist() == [0]
    assert later.k == 1 and later.radius == [0.5]


def test_no_room_for_a_centre_leaves_every_row_without_a_cluster():
    """A limit of 0 states: the first row already overflows, and no row gets a cluster (not the
    unset first slot of the centres' array, a zero vector the row would be within the radius of)."""
    clusters = _Clusters(1, 0.5, 0)
    assert clusters.assign(np.array([[0.0], [0.1]])).tolist() == [-1, -1]
    assert clusters.overflow and clusters.k == 0 and clusters.radius == []

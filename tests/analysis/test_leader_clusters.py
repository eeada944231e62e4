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

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


# --- the behavioural signatures (``_Signatures``) -----------------------------------------------
#
# One symbol whose matrix swaps the two coordinates, horizon 1: the words are () and (0,), the
# readouts R and R P (P the swap).  R has three classes, rows (2, 0), (0, 1), (-1, -1): the largest
# row norm is 2.  For x = (a, b) the scores are (2a, b, -a - b) after () and (2b, a, -a - b) after (0,).

_SWAP = np.array([[[0.0, 1.0], [1.0, 0.0]]])
_R3 = np.array([[2.0, 0.0], [0.0, 1.0], [-1.0, -1.0]])


def test_signatures_labels_states_and_margin_by_hand():
    """x = (3, 1): scores (6, 1, -4) and (2, 3, -4), labels (0, 1), gaps 5 and 1, norm sqrt 10.
    x = (1, 3): (2, 3, -4) and (6, 1, -4), labels (1, 0), gaps 1 and 5.
    x = (6, 2): twice (3, 1), the same labels, gaps 2 (its margin is the same, scale-free).
    x = (2, 0): (4, 0, -2) and (0, 2, -2), labels (0, 1), gaps 4 and 2, norm 2: margin 2 / (2 * 2).
    The margin is the least gap over |x| max_c |R_c| = 2: 1 / (2 sqrt 10), from (3, 1) and (1, 3).
    The class order (2, 3, -4) puts the top score in the middle: a partition that does not
    order the last two scores would get its gap wrong.  x = (-1, -1): (-2, -1, 2) twice, labels
    (2, 2), a signature never seen: lookup answers -1."""
    from bilinear.analysis.clusters import _Signatures

    sig = _Signatures(_SWAP, _R3, 1, 10)
    X = np.array([[3.0, 1.0], [1.0, 3.0]])
    ids = sig.assign(X).tolist()
    assert sig.margin == pytest.approx(1 / (2 * np.sqrt(10)), rel=1e-12)
    ids += sig.assign(np.array([[6.0, 2.0], [2.0, 0.0]])).tolist()
    assert sig.margin == pytest.approx(1 / (2 * np.sqrt(10)), rel=1e-12)  # the later rows' margins are larger
    assert ids[0] == ids[2] == ids[3] != ids[1] and sorted({*ids}) == [0, 1]
    assert sig.k == 2 and not sig.overflow
    assert sig.signatures[ids[0]].tolist() == [0, 1] and sig.signatures[ids[1]].tolist() == [1, 0]
    assert sig.representatives[ids[0]].tolist() == [3.0, 1.0]
    assert sig.representatives[ids[1]].tolist() == [1.0, 3.0]
    assert sig.lookup(np.array([2.0, 0.0])) == ids[0]
    assert sig.lookup(np.array([1.0, 3.0])) == ids[1]
    assert sig.lookup(np.array([-1.0, -1.0])) == -1


def test_signatures_margin_of_a_single_unit_row():
    """x = (0.6, 0.8), norm 1: scores (1.2, 0.8, -1.4) and (1.6, 0.6, -1.4), gaps 0.4 and 1.0;
    margin 0.4 / (1 * 2) = 0.2 (the largest row norm of R is 2, not 1)."""
    from bilinear.analysis.clusters import _Signatures

    sig = _Signatures(_SWAP, _R3, 1, 10)
    assert sig.assign(np.array([[0.6, 0.8]])).tolist() == [0]
    assert sig.margin == pytest.approx(0.2, rel=1e-12)
    assert sig.signatures[0].tolist() == [0, 0]


def test_signatures_margin_with_two_classes():
    """The first two classes of R only, rows (2, 0) and (0, 1) (largest norm 2): x = (3, 1) scores
    (6, 1) and (2, 3), labels (0, 1), gaps 5 and 1; margin 1 / (2 sqrt 10)."""
    from bilinear.analysis.clusters import _Signatures

    sig = _Signatures(_SWAP, _R3[:2], 1, 10)
    assert sig.assign(np.array([[3.0, 1.0]])).tolist() == [0]
    assert sig.margin == pytest.approx(1 / (2 * np.sqrt(10)), rel=1e-12)
    assert sig.signatures[0].tolist() == [0, 1]


def test_signatures_with_one_class_have_no_margin():
    """One class: every label is 0, one state for every row, and no second score to measure a
    margin against (it stays inf)."""
    from bilinear.analysis.clusters import _Signatures

    sig = _Signatures(_SWAP, np.array([[1.0, -2.0]]), 1, 10)
    assert sig.assign(np.array([[3.0, 1.0], [1.0, 3.0], [-1.0, 0.5]])).tolist() == [0, 0, 0]
    assert sig.k == 1 and sig.margin == float("inf") and sig.signatures[0].tolist() == [0, 0]


def test_signatures_over_the_state_limit_overflow():
    """Two signatures, (0, 1) and (1, 0) (see the first test), against a limit of one state: the
    batch overflows and every row is -1; with a limit of two both fit."""
    from bilinear.analysis.clusters import _Signatures

    X = np.array([[3.0, 1.0], [1.0, 3.0], [2.0, 0.0]])
    tight = _Signatures(_SWAP, _R3, 1, 1)
    assert tight.assign(X).tolist() == [-1, -1, -1]
    assert tight.overflow and tight.k <= 1
    room = _Signatures(_SWAP, _R3, 1, 2)
    got = room.assign(X).tolist()
    assert not room.overflow and room.k == 2 and got[0] == got[2] != got[1]


def test_signatures_refuse_a_horizon_with_too_many_words():
    """Two symbols, horizon 10: 1 + 2 + ... + 2^10 = 2047 words, over the 1024 allowed, refused
    before any word matrix is made; horizon 9 (1023 words) is accepted."""
    from bilinear.analysis.clusters import _Signatures
    from bilinear.errors import AnalysisError

    A = np.stack([np.eye(2), _SWAP[0]])
    with pytest.raises(AnalysisError, match="2,047 words"):
        _Signatures(A, _R3, 10, 10)
    assert _Signatures(A, _R3, 9, 10).W == 1023


def test_signatures_margin_reads_the_top_two_scores_in_order():
    """65 classes, R the identity, one symbol with the identity, horizon 0: the scores are x itself,
    x_i = i / 65 but x_0 = 9 and x_32 = 10.  Label 32, gap 10 - 9 = 1, margin 1 / |x|.  (A partition
    asked only for the third-largest score leaves these two in the order 10, 9 with numpy's
    introselect: a gap of -1.  The last two after partitioning at C - 2 are always in order.)"""
    import math

    from bilinear.analysis.clusters import _Signatures

    C = 65
    x = [i / C for i in range(C)]
    x[0], x[32] = 9.0, 10.0
    sig = _Signatures(np.eye(C)[None], np.eye(C), 0, 10)
    assert sig.assign(np.array([x])).tolist() == [0]
    assert sig.signatures[0].tolist() == [32]
    assert sig.margin == pytest.approx(1 / math.sqrt(math.fsum(v * v for v in x)), rel=1e-12)

"""Mamba's per-channel and Mamba-2's per-head transitions: positive diagonal (Mamba-2: a scalar times
the identity), per window of ``conv_kernel`` symbols; the affine recurrence as AffineWeights, lifted
(dplr:1) and stepped as matrices, reproduces the model's own float64 states (1e-12: both sides
float64, the same products in another order, a few dozen roundings of 2^-53 per entry)."""

from __future__ import annotations

import numpy as np
import pytest

from bilinear.errors import AnalysisError
from bilinear.learned.external import load_external
from bilinear.learned.external.transitions import head_transitions, identify_diagonal


def _states_of(S, h):
    """The model's states (batch, time, heads-or-channels, dk, dv) of head ``h``, as (batch, time, dk, dv)."""
    if h.channels is not None:
        s = S[:, :, list(h.channels)]
        return s.reshape(s.shape[0], s.shape[1], -1, 1)
    return S[:, :, h.head]


@pytest.mark.parametrize("kind,bos,group", [("mamba", None, 8), ("mamba", 5, 1), ("mamba2", None, 8),
                                            ("mamba2", 5, 8)])
def test_lifted_diagonal_transitions_reproduce_the_states(kind, bos, group, saved):
    folder, _ = saved(kind)
    m = load_external(folder)
    tr = m.as_tracker(tokens="a=1,b=3", labels="0=0,1=2", bos=bos)
    heads = head_transitions(m, tr, layer=0, group=group)
    w = m.config.window
    assert w == 3 and heads[0].keys[:6] == ("a", "b", "a·a", "a·b", "b·a", "b·b") and len(heads[0].keys) == 14
    assert heads[0].windows[:6] == ((0,), (1,), (0, 0), (0, 1), (1, 0), (1, 1)) and heads[0].windows[-1] == (1, 1, 1)
    if kind == "mamba":  # 16 channels of a 3-dimensional state
        assert len(heads) == 16 // group and heads[0].channels == tuple(range(group))
        assert heads[0].A.shape == (14, 3 * group, 3 * group)
    else:  # 4 heads, each state 3 x 4 (state size x head_dim)
        assert len(heads) == 4 and heads[0].channels is None and heads[0].b.shape == (14, 3, 4)
    words = np.random.default_rng(2).integers(0, 2, size=(3, 10))
    S = m.states(tr.token_ids(words))[0].numpy()[:, 0 if bos is None else 1:]
    keys = {t: i for i, t in enumerate(heads[0].windows)}  # matched on the windows' symbol indices
    worst = 0.0
    for h in heads:
        ident = h.identified
        assert h.exact and ident.variant == "positive" and ident.beta is None and ident.scalar == (kind == "mamba2")
        assert 0 < ident.gate[0] <= ident.gate[1] < 1  # exp(Delta A) with Delta > 0, A < 0
        L = h.lifted()
        assert L.variant == "dplr:1"
        want_all = _states_of(S, h)
        for b, word in enumerate(words):
            idx = [keys[tuple(int(s) for s in word[max(0, t - w + 1):t + 1])] for t in range(len(word))]
            x, got = L.h0.astype(float), []
            for i in idx:
                x = L.A[i] @ x
                assert x[-1] == 1.0
                got.append(x[:-1])
            want = want_all[b].reshape(len(word), -1, order="F")
            worst = max(worst, float(np.abs(np.array(got) - want).max() / np.abs(want).max()))
    print(f"{kind} bos={bos} group={group}: lifted transitions vs the model's states, largest relative deviation "
          f"{worst:.1e}")
    assert worst < 1e-12


def test_the_homogeneous_part_is_positive_weights(saved):
    folder, _ = saved("mamba2")
    m = load_external(folder)
    h = head_transitions(m, m.as_tracker(tokens="a=1,b=3", labels="0=0,1=2"))[2]
    w = h.homogeneous(2)
    assert w.variant == "positive" and w.A.shape == (14, 3, 3) and w.readout.shape == (2, 3)
    scalars = np.einsum("kii->ki", h.A)[:, 0]
    assert np.array_equal(w.to_float().A, scalars[:, None, None] * np.eye(3))
    aff = h.affine()
    assert aff.variant == "positive" and aff.dim == 12 and np.allclose(np.einsum("kii->ki", aff.A), scalars[:, None])


def test_identify_diagonal_sees_what_is_not():
    A = np.array([np.diag([0.5, 0.9]), np.diag([0.3, 0.3])])
    i = identify_diagonal(A)
    assert (i.variant, i.scalar, i.gate, i.rank) == ("positive", False, (0.3, 0.9), 2)
    assert identify_diagonal(np.array([0.4 * np.eye(2), 0.7 * np.eye(2)])).scalar
    B = A.copy()
    B[0, 0, 1] = 1e-3  # not diagonal
    assert identify_diagonal(B).variant == "full" and identify_diagonal(B).residual > 1e-4
    C = A.copy()
    C[1, 1, 1] = -0.2  # diagonal but not positive
    assert identify_diagonal(C).variant == "full"


def test_deeper_mamba2_layer_is_sampled_and_a_bad_group_refused(saved):
    folder, _ = saved("mamba2")
    m = load_external(folder)
    tr = m.as_tracker(tokens="a=1,b=3", labels="0=0,1=2")
    heads = head_transitions(m, tr, layer=1)
    assert not heads[0].exact and heads[0].keys == ("a", "b") and heads[0].spread.max() > 0
    assert heads[0].identified.variant == "positive"
    with pytest.raises(AnalysisError, match="group = 0 must be a positive number of channels"):
        head_transitions(m, tr, group=0)


def test_a_lift_over_the_entry_limit_is_refused_before_allocation(saved, monkeypatch):
    import bilinear.constructions.values.weights as W
    from bilinear.errors import ConstructionTooLargeError

    folder, _ = saved("mamba2")
    m = load_external(folder)
    h = head_transitions(m, m.as_tracker(tokens="a=1,b=3", labels="0=0,1=2"))[0]
    monkeypatch.setattr(W, "MAX_WEIGHT_ENTRIES", 14 * 13 * 13 - 1)  # 14 windows x (3 * 4 + 1)^2, less one
    with pytest.raises(ConstructionTooLargeError, match="layer 1 head 0 has hidden 13 and 14 symbols"):
        h.lifted()
    monkeypatch.setattr(W, "MAX_WEIGHT_ENTRIES", 14 * 13 * 13)
    assert h.lifted().A.shape == (14, 13, 13)

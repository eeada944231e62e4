"""Learned models of the 2025 families: steps agree with their dense matrices (values and
gradients), betas stay in range, exports carry their factors."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from bilinear.constructions.registry import build
from bilinear.learned.models import BilinearRNN
from bilinear.learned.scan import Householder, LowRank, Monomial


@pytest.mark.parametrize("variant", ["householder:2", "householder:1,nonneg", "monomial", "dplr:2"])
def test_sequential_step_and_parallel_dense_agree_with_gradients(variant):
    words = torch.tensor([[0, 1, 2, 1, 0, 2], [2, 2, 1, 0, 0, 1]])
    grads = []
    for method in ("sequential", "parallel"):
        m = BilinearRNN(3, 3, 5, variant, seed=1).double()
        m(words, method=method).square().sum().backward()
        grads.append({n: p.grad.clone() for n, p in m.named_parameters()})
    for name in grads[0]:
        torch.testing.assert_close(grads[0][name], grads[1][name], rtol=1e-9, atol=1e-12)


def test_betas_stay_in_their_range_and_export_conforms():
    for variant, top in (("householder:2", 2.0), ("householder:2,nonneg", 1.0)):
        m = BilinearRNN(2, 2, 4, variant, seed=0)
        with torch.no_grad():
            m.Vb.fill_(50.0)  # sigmoid saturates: beta at the top of the range, not past it
        w = m.to_weights()
        beta = w.named_factors["beta"]
        assert beta.max() <= top and beta.min() >= 0 and w.variant == variant


def test_monomial_is_column_one_hot_with_a_straight_through_gradient():
    m = BilinearRNN(2, 2, 4, "monomial", seed=0)
    t = m.transitions()
    assert isinstance(t, Monomial) and t.soft is not None  # training: the softmax carries the gradient
    A = t.dense().detach()
    assert ((A != 0).sum(1) <= 1).all()  # one entry per column
    m(torch.tensor([[0, 1, 1]])).sum().backward()
    assert m.Pl.grad is not None and m.Pl.grad.abs().sum() > 0
    w = m.to_weights()
    assert w.named_factors["perm"].dtype.kind == "i"


@pytest.mark.parametrize("spec, variant", [("cyclic:5", "householder:2"), ("dihedral:4", "monomial"),
                                           ("cyclic:5", "dplr:1"), ("flipflop:2", "householder:1,nonneg")])
def test_constructions_run_on_the_fast_scan(spec, variant):
    from bilinear.automata import from_spec

    w = build(spec, variant)
    a = from_spec(spec)
    m = BilinearRNN.from_weights(w)
    rng = np.random.default_rng(0)
    words = rng.integers(0, a.n_symbols, size=(16, 200))
    pred = m(torch.tensor(words)).argmax(-1)[:, -1].numpy()
    assert (pred == np.array([a.label(list(x)) for x in words])).all()


def test_step_types():
    assert isinstance(BilinearRNN(2, 2, 4, "householder:3").transitions(), Householder)
    assert isinstance(BilinearRNN(2, 2, 4, "dplr:1").transitions(), LowRank)

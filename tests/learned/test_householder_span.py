"""The Householder scan in span coordinates (``Householder.in_span``, used by ``scan`` whenever
a readout is given): the logits and every gradient equal those of the scan in the full hidden
space, which is run here through ``sequential_scan`` (it never changes coordinates) and checked
against a per-step loop of explicit dense reflections written for the test.

The claim that makes the coordinates exact is that every state *and every gradient* lies in
``span(h0, k's, readout rows)``; the cases below are built so that a basis missing any one of
those vectors gives wrong logits or a wrong gradient (h0's gradient is ``R^T g`` carried back,
outside the span of the k's; the readout rows are outside the span of the states).
"""

from __future__ import annotations

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from bilinear.learned import BilinearRNN
from bilinear.learned.scan import READOUT_BLOCK, Householder, scan, sequential_scan

F64 = torch.float64


def _dense_logits(k, beta, h0, R, words, normalize):
    """Logits (batch, time, classes) by explicit reflections ``I - beta k k^T`` applied one at a
    time (the last factor of a symbol first), renormalised after every token: the definition."""
    d = h0.shape[0]
    out = []
    for word in words.tolist():
        h, row = h0, []
        for s in word:
            for j in range(k.shape[1] - 1, -1, -1):
                H = torch.eye(d, dtype=h0.dtype) - beta[s, j] * torch.outer(k[s, j], k[s, j])
                h = H @ h
            if normalize:
                h = h / torch.linalg.vector_norm(h)
            row.append(R @ h)
        out.append(torch.stack(row))
    return torch.stack(out)


def _leaves(S, K, d, C, seed, beta_values=None, dtype=F64):
    gen = torch.Generator().manual_seed(seed)
    raw = torch.randn(S, K, d, generator=gen, dtype=dtype)
    beta = 2 * torch.rand(S, K, generator=gen, dtype=dtype) if beta_values is None else beta_values.to(dtype)
    h0 = torch.randn(d, generator=gen, dtype=dtype)
    R = torch.randn(C, d, generator=gen, dtype=dtype)
    return [x.clone().requires_grad_(True) for x in (raw, beta, h0, R)]


def _logits_and_grads(leaves, words, normalize, run):
    raw, beta, h0, R = leaves
    k = torch.nn.functional.normalize(raw, dim=-1)
    logits = run(Householder(k, beta), words, h0, normalize, R)
    weight = torch.linspace(-1, 1, logits.numel(), dtype=logits.dtype).reshape(logits.shape)
    grads = torch.autograd.grad((logits * weight).sum() + logits.square().sum(), leaves)
    return logits.detach(), [g.detach() for g in grads]


def _in_span(trans, words, h0, normalize, R):
    assert trans.in_span(h0, R) is not None  # the case really runs in coordinates
    return scan(trans, words, h0, normalize=normalize, method="sequential", readout=R)


def _full_space(trans, words, h0, normalize, R):
    return sequential_scan(trans, words, h0, normalize=normalize, readout=R)


def _assert_same(leaves_a, leaves_b, words, normalize, tol=1e-10):
    la, ga = _logits_and_grads(leaves_a, words, normalize, _in_span)
    lb, gb = _logits_and_grads(leaves_b, words, normalize, _full_space)
    assert torch.allclose(la, lb, rtol=tol, atol=tol)
    for name, a, b in zip(("k", "beta", "h0", "readout"), ga, gb):
        assert torch.allclose(a, b, rtol=tol, atol=tol), name


def _copy(leaves):
    return [x.detach().clone().requires_grad_(True) for x in leaves]


@pytest.mark.parametrize("normalize", [True, False])
@pytest.mark.parametrize("S,K,C", [(2, 1, 2), (2, 2, 2), (3, 2, 3), (5, 3, 4)])
def test_logits_and_gradients_equal_the_full_space(S, K, C, normalize):
    d = 2 * (1 + S * K + C) + 3
    leaves = _leaves(S, K, d, C, seed=S * 10 + K)
    words = torch.randint(0, S, (6, 13), generator=torch.Generator().manual_seed(3))
    _assert_same(leaves, _copy(leaves), words, normalize)
    # and the full-space scan is the definition (explicit dense reflections)
    raw, beta, h0, R = (x.detach() for x in leaves)
    k = torch.nn.functional.normalize(raw, dim=-1)
    want = _dense_logits(k, beta, h0, R, words, normalize)
    assert torch.allclose(_in_span(Householder(k, beta), words, h0, normalize, R), want, atol=1e-10)


@pytest.mark.parametrize("case", ["shared k", "k along h0", "readout in span", "projections", "zero h0 part"])
def test_rank_deficient_bases(case):
    """A basis whose vectors are linearly dependent: QR still gives orthonormal columns spanning
    them, and nothing changes."""
    S, K, C, d = 2, 2, 3, 24
    leaves = _leaves(S, K, d, C, seed=7)
    raw, beta, h0, R = (x.detach().clone() for x in leaves)
    if case == "shared k":
        raw[1, 0] = raw[0, 1]
    elif case == "k along h0":
        raw[0, 0] = 3 * h0
    elif case == "readout in span":
        R[0] = raw[0, 0] - 2 * raw[1, 1]
        R[2] = h0
    elif case == "projections":  # beta = 1: singular factors, the scan rescales every step
        beta = torch.ones(S, K, dtype=F64)
    elif case == "zero h0 part":
        beta[0, 0] = 0.0
        beta[1] = 2.0
    leaves = [x.requires_grad_(True) for x in (raw, beta, h0, R)]
    words = torch.randint(0, S, (4, 17), generator=torch.Generator().manual_seed(1))
    _assert_same(leaves, _copy(leaves), words, normalize=True)


def test_the_gradient_needs_the_readout_rows_in_the_basis():
    """Against a basis of h0 and the k's alone (the states' span, not the gradients'): the logits
    agree but h0's gradient does not, so the readout rows in ``in_span`` are not decoration."""
    S, K, C, d = 2, 2, 2, 20
    raw, beta, h0, R = _leaves(S, K, d, C, seed=11)
    words = torch.randint(0, S, (3, 9), generator=torch.Generator().manual_seed(2))
    k = torch.nn.functional.normalize(raw, dim=-1)
    with torch.no_grad():
        Q = torch.linalg.qr(torch.cat([h0.unsqueeze(0), k.reshape(S * K, d)]).T).Q
    short = sequential_scan(Householder(k @ Q, beta), words, h0 @ Q, normalize=True, readout=R @ Q)
    full = sequential_scan(Householder(k, beta), words, h0, normalize=True, readout=R)
    assert torch.allclose(short, full, atol=1e-12)
    g_short = torch.autograd.grad(short.sum(), h0)[0]
    g_full = torch.autograd.grad(full.sum(), h0)[0]
    assert not torch.allclose(g_short, g_full, atol=1e-3)
    _assert_same([raw, beta, h0, R], _copy([raw, beta, h0, R]), words, normalize=True)


def test_when_coordinates_are_used():
    """Only where they are fewer than half the hidden size; never without a readout."""
    S, K, C = 2, 2, 3  # m = 1 + 4 + 3 = 8
    for d, used in ((16, True), (15, False), (17, True), (8, False)):
        k = torch.nn.functional.normalize(torch.randn(S, K, d, dtype=F64), dim=-1)
        H = Householder(k, torch.ones(S, K, dtype=F64))
        got = H.in_span(torch.randn(d, dtype=F64), torch.randn(C, d, dtype=F64))
        assert (got is not None) == used, d
        if used:
            assert got[0].k.shape == (S, K, 8) and got[1].shape == (8,) and got[2].shape == (C, 8)
    k = torch.nn.functional.normalize(torch.randn(S, K, 32), dim=-1)
    H = Householder(k, torch.ones(S, K))
    assert H.in_span(torch.randn(4, 32), torch.randn(C, 32)) is None  # per-row h0 (a later block)
    assert H.in_span(torch.randn(32), torch.randn(C, 31)) is None  # a wrong readout: the scan reports it


@pytest.mark.parametrize("method", ["sequential", "parallel"])
def test_wrong_readout_is_reported_by_the_scan(method):
    """A readout of the wrong width is named, by either scan, before any work."""
    from bilinear.errors import ConfigError

    k = torch.nn.functional.normalize(torch.randn(2, 2, 32), dim=-1)
    for bad in (torch.randn(3, 31), torch.randn(31)):
        with pytest.raises(ConfigError, match=r"readout must be \(classes, hidden = 32\), got shape"):
            scan(Householder(k, torch.ones(2, 2)), torch.zeros(1, 3, dtype=torch.long), torch.randn(32),
                 method=method, readout=bad)


def test_long_evaluation_and_parallel_scan_agree():
    """No grad, longer than one readout block (the blocked path), and the parallel scan."""
    S, K, C, d = 3, 2, 3, 32
    raw, beta, h0, R = (x.detach() for x in _leaves(S, K, d, C, seed=5))
    k = torch.nn.functional.normalize(raw, dim=-1)
    words = torch.randint(0, S, (5, READOUT_BLOCK + 37), generator=torch.Generator().manual_seed(4))
    H = Householder(k, beta)
    with torch.no_grad():
        want = sequential_scan(H, words, h0, normalize=True, readout=R)
        for method in ("sequential", "parallel", "auto"):
            got = scan(H, words, h0, normalize=True, method=method, readout=R)
            assert torch.allclose(got, want, atol=1e-9), method


def test_float32_model_matches_the_full_space_to_rounding():
    """A trained-size model in float32: coordinates and the full space agree to float rounding
    in the logits and the gradients of a training loss."""
    model = BilinearRNN(3, 3, 64, "householder:2", seed=0, scan="sequential")
    words = torch.randint(0, 3, (32, 10), generator=torch.Generator().manual_seed(0))
    labels = torch.randint(0, 3, (32, 10), generator=torch.Generator().manual_seed(1))

    def loss_and_grads(run):
        trans = model.transitions()
        logits = run(trans, words, model.h0, True, model.readout.weight)
        loss = torch.nn.functional.cross_entropy(logits.reshape(-1, 3), labels.reshape(-1))
        return logits.detach(), torch.autograd.grad(loss, list(model.parameters()), allow_unused=True)

    la, ga = loss_and_grads(_in_span)
    lb, gb = loss_and_grads(_full_space)
    assert torch.allclose(la, lb, atol=1e-5)
    assert torch.allclose(model(words), la, atol=1e-5)  # the model's forward takes the coordinates
    for a, b in zip(ga, gb):
        if a is not None:
            assert torch.allclose(a, b, atol=1e-6, rtol=1e-4)


@settings(max_examples=25, deadline=None)
@given(S=st.integers(1, 4), K=st.integers(1, 3), C=st.integers(1, 5), extra=st.integers(0, 9),
       seed=st.integers(0, 2**16), normalize=st.booleans(), length=st.integers(1, 12))
def test_property_random_shapes(S, K, C, extra, seed, normalize, length):
    d = 2 * (1 + S * K + C) + extra
    leaves = _leaves(S, K, d, C, seed)
    words = torch.randint(0, S, (3, length), generator=torch.Generator().manual_seed(seed))
    _assert_same(leaves, _copy(leaves), words, normalize, tol=1e-9)


def test_the_benchmarks_full_space_row_is_the_old_path(monkeypatch):
    """``bench_train.py``'s ``householder:2 full-space`` row (the baseline of the coordinates in
    the speed table) never changes coordinates, and computes what the model computes."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_train.py"
    spec = importlib.util.spec_from_file_location("bench_train_for_test", path)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    words = torch.randint(0, 2, (8, 10), generator=torch.Generator().manual_seed(0))
    new, old = bench.family_model("householder:2", 2, 64), bench.family_model("householder:2 full-space", 2, 64)
    assert torch.allclose(new(words), old(words), atol=1e-5)

    def refuse(self, h0, readout):
        raise AssertionError("in_span called")

    monkeypatch.setattr(Householder, "in_span", refuse)
    old(words)  # the baseline never asks
    with pytest.raises(AssertionError, match="in_span called"):
        new(words)

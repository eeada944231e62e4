"""The fused scans of the 2025 families (``_HouseholderScan``, ``_MonomialScan``) are
bit-identical (torch.equal) to a plain loop written here with the same operations in the same
order: states, and every gradient (h0, the WY factors or D, the straight-through selection), in
float32 at hidden 64 with ten symbols, renormalised or not.

Their gradients are checked against autograd of the per-step scan in tests/learned/test_families.py
(to a tolerance); these tests pin the floating-point order, so that a later speed-up of the scans
that changes the trained numbers of docs/training-results.md ("Transition families") fails here first.
With a readout, the Householder scan runs this same node in span coordinates when they are
fewer than half the hidden size (``Householder.in_span``; tests/learned/test_householder_span.py
checks that change of basis against the full-space scan).
"""

from __future__ import annotations

import pytest
import torch

from bilinear.learned.autograd_scans import (
    _TINY,
    HOUSEHOLDER_RESCALE_EVERY,
    _HouseholderScan,
    _LowRankScan,
    _MonomialScan,
)
from bilinear.learned.scan import Householder, LowRank, Monomial

HIDDEN, SYMBOLS, BATCH, TIME, CLASSES = 64, 10, 48, 2 * HOUSEHOLDER_RESCALE_EVERY + 3, 7


def _unit(u):
    n = torch.linalg.vector_norm(u, dim=-1, keepdim=True).clamp_min(_TINY)
    return u / n, n


def _householder_reference(tokT, h0, Yt, Zt, K, normalize, gout, W=None):
    """The states (or with a readout W the logits) and (grad h0, grad Yt, grad Zt[, grad W]) of
    the WY scan, as plain lists of per-step tensors."""
    T, B = tokT.shape
    mask = (tokT.unsqueeze(-1) == torch.arange(SYMBOLS)).to(h0.dtype).repeat_interleave(K, dim=-1)
    h, CS, C, R = h0.expand(B, -1), [], [], []
    for t in range(T):
        c = (h @ Zt.T) * mask[t]
        h = torch.addmm(h, c, Yt, alpha=-1)
        r = torch.ones(B, 1)
        if normalize and (t + 1) % HOUSEHOLDER_RESCALE_EVERY == 0 and t < T - 1:
            h, r = _unit(h)
        CS.append(h)
        C.append(c)
        R.append(r)
    CS_ = torch.stack(CS)
    N = torch.linalg.vector_norm(CS_, dim=-1, keepdim=True).clamp_min(_TINY)
    grads = []
    if W is not None:  # the logits W u / |u| and the gradient at u from them
        out = (CS_.reshape(T * B, -1) @ W.T).reshape(T, B, -1)
        if normalize:
            out = out / N
        own = (gout.reshape(T * B, -1) @ W).reshape(T, B, -1)
        if normalize:
            own = torch.addcmul(own, CS_, torch.linalg.vecdot(gout, out).unsqueeze(-1) / N, value=-1) / N
        grad_W = (gout / N if normalize else gout).reshape(T * B, -1).T @ CS_.reshape(T * B, -1)
    elif normalize:
        out = CS_ / N
        own = torch.addcmul(gout, out, torch.linalg.vecdot(out, gout).unsqueeze(-1), value=-1) / N
    else:
        out, own = CS_, gout
    GU, GC, acc = [None] * T, [None] * T, own[T - 1]
    for t in range(T - 1, -1, -1):
        gu = acc  # own[t] plus the gradient passed back from step t + 1
        if normalize and t < T - 1 and (t + 1) % HOUSEHOLDER_RESCALE_EVERY == 0:
            y = CS_[t] / N[t]
            gu = torch.addcmul(gu, y, torch.linalg.vecdot(y, gu).unsqueeze(-1), value=-1) / R[t]
        gc = (gu @ Yt.T) * mask[t]
        if t:
            acc = torch.addmm(own[t - 1] + gu, gc, Zt, alpha=-1)
        else:
            g = torch.addmm(gu, gc, Zt, alpha=-1)
        GU[t], GC[t] = gu, gc
    GU_, GC_ = torch.stack(GU), torch.stack(GC)
    grad_Yt = -(torch.stack(C).reshape(T * B, -1).T @ GU_.reshape(T * B, -1))
    first = torch.outer(GC_[0].sum(0), h0)
    grad_Zt = -torch.addmm(first, GC_[1:].reshape((T - 1) * B, -1).T, CS_[:-1].reshape((T - 1) * B, -1))
    grads = [g.sum(0), grad_Yt, grad_Zt] + ([grad_W] if W is not None else [])
    return out, grads


def _monomial_reference(tokT, h0, D, perm, normalize, gH):
    """States and (grad h0, grad D, grad soft) of the monomial scan, plainly."""
    T, B = tokT.shape
    h, H, N = h0.expand(B, -1), [], []
    for t in range(T):
        tok = tokT[t]
        h = torch.zeros(B, HIDDEN).scatter_add(1, perm[tok], D[tok] * h)
        if normalize:
            h, n = _unit(h)
            N.append(n)
        H.append(h)
    GS, GU, g = [None] * T, [None] * T, gH[T - 1]
    for t in range(T - 1, -1, -1):
        gu = g if not normalize else torch.addcmul(g, H[t], torch.linalg.vecdot(H[t], g).unsqueeze(-1), value=-1) / N[t]
        tok = tokT[t]
        GS[t] = torch.gather(gu, 1, perm[tok])
        GU[t] = gu
        g = GS[t] * D[tok]
        if t:
            g = g + gH[t - 1]
    prev = torch.stack([h0.expand(B, -1)] + H[:-1]).reshape(T * B, HIDDEN)
    flat = tokT.reshape(-1)
    grad_D = torch.zeros_like(D).index_add(0, flat, torch.stack(GS).reshape(T * B, HIDDEN) * prev)
    X = prev * D[flat]
    Gf = torch.stack(GU).reshape(T * B, HIDDEN)
    grad_soft = torch.stack([Gf[rows].T @ X[rows] for rows in ((flat == s).nonzero().squeeze(1) for s in range(SYMBOLS))])
    return torch.stack(H), (g.sum(0), grad_D, grad_soft)


def _lowrank_reference(tokT, h0, D, Ut, Wt, R, normalize, gH):
    """States and (grad h0, grad D, grad Ut, grad Wt) of the diagonal-plus-low-rank scan, plainly."""
    T, B = tokT.shape
    mask = (tokT.unsqueeze(-1) == torch.arange(SYMBOLS)).to(h0.dtype).repeat_interleave(R, dim=-1)
    h, H, C, N = h0.expand(B, -1), [], [], []
    for t in range(T):
        c = (h @ Wt.T) * mask[t]
        h = torch.addcmul(c @ Ut, h, D[tokT[t]])
        if normalize:
            h, n = _unit(h)
            N.append(n)
        H.append(h)
        C.append(c)
    GU, GC, g = [None] * T, [None] * T, None
    for t in range(T - 1, -1, -1):
        gh = gH[t] if g is None else gH[t] + g
        gu = torch.addcmul(gh, H[t], torch.linalg.vecdot(H[t], gh).unsqueeze(-1), value=-1) / N[t] if normalize else gh
        gc = (gu @ Ut.T) * mask[t]
        g = torch.addmm(gu * D[tokT[t]], gc, Wt)
        GU[t], GC[t] = gu, gc
    GU_, H_ = torch.stack(GU), torch.stack(H)
    grad_D = torch.zeros_like(D).index_add(0, tokT[0], GU[0] * h0)
    grad_D = grad_D.index_add(0, tokT[1:].reshape(-1), (GU_[1:] * H_[:-1]).reshape((T - 1) * B, -1))
    grad_Ut = torch.stack(C).reshape(T * B, -1).T @ GU_.reshape(T * B, -1)
    GC_ = torch.stack(GC)
    grad_Wt = torch.addmm(torch.outer(GC_[0].sum(0), h0), GC_[1:].reshape((T - 1) * B, -1).T, H_[:-1].reshape((T - 1) * B, -1))
    return H_, (g.sum(0), grad_D, grad_Ut, grad_Wt)


def _inputs(seed):
    gen = torch.Generator().manual_seed(seed)
    tokT = torch.randint(0, SYMBOLS, (TIME, BATCH), generator=gen)
    return gen, tokT, torch.randn(HIDDEN, generator=gen), torch.randn(TIME, BATCH, HIDDEN, generator=gen)


@pytest.mark.parametrize("readout", [False, True])
@pytest.mark.parametrize("normalize", [True, False])
def test_householder_scan_is_bit_identical_to_the_plain_loop(normalize, readout):
    """States, or with a readout the logits (the training path, which never normalises the
    states), and every gradient."""
    gen, tokT, h0, gH = _inputs(1)
    k = torch.randn(SYMBOLS, 2, HIDDEN, generator=gen)
    k = k / k.norm(dim=-1, keepdim=True)
    beta = 2 * torch.rand(SYMBOLS, 2, generator=gen)
    Yt, Zt = Householder(k, beta)._wy()
    W = torch.randn(CLASSES, HIDDEN, generator=gen) if readout else None
    gout = torch.randn(TIME, BATCH, CLASSES, generator=gen) if readout else gH
    leaves = [x.detach().clone().requires_grad_() for x in (h0, Yt, Zt) + ((W,) if readout else ())]
    out = _HouseholderScan.apply(tokT, leaves[0], leaves[1], leaves[2], SYMBOLS, 2, normalize, *leaves[3:])
    out.backward(gout)
    out_ref, grads = _householder_reference(tokT, h0, Yt, Zt, 2, normalize, gout, W)
    assert torch.equal(out, out_ref)
    assert len(grads) == len(leaves)
    for leaf, ref in zip(leaves, grads):
        assert torch.equal(leaf.grad, ref)
    assert leaves[1].grad.abs().max() > 0 and leaves[2].grad.abs().max() > 0


@pytest.mark.parametrize("normalize", [True, False])
def test_monomial_scan_is_bit_identical_to_the_plain_loop(normalize):
    gen, tokT, h0, gH = _inputs(2)
    perm = torch.randint(0, HIDDEN, (SYMBOLS, HIDDEN), generator=gen)
    D = 2 * torch.rand(SYMBOLS, HIDDEN, generator=gen) - 1
    soft = torch.softmax(torch.randn(SYMBOLS, HIDDEN, HIDDEN, generator=gen), dim=1)
    leaves = [x.detach().clone().requires_grad_() for x in (h0, D, soft)]
    H = _MonomialScan.apply(tokT, leaves[0], leaves[1], leaves[2], perm, normalize)
    H.backward(gH)
    H_ref, grads = _monomial_reference(tokT, h0, D, perm, normalize, gH)
    assert torch.equal(H, H_ref)
    for leaf, ref in zip(leaves, grads):
        assert torch.equal(leaf.grad, ref)
    assert (Monomial(perm, D).fused(tokT.T, h0, normalize) - H_ref).abs().max() == 0


@pytest.mark.parametrize("normalize", [True, False])
def test_lowrank_scan_is_bit_identical_to_the_plain_loop(normalize):
    gen, tokT, h0, gH = _inputs(3)
    R = 2
    D = 2 * torch.rand(SYMBOLS, HIDDEN, generator=gen) - 1
    U, W = (torch.randn(SYMBOLS, HIDDEN, R, generator=gen) / 8 for _ in range(2))
    Ut, Wt = LowRank(D, U, W)._columns()
    leaves = [x.detach().clone().requires_grad_() for x in (h0, D, Ut, Wt)]
    H = _LowRankScan.apply(tokT, leaves[0], leaves[1], leaves[2], leaves[3], SYMBOLS, R, normalize)
    H.backward(gH)
    H_ref, grads = _lowrank_reference(tokT, h0, D, Ut, Wt, R, normalize, gH)
    assert torch.equal(H, H_ref)
    for leaf, ref in zip(leaves, grads):
        assert torch.equal(leaf.grad, ref)
    assert torch.equal(LowRank(D, U, W).fused(tokT.T, h0, normalize), H_ref)
    # the columns are the factors: Ut row s R + r is column r of U_s
    assert torch.equal(Ut[3 * R + 1], U[3, :, 1]) and torch.equal(Wt[5 * R], W[5, :, 0])

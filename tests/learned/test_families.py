"""Learned models of the 2025 families: steps agree with their dense matrices (values and
gradients), betas stay in range, exports carry their factors."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from bilinear.constructions import build
from bilinear.learned import BilinearRNN
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
                                           ("cyclic:5", "dplr:1"), ("flipflop:2", "householder:1,nonneg"),
                                           ("cyclic:5", "monomial,complex"), ("dihedral:5", "monomial,complex"),
                                           ("reset:3", "monomial,complex")])
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


def _numpy_states(A: np.ndarray, h0: np.ndarray, words: np.ndarray, normalize: bool) -> np.ndarray:
    """An independent evaluator: the dense matrices, one row and one step at a time, in float64."""
    out = np.zeros(words.shape + (h0.shape[0],))
    for b, word in enumerate(words):
        h = h0.copy()
        for t, x in enumerate(word):
            h = A[x] @ h
            if normalize:
                h = h / np.linalg.norm(h)
            out[b, t] = h
    return out


def _reflections(k: np.ndarray, beta: np.ndarray) -> np.ndarray:
    """``prod_j (I - beta_j k_j k_j^T)`` per symbol, written out in numpy."""
    S, K, d = k.shape
    A = np.stack([np.eye(d)] * S)
    for s in range(S):
        for j in range(K):
            A[s] = A[s] @ (np.eye(d) - beta[s, j] * np.outer(k[s, j], k[s, j]))
    return A


@pytest.mark.parametrize("S, K", [(3, 2), (2, 1), (4, 3), (40, 2)])  # 40 x 2 > WY_MAX_COLUMNS: the gather path
@pytest.mark.parametrize("normalize", [True, False])
def test_structured_householder_scan_matches_the_dense_product(S, K, normalize):
    from bilinear.learned.scan import WY_MAX_COLUMNS, sequential_scan

    rng = np.random.default_rng(S * 10 + K)
    d = 6
    k = rng.normal(size=(S, K, d))
    k /= np.linalg.norm(k, axis=-1, keepdims=True)
    beta = rng.uniform(0, 2, size=(S, K))
    h0 = rng.normal(size=d)
    words = rng.integers(0, S, size=(7, 9))
    expected = _numpy_states(_reflections(k, beta), h0, words, normalize)
    trans = Householder(torch.tensor(k), torch.tensor(beta))
    assert (trans.fused(torch.tensor(words), torch.tensor(h0), normalize) is None) == (S * K > WY_MAX_COLUMNS)
    for grad in (True, False):
        with torch.set_grad_enabled(grad):
            got = sequential_scan(trans, torch.tensor(words), torch.tensor(h0), normalize=normalize)
        np.testing.assert_allclose(got.detach().numpy(), expected, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("normalize", [True, False])
def test_structured_monomial_scan_matches_the_dense_matrices(normalize):
    from bilinear.learned.scan import sequential_scan

    rng = np.random.default_rng(3)
    S, d = 3, 5
    perm = rng.integers(0, d, size=(S, d))  # any map of the coordinates, not only permutations
    D = rng.uniform(-1.5, 1.5, size=(S, d))
    A = np.zeros((S, d, d))
    for s in range(S):
        for j in range(d):
            A[s, perm[s, j], j] = D[s, j]
    h0 = rng.normal(size=d)
    words = rng.integers(0, S, size=(6, 8))
    expected = _numpy_states(A, h0, words, normalize)
    trans = Monomial(torch.tensor(perm), torch.tensor(D))
    for grad in (True, False):
        with torch.set_grad_enabled(grad):
            got = sequential_scan(trans, torch.tensor(words), torch.tensor(h0), normalize=normalize)
        np.testing.assert_allclose(got.detach().numpy(), expected, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("variant", ["householder:2", "monomial", "monomial,complex", "dplr:1", "dplr:2"])
def test_fused_scan_gradients_match_the_per_step_scan_without_renormalisation(variant):
    """The fused scans' hand-written backward against autograd through the per-step form
    (``add`` of zeros forces the per-step loop), renormalised or not, of the states and of the
    logits (the Householder scan folds the readout into its node)."""
    from bilinear.learned.scan import sequential_scan

    from bilinear.learned.scan import HOUSEHOLDER_RESCALE_EVERY

    # one step, and long enough for two of the Householder scan's rescale steps
    for length, normalize, readout in itertools.product((1, 2 * HOUSEHOLDER_RESCALE_EVERY + 3), (True, False),
                                                        (False, True)):
        words = torch.randint(0, 3, (3, length), generator=torch.Generator().manual_seed(1))
        grads, outs = [], []
        d = 6 if variant == "monomial,complex" else 5  # complex coordinates come in pairs
        for add in (None, torch.zeros(3, d, dtype=torch.float64)):
            m = BilinearRNN(3, 3, d, variant, seed=2).double()
            trans = m.transitions()
            out = sequential_scan(trans, words, m.h0, normalize=normalize, add=add,
                                  readout=m.readout.weight if readout else None)
            (out * torch.linspace(-1, 1, out.shape[-1], dtype=torch.float64)).sum().backward()
            outs.append(out.detach())
            grads.append({n: p.grad.clone() for n, p in m.named_parameters() if p.grad is not None})
        torch.testing.assert_close(outs[0], outs[1], rtol=1e-10, atol=1e-12)
        assert grads[0].keys() == grads[1].keys() and "h0" in grads[0]
        assert ("readout.weight" in grads[0]) == readout
        for name in grads[0]:
            torch.testing.assert_close(grads[0][name], grads[1][name], rtol=1e-9, atol=1e-12)


def test_compact_wy_is_the_product_of_the_reflections():
    from bilinear.learned.scan import compact_wy

    rng = np.random.default_rng(5)
    k = rng.normal(size=(4, 3, 6))
    k /= np.linalg.norm(k, axis=-1, keepdims=True)
    beta = rng.uniform(0, 2, size=(4, 3))
    beta[1, 2] = 0.0  # a factor that is the identity: no division by beta
    M = compact_wy(torch.tensor(k), torch.tensor(beta)).numpy()
    Y = np.transpose(k, (0, 2, 1))
    np.testing.assert_allclose(np.eye(6) - Y @ M @ np.transpose(Y, (0, 2, 1)), _reflections(k, beta), atol=1e-12)


@pytest.mark.parametrize("variant", ["householder:2", "monomial", "monomial,complex", "dplr:1"])
def test_long_evaluation_in_blocks_gives_the_logits_of_one_pass(variant):
    """Without autograd a long word is run READOUT_BLOCK steps at a time (the state carried per
    row); the logits are those of the one-pass scan that autograd runs."""
    from bilinear.learned.scan import READOUT_BLOCK

    m = BilinearRNN(3, 3, 6, variant, seed=4).double().eval()
    words = torch.randint(0, 3, (5, 2 * READOUT_BLOCK + 17), generator=torch.Generator().manual_seed(0))
    with torch.no_grad():
        blocked = m(words)
    whole = m(words).detach()  # grad enabled: one pass
    torch.testing.assert_close(blocked, whole, rtol=1e-10, atol=1e-12)


def test_householder_logits_gradient_is_finite_when_the_carried_state_is_tiny():
    """beta = 1 - 1e-3 in d = 1 shrinks the carried state 1000-fold a step: after seven steps
    |u| is about 1e-21, and 1 / |u|^2 overflows float32.  The folded readout divides by |u| twice
    in an order that never forms it; its float32 gradients equal float64 autograd through the
    per-step scan (written here: h_t = (1 - beta) h_{t-1}, logits W h_t / |h_t|)."""
    from bilinear.learned.scan import sequential_scan

    words = torch.zeros(2, 7, dtype=torch.long)
    grads = {}
    for dtype in (torch.float32, torch.float64):
        k = torch.ones(1, 1, 1, dtype=dtype)
        beta = torch.full((1, 1), 1 - 1e-3, dtype=dtype)
        h0 = torch.tensor([0.7], dtype=dtype, requires_grad=True)
        W = torch.tensor([[1.5], [-0.5]], dtype=dtype, requires_grad=True)
        if dtype == torch.float32:
            logits = sequential_scan(Householder(k, beta), words, h0, normalize=True, readout=W)
        else:
            h, out = h0.expand(2, 1), []
            for _ in range(words.shape[1]):
                h = (1 - beta[0, 0]) * h
                out.append(h @ W.T / h.abs())
            logits = torch.stack(out, 1)
        (logits * torch.arange(1.0, 3.0, dtype=dtype)).sum().backward()
        grads[dtype] = (logits.detach(), h0.grad, W.grad)
    for got, want in zip(grads[torch.float32], grads[torch.float64]):
        assert torch.isfinite(got).all()
        torch.testing.assert_close(got.double(), want, rtol=1e-5, atol=1e-6)


@settings(max_examples=25)
@given(
    variant=st.sampled_from(["householder:1", "householder:3", "householder:2,nonneg", "dplr:1", "dplr:3", "monomial"]),
    symbols=st.integers(1, 5),
    hidden=st.integers(1, 7),
    batch=st.integers(1, 4),
    length=st.integers(1, 2 * 8 + 2),
    normalize=st.booleans(),
    readout=st.booleans(),
    seed=st.integers(0, 10_000),
)
def test_fused_scans_match_the_per_step_scan_property(variant, symbols, hidden, batch, length, normalize, readout, seed):
    """Every fused family scan (its states, or its logits, and every parameter's gradient)
    against autograd through the per-step scan, float64, for random sizes (one symbol, one
    hidden unit, one row and one step included; lengths past two Householder rescale steps)."""
    from bilinear.learned.scan import sequential_scan

    words = torch.randint(0, symbols, (batch, length), generator=torch.Generator().manual_seed(seed))
    outs, grads = [], []
    for add in (None, torch.zeros(symbols, hidden, dtype=torch.float64)):
        m = BilinearRNN(symbols, 3, hidden, variant, seed=seed).double()
        out = sequential_scan(m.transitions(), words, m.h0, normalize=normalize, add=add,
                              readout=m.readout.weight if readout else None)
        weights = torch.randn(out.shape, generator=torch.Generator().manual_seed(seed + 1), dtype=torch.float64)
        (out * weights).sum().backward()
        outs.append(out.detach())
        grads.append({n: p.grad.clone() for n, p in m.named_parameters() if p.grad is not None})
    torch.testing.assert_close(outs[0], outs[1], rtol=1e-9, atol=1e-10)
    assert grads[0].keys() == grads[1].keys()
    for name in grads[0]:
        torch.testing.assert_close(grads[0][name], grads[1][name], rtol=1e-7, atol=1e-9)


def test_householder_scan_rescales_often_enough_for_strong_contractions():
    """Three factors with beta = 0.97 in d = 1 shrink the state 0.03^3 = 2.7e-5 a step: eight steps
    between rescales would take it below the zero guard (1e-30) and the normalised states would
    come out shorter than 1.  The schedule rescales every 5 steps (2.7e-5^5 >= 1e-25), and the
    fused states are the per-step scan's, of norm 1 (found by the property test above)."""
    from bilinear.learned.scan import HOUSEHOLDER_MIN_CARRIED, sequential_scan

    trans = Householder(torch.ones(2, 3, 1, dtype=torch.float64),
                        torch.tensor([[0.97] * 3, [1.03] * 3], dtype=torch.float64))
    c = 0.03 ** 3
    assert trans.rescale_every() == 5 and c ** 5 >= HOUSEHOLDER_MIN_CARRIED > c ** 6
    words = torch.randint(0, 2, (3, 40), generator=torch.Generator().manual_seed(0))
    h0 = torch.tensor([0.5], dtype=torch.float64)
    fused = sequential_scan(trans, words, h0, normalize=True)
    per_step = sequential_scan(trans, words, h0, normalize=True, add=torch.zeros(2, 1, dtype=torch.float64))
    torch.testing.assert_close(fused, per_step, rtol=1e-12, atol=0)
    assert torch.equal(fused.abs(), torch.ones_like(fused))


# ------------------------------------------------------------------------------------------
# monomial,complex: PD-SSM with complex D (Theorem F11 of docs/theory.md)
# ------------------------------------------------------------------------------------------
def test_complex_monomial_sequential_and_parallel_agree_with_gradients():
    """The O(hidden) step with its straight-through term against the dense matrices the parallel
    scan multiplies (values and every gradient, the selection logits included)."""
    words = torch.tensor([[0, 1, 2, 1, 0, 2], [2, 2, 1, 0, 0, 1]])
    grads, outs = [], []
    for method in ("sequential", "parallel"):
        m = BilinearRNN(3, 3, 6, "monomial,complex", seed=1).double()
        out = m(words, method=method)
        out.square().sum().backward()
        outs.append(out.detach())
        grads.append({n: p.grad.clone() for n, p in m.named_parameters()})
    torch.testing.assert_close(outs[0], outs[1], rtol=1e-12, atol=1e-12)
    assert grads[0]["Pl"].abs().sum() > 0  # the selection learns
    for name in grads[0]:
        torch.testing.assert_close(grads[0][name], grads[1][name], rtol=1e-9, atol=1e-12)


def test_complex_monomial_scan_is_complex_multiplication():
    """An independent evaluator in Python complex numbers: z'[perm[j]] += (a + i b) z[j]."""
    from bilinear.learned.scan import ComplexMonomial, sequential_scan

    rng = np.random.default_rng(5)
    S, m = 3, 3
    perm = rng.integers(0, m, size=(S, m))  # any map of the coordinates
    D = rng.uniform(-1.2, 1.2, size=(S, 2 * m))
    h0 = rng.normal(size=2 * m)
    words = rng.integers(0, S, size=(4, 7))
    trans = ComplexMonomial(torch.tensor(perm), torch.tensor(D))
    got = sequential_scan(trans, torch.tensor(words), torch.tensor(h0), normalize=False).detach().numpy()
    for b, word in enumerate(words):
        z = [complex(h0[2 * j], h0[2 * j + 1]) for j in range(m)]
        for t, s in enumerate(word):
            out = [0j] * m
            for j in range(m):
                out[perm[s, j]] += complex(D[s, 2 * j], D[s, 2 * j + 1]) * z[j]
            z = out
            np.testing.assert_allclose(got[b, t], [v for c in z for v in (c.real, c.imag)], rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("spec", ["cyclic:5", "dihedral:5", "reset:3"])
def test_complex_monomial_constructions_export_their_factors(spec):
    """(Their predictions on the fast scan: test_constructions_run_on_the_fast_scan.)"""
    w = build(spec, "monomial,complex")
    back = BilinearRNN.from_weights(w).to_weights()
    assert back.variant == "monomial,complex"
    assert back.named_factors["perm"].tolist() == w.named_factors["perm"].tolist()
    np.testing.assert_allclose(back.named_factors["D"], np.asarray(w.to_float().named_factors["D"], dtype=float))


def test_complex_monomial_needs_an_even_hidden_size():
    from bilinear.errors import ConfigError

    with pytest.raises(ConfigError, match="hidden size 5 is odd"):
        BilinearRNN(2, 2, 5, "monomial,complex")
    m = BilinearRNN(2, 2, 4, "monomial,complex", seed=0)
    A = m.transitions().dense().detach()
    blocks = A.reshape(2, 2, 2, 2, 2)  # (symbol, block row, r, block column, c)
    assert ((blocks.abs().sum((2, 4)) > 0).sum(1) == 1).all()  # one block per block column
    torch.testing.assert_close(blocks[:, :, 0, :, 0], blocks[:, :, 1, :, 1])  # [[a, -b], [b, a]]
    torch.testing.assert_close(blocks[:, :, 0, :, 1], -blocks[:, :, 1, :, 0])

"""The shared scan: sequential and parallel scans agree; renormalisation only rescales states."""

from __future__ import annotations

import math

import pytest
import torch
from hypothesis import given, strategies as st

from bilinear.errors import ConfigError
from bilinear.learned.scan import (
    Block,
    Dense,
    Diagonal,
    Factorized,
    GroupPlan,
    Rotation,
    parallel_scan,
    scan,
    sequential_scan,
)

torch.set_num_threads(1)


def _transitions(kind: str, symbols: int, hidden: int, gen: torch.Generator):
    if kind == "dense":
        return Dense(torch.randn(symbols, hidden, hidden, generator=gen) / hidden**0.5)
    if kind == "block":
        return Block(torch.randn(symbols, hidden // 2, 2, 2, generator=gen))
    if kind == "diagonal":
        return Diagonal(torch.randn(symbols, hidden, generator=gen))
    if kind == "rotation":
        return Rotation(torch.randn(symbols, hidden // 2, generator=gen), torch.randn(symbols, hidden // 2, generator=gen))
    return Factorized(
        torch.randn(hidden, 3, generator=gen), torch.randn(symbols, 3, generator=gen), torch.randn(hidden, 3, generator=gen)
    )


KINDS = ["dense", "block", "diagonal", "rotation", "factorized"]


def _reference(trans, tokens, h0, add=None):
    """Plain per-row loop with the dense matrices: the definition of the recurrence."""
    A = trans.dense().double()
    out = torch.zeros(tokens.shape[0], tokens.shape[1], h0.shape[0], dtype=torch.float64)
    for b in range(tokens.shape[0]):
        h = h0.double()
        for t in range(tokens.shape[1]):
            h = A[tokens[b, t]] @ h
            if add is not None:
                h = h + add[tokens[b, t]].double()
            out[b, t] = h
    return out


@pytest.mark.parametrize("kind", KINDS)
def test_sequential_scan_is_the_recurrence(kind):
    gen = torch.Generator().manual_seed(0)
    trans = _transitions(kind, 3, 4, gen)
    tokens = torch.randint(0, 3, (6, 9), generator=gen)
    h0 = torch.randn(4, generator=gen)
    ref = _reference(trans, tokens, h0)
    assert torch.allclose(sequential_scan(trans, tokens, h0).double(), ref, rtol=1e-4, atol=1e-5)
    add = torch.randn(3, 4, generator=gen)
    assert torch.allclose(sequential_scan(trans, tokens, h0, add=add).double(), _reference(trans, tokens, h0, add),
                          rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("normalize", [False, True])
@pytest.mark.parametrize("chunk", [None, 3])
def test_parallel_scan_agrees_with_sequential(kind, normalize, chunk):
    gen = torch.Generator().manual_seed(1)
    trans = _transitions(kind, 3, 6 if kind != "factorized" else 5, gen)
    hidden = trans.dense().shape[-1]
    tokens = torch.randint(0, 3, (5, 20), generator=gen)
    h0 = torch.randn(hidden, generator=gen)
    seq = sequential_scan(trans, tokens, h0, normalize=normalize)
    par = parallel_scan(trans, tokens, h0, normalize=normalize, chunk=chunk)
    scale = seq.abs().amax(-1, keepdim=True).clamp_min(1e-12)
    assert torch.allclose(par / scale, seq / scale, atol=1e-4)


@given(
    tokens=st.lists(st.lists(st.integers(0, 2), min_size=1, max_size=30), min_size=1, max_size=6).filter(
        lambda rows: len({len(r) for r in rows}) == 1
    ),
    seed=st.integers(0, 10_000),
)
def test_parallel_equals_sequential_property(tokens, seed):
    """Theorem: the associative scan of products computes the same normalised states."""
    gen = torch.Generator().manual_seed(seed)
    trans = _transitions("dense", 3, 4, gen)
    t = torch.tensor(tokens)
    h0 = torch.randn(4, generator=gen)
    seq = sequential_scan(trans, t, h0, normalize=True)
    par = parallel_scan(trans, t, h0, normalize=True)
    assert torch.allclose(seq, par, atol=1e-4)


@pytest.mark.parametrize("kind", KINDS)
def test_normalised_states_are_positive_multiples(kind):
    """Renormalising at every step multiplies each state by a positive scalar, nothing else."""
    gen = torch.Generator().manual_seed(2)
    trans = _transitions(kind, 2, 4, gen)
    tokens = torch.randint(0, 2, (4, 15), generator=gen)
    h0 = torch.randn(4, generator=gen)
    raw = sequential_scan(trans, tokens, h0).double()
    unit = sequential_scan(trans, tokens, h0, normalize=True).double()
    expected = raw / raw.norm(dim=-1, keepdim=True)
    assert torch.allclose(unit, expected, atol=1e-4)


@pytest.mark.parametrize("hidden", [5, 40])  # 5: batched product with autograd; 40: grouped GEMMs
@pytest.mark.parametrize("kind", ["dense", "block"])
def test_grouped_and_ungrouped_paths_agree(hidden, kind):
    gen = torch.Generator().manual_seed(3)
    trans = _transitions(kind, 4, hidden if kind == "dense" else 2 * (hidden // 2), gen)
    hidden = trans.dense().shape[-1]
    tokens = torch.randint(0, 4, (7, 11), generator=gen)
    h0 = torch.randn(hidden, generator=gen)
    rows = torch.cat([sequential_scan(trans, tokens[b : b + 1], h0) for b in range(7)])  # batch 1: ungrouped
    batched = sequential_scan(trans, tokens, h0)
    with torch.no_grad():
        grouped = sequential_scan(trans, tokens, h0)  # always grouped without autograd
    assert torch.allclose(batched, rows, atol=1e-4)
    assert torch.allclose(grouped, rows, atol=1e-4)


@pytest.mark.parametrize("kind, threads", [("dense", 1), ("dense", 2), ("block", 1)])
def test_grouped_gradients_equal_the_per_row_gradients(kind, threads, monkeypatch):
    """The grouped autograd path (one split, per-symbol views from one unbind; with two threads
    one padded bmm for dense transitions) has the gradients of the plain per-row products, for
    the transitions and the start state."""
    from bilinear.learned import scan as scan_module

    calls = []
    padded = scan_module.Dense._padded_step
    monkeypatch.setattr(scan_module.Dense, "_padded_step", lambda self, *a: calls.append(1) or padded(self, *a))
    before = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        _check_grouped_gradients(kind)
    finally:
        torch.set_num_threads(before)
    assert len(calls) == (6 if (kind, threads) == ("dense", 2) else 0)  # one per step, when wanted


def _check_grouped_gradients(kind):
    gen = torch.Generator().manual_seed(5)
    trans = _transitions(kind, 4, 40, gen)
    param = trans.A if kind == "dense" else trans.blocks
    param.requires_grad_(True)
    tokens = torch.tensor([[0, 1, 1, 3, 0, 2], [1, 1, 0, 0, 3, 3], [2, 0, 3, 1, 1, 0]])  # symbol 2 rare
    h0 = torch.randn(40, generator=gen, requires_grad=True)
    weight = torch.randn(3, 6, 40, generator=gen)
    (sequential_scan(trans, tokens, h0, normalize=True) * weight).sum().backward()
    g_param, g_h0 = param.grad.clone(), h0.grad.clone()
    param.grad, h0.grad = None, None
    A = trans.dense()
    loss = 0
    for b in range(3):
        h = h0
        for t in range(6):
            h = A[tokens[b, t]] @ h
            h = h / h.norm()
            loss = loss + (h * weight[b, t]).sum()
    loss.backward()
    assert torch.allclose(g_param, param.grad, atol=1e-4) and torch.allclose(g_h0, h0.grad, atol=1e-4)


def test_group_plan_sorts_rows_by_token():
    tokens = torch.tensor([[2, 0], [0, 1], [1, 1], [0, 0]])
    plan = GroupPlan.build(tokens, 3)
    assert plan.counts == [[2, 1, 1], [2, 2, 0]]
    for t in range(2):
        assert plan.sorted_tokens[t].tolist() == sorted(tokens[:, t].tolist())
        assert torch.equal(plan.order[t][plan.inverse[t]], torch.arange(4))


def test_long_products_stay_finite_when_normalised():
    trans = Diagonal(torch.tensor([[3.0, 0.5]]))
    tokens = torch.zeros(2, 2000, dtype=torch.long)
    for f in (sequential_scan, parallel_scan):
        h = f(trans, tokens, torch.tensor([1.0, 1.0]), normalize=True)
        assert torch.isfinite(h).all()
        assert torch.allclose(h[:, -1], torch.tensor([1.0, 0.0]))


def test_empty_time_axis():
    trans = Diagonal(torch.ones(2, 3))
    assert sequential_scan(trans, torch.zeros(4, 0, dtype=torch.long), torch.ones(3)).shape == (4, 0, 3)
    assert parallel_scan(trans, torch.zeros(4, 0, dtype=torch.long), torch.ones(3)).shape == (4, 0, 3)


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda t: scan(t, torch.tensor([[0, 5]]), torch.ones(2)), "token 5"),
        (lambda t: scan(t, torch.tensor([0, 1]), torch.ones(2)), "batch, time"),
        (lambda t: scan(t, torch.tensor([[0, 1]]), torch.ones(2), method="magic"), "unknown scan"),
        (lambda t: scan(t, torch.tensor([[0, 1]]), torch.ones(2), normalize=True, add=torch.zeros(2, 2),
                        method="parallel"), "affine .additive. recurrence renormalised at every step has no associative"),
        (lambda t: parallel_scan(t, torch.tensor([[0, 1]]), torch.ones(2), chunk=0), "chunk"),
    ],
)
def test_bad_input(call, match):
    with pytest.raises(ConfigError, match=match):
        call(Diagonal(torch.ones(2, 2)))


@pytest.mark.parametrize("kind", ["dense", "block"])
@pytest.mark.parametrize("with_readout", [False, True])
def test_no_grad_buffered_path_equals_autograd_path(kind, with_readout):
    """The allocation-free evaluation loop (blocks of READOUT_BLOCK steps) computes the same values."""
    gen = torch.Generator().manual_seed(4)
    trans = _transitions(kind, 3, 6, gen)
    tokens = torch.randint(0, 3, (9, 150), generator=gen)
    h0 = torch.randn(6, generator=gen)
    R = torch.randn(4, 6, generator=gen) if with_readout else None
    with torch.enable_grad():
        slow = sequential_scan(trans, tokens, h0, normalize=True, readout=R)
    with torch.no_grad():
        fast = sequential_scan(trans, tokens, h0, normalize=True, readout=R)
    assert fast.shape == slow.shape == (9, 150, 4 if with_readout else 6)
    assert torch.allclose(fast, slow, atol=1e-5)


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
def test_parallel_scan_in_half_precision_forms_products_in_float32(dtype) -> None:
    """bfloat16 with the parallel scan at length 1e5 scored 0.870 (sequential 1.0): its products
    were formed in bfloat16.  The states now match the float32 scan to half precision."""
    from bilinear.learned.scan import Rotation, parallel_scan

    angles = torch.tensor([[2 * math.pi / 5], [0.0]])
    R = Rotation(torch.cos(angles), torch.sin(angles))
    tokens = torch.randint(0, 2, (4, 4096), generator=torch.Generator().manual_seed(0))
    h0 = torch.tensor([1.0, 0.0])
    reference = parallel_scan(R, tokens, h0, normalize=True)
    low = parallel_scan(Rotation(R.a.to(dtype), R.b.to(dtype)), tokens, h0.to(dtype), normalize=True)
    assert low.dtype == dtype
    # the angle itself is rounded to half precision: compare with the float32 scan of the rounded one
    rounded = parallel_scan(Rotation(R.a.to(dtype).float(), R.b.to(dtype).float()), tokens, h0, normalize=True)
    assert (low.float() - rounded).abs().max() < 0.02
    assert reference.shape == low.shape


@pytest.mark.parametrize("n_symbols", [1, 3, 256, 257, 65536, 65537])
def test_stable_order_is_the_stable_argsort(n_symbols):
    """The plan's sort (numpy's radix sort of uint8 or uint16 keys on CPU, torch's elsewhere) is
    torch's stable argsort, at each key width's edge: the largest token is in every row."""
    from bilinear.learned.group_plan import _stable_order

    tk = torch.randint(0, n_symbols, (6, 700), generator=torch.Generator().manual_seed(n_symbols))
    tk[:, ::7] = n_symbols - 1  # the widest key, repeated (ties keep their order)
    tk[:, 3::11] = 0
    order = _stable_order(tk, n_symbols)
    assert order.dtype == torch.int64
    assert torch.equal(order, torch.argsort(tk, dim=1, stable=True))

"""The sequential scan's fast paths are bit-identical (torch.equal) to a plain per-step loop with
the same operations in the same order, for `full` (dense), `block` and `diagonal` transitions at
hidden 64, forward without autograd (states and logits, read out 64 steps at a time) and with
autograd (logits and every gradient), one and two threads (two: the padded dense step).

The fast paths cut Python and dispatch work only (views made once, the plan's permutations and
padded slots made for all steps at once, rows put back in order by one index_select); any change
of floating-point order would move trained numbers pinned elsewhere, and these tests would fail.
The one deliberate change of order is the no-grad loop's deferred renormalisation (evaluation
only, never training): the reference below defers it the same way, and the tests at the end
measure it against a float64 loop that renormalises at every step.
"""

from __future__ import annotations

import pytest
import hypothesis.strategies as st
from hypothesis import given, settings
import torch

from bilinear.learned.scan import Block, Dense, Diagonal, _normalize, sequential_scan

HIDDEN, SYMBOLS, BATCH, TIME = 64, 10, 96, 70  # 70 steps: four blocks of 16 and one of 6


def _plan(tokens):
    """The grouping written plainly: stable sort per step, inverse by argsort, counts by one-hot."""
    tk = tokens.T.contiguous()
    order = torch.argsort(tk, dim=1, stable=True)
    inverse = torch.argsort(order, dim=1)
    relink = [None] + [inverse[t - 1][order[t]] for t in range(1, tk.shape[0])]
    counts = torch.nn.functional.one_hot(tk, SYMBOLS).sum(1).tolist()
    return order, inverse, relink, counts, torch.gather(tk, 1, order)


def _grouped_step(trans, h, counts):
    """One grouped step as plain per-symbol slices (the same GEMM calls on the same row blocks)."""
    outs, start = [], 0
    for s, n in enumerate(counts):
        rows = h[start : start + n]
        start += n
        if not n:
            continue
        if isinstance(trans, Dense):
            outs.append(rows @ trans.A.transpose(1, 2)[s])
        else:
            nb, b = trans.blocks.shape[1], trans.blocks.shape[2]
            hb = rows.reshape(n, nb, b).transpose(0, 1)
            outs.append(torch.bmm(hb, trans.blocks.transpose(2, 3)[s]).transpose(0, 1).reshape(n, nb * b))
    return torch.cat(outs, 0)


def _padded_step(A, h, tok, counts):
    """The two-thread dense step written out: rows into a zero-padded (symbols, most rows) tensor."""
    widest = max(counts)
    starts = [sum(counts[:s]) for s in range(len(counts))]
    slot = torch.tensor([int(s) * widest + j - starts[int(s)] for j, s in enumerate(tok)])
    padded = h.new_zeros(len(counts) * widest, h.shape[1]).index_copy(0, slot, h)
    out = torch.bmm(padded.view(len(counts), widest, -1), A.transpose(1, 2))
    return out.reshape(len(counts) * widest, -1).index_select(0, slot)


def _reference_no_grad(trans, tokens, h0, readout, block=16, band=(1e-10, 1e10)):
    """States and logits without autograd: per step, one index_select into a scratch row block,
    one ``mm(out=)`` per symbol with the contiguous transposed matrix.  Grouped transitions defer
    the renormalisation to each block of ``block`` steps: the block's row norms by one
    ``vector_norm``, the logits ``R @ H^T`` divided by them, the states divided in place, the
    block's last state carried renormalised; a block whose norms leave ``band`` is run again from
    its carried state with the norm divided at every step (``_per_step`` below)."""
    batch, time = tokens.shape
    if isinstance(trans, Diagonal):  # not grouped: one elementwise product per step
        h, states = h0.expand(batch, HIDDEN), []
        for t in range(time):
            h = h * trans.D[tokens[:, t]]
            h = h / torch.linalg.vector_norm(h, dim=-1, keepdim=True).clamp_min_(1e-30)
            states.append(h)
        H = torch.stack(states, 1)
        return H, H @ readout.T
    order, inverse, relink, counts, _ = _plan(tokens)
    AT = trans.A.transpose(1, 2).contiguous() if isinstance(trans, Dense) else None
    H = torch.empty(time, batch, HIDDEN)
    Y = torch.empty(time, batch, readout.shape[0])

    def step(t, src):
        if AT is not None:
            start = 0
            for s, n in enumerate(counts[t]):
                if n:
                    torch.mm(src[start : start + n], AT[s], out=H[t][start : start + n])
                start += n
        else:
            H[t] = _grouped_step(trans, src, counts[t])

    def run(first, last, per_step):
        for t in range(first, last):
            step(t, h0.expand(batch, HIDDEN) if t == 0 else (carry if t == first else H[t - 1])[relink[t]])
            if per_step:
                H[t] /= torch.linalg.vector_norm(H[t], dim=1, keepdim=True).clamp_min_(1e-30)

    carry = None
    for first in range(0, time, block):
        last = min(first + block, time)
        run(first, last, False)
        norms = torch.linalg.vector_norm(H[first:last], dim=2)
        if float(norms.min()) >= band[0] and float(norms.max()) <= band[1]:
            # the logits as R @ H^T (the no-grad readout layout; it rounds unlike H @ R^T, so
            # evaluation logits match the autograd forward only to the last bits), then divided
            logits = torch.mm(readout, H[first:last].reshape(-1, HIDDEN).T) / norms.reshape(1, -1)
            H[first:last] /= norms.unsqueeze(2)
        else:
            run(first, last, True)
            logits = torch.mm(readout, H[first:last].reshape(-1, HIDDEN).T)
        Y[first:last] = logits.T.reshape(last - first, batch, -1)
        carry = H[last - 1].clone()
    back = lambda Z: torch.gather(Z, 1, inverse.unsqueeze(-1).expand(*Z.shape)).transpose(0, 1)  # noqa: E731
    return back(H), back(Y)


def _per_step(A, tokens, h0, readout):
    """The plain per-step loop with the dense matrices A (symbols, hidden, hidden), each state
    renormalised as soon as it is made, states and logits ``H @ R^T``, in float64: the reference
    the deferred renormalisation is measured against."""
    batch, time = tokens.shape
    h, states = h0.double().expand(batch, -1), []
    A = A.double()
    for t in range(time):
        h = torch.einsum("bij,bj->bi", A[tokens[:, t]], h)
        h = h / torch.linalg.vector_norm(h, dim=-1, keepdim=True).clamp_min(1e-300)
        states.append(h)
    H = torch.stack(states, 1)
    return H, H @ readout.double().T


def _reference_grad(trans, tokens, h0, readout, threads):
    """Logits with autograd: per step, index_select of the previous rows, the grouped step (per
    symbol slices, or with two threads one padded bmm for dense), the normalisation; one stack,
    one readout GEMM, one gather back to the words' order."""
    batch, time = tokens.shape
    h = h0.expand(batch, HIDDEN)
    states = []
    if isinstance(trans, Diagonal):
        for t in range(time):
            states.append(h := _normalize(h * trans.D[tokens[:, t]]))
        return torch.stack(states, 1) @ readout.T
    _, inverse, relink, counts, sorted_tokens = _plan(tokens)
    for t in range(time):
        if t:
            h = h.index_select(0, relink[t])
        if isinstance(trans, Dense) and threads > 1:
            h = _padded_step(trans.A, h, sorted_tokens[t], counts[t])
        else:
            h = _grouped_step(trans, h, counts[t])
        states.append(h := _normalize(h))
    Y = torch.stack(states, 0) @ readout.T
    return torch.gather(Y, 1, inverse.unsqueeze(-1).expand(*Y.shape)).transpose(0, 1)


def _case(kind):
    gen = torch.Generator().manual_seed(23)
    if kind == "full":
        param = torch.randn(SYMBOLS, HIDDEN, HIDDEN, generator=gen) / HIDDEN**0.5
    elif kind == "block":
        param = torch.randn(SYMBOLS, HIDDEN // 8, 8, 8, generator=gen) / 8**0.5
    else:
        param = torch.randn(SYMBOLS, HIDDEN, generator=gen)
    tokens = torch.randint(0, SYMBOLS, (BATCH, TIME), generator=gen)
    tokens[:, 3] = 0  # a step with one symbol only (no split)
    tokens[:, 5] = torch.arange(BATCH) % 3  # a step where most symbols have no rows
    h0 = torch.randn(HIDDEN, generator=gen)
    readout = torch.randn(SYMBOLS, HIDDEN, generator=gen)
    return param, tokens, h0, readout


def _make(kind, param):
    return {"full": Dense, "block": Block, "diagonal": Diagonal}[kind](param)


@pytest.mark.parametrize("kind", ["full", "block", "diagonal"])
def test_no_grad_scan_is_bit_identical_to_the_plain_loop(kind):
    param, tokens, h0, readout = _case(kind)
    with torch.no_grad():
        states = sequential_scan(_make(kind, param), tokens, h0, normalize=True)
        logits = sequential_scan(_make(kind, param), tokens, h0, normalize=True, readout=readout)
        ref_states, ref_logits = _reference_no_grad(_make(kind, param), tokens, h0, readout)
    assert torch.equal(states, ref_states)
    assert torch.equal(logits, ref_logits)
    assert states.abs().sum() > 0 and not torch.equal(logits[:, 1], logits[:, 2])  # not a degenerate case


@pytest.mark.parametrize("kind, threads", [("full", 1), ("full", 2), ("block", 1), ("diagonal", 1)])
def test_autograd_scan_and_gradients_are_bit_identical_to_the_plain_loop(kind, threads):
    base, tokens, h0, readout = _case(kind)
    weight = torch.randn(BATCH, TIME, SYMBOLS, generator=torch.Generator().manual_seed(7))
    before = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        results = []
        for fn in (lambda tr, h, r: sequential_scan(tr, tokens, h, normalize=True, readout=r),
                   lambda tr, h, r: _reference_grad(tr, tokens, h, r, threads)):
            param, h, r = (x.clone().requires_grad_(True) for x in (base, h0, readout))
            logits = fn(_make(kind, param), h, r)
            (logits * weight).sum().backward()
            results.append([logits.detach(), param.grad, h.grad, r.grad])
    finally:
        torch.set_num_threads(before)
    for new, ref in zip(*results):
        assert torch.equal(new, ref)
    assert results[0][1].abs().sum() > 0  # the transitions do get a gradient


@pytest.mark.parametrize("kind", ["full", "block"])
def test_no_grad_logits_match_the_autograd_forward_to_rounding(kind):
    """The no-grad readout is ``R @ H^T`` (faster for a narrow output), the autograd one
    ``H @ R^T``: the logits agree to float32 rounding, the states bit for bit."""
    param, tokens, h0, readout = _case(kind)
    with torch.no_grad():
        fast = sequential_scan(_make(kind, param), tokens, h0, normalize=True, readout=readout)
        states = sequential_scan(_make(kind, param), tokens, h0, normalize=True)
    with torch.enable_grad():
        trained = sequential_scan(_make(kind, param), tokens, h0.clone().requires_grad_(True),
                                  normalize=True, readout=readout).detach()
    assert fast.shape == trained.shape == (BATCH, TIME, SYMBOLS)
    exact = torch.einsum("ch,bth->btc", readout.double(), states.double())  # the float64 readout
    scale = float(exact.abs().max())
    assert float((fast.double() - exact).abs().max()) <= 1e-6 * scale  # the right logits, word order kept
    assert float((fast - trained).abs().max()) <= 1e-5 * scale  # the states round apart over 70 steps too


def _dense_case(scale_first=1.0, zero_second=False):
    param, tokens, h0, readout = _case("full")
    param = param.clone()
    param[0] *= scale_first
    if zero_second:
        param[1] = 0.0
    return Dense(param), tokens, h0, readout


def test_deferred_renormalisation_falls_back_to_per_step_where_norms_leave_the_band():
    """Symbol 0 grows a state by about 10^4 a step: a block of 16 steps leaves the band (and
    overflows float32 without the fallback); such blocks run again, renormalised at every step."""
    trans, tokens, h0, readout = _dense_case(scale_first=1e4)
    with torch.no_grad():
        states = sequential_scan(trans, tokens, h0, normalize=True)
        logits = sequential_scan(trans, tokens, h0, normalize=True, readout=readout)
        ref_states, ref_logits = _reference_no_grad(trans, tokens, h0, readout)
        _, unguarded = _reference_no_grad(trans, tokens, h0, readout, band=(0.0, float("inf")))
    assert torch.equal(states, ref_states) and torch.equal(logits, ref_logits)
    assert torch.isfinite(logits).all() and not torch.isfinite(unguarded).all()  # the fallback was needed
    exact_states, exact_logits = _per_step(trans.A, tokens, h0, readout)
    assert float((states.double() - exact_states).abs().max()) < 1e-5
    assert float((logits.double() - exact_logits).abs().max()) < 1e-4


def test_deferred_renormalisation_keeps_vanished_states_at_zero():
    """Symbol 1 maps every state to 0: the norm leaves the band, the block is run per step, and
    a vanished row stays 0 (its logits 0), as with the per-step renormalisation."""
    trans, tokens, h0, readout = _dense_case(zero_second=True)
    with torch.no_grad():
        states = sequential_scan(trans, tokens, h0, normalize=True)
        logits = sequential_scan(trans, tokens, h0, normalize=True, readout=readout)
        ref_states, ref_logits = _reference_no_grad(trans, tokens, h0, readout)
    assert torch.equal(states, ref_states) and torch.equal(logits, ref_logits)
    seen = (tokens == 1).cumsum(1) > 0  # (batch, time): symbol 1 read at or before t
    assert seen.any() and (~seen).any()
    assert torch.equal(logits[seen], torch.zeros_like(logits[seen]))
    assert float(logits[~seen].abs().max()) > 0.1  # the rows that never read symbol 1 are not zero


def test_deferred_renormalisation_agrees_with_float64_per_step():
    """Well-conditioned transitions (orthogonal matrices times scales 0.3..3, norms within the
    band over a block): the deferred logits equal a float64 per-step loop to float32 rounding."""
    gen = torch.Generator().manual_seed(5)
    Q, _ = torch.linalg.qr(torch.randn(SYMBOLS, HIDDEN, HIDDEN, generator=gen, dtype=torch.float64))
    scales = torch.linspace(0.3, 3.0, SYMBOLS, dtype=torch.float64).view(-1, 1, 1)
    trans = Dense((Q * scales).float())
    _, tokens, h0, readout = _case("full")
    with torch.no_grad():
        states = sequential_scan(trans, tokens, h0, normalize=True)
        logits = sequential_scan(trans, tokens, h0, normalize=True, readout=readout)
    exact_states, exact_logits = _per_step(trans.A, tokens, h0, readout)
    assert float((states.double() - exact_states).abs().max()) < 2e-6
    assert float((logits.double() - exact_logits).abs().max()) < 1e-5 * float(exact_logits.abs().max())
    norms = torch.linalg.vector_norm(states, dim=-1)
    assert float((norms - 1).abs().max()) < 1e-6


@settings(max_examples=30, deadline=None)
@given(
    kind=st.sampled_from(["full", "block"]),
    symbols=st.integers(1, 5),
    blocks=st.integers(1, 3),
    batch=st.integers(2, 9),
    length=st.integers(1, 3 * 16 + 3),
    scale=st.sampled_from([1e-4, 0.5, 1.0, 3.0, 1e4]),
    readout=st.booleans(),
    dtype=st.sampled_from([torch.float32, torch.float64]),
    seed=st.integers(0, 10_000),
)
def test_no_grad_scan_matches_float64_per_step_property(kind, symbols, blocks, batch, length, scale, readout,
                                                        dtype, seed):
    """The no-grad grouped loop (deferred renormalisation over blocks of 16, the per-step
    fallback where the norms leave the band) against a float64 loop that renormalises at every
    step, for random sizes, lengths around the block edges, and transitions that shrink or grow
    every state by 10^4 a step.  The transitions are orthogonal blocks times one scale per
    symbol (well conditioned, so float32 rounding does not grow with the length)."""
    gen = torch.Generator().manual_seed(seed)
    b = 2
    Q, _ = torch.linalg.qr(torch.randn(symbols, blocks, b, b, generator=gen, dtype=torch.float64))
    scales = torch.tensor([scale] + [float(x) for x in torch.rand(symbols - 1, generator=gen) + 0.5],
                          dtype=torch.float64).view(-1, 1, 1, 1)
    param = (Q * scales).to(dtype)
    trans = Block(param) if kind == "block" else Dense(torch.stack([torch.block_diag(*m) for m in param]))
    dense = torch.stack([torch.block_diag(*m) for m in param.double()])
    tokens = torch.randint(0, symbols, (batch, length), generator=gen)
    h0 = torch.randn(blocks * b, generator=gen, dtype=torch.float64)
    R = torch.randn(3, blocks * b, generator=gen, dtype=torch.float64)
    exact_states, exact_logits = _per_step(dense, tokens, h0, R)
    with torch.no_grad():
        out = sequential_scan(trans, tokens, h0.to(dtype), normalize=True, readout=R.to(dtype) if readout else None)
    expected = exact_logits if readout else exact_states
    tol = 1e-4 if dtype == torch.float32 else 1e-10
    assert out.dtype == dtype and out.shape == expected.shape
    assert float((out.double() - expected).abs().max()) <= tol * max(1.0, float(expected.abs().max()))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_normalize_is_the_paper_formula_bit_for_bit_with_its_gradient(dtype):
    """``_normalize`` calls ``torch.linalg.vector_norm`` directly; the trained numbers were made with
    ``h / h.norm(dim=-1, keepdim=True).clamp_min(tiny)``: the same states and the same gradients,
    bit for bit (a zero row, a tiny row and rows of both signs included)."""
    from bilinear.learned.scan import _TINY

    gen = torch.Generator().manual_seed(5)
    x = torch.randn(40, 7, generator=gen, dtype=dtype) * torch.logspace(-20, 20, 40, dtype=dtype)[:, None]
    x[3] = 0.0
    x[4] = 1e-38 if dtype == torch.float32 else 1e-300
    g = torch.randn(40, 7, generator=gen, dtype=dtype)
    a, b = x.clone().requires_grad_(), x.clone().requires_grad_()
    ours = _normalize(a)
    paper = b / b.norm(dim=-1, keepdim=True).clamp_min(_TINY)
    assert torch.equal(ours, paper)
    ours.backward(g)
    paper.backward(g)
    assert torch.equal(a.grad, b.grad)
    assert not torch.equal(ours, x)  # the rows really were divided

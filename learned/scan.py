"""One scan for every bilinear variant: ``h_t = A[x_t] h_{t-1} (+ c[x_t])``.

A variant (a *cell*) supplies its per-symbol transitions as one :class:`Transitions` value
(:class:`Dense`, :class:`Block`, :class:`Diagonal`, :class:`Rotation`, :class:`Factorized`);
the scan, the renormalisation and the stacking of states are written once, here.

Two scans compute the same states:

* :func:`sequential_scan`, the fast CPU path.  For dense and block transitions the batch rows are
  *grouped by token* at every step (one stable sort of the tokens, done once for all steps), so a
  step is one GEMM per symbol instead of a batched matrix-vector product per row
  (``bmm(A[x_t], h)`` reaches about 1% of the GEMM peak on CPU).  Factorised transitions are one
  GEMM ``h W``, a scaling by ``C[x_t]`` and one GEMM by ``U^T``; diagonal and rotation transitions
  are elementwise.
* :func:`parallel_scan`, a log-depth, work-efficient associative scan over the transition
  products ``P_t = A[x_t] ... A[x_1]`` followed by ``h_t = P_t h_0``.  It does about ``hidden``
  times the FLOPs of the sequential scan and is what an accelerator wants; on CPU it is slower.
  Time is cut into chunks whose products fit a memory budget; within a chunk the scan has depth
  ``log2(chunk)``, and chunks are chained through the carried state.

:func:`scan` picks the parallel scan on CUDA for diagonal transitions and for dense ones up to
:data:`PARALLEL_MAX_HIDDEN`, and the sequential one otherwise (on CPU always): measured on an
NVIDIA H200 (docs/training.md, "On a GPU"), the parallel scan of dense 256 x 256 matrices is 3x
slower to train and 4-5x slower to evaluate than the sequential scan, since it multiplies d x d
matrices where the sequential scan multiplies a matrix by a vector.

Renormalisation (``normalize=True``) divides ``h_t`` by its Euclidean norm at every step.  For a
linear (bias-free) recurrence this changes no prediction of a linear readout: every state is only
multiplied by a positive scalar.  For an affine recurrence (``add`` given: the additive ablation)
renormalising after each step is a different recurrence, ``h_t = (A h + add) / |A h + add|``:
the sequential scan runs it; the parallel scan refuses it (it has no associative form).

Shapes: tokens (batch, time) int64, h0 (hidden,), result (batch, time, hidden).

>>> import torch
>>> A = torch.tensor([[[0., 1.], [1., 0.]], [[1., 0.], [0., 1.]]])  # swap, stay
>>> tokens = torch.tensor([[0, 1, 0], [1, 1, 0]])
>>> h = sequential_scan(Dense(A), tokens, torch.tensor([1., 0.]))
>>> h[:, -1].tolist()
[[1.0, 0.0], [0.0, 1.0]]
>>> torch.allclose(parallel_scan(Dense(A), tokens, torch.tensor([1., 0.])), h)
True
"""

from __future__ import annotations

import torch

from bilinear.errors import ConfigError
from bilinear.learned import grouped_loop

from .autograd_scans import _TINY, HOUSEHOLDER_MIN_CARRIED, HOUSEHOLDER_RESCALE_EVERY  # noqa: F401 (the old path)
from .group_plan import GroupPlan
from .transitions import (SMALL_HIDDEN, WY_MAX_COLUMNS, Block, ComplexMonomial, Dense, Diagonal, Factorized,
                          Householder, LowRank, Monomial, Rotation, Transitions, compact_wy, padded_step_wanted)

__all__ = [
    "auto_method",
    "PARALLEL_MAX_HIDDEN",
    "Transitions",
    "Dense",
    "Block",
    "Diagonal",
    "ComplexMonomial",
    "Rotation",
    "Factorized",
    "Householder",
    "compact_wy",
    "WY_MAX_COLUMNS",
    "Monomial",
    "LowRank",
    "GroupPlan",
    "sequential_scan",
    "parallel_scan",
    "scan",
    "SCANS",
    "PARALLEL_BUDGET",
    "padded_step_wanted",
]

#: Scan names accepted by :func:`scan` (``auto``: :func:`auto_method`).
SCANS = ("auto", "sequential", "parallel")
#: The largest hidden size at which ``auto`` takes the parallel scan on CUDA for transitions that
#: are not diagonal.  Measured on an NVIDIA H200 (``benchmarks/bench_gpu.py``, B = 256): at d = 64
#: the parallel scan's training step is 1.05-1.3x and its length-500 evaluation 1.3-3.6x faster than
#: the sequential scan's; at d = 256 the sequential scan is 3.1x faster to train and 2-4.9x faster
#: to evaluate (the parallel scan does d times the FLOPs, d x d products instead of matrix-vector).
PARALLEL_MAX_HIDDEN = 64


#: Most tensor elements a chunk of the parallel scan may hold at once (per product tensor).
PARALLEL_BUDGET = 2**25


def _normalize(h: torch.Tensor) -> torch.Tensor:
    """``h / ||h||`` along the hidden axis (zero rows stay zero), through autograd's own norm,
    clamp and division: the paper's variants train bit for bit as they did before the structured
    scans (every documented trained number depends on it; a written-out backward, ``(g - y (y . g)) /
    ||h||``, was measured faster but rounds differently).  The structured kinds' fused scans
    normalise inside their own autograd nodes (:func:`_unit_rows_`).  The norm is
    ``torch.linalg.vector_norm``, the function ``Tensor.norm`` hands a 2-norm over one axis to:
    the same node, without ``torch.norm``'s Python dispatch (about 5 us a step)."""
    return h / torch.linalg.vector_norm(h, dim=-1, keepdim=True).clamp_min(_TINY)


# ------------------------------------------------------------------------------------------
# sequential scan
# ------------------------------------------------------------------------------------------


def _check_inputs(trans: Transitions, tokens: torch.Tensor, h0: torch.Tensor,
                  readout: torch.Tensor | None = None) -> None:
    if tokens.dim() != 2:
        raise ConfigError(f"tokens must be (batch, time), got shape {tuple(tokens.shape)}")
    if tokens.numel() and (int(tokens.min()) < 0 or int(tokens.max()) >= trans.n_symbols):
        bad = int(tokens.max()) if int(tokens.max()) >= trans.n_symbols else int(tokens.min())
        raise ConfigError(f"token {bad} is outside the alphabet 0..{trans.n_symbols - 1}")
    if h0.dim() != 1:
        raise ConfigError(f"h0 must be (hidden,), got shape {tuple(h0.shape)}")
    if readout is not None and (readout.dim() != 2 or readout.shape[1] != h0.shape[0]):
        raise ConfigError(f"readout must be (classes, hidden = {h0.shape[0]}), got shape {tuple(readout.shape)}")


def _finish(H: torch.Tensor, readout: torch.Tensor | None) -> torch.Tensor:
    """Apply the optional readout (classes, hidden) to states (..., hidden)."""
    return H if readout is None else H @ readout.T


def _fused_scan(trans: Transitions, tokens, h0, normalize: bool, readout):
    """The scan through ``trans.fused`` (None when the kind has none), (batch, time, ...).
    Without autograd and with a readout the words are run :data:`READOUT_BLOCK` steps at a time,
    each block's states read out and dropped, the last state carried (per row) into the next
    block: the states of a long evaluation are never all held."""
    time = tokens.shape[1]
    if torch.is_grad_enabled() or readout is None or time <= READOUT_BLOCK:
        if readout is not None:
            logits = trans.fused_logits(tokens, h0, normalize, readout)
            if logits is not None:
                return logits.transpose(0, 1)
        H = trans.fused(tokens, h0, normalize)
        return None if H is None else _finish(H, readout).transpose(0, 1)  # read out in (time, batch) order
    out, h = [], h0
    for start in range(0, time, READOUT_BLOCK):
        H = trans.fused(tokens[:, start : start + READOUT_BLOCK], h, normalize)
        if H is None:
            return None
        out.append(_finish(H, readout))
        h = H[-1]
    return torch.cat(out, 0).transpose(0, 1)


def sequential_scan(
    trans: Transitions,
    tokens: torch.Tensor,
    h0: torch.Tensor,
    normalize: bool = False,
    add: torch.Tensor | None = None,
    readout: torch.Tensor | None = None,
) -> torch.Tensor:
    """States h_1..h_T (batch, time, hidden) of ``h_t = A[x_t] h_{t-1} (+ add[x_t])``.

    ``add`` (symbols, hidden) is the additive (affine) term of the ablation; with ``normalize``
    the state is renormalised after the affine step, ``h_t = (A h + add) / |A h + add|``.  With ``readout`` (classes, hidden) the result is the logits
    (batch, time, classes) instead, computed before the rows are put back in order (cheaper).
    Without autograd, grouped transitions write into preallocated buffers (no allocation per step).

    >>> D = Diagonal(torch.tensor([[-1.], [1.]]))
    >>> sequential_scan(D, torch.tensor([[0, 0, 1, 0]]), torch.tensor([2.]), normalize=True)[0, :, 0].tolist()
    [-1.0, 1.0, 1.0, -1.0]
    """
    _check_inputs(trans, tokens, h0, readout)
    batch, time = tokens.shape
    hidden = h0.shape[0]
    if time == 0:
        return h0.new_zeros(batch, 0, hidden if readout is None else readout.shape[0])
    if add is None:
        fused = _fused_scan(trans, tokens, h0, normalize, readout)
        if fused is not None:
            return fused
    h = h0.expand(batch, hidden)
    small = torch.is_grad_enabled() and hidden <= SMALL_HIDDEN and trans.n_symbols > 2
    if trans.grouped and batch > 1 and not small:
        plan = GroupPlan.build(tokens, trans.n_symbols)
        if torch.is_grad_enabled():
            states = []
            relink, sorted_tokens = plan.relink.unbind(0), plan.sorted_tokens.unbind(0)
            padded = isinstance(trans, Dense) and padded_step_wanted(hidden, trans.n_symbols)
            slots = plan.padded_slots() if padded else None
            for t in range(time):
                if t:
                    h = h.index_select(0, relink[t])
                if slots is not None:  # the slots of every step made at once
                    assert isinstance(trans, Dense)  # padded is only ever set for dense transitions
                    h = trans._padded_step(h, plan.counts[t], slots[t])
                else:
                    h = trans.step(h, sorted_tokens[t], plan.counts[t])
                if add is not None:
                    h = h + add[sorted_tokens[t]]
                if normalize:
                    h = _normalize(h)
                states.append(h)
            H = torch.stack(states, 0)  # (time, batch, hidden), rows in each step's sorted order
            Y = _finish(H, readout)  # (time, batch, hidden or classes)
        else:
            # inference mode: each operation of the loop skips autograd's bookkeeping (version
            # counters, view tracking), 15% of the loop's time at d = 64, V = 10 (measured:
            # 57 against 48 us per step); the rows put back in order below are ordinary tensors
            with torch.inference_mode():
                Y = _grouped_no_grad(trans, plan, h0, normalize, add, readout)
            if readout is not None:  # the logits come transposed, (classes, time x batch)
                return plan.unsort_columns(Y)
        return plan.unsort(Y)  # (batch, time, ...)
    states = []
    tk = tokens.T  # (time, batch)
    for t in range(time):
        h = trans.step(h, tk[t])
        if add is not None:
            h = h + add[tk[t]]
        if normalize:
            h = _normalize(h)
        states.append(h)
    return _finish(torch.stack(states, 1), readout)


#: Steps of a long no-grad evaluation that one call of a fused scan runs before its states are
#: read out and dropped (:func:`_fused_scan`).
READOUT_BLOCK = 64

#: Steps of states the no-grad grouped loop buffers before one readout GEMM, and the stretch over
#: which it defers the renormalisation (:func:`_grouped_no_grad`).  The speed hardly depends on it
#: (8, 16, 32 and 64 steps within the run-to-run noise of about 5% of each other at d = 64 and
#: 256, V = 2 and 10, B = 256, one thread); 16 steps of (256, 64) float32 states (1 MiB) stay in a
#: core's L2 cache, and a block that falls back to the per-step renormalisation is run again over
#: 16 steps only.
GROUPED_BLOCK = 16

#: The band of row norms within which the no-grad loop's deferred renormalisation is exact up to
#: rounding (:func:`_grouped_no_grad`): far inside float32's normal range (1.2e-38 to 3.4e38),
#: so no entry that matters overflows or becomes subnormal between two renormalisations.
DEFERRED_NORM_BAND = (1e-10, 1e10)


def _grouped_no_grad(trans, plan: GroupPlan, h0, normalize: bool, add, readout) -> torch.Tensor:
    """The grouped loop without autograd, in sorted row order: the logits transposed, (classes,
    time x batch), when ``readout`` is given (states are buffered :data:`GROUPED_BLOCK` steps at a
    time and read out with one GEMM ``R @ H^T`` per block), else the states (time, batch, hidden).
    The loop itself is :func:`bilinear.learned.grouped_loop.grouped_no_grad`, compiled by
    TorchScript where it can be (the same bits either way); this function prepares its arguments.

    **Deferred renormalisation.**  On CPU, in float32 or float64, without an additive term, the
    states are not divided by their norms at every step but once per block: a linear map commutes
    with a positive scale, so ``h_t / |h_t|`` is the same whether the carried state was
    renormalised at every step or only at the block's start, up to rounding.  Each block's row
    norms are computed in one operation and must all lie in :data:`DEFERRED_NORM_BAND` (finite,
    no overflow, nothing near the subnormals); the logits (or the kept states) are then divided by
    them, and the block's last state, renormalised, is carried into the next block.  A block
    whose norms leave the band (a state that vanishes, a transition that grows by 10^10 within a
    block) is run again from its carried state with the per-step renormalisation, so the result
    never depends on the deferral beyond rounding.  It saves three operations per step (norm,
    clamp, division): 63 against 53 us per step at d = 64, V = 10, B = 256, one thread.  CUDA
    keeps the per-step renormalisation (the band check would synchronise once per block)."""
    mats, blocks = trans.loop_matrices()
    deferred = (normalize and add is None and h0.device.type == "cpu"
                and h0.dtype in (torch.float32, torch.float64))
    low, high = DEFERRED_NORM_BAND
    sorted_tokens = plan.sorted_tokens if add is not None else plan.sorted_tokens[:, :0]
    R = None if readout is None else readout.contiguous()
    return grouped_loop.loop()(h0, mats, blocks, plan.counts, plan.relink, add, sorted_tokens, R,
                               GROUPED_BLOCK, normalize, deferred, low, high)


# ------------------------------------------------------------------------------------------
# parallel scan
# ------------------------------------------------------------------------------------------
def _compose(later, earlier, diagonal: bool):
    """The element ``later o earlier`` (apply ``earlier`` first).  Elements are (M, c) pairs."""
    M2, c2 = later
    M1, c1 = earlier
    M = M2 * M1 if diagonal else M2 @ M1
    if c1 is None:
        return M, c2
    return M, _apply(M2, c1, diagonal) + c2


def _apply(M: torch.Tensor, h: torch.Tensor, diagonal: bool) -> torch.Tensor:
    """Element M applied to states h (..., hidden)."""
    if diagonal:
        return M * h
    nb, b = M.shape[-3], M.shape[-1]
    hb = h.reshape(*h.shape[:-1], nb, b, 1)
    return (M @ hb).reshape(h.shape)


def _rescale(M: torch.Tensor, diagonal: bool) -> torch.Tensor:
    """Divide each product by its largest absolute entry (a positive scalar per position)."""
    dims = (-1,) if diagonal else (-3, -2, -1)
    scale = M.abs().amax(dim=dims, keepdim=True).clamp_min(_TINY)
    return M / scale


def _inclusive_scan(M: torch.Tensor, c, diagonal: bool, rescale: bool):
    """Work-efficient inclusive scan along the time axis (axis 1), depth 2 log2(time).

    Pairs (2i, 2i+1) are composed, the half-length sequence of pair products is scanned
    recursively (its prefixes are the prefixes at the odd positions), and each even position
    2i > 0 is its element composed with the prefix at 2i - 1: about 2 * time compositions in
    all (a Hillis-Steele scan does time * log2(time)).
    """
    time = M.shape[1]
    if time == 1:
        return M, c
    n_pairs = time // 2
    later = (M[:, 1 : 2 * n_pairs : 2], None if c is None else c[:, 1 : 2 * n_pairs : 2])
    earlier = (M[:, 0 : 2 * n_pairs : 2], None if c is None else c[:, 0 : 2 * n_pairs : 2])
    Pm, Pc = _compose(later, earlier, diagonal)
    if rescale:
        Pm = _rescale(Pm, diagonal)
    Pm, Pc = _inclusive_scan(Pm, Pc, diagonal, rescale)  # prefixes at positions 1, 3, 5, ...
    outM = torch.empty_like(M)
    outM[:, 0] = M[:, 0]
    outM[:, 1 : 2 * n_pairs : 2] = Pm
    outc = None
    if c is not None:
        outc = torch.empty_like(c)
        outc[:, 0] = c[:, 0]
        outc[:, 1 : 2 * n_pairs : 2] = Pc
    n_even = (time - 1) // 2  # even positions 2, 4, ... < time
    if n_even:
        em = (M[:, 2::2], None if c is None else c[:, 2::2])
        prev = (Pm[:, :n_even], None if c is None else Pc[:, :n_even])
        Em, Ec = _compose(em, prev, diagonal)
        if rescale:
            Em = _rescale(Em, diagonal)
        outM[:, 2::2] = Em
        if outc is not None:  # exactly when c is given
            outc[:, 2::2] = Ec
    return outM, outc


def parallel_scan(
    trans: Transitions,
    tokens: torch.Tensor,
    h0: torch.Tensor,
    normalize: bool = False,
    add: torch.Tensor | None = None,
    chunk: int | None = None,
    readout: torch.Tensor | None = None,
) -> torch.Tensor:
    """The states of :func:`sequential_scan`, by a log-depth associative scan of the products.

    ``chunk`` bounds the time steps scanned at once (default: as many as fit
    :data:`PARALLEL_BUDGET` elements); chunks are chained through the carried state.  With
    ``normalize`` the products are rescaled by positive scalars as they are formed, which leaves
    every normalised state unchanged and keeps long products finite.

    >>> R = Rotation(torch.tensor([[0.], [1.]]), torch.tensor([[1.], [0.]]))  # quarter turn, stay
    >>> tokens = torch.tensor([[0, 0, 1, 0, 0]])
    >>> torch.allclose(parallel_scan(R, tokens, torch.tensor([1., 0.]), chunk=2),
    ...                sequential_scan(R, tokens, torch.tensor([1., 0.])), atol=1e-6)
    True
    """
    _check_inputs(trans, tokens, h0, readout)
    if normalize and add is not None:
        raise ConfigError("an affine (additive) recurrence renormalised at every step has no associative form: "
                          "use the sequential scan")
    batch, time = tokens.shape
    hidden = h0.shape[0]
    if time == 0:
        return h0.new_zeros(batch, 0, hidden if readout is None else readout.shape[0])
    diagonal = trans.diagonal_elements
    if chunk is None:
        per_step = batch * (hidden if diagonal else hidden * hidden)
        chunk = max(1, PARALLEL_BUDGET // max(per_step, 1))
    if not isinstance(chunk, int) or chunk < 1:
        raise ConfigError(f"chunk must be a positive integer, got {chunk!r}")
    # half-precision products lose the state within a few thousand steps (bfloat16 at length 1e5
    # scored 0.87 where the sequential scan scored 1.0): form them in float32, return h0's dtype
    low = h0.dtype in (torch.float16, torch.bfloat16)
    h = h0.expand(batch, hidden).float() if low else h0.expand(batch, hidden)
    out = []
    for start in range(0, time, chunk):
        tk = tokens[:, start : start + chunk]
        M = trans.elements(tk)
        c = None if add is None else add[tk]  # (batch, chunk, hidden)
        if low:
            M = M.float()
            c = None if c is None else c.float()
        # rescaling the products by positive scalars is harmless only when states are normalised
        M, c = _inclusive_scan(M, c, diagonal, rescale=normalize)
        hs = _apply(M, h.unsqueeze(1).expand(batch, tk.shape[1], hidden), diagonal)
        if c is not None:
            hs = hs + c
        if normalize:
            hs = _normalize(hs)
        out.append(hs)
        h = hs[:, -1]
    return _finish(torch.cat(out, 1).to(h0.dtype), readout)


def auto_method(trans: Transitions, tokens: torch.Tensor, h0: torch.Tensor, normalize: bool = False,
                add: torch.Tensor | None = None) -> str:
    """The scan ``auto`` runs: ``parallel`` on CUDA for diagonal transitions (elementwise products)
    and for others up to :data:`PARALLEL_MAX_HIDDEN`, else ``sequential`` (always on CPU, and for a
    renormalised affine recurrence, which has no parallel form).

    >>> D = Diagonal(torch.ones(2, 300))
    >>> auto_method(D, torch.zeros(1, 3, dtype=torch.long), torch.ones(300))
    'sequential'
    """
    if not tokens.is_cuda or (normalize and add is not None):
        return "sequential"
    if trans.diagonal_elements or h0.shape[-1] <= PARALLEL_MAX_HIDDEN:
        return "parallel"
    return "sequential"


def scan(
    trans: Transitions,
    tokens: torch.Tensor,
    h0: torch.Tensor,
    normalize: bool = False,
    add: torch.Tensor | None = None,
    method: str = "auto",
    readout: torch.Tensor | None = None,
) -> torch.Tensor:
    """Dispatch: ``method`` in :data:`SCANS`; ``auto`` is :func:`auto_method`'s choice.

    >>> D = Diagonal(torch.tensor([[2.0]]))
    >>> scan(D, torch.tensor([[0, 0]]), torch.tensor([1.0]))[0, :, 0].tolist()
    [2.0, 4.0]
    """
    if method not in SCANS:
        raise ConfigError(f"unknown scan {method!r} (known: {', '.join(SCANS)})")
    if readout is not None and add is None:
        small = trans.in_span(h0, readout)
        if small is not None:  # the same logits and gradients in fewer coordinates
            trans, h0, readout = small
    if method == "auto":
        method = auto_method(trans, tokens, h0, normalize, add)
    if method == "parallel":
        return parallel_scan(trans, tokens, h0, normalize=normalize, add=add, readout=readout)
    return sequential_scan(trans, tokens, h0, normalize=normalize, add=add, readout=readout)

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

import math
from dataclasses import dataclass

import numpy as np
import torch

from bilinear.errors import ConfigError
from bilinear.learned import grouped_loop

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
#: With autograd, dense and block transitions of hidden size up to this and more than two symbols
#: use one batched product per step instead of grouping: for such tiny GEMMs the per-symbol
#: operations (and their backward) cost more than they save (measured: d = 16, V = 10, B = 64:
#: 3.0 ms against 5.3 ms per training step; d = 64, V = 10, B = 256: 62 ms against 10 ms).
SMALL_HIDDEN = 32


def padded_step_wanted(hidden: int, n_symbols: int) -> bool:
    """True when a grouped dense step under autograd should be one padded batched product
    (:meth:`Dense.step`) instead of one GEMM per symbol: more than two symbols, hidden size over
    :data:`SMALL_HIDDEN`, and more than one torch thread.  One ``bmm`` over the symbols is what
    two threads can share; the per-symbol GEMMs at d = 64 are too small to split (measured:
    d = 64, V = 10, B = 256, two threads: 5.5 ms against 6.7 ms per training step, the LSTM 6.7;
    with one thread the two are equal at d = 64 and the GEMMs win at d = 256, 28 against 33 ms).
    With one thread (every sweep worker) the scan is what it was, so runs stay reproducible."""
    return n_symbols > 2 and hidden > SMALL_HIDDEN and torch.get_num_threads() > 1
#: Most tensor elements a chunk of the parallel scan may hold at once (per product tensor).
PARALLEL_BUDGET = 2**25
_TINY = 1e-30


def _normalize(h: torch.Tensor) -> torch.Tensor:
    """``h / ||h||`` along the hidden axis (zero rows stay zero), through autograd's own norm,
    clamp and division: the paper's variants train bit for bit as they did before the structured
    scans (every documented trained number depends on it; a written-out backward, ``(g - y (y . g)) /
    ||h||``, was measured faster but rounds differently).  The structured kinds' fused scans
    normalise inside their own autograd nodes (:func:`_unit_rows_`)."""
    return h / h.norm(dim=-1, keepdim=True).clamp_min(_TINY)


# ------------------------------------------------------------------------------------------
# per-symbol transitions
# ------------------------------------------------------------------------------------------
def _unbound(trans, name: str, transposed):
    """``transposed()`` split into one view per symbol, made once per transitions value.

    Indexing ``A[s]`` at every step and symbol costs, in the backward pass, a zero tensor of
    the size of all of ``A`` per use (symbols x time of them); one ``unbind`` has a single
    backward that stacks the per-symbol gradients (benchmarks/bench_train.py).
    """
    key = f"_unbound_{name}"
    cached = trans.__dict__.get(key)
    if cached is None:
        cached = transposed().unbind(0)
        object.__setattr__(trans, key, cached)
    return cached


class Transitions:
    """Per-symbol transitions of one variant.

    Subclasses implement :meth:`step` (apply to a batch of states whose tokens are given),
    :meth:`elements` (per-position elements for the parallel scan) and :meth:`dense`
    (the (symbols, hidden, hidden) matrices, for export and tests).
    """

    #: True when the sequential scan should group the rows by token (dense and block GEMMs).
    grouped = False

    @property
    def n_symbols(self) -> int:  # pragma: no cover - overridden
        raise TypeError(f"{type(self).__name__} must define n_symbols")

    def dense(self) -> torch.Tensor:
        """The transition matrices as one (symbols, hidden, hidden) tensor."""
        raise TypeError(f"{type(self).__name__} must define dense()")  # pragma: no cover

    def step(self, h: torch.Tensor, tok: torch.Tensor, counts: list[int] | None = None) -> torch.Tensor:
        """``A[tok[b]] h[b]`` for every row b: h (batch, hidden), tok (batch,).

        For grouped transitions the rows are sorted by token and ``counts[s]`` rows carry symbol s.
        """
        raise TypeError(f"{type(self).__name__} must define step()")  # pragma: no cover

    def elements(self, tokens: torch.Tensor):
        """Scan elements for tokens (batch, time): (batch, time, blocks, b, b) or (batch, time, hidden)."""
        raise TypeError(f"{type(self).__name__} must define elements()")  # pragma: no cover

    #: Whether :meth:`elements` are diagonal (elementwise product) rather than block matrices.
    diagonal_elements = False

    def fused(self, tokens: torch.Tensor, h0: torch.Tensor, normalize: bool) -> torch.Tensor | None:
        """The states (time, batch, hidden) of the whole bias-free scan as one autograd node
        (:func:`sequential_scan` asks first), or None when this kind has no fused scan.  ``h0``
        is (hidden,), or (batch, hidden) without autograd (a block of a long evaluation)."""
        return None

    def fused_logits(self, tokens: torch.Tensor, h0: torch.Tensor, normalize: bool,
                     readout: torch.Tensor) -> torch.Tensor | None:
        """The logits (time, batch, classes) of the whole scan read out by ``readout`` (classes,
        hidden) as one autograd node, or None when this kind does not fold its readout into
        its scan (:func:`sequential_scan` then reads out the states of :meth:`fused`)."""
        return None

    def in_span(self, h0: torch.Tensor, readout: torch.Tensor):
        """``(transitions, h0, readout)`` of the same read-out scan in coordinates of a subspace
        smaller than the hidden space that holds every state and every gradient, or None when
        this kind has none (:meth:`Householder.in_span`; :func:`scan` asks first)."""
        return None


@dataclass(frozen=True, eq=False)
class Dense(Transitions):
    """Dense matrices ``A`` (symbols, hidden, hidden); the step is one GEMM per symbol."""

    A: torch.Tensor
    grouped = True

    @property
    def n_symbols(self) -> int:
        return int(self.A.shape[0])

    def dense(self) -> torch.Tensor:
        return self.A

    def step(self, h, tok, counts=None):
        if counts is None:  # ungrouped fallback: one batched product
            return torch.einsum("bij,bj->bi", self.A[tok], h)
        if padded_step_wanted(h.shape[1], len(counts)):
            n = torch.tensor(counts, device=h.device)
            slot = tok * max(counts) + (torch.arange(h.shape[0], device=h.device) - (torch.cumsum(n, 0) - n)[tok])
            return self._padded_step(h, counts, slot)
        AT = _unbound(self, "A", lambda: self.A.transpose(1, 2))
        # one split (its backward is one cat) rather than slices (each slice's backward is a
        # zero tensor of the whole batch)
        parts = [rows @ AT[s] for s, rows in enumerate(h.split_with_sizes(counts)) if counts[s]]  # (rows, hidden)
        return torch.cat(parts, 0) if len(parts) > 1 else parts[0]

    def _padded_step(self, h, counts, slot):
        """The grouped step as one ``bmm``: the rows of symbol s (contiguous, in sorted order)
        are copied into slot s of a zero-padded (symbols, most rows, hidden) tensor, multiplied
        by all the transposed matrices at once, and read back (one index_copy, one bmm, one
        index_select, and their three backward operations).  ``slot[j]``: where sorted row j
        goes, ``s * max(counts) + (its rank among the rows of its symbol s)``
        (:meth:`GroupPlan.padded_slots` makes them for all steps at once)."""
        widest = max(counts)
        padded = h.new_zeros(len(counts) * widest, h.shape[1]).index_copy(0, slot, h)
        out = torch.bmm(padded.view(len(counts), widest, -1), self.A.transpose(1, 2))
        return out.reshape(len(counts) * widest, -1).index_select(0, slot)

    def elements(self, tokens):
        return self.A[tokens].unsqueeze(2)  # (batch, time, 1, hidden, hidden)

    def loop_matrices(self) -> tuple[list[torch.Tensor], int]:
        """The no-grad loop's per-symbol matrices (:mod:`bilinear.learned.grouped_loop`): each
        transposed and contiguous, (hidden_in, hidden_out), and 0 blocks (one GEMM per symbol)."""
        return list(self.A.transpose(1, 2).contiguous().unbind(0)), 0


@dataclass(frozen=True, eq=False)
class Block(Transitions):
    """Block-diagonal matrices as blocks (symbols, blocks, b, b)."""

    blocks: torch.Tensor
    grouped = True

    @property
    def n_symbols(self) -> int:
        return int(self.blocks.shape[0])

    def dense(self) -> torch.Tensor:
        return torch.stack([torch.block_diag(*self.blocks[s]) for s in range(self.n_symbols)])

    def step(self, h, tok, counts=None):
        S, nb, b, _ = self.blocks.shape
        if counts is None:
            hb = h.reshape(h.shape[0], nb, b)
            return torch.einsum("bnij,bnj->bni", self.blocks[tok], hb).reshape(h.shape)
        BT = _unbound(self, "blocks", lambda: self.blocks.transpose(2, 3))
        parts = []
        for s, rows in enumerate(h.split(counts)):
            if counts[s]:
                hb = rows.reshape(counts[s], nb, b).transpose(0, 1)  # (blocks, rows, b)
                out = torch.bmm(hb, BT[s])  # (blocks, rows, b)
                parts.append(out.transpose(0, 1).reshape(counts[s], nb * b))
        return torch.cat(parts, 0) if len(parts) > 1 else parts[0]

    def elements(self, tokens):
        return self.blocks[tokens]  # (batch, time, blocks, b, b)

    def loop_matrices(self) -> tuple[list[torch.Tensor], int]:
        """The no-grad loop's per-symbol transposed blocks (blocks, b, b), the views :meth:`step`
        multiplies by, and the number of blocks (one ``bmm`` per symbol)."""
        return list(self.blocks.transpose(2, 3).unbind(0)), int(self.blocks.shape[1])


@dataclass(frozen=True, eq=False)
class Diagonal(Transitions):
    """Diagonal matrices as their diagonals (symbols, hidden)."""

    D: torch.Tensor
    diagonal_elements = True

    @property
    def n_symbols(self) -> int:
        return int(self.D.shape[0])

    def dense(self) -> torch.Tensor:
        return torch.diag_embed(self.D)

    def step(self, h, tok, counts=None):
        return h * self.D[tok]

    def elements(self, tokens):
        return self.D[tokens]  # (batch, time, hidden)


@dataclass(frozen=True, eq=False)
class Rotation(Transitions):
    """Scaled 2x2 rotations ``[[a, -b], [b, a]]``: a, b (symbols, hidden/2)."""

    a: torch.Tensor
    b: torch.Tensor

    @property
    def n_symbols(self) -> int:
        return int(self.a.shape[0])

    def _blocks(self) -> torch.Tensor:
        row0 = torch.stack([self.a, -self.b], -1)
        row1 = torch.stack([self.b, self.a], -1)
        return torch.stack([row0, row1], -2)  # (symbols, hidden/2, 2, 2)

    def dense(self) -> torch.Tensor:
        return Block(self._blocks()).dense()

    def step(self, h, tok, counts=None):
        a, b = self.a[tok], self.b[tok]  # (batch, hidden/2)
        x, y = h[:, 0::2], h[:, 1::2]
        return torch.stack([a * x - b * y, b * x + a * y], -1).reshape(h.shape)

    def elements(self, tokens):
        return self._blocks()[tokens]  # (batch, time, hidden/2, 2, 2)


@dataclass(frozen=True, eq=False)
class Factorized(Transitions):
    """``A[s] = U diag(C[s]) W^T``: U, W (hidden, R), C (symbols, R)."""

    U: torch.Tensor
    C: torch.Tensor
    W: torch.Tensor

    @property
    def n_symbols(self) -> int:
        return int(self.C.shape[0])

    def dense(self) -> torch.Tensor:
        return torch.einsum("ir,sr,jr->sij", self.U, self.C, self.W)

    def step(self, h, tok, counts=None):
        return ((h @ self.W) * self.C[tok]) @ self.U.T  # (batch, R) -> (batch, hidden)

    def elements(self, tokens):
        return self.dense()[tokens].unsqueeze(2)  # (batch, time, 1, hidden, hidden)


#: Householder steps over all symbols at once (the compact WY form, three small GEMMs per step)
#: while symbols x K is at most this; past it, each row's own vectors are gathered (O(K hidden)
#: per row, but a gather of (batch, K, hidden) floats per step).
WY_MAX_COLUMNS = 64


def compact_wy(k: torch.Tensor, beta: torch.Tensor) -> torch.Tensor:
    """``M`` (symbols, K, K), upper triangular, with ``H(k_0, b_0) ... H(k_{K-1}, b_{K-1}) =
    I - Y M Y^T`` for ``Y = [k_0 ... k_{K-1}]`` (the compact WY representation of a product of
    generalised reflections): ``M = (I + diag(b) striu(Y^T Y))^{-1} diag(b)``, one batched
    triangular solve.  Proof by induction on K: ``(I - Y M Y^T)(I - b k k^T) = I - [Y k]
    [[M, -b M Y^T k], [0, b]] [Y k]^T``, and that block matrix is the formula's for ``[Y k]``
    (the inverse of a block upper-triangular matrix); no division by b, so b = 0 is allowed.

    >>> k = torch.tensor([[[1.0, 0.0], [0.6, 0.8]]]); b = torch.tensor([[2.0, 2.0]])
    >>> M = compact_wy(k, b); Y = k.transpose(1, 2)
    >>> torch.allclose(torch.eye(2) - Y @ M @ Y.transpose(1, 2), Householder(k, b).dense())
    True
    """
    K = k.shape[1]
    gram = k @ k.transpose(1, 2)  # (S, K, K)
    L = torch.eye(K, dtype=k.dtype, device=k.device) + beta.unsqueeze(-1) * gram.triu(1)
    return torch.linalg.solve_triangular(L, torch.diag_embed(beta), upper=True)


def _real_rows(x: torch.Tensor) -> torch.Tensor:
    """``x`` itself, or for complex rows (..., m) the view (..., 2m) of their real pairs."""
    return torch.view_as_real(x).flatten(-2) if x.is_complex() else x


def _unit_rows_(u: torch.Tensor, n) -> None:
    """Divide the rows of ``u`` by their norms in place, the norms (clamped at the scan's tiny)
    written into ``n`` (rows, 1); nothing when ``n`` is None (no renormalisation).  Complex rows
    are normalised as their real pairs (:func:`_real_rows`)."""
    if n is not None:
        r = _real_rows(u)
        torch.linalg.vector_norm(r, dim=-1, keepdim=True, out=n).clamp_min_(_TINY)
        r.div_(n)


def _unit_rows_grad(g: torch.Tensor, y: torch.Tensor, n, out: torch.Tensor) -> torch.Tensor:
    """Into ``out``, the gradient at u of ``y = u / n`` (rows, :func:`_unit_rows_`) given the
    gradient ``g`` at y: ``(g - y (y . g)) / n``; ``g`` itself when ``n`` is None (no
    renormalisation)."""
    if n is None:
        return out.copy_(g)
    gr, yr = _real_rows(g), _real_rows(y)  # complex rows: the real pairs
    torch.addcmul(gr, yr, torch.linalg.vecdot(yr, gr).unsqueeze(-1), value=-1, out=_real_rows(out)).div_(n)
    return out


def _previous_states_product(G: torch.Tensor, H: torch.Tensor, h0: torch.Tensor) -> torch.Tensor:
    """``sum_t G_t^T h_{t-1}`` over the batch rows, (columns of G, hidden), for G (time, batch,
    k), the states ``h_1 .. h_T`` (time, batch, hidden) and ``h_0 = h0`` for every row: one GEMM
    over steps 2..T and an outer product for the first (no copy of the states)."""
    T, Bt, d = H.shape
    first = torch.outer(G[0].sum(0), h0)
    if T == 1:
        return first
    return torch.addmm(first, G[1:].reshape((T - 1) * Bt, -1).T, H[:-1].reshape((T - 1) * Bt, d))


#: The Householder scan rescales its carried state every this many steps at most, not every
#: step (:class:`_HouseholderScan`, :meth:`Householder.rescale_every`).
HOUSEHOLDER_RESCALE_EVERY = 8

#: The smallest norm the Householder scan lets its carried state reach between two rescales (a
#: unit state times the transitions' worst contraction over the steps in between; before the
#: first rescale the state starts from h0 at its own norm): 10^5 above the scans' zero guard
#: ``_TINY`` and a normal float32, so the deferred renormalisation never divides by the guard
#: where the per-step one would not.
HOUSEHOLDER_MIN_CARRIED = 1e-25


class _HouseholderScan(torch.autograd.Function):
    """The whole Householder scan ``h_t = (I - Y_s M_s Y_s^T) h_{t-1}`` (renormalised) as one
    autograd node, in the compact WY form of :meth:`Householder._wy`: per step two skinny GEMMs
    forward and two backward, with no autograd bookkeeping per step; the weight gradients are
    one GEMM each over all time steps at the end.  Inputs: tokens (time, batch), h0 (hidden,),
    Yt and Zt (symbols x K, hidden), the symbol count and K, whether to renormalise, and a
    readout W (classes, hidden) or None.  The result is the states (time, batch, hidden), or
    with W the logits (time, batch, classes) of the renormalised states.

    Renormalised, the recurrence is linear, so ``h_t`` is the direction of the carried state
    whatever positive scale it has: the carried state is divided by its norm only every
    ``every`` steps (:meth:`Householder.rescale_every`: at most
    :data:`HOUSEHOLDER_RESCALE_EVERY`), and the states are normalised all at once at the
    end (one pass over (time, batch, hidden) instead of a norm and a division per step).  With a
    readout they are never normalised at all: the logits are ``W u / |u|`` of the carried states
    u, one GEMM and a division of (time, batch, classes), and backward the gradient at u is
    ``(W^T g - ((g . l) / |u|) u) / |u|`` (g the logits' gradient, l the logits; divided in this
    order so that a tiny |u| never squares): one GEMM and one pass, where the states' path takes
    the projection ``(g - y (y . g)) / |u|`` of (time, batch, hidden) gradients (three passes)
    and the readout's own GEMMs (measured in docs/training.md, "The 2025 families' training
    step").  A product of generalised
    reflections with beta in [0, 2] has spectral norm at most 1 (each factor is symmetric with
    eigenvalues 1 and 1 - beta), so the carried state never grows; it shrinks by at most the
    product of ``every`` steps' contractions before it is rescaled, which ``every`` keeps above
    :data:`HOUSEHOLDER_MIN_CARRIED`.

    Backward, the gradient at each step's result is accumulated in place in one (time, batch,
    hidden) buffer: it starts as each state's own gradient, and step t adds ``gu_t - (gu_t Y^T
    * mask) Z`` (the gradient passed to ``h_{t-1}``) into the slot of t - 1."""

    @staticmethod
    def forward(ctx, tokT, h0, Yt, Zt, S, K, normalize, W=None, every=HOUSEHOLDER_RESCALE_EVERY):
        T, Bt = tokT.shape
        d = h0.shape[-1]
        ctx.every = every
        mask = (tokT.unsqueeze(-1) == torch.arange(S, device=tokT.device)).to(h0.dtype)  # (T, B, S)
        mask = mask.repeat_interleave(K, dim=-1) if K > 1 else mask  # (T, B, S K)
        CS = h0.new_empty(T, Bt, d)  # the carried states (rescaled at the rescale steps)
        C = h0.new_empty(T, Bt, S * K)
        R = h0.new_ones(T, Bt, 1)  # the norm divided out at a rescale step (1 elsewhere)
        ZT = Zt.T
        h = h0.expand(Bt, -1)
        for t in range(T):
            c = torch.mm(h, ZT, out=C[t]).mul_(mask[t])
            h = torch.addmm(h, c, Yt, alpha=-1, out=CS[t])
            if normalize and (t + 1) % every == 0 and t < T - 1:
                _unit_rows_(h, R[t])
        N = torch.linalg.vector_norm(CS, dim=-1, keepdim=True).clamp_min_(_TINY) if normalize else None
        ctx.normalize = normalize
        if W is not None:
            out = torch.mm(CS.view(T * Bt, d), W.T).view(T, Bt, -1)
            if normalize:
                out.div_(N)
        else:
            out = CS / N if normalize else CS
        ctx.save_for_backward(h0, Yt, Zt, W, mask, CS, C, N, R, out if normalize else None)
        return out

    @staticmethod
    def backward(ctx, gout):
        h0, Yt, Zt, W, mask, CS, C, N, R, out = ctx.saved_tensors
        T, Bt, d = CS.shape
        grad_W = None
        if W is not None:  # gout: the logits' gradient (time, batch, classes)
            G = gout.contiguous()
            GU = torch.mm(G.view(T * Bt, -1), W).view(T, Bt, d)
            if ctx.normalize:  # W^T g - (g . l) u / |u|, divided by |u| slice by slice in the loop
                GU.addcmul_(CS, torch.linalg.vecdot(G, out).unsqueeze(-1).div_(N), value=-1)
                GU[T - 1].div_(N[T - 1])
            if ctx.needs_input_grad[7]:
                grad_W = (G / N if ctx.normalize else G).view(T * Bt, -1).T @ CS.view(T * Bt, d)
        else:  # gout: the states' gradient; out: the normalised states (None without renormalisation)
            GU = _unit_rows_grad(gout.contiguous(), out, N, torch.empty_like(CS))
        GC = torch.empty_like(C)  # the gradient at each step's masked projections (negated)
        YT = Yt.T
        g = None  # the gradient at h_0
        for t in range(T - 1, -1, -1):
            gu = GU[t]  # the gradient at u_t (its own, and the later steps' through h_t)
            if ctx.normalize and t < T - 1 and (t + 1) % ctx.every == 0:  # carried: u_t / |u_t|
                _unit_rows_grad(gu, CS[t] / N[t], R[t], gu)  # (the own part is already orthogonal to y)
            gc = torch.mm(gu, YT, out=GC[t]).mul_(mask[t])
            if t > 0:
                prev = GU[t - 1].div_(N[t - 1]) if W is not None and ctx.normalize else GU[t - 1]
                prev.add_(gu).addmm_(gc, Zt, alpha=-1)
            else:
                g = torch.addmm(gu, gc, Zt, alpha=-1)
        assert g is not None  # T >= 1: the scan returns early for empty words
        grad_h0 = g.sum(0) if ctx.needs_input_grad[1] else None
        grad_Yt = -(C.view(T * Bt, -1).T @ GU.view(T * Bt, d)) if ctx.needs_input_grad[2] else None
        grad_Zt = None
        if ctx.needs_input_grad[3]:
            grad_Zt = -_previous_states_product(GC, CS, h0)
        return None, grad_h0, grad_Yt, grad_Zt, None, None, None, grad_W, None


@dataclass(frozen=True, eq=False)
class Householder(Transitions):
    """``A[s] = H(k[s,0], beta[s,0]) ... H(k[s,K-1], beta[s,K-1])``, ``H(k, b) = I - b k k^T`` with
    unit vectors k (symbols, K, hidden) and beta (symbols, K).  No hidden x hidden matrix is
    formed: with ``A[s] = I - Y_s M_s Y_s^T`` (:func:`compact_wy`), a step is ``h - Y_s (M_s
    (Y_s^T h))``, for all rows at once as three GEMMs against every symbol's vectors (symbols x K
    columns, the other symbols' blocks masked to zero) while symbols x K <= :data:`WY_MAX_COLUMNS`,
    else K rank-one updates with each row's own vectors: O(K hidden) per row either way (times
    symbols for the GEMMs, which are what a CPU does fastest)."""

    k: torch.Tensor
    beta: torch.Tensor

    @property
    def n_symbols(self) -> int:
        return int(self.k.shape[0])

    def dense(self) -> torch.Tensor:
        S, K, d = self.k.shape
        A = torch.eye(d, dtype=self.k.dtype, device=self.k.device).expand(S, d, d)
        for j in range(K):
            H = torch.eye(d, dtype=self.k.dtype, device=self.k.device) - self.beta[:, j, None, None] * (
                self.k[:, j, :, None] * self.k[:, j, None, :])
            A = A @ H
        return A

    def _wy(self):
        """``(Yt, Zt)``, made once per transitions value, both (symbols x K, hidden) and
        contiguous: every symbol's vectors as rows, ``Yt = [k_{s,j}]``, and ``Zt = Mbd^T Yt``
        with ``Mbd`` the block-diagonal of the ``M_s^T`` (:func:`compact_wy`).  A step is
        ``h - ((h Zt^T) * mask) Yt``: the mask is constant on each symbol's K columns and
        ``Mbd`` is block-diagonal, so it commutes with the mask.  The layouts are the fast ones
        for the skinny GEMMs and their backward (about 4x faster than ``h @ Z`` with Z
        (hidden, symbols x K) contiguous, whose weight gradient is ``h^T dc``)."""
        cached = self.__dict__.get("_wy_cache")
        if cached is None:
            S, K, d = self.k.shape
            Yt = self.k.reshape(S * K, d)
            cached = (Yt, (compact_wy(self.k, self.beta) @ self.k).reshape(S * K, d))  # Mbd^T Yt, block by block
            object.__setattr__(self, "_wy_cache", cached)
        return cached

    def step(self, h, tok, counts=None):
        S, K, _ = self.k.shape
        if S * K <= WY_MAX_COLUMNS:
            Yt, Zt = self._wy()
            mask = (tok.unsqueeze(1) == torch.arange(S, device=tok.device)).to(h.dtype)  # (batch, S)
            mask = mask.repeat_interleave(K, dim=1) if K > 1 else mask  # (batch, S K)
            return h - ((h @ Zt.T) * mask) @ Yt
        k, beta = self.k[tok], self.beta[tok]  # (batch, K, hidden), (batch, K)
        for j in range(K - 1, -1, -1):  # the last factor acts first
            kj = k[:, j]
            h = h - (beta[:, j] * (kj * h).sum(-1)).unsqueeze(-1) * kj
        return h

    def fused(self, tokens, h0, normalize):
        return self.fused_logits(tokens, h0, normalize, None)

    def fused_logits(self, tokens, h0, normalize, readout):
        """The logits of the scan read out by ``readout``, or with ``readout=None`` its states
        (:meth:`fused`); None past :data:`WY_MAX_COLUMNS`."""
        S, K, _ = self.k.shape
        if S * K > WY_MAX_COLUMNS:
            return None
        Yt, Zt = self._wy()
        return _HouseholderScan.apply(tokens.T, h0, Yt, Zt, S, K, normalize, readout, self.rescale_every())

    def in_span(self, h0, readout):
        """The same read-out scan in the coordinates of an orthonormal basis ``Q`` (hidden, m) of
        ``U = span(h0, every k, every readout row)``, when 2 m <= hidden (else None): the
        transitions ``k Q``, ``h0 Q`` and the readout ``R Q``, at hidden m.  Each factor maps
        ``x`` to ``x - beta (k . x) k``, so it maps U into U, and every state lies in U.  The
        gradients lie in U as well: at the readout ``sum g_t y_t^T`` (y_t in U); at each state
        ``(R^T g - y (y . R^T g)) / |u|`` plus the transposed transitions (symmetric factors,
        taken in the reverse order) of later gradients, all in U; at a vector k of a factor
        applied to x with gradient g at its result, ``-beta ((g . k) x + (k . x) g)``, in U.  So
        the scan in coordinates, with ``Q`` held constant, has the same logits and, through
        ``k Q``, ``h0 Q`` and ``R Q``, the same gradients: the true gradient lies in U, and the
        coordinates' gradient is its projection onto U (the theorem "span coordinates" in
        docs/training.md, "The 2025 families' training step").  ``Q`` comes from a QR
        factorisation of the m = 1 + symbols x K + classes vectors (rank-deficient is fine: the
        m orthonormal columns span at least U), and Q is orthonormal, so the coordinates' norms
        are the states' norms.  A step then
        costs O(symbols K m) per row instead of O(symbols K hidden), and no (time, batch,
        hidden) tensor is made.

        >>> import torch
        >>> k = torch.nn.functional.normalize(torch.randn(2, 2, 64, dtype=torch.float64), dim=-1)
        >>> H = Householder(k, torch.full((2, 2), 1.5, dtype=torch.float64))
        >>> h0, R = torch.randn(64, dtype=torch.float64), torch.randn(3, 64, dtype=torch.float64)
        >>> Hc, h0c, Rc = H.in_span(h0, R)
        >>> Hc.k.shape, h0c.shape, Rc.shape  # 1 + 2 x 2 + 3 = 8 coordinates
        (torch.Size([2, 2, 8]), torch.Size([8]), torch.Size([3, 8]))
        >>> words = torch.tensor([[0, 1, 1, 0, 1]])
        >>> torch.allclose(sequential_scan(Hc, words, h0c, True, readout=Rc),
        ...                sequential_scan(H, words, h0, True, readout=R))
        True
        """
        S, K, d = self.k.shape
        m = 1 + S * K + readout.shape[0]
        if 2 * m > d or h0.shape != (d,) or readout.dim() != 2 or readout.shape[1] != d:
            return None  # (wrong shapes are reported by the scan itself)
        with torch.no_grad():
            basis = torch.cat([h0.detach().unsqueeze(0), self.k.detach().reshape(S * K, d), readout.detach()])
            Q = torch.linalg.qr(basis.T).Q  # (hidden, m), orthonormal columns
        return Householder(self.k @ Q, self.beta), h0 @ Q, readout @ Q

    def rescale_every(self) -> int:
        """How many steps the fused scan may run between two rescales of its carried state: the
        most n <= :data:`HOUSEHOLDER_RESCALE_EVERY` with ``c^n >= HOUSEHOLDER_MIN_CARRIED``,
        where ``c = min_s prod_j |1 - beta[s, j]|`` is a lower bound on every transition's
        smallest singular value (each factor ``I - beta k k^T`` is symmetric with eigenvalues 1 and
        ``1 - beta``, and the smallest singular value of a product is at least the product of
        theirs); 1 when some transition is singular (c = 0), as the per-step scan.

        >>> import torch
        >>> k = torch.ones(1, 1, 1)
        >>> Householder(k, torch.tensor([[2.0]])).rescale_every(), Householder(k, torch.tensor([[1.0]])).rescale_every()
        (8, 1)
        >>> Householder(k, torch.tensor([[1 - 1e-4]])).rescale_every()  # 1e-4 a step: 6 steps stay above 1e-25
        6
        """
        c = float(torch.prod((1 - self.beta.detach()).abs(), dim=1).min())
        if c >= 1.0:
            return HOUSEHOLDER_RESCALE_EVERY
        if c <= 0.0:
            return 1
        return max(1, min(HOUSEHOLDER_RESCALE_EVERY, int(math.log(HOUSEHOLDER_MIN_CARRIED) / math.log(c))))

    def elements(self, tokens):
        return self.dense()[tokens].unsqueeze(2)


class _MonomialStep(torch.autograd.Function):
    """``y[b, perm[b, j]] += D[b, j] h[b, j]`` (O(hidden) per row) with the straight-through
    gradient of the column-softmax ``soft`` (batch rows' symbols ``tok``): the backward treats
    the hard one-hot columns as ``soft``, so ``grad soft[s] = sum_b g_b (D_b h_b)^T``."""

    @staticmethod
    def forward(ctx, h, D, soft, perm, tok):
        Db, pb = D[tok], perm[tok]  # (batch, hidden)
        y = torch.zeros_like(h).scatter_add_(1, pb, Db * h)
        ctx.save_for_backward(h, D, perm, tok)
        ctx.n_soft = None if soft is None else soft.shape
        return y

    @staticmethod
    def backward(ctx, g):
        h, D, perm, tok = ctx.saved_tensors
        Db, pb = D[tok], perm[tok]
        gsel = torch.gather(g, 1, pb)  # (batch, hidden): g at each column's row
        grad_h = gsel * Db.conj()  # (conjugates: complex views, :class:`_MonomialScan`; real: no-op)
        grad_D = torch.zeros_like(D).index_add_(0, tok, gsel * h.conj())
        grad_soft = None
        if ctx.n_soft is not None:  # one GEMM per symbol: sum over its rows of g_b (D_b h_b)^T
            G, X = _real_columns(g), _real_columns(Db * h)
            grad_soft = torch.zeros(ctx.n_soft, dtype=G.dtype, device=g.device)
            for sym in range(ctx.n_soft[0]):
                rows = (tok == sym).nonzero().squeeze(1)
                if rows.numel():
                    grad_soft[sym] = _real_gram(G.index_select(0, rows), X.index_select(0, rows))
        return grad_h, grad_D, grad_soft, None, None


class _MonomialScan(torch.autograd.Function):
    """The whole monomial scan ``h_t[perm_s[j]] += D_s[j] h_{t-1}[j]`` (renormalised) as one
    autograd node: per step a gather of the row's ``D`` and ``perm`` and one scatter-add forward,
    one gather and a scale backward, O(hidden) per row.  With ``soft`` (symbols, hidden, hidden)
    given, its straight-through gradient ``grad soft[s] = sum_t sum_b g_{t,b} x_{t,b}^T`` (``g`` the
    gradient at ``h_t`` before renormalisation, ``x = D_s * h_{t-1}``: the gradient the dense
    ``P_s diag(D_s)`` with P replaced by soft would get) is formed once at the end, one GEMM per
    symbol over all its (step, row) pairs, instead of one (hidden x hidden) GEMM per symbol per
    step.  Inputs: tokens (time, batch), h0 (hidden,), D (symbols, hidden), soft or None, perm
    (symbols, hidden), whether to renormalise.

    The same node runs ``monomial,complex`` (:meth:`ComplexMonomial.fused`) on complex views:
    h0 (m,) and D (symbols, m) complex, the states complex.  Multiplication by a complex ``c`` is
    the real block ``[[a, -b], [b, a]]``, whose transpose is multiplication by ``conj(c)``, so the
    backward takes conjugates where the real form takes the numbers themselves (a no-op for real
    tensors), and the gradient of ``soft`` is the real part of ``g x^*``."""

    @staticmethod
    def forward(ctx, tokT, h0, D, soft, perm, normalize):
        T, Bt = tokT.shape
        H = h0.new_empty(T, Bt, h0.shape[-1])
        N = h0.new_empty(T, Bt, 1, dtype=h0.real.dtype) if normalize else None
        h = h0.expand(Bt, -1)
        for t in range(T):
            tok = tokT[t]
            h = H[t].zero_().scatter_add_(1, perm.index_select(0, tok), D.index_select(0, tok) * h)
            _unit_rows_(h, None if N is None else N[t])
        ctx.has_soft = soft is not None
        ctx.save_for_backward(tokT, h0, D, perm, H, N)
        return H

    @staticmethod
    def backward(ctx, gH):
        tokT, h0, D, perm, H, N = ctx.saved_tensors
        T, Bt, d = H.shape
        want_soft = ctx.has_soft and ctx.needs_input_grad[3]
        GS = torch.empty_like(H)  # the gradient at x_t = D h_{t-1}, by column
        GU = torch.empty_like(H) if want_soft else None
        g = gH[T - 1].clone()
        gu = torch.empty_like(g)
        for t in range(T - 1, -1, -1):
            if GU is not None:
                gu = GU[t]
            _unit_rows_grad(g, H[t], None if N is None else N[t], gu)
            tok = tokT[t]
            gsel = torch.gather(gu, 1, perm.index_select(0, tok), out=GS[t])
            torch.mul(gsel, D.index_select(0, tok).conj(), out=g)  # the gradient at h_{t-1}
            if t:
                g.add_(gH[t - 1])
        grad_h0 = g.sum(0) if ctx.needs_input_grad[1] else None
        flat = tokT.reshape(-1)
        grad_D = grad_soft = None
        if ctx.needs_input_grad[2] or want_soft:
            prev = torch.empty_like(H)  # h_{t-1} for every step (one copy of the states)
            prev[0] = h0
            prev[1:] = H[:-1]
            prev = prev.reshape(T * Bt, d)
            if ctx.needs_input_grad[2]:
                grad_D = torch.zeros_like(D).index_add_(0, flat, GS.reshape(T * Bt, d) * prev.conj())
            if want_soft:
                assert GU is not None  # made above when the soft gradient is wanted
                X = prev.mul_(D.index_select(0, flat))  # x = D_s h_{t-1} (prev is not read again)
                order = torch.argsort(flat, stable=True)
                counts = torch.bincount(flat, minlength=D.shape[0]).tolist()
                Gs = _real_columns(GU.reshape(T * Bt, d).index_select(0, order)).split(counts)
                Xs = _real_columns(X.index_select(0, order)).split(counts)
                zero = GU.new_zeros(d, d, dtype=GU.real.dtype)
                grad_soft = torch.stack([_real_gram(g_, x_) if n else zero for g_, x_, n in zip(Gs, Xs, counts)])
        return None, grad_h0, grad_D, grad_soft, None, None


def _real_columns(X: torch.Tensor) -> torch.Tensor:
    """Rows (n, d) of real numbers as they are; of complex numbers as (n, d, 2), their real pairs."""
    return torch.view_as_real(X) if X.is_complex() else X


def _real_gram(G: torch.Tensor, X: torch.Tensor) -> torch.Tensor:
    """``sum_b G_b X_b^T`` (d, d) over the rows of :func:`_real_columns`: for complex rows the sum
    of both real parts, ``Re(sum_b G_b X_b^*)``."""
    if G.dim() == 2:
        return G.T @ X
    d = G.shape[1]
    return G.transpose(0, 1).reshape(d, -1) @ X.transpose(0, 1).reshape(d, -1).T


@dataclass(frozen=True, eq=False)
class Monomial(Transitions):
    """``A[s] = P_s diag(D[s])`` with ``P_s`` column one-hot: ``perm`` (symbols, hidden) the row of
    each column, ``D`` (symbols, hidden); ``soft`` (symbols, hidden, hidden) the column-softmax
    whose straight-through gradient trains the selection (PD-SSM), or None.  A step is one
    scatter, O(hidden) per row."""

    perm: torch.Tensor
    D: torch.Tensor
    soft: torch.Tensor | None = None

    @property
    def n_symbols(self) -> int:
        return int(self.D.shape[0])

    def dense(self) -> torch.Tensor:
        S, d = self.D.shape
        A = torch.zeros(S, d, d, dtype=self.D.dtype, device=self.D.device)
        A = A.scatter(1, self.perm.unsqueeze(1), self.D.unsqueeze(1))
        if self.soft is not None and torch.is_grad_enabled():  # straight through: value hard, gradient soft
            A = A + (self.soft - self.soft.detach()) * self.D.detach().unsqueeze(1)
        return A

    def step(self, h, tok, counts=None):
        return _MonomialStep.apply(h, self.D, self.soft, self.perm, tok)

    def fused(self, tokens, h0, normalize):
        return _MonomialScan.apply(tokens.T, h0, self.D, self.soft, self.perm, normalize)

    def elements(self, tokens):
        return self.dense()[tokens].unsqueeze(2)


def _cx(x: torch.Tensor) -> torch.Tensor:
    """The complex view (..., m) of a real (..., 2m) tensor with interleaved (re, im) pairs."""
    return torch.view_as_complex(x.reshape(*x.shape[:-1], x.shape[-1] // 2, 2))


@dataclass(frozen=True, eq=False)
class ComplexMonomial(Transitions):
    """``monomial,complex``: hidden/2 complex coordinates ``z_j = (h[2j], h[2j+1])``; symbol s
    sends ``z_j`` to coordinate ``perm[s, j]`` times ``a + i b`` with ``(a, b) = (D[s, 2j],
    D[s, 2j+1])`` (the real block ``[[a, -b], [b, a]]``).  ``perm`` (symbols, hidden/2), ``D``
    (symbols, hidden), ``soft`` (symbols, hidden/2, hidden/2) the column-softmax over coordinates
    whose straight-through gradient trains the selection, or None.  The whole scan is
    :class:`_MonomialScan` on complex views (:meth:`fused`): per step one complex product and one
    scatter, O(hidden) per row, the selection's gradient once at the end; the per-step
    :meth:`step` (the additive ablation's path) is :class:`_MonomialStep` on the same views."""

    perm: torch.Tensor
    D: torch.Tensor
    soft: torch.Tensor | None = None

    @property
    def n_symbols(self) -> int:
        return int(self.D.shape[0])

    def _rot(self, D: torch.Tensor) -> torch.Tensor:
        a, b = D[..., 0::2], D[..., 1::2]
        return torch.stack([torch.stack([a, -b], -1), torch.stack([b, a], -1)], -2)  # (..., m, 2, 2)

    def dense(self) -> torch.Tensor:
        S, d = self.D.shape
        m = d // 2
        onehot = torch.nn.functional.one_hot(self.perm, m).transpose(1, 2).to(self.D.dtype)  # [s, row i, column j]
        A = torch.einsum("sij,sjrc->sirjc", onehot, self._rot(self.D))
        if self.soft is not None and torch.is_grad_enabled():  # straight through: value hard, gradient soft
            A = A + torch.einsum("sij,sjrc->sirjc", self.soft - self.soft.detach(), self._rot(self.D.detach()))
        return A.reshape(S, d, d)

    def step(self, h, tok, counts=None):
        """:class:`_MonomialStep` on the complex views of h and D; the state back as real pairs."""
        return torch.view_as_real(_MonomialStep.apply(_cx(h), _cx(self.D), self.soft, self.perm, tok)).flatten(-2)

    def fused(self, tokens, h0, normalize):
        """:class:`_MonomialScan` on the complex views of h0 and D; the states back as real pairs."""
        H = _MonomialScan.apply(tokens.T, _cx(h0), _cx(self.D), self.soft, self.perm, normalize)
        return torch.view_as_real(H).reshape(*H.shape[:-1], -1)

    def elements(self, tokens):
        return self.dense()[tokens].unsqueeze(2)


class _LowRankScan(torch.autograd.Function):
    """The whole diagonal-plus-low-rank scan ``u_t = D_s * h_{t-1} + U_s (W_s^T h_{t-1})``,
    ``h_t = u_t / |u_t|`` (or ``h_t = u_t`` without renormalisation) as one autograd node: per
    step one gather of the rows' diagonals and two skinny GEMMs against every symbol's R columns
    (the other symbols' columns masked to zero, as in :class:`_HouseholderScan`), forward and
    backward, O(symbols R hidden) per row; the weight gradients are one GEMM each over all steps
    at the end.  Inputs: tokens (time, batch), h0 (hidden,) or (batch, hidden) without autograd,
    D (symbols, hidden), Ut and Wt (symbols x R, hidden) with row ``s R + r`` the column r of
    ``U_s`` and of ``W_s``, the symbol count, R, and whether to renormalise.  A sum of a diagonal
    and a low-rank matrix has no norm bound, so the state is renormalised at every step."""

    @staticmethod
    def forward(ctx, tokT, h0, D, Ut, Wt, S, R, normalize):
        T, Bt = tokT.shape
        mask = (tokT.unsqueeze(-1) == torch.arange(S, device=tokT.device)).to(h0.dtype)  # (T, B, S)
        mask = mask.repeat_interleave(R, dim=-1) if R > 1 else mask  # (T, B, S R)
        H = h0.new_empty(T, Bt, h0.shape[-1])
        C = h0.new_empty(T, Bt, S * R)
        N = h0.new_empty(T, Bt, 1) if normalize else None
        WT = Wt.T
        h = h0.expand(Bt, -1)
        for t in range(T):
            c = torch.mm(h, WT, out=C[t]).mul_(mask[t])
            h = torch.mm(c, Ut, out=H[t]).addcmul_(h, D.index_select(0, tokT[t]))
            _unit_rows_(h, None if N is None else N[t])
        ctx.save_for_backward(tokT, h0, D, Ut, Wt, mask, H, C, N)
        return H

    @staticmethod
    def backward(ctx, gH):
        tokT, h0, D, Ut, Wt, mask, H, C, N = ctx.saved_tensors
        T, Bt, d = H.shape
        GU = torch.empty_like(H)  # the gradient at each step's u_t (before renormalisation)
        GC = torch.empty_like(C)  # the gradient at each step's masked projections
        UT = Ut.T
        g = None  # the gradient at h_t from the steps after t
        for t in range(T - 1, -1, -1):
            gh = gH[t] if g is None else gH[t] + g
            gu = _unit_rows_grad(gh, H[t], None if N is None else N[t], GU[t])
            gc = torch.mm(gu, UT, out=GC[t]).mul_(mask[t])
            g = torch.addmm(gu * D.index_select(0, tokT[t]), gc, Wt)  # the gradient at h_{t-1}
        assert g is not None  # T >= 1: the scan returns early for empty words
        grad_h0 = g.sum(0) if ctx.needs_input_grad[1] else None
        grad_D = grad_Ut = grad_Wt = None
        if ctx.needs_input_grad[2]:  # sum over the rows of each symbol of gu * h_{t-1}
            grad_D = torch.zeros_like(D).index_add_(0, tokT[0], GU[0] * h0)
            if T > 1:
                grad_D.index_add_(0, tokT[1:].reshape(-1), (GU[1:] * H[:-1]).reshape((T - 1) * Bt, d))
        if ctx.needs_input_grad[3]:
            grad_Ut = C.view(T * Bt, -1).T @ GU.view(T * Bt, d)
        if ctx.needs_input_grad[4]:
            grad_Wt = _previous_states_product(GC, H, h0)
        return None, grad_h0, grad_D, grad_Ut, grad_Wt, None, None, None


@dataclass(frozen=True, eq=False)
class LowRank(Transitions):
    """``A[s] = diag(D[s]) + U[s] W[s]^T``: D (symbols, hidden), U, W (symbols, hidden, R); a step
    is O(R hidden) per row (the fused scan :class:`_LowRankScan` while symbols x R is at most
    :data:`WY_MAX_COLUMNS`, O(symbols R hidden) in GEMMs; past it, each row's own columns are
    gathered)."""

    D: torch.Tensor
    U: torch.Tensor
    W: torch.Tensor

    @property
    def n_symbols(self) -> int:
        return int(self.D.shape[0])

    def dense(self) -> torch.Tensor:
        return torch.diag_embed(self.D) + self.U @ self.W.transpose(1, 2)

    def step(self, h, tok, counts=None):
        low = torch.einsum("bir,br->bi", self.U[tok], torch.einsum("bjr,bj->br", self.W[tok], h))
        return h * self.D[tok] + low

    def _columns(self):
        """``(Ut, Wt)``, both (symbols x R, hidden), contiguous, made once per transitions value:
        row ``s R + r`` is column r of ``U_s`` and of ``W_s``."""
        cached = self.__dict__.get("_columns_cache")
        if cached is None:
            S, d, R = self.U.shape
            cached = tuple(x.transpose(1, 2).reshape(S * R, d) for x in (self.U, self.W))
            object.__setattr__(self, "_columns_cache", cached)
        return cached

    def fused(self, tokens, h0, normalize):
        S, _, R = self.U.shape
        if S * R > WY_MAX_COLUMNS:
            return None
        Ut, Wt = self._columns()
        return _LowRankScan.apply(tokens.T, h0, self.D, Ut, Wt, S, R, normalize)

    def elements(self, tokens):
        return self.dense()[tokens].unsqueeze(2)


# ------------------------------------------------------------------------------------------
# sequential scan
# ------------------------------------------------------------------------------------------
def _stable_order(tk: torch.Tensor, n_symbols: int) -> torch.Tensor:
    """Each row of tokens (time, batch) sorted stably by token: the indices (time, batch).  On
    CPU with at most 2^16 symbols this is numpy's stable sort of uint8 or uint16 keys, a radix
    sort (linear time), about ten times faster than ``torch.argsort(stable=True)`` (measured at
    500 x 256, ten symbols: 0.27 against 2.9 ms); elsewhere it is torch's.  A stable sort has
    one result, so both give the same indices."""
    if tk.device.type == "cpu" and n_symbols <= 2**16:
        keys = tk.numpy().astype(np.uint8 if n_symbols <= 2**8 else np.uint16)
        return torch.from_numpy(np.argsort(keys, axis=1, kind="stable").astype(np.int64, copy=False))
    return torch.argsort(tk, dim=1, stable=True)


@dataclass(frozen=True, eq=False)
class GroupPlan:
    """Rows grouped by token at every step, computed once for a batch of words.

    ``order[t]`` (time, batch): the stable sort of the rows by their token at step t;
    ``relink[t]``: where row j of step t's sorted order sits in step t-1's sorted order;
    ``inverse[t]``: where original row b sits in step t's sorted order; ``counts[t][s]``: rows
    with symbol s at step t; ``sorted_tokens`` (time, batch).
    """

    order: torch.Tensor
    relink: torch.Tensor
    inverse: torch.Tensor
    counts: list
    sorted_tokens: torch.Tensor

    @classmethod
    def build(cls, tokens: torch.Tensor, n_symbols: int) -> "GroupPlan":
        """Plan for tokens (batch, time).

        >>> p = GroupPlan.build(torch.tensor([[1, 0], [0, 0], [1, 1]]), 2)
        >>> p.order.tolist(), p.counts
        ([[1, 0, 2], [0, 1, 2]], [[1, 2], [2, 1]])
        """
        tk = tokens.T.contiguous()  # (time, batch)
        time, batch = tk.shape
        order = _stable_order(tk, n_symbols)  # (time, batch)
        # the inverse permutation by one scatter (a second argsort costs 30 times more)
        rows = torch.arange(batch, device=tk.device).expand(time, batch)
        inverse = torch.empty_like(order).scatter_(1, order, rows)  # (time, batch)
        relink = torch.zeros_like(order)
        if time > 1:
            relink[1:] = torch.gather(inverse[:-1], 1, order[1:])
        per_step = torch.zeros(time, n_symbols, dtype=torch.long, device=tk.device)
        counts = per_step.scatter_add_(1, tk, torch.ones_like(tk)).tolist()  # (time, symbols)
        sorted_tokens = torch.gather(tk, 1, order)
        return cls(order, relink, inverse, counts, sorted_tokens)

    def padded_slots(self) -> tuple:
        """Per step, the padded slot of each sorted row (:meth:`Dense._padded_step`): row j with
        symbol s goes to ``s * max(counts[t]) + j - (rows before symbol s)``.  Integer arithmetic
        for all steps in a few operations, where each step made its own in eight."""
        slots = self.__dict__.get("_slots")
        if slots is None:
            time, batch = self.sorted_tokens.shape
            n = torch.tensor(self.counts, device=self.sorted_tokens.device)  # (time, symbols)
            widest = n.max(1, keepdim=True).values
            starts = torch.cumsum(n, 1) - n
            rank = torch.arange(batch, device=n.device) - torch.gather(starts, 1, self.sorted_tokens)
            slots = (self.sorted_tokens * widest + rank).unbind(0)
            object.__setattr__(self, "_slots", slots)
        return slots

    def unsort(self, Y: torch.Tensor) -> torch.Tensor:
        """Rows of Y (time, batch, ...) from each step's sorted order back to the words' order,
        as (batch, time, ...): one ``index_select`` of whole rows over the flattened (time x
        batch) axis (a ``gather`` with the index expanded over the last axis costs 2-3 times
        more); a pure copy of values."""
        time, batch = self.inverse.shape
        return Y.reshape(time * batch, *Y.shape[2:]).index_select(0, self._flat()).view(Y.shape).transpose(0, 1)

    def unsort_columns(self, YT: torch.Tensor) -> torch.Tensor:
        """Logits stored transposed, (classes, time x batch) with the columns in each step's
        sorted order, as (batch, time, classes) in the words' order: one ``index_select`` of
        columns (contiguous rows of ``time x batch``), a pure copy of values."""
        time, batch = self.inverse.shape
        return YT.index_select(1, self._flat()).view(-1, time, batch).permute(2, 1, 0)

    def _flat(self) -> torch.Tensor:
        """The flattened (time x batch) position of each step's sorted row, made once."""
        flat = self.__dict__.get("_flat_index")
        if flat is None:
            time, batch = self.inverse.shape
            step = torch.arange(0, time * batch, batch, device=self.inverse.device).unsqueeze(1)
            flat = (self.inverse + step).reshape(-1)
            object.__setattr__(self, "_flat_index", flat)
        return flat


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

"""The per-symbol transitions of every bilinear variant, one :class:`Transitions` value each.

A variant (a *cell*) supplies its transitions as one of :class:`Dense`, :class:`Block`,
:class:`Diagonal`, :class:`Rotation`, :class:`Factorized`, :class:`Householder`,
:class:`Monomial`, :class:`ComplexMonomial` or :class:`LowRank`: a step ``h A[x_t]^T`` for a batch
of rows, the dense matrices, and (for the structured kinds) a fused scan through one autograd node
(learned/autograd_scans.py).  The scans that run them are in learned/scan.py, which re-exports
every public name here.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch


from .autograd_scans import (HOUSEHOLDER_MIN_CARRIED, HOUSEHOLDER_RESCALE_EVERY, _HouseholderScan, _LowRankScan,
                             _MonomialScan, _MonomialStep)

__all__ = ["Transitions", "Dense", "Block", "Diagonal", "ComplexMonomial", "Rotation", "Factorized", "Householder",
           "compact_wy", "WY_MAX_COLUMNS", "Monomial", "LowRank", "SMALL_HIDDEN", "padded_step_wanted"]


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
        >>> from bilinear.learned.scan import sequential_scan
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

"""The structured kinds' scans as hand-written autograd nodes: a whole Householder, monomial or
diagonal-plus-low-rank scan is one :class:`torch.autograd.Function` whose backward runs the steps
in reverse, O(hidden) or O(K hidden) per row and step, instead of autograd's graph of every step.

The kinds that call them are in learned/transitions.py.
"""

from __future__ import annotations

import torch

#: The scans' zero guard: a row norm is clamped at this before a division.
_TINY = 1e-30


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

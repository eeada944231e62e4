"""Bilinear RNNs: one module for every transition variant, sharing one scan and one readout.

``h_t = A(x_t) h_{t-1}``, ``A(x) = sum_k x_k W_k`` with ``x`` the token one-hot (``embed=None``)
or a learned embedding ``E[:, sigma]`` in ``embed`` dimensions, and a bias-free readout
``logits_t = R h_t``.  The variant (a spec string, parsed by
:func:`bilinear.constructions.weights.parse_variant`) fixes the structure of ``W_k``:

=================  ===================================================  =======================
variant            per-token transition                                  learned tensor (D = tokens)
=================  ===================================================  =======================
``full``           dense                                                 W (D, hidden, hidden)
``factorized:R``   ``U diag(C^T x) W^T``                                 U, W (hidden, R), C (D, R)
``block:B``        block-diagonal, B x B blocks                          (D, hidden/B, B, B)
``rotation2d``     2x2 scaled rotations ``[[a, -b], [b, a]]``            a, b (D, hidden/2)
``diagonal``       real diagonal                                         (D, hidden)
``positive``       ``diag(exp(theta^T x))`` (positive, Mamba-like)       theta (D, hidden)
=================  ===================================================  =======================

``additive=True`` is the ablation ``h_t = A(x_t) h_{t-1} + B x_t + b``; it is not a bilinear
model (not scale-invariant), so it is never renormalised and has no :meth:`BilinearRNN.to_weights`.

>>> import torch
>>> m = BilinearRNN(n_symbols=2, n_classes=2, hidden=4, variant="block:2", seed=0)
>>> m(torch.tensor([[0, 1, 1]])).shape
torch.Size([1, 3, 2])
>>> w = m.to_weights()
>>> w.variant, w.dim, w.n_symbols, w.n_classes
('block:2', 4, 2, 2)
"""

from __future__ import annotations

import math

import numpy as np
import torch
from torch import nn

from bilinear.constructions.weights import Variant, Weights, parse_variant
from bilinear.errors import ConfigError, SpecError

from .scan import SCANS, Block, Dense, Diagonal, Factorized, Rotation, Transitions, scan

__all__ = ["BilinearRNN", "INITS", "check_variant"]

#: Initialisations of the transition tensors: random orthogonal (rotations), or identity plus noise.
INITS = ("orthogonal", "identity")


def check_variant(variant: "str | Variant", hidden: int) -> Variant:
    """Parse ``variant`` and check it fits ``hidden``; ConfigError otherwise.

    >>> check_variant("block:3", 6).spec
    'block:3'
    >>> check_variant("block:4", 6)
    Traceback (most recent call last):
    ...
    bilinear.errors.ConfigError: hidden size 6 is not divisible by the block size 4 of variant 'block:4'
    """
    try:
        v = parse_variant(variant)
    except SpecError as exc:
        raise ConfigError(str(exc)) from None
    if isinstance(hidden, bool) or not isinstance(hidden, int) or hidden < 1:
        raise ConfigError(f"hidden size must be a positive integer, got {hidden!r}")
    if v.kind == "block" and hidden % v.param:
        raise ConfigError(
            f"hidden size {hidden} is not divisible by the block size {v.param} of variant {v.spec!r}"
        )
    if v.kind == "rotation2d" and hidden % 2:
        raise ConfigError(f"hidden size {hidden} is odd; variant 'rotation2d' needs 2x2 blocks")
    return v


def _orthogonal(gen: torch.Generator, *shape: int) -> torch.Tensor:
    """Random orthogonal matrices of shape (..., n, n) (QR of a Gaussian, sign-fixed)."""
    n = shape[-1]
    g = torch.randn(*shape, generator=gen)
    q, r = torch.linalg.qr(g)
    d = torch.sign(torch.diagonal(r, dim1=-2, dim2=-1))
    d[d == 0] = 1
    return q * d.unsqueeze(-2)


class BilinearRNN(nn.Module):
    """A bilinear RNN of one variant (see the module docstring).

    Parameters
    ----------
    n_symbols, n_classes, hidden:
        Alphabet size, number of classes, hidden size d.
    variant:
        Variant spec string (``full``, ``factorized:R``, ``block:B``, ``rotation2d``,
        ``diagonal``, ``positive``).
    embed:
        ``None`` for one-hot tokens, else the embedding size D.
    additive:
        Add ``B x_t + b`` (the ablation; not bilinear).
    normalize_train:
        Renormalise h at every step in training mode too (always done in evaluation mode).
    init:
        ``orthogonal`` (default) or ``identity`` (identity plus noise of scale ``init_noise``).
    seed:
        Seed of the initialisation (a private generator; global RNG untouched).
    scan:
        ``auto`` (parallel on CUDA, sequential on CPU), ``sequential`` or ``parallel``.
    """

    def __init__(
        self,
        n_symbols: int,
        n_classes: int,
        hidden: int,
        variant: "str | Variant" = "full",
        embed: int | None = None,
        additive: bool = False,
        normalize_train: bool = True,
        init: str = "orthogonal",
        init_noise: float = 0.1,
        seed: int = 0,
        scan: str = "auto",
    ):
        super().__init__()
        v = check_variant(variant, hidden)
        for name, value in (("n_symbols", n_symbols), ("n_classes", n_classes)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ConfigError(f"{name} must be a positive integer, got {value!r}")
        if embed is not None and (isinstance(embed, bool) or not isinstance(embed, int) or embed < 1):
            raise ConfigError(f"embedding size must be a positive integer or None, got {embed!r}")
        if init not in INITS:
            raise ConfigError(f"unknown init {init!r} (known: {', '.join(INITS)})")
        if scan not in SCANS:
            raise ConfigError(f"unknown scan {scan!r} (known: {', '.join(SCANS)})")
        self.variant = v
        self.n_symbols, self.n_classes, self.hidden = n_symbols, n_classes, hidden
        self.embed_dim = embed
        self.additive = bool(additive)
        self.normalize_train = bool(normalize_train) and not self.additive
        self.scan_method = scan
        gen = torch.Generator().manual_seed(int(seed))
        D = n_symbols if embed is None else embed
        d = hidden
        identity = init == "identity"

        def noise(*shape):
            return init_noise * torch.randn(*shape, generator=gen) / math.sqrt(max(shape[-1], 1))

        if embed is not None:
            # each symbol's embedding has unit norm so A(x) keeps the scale of one W_k
            E = torch.randn(embed, n_symbols, generator=gen)
            self.E = nn.Parameter(E / E.norm(dim=0, keepdim=True))
        else:
            self.register_parameter("E", None)
        kind = v.kind
        if kind == "full":
            W = torch.eye(d).expand(D, d, d) + noise(D, d, d) if identity else _orthogonal(gen, D, d, d)
            self.W = nn.Parameter(W.clone())
        elif kind == "block":
            B = v.param
            nb = d // B
            W = torch.eye(B).expand(D, nb, B, B) + noise(D, nb, B, B) if identity else _orthogonal(gen, D, nb, B, B)
            self.W = nn.Parameter(W.clone())
        elif kind == "factorized":
            R = v.param
            self.U = nn.Parameter(torch.randn(d, R, generator=gen) / math.sqrt(R))
            self.Wf = nn.Parameter(torch.randn(d, R, generator=gen) / math.sqrt(d))
            self.C = nn.Parameter(1.0 + init_noise * torch.randn(D, R, generator=gen) if identity else torch.randn(D, R, generator=gen))
        elif kind == "rotation2d":
            if identity:
                angle = init_noise * torch.randn(D, d // 2, generator=gen)
            else:
                angle = 2 * math.pi * torch.rand(D, d // 2, generator=gen)
            self.ra = nn.Parameter(torch.cos(angle))
            self.rb = nn.Parameter(torch.sin(angle))
        elif kind == "diagonal":
            if identity:
                self.W = nn.Parameter(1.0 + init_noise * torch.randn(D, d, generator=gen))
            else:
                self.W = nn.Parameter(2 * torch.rand(D, d, generator=gen) - 1)
        elif kind == "positive":
            self.W = nn.Parameter(init_noise * torch.randn(D, d, generator=gen))
        else:  # pragma: no cover - parse_variant knows no other kinds
            raise ConfigError(f"unknown variant {v.spec!r}")
        h0 = torch.randn(d, generator=gen)
        self.h0 = nn.Parameter(h0 / h0.norm())
        self.readout = nn.Linear(d, n_classes, bias=False)
        with torch.no_grad():
            self.readout.weight.copy_(torch.randn(n_classes, d, generator=gen) / math.sqrt(d))
        if self.additive:
            self.Badd = nn.Parameter(noise(D, d))
            self.badd = nn.Parameter(torch.zeros(d))

    # --- transitions ---------------------------------------------------------------------
    def _per_symbol(self, P: torch.Tensor) -> torch.Tensor:
        """Contract the token axis (D, ...) with the embedding: (symbols, ...)."""
        if self.E is None:
            return P
        return torch.tensordot(self.E.T, P, dims=1)

    def transitions(self) -> Transitions:
        """The per-symbol transitions of the current parameters."""
        kind = self.variant.kind
        if kind == "full":
            return Dense(self._per_symbol(self.W))
        if kind == "block":
            return Block(self._per_symbol(self.W))
        if kind == "factorized":
            return Factorized(self.U, self._per_symbol(self.C), self.Wf)
        if kind == "rotation2d":
            return Rotation(self._per_symbol(self.ra), self._per_symbol(self.rb))
        if kind == "diagonal":
            return Diagonal(self._per_symbol(self.W))
        return Diagonal(torch.exp(self._per_symbol(self.W)))  # positive

    def additive_table(self) -> torch.Tensor | None:
        """``B x + b`` for every symbol (symbols, hidden), or None for a bilinear model."""
        if not self.additive:
            return None
        return self._per_symbol(self.Badd) + self.badd

    # --- forward -------------------------------------------------------------------------
    def states(self, words: torch.Tensor, normalize: bool | None = None, method: str | None = None,
               readout: bool = False) -> torch.Tensor:
        """Hidden states (batch, time, hidden) after each token of words (batch, time); with
        ``readout`` the logits (batch, time, classes)."""
        if normalize is None:
            normalize = (self.normalize_train if self.training else True) and not self.additive
        if normalize and self.additive:
            raise ConfigError("the additive ablation is affine and cannot be renormalised")
        return scan(
            self.transitions(),
            words,
            self.h0,
            normalize=normalize,
            add=self.additive_table(),
            method=method or self.scan_method,
            readout=self.readout.weight if readout else None,
        )

    def forward(self, words: torch.Tensor, normalize: bool | None = None, method: str | None = None) -> torch.Tensor:
        """Logits (batch, time, classes) of the prefix ending at each position."""
        return self.states(words, normalize=normalize, method=method, readout=True)

    # --- export --------------------------------------------------------------------------
    def to_weights(self) -> Weights:
        """The float :class:`~bilinear.constructions.weights.Weights` of this network.

        Per-symbol matrices ``A_sigma = sum_k E[k, sigma] W_k`` (one-hot: ``W_sigma``), the
        learned ``h0`` and the readout, in float64.  ConfigError for the additive ablation.
        """
        if self.additive:
            raise ConfigError("the additive ablation (B x_t + b) is not a bilinear model and has no Weights")
        with torch.no_grad():
            trans = self.transitions()
            h0 = self.h0.detach().double().cpu().numpy()
            readout = self.readout.weight.detach().double().cpu().numpy()
            if isinstance(trans, Factorized):
                U, C, W = (x.detach().double().cpu().numpy() for x in (trans.U, trans.C, trans.W))
                A = np.einsum("ir,sr,jr->sij", U, C, W)
                return Weights(self.variant.spec, A, h0, readout, factors=(U, C, W))
            A = trans.dense().detach().double().cpu().numpy()
            return Weights(self.variant.spec, A, h0, readout)

    @classmethod
    def from_weights(cls, weights: Weights, dtype: torch.dtype = torch.float64, **options) -> "BilinearRNN":
        """A one-hot model carrying ``weights`` (exact ones are rounded): the inverse of
        :meth:`to_weights`, so a hand construction runs on the fast scan (or initialises training).

        >>> w = Weights("diagonal", A=[[[-1]], [[1]]], h0=[1], readout=[[1], [-1]])  # symbol 0 flips
        >>> m = BilinearRNN.from_weights(w)
        >>> m(torch.tensor([[1, 0, 0, 1, 0]])).argmax(-1).tolist()  # parity of the number of 0s
        [[0, 1, 0, 0, 1]]
        """
        if not isinstance(weights, Weights):
            raise ConfigError(f"from_weights needs a Weights value, got {type(weights).__name__}")
        v = weights.variant_info
        A, h0, R = weights.float_arrays()
        model = cls(weights.n_symbols, weights.n_classes, weights.dim, v.spec, **options).to(dtype)
        t = lambda x: torch.tensor(np.array(x, dtype=np.float64), dtype=dtype)  # noqa: E731
        d = weights.dim
        with torch.no_grad():
            if v.kind == "full":
                model.W.copy_(t(A))
            elif v.kind == "block":
                B = v.param
                blocks = np.stack([[A[s, i : i + B, i : i + B] for i in range(0, d, B)] for s in range(A.shape[0])])
                model.W.copy_(t(blocks))
            elif v.kind == "factorized":
                U, C, W = (np.asarray(f, dtype=np.float64) for f in weights.to_float().factors)
                model.U.copy_(t(U))
                model.C.copy_(t(C))
                model.Wf.copy_(t(W))
            elif v.kind == "rotation2d":
                model.ra.copy_(t(A[:, 0::2, 0::2].diagonal(axis1=1, axis2=2)))
                model.rb.copy_(t(A[:, 1::2, 0::2].diagonal(axis1=1, axis2=2)))
            elif v.kind == "diagonal":
                model.W.copy_(t(A.diagonal(axis1=1, axis2=2)))
            else:  # positive
                model.W.copy_(t(np.log(A.diagonal(axis1=1, axis2=2))))
            model.h0.copy_(t(h0))
            model.readout.weight.copy_(t(R))
        return model.eval()

    def extra_repr(self) -> str:
        return (
            f"variant={self.variant.spec}, symbols={self.n_symbols}, classes={self.n_classes}, "
            f"hidden={self.hidden}, embed={self.embed_dim}, additive={self.additive}"
        )

"""Bilinear RNNs: one module for every transition variant, sharing one scan and one readout.

``h_t = A(x_t) h_{t-1}``, ``A(x) = sum_k x_k W_k`` with ``x`` the token one-hot (``embed=None``)
or a learned embedding ``E[:, sigma]`` in ``embed`` dimensions, and a bias-free readout
``logits_t = R h_t``.  The variant (a spec string, parsed by
:func:`bilinear.constructions.values.weights.parse_variant`) fixes the structure of ``W_k``:

=================  ===================================================  =======================
variant            per-token transition                                  learned tensor (D = tokens)
=================  ===================================================  =======================
``full``           dense                                                 W (D, hidden, hidden)
``factorized:R``   ``U diag(C^T x) W^T``                                 U, W (hidden, R), C (D, R)
``block:B``        block-diagonal, B x B blocks                          (D, hidden/B, B, B)
``rotation2d``     2x2 scaled rotations ``[[a, -b], [b, a]]``            a, b (D, hidden/2)
``diagonal``       real diagonal                                         (D, hidden)
``positive``       ``diag(exp(theta^T x))`` (positive, Mamba-like)       theta (D, hidden)
``householder:K``  ``prod_j (I - beta_j k_j k_j^T)``, k unit,             Vk (D, K, hidden),
                   beta = 2 sigmoid (``nonneg``: sigmoid) (DeltaProduct)  Vb (D, K)
``monomial``       ``P diag(d)``, P = hard column argmax of logits,       Pl (D, hidden, hidden),
                   straight-through softmax gradient (PD-SSM)             Dm (D, hidden)
``monomial,``      ``P diag(z)`` on hidden/2 complex coordinates, z      Pl (D, hidden/2, hidden/2),
``complex``        complex as 2x2 blocks ``[[a, -b], [b, a]]`` (PD-SSM)   Dm (D, hidden)
``dplr:R``         ``diag(d) + U W^T`` (RWKV-7-like)                      Dd (D, hidden),
                                                                          Ul, Wl (D, hidden, R)
=================  ===================================================  =======================

Each row is one :class:`LearnedVariant` in :data:`LEARNED_VARIANTS` (parameters and their
initialisation, the transitions the scan runs, the parameters that carry a given
:class:`~bilinear.constructions.values.weights.Weights`, the export); :class:`BilinearRNN` only looks its
variant up there, so a new variant is one entry.

``additive=True`` is the ablation ``h_t = A(x_t) h_{t-1} + B x_t + b``; it is not a bilinear
model (not scale-invariant) and has no :meth:`BilinearRNN.to_weights`.  By default it is
renormalised at every step as the bilinear models are (``h_t`` divided by its norm after the
affine step), so the ablation changes one thing; ``additive_renorm=False`` is the older form,
never renormalised, which changes two.

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
from dataclasses import dataclass
from typing import Any, Callable, cast

import numpy as np
import torch
from torch import nn

from bilinear.argtypes import check_positive_int
from bilinear.constructions.values.weights import Variant, Weights, parse_variant
from bilinear.errors import ConfigError, SpecError

from .scan import (SCANS, Block, ComplexMonomial, Dense, Diagonal, Factorized, Householder, LowRank, Monomial, Rotation,
                   Transitions, scan)

__all__ = ["BilinearRNN", "INITS", "InitContext", "LEARNED_VARIANTS", "LearnedVariant", "check_variant", "learned_row"]

#: Initialisations of the transition tensors: random orthogonal (rotations), or identity plus noise.
INITS = ("orthogonal", "identity")


def _orthogonal(gen: torch.Generator, *shape: int) -> torch.Tensor:
    """Random orthogonal matrices of shape (..., n, n) (QR of a Gaussian, sign-fixed)."""
    g = torch.randn(*shape, generator=gen)
    q, r = torch.linalg.qr(g)
    d = torch.sign(torch.diagonal(r, dim1=-2, dim2=-1))
    d[d == 0] = 1
    return q * d.unsqueeze(-2)


@dataclass(frozen=True)
class InitContext:
    """What an initialiser sees: the seeded generator, token axis size D (symbols or embedding
    dims), hidden size, the variant's parameter, and the init scheme."""

    gen: torch.Generator
    tokens: int
    hidden: int
    param: int | None
    identity: bool
    noise_scale: float

    @property
    def size(self) -> int:
        """``param`` of a kind that takes one (R, K, B): parse_variant requires it there."""
        assert self.param is not None  # only the initialisers of parameterised kinds ask
        return self.param

    def randn(self, *shape: int) -> torch.Tensor:
        return torch.randn(*shape, generator=self.gen)

    def noise(self, *shape: int) -> torch.Tensor:
        """Gaussian noise of scale ``noise_scale / sqrt(last axis)``."""
        return self.noise_scale * self.randn(*shape) / math.sqrt(max(shape[-1], 1))

    def near_identity_or_orthogonal(self, *shape: int) -> torch.Tensor:
        """(..., n, n): identity plus noise under the identity init, else random orthogonal."""
        if self.identity:
            return torch.eye(shape[-1]).expand(*shape) + self.noise(*shape)
        return _orthogonal(self.gen, *shape)


def _fits(hidden: int, v: Variant) -> str | None:
    return None


@dataclass(frozen=True)
class LearnedVariant:
    """One variant kind on the learned side (one row of :data:`LEARNED_VARIANTS`).

    ``init(ctx)`` returns the learned tensors by parameter name, in registration order (tensors
    with a leading token axis D are mixed by the embedding); ``transitions(model, per_symbol)``
    the structured transitions the scan runs (``per_symbol`` contracts the token axis);
    ``from_weights(weights, A)`` the parameter values carrying a float ``Weights`` of this variant
    (``A`` its float matrices); ``export(transitions)`` the float64 ``(A, factors)`` of
    :meth:`BilinearRNN.to_weights` (default: the dense matrices, no factors); ``fits(hidden,
    variant)`` a message when the hidden size cannot carry the variant; ``canonical`` False when
    the parameters have a gauge, so that ``from_weights(to_weights())`` gives the same transitions
    but other tensors (householder vectors are normalised, monomial logits keep only their argmax);
    ``angle_form`` the row of the variant's angle parameterisation (``angles=True``: one learned
    angle per 2x2 block, pure rotations), or None when it has none; ``option_forms`` the rows of
    the variant's options that change its parameters (``monomial,complex``), by option;
    ``factor_activations`` the (batch, time, hidden) float tensors each of the variant's ``param``
    factors keeps for the backward pass of a training step (the memory estimate counts them:
    :mod:`bilinear.learned.limits`).
    """

    kind: str
    init: Callable[[InitContext], dict]
    transitions: Callable[["BilinearRNN", Callable], Transitions]
    from_weights: Callable[[Weights, np.ndarray], dict]
    export: Callable[[Any], tuple] | None = None  # takes the kind's own Transitions subclass
    fits: Callable[[int, Variant], "str | None"] = _fits
    canonical: bool = True
    angle_form: "LearnedVariant | None" = None
    option_forms: tuple[tuple[str, "LearnedVariant"], ...] = ()
    factor_activations: int = 0  # (batch, time, hidden) float tensors each factor keeps for backward


def _numpy(x: torch.Tensor) -> np.ndarray:
    return x.detach().double().cpu().numpy()


def _diagonals(A: np.ndarray) -> np.ndarray:
    return A.diagonal(axis1=1, axis2=2)


def _blocks_of(weights: Weights, A: np.ndarray) -> dict:
    B, d = weights.variant_info.param, weights.dim
    return {"W": np.stack([[A[s, i : i + B, i : i + B] for i in range(0, d, B)] for s in range(A.shape[0])])}


def _block_fits(hidden: int, v: Variant) -> str | None:
    if hidden % v.param:
        return f"hidden size {hidden} is not divisible by the block size {v.param} of variant {v.spec!r}"
    return None


def _factorized_init(c: InitContext) -> dict:
    R, d, D = c.size, c.hidden, c.tokens
    U = c.randn(d, R) / math.sqrt(R)
    W = c.randn(d, R) / math.sqrt(d)
    C = 1.0 + c.noise_scale * c.randn(D, R) if c.identity else c.randn(D, R)
    return {"U": U, "Wf": W, "C": C}


def _factorized_export(trans: Factorized) -> tuple:
    U, C, W = (_numpy(x) for x in (trans.U, trans.C, trans.W))
    return np.einsum("ir,sr,jr->sij", U, C, W), (U, C, W)


def _factorized_from(weights: Weights, A: np.ndarray) -> dict:
    U, C, W = (np.asarray(f, dtype=np.float64) for f in weights.to_float().factors)
    return {"U": U, "C": C, "Wf": W}


def _rotation_init(c: InitContext) -> dict:
    shape = (c.tokens, c.hidden // 2)
    angle = c.noise_scale * c.randn(*shape) if c.identity else 2 * math.pi * torch.rand(*shape, generator=c.gen)
    return {"ra": torch.cos(angle), "rb": torch.sin(angle)}


def _angle_init(c: InitContext) -> dict:
    shape = (c.tokens, c.hidden // 2)
    return {"theta": c.noise_scale * c.randn(*shape) if c.identity else 2 * math.pi * torch.rand(*shape, generator=c.gen)}


def _angles_of(weights: Weights, A: np.ndarray) -> dict:
    """The angles of a rotation2d network whose blocks are pure rotations (ConfigError otherwise)."""
    a, b = _diagonals(A[:, 0::2, 0::2]), _diagonals(A[:, 1::2, 0::2])
    scale = np.hypot(a, b)
    if not np.allclose(scale, 1.0, atol=1e-9):
        worst = float(np.abs(scale - 1).max())
        raise ConfigError(f"the angle form carries pure rotations only; a block of these weights has scale "
                          f"{1 + worst:.6g} (off by {worst:.3g})")
    return {"theta": np.arctan2(b, a)}


def _rotation_fits(d: int, v: Variant) -> str | None:
    return f"hidden size {d} is odd; variant {v.spec!r} needs 2x2 blocks" if d % 2 else None


def _diagonal_init(c: InitContext) -> dict:
    D, d = c.tokens, c.hidden
    W = 1.0 + c.noise_scale * c.randn(D, d) if c.identity else 2 * torch.rand(D, d, generator=c.gen) - 1
    return {"W": W}


def _count_fits(hidden: int, v: Variant) -> str | None:
    """A message when the factor count passes the limit of
    :data:`~bilinear.constructions.values.factored.MAX_COUNT_PER_HIDDEN` (checked before allocating)."""
    from bilinear.constructions.values.factored import MAX_COUNT_PER_HIDDEN

    most = MAX_COUNT_PER_HIDDEN * hidden
    if v.param is not None and v.param > most:
        return (f"variant {v.spec!r}: {v.info.param} = {v.param:,} is over {MAX_COUNT_PER_HIDDEN} x hidden = {most:,} "
                f"(past hidden the extra factors add nothing)")
    return None


def _beta_top(v: Variant) -> float:
    """The largest beta of a Householder variant: 1 with ``nonneg``, else 2."""
    return 1.0 if v.nonneg else 2.0


def _householder_init(c: InitContext) -> dict:
    K, d, D = c.size, c.hidden, c.tokens
    return {"Vk": c.randn(D, K, d), "Vb": (-3.0 if c.identity else 0.0) + c.noise_scale * c.randn(D, K)}


def _householder_transitions(m, ps) -> Householder:
    k = ps(m.Vk)
    k = k / k.norm(dim=-1, keepdim=True).clamp_min(1e-12)
    return Householder(k, _beta_top(m.variant) * torch.sigmoid(ps(m.Vb)))


def _householder_export(trans: Householder) -> tuple:
    return _numpy(trans.dense()), (_numpy(trans.k), _numpy(trans.beta))


def _householder_from(weights: Weights, A: np.ndarray) -> dict:
    V, beta = (np.asarray(f, dtype=np.float64) for f in weights.to_float().factors)
    top = _beta_top(weights.variant_info)
    p = np.clip(beta / top, 1e-9, 1 - 1e-9)
    return {"Vk": V, "Vb": np.log(p / (1 - p))}


#: Logit margin of a selected row when a monomial model carries given weights.
HARD_LOGIT = 30.0


def _monomial_init(c: InitContext) -> dict:
    D_, d = c.tokens, c.hidden
    if c.identity:
        logits = 4.0 * torch.eye(d).expand(D_, d, d) + c.noise(D_, d, d)
        Dm = 1.0 + c.noise(D_, d)
    else:
        logits = c.randn(D_, d, d)
        Dm = 2 * torch.rand(D_, d, generator=c.gen) - 1
    return {"Pl": logits.clone(), "Dm": Dm}


def _monomial_transitions(m, ps) -> Monomial:
    logits = ps(m.Pl)  # (symbols, hidden rows, hidden columns)
    soft = torch.softmax(logits, dim=1)  # each column a distribution over rows
    return Monomial(logits.argmax(dim=1), ps(m.Dm), soft if torch.is_grad_enabled() else None)


def _monomial_export(trans: Monomial) -> tuple:
    perm, D = trans.perm.detach().cpu().numpy().astype(np.int64), _numpy(trans.D)
    A = np.zeros((D.shape[0], D.shape[1], D.shape[1]))
    np.put_along_axis(A, perm[:, None, :], D[:, None, :], axis=1)
    return A, (perm, D)


def _monomial_from(weights: Weights, A: np.ndarray) -> dict:
    perm, D = weights.to_float().factors
    S, d = np.asarray(D).shape
    logits = np.zeros((S, d, d))
    np.put_along_axis(logits, np.asarray(perm, dtype=np.int64)[:, None, :], HARD_LOGIT, axis=1)
    return {"Pl": logits, "Dm": np.asarray(D, dtype=np.float64)}


def _complex_monomial_init(c: InitContext) -> dict:
    D_, d = c.tokens, c.hidden
    m = d // 2
    if c.identity:
        logits = 4.0 * torch.eye(m).expand(D_, m, m) + c.noise(D_, m, m)
        Dm = torch.zeros(D_, d)
        Dm[:, 0::2] = 1.0
        Dm = Dm + c.noise(D_, d)
    else:
        logits = c.randn(D_, m, m)
        angle = 2 * math.pi * torch.rand(D_, m, generator=c.gen)
        size = torch.rand(D_, m, generator=c.gen)  # |z| in [0, 1), as the real D's |d|
        Dm = torch.stack([size * torch.cos(angle), size * torch.sin(angle)], -1).reshape(D_, d)
    return {"Pl": logits.clone(), "Dm": Dm}


def _complex_monomial_transitions(m, ps) -> ComplexMonomial:
    logits = ps(m.Pl)  # (symbols, coordinate rows, coordinate columns)
    soft = torch.softmax(logits, dim=1)
    return ComplexMonomial(logits.argmax(dim=1), ps(m.Dm), soft if torch.is_grad_enabled() else None)


def _complex_monomial_export(trans: ComplexMonomial) -> tuple:
    with torch.no_grad():
        A = _numpy(ComplexMonomial(trans.perm, trans.D).dense())
    return A, (trans.perm.detach().cpu().numpy().astype(np.int64), _numpy(trans.D))


def _complex_monomial_from(weights: Weights, A: np.ndarray) -> dict:
    perm, D = weights.to_float().factors
    S, d = np.asarray(D).shape
    logits = np.zeros((S, d // 2, d // 2))
    np.put_along_axis(logits, np.asarray(perm, dtype=np.int64)[:, None, :], HARD_LOGIT, axis=1)
    return {"Pl": logits, "Dm": np.asarray(D, dtype=np.float64)}


def _dplr_init(c: InitContext) -> dict:
    R, d, D_ = c.size, c.hidden, c.tokens
    Dd = 1.0 + c.noise(D_, d) if c.identity else 2 * torch.rand(D_, d, generator=c.gen) - 1
    return {"Dd": Dd, "Ul": c.randn(D_, d, R) / math.sqrt(d), "Wl": c.randn(D_, d, R) / math.sqrt(d)}


def _dplr_export(trans: LowRank) -> tuple:
    D, U, W = (_numpy(x) for x in (trans.D, trans.U, trans.W))
    return _numpy(trans.dense()), (D, U, W)


def _dplr_from(weights: Weights, A: np.ndarray) -> dict:
    D, U, W = (np.asarray(f, dtype=np.float64) for f in weights.to_float().factors)
    return {"Dd": D, "Ul": U, "Wl": W}


#: The learned side of every variant kind, keyed by :attr:`Variant.kind`.
LEARNED_VARIANTS: dict[str, LearnedVariant] = {
    e.kind: e
    for e in (
        LearnedVariant(
            "full",
            init=lambda c: {"W": c.near_identity_or_orthogonal(c.tokens, c.hidden, c.hidden)},
            transitions=lambda m, ps: Dense(ps(m.W)),
            from_weights=lambda w, A: {"W": A},
        ),
        LearnedVariant(
            "factorized",
            init=_factorized_init,
            transitions=lambda m, ps: Factorized(cast(torch.Tensor, m.U), ps(m.C), cast(torch.Tensor, m.Wf)),
            from_weights=_factorized_from,
            export=_factorized_export,
        ),
        LearnedVariant(
            "block",
            init=lambda c: {"W": c.near_identity_or_orthogonal(c.tokens, c.hidden // c.size, c.size, c.size)},
            transitions=lambda m, ps: Block(ps(m.W)),
            from_weights=_blocks_of,
            fits=_block_fits,
        ),
        LearnedVariant(
            "rotation2d",
            init=_rotation_init,
            transitions=lambda m, ps: Rotation(ps(m.ra), ps(m.rb)),
            from_weights=lambda w, A: {"ra": _diagonals(A[:, 0::2, 0::2]), "rb": _diagonals(A[:, 1::2, 0::2])},
            fits=_rotation_fits,
            # the paper's 2D-rotation: the angle of symbol s is E[:, s] . theta (one-hot: theta[s])
            angle_form=LearnedVariant(
                "rotation2d",
                init=_angle_init,
                transitions=lambda m, ps: Rotation(torch.cos(ps(m.theta)), torch.sin(ps(m.theta))),
                from_weights=_angles_of,
                fits=_rotation_fits,
            ),
        ),
        LearnedVariant(
            "diagonal",
            init=_diagonal_init,
            transitions=lambda m, ps: Diagonal(ps(m.W)),
            from_weights=lambda w, A: {"W": _diagonals(A)},
        ),
        LearnedVariant(
            "positive",
            init=lambda c: {"W": c.noise_scale * c.randn(c.tokens, c.hidden)},
            transitions=lambda m, ps: Diagonal(torch.exp(ps(m.W))),
            from_weights=lambda w, A: {"W": np.log(_diagonals(A))},
        ),
        LearnedVariant(
            "householder",
            init=_householder_init,
            transitions=_householder_transitions,
            from_weights=_householder_from,
            export=_householder_export,
            canonical=False,
            fits=_count_fits,
            factor_activations=4,  # the state acted on, the projection, the update and a gradient
        ),
        LearnedVariant(
            "monomial",
            init=_monomial_init,
            transitions=_monomial_transitions,
            from_weights=_monomial_from,
            export=_monomial_export,
            canonical=False,
            option_forms=(("complex", LearnedVariant(
                "monomial",
                init=_complex_monomial_init,
                transitions=_complex_monomial_transitions,
                from_weights=_complex_monomial_from,
                export=_complex_monomial_export,
                canonical=False,
                fits=_rotation_fits,
            )),),
        ),
        LearnedVariant(
            "dplr",
            init=_dplr_init,
            transitions=lambda m, ps: LowRank(ps(m.Dd), ps(m.Ul), ps(m.Wl)),
            from_weights=_dplr_from,
            export=_dplr_export,
            fits=_count_fits,
        ),
    )
}


def learned_row(v: Variant, angles: bool = False) -> LearnedVariant:
    """The row of :data:`LEARNED_VARIANTS` for variant ``v``: its kind's, or the form of one of
    its options (``monomial,complex``), or with ``angles`` its angle form where it has one.

    >>> learned_row(parse_variant("monomial,complex")).init.__name__
    '_complex_monomial_init'
    """
    row = LEARNED_VARIANTS[v.kind]
    forms = dict(row.option_forms)
    for option in v.options:
        if option in forms:
            row = forms[option]
    if angles and row.angle_form is not None:
        return row.angle_form
    return row


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
    hidden = check_positive_int(hidden, "hidden size", error=ConfigError)
    if v.kind not in LEARNED_VARIANTS:  # pragma: no cover - a constructions-only variant
        raise ConfigError(f"variant {v.spec!r} has no learned parameterisation")
    message = learned_row(v).fits(hidden, v)
    if message:
        raise ConfigError(message)
    return v


def _positive(name: str, value, none_ok: bool = False) -> None:
    if none_ok and value is None:
        return
    check_positive_int(value, name + (" (or None)" if none_ok else ""), error=ConfigError)


def _check_options(n_symbols, n_classes, embed, init: str, scan_method: str) -> None:
    _positive("n_symbols", n_symbols)
    _positive("n_classes", n_classes)
    _positive("embedding size", embed, none_ok=True)
    if init not in INITS:
        raise ConfigError(f"unknown init {init!r} (known: {', '.join(INITS)})")
    if scan_method not in SCANS:
        raise ConfigError(f"unknown scan {scan_method!r} (known: {', '.join(SCANS)})")


class BilinearRNN(nn.Module):
    """A bilinear RNN of one variant (see the module docstring).

    Parameters
    ----------
    n_symbols, n_classes, hidden:
        Alphabet size, number of classes, hidden size d.
    variant:
        Variant spec string (one of :func:`~bilinear.constructions.values.variants.variant_usage`).
    embed:
        ``None`` for one-hot tokens, else the embedding size D.
    additive:
        Add ``B x_t + b`` (the ablation; not bilinear).
    additive_renorm:
        With ``additive``: renormalise h at every step as the bilinear models do (default), so
        the ablation changes one thing; False is the older form, never renormalised.
    angles:
        Use the variant's angle form when it has one (``rotation2d``: one learned angle per 2x2
        block, pure rotations: the paper's 2D-rotation); other variants are unchanged.
    normalize_train:
        Renormalise h at every step in training mode too (always done in evaluation mode).
    init:
        ``orthogonal`` (default) or ``identity`` (identity plus noise of scale ``init_noise``).
    seed:
        Seed of the initialisation (a private generator; global RNG untouched).
    scan:
        ``auto`` (:func:`~bilinear.learned.scan.auto_method`: parallel on CUDA up to hidden 64 and
        for diagonal transitions, else sequential), ``sequential`` or ``parallel``.
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
        additive_renorm: bool = True,
        angles: bool = False,
    ):
        super().__init__()
        v = check_variant(variant, hidden)
        _check_options(n_symbols, n_classes, embed, init, scan)
        self.variant = v
        self.n_symbols, self.n_classes, self.hidden = n_symbols, n_classes, hidden
        self.embed_dim = embed
        self.additive = bool(additive)
        #: False only for the older additive ablation, which is never renormalised.
        self.renormalized = not self.additive or bool(additive_renorm)
        self.normalize_train = bool(normalize_train) and self.renormalized
        self.angles = bool(angles) and learned_row(v).angle_form is not None
        self.scan_method = scan
        gen = torch.Generator().manual_seed(int(seed))
        ctx = InitContext(gen, n_symbols if embed is None else embed, hidden, v.param, init == "identity", init_noise)
        if embed is not None:
            # each symbol's embedding has unit norm so A(x) keeps the scale of one W_k
            E = torch.randn(embed, n_symbols, generator=gen)
            self.E = nn.Parameter(E / E.norm(dim=0, keepdim=True))
        else:
            self.register_parameter("E", None)
        transitions = self.learned.init(ctx)
        for name, value in transitions.items():
            self.register_parameter(name, nn.Parameter(value.clone()))
        #: The parameters the transition matrices A(x) are made of (the embedding included).
        self.transition_names = tuple(transitions) + (("E",) if embed is not None else ())
        h0 = torch.randn(hidden, generator=gen)
        self.h0 = nn.Parameter(h0 / h0.norm())
        self.readout = nn.Linear(hidden, n_classes, bias=False)
        with torch.no_grad():
            self.readout.weight.copy_(torch.randn(n_classes, hidden, generator=gen) / math.sqrt(hidden))
        if self.additive:
            self.Badd = nn.Parameter(ctx.noise(ctx.tokens, hidden))
            self.badd = nn.Parameter(torch.zeros(hidden))

    @property
    def learned(self) -> LearnedVariant:
        """This model's row of :data:`LEARNED_VARIANTS` (its angle form with ``angles``)."""
        return learned_row(self.variant, self.angles)

    # --- transitions ---------------------------------------------------------------------
    def _per_symbol(self, P: torch.Tensor) -> torch.Tensor:
        """Contract the token axis (D, ...) with the embedding: (symbols, ...)."""
        if self.E is None:
            return P
        return torch.tensordot(self.E.T, P, dims=1)

    def transitions(self) -> Transitions:
        """The per-symbol transitions of the current parameters."""
        return self.learned.transitions(self, self._per_symbol)

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
            normalize = (self.normalize_train if self.training else True) and self.renormalized
        if normalize and not self.renormalized:
            raise ConfigError("this additive ablation is the unrenormalised form (additive_renorm=False)")
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
    def freeze_transitions(self) -> "BilinearRNN":
        """Stop training the transition matrices (and the embedding): only ``h0``, the readout
        and any additive terms learn; the transitions keep their initialisation.  Returns self."""
        for name in self.transition_names:
            getattr(self, name).requires_grad_(False)
        return self

    def to_weights(self) -> Weights:
        """The float :class:`~bilinear.constructions.values.weights.Weights` of this network.

        Per-symbol matrices ``A_sigma = sum_k E[k, sigma] W_k`` (one-hot: ``W_sigma``), the
        learned ``h0`` and the readout, in float64.  ConfigError for the additive ablation.
        """
        if self.additive:
            raise ConfigError("the additive ablation (B x_t + b) is not a bilinear model and has no Weights")
        with torch.no_grad():
            trans = self.transitions()
            export = self.learned.export
            A, factors = export(trans) if export is not None else (_numpy(trans.dense()), None)
            return Weights(self.variant.spec, A, _numpy(self.h0), _numpy(self.readout.weight), factors=factors)

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
        A, h0, R = weights.float_arrays()
        model = cls(weights.n_symbols, weights.n_classes, weights.dim, weights.variant_info.spec, **options).to(dtype)
        values = {**model.learned.from_weights(weights, np.asarray(A, dtype=np.float64)), "h0": h0}
        with torch.no_grad():
            for name, value in values.items():
                getattr(model, name).copy_(torch.tensor(np.array(value, dtype=np.float64), dtype=dtype))
            model.readout.weight.copy_(torch.tensor(np.array(R, dtype=np.float64), dtype=dtype))
        return model.eval()

    def extra_repr(self) -> str:
        return (
            f"variant={self.variant.spec}, symbols={self.n_symbols}, classes={self.n_classes}, "
            f"hidden={self.hidden}, embed={self.embed_dim}, additive={self.additive}"
        )

"""Per-layer, per-head transitions of a loaded model for a task, as the toolkit's values.

A head's state is ``S_t = A_t S_{t-1} + b_t`` (keys x values) with ``A_t = exp(g_t) H_K ... H_1``
and ``H_j = I - beta_j k_j k_j^T``.  fla normalises a key to ``k / sqrt(|k|^2 + 1e-6)``, so
``|k| < 1`` and ``H_j`` is the generalised reflection ``I - b v v^T / (v^T v)`` with ``v = k_j`` and the
effective ``b = beta_j |k_j|^2`` (the toolkit's form, :mod:`bilinear.constructions.values.factored`).

What is exact and what is sampled:

* layer 1 without a short convolution: the layer's input at a step is a function of the current
  token only, so there is one transition per symbol, computed from the parameters (``keys`` are
  the symbols; ``exact`` True: float64 values of the model's own maps, nothing sampled);
* layer 1 with a convolution of width w: q, k, v read the last w tokens (beta and the gate only the
  current one), so there is one transition per window of w symbols (and per shorter window at the
  start of a word): the task automaton times a shift register over the last w - 1 symbols.  The
  windows are enumerated (at most :data:`MAX_WINDOWS`); ``windows`` holds them as tuples of symbol
  indices and ``keys`` names them by :func:`window_name` (``1·10``: the symbols joined by ``·``, as
  the spectra name words; a name holding ``·`` or starting with ``"`` is quoted), so two windows
  never share a name (glued, ``1`` ``10`` and ``11`` ``0`` would both be ``110``);
* deeper layers: the input depends on the states below, so transitions are sampled on the positions
  of random words (``exact`` False): per symbol the mean over its visited positions, and the spread
  (largest distance of a visited matrix from the mean, relative) beside it.

:func:`identify` checks the variant numerically on the extracted matrices; :meth:`HeadTransitions.
homogeneous` gives the head's ``householder:K`` Weights (the positive gate divided out: verdicts
are up to a positive scale) and :meth:`HeadTransitions.lifted` the affine recurrence lifted to
``[vec(S); 1]`` as ``full`` Weights (docs/theory.md, the lifted affine recurrence).

Mamba and Mamba-2 (diagonal kinds, ``V`` and ``beta`` None): a Mamba channel's state ``h_c``
(N) steps as ``diag(exp(Delta_c A_c)) h_c + Delta_c B u_c``; the channels of a group of
:data:`CHANNEL_GROUP` (``group=``; 1: per channel) are one "head" whose ``A`` is the block of their
diagonals (``channels`` names them).  A Mamba-2 head's state ``S`` (N x P) steps as ``exp(Delta a) S
+ Delta B x^T``: ``A`` is the scalar times ``I_N``.  Both are functions of the last ``conv_kernel``
tokens (the windows above).  :func:`identify_diagonal` checks the variant (``positive``) on the
matrices, :meth:`HeadTransitions.homogeneous` is the ``positive`` Weights of ``A`` itself (nothing
divided out: the decay is the transition), :meth:`HeadTransitions.affine` the affine recurrence on
``vec(S)`` as :class:`~bilinear.constructions.values.affine.AffineWeights` (``positive``; its lift,
Theorem A1, is ``dplr:1``).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np
import torch

from bilinear.errors import AnalysisError

from .delta import layer_inputs, rms_norm
from .lift import lift_affine
from .windows import WINDOW_SEPARATOR, window_name

__all__ = ["HeadTransitions", "head_transitions", "identify", "identify_diagonal", "lift_affine", "MAX_WINDOWS",
           "SAMPLE_WORDS", "Identified", "CHANNEL_GROUP", "window_name", "WINDOW_SEPARATOR"]

#: Most windows enumerated for a layer fed by a short convolution (symbols^w and the start windows).
MAX_WINDOWS = 4096
#: Words sampled for the transitions of deeper layers (length SAMPLE_LENGTH each).
SAMPLE_WORDS = 64
SAMPLE_LENGTH = 24
#: Mamba channels per "head" of :func:`head_transitions` (their diagonals side by side).
CHANNEL_GROUP = 8


@dataclass(frozen=True)
class Identified:
    """The variant a head's matrices were found to belong to, checked numerically: ``rank`` is the
    largest numerical rank of ``A/exp(g) - I`` (at most K for K reflections), ``beta`` the range of
    the effective betas, ``gate`` the range of exp(g), ``residual`` the largest relative distance
    of a matrix from the composition of its factors."""

    variant: str
    rank: int
    beta: tuple[float, float] | None    # None for a diagonal kind (no reflections)
    gate: tuple[float, float]           # diagonal kinds: the range of the diagonal entries
    residual: float                     # diagonal kinds: the largest off-diagonal entry, relative
    scalar: bool = False                # diagonal kinds: every matrix a multiple of the identity

    def text(self) -> str:
        if self.beta is None:
            form = "exp(Delta a) I, a positive scalar times the identity" if self.scalar else "diagonal exp(Delta A)"
            return (f"{self.variant} ({form}; entries in [{self.gate[0]:.4g}, {self.gate[1]:.4g}], largest off-diagonal "
                    f"entry {self.residual:.1e} relative)")
        g = ("gate exp(g) = 1" if self.gate == (1.0, 1.0)
             else f"times a positive gate exp(g) in [{self.gate[0]:.3g}, {self.gate[1]:.3g}]")
        return (f"{self.variant} (rank(A/exp(g) - I) <= {self.rank}, beta in [{self.beta[0]:.4g}, {self.beta[1]:.4g}], "
                f"{g}; composition residual {self.residual:.1e})")


@dataclass(frozen=True)
class HeadTransitions:
    """One head's transitions: per key (a symbol, or a window of symbols) ``A`` (keys, dk, dk) with
    the gate, ``gate`` (keys,) = exp(g), ``V`` (keys, K, dk) and ``beta`` (keys, K) in the toolkit's
    order (``A = gate * H(V[0]) ... H(V[K-1])``), the additive term ``b`` (keys, dk, dv).  Diagonal
    kinds (Mamba, Mamba-2): ``V``, ``beta`` None, ``gate`` ones, ``channels`` the Mamba channels of
    the group (None for a Mamba-2 head).  ``keys`` are names (the symbols', or :func:`window_name`'s);
    ``windows`` the same keys as tuples of symbol indices (``(s,)`` for a symbol), the one to match on."""

    layer: int
    head: int
    keys: tuple
    A: np.ndarray
    gate: np.ndarray
    V: np.ndarray | None
    beta: np.ndarray | None
    b: np.ndarray
    exact: bool
    spread: np.ndarray | None = None     # sampled layers: per key, relative spread over visited positions
    S0: np.ndarray | None = None          # the state after a BOS token (dk, dv), else None (zero)
    channels: tuple | None = None         # Mamba: the channels of this group
    windows: tuple | None = None          # per key its symbol indices, oldest first ((s,) for a symbol)

    @property
    def diagonal(self) -> bool:
        """A Mamba or Mamba-2 head: diagonal transitions, no reflections."""
        return self.V is None

    @property
    def identified(self) -> Identified:
        if self.V is None or self.beta is None:
            return identify_diagonal(self.A)
        return identify(self.A, self.gate, self.V, self.beta)

    @property
    def name(self) -> str:
        """``head h``, or ``channels a-b`` for a group of Mamba channels."""
        if self.channels is None:
            return f"head {self.head}"
        return f"channel {self.channels[0]}" if len(self.channels) == 1 else \
            f"channels {self.channels[0]}-{self.channels[-1]}"

    def homogeneous(self, classes: int = 1):
        """``householder:K`` Weights of the reflections (gate divided out), h0 a fixed generic unit
        vector, a zero readout of ``classes`` rows (the spectra, commutators and relations read only A).
        Diagonal kinds: ``positive`` Weights of ``A`` itself."""
        from bilinear.constructions.values.factored import householder_compose
        from bilinear.constructions.values.weights import Weights

        if self.V is None or self.beta is None:
            dk = self.A.shape[1]
            h0 = np.random.default_rng(0).normal(size=dk)
            A = np.einsum("kii->ki", self.A)[:, :, None] * np.eye(dk)  # exactly diagonal
            return Weights("positive", A, np.abs(h0) / np.linalg.norm(h0), np.zeros((classes, dk)))
        K, dk = self.V.shape[1], self.V.shape[2]
        A = householder_compose(self.V, self.beta, exact=False)
        h0 = np.random.default_rng(0).normal(size=dk)
        spec = f"householder:{K}" + ("" if self.beta.max() > 1 else ",nonneg")
        return Weights(spec, A, h0 / np.linalg.norm(h0), np.zeros((classes, dk)),
                       factors={"V": self.V, "beta": np.clip(self.beta, 0.0, 2.0)})

    def affine(self, readout=None):
        """Diagonal kinds: the affine recurrence on ``vec(S)`` (columns of S stacked) as ``positive``
        :class:`~bilinear.constructions.values.affine.AffineWeights`: per key ``I_dv (x) A`` (diagonal)
        and ``vec(b)``, h0 ``vec(S0)``; ``readout`` (classes, dk*dv + 1), zero (one class) when None."""
        from bilinear.constructions.values.affine import AffineWeights
        from bilinear.constructions.values.weights import check_entries

        if not self.diagonal:
            raise AnalysisError("affine(): only Mamba and Mamba-2 heads (diagonal); lifted() lifts the others")
        n, dk, dv = self.b.shape
        check_entries("lifted", f"layer {self.layer + 1} {self.name}", n, dk * dv + 1)  # before allocating
        diag = np.einsum("kii->ki", self.A)
        A = np.tile(diag, (1, dv))[:, :, None] * np.eye(dk * dv)
        b = self.b.transpose(0, 2, 1).reshape(n, dk * dv)
        h0 = None if self.S0 is None else self.S0.reshape(-1, order="F")
        return AffineWeights("positive", A, b, np.zeros((1, dk * dv + 1)) if readout is None else readout, h0=h0)

    def lifted(self, readout=None):
        """The affine recurrence on ``[vec(S); 1]`` (columns of S stacked) as ``full`` Weights: per key
        ``[[I_dv (x) A, vec(b)], [0, 1]]``, h0 ``[vec(S0); 1]``; ``readout`` (classes, dk*dv + 1),
        zero (one class) when None.  Diagonal kinds: :meth:`affine`'s lift (``dplr:1``, Theorem A1)."""
        from bilinear.constructions.values.weights import check_entries

        if self.diagonal:
            return self.affine(readout).lift()
        n, dk, dv = self.b.shape
        check_entries("lifted", f"layer {self.layer + 1} {self.name}", n, dk * dv + 1)  # before allocating
        return lift_affine(self.A, self.b, self.S0, readout)


def identify(A: np.ndarray, gate: np.ndarray, V: np.ndarray, beta: np.ndarray, rtol: float = 1e-9) -> Identified:
    """The variant of ``A`` (keys, dk, dk), checked on the matrices themselves: the rank of
    ``A/gate - I`` (numerical, relative ``rtol``) and the distance from the factors' composition."""
    from bilinear.constructions.values.factored import householder_compose

    dk = A.shape[1]
    M = A / gate[:, None, None] - np.eye(dk)
    s = np.linalg.svd(M, compute_uv=False)
    rank = int((s > rtol * max(1.0, float(np.abs(A).max()))).sum(axis=1).max())
    comp = householder_compose(V, beta, exact=False) * gate[:, None, None]
    res = float(np.abs(comp - A).max() / max(float(np.abs(A).max()), 1e-300))
    K = V.shape[1]
    b = (float(beta.min()), float(beta.max()))
    if rank > K or res > 1e-9:
        variant = "full"
    else:
        variant = f"householder:{K}" + (",nonneg" if b[1] <= 1.0 else "")
    return Identified(variant, rank, b, (float(gate.min()), float(gate.max())), res)


def identify_diagonal(A: np.ndarray, rtol: float = 1e-12) -> Identified:
    """The variant of Mamba's matrices ``A`` (keys, d, d), checked on them: ``positive`` when every
    off-diagonal entry is below ``rtol`` of the largest entry and every diagonal entry is positive,
    else ``full``; ``scalar`` when each matrix is its first diagonal entry times the identity."""
    d = A.shape[1]
    diag = np.einsum("kii->ki", A)
    scale = max(float(np.abs(A).max()), 1e-300)
    off = float(np.abs(A - diag[:, :, None] * np.eye(d)).max()) / scale
    positive = off <= rtol and bool((diag > 0).all())
    scalar = bool(np.all(np.abs(diag - diag[:, :1]) <= rtol * scale))
    rank = int(max(np.sum(np.abs(diag[i] - 1) > rtol) for i in range(len(diag))))
    return Identified("positive" if positive else "full", rank, None, (float(diag.min()), float(diag.max())), off, scalar)


def _diag_heads(kind: str, inp: dict, layer: int, keys, exact: bool, group: int) -> list[HeadTransitions]:
    """HeadTransitions of a Mamba layer (per group of ``group`` channels) or a Mamba-2 layer (per head)
    from per-key inputs (keys, 1, ...) of the mixer's ``inputs``."""
    decay, drive = inp["decay"][:, -1].numpy(), inp["drive"][:, -1].numpy()
    n = decay.shape[0]
    out = []
    if kind == "mamba2":  # decay (n, H), drive (n, H, N, P)
        N = drive.shape[2]
        for h in range(decay.shape[1]):
            out.append(HeadTransitions(layer, h, tuple(keys), decay[:, h, None, None] * np.eye(N), np.ones(n), None,
                                       None, drive[:, h].copy(), exact))
        return out
    I = decay.shape[1]  # mamba: decay, drive (n, I, N)
    for j, start in enumerate(range(0, I, group)):
        cs = tuple(range(start, min(start + group, I)))
        diag = decay[:, list(cs)].reshape(n, -1)
        out.append(HeadTransitions(layer, j, tuple(keys), diag[:, :, None] * np.eye(diag.shape[1]), np.ones(n), None,
                                   None, drive[:, list(cs)].reshape(n, -1, 1), exact, channels=cs))
    return out


def _inputs_heads(model, layer: int, x: torch.Tensor, keys, exact: bool, group: int, skip: int = 0,
                  flatten: bool = False) -> list[HeadTransitions]:
    """The mixer's per-step inputs of ``x`` (the layer's normalised input), made into HeadTransitions of
    the last step (``flatten``: of every step from ``skip`` on, one key each)."""
    block = model.blocks[layer].mixer
    kind = model.config.kind
    with torch.no_grad():
        inp = block.inputs(x) if kind in ("mamba", "mamba2") else layer_inputs(block, x)
    if flatten:
        inp = {key: val[:, skip:].reshape(-1, 1, *val.shape[2:]) for key, val in inp.items() if val is not None}
    if kind in ("mamba", "mamba2"):
        return _diag_heads(kind, inp, layer, keys, exact, group)
    return _heads(inp, layer, keys, exact)


def _heads(inp: dict, layer: int, keys, exact: bool, spread=None) -> list[HeadTransitions]:
    """HeadTransitions of every head from per-key inputs (keys, 1, ...) of :func:`layer_inputs`."""
    k = inp["k"][:, -1].numpy()        # (n, K, H, dk)
    v = inp["v"][:, -1].numpy()        # (n, K, H, dv)
    beta = inp["beta"][:, -1].numpy()  # (n, K, H)
    gate = inp["decay"][:, -1].numpy()  # (n, H)
    n, K, H, dk = k.shape
    out = []
    for h in range(H):
        norms = (k[:, :, h] ** 2).sum(-1)                      # |k_j|^2 < 1
        beff = beta[:, :, h] * norms                          # effective beta of H(v, b)
        A = np.empty((n, dk, dk))
        b = np.zeros((n, dk, v.shape[-1]))
        for i in range(n):
            M = np.eye(dk) * gate[i, h]
            for j in range(K):
                kj = k[i, j, h]
                Hj = np.eye(dk) - beta[i, j, h] * np.outer(kj, kj)
                M = Hj @ M
                b[i] = Hj @ b[i] + beta[i, j, h] * np.outer(kj, v[i, j, h])
            A[i] = M
        V = k[:, ::-1, h, :].copy()                           # toolkit order: the last applied first
        zero = (V ** 2).sum(-1) == 0                          # a zero key is the identity: any v, b = 0
        V[zero] = np.eye(dk)[0]
        out.append(HeadTransitions(layer, h, tuple(keys), A, gate[:, h].copy(), V, beff[:, ::-1].copy(), b, exact,
                                   None if spread is None else spread[h]))
    return out


def _layer_input(model, ids: np.ndarray, layer: int) -> torch.Tensor:
    block = model.blocks[layer]
    with torch.no_grad():
        x = model.residuals(ids, upto=layer)
        return rms_norm(x, block.attn_norm, model.config.norm_eps, model.zero_centred)


def _windows(n: int, w: int, bos: bool) -> list[tuple[int, ...]]:
    """Every window a step can see: the full windows of w symbols, and the shorter ones a word starts with."""
    count = sum(n ** j for j in range(1, w + 1))
    if count > MAX_WINDOWS:
        raise AnalysisError(f"window alphabet: {n} symbols over a window of {w} tokens make {count:,} windows, "
                            f"over the limit {MAX_WINDOWS:,} (bilinear.learned.external.transitions.MAX_WINDOWS)")
    return [tuple(t) for j in range(1, w + 1) for t in itertools.product(range(n), repeat=j)]


def head_transitions(model, tracker, layer: int = 0, seed: int = 0, group: int = CHANNEL_GROUP) -> list:
    """Every head's transitions of ``layer`` (0-based) for the task of ``tracker`` (an
    :class:`~bilinear.learned.external.tracker.ExternalTracker`: its token map and BOS).  See the
    module docstring for what is exact and what is sampled; ``group``: Mamba channels per head (1:
    per channel).  RWKV-7 heads are :class:`~bilinear.learned.external.rwkv7_transitions.
    DplrHeadTransitions` (``dplr:1``)."""
    if isinstance(group, bool) or not isinstance(group, int) or group < 1:
        raise AnalysisError(f"group = {group!r} must be a positive number of channels")
    return _finite_heads(_head_transitions(model, tracker, layer, seed, group), layer)


def _finite_heads(heads: list, layer: int) -> list:
    """``heads``, or AnalysisError naming the first head and key whose transition is NaN or
    infinite: the checkpoint's tensors are finite (``tensors.tensor``), but a norm with
    ``norm_eps = 0`` on a zero input is not (0 / 0), and an SVD of it fails without a word."""
    for h in heads:
        for what in ("A", "gate", "b", "V", "beta"):
            x = getattr(h, what, None)
            if isinstance(x, np.ndarray) and x.size and not np.isfinite(x).all():
                i = int(np.argmax(~np.isfinite(x.reshape(len(x), -1)).all(axis=1)))
                key = h.keys[i] if i < len(h.keys) else i
                raise AnalysisError(f"layer {layer + 1} {h.name}: the transition of {key!r} is not finite ({what} "
                                    "holds a NaN or an infinity; a norm with norm_eps = 0 on a zero input gives one)")
    return heads


def _head_transitions(model, tracker, layer: int, seed: int, group: int) -> list:
    """:func:`head_transitions` before its finiteness check."""
    if model.config.kind == "rwkv7" and 0 <= layer < len(model.blocks):
        from .rwkv7_transitions import rwkv7_head_transitions

        wins = _windows(tracker.n_symbols, 2, tracker.bos is not None) if layer == 0 else None
        return rwkv7_head_transitions(model, tracker, layer, seed, _bos_states(model, tracker, layer), wins,
                                      (SAMPLE_WORDS, SAMPLE_LENGTH))
    if not 0 <= layer < len(model.blocks):
        raise AnalysisError(f"layer {layer} is outside 0..{len(model.blocks) - 1}")
    n, w = tracker.n_symbols, model.config.window
    S0 = _bos_states(model, tracker, layer)
    if layer == 0:
        wins = [(s,) for s in range(n)] if w == 1 else _windows(n, w, tracker.bos is not None)
        heads: list[HeadTransitions] = []
        for j in sorted({len(t) for t in wins}):
            wgroup = [t for t in wins if len(t) == j]
            full = j == w  # a full window: no BOS or padding in view
            ids = tracker.token_ids(np.array(wgroup)) if not full or w == 1 else tracker.tokens[np.array(wgroup)]
            part = _inputs_heads(model, 0, _layer_input(model, ids, 0), wgroup, True, group)
            heads = part if not heads else [_concat(a, b) for a, b in zip(heads, part)]
        keys = heads[0].keys
        names = tracker.symbol_names
        labels = tuple(names[t[0]] if w == 1 else window_name(t, names) for t in keys)
        return [_replace(h, keys=labels, S0=_head_state(S0, h), windows=tuple(keys)) for h in heads]
    return _sampled(model, tracker, layer, seed, S0, group)


def _bos_states(model, tracker, layer: int):
    if tracker.bos is None:
        return None
    S = model.states(np.array([[tracker.bos]]))[layer]  # (1, 1, H, dk, dv); Mamba (1, 1, I, N, 1)
    return S[0, 0].numpy()


def _head_state(S0, h: HeadTransitions):
    """The BOS state of head ``h`` (dk, dv): a Mamba group's channels stacked."""
    if S0 is None:
        return None
    if h.channels is not None:
        return S0[list(h.channels)].reshape(-1, 1)
    return S0[h.head]


def _concat(a: HeadTransitions, b: HeadTransitions) -> HeadTransitions:
    def cat(x, y):
        return None if x is None else np.concatenate([x, y])

    return HeadTransitions(a.layer, a.head, a.keys + b.keys, np.concatenate([a.A, b.A]),
                           np.concatenate([a.gate, b.gate]), cat(a.V, b.V), cat(a.beta, b.beta),
                           np.concatenate([a.b, b.b]), a.exact, channels=a.channels)


def _replace(h: HeadTransitions, **kw) -> HeadTransitions:
    import dataclasses

    return dataclasses.replace(h, **kw)


def _sampled(model, tracker, layer: int, seed: int, S0, group: int = CHANNEL_GROUP) -> list[HeadTransitions]:
    """Deeper layers: per symbol, the mean of its transitions over visited positions of random words."""
    n = tracker.n_symbols
    words = np.random.default_rng(seed).integers(0, n, size=(SAMPLE_WORDS, SAMPLE_LENGTH))
    ids = tracker.token_ids(words)
    skip = 0 if tracker.bos is None else 1
    sym = words.reshape(-1)
    per = _inputs_heads(model, layer, _layer_input(model, ids, layer), range(len(sym)), False, group, skip, True)
    out = []
    for h in per:
        picked, spread = [], []
        for s in range(n):
            m = sym == s
            if not m.any():
                raise AnalysisError(f"symbol {s} was not visited in the {SAMPLE_WORDS} sampled words")
            mean = h.A[m].mean(0)
            i = int(np.argmin(np.abs(h.A[m] - mean).reshape(int(m.sum()), -1).max(1)))  # the visited matrix nearest the mean
            picked.append(np.flatnonzero(m)[i])
            spread.append(float(np.abs(h.A[m] - mean).max() / max(np.abs(mean).max(), 1e-300)))
        idx = np.array(picked)
        out.append(HeadTransitions(layer, h.head, tuple(tracker.symbol_names), h.A[idx], h.gate[idx],
                                   None if h.V is None else h.V[idx], None if h.beta is None else h.beta[idx],
                                   h.b[idx], False, np.array(spread), _head_state(S0, h), h.channels,
                                   tuple((s,) for s in range(n))))
    return out

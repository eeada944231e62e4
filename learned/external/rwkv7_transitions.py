"""Per-head transitions of an RWKV-7 layer (:mod:`~bilinear.learned.external.rwkv7`) for a task.

A head's state is ``S_t = A_t S_(t-1) + b_t`` (keys x values) with ``A_t = diag(w_t) - u_t kappa_t^T``,
``u_t = a_t * kappa_t``, and ``b_t = k_t v_t^T``: diagonal plus rank one, the toolkit's ``dplr:1``
with factors ``D = w``, ``U = -u``, ``W = kappa`` (:func:`~bilinear.constructions.values.factored.
dplr_compose`).  The decay is per key channel, so no scalar gate can be divided out: the
homogeneous Weights are ``A`` itself.

What is exact and what is sampled (as for the delta-rule kinds, :mod:`~bilinear.learned.external.
transitions`):

* layer 1: the token shift makes its input at a step a function of the current and the previous
  token, so there is one transition per window of 2 symbols, and one per single symbol for the first
  step (whose shift reads zeros, or the BOS token when one is set): exact, float64 values of the
  model's own maps (``keys`` are the windows, named by :func:`~bilinear.learned.external.transitions.
  window_name`: ``0·1``; ``windows`` the same as tuples of symbol indices);
* deeper layers: their input depends on the states below (and on layer 1's ``v_first``), so the
  transitions are sampled on the positions of random words, per current symbol, with their spread.

:func:`identify_dplr` checks the variant on the matrices: the numerical rank of ``A - diag(w)``, the
distance from the factors' composition, and the range of the eigenvalues (measured; fla's bounds
``w`` in (0.545, 1), ``a`` in (0, 1) and ``|kappa| = 1`` are what make them real).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import torch

from bilinear.errors import AnalysisError

from .lift import lift_affine
from .rwkv7 import run_blocks
from .windows import window_name

__all__ = ["DplrHeadTransitions", "DplrIdentified", "identify_dplr", "rwkv7_head_transitions"]


@dataclass(frozen=True)
class DplrIdentified:
    """The variant a head's matrices were found to belong to: ``rank`` the largest numerical rank of
    ``A - diag(w)``, ``gate`` the range of the decays ``w``, ``beta`` the range of ``kappa^T (a *
    kappa)`` (the rank-one term's weight: in (0, 1) when a is in (0, 1) and kappa a unit vector),
    ``eigen`` the range of the eigenvalues' real parts and ``imag`` their largest imaginary part,
    ``residual`` the largest relative distance of a matrix from ``diag(D) + U W^T``."""

    variant: str
    rank: int
    beta: tuple[float, float]
    gate: tuple[float, float]
    eigen: tuple[float, float]
    imag: float
    residual: float

    def text(self) -> str:
        real = "real" if self.imag < 1e-9 else f"with imaginary parts up to {self.imag:.2g}"
        return (f"{self.variant} (rank(A - diag(w)) <= {self.rank}, decay w in [{self.gate[0]:.4g}, {self.gate[1]:.4g}], "
                f"kappa^T (a * kappa) in [{self.beta[0]:.4g}, {self.beta[1]:.4g}]; eigenvalues {real}, real parts in "
                f"[{self.eigen[0]:.4g}, {self.eigen[1]:.4g}]; composition residual {self.residual:.1e})")


def identify_dplr(A: np.ndarray, D: np.ndarray, U: np.ndarray, W: np.ndarray, rtol: float = 1e-9) -> DplrIdentified:
    """The variant of ``A`` (keys, dk, dk) against the factors ``D`` (keys, dk), ``U``, ``W`` (keys, dk, 1)."""
    from bilinear.constructions.values.factored import dplr_compose

    scale = max(1.0, float(np.abs(A).max()))
    M = A - D[:, :, None] * np.eye(A.shape[1])
    rank = int((np.linalg.svd(M, compute_uv=False) > rtol * scale).sum(axis=1).max())
    res = float(np.abs(dplr_compose(D, U, W, exact=False) - A).max() / scale)
    ev = np.linalg.eigvals(A)
    weight = -(U[..., 0] * W[..., 0]).sum(-1)
    variant = "dplr:1" if rank <= 1 and res <= 1e-9 else "full"
    return DplrIdentified(variant, rank, (float(weight.min()), float(weight.max())), (float(D.min()), float(D.max())),
                          (float(ev.real.min()), float(ev.real.max())), float(np.abs(ev.imag).max()), res)


@dataclass(frozen=True)
class DplrHeadTransitions:
    """One RWKV-7 head's transitions: per key (a window of symbols, or a symbol) ``A`` (keys, dk, dk),
    the factors ``D`` (keys, dk), ``U``, ``W`` (keys, dk, 1) with ``A = diag(D) + U W^T``, and the
    additive term ``b`` (keys, dk, dv)."""

    layer: int
    head: int
    keys: tuple
    A: np.ndarray
    D: np.ndarray
    U: np.ndarray
    W: np.ndarray
    b: np.ndarray
    exact: bool
    spread: np.ndarray | None = None
    S0: np.ndarray | None = None
    windows: tuple | None = None      # per key its symbol indices, oldest first ((s,) for a symbol)

    @property
    def name(self) -> str:
        return f"head {self.head}"

    @property
    def identified(self) -> DplrIdentified:
        return identify_dplr(self.A, self.D, self.U, self.W)

    @property
    def gate(self) -> np.ndarray:
        """No scalar gate: the per-channel decay is part of A (ones, for the readers of ``gate``)."""
        return np.ones(len(self.keys))

    @property
    def beta(self) -> np.ndarray:
        """No reflections: an empty (keys, 0) array (the analysis names reflections only where there are some)."""
        return np.zeros((len(self.keys), 0))

    def homogeneous(self, classes: int = 1):
        """``dplr:1`` Weights of ``A`` (nothing divided out), h0 a fixed generic unit vector, a zero
        readout of ``classes`` rows (the spectra and commutators read only A)."""
        from bilinear.constructions.values.weights import Weights

        dk = self.A.shape[1]
        h0 = np.random.default_rng(0).normal(size=dk)
        return Weights("dplr:1", self.A, h0 / np.linalg.norm(h0), np.zeros((classes, dk)),
                       factors={"D": self.D, "U": self.U, "W": self.W})

    def lifted(self, readout=None):
        """The affine recurrence on ``[vec(S); 1]`` as ``full`` Weights (as the delta-rule heads')."""
        from bilinear.constructions.values.weights import check_entries

        n, dk, dv = self.b.shape
        check_entries("lifted", f"layer {self.layer + 1} {self.name}", n, dk * dv + 1)  # before allocating
        return lift_affine(self.A, self.b, self.S0, readout)


def _heads(inp: dict, layer: int, keys, exact: bool) -> list[DplrHeadTransitions]:
    """Every head's transitions from the mixer's inputs at the last position of each row."""
    decay, kappa, a, k, v = (inp[n][:, -1].numpy() for n in ("decay", "kappa", "a", "k", "v"))  # (n, H, d)
    out = []
    for h in range(decay.shape[1]):
        D, U, W = decay[:, h], -(a[:, h] * kappa[:, h])[..., None], kappa[:, h][..., None]
        A = D[:, :, None] * np.eye(D.shape[1]) + U @ W.transpose(0, 2, 1)
        b = k[:, h, :, None] * v[:, h, None, :]
        out.append(DplrHeadTransitions(layer, h, tuple(keys), A, D, U, W, b, exact))
    return out


def _concat(x: DplrHeadTransitions, y: DplrHeadTransitions) -> DplrHeadTransitions:
    return replace(x, keys=x.keys + y.keys, A=np.concatenate([x.A, y.A]), D=np.concatenate([x.D, y.D]),
                   U=np.concatenate([x.U, y.U]), W=np.concatenate([x.W, y.W]), b=np.concatenate([x.b, y.b]))


def _inputs(model, ids, layer: int) -> dict:
    """The mixer inputs of ``layer`` on token ids (batch, time), in float64."""
    eps = model.config.norm_eps
    with torch.no_grad():
        x = model.embeddings.to(torch.float64)[torch.as_tensor(np.asarray(ids), dtype=torch.long)]
        x, v_first, _ = run_blocks(model.blocks[:layer], x, eps)
        _, h = model.blocks[layer].mixer_input(x, eps)
        return model.blocks[layer].mixer.inputs(h, v_first)


def rwkv7_head_transitions(model, tracker, layer: int, seed: int, S0, windows, sample: tuple[int, int]
                           ) -> list[DplrHeadTransitions]:
    """Every head's transitions of ``layer`` (0-based) for the task of ``tracker`` (module docstring);
    ``S0`` (heads, dk, dv): the states after the BOS token, or None; ``windows``: layer 1's windows of
    symbol indices (lengths 1 and 2; :func:`~bilinear.learned.external.head_transitions` enumerates
    them under its limit); ``sample``: words and length sampled for a deeper layer."""
    if layer > 0:
        return _sampled(model, tracker, layer, seed, S0, sample)
    wins = windows
    heads: list[DplrHeadTransitions] = []
    for j in (1, 2):
        group = [t for t in wins if len(t) == j]
        ids = tracker.token_ids(np.array(group)) if j == 1 else tracker.tokens[np.array(group)]
        part = _heads(_inputs(model, ids, 0), 0, group, True)
        heads = part if not heads else [_concat(x, y) for x, y in zip(heads, part)]
    names = tracker.symbol_names
    windows = tuple(heads[0].keys)
    labels = tuple(window_name(t, names) for t in windows)
    return [replace(h, keys=labels, S0=None if S0 is None else S0[h.head], windows=windows) for h in heads]


def _sampled(model, tracker, layer: int, seed: int, S0, sample: tuple[int, int]) -> list[DplrHeadTransitions]:
    """Deeper layers: per current symbol, the visited transition nearest the mean over the positions
    of random words, with the spread (largest distance of a visited matrix from the mean, relative)."""
    n = tracker.n_symbols
    words = np.random.default_rng(seed).integers(0, n, size=sample)
    skip = 0 if tracker.bos is None else 1
    inp = _inputs(model, tracker.token_ids(words), layer)
    flat = {k: v[:, skip:].reshape(-1, 1, *v.shape[2:]) for k, v in inp.items() if k in ("decay", "kappa", "a", "k", "v")}
    sym = words.reshape(-1)
    out = []
    for h in _heads(flat, layer, range(len(sym)), False):
        pick, spread = [], []
        for s in range(n):
            m = np.flatnonzero(sym == s)
            if not len(m):
                raise AnalysisError(f"symbol {s} was not visited in the {sample[0]} sampled words")
            mean = h.A[m].mean(0)
            dist = np.abs(h.A[m] - mean).reshape(len(m), -1).max(1)
            pick.append(m[int(np.argmin(dist))])
            spread.append(float(dist.max() / max(np.abs(mean).max(), 1e-300)))
        idx = np.array(pick)
        out.append(DplrHeadTransitions(layer, h.head, tuple(tracker.symbol_names), h.A[idx], h.D[idx], h.U[idx],
                                       h.W[idx], h.b[idx], False, np.array(spread), None if S0 is None else S0[h.head],
                                       tuple((s,) for s in range(n))))
    return out

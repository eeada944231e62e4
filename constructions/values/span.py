"""The visited span: the subspace where a network's hidden states live at length.

A trained network often has directions it contracts (eigenvalues of modulus below the spectral
radius): they are reachable from h0 but die out along any long word, so a verdict about the
automaton the network implements need only hold on the span of the states it actually visits.
:func:`visited_span` runs ``words`` random words (seeded) of length ``burn_in + extra`` with the
renormalised float run (:func:`bilinear.constructions.values.floatrun.float_steps`), keeps the unit
hidden states from step ``burn_in`` on, and returns a frozen :class:`VisitedSpan`:

* ``basis`` (hidden, dim): orthonormal columns, the left singular vectors of the kept states whose
  singular value exceeds ``rank_tol`` times the largest;
* ``dim``: the dimension of the span;
* ``compressed`` (symbols, dim, dim): every ``A[s]`` projected onto it, ``V^T A[s] V``.

The spectra, commutators and relation residuals of :mod:`bilinear.analysis` all read the same
value; :func:`bilinear.analysis.report.analyze` computes it once and passes it to each.

Examples
--------
>>> import numpy as np
>>> from bilinear.constructions.values.weights import Weights
>>> w = Weights("diagonal", [[[1., 0.], [0., 0.5]], [[-1., 0.], [0., 0.5]]], [1., 1.], [[1., 0.], [-1., 0.]])
>>> span = visited_span(w)                 # the second coordinate decays by 2^-50 in the burn-in
>>> span.dim, np.abs(span.basis[:, 0]).round(6).tolist()
(1, [1.0, 0.0])
>>> span.compressed.round(6).tolist()      # A[0] and A[1] on the span: +1 and -1
[[[1.0]], [[-1.0]]]
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bilinear import argtypes
from bilinear.errors import AnalysisError

from .floatrun import check_compatible, float_steps, scale_exponents

__all__ = ["VisitedSpan", "visited_span", "visited_basis", "scale_normalised", "span_of_states"]


def _count(value, name: str, minimum: int = 1) -> int:
    return argtypes.check_positive_int(value, name, minimum, AnalysisError)


def scale_normalised(weights):
    """``weights`` with every float ``A[s]`` whose scale is extreme divided by a power of two
    (:func:`~bilinear.constructions.values.floatrun.scale_exponents`; factors' ``C[s]`` alike), the
    same object when none is.  Predictions are unchanged, and the analyses judge idempotence,
    orders, relations, commutators and margins on matrices that do not underflow: a network
    whose ``A`` is scaled by 1e-300 gets the verdicts of the unscaled one."""
    from bilinear.constructions.values.weights import Weights

    if weights.exact:
        return weights
    A, h0, R = weights.float_arrays()
    e = scale_exponents(A)
    if not e.any():
        return weights
    factors = None
    if weights.factors is not None:
        rescale = weights.variant_info.info.rescale
        if rescale is None:  # no free scale (householder): never extreme, keep the weights
            return weights
        factors = rescale(tuple(np.asarray(f) for f in weights.factors), e)
    return Weights(weights.variant, np.ldexp(A, -e[:, None, None]), h0, R, factors)


@dataclass(frozen=True, eq=False)
class VisitedSpan:
    """Orthonormal ``basis`` (hidden, dim) of the span of the unit hidden states visited after
    ``burn_in`` steps, and ``compressed`` (symbols, dim, dim) = ``basis^T A[s] basis``; the
    sampling parameters it was computed with are kept beside it."""

    basis: np.ndarray
    compressed: np.ndarray
    burn_in: int
    words: int
    extra: int
    seed: int
    rank_tol: float
    # a sample of the unit hidden states kept (samples, hidden): relations are judged on them
    # up to a positive scale per state (a reset sends every state to one direction, each with its
    # own scale); None when not kept
    states: np.ndarray | None = None

    @property
    def dim(self) -> int:
        """The dimension of the span (0 when every visited state is zero)."""
        return int(self.basis.shape[1])

    @property
    def hidden(self) -> int:
        return int(self.basis.shape[0])


def visited_basis(
    A: np.ndarray, h0: np.ndarray, burn_in: int = 50, words: int = 256, extra: int = 16,
    seed: int = 0, rank_tol: float = 1e-6,
) -> np.ndarray:
    """Orthonormal basis (hidden, r) of the unit hidden states visited *at length* (arrays in).

    Runs ``words`` random words (seeded) of length ``burn_in + extra`` with renormalisation,
    keeps the states from step ``burn_in`` on, and returns the left singular vectors whose
    singular value exceeds ``rank_tol`` times the largest.

    >>> A = np.array([[[1., 0.], [0., 0.5]]])          # the second direction decays
    >>> visited_basis(A, np.array([1., 1.]), burn_in=60).shape
    (2, 1)
    """
    return _basis_of(visited_states(A, h0, burn_in, words, extra, seed), np.asarray(h0).shape[0], rank_tol)


def visited_states(A: np.ndarray, h0: np.ndarray, burn_in: int = 50, words: int = 256, extra: int = 16,
                   seed: int = 0) -> np.ndarray:
    """The unit hidden states (samples, hidden) of ``words`` random words (seeded) of length
    ``burn_in + extra``, from step ``burn_in`` on (the renormalised float run)."""
    A = np.asarray(A, dtype=float)
    h = np.asarray(h0, dtype=float)
    rng = np.random.default_rng(seed)
    seq = rng.integers(0, A.shape[0], size=(words, burn_in + extra))
    kept = [H for t, H in enumerate(float_steps(A, h, seq), 1) if t >= burn_in]
    return np.concatenate(kept, axis=0) if kept else np.zeros((0, h.shape[0]))


def _basis_of(X: np.ndarray, hidden: int, rank_tol: float) -> np.ndarray:
    h = np.zeros(hidden)
    if not X.size or float(np.abs(X).max()) == 0.0:
        return np.zeros((h.shape[0], 0))
    U, S, _ = np.linalg.svd(X.T, full_matrices=False)
    r = int(np.sum(S > rank_tol * S[0]))
    return U[:, :r]


def visited_span(
    weights, burn_in: int = 50, words: int = 256, extra: int = 16, seed: int = 0, rank_tol: float = 0.05,
) -> VisitedSpan:
    """The :class:`VisitedSpan` of ``weights`` (exact weights are run in float).

    ``rank_tol`` sets how small a singular direction is ignored (a trained network leaks a little
    into directions it contracts).  Bad parameters raise AnalysisError naming them.
    """
    check_compatible(weights, None, required=False)
    burn_in = _count(burn_in, "burn_in", minimum=0)
    words = _count(words, "words")
    extra = _count(extra, "extra")
    seed = _count(seed, "seed", minimum=0)
    rank_tol = argtypes.check_tolerance(rank_tol, "rank_tol", AnalysisError)
    A, h0, _ = scale_normalised(weights).float_arrays()
    X = visited_states(A, h0, burn_in=burn_in, words=words, extra=extra, seed=seed)
    return span_of_states(weights, X, burn_in, words, extra, seed, rank_tol)


def span_of_states(weights, X: np.ndarray, burn_in: int = 50, words: int = 256, extra: int = 16, seed: int = 0,
                   rank_tol: float = 0.05) -> VisitedSpan:
    """The :class:`VisitedSpan` of ``weights`` on the hidden states ``X`` (samples, hidden) that
    something else ran, e.g. one layer of a stack fed by the layers below it (the sampling
    parameters are recorded as given); :func:`visited_span` is this on ``weights``' own random run.

    >>> from bilinear.constructions.values.weights import Weights
    >>> w = Weights("diagonal", [[[1., 0.], [0., 0.5]]], [1., 1.], [[1., 0.]])
    >>> span_of_states(w, np.array([[0., 2.], [0., -1.]])).compressed.tolist()
    [[[0.5]]]
    """
    A, h0, _ = scale_normalised(weights).float_arrays()
    X = np.asarray(X, dtype=float).reshape(-1, h0.shape[0])
    V = _basis_of(X, h0.shape[0], rank_tol)
    C = np.einsum("ia,sij,jb->sab", V, A, V)  # (symbols, dim, dim): V^T A[s] V
    sample = X[:: max(1, X.shape[0] // MAX_KEPT_STATES)][:MAX_KEPT_STATES]
    return VisitedSpan(V, C, burn_in, words, extra, seed, rank_tol, states=sample)


#: Most visited states a :class:`VisitedSpan` keeps (for the per-state relation check).
MAX_KEPT_STATES = 512

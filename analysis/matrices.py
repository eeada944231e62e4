"""Shared helpers of the analysis room: word products, exact scalar tests, parameter checks.

A word ``w = a_1 ... a_T`` acts on the hidden state as ``A(w) = A[a_T] ... A[a_1]`` (the first
symbol is applied first).  Hidden states matter only up to a *positive* scalar (the readout has no
bias), so "A(u) acts like A(v)" means ``A(u) = c A(v)`` with ``c > 0``.

Exact weights (object arrays of int, Fraction or cyclotomic field elements) are multiplied with
numpy's object matmul, which uses the entries' own ``+`` and ``*``: no rounding, no ``simplify``.

>>> import numpy as np
>>> A = np.array([[[0, -1], [1, 0]], [[1, 0], [0, -1]]], dtype=object)
>>> word_matrix(A, (0, 1)).tolist()          # A[1] @ A[0]
[[0, -1], [-1, 0]]
>>> positive_multiple(2 * np.eye(2, dtype=int).astype(object), np.eye(2, dtype=int).astype(object))
2
>>> positive_multiple(-np.eye(2, dtype=int).astype(object), np.eye(2, dtype=int).astype(object)) is None
True
"""

from __future__ import annotations

import itertools
from fractions import Fraction
from typing import Iterator, Sequence

import numpy as np

from bilinear import argtypes
from bilinear.errors import AnalysisError

__all__ = [
    "check_tolerance",
    "word_matrix",
    "words_up_to",
    "positive_multiple",
    "is_zero_matrix",
    "exact_sign_of",
    "scale_free_distance",
    "float_matrix",
    "exact_enough",
    "EXACT_MAX_DIM",
]


def check_tolerance(tol, name: str = "tol") -> float:
    """``tol`` as a positive finite float, or AnalysisError naming it
    (:func:`bilinear.argtypes.check_tolerance`).

    >>> check_tolerance(1e-6)
    1e-06
    >>> check_tolerance(0)
    Traceback (most recent call last):
    ...
    bilinear.errors.AnalysisError: tolerance tol must be positive and finite, got 0
    """
    return argtypes.check_tolerance(tol, name, AnalysisError)


def check_positive_int(value, name: str, minimum: int = 1) -> int:
    """``value`` as an int >= ``minimum``, or AnalysisError naming it
    (:func:`bilinear.argtypes.check_positive_int`)."""
    return argtypes.check_positive_int(value, name, minimum, AnalysisError)


def _identity_like(A: np.ndarray) -> np.ndarray:
    d = A.shape[-1]
    if A.dtype == object:
        out = np.zeros((d, d), dtype=object)
        for i in range(d):
            out[i, i] = 1
        return out
    return np.eye(d)


def word_matrix(A: np.ndarray, word: Sequence[int]) -> np.ndarray:
    """``A(word) = A[w_T] ... A[w_1]``, shape (hidden, hidden); identity for the empty word.

    Works for float arrays and for exact object arrays alike.
    """
    M = _identity_like(A)
    for a in word:
        M = A[int(a)] @ M
    return M


def words_up_to(n_symbols: int, max_length: int, min_length: int = 1, limit: int | None = None) -> Iterator[tuple[int, ...]]:
    """Words over ``range(n_symbols)`` in shortlex order, lengths ``min_length..max_length``.

    >>> list(words_up_to(2, 2))
    [(0,), (1,), (0, 0), (0, 1), (1, 0), (1, 1)]
    """
    count = 0
    for n in range(min_length, max_length + 1):
        for w in itertools.product(range(n_symbols), repeat=n):
            if limit is not None and count >= limit:
                return
            count += 1
            yield w


def is_zero_matrix(M: np.ndarray) -> bool:
    """True when every entry is exactly zero (exact entries compared with ``== 0``)."""
    return all(x == 0 for x in np.asarray(M).flat)


def exact_sign_of(x) -> int:
    """The exact sign of an int, Fraction or real field element."""
    from bilinear.constructions.exact.field import exact_sign

    if isinstance(x, (int, Fraction)):
        return (x > 0) - (x < 0)
    return exact_sign(x)


def positive_multiple(M: np.ndarray, N: np.ndarray):
    """The exact ``c > 0`` with ``M == c N`` entrywise, or None (exact object arrays).

    ``N`` must not be zero (None is returned when it is).  Division happens once, at the first
    non-zero entry of ``N``; every other entry is then compared exactly.
    """
    Mf, Nf = list(np.asarray(M).flat), list(np.asarray(N).flat)
    pivot = next((i for i, x in enumerate(Nf) if not x == 0), None)
    if pivot is None:
        return None
    n = Nf[pivot]
    m = Mf[pivot]
    if isinstance(n, int) and isinstance(m, int):
        c = Fraction(m, n)
    else:
        c = m / n
    if exact_sign_of(c) <= 0:
        return None
    for x, y in zip(Mf, Nf):
        if not (x - c * y) == 0:
            return None
    if isinstance(c, Fraction) and c.denominator == 1:
        return int(c)
    return c


def scale_free_distance(M: np.ndarray, N: np.ndarray) -> float:
    """``min_{c >= 0} ||M - c N||_F / ||M||_F`` (float), i.e. ``sqrt(1 - max(cos, 0)^2)``.

    ``cos`` is the Frobenius cosine of M and N.  0 when M is a positive multiple of N, 1 when
    no positive multiple helps (orthogonal, or pointing the opposite way).  Two zero matrices
    are at distance 0; a zero and a non-zero matrix at distance 1.

    >>> scale_free_distance(np.eye(2), 3 * np.eye(2)) < 1e-15
    True
    >>> scale_free_distance(np.eye(2), -np.eye(2))
    1.0
    """
    M = np.asarray(M, dtype=float)
    N = np.asarray(N, dtype=float)
    nm, nn = float(np.linalg.norm(M)), float(np.linalg.norm(N))
    if nm == 0 and nn == 0:
        return 0.0
    if nm == 0 or nn == 0:
        return 1.0
    m, n = M / nm, N / nn
    cos = float(np.sum(m * n))
    if cos <= 0:
        return 1.0
    # ||m - cos n|| directly: sqrt(1 - cos^2) would cancel to 0 for nearly parallel matrices
    return min(1.0, float(np.linalg.norm(m - cos * n)))


#: Largest hidden size for which exact weights are multiplied exactly (object matmul costs
#: O(d^3) Python operations per product); larger exact weights are analysed in float.
EXACT_MAX_DIM = 24


def exact_enough(weights) -> bool:
    """True when ``weights`` are exact and small enough for exact products."""
    return bool(weights.exact) and weights.dim <= EXACT_MAX_DIM


def float_matrix(M: np.ndarray) -> np.ndarray:
    """An exact or float matrix as float64."""
    M = np.asarray(M)
    if M.dtype == object:
        return np.vectorize(float, otypes=[float])(M) if M.size else np.zeros(M.shape)
    return M.astype(float)


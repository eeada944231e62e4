"""Exact and float rank decompositions of transition matrices (used by the factorized variant).

>>> U, W = rank_decomposition(np.array([[1, 2], [2, 4]], dtype=object))
>>> U.tolist(), W.tolist()
([[1], [2]], [[1], [2]])
"""

from __future__ import annotations

from collections import OrderedDict
from fractions import Fraction

import flint
import numpy as np

from .entries import simplify as _simplify
from ..exact.field import FieldElement
from .memo import _CLEARS, MAX_ENTRIES

__all__ = ["rank_decomposition", "float_rank_decomposition", "rational_matrix", "from_rational_matrix",
           "rational_householder", "fraction_vector"]


def _is_zero(x) -> bool:
    return x == 0


def rank_decomposition(M, rational: "flint.fmpq_mat | None" = None) -> tuple[np.ndarray, np.ndarray]:
    """Exact rank decomposition ``M = U @ W.T`` with ``U, W`` of shape (rows, r), r = rank.

    Gaussian elimination over the exact entries (ints, Fractions, field elements): U holds the
    pivot columns of M, W^T the non-zero rows of its reduced row echelon form.  ``rational``: M's
    FLINT matrix when the caller has made it already (:func:`rational_matrix`), used as it is.

    >>> U, W = rank_decomposition(np.array([[1, 2], [2, 4]], dtype=object))
    >>> U.shape, (U @ W.T).tolist()
    ((2, 1), [[1, 2], [2, 4]])
    """
    M = np.array(M, dtype=object)
    rows, cols = M.shape
    if rational is not None or (rows and cols and not any(isinstance(x, FieldElement) for x in M.flat)):
        return _rational_rank_decomposition(M, rational)
    R = [[M[i, j] for j in range(cols)] for i in range(rows)]
    pivots: list[int] = []
    r = 0
    for j in range(cols):
        p = next((i for i in range(r, rows) if not _is_zero(R[i][j])), None)
        if p is None:
            continue
        R[r], R[p] = R[p], R[r]
        inv = Fraction(1) / R[r][j] if not isinstance(R[r][j], FieldElement) else R[r][j].inverse()
        R[r] = [x * inv for x in R[r]]
        for i in range(rows):
            if i != r and not _is_zero(R[i][j]):
                f = R[i][j]
                R[i] = [a - f * b for a, b in zip(R[i], R[r])]
        pivots.append(j)
        r += 1
        if r == rows:
            break
    U = np.empty((rows, r), dtype=object)
    W = np.empty((cols, r), dtype=object)
    for k, j in enumerate(pivots):
        for i in range(rows):
            U[i, k] = _simplify(M[i, j])
        for c in range(cols):
            W[c, k] = _simplify(R[k][c])
    return U, W


def _rational_rank_decomposition(M: np.ndarray, fm: "flint.fmpq_mat | None" = None) -> tuple[np.ndarray, np.ndarray]:
    """rank_decomposition over Q with FLINT's reduced row echelon form (fast, exact); ``fm``: M's
    FLINT matrix when already made."""
    rows, cols = M.shape
    if fm is None:
        fm = rational_matrix(M.flat, rows, cols)  # ints and Fractions straight to FLINT
    if fm is None:  # other rationals (floats, numpy scalars): through one Fraction each
        fm = flint.fmpq_mat(rows, cols, [flint.fmpq(int(f.numerator), int(f.denominator)) for f in map(Fraction, M.flat)])
    rref, rank = fm.rref()
    pivots = []
    for r in range(rank):
        for c in range(cols):
            if rref[r, c] != 0:
                pivots.append(c)
                break
    U = np.empty((rows, rank), dtype=object)
    W = np.empty((cols, rank), dtype=object)
    for k, j in enumerate(pivots):
        for i in range(rows):
            U[i, k] = _simplify(M[i, j])
        for c in range(cols):
            q = rref[k, c]
            W[c, k] = _simplify(Fraction(int(q.p), int(q.q)))
    return U, W


def rational_matrix(entries, rows: int, cols: int) -> "flint.fmpq_mat | None":
    """The ``rows x cols`` FLINT matrix of ``entries`` (row-major) when every entry is an int or a
    Fraction (numpy integers included, booleans not), else None: the caller then keeps its general
    exact path (field elements).  FLINT's rational arithmetic is exact, so a computation done on
    the result equals the one done on the Fractions, entry for entry.

    >>> rational_matrix([1, Fraction(1, 2)], 1, 2), rational_matrix([1, 2.0], 1, 2), rational_matrix([True], 1, 1)
    ([1, 1/2], None, None)
    >>> rational_matrix([Fraction(np.int64(3), 4), np.int64(-2)], 2, 1).entries()   # numpy integers, inside a Fraction too
    [3/4, -2]
    """
    values: list = []
    for x in entries:
        if type(x) is int:  # the common entries first, without the abstract checks
            values.append(x)
        elif isinstance(x, Fraction):  # parts made int: a Fraction of numpy integers keeps them
            values.append(flint.fmpq(int(x.numerator), int(x.denominator)))
        elif isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_)):
            values.append(flint.fmpq(int(x)))
        else:
            return None
    return flint.fmpq_mat(rows, cols, values)


def from_rational_matrix(fm: "flint.fmpq_mat") -> np.ndarray:
    """A FLINT rational matrix as an object array of lowest-form entries (an int when integral,
    else a Fraction): the form the exact paths of this package produce.

    >>> from_rational_matrix(flint.fmpq_mat(1, 2, [2, flint.fmpq(1, 3)])).tolist()
    [[2, Fraction(1, 3)]]
    """
    out = np.empty((fm.nrows(), fm.ncols()), dtype=object)
    for k, q in enumerate(fm.entries()):
        out.flat[k] = int(q.p) if q.q == 1 else Fraction(int(q.p), int(q.q))
    return out


def fraction_vector(fm: "flint.fmpq_mat") -> np.ndarray:
    """A FLINT column (or row) as a 1-D object array of Fractions, integral entries too: what the
    same computation in Fractions gives, where a caller hands back vectors as Fractions.

    >>> fraction_vector(flint.fmpq_mat(2, 1, [2, flint.fmpq(1, 3)])).tolist()
    [Fraction(2, 1), Fraction(1, 3)]
    """
    out = np.empty(fm.nrows() * fm.ncols(), dtype=object)
    out[:] = [Fraction(int(x.p), int(x.q)) for x in fm.entries()]
    return out


def float_rank_decomposition(M: np.ndarray, tol: float) -> tuple[np.ndarray, np.ndarray]:
    """``M ~= U @ W.T`` from the SVD, keeping the singular values above ``tol`` (float)."""
    u, s, vt = np.linalg.svd(M)
    r = int((s > tol).sum())
    return u[:, :r] * s[:r], vt[:r].T


#: One symbol's exact rational compositions already made (:func:`rational_householder`), keyed by its factors
#: with beta != 0: the registry composes the same factors again for every count it tries
#: (``bilinear tour``'s capability matrix: 130 different ones in 1,329 compositions).
_COMPOSED: OrderedDict = OrderedDict()
_CLEARS.append(_COMPOSED.clear)  # memo.clear_caches() forgets them too


def rational_householder(V, beta, d: int) -> np.ndarray | None:
    """One symbol's product of Householder factors ``H(V[0], beta[0]) @ ... @ H(V[K-1], beta[K-1])``
    in FLINT (:func:`_rational_householder`; None where an entry is no int or Fraction), remembered
    for the last :data:`~.memo.MAX_ENTRIES` factor lists of ints and Fractions (others are not
    kept: field elements take the general path of
    :func:`~bilinear.constructions.values.factored.householder_compose` anyway)."""
    parts: list = []  # each factor's d entries and beta as (numerator, denominator): ints hash fast
    for v, b in zip(V, beta):
        if b == 0:
            continue
        for x in (*v, b):
            kind = type(x)
            if kind is int:
                parts += (x, 1)
            elif kind is Fraction:
                parts += (x.numerator, x.denominator)
            else:
                return _rational_householder(V, beta, d)
    key = (d, tuple(parts))
    got = _COMPOSED.get(key)
    if got is None:
        got = _rational_householder(V, beta, d)
        if got is None:
            return None
        got.setflags(write=False)
        _COMPOSED[key] = got
        while len(_COMPOSED) > MAX_ENTRIES:
            _COMPOSED.popitem(last=False)
    else:
        _COMPOSED.move_to_end(key)
    return got


def _rational_householder(V, beta, d: int) -> np.ndarray | None:
    """One symbol's ``H(V[0], beta[0]) @ ... @ H(V[K-1], beta[K-1])`` in FLINT's exact rationals
    when every entry is an int or a Fraction (else None: field elements take the general path).
    The same rank-one updates ``M - (b / v.v) (M v) v^T`` in the same order, so the same exact
    matrix; C arithmetic instead of Python Fractions (``modular_arithmetic:3``'s half-turns, d = 25
    and K = 189, composed 30-60x faster)."""
    M = flint.fmpq_mat(d, d, [1 if i == j else 0 for i in range(d) for j in range(d)])
    for v_entries, b in zip(V, beta):
        if b == 0:
            continue
        v = rational_matrix(list(v_entries), d, 1)
        coeff = rational_matrix([b], 1, 1)
        if v is None or coeff is None:
            return None
        n = (v.transpose() * v)[0, 0]
        if n == 0:
            return None  # the general path raises its own error
        M = M - (M * v) * (v.transpose() * (coeff[0, 0] / n))
    return from_rational_matrix(M)

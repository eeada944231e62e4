"""Variants defined by their factors: Householder products, monomial (PD) and diagonal plus low rank.

Each function here is the conformance check (``check_*``) or the projection (``project_*``) of one
row of :data:`bilinear.constructions.values.variants.KINDS`; the weights carry the factors and ``A`` is
always their composition (checked):

``householder:K`` (``,nonneg``)
    ``V`` (symbols, K, hidden), ``beta`` (symbols, K):
    ``A[s] = H(V[s,0], beta[s,0]) @ ... @ H(V[s,K-1], beta[s,K-1])`` with the generalised
    reflection ``H(v, b) = I - b v v^T / (v^T v)`` (``v != 0``), ``b`` in [0, 2] (``nonneg``:
    [0, 1]).  With rational or cyclotomic ``v`` the division by ``v^T v`` is exact: no square root.
``monomial``
    ``perm`` (symbols, hidden) integers in [0, hidden), ``D`` (symbols, hidden):
    ``A[s][perm[s, j], j] = D[s, j]``, every other entry 0 (``A[s] = P_s diag(D[s])`` with
    ``P_s`` column one-hot: any map of the coordinates, as PD-SSM's).
``monomial,complex``
    ``hidden = 2 m`` real coordinates are ``m`` complex ones, ``z_j = h[2j] + i h[2j+1]``;
    ``perm`` (symbols, m) integers in [0, m), ``D`` (symbols, hidden) with ``D[s, 2j] + i D[s, 2j+1]``
    the complex entry of column ``j``: the 2x2 block of ``A[s]`` at block row ``perm[s, j]``, block
    column ``j`` is ``[[a, -b], [b, a]]`` with ``(a, b) = (D[s, 2j], D[s, 2j+1])``, every other
    entry 0 (PD-SSM with complex D, in real form).
``dplr:R``
    ``D`` (symbols, hidden), ``U``, ``W`` (symbols, hidden, R): ``A[s] = diag(D[s]) + U[s] W[s]^T``.

Exact weights are checked exactly (betas by exact sign; ``A`` equal to the composition entry by
entry).  Float weights are checked per factor against its own scale: ``beta`` against [0, 2] with
absolute slack ``rtol`` (a beta is scale-free), each ``v`` by its own norm, and ``A[s]`` against
the composition with tolerance ``rtol * max(max|A[s]|, max|composition|)``; accepted floats are
snapped (betas clipped, ``A`` replaced by the composition), so the exact prover sees weights that
conform exactly.

When the factors are omitted they are derived where that is exact and canonical:

* householder: an orthogonal ``A[s]`` (``A^T A = I``) is split by the constructive
  Cartan-Dieudonne step (``v = A x - x`` sends ``A x`` back to ``x`` for a coordinate vector ``x``
  that ``A`` moves) into ``rank(A[s] - I)`` reflections, the fewest possible; a symmetric ``A[s]``
  with ``rank(I - A[s]) <= 1`` is one generalised reflection (``v`` a non-zero column of
  ``I - A``, ``beta = trace(I - A)``).  Missing factors are padded with ``beta = 0``.  Anything
  else is refused (ConformanceError): pass ``V`` and ``beta``.
* monomial: from the pattern of ``A`` (each column at most one non-zero entry; ``complex``: each
  block column at most one non-zero 2x2 block, read from its first column and checked to be
  ``[[a, -b], [b, a]]`` by the composition).
* dplr: per matrix the diagonal among ``0``, ``I``, ``diag(A[s])`` and, for ``hidden = 2``,
  ``diag(a - b, d - c)`` (then ``A - D = (b, c)^T (1, 1)``), whichever leaves the lowest rank
  for ``A[s] - D``, whose rank decomposition gives ``U`` and ``W``.

>>> import numpy as np
>>> V = np.array([[[1, 0]], [[0, 1]]], dtype=object); beta = np.array([[2], [0]], dtype=object)
>>> householder_compose(V, beta).tolist()
[[[-1, 0], [0, 1]], [[1, 0], [0, 1]]]
>>> derive_householder(np.array([[[0, -1], [1, 0]]], dtype=object), 2, True, "householder:2", 0.0, 2)[1].tolist()
[[2, 2]]
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from bilinear.errors import ConformanceError

from .entries import fmt as _fmt
from .entries import freeze as _freeze
from .entries import simplify
from ..exact.field import exact_sign
from .linalg import float_rank_decomposition, rank_decomposition, rational_householder, rational_matrix

__all__ = [
    "householder_compose", "check_householder", "derive_householder", "project_householder",
    "monomial_compose", "check_monomial", "derive_monomial", "derive_complex_monomial", "project_monomial",
    "dplr_compose", "check_dplr", "derive_dplr", "project_dplr",
    "reflection_count", "compose_factors",
]


#: Most factors (K reflections, R rank-one terms) per hidden dimension: past ``hidden`` they add
#: nothing (an orthogonal matrix needs at most hidden reflections, rank R >= hidden is any matrix),
#: and the limit stops a typo from allocating (symbols, K, hidden) arrays of any size.
MAX_COUNT_PER_HIDDEN = 64


def check_count(spec: str, name: str, count: int, symbols: int, hidden: int, per_symbol: int) -> None:
    """ConformanceError, with the entries the factors would hold, when ``count`` (K or R) passes
    ``MAX_COUNT_PER_HIDDEN x hidden`` (checked before any factor is allocated).

    >>> check_count("householder:1000", "K", 1000, 2, 3, 3)
    Traceback (most recent call last):
    ...
    bilinear.errors.ConformanceError: variant 'householder:1000': K = 1,000 is over 64 x hidden = 192 (factors would hold 6,000 entries); use K <= 192
    """
    most = MAX_COUNT_PER_HIDDEN * max(hidden, 1)
    if count > most:
        raise ConformanceError(f"variant {spec!r}: {name} = {count:,} is over {MAX_COUNT_PER_HIDDEN} x hidden = {most:,} "
                               f"(factors would hold {symbols * count * per_symbol:,} entries); use {name} <= {most:,}")


def _eye(d: int, exact: bool) -> np.ndarray:
    if exact:
        out = np.zeros((d, d), dtype=object)
        for i in range(d):
            out[i, i] = 1
        return out
    return np.eye(d)


def _zero(x, exact: bool, tol: float = 0.0) -> bool:
    return x == 0 if exact else abs(float(x)) <= tol


def _checked_composition(A, comp, exact: bool, rtol, spec: str, describe):
    """``A`` when every ``A[s]`` equals the composition of its factors ``comp[s]`` (exactly, or
    for floats within ``rtol`` of that matrix's own scale, then the float composition itself),
    else a ConformanceError naming the first entry that differs; ``describe(s, i, j)`` names the
    composed entry in the message."""
    for s in range(A.shape[0]):
        bad = _matrix_eq(A[s], comp[s], exact, 0.0 if exact else _tol(rtol, A[s], comp[s]))
        if bad is not None:
            i, j = bad
            raise ConformanceError(f"variant {spec!r}: A[{s}][{i}, {j}] = {_fmt(A[s, i, j])} differs from "
                                   f"{describe(s, i, j)}")
    return A if exact else _freeze(np.asarray(comp, dtype=np.float64))


def _matrix_eq(X, Y, exact: bool, tol: float) -> tuple[int, int] | None:
    """The first (i, j) where X and Y differ (exactly, or by more than tol), else None."""
    diff = X - Y
    bad = np.argwhere(np.asarray(diff != 0, dtype=bool) if exact else np.abs(diff.astype(np.float64)) > tol)
    return None if not bad.size else (int(bad[0][0]), int(bad[0][1]))


def _tol(rtol: float, *arrays) -> float:
    return rtol * max([1e-300] + [float(np.abs(np.asarray(a, dtype=np.float64)).max(initial=0.0)) for a in arrays])


def _frozen(x, exact: bool):
    return _freeze(np.asarray(x, dtype=object if exact else np.float64))


# ------------------------------------------------------------------------------------------
# householder
# ------------------------------------------------------------------------------------------
def reflection(v, b, exact: bool = True) -> np.ndarray:
    """``I - b v v^T / (v^T v)`` (exact for rational or field entries: one division, no root).
    A float v is first scaled by the power of two that brings its largest entry into [1/2, 1)
    (exact, and the reflection does not change): v = (1e-170, 0) or a subnormal had ``v^T v``
    underflow to 0 (a nan matrix), v = (1e200, 0) overflow.

    >>> reflection([5e-324, 0.0], 2.0, exact=False).tolist()
    [[-1.0, 0.0], [0.0, 1.0]]
    """
    v = np.asarray(v, dtype=object if exact else np.float64)
    if not exact:
        top = float(np.abs(v).max(initial=0.0))
        if 0.0 < top < np.inf:
            v = np.ldexp(v, -np.frexp(top)[1])
    n = v @ v
    if exact and isinstance(n, int):
        n = Fraction(n)
    H = _eye(v.shape[0], exact) - np.outer(v, v) * (b / n)
    return _simplified(H) if exact else H


def _simplified(M: np.ndarray) -> np.ndarray:
    """Exact entries in lowest form (a Fraction with denominator 1 becomes an int)."""
    out = np.empty(M.shape, dtype=object)
    for index, x in np.ndenumerate(M):
        out[index] = simplify(x)
    return out


def householder_compose(V, beta, exact: bool = True) -> np.ndarray:
    """``(symbols, hidden, hidden)``: ``A[s] = H(V[s,0], beta[s,0]) @ ... @ H(V[s,K-1], beta[s,K-1])``."""
    S, K, d = V.shape
    out = []
    for s in range(S):
        fast = rational_householder(V[s], beta[s], d) if exact else None
        if fast is not None:
            out.append(fast)
            continue
        M = _eye(d, exact)
        for j in range(K):
            if exact:  # M H(v, b) = M - (b / v.v) (M v) v^T: O(d^2) exact operations, not O(d^3)
                v = np.asarray(V[s, j], dtype=object)
                n = v @ v
                if isinstance(n, int):
                    n = Fraction(n)
                if beta[s, j] != 0:
                    M = M - np.outer(M @ v, v) * (beta[s, j] / n)
            else:  # floats: the matrix product, rounded as it always was
                M = M @ reflection(V[s, j], beta[s, j], exact)
        out.append(_simplified(M) if exact else M)
    return np.stack(out) if out else np.zeros((0, d, d))


def check_householder(variant, A, exact: bool, factors, rtol: float):
    """Conformance of ``householder:K`` weights (module docstring); returns ``(A, (V, beta))``."""
    K, spec = variant.param, variant.spec
    top = 1 if variant.nonneg else 2
    S, d, _ = A.shape
    check_count(spec, "K", K, S, d, d + 1)
    if factors is None:
        factors = derive_householder(A, K, exact, spec, rtol, top)
    V, beta = factors
    if V.shape != (S, K, d) or beta.shape != (S, K):
        raise ConformanceError(f"variant {spec!r}: factors V {V.shape} and beta {beta.shape}, expected "
                               f"({S}, {K}, {d}) and ({S}, {K})")
    if not exact:
        V, beta = np.asarray(V, dtype=np.float64), np.asarray(beta, dtype=np.float64)
    for s in range(S):
        for j in range(K):
            b = beta[s, j]
            low = exact_sign(b) < 0 if exact else b < -rtol
            high = exact_sign(b - top) > 0 if exact else b > top + rtol
            if low or high:
                raise ConformanceError(f"variant {spec!r}: beta[{s}, {j}] = {_fmt(b)} is outside [0, {top}]")
            v = V[s, j]
            if exact and all(x == 0 for x in v) or not exact and not np.abs(v).max() > 0:
                raise ConformanceError(f"variant {spec!r}: V[{s}, {j}] is the zero vector (a reflection needs v != 0)")
    if not exact:
        beta = np.clip(beta, 0.0, float(top))
    comp = householder_compose(V, beta, exact)
    A = _checked_composition(A, comp, exact, rtol, spec,
                             lambda s, i, j: f"the product of its reflections, {_fmt(comp[s, i, j])}")
    return A, (_frozen(V, exact), _frozen(beta, exact))


def compose_factors(variant, factors, exact: bool = True) -> np.ndarray:
    """``A`` (symbols, hidden, hidden) of a factored variant from its factors, in the kind's own
    order (``factorized``: ``U diag(C[s]) W^T``; the kinds above as their ``*_compose``).  With
    ``exact`` the factors' entries (floats included, as the dyadic rationals they are) are composed
    without rounding: that is the network a float file of a factored variant defines
    (docs/formats.md, "The network a float file defines").

    >>> from bilinear.constructions.values.variants import parse_variant
    >>> U = np.array([[1.0], [3.0]]); C = np.array([[0.1]]); W = np.array([[1.0], [0.0]])
    >>> compose_factors(parse_variant("factorized:1"), (U, C, W))[0, 1, 0] == Fraction(0.1) * 3
    True
    """
    names = variant.info.factor_names  # the kind is known by its factors
    if exact:
        factors = tuple(f if f.dtype.kind in "iu" else dyadic(f) for f in factors)
    if names == ("V", "beta"):
        V, beta = factors
        return householder_compose(V, beta, exact)
    if names == ("perm", "D"):
        perm, D = factors
        return monomial_compose(perm, D, exact, variant.complex)
    if names == ("D", "U", "W"):
        D, U, W = factors
        return dplr_compose(D, U, W, exact)
    if names == ("U", "C", "W"):
        U, C, W = factors
        out = np.stack([(U * C[s][None, :]) @ W.T for s in range(C.shape[0])])
        return _simplified(out) if exact else out
    raise ConformanceError(f"variant {variant.spec!r} has no factors to compose")


def dyadic(array) -> np.ndarray:
    """An object array of the exact values of ``array``'s entries: a float is the dyadic rational
    it is (``Fraction(x)``, an ``int`` when integral); exact entries are kept.

    >>> dyadic(np.array([0.5, 3.0, 0.1])).tolist()[:2], dyadic(np.array([0.1]))[0] == Fraction(3602879701896397, 2**55)
    ([Fraction(1, 2), 3], True)
    """
    array = np.asarray(array)
    out = np.empty(array.shape, dtype=object)
    for index, x in np.ndenumerate(array):
        out[index] = simplify(Fraction(float(x))) if isinstance(x, (float, np.floating)) else x
    return out


def positive_multiple(M, P) -> bool:
    """Whether the exact matrix M (d x d) is ``c (P (+) N)`` for some c > 0 and some N: its leading
    block of P's size (d0 x d0) is c P, and its entries between that block and the rest are 0.
    The constructions that replace factors by others (Theorems F10, F13) check their products
    with it; a positive multiple changes no argmax of the scan.

    >>> P = np.array([[Fraction(0), Fraction(1)], [Fraction(-1), Fraction(0)]], dtype=object)
    >>> positive_multiple(2 * P, P), positive_multiple(-2 * P, P)
    (True, False)
    """
    d0, d = P.shape[0], M.shape[0]
    first = next(((i, j) for i in range(d0) for j in range(d0) if P[i, j] != 0), None)
    if first is None:
        return False
    c = M[first] / P[first]
    return (c > 0 and all(M[r, q] == c * P[r, q] for r in range(d0) for q in range(d0))
            and all(M[r, q] == 0 for r in range(d) for q in range(d) if (r >= d0) != (q >= d0)))


def _orthogonal(M, exact: bool, tol: float) -> bool:
    return _matrix_eq(M.T @ M, _eye(M.shape[0], exact), exact, tol) is None


def _split_orthogonal(Q, exact: bool, tol: float, limit: int | None = None) -> list:
    """Reflection vectors v_1..v_k (beta = 2) with ``Q = H(v_1) ... H(v_k)``, k = rank(Q - I);
    with ``limit``, at most ``limit + 1`` of them: the split stops as soon as it is known to need
    more than ``limit`` (the caller refuses that many).  Exactly, each step is the rank-one update
    ``H(v) M = M - (2 / v^T v) v (v^T M)`` (the same numbers as the product with ``H(v)``, in
    O(d^2) instead of O(d^3))."""
    d = Q.shape[0]
    M, vs = Q, []
    for i in range(d):
        v = M[:, i].copy()
        v[i] = v[i] - 1  # M e_i - e_i
        if all(_zero(t, exact, tol) for t in v):
            continue
        vs.append(_simplified(v) if exact else v)
        if limit is not None and len(vs) > limit:
            break
        if exact:
            n = v @ v
            M = M - np.outer(v, v @ M) * (2 / (Fraction(n) if isinstance(n, int) else n))
        else:
            M = reflection(v, 2, exact) @ M
    return vs


def signed_permutation_count(M) -> int | None:
    """``rank(M - I)`` of an exact signed permutation matrix ``M`` (one entry 1 or -1 per row and
    column: orthogonal), None for any other matrix; read off the cycles: on a cycle of length L
    whose entries multiply to p, ``M - I`` has rank L when p = -1 and L - 1 when p = 1 (its
    determinant is ``+-(1 - p)``; ``lambda^L = p`` has simple roots).  One-hot and permutation
    constructions (d up to the states) are so counted, not split into reflections.

    >>> signed_permutation_count(np.array([[0, 1, 0], [1, 0, 0], [0, 0, -1]], dtype=object))
    2
    """
    M = np.asarray(M, dtype=object)
    d = M.shape[0]
    nonzero = np.array([[x != 0 for x in row] for row in M], dtype=bool).reshape(d, d)
    if not (nonzero.sum(axis=0) == 1).all() or not (nonzero.sum(axis=1) == 1).all():
        return None
    image = nonzero.argmax(axis=0)  # column j is sent to row image[j]
    signs = [M[image[j], j] for j in range(d)]
    if not all(x == 1 or x == -1 for x in signs):
        return None
    seen, rank = [False] * d, 0
    for j in range(d):
        if seen[j]:
            continue
        length, product = 0, 1
        while not seen[j]:
            seen[j] = True
            length, product = length + 1, product * (1 if signs[j] == 1 else -1)
            j = int(image[j])
        rank += length - (product == 1)
    return rank


def derive_householder(A, K: int, exact: bool, spec: str, rtol: float, top: int | None):
    """``(V, beta)`` for matrices that are orthogonal or single generalised reflections (see the
    module docstring), padded with ``beta = 0``; ConformanceError otherwise.  ``top`` is the
    variant's largest beta: with ``top = 1`` (``nonneg``) only the identity and single reflections
    with beta <= 1 can conform (an orthogonal split has beta = 2), so the O(d^3) orthogonality test
    and rank are skipped where the trace, the reflection's beta, already rules a matrix out;
    ``top = None`` (a projection, which clips the betas afterwards) checks no range."""
    S, d, _ = A.shape
    dtype = object if exact else np.float64
    V = np.zeros((S, K, d), dtype=dtype)
    beta = np.zeros((S, K), dtype=dtype)
    zero, one = (0, 1) if exact else (0.0, 1.0)
    for s in range(S):
        M = A[s]
        tol = 0.0 if exact else _tol(rtol, M)
        N = _eye(d, exact) - M
        vs: list = []
        bs: list = []
        symmetric = _matrix_eq(M, M.T, exact, tol) is None
        counted = signed_permutation_count(M) if exact and (top is None or top >= 2) else None
        if all(_zero(t, exact, tol) for t in N.flat):
            pass
        elif counted is not None and counted > K:  # a one-hot or permutation matrix: not split to be refused
            raise ConformanceError(
                f"variant {spec!r}: A[{s}] needs {counted} reflections (rank(A - I) = {counted}) > K = {K}")
        elif (top is None or top >= 2) and (counted is not None or _orthogonal(M, exact, 10 * tol)):
            vs = _split_orthogonal(M, exact, 10 * tol, K)
            bs = [2 * one] * len(vs)
        elif symmetric and top is not None and not _within(_trace(N), top, exact, tol):
            raise ConformanceError(  # before the O(d^3) rank: a reflection's beta is this trace
                f"variant {spec!r}: A[{s}] is symmetric with trace(I - A) = {_fmt(_trace(N))}, outside [0, {top}], "
                f"so it is no single generalised reflection of this variant (whose beta is that trace); "
                f"pass the factors V and beta")
        elif symmetric and reflection_count(M, exact, tol) == 1:
            col = next(j for j in range(d) if not all(_zero(t, exact, tol) for t in N[:, j]))
            vs, bs = [N[:, col]], [_trace(N)]
        else:
            what = ("neither orthogonal nor one symmetric generalised reflection" if top is None or top >= 2 else
                    "neither the identity nor one symmetric generalised reflection with beta in [0, 1] "
                    "(orthogonal matrices split into reflections with beta = 2)")
            raise ConformanceError(
                f"variant {spec!r}: A[{s}] is {what}, so its reflections cannot be derived; pass the factors V and beta")
        if len(vs) > K:  # the split stopped at K + 1: the exact count, O(d^3), only where d is small
            n = reflection_count(M, exact, 10 * tol) if M.shape[0] <= 64 else None
            needs = f"{n} reflections (rank(A - I) = {n}) > K = {K}" if n is not None else \
                f"more than K = {K} reflections (rank(A - I) > {K})"
            raise ConformanceError(f"variant {spec!r}: A[{s}] needs {needs}")
        for j in range(K):
            if j < len(vs):
                V[s, j], beta[s, j] = vs[j], bs[j]
            else:
                V[s, j, 0], beta[s, j] = one, zero
    return _frozen(V, exact), _frozen(beta, exact)


def householder_count(A, exact: bool, options: tuple[str, ...] = (), rtol: float = 1e-6) -> int | None:
    """The least K (at least 1) with which :func:`derive_householder` expresses every matrix of
    ``A``, None when one has no derived factors: an orthogonal matrix takes ``rank(A - I)``
    reflections (Theorem F4 of docs/theory.md; a signed permutation counted by its cycles, none
    split), but not under ``nonneg`` (beta = 2), one symmetric generalised reflection takes 1.

    >>> rot = np.array([[[0, -1, 0], [1, 0, 0], [0, 0, 1]]], dtype=object)
    >>> householder_count(rot, True), householder_count(rot, True, ("nonneg",))
    (2, None)
    """
    top = 1 if "nonneg" in options else 2
    most = 1
    for M in A:
        tol = 0.0 if exact else _tol(rtol, M)
        N = _eye(M.shape[0], exact) - M
        if all(_zero(t, exact, tol) for t in N.flat):
            continue
        count = signed_permutation_count(M) if exact and top >= 2 else None
        if count is None and top >= 2 and _orthogonal(M, exact, 10 * tol):
            count = reflection_count(M, exact, 10 * tol)
        if (count is None and _matrix_eq(M, M.T, exact, tol) is None and _within(_trace(N), top, exact, tol)
                and reflection_count(M, exact, tol) == 1):
            count = 1
        if count is None:
            return None
        most = max(most, count)
    return most


def _trace(N):
    return sum(N[i, i] for i in range(N.shape[0]))


def _within(beta, top, exact: bool, tol: float) -> bool:
    """``0 <= beta <= top`` (exactly, or within ``tol`` in floats): the trace of ``I - A`` is the
    beta of a single generalised reflection ``A``."""
    if exact:
        return exact_sign(beta) >= 0 and exact_sign(beta - top) <= 0
    return -tol <= float(beta) <= top + tol


def reflection_count(M, exact: bool = True, tol: float = 0.0) -> int:
    """``rank(M - I)``: a product of K generalised reflections has ``rank(A - I) <= K``, so this is
    a lower bound on the K of any Householder factorisation of ``M`` (Theorem F3 of docs/theory.md).

    >>> reflection_count(np.array([[0, -1], [1, 0]], dtype=object))
    2
    """
    N = np.asarray(M) - _eye(M.shape[0], exact)
    if exact:
        return int(rank_decomposition(N)[0].shape[1])
    return int(float_rank_decomposition(np.asarray(N, dtype=np.float64), max(tol, 1e-9))[0].shape[1])


def pad_householder(factors, K: int):
    """``(V, beta)`` with factors ``H(e_0, 0) = I`` appended up to K (None when there are more)."""
    V, beta = factors
    S, k, d = V.shape
    if k > K or K > MAX_COUNT_PER_HIDDEN * max(d, 1):
        return None
    exact = V.dtype == object
    V2 = np.zeros((S, K, d), dtype=V.dtype)
    b2 = np.zeros((S, K), dtype=beta.dtype)
    if exact:
        V2[...], b2[...] = 0, 0
    V2[:, :k], b2[:, :k] = V, beta
    V2[:, k:, 0] = 1
    return V2, b2


def pad_dplr(factors, R: int):
    """``(D, U, W)`` with zero columns appended up to R (None when there are more)."""
    D, U, W = factors
    if U.shape[2] > R or R > MAX_COUNT_PER_HIDDEN * max(U.shape[1], 1):
        return None
    out = []
    for f in (U, W):
        g = np.zeros(f.shape[:2] + (R,), dtype=f.dtype)
        if f.dtype == object:
            g[...] = 0
        g[:, :, : f.shape[2]] = f
        out.append(g)
    return (D, *out)


def project_householder(variant, A, factors):
    """The composition of given factors (betas clipped to the variant's range); without factors,
    orthogonal matrices are split as in :func:`derive_householder`, else ConformanceError."""
    top = 1.0 if variant.nonneg else 2.0
    if factors is None:
        V, beta = derive_householder(np.asarray(A, dtype=np.float64), variant.param, False, variant.spec, 1e-6, None)
    else:
        V, beta = (np.asarray(f, dtype=np.float64) for f in factors)
    beta = np.clip(beta, 0.0, top)
    return householder_compose(V, beta, False), (V, beta)


# ------------------------------------------------------------------------------------------
# monomial
# ------------------------------------------------------------------------------------------
def monomial_compose(perm, D, exact: bool = True, complex_: bool = False) -> np.ndarray:
    """``A[s][perm[s, j], j] = D[s, j]``, zeros elsewhere; with ``complex_`` the block
    ``[[a, -b], [b, a]]``, ``(a, b) = (D[s, 2j], D[s, 2j+1])``, at block ``(perm[s, j], j)``.

    >>> monomial_compose(np.array([[1, 1]]), np.array([[3, 4, 0, 1]], dtype=object), complex_=True)[0].tolist()
    [[0, 0, 0, 0], [0, 0, 0, 0], [3, -4, 0, -1], [4, 3, 1, 0]]
    """
    S, d = D.shape
    A = np.zeros((S, d, d), dtype=object if exact else np.float64)
    if exact:
        A[...] = 0
    for s in range(S):
        if complex_:
            for j in range(d // 2):
                p, a, b = 2 * int(perm[s, j]), D[s, 2 * j], D[s, 2 * j + 1]
                A[s, p, 2 * j], A[s, p + 1, 2 * j], A[s, p, 2 * j + 1], A[s, p + 1, 2 * j + 1] = a, b, -b, a
            continue
        for j in range(d):
            A[s, int(perm[s, j]), j] = D[s, j]
    return A


def _as_perm(perm, d: int, spec: str) -> np.ndarray:
    out = np.zeros(perm.shape, dtype=np.int64)
    for index, x in np.ndenumerate(perm):
        if isinstance(x, bool) or not float(x) == int(x) or not 0 <= int(x) < d:
            shown = int(x) if isinstance(x, (int, np.integer)) and not isinstance(x, bool) else repr(x)
            raise ConformanceError(f"variant {spec!r}: perm[{', '.join(map(str, index))}] = {shown} is not an "
                                   f"integer in [0, {d})")
        out[index] = int(x)
    return out


def derive_monomial(A, exact: bool, spec: str, rtol: float = 1e-6):
    """``(perm, D)`` read off the pattern of A (a zero column gets perm 0, D 0); ConformanceError
    naming a column with two non-zero entries."""
    S, d, _ = A.shape
    perm = np.zeros((S, d), dtype=np.int64)
    D = np.zeros((S, d), dtype=object if exact else np.float64)
    for s in range(S):
        tol = 0.0 if exact else _tol(rtol, A[s])
        for j in range(d):
            big = [i for i in range(d) if not _zero(A[s, i, j], exact, tol)]
            if len(big) > 1:
                raise ConformanceError(
                    f"variant {spec!r}: column {j} of A[{s}] has non-zero entries in rows {big[0]} and {big[1]} "
                    f"(A[{s}][{big[1]}, {j}] = {_fmt(A[s, big[1], j])}); a monomial matrix has at most one per column")
            i = big[0] if big else 0
            perm[s, j], D[s, j] = i, A[s, i, j] if big else (0 if exact else 0.0)
    return _freeze(perm), _frozen(D, exact)


def derive_complex_monomial(A, exact: bool, spec: str, rtol: float = 1e-6):
    """``(perm, D)`` of ``monomial,complex`` read off the block pattern of A: per block column
    the one 2x2 block with a non-zero entry (an all-zero block column gets perm 0, D 0), ``(a, b)``
    its first column; ConformanceError naming a block column with two non-zero blocks.  Whether
    each block is ``[[a, -b], [b, a]]`` is checked by the composition (:func:`check_monomial`)."""
    S, d, _ = A.shape
    m = d // 2
    perm = np.zeros((S, m), dtype=np.int64)
    D = np.zeros((S, d), dtype=object if exact else np.float64)
    if exact:
        D[...] = 0
    for s in range(S):
        tol = 0.0 if exact else _tol(rtol, A[s])
        for j in range(m):
            big = [p for p in range(m) if any(not _zero(A[s, 2 * p + r, 2 * j + c], exact, tol)
                                              for r in (0, 1) for c in (0, 1))]
            if len(big) > 1:
                raise ConformanceError(
                    f"variant {spec!r}: block column {j} of A[{s}] (columns {2 * j}, {2 * j + 1}) has non-zero blocks "
                    f"in block rows {big[0]} and {big[1]} (rows {2 * big[0]}-{2 * big[0] + 1} and "
                    f"{2 * big[1]}-{2 * big[1] + 1}); a complex monomial matrix has at most one per block column")
            if big:
                p = big[0]
                perm[s, j], D[s, 2 * j], D[s, 2 * j + 1] = p, A[s, 2 * p, 2 * j], A[s, 2 * p + 1, 2 * j]
    return _freeze(perm), _frozen(D, exact)


def check_monomial(variant, A, exact: bool, factors, rtol: float):
    """Conformance of ``monomial`` weights; returns ``(A, (perm, D))``."""
    S, d, _ = A.shape
    spec = variant.spec
    if variant.complex:
        return _check_complex_monomial(variant, A, exact, factors, rtol)
    if factors is None:
        factors = derive_monomial(A, exact, spec, rtol)
    perm, D = factors
    if perm.shape != (S, d) or D.shape != (S, d):
        raise ConformanceError(f"variant {spec!r}: factors perm {perm.shape} and D {D.shape}, expected ({S}, {d})")
    perm = _as_perm(perm, d, spec)
    comp = monomial_compose(perm, D, exact)
    A = _checked_composition(A, comp, exact, rtol, spec, lambda s, i, j: (
        f"(P D)[{i}, {j}] = {_fmt(comp[s, i, j])} (perm[{s}, {j}] = {perm[s, j]})"))
    return A, (_freeze(perm), _frozen(D, exact))


def _check_complex_monomial(variant, A, exact: bool, factors, rtol: float):
    S, d, _ = A.shape
    spec = variant.spec
    if d % 2:
        raise ConformanceError(f"variant {spec!r}: hidden size {d} is odd; the complex coordinates are pairs "
                               "(h[2j], h[2j+1])")
    if factors is None:
        factors = derive_complex_monomial(A, exact, spec, rtol)
    perm, D = factors
    if perm.shape != (S, d // 2) or D.shape != (S, d):
        raise ConformanceError(f"variant {spec!r}: factors perm {perm.shape} and D {D.shape}, expected "
                               f"({S}, {d // 2}) and ({S}, {d}) (one index and one complex entry (a, b) per "
                               "complex coordinate)")
    perm = _as_perm(perm, d // 2, spec)
    comp = monomial_compose(perm, D, exact, complex_=True)
    A = _checked_composition(A, comp, exact, rtol, spec, lambda s, i, j: (
        f"(P D)[{i}, {j}] = {_fmt(comp[s, i, j])} (perm[{s}, {j // 2}] = {perm[s, j // 2]}, the block "
        f"[[a, -b], [b, a]] with (a, b) = ({_fmt(D[s, j - j % 2])}, {_fmt(D[s, j - j % 2 + 1])}))"))
    return A, (_freeze(perm), _frozen(D, exact))


def project_monomial(variant, A, factors):
    """Keep the largest entry of each column (the nearest monomial matrix in Frobenius norm);
    ``complex``: the largest 2x2 block of each block column, made its nearest scaled rotation."""
    A = np.asarray(A, dtype=np.float64)
    if variant.complex:
        return _project_complex_monomial(A, factors)
    if factors is not None:
        perm, D = np.asarray(factors[0], dtype=np.int64), np.asarray(factors[1], dtype=np.float64)
    else:
        perm = np.abs(A).argmax(axis=1)  # (symbols, hidden): the row of each column's largest entry
        D = np.take_along_axis(A, perm[:, None, :], axis=1)[:, 0, :]
    return monomial_compose(perm, D, False), (perm, D)


def _project_complex_monomial(A, factors):
    S, d, _ = A.shape
    if factors is not None:
        perm, D = np.asarray(factors[0], dtype=np.int64), np.asarray(factors[1], dtype=np.float64)
        return monomial_compose(perm, D, False, complex_=True), (perm, D)
    m = d // 2
    blocks = A.reshape(S, m, 2, m, 2)  # (symbols, block row, r, block column, c)
    a = (blocks[:, :, 0, :, 0] + blocks[:, :, 1, :, 1]) / 2  # (symbols, block row, block column)
    b = (blocks[:, :, 1, :, 0] - blocks[:, :, 0, :, 1]) / 2
    perm = np.hypot(a, b).argmax(axis=1)  # (symbols, block columns): the nearest block per column
    D = np.empty((S, d))
    D[:, 0::2] = np.take_along_axis(a, perm[:, None, :], axis=1)[:, 0, :]
    D[:, 1::2] = np.take_along_axis(b, perm[:, None, :], axis=1)[:, 0, :]
    return monomial_compose(perm, D, False, complex_=True), (perm, D)


# ------------------------------------------------------------------------------------------
# diagonal plus low rank
# ------------------------------------------------------------------------------------------
def dplr_compose(D, U, W, exact: bool = True) -> np.ndarray:
    """``A[s] = diag(D[s]) + U[s] W[s]^T``."""
    S, d = D.shape
    out = []
    for s in range(S):
        M = U[s] @ W[s].T
        M = np.array(M, dtype=object if exact else np.float64)
        for i in range(d):
            M[i, i] = M[i, i] + D[s, i]
        out.append(M)
    return np.stack(out)


def _diagonal_candidates(M, exact: bool):
    d = M.shape[0]
    zero, one = (0, 1) if exact else (0.0, 1.0)
    yield [zero] * d
    yield [one] * d
    yield [M[i, i] for i in range(d)]
    if d == 2:
        yield [M[0, 0] - M[0, 1], M[1, 1] - M[1, 0]]


def derive_dplr(A, R: int, exact: bool, spec: str, rtol: float = 1e-6):
    """``(D, U, W)``: per matrix the candidate diagonal (module docstring) leaving the lowest rank,
    padded with zero columns to R; ConformanceError when that rank exceeds R."""
    S, d, _ = A.shape
    dtype = object if exact else np.float64
    zero = 0 if exact else 0.0
    D = np.full((S, d), zero, dtype=dtype)
    U = np.full((S, d, R), zero, dtype=dtype)
    W = np.full((S, d, R), zero, dtype=dtype)
    for s in range(S):
        best: tuple | None = None  # (rank, candidate, A[s] - diag, its (U, W) or None until chosen, its FLINT matrix)
        for cand in _diagonal_candidates(A[s], exact):
            low = np.array(A[s], dtype=dtype)
            for i in range(d):
                low[i, i] = low[i, i] - cand[i]
            fm = rational_matrix(low.flat, d, d) if exact else None
            if fm is not None:  # rational: the rank alone picks, and only the chosen one is decomposed
                got: tuple = (fm.rank(), cand, low, None, fm)
            else:
                uw = rank_decomposition(low) if exact else float_rank_decomposition(low, _tol(rtol, A[s]))
                got = (uw[0].shape[1], cand, low, uw, None)
            if best is None or got[0] < best[0]:  # the first of the lowest rank
                best = got
        assert best is not None  # _diagonal_candidates yields at least two candidates
        r, cand, low, uw, fm = best
        u, w = rank_decomposition(low, rational=fm) if uw is None else uw  # its FLINT matrix made once
        if r > R:
            raise ConformanceError(
                f"variant {spec!r}: A[{s}] minus each tried diagonal (0, I, its own diagonal) has rank >= {r} > R = {R}; "
                f"pass the factors D, U, W")
        D[s] = cand
        U[s, :, :r], W[s, :, :r] = u, w
    return _frozen(D, exact), _frozen(U, exact), _frozen(W, exact)


def dplr_count(A, exact: bool, options: tuple[str, ...] = ()) -> int:
    """The least R with which :func:`derive_dplr` expresses every matrix of ``A``: the largest
    over the matrices of the lowest rank left by a candidate diagonal (``dplr`` has no options).

    >>> dplr_count(np.array([[[0, 1, 0], [0, 0, 1], [1, 0, 0]]], dtype=object), True)
    2
    """
    d = A.shape[1]
    _, U, _ = derive_dplr(A, d, exact, "dplr")
    nonzero = [j for j in range(d) if any(not _zero(x, exact, 0.0 if exact else 1e-300) for x in U[:, :, j].flat)]
    return max(1, len(nonzero) and nonzero[-1] + 1)


def check_dplr(variant, A, exact: bool, factors, rtol: float):
    """Conformance of ``dplr:R`` weights; returns ``(A, (D, U, W))``."""
    R, spec = variant.param, variant.spec
    S, d, _ = A.shape
    check_count(spec, "R", R, S, d, 2 * d)
    derived = factors is None
    if factors is None:
        factors = derive_dplr(A, R, exact, spec, rtol)
    D, U, W = factors
    if D.shape != (S, d) or U.shape != (S, d, R) or W.shape != (S, d, R):
        raise ConformanceError(f"variant {spec!r}: factors D {D.shape}, U {U.shape}, W {W.shape}, expected "
                               f"({S}, {d}), ({S}, {d}, {R}), ({S}, {d}, {R})")
    comp = dplr_compose(D, U, W, exact)
    given = A
    A = _checked_composition(A, comp, exact, rtol, spec,
                             lambda s, i, j: f"(diag(D) + U W^T)[{i}, {j}] = {_fmt(comp[s, i, j])}")
    if derived and not exact and not np.array_equal(np.asarray(A, dtype=np.float64), np.asarray(given, dtype=np.float64)):
        on_the_dot = _exact_dplr(given, R, spec)
        if on_the_dot is not None:  # the floats as written are diag + rank R: only the factors round
            return given, on_the_dot
    return A, tuple(_frozen(f, exact) for f in (D, U, W))


def _exact_dplr(A, R: int, spec: str):
    """The factors (rounded to floats) of the float matrices ``A`` read as the binary fractions they
    are, when those are exactly ``diag(D) + U W^T`` with rank <= R (``[[0, 1], [1, 0]] = I +
    [-1, 1][1, -1]^T``, whose float factors compose to within 4.4e-16 of it); None otherwise."""
    from fractions import Fraction

    exact_A = np.vectorize(lambda x: Fraction(float(x)), otypes=[object])(np.asarray(A, dtype=np.float64))
    try:
        factors = derive_dplr(exact_A, R, True, spec)
    except ConformanceError:
        return None
    return tuple(_frozen(np.asarray(f, dtype=np.float64), False) for f in factors)


def project_dplr(variant, A, factors):
    """The composition of given factors; else ``diag(A[s])`` plus the rank-R truncated SVD of the
    off-diagonal part (a conforming point near A, not always the nearest)."""
    A = np.asarray(A, dtype=np.float64)
    R = variant.param
    if factors is not None:
        D, U, W = (np.asarray(f, dtype=np.float64) for f in factors)
        return dplr_compose(D, U, W, False), (D, U, W)
    S, d, _ = A.shape
    D = np.diagonal(A, axis1=1, axis2=2).copy()
    U, W = np.zeros((S, d, R)), np.zeros((S, d, R))
    for s in range(S):
        off = A[s] - np.diag(D[s])
        u, sv, vt = np.linalg.svd(off)
        r = min(R, d)
        U[s, :, :r], W[s, :, :r] = u[:, :r] * sv[:r], vt[:r].T
    return dplr_compose(D, U, W, False), (D, U, W)

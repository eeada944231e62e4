"""Spectra of the transition matrices: eigenvalues against roots of unity, orders up to scale.

Normalisation.  A bilinear RNN's hidden state matters only up to a positive scalar, so each
``A_sigma`` has a free scale.  Eigenvalues are divided by the **spectral radius** rho(A) (the
largest modulus), not by ``|det A|^(1/d)``: the determinant is 0 for every singular matrix (resets,
projections, aperiodic automata), where ``|det|^(1/d)`` cannot normalise anything, while rho(A)
is positive for every non-nilpotent matrix.  For a matrix of finite order up to scale
(``A^k = c I``) all eigenvalues have the same modulus, so both normalisations agree there and the
normalised eigenvalues are k-th roots of unity.

Orders.  ``A`` has *index i and period p up to scale* when ``A^(i+p) = c A^i`` for some ``c > 0``
(smallest ``i + p``, then smallest ``i``); index 0 means ``A^p = c I``: ``A`` acts with order p on
hidden states (which are rays).  For exact weights this is decided exactly (object-array matmul in
the weights' own field and an exact comparison), and the result says ``exact: true``; the
eigenvalues themselves are then the float eigenvalues of the float matrix, assigned to the k-th
roots of unity, which is unambiguous because the exact identity ``A^k = c I`` forces them there.

Examples
--------
>>> from bilinear.constructions.exact.field import cos2pi, sin2pi
>>> from bilinear.constructions.values.weights import Weights
>>> c, s = cos2pi(1, 5), sin2pi(1, 5)
>>> w = Weights("rotation2d", [[[c, -s], [s, c]]], [1, 0], [[1, 0]])
>>> sp = spectrum(w)
>>> sp.symbols[0].reading
'acts as a rotation of order 5 on a 2-dimensional subspace'
>>> sp.symbols[0].exact, sp.symbols[0].period, [r.order for r in sp.symbols[0].roots]
(True, 5, [5, 5])
"""

from __future__ import annotations

import cmath
import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from bilinear.constructions.values.floatrun import check_compatible
from bilinear.constructions.values.span import VisitedSpan, scale_normalised, visited_span
from bilinear.errors import AnalysisError

from .matrices import (
    EXACT_MAX_DIM,
    check_positive_int,
    check_tolerance,
    float_matrix,
    is_zero_matrix,
    positive_multiple,
    scale_free_distance,
    word_matrix,
    words_up_to,
)

__all__ = [
    "RootMatch",
    "MatrixSpectrum",
    "Spectrum",
    "spectrum",
    "matrix_spectrum",
    "nearest_root",
    "power_structure",
    "EXACT_MAX_DIM",
]



@dataclass(frozen=True)
class RootMatch:
    """The root of unity ``exp(2 pi i j / order)`` nearest to a normalised eigenvalue.

    ``order`` is the primitive order (``gcd(j, order) = 1``; order 1 is the root 1) and
    ``distance`` is ``|lambda - root|`` in the complex plane.
    """

    eigenvalue: complex
    order: int
    j: int
    distance: float

    @property
    def root(self) -> complex:
        return cmath.exp(2j * math.pi * self.j / self.order)

    def to_json(self) -> dict:
        return {
            "eigenvalue": [self.eigenvalue.real, self.eigenvalue.imag],
            "order": self.order,
            "j": self.j,
            "distance": self.distance,
        }


#: Largest ``max_order`` searched: every order up to it costs a matrix power per matrix and a
#: scan of the roots of unity, so 10^8 would run for hours.
MAX_ORDER = 10_000


def check_max_order(max_order) -> int:
    """``max_order`` as an int in ``1..MAX_ORDER``, else AnalysisError naming the limit."""
    max_order = check_positive_int(max_order, "max_order")
    if max_order > MAX_ORDER:
        raise AnalysisError(f"max_order {max_order:,} exceeds the limit {MAX_ORDER:,} "
                            f"(bilinear.analysis.spectrum.MAX_ORDER); orders past it are not searched")
    return max_order


def nearest_root(z: complex, max_order: int) -> RootMatch:
    """The root of unity of primitive order <= ``max_order`` nearest to ``z`` (ties: lower order).

    >>> r = nearest_root(complex(math.cos(2 * math.pi / 5), math.sin(2 * math.pi / 5)), 12)
    >>> r.order, r.j, r.distance < 1e-12
    (5, 1, True)
    >>> nearest_root(-1 + 0j, 12).order
    2
    """
    z = complex(z)
    theta = math.atan2(z.imag, z.real)
    best: RootMatch | None = None
    for k in range(1, max_order + 1):
        j = int(round(theta * k / (2 * math.pi))) % k
        g = math.gcd(j, k)
        order, jj = k // g, j // g
        root = cmath.exp(2j * math.pi * jj / order)
        dist = abs(z - root)
        if best is None or dist < best.distance - 1e-12 or (abs(dist - best.distance) <= 1e-12 and order < best.order):
            best = RootMatch(z, order, jj, float(dist))
    assert best is not None
    return best


def _normalise_rows(M: np.ndarray) -> np.ndarray:
    n = float(np.linalg.norm(M))
    return M / n if n > 0 else M


def power_structure(M: np.ndarray, max_order: int, tol: float, exact: bool = False) -> tuple[int, int] | None:
    """``(index, period)``: the smallest ``i + p <= max_order`` (then smallest i) with
    ``M^(i+p) = c M^i``, ``c > 0`` — exactly for exact matrices, else within ``tol`` of the
    scale-free distance.  None when no such pair exists up to ``max_order``.

    >>> power_structure(np.array([[0., -1.], [1., 0.]]), 12, 1e-9)
    (0, 4)
    >>> power_structure(np.array([[1., 0.], [0., 0.]]), 12, 1e-9)
    (1, 1)
    >>> power_structure(np.array([[1, 1], [0, 1]], dtype=object), 12, 1e-9, exact=True) is None
    True
    """
    d = M.shape[0]
    if exact:
        ident = np.zeros((d, d), dtype=object)
        for i in range(d):
            ident[i, i] = 1
        powers = [ident]
        for n in range(1, max_order + 1):
            P = M @ powers[-1]
            for i in range(n):
                if is_zero_matrix(powers[i]):
                    if is_zero_matrix(P):
                        return (i, n - i)
                    continue
                if positive_multiple(P, powers[i]) is not None:
                    return (i, n - i)
            powers.append(P)
        return None
    powers = [np.eye(d)]
    Mf = np.asarray(M, dtype=float)
    for n in range(1, max_order + 1):
        P = _normalise_rows(Mf @ powers[-1])
        for i in range(n):
            if scale_free_distance(P, powers[i]) <= tol:
                return (i, n - i)
        powers.append(P)
    return None


@dataclass(frozen=True)
class MatrixSpectrum:
    """Spectrum and order up to scale of one matrix (a symbol's, a word's, or one block of it).

    ``eigenvalues`` are raw (complex), ``scale`` the spectral radius, ``normalised`` the
    eigenvalues divided by it, ``roots`` the nearest root of unity to each normalised eigenvalue.
    ``index``/``period`` as in :func:`power_structure` (None: none up to ``max_order``),
    ``exact`` whether they were decided exactly.  ``reading`` is one English sentence.
    """

    name: str
    word: tuple[int, ...]
    block: int | None
    dim: int
    eigenvalues: tuple[complex, ...]
    scale: float
    normalised: tuple[complex, ...]
    roots: tuple[RootMatch, ...]
    index: int | None
    period: int | None
    exact: bool
    rank: int
    reading: str
    visited_order: int | None = None
    visited_residual: float | None = None
    visited_dim: int | None = None
    visited: "MatrixSpectrum | None" = None  # the spectrum of V^T A V on the visited span
    span_tol: float | None = None  # tolerance of the verdict on the visited span

    @property
    def holds_on_span(self) -> bool:
        """The order on the visited span is within ``span_tol`` (float weights only)."""
        return (self.visited_order is not None and self.visited_residual is not None
                and self.span_tol is not None and self.visited_residual <= self.span_tol)

    @property
    def headline(self) -> str:
        """The verdict on the visited span with the full-space one beside it (float weights), or
        :attr:`reading` (exact weights, or no visited span)."""
        if self.visited is None or (self.order is not None and self.visited_order == self.order):
            return self.reading
        full = self.reading if self.order is not None else _short_reading(self)
        if self.holds_on_span:
            reading = self.visited.reading.replace(" (up to a positive scale)", "")
            return (f"on the {self.visited_dim}-dimensional visited span {reading} "
                    f"(order {self.visited_order}, residual {self.visited_residual:.2g}); "
                    f"on the full {self.dim}-dimensional space it {full}")
        vs = self.visited
        if vs.index is not None and vs.index > 0:  # not invertible there: a reset or a write
            said = vs.reading.replace(" (up to a positive scale)", "")
            within = "" if _TOLERANCE_SAID in said else f" (within {self.span_tol:g})"  # the float note says it
            return (f"{self.reading}; on the {self.visited_dim}-dimensional visited span it {said}{within}, "
                    f"not of finite order")
        return (f"{self.reading}; on the {self.visited_dim}-dimensional visited span it is closest to "
                f"order {self.visited_order} (residual {self.visited_residual:.2g}, above {self.span_tol:g})")

    @property
    def order(self) -> int | None:
        """The order up to scale (``A^k = c I``), or None when A is not invertible of finite order."""
        return self.period if self.index == 0 else None

    def to_json(self) -> dict:
        return {
            "name": self.name,
            "word": list(self.word),
            "block": self.block,
            "dim": self.dim,
            "eigenvalues": [[z.real, z.imag] for z in self.eigenvalues],
            "scale": self.scale,
            "normalised": [[z.real, z.imag] for z in self.normalised],
            "roots": [r.to_json() for r in self.roots],
            "index": self.index,
            "period": self.period,
            "order": self.order,
            "exact": self.exact,
            "rank": self.rank,
            "reading": self.reading,
            "visited_order": self.visited_order,
            "visited_residual": self.visited_residual,
            "visited_dim": self.visited_dim,
            "visited_holds": self.holds_on_span,
            "visited_reading": None if self.visited is None else self.visited.reading,
            "visited_normalised": None if self.visited is None else [[z.real, z.imag] for z in self.visited.normalised],
            "headline": self.headline,
        }


def _power_distance(M: np.ndarray, index: int, period: int) -> float:
    """``min_c ||M^(i+p) - c M^i|| / ||M^(i+p)||`` in float64 (0 when the relation holds to the bit)."""
    X, Y = np.linalg.matrix_power(M, index + period), np.linalg.matrix_power(M, index)
    ny, nx = float(np.linalg.norm(Y)), float(np.linalg.norm(X))
    if ny == 0 or nx == 0:
        return 0.0
    c = float(np.sum(X * Y)) / ny**2
    return float(np.linalg.norm(X - c * Y)) / nx


def _short_reading(m: "MatrixSpectrum") -> str:
    """A short full-space reading for a matrix without a finite order."""
    mods = [abs(z) for z in m.normalised] or [0.0]
    return f"has no finite order up to scale (eigenvalue moduli {min(mods):.2g}..{max(mods):.2g})"


def _dims(n: int) -> str:
    return f"{n}-dimensional subspace"


#: The words of a float reading's note that name its tolerance (a headline then names it once).
_TOLERANCE_SAID = "within the tolerance"


def _order_dividing(z: complex, period: int) -> int:
    """The order of the root of unity of order dividing ``period`` nearest to ``z``'s direction.

    >>> _order_dividing(-1 + 0.0004j, 2), _order_dividing(1j, 8), _order_dividing(1 + 0j, 5)
    (2, 4, 1)
    """
    j = round(math.atan2(z.imag, z.real) * period / (2 * math.pi)) % period
    return period // math.gcd(j, period)


def _reading(normalised: Sequence[complex], roots: Sequence[RootMatch], structure, rank: int, d: int, max_order: int, tol: float) -> str:
    if rank == 0:
        return "is zero (sends every hidden state to 0)"
    if max(abs(z) for z in normalised) == 0:
        return "is nilpotent (every eigenvalue is 0)"
    if structure is None:
        mods = [abs(z) for z in normalised]
        on_circle = [r for r, z in zip(roots, normalised) if abs(abs(z) - 1) <= 1e-2]
        orders = sorted({r.order for r in on_circle})
        near = ""
        if on_circle:
            near = (
                f"; its unit-modulus eigenvalues lie near roots of unity of order "
                f"{', '.join(map(str, orders))} (distance up to {max(r.distance for r in on_circle):.2g})"
            )
        return (
            f"has no finite order up to scale (powers up to {max_order} checked, tolerance {tol:g}); "
            f"normalised eigenvalue moduli {min(mods):.3g}..{max(mods):.3g}{near}"
        )
    index, period = structure
    if index == 0:
        if period == 1:
            return "acts as the identity (up to a positive scale)"
        # each eigenvalue's order among the period's roots (A^period = cI): the nearest root up to
        # max_order may be of another order when max_order and tol are large (an eigenvalue 4e-4 rad
        # from -1 is nearer a root of order 7853 than -1, and A^2 is within 1e-3 of cI)
        orders = [_order_dividing(z, period) for z in normalised]
        fixed, negated = orders.count(1), orders.count(2)
        by_order: dict[int, int] = {}
        for k in orders:
            if k > 2:
                by_order[k] = by_order.get(k, 0) + 1
        if not by_order and negated == 1:
            return "acts as a reflection" + (f" (fixing a {_dims(fixed)})" if fixed > 1 else "")
        if not by_order and negated == d:
            return "acts as -I (negates every hidden state)"
        if not by_order and negated:
            return f"acts as an involution negating a {_dims(negated)}"
        parts = [f"a rotation of order {k} on a {_dims(n)}" for k, n in sorted(by_order.items())]
        if negated:
            parts.append(f"negation of a {_dims(negated)}")
        head = "acts as " if len(parts) == 1 else f"has order {period} up to scale: "
        text = head + "; ".join(parts)
        if fixed and len(parts) >= 1 and period > 2:
            text += f", fixing a {_dims(fixed)}"
        if fixed and not parts:
            text = f"has order {period} up to scale"
        return text
    if period == 1 and index == 1:
        return f"is idempotent up to scale (a projection of rank {rank})"
    if period == 1:
        return f"is eventually idempotent up to scale (A^{index + 1} = c·A^{index}), rank {rank}"
    return f"has index {index} and period {period} up to scale (A^{index + period} = c·A^{index}), rank {rank}"


def matrix_spectrum(
    M: np.ndarray,
    name: str = "A",
    word: tuple[int, ...] = (),
    block: int | None = None,
    max_order: int = 12,
    tol: float = 1e-6,
) -> MatrixSpectrum:
    """Spectrum, nearest roots of unity and order up to scale of one square matrix.

    Exact (object) matrices up to :data:`EXACT_MAX_DIM` get their order decided exactly.

    >>> ms = matrix_spectrum(np.array([[1., 0.], [0., -1.]]), "A_s")
    >>> ms.reading, ms.order, sorted(r.order for r in ms.roots)
    ('acts as a reflection', 2, [1, 2])
    """
    max_order = check_max_order(max_order)  # a public entry: its power search is bounded before it runs
    M = np.asarray(M)
    if M.ndim != 2 or M.shape[0] != M.shape[1]:
        raise AnalysisError(f"{name}: expected a square matrix, got shape {M.shape}")
    d = M.shape[0]
    is_exact = M.dtype == object
    Mf = float_matrix(M)
    if not np.isfinite(Mf).all():
        raise AnalysisError(f"{name}: matrix has non-finite entries")
    top = float(np.abs(Mf).max()) if Mf.size else 0.0
    # every verdict is up to scale: a matrix of subnormal or huge entries is divided by a power of
    # two first (exact), so that its eigenvalues, powers and squares neither underflow nor overflow
    e = int(np.frexp(top)[1]) if top and not 2.0**-500 <= top <= 2.0**500 else 0
    Ms = np.ldexp(Mf, -e)
    eig = np.linalg.eigvals(Ms)
    order = np.lexsort((np.angle(eig), -np.abs(eig)))
    eig = eig[order]
    radius = float(np.max(np.abs(eig))) if eig.size else 0.0
    normalised = eig / radius if radius > 0 else eig
    scale = float(np.ldexp(radius, e))
    if e:  # the eigenvalues of the matrix itself (as small or as large as its entries)
        eig = np.ldexp(eig.real, e) + 1j * np.ldexp(eig.imag, e)
    rank = int(np.linalg.matrix_rank(Ms, tol=max(Ms.shape) * np.finfo(float).eps * max(np.ldexp(top, -e), 1e-300) * 1e3)) if Ms.size else 0
    if top == 0.0:
        rank = 0
    roots = tuple(nearest_root(z, max_order) for z in normalised) if radius > 0 else ()
    decide_exactly = is_exact and d <= EXACT_MAX_DIM
    structure = power_structure(M if decide_exactly else Ms, max_order, tol, exact=decide_exactly)
    reading = _reading(tuple(complex(z) for z in normalised), roots, structure, rank, d, max_order, tol)
    if structure is not None and structure[0] > 0 and rank > 0 and not decide_exactly:
        off = _power_distance(Ms, *structure)
        if off > 64 * np.finfo(float).eps:  # "A^(i+p) = c A^i" holds only within the tolerance: say so
            i, p = structure
            reading += (f" (float: A^{i + p} is c·A^{i} only up to a scale-free distance of {off:.2g}, "
                        f"{_TOLERANCE_SAID} {tol:g})")
    return MatrixSpectrum(
        name=name,
        word=tuple(int(a) for a in word),
        block=block,
        dim=d,
        eigenvalues=tuple(complex(z) for z in eig),
        scale=scale,
        normalised=tuple(complex(z) for z in normalised),
        roots=roots,
        index=None if structure is None else structure[0],
        period=None if structure is None else structure[1],
        exact=decide_exactly,
        rank=rank,
        reading=reading,
    )


@dataclass(frozen=True)
class Spectrum:
    """Spectra of every ``A_sigma`` (``symbols``), of short words (``words``), and per block
    (``blocks``, for ``block:B`` and ``rotation2d`` weights)."""

    symbols: tuple[MatrixSpectrum, ...]
    words: tuple[MatrixSpectrum, ...]
    blocks: tuple[MatrixSpectrum, ...]
    max_order: int
    tol: float
    normalisation: str = "spectral radius"

    @property
    def exact(self) -> bool:
        return bool(self.symbols) and all(m.exact for m in self.symbols)

    @property
    def reading(self) -> str:
        """One line per symbol: ``A_r acts as a rotation of order 5 on ...``."""
        return "\n".join(f"{m.name} {m.headline}" for m in self.symbols)

    def to_json(self) -> dict:
        return {
            "normalisation": self.normalisation,
            "max_order": self.max_order,
            "tol": self.tol,
            "exact": self.exact,
            "symbols": [m.to_json() for m in self.symbols],
            "words": [m.to_json() for m in self.words],
            "blocks": [m.to_json() for m in self.blocks],
        }


def _with_visited_orders(symbols, span: VisitedSpan, max_order: int, span_tol: float) -> tuple[MatrixSpectrum, ...]:
    """For float weights: each A_sigma compressed to the visited span V
    (:mod:`bilinear.constructions.values.span`), its spectrum and order there (tolerance ``span_tol``), and
    otherwise the k <= max_order minimising the scale-free distance of (V^T A V)^k from the
    identity."""
    from dataclasses import replace

    r = span.dim
    if r == 0:
        return symbols
    out = []
    for m in symbols:
        M = span.compressed[m.word[0]]  # (r, r): A compressed to the visited span
        P = np.eye(r)
        dists = []
        for _ in range(max_order):
            P = _normalise_rows(M @ P)
            dists.append(scale_free_distance(P, np.eye(r)))
        vs = matrix_spectrum(M, f"{m.name} on the visited span", m.word, None, max_order, span_tol)
        if vs.order is not None:
            best_k = vs.order
        else:  # the smallest k nearly as good as the best (multiples of the order are as close)
            best_k = next(k for k, x in enumerate(dists, 1) if x <= 2 * min(dists) + 1e-12)
        out.append(replace(m, visited_order=best_k, visited_residual=float(dists[best_k - 1]), visited_dim=r,
                           visited=vs, span_tol=span_tol))
    return tuple(out)


def _symbol_names(weights, automaton) -> tuple[str, ...]:
    if automaton is not None:
        return tuple(automaton.symbols)
    return tuple(str(a) for a in range(weights.n_symbols))


def _word_name(word, names) -> str:
    """Symbols separated by ``·`` (``A(2·0)``, never ``A(20)``)."""
    return "·".join(names[a] for a in word)


def spectrum(
    weights,
    automaton=None,
    max_order: int = 12,
    word_length: int = 2,
    max_words: int = 64,
    tol: float = 1e-6,
    span: VisitedSpan | None = None,
    span_tol: float = 0.05,
) -> Spectrum:
    """Spectra of ``weights``: every symbol, words of length 2..``word_length`` (at most
    ``max_words``, shortlex), and every diagonal block for block-structured variants.

    ``automaton`` (optional) only supplies symbol names and is checked for a matching symbol
    count.  ``tol`` is the scale-free tolerance of the float order test (unused for exact
    weights of hidden size <= :data:`EXACT_MAX_DIM`).  Float weights whose symbols have no
    order up to scale also get their nearest order on the visited span (``span``, computed with
    :func:`~bilinear.constructions.values.span.visited_span` when not given): its spectrum there and its
    order within ``span_tol``, the verdict the headline (:attr:`MatrixSpectrum.headline`) gives.

    >>> from bilinear.constructions.values.weights import Weights
    >>> w = Weights("diagonal", [[[-1, 0], [0, 1]], [[1, 0], [0, 1]]], [1, 1], [[1, 0]])
    >>> print(spectrum(w, word_length=1).reading)
    A_0 acts as a reflection
    A_1 acts as the identity (up to a positive scale)
    """
    check_compatible(weights, automaton, classes=False, required=False)
    weights = scale_normalised(weights)  # verdicts up to scale, without underflow
    tol = check_tolerance(tol)
    max_order = check_max_order(max_order)
    word_length = check_positive_int(word_length, "word_length")
    max_words = check_positive_int(max_words, "max_words", minimum=0)
    names = _symbol_names(weights, automaton)
    A = weights.A
    symbols = tuple(
        matrix_spectrum(A[a], f"A_{names[a]}", (a,), None, max_order, tol) for a in range(weights.n_symbols)
    )
    span_tol = check_tolerance(span_tol, "span_tol")
    if not weights.exact:
        symbols = _with_visited_orders(symbols, visited_span(weights) if span is None else span, max_order, span_tol)
    words = []
    if word_length >= 2:
        for w in words_up_to(weights.n_symbols, word_length, min_length=2, limit=max_words):
            words.append(matrix_spectrum(word_matrix(A, w), f"A({_word_name(w, names)})", w, None, max_order, tol))
    blocks = []
    v = weights.variant_info
    size = v.block_size if v.block_size != 1 else None
    if size is not None and size < weights.dim:
        for a in range(weights.n_symbols):
            for b in range(weights.dim // size):
                sl = slice(b * size, (b + 1) * size)
                blocks.append(
                    matrix_spectrum(A[a][sl, sl], f"A_{names[a]}[block {b}]", (a,), b, max_order, tol)
                )
    return Spectrum(tuple(symbols), tuple(words), tuple(blocks), max_order, tol)

"""Commutators of the transition matrices: do the learned transitions commute?

For a pair of matrices the scale-free commutator norm is

    c(A, B) = ||A B - B A||_F / (||A||_F ||B||_F)

which does not change when A or B is rescaled (hidden states are up to a positive scalar) and is
at most 2.  For exact weights ``A B - B A`` is computed exactly and tested for zero; the float
norm is still reported.  The verdict "commute" means every pair of symbols commutes (exactly, or
within ``tol``); a commuting network can only represent automata whose labels do not depend on
the order of adjacent symbols (``docs/theory.md``, Theorem 6).

>>> from bilinear.constructions.values.weights import Weights
>>> w = Weights("block:2", [[[0, -1], [1, 0]], [[1, 0], [0, -1]]], [1, 0], [[1, 0]])
>>> c = commutators(w)
>>> c.verdict, c.exact, round(c.norms[0][1], 6)
('do not commute', True, 1.414214)
>>> c.worst_pair
(0, 1)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bilinear.constructions.values.floatrun import check_compatible
from bilinear.constructions.values.span import VisitedSpan, scale_normalised, visited_span

from .matrices import (
    check_positive_int,
    check_tolerance,
    exact_enough,
    float_matrix,
    is_zero_matrix,
    word_matrix,
    words_up_to,
)

__all__ = ["Commutators", "WordCommutator", "commutators", "commutator_norm"]


def commutator_norm(A: np.ndarray, B: np.ndarray) -> float:
    """``||AB - BA||_F / (||A||_F ||B||_F)`` in float (0 when either matrix is zero).

    >>> commutator_norm(np.diag([1., 2.]), np.diag([3., -1.]))
    0.0
    """
    A = float_matrix(A)
    B = float_matrix(B)
    na, nb = float(np.linalg.norm(A)), float(np.linalg.norm(B))
    if na == 0 or nb == 0:
        return 0.0
    return float(np.linalg.norm(A @ B - B @ A)) / (na * nb)


def _pair_norms(Af: np.ndarray) -> list[list[float]]:
    """:func:`commutator_norm` of every pair of ``Af`` (n, d, d), a row at a time in numpy (a Mamba
    layer fed by a convolution of width 3 over 12 symbols has 1,884 windows: 3.5 million pairs,
    about 100 s one pair at a time)."""
    n = Af.shape[0]
    size = np.linalg.norm(Af.reshape(n, -1), axis=1)
    out = np.zeros((n, n))
    for a in range(n - 1):
        if size[a] == 0:
            continue
        rest = Af[a + 1:]
        diff = np.matmul(Af[a], rest) - np.matmul(rest, Af[a])  # A_a A_b - A_b A_a for b > a
        with np.errstate(divide="ignore", invalid="ignore"):
            row = np.linalg.norm(diff.reshape(n - a - 1, -1), axis=1) / (size[a] * size[a + 1:])
        out[a, a + 1:] = np.where(size[a + 1:] == 0, 0.0, row)
    out += out.T  # ||A_b A_a - A_a A_b|| is the same norm
    return out.tolist()


@dataclass(frozen=True)
class WordCommutator:
    """The commutator of ``A(u)`` and ``A(v)`` for two short words."""

    u: tuple[int, ...]
    v: tuple[int, ...]
    norm: float
    exactly_zero: bool | None

    def to_json(self) -> dict:
        return {"u": list(self.u), "v": list(self.v), "norm": self.norm, "exactly_zero": self.exactly_zero}


@dataclass(frozen=True)
class Commutators:
    """Scale-free commutator norms of every pair of symbols (``norms`` (symbols, symbols)),
    exact zero tests (``exactly_zero``, None for float weights) and pairs of short words.

    ``verdict`` is ``"commute"`` when every symbol pair commutes exactly (exact weights) or has
    norm <= ``tol`` (float weights), ``"do not commute"`` otherwise.
    """

    symbols: tuple[str, ...]
    norms: tuple[tuple[float, ...], ...]
    exactly_zero: tuple[tuple[bool, ...], ...] | None
    words: tuple[WordCommutator, ...]
    tol: float
    visited_norms: tuple[tuple[float, ...], ...] | None = None
    visited_dim: int | None = None
    span_tol: float = 0.05  # tolerance of the verdict on the visited span
    hidden: int | None = None

    @property
    def visited_verdict(self) -> str | None:
        """``"commute"`` when every pair commutes within ``span_tol`` on the visited span (float
        weights), ``"do not commute"``, or None (exact weights, one symbol, empty span)."""
        vmax = self.visited_max_norm  # None exactly when visited_norms is None
        if vmax is None:
            return None
        return "commute" if vmax <= self.span_tol else "do not commute"

    @property
    def headline_verdict(self) -> str:
        """The verdict on the visited span where there is one, else the full-space verdict."""
        return self.visited_verdict or self.verdict

    def _worst(self, norms) -> tuple[int, int] | None:
        n = len(self.symbols)
        pairs = [(a, b) for a in range(n) for b in range(a + 1, n)]
        return max(pairs, key=lambda p: norms[p[0]][p[1]]) if pairs else None

    @property
    def visited_max_norm(self) -> float | None:
        """Largest commutator norm of the matrices compressed to the span of the states visited
        at length (float weights only; None otherwise)."""
        if self.visited_norms is None:
            return None
        return max((x for row in self.visited_norms for x in row), default=0.0)

    @property
    def exact(self) -> bool:
        return self.exactly_zero is not None

    def commutes(self, a: int, b: int) -> bool:
        if self.exactly_zero is not None:
            return self.exactly_zero[a][b]
        return self.norms[a][b] <= self.tol

    @property
    def verdict(self) -> str:
        n = len(self.symbols)
        ok = all(self.commutes(a, b) for a in range(n) for b in range(n))
        return "commute" if ok else "do not commute"

    @property
    def worst_pair(self) -> tuple[int, int] | None:
        """The symbol pair (a < b) with the largest norm, None for one symbol."""
        return self._worst(self.norms)

    @property
    def max_norm(self) -> float:
        return max((x for row in self.norms for x in row), default=0.0)

    @property
    def reading(self) -> str:
        """One line: the verdict on the visited span (float weights) with the full-space figure
        beside it, labelled; the exact or full-space verdict otherwise."""
        if self.visited_norms is not None:
            return self._visited_reading()
        how = "exactly" if self.exact else f"within {self.tol:g}"
        if self.verdict == "commute":
            return f"all transition matrices commute ({how}); largest scale-free norm {self.max_norm:.3g}"
        worst = self.worst_pair
        assert worst is not None  # one symbol always commutes, so two symbols at least here
        a, b = worst
        return (
            f"the transition matrices do not commute: ||[A_{self.symbols[a]}, A_{self.symbols[b]}]|| "
            f"/ (||A_{self.symbols[a]}|| ||A_{self.symbols[b]}||) = {self.norms[a][b]:.3g}"
        )

    def _pair(self, norms) -> str:
        worst = self._worst(norms)
        assert worst is not None  # visited norms exist only for two symbols at least
        a, b = worst
        return f"A_{self.symbols[a]}, A_{self.symbols[b]}"

    def _visited_reading(self) -> str:
        r, vmax = self.visited_dim, self.visited_max_norm
        full = (f"on the full {self.hidden}-dimensional space the largest is {self.max_norm:.3g}"
                f" ({self._pair(self.norms)})")
        if self.visited_verdict == "commute":
            return (f"the transition matrices commute on the {r}-dimensional visited span (largest "
                    f"scale-free norm {vmax:.3g} <= {self.span_tol:g}); {full}")
        return (f"the transition matrices do not commute on the {r}-dimensional visited span (largest "
                f"scale-free norm {vmax:.3g}, {self._pair(self.visited_norms)}, above {self.span_tol:g}); {full}")

    def to_json(self) -> dict:
        return {
            "symbols": list(self.symbols),
            "norms": [list(r) for r in self.norms],
            "exactly_zero": None if self.exactly_zero is None else [list(r) for r in self.exactly_zero],
            "exact": self.exact,
            "tol": self.tol,
            "verdict": self.verdict,
            "max_norm": self.max_norm,
            "worst_pair": None if self.worst_pair is None else list(self.worst_pair),
            "words": [w.to_json() for w in self.words],
            "visited_norms": None if self.visited_norms is None else [list(r) for r in self.visited_norms],
            "visited_dim": self.visited_dim,
            "visited_max_norm": self.visited_max_norm,
            "visited_verdict": self.visited_verdict,
            "span_tol": self.span_tol,
            "headline_verdict": self.headline_verdict,
            "hidden": self.hidden,
        }


def commutators(
    weights, automaton=None, word_length: int = 2, max_words: int = 16, tol: float = 1e-6,
    span: VisitedSpan | None = None, span_tol: float = 0.05,
) -> Commutators:
    """Commutator norms of every symbol pair and of every pair of distinct words of length
    2..``word_length`` (the first ``max_words`` words in shortlex order).

    For float weights the symbol pairs are also compared on the visited span (``span``, computed
    with :func:`~bilinear.constructions.values.span.visited_span` when not given); they commute there when
    every norm is at most ``span_tol``.

    >>> from bilinear.constructions.values.weights import Weights
    >>> w = Weights("diagonal", [[[2., 0.], [0., 3.]], [[-1., 0.], [0., 5.]]], [1., 1.], [[1., 0.]])
    >>> c = commutators(w, word_length=1)
    >>> c.verdict, c.exact
    ('commute', False)
    """
    check_compatible(weights, automaton, classes=False, required=False)
    weights = scale_normalised(weights)  # verdicts up to scale, without underflow
    tol = check_tolerance(tol)
    span_tol = check_tolerance(span_tol, "span_tol")
    word_length = check_positive_int(word_length, "word_length")
    max_words = check_positive_int(max_words, "max_words", minimum=0)
    names = tuple(automaton.symbols) if automaton is not None else tuple(str(a) for a in range(weights.n_symbols))
    A = weights.A
    n = weights.n_symbols
    Af = np.stack([float_matrix(A[a]) for a in range(n)])
    norms = _pair_norms(Af)
    zero = None
    exact = exact_enough(weights)
    if exact:
        zero = [[True] * n for _ in range(n)]
        for a in range(n):
            for b in range(a + 1, n):
                z = is_zero_matrix(A[a] @ A[b] - A[b] @ A[a])
                zero[a][b] = zero[b][a] = z
                if z:  # report the exact value, not the float rounding of A B - B A
                    norms[a][b] = norms[b][a] = 0.0
        for a in range(n):
            norms[a][a] = 0.0
    words = []
    if word_length >= 2:
        ws = list(words_up_to(n, word_length, min_length=2, limit=max_words))
        mats = {w: word_matrix(A if exact else Af, w) for w in ws}
        for i, u in enumerate(ws):
            for v in ws[i + 1:]:
                Mu, Mv = mats[u], mats[v]
                ez = is_zero_matrix(Mu @ Mv - Mv @ Mu) if exact else None
                words.append(WordCommutator(u, v, 0.0 if ez else commutator_norm(Mu, Mv), ez))
    visited, vdim = None, None
    if not weights.exact and n > 1:
        span = visited_span(weights) if span is None else span
        if span.dim:
            C = span.compressed  # (symbols, r, r): compressions V^T A V
            visited = tuple(tuple(r) for r in _pair_norms(np.asarray(C, dtype=float)))
            vdim = span.dim
    return Commutators(
        names,
        tuple(tuple(r) for r in norms),
        None if zero is None else tuple(tuple(r) for r in zero),
        tuple(words),
        tol,
        visited,
        vdim,
        span_tol,
        weights.dim,
    )

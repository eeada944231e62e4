"""Relation residuals: which of the automaton's defining relations does the network satisfy?

The transformation monoid of the automaton comes with defining relations ``u = v``: pairs of
words that act the same on every state (``Monoid.relations()``: ``word(e) a`` against the
canonical word of ``e·a``).  A network represents the automaton's monoid faithfully on its
hidden states when ``A(u)`` and ``A(v)`` agree up to a positive scalar for every such pair, where
``A(a_1 ... a_T) = A[a_T] ... A[a_1]``.

For each relation we report

* ``residual``: ``min_{c >= 0} ||A(u) - c A(v)||_F / ||A(u)||_F`` on the whole hidden space;
* ``residual_reachable``: the same on the *reachable subspace* ``span{A(w) h0}`` (the smallest
  subspace containing h0 and invariant under every A_sigma; directions outside it never influence
  a prediction, so a network may be arbitrary there);
* ``residual_visited``: the same on the span of the unit hidden states *visited at length*
  (after ``burn_in`` random steps; :func:`bilinear.constructions.values.span.visited_span`).  A trained network often has extra
  eigenvalues of modulus below the spectral radius: their directions are reachable but die out
  along any long word, so the relation need only hold where the states actually live;
* ``residual_states``: the largest distance between the unit vectors ``A(u) h`` and ``A(v) h``
  over the visited unit states ``h`` (a positive scale *per state*).  This is what a prediction
  sees (the readout is scale-invariant), and it is the reading for resets and writes: a reset
  ``y`` sends every state to one direction, each with its own scale, so ``x y = y`` holds on every
  state while ``A(x y)`` and ``A(y)`` differ by a different scale on each;
* ``exactly`` (exact weights): whether ``A(u) = c A(v)`` with ``c > 0`` exactly.

A relation *holds* when it holds exactly, or when ``residual_visited <= tol``, or when
``residual_states <= tol``.  ``kind`` names the relations of aperiodic monoids: ``idempotent``
(``x x = x``) and ``reset`` (``x y = y``: ``v`` a proper suffix of ``u``).

>>> from bilinear.analysis.examples import dihedral_block2
>>> from bilinear.automata import from_spec
>>> a = from_spec("dihedral:3")
>>> rel = relation_residuals(dihedral_block2(3), a, pairs=[((0, 0, 0), ()), ((1, 0), (0, 1))])
>>> [(r.text, r.holds, r.exactly) for r in rel.relations]
[('r·r·r = ε', True, True), ('s·r = r·s', False, False)]
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bilinear.automata.monoid import transformation_monoid
from bilinear.constructions.values.floatrun import check_compatible
from bilinear.errors import AnalysisError, MonoidTooLargeError

from .matrices import (
    check_positive_int,
    check_tolerance,
    exact_enough,
    float_matrix,
    positive_multiple,
    scale_free_distance,
    word_matrix,
)
from bilinear.constructions.values.span import VisitedSpan, scale_normalised, visited_basis, visited_span

__all__ = ["Relation", "RelationReport", "relation_residuals", "reachable_basis", "visited_basis",
           "relation_kind", "state_residual"]


def reachable_basis(A: np.ndarray, h0: np.ndarray, rtol: float = 1e-9) -> np.ndarray:
    """Orthonormal basis (hidden, r) of ``span{A(w) h0 : all words w}`` (float, Krylov closure).

    Vectors are added while their component orthogonal to the current span exceeds ``rtol``
    times their norm; the span is invariant when no image of a basis vector adds anything.

    >>> A = np.array([[[0., 1., 0.], [1., 0., 0.], [0., 0., 1.]]])
    >>> reachable_basis(A, np.array([1., 0., 0.])).shape
    (3, 2)
    """
    A = np.asarray(A, dtype=float)
    h0 = np.asarray(h0, dtype=float)
    d = h0.shape[0]
    basis: list[np.ndarray] = []

    def add(v: np.ndarray) -> bool:
        n = float(np.linalg.norm(v))
        if n == 0:
            return False
        for _ in range(2):  # re-orthogonalise once for stability
            for q in basis:
                v = v - (q @ v) * q
        r = float(np.linalg.norm(v))
        if r <= rtol * n:
            return False
        basis.append(v / r)
        return True

    add(h0)
    queue = list(basis)
    while queue and len(basis) < d:
        q = queue.pop(0)
        for M in A:
            if add(M @ q):
                queue.append(basis[-1])
    if not basis:
        return np.zeros((d, 0))
    return np.stack(basis, axis=1)


@dataclass(frozen=True)
class Relation:
    """One relation ``u = v`` and how well the weights satisfy it."""

    u: tuple[int, ...]
    v: tuple[int, ...]
    text: str
    residual: float
    residual_reachable: float
    residual_visited: float
    exactly: bool | None
    holds: bool
    residual_states: float | None = None
    kind: str = ""
    # the fraction of visited states whose label signatures after u and after v agree (labels
    # after every word of length <= 2 that follows): a relation the readout cannot tell apart
    labels_agree: float | None = None

    def to_json(self) -> dict:
        return {
            "u": list(self.u),
            "v": list(self.v),
            "text": self.text,
            "kind": self.kind or None,
            "residual_states": self.residual_states,
            "labels_agree": self.labels_agree,
            "residual": self.residual,
            "residual_reachable": self.residual_reachable,
            "residual_visited": self.residual_visited,
            "exactly": self.exactly,
            "holds": self.holds,
        }


@dataclass(frozen=True)
class RelationReport:
    """Residuals of the (first ``len(relations)`` of ``total``) defining relations."""

    relations: tuple[Relation, ...]
    total: int
    tol: float
    reachable_dim: int
    visited_dim: int
    burn_in: int
    hidden: int

    @property
    def n_holding(self) -> int:
        return sum(r.holds for r in self.relations)

    @property
    def all_hold(self) -> bool:
        return self.n_holding == len(self.relations)

    @property
    def failing(self) -> tuple[Relation, ...]:
        return tuple(r for r in self.relations if not r.holds)

    @property
    def reading(self) -> str:
        """One line: how many relations hold on the visited span, within what, with the
        full-space figure beside it (never both "fail" and "hold" for the same tolerance)."""
        n = len(self.relations)
        shown = "" if n == self.total else f" (the first {n} of {self.total})"
        if n == 0:
            if self.total:  # max_relations = 0: none checked, not none there
                return f"none of the {self.total} defining relations checked (at most 0 asked)"
            return "the automaton's monoid has no defining relations to check"
        if all(r.exactly for r in self.relations):
            return f"all {n} defining relations{shown} hold (exactly)"
        span = f"the {self.visited_dim}-dimensional visited span"
        full = (f"on the full {self.hidden}-dimensional space the largest residual is "
                f"{self.max_full_residual:.3g}")
        kinds = self.kinds_text
        if self.all_hold:
            return (f"all {n} defining relations{shown}{kinds} hold within {self.max_residual:.2g} on {span} "
                    f"(tolerance {self.tol:g}); {full}")
        worst = max(self.failing, key=lambda r: r.residual_visited)
        worst_value = min(worst.residual_visited, worst.residual_states if worst.residual_states is not None
                          else float("inf"))
        labels = ""
        judged = [r for r in self.failing if r.labels_agree is not None]
        if judged:
            agreeing = sum(r.labels_agree == 1.0 for r in judged)
            labels = (f"; of those, {agreeing} hold as far as the readout tells (the same labels after every "
                      f"word of length <= {LABEL_HORIZON}, on every visited state)")
        return (
            f"{self.n_holding} of {n} defining relations{shown}{kinds} hold on {span} within {self.tol:g}; "
            f"{len(self.failing)} do not, worst {worst.text} (residual {worst_value:.3g} on the "
            f"span, states taken after {self.burn_in} steps){labels}; {full}"
        )

    @property
    def kinds_text(self) -> str:
        """`` (2 idempotent, 3 resets)``: how many relations are of the aperiodic kinds, and how
        many of those hold (empty when there are none)."""
        parts = []
        for kind, word in (("idempotent", "idempotent"), ("reset", "resets")):
            rels = [r for r in self.relations if r.kind == kind]
            if rels:
                held = sum(r.holds for r in rels)
                parts.append(f"{len(rels)} {word if len(rels) > 1 else kind}"
                             + ("" if held == len(rels) else f", {held} holding"))
        return f" ({'; '.join(parts)})" if parts else ""

    @property
    def max_full_residual(self) -> float:
        """The largest residual on the whole hidden space."""
        return max((r.residual for r in self.relations), default=0.0)

    @property
    def max_residual(self) -> float:
        """The smallest tolerance within which every checked relation holds (each relation's
        smaller residual: on the span, or per visited state)."""
        return max((min(r.residual_visited, r.residual_states if r.residual_states is not None else float("inf"))
                    for r in self.relations), default=0.0)

    def to_json(self) -> dict:
        return {
            "total": self.total,
            "checked": len(self.relations),
            "holding": self.n_holding,
            "all_hold": self.all_hold,
            "max_residual": self.max_residual,
            "max_full_residual": self.max_full_residual,
            "tol": self.tol,
            "reachable_dim": self.reachable_dim,
            "visited_dim": self.visited_dim,
            "burn_in": self.burn_in,
            "hidden": self.hidden,
            "relations": [r.to_json() for r in self.relations],
        }


def relation_kind(u, v) -> str:
    """``idempotent`` for ``x x = x``, ``reset`` for ``x y = y`` (``v`` a proper non-empty suffix
    of ``u``: the word ``y`` erases what ``x`` did), else ``""``.

    >>> relation_kind((0, 0), (0,)), relation_kind((1, 0), (0,)), relation_kind((0, 1), (1, 0))
    ('idempotent', 'reset', '')
    """
    u, v = tuple(u), tuple(v)
    if v and u == v + v:
        return "idempotent"
    if v and len(u) > len(v) and u[len(u) - len(v):] == v:
        return "reset"
    return ""


def state_residual(Mu: np.ndarray, Mv: np.ndarray, states: np.ndarray) -> float:
    """The largest ``|| A(u)h/|A(u)h| - A(v)h/|A(v)h| ||`` over the rows ``h`` of ``states`` (a
    positive scale per state; 2 at most; a state one map sends to zero and the other does not
    counts 2, both zero counts 0).

    >>> p = np.array([[1., 0.], [0., 0.]])              # a reset onto e1 ...
    >>> q = np.array([[1., 1.], [0., 0.]])              # ... and another, with its own scales
    >>> round(state_residual(p @ q, q, np.array([[1., 0.], [0.6, 0.8]])), 12)
    0.0
    """
    if states is None or not len(states):
        return 0.0
    X = np.asarray(states, dtype=float)
    a, b = X @ Mu.T, X @ Mv.T  # (samples, hidden)
    na, nb = np.linalg.norm(a, axis=1), np.linalg.norm(b, axis=1)
    scale = max(float(na.max()), float(nb.max()), 1e-300)
    za, zb = na <= 1e-12 * scale, nb <= 1e-12 * scale
    both = za & zb
    ua = a / np.where(za, 1.0, na)[:, None]
    ub = b / np.where(zb, 1.0, nb)[:, None]
    d = np.linalg.norm(ua - ub, axis=1)
    d = np.where(za ^ zb, 2.0, d)
    d = np.where(both, 0.0, d)
    return float(d.max())


#: Longest continuation word of :func:`label_agreement` (all words up to it, the empty one too).
LABEL_HORIZON = 2


def label_agreement(Mu: np.ndarray, Mv: np.ndarray, states, A: np.ndarray, R: np.ndarray,
                    horizon: int = LABEL_HORIZON) -> float:
    """The fraction of ``states`` (rows) on which ``A(u) h`` and ``A(v) h`` get the same readout
    label after every continuation word of length <= ``horizon``: the relation as far as the
    labels can tell (a trained network's states of one class spread, so ``A(u) h`` and ``A(v) h``
    can point apart and still be the same state to the readout)."""
    from .matrices import words_up_to

    X = np.asarray(states, dtype=float)
    if not len(X):
        return 1.0
    a, b = X @ Mu.T, X @ Mv.T
    same = np.ones(X.shape[0], dtype=bool)
    for w in [(), *words_up_to(A.shape[0], horizon)]:
        M = word_matrix(A, w)
        same &= np.argmax(a @ M.T @ R.T, axis=1) == np.argmax(b @ M.T @ R.T, axis=1)
    return float(same.mean())


def _fmt(automaton, word) -> str:
    """A word with its symbols separated by ``·`` (``2·0``, never ``20``), ``ε`` when empty."""
    if not word:
        return "ε"
    if automaton is None:
        return "·".join(map(str, word))
    return "·".join(automaton.symbols[a] for a in word)


def relation_residuals(
    weights,
    automaton,
    pairs=None,
    tol: float = 1e-6,
    max_relations: int = 500,
    monoid_limit: int = 100_000,
    burn_in: int = 50,
    seed: int = 0,
    rank_tol: float = 0.05,
    span: VisitedSpan | None = None,
) -> RelationReport:
    """Residuals of the automaton's defining relations (or of the given ``pairs`` of words).

    ``pairs`` defaults to ``transformation_monoid(automaton, limit=monoid_limit).relations()``; only the first
    ``max_relations`` are checked (``total`` says how many there are).  The visited subspace
    keeps the singular directions of the states visited after ``burn_in`` steps whose singular
    value exceeds ``rank_tol`` times the largest (a trained network leaks a little into
    directions it contracts; ``rank_tol`` sets how little is ignored).  A precomputed ``span``
    (:func:`~bilinear.constructions.values.span.visited_span`) replaces ``burn_in``, ``seed`` and ``rank_tol``.

    Raises AnalysisError when the symbol counts differ, ``tol`` is not positive, or the monoid
    exceeds ``monoid_limit``.
    """
    check_compatible(weights, automaton, classes=False, required=pairs is None)
    weights = scale_normalised(weights)  # verdicts up to scale, without underflow
    tol = check_tolerance(tol)
    max_relations = check_positive_int(max_relations, "max_relations", minimum=0)
    if pairs is None:
        try:
            pairs = transformation_monoid(automaton, limit=monoid_limit).relations()
        except MonoidTooLargeError as exc:
            raise AnalysisError(f"cannot list the relations of {automaton.name or 'the automaton'}: {exc}") from None
    pairs = [(tuple(int(a) for a in u), tuple(int(a) for a in v)) for u, v in pairs]
    for u, v in pairs:
        for a in u + v:
            if not 0 <= a < weights.n_symbols:
                raise AnalysisError(f"relation word uses symbol index {a}, outside 0..{weights.n_symbols - 1}")
    total = len(pairs)
    pairs = pairs[:max_relations]
    A = weights.A
    Af = np.stack([float_matrix(A[a]) for a in range(weights.n_symbols)])
    R = np.asarray(weights.float_arrays()[2], dtype=float)
    h0 = float_matrix(weights.h0.reshape(1, -1))[0]
    Q = reachable_basis(Af, h0)
    if span is None:
        span = visited_span(weights, burn_in=burn_in, seed=seed, rank_tol=rank_tol)
    V = span.basis
    exact = exact_enough(weights)
    out = []
    for u, v in pairs:
        Mu, Mv = word_matrix(Af, u), word_matrix(Af, v)
        residual = scale_free_distance(Mu, Mv)
        reach = scale_free_distance(Mu @ Q, Mv @ Q) if Q.shape[1] else 0.0
        visited = scale_free_distance(Mu @ V, Mv @ V) if V.shape[1] else 0.0
        exactly = None
        if exact:
            Eu, Ev = word_matrix(A, u), word_matrix(A, v)
            if all(x == 0 for x in Ev.flat):
                exactly = all(x == 0 for x in Eu.flat)
            else:
                exactly = positive_multiple(Eu, Ev) is not None
        states = state_residual(Mu, Mv, span.states) if span.states is not None else None
        agree = label_agreement(Mu, Mv, span.states, Af, R) if span.states is not None and R is not None else None
        if exactly:  # report the exact value, not the float rounding
            residual = reach = visited = 0.0
            states = 0.0 if states is not None else None
        holds = bool(exactly) or visited <= tol or (states is not None and states <= tol)
        out.append(
            Relation(u, v, f"{_fmt(automaton, u)} = {_fmt(automaton, v)}", residual, reach, visited, exactly, holds,
                     states, relation_kind(u, v), agree)
        )
    return RelationReport(tuple(out), total, tol, int(Q.shape[1]), span.dim, span.burn_in, weights.dim)

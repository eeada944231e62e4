"""The orbit construction: a faithful orthogonal representation plus an orbit readout.

Let a group G act on R^d by matrices rho(g) that preserve an inner product <x, y>_G = x^T G y
(G symmetric positive definite; G = I for orthogonal matrices).  Put A[a] = rho(a) for each
generator, pick h0 whose stabiliser is trivial, and let readout row of element g be
``G rho(g) h0``.  Then the score of class g' at state g is ``<rho(g') h0, rho(g) h0>_G``; every
orbit point has the same G-norm, so by the Cauchy-Schwarz inequality (equality only for equal
vectors) the score is maximal exactly at g' = g, with a strict margin.  This is the
Theorem 2 of docs/theory.md (orbit separation); constructions for Z_m, D_n, S_n, A_n and Q8 are
all instances of it.

:func:`orbit_weights` computes the readout by walking the automaton breadth-first and recording,
for each state, the exact hidden vector of a shortest word reaching it.  It raises
ConstructionError when two states carry the same class (the orbit readout needs one class per
state) or when two states meet the same hidden vector (h0 not free).

>>> from bilinear.automata.families import from_spec
>>> w = orbit_weights(from_spec("parity"), "diagonal", [[[1]], [[-1]]], [1])
>>> w.readout.tolist()
[[1], [-1]]
"""

from __future__ import annotations

import math
from collections import deque

import numpy as np

from bilinear.errors import ConstructionError

from ..exact.field import FieldElement
from ..proof.search import build_tick
from ..values.weights import Weights

__all__ = ["orbit_weights"]


def _key(v: np.ndarray) -> tuple:
    return tuple(v.tolist())


def _sparse_domain(A, h0):
    """A sparse domain for the orbit when the entries are real cyclotomic elements of a field
    that suits one (exact keys: the reduced terms are unique), else None."""
    from ..exact.domains import SparseCyclotomicDomain

    elements = [x for x in (*A.flat, *h0.flat) if isinstance(x, FieldElement)]
    if not elements or not all(x.is_real() for x in elements):
        return None
    m = 1
    for x in elements:
        m = m * x.field.m // math.gcd(m, x.field.m)
    return SparseCyclotomicDomain(m) if SparseCyclotomicDomain.suits(m) else None


def _orbit_sparse(automaton, A, h0, domain) -> list:
    """The hidden vectors of :func:`orbit_weights` computed with sparse elements."""
    from ..exact.domains import sparse_rows

    rows = []
    for s in range(automaton.n_symbols):
        build_tick(s, automaton.n_symbols, "transition matrices converted")  # budget and progress
        rows.append(sparse_rows(A[s], domain))

    def key(h):
        return tuple(tuple(sorted((k, int(c.p), int(c.q)) for k, c in x.items())) for x in h)

    start = [domain.convert(x) for x in h0]
    hidden = _breadth_first(automaton, start, lambda s, h: domain.matvec(rows[s], h), key)
    out = []
    for h in hidden:
        out.append(None if h is None else np.array([_real(domain.to_element(x)) for x in h] + [0], dtype=object)[:-1])
    return out


def _real(x):
    if isinstance(x, FieldElement):
        x._real = True  # a product of real matrices and a real vector
    return x


def orbit_weights(automaton, variant: str, A, h0, gram=None) -> Weights:
    """Weights with the orbit readout ``readout[label(q)] = gram @ h(q)`` (see module docstring).

    ``A`` (symbols, hidden, hidden) and ``h0`` (hidden,) hold exact scalars.
    """
    A = np.array(A, dtype=object)
    h0 = np.array(h0, dtype=object)
    d = h0.shape[0]
    G = None if gram is None else np.array(gram, dtype=object)
    if len(set(automaton.labels.tolist())) != automaton.n_states:
        raise ConstructionError(f"{automaton.name}: the orbit readout needs one class per state")
    domain = _sparse_domain(A, h0)
    hidden = _orbit_sparse(automaton, A, h0, domain) if domain is not None else _orbit(automaton, A, h0)
    readout = np.empty((automaton.n_classes, d), dtype=object)
    readout[:] = 0
    for q, h in enumerate(hidden):
        if h is None:  # unreachable state: its class never occurs
            continue
        readout[int(automaton.labels[q])] = h if G is None else G.dot(h)
    return Weights(variant, A, h0, readout)


def _orbit(automaton, A, h0) -> list:
    """The exact hidden vector of a shortest word reaching each state (None: unreachable)."""
    return _breadth_first(automaton, h0, lambda s, h: A[s].dot(h), _key)


def _breadth_first(automaton, h0, step, key) -> list:
    """The hidden vector ``step(symbol, h)`` of a shortest word reaching each state, breadth
    first from ``h0`` (None: unreachable); ConstructionError when two states meet in one
    ``key``.  One tick of the build clock per state (budget and progress of settle())."""
    hidden: list = [None] * automaton.n_states
    start = int(automaton.start)
    hidden[start] = h0
    seen = {key(h0): start}
    queue = deque([start])
    built = 1
    while queue:
        q = queue.popleft()
        build_tick(built, automaton.n_states)
        for s in range(automaton.n_symbols):
            q2 = int(automaton.delta[s, q])
            if hidden[q2] is not None:
                continue
            h = step(s, hidden[q])
            other = seen.setdefault(key(h), q2)
            if other != q2:
                raise ConstructionError(
                    f"{automaton.name}: states {other} and {q2} share a hidden vector; h0 is not free"
                )
            hidden[q2] = h
            queue.append(q2)
            built += 1
    return hidden

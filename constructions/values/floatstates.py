"""The float run as an automaton: its reachable states, when every product of the run is exact.

:func:`~bilinear.constructions.values.floatrun.float_blocks` (the float check's run) starts from
``start_row(h0)`` and multiplies each row by the matrix of its symbol, dividing a row by a power
of two now and then.  When every product ``A[s] h`` of a reachable row is *exact* in float64
(no rounding in any summation order: :func:`exact_products`), the run's row after a word ``w``
is ``2^k c(w)`` for an integer ``k``, ``c(w)`` the *canonical* state (:func:`canonical`: the
row divided by the power of two that brings its largest magnitude into [1/2, 1)), and
``c(w s) = canonical(A[s] c(w))``: the run is a deterministic automaton on canonical states.

Why (by induction on the word): the start row is ``c() 2^k``; a power-of-two scale commutes
with an exact product (``A (2^k c) = 2^k (A c)``, exact for the scaled row too while its
entries stay above 2^-1074, which the run's rescaling keeps: its rows' absolute sums stay above
``2^-3 RESCALE_FLOOR``, and :func:`exact_products` leaves 2^-800 of room), and the run's own
divisions are powers of two.  Every verdict of the float check on a row is invariant under a
power-of-two scale *exactly*: its scores, its norm (the sum of squares scales by ``4^k``, a
square root of ``4^k x`` is ``2^k`` times that of ``x``) and so the margin ``(score[label] -
max other) / norm`` are those of ``c(w)`` scaled by ``2^k``, then divided by ``2^k``: the same
float numbers, barring overflow and underflow, which the rescaling excludes.  So the check may
judge each canonical state once and look the words up in a table, one look-up per symbol, as the
automaton's own simulation does (docs/theory.md, Theorem 26).

Networks whose products round (rotations by 2 pi / m with m > 4, learned networks, any noise)
give up at their first inexact product; exact constructions with small dyadic entries (0/1
permutation and transformation matrices, signed permutations, +-1 diagonals) have no rounding at
all, and their canonical states are as many as the automaton's reachable hidden states.  The
closure stops (None) beyond ``max_states`` states: a reachable set that keeps growing (an exact
``diag(2, 1)``) is left to the dense run.

>>> from bilinear.constructions.handmade.registry import build
>>> A, h0, _ = build("modarith:5", "full").float_arrays()
>>> fs = float_states(A, h0, 100)
>>> fs.states.shape, fs.delta.shape
((5, 5), (10, 5))
>>> A, h0, _ = build("cyclic:7", "rotation2d").float_arrays()
>>> float_states(A, h0, 100) is None  # a rotation by 2 pi / 7 rounds
True
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .floatrun import scale_exponents, start_row

__all__ = ["FloatStates", "float_states", "canonical", "exact_products", "pair_table", "walk", "MAX_FLOAT_STATES",
           "MAX_PAIR_CODES", "CHUNK_FLOATS"]

#: Most canonical states :func:`float_states` collects (a caller may ask for fewer).
MAX_FLOAT_STATES = 1 << 15

#: The lowest bit of a product's entries may not lie below 2^LOWEST_UNIT: the float check's run
#: scales rows down by up to about 2^-190 (its rescaling bounds), and must stay above 2^-1074.
LOWEST_UNIT = -800

_ZERO_UNIT = 1 << 20  # the "lowest bit" of 0: above every other


@dataclass(frozen=True)
class FloatStates:
    """The canonical states of an exact float run: ``states`` (states, hidden), row 0 the start's,
    and ``delta`` (symbols, states): ``delta[s, i]`` the index of ``canonical(A[s] states[i])``."""

    states: np.ndarray
    delta: np.ndarray


def canonical(H: np.ndarray) -> np.ndarray:
    """The rows of ``H`` (rows, hidden), each divided by the power of two that brings its largest
    magnitude into [1/2, 1) (a zero row stays zero), with ``-0.0`` made ``0.0`` (equal rows, equal
    bytes); exact unless a row's lowest bit falls below 2^-1074 (:func:`exact_products` rules
    that out).

    >>> canonical(np.array([[3.0, -0.0], [0.0, 0.0]])).tolist()
    [[0.75, 0.0], [0.0, 0.0]]
    """
    e = np.frexp(np.abs(H).max(axis=1))[1]
    return np.ldexp(H, -e[:, None]) + 0.0


def _units(x: np.ndarray) -> np.ndarray:
    """Per entry, the exponent of its lowest set bit (``x`` is an odd integer times 2^that);
    a large number for 0."""
    m, e = np.frexp(x)
    whole = np.abs(m * 2.0**53).astype(np.int64)  # exact: a significand has 53 bits
    low = np.frexp((whole & -whole).astype(np.float64))[1] - 1
    return np.where(x == 0, _ZERO_UNIT, e - 53 + low)


def exact_products(A: np.ndarray, F: np.ndarray) -> bool:
    """True when every product ``A[s] @ F[i]`` (``A`` (symbols, hidden, hidden), ``F`` (rows,
    hidden), all finite) is exact in float64 in any summation order, with or without fused
    multiply-adds.  Sufficient condition checked: with ``2^u`` the lowest bit of ``A[s]``'s
    entries times that of ``F[i]``'s, every term and every partial sum is an integer multiple of
    ``2^u`` of magnitude at most ``max_r sum_j |A[s]_rj| |F_ij| < 2^(52 + u)`` (one bit of slack
    for the rounding of that bound), hence representable, and ``u >= LOWEST_UNIT``.

    >>> exact_products(np.array([[[1.0, 1.0], [0.0, 1.0]]]), np.array([[0.5, 0.25]]))
    True
    >>> exact_products(np.array([[[1.0, 1.0], [0.0, 1.0]]]), np.array([[0.5, 2.0**-60]]))
    False
    """
    if not (np.isfinite(A).all() and np.isfinite(F).all()):
        return False
    ua, uf = _units(A).reshape(A.shape[0], -1).min(axis=1), _units(F).min(axis=1)
    bound = np.matmul(np.abs(A), np.abs(F).T).max(axis=1)  # (symbols, rows); rounding: the bit of slack
    big = (ua[:, None] >= _ZERO_UNIT) | (uf[None, :] >= _ZERO_UNIT)  # a zero matrix or row: products 0
    unit = np.where(big, 0, ua[:, None] + uf[None, :])
    return bool(np.all(big | ((unit >= LOWEST_UNIT) & (bound < np.ldexp(1.0, 52 + unit)))))


def float_states(A: np.ndarray, h0: np.ndarray, max_states: int = MAX_FLOAT_STATES) -> FloatStates | None:
    """The canonical states reachable from ``start_row(h0)`` under the matrices ``A`` (symbols,
    hidden, hidden; divided by their powers of two as the float run divides them), breadth-first,
    a level at a time; None when a product of a reachable state is not exact
    (:func:`exact_products`) or the states outnumber ``min(max_states, MAX_FLOAT_STATES)``.
    Two states are one when their canonical rows have the same bytes."""
    A = np.asarray(A, dtype=np.float64)
    A = np.ldexp(A, -scale_exponents(A)[:, None, None])
    limit = min(int(max_states), MAX_FLOAT_STATES)
    start = canonical(start_row(h0)[None, :])
    if not np.isfinite(start).all():
        return None
    rows = [start[0]]
    index = {start[0].tobytes(): 0}
    columns: list[np.ndarray] = []  # delta[:, i] for each state i in order
    done = 0
    chunk = max(1, CHUNK_FLOATS // (A.shape[0] * A.shape[1]))  # the products of a chunk: at most CHUNK_FLOATS
    while done < len(rows):
        F = np.array(rows[done : done + chunk])
        if not exact_products(A, F):
            return None
        P = np.matmul(A, F.T).transpose(2, 0, 1).reshape(-1, A.shape[1])  # row m * symbols + s; exact
        C = canonical(P)
        if not np.array_equal(np.ldexp(C, np.frexp(np.abs(P).max(axis=1))[1][:, None]), P):
            return None  # a canonical row lost a bit (cannot happen above LOWEST_UNIT)
        targets = np.empty(C.shape[0], dtype=np.int64)
        for j, row in enumerate(C):
            key = row.tobytes()
            i = index.get(key)
            if i is None:
                if len(rows) >= limit:
                    return None
                i = index[key] = len(rows)
                rows.append(row)
            targets[j] = i
        columns.extend(targets.reshape(F.shape[0], A.shape[0]))
        done += F.shape[0]
    return FloatStates(np.array(rows), np.ascontiguousarray(np.array(columns).T))


#: Floats of the products :func:`float_states` forms at once (16 MiB): the frontier is taken a
#: chunk of states at a time, so the table's memory stays far below the check's own
#: (docs/limits.md), whatever the hidden size.
CHUNK_FLOATS = 1 << 21

#: Most (automaton state, float state) codes :func:`pair_table` marks in one array.
MAX_PAIR_CODES = 1 << 24


def pair_table(fs: FloatStates, delta: np.ndarray, start: int,
               max_pairs: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, int] | None:
    """The pairs (automaton state, float state) reachable from ``(start, 0)``, breadth-first under
    the automaton's ``delta`` (symbols, states) and ``fs.delta`` side by side: ``(q, f, table,
    first)``, ``q`` and ``f`` (pairs,) the two states of each pair, ``table`` (symbols, pairs)
    the pair each symbol leads to, ``first`` the start pair's index; None beyond ``max_pairs``
    pairs or :data:`MAX_PAIR_CODES` state combinations.

    >>> fs = FloatStates(np.eye(2), np.array([[1, 0]]))  # one symbol swaps two float states
    >>> q, f, table, first = pair_table(fs, np.array([[1, 2, 0]]), 0, 10)  # and cycles three states
    >>> len(q), first
    (6, 0)
    """
    nf = fs.delta.shape[1]
    nq = delta.shape[1]
    if nq * nf > MAX_PAIR_CODES:
        return None
    seen = np.zeros(nq * nf, dtype=bool)
    frontier = np.array([start * nf], dtype=np.int64)
    seen[frontier] = True
    count = 1
    while frontier.size:
        q, f = np.divmod(frontier, nf)
        after = np.unique(delta[:, q] * nf + fs.delta[:, f])
        frontier = after[~seen[after]]
        seen[frontier] = True
        count += frontier.size
        if count > max_pairs:
            return None
    codes = np.flatnonzero(seen)  # sorted
    q, f = np.divmod(codes, nf)
    table = np.searchsorted(codes, delta[:, q] * nf + fs.delta[:, f])
    return q, f, table, int(np.searchsorted(codes, start * nf))


def walk(table: np.ndarray, first, words: np.ndarray, out: np.ndarray | None = None,
         at: np.ndarray | None = None) -> np.ndarray:
    """The states after every step, (time, batch), of the table (symbols, states) read from
    ``first`` (one state, or one per word: (batch,)) on ``words`` (batch, time): one addition and
    one look-up per step.  The output is the only array of the words' size (each step's sum is
    formed in one row-sized buffer): a fresh large array costs page faults, here more than the
    look-ups themselves.  ``out`` (time, batch) and ``at`` (batch,), int64, are used when given
    (a caller walking block after block keeps them).

    >>> walk(np.array([[1, 0]]), 0, np.zeros((2, 3), dtype=np.int64)).tolist()
    [[1, 1], [0, 0], [1, 1]]
    >>> walk(np.array([[1, 0]]), np.array([0, 1]), np.zeros((2, 2), dtype=np.int64)).tolist()
    [[1, 0], [0, 1]]
    """
    n, time = words.shape
    flat = np.ascontiguousarray(table).reshape(-1)  # symbol s from state p: s * states + p
    if out is None:
        out = np.empty((time, n), dtype=np.int64)
    np.multiply(words.T, table.shape[1], out=out)  # laid out by time: each symbol's offset, then its state
    if at is None:
        at = np.empty(n, dtype=np.int64)
    previous = np.full(n, first, dtype=np.int64) if np.ndim(first) == 0 else np.asarray(first, dtype=np.int64)
    for t in range(time):
        np.add(out[t], previous, out=at)
        previous = flat.take(at, out=out[t], mode="wrap")  # valid indices; "raise" buffers the output
    return out

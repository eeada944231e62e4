"""The closure of an automaton with more than 128 states, keyed by sampled states: which states,
and the whole-row check that makes the sampled closure exact.

The breadth-first closure (:mod:`~bilinear.automata.closure`) keys such an automaton's elements by
their images of a few states (:func:`_samples`), and runs on those images alone; it then composes
the elements in full, parent first (:func:`_materialise`), and composes every edge outside the
breadth-first tree to check that it leads to the element its right Cayley row names
(:func:`_check_closed`).  Two elements alike on every sampled state fail the check
(:class:`_HashCollision`) and the closure is redone with the next sample, at last on whole rows.

>>> from bilinear.automata import from_spec
>>> [len(sample) for sample in _samples(from_spec("cyclic:200"))]
[7, 64]
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np

from .automaton import Automaton

#: Most state entries :func:`_materialise` and :func:`_check_closed` compose in one block
#: (:func:`_block_rows`): a block of S_7's Cayley automaton stays in the cache between its gather,
#: look-up and comparison (blocks of 832 rows of 5,040 states took 1.5x as long as 52).
_CACHE_ENTRIES = 1 << 18


class _HashCollision(Exception):
    """Two different transformations got the same key: the same 64-bit hash (the closure is redone
    with exact byte keys) or the same images of every sampled state (with the next sample)."""


#: States whose images key an element when the automaton has more than twice as many (a sample;
#: the closure is then checked whole, :func:`_check_closed`).
_SAMPLE_COLUMNS = 64


def _sample(n: int, size: int = _SAMPLE_COLUMNS) -> np.ndarray:
    """``size`` states out of ``n``, fixed (a seeded choice, sorted)."""
    return np.sort(np.random.default_rng(0x5EED).choice(n, size, replace=False))


def _samples(automaton: Automaton) -> Iterator[np.ndarray]:
    """The samples the closure tries in turn (each checked whole; a collision moves to the next):
    when every symbol permutes the states, first as many states as fit one exact 64-bit key
    (``63 // ceil(log2 n)``: 6 of S_6's Cayley automaton, 4 of S_7's) -- a permutation group's
    elements are often told apart by the images of a few states (one, for a group acting
    regularly: a Cayley automaton), and a group's sampled closure costs at most the whole one --
    then :data:`_SAMPLE_COLUMNS`."""
    n, delta = automaton.n_states, automaton.delta
    narrow = 63 // math.ceil(math.log2(n))
    if narrow < _SAMPLE_COLUMNS and (np.sort(delta, axis=1) == np.arange(n)).all():
        yield _sample(n, narrow)
    yield _sample(n)


def _block_rows(size: int, n: int) -> int:
    """Rows :func:`_materialise` and :func:`_check_closed` compose at once, for ``size`` elements of
    ``n`` states: the block's buffers cost their pages once (a fresh page faults, about 2 us for
    4 KiB, some 20 bytes an entry: ``0.01 rows n`` us) and each block a few numpy calls (about
    8 us, ``2 size / rows`` blocks): the sum is least at ``rows = sqrt(1,500 size / n)`` (S_6's
    Cayley automaton 38 rows, S_7's 38 rows of 5,040 states), at most :data:`_CACHE_ENTRIES`
    entries (a block stays in the cache)."""
    return max(1, min(_CACHE_ENTRIES // n, math.isqrt(1500 * size // n)))


class _Buffers:
    """The blocks :func:`_materialise` and :func:`_check_closed` compose rows through, allocated
    once: ``rows`` rows of ``n`` entries each (gathered rows, their ``intp`` index -- what ``take``
    indexes with; a narrower index is copied to a temporary of that size on every call -- the
    composed rows and their comparison).  Fresh pages are what a block costs most on a small
    monoid (a page fault, about 2 us, against 4,096 entries composed in about 4 us), so they are
    few and reused."""

    def __init__(self, rows: int, n: int, dtype: np.dtype) -> None:
        self.rows = rows
        self.gathered = np.empty((rows, n), dtype=dtype)
        self.index = np.empty((rows, n), dtype=np.intp)
        self.composed = np.empty((rows, n), dtype=dtype)
        self.equal = np.empty((rows, n), dtype=bool)


def _materialise(gens: np.ndarray, parent: np.ndarray, via: np.ndarray, buffers: _Buffers) -> np.ndarray:
    """The elements in full, ``(size, states)``: element ``i`` is its parent's row followed by
    symbol ``via[i]``, in blocks whose parents all come before the block (``parent`` never
    decreases in breadth-first order).  A block's parent rows are gathered, offset by ``n`` times
    each row's symbol into one index of every generator and looked up in the generators laid end
    to end (``take`` into a buffer: with the default mode it copies through a temporary first;
    ``mode="clip"`` for the rows, each copied whole, and ``mode="wrap"`` for the look-up, where
    clip's clamping of every index takes a third longer; every index is in range by construction,
    so neither mode moves one: neither would raise on one out of range, and wrap would reduce a
    huge one by repeated subtraction)."""
    (size,), (k, n) = parent.shape, gens.shape
    elements = np.empty((size, n), dtype=gens.dtype)
    elements[0] = np.arange(n, dtype=gens.dtype)
    flat, rows, index = gens.reshape(-1), buffers.gathered, buffers.index
    offset = via * n if k > 1 else None
    # the offsets added in the rows' own type where every index fits it (k n - 1 at most: S_6's
    # Cayley automaton, 1,439 in uint16), before the rows are widened to an index: a quarter of
    # the bytes of adding them to the index (0.88 against 1.06 ms for S_6's 720 x 720 elements)
    narrow = None
    if offset is not None and k * n - 1 <= np.iinfo(gens.dtype).max:
        narrow, offset = offset.astype(gens.dtype), None
    s = 1
    while s < size:
        e = min(int(parent.searchsorted(s, side="left")), s + buffers.rows)
        b = e - s
        elements.take(parent[s:e], axis=0, out=rows[:b], mode="clip")
        if narrow is not None:
            np.add(rows[:b], narrow[s:e, None], out=rows[:b])
        np.copyto(index[:b], rows[:b])  # then the offsets: a same-type add is 5x faster than a mixed one
        if offset is not None:
            np.add(index[:b], offset[s:e, None], out=index[:b])
        flat.take(index[:b], out=elements[s:e], mode="wrap")
        s = e
    return elements


def _check_closed(gens: np.ndarray, elements: np.ndarray, right: np.ndarray, parent: np.ndarray,
                  via: np.ndarray, buffers: _Buffers) -> None:
    """:class:`_HashCollision` unless every element found, composed with every generator, is the
    element its right Cayley row names.  With the identity among them, the rows found are then
    closed under the generators, so they are the whole monoid; and they are distinct, as their
    keys (of the sampled states) are: the sampled closure is exact once this check passes.  The
    tree edges (``right[parent[j], via[j]] = j``) hold by construction (:func:`_materialise`
    composed them), so only the others are composed."""
    size = elements.shape[0]
    rows, index, composed, equal = buffers.gathered, buffers.index, buffers.composed, buffers.equal
    for a in range(gens.shape[0]):
        target = right[:, a]
        edges = ((parent.take(target) != np.arange(size)) | (via.take(target) != a)).nonzero()[0]
        for lo in range(0, edges.shape[0], buffers.rows):
            sel = edges[lo : lo + buffers.rows]
            b = sel.shape[0]
            elements.take(sel, axis=0, out=rows[:b], mode="clip")
            np.copyto(index[:b], rows[:b])
            gens[a].take(index[:b], out=composed[:b], mode="wrap")
            elements.take(target.take(sel), axis=0, out=rows[:b], mode="clip")
            if not np.equal(composed[:b], rows[:b], out=equal[:b]).all():
                raise _HashCollision

"""The automaton's label after every prefix of one long word, fast: the oracle of a property.

A property over long words compares a model's prediction after every prefix with the
automaton's label there; the labels must cost far less than the model.  :func:`prefix_labels`
reads a word as *parts* ``(block, repeats)`` (a structured word from
:mod:`~bilinear.automata.strategies` carries them; a plain list is split into runs
of one symbol) and labels a part ``block^repeats`` without stepping through it:

* a table ``(states, len(block))`` of the state after each position of ``block`` from *every*
  state, ``len(block)`` vectorised steps;
* the states at which the copies of ``block`` start, ``q, f(q), f(f(q)), ...`` with ``f`` the
  block's transformation: eventually periodic after at most ``states`` steps, so they are
  found in at most ``states`` scalar steps and tiled with numpy;
* the trace is the table's rows at those states, flattened.

Short parts, and plain words whose runs are mostly short, are stepped through a Python list of
the transition table (about 0.1 us a symbol).  ``benchmarks/bench_properties.py --labels`` measures both
against :meth:`Automaton.trace <bilinear.automata.automaton.Automaton.trace>`.

>>> from bilinear.automata import from_spec
>>> a = from_spec("cyclic:3")
>>> prefix_labels(a, [1] * 5 + [2]).tolist()
[1, 2, 0, 1, 2, 1]
>>> bool((prefix_labels(a, [1] * 10_000) == a.labels[a.trace([1] * 10_000)[1:]]).all())
True
"""

from __future__ import annotations

import numpy as np

from bilinear.errors import AutomatonError

from .automaton import Automaton

__all__ = ["prefix_labels", "prefix_states", "runs"]

#: A part ``block^repeats`` shorter than this is stepped through symbol by symbol.
SHORT_PART = 32


def _rows(automaton: Automaton) -> list[list[int]]:
    """The transition table as Python lists (cached on the automaton, which is frozen)."""
    cache = automaton.__dict__
    if "_rows_as_lists" not in cache:
        cache["_rows_as_lists"] = automaton.delta.tolist()
    return cache["_rows_as_lists"]


def runs(word: np.ndarray) -> list[tuple[tuple[int, ...], int]]:
    """``word`` (1-D int array) as parts ``((symbol,), run length)``, one per maximal run.

    >>> runs(np.array([0, 0, 0, 1, 2, 2]))
    [((0,), 3), ((1,), 1), ((2,), 2)]
    """
    if word.size == 0:
        return []
    edges = np.flatnonzero(np.diff(word)) + 1
    starts = np.concatenate([[0], edges])
    lengths = np.diff(np.concatenate([starts, [word.size]]))
    return [((int(word[s]),), int(n)) for s, n in zip(starts.tolist(), lengths.tolist())]


def _step(rows: list[list[int]], q: int, symbols, out: list[int]) -> int:
    append = out.append
    for a in symbols:
        q = rows[a][q]
        append(q)
    return q


def _power(delta: np.ndarray, q: int, block: tuple[int, ...], repeats: int) -> np.ndarray:
    """States after every symbol of ``block^repeats`` read from ``q``, (len(block) * repeats,)."""
    n = delta.shape[1]
    table = np.empty((n, len(block)), dtype=np.int64)  # (states, block): state after position j from each state
    s = np.arange(n)
    for j, a in enumerate(block):
        s = delta[a][s]
        table[:, j] = s
    f = table[:, -1].tolist()
    starts: list[int] = []
    seen: dict[int, int] = {}
    while len(starts) < repeats and q not in seen:  # the rho: at most n distinct starts
        seen[q] = len(starts)
        starts.append(q)
        q = f[q]
    if len(starts) < repeats:  # q repeats: the starts cycle from seen[q] on
        mu = seen[q]
        cycle = np.array(starts[mu:], dtype=np.int64)
        tail = cycle[np.arange(repeats - len(starts)) % cycle.size]
        first = np.concatenate([np.array(starts, dtype=np.int64), tail])
    else:
        first = np.array(starts, dtype=np.int64)
    return table[first].reshape(-1)


def _parts(automaton: Automaton, word):
    """(parts, length) of ``word``: a structured word's own parts, or runs of one symbol."""
    parts = getattr(word, "parts", None)
    if parts is not None:
        return parts, sum(len(b) * r for b, r in parts)
    array = np.asarray(word)
    if array.ndim != 1 or (array.size and array.dtype.kind not in "iu"):
        raise AutomatonError(f"a word must be a 1-D sequence of symbol indices, got shape {array.shape} "
                             f"({array.dtype})")
    array = array.astype(np.int64, copy=False)
    if array.size and (array.min() < 0 or array.max() >= automaton.n_symbols):
        bad = int(array.min()) if array.min() < 0 else int(array.max())
        raise AutomatonError(f"word uses symbol index {bad}, outside 0..{automaton.n_symbols - 1}")
    n_runs = int(np.count_nonzero(np.diff(array))) + 1 if array.size else 0
    if n_runs * SHORT_PART > array.size:  # mostly short runs: one pass through the list is faster
        return [(tuple(array.tolist()), 1)], int(array.size)
    return runs(array), int(array.size)


def prefix_states(automaton: Automaton, word, state: int | None = None) -> np.ndarray:
    """The state after every prefix of ``word`` of length 1..len(word), (len(word),) int64 (the
    same as ``automaton.trace(word)[1:]``, faster on words with long repetitions)."""
    if not isinstance(automaton, Automaton):
        raise AutomatonError(f"prefix_states needs an Automaton, got {type(automaton).__name__}")
    parts, length = _parts(automaton, word)
    q = automaton.start if state is None else automaton.run((), state)
    rows, delta = _rows(automaton), automaton.delta
    pieces: list[np.ndarray] = []
    pending: list[int] = []
    for block, repeats in parts:
        if repeats < 4 or repeats * len(block) < SHORT_PART:  # a power's table pays from a few copies on
            q = _step(rows, q, block * repeats, pending)
            continue
        if pending:
            pieces.append(np.array(pending, dtype=np.int64))
            pending = []
        trace = _power(delta, q, tuple(block), repeats)
        pieces.append(trace)
        q = int(trace[-1])
    if pending:
        pieces.append(np.array(pending, dtype=np.int64))
    out = np.concatenate(pieces) if pieces else np.zeros(0, dtype=np.int64)
    assert out.size == length  # every part was read
    return out


def prefix_labels(automaton: Automaton, word, state: int | None = None) -> np.ndarray:
    """The label index after every prefix of ``word`` of length 1..len(word), (len(word),)."""
    states = prefix_states(automaton, word, state)  # checks the automaton first
    return automaton.labels[states]

"""Access words, loops and the directed words: what the structured word strategies index.

A model that tracks an automaton on short words fails, when it fails, on a word that reaches
some state and then repeats a short loop many times: a rotation a little off drifts under
``a^n``, a contraction forgets under ``0^n`` after a ``1``.  :func:`catalogue` lists the pieces
such words are made of, shortest first, so that a strategy draws *small integers that index
them* and Hypothesis's shrinker, which makes integers smaller, moves towards shorter pieces:

* ``prefixes``: the shortlex-least access word of each reachable state, in breadth-first order
  (:func:`~bilinear.automata.minimize.access_words`; index 0 is the empty word);
* ``loops``: every single symbol, every pair ``a b`` (``a != b``), then the shortlex-least words
  of the transformation monoid's *cycles* (elements ``x`` with ``x^(p+1) = x`` for some
  ``p > 1``: their powers go round) and *idempotents* (``x x = x``: resets, projections) of
  length 3 and more, shortest first, at most :data:`MAX_LOOPS` in all.

:func:`directed_loops` lists the directed words of the float check (``assert_tracks``) as
``(head, loop)`` pairs, in the check's own order; the float check builds its rows from it.

>>> from bilinear.automata import from_spec
>>> c = catalogue(from_spec("flipflop:2"))
>>> c.prefixes, c.loops[:4], c.kinds[:4]
(((), (1,)), ((0,), (1,), (2,), (0, 1)), ('symbol', 'symbol', 'symbol', 'pair'))
>>> directed_loops(from_spec("parity"))[:4]
[((), (0,)), ((), (1,)), ((0,), (1,)), ((1,), (0,))]
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from functools import lru_cache

from bilinear.errors import MonoidTooLargeError

from .automaton import Automaton
from .minimize import access_words

__all__ = ["Catalogue", "catalogue", "directed_loops", "MAX_LOOPS", "MAX_PREFIXES", "MONOID_LIMIT",
           "DIRECTED_MAX", "LOOP_MAX"]

#: Most loops a catalogue holds (symbols and pairs first, then monoid words by length).
MAX_LOOPS = 48
#: Most access words a catalogue holds (the first states in breadth-first order).
MAX_PREFIXES = 64
#: Largest transformation monoid whose cycles and idempotents join the loops; past it the loops
#: are the symbols, the pairs and the primitive triples.
MONOID_LIMIT = 5000
#: Longest monoid word taken as a loop.
MONOID_WORD_MAX = 8
#: At most this many directed words (loops of length 3 are dropped first, then of length 2).
DIRECTED_MAX = 1024
#: Longest loop word repeated by the directed words.
LOOP_MAX = 3


@dataclass(frozen=True)
class Catalogue:
    """The pieces of structured words for one automaton (see the module docstring)."""

    prefixes: tuple[tuple[int, ...], ...]
    loops: tuple[tuple[int, ...], ...]
    kinds: tuple[str, ...]  # per loop: symbol, pair, cycle, idempotent or triple


def _primitive(u: tuple) -> bool:
    """True unless ``u`` is a power of a shorter word."""
    p = len(u)
    return not any(p % q == 0 and u == u[:q] * (p // q) for q in range(1, p))


def _monoid_loops(automaton: Automaton, room: int) -> list[tuple[tuple[int, ...], str]]:
    """Up to ``room`` (word, kind) of the monoid's cycles and idempotents of length >= 3."""
    from .monoid import transformation_monoid

    try:
        m = transformation_monoid(automaton, limit=MONOID_LIMIT)
    except MonoidTooLargeError:
        triples = [u for u in itertools.product(range(automaton.n_symbols), repeat=3) if _primitive(u)]
        return [(u, "triple") for u in triples[:room]]
    out: list[tuple[tuple[int, ...], str]] = []
    for i in range(1, m.size):  # shortlex order: element i's word is never longer than i+1's
        if len(out) >= room:
            break
        word = m.word(i)
        if len(word) < 3:
            continue
        if len(word) > MONOID_WORD_MAX:
            break
        if not _primitive(word):
            continue
        x, kind = m.multiply(i, i), None
        if x == i:
            kind = "idempotent"
        else:
            for _ in range(m.size):
                x = m.multiply(x, i)
                if x == i:
                    kind = "cycle"
                    break
        if kind is not None:
            out.append((word, kind))
    return out


@lru_cache(maxsize=64)
def catalogue(automaton: Automaton) -> Catalogue:
    """The access words and loops of ``automaton`` (cached per automaton)."""
    access = access_words(automaton)
    prefixes = tuple(itertools.islice(access.each_word(), MAX_PREFIXES))
    k = automaton.n_symbols
    loops: list[tuple[tuple[int, ...], str]] = [((a,), "symbol") for a in range(k)]
    pairs = (((a, b), "pair") for a in range(k) for b in range(k) if a != b)  # not all k^2 of them made
    loops += itertools.islice(pairs, max(0, MAX_LOOPS - k))
    if len(loops) < MAX_LOOPS:
        loops += _monoid_loops(automaton, MAX_LOOPS - len(loops))
    loops = loops[:MAX_LOOPS]
    return Catalogue(prefixes, tuple(u for u, _ in loops), tuple(kind for _, kind in loops))


def directed_loops(automaton: Automaton, max_words: int = DIRECTED_MAX) -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
    """The directed words of the float check as ``(head, loop)``: the word of length ``n`` is
    ``head`` followed by ``loop`` repeated and cut to ``n - len(head)`` symbols.  In order:
    every symbol's power ``a^n``; when ``symbols^2 <= max_words``, every symbol followed by
    another's power (``a b^(n-1)``); then the primitive loops of length 2..:data:`LOOP_MAX`
    (longer loops only while the count stays within ``max_words``)."""
    k = automaton.n_symbols
    rows: list[tuple[tuple[int, ...], tuple[int, ...]]] = [((), (a,)) for a in range(k)]
    if k * k <= max_words:
        rows += [((a,), (b,)) for a in range(k) for b in range(k) if a != b]
    for size in range(2, LOOP_MAX + 1):
        if rows and len(rows) + _primitive_count(k, size) > max_words:  # counted, not listed (k^size words)
            break
        loops = [u for u in itertools.product(range(k), repeat=size) if _primitive(u)]
        rows += [((), u) for u in loops[:max_words]]
    return rows


def _primitive_count(k: int, n: int) -> int:
    """The number of primitive words of length ``n`` over ``k`` symbols: each of the k^n words is
    a power of exactly one primitive word whose length divides n, so the count is k^n less the
    primitive words of each shorter length that divides n.

    >>> [_primitive_count(2, n) for n in range(1, 7)], _primitive_count(7000, 2)
    ([2, 2, 6, 12, 30, 54], 48993000)
    """
    return k ** n - sum(_primitive_count(k, d) for d in range(1, n) if n % d == 0)

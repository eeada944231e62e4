"""The transformation monoid of an automaton, by vectorised breadth-first closure, and its algebra.

Every word ``w`` acts on the states as a transformation ``q -> q·w``; these transformations form
a monoid under "first ``u``, then ``v``" (the identity is the empty word).  For a minimal
automaton it is the *syntactic monoid* of the labelling, the algebraic object that decides which
networks can track the automaton (Krohn–Rhodes: solvable subgroups <-> solvable cascades).

The closure is breadth-first over whole frontiers at once: up to 8 states on the elements'
integer codes (composed by table look-ups, found in a direct-address table), beyond on their rows
(composed by ``take``, encoded as integer keys or raw bytes, deduplicated with ``np.unique`` and
found in a hash map).  Children are generated parent-major and symbol-minor, so element ``i``'s
word — its parent's word plus one symbol — is the **shortlex least** word of the element.

The closure is in :mod:`~bilinear.automata.closure` (arrays; it imports no Monoid),
Green's relations (idempotents, H- and
D-classes) in :mod:`~bilinear.automata.green`, maximal subgroups and solvability in
:mod:`~bilinear.automata.groups`, the Cayley graph and relations in
:mod:`~bilinear.automata.graphs`; this module holds the :class:`Monoid` value and
:func:`transformation_monoid` (the closure wrapped in a Monoid, cached per automaton).

Algebra (for transformations acting on the right):

* an element ``x`` lies in the maximal subgroup (group H-class) of an idempotent ``e`` exactly
  when ``x`` has the image and the kernel of ``e``; restricted to the image of ``e`` it is a
  permutation, and these permutations form the group (:meth:`Monoid.maximal_subgroup`);
* D-classes (= J-classes, the monoid being finite) are the strongly connected components of the
  two-sided Cayley graph; idempotents in one D-class have isomorphic maximal subgroups, so one per
  D-class suffices (:meth:`Monoid.maximal_subgroups`);
* aperiodic: every maximal subgroup is trivial; solvable: every maximal subgroup is solvable
  (a group of order below 60 always is).

>>> from bilinear.automata import from_spec
>>> m = transformation_monoid(from_spec("dihedral:8"))
>>> m.size, m.is_group, m.is_commutative, m.is_solvable
(16, True, False, True)
>>> m.classification
'non-abelian solvable group of order 16'
>>> transformation_monoid(from_spec("flipflop:2")).classification
'aperiodic monoid of size 3'
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Iterable

import numpy as np

from bilinear.errors import AutomatonError, UnknownSymbolError

from .automaton import Automaton
from .closure import (
    DEFAULT_LIMIT,
    MEMORY_LIMIT_BYTES,
    WORK_LIMIT,
    _Keys,
    close,
    full_transformation_automaton,
)
from .graphs import CayleyGraphs
from .groups import GroupStructure, solvable_by_order

__all__ = [
    "Monoid",
    "transformation_monoid",
    "full_transformation_automaton",
    "DEFAULT_LIMIT",
    "solvable_by_order",
    "MEMORY_LIMIT_BYTES",
    "WORK_LIMIT",
]


@dataclass(frozen=True, eq=False)
class Monoid(GroupStructure, CayleyGraphs):
    """A transformation monoid with a shortlex-least word for every element.

    Attributes
    ----------
    elements:
        ``(size, states)`` read-only unsigned-integer array; row ``i`` is the transformation
        ``q -> q·word(i)``.  Row 0 is the identity (the empty word).
    right:
        ``(size, symbols)`` int64: ``right[i, a]`` is the index of element ``i`` followed by
        symbol ``a``.
    parent, via:
        ``(size,)`` int64 parent pointers: ``word(i) = word(parent[i]) + (via[i],)``
        (``-1`` for the identity).
    generators:
        ``(symbols, states)`` the transformations of the symbols.
    symbols:
        Symbol names (to print words).
    name:
        Name of the automaton the monoid comes from.
    """

    elements: np.ndarray
    right: np.ndarray
    parent: np.ndarray
    via: np.ndarray
    generators: np.ndarray
    symbols: tuple[str, ...]
    name: str = ""

    @property
    def size(self) -> int:
        """Number of elements."""
        return int(self.elements.shape[0])

    def __len__(self) -> int:
        return self.size

    @property
    def n_states(self) -> int:
        return int(self.elements.shape[1])

    @property
    def n_symbols(self) -> int:
        return int(self.right.shape[1])

    def __repr__(self) -> str:
        name = f"{self.name!r}, " if self.name else ""
        return f"Monoid({name}size={self.size}, states={self.n_states}, symbols={self.n_symbols})"

    def word(self, i: int) -> tuple[int, ...]:
        """The shortlex-least word (symbol indices) of element ``i``."""
        if not 0 <= int(i) < self.size:
            raise AutomatonError(f"element {i} is out of range 0..{self.size - 1}")
        out = []
        i = int(i)
        while i:
            out.append(int(self.via[i]))
            i = int(self.parent[i])
        return tuple(reversed(out))

    @cached_property
    def words(self) -> tuple[tuple[int, ...], ...]:
        """Shortlex-least word of every element, in element order (which is shortlex order)."""
        out: list[tuple[int, ...]] = [()]
        parent, via = self.parent.tolist(), self.via.tolist()
        for i in range(1, self.size):
            out.append(out[parent[i]] + (via[i],))
        return tuple(out)

    @cached_property
    def lengths(self) -> np.ndarray:
        """``(size,)`` length of each element's shortest word."""
        lengths = [0] * self.size
        parent = self.parent.tolist()
        for i in range(1, self.size):  # parents precede children
            lengths[i] = lengths[parent[i]] + 1
        out = np.array(lengths, dtype=np.int64)
        out.setflags(write=False)
        return out

    def format_word(self, word: Iterable[int]) -> str:
        """A readable word: names joined by nothing (one-character names) or spaces; ε if empty."""
        names = [self.symbols[int(a)] for a in word]
        if not names:
            return "ε"
        return ("" if all(len(s) == 1 for s in self.symbols) else " ").join(names)

    def _encode_word(self, word) -> list[int]:
        """Symbol indices of a word given as names, indices or one string (as Automaton.encode)."""
        index = {s: i for i, s in enumerate(self.symbols)}
        if isinstance(word, str):
            if any(c.isspace() for c in word):
                items: list = word.split()
            elif all(len(s) == 1 for s in self.symbols):
                items = list(word)
            else:
                items = [word] if word else []
        else:
            items = list(word)
        out = []
        for pos, item in enumerate(items):
            if isinstance(item, str):
                if item not in index:
                    raise UnknownSymbolError(f"unknown symbol {item!r} at position {pos}")
                out.append(index[item])
            elif isinstance(item, (int, np.integer)) and not isinstance(item, (bool, np.bool_)):
                if not 0 <= int(item) < self.n_symbols:
                    raise UnknownSymbolError(f"unknown symbol index {int(item)} at position {pos}")
                out.append(int(item))
            else:
                raise UnknownSymbolError(f"symbol {item!r} at position {pos} is neither a name nor an index")
        return out

    def index(self, word) -> int:
        """The element a word (names or indices) evaluates to.

        >>> from bilinear.automata import from_spec
        >>> m = transformation_monoid(from_spec("cyclic:3"))
        >>> m.index([1, 1, 1]), m.index("2"), m.word(m.index([2, 2]))
        (0, 2, (1,))
        """
        i = 0
        right = self.right
        for a in self._encode_word(word):
            i = int(right[i, a])
        return i

    def multiply(self, i: int, j: int) -> int:
        """Index of the product "first element ``i``, then element ``j``"."""
        for k in (i, j):
            if not 0 <= int(k) < self.size:
                raise AutomatonError(f"element {k} is out of range 0..{self.size - 1}")
        x = int(i)
        for a in self.word(j):
            x = int(self.right[x, a])
        return x

    @cached_property
    def is_group(self) -> bool:
        """Every element is a permutation (equivalently, every generator is)."""
        g = np.sort(self.generators, axis=1)
        return bool((g == np.arange(self.n_states)).all())

    @cached_property
    def is_commutative(self) -> bool:
        """Every two generators commute (hence every two elements do)."""
        g = np.unique(self.generators, axis=0)  # (distinct symbols, states)
        for a in range(g.shape[0] - 1):
            rest = g[a + 1 :]
            if not (rest[:, g[a]] == g[a][rest]).all():  # a then b  vs  b then a
                return False
        return True

    @cached_property
    def left(self) -> np.ndarray:
        """``(size, symbols)`` int64: ``left[i, a]`` is the index of symbol ``a`` followed by element ``i``."""
        keys, sorted_keys, order = self._sorted_keys
        out = np.empty((self.size, self.n_symbols), dtype=np.int64)
        for a in range(self.n_symbols):
            rows = self.elements[:, self.generators[a]]  # (size, states): first a, then x
            k = keys.encode(rows)
            pos = np.searchsorted(sorted_keys, k)
            out[:, a] = order[pos]
        out.setflags(write=False)
        return out

    @cached_property
    def _sorted_keys(self):
        keys = _Keys(self.n_states, self.elements.dtype, exact=True)
        own = keys.encode(self.elements)
        order = np.argsort(own, kind="stable")
        return keys, own[order], order

    def find(self, rows) -> np.ndarray:
        """Indices of transformations ``rows`` ``(m, states)`` in the monoid, -1 where absent.

        >>> from bilinear.automata import from_spec
        >>> m = transformation_monoid(from_spec("cyclic:3"))
        >>> m.find([[1, 2, 0], [0, 0, 0]]).tolist()
        [1, -1]
        """
        rows = np.asarray(rows)
        if rows.ndim != 2 or rows.shape[1] != self.n_states:
            raise AutomatonError(f"rows must have shape (m, {self.n_states}), got {rows.shape}")
        out = np.full(rows.shape[0], -1, dtype=np.int64)
        valid = np.flatnonzero(((rows >= 0) & (rows < self.n_states)).all(axis=1)) if rows.size else out[:0]
        if not valid.size:
            return out
        keys, sorted_keys, order = self._sorted_keys
        k = keys.encode(rows[valid].astype(self.elements.dtype))
        pos = np.minimum(np.searchsorted(sorted_keys, k), self.size - 1)
        hit = sorted_keys[pos] == k
        out[valid] = np.where(hit, order[pos], -1)
        return out

    def summary(self) -> dict:
        """The facts ``bilinear describe`` prints, as a JSON-ready dict."""
        return {
            "monoid_size": self.size,
            "group": self.is_group,
            "commutative": self.is_commutative,
            "aperiodic": self.is_aperiodic,
            "solvable": self.is_solvable,
            "idempotents": int(self.idempotents.size),
            "classification": self.classification,
        }


def transformation_monoid(automaton: Automaton, limit: int | None = None, *,
                          time_budget: float | None = None, progress=False) -> Monoid:
    """The transformation monoid of ``automaton`` by breadth-first closure
    (:func:`~bilinear.automata.closure.close`), cached on the automaton: a later call with any
    ``limit`` at least the monoid's size returns the same value.

    Raises :class:`~bilinear.errors.MonoidTooLargeError` (naming ``limit``, default
    :data:`DEFAULT_LIMIT`) as soon as more than ``limit`` elements are found, when the closure's
    tables would exceed :data:`MEMORY_LIMIT_BYTES`, or when its work passes :data:`WORK_LIMIT`;
    ``time_budget`` (seconds) stops a slower closure with the same error; ``progress=True``
    prints a line on stderr every 2 s once the closure has run 2 s.

    >>> from bilinear.automata import from_spec
    >>> a = from_spec("symmetric:4")
    >>> transformation_monoid(a).size, transformation_monoid(a, limit=24) is transformation_monoid(a)
    (24, True)
    >>> transformation_monoid(full_transformation_automaton(5), limit=100)
    Traceback (most recent call last):
    ...
    bilinear.errors.MonoidTooLargeError: the transformation monoid of T_5 has more than 100 elements (limit=100)
    """
    if not isinstance(automaton, Automaton):
        raise AutomatonError(f"transformation_monoid needs an Automaton, got {type(automaton).__name__}")
    limit = DEFAULT_LIMIT if limit is None else limit
    cache = automaton.__dict__.setdefault("_monoid_cache", {})
    for value in cache.values():
        if not isinstance(limit, bool) and isinstance(limit, (int, np.integer)) and value.size <= limit:
            return value
    c = close(automaton, limit=limit, time_budget=time_budget, progress=progress)
    result = Monoid(elements=c.elements, right=c.right, parent=c.parent, via=c.via,
                    generators=c.generators, symbols=automaton.symbols, name=automaton.name)
    cache[limit] = result
    return result

"""The transformation monoid of an automaton, by vectorised breadth-first closure, and its algebra.

Every word ``w`` acts on the states as a transformation ``q -> q·w``; these transformations form
a monoid under "first ``u``, then ``v``" (the identity is the empty word).  For a minimal
automaton it is the *syntactic monoid* of the labelling, the algebraic object that decides which
networks can track the automaton (Krohn–Rhodes: solvable subgroups <-> solvable cascades).

The closure is breadth-first over whole frontiers at once: the frontier's transformations
``(frontier, states)`` are composed with each generator by fancy indexing, encoded as integer keys
(or raw bytes for many states), deduplicated with ``np.unique`` and checked against the elements
found so far (a direct-address table when ``states**states`` is small, a hash map otherwise).
Children are generated parent-major and symbol-minor, so element ``i``'s word — its parent's word
plus one symbol — is the **shortlex least** word of the element.

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

import math
from dataclasses import dataclass
from functools import cached_property
from typing import Iterable

import numpy as np

from bilinear.errors import AutomatonError, MonoidTooLargeError, UnknownSymbolError

from .automaton import Automaton

__all__ = [
    "Monoid",
    "transformation_monoid",
    "full_transformation_automaton",
    "DEFAULT_LIMIT",
    "solvable_by_order",
    "MEMORY_LIMIT_BYTES",
    "WORK_LIMIT",
]

#: Default largest number of elements the closure enumerates before raising MonoidTooLargeError.
DEFAULT_LIMIT = 2_000_000
#: Largest size in bytes of the element table (elements x states) the closure will hold.
MEMORY_LIMIT_BYTES = 2 * 1024**3
#: Largest closure work, in state entries composed (elements x symbols x states), before
#: MonoidTooLargeError: about a minute of numpy on one core.
WORK_LIMIT = 20_000_000_000
#: The direct-address table is used when states**states is at most this.
_DIRECT_TABLE_MAX = 1 << 24
#: Entries (children x states) generated per chunk (bounds the transient memory of one step).
_CHUNK_ENTRIES = 1 << 23
#: The order of the smallest non-solvable group (A_5).
_SMALLEST_NON_SOLVABLE = 60


def _dtype_for(n: int) -> np.dtype:
    if n <= 1 << 8:
        return np.dtype(np.uint8)
    if n <= 1 << 16:
        return np.dtype(np.uint16)
    return np.dtype(np.int32)


class _HashCollision(Exception):
    """Two different transformations got the same 64-bit hash (then the closure is redone with
    exact byte keys)."""


class _Keys:
    """Encodes transformations (rows) as hashable, sortable keys, and finds them again.

    Modes: ``direct`` (mixed-radix integer, direct-address table; ``states**states`` small),
    ``packed`` (exact bit-packed int64 in a hash map), ``hashed`` (a random 64-bit hash, checked
    by the caller), ``bytes`` (the raw row bytes; exact, slowest).
    """

    def __init__(self, n: int, dtype: np.dtype, exact: bool = False) -> None:
        self.n = n
        self.dtype = dtype
        bits = max(1, math.ceil(math.log2(n))) if n > 1 else 1
        self.map: dict = {}
        if n**n <= _DIRECT_TABLE_MAX:
            self.mode = "direct"
            self.mult = np.array([n**i for i in range(n)], dtype=np.int64)
            # index + 1, 0 = absent: np.zeros maps zero pages lazily, so a large table costs
            # only the pages the closure touches
            self.table = np.zeros(max(1, n**n), dtype=np.int64)
        elif bits * n <= 63:
            self.mode = "packed"
            self.mult = np.array([1 << (bits * i) for i in range(n)], dtype=np.int64)
        elif not exact:
            self.mode = "hashed"
            rng = np.random.default_rng(0x5EED)
            self.mult = rng.integers(1, 2**63, size=n, dtype=np.int64).astype(np.uint64) | np.uint64(1)
        else:
            self.mode = "bytes"
            self.mult = None

    @property
    def exact(self) -> bool:
        return self.mode != "hashed"

    def encode(self, rows: np.ndarray) -> np.ndarray:
        """Keys of rows ``(m, states)``: an integer ``(m,)`` or a void (bytes) array ``(m,)``."""
        if self.mode in ("direct", "packed"):
            return rows.astype(np.int64) @ self.mult
        if self.mode == "hashed":
            with np.errstate(over="ignore"):  # arithmetic mod 2**64 is the point
                return rows.astype(np.uint64) @ self.mult
        rows = np.ascontiguousarray(rows, dtype=self.dtype)
        return rows.view(np.dtype((np.void, rows.dtype.itemsize * self.n))).reshape(-1)

    def lookup(self, keys: np.ndarray) -> np.ndarray:
        """Indices of ``keys`` (-1 where unknown), shape ``(m,)``."""
        if self.mode == "direct":
            return self.table[keys] - 1
        get = self.map.get
        return np.fromiter((get(k, -1) for k in keys.tolist()), dtype=np.int64, count=keys.shape[0])

    def insert(self, keys: np.ndarray, indices: np.ndarray) -> None:
        if self.mode == "direct":
            self.table[keys] = indices + 1
        else:
            self.map.update(zip(keys.tolist(), indices.tolist()))


@dataclass(frozen=True, eq=False)
class Monoid:
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

    # -- sizes and words -------------------------------------------------------------------
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
        >>> m = from_spec("cyclic:3").monoid()
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

    # -- properties of the whole monoid ----------------------------------------------------
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
    def idempotents(self) -> np.ndarray:
        """Indices of the idempotents ``e·e = e`` (the identity first)."""
        if self.is_group:  # a group has one idempotent
            out = np.zeros(1, dtype=np.int64)
            out.setflags(write=False)
            return out
        rows = self.elements.astype(np.int64)
        squared = np.take_along_axis(rows, rows, axis=1)
        out = np.flatnonzero((squared == rows).all(axis=1))
        out.setflags(write=False)
        return out

    @cached_property
    def ranks(self) -> np.ndarray:
        """``(size,)`` image size of each element."""
        rows = np.sort(self.elements, axis=1)
        out = 1 + (rows[:, 1:] != rows[:, :-1]).sum(axis=1) if self.n_states > 1 else np.ones(self.size, np.int64)
        out = np.asarray(out, dtype=np.int64)
        out.setflags(write=False)
        return out

    @cached_property
    def _h_signature(self) -> np.ndarray:
        """``(size,)`` class index of (image, kernel): equal for x, y iff they are H-related in
        the full transformation monoid (for a group H-class of ours: iff they lie in it)."""
        rows = self.elements
        m, n = rows.shape
        image = np.zeros((m, n), dtype=rows.dtype)
        image[np.arange(m)[:, None], rows] = 1
        order = np.argsort(rows, axis=1, kind="stable")
        sorted_rows = np.take_along_axis(rows, order, axis=1)
        starts = np.ones((m, n), dtype=bool)
        starts[:, 1:] = sorted_rows[:, 1:] != sorted_rows[:, :-1]
        run_start = np.maximum.accumulate(np.where(starts, np.arange(n, dtype=np.int64), 0), axis=1)
        first = np.take_along_axis(order, run_start, axis=1)  # first point of each kernel block
        kernel = np.empty_like(rows)
        np.put_along_axis(kernel, order, first, axis=1)
        sig = np.ascontiguousarray(np.concatenate([image, kernel.astype(rows.dtype)], axis=1))
        key = sig.view(np.dtype((np.void, sig.dtype.itemsize * 2 * n))).reshape(-1)
        _, inverse = np.unique(key, return_inverse=True)
        return inverse.reshape(-1)

    def h_class(self, e: int) -> np.ndarray:
        """Indices of the group H-class (maximal subgroup) of the idempotent ``e``."""
        e = int(e)
        if e not in set(self.idempotents.tolist()):
            raise AutomatonError(f"element {e} is not an idempotent")
        return np.flatnonzero(self._h_signature == self._h_signature[e])

    @cached_property
    def _group_orders(self) -> np.ndarray:
        """``(idempotents,)`` order of the maximal subgroup at each idempotent."""
        counts = np.bincount(self._h_signature)
        return counts[self._h_signature[self.idempotents]]

    @cached_property
    def is_aperiodic(self) -> bool:
        """Every maximal subgroup is trivial (no element generates a non-trivial group)."""
        if self.is_group:
            return self.size == 1
        return bool((self._group_orders == 1).all())

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
        >>> m = from_spec("cyclic:3").monoid()
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

    @cached_property
    def d_class_index(self) -> np.ndarray:
        """``(size,)`` D-class (= J-class) of each element: strongly connected components of the
        two-sided Cayley graph, numbered in order of their first element.

        Multiplying by a unit (a permutation generator) on either side is invertible, so the
        orbits of the group of units (``x -> g x h``) lie inside D-classes; they are merged first
        (vectorised label propagation), and Tarjan's algorithm runs on the much smaller quotient.
        """
        size = self.size
        units = [a for a in range(self.n_symbols) if len(set(self.generators[a].tolist())) == self.n_states]
        label = np.arange(size, dtype=np.int64)
        if units:
            neighbours = np.concatenate([self.right[:, units], self.left[:, units]], axis=1)  # (size, 2*units)
            while True:
                new = np.minimum(label, label[neighbours].min(axis=1))
                new = new[new]  # pointer jumping
                if np.array_equal(new, label):
                    break
                label = new
        roots, orbit = np.unique(label, return_inverse=True)
        orbit = orbit.reshape(-1)
        n_orbits = roots.size
        adjacency = np.concatenate([self.right, self.left], axis=1)  # (size, 2*symbols)
        src = np.repeat(orbit, adjacency.shape[1])
        dst = orbit[adjacency.reshape(-1)]
        keep = src != dst
        pairs = np.unique(src[keep] * n_orbits + dst[keep])
        src, dst = pairs // n_orbits, pairs % n_orbits
        indptr = np.concatenate([[0], np.cumsum(np.bincount(src, minlength=n_orbits))])
        comp = np.asarray(_strong_components(indptr, dst), dtype=np.int64)[orbit]
        _, first, inverse = np.unique(comp, return_index=True, return_inverse=True)
        renumber = np.argsort(np.argsort(first))
        out = renumber[inverse.reshape(-1)]
        out.setflags(write=False)
        return out

    def d_classes(self) -> list[np.ndarray]:
        """The D-classes as arrays of element indices, in order of their first element."""
        index = self.d_class_index
        order = np.argsort(index, kind="stable")
        bounds = np.cumsum(np.bincount(index))[:-1]
        return list(np.split(order, bounds))

    # -- groups inside the monoid, by element indices ------------------------------------------
    def _times(self, xs: np.ndarray, y: int) -> np.ndarray:
        """``xs · y`` for an array of element indices: follow ``y``'s word through ``right``."""
        for a in self.word(y):
            xs = self.right[xs, a]
        return xs

    def _subgroup(self, e: int, gens: list[int]) -> np.ndarray:
        """Boolean mask ``(size,)`` of the subgroup with identity ``e`` generated by ``gens``
        (elements of the maximal subgroup at ``e``)."""
        mask = np.zeros(self.size, dtype=bool)
        mask[e] = True
        frontier = np.array([e], dtype=np.int64)
        while frontier.size:
            nxt = np.unique(np.concatenate([self._times(frontier, g) for g in gens])) if gens else frontier[:0]
            nxt = nxt[~mask[nxt]]
            mask[nxt] = True
            frontier = nxt
        return mask

    def _inverse(self, e: int, x: int) -> int:
        """Inverse of ``x`` in the maximal subgroup at ``e`` (the last power before ``e``)."""
        previous, power = e, x
        while power != e:
            previous, power = power, int(self._times(np.array([power]), x)[0])
        return previous

    def _group_is_solvable(self, e: int, gens: list[int]) -> bool:
        """Derived series of the group with identity ``e`` generated by ``gens``, computed on
        element indices (the derived series: commutators, then their normal closure)."""

        def reduce(candidates: list[int]) -> tuple[list[int], np.ndarray]:
            kept: list[int] = []
            mask = self._subgroup(e, kept)
            for c in candidates:
                if not mask[c]:
                    kept.append(c)
                    mask = self._subgroup(e, kept)
            return kept, mask

        current, mask = reduce([g for g in gens if g != e])
        while current:
            inverse = {g: self._inverse(e, g) for g in current}
            comms = []
            for i, a in enumerate(current):
                for b in current[i + 1 :]:
                    c = int(self._times(self._times(self._times(np.array([inverse[a]]), inverse[b]), a), b)[0])
                    if c != e:
                        comms.append(c)
            if not comms:
                return True
            derived_gens, derived = reduce(comms)
            grown = True
            while grown:
                grown = False
                for g in current:
                    for s in list(derived_gens):
                        c = int(self._times(self._times(np.array([inverse[g]]), s), g)[0])
                        if not derived[c]:
                            derived_gens.append(c)
                            derived = self._subgroup(e, derived_gens)
                            grown = True
            if derived.sum() == mask.sum():
                return False
            current, mask = derived_gens, derived
        return True

    def _subgroup_permutations(self, e: int) -> np.ndarray:
        """``(members, rank)`` the maximal subgroup at ``e`` as permutations of its image."""
        members = self.h_class(e)
        image = np.unique(self.elements[int(e)]).astype(np.int64)
        position = np.full(self.n_states, -1, dtype=np.int64)
        position[image] = np.arange(image.size)
        return position[self.elements[members][:, image].astype(np.int64)]

    def _subgroup_generators(self, e: int) -> np.ndarray:
        """A small generating set ``(generators, rank)`` of the maximal subgroup at ``e``:
        members (shortest words first) that are not yet generated by the earlier ones."""
        perms = self._subgroup_permutations(e)
        chosen = [perms[0]]
        group = transformation_monoid(Automaton(np.array(chosen)))
        for row in perms[1:]:
            if group.size == perms.shape[0]:
                break
            if group.find(row[None])[0] < 0:
                chosen.append(row)
                group = transformation_monoid(Automaton(np.array(chosen)))
        return np.array(chosen)

    def maximal_subgroup(self, e: int):
        """The maximal subgroup at idempotent ``e`` as a sympy ``PermutationGroup`` acting on the
        image of ``e`` (points renumbered ``0..rank-1``).

        >>> from bilinear.automata import from_spec
        >>> m = from_spec("modarith:5").monoid()
        >>> m.maximal_subgroup(0).order()      # at the identity: the units x -> a*x + b, a != 0
        20
        """
        from sympy.combinatorics import Permutation, PermutationGroup

        target = self.h_class(e).size
        group = PermutationGroup([Permutation(row.tolist()) for row in self._subgroup_generators(e)])
        if group.order() != target:  # pragma: no cover - an internal invariant
            raise AssertionError(f"maximal subgroup at {e}: order {group.order()} != {target}")
        return group

    def regular_d_classes(self) -> list[int]:
        """One idempotent per D-class that has one (the first, i.e. with the shortest word)."""
        if self.is_group:
            return [0]
        d = self.d_class_index[self.idempotents]
        _, first = np.unique(d, return_index=True)
        return sorted(int(self.idempotents[i]) for i in first)

    def maximal_subgroups(self) -> list:
        """The maximal subgroups up to isomorphism: one sympy ``PermutationGroup`` per regular
        D-class (idempotents of one D-class have isomorphic groups)."""
        if self.is_group:
            return [self.group()]
        return [self.maximal_subgroup(e) for e in self.regular_d_classes()]

    def group(self):
        """The monoid as a sympy ``PermutationGroup`` on the states (only for a group).

        >>> from bilinear.automata import from_spec
        >>> from_spec("quaternion").monoid().group().order()
        8
        """
        from sympy.combinatorics import Permutation, PermutationGroup

        if not self.is_group:
            raise AutomatonError(f"the monoid of {self.name or 'this automaton'} is not a group")
        group = PermutationGroup([Permutation(g.tolist()) for g in self.generators.astype(np.int64)])
        if group.order() != self.size:  # pragma: no cover - an internal invariant
            raise AssertionError(f"group order {group.order()} != closure size {self.size}")
        return group

    @cached_property
    def is_solvable(self) -> bool:
        """Every maximal subgroup is solvable (Krohn–Rhodes: a cascade of solvable groups and
        flip-flops suffices).  Abelian groups and orders decided by :func:`solvable_by_order`
        need no group computation; the rest get a derived series computed on element indices
        (``right``), one group per D-class."""
        if self.is_group:
            if self.is_commutative or solvable_by_order(self.size):
                return True
            return self._group_is_solvable(0, self.right[0].tolist())
        orders = self._group_orders
        decided = {int(o): solvable_by_order(o) for o in np.unique(orders).tolist()}
        if all(decided.values()):
            return True
        d = self.d_class_index[self.idempotents]
        checked: set[int] = set()
        for k, e in enumerate(self.idempotents.tolist()):
            if decided[int(orders[k])] or int(d[k]) in checked:
                continue
            checked.add(int(d[k]))
            if not self._group_is_solvable(e, self.h_class(e).tolist()):
                return False
        return True

    @cached_property
    def classification(self) -> str:
        """One line: e.g. "abelian group of order 6", "aperiodic monoid of size 7"."""
        if self.is_group:
            if self.size == 1:
                return "trivial group of order 1"
            if self.is_commutative:
                return f"abelian group of order {self.size}"
            if self.is_solvable:
                return f"non-abelian solvable group of order {self.size}"
            return f"non-solvable group of order {self.size}"
        if self.is_aperiodic:
            return f"aperiodic monoid of size {self.size}"
        if self.is_solvable:
            return f"solvable monoid of size {self.size}"
        return f"non-solvable monoid of size {self.size}"

    # -- presentations and graphs ----------------------------------------------------------
    def relations(self) -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
        """Relations ``(u, v)`` (``u != v`` act the same) found by the closure: for every element
        ``e`` and symbol ``a`` whose word ``word(e) + a`` is not itself an element's word, the
        pair ``(word(e) + a, word(e·a))``.  Together they present the monoid.

        >>> from bilinear.automata import from_spec
        >>> from_spec("parity").monoid().relations()
        [((0,), ()), ((1, 0), (1,)), ((1, 1), ())]
        """
        out = []
        words = self.words
        right = self.right.tolist()
        parent, via = self.parent, self.via
        for e in range(self.size):
            for a in range(self.n_symbols):
                child = right[e][a]
                if child != 0 and parent[child] == e and via[child] == a:
                    continue
                out.append((words[e] + (a,), words[child]))
        return out

    def cayley_graph(self):
        """The right Cayley graph as a networkx ``MultiDiGraph``: nodes are element indices
        (attribute ``word``), one edge ``i -> i·a`` per symbol with key ``a`` and attribute
        ``symbol`` (the name).

        >>> from bilinear.automata import from_spec
        >>> g = from_spec("cyclic:3").monoid().cayley_graph()
        >>> g.number_of_nodes(), g.number_of_edges(), g.nodes[1]["word"]
        (3, 9, '1')
        """
        import networkx as nx

        graph = nx.MultiDiGraph(name=self.name)
        for i, w in enumerate(self.words):
            graph.add_node(i, word=self.format_word(w))
        right = self.right.tolist()
        graph.add_edges_from(
            (i, right[i][a], a, {"symbol": self.symbols[a]})
            for i in range(self.size)
            for a in range(self.n_symbols)
        )
        return graph

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


def solvable_by_order(order: int) -> bool:
    """True when every group of this order is solvable by a classical theorem: order below 60
    (A_5 is the smallest non-solvable group), odd order (Feit–Thompson) or order ``p**a * q**b``
    (Burnside).  False means "not decided by the order alone".

    >>> solvable_by_order(4000), solvable_by_order(60), solvable_by_order(1001)
    (True, False, True)
    """
    from sympy import factorint

    order = int(order)
    return order < _SMALLEST_NON_SOLVABLE or order % 2 == 1 or len(factorint(order)) <= 2


def _strong_components(indptr: np.ndarray, indices: np.ndarray) -> list[int]:
    """Tarjan's algorithm, iterative, on a graph in CSR form (``indices[indptr[v]:indptr[v+1]]``
    are the successors of ``v``); returns the component of each node."""
    n = len(indptr) - 1
    starts = indptr.tolist()
    succ = indices.tolist()
    index = [-1] * n
    low = [0] * n
    on_stack = [False] * n
    comp = [-1] * n
    stack: list[int] = []
    counter = 0
    n_comp = 0
    for root in range(n):
        if index[root] != -1:
            continue
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack[root] = True
        work = [[root, starts[root]]]
        while work:
            frame = work[-1]
            v, pos = frame
            end = starts[v + 1]
            advanced = False
            while pos < end:
                w = succ[pos]
                pos += 1
                if index[w] == -1:
                    frame[1] = pos
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on_stack[w] = True
                    work.append([w, starts[w]])
                    advanced = True
                    break
                if on_stack[w] and index[w] < low[v]:
                    low[v] = index[w]
            if advanced:
                continue
            work.pop()
            if work:
                u = work[-1][0]
                if low[v] < low[u]:
                    low[u] = low[v]
            if low[v] == index[v]:
                while True:
                    w = stack.pop()
                    on_stack[w] = False
                    comp[w] = n_comp
                    if w == v:
                        break
                n_comp += 1
    return comp


def transformation_monoid(automaton: Automaton, limit: int = DEFAULT_LIMIT) -> Monoid:
    """The transformation monoid of ``automaton`` by breadth-first closure.

    Raises :class:`~bilinear.errors.MonoidTooLargeError` (naming ``limit``) as soon as more than
    ``limit`` elements are found, or when the element table would exceed
    :data:`MEMORY_LIMIT_BYTES` — before memory runs out.

    >>> from bilinear.automata import from_spec
    >>> transformation_monoid(from_spec("symmetric:4")).size
    24
    >>> transformation_monoid(full_transformation_automaton(5), limit=100)
    Traceback (most recent call last):
    ...
    bilinear.errors.MonoidTooLargeError: the transformation monoid of T_5 has more than 100 elements (limit=100)
    """
    if not isinstance(automaton, Automaton):
        raise AutomatonError(f"transformation_monoid needs an Automaton, got {type(automaton).__name__}")
    if isinstance(limit, bool) or not isinstance(limit, (int, np.integer)) or limit < 1:
        raise AutomatonError(f"monoid limit must be a positive integer, got {limit!r}")
    limit = int(limit)
    try:
        return _closure(automaton, limit, exact=False)
    except _HashCollision:  # pragma: no cover - probability about size**2 / 2**64
        return _closure(automaton, limit, exact=True)


def _closure(automaton: Automaton, limit: int, exact: bool) -> Monoid:
    n, k = automaton.n_states, automaton.n_symbols
    dtype = _dtype_for(n)
    what = automaton.name or "this automaton"
    max_rows = min(limit, max(1, MEMORY_LIMIT_BYTES // (n * dtype.itemsize)))
    gens = automaton.delta.astype(dtype)  # (symbols, states)
    _check_group_lower_bound(automaton, limit, max_rows, what)
    keys = _Keys(n, dtype, exact=exact)

    capacity = min(max_rows, 1024)
    elements = np.empty((capacity, n), dtype=dtype)
    elements[0] = np.arange(n, dtype=dtype)
    parent = np.full(capacity, -1, dtype=np.int64)
    via = np.full(capacity, -1, dtype=np.int64)
    right = np.empty((capacity, k), dtype=np.int64)
    keys.insert(keys.encode(elements[:1]), np.zeros(1, dtype=np.int64))
    size = 1
    level_start, level_end = 0, 1
    chunk = max(1, _CHUNK_ENTRIES // (k * n))
    work = 0
    while level_start < level_end:
        work += (level_end - level_start) * k * n
        if work > WORK_LIMIT:
            raise MonoidTooLargeError(
                f"the transformation monoid of {what} is too costly to enumerate: the closure "
                f"would compose more than {WORK_LIMIT:,} state entries (elements x symbols x "
                f"states = {size:,}+ x {k} x {n})"
            )
        for lo in range(level_start, level_end, chunk):
            hi = min(level_end, lo + chunk)
            frontier = elements[lo:hi]  # (frontier, states)
            # children[p, a] = first frontier element p, then symbol a: gens[a][frontier[p]]
            children = gens[:, frontier].transpose(1, 0, 2).reshape(-1, n)  # (frontier*symbols, states)
            child_keys = keys.encode(children)
            unique, first, inverse = np.unique(child_keys, return_index=True, return_inverse=True)
            found = keys.lookup(unique)
            new = np.flatnonzero(found < 0)
            if new.size:
                new = new[np.argsort(first[new], kind="stable")]  # shortlex order of the new ones
                count = new.size
                if size + count > max_rows:
                    if max_rows < limit:
                        raise MonoidTooLargeError(
                            f"the transformation monoid of {what} needs more than "
                            f"{MEMORY_LIMIT_BYTES // 1024**2} MiB for its {n}-state elements "
                            f"(over {max_rows} elements)"
                        )
                    raise MonoidTooLargeError(
                        f"the transformation monoid of {what} has more than {limit} elements "
                        f"(limit={limit})"
                    )
                if size + count > capacity:
                    capacity = min(max_rows, max(2 * capacity, size + count))
                    elements = _grow(elements, capacity)
                    parent = _grow(parent, capacity, -1)
                    via = _grow(via, capacity, -1)
                    right = _grow(right, capacity)
                indices = np.arange(size, size + count, dtype=np.int64)
                found[new] = indices
                keys.insert(unique[new], indices)
                source = first[new]  # position in children = parent_offset * k + symbol
                elements[size : size + count] = children[source]
                parent[size : size + count] = lo + source // k
                via[size : size + count] = source % k
                size += count
            targets = found[inverse.reshape(-1)]  # (frontier*symbols,) element of each child
            if not keys.exact and not (elements[targets] == children).all():
                raise _HashCollision
            right[lo:hi] = targets.reshape(hi - lo, k)
        level_start, level_end = level_end, size

    def _final(array: np.ndarray) -> np.ndarray:
        out = np.array(array[:size], copy=True)
        out.setflags(write=False)
        return out

    generators = automaton.delta.astype(np.int64).copy()
    generators.setflags(write=False)
    return Monoid(
        elements=_final(elements),
        right=_final(right),
        parent=_final(parent),
        via=_final(via),
        generators=generators,
        symbols=automaton.symbols,
        name=automaton.name,
    )


def _check_group_lower_bound(automaton: Automaton, limit: int, max_rows: int, what: str) -> None:
    """Fail at once when every symbol is a permutation and an orbit is already too large: a
    group acting transitively on an orbit has at least as many elements as the orbit
    (orbit-stabiliser), so the closure could not finish within the limits."""
    delta = automaton.delta
    if not (np.sort(delta, axis=1) == np.arange(automaton.n_states)).all():
        return
    label = np.arange(automaton.n_states, dtype=np.int64)
    while True:  # orbits of a permutation group: propagate the least point along every generator
        new = np.minimum(label, label[delta].min(axis=0))
        new = new[new]
        if np.array_equal(new, label):
            break
        label = new
    orbit = int(np.bincount(label).max())
    if orbit > limit:
        raise MonoidTooLargeError(
            f"the transformation monoid of {what} has more than {limit} elements (limit={limit}): "
            f"it is a group with an orbit of {orbit} states"
        )
    if orbit > max_rows:
        raise MonoidTooLargeError(
            f"the transformation monoid of {what} needs more than {MEMORY_LIMIT_BYTES // 1024**2} MiB "
            f"for its {automaton.n_states}-state elements: it is a group with an orbit of {orbit} states"
        )


def _grow(array: np.ndarray, capacity: int, fill=None) -> np.ndarray:
    out = np.empty((capacity,) + array.shape[1:], dtype=array.dtype)
    out[: array.shape[0]] = array
    if fill is not None:
        out[array.shape[0] :] = fill
    return out


def full_transformation_automaton(n: int) -> Automaton:
    """An automaton whose transformation monoid is the full transformation monoid ``T_n``
    (``n**n`` elements): a transposition, an ``n``-cycle and a map of rank ``n-1`` as symbols.

    >>> full_transformation_automaton(3).monoid().size
    27
    """
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise AutomatonError(f"full_transformation_automaton: n must be a positive integer, got {n!r}")
    n = int(n)
    if n == 1:
        return Automaton([[0]], symbols=("id",), name="T_1")
    transposition = [1, 0] + list(range(2, n))
    cycle = list(range(1, n)) + [0]
    collapse = [0, 0] + list(range(2, n))
    return Automaton([transposition, cycle, collapse], symbols=("t", "c", "z"), name=f"T_{n}")

"""Groups in a monoid and in an automaton.

:class:`GroupStructure` (a mixin of :class:`~bilinear.automata.monoid.Monoid`): maximal
subgroups, aperiodicity, solvability (Krohn–Rhodes: solvable subgroups <-> solvable cascades) and
the one-line classification; :func:`solvable_by_order` decides solvability from an order alone.

Recognising a cyclic or dihedral group from the table alone:

An automaton whose symbols are permutations and whose transformation monoid acts *regularly*
(simply transitively) on the states is the Cayley automaton of a group: state ``q`` is the one
element ``g_q`` with ``start·g_q = q``, and "first ``x``, then ``y``" is the state
``start·g_x·g_y``.  :class:`RegularGroup` is that group on the state indices;
:func:`cyclic_presentation` and :func:`dihedral_presentation` write every symbol as a power of a
generator (``g^k``) or as ``r^i s^j`` with ``r^n = s^2 = 1``, ``s r s = r^-1``.  Constructions
use them for automata built by hand, which carry no family spec.

>>> from bilinear.automata import Automaton, from_spec
>>> d5 = from_spec("dihedral:5")
>>> g = RegularGroup.of(Automaton(d5.delta, symbols=("a", "b")))
>>> n, exponents = dihedral_presentation(g)
>>> n, exponents[1]
(5, (0, 1))
>>> cyclic_presentation(RegularGroup.of(from_spec("cyclic:4")))
(4, (0, 1, 2, 3))
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from bilinear.errors import AutomatonError, MonoidTooLargeError

from .automaton import Automaton
from .closure import close
from .green import GreenRelations

__all__ = [
    "GroupStructure",
    "RegularGroup",
    "element_orders",
    "group_shape",
    "cyclic_presentation",
    "dihedral_presentation",
    "solvable_by_order",
    "abelian_of_index_at_most_two",
    "greedy_generators",
    "MAX_REGULAR_ORDER",
    "MAX_INDEX_TWO_ORDER",
]

#: The order of the smallest non-solvable group (A_5).
_SMALLEST_NON_SOLVABLE = 60

#: Largest group recognised from a table: its closure holds order x order state entries.
MAX_REGULAR_ORDER = 2_000
#: Largest closure work (states x states x symbols) spent on recognising a group (about a second).
_MAX_REGULAR_WORK = 200_000_000
#: Largest group :func:`abelian_of_index_at_most_two` decides: its characters to Z_2 are walked
#: over the whole table once per choice of signs on at most log2(order) generators, about
#: order^2 steps at worst (one core: S_5 x Z_2, 240 elements, 0.03 s; S_3 x Z_2^6, 384 elements
#: and eight generators, 0.24 s).
MAX_INDEX_TWO_ORDER = 500


@dataclass(frozen=True)
class RegularGroup:
    """A group acting regularly on an automaton's states; elements are state indices.

    ``perms[q]`` is the permutation of the states by the element ``g_q``; the identity is the
    start state; ``symbols[a]`` is the element of symbol ``a`` (the state ``start·a``).
    """

    perms: np.ndarray  # (states, states)
    identity: int
    symbols: tuple[int, ...]

    @staticmethod
    def of(automaton: Automaton) -> "RegularGroup | None":
        """The group when ``automaton``'s monoid is a group acting regularly, else None."""
        n = automaton.n_states
        if n > MAX_REGULAR_ORDER or n * n * automaton.n_symbols > _MAX_REGULAR_WORK:
            return None
        rows = np.sort(automaton.delta, axis=1)
        if not (rows == np.arange(n)).all():  # some symbol is not a permutation
            return None
        try:
            elements = np.asarray(close(automaton, limit=n).elements, dtype=np.int64)
        except MonoidTooLargeError:
            return None
        if elements.shape[0] != n:
            return None
        images = elements[:, automaton.start]
        if len(set(images.tolist())) != n:  # not transitive
            return None
        perms = np.empty((n, n), dtype=np.int64)
        perms[images] = elements
        start = int(automaton.start)
        return RegularGroup(perms, start, tuple(int(q) for q in automaton.delta[:, start]))

    @property
    def order(self) -> int:
        return int(self.perms.shape[0])

    def mul(self, x: int, y: int) -> int:
        """"First ``x``, then ``y``"."""
        return int(self.perms[y][x])

    def orders(self) -> np.ndarray:
        """``(order,)`` the order of every element (:func:`element_orders`)."""
        return element_orders(self.perms)

    def powers(self, x: int) -> list[int]:
        """``[1, x, x^2, ...]`` up to (excluding) the first return to the identity."""
        out = [self.identity]
        y = x
        while y != self.identity:
            out.append(y)
            y = self.mul(y, x)
        return out


def _check_group_table(perms, who: str) -> np.ndarray:
    """``perms`` as an ``(size, n)`` int64 array whose rows are permutations, else AutomatonError."""
    p = np.asarray(perms, dtype=np.int64)
    if p.ndim != 2 or p.shape[0] == 0:
        raise AutomatonError(f"{who} needs a non-empty (size, n) array, got shape {p.shape}")
    size, n = p.shape
    seen = np.zeros((size, n), dtype=bool)
    if n:
        if p.min() < 0 or p.max() >= n:
            raise AutomatonError(f"{who}: entries must be points 0..{n - 1}")
        seen[np.arange(size)[:, None], p] = True
    if not seen.all():
        raise AutomatonError(f"{who}: some row is not a permutation of 0..{n - 1}")
    return p


def _keys(columns: np.ndarray, n: int) -> np.ndarray:
    """One comparable key per row of ``columns`` (values in ``0..n-1``)."""
    t = columns.shape[1]
    if t and n**t < 2**62:
        return columns @ (n ** np.arange(t, dtype=np.int64))
    rows = np.ascontiguousarray(columns)
    return rows.view(np.dtype((np.void, rows.dtype.itemsize * max(t, 1)))).ravel() if t else np.zeros(len(rows))


def _base(p: np.ndarray) -> np.ndarray:
    """Points whose images tell every row of ``p`` apart, chosen greedily (a *base* of the group)."""
    size, n = p.shape
    base: list[int] = []
    distinct = 1
    for q in range(n):
        if distinct == size:
            break
        count = np.unique(_keys(p[:, base + [q]], n)).size
        if count > distinct:
            base.append(q)
            distinct = count
    if distinct != size:
        raise AutomatonError("the rows are not distinct permutations")
    return np.asarray(base, dtype=np.int64)


def element_orders(perms) -> np.ndarray:
    """``(size,)`` int64: the order of every element of a finite permutation group given as all
    its elements (rows of a ``(size, n)`` array that is closed under composition).

    A *base* — points ``b_1..b_t`` whose images tell every element apart — is chosen greedily;
    the group then acts freely on the images of the base, so the order of ``g`` is the first
    ``k`` with ``g^k(b_i) = b_i`` for every ``i``, and all elements step together: one
    ``(size, t)`` gather per step, at most the largest order steps.  For a group acting
    regularly (a group automaton: one base point) this is ``O(size * max order)``.

    >>> element_orders([[0, 1, 2, 3], [1, 2, 3, 0], [2, 3, 0, 1], [3, 0, 1, 2]]).tolist()
    [1, 4, 2, 4]
    """
    p = _check_group_table(perms, "element_orders")
    return _orders(p, _base(p))


def _orders(p: np.ndarray, home: np.ndarray) -> np.ndarray:
    """Orders of the rows of ``p`` (a group) from the walk of the base ``home``; only the
    elements not yet back at the base step on."""
    size = p.shape[0]
    out = np.zeros(size, dtype=np.int64)
    active = np.arange(size)
    images = p[:, home]  # (active, base): g^1 on the base
    for k in range(1, size + 1):
        back = (images == home).all(axis=1)
        if back.any():
            out[active[back]] = k
            active, images = active[~back], images[~back]
            if not active.size:
                return out
        images = p[active[:, None], images]  # g^(k+1) on the base: first g^k, then g
    raise AutomatonError("element_orders: the rows are not closed under composition")


def greedy_generators(elements, mul, identity: int) -> list[int]:
    """Generators of the finite group whose elements are ``elements`` (indices, ``identity`` among
    them) and whose product is ``mul(x, y)``: each element outside the span of the earlier ones,
    so at most log2(order) of them.  The span grows from the old one under every generator.

    >>> greedy_generators(range(6), lambda x, y: (x + y) % 6, 0)
    [1]
    """
    gens: list[int] = []
    span = {identity}
    for x in elements:
        if x in span:
            continue
        gens.append(x)
        frontier = list(span)
        while frontier:
            y = frontier.pop()
            for g in gens:
                z = mul(y, g)
                if z not in span:
                    span.add(z)
                    frontier.append(z)
    return gens


def abelian_of_index_at_most_two(perms) -> bool | None:
    """True when the finite group (all its elements as rows, permutations) has an abelian subgroup
    of index 1 or 2 (such a subgroup is normal); None past :data:`MAX_INDEX_TWO_ORDER` elements.

    A subgroup of index 2 is the kernel of a homomorphism onto Z_2.  The group is generated
    greedily (:func:`greedy_generators`); every choice of signs on the generators is walked over the table, extending
    ``chi(x s) = chi(x) + chi(s)`` and keeping the choices that never contradict themselves; the
    kernel of each is tested for commuting generators.

    >>> z3 = [[0, 1, 2], [1, 2, 0], [2, 0, 1]]
    >>> abelian_of_index_at_most_two(z3)
    True
    """
    p = _check_group_table(perms, "abelian_of_index_at_most_two")
    size, n = p.shape
    if size > MAX_INDEX_TWO_ORDER:
        return None
    index = {tuple(row): i for i, row in enumerate(p.tolist())}
    rows = p.tolist()

    def compose(i: int, j: int) -> int:  # first i, then j: (x . i) . j
        a, b = rows[i], rows[j]
        return index[tuple(b[a[x]] for x in range(n))]

    ident = index[tuple(range(n))]

    def abelian(elements) -> bool:
        gens = greedy_generators(elements, compose, ident)
        return all(compose(a, b) == compose(b, a) for a in gens for b in gens)

    everything = range(size)
    if abelian(everything):
        return True
    gens = greedy_generators(everything, compose, ident)
    times = [[compose(x, g) for g in gens] for x in everything]  # x times each generator, once
    for signs in range(1, 2 ** len(gens)):
        chi = {ident: 0}
        todo, ok = [ident], True
        while todo and ok:
            x = todo.pop()
            for k in range(len(gens)):
                y, c = times[x][k], chi[x] ^ ((signs >> k) & 1)
                if y not in chi:
                    chi[y] = c
                    todo.append(y)
                elif chi[y] != c:
                    ok = False
                    break
        if ok and abelian([x for x in everything if chi[x] == 0]):
            return True
    return False


def group_shape(perms) -> str:
    """``"cyclic"``, ``"dihedral"`` or ``"other"`` for a finite group given as all its elements
    (rows are permutations).  Dihedral includes D_2 = Z_2 x Z_2 (D_1 = Z_2 is cyclic).

    Cyclic: some element has order ``|G|``.  Dihedral of order ``2k``: some ``r`` of order ``k``
    and every element outside ``<r>`` an involution (then ``s r s = r^-1`` for each such ``s``,
    because ``(s r)^2 = 1``; conversely in D_k, k >= 3, every element of order ``k`` generates
    the rotations, so the first ``r`` found decides).  Element orders by
    :func:`element_orders`; membership in ``<r>`` is read on the base points, which tell the
    elements apart.  Near-linear in the table: D_2000 (4000 elements on 4000 points) takes a
    fraction of a second (benchmarks/bench_verify.py).

    >>> group_shape(np.array([[0, 1, 2, 3], [1, 0, 3, 2], [2, 3, 0, 1], [3, 2, 1, 0]]))
    'dihedral'
    >>> group_shape(np.array([[0, 1, 2], [1, 2, 0], [2, 0, 1]]))
    'cyclic'
    """
    p = _check_group_table(perms, "group_shape")
    size, n = p.shape
    home = _base(p)
    orders = _orders(p, home)
    if orders.max() == size:
        return "cyclic"
    if size % 2:
        return "other"
    k = size // 2
    candidates = np.flatnonzero(orders == k)
    if not candidates.size:
        return "other"
    r = p[int(candidates[0])]
    powers = np.empty((k, home.size), dtype=np.int64)  # r^i on the base
    powers[0] = home
    for i in range(1, k):
        powers[i] = r[powers[i - 1]]  # first r^(i-1), then r
    inside = np.isin(_keys(p[:, home], n), _keys(powers, n))
    return "dihedral" if inside.sum() == k and (orders[~inside] <= 2).all() else "other"


def cyclic_presentation(group: RegularGroup | None) -> tuple[int, tuple[int, ...]] | None:
    """``(m, k)`` with symbol ``a`` equal to ``g^k[a]`` for a generator ``g`` of order ``m``, or
    None when the group is not cyclic."""
    if group is None:
        return None
    generators = np.flatnonzero(group.orders() == group.order)
    if not generators.size:
        return None
    exponent = {x: k for k, x in enumerate(group.powers(int(generators[0])))}
    return group.order, tuple(exponent[x] for x in group.symbols)


def dihedral_presentation(group: RegularGroup | None) -> tuple[int, tuple[tuple[int, int], ...]] | None:
    """``(n, ((i, j), ...))`` with symbol ``a`` equal to ``r^i s^j`` ("first ``r^i``, then
    ``s^j``) where ``r`` has order ``n >= 3``, ``s`` order 2 and ``s r s = r^-1``, or None when
    the group is not dihedral of order ``2n``.

    In D_n (n >= 3) every element of order n is a rotation generator and every element outside
    the rotations is a reflection, so one candidate ``r`` and one ``s`` decide the question.
    """
    if group is None or group.order % 2 or group.order < 6:
        return None
    n = group.order // 2
    candidates = np.flatnonzero(group.orders() == n)
    if not candidates.size:
        return None
    r = int(candidates[0])
    rotations = group.powers(r)
    inside = set(rotations)
    s = next((x for x in range(group.order) if x not in inside), None)
    if s is None or group.mul(s, s) != group.identity:
        return None
    if group.mul(group.mul(s, r), s) != rotations[-1]:  # s r s = r^-1
        return None
    exponent = {x: (i, 0) for i, x in enumerate(rotations)}
    exponent.update({group.mul(x, s): (i, 1) for i, x in enumerate(rotations)})
    if len(exponent) != group.order:
        return None
    return n, tuple(exponent[x] for x in group.symbols)


class GroupStructure(GreenRelations):
    """Mixin of :class:`~bilinear.automata.monoid.Monoid`: the groups inside the monoid, by element
    indices (built on Green's relations: an H-class of an idempotent is a maximal subgroup)."""

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

        def generated(rows) -> set:
            return {tuple(r) for r in close(Automaton(np.array(rows))).elements.tolist()}

        chosen = [perms[0]]
        group = generated(chosen)
        for row in perms[1:]:
            if len(group) == perms.shape[0]:
                break
            if tuple(row.tolist()) not in group:
                chosen.append(row)
                group = generated(chosen)
        return np.array(chosen)

    def maximal_subgroup(self, e: int):
        """The maximal subgroup at idempotent ``e`` as a sympy ``PermutationGroup`` acting on the
        image of ``e`` (points renumbered ``0..rank-1``).

        >>> from bilinear.automata import from_spec, transformation_monoid
        >>> m = transformation_monoid(from_spec("modarith:5"))
        >>> m.maximal_subgroup(0).order()      # at the identity: the units x -> a*x + b, a != 0
        20
        """
        from sympy.combinatorics import Permutation, PermutationGroup

        target = self.h_class(e).size
        group = PermutationGroup([Permutation(row.tolist()) for row in self._subgroup_generators(e)])
        if group.order() != target:  # pragma: no cover - an internal invariant
            raise AssertionError(f"maximal subgroup at {e}: order {group.order()} != {target}")
        return group

    def maximal_subgroups(self) -> list:
        """The maximal subgroups up to isomorphism: one sympy ``PermutationGroup`` per regular
        D-class (idempotents of one D-class have isomorphic groups)."""
        if self.is_group:
            return [self.group()]
        return [self.maximal_subgroup(e) for e in self.regular_d_classes()]

    def group(self):
        """The monoid as a sympy ``PermutationGroup`` on the states (only for a group).

        >>> from bilinear.automata import from_spec, transformation_monoid
        >>> transformation_monoid(from_spec("quaternion")).group().order()
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


def solvable_by_order(order: int) -> bool:
    """True when every group of this order is solvable by a classical theorem: order below 60
    (A_5 is the smallest non-solvable group), odd order (Feit–Thompson) or order ``p**a * q**b``
    (Burnside).  False means "not decided by the order alone".

    >>> solvable_by_order(4000), solvable_by_order(60), solvable_by_order(1001)
    (True, False, True)
    """
    order = int(order)
    return order < _SMALLEST_NON_SOLVABLE or order % 2 == 1 or _prime_divisors(order, most=2) <= 2


def _prime_divisors(n: int, most: int) -> int:
    """The number of distinct primes dividing ``n >= 1``, counted by trial division up to its
    square root, or ``most + 1`` as soon as it exceeds ``most`` (sympy's ``factorint`` gave the same
    count, for the import of sympy: about 0.3 s, more than the rest of a classification).

    >>> [_prime_divisors(n, 2) for n in (1, 60, 1001, 2 ** 10 * 3 ** 5, 97)]
    [0, 3, 3, 2, 1]
    """
    count, p = 0, 2
    while p * p <= n:
        if n % p == 0:
            count += 1
            if count > most:
                return count
            while n % p == 0:
                n //= p
        p += 1 if p == 2 else 2
    return count + (n > 1)

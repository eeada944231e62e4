"""Groups in an automaton: recognising a cyclic or dihedral group from the table alone.

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

import numpy as np

from bilinear.errors import MonoidTooLargeError

from .automaton import Automaton

__all__ = ["RegularGroup", "cyclic_presentation", "dihedral_presentation", "MAX_REGULAR_ORDER"]

#: Largest group recognised from a table (the dihedral search is quadratic in the order).
MAX_REGULAR_ORDER = 20_000


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
        if n > MAX_REGULAR_ORDER:
            return None
        rows = np.sort(automaton.delta, axis=1)
        if not (rows == np.arange(n)).all():  # some symbol is not a permutation
            return None
        try:
            monoid = automaton.monoid(limit=n)
        except MonoidTooLargeError:
            return None
        elements = np.asarray(monoid.elements, dtype=np.int64)
        if monoid.size != n:
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

    def powers(self, x: int) -> list[int]:
        """``[1, x, x^2, ...]`` up to (excluding) the first return to the identity."""
        out = [self.identity]
        y = x
        while y != self.identity:
            out.append(y)
            y = self.mul(y, x)
        return out


def cyclic_presentation(group: RegularGroup | None) -> tuple[int, tuple[int, ...]] | None:
    """``(m, k)`` with symbol ``a`` equal to ``g^k[a]`` for a generator ``g`` of order ``m``, or
    None when the group is not cyclic."""
    if group is None:
        return None
    for g in range(group.order):
        powers = group.powers(g)
        if len(powers) == group.order:
            exponent = {x: k for k, x in enumerate(powers)}
            return group.order, tuple(exponent[x] for x in group.symbols)
    return None


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
    r = next((x for x in range(group.order) if len(group.powers(x)) == n), None)
    if r is None:
        return None
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

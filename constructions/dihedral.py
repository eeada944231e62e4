"""Dihedral groups D_n with two 2x2 matrices (``block:2``, d = 2).

r acts as the rotation by -2 pi / n and s as the reflection diag(1, -1): these satisfy
r^n = s^2 = (s r)^2 = 1, so they realise D_n faithfully in O(2) (the automaton reads a word left
to right as the product g_1 ... g_T; the transposed = inverse matrices turn that order into
matrix products).  h0 = (2, 1) lies on no reflection axis (its angle atan(1/2) is not a rational
multiple of pi), so its orbit has 2n distinct points of equal norm and the orbit readout
separates them (Theorem 2 of docs/theory.md, orbit separation).  Entries lie in Q(zeta_lcm(4, n)).

>>> from bilinear.automata.families import from_spec
>>> w = dihedral_block(from_spec("dihedral:4"))
>>> w.dim, w.A[0].tolist(), w.A[1].tolist()
(2, [[0, 1], [-1, 0]], [[1, 0], [0, -1]])
"""

from __future__ import annotations

import numpy as np

from bilinear.errors import ConstructionError

from .field import cos2pi, sin2pi
from .orbit import orbit_weights

__all__ = ["dihedral_block", "dihedral_exponents"]


def dihedral_exponents(automaton) -> tuple[int, tuple[tuple[int, int], ...]]:
    """``(n, ((i, j), ...))``: symbol ``a`` is ``r^i s^j`` in D_n.

    A ``dihedral`` spec gives r = (1, 0), s = (0, 1); an automaton without a spec is recognised
    from its algebra (see :func:`bilinear.automata.groups.dihedral_presentation`).
    """
    spec = automaton.spec
    if spec is not None and spec.family == "dihedral":
        return int(spec.param("N")), ((1, 0), (0, 1))
    if spec is None:
        from bilinear.automata.groups import RegularGroup, dihedral_presentation

        found = dihedral_presentation(RegularGroup.of(automaton))
        if found is not None:
            return found
    raise ConstructionError(f"{automaton.name or 'automaton'}: not a dihedral group acting on its states")


def dihedral_block(automaton):
    """D_n in O(2): ``r^i s^j`` acts as S^j R^-i (R the rotation by 2 pi / n, S = diag(1, -1),
    transposed because words act on the right), ``block:2``, d = 2."""
    n, exponents = dihedral_exponents(automaton)
    A = np.empty((len(exponents), 2, 2), dtype=object)
    for a, (i, j) in enumerate(exponents):
        c, s = cos2pi(i, n), sin2pi(i, n)
        A[a] = [[c, s], [-s, c]] if j == 0 else [[c, s], [s, -c]]
    return orbit_weights(automaton, "block:2", A, [2, 1])

"""Dihedral groups D_n with two 2x2 matrices (``block:2``, d = 2).

r acts as the rotation by -2 pi / n and s as the reflection diag(1, -1): these satisfy
r^n = s^2 = (s r)^2 = 1, so they realise D_n faithfully in O(2) (the automaton reads a word left
to right as the product g_1 ... g_T; the transposed = inverse matrices turn that order into
matrix products).  h0 = (1 + cos(pi / n), sin(pi / n)), a positive multiple of
(cos(pi / 2n), sin(pi / 2n)), lies half-way between the reflection axes
at angles 0 and pi / n, so its orbit is 2n points at angles +-pi/(2n) + 2 pi k / n, equally
spaced by pi / n, and the orbit readout separates them (Theorem 2 of docs/theory.md, orbit
separation) with normalised margin 1 - cos(pi / n), the largest any 2n points on the circle allow
(the earlier h0 = (2, 1) had 4.4e-4 at n = 7; this one 1 - cos(pi / 7) = 0.099).  Unless 4 | n
these entries lie in the rotation's field Q(zeta_lcm(4, n)); for 4 | n the half angle would
double the field, so h0 = 3 e_1 + (cos 2 pi / n, sin 2 pi / n), at an angle theta a little below pi / 2n (strictly
between 0 and pi / n, so on no axis), with normalised margin 1 - cos(min(2 theta, 2 pi / n - 2 theta))
(0.2 at n = 4, against 0.29 for the exact half angle and 0.2 for (2, 1)).  Entries lie in
Q(zeta_lcm(4, n)).  d = 2 is minimal for n >= 2 (Theorem 13: d = 1 tells at most two
states apart).

>>> from bilinear.automata.families import from_spec
>>> w = dihedral_block(from_spec("dihedral:4"))
>>> w.dim, w.A[0].tolist(), w.A[1].tolist()
(2, [[0, 1], [-1, 0]], [[1, 0], [0, -1]])
"""

from __future__ import annotations

import numpy as np

from bilinear.errors import ConstructionError

from ..exact.field import cos2pi, sin2pi
from ..values.memo import per_automaton
from .orbit import orbit_weights

__all__ = ["dihedral_block", "dihedral_exponents", "dihedral_h0"]


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


@per_automaton
def dihedral_block(automaton):
    """D_n in O(2): ``r^i s^j`` acts as S^j R^-i (R the rotation by 2 pi / n, S = diag(1, -1),
    transposed because words act on the right), ``block:2``, d = 2, h0 half-way between two
    reflection axes (:func:`dihedral_h0`)."""
    n, exponents = dihedral_exponents(automaton)
    A = np.empty((len(exponents), 2, 2), dtype=object)
    for a, (i, j) in enumerate(exponents):
        c, s = cos2pi(i, n), sin2pi(i, n)
        A[a] = [[c, s], [-s, c]] if j == 0 else [[c, s], [s, -c]]
    return orbit_weights(automaton, "block:2", A, dihedral_h0(n))


def dihedral_h0(n: int) -> list:
    """The start vector for D_n: the half-angle direction (cos, sin)(pi / 2n) (scaled by
    2 cos(pi / 2n), so its entries stay in the rotation's field), or, when 4 | n, the nearby
    3 e_1 + (cos, sin)(2 pi / n) (see the module docstring).

    >>> dihedral_h0(1), [float(x) for x in dihedral_h0(3)]
    ([0, 1], [1.5, 0.8660254037844386])
    """
    if n == 1:
        return [0, 1]  # the angle pi / 2
    if n % 4:  # (1 + cos(pi/n), sin(pi/n)) = 2 cos(pi/2n) (cos(pi/2n), sin(pi/2n)), in Q(zeta_lcm(4, n))
        return [1 + cos2pi(1, 2 * n), sin2pi(1, 2 * n)]
    return [3 + cos2pi(1, n), sin2pi(1, n)]  # near the half angle, without doubling the field

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

from .field import cos2pi, sin2pi
from .memo import per_automaton
from .orbit import orbit_weights

__all__ = ["dihedral_block"]


def dihedral_block(automaton, n: int | None = None):
    """D_n in O(2): rotation and reflection, ``block:2``, d = 2."""
    if n is None:
        return _dihedral_own(automaton)
    return _dihedral(automaton, n)


@per_automaton
def _dihedral_own(automaton):
    return _dihedral(automaton, automaton.n_states // 2)


def _dihedral(automaton, n: int):
    c, s = cos2pi(1, n), sin2pi(1, n)
    A = np.empty((2, 2, 2), dtype=object)
    A[0] = [[c, s], [-s, c]]  # rotation by -2 pi / n (inverse of r)
    A[1] = [[1, 0], [0, -1]]
    # (1 + cos(pi/n), sin(pi/n)) = 2 cos(pi/2n) (cos(pi/2n), sin(pi/2n)): the half-angle direction
    # with entries in the field of the rotation itself (no zeta_4n needed)
    if n == 1:
        h0 = [0, 1]  # the angle pi / 2
    elif n % 4:  # the half angle pi / 2n lies in the rotation's own field Q(zeta_lcm(4, n))
        h0 = [1 + cos2pi(1, 2 * n), sin2pi(1, 2 * n)]
    else:  # 3 e_1 + (cos, sin)(2 pi / n): near the half angle, without doubling the field
        h0 = [3 + cos2pi(1, n), sin2pi(1, n)]
    return orbit_weights(automaton, "block:2", A, h0)

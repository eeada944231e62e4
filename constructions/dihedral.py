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

from .field import cos2pi, sin2pi
from .orbit import orbit_weights

__all__ = ["dihedral_block"]


def dihedral_block(automaton, n: int | None = None):
    """D_n in O(2): rotation and reflection, ``block:2``, d = 2."""
    n = n if n is not None else automaton.n_states // 2
    c, s = cos2pi(1, n), sin2pi(1, n)
    A = np.empty((2, 2, 2), dtype=object)
    A[0] = [[c, s], [-s, c]]  # rotation by -2 pi / n (inverse of r)
    A[1] = [[1, 0], [0, -1]]
    return orbit_weights(automaton, "block:2", A, [2, 1])

"""The quaternion group Q8 by right multiplication on H = R^4 (``full``/``block:4``, d = 4).

Symbol g in {i, j} acts as x -> x g, an orthogonal 4x4 matrix with entries 0, +-1; reading a word
g_1 ... g_T from h0 = 1 gives the unit quaternion g_1 ... g_T itself, so the 8 states map to the
8 distinct points +-1, +-i, +-j, +-k of equal norm and the orbit readout separates them
(Theorem 2 of docs/theory.md, orbit separation).  Q8 has no faithful real *representation* of
dimension below 4 (its faithful irreducible real representation is H itself), so d = 4 is the
least for an orbit construction; for networks in general only d >= 3 is proved (Theorem 14: in
d = 2 the group would be cyclic or dihedral), so the minimal d is 3 or 4 (open).

>>> from bilinear.automata.families import from_spec
>>> w = quaternion_right(from_spec("quaternion"))
>>> w.dim, w.readout.tolist()[2]
(4, [0, 0, 1, 0])
"""

from __future__ import annotations

import numpy as np

from ..values.memo import per_automaton
from .orbit import orbit_weights

__all__ = ["quaternion_right", "qmul"]


def qmul(x, y):
    """Hamilton product of quaternions given as (a, b, c, d) = a + b i + c j + d k."""
    a1, b1, c1, d1 = x
    a2, b2, c2, d2 = y
    return (
        a1 * a2 - b1 * b2 - c1 * c2 - d1 * d2,
        a1 * b2 + b1 * a2 + c1 * d2 - d1 * c2,
        a1 * c2 - b1 * d2 + c1 * a2 + d1 * b2,
        a1 * d2 + b1 * c2 - c1 * b2 + d1 * a2,
    )


def _right(g) -> np.ndarray:
    M = np.zeros((4, 4), dtype=object)
    for col in range(4):
        e = tuple(1 if i == col else 0 for i in range(4))
        M[:, col] = qmul(e, g)
    return M


@per_automaton
def quaternion_right(automaton):
    """Q8 (symbols i, j) by right multiplication, d = 4."""
    units = {"i": (0, 1, 0, 0), "j": (0, 0, 1, 0), "k": (0, 0, 0, 1)}
    A = np.stack([_right(units[name]) for name in automaton.symbols])
    return orbit_weights(automaton, "full", A, [1, 0, 0, 0])

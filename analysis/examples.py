"""Small hand-built weights for examples, docs and tests of the analysis room.

They are deliberately independent of :mod:`bilinear.constructions` registry so that the analysis
can be checked against weights whose meaning is known by hand, including *broken* ones
(``cyclic_rotation2d(5, angle_error=0.05)``: every rotation angle slightly wrong).

>>> cyclic_rotation2d(5)
Weights('rotation2d', exact, symbols=5, hidden=2, classes=5)
>>> dihedral_block2(4).n_classes
8
"""

from __future__ import annotations

import math

import numpy as np

from bilinear.automata import from_spec
from bilinear.automata.minimize import access_words
from bilinear.constructions.exact.field import cos2pi, sin2pi
from bilinear.constructions.values.weights import Weights


def rotation(k: int, n: int):
    """Exact 2x2 rotation by 2 pi k / n (object array)."""
    c, s = cos2pi(k, n), sin2pi(k, n)
    return np.array([[c, -s], [s, c]], dtype=object)


__all__ = ["rotation", "cyclic_rotation2d", "dihedral_block2", "one_hot"]


def cyclic_rotation2d(m: int, exact: bool = True, angle_error: float = 0.0) -> Weights:
    """Z_m with one 2x2 rotation per symbol; readout = the m directions (exact unless perturbed)."""
    if angle_error:
        rows: list[list[list[float]]] = []
        for a in range(m):
            t = 2 * math.pi * a / m + angle_error * a
            rows.append([[math.cos(t), -math.sin(t)], [math.sin(t), math.cos(t)]])
        readout = [[math.cos(2 * math.pi * c / m), math.sin(2 * math.pi * c / m)] for c in range(m)]
        return Weights("rotation2d", np.array(rows), np.array([1.0, 0.0]), np.array(readout))
    A = np.stack([rotation(a, m) for a in range(m)])
    R = np.array([[cos2pi(c, m), sin2pi(c, m)] for c in range(m)], dtype=object)
    w = Weights("rotation2d", A, np.array([1, 0], dtype=object), R)
    return w if exact else w.to_float()


def dihedral_block2(n: int) -> Weights:
    """D_n on the plane: r a rotation by 2 pi / n, s the reflection diag(1, -1).

    States r^k s^j map h0 = (cos t, sin t) (t = pi / n / 2, off every mirror) to distinct unit
    vectors; the readout row of each element is its vector, so the argmax is that element."""
    a = from_spec(f"dihedral:{n}")
    r = rotation(1, n)
    s = np.array([[1, 0], [0, -1]], dtype=object)
    h0 = np.array([cos2pi(1, 4 * n), sin2pi(1, 4 * n)], dtype=object)
    A = np.stack([r, s])
    rows = [None] * a.n_classes
    reach = access_words(a)
    for q, word in zip(reach.states.tolist(), reach.words):
        h = h0.copy()
        for sym in word:
            h = A[sym] @ h
        rows[int(a.labels[q])] = h
    return Weights("block:2", A, h0, np.array(rows, dtype=object))


def one_hot(automaton, exact: bool = True) -> Weights:
    """The one-hot construction: A[s] the 0/1 matrix of delta(., s), readout = labels."""
    n = automaton.n_states
    A = np.zeros((automaton.n_symbols, n, n), dtype=np.int64)
    for s in range(automaton.n_symbols):
        A[s, automaton.delta[s], np.arange(n)] = 1
    h0 = np.zeros(n, dtype=np.int64)
    h0[automaton.start] = 1
    R = np.zeros((automaton.n_classes, n), dtype=np.int64)
    R[automaton.labels, np.arange(n)] = 1
    w = Weights("full", A.astype(object), h0.astype(object), R.astype(object))
    return w if exact else w.to_float()

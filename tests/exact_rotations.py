"""Exact rotation2d networks for Z_m that turn by a little more or less than a 1/m turn: their
float64 and exact runs fail at long powers, which the exact directed pass of ``verify``
(constructions/horizon/exactwords.py) refutes past the breadth-first prover's reach."""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from bilinear.constructions.values.weights import Weights


def off_rotation(m: int, t: Fraction, scale: int = 1) -> Weights:
    """Z_m's symbol k turning by k theta with tan(theta / 2) = ``t`` (rational entries), each matrix
    times ``scale``; class k reads the direction of A_1^k h0 (the readout rows are A^k's first
    columns), h0 = (1, 0)."""
    c, s = (1 - t * t) / (1 + t * t), 2 * t / (1 + t * t)
    A = [np.linalg.matrix_power(np.array([[c, -s], [s, c]], dtype=object), k) * scale for k in range(m)]
    return Weights("rotation2d", A, [1, 0], [M[:, 0] for M in A])

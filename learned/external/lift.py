"""A head's affine recurrence ``S -> A S + b`` (keys x values, one matrix and one term per key) lifted
to ``[vec(S); 1]`` as the toolkit's ``full`` Weights (docs/theory.md, Theorem A1), shared by the
delta-rule heads (:mod:`~bilinear.learned.external.transitions`) and the RWKV-7 heads
(:mod:`~bilinear.learned.external.rwkv7_transitions`).

>>> w = lift_affine(np.array([[[0.5]]]), np.array([[[2.0]]]), None)
>>> w.A[0].tolist(), w.h0.tolist()
([[0.5, 2.0], [0.0, 1.0]], [0.0, 1.0])
"""

from __future__ import annotations

import numpy as np

__all__ = ["lift_affine"]


def lift_affine(A: np.ndarray, b: np.ndarray, S0, readout=None):
    """``S -> A S + b`` (keys x values, per key) on ``[vec(S); 1]`` (columns stacked) as ``full``
    Weights: ``[[I_dv (x) A, vec(b)], [0, 1]]``, h0 ``[vec(S0); 1]`` (S0 None: zero)."""
    from bilinear.constructions.values.weights import Weights

    n, dk, dv = b.shape
    d = dk * dv + 1
    L = np.zeros((n, d, d))
    for i in range(n):
        L[i, :-1, :-1] = np.kron(np.eye(dv), A[i])
        L[i, :-1, -1] = b[i].reshape(-1, order="F")
        L[i, -1, -1] = 1.0
    h0 = np.zeros(d)
    h0[-1] = 1.0
    if S0 is not None:
        h0[:-1] = S0.reshape(-1, order="F")
    R = np.zeros((1, d)) if readout is None else readout
    return Weights("full", L, h0, R)

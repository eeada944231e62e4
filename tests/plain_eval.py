"""An evaluator written for the tests, apart from the code under test (``floatrun.py``, the scans):
a plain float64 loop over words, shared by the horizon tests and the report-sentence tests, which
check certified lengths and printed failures against it."""

from __future__ import annotations

import numpy as np


def float64_margins(A, h0, R, automaton, words: np.ndarray) -> np.ndarray:
    """Per word and step, the float64 margin of the label: ``(batch, time + 1)``, column 0 the
    empty word, the state renormalised after every step.  A tie has margin 0 (a failure)."""
    batch, T = words.shape
    H = np.tile(h0 / np.linalg.norm(h0), (batch, 1))
    q = np.full(batch, int(automaton.start))
    out = np.empty((batch, T + 1))
    for t in range(T + 1):
        if t:
            H = np.einsum("bij,bj->bi", A[words[:, t - 1]], H)
            H /= np.linalg.norm(H, axis=1, keepdims=True)
            q = automaton.delta[words[:, t - 1], q]
        S = H @ R.T
        lab = automaton.labels[q]
        own = S[np.arange(batch), lab].copy()
        S[np.arange(batch), lab] = -np.inf
        out[:, t] = own - S.max(axis=1)
    return out

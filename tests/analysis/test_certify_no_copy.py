"""The construction snap needs a copy of the construction in the network (INTERTWINER_RESIDUAL):
a ``positive`` network for parity has no eigenvalue near -1 (Theorem 8 excludes every positive
network), so no snap is read off it, and its certificate is ``failed``, never ``snapped`` to a
``full`` construction it is not near (probe 3, defect 1: a trained positive network was reported
"snapped, snap proved" beside the report's own Theorem 8)."""

from __future__ import annotations

import numpy as np
import pytest

from bilinear.analysis.certify import certify_network
from bilinear.automata import from_spec
from bilinear.constructions import Weights, build
from bilinear.constructions.horizon.snap import INTERTWINER_RESIDUAL, _intertwiner, construction_snap
from bilinear.errors import WeightsError

PARITY = from_spec("parity")


def positive_parity() -> Weights:
    """Positive diagonals: symbol 1 flips no sign, so the network errs on ``1``; the coordinate
    nearest a copy of parity's construction (S_0 = 1, S_1 = -1) is the second, at residual
    sqrt(0.3^2 + 1.2^2) = 1.24, and the readout there would classify the construction's states
    right (the old fallback's snap proved, 'snapped')."""
    A = np.array([np.diag([1.0, 0.7, 0.5]), np.diag([0.9, 0.2, 1.0])])
    return Weights("positive", A, np.array([1.0, 0.5, 0.25]), np.array([[1.0, 1.0, 0.1], [0.2, 0.2, 0.3]]))


def residual(M: np.ndarray, S: np.ndarray) -> float:
    """The smallest ``sqrt(sum_a ||M_a X - X S_a||_F^2)`` over unit X, by the definition: for
    diagonal M and 1 x 1 S the best X is one coordinate, the one whose entries are nearest S's."""
    return float(min(np.sqrt(sum((M[a][j, j] - S[a][0, 0]) ** 2 for a in range(len(M)))) for j in range(M.shape[1])))


def test_a_positive_network_has_no_copy_of_parity_and_is_not_snapped():
    w = positive_parity()
    A, _, _ = w.float_arrays()
    S = build(PARITY, "full").float_arrays()[0]
    assert S.shape[1] == 1 and S[0][0, 0] == 1 and S[1][0, 0] == -1
    assert residual(A, S) == pytest.approx(np.sqrt(0.3**2 + 1.2**2)) and residual(A, S) > INTERTWINER_RESIDUAL
    assert _intertwiner(A, S) is None
    with pytest.raises(WeightsError, match="holds no copy of the construction"):
        construction_snap(w, PARITY)
    cert = certify_network(w, PARITY)
    assert cert.status == "failed" and cert.proof is None and cert.failing == (1,)
    assert "the network holds no copy of the construction" in cert.to_text()


def test_a_network_near_the_construction_keeps_its_construction_snap():
    """The same shape with symbol 1's second entry at -0.9 instead of 0.2 (a full network:
    residual sqrt(0.3^2 + 0.1^2) = 0.32, within the bound): the copy is read off, in one
    coordinate, and proved."""
    A = np.array([np.diag([1.0, 0.7, 0.5]), np.diag([0.9, -0.9, 1.0])])
    w = Weights("full", A, np.array([1.0, 0.5, 0.25]), np.array([[1.0, 1.0, 0.1], [0.2, 0.2, 0.3]]))
    S = build(PARITY, "full").float_arrays()[0]
    assert residual(A, S) == pytest.approx(np.sqrt(0.3**2 + 0.1**2)) and residual(A, S) < INTERTWINER_RESIDUAL
    snap = construction_snap(w, PARITY)
    assert snap.kept == (0,) and snap.rule.startswith("the full construction (d = 1)")
    X = _intertwiner(A, S)
    assert X is not None and np.flatnonzero(np.abs(X[:, 0]) > 1e-9).tolist() == [1]

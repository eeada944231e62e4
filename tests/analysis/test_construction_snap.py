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


def test_the_distance_is_the_relative_frobenius_distance_to_the_snap():
    """The near network above: the copy is coordinate 1, so the snap in the network's coordinates
    is S_a there and 0 elsewhere, and each symbol's distance is ||c_a A_a - Sf_a|| / ||c_a A_a||
    (c_a = 1: both spectral radii are 1), computed here from the diagonals."""
    A = np.array([np.diag([1.0, 0.7, 0.5]), np.diag([0.9, -0.9, 1.0])])
    w = Weights("full", A, np.array([1.0, 0.5, 0.25]), np.array([[1.0, 1.0, 0.1], [0.2, 0.2, 0.3]]))
    snap = construction_snap(w, PARITY)
    expected = [np.linalg.norm([1.0, 0.7 - 1.0, 0.5]) / np.linalg.norm([1.0, 0.7, 0.5]),
                np.linalg.norm([0.9, -0.9 + 1.0, 1.0]) / np.linalg.norm([0.9, -0.9, 1.0])]
    assert snap.scale == (1.0, 1.0) and snap.distance == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("noise", [0.0, 1e-9])
def test_several_intertwiners_are_combined_into_an_injective_one(noise):
    """The Klein four group's construction is diagonal: the maps X with S_a X = X S_a are the
    diagonal matrices, and the singular vectors spanning them are diag(1, 0) and diag(0, 1), of
    rank 1 each; the random combination is of rank 2, an intertwiner (within the noise on the
    network's matrices, which makes the two singular values small, not 0), scaled to norm 1."""
    S = build("cyclic:2*cyclic:2", "full").float_arrays()[0]
    M = S + noise * np.random.default_rng(0).normal(size=S.shape)
    X = _intertwiner(M, S)
    assert X is not None and np.count_nonzero(np.abs(X - np.diag(np.diag(X))) > 1e-6) == 0
    s = np.linalg.svd(X, compute_uv=False)
    assert s[0] == pytest.approx(1.0, abs=1e-12) and s[-1] > 1e-3
    assert max(float(np.abs(M[a] @ X - X @ S[a]).max()) for a in range(len(S))) < 1e-7


@pytest.mark.parametrize("noise", [0.0, 1e-13])
def test_an_intertwiner_of_lower_rank_is_no_copy(noise):
    """M_a = diag(chi_1(a), 1/2): the first character of the Klein four group's construction is
    in the network, the second is not, so every X with M_a X = X S_a is diag(x, 0), of rank 1
    (up to the noise: its second singular value then about 1e-13, not 0): not a copy of the
    construction (never a basis of rank 1 handed on)."""
    S = build("cyclic:2*cyclic:2", "full").float_arrays()[0]
    M = np.array([np.diag([S[a][0, 0], 0.5]) for a in range(len(S))])
    M = M + noise * np.random.default_rng(1).normal(size=M.shape)
    assert _intertwiner(M, S) is None
    w = Weights("full", M, np.array([1.0, 0.5]), np.array([[1.0, 0.0], [0.0, 1.0], [0.5, 0.5], [0.2, 0.1]]))
    with pytest.raises(WeightsError, match="holds no copy of the construction"):
        construction_snap(w, from_spec("cyclic:2*cyclic:2"))


def test_a_copy_without_its_left_twin_is_no_snap():
    """A_a = [[S_a, 1], [0, 1/2]]: e1 is an exact copy of parity's construction (A_a e1 = S_a e1),
    but a left twin [1, w] would need w = 1 / (1 - 1/2) = 2 for symbol 0 and w = -1 / (1 + 1/2)
    for symbol 1: there is none, so the copy has no complement the network forgets."""
    A = np.array([[[1.0, 1.0], [0, 0.5]], [[-1.0, 1.0], [0, 0.5]]])
    S = build("parity", "full").float_arrays()[0]
    assert _intertwiner(A, S) is not None
    assert _intertwiner(np.transpose(A, (0, 2, 1)), np.transpose(S, (0, 2, 1))) is None
    with pytest.raises(WeightsError, match="holds no copy of the construction"):
        construction_snap(Weights("full", A, np.array([1.0, 0.5]), np.array([[1.0, 0.0], [0.0, 1.0]])), PARITY)


@pytest.mark.parametrize("delta, t", [(0.0, 1.0), (1e-10, 1.0)])
def test_a_copy_whose_complement_holds_it_is_ill_conditioned(delta, t):
    """Symbol 1 a Jordan block [[-1, t], [0, -1 + delta]]: e1 is the copy, and the left twin is
    [q1, 1] with q1 = -delta / t, whose kernel is e1 itself at delta = 0 (the basis [P | ker Q]
    is singular) and within 1e-10 of it at delta = 1e-10: no basis to read the snap in."""
    A = np.array([np.eye(2), [[-1.0, t], [0.0, -1.0 + delta]]])
    w = Weights("full", A, np.array([1.0, 0.5]), np.array([[1.0, 0.0], [0.0, 1.0]]))
    with pytest.raises(WeightsError, match="the construction's coordinates in the network are ill-conditioned"):
        construction_snap(w, PARITY)


def test_a_start_state_off_the_copy_is_no_snap():
    """h0 = e2 while the copy is e1 (A_1 = diag(-1, 1/2)): the snap's start state would be 0."""
    A = np.array([np.eye(2), np.diag([-1.0, 0.5])])
    w = Weights("full", A, np.array([0.0, 1.0]), np.array([[1.0, 0.0], [0.0, 1.0]]))
    with pytest.raises(WeightsError, match="the start state has no component on the construction's coordinates"):
        construction_snap(w, PARITY)


def test_no_construction_or_one_too_large_is_no_snap(monkeypatch):
    from bilinear.constructions.handmade import registry
    from bilinear.errors import ConstructionError

    # Z_5's construction is a plane (d = 2): a network of hidden size 1 with Z_5's five symbols cannot hold it
    with pytest.raises(WeightsError, match="the construction has d = 2, more than the network's 1"):
        construction_snap(Weights("full", np.ones((5, 1, 1)), np.array([1.0]), np.ones((5, 1))), from_spec("cyclic:5"))

    def refused(automaton, variant):
        raise ConstructionError("no full construction here")

    monkeypatch.setattr(registry, "build", refused)
    with pytest.raises(WeightsError, match="no construction to snap to: no full construction here"):
        construction_snap(positive_parity(), PARITY)

"""AffineWeights: validation, the lift (Theorem A1), the float run and the signed file format."""

from __future__ import annotations

import json
from fractions import Fraction

import numpy as np
import pytest

from bilinear.constructions.signing import sign_file
from bilinear.constructions.values.affine import AffineWeights, lifted_variant
from bilinear.constructions.values.weights import Weights
from bilinear.errors import ConformanceError, WeightsError


def _flip() -> AffineWeights:
    """The affine diagonal flip-flop: w0 sets h = -1, w1 sets h = 1, r keeps h."""
    return AffineWeights("diagonal", A=[[[0]], [[0]], [[1]]], b=[[-1], [1], [0]], readout=[[-1, 0], [1, 0]], h0=[-1])


def _affine_run(A, b, h0, word):
    """The affine recurrence by hand, in Fractions (independent of the lift)."""
    h = [Fraction(x) for x in h0]
    for a in word:
        h = [sum(Fraction(A[a][i][j]) * h[j] for j in range(len(h))) + Fraction(b[a][i]) for i in range(len(h))]
    return h


def test_lift_is_the_affine_recurrence_with_last_coordinate_one() -> None:
    rng = np.random.default_rng(3)
    A = rng.integers(-2, 3, size=(2, 3, 3)).tolist()
    b = rng.integers(-2, 3, size=(2, 3)).tolist()
    aff = AffineWeights("full", A=A, b=b, readout=[[1, 0, 0], [0, 1, 0]], h0=[1, 0, -1])
    lifted = aff.lift()
    assert lifted.variant == "full" and lifted.dim == 4
    for word in [(), (0,), (1, 0), (0, 0, 1, 1, 0)]:
        x = [Fraction(v) for v in lifted.h0]
        for a in word:
            x = [sum(Fraction(lifted.A[a][i][j]) * x[j] for j in range(4)) for i in range(4)]
        assert x[3] == 1
        assert x[:3] == _affine_run(A, b, [1, 0, -1], word)


def test_diagonal_family_lifts_to_dplr1_not_diagonal() -> None:
    lifted = _flip().lift()
    assert lifted.variant == "dplr:1"
    assert lifted_variant("diagonal") == "dplr:1" and lifted_variant("rotation2d") == "full"
    with pytest.raises(ConformanceError, match="off the diagonal"):
        Weights("diagonal", lifted.A, lifted.h0, lifted.readout)
    # the lifted matrices of a diagonal family need not commute (Theorem A3): w0 w1 != w1 w0
    A0, A1 = (np.array(lifted.A[s].tolist(), dtype=object) for s in (0, 1))
    assert (A0.dot(A1) != A1.dot(A0)).any()


def test_float_labels_match_a_hand_loop() -> None:
    rng = np.random.default_rng(0)
    A = rng.normal(size=(3, 2, 2))
    b = rng.normal(size=(3, 2))
    R = rng.normal(size=(3, 4, 3))
    aff = AffineWeights("full", A, b, R)
    word = rng.integers(0, 3, size=12).tolist()
    h = np.zeros(2)
    want = []
    for a in word:
        h = A[a] @ h + b[a]
        want.append(int(np.argmax(R[a][:, :2] @ h + R[a][:, 2])))
    assert aff.float_labels(word) == want


def test_bad_shapes_and_variants_are_refused() -> None:
    with pytest.raises(WeightsError, match=r"b has shape \(2, 1\), expected \(3, 1\)"):
        AffineWeights("diagonal", [[[0]], [[0]], [[1]]], [[1], [2]], [[1, 0]])
    with pytest.raises(WeightsError, match="readout has shape"):
        AffineWeights("diagonal", [[[0]], [[0]], [[1]]], [[1], [2], [0]], [[1, 0, 0]])
    with pytest.raises(WeightsError, match="readout has shape"):
        AffineWeights("diagonal", [[[0]], [[0]], [[1]]], [[1], [2], [0]], [[[1, 0]], [[1, 0]]])
    with pytest.raises(ConformanceError, match="off the diagonal"):
        AffineWeights("diagonal", [[[0, 1], [1, 0]]], [[1, 0]], [[1, 0]])
    with pytest.raises(WeightsError, match="per-symbol readout has no Weights form"):
        AffineWeights("diagonal", [[[1]]], [[0]], [[[1], [-1]]]).lift()


def test_file_round_trip_checksum_and_signing(tmp_path) -> None:
    aff = AffineWeights("diagonal", A=[[[0]], [[Fraction(1, 2)]]], b=[[1], [-1]],
                        readout=[[[1, 0], [-1, 0]], [[0, 1], [0, -1]]])
    path = aff.save(tmp_path / "a.json")
    back = AffineWeights.load(path)
    assert back.per_symbol and back.exact and back.A[1][0, 0] == Fraction(1, 2)
    assert back.readout.tolist() == aff.readout.tolist()
    data = json.loads(path.read_text())
    data["b"][0][0] = 2
    path.write_text(json.dumps(data))
    with pytest.raises(WeightsError, match="checksum mismatch"):
        AffineWeights.load(path)
    del data["checksum"]
    path.write_text(json.dumps(data))
    with pytest.raises(WeightsError, match="no checksum"):
        AffineWeights.load(path)
    assert AffineWeights.load(path, allow_unsigned=True).b[0][0] == 2
    signed = sign_file(path)
    assert signed.kind == "affine" and AffineWeights.load(path).b[0][0] == 2
    data["shape"] = {"symbols": 2, "hidden": 1, "classes": 3, "per_symbol": True}
    path.write_text(json.dumps(data))
    with pytest.raises(WeightsError, match="shape.classes = 3 but the arrays have 2"):
        AffineWeights.load(path, allow_unsigned=True)


def test_the_lift_is_size_checked_before_allocation() -> None:
    from bilinear.errors import ConstructionTooLargeError

    A = np.broadcast_to(np.zeros(1), (50, 1000, 1000))  # a view, no memory: the lift has 50 x 1001^2 > 5e7
    with pytest.raises(ConstructionTooLargeError, match="MAX_WEIGHT_ENTRIES"):
        AffineWeights("full", A, np.zeros((50, 1000)), np.zeros((2, 1000)))

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


# --- edges found by the mutation run of values/affine.py (benchmarks/MUTATION.md) ----------------

def test_sizes_are_read_from_the_arrays() -> None:
    aff = AffineWeights("full", np.zeros((3, 2, 2), dtype=np.int64), np.zeros((3, 2), dtype=np.int64),
                        np.zeros((4, 3), dtype=np.int64))
    assert (aff.n_symbols, aff.dim, aff.n_classes, aff.per_symbol) == (3, 2, 4, False)
    assert aff.readout.shape == (3, 4, 3) and aff.h0.tolist() == [0, 0]
    assert repr(aff) == "AffineWeights('full', exact, symbols=3, hidden=2, classes=4, fixed readout)"


def test_more_bad_shapes_are_refused_by_name() -> None:
    with pytest.raises(WeightsError, match=r"A has shape \(3, 2, 3\): need"):  # not square
        AffineWeights("full", np.zeros((3, 2, 3)), np.zeros((3, 2)), [[1, 0]])
    # an empty A is named before b (whose expected shape would be empty too)
    for shape in ((0, 1, 1), (1, 0, 0)):
        with pytest.raises(WeightsError, match=rf"A has shape \({shape[0]}, {shape[1]}, {shape[2]}\): need \(symbols"):
            AffineWeights("full", np.zeros(shape), [[0]], [[1, 0]])
    with pytest.raises(WeightsError, match=r"h0 has shape \(2,\), expected \(1,\)"):
        AffineWeights("full", [[[1]]], [[0]], [[1, 0]], h0=[1, 2])
    for readout in ([1, 0], [[[[1, 0]]]]):
        with pytest.raises(WeightsError, match=r"readout must be \(classes, hidden \[\+ 1\]\)"):
            AffineWeights("full", [[[1]]], [[0]], readout)
    with pytest.raises(WeightsError, match=r"readout has shape \(0, 2\)"):
        AffineWeights("full", [[[1]]], [[0]], np.zeros((0, 2)))


def test_the_lifted_size_limit_is_d_plus_one_squared(monkeypatch) -> None:
    from bilinear.constructions.values import weights
    from bilinear.errors import ConstructionTooLargeError

    args = (np.zeros((2, 2, 2)), np.zeros((2, 2)), np.zeros((1, 2)))  # lifted: 2 x 3^2 = 18 entries
    monkeypatch.setattr(weights, "MAX_WEIGHT_ENTRIES", 18)
    assert AffineWeights("full", *args).lift().A.shape == (2, 3, 3)
    monkeypatch.setattr(weights, "MAX_WEIGHT_ENTRIES", 17)
    with pytest.raises(ConstructionTooLargeError, match="affine .lifted. construction of 2 symbols has hidden 3"):
        AffineWeights("full", *args)


def test_affine_weights_are_immutable() -> None:
    aff = _flip()
    with pytest.raises(AttributeError, match="AffineWeights is immutable"):
        aff.b = np.zeros((3, 1))  # type: ignore[misc]
    with pytest.raises(AttributeError, match="AffineWeights is immutable .cannot delete 'A'"):
        del aff.A
    assert (aff.dim, aff.n_symbols, aff.exact) == (1, 3, True)
    with pytest.raises(ValueError, match="read-only"):
        aff.readout[0, 0, 0] = 5
    assert aff.readout[0, 0, 0] == -1


def test_float_labels_report_a_tie_of_two_classes_as_none() -> None:
    aff = AffineWeights("full", [[[1.0]]], [[1.0]], [[1.0, 0.0], [1.0, 0.0], [0.0, 0.5]])
    assert aff.float_labels([0, 0]) == [None, None]  # h = 1, 2: classes 0 and 1 tie above 0.5
    low = AffineWeights("full", [[[1.0]]], [[-1.0]], [[1.0, 0.0], [1.0, 0.0], [0.0, 0.5]])
    assert low.float_labels([0]) == [2]


def test_the_lift_of_a_diagonal_family_carries_its_own_factors() -> None:
    lifted = _flip().lift()  # D = diag(L[a]), U = [b[a]; 0], W = e_2 (not the factors Weights would derive)
    D, U, W = (f.tolist() for f in lifted.factors)
    assert D == [[0, 1], [0, 1], [1, 1]]
    assert U == [[[-1], [0]], [[1], [0]], [[0], [0]]]
    assert W == [[[0], [1]]] * 3
    rot = AffineWeights("rotation2d", [[[0, -1], [1, 0]]], [[1, 0]], [[1, 0]]).lift()
    assert rot.variant == "full" and rot.factors is None and rot.A[0].tolist() == [[0, -1, 1], [1, 0, 0], [0, 0, 1]]
    fl = AffineWeights("diagonal", [[[0.5]]], [[2.0]], [[1.0, 0.0]]).lift()
    assert [f.tolist() for f in fl.factors] == [[[0.5, 1.0]], [[[2.0], [0.0]]], [[[0.0], [1.0]]]]


def test_file_round_trips_of_every_readout_shape_and_of_factors(tmp_path) -> None:
    one = AffineWeights("diagonal", [[[2]]], [[1]], [[[1, -1]]], h0=[3])  # 1 symbol, 1 class, per symbol
    back = AffineWeights.load(one.save(tmp_path / "x" / "y" / "one.json"))  # folders made
    assert back.per_symbol and back.readout.tolist() == [[[1, -1]]] and back.h0.tolist() == [3]
    fixed = AffineWeights("full", [[[1.5]]], [[0.5]], [[1.0, 0.0]])  # 1 symbol, fixed, float
    path = fixed.save(tmp_path / "fixed.json")
    assert path.read_text().endswith("}\n")
    back = AffineWeights.load(path)
    assert not back.per_symbol and not back.exact and back.readout.tolist() == [[[1.0, 0.0]]]
    assert back.A.tolist() == [[[1.5]]] and back.b.tolist() == [[0.5]]
    house = AffineWeights("householder:1", [[[-1]]], [[1]], [[1, 0]], factors=([[[3]]], [[2]]))
    back = AffineWeights.load(house.save(tmp_path / "house.json"))  # given factors, not derived ones ([[-2]])
    assert [f.tolist() for f in back.factors] == [[[[3]]], [[2]]]
    mono = AffineWeights("monomial", [[[0, Fraction(1, 2)], [-1, 0]]], [[1, 0]], [[1, 0]])
    data = mono.to_json()
    assert data["factors"] == {"perm": [[1, 0]], "D": [[-1, "1/2"]]}
    back = AffineWeights.from_json(data)
    assert back.factors[0].tolist() == [[1, 0]] and back.factors[1].tolist() == [[-1, Fraction(1, 2)]]


def test_bad_files_are_refused_by_name(tmp_path) -> None:
    base = _flip().to_json()
    del base["checksum"]

    def refused(match: str, **changes) -> None:
        with pytest.raises(WeightsError, match=match):
            AffineWeights.from_json({**base, **changes}, "f.json", allow_unsigned=True)

    with pytest.raises(WeightsError, match="no checksum"):  # from_json, like load, wants a signed file
        AffineWeights.from_json(base, "f.json")
    refused(r"f.json: 'exact' must be true or false, got 'yes'", exact="yes")
    refused(r"f.json: b has shape \(2, 1\), expected \(3, 1\)", b=[[1], [2]])
    refused(r"f.json: 'shape' must have keys symbols, hidden, classes, per_symbol", shape=[3, 1, 2, False])
    refused(r"f.json: 'shape' must have keys", shape={"symbols": 3, "hidden": 1, "classes": 2})
    assert AffineWeights.from_json({**base, "shape": None}, allow_unsigned=True).n_symbols == 3
    for path in (None, ""):
        with pytest.raises(WeightsError, match="an affine weights file path must be a non-empty string or path"):
            AffineWeights.load(path)

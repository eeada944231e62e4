"""Weights: validation, variant conformance (naming the entry), JSON round trip, tampering."""

from __future__ import annotations

import json
from fractions import Fraction

import numpy as np
import pytest

from bilinear.constructions.exact.field import cos2pi, sin2pi
from bilinear.constructions import Variant, Weights, parse_variant
from bilinear.errors import ConformanceError, SpecError, WeightsError


def rotation(n):
    c, s = cos2pi(1, n), sin2pi(1, n)
    return Weights("rotation2d", [[[c, -s], [s, c]]], [1, 0], [[1, 0], [0, 1]])


@pytest.mark.parametrize(
    "spec,expected",
    [
        ("full", Variant("full")),
        ("FACTORIZED:3", Variant("factorized", 3)),
        ("factorized(5)", Variant("factorized", 5)),
        ("block: 2", Variant("block", 2)),
        ("rotation2d", Variant("rotation2d")),
        ("positive", Variant("positive")),
    ],
)
def test_parse_variant(spec, expected):
    assert parse_variant(spec) == expected


@pytest.mark.parametrize("spec", ["", "blocky", "block", "block:0", "block:x", "full:2", "diagonal(1)", "a:b:c"])
def test_parse_variant_rejects(spec):
    with pytest.raises(SpecError):
        parse_variant(spec)


def test_exact_and_float_detection():
    assert rotation(7).exact
    w = Weights("full", np.eye(2)[None], [1, 0], [[1, 0]])
    assert not w.exact and w.A.dtype == np.float64
    with pytest.raises(ValueError):
        w.A[0, 0, 0] = 3.0  # read-only
    with pytest.raises(AttributeError):
        w.variant = "diagonal"


@pytest.mark.parametrize(
    "variant,A,message",
    [
        ("diagonal", [[[1, 2], [0, 1]]], r"A\[0\]\[0, 1\] = 2 is off the diagonal"),
        ("positive", [[[1, 0], [0, 0]]], r"A\[0\]\[1, 1\] = 0 is not strictly positive"),
        ("positive", [[[1, 0], [0, Fraction(-1, 2)]]], r"A\[0\]\[1, 1\] = -1/2 is not strictly positive"),
        ("block:1", [[[1, 0], [3, 1]]], r"A\[0\]\[1, 0\] = 3 is outside the 1x1 diagonal blocks"),
        ("rotation2d", [[[1, 1], [1, 1]]], r"A\[0\]\[0, 1\] = 1 is not -A\[0\]\[1, 0\]"),
        ("rotation2d", [[[1, 0], [0, 2]]], r"A\[0\]\[1, 1\] = 2 differs from A\[0\]\[0, 0\]"),
        ("factorized:1", [[[1, 0], [0, 1]], [[0, 1], [0, 0]]], r"ranks summing to 3 > R = 1"),
    ],
)
def test_nonconforming_variants_name_the_entry(variant, A, message):
    d = len(A[0])
    with pytest.raises(ConformanceError, match=message):
        Weights(variant, A, [1] + [0] * (d - 1), [[1] * d])


def test_float_conformance_uses_a_relative_tolerance():
    A = np.array([[[1.0, 1e-9], [0.0, 1.0]]])
    Weights("diagonal", A, [1, 0], [[1, 0]])  # within 1e-6 * min(|A[0][0, 0]|, |A[0][1, 1]|)
    with pytest.raises(ConformanceError, match=r"A\[0\]\[0, 1\]"):
        Weights("diagonal", A * [[[1, 1e4], [1, 1]]], [1, 0], [[1, 0]])


def test_factorized_with_explicit_factors_is_checked():
    U = [[1, 0], [0, 1]]
    W = [[1, 1], [0, 1]]
    C = [[1, 2], [3, 0]]
    A = [np.array(U) @ np.diag(c) @ np.array(W).T for c in C]
    w = Weights("factorized:2", A, [1, 0], [[1, 0]], factors=(U, C, W))
    assert w.factors[1].tolist() == C
    bad = [a.copy() for a in A]
    bad[1][0, 0] += 1
    with pytest.raises(ConformanceError, match=r"A\[1\]\[0, 0\] = 4 differs"):
        Weights("factorized:2", bad, [1, 0], [[1, 0]], factors=(U, C, W))


def test_factors_are_derived_from_ranks():
    A = [[[1, 2], [2, 4]], [[0, 1], [0, 0]]]
    w = Weights("factorized:2", A, [1, 0], [[1, 0]])
    U, C, W = w.factors
    for s in range(2):
        assert ((U * C[s][None, :]) @ W.T).tolist() == A[s]


@pytest.mark.parametrize(
    "kwargs,message",
    [
        (dict(A=np.ones((1, 2, 3)), h0=[1, 0], readout=[[1, 0]]), "square"),
        (dict(A=np.ones((1, 2, 2)), h0=[1, 0, 0], readout=[[1, 0]]), r"h0 has shape \(3,\)"),
        (dict(A=np.ones((1, 2, 2)), h0=[1, 0], readout=[[1, 0, 0]]), r"readout has shape \(1, 3\)"),
        (dict(A=np.ones((2, 2)), h0=[1, 0], readout=[[1, 0]]), "A must have 3 dimension"),
        (dict(A=[[[1, "x"], [0, 1]]], h0=[1, 0], readout=[[1, 0]]), r"A\[0\]\[0, 1\] = 'x'"),
        (dict(A=[[[1.0, np.inf], [0, 1]]], h0=[1, 0], readout=[[1, 0]]), r"A\[0\]\[0, 1\] = inf is not finite"),
        (dict(A=[[[1, 0], [0, 1]]], h0=[1j, 0], readout=[[1, 0]]), "complex"),
    ],
)
def test_bad_shapes_and_entries(kwargs, message):
    with pytest.raises(WeightsError, match=message):
        Weights("full", **kwargs)


def test_factors_only_for_factorized():
    with pytest.raises(WeightsError, match="carries no factors"):
        Weights("full", [[[1]]], [1], [[1]], factors=([[1]], [[1]], [[1]]))


@pytest.mark.parametrize("make", [lambda: rotation(7), lambda: rotation(7).to_float(),
                                  lambda: Weights("factorized:4", [[[1, 2], [2, 4]], [[0, Fraction(1, 3)], [0, 0]]], [1, 0], [[1, 0]])])
def test_json_round_trip(tmp_path, make):
    w = make()
    path = w.save(tmp_path / "w.json")
    back = Weights.load(path)
    assert back == w
    assert back.exact == w.exact


def test_float_conversion_is_close():
    w = rotation(7)
    A, h0, r = w.float_arrays()
    assert np.allclose(A[0] @ A[0].T, np.eye(2))
    assert w.to_float().variant == "rotation2d"


def _tamper(tmp_path, edit, keep_checksum=True):
    w = rotation(5)
    data = w.to_json()
    edit(data)
    if not keep_checksum:
        data.pop("checksum")
    path = tmp_path / "t.json"
    path.write_text(json.dumps(data))
    return path


@pytest.mark.parametrize(
    "edit,keep,message",
    [
        (lambda d: d["h0"].__setitem__(0, 2), True, "checksum mismatch"),
        (lambda d: d.__setitem__("extra", 1), False, "unknown key 'extra'"),
        (lambda d: d.pop("A"), False, "missing key 'A'"),
        (lambda d: d.__setitem__("variant", "diagonal"), False, r"A\[0\]\[0, 1\].*off the diagonal"),
        (lambda d: d.__setitem__("variant", "blocky"), False, "unknown variant"),
        (lambda d: d["h0"].append(0), False, r"h0 has shape \(3,\)"),
        (lambda d: d["h0"].__setitem__(0, 0.5), False, "float in exact weights"),
        (lambda d: d["h0"].__setitem__(0, "1/0"), False, "zero denominator"),
        (lambda d: d["readout"].__setitem__(0, [1]), False, "ragged"),
        (lambda d: d["shape"].__setitem__("classes", 3), False, "shape.classes = 3"),
        (lambda d: d["A"][0][0].__setitem__(0, {"field": "cyclo:5", "coeffs": []}), False, "cyclotomic:M"),
        # a conductor past the limit is named with the limit, however many digits it has
        (lambda d: d["A"][0][0].__setitem__(0, {"field": "cyclotomic:1000000000", "coeffs": []}), False,
         r"A\[0\]\[0, 0\]: cyclotomic conductor m=1000000000 must be in 1\.\.100000"),
        (lambda d: d["A"][0][0].__setitem__(0, {"field": "cyclotomic:" + "9" * 5000, "coeffs": []}), False,
         r"A\[0\]\[0, 0\]: cyclotomic conductor of 5,000 digits must be in 1\.\.100000"),
        (lambda d: d["h0"].__setitem__(0, None), False, r"h0\[0\] = null is not an integer"),  # JSON's null, by name
        (lambda d: d.__setitem__("version", 9), False, "unsupported version"),
    ],
)
def test_tampered_files_are_refused(tmp_path, edit, keep, message):
    path = _tamper(tmp_path, edit, keep)
    with pytest.raises(WeightsError, match=message):
        Weights.load(path, allow_unsigned=not keep)


def test_malformed_files(tmp_path):
    p = tmp_path / "bad.json"
    p.write_text("{not json")
    with pytest.raises(WeightsError, match="not valid JSON"):
        Weights.load(p)
    p.write_text('{"format": "bilinear.weights", "version": 1, "variant": "full", "exact": false, '
                 '"A": [[[NaN]]], "h0": [1], "readout": [[1]]}')
    with pytest.raises(WeightsError, match="non-finite"):
        Weights.load(p)
    with pytest.raises(WeightsError, match="cannot read"):
        Weights.load(tmp_path / "missing.json")


def test_float_conformance_is_per_matrix() -> None:
    # scaling another matrix never loosens the check of A[0]
    A = np.array([[[1.0, 1e-3], [0.0, 1.0]], [[1e9, 0.0], [0.0, 1e9]]])
    with pytest.raises(ConformanceError, match=r"variant 'diagonal': A\[0\]\[0, 1\] = 0.001 is off the diagonal"):
        Weights("diagonal", A, [1, 0], [[1, 0]])


def test_project_returns_conforming_weights_and_distances() -> None:
    w = Weights("full", [[[3.0, 4.0], [0.0, 0.0]], [[1.0, 0.0], [0.0, 2.0]]], [1, 0], [[1, 0]])
    p, dist = w.project("diagonal")
    assert p.variant == "diagonal" and p.A.tolist() == [[[3.0, 0.0], [0.0, 0.0]], [[1.0, 0.0], [0.0, 2.0]]]
    assert dist.tolist() == [0.8, 0.0]
    assert p.project()[0] is p and p.project("diagonal")[1].tolist() == [0.0, 0.0]
    exact = Weights("diagonal", [[[2, 0], [0, 3]]], [1, 0], [[1, 0]])
    p, dist = exact.project("block:2")
    assert not p.exact and p.A.tolist() == [[[2.0, 0.0], [0.0, 3.0]]] and dist.tolist() == [0.0]


def test_load_projected(tmp_path) -> None:
    from bilinear.constructions.values.fileformat import encode

    A = np.array([[[1.0, 0.5], [0.0, 2.0]]])
    path = tmp_path / "w.json"
    path.write_text(json.dumps(encode("diagonal", False, A, np.array([1.0, 0.0]), np.array([[1.0, 0.0]]), None)))
    with pytest.raises(ConformanceError, match=r"w.json: variant 'diagonal': A\[0\]\[0, 1\] = 0.5"):
        Weights.load(path)
    w, dist = Weights.load_projected(path)
    assert w.A.tolist() == [[[1.0, 0.0], [0.0, 2.0]]] and dist[0] == pytest.approx(0.5 / np.sqrt(5.25))
    good = tmp_path / "good.json"
    w.save(good)
    again, dist = Weights.load_projected(good)
    assert again == w and dist.tolist() == [0.0]


def test_load_projected_factorized_uses_the_files_factors(tmp_path) -> None:
    from bilinear.constructions.values.fileformat import encode

    U, C, W = np.eye(2), np.array([[1.0, 2.0]]), np.array([[1.0, 1.0], [0.0, 1.0]])
    A = ((U * C[0]) @ W.T)[None] + np.array([[[0.0, 0.1], [0.0, 0.0]]])
    data = encode("factorized:2", False, A, np.array([1.0, 0.0]), np.array([[1.0, 0.0]]), (U, C, W))
    with pytest.raises(ConformanceError, match=r"A\[0\]\[0, 1\]"):
        Weights.from_json(data)
    w, dist = Weights.from_json_projected(data)
    np.testing.assert_array_equal(w.A[0], (U * C[0]) @ W.T)
    assert dist[0] > 0 and w.factors[1].tolist() == C.tolist()


def test_load_projected_refuses_factors_of_the_wrong_shape() -> None:
    from bilinear.constructions.values.fileformat import encode

    A = np.array([[[1.0, 0.5], [0.0, 2.0]]])
    data = encode("factorized:2", False, A, np.array([1.0, 0.0]), np.array([[1.0, 0.0]]), (np.eye(2), np.ones((1, 3)), np.eye(2)))
    with pytest.raises(ConformanceError, match=r"cannot project onto 'factorized:2': factor C has shape \(1, 3\)"):
        Weights.from_json_projected(data)


def test_trusted_weights_skip_the_entry_conversion_but_not_the_conformance():
    from bilinear.constructions.handmade.registry import adapt, build

    w = build("dihedral:3", "block:2")
    assert adapt(w, "block:2") is w  # its own variant: nothing rebuilt
    full = adapt(w, "full")
    assert full.variant == "full" and full.exact and (full.A == w.A).all() and not full.A.flags.writeable
    with pytest.raises(ConformanceError):  # a rotation is not diagonal: still checked
        Weights._trusted("diagonal", w.A, w.h0, w.readout, exact=True)
    with pytest.raises(WeightsError, match="inconsistent shapes"):
        Weights._trusted("full", w.A, w.h0[:1], w.readout, exact=True)

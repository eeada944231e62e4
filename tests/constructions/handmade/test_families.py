"""The 2025 transition families: householder:K[,nonneg], monomial, dplr:R (exact factors,
conformance, file format, constructions, certificates and bounds)."""

from __future__ import annotations

import json
from fractions import Fraction

import numpy as np
import pytest

from bilinear.automata import from_spec
from bilinear.constructions.impossible.bounds import lower_bound, monomial_bound
from bilinear.constructions import certify
from bilinear.constructions.values.factored import householder_compose, reflection_count
from bilinear.constructions.exact.field import cos2pi, sin2pi
from bilinear.constructions import build
from bilinear.constructions.settle import _factor_bound, settle
from bilinear.constructions import parse_variant
from bilinear.constructions import Weights
from bilinear.errors import ConformanceError, SpecError, WeightsError


# --- specs -----------------------------------------------------------------------------------
def test_specs_options_and_spectral_classes():
    assert parse_variant(" Householder:2 , NonNeg ").spec == "householder:2,nonneg"
    assert parse_variant("householder:1").spectral == "real"
    assert parse_variant("householder:1,nonneg").spectral == "nonnegative"
    assert parse_variant("householder:2,nonneg").spectral == "nonnegative"
    assert parse_variant("householder:2").spectral == "complex"  # a product of two reflections rotates
    assert parse_variant("householder:3,nonneg").spectral == "complex"
    assert not parse_variant("householder:1").commuting
    with pytest.raises(SpecError, match="no option 'nonneg'"):
        parse_variant("dplr:1,nonneg")
    with pytest.raises(SpecError, match="needs a parameter K"):
        parse_variant("householder")
    with pytest.raises(SpecError, match="takes no parameter"):
        parse_variant("monomial:2")


# --- exact factors ---------------------------------------------------------------------------
def test_a_rotation_is_two_exact_reflections_in_the_field():
    c, s = cos2pi(1, 5), sin2pi(1, 5)
    R = np.array([[[c, -s], [s, c]]], dtype=object)
    w = Weights("householder:2", R, [1, 0], [[1, 0]])
    V, beta = w.factors
    assert beta.tolist() == [[2, 2]]
    assert (householder_compose(V, beta) - R == 0).all()  # exact: no square root was taken
    assert reflection_count(R[0]) == 2
    with pytest.raises(ConformanceError, match="needs 2 reflections"):
        Weights("householder:1", R, [1, 0], [[1, 0]])


def test_householder_factors_are_checked_exactly():
    V = [[[1, 1]]]
    A = [[[0, -1], [-1, 0]]]  # I - 2 vv^T / 2
    w = Weights("householder:1", A, [1, 0], [[1, 0]], factors=(V, [[2]]))
    assert w.named_factors["beta"].tolist() == [[2]]
    with pytest.raises(ConformanceError, match="outside \\[0, 1\\]"):
        Weights("householder:1,nonneg", A, [1, 0], [[1, 0]], factors=(V, [[2]]))
    with pytest.raises(ConformanceError, match="differs from the product of its reflections"):
        Weights("householder:1", [[[0, -1], [-1, 1]]], [1, 0], [[1, 0]], factors=(V, [[2]]))
    with pytest.raises(ConformanceError, match="zero vector"):
        Weights("householder:1", [[[1, 0], [0, 1]]], [1, 0], [[1, 0]], factors=([[[0, 0]]], [[0]]))
    half = Weights("householder:1,nonneg", [[[Fraction(1, 2), Fraction(-1, 2)], [Fraction(-1, 2), Fraction(1, 2)]]],
                   [1, 0], [[1, 0]])  # the projection onto (1, 1): one generalised reflection, beta 1
    assert half.named_factors["beta"].tolist() == [[1]]


def test_float_householder_judged_per_factor_and_snapped():
    k = np.array([[[0.6, 0.8]]])
    A = householder_compose(k, np.array([[2.0]]), exact=False)
    w = Weights("householder:1", A + 1e-9, [1.0, 0.0], [[1.0, 0.0]], factors=(k, np.array([[2.0 + 1e-9]])))
    assert w.named_factors["beta"][0, 0] == 2.0 and np.array_equal(w.A, A)  # clipped and snapped
    with pytest.raises(ConformanceError, match="differs"):
        Weights("householder:1", A + 1e-3, [1.0, 0.0], [[1.0, 0.0]], factors=(k, np.array([[2.0]])))


def test_monomial_and_dplr_factors_and_their_errors():
    w = Weights("monomial", [[[0, 3], [-2, 0]]], [1, 0], [[1, 0]])
    assert w.named_factors["perm"].tolist() == [[1, 0]] and w.named_factors["D"].tolist() == [[-2, 3]]
    with pytest.raises(ConformanceError, match="column 0 of A\\[0\\] has non-zero entries in rows 0 and 1"):
        Weights("monomial", [[[1, 0], [1, 1]]], [1, 0], [[1, 0]])
    with pytest.raises(ConformanceError, match="not an integer in \\[0, 2\\)"):
        Weights("monomial", [[[0, 3], [-2, 0]]], [1, 0], [[1, 0]], factors=([[1, 2]], [[-2, 3]]))
    d = Weights("dplr:1", [[[2, 5, 5], [0, 1, 0], [0, 0, 1]]], [1, 0, 0], [[1, 0, 0]])  # I + e_0 (1, 5, 5)
    D, U, W = d.factors
    assert D.tolist() == [[1, 1, 1]] and (U[0] @ W[0].T == np.array(d.A[0]) - np.eye(3, dtype=int)).all()
    with pytest.raises(ConformanceError, match="rank >= 2 > R = 1"):
        Weights("dplr:1", [[[0, 1, 0], [0, 0, 1], [1, 0, 0]]], [1, 0, 0], [[1, 0, 0]])
    with pytest.raises(WeightsError, match="carries no factors"):
        Weights("full", [[[1]]], [1], [[1]], factors=([[1]], [[1]], [[1]]))
    with pytest.raises(WeightsError, match="must be named D, U, W"):
        Weights("dplr:1", [[[1]]], [1], [[1]], factors={"D": [[1]]})
    # given factors whose composition is not A: the first differing entry, in the kind's own terms
    with pytest.raises(ConformanceError, match=r"A\[0\]\[1, 0\] = -2 differs from \(P D\)\[1, 0\] = 2 "
                                               r"\(perm\[0, 0\] = 1\)"):
        Weights("monomial", [[[0, 3], [-2, 0]]], [1, 0], [[1, 0]], factors=([[1, 0]], [[2, 3]]))
    with pytest.raises(ConformanceError, match=r"A\[0\]\[0, 0\] = 2 differs from \(diag\(D\) \+ U W\^T\)"
                                               r"\[0, 0\] = 3"):
        Weights("dplr:1", [[[2]]], [1], [[1]], factors=([[1]], [[[2]]], [[[1]]]))


@pytest.mark.parametrize("spec, variant", [
    ("cyclic:5", "householder:2"), ("parity", "householder:1"), ("flipflop:2", "householder:1,nonneg"),
    ("cyclic:4", "monomial"), ("dihedral:5", "monomial"), ("cyclic:5", "dplr:1"), ("symmetric:4", "dplr:2"),
])
def test_file_round_trip_keeps_the_factors(spec, variant, tmp_path):
    w = build(spec, variant)
    path = w.save(tmp_path / "w.json")
    data = json.loads(path.read_text())
    assert set(data["factors"]) == set(w.variant_info.info.factor_names)
    back = Weights.load(path)
    assert back == w and back.variant == variant
    f = w.to_float()
    assert Weights.from_json(f.to_json()) == f


def test_file_refuses_factors_of_another_kind():
    data = build("cyclic:3", "householder:2").to_json()
    data["factors"] = {"U": [[1]], "C": [[1]], "W": [[1]]}
    del data["checksum"]
    with pytest.raises(WeightsError, match="keys V, beta"):
        Weights.from_json(data, allow_unsigned=True)


# --- constructions: every one proved ---------------------------------------------------------
@pytest.mark.parametrize("spec, variant, dim, count", [
    ("parity", "householder:1", 1, 1),
    ("cyclic:3", "householder:2", 2, 2),
    ("dihedral:6", "householder:2", 2, 2),
    ("symmetric:4", "householder:2", 3, 2),
    ("alternating:4", "householder:2", 3, 2),
    ("alternating:5", "householder:2", 3, 2),
    ("symmetric:3", "householder:2", 2, 2),
    ("reset:3", "householder:1,nonneg", 2, 1),
    ("parity", "householder:3,nonneg", 2, 3),
    ("cyclic:5", "dplr:1", 2, 1),
    ("cyclic:2*cyclic:3", "householder:2", 2, 2),
])
def test_householder_and_dplr_cells_proved(spec, variant, dim, count):
    c = settle(spec, variant)
    assert (c.status, c.dim, c.factors) == ("proved", dim, count), c.summary


@pytest.mark.parametrize("spec", ["symmetric:3", "symmetric:4", "symmetric:5"])
def test_transpositions_are_single_reflections(spec):
    from bilinear.constructions.handmade.reflections import permutation, tetrahedral, triangle

    a = from_spec(spec)
    for make in (triangle, tetrahedral, permutation):
        try:
            w = make(a)
        except Exception:
            continue
        assert a.symbols[0] == "(0 1)" and reflection_count(w.A[0]) == 1
        counts = [reflection_count(M) for M in w.A]
        assert counts[0] == 1 and counts[1] == len(a.symbols[1].split()) - 1  # a k-cycle: k - 1 reflections


@pytest.mark.parametrize("spec, dim", [("parity", 1), ("cyclic:4", 2), ("cyclic:6", 3), ("cyclic:12", 5),
                                       ("cyclic:5", 5), ("dihedral:5", 5), ("quaternion", 4), ("symmetric:4", 3)])
def test_monomial_dimensions_and_their_bound(spec, dim):
    c = settle(spec, "monomial")
    assert (c.status, c.dim) == ("proved", dim)
    if spec.startswith("cyclic") or spec == "dihedral:5":
        assert c.minimal


def test_monomial_for_every_automaton_at_its_size():
    c = settle("random:states=5,symbols=2,seed=0", "monomial")
    assert c.status == "proved" and c.dim <= 5


# --- certificates and bounds -----------------------------------------------------------------
def test_single_symbol_certificates():
    c = certify("cyclic:3", "householder:1")
    assert c.kind == "symbol-period" and len(c.word("g")) == 1 and c.label_period == 3
    assert c.verify(from_spec("cyclic:3"))
    p = certify("parity", "householder:1,nonneg")
    assert p.kind == "symbol-constancy" and p.verify(from_spec("parity"))
    assert certify("parity", "householder:1") is None  # beta = 2 flips the sign
    assert certify("cyclic:3", "householder:2") is None
    # the theorem holds per matrix only: a product of two reflections is a rotation, so a
    # certificate whose g had two symbols would be wrong; the search never returns one
    assert certify("dihedral:4", "householder:1").kind == "symbol-period"


def test_a_symbol_certificate_refutes_trained_like_weights():
    a = from_spec("cyclic:3")
    cert = certify(a, "householder:1")
    w = Weights("householder:1", householder_compose(np.array([[[1.0, 0.0]], [[0.6, 0.8]], [[0.0, 1.0]]]),
                                                    np.array([[0.0], [2.0], [1.5]]), exact=False),
                [1.0, 0.5], [[1.0, 0.0], [0.0, 1.0], [-1.0, -1.0]])
    word = cert.failing_word(w, a)
    assert word is not None


def test_factor_bounds():
    assert _factor_bound(from_spec("cyclic:3"), "householder")[0] == 2
    assert _factor_bound(from_spec("parity"), "householder", ("nonneg",))[0] == 3
    assert _factor_bound(from_spec("parity"), "householder")[0] == 1
    assert _factor_bound(from_spec("cyclic:3"), "dplr")[0] == 1
    c = settle("parity", "householder,nonneg")
    assert (c.status, c.factors, c.factors_lower_bound, c.factors_minimal) == ("proved", 3, 3, True)


def test_dimension_bounds_for_the_new_kinds():
    assert monomial_bound("cyclic:5")[0] == 5 and monomial_bound("cyclic:8")[0] == 4
    assert monomial_bound("parity") is None
    assert lower_bound("cyclic:5", "monomial")[:2] == (5, "Theorem F6")
    assert lower_bound("cyclic:5", "householder:2")[0] == 2  # F6 is for monomial only
    assert lower_bound("parity", "householder:3,nonneg")[:2] == (2, "Theorem F5")
    assert lower_bound("parity", "householder:3")[0] == 1


def test_factor_counts_are_limited_before_allocating():
    from bilinear.errors import ConfigError
    from bilinear.learned import BilinearRNN

    with pytest.raises(ConformanceError, match="K = 1,000,000 is over 64 x hidden = 64"):
        Weights("householder:1000000", [[[1]]], [1], [[1]])
    with pytest.raises(ConformanceError, match="R = 1,000 is over 64 x hidden = 128"):
        Weights("dplr:1000", [[[1, 0], [0, 1]]], [1, 0], [[1, 0]])
    with pytest.raises(ConfigError, match="over 64 x hidden = 256"):
        BilinearRNN(2, 2, 4, "householder:100000")
    assert settle("cyclic:3", "householder:999999999").status == "open"  # refused, nothing allocated

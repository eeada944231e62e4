"""The table of variant kinds: every kind once, its properties, conformance and projection."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from bilinear.constructions.values import weights as weights_module
from bilinear.constructions.impossible.certificates import certifiable_kinds
from bilinear.constructions import build
from bilinear.constructions.values.variants import (
    KINDS,
    SPECTRAL_CLASSES,
    VARIANT_KINDS,
    VariantKind,
    conform,
    parse_variant,
    project,
    relative_distance,
)
from bilinear.constructions import Weights
from bilinear.errors import ConformanceError, ConstructionError, SpecError

SPECS = ["full", "factorized:3", "block:2", "block:1", "rotation2d", "diagonal", "positive"]


def test_every_kind_is_listed_once_in_order() -> None:
    assert list(KINDS) == ["full", "factorized", "block", "rotation2d", "diagonal", "positive", "householder", "monomial", "dplr"]
    assert all(isinstance(k, VariantKind) and k.name == name for name, k in KINDS.items())
    assert VARIANT_KINDS == {"full": None, "factorized": "R", "block": "B", "rotation2d": None,
                             "diagonal": None, "positive": None, "householder": "K", "monomial": None, "dplr": "R"}
    assert weights_module.VARIANT_KINDS is VARIANT_KINDS
    assert weights_module.parse_variant is parse_variant


@pytest.mark.parametrize(
    "spec,commuting,spectral,block,factored",
    [
        ("full", False, "complex", None, False),
        ("factorized:3", False, "complex", None, True),
        ("block:2", False, "complex", 2, False),
        ("block:1", True, "real", 1, False),
        ("rotation2d", True, "complex", 2, False),
        ("diagonal", True, "real", 1, False),
        ("positive", True, "nonnegative", 1, False),
    ],
)
def test_properties_of_each_variant(spec, commuting, spectral, block, factored) -> None:
    v = parse_variant(spec)
    assert (v.commuting, v.spectral, v.block_size, v.info.factored) == (commuting, spectral, block, factored)
    assert v.spectral in SPECTRAL_CLASSES and v.spec == spec
    assert bool(certifiable_kinds(spec)) == commuting


def test_parameters_are_named_in_errors() -> None:
    with pytest.raises(SpecError, match="needs a parameter R"):
        parse_variant("factorized")
    with pytest.raises(SpecError, match="takes no parameter"):
        parse_variant("diagonal:2")
    with pytest.raises(SpecError, match="known: full, factorized, block"):
        parse_variant("banded:2")


def test_hidden_size_must_fit_the_blocks() -> None:
    with pytest.raises(ConformanceError, match="hidden size 3 is not a multiple of 2; rotation2d"):
        Weights("rotation2d", np.eye(3)[None], [1, 0, 0], [[1, 0, 0]])
    with pytest.raises(ConformanceError, match="block size 2 does not divide hidden size 3"):
        Weights("block:2", np.eye(3)[None], [1, 0, 0], [[1, 0, 0]])


def test_float_tolerance_is_per_block_not_per_matrix() -> None:
    # a 1e-3 entry between two blocks of scale 1 and 1e-9 is far above the small block's scale
    A = np.diag([1.0, 1e-9])[None].copy()
    A[0, 1, 0] = 1e-3
    with pytest.raises(ConformanceError, match=r"A\[0\]\[1, 0\]"):
        Weights("diagonal", A, [1, 0], [[1, 0]])
    A[0, 1, 0] = 1e-16  # within 1e-6 of both blocks: accepted, and snapped to zero
    w = Weights("diagonal", A, [1, 0], [[1, 0]])
    assert w.A[0, 1, 0] == 0.0 and w.A[0, 1, 1] == 1e-9


def test_accepted_rotation_blocks_are_snapped_exact() -> None:
    A = np.array([[[1.0, -2.0], [2.0 + 1e-9, 1.0 - 1e-9]]])
    w = Weights("rotation2d", A, [1, 0], [[1, 0]])
    assert w.A[0, 0, 0] == w.A[0, 1, 1] and w.A[0, 0, 1] == -w.A[0, 1, 0]


@pytest.mark.parametrize("spec", SPECS)
def test_projected_weights_conform_and_projection_is_idempotent(spec) -> None:
    rng = np.random.default_rng(0)
    A = rng.normal(size=(3, 4, 4))
    v = parse_variant(spec)
    P, factors = project(v, A)
    conformed, _ = conform(v, P, False, factors)
    np.testing.assert_allclose(conformed, P, atol=1e-12)
    again, _ = project(v, P, factors)
    np.testing.assert_allclose(again, P, atol=1e-12)
    dist = relative_distance(A, P)
    assert dist.shape == (3,) and ((dist >= 0) & (dist <= 1 + 1e-12)).all()
    assert (dist == 0).all() == (spec == "full")


def test_projections_are_the_documented_maps() -> None:
    A = np.array([[[1.0, 2.0], [-3.0, 5.0]]])
    assert project(parse_variant("block:1"), A)[0].tolist() == [[[1.0, 0.0], [0.0, 5.0]]]
    assert project(parse_variant("rotation2d"), A)[0].tolist() == [[[3.0, 2.5], [-2.5, 3.0]]]
    positive = project(parse_variant("positive"), -A)[0]
    assert positive[0, 0, 0] == 5e-9 and positive[0, 1, 1] == 5e-9
    low, _ = project(parse_variant("factorized:1"), A)
    assert np.linalg.matrix_rank(low[0]) == 1
    np.testing.assert_allclose(np.linalg.svd(low[0])[1][0], np.linalg.svd(A[0])[1][0])


@pytest.mark.parametrize("spec", ["dihedral:5", "cyclic:6", "parity", "quaternion"])
def test_conforming_weights_project_with_distance_zero(spec) -> None:
    for variant in ("full", "block:2", "rotation2d", "diagonal"):
        try:
            w = build(spec, variant)
        except ConstructionError:
            continue
        p, dist = w.project()
        assert p is w and (dist == 0).all()
        p, dist = w.to_float().project(variant)
        assert (dist == 0).all() and p.variant == w.variant
        if variant in ("rotation2d", "diagonal") and w.dim % 2 == 0:
            p, dist = w.to_float().project("block:2")  # a finer pattern fits a coarser one
            assert (dist == 0).all() and np.array_equal(p.A, w.to_float().A)


@given(st.sampled_from(SPECS), st.integers(0, 2**32 - 1), st.floats(-9, 9))
def test_projection_commutes_with_scaling_a_matrix(spec, seed, exponent) -> None:
    A = np.random.default_rng(seed).normal(size=(2, 4, 4))
    v = parse_variant(spec)
    scaled = A.copy()
    scaled[1] *= 10.0**exponent
    P, _ = project(v, A)
    Q, _ = project(v, scaled)
    np.testing.assert_allclose(Q[0], P[0], rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(Q[1], P[1] * 10.0**exponent, rtol=1e-6, atol=1e-300)


@pytest.mark.parametrize("exact", [True, False])
def test_a_huge_factorized_rank_is_refused_before_allocating_the_factors(exact: bool) -> None:
    """A weights file declaring factorized:99999999999 allocated 2.18 TiB of factors."""
    import time

    from bilinear.constructions import build
    from bilinear.constructions import Weights

    w = build("parity", "diagonal")
    A, h0, readout = (w.A, w.h0, w.readout) if exact else w.float_arrays()
    start = time.process_time()
    with pytest.raises(ConformanceError, match=r"R = 99,999,999,999 exceeds the factor-rank limit 256 = max\(symbols x hidden"):
        Weights("factorized:99999999999", A, h0, readout)
    assert time.process_time() - start < 1.0
    assert Weights("factorized:256", A, h0, readout).variant == "factorized:256"  # at the limit: fine


def test_verify_a_huge_factorized_rank_is_quick() -> None:
    from bilinear.constructions.settle import settle

    cell = settle("dihedral:4", "factorized:100000000")
    assert cell.status == "open" and "exceeds the factor-rank limit" in cell.detail

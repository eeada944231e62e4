"""Conformance and projection at their edges: what the mutation run (benchmarks/mutate_auto.py)
found untested in constructions/variants.py.

Each test states the fact it pins: a zero on a float `positive` diagonal is not strictly
positive; the entry a message names is the bad one, in any block; each path that allocates
factors checks the rank limit first; a projection keeps the largest relative singular values.
"""

from __future__ import annotations

import numpy as np
import pytest

from bilinear.constructions.variants import (
    FLOAT_RTOL,
    KINDS,
    POSITIVE_FLOOR,
    conform,
    derive_factors,
    is_diagonal,
    max_factor_rank,
    parse_variant,
    project,
    relative_distance,
)
from bilinear.errors import ConformanceError, SpecError


def test_usage_strings_are_what_help_shows():
    assert {k: KINDS[k].usage() for k in ("full", "block", "householder", "dplr", "monomial")} == {
        "full": "full", "block": "block:B", "householder": "householder:K[,nonneg]", "dplr": "dplr:R",
        "monomial": "monomial"}


@pytest.mark.parametrize("spec", ["", "   ", None, 3])
def test_empty_or_non_string_variant_is_a_spec_error(spec):
    with pytest.raises(SpecError, match="empty or non-string variant"):
        parse_variant(spec)


def test_an_option_a_kind_lacks_lists_none():
    with pytest.raises(SpecError, match=r"variant 'full' has no option 'nonneg' in 'full,nonneg' \(options: none\)"):
        parse_variant("full,nonneg")


def test_float_positive_refuses_a_zero_on_the_diagonal():
    A = np.array([[[1.0, 0.0], [0.0, 0.5]], [[2.0, 0.0], [0.0, 0.0]]])
    with pytest.raises(ConformanceError, match=r"A\[1\]\[1, 1\] = 0(\.0)? is not strictly positive"):
        conform(parse_variant("positive"), A, exact=False)


def test_rotation_message_names_the_bad_entry_in_a_later_block():
    """d = 4 (two 2x2 blocks), three symbols; only block 1 of A[2] is not a scaled rotation."""
    rot = np.array([[1.0, -2.0], [2.0, 1.0]])
    A = np.zeros((3, 4, 4))
    for s in range(3):
        A[s, :2, :2] = A[s, 2:, 2:] = rot
    A[2, 3, 3] = 5.0
    with pytest.raises(ConformanceError, match=r"A\[2\]\[3, 3\] = 5(\.0)? differs from A\[2\]\[2, 2\] = 1(\.0)?"):
        conform(parse_variant("rotation2d"), A, exact=False)
    A[2, 3, 3], A[2, 2, 3] = 1.0, 7.0
    with pytest.raises(ConformanceError, match=r"A\[2\]\[2, 3\] = 7(\.0)? is not -A\[2\]\[3, 2\] = -2(\.0)?"):
        conform(parse_variant("rotation2d"), A, exact=False)


def test_block_pattern_tolerance_is_the_smaller_block_scale():
    """block:2 in d = 4: an entry between block 0 (scale 1) and block 1 (scale 1e6) is judged
    against block 0's scale, the smaller one: 1e-3 is refused although it is tiny next to 1e6."""
    A = np.zeros((1, 4, 4))
    A[0, :2, :2] = np.eye(2)
    A[0, 2:, 2:] = 1e6 * np.eye(2)
    A[0, 1, 2] = 1e-3
    with pytest.raises(ConformanceError, match=r"A\[0\]\[1, 2\]"):
        conform(parse_variant("block:2"), A, exact=False)
    A[0, 1, 2] = 0.5 * FLOAT_RTOL  # below block 0's tolerance: snapped to zero
    snapped, _ = conform(parse_variant("block:2"), A, exact=False)
    assert snapped[0, 1, 2] == 0.0 and not snapped.flags.writeable


def test_conformed_float_matrices_are_a_frozen_copy():
    A = np.array([[[0.5, 0.0], [0.0, 2.0]]])
    out, _ = conform(parse_variant("diagonal"), A, exact=False)
    assert not out.flags.writeable and A.flags.writeable
    exact = np.array([[[1, 0], [0, 2]]], dtype=object)
    assert conform(parse_variant("diagonal"), exact, exact=True)[0] is exact


def test_is_diagonal_exact_and_float():
    assert is_diagonal(np.array([[[1, 0], [0, 2]]], dtype=object), exact=True)
    assert not is_diagonal(np.array([[[1, 0], [3, 2]]], dtype=object), exact=True)
    assert is_diagonal(np.array([[[1e6, 0.5 * FLOAT_RTOL * 1e6], [0.0, 1.0]]]), exact=False)
    assert not is_diagonal(np.array([[[1.0, 2 * FLOAT_RTOL], [0.0, 1.0]]]), exact=False)


def test_diagonal_matrices_factor_through_the_identity_at_r_equal_d():
    """R = d: U = W = I and C[s] the diagonals (the stacked rank decompositions would need
    ranks 2 + 2 = 4 > R = 2)."""
    A = np.array([[[1, 0], [0, 2]], [[3, 0], [0, 4]]], dtype=object)
    U, C, W = derive_factors(A, 2, True, "factorized:2")
    assert U.tolist() == W.tolist() == [[1, 0], [0, 1]] and C.tolist() == [[1, 2], [3, 4]]


@pytest.mark.parametrize("path", ["conform", "derive", "project"])
def test_every_factor_path_checks_the_rank_limit_first(path):
    R = max_factor_rank(2, 2) + 1
    A = np.stack([np.eye(2), 2 * np.eye(2)])
    with pytest.raises(ConformanceError, match=f"R = {R:,} exceeds the factor-rank limit"):
        if path == "conform":
            conform(parse_variant(f"factorized:{R}"), A, exact=False)
        elif path == "derive":
            derive_factors(A, R, False, f"factorized:{R}")
        else:
            project(parse_variant(f"factorized:{R}"), A)


def test_factorized_projection_keeps_the_largest_relative_singular_values():
    """d = 4, two symbols: A[0] has singular values (4, 2, 1, 0.5) -> relative (1, 0.5, 0.25,
    0.125), A[1] has (1, 0.9, 0.1, 0.05).  R = 2 keeps the two leading ones (rank one each; a
    diagonal with R < d is truncated, not returned whole); R = 3 adds 0.9 of A[1]; with R >= d a
    diagonal is conforming as it is."""
    A = np.stack([np.diag([4.0, 2.0, 1.0, 0.5]), np.diag([1.0, 0.9, 0.1, 0.05])])
    P, _ = project(parse_variant("factorized:2"), A)
    assert np.allclose(P[0], np.diag([4.0, 0, 0, 0])) and np.allclose(P[1], np.diag([1.0, 0, 0, 0]))
    P3, _ = project(parse_variant("factorized:3"), A)
    assert np.allclose(P3[0], np.diag([4.0, 0, 0, 0])) and np.allclose(P3[1], np.diag([1.0, 0.9, 0, 0]))
    P4, _ = project(parse_variant("factorized:4"), A)
    assert np.array_equal(P4, A)


def test_projections_of_rotation_and_positive():
    A = np.array([[[1.0, -1.0, 0.0, 0.0], [3.0, 3.0, 0.0, 0.0], [0.0, 0.0, 5.0, 1.0], [0.0, 0.0, -3.0, 7.0]]])
    P, _ = project(parse_variant("rotation2d"), A)
    assert P[0].tolist() == [[2.0, -2.0, 0.0, 0.0], [2.0, 2.0, 0.0, 0.0], [0.0, 0.0, 6.0, 2.0], [0.0, 0.0, -2.0, 6.0]]
    Q, _ = project(parse_variant("positive"), np.array([[[-2.0, 1.0], [0.0, 3.0]], [[0.0, 0.0], [0.0, 0.0]]]))
    assert Q[0].tolist() == [[3.0 * POSITIVE_FLOOR, 0.0], [0.0, 3.0]]
    assert Q[1].tolist() == [[POSITIVE_FLOOR, 0.0], [0.0, POSITIVE_FLOOR]]  # a zero matrix: scale 1


def test_relative_distance_is_zero_for_a_zero_matrix():
    A = np.stack([np.zeros((2, 2)), np.eye(2)])
    P = np.stack([np.eye(2), 2 * np.eye(2)])
    assert relative_distance(A, P).tolist() == [0.0, 1.0]

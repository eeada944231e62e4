"""``factored.dplr_count``: the least R of ``dplr:R`` with which the candidate diagonals (0, I, the
matrix's own diagonal and, in d = 2, ``[M00 - M01, M11 - M10]``) express every matrix.

Each expected count is worked out by hand in the test's comment: the rank of ``A[s] - diag(c)``
for each candidate ``c``, the lowest per matrix, the largest over the matrices, and never below 1
(``dplr:0`` is not a variant: ``parse_variant`` refuses R < 1).  The mutation run
(benchmarks/mutate_auto.py, target ``factored``) found nothing checking a count of 1 or matrices
that are all diagonal.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from bilinear.constructions.values.factored import dplr_count
from bilinear.constructions.values.variants import parse_variant
from bilinear.errors import SpecError


def exact(rows) -> np.ndarray:
    return np.array(rows, dtype=object)


def test_r_below_one_is_not_a_variant():
    with pytest.raises(SpecError, match="must be >= 1"):
        parse_variant("dplr:0")
    assert parse_variant("dplr:1").param == 1


@pytest.mark.parametrize("is_exact", [True, False])
def test_diagonal_matrices_need_no_low_rank_term_and_count_one(is_exact):
    # I minus the candidate I, diag(2, 3) and diag(-1, 5) minus their own diagonal: rank 0 each,
    # so every U is zero, and the least admissible R is 1, not 0
    A = [[[1, 0], [0, 1]], [[2, 0], [0, 3]], [[-1, 0], [0, 5]]]
    A = exact(A) if is_exact else np.array(A, dtype=np.float64)
    assert dplr_count(A, is_exact) == 1


def test_an_exact_identity_of_size_three_counts_one():
    assert dplr_count(exact([np.eye(3, dtype=int).tolist()]), True) == 1


@pytest.mark.parametrize("is_exact", [True, False])
def test_a_nilpotent_jordan_block_counts_one(is_exact):
    # [[0, 1], [0, 0]]: minus 0 (= its own diagonal) it has rank 1; minus I rank 2 (det 1);
    # minus [0 - 1, 0 - 0] = [-1, 0] it is [[1, 1], [0, 0]], rank 1: the lowest is 1
    A = [[[0, 1], [0, 0]]]
    A = exact(A) if is_exact else np.array(A, dtype=np.float64)
    assert dplr_count(A, is_exact) == 1


def test_the_swap_counts_one():
    # [[0, 1], [1, 0]] minus I is [[-1, 1], [1, -1]] = (-1, 1)(1, -1)^T: rank 1 (minus 0: rank 2)
    assert dplr_count(exact([[[0, 1], [1, 0]]]), True) == 1


@pytest.mark.parametrize("theta", [0.3, 2 * math.pi / 5, 2.0])
def test_a_float_rotation_counts_one_by_the_fourth_candidate(theta):
    # [[c, -s], [s, c]] minus 0, I or diag(c, c) keeps rank 2 (determinants c^2 + s^2,
    # (c - 1)^2 + s^2 and s^2, none 0 for these angles); minus [c + s, c - s] it is
    # [[-s, -s], [s, s]] = (-s, s)(1, 1)^T, rank 1
    c, s = math.cos(theta), math.sin(theta)
    assert dplr_count(np.array([[[c, -s], [s, c]]]), False) == 1


def test_an_exact_rational_rotation_counts_one():
    # the rotation with cos = 3/5, sin = 4/5, exactly: the same four ranks as above, 2, 2, 2, 1
    c, s = Fraction(3, 5), Fraction(4, 5)
    assert dplr_count(exact([[[c, -s], [s, c]]]), True) == 1


@pytest.mark.parametrize("is_exact", [True, False])
def test_the_count_is_the_largest_over_the_matrices(is_exact):
    # B = [[0, 1, 2], [3, 0, 4], [5, 6, 0]]: its diagonal is 0, det B = -1 (0 - 20) + 2 (18 - 0) = 56,
    # det(B - I) = -1 (1 - 24) - 1 (-3 - 20) + 2 (18 + 5) = 92: rank 3 for every candidate.
    # With the identity (rank 0) and the 3-cycle P (P - I has rank 2: eigenvalues 0, w - 1, w^2 - 1):
    # the counts 1, 2, 3 over these matrices, and 3 for all of them together.
    eye = np.eye(3, dtype=int).tolist()
    B = [[0, 1, 2], [3, 0, 4], [5, 6, 0]]
    P = [[0, 1, 0], [0, 0, 1], [1, 0, 0]]
    make = exact if is_exact else (lambda rows: np.array(rows, dtype=np.float64))
    assert dplr_count(make([eye]), is_exact) == 1
    assert dplr_count(make([eye, P]), is_exact) == 2
    assert dplr_count(make([P, eye]), is_exact) == 2
    assert dplr_count(make([eye, B, P]), is_exact) == 3
    assert dplr_count(make([B]), is_exact) == 3


def test_a_diagonal_plus_one_outer_product_counts_one_in_size_four():
    # diag(1, 2, 3, 4) + (1, 0, 2, 0)(0, 1, 0, 1)^T: the outer product has zero diagonal (u_i v_i = 0
    # for every i), so minus its own diagonal the matrix is that outer product, rank 1
    D = np.diag([1, 2, 3, 4]).astype(object)
    M = D + np.outer(np.array([1, 0, 2, 0], dtype=object), np.array([0, 1, 0, 1], dtype=object))
    assert dplr_count(exact([M.tolist()]), True) == 1
    # one more term (0, 1, 0, 0)(1, 0, 0, 0)^T, again of zero diagonal: minus its own diagonal the sum of
    # the two outer products, rank 2 (independent u's and v's); minus 0, rows 0 and 3 ((1, 1, 0, 1) and
    # (0, 0, 0, 4)) are independent; minus I, rows 0, 1, 3 on columns 0, 1, 3 are
    # [[0, 1, 1], [1, 1, 0], [0, 0, 3]], determinant -3: so 2
    M2 = M + np.outer(np.array([0, 1, 0, 0], dtype=object), np.array([1, 0, 0, 0], dtype=object))
    assert dplr_count(exact([M2.tolist()]), True) == 2

"""Conformance and projection at their edges: what the mutation run (benchmarks/mutate_auto.py)
found untested in constructions/values/variants.py.

Each test states the fact it pins: a zero on a float `positive` diagonal is not strictly
positive; the entry a message names is the bad one, in any block; each path that allocates
factors checks the rank limit first; a projection keeps the largest relative singular values.
"""

from __future__ import annotations

import numpy as np
import pytest

from bilinear.constructions.values.variants import (
    FLOAT_RTOL,
    KINDS,
    POSITIVE_FLOOR,
    conform,
    _derive_factors,
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
        "monomial": "monomial[,complex]"}


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
    U, C, W = _derive_factors(A, 2, True, "factorized:2")
    assert U.tolist() == W.tolist() == [[1, 0], [0, 1]] and C.tolist() == [[1, 2], [3, 4]]


@pytest.mark.parametrize("path", ["conform", "derive", "project"])
def test_every_factor_path_checks_the_rank_limit_first(path):
    R = max_factor_rank(2, 2) + 1
    A = np.stack([np.eye(2), 2 * np.eye(2)])
    with pytest.raises(ConformanceError, match=f"R = {R:,} exceeds the factor-rank limit"):
        if path == "conform":
            conform(parse_variant(f"factorized:{R}"), A, exact=False)
        elif path == "derive":
            _derive_factors(A, R, False, f"factorized:{R}")
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


def test_relative_distance_of_small_matrices():
    """A matrix of norm below 1 is measured against its own norm like any other: 0.5 I against
    I is at relative distance 1, and (3, 4) / 10 against 0 too."""
    A = np.stack([0.5 * np.eye(2), np.array([[0.3, 0.4], [0.0, 0.0]])])
    P = np.stack([np.eye(2), np.zeros((2, 2))])
    assert np.allclose(relative_distance(A, P), [1.0, 1.0])


def test_pad_columns_appends_zero_terms_up_to_r():
    """factorized:R weights given with fewer rank-one terms: zero columns are appended to U, C and
    W (the product is unchanged); exactly R terms are kept as they are; more than R is None."""
    pad = KINDS["factorized"].pad
    U = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])  # hidden 3, two terms
    C, W = np.array([[5.0, 6.0]]), np.array([[7.0, 8.0], [9.0, 1.0], [2.0, 3.0]])
    out = pad((U, C, W), 4)
    assert [f.shape for f in out] == [(3, 4), (1, 4), (3, 4)]
    for f, g in zip((U, C, W), out):
        assert np.array_equal(g[:, :2], f) and not g[:, 2:].any()
    assert all(np.array_equal(g, f) for f, g in zip((U, C, W), pad((U, C, W), 2)))
    assert pad((U, C, W), 1) is None


def test_factor_rank_limit_counts_hidden_squared_and_reports_the_entries():
    """``max(symbols x hidden, hidden^2, 256)``: with 2 symbols at hidden 32 the hidden^2 term
    (1024) is the limit; the message counts U, C and W's entries, R (2 hidden + symbols)."""
    assert max_factor_rank(2, 32) == 1024 and max_factor_rank(2, 12) == 256 and max_factor_rank(64, 8) == 512
    R = 1025
    with pytest.raises(ConformanceError, match=f"U, C, W would hold {R * (2 * 32 + 2):,} entries"):
        _derive_factors(np.stack([np.eye(32)] * 2), R, False, f"factorized:{R}")


def test_given_factors_past_the_rank_limit_are_refused():
    """Factors given with the weights are checked against the limit too (not only derived ones):
    257 terms for one 1 x 1 matrix."""
    R = max_factor_rank(1, 1) + 1
    U, C, W = np.zeros((1, R)), np.zeros((1, R)), np.zeros((1, R))
    U[0, 0] = C[0, 0] = W[0, 0] = 1.0
    with pytest.raises(ConformanceError, match=f"R = {R:,} exceeds the factor-rank limit"):
        conform(parse_variant(f"factorized:{R}"), np.ones((1, 1, 1)), exact=False, factors=(U, C, W))


def test_factorized_projection_is_jointly_factorizable():
    """Two full-rank 2 x 2 matrices and R = 2 = d: the per-matrix ranks must add up to at most R
    (the projection keeps two terms in all), so the result differs from A and conforms to
    factorized:2; a diagonal set with R = d is returned as it is, entries below the tolerance
    included; a matrix whose norm is below 1 is ranked by its relative singular values too."""
    A = np.array([[[2.0, 1.0], [0.0, 1.5]], [[0.5, 0.1], [0.0, 0.2]]])
    P, _ = project(parse_variant("factorized:2"), A)
    assert not np.allclose(P, A)
    assert sum(np.linalg.matrix_rank(P[s], tol=1e-9) for s in range(2)) <= 2
    conform(parse_variant("factorized:2"), P, exact=False)  # no error: it conforms
    # each matrix keeps its leading term (relative value 1; A[1], of norm below 1, included)
    for s in range(2):
        u, sv, vt = np.linalg.svd(A[s])
        assert np.allclose(P[s], sv[0] * np.outer(u[:, 0], vt[0]))
    # R = 3: the third term is A[0]'s second (relative 0.53), not A[1]'s (relative 0.34)
    P3, _ = project(parse_variant("factorized:3"), A)
    u, sv, vt = np.linalg.svd(A[1])
    assert np.allclose(P3[0], A[0]) and np.allclose(P3[1], sv[0] * np.outer(u[:, 0], vt[0]))
    # a rank-one matrix (second singular value 0) keeps its one term
    B = np.array([[[2.0, 1.0], [0.0, 1.5]], [[0.5, 0.0], [0.0, 0.0]]])
    Pb, _ = project(parse_variant("factorized:2"), B)
    assert np.allclose(Pb[1], B[1]) and np.linalg.matrix_rank(Pb[0], tol=1e-9) == 1
    D = np.array([[[2.0, 0.5 * FLOAT_RTOL], [0.0, 1.0]], [[3.0, 0.0], [0.0, 0.25]]])
    Pd, _ = project(parse_variant("factorized:2"), D)
    assert np.array_equal(Pd, D)


def test_zero_blocks_and_matrices_conform_in_floats():
    """A zero block or matrix has tolerance 0 and conforms: its entries are exactly zero, not
    above the tolerance.  rotation2d with one zero block beside a block that is snapped;
    factorized with a zero matrix; is_diagonal of a zero matrix."""
    A = np.zeros((1, 4, 4))
    A[0, :2, :2] = [[1.0, -2.0], [2.0, 1.0 + 1e-12]]  # snapped: within block 0's tolerance
    out, _ = conform(parse_variant("rotation2d"), A, exact=False)
    assert out[0, 1, 1] == out[0, 0, 0] and not out[0, 2:, 2:].any()
    Z = np.stack([np.eye(2), np.zeros((2, 2))])
    U, C, W = np.eye(2), np.array([[1.0, 1.0], [0.0, 0.0]]), np.eye(2)
    conform(parse_variant("factorized:2"), Z, exact=False, factors=(U, C, W))
    assert is_diagonal(np.zeros((2, 3, 3)), exact=False) and is_diagonal(Z, exact=False)


# -- deriving reflections: what the trace rules out, before any O(d^3) test -----------------------

@pytest.mark.parametrize("variant, A, message", [
    ("householder:1", [[-2, 0], [0, 1]], r"symmetric with trace\(I - A\) = 3, outside \[0, 2\]"),
    ("householder:1,nonneg", [[0, 1], [1, 0]], r"symmetric with trace\(I - A\) = 2, outside \[0, 1\]"),
    ("householder:1,nonneg", [[-1, 0], [0, 1]], r"symmetric with trace\(I - A\) = 2, outside \[0, 1\]"),
    ("householder:2,nonneg", [[0, -1], [1, 0]], r"neither the identity nor one symmetric .* beta = 2"),
    ("householder:2", [[1, 1], [0, 1]], r"neither orthogonal nor one symmetric generalised reflection"),
])
def test_derived_reflections_are_refused_with_the_reason(variant, A, message):
    from bilinear.constructions import Weights

    with pytest.raises(ConformanceError, match=message):
        Weights(variant, A=[A], h0=[1, 0], readout=[[1, 0], [0, 1]])


def test_derived_reflections_that_conform():
    """A swap is one reflection with beta = 2; a projection one with beta = 1, also ``nonneg``;
    a quarter turn two reflections."""
    from bilinear.constructions import Weights

    h0, R = [1, 0], [[1, 0], [0, 1]]
    assert Weights("householder:1", A=[[[0, 1], [1, 0]]], h0=h0, readout=R).factors[1].tolist() == [[2]]
    assert Weights("householder:1,nonneg", A=[[[0, 0], [0, 1]]], h0=h0, readout=R).factors[1].tolist() == [[1]]
    assert Weights("householder:2", A=[[[0, -1], [1, 0]]], h0=h0, readout=R).factors[1].tolist() == [[2, 2]]


def test_nonneg_never_runs_the_orthogonal_split(monkeypatch):
    """With beta in [0, 1] an orthogonal split (beta = 2) can never conform: ``symmetric:6
    householder,nonneg`` once spent minutes splitting 720 x 720 one-hot permutations exactly."""
    from bilinear.constructions.values import factored
    from bilinear.constructions import Weights

    def boom(*a, **k):
        raise AssertionError("the orthogonality test ran for a nonneg variant")

    monkeypatch.setattr(factored, "_orthogonal", boom)
    with pytest.raises(ConformanceError):
        Weights("householder:3,nonneg", A=[[[0, -1, 0], [1, 0, 0], [0, 0, 1]]], h0=[1, 0, 0],
                readout=[[1, 0, 0], [0, 1, 0]])
    from fractions import Fraction as F

    with pytest.raises(AssertionError, match="orthogonality test ran"):  # the spy does catch it
        Weights("householder:3", A=[[[F(3, 5), F(-4, 5), 0], [F(4, 5), F(3, 5), 0], [0, 0, 1]]], h0=[1, 0, 0],
                readout=[[1, 0, 0], [0, 1, 0]])
    # a signed permutation is orthogonal by its pattern: counted by its cycles, never tested
    w = Weights("householder:3", A=[[[0, -1, 0], [1, 0, 0], [0, 0, 1]]], h0=[1, 0, 0], readout=[[1, 0, 0], [0, 1, 0]])
    assert w.factors[1].tolist() == [[2, 2, 0]]


def test_householder_factor_checks_name_the_bad_item():
    """Given factors of the wrong shape, a count over the limit (with the entries it would hold),
    a zero vector in floats, and float betas: within rtol of [0, top] accepted and clipped,
    beyond it refused."""
    from bilinear.constructions import Weights

    h0, R = [1.0, 0.0], [[1.0, 0.0], [0.0, 1.0]]
    A3 = [np.eye(3).tolist()] * 2
    with pytest.raises(ConformanceError, match=r"K = 200 is over 64 x hidden = 192 \(factors would hold 1,600 entries\)"):
        Weights("householder:200", A=A3, h0=[1, 0, 0], readout=[[1, 0, 0]])
    V = np.array([[[1.0, 0.0]]])
    with pytest.raises(ConformanceError, match=r"factors V \(1, 1, 2\) and beta \(1, 1\), expected \(1, 2, 2\) and \(1, 2\)"):
        Weights("householder:2", A=[np.eye(2).tolist()], h0=h0, readout=R, factors=(V, np.array([[0.0]])))
    with pytest.raises(ConformanceError, match=r"factors V \(1, 2, 2\) and beta \(1, 1\), expected \(1, 2, 2\) and \(1, 2\)"):
        Weights("householder:2", A=[np.eye(2).tolist()], h0=h0, readout=R,
                factors=(np.array([[[1.0, 0.0], [0.0, 1.0]]]), np.array([[0.0]])))  # only beta is wrong
    with pytest.raises(ConformanceError, match=r"V\[0, 0\] is the zero vector"):
        Weights("householder:1", A=[np.eye(2).tolist()], h0=h0, readout=R,
                factors=(np.zeros((1, 1, 2)), np.array([[0.0]])))
    swap = [[1.0, 0.0], [0.0, -1.0]]  # H((0, 1), 2): e_2 flipped
    for b, ok in [(2.0 + 1e-6, True), (-1e-6, True), (2.0 + 1e-5, False), (-1e-5, False)]:
        factors = (np.array([[[0.0, 1.0]]]), np.array([[b]]))
        A = [swap] if b > 1 else [np.eye(2).tolist()]
        if ok:
            w = Weights("householder:1", A=A, h0=h0, readout=R, factors=factors)
            assert float(w.factors[1][0, 0]) in (0.0, 2.0)  # clipped into [0, 2]
        else:
            with pytest.raises(ConformanceError, match=r"beta\[0, 0\] = .* is outside \[0, 2\]"):
                Weights("householder:1", A=A, h0=h0, readout=R, factors=factors)


def test_derived_reflections_in_floats_and_a_trace_inside_the_range():
    """Floats derive the same factors (a swap: beta = 2 exactly at the range's end; a projection:
    one factor with beta = 1 under nonneg); a symmetric matrix with trace(I - A) = 0, inside the
    range but of rank 2, gets the general reason, not a false 'outside'."""
    from bilinear.constructions import Weights

    h0, R = [1.0, 0.0], [[1.0, 0.0], [0.0, 1.0]]
    w = Weights("householder:1", A=[[[0.0, 1.0], [1.0, 0.0]]], h0=h0, readout=R)
    assert w.factors[1].tolist() == [[2.0]]
    p = Weights("householder:1,nonneg", A=[[[0.0, 0.0], [0.0, 1.0]]], h0=h0, readout=R)
    assert p.factors[1].tolist() == [[1.0]]
    with pytest.raises(ConformanceError, match="neither orthogonal nor one symmetric generalised reflection"):
        Weights("householder:2", A=[[[0, 0], [0, 2]]], h0=[1, 0], readout=[[1, 0], [0, 1]])


def test_projection_clips_a_derived_beta_instead_of_refusing():
    """``project_householder`` (the nearest conforming point of float weights) derives a
    symmetric single reflection whatever its trace and clips the beta: trace(I - A) = 2.5 becomes
    the reflection with beta = 2 (the conformance check itself refuses such a matrix)."""
    from bilinear.constructions.values.factored import project_householder
    from bilinear.constructions import parse_variant

    A = np.array([[[1.0, 0.0], [0.0, -1.5]]])  # I - 2.5 e_2 e_2^T
    comp, (V, beta) = project_householder(parse_variant("householder:1"), A, None)
    assert beta.tolist() == [[2.0]] and np.allclose(comp[0], [[1.0, 0.0], [0.0, -1.0]])
    comp, (V, beta) = project_householder(parse_variant("householder:1,nonneg"), A, None)
    assert beta.tolist() == [[1.0]] and np.allclose(comp[0], [[1.0, 0.0], [0.0, 0.0]])

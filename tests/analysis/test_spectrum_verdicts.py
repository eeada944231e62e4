"""The spectra's verdicts (analysis/spectrum.py) against values worked out here: the nearest root
of unity by a search over every root, orders up to scale and readings by hand, and the visited
span's verdicts from the closed form of a rotation's distance to the identity.  Written for the
mutants of ``benchmarks/mutate_auto.py -k spectrum`` that the other tests left alive
(benchmarks/MUTATION.md, stop 70)."""

from __future__ import annotations

import cmath
import dataclasses
import math

import numpy as np
import pytest

from bilinear.analysis.spectrum import (EXACT_MAX_DIM, MAX_ORDER, matrix_spectrum, nearest_root, power_structure,
                                        spectrum)
from bilinear.automata import from_spec
from bilinear.constructions.values.weights import Weights

IDEMPOTENT = "is idempotent up to scale (a projection of rank 1)"
CYCLE = [[0, 0, 1], [1, 0, 0], [0, 1, 0]]  # a 3-cycle: P^3 = I, and no lower power is a multiple of I


def _rotation(t: float) -> np.ndarray:
    return np.array([[math.cos(t), -math.sin(t)], [math.sin(t), math.cos(t)]])


def _nearest_by_search(z: complex, max_order: int) -> tuple[int, int]:
    """(order, j) of the nearest root exp(2 pi i j / order), gcd(j, order) = 1, order <= max_order,
    looked up among all of them; ties (within 1e-12) to the lower order."""
    roots = [(abs(z - cmath.exp(2j * math.pi * j / q)), q, j)
             for q in range(1, max_order + 1) for j in range(q) if math.gcd(j, q) == 1]
    least = min(d for d, _, _ in roots)
    return min((q, j) for d, q, j in roots if d <= least + 1e-12)


def _distance_to_identity(t: float) -> float:
    """Scale-free distance of a rotation by t from I (analysis/matrices.py, scale_free_distance): the
    Frobenius cosine of R(t) and I is cos t; 1 when it is <= 0, else sqrt(1 - cos^2) = |sin t|."""
    return abs(math.sin(t)) if math.cos(t) > 0 else 1.0


def _float_weights(*matrices, h0) -> Weights:
    d = len(h0)
    return Weights("full", [np.asarray(m, dtype=float) for m in matrices], [float(x) for x in h0],
                   [[1.0] + [0.0] * (d - 1)])


def test_nearest_roots_with_one_order_and_at_a_tie_between_two_orders():
    only = nearest_root(-1 + 0j, 1)  # max_order 1: the root 1 alone, at distance 2 from -1
    assert (only.order, only.j, only.distance) == (1, 0, 2.0)
    # 7/12 of a turn is as far from -1 (1/2) as from the cube root 2/3: the lower order wins
    z = cmath.exp(2j * math.pi * 7 / 12)
    assert _nearest_by_search(z, 3) == (2, 1)
    tie = nearest_root(z, 3)
    assert (tie.order, tie.j) == (2, 1) and tie.distance == pytest.approx(2 * math.sin(math.pi / 12), rel=1e-12)
    for u, n in [(z, 4), (cmath.exp(0.55j), 12), (0.5 * cmath.exp(2.0j), 7), (0.9 * cmath.exp(-2.5j), 12)]:
        r = nearest_root(u, n)
        assert (r.order, r.j) == _nearest_by_search(u, n)


def test_the_largest_max_order_is_accepted():
    ms = matrix_spectrum(np.eye(2), max_order=MAX_ORDER)  # MAX_ORDER itself is in 1..MAX_ORDER
    assert ms.reading == "acts as the identity (up to a positive scale)" and [r.order for r in ms.roots] == [1, 1]


@pytest.mark.parametrize("exact", [True, False])
def test_an_order_equal_to_max_order_is_found_one_past_it_is_not(exact):
    kind = object if exact else float
    assert power_structure(np.array(CYCLE, dtype=kind), 3, 1e-9, exact=exact) == (0, 3)
    assert power_structure(np.array(CYCLE, dtype=kind), 2, 1e-9, exact=exact) is None
    # N^2 = 0 with N != 0: no N^p = cI, no N^2 = cN; first N^3 = c N^2 (both 0): index 2, period 1
    assert power_structure(np.array([[0, 1], [0, 0]], dtype=kind), 12, 1e-9, exact=exact) == (2, 1)


def test_a_distance_equal_to_the_tolerance_is_within_it():
    # [-3]: -3 is no positive multiple of 1, (-3)^2 = 9 is; in float the distance is exactly 0
    assert power_structure(np.array([[-3.0]]), 12, 0.0) == (0, 2)


def test_a_matrix_of_tiny_scale_has_the_verdict_of_the_unscaled_one():
    # verdicts up to scale: 1e-100 R(2 pi / 5) has order 5 (its powers underflow unless rescaled)
    ms = matrix_spectrum(1e-100 * _rotation(2 * math.pi / 5))
    assert ms.order == 5 and ms.reading == "acts as a rotation of order 5 on a 2-dimensional subspace"
    # 1e-100 diag(1, 0): A^2 underflows to 0 beside A, and the relation still holds exactly
    assert matrix_spectrum(1e-100 * np.diag([1.0, 0.0])).reading == IDEMPOTENT
    # diag(2, 0)^2 = 2 diag(2, 0) exactly: no "only up to a distance" note
    assert matrix_spectrum(np.diag([2.0, 0.0])).reading == IDEMPOTENT


@pytest.mark.parametrize("a, note", [(1e-13, True), (1.43e-14, True), (1e-15, False)])
def test_a_float_relation_off_by_more_than_64_ulps_is_said_to_hold_only_within_the_tolerance(a, note):
    # diag(1, a)^2 = diag(1, a^2): the best c is 1 and the distance a (to the last bit: a^2 is below
    # a's ulp); a < the rank tolerance 2000 eps, so rank 1; 64 eps = 1.42e-14 < 1.43e-14
    reading = matrix_spectrum(np.diag([1.0, a])).reading
    tail = f" (float: A^2 is c·A^1 only up to a scale-free distance of {a:.2g}, within the tolerance 1e-06)"
    assert reading == IDEMPOTENT + (tail if note else "")


def test_a_float_order_within_the_tolerance_reads_as_the_order():
    # R(2 pi / 5 + 1e-8)^5 = R(5e-8): within 1e-6 of I; an order (index 0) gets no float note
    ms = matrix_spectrum(_rotation(2 * math.pi / 5 + 1e-8))
    assert ms.order == 5 and ms.reading == "acts as a rotation of order 5 on a 2-dimensional subspace"


def test_eigenvalues_are_divided_by_a_spectral_radius_below_one():
    ms = matrix_spectrum(np.diag([0.5, 0.25]))  # no power is a multiple of another: 2^-n vs 2^-i
    assert ms.scale == 0.5 and ms.normalised == (1.0, 0.5)
    assert ms.reading == ("has no finite order up to scale (powers up to 12 checked, tolerance 1e-06); normalised "
                          "eigenvalue moduli 0.5..1; its unit-modulus eigenvalues lie near roots of unity of order 1 "
                          "(distance up to 0)")


def test_rank_ignores_a_rounding_singular_value_and_a_zero_matrix_has_no_roots():
    M = np.array([[0.1, 0.2], [0.3, 0.6]])  # det 0.06 - 0.06 = 0 and M^2 = tr(M) M = 0.7 M
    assert np.linalg.svd(M, compute_uv=False)[1] > 0  # in float its second singular value is not 0
    ms = matrix_spectrum(M)
    assert ms.rank == 1 and ms.reading == IDEMPOTENT
    zero = matrix_spectrum(np.zeros((2, 2)))  # no eigenvalue can be normalised: no nearest roots
    assert zero.scale == 0.0 and zero.roots == () and zero.rank == 0


def test_exact_matrices_up_to_exact_max_dim_are_decided_exactly():
    for d, exact in [(EXACT_MAX_DIM, True), (EXACT_MAX_DIM + 1, False)]:
        M = np.diag([-1] + [1] * (d - 1)).astype(object)
        ms = matrix_spectrum(M)
        assert ms.exact is exact and (ms.index, ms.period) == (0, 2)
        assert ms.reading == f"acts as a reflection (fixing a {d - 1}-dimensional subspace)"


def test_a_reflection_whose_visited_span_it_fixes():
    # diag(1, -1) from e1: the visited span is e1, where it is the identity (order 1, residual 0)
    m = spectrum(_float_weights(np.diag([1.0, -1.0]), h0=[1, 0]), word_length=1).symbols[0]
    assert (m.order, m.visited_dim, m.visited_order, m.visited_residual) == (2, 1, 1, 0.0)
    assert m.headline == ("on the 1-dimensional visited span acts as the identity (order 1, residual 0); on the full "
                          "2-dimensional space it acts as a reflection")


def test_a_rotation_beside_a_contraction_has_order_5_on_its_visited_span_only():
    B = np.zeros((3, 3))
    B[:2, :2], B[2, 2] = _rotation(2 * math.pi / 5), 0.5  # B^k = diag(R^k, 2^-k): never c B^i on the whole space
    m = spectrum(_float_weights(B, h0=[1, 0, 0]), word_length=1).symbols[0]
    assert m.order is None and m.visited_order == 5 and m.holds_on_span
    assert m.headline.startswith("on the 2-dimensional visited span acts as a rotation of order 5 on a 2-dimensional "
                                 "subspace (order 5, residual ")
    assert m.headline.endswith("); on the full 3-dimensional space it has no finite order up to scale (eigenvalue "
                               "moduli 0.5..1)")


def test_a_projection_on_the_visited_span_is_no_order_there():
    # A_0 sends e1 and e2 to e1 and halves e3; A_1 swaps e1 and e2: from e1 the states span e1, e2,
    # where A_0 is [[1, 1], [0, 0]] (idempotent, rank 1): its powers stay at distance
    # sqrt(1 - (1/2)^2) = 0.87 from I, above 0.05
    A0 = [[1, 1, 0], [0, 0, 0], [0, 0, 0.5]]
    A1 = [[0, 1, 0], [1, 0, 0], [0, 0, 1]]
    m = spectrum(_float_weights(A0, A1, h0=[1, 0, 0]), word_length=1).symbols[0]
    assert m.order is None and m.visited_dim == 2 and (m.visited.index, m.visited.period) == (1, 1)
    assert m.visited_residual == pytest.approx(math.sqrt(0.75), rel=1e-12)
    assert m.headline == (m.reading + "; on the 2-dimensional visited span it is idempotent up to scale (a projection "
                          "of rank 1) (within 0.05), not of finite order")


def test_the_nearest_order_on_the_visited_span_is_the_first_within_twice_the_least_distance():
    t = 0.55  # R(0.55): |sin(11 t)| = 0.23 is the least; |sin t| = 0.52 is within three times it, not twice
    dists = [_distance_to_identity(k * t) for k in range(1, 13)]
    k = next(k for k, x in enumerate(dists, 1) if x <= 2 * min(dists))
    assert k == 11 and dists[0] <= 3 * min(dists)
    m = spectrum(_float_weights(_rotation(t), h0=[1, 0]), word_length=1).symbols[0]
    assert m.visited_order == 11 and m.visited_residual == pytest.approx(dists[10], rel=1e-9)
    assert m.headline.endswith("; on the 2-dimensional visited span it is closest to order 11 (residual 0.23, above 0.05)")


def test_a_nearest_order_is_found_when_its_residual_is_below_1e_12():
    # R(2 pi / 5 + 1e-13)^5 = R(5e-13): 5e-13 from I, above span_tol 1e-13, so no order on the span
    m = spectrum(_float_weights(_rotation(2 * math.pi / 5 + 1e-13), h0=[1, 0]), word_length=1, span_tol=1e-13).symbols[0]
    assert m.visited.order is None and m.visited_order == 5 and not m.holds_on_span
    assert m.visited_residual == pytest.approx(5e-13, rel=1e-2)


def test_a_residual_equal_to_span_tol_holds():
    m = spectrum(_float_weights(_rotation(1.0), h0=[1, 0]), word_length=1).symbols[0]
    assert dataclasses.replace(m, visited_residual=0.05, span_tol=0.05).holds_on_span
    assert not dataclasses.replace(m, visited_residual=0.0500001, span_tol=0.05).holds_on_span


def test_at_most_max_words_words_in_shortlex_order():
    w = Weights("diagonal", [[[(-1) ** a]] for a in range(9)], [1], [[1]])  # 9 symbols: 81 words of length 2
    assert [m.word for m in spectrum(w).words] == [(a, b) for a in range(9) for b in range(9)][:64]
    assert spectrum(w, max_words=0).words == ()


def test_the_automaton_only_names_the_symbols():
    w = Weights("diagonal", [[[1]], [[-1]]], [1], [[1]])  # one readout row; dihedral:4 has 8 classes
    sp = spectrum(w, from_spec("dihedral:4"), word_length=1)
    assert [m.name for m in sp.symbols] == ["A_r", "A_s"]


def test_blocks_only_for_several_blocks_of_more_than_one_entry():
    for w in [Weights("diagonal", [[[1, 0], [0, -1]]], [1, 1], [[1, 0]]),  # blocks of 1: a diagonal
              Weights("rotation2d", [[[0, -1], [1, 0]]], [1, 0], [[1, 0]]),  # one block: the matrix itself
              Weights("block:2", [[[0, 1], [1, 0]]], [1, 0], [[1, 0]])]:
        assert spectrum(w, word_length=1).blocks == ()


@pytest.mark.parametrize("scale", [1e-320, 1e-310, 1e-300, 1e300, 8e307])
def test_a_quarter_turn_of_any_scale_reads_as_order_four(scale):
    # verdicts up to scale: a quarter turn times a subnormal or huge number is still of order 4 (its
    # eigenvalues +-i times the scale); before, a subnormal scale raised numpy's ValueError and 1e-300
    # read as "a projection of rank 2" (its powers' squares underflowed to 0)
    ms = matrix_spectrum(scale * _rotation(math.pi / 2).round())
    assert ms.order == 4 and ms.reading == "acts as a rotation of order 4 on a 2-dimensional subspace"
    assert ms.rank == 2 and ms.scale == pytest.approx(scale, rel=1e-12)
    assert sorted((r.order, r.j) for r in ms.roots) == [(4, 1), (4, 3)]


def test_the_reading_names_the_orders_among_the_period_s_roots():
    # R(pi + 4e-4) beside a fixed axis, max_order 10,000 and tol 1e-3: A^2 = R(8e-4) + 1 is within
    # 1e-3 of I (order 2), while the eigenvalue at 1/2 + 4e-4 / (2 pi) = 1/2 + 6.3662e-5 of a turn is
    # nearer the root 3927/7853 = 1/2 + 1/15706 = 1/2 + 6.3670e-5 (5e-8 rad away) than -1 (4e-4 rad):
    # the reading said "a rotation of order 7853"; an involution it is
    t = math.pi + 4e-4
    A = np.eye(3)
    A[:2, :2] = _rotation(t)
    ms = matrix_spectrum(A, max_order=10_000, tol=1e-3)
    assert ms.order == 2 and ms.reading == "acts as an involution negating a 2-dimensional subspace"
    assert sorted(r.order for r in ms.roots) == [1, 7853, 7853]  # the nearest roots themselves are unchanged
    # the same at the defaults: the period's roots are the nearest ones (order 6 beside an order-4 pair)
    B = np.zeros((4, 4))
    B[:2, :2], B[2:, 2:] = _rotation(math.pi / 3), _rotation(math.pi / 2)
    assert matrix_spectrum(B).reading == ("has order 12 up to scale: a rotation of order 4 on a 2-dimensional "
                                          "subspace; a rotation of order 6 on a 2-dimensional subspace")


def test_a_float_note_on_the_visited_span_names_the_tolerance_once():
    # as above with A_0 = [[1, 1], [0, 0.01]] on the span e1, e2: A_0^2 = [[1, 1.01], [0, 1e-4]] is c A_0
    # only up to the Frobenius sine of the two, 0.0086 (computed here), within 0.05: the note says so,
    # and the headline no longer adds "(within 0.05)" after it
    A0 = [[1, 1, 0], [0, 0.01, 0], [0, 0, 0.5]]
    A1 = [[0, 1, 0], [1, 0, 0], [0, 0, 1]]
    m = spectrum(_float_weights(A0, A1, h0=[1, 0, 0]), word_length=1).symbols[0]
    B = np.array([[1.0, 1.0], [0.0, 0.01]])
    X = B @ B
    cos = float((X * B).sum() / np.linalg.norm(X) / np.linalg.norm(B))
    assert m.headline == (m.reading + "; on the 2-dimensional visited span it is idempotent up to scale (a projection "
                          f"of rank 2) (float: A^2 is c·A^1 only up to a scale-free distance of "
                          f"{math.sqrt(1 - cos * cos):.2g}, within the tolerance 0.05), not of finite order")

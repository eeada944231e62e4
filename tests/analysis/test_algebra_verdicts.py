"""The report's verdicts on a network's algebra (analysis/commutators.py, analysis/relations.py),
each against a value computed here from the matrices by the definition, or a case worked by
hand.  Written for the mutants of ``benchmarks/mutate_auto.py -k commutators,relations`` that the
report tests left alive."""

from __future__ import annotations

import cmath
import dataclasses
import math

import numpy as np
import pytest

from bilinear.analysis.commutators import commutators
from bilinear.analysis.relations import (label_agreement, reachable_basis, relation_kind, relation_residuals,
                                         state_residual)
from bilinear.analysis.spectrum import MAX_ORDER, matrix_spectrum, nearest_root
from bilinear.automata import from_spec
from bilinear.constructions.handmade.registry import build
from bilinear.constructions.values.span import visited_span
from bilinear.constructions.values.weights import Weights
from bilinear.errors import AnalysisError

SWAP = np.array([[0.0, 1.0], [1.0, 0.0]])
STRETCH = np.diag([1.0, 2.0])


def _norm(A, B) -> float:
    """The scale-free commutator norm by its definition (docs/analysis.md)."""
    return float(np.linalg.norm(A @ B - B @ A) / (np.linalg.norm(A) * np.linalg.norm(B)))


def test_every_pair_s_norm_and_the_worst_pair():
    # the last pair alone does not commute: the identity commutes with both
    c = commutators(Weights("full", [np.eye(2), STRETCH, SWAP], [1.0, 0.0], [[1.0, 0.0]]), word_length=1)
    expected = _norm(STRETCH, SWAP)
    assert expected > 0.1 and c.norms[1][2] == c.norms[2][1] == pytest.approx(expected, rel=1e-12)
    assert c.norms[0][1] == c.norms[0][2] == 0.0 and c.verdict == "do not commute" and c.worst_pair == (1, 2)
    two = commutators(Weights("full", [STRETCH, SWAP], [1.0, 0.0], [[1.0, 0.0]]), word_length=1)
    assert two.norms[0][1] == pytest.approx(expected, rel=1e-12) and two.verdict == "do not commute"
    both = commutators(Weights("full", [np.eye(2), STRETCH], [1.0, 0.0], [[1.0, 0.0]]), word_length=1)
    assert both.worst_pair == (0, 1) and both.verdict == "commute"  # all zero: still a pair of two symbols
    one = commutators(Weights("full", [SWAP], [1.0, 0.0], [[1.0, 0.0]]), word_length=1)
    assert one.worst_pair is None and one.to_json()["worst_pair"] is None


def test_a_norm_at_the_tolerance_commutes():
    w = Weights("full", [STRETCH, SWAP], [1.0, 0.0], [[1.0, 0.0]])
    at = commutators(w, word_length=1).norms[0][1]
    assert commutators(w, word_length=1, tol=at).verdict == "commute"  # norm <= tol
    assert commutators(w, word_length=1, tol=at * (1 - 1e-9)).verdict == "do not commute"
    vmax = commutators(w, word_length=1).visited_max_norm
    assert vmax > 0 and commutators(w, word_length=1, span_tol=vmax).visited_verdict == "commute"


def test_the_words_are_every_pair_of_distinct_words_in_shortlex_order():
    w = Weights("full", [STRETCH, SWAP], [1.0, 0.0], [[1.0, 0.0]])
    words = [(0, 0), (0, 1), (1, 0), (1, 1)]
    mats = {u: (SWAP if u[1] else STRETCH) @ (SWAP if u[0] else STRETCH) for u in words}  # A(u) = A[u_2] A[u_1]
    c = commutators(w, word_length=2)
    assert [(x.u, x.v) for x in c.words] == [(u, v) for i, u in enumerate(words) for v in words[i + 1:]]
    for x in c.words:
        assert x.norm == pytest.approx(_norm(mats[x.u], mats[x.v]), rel=1e-12, abs=1e-15) and x.exactly_zero is None
    assert commutators(w, word_length=1).words == ()
    exact = commutators(build("dihedral:3", "full"), word_length=2)
    assert any(x.exactly_zero for x in exact.words) and not all(x.exactly_zero for x in exact.words)
    assert all((x.norm == 0.0) == x.exactly_zero for x in exact.words)


def test_the_relations_are_refused_or_cut_by_name():
    c5, w = from_spec("cyclic:5"), build("cyclic:5", "rotation2d").to_float()
    with pytest.raises(AnalysisError, match="cannot list the relations of cyclic:5: .* more than 2 elements"):
        relation_residuals(w, c5, monoid_limit=2)
    with pytest.raises(AnalysisError, match=r"symbol index 5, outside 0\.\.4"):
        relation_residuals(w, c5, pairs=[((5,), ())])
    total = relation_residuals(w, c5).total
    none = relation_residuals(w, c5, max_relations=0)
    assert none.relations == () and none.total == total > 0
    assert none.reading == f"none of the {total} defining relations checked (at most 0 asked)"  # not "has none"
    first = relation_residuals(w, c5, max_relations=1)
    assert first.reading.startswith(f"all 1 defining relations (the first 1 of {total}) hold")


def test_relations_of_zero_maps_in_exact_arithmetic():
    w = Weights("full", [[[0, 0], [0, 0]], [[1, 0], [0, 1]]], [1, 0], [[1, 0], [0, 1]])
    zero, not_zero = relation_residuals(w, None, pairs=[((0,), (0, 0)), ((1,), (0,))]).relations
    assert zero.exactly is True and not_zero.exactly is False  # 0 = 0 exactly; I is no multiple of 0
    assert zero.to_json()["kind"] is None and zero.kind == ""  # "0 = 00" is no idempotent or reset relation
    exact = relation_residuals(build("cyclic:5", "rotation2d"), from_spec("cyclic:5")).relations[0]
    assert exact.exactly is True and exact.residual_states == 0.0  # the exact value on the visited states, not None


def test_relation_kinds_and_the_reachable_basis():
    assert relation_kind((1,), (1,)) == "" and relation_kind((0, 1), (1,)) == "reset"
    assert relation_kind((1, 1), (1,)) == "idempotent"
    shift = np.array([[[0.0, 0, 0], [1, 0, 0], [0, 1, 0]]])  # e1 -> e2 -> e3: the newest vector leads on
    assert reachable_basis(shift, np.array([1.0, 0, 0])).shape == (3, 3)
    assert reachable_basis(np.eye(3)[None], np.zeros(3)).shape == (3, 0)


def test_state_residuals_count_tiny_images_as_zero_relative_to_the_largest():
    states = np.eye(2)
    # e2's images: 1e-15 (below 1e-12 of the largest image, 1) and 0: both zero, distance 0
    assert state_residual(np.diag([1.0, 1e-15]), np.diag([1.0, 0.0]), states) == 0.0
    assert state_residual(np.diag([1.0, 0.0]), np.diag([1.0, 1e-15]), states) == 0.0
    assert state_residual(np.diag([1.0, 1e-6]), np.diag([1.0, 0.0]), states) == 2.0  # one zero, one not
    assert state_residual(np.eye(2), np.eye(2), np.zeros((0, 2))) == 0.0
    assert state_residual(np.eye(2), np.eye(2), None) == 0.0
    A = np.stack([np.eye(2), SWAP])
    assert label_agreement(SWAP, SWAP, np.array([[1.0, 0.0], [0.6, 0.8]]), A, np.eye(2)) == 1.0
    assert label_agreement(SWAP, np.eye(2), np.array([[1.0, 0.0]]), A, np.eye(2)) == 0.0  # e2 against e1


def test_the_defaults_and_what_a_verdict_does_not_need():
    w = Weights("full", [np.eye(2), SWAP], [1.0, 0.0], [[1.0, 0.0]])  # one readout row: parity has two classes
    parity = from_spec("parity")
    assert len(commutators(w).words) == 6  # the 4 words of length 2 (the default), every pair once
    assert commutators(w, max_words=0).words == ()
    assert commutators(w, parity).verdict == "commute"  # the classes are not the commutators' business
    assert relation_residuals(w, parity).reading.startswith("all 3 defining relations hold")  # nor the relations'
    one = commutators(Weights("full", [SWAP], [1.0, 0.0], [[1.0, 0.0]]))
    assert one.visited_norms is None and one.visited_verdict is None  # one symbol: no pair on any span


def test_a_failing_relation_is_named_with_its_residuals():
    # cyclic:3 with a quarter turn for 1 and a half turn for 2: 1·2 = ε fails (a three-quarter turn)
    w = Weights("full", [[[1, 0], [0, 1]], [[0, -1], [1, 0]], [[-1, 0], [0, -1]]], [1, 0], [[1, 0], [0, 1]])
    report = relation_residuals(w, from_spec("cyclic:3"))
    bad = next(r for r in report.relations if r.text == "1·2 = ε")
    assert bad.exactly is False and not bad.holds and bad.residual_states == pytest.approx(2 ** 0.5)
    assert "3 do not, worst 1·2 = ε (residual 1 on the span" in report.reading
    no_states = dataclasses.replace(visited_span(w), states=None)  # a span given without its sample of states
    report = relation_residuals(w, from_spec("cyclic:3"), span=no_states)
    assert next(r for r in report.relations if r.text == "1·2 = ε").residual_states is None
    assert report.max_residual == pytest.approx(1.0) and "worst 1·2 = ε (residual 1 on the span" in report.reading


def test_nearest_roots_are_reduced_and_the_spectrum_refuses_what_it_cannot_read():
    third = nearest_root(cmath.exp(2j * math.pi * 2 / 6), 12)  # 2/6 of a turn is the primitive cube root 1/3
    assert (third.order, third.j) == (3, 1) and abs(third.root - cmath.exp(2j * math.pi / 3)) < 1e-15
    off = nearest_root(cmath.exp(1j * (2 * math.pi * 5 / 12 + 0.01)), 12)  # 0.01 rad past 5/12 of a turn
    assert (off.order, off.j) == (12, 5) and off.distance == pytest.approx(2 * math.sin(0.005), rel=1e-9)
    assert nearest_root(cmath.exp(1j * (2 * math.pi * 5 / 12 + 0.01)), 11).order != 12  # past max_order: not read
    with pytest.raises(AnalysisError, match=f"max_order {MAX_ORDER + 1:,} exceeds the limit {MAX_ORDER:,}"):
        matrix_spectrum(np.eye(2), max_order=MAX_ORDER + 1)
    with pytest.raises(AnalysisError, match=r"A: expected a square matrix, got shape \(2, 3\)"):
        matrix_spectrum(np.zeros((2, 3)))
    with pytest.raises(AnalysisError, match="A: matrix has non-finite entries"):
        matrix_spectrum(np.array([[np.nan, 0.0], [0.0, 1.0]]))


_C, _S = math.cos(1.0), math.sin(1.0)


@pytest.mark.parametrize("rows, reading", [
    ([[-1, 0, 0], [0, 1, 0], [0, 0, 1]], "acts as a reflection (fixing a 2-dimensional subspace)"),
    ([[0, 1], [1, 0]], "acts as a reflection"),
    ([[-1, 0], [0, -1]], "acts as -I (negates every hidden state)"),
    ([[-1, 0, 0], [0, -1, 0], [0, 0, 1]], "acts as an involution negating a 2-dimensional subspace"),
    ([[0, 0, 1], [1, 0, 0], [0, 1, 0]],  # a 3-cycle: eigenvalues 1, w, w^2
     "acts as a rotation of order 3 on a 2-dimensional subspace, fixing a 1-dimensional subspace"),
    ([[0, 0, 1, 0], [1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 0, -1]],  # and a sign: order lcm(3, 2)
     "has order 6 up to scale: a rotation of order 3 on a 2-dimensional subspace; negation of a 1-dimensional "
     "subspace, fixing a 1-dimensional subspace"),
    ([[1, 0], [0, 0]], "is idempotent up to scale (a projection of rank 1)"),
    ([[1, 0, 0], [0, 0, 1], [0, 0, 0]], "is eventually idempotent up to scale (A^3 = c·A^2), rank 2"),  # A^2 = e1 e1^T
    ([[0, 1, 1], [1, 0, 0], [0, 0, 0]], "has index 1 and period 2 up to scale (A^3 = c·A^1), rank 2"),  # A^3 = A
])
def test_the_reading_of_each_kind_of_exact_matrix(rows, reading):
    assert matrix_spectrum(np.array(rows, dtype=object)).reading == reading


def test_a_float_turn_of_one_radian_has_no_order_and_its_nearest_root_is_read():
    far = 2 * np.sin((np.pi / 3 - 1.0) / 2)  # |e^i - e^(i pi/3)|: the nearest root is a 6th
    reading = matrix_spectrum(np.array([[_C, -_S, 0], [_S, _C, 0], [0, 0, 0.5]])).reading
    assert reading == ("has no finite order up to scale (powers up to 12 checked, tolerance 1e-06); normalised "
                       f"eigenvalue moduli 0.5..1; its unit-modulus eigenvalues lie near roots of unity of order 6 "
                       f"(distance up to {far:.2g})")

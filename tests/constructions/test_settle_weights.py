"""``settle`` with weights given (constructions/settle.py): a stack must have the depth and the
layer variants asked, a stack of one layer is that layer's cell, the depth bound goes with
commuting variants only, and a counterexample names the class, the tie or the layer."""

from __future__ import annotations

import pytest

from bilinear.automata import from_spec
from bilinear.constructions import build, cascade
from bilinear.constructions.settle import settle
from bilinear.constructions.values.stack import Stack
from bilinear.constructions.values.weights import Weights
from bilinear.errors import WeightsError

PARITY = Weights("diagonal", A=[[[1]], [[-1]]], h0=[1], readout=[[1], [-1]])
COPY = Weights("rotation2d", A=[[[1, 0], [0, 1]]] * 2 + [[[-1, 0], [0, -1]]] * 2, h0=[1, 0], readout=[[1, 0], [-1, 0]])


def test_a_mixed_stack_must_have_the_variants_asked():
    mixed = Stack((PARITY, COPY))
    assert settle("parity", "diagonal+rotation2d", weights=mixed).status == "proved"
    with pytest.raises(WeightsError, match="have the layer variants 'diagonal\\+rotation2d', not 'rotation2d\\+diagonal'"):
        settle("parity", "rotation2d+diagonal", weights=mixed, source="m.json")


def test_a_stack_must_have_the_depth_asked():
    stack = cascade(from_spec("dihedral:3"), "rotation2d")
    assert stack.depth == 2
    cell = settle("dihedral:3", "rotation2d", weights=stack, layers=2)
    assert (cell.status, cell.layers, cell.dims) == ("proved", 2, stack.dims)
    with pytest.raises(WeightsError, match="have 2 layers, not 3"):
        settle("dihedral:3", "rotation2d", weights=stack, layers=3)
    with pytest.raises(WeightsError, match="have a layer of variant 'rotation2d', not 'diagonal'"):
        settle("dihedral:3", "diagonal", weights=stack)


def test_a_stack_of_one_layer_is_that_layers_cell():
    w = build("cyclic:5", "rotation2d")
    one, alone = settle("cyclic:5", "rotation2d", weights=Stack((w,))), settle("cyclic:5", "rotation2d", weights=w)
    assert (one.status, one.layers, one.dim, one.dims) == (alone.status, alone.layers, alone.dim, alone.dims) == (
        "proved", 1, 2, (2,))
    asked = settle("cyclic:5", "rotation2d", layers=1)  # one layer asked: the one-layer cell, not a stack
    assert (asked.status, asked.layers, asked.dims) == ("proved", 1, (asked.dim,))


def test_the_depth_bound_goes_with_commuting_variants_only():
    assert settle("dihedral:3", "rotation2d").depth.min_layers == 2
    assert settle("dihedral:3", "rotation2d", depth=False).depth is None
    assert settle("dihedral:3", "full").depth is None  # full matrices do not commute
    impossible = settle("dihedral:3", "diagonal")  # commuting: the bound is computed, and finds no diagonal cascade
    assert impossible.status == "impossible" and impossible.dims is None
    assert impossible.depth.derived_length == 2 and impossible.depth.min_layers is None


def test_a_cell_not_proved_claims_no_one_layer_depth():
    """The depth bound reads an abelian group's depth 1 off the cell's own proof only when the
    cell is proved: cyclic:3 is impossible for a diagonal layer (a character of order 3), and
    its depth bound finds no diagonal cascade, not "one layer, proved"."""
    cell = settle("cyclic:3", "diagonal")
    assert cell.status == "impossible" and cell.depth.min_layers is None
    assert "no cascade of 'diagonal' layers" in cell.depth.reason
    proved = settle("cyclic:3", "rotation2d")
    assert proved.status == "proved" and proved.depth.reason == "the group is abelian: one layer, proved"


def test_a_proved_cell_of_an_abelian_group_proves_no_cascade_again(monkeypatch):
    """Issue 48: the depth bound of a proved one-layer cell of an abelian group is read off that
    proof; no cascade is built or proved again."""
    from bilinear.constructions.proof import stackprover

    calls = []
    monkeypatch.setattr(stackprover, "prove_stack", lambda *a, **k: calls.append(a) or pytest.fail("proved again"))
    cell = settle("cyclic:12", "rotation2d")
    assert cell.status == "proved" and cell.depth.min_layers == 1 and calls == []


def test_the_proofs_counterexamples_name_the_class_the_tie_and_the_layer():
    """Float weights (no exact pass first): a wrong class is named, a tie is "a tie"; a stack
    whose last layer is wrong names no layer, one whose first layer ties says so."""
    import numpy as np

    from bilinear.automata import Automaton

    wrong = Weights("diagonal", A=np.array([[[1.0]], [[1.0]]]), h0=np.array([1.0]), readout=np.array([[1.0], [-1.0]]))
    cell = settle("parity", "diagonal", weights=wrong)
    assert (cell.status, cell.expected, cell.got, cell.shortest) == ("counterexample", "odd", "even", True)
    assert cell.detail == "word 1: automaton says odd, weights even" and cell.exact is False
    assert cell.proof["status"] == "counterexample" and "layer" not in cell.proof  # one layer: no layer named
    tie = Weights("diagonal", A=np.array([[[1.0]], [[-1.0]]]), h0=np.array([1.0]), readout=np.array([[1.0], [1.0]]))
    cell = settle("parity", "diagonal", weights=tie)
    assert (cell.got, cell.detail) == (None, "word ε: automaton says even, weights a tie")
    good = cascade(from_spec("dihedral:3"), "rotation2d")
    last = good.layers[-1]
    swapped = Weights(last.variant, last.A, last.h0, np.asarray(last.readout)[[1, 0, *range(2, last.n_classes)]])
    cell = settle("dihedral:3", "rotation2d", weights=Stack((good.layers[0], swapped)))
    assert (cell.status, cell.failed_layer) == ("counterexample", 2)
    assert cell.detail == "word ε: automaton says e, weights r" and "layer" not in cell.detail
    turn = [[0, -1], [1, 0]]  # layer 1's readout ties on (1, 0) and (-1, 0)
    layer1 = Weights("rotation2d", A=[turn], h0=[1, 0], readout=[[0, 1], [0, -1]])
    layer2 = Weights("rotation2d", A=[turn, turn], h0=[1, 0], readout=[[1, 0], [0, 1], [-1, 0], [0, -1]])
    cycle = Automaton([[1, 2, 3, 0]], labels=[0, 1, 2, 3], symbols=("a",))
    cell = settle(cycle, "rotation2d", weights=Stack((layer1, layer2)))
    assert cell.failed_layer == 1 and cell.detail.endswith(" (layer 1's class is tied)")
    assert cell.proof["layer"] == 1 and cell.proof["got"] is None


def test_a_counterexample_of_the_exact_directed_pass_is_exact_and_not_the_shortest():
    """Exact Z_6 rotation2d weights turning by pi/3 - 5.25e-4 (tan(theta/2) = 577/1000): the
    directed words in exact arithmetic find 5^200 before any proof."""
    from fractions import Fraction

    from exact_rotations import off_rotation

    cell = settle("cyclic:6", "rotation2d", weights=off_rotation(6, Fraction(577, 1000)), time_budget=30)
    assert (cell.status, cell.exact, cell.shortest, cell.word, cell.dim) == ("counterexample", True, False, "5^200", 2)
    assert cell.detail.endswith("(a directed word of length 500, run in exact arithmetic before the proof; "
                                "a shorter counterexample may exist)")


def test_a_one_layer_stack_is_proved_as_its_layer_and_named_as_given():
    """A one-layer stack is unwrapped: its proof is the layer's (pairs, not direction tuples, and
    the exact directed pass first); weights given without a source are "weights"."""
    w = build("cyclic:5", "rotation2d")
    one, alone = settle("cyclic:5", "rotation2d", weights=Stack((w,))), settle("cyclic:5", "rotation2d", weights=w)
    assert one.detail == alone.detail == "exact proof over 5 reachable pairs"
    stack = cascade(from_spec("dihedral:3"), "rotation2d")
    assert settle("dihedral:3", "rotation2d", weights=stack).source == "weights"
    assert settle("dihedral:3", "rotation2d", weights=stack, source="s.json").source == "s.json"
    assert one.source == "weights"


def test_an_oversized_cell_is_bounded_as_its_own_variant(monkeypatch):
    """The capability matrix's cell past the size limits carries its variant's lower bound:
    symmetric:3 under householder:3,nonneg has d >= 3 (Theorem 14), not full's 2."""
    from bilinear.constructions.values import weights as wmod
    from bilinear.constructions.values.memo import clear_caches

    monkeypatch.setattr(wmod, "MAX_WEIGHT_ENTRIES", 10)
    clear_caches()  # constructions built earlier in the process were built under the real limit
    cell = settle("symmetric:3", "householder:3,nonneg", oversize_open=True)
    assert cell.status == "open" and cell.detail.startswith("no construction within the size limits")
    assert (cell.lower_bound, cell.bound_theorem) == (3, "Theorem 14")

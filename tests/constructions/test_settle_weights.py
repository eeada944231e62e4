"""``settle`` with weights given (constructions/settle.py): a stack must have the depth and the
layer variants asked, a stack of one layer is that layer's cell, and the depth bound goes with
commuting variants only."""

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

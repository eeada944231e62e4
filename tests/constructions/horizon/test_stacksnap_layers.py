"""snap_stack snaps a layer whose entries are not within the tolerance against the layer's own
automaton (issue 45, item 3): the automaton read off the float layer, checked against the exact
layer's automaton; the snapped stack proved against the task."""

import numpy as np

from bilinear.automata.families import from_spec
from bilinear.constructions.handmade.cascade import cascade
from bilinear.constructions.horizon.horizon_stack import float_layer_automaton, layer_automaton
from bilinear.constructions.horizon.snap import drift_layers
from bilinear.constructions.horizon.stacksnap import STACK_SNAP_TOL, snap_stack
from bilinear.constructions.proof.stackprover import prove_stack
from bilinear.constructions.values.floatrun import run_float


def test_the_float_layer_automaton_is_the_exact_layers():
    """Read off the float layers of a drifted cascade, breadth-first, it is the exact layer's
    automaton state for state (both number states in the same breadth-first order)."""
    exact = cascade(from_spec("dihedral:3"), "rotation2d")
    for e, f in zip(exact.layers, drift_layers(exact, 1e-2).layers):
        want, _ = layer_automaton(e)
        got, why = float_layer_automaton(f)
        assert got is not None, why
        assert got.delta.tolist() == want.delta.tolist() and got.labels.tolist() == want.labels.tolist()


def test_a_layer_too_far_for_the_entry_snap_is_snapped_against_its_automaton():
    d3 = from_spec("dihedral:3")
    moved = drift_layers(cascade(d3, "rotation2d"), 1e-2)
    A = moved.layers[1].float_arrays()[0]
    assert np.abs(A - np.round(A * 2) / 2).max() > STACK_SNAP_TOL  # no conductor of 1e-4 snaps this
    snap = snap_stack(moved)
    assert snap is not None and snap.conductors == (None, None)
    assert all(d["rule"] != "entries" for d in snap.describe())
    assert prove_stack(snap.stack, d3).status == "proved"
    # the snapped stack labels as the task on words the float stack runs right (an independent run)
    rng = np.random.default_rng(1)
    words = rng.integers(0, 2, size=(32, 40))
    labels = np.array([d3.labels[d3.trace(w.tolist())[1:]] for w in words])
    for stack in (moved, snap.stack.to_float()):
        pred = run_float(stack, words).labels
        assert (pred == labels).all()


def test_three_layers_drifted_by_1e_3_are_snapped_and_proved():
    s4 = from_spec("symmetric:4")
    snap = snap_stack(drift_layers(cascade(s4, "rotation2d"), 1e-3))
    assert snap is not None and snap.conductors == (None, None, None)
    assert prove_stack(snap.stack, s4).status == "proved"


def test_a_layer_with_no_automaton_gives_no_snap_and_says_why():
    why: list = []
    assert snap_stack(drift_layers(cascade(from_spec("dihedral:3"), "rotation2d"), 0.1), failures=why) is None
    assert why and why[0].startswith("layer 1: no conductor") and "automaton" in why[0]

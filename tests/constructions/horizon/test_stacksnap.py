"""snap_stack's entry snap, its scaled retry, what it reports per layer, and why a layer has no
snap: each against a value computed here (the exact cosines, the float stack's own distances)."""

import warnings

import numpy as np
import pytest

from bilinear.automata.families import from_spec
from bilinear.constructions.exact.field import cos2pi
from bilinear.constructions.handmade.cascade import cascade
from bilinear.constructions.horizon import stacksnap
from bilinear.constructions.horizon.snap import drift_layers
from bilinear.constructions.horizon.stacksnap import STACK_SNAP_TOL, StackSnap, _snap_entries, snap_stack
from bilinear.constructions.values.stack import Stack
from bilinear.constructions.values.weights import Weights
from bilinear.errors import WeightsError


def _d3():
    return cascade(from_spec("dihedral:3"), "rotation2d")


def _rotation(n: int) -> np.ndarray:
    """One symbol's float matrix: the rotation by 2 pi / n."""
    t = 2 * np.pi / n
    return np.array([[[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]]])


@pytest.mark.parametrize("n, m", [(4, 1), (12, 3), (20, 5), (8, 8)])
def test_entries_snap_to_the_first_conductor_whose_cosines_hold_them(n, m):
    """A rotation by 2 pi / n has entries cos(2 pi / n) and +-sin(2 pi / n) = +-cos(2 pi (n/4 -+ 1) / n):
    the first conductor of the list whose n' = lcm(m, 4) (m itself when 4 divides it) has n among
    its divisors is m, and every entry is the exact cos2pi(j, n')."""
    A = _rotation(n)
    found = _snap_entries(A, STACK_SNAP_TOL)
    assert found is not None and found[0] == m
    _, exact, distance = found
    size = m if m % 4 == 0 else m * 4 // np.gcd(m, 4)
    assert size % n == 0
    k = size // n
    want = [[cos2pi(k, size), cos2pi(size // 4 + k, size)], [cos2pi(size // 4 - k, size), cos2pi(k, size)]]
    assert exact[0].tolist() == want
    assert distance < 1e-15  # from float cosines: the exact ones are within a rounding


def test_an_entry_exactly_the_tolerance_away_snaps():
    """``distance <= tol``: an entry 1 - 2^-14 with the tolerance 2^-14 (both exact, and every
    conductor's nearest value to it is 1) snaps at conductor 1; half that tolerance, at none."""
    tol = 2.0**-14
    A = np.array([[[1.0 - tol, 0.0], [0.0, -1.0]]])
    found = _snap_entries(A, tol)
    assert found is not None and found[0] == 1 and found[2] == tol
    assert found[1][0].tolist() == [[1, 0], [0, -1]]
    assert _snap_entries(A, tol / 2) is None


def test_each_layer_reports_its_conductor_scale_and_distance():
    """Drifted by 1e-6, each layer snaps as its entries stand (not normalised) to the exact layer,
    its distance the largest entry distance of the float layer from the exact one, measured here."""
    exact = _d3()
    drifted = drift_layers(exact, 1e-6)
    snap = snap_stack(drifted)
    assert snap is not None
    assert snap.conductors == (1, 3) and snap.normalised == (False, False) and snap.rules == ("", "")
    for got, e, f, d in zip(snap.stack.layers, exact.layers, drifted.layers, snap.distances):
        assert got.A.tolist() == e.A.tolist()
        want = np.abs(f.float_arrays()[0] - e.to_float().float_arrays()[0]).max()
        assert d == pytest.approx(want, rel=1e-9) and 0 < d < 1e-5
    assert snap.describe() == [
        {"layer": 1, "conductor": 1, "normalised": False, "max_distance": snap.distances[0], "rule": "entries"},
        {"layer": 2, "conductor": 3, "normalised": False, "max_distance": snap.distances[1], "rule": "entries"}]


def test_describe_without_rules_reads_every_layer_as_entries():
    snap = StackSnap(_d3(), (1, 3), (False, True), (0.0, 0.5))
    assert [(r["layer"], r["rule"], r["normalised"]) for r in snap.describe()] == [(1, "entries", False), (2, "entries", True)]


def test_scaled_matrices_snap_after_dividing_by_their_spectral_norms():
    """Every matrix times 0.9: no entry is within the tolerance of a cosine as it stands, but each
    divided by its spectral norm (0.9) is the exact layer's: normalised, same conductors."""
    exact = _d3()
    scaled = Stack(tuple(Weights(w.variant, 0.9 * w.float_arrays()[0], *w.float_arrays()[1:])
                         for w in exact.to_float().layers))
    assert _snap_entries(scaled.layers[0].float_arrays()[0], STACK_SNAP_TOL) is None
    snap = snap_stack(scaled)
    assert snap is not None and snap.conductors == (1, 3) and snap.normalised == (True, True)
    assert [w.A.tolist() for w in snap.stack.layers] == [e.A.tolist() for e in exact.layers]
    assert max(snap.distances) < 1e-15


def test_a_layer_snapped_against_its_automaton_is_not_normalised():
    """Drifted by 1e-2, each layer is snapped as one network (a rule, no conductor): not
    normalised, its distance the snap's relative distance (about the drift)."""
    snap = snap_stack(drift_layers(_d3(), 1e-2))
    assert snap is not None and snap.conductors == (None, None) and snap.normalised == (False, False)
    assert all(rule == "blocks on the span visited at length" for rule in snap.rules)
    assert len(snap.distances) == 2 and all(1e-3 < d < 3e-2 for d in snap.distances)


def test_a_zero_matrix_skips_the_scaled_retry_without_a_warning():
    """A symbol whose matrix is 0 has no spectral norm to divide by: the scaled retry is skipped
    (no 0 / 0, no RuntimeWarning), and the layer goes to its automaton's snap."""
    layer = drift_layers(_d3(), 1e-2).layers[0]
    A, h0, R = layer.float_arrays()
    A = A.copy()
    A[0] = 0.0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        why: list = []
        snap = snap_stack(Stack((Weights(layer.variant, A, h0, R),)), failures=why)
    assert (snap is None) == bool(why)
    if snap is not None:
        assert snap.conductors == (None,) and snap.normalised == (False,)


def test_no_snap_names_the_candidate_tried_and_why():
    why: list = []
    assert snap_stack(drift_layers(_d3(), 0.1), failures=why) is None
    assert why[0].endswith("(blocks on the span visited at length: not proved against the layer's automaton)")


class _Candidate:
    """A real snap candidate with its rule renamed and its ``original`` replaced."""

    def __init__(self, snap, rule, original=None, weights=None):
        self.block_weights = snap.block_weights if weights is None else weights
        self.rule, self.distance = rule, snap.distance
        self._original = original or snap.original

    def original(self):
        return self._original()


def _fail(msg):
    def original():
        raise WeightsError(msg)
    return original


def _with_candidates(monkeypatch, make):
    """snap_stack's candidates for a layer replaced by ``make(real candidates)`` (a list, or a
    generator that may raise)."""
    real = stacksnap.snap_candidates

    def candidates(layer, automaton, tried):
        return make(list(real(layer, automaton, tried)))

    monkeypatch.setattr(stacksnap, "snap_candidates", candidates)


def test_failed_candidates_are_named_two_at_most(monkeypatch):
    """Three candidates fail in three ways (no exact form, another variant, not proved): the
    failure names the first two, in order, and not the third."""
    layer = drift_layers(_d3(), 1e-2)
    wrong = None

    def make(real):
        nonlocal wrong
        c = real[0]
        w = c.block_weights
        wrong = Weights(w.variant, w.A, w.h0, [[-x for x in row] for row in w.readout])  # every class's score negated
        other = c.original()
        full = Weights("full", other.A, other.h0, other.readout)
        return [_Candidate(c, "r1", _fail("no small form")), _Candidate(c, "r2", lambda: full),
                _Candidate(c, "r3", weights=wrong)]

    _with_candidates(monkeypatch, make)
    why: list = []
    assert snap_stack(layer, failures=why) is None
    assert why[0].endswith("(r1: no small form; r2: the snap is full, not rotation2d)")


def test_a_candidate_without_an_exact_form_is_skipped_for_the_next(monkeypatch):
    layer = drift_layers(_d3(), 1e-2)
    _with_candidates(monkeypatch, lambda real: [_Candidate(real[0], "r1", _fail("no small form")), real[0]])
    snap = snap_stack(layer)
    assert snap is not None and snap.rules == ("blocks on the span visited at length",) * 2


def test_candidates_that_raise_are_named(monkeypatch):
    """The candidates' generator raising WeightsError ends the search, named as the block snap."""
    layer = drift_layers(_d3(), 1e-2)

    def make(real):
        raise WeightsError("the basis is singular")
        yield  # a generator: raises when the search asks for the first candidate

    _with_candidates(monkeypatch, make)
    why: list = []
    assert snap_stack(layer, failures=why) is None
    assert why[0].endswith("(the block snap: the basis is singular)")


def test_a_rotation_snaps_exactly_when_its_order_divides_a_conductors_size():
    """The cosines tried are those of n' = lcm(m, 4) for the conductors m of the list, no more: a
    rotation by 2 pi / n (n up to 100) snaps exactly when n divides one of those n' (computed here
    with math.lcm), e.g. not n = 80, whose cosines no conductor's lcm holds."""
    import math

    sizes = {math.lcm(m, 4) for m in stacksnap.STACK_SNAP_CONDUCTORS}
    for n in range(1, 101):
        assert (_snap_entries(_rotation(n), STACK_SNAP_TOL) is not None) == any(s % n == 0 for s in sizes), n

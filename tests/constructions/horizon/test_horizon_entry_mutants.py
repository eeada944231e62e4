"""The dispatcher of the certified horizon (constructions/horizon/horizon.py; docs/theory.md Section 7):
which theorem it tries on which snap, and which length it keeps.  The mutants of
``benchmarks/mutate_auto.py -k horizon_entry`` that the other tests leave alive.

Each theorem's own bound is tested in its own file; here every theorem is replaced by a stand-in
returning a horizon chosen in the test, so that each rule of the dispatcher is checked alone, and
the expected choice follows from the rule as documented: a bound is tried only where its condition
holds, and a later bound replaces the one found only when it is *strictly* longer."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from bilinear.constructions import Weights
from bilinear.constructions.horizon import horizon
from bilinear.constructions.horizon.horizon import (NODE_BELOW, cannot_represent, certified_horizon,
                                                    horizon_ceiling, node_horizon_widest, perturbation_horizon,
                                                    with_node_horizon)
from bilinear.constructions.horizon.horizon_base import Horizon
from bilinear.constructions.horizon.horizon_projective import MAX_STEPS as PROJECTIVE_STEPS

#: one coordinate, two symbols (+1 and -1), two classes: float weights every arithmetic holds
SIGN = Weights("diagonal", A=[[[1.0]], [[-1.0]]], h0=[1.0], readout=[[1.0], [-1.0]])
#: the same in three coordinates (no invariant cones: those are for hidden size 2)
SIGN3 = Weights("diagonal", A=[[[1.0, 0, 0], [0, 1.0, 0], [0, 0, 1.0]], [[-1.0, 0, 0], [0, -1.0, 0], [0, 0, -1.0]]],
                h0=[1.0, 0.0, 0.0], readout=[[1.0, 0.0, 0.0], [-1.0, 0.0, 0.0]])
#: the same in two coordinates
SIGN2 = Weights("diagonal", A=[[[1.0, 0], [0, 1.0]], [[-1.0, 0], [0, -1.0]]], h0=[1.0, 0.0],
                readout=[[1.0, 0.0], [-1.0, 0.0]])


def up(n: int, bound: str, arithmetic: str = "float64", **constants) -> Horizon:
    return Horizon.up_to(n, arithmetic, bound, f"{bound} up to {n}", **constants)


def _snap(basis=None, kept_coords=(0,), isometric=True, blocks=((0,),), kept=(0,)):
    return SimpleNamespace(basis=basis, kept_coords=kept_coords, isometric=isometric, blocks=blocks, kept=kept)


# ------------------------------------------------------------------------------------------
# perturbation_horizon: Theorem 16, its orthonormal form, Theorem 24, the block-wise bound
# ------------------------------------------------------------------------------------------
@pytest.fixture
def bounds(monkeypatch):
    """Stand-ins for the four bounds, returning what ``given`` holds (``ortho`` for Theorem 16
    with ``orthonormal=True``), and the names of those called in ``called``."""
    given: dict = {"global": up(10, "global", rho=1), "ortho": None, "phase": None, "block": None, "called": []}

    def global_(weights, snap, proof, automaton, ro, orthonormal=False):
        given["called"].append("ortho" if orthonormal else "global")
        return given["ortho" if orthonormal else "global"]

    def other(name):
        def run(*args):
            given["called"].append(name)
            return given[name]
        return run

    monkeypatch.setattr(horizon, "global_horizon", global_)
    monkeypatch.setattr(horizon, "phase_horizon", other("phase"))
    monkeypatch.setattr(horizon, "blockwise_horizon", other("block"))
    return given


def _perturbation(snap=None, weights=SIGN3):
    return perturbation_horizon(weights, snap or _snap(), None, None, "float64")


def test_a_phase_bound_replaces_theorem_16_only_when_longer(bounds):
    bounds["phase"] = up(10, "phase")
    assert _perturbation().bound == "global"  # a tie keeps Theorem 16's
    bounds["phase"] = up(11, "phase")
    assert _perturbation().bound == "phase"
    bounds["phase"] = up(9, "phase")
    assert _perturbation().bound == "global"


def test_every_length_from_theorem_16_ends_the_search(bounds):
    bounds["global"] = Horizon.every_length("float64", "global", "every")
    bounds["block"] = Horizon.every_length("float64", "block", "every")
    assert _perturbation().bound == "global" and bounds["called"] == ["global"]


def test_no_phase_bound_keeps_theorem_16(bounds):
    assert _perturbation().bound == "global" and "phase" in bounds["called"]


# (snap, rho of Theorem 16's constants or None for none, whether the orthonormal form is tried)
DROPPED = [
    (_snap(basis="B", kept_coords=(0,)), 1, True),  # rho = 1 exactly: not below 1, tried
    (_snap(basis="B", kept_coords=(0,)), 2, True),
    (_snap(basis="B", kept_coords=(0,)), 0.5, False),  # the dropped part contracts
    (_snap(basis="B", kept_coords=(0,)), None, False),  # no rho: taken as 0
    (_snap(basis=None, kept_coords=(0,)), 1, False),  # no basis of its own
    (_snap(basis="B", kept_coords=(0, 1, 2)), 1, False),  # nothing dropped (dim 3)
]


@pytest.mark.parametrize("snap, rho, tried", DROPPED)
def test_the_orthonormal_form_is_tried_only_on_a_basis_with_a_dropped_part_that_does_not_contract(
        bounds, snap, rho, tried):
    bounds["global"] = up(10, "global") if rho is None else up(10, "global", rho=rho)
    bounds["ortho"] = up(20, "ortho")
    h = _perturbation(snap)
    assert ("ortho" in bounds["called"]) == tried
    assert h.bound == ("ortho" if tried else "global")


def test_the_orthonormal_form_replaces_theorem_16_only_when_longer(bounds):
    bounds["ortho"] = up(10, "ortho")
    assert _perturbation(_snap(basis="B")).bound == "global"
    bounds["ortho"] = up(3, "ortho")
    assert _perturbation(_snap(basis="B")).bound == "global"


def test_the_block_wise_bound_replaces_only_when_longer_and_not_after_a_failing_word(bounds):
    assert _perturbation().bound == "global"  # no block-wise bound (not block-diagonal)
    bounds["block"] = up(10, "block")
    assert _perturbation().bound == "global"
    bounds["block"] = up(11, "block")
    assert _perturbation().bound == "block"
    bounds["global"] = Horizon.up_to(4, "float64", "global", "a word of length 5 fails")
    bounds["called"].clear()
    assert _perturbation().bound == "global" and "block" not in bounds["called"]


def test_an_arithmetic_that_cannot_hold_the_network_gets_no_length(bounds):
    tiny = Weights("diagonal", [[[1.0]]], [2.0**-1070], [[1.0]])
    h = perturbation_horizon(tiny, _snap(), None, None, "float32")
    assert cannot_represent(h) and bounds["called"] == []


# ------------------------------------------------------------------------------------------
# certified_horizon: the order in which the theorems are tried
# ------------------------------------------------------------------------------------------
@pytest.fixture
def dispatch(monkeypatch):
    given: dict = {"axes": None, "tube": None, "ray": up(1, "ray"), "orbit": up(10, "orbit"),
                   "projective": up(5, "projective"), "perturbation": up(10, "perturbation"),
                   "node": up(7, "node", "float32"), "called": []}

    def stand_in(name):
        def run(*args, **kwargs):
            given["called"].append(name)
            return given[name]
        return run

    monkeypatch.setattr(horizon, "axis_horizon", stand_in("axes"))
    monkeypatch.setattr(horizon, "invariant_tube", stand_in("tube"))
    monkeypatch.setattr(horizon, "ray_horizon", stand_in("ray"))
    monkeypatch.setattr(horizon, "orbit_horizon", stand_in("orbit"))
    monkeypatch.setattr(horizon, "projective_horizon", stand_in("projective"))
    monkeypatch.setattr(horizon, "perturbation_horizon", stand_in("perturbation"))
    monkeypatch.setattr(horizon, "node_horizon_widest", stand_in("node"))
    return given


def test_the_node_horizon_is_tried_by_default(dispatch):
    dispatch["node"] = up(500, "node", "float32")
    h = certified_horizon(SIGN3, _snap(), None, None)
    assert (h.bound, h.count, h.arithmetic) == ("node", 500, "float64")
    assert certified_horizon(SIGN3, _snap(), None, None, nodes=False).bound == "perturbation"


# (snap, whether the invariant tube is tried): not on an isometric snap keeping a 2x2 plane
TUBE = [
    (_snap(isometric=True, blocks=((0, 1), (2,)), kept=(0,)), False),
    (_snap(isometric=True, blocks=((0, 1), (2,)), kept=(1,)), True),  # the plane dropped
    (_snap(isometric=True, blocks=((0,), (1,), (2,)), kept=(0, 1, 2)), True),
    (_snap(isometric=False, blocks=((0, 1), (2,)), kept=(0, 1)), True),
    (_snap(isometric=True, blocks=((0, 1, 2),), kept=(0,)), True),  # a 3x3 block is no plane
]


@pytest.mark.parametrize("snap, tried", TUBE)
def test_the_invariant_tube_is_not_tried_on_a_kept_rotation_plane(dispatch, snap, tried):
    dispatch["tube"] = 0.25
    h = certified_horizon(SIGN3, snap, None, None, nodes=False)
    assert ("tube" in dispatch["called"]) == tried and h.every == tried


def test_the_axis_orbit_comes_first(dispatch):
    dispatch["axes"] = Horizon.every_length("float64", "axes", "axes")
    assert certified_horizon(SIGN3, _snap(), None, None).bound == "axes" and dispatch["called"] == ["axes"]


@pytest.mark.parametrize("weights, tried", [(SIGN2, True), (SIGN3, False), (SIGN, False)])
def test_invariant_cones_are_tried_only_in_hidden_size_2(dispatch, weights, tried):
    dispatch["ray"] = Horizon.every_length("float64", "ray", "cones")
    h = certified_horizon(weights, _snap(kept=(0,), blocks=((0,),)), None, None, nodes=False)
    assert ("ray" in dispatch["called"]) == tried and h.every == tried


@pytest.mark.parametrize("orbit, projective, bound", [
    (PROJECTIVE_STEPS, PROJECTIVE_STEPS + 5, "orbit"),  # Theorem 19 certifies the limit: not tried
    (PROJECTIVE_STEPS - 1, PROJECTIVE_STEPS + 5, "projective"),
    (5, 5, "orbit"),  # a tie keeps Theorem 19's
    (5, 6, "projective"),
    (5, 4, "orbit"),
])
def test_the_projective_form_is_tried_below_its_limit_and_kept_when_longer(dispatch, orbit, projective, bound):
    dispatch["orbit"], dispatch["projective"] = up(orbit, "orbit"), up(projective, "projective")
    h = certified_horizon(SIGN3, _snap(isometric=False), None, None, nodes=False)
    assert h.bound == bound and ("projective" in dispatch["called"]) == (orbit < PROJECTIVE_STEPS)


# ------------------------------------------------------------------------------------------
# with_node_horizon, cannot_represent, node_horizon_widest, horizon_ceiling
# ------------------------------------------------------------------------------------------
def test_cannot_represent_is_only_the_none_of_an_unrepresentable_network():
    assert cannot_represent(Horizon.none("float32", "float32 cannot represent this network: h0[0]"))
    assert not cannot_represent(Horizon.none("float32", "not an isometry"))
    assert not cannot_represent(Horizon.up_to(3, "float32", "g", "float32 cannot represent this network"))


def test_the_node_horizon_is_kept_only_below_its_limit_and_when_strictly_longer(monkeypatch):
    node = up(2000, "node", "float32")
    monkeypatch.setattr(horizon, "node_horizon_widest", lambda *a: up(9999, "widest", "float32"))
    at = up(NODE_BELOW, "global")
    assert with_node_horizon(at, SIGN, None, None, None, node) is at  # at the limit: not tried
    below = up(NODE_BELOW - 1, "global")
    got = with_node_horizon(below, SIGN, None, None, None, node)
    assert (got.bound, got.count, got.arithmetic) == ("node", 2000, "float64")
    assert got.note.endswith("float32's rounding charged, which covers float64")
    assert with_node_horizon(below, SIGN, None, None, None, up(NODE_BELOW - 1, "node", "float32")) is below
    none = Horizon.none("float32", "float32 cannot represent this network: h0[0]")
    assert with_node_horizon(none, SIGN, None, None, None, node) is none
    # no node horizon given: the widest one is computed
    assert with_node_horizon(below, SIGN, None, None, None).count == 9999


def test_the_node_horizon_s_work_limit(monkeypatch):
    """Two symbols: suffix length 9 at 729 keys (2^9 = 512 <= 729 < 1024), so 3 states x 2^10 nodes
    = 3072 per step, and 4_000_000 // 3072 = 1302 steps; float32's rounding charged, 1024 steps at most."""
    calls = []
    monkeypatch.setattr(horizon, "node_horizon", lambda *a, **k: calls.append((a[4].arithmetic, k)) or up(1, "node"))
    three = SimpleNamespace(n_states=3)
    h = node_horizon_widest(SIGN, None, None, three, beat=1302)
    assert h.kind == "none" and "allows 1302 steps" in h.note and calls == []
    node_horizon_widest(SIGN, None, None, three, beat=1301)
    assert calls == [("float32", {"max_steps": 1024, "max_keys": 729})]
    tiny = Weights("diagonal", [[[1.0]], [[-1.0]]], [2.0**-1070], [[1.0], [-1.0]])
    node_horizon_widest(tiny, None, None, three)
    assert calls[-1][0] == "float64"  # float32 cannot hold the start state


@pytest.mark.parametrize("snap, ceiling", [
    (_snap(basis="B", isometric=True, blocks=((0, 1),), kept=(0,)), 77.0),
    (_snap(basis=None, isometric=True, blocks=((0, 1),), kept=(0,)), float("inf")),
    (_snap(basis="B", isometric=False, blocks=((0, 1),), kept=(0,)), float("inf")),
    (_snap(basis="B", isometric=True, blocks=((0,), (1,)), kept=(0, 1)), float("inf")),
    (_snap(basis="B", isometric=True, blocks=((0, 1, 2),), kept=(0,)), float("inf")),
])
def test_the_ceiling_is_theorem_16_s_only_on_a_kept_plane_in_a_basis_of_its_own(monkeypatch, snap, ceiling):
    monkeypatch.setattr("bilinear.constructions.horizon.horizon_global.global_ceiling", lambda w, s: 77.0)
    assert horizon_ceiling(SIGN3, snap) == ceiling

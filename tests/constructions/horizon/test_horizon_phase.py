"""Theorem 24 (docs/theory.md Section 7), the phase horizon, against the evaluator written for the
tests (``plain_eval``: a float64 loop, and its search for a first failure: every word to a depth,
periodic words, a beam on the margin): nothing fails up to the certified length, and the failure
the search finds is at most a few steps beyond it."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from plain_eval import first_failure, float64_margins, float64_stack_margins

from bilinear.analysis.certify import certify_stack
from bilinear.automata import from_spec
from bilinear.constructions import Weights, build, cascade, drift_layers
from bilinear.constructions.horizon.horizon import perturbation_horizon
from bilinear.constructions.horizon.horizon_phase import phase_horizon
from bilinear.constructions.horizon.horizon_stack import layer_automaton
from bilinear.constructions.horizon.roundoff import RoundOff
from bilinear.constructions.horizon.snap import snap_candidates
from bilinear.constructions.proof.prover import prove


def _rotation(t: float, r: float = 1.0) -> np.ndarray:
    return r * np.array([[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]])


def _phase(w, automaton, arithmetic="float64"):
    snap = next(snap_candidates(w, automaton))
    proof = prove(snap.block_weights, automaton)
    assert proof.status == "proved"
    return phase_horizon(w, snap, proof, automaton, RoundOff.for_network(arithmetic, w)), snap, proof


@pytest.mark.parametrize("delta", [0.01])
def test_a_turned_rotation_is_certified_to_one_step_before_its_failure(delta):
    """Every symbol of cyclic:5 turned by delta: every word of length n has phase n delta, and the
    first failure is where that passes pi / 5; Theorem 16 stops at the chord bound m / (L delta)."""
    a = from_spec("cyclic:5")
    A, h0, R = build("cyclic:5", "rotation2d").to_float().float_arrays()
    w = Weights("rotation2d", A @ _rotation(delta), h0, R)
    h, snap, proof = _phase(w, a)
    assert h.bound == "phase" and h.arithmetic == "float64"
    # the note's constants: the turn itself per step (plus rounding), and no modulus drift
    assert abs(h.constants["phase_step"] - delta) < 1e-12 and h.constants["modulus_step"] < 1e-14
    assert f"phase error at most {delta:.3g} rad" in h.note
    assert first_failure(w, a, h.length + 3) == h.length + 1
    chord = perturbation_horizon(w, snap, proof, a, "float64")  # the dispatcher keeps the longer
    assert chord.length == h.length


@pytest.mark.parametrize("seed, turn, modulus, anti", [(0, 0.01, 0.001, 0.001)])
def test_blocks_with_their_own_phase_modulus_and_a_reflection_part(seed, turn, modulus, anti):
    """Layer 2 of the dihedral:3 cascade (two rotation planes, four symbols) with per block and
    symbol a turn, a modulus and a part that is not a rotation (``beta``, block:2 weights), checked
    against its own automaton: sound up to the certified length, and the first failure found at
    most 6% beyond it."""
    layer = cascade(from_spec("dihedral:3"), "rotation2d").layers[1]
    M, _ = layer_automaton(layer)
    A, h0, R = layer.to_float().float_arrays()
    rng = np.random.default_rng(seed)
    F = A.copy()
    for s, i in itertools.product(range(len(F)), (0, 2)):
        p, q = anti * rng.uniform(-1, 1, 2)
        F[s, i:i + 2, i:i + 2] = (_rotation(turn * rng.uniform(-1, 1), 1 + modulus * rng.uniform(-1, 1))
                                  @ A[s, i:i + 2, i:i + 2] + np.array([[p, q], [q, -p]]))
    w = Weights("block:2", F, h0, R)
    h, _, _ = _phase(w, M)
    assert h.length >= 100
    found = first_failure(w, M, 2 * h.length)
    assert found is not None and h.length < found <= 1.06 * h.length


def test_rounding_is_charged_by_arithmetic():
    """The exact cyclic:4 weights as floats (entries 0 and +-1): nothing drifts in real arithmetic
    (the capped length); float64 and float32 round every step, so their lengths are finite and the
    coarser arithmetic certifies less."""
    a = from_spec("cyclic:4")
    w = build("cyclic:4", "rotation2d").to_float()
    real, f64, f32 = (_phase(w, a, x)[0].length for x in ("real", "float64", "float32"))
    assert real == 10**18 and 10**12 < f64 < real and 10**4 < f32 < f64 / 10**6


def test_where_it_does_not_apply():
    """A reflection snap (dihedral:3 block:2) is no complex scalar; a float block that starts away
    from 0 where the snap drops it is not followed.  A block that starts at exactly 0 stays 0."""
    d3 = from_spec("dihedral:3")
    assert _phase(build("dihedral:3", "block:2").to_float(), d3)[0] is None
    a = from_spec("cyclic:5")
    A, h0, R = build("cyclic:5", "rotation2d").to_float().float_arrays()
    F = np.zeros((5, 4, 4))
    F[:, :2, :2] = A @ _rotation(0.01)
    F[:, 2:, 2:] = 0.5 * np.eye(2)  # a contracting plane the snap drops
    R4 = np.concatenate([R, np.ones((5, 2))], axis=1)
    assert _phase(Weights("rotation2d", F, np.array([*h0, 0.3, 0.0]), R4), a)[0] is None
    h, _, _ = _phase(Weights("rotation2d", F, np.array([*h0, 0.0, 0.0]), R4), a)
    assert h is not None and first_failure(Weights("rotation2d", F, np.array([*h0, 0.0, 0.0]), R4), a,
                                           h.length + 3) == h.length + 1


def test_a_drifted_cascade_is_certified_to_its_first_failure():
    """Theorem S5 with every layer's length from Theorem 24: the dihedral:3 cascade drifted by 1e-3
    was certified to 920 (Theorem 16, layer 2) against its first failure at 2222; now to 2221."""
    a = from_spec("dihedral:3")
    stack = drift_layers(cascade(a, "rotation2d"), 1e-3)
    c = certify_stack(stack, a, test_length=50, words=8)
    assert [lh.bound for _, lh in c.layer_horizons] == ["phase", "phase"]
    N = c.certified
    loops = [u for p in (1, 2) for u in itertools.product(range(a.n_symbols), repeat=p)]
    words = np.stack([np.resize(np.array(u), N + 2) for u in loops])
    last, inner = float64_stack_margins([x.float_arrays() for x in stack.layers], a, words)
    failing = np.nonzero((np.minimum(last, inner) <= 0).any(axis=0))[0]
    assert failing[0] == N + 1  # the first failure of these words is the next step
    rng = np.random.default_rng(0)
    last, inner = float64_stack_margins([x.float_arrays() for x in stack.layers], a,
                                        rng.integers(0, a.n_symbols, (32, N)))
    assert min(last.min(), inner.min()) > 0


def test_the_one_layer_evaluator_agrees_on_the_power():
    """The power of symbol 1 in the turned cyclic:5 network fails exactly one step after the phase
    horizon: the same number from the plain loop (this pins the oracle the tests above trust)."""
    a = from_spec("cyclic:5")
    A, h0, R = build("cyclic:5", "rotation2d").to_float().float_arrays()
    w = Weights("rotation2d", A @ _rotation(0.01), h0, R)
    h, _, _ = _phase(w, a)
    m = float64_margins(*w.float_arrays(), a, np.ones((1, h.length + 1), dtype=np.int64))
    assert (m[0, :-1] > 0).all() and m[0, -1] <= 0


def test_past_the_work_limit_the_bound_is_not_tried(monkeypatch):
    """cyclic:5 has 5 pairs x 4 other classes x 1 block = 20 rows of work."""
    import bilinear.constructions.horizon.horizon_phase as phase

    a = from_spec("cyclic:5")
    A, h0, R = build("cyclic:5", "rotation2d").to_float().float_arrays()
    w = Weights("rotation2d", A @ _rotation(0.01), h0, R)
    monkeypatch.setattr(phase, "PHASE_WORK_LIMIT", 20)
    assert _phase(w, a)[0].length == 62
    monkeypatch.setattr(phase, "PHASE_WORK_LIMIT", 19)
    assert _phase(w, a)[0] is None


@pytest.mark.parametrize("float_says", ["short", "long", "none"])
def test_each_length_is_checked_in_ball_arithmetic_once(monkeypatch, float_says):
    """The float search's length is confirmed in ball arithmetic, and the exact search that follows
    when it is not (or when the float search stopped short) starts from a length already checked:
    each length is checked once, and the horizon is the one of checking every length in turn."""
    import bilinear.constructions.horizon.horizon_phase as phase

    a = from_spec("cyclic:5")
    A, h0, R = build("cyclic:5", "rotation2d").to_float().float_arrays()
    w = Weights("rotation2d", A @ _rotation(0.01), h0, R)
    true = _phase(w, a)[0].length
    fake = {"short": true - 7, "long": true + 9, "none": None}[float_says]
    bisect, searches = phase._bisect, []

    def faked(ok, start, stop):  # the first search is the float one: it says `fake`
        searches.append(start)
        return fake if len(searches) == 1 else bisect(ok, start, stop)

    monkeypatch.setattr(phase, "_bisect", faked)
    calls: list[int] = []
    holds = phase._holds
    monkeypatch.setattr(phase, "_holds", lambda terms, box, t, under, bits: calls.append(t) or holds(terms, box, t, under, bits))
    h, _, _ = _phase(w, a)
    assert h.length == true
    assert calls and len(calls) == len(set(calls)), sorted(calls)
    assert len(searches) == (1 if float_says == "short" and true == phase.CAP else 2)

"""The rest of analysis/certify.py against references written in the tests (benchmarks/mutate_auto.py, target
certify_stack): the certificate of a float stack, the order of the snap candidates, and certify's refusals.

``certify_stack`` runs with the float check, the stack snap, the stack prover and Theorem S5's horizon replaced
by stubs that record what they are given, and its status and reason are compared with the rules of
:class:`~bilinear.analysis.certify.StackCertificate`'s docstring, written out here; the sentences and JSON of
hand-built stack certificates (real horizons, verdicts and check results) with texts written by hand;
``_candidates`` with every snap replaced by a stub, against the order of its docstring; and one real stack
(parity, one diagonal layer), whose certificate is worked out by hand.  About half a second in all.
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from bilinear.analysis import certify as C
from bilinear.automata import Automaton, from_spec
from bilinear.constructions.horizon import floatcheck, gauge, snap as snapmod, stacksnap
from bilinear.constructions.horizon.floatcheck import CheckResult
from bilinear.constructions.horizon.horizon_base import Horizon
from bilinear.constructions.horizon.stacksnap import StackSnap
from bilinear.constructions.proof import stackprover
from bilinear.constructions.proof.verdicts import Counterexample, Proof, Unproved
from bilinear.constructions.values.stack import Stack
from bilinear.constructions.values.variants import parse_variant
from bilinear.constructions.values.weights import Weights
from bilinear.errors import BilinearError, MismatchError, WeightsError

PARITY = from_spec("parity")
C3 = from_spec("cyclic:3")
FLIPFLOP = from_spec("flipflop:2")  # symbol 0 or 1 sends every state to 0 or 1: not a permutation automaton


def _layer(a0=1.0, a1=-1.0) -> Weights:
    """Parity in one float coordinate: h = +-1, class 0 (even) where h > 0."""
    return Weights("diagonal", A=[[[a0]], [[a1]]], h0=[1.0], readout=[[1.0], [-1.0]])


FLOAT_STACK = Stack((_layer(),))
PROVED = Proof(dim=1, states_explored=2, hidden_states=2, margin=2, margin_float=2.0, state_map=((0,), (1,)))
REFUTED = Counterexample(dim=3, word=(0, 1), text="0 1", expected=0, got=1, scores=(0.0, 1.0), states_explored=4,
                         layer=2)
OPEN = Unproved(dim=3, words=((0,), (1,)), texts=("0", "1"), state=0, bound=64, states_explored=9, reason="too many")


def _check(failure=None, *, text=None, accuracy=1.0, worst=2.0, directed=12, n_words=8, length=50) -> CheckResult:
    return CheckResult(accuracy=accuracy, final_accuracy=accuracy, worst_margin=worst,
                       first_failure=failure, first_failure_text=text, n_words=n_words, length=length, seed=0,
                       seconds=0.0, directed=directed)


# ------------------------------------------------------------------------------------------
# _validate: certify's refusals
# ------------------------------------------------------------------------------------------
def test_validate_accepts_float_weights_that_fit_the_automaton():
    assert C._validate(_layer(), PARITY) is None


@pytest.mark.parametrize("thing, name", [(FLOAT_STACK, "Stack"), ([[1.0]], "list"), (None, "NoneType")])
def test_validate_refuses_anything_but_weights(thing, name):
    with pytest.raises(WeightsError, match=f"certify needs a Weights value, got {name}$"):
        C._validate(thing, PARITY)


def test_validate_refuses_exact_weights():
    exact = Weights("diagonal", A=[[[1]], [[-1]]], h0=[1], readout=[[1], [-1]])
    with pytest.raises(WeightsError, match="these weights are exact: prove them with `bilinear verify`"):
        C._validate(exact, PARITY)


def test_validate_refuses_weights_that_do_not_fit_the_automaton():
    # two symbols against cyclic:3's three
    with pytest.raises(MismatchError):
        C._validate(_layer(), C3)


# ------------------------------------------------------------------------------------------
# _candidates: which snaps, in which order (its docstring), every snap a stub
# ------------------------------------------------------------------------------------------
def _candidates(monkeypatch, spec, automaton, proves=(), raises=()):
    """The names ``_candidates`` yields for weights of ``spec`` and the failures it records; a snap named in
    ``proves`` is appended to ``proved`` as soon as it is yielded, one named in ``raises`` raises WeightsError."""

    def stub(name):
        def snap(weights, automaton_):
            assert automaton_ is automaton
            if name in raises:
                raise WeightsError(f"no {name}")
            return name
        return snap

    def blocks(weights, automaton_, failures):
        assert automaton_ is automaton
        if "blocks" in raises:
            raise WeightsError("no blocks")
        yield "block 1"
        yield "block 2"

    monkeypatch.setattr(snapmod, "factor_snap", stub("factor"))
    monkeypatch.setattr(gauge, "gauge_snap", stub("gauge"))
    monkeypatch.setattr(snapmod, "snap_candidates", blocks)
    monkeypatch.setattr(snapmod, "construction_snap", stub("construction"))
    monkeypatch.setattr(snapmod, "state_map_snap", stub("state map"))
    weights = SimpleNamespace(variant_info=parse_variant(spec))
    failures: list = []
    proved: list = []
    got = []
    for s in C._candidates(weights, automaton, failures, proved):
        got.append(s)
        if s in proves:
            proved.append(s)
    return got, failures


@pytest.mark.parametrize("proves", [(), ("block 1",), ("factor", "gauge", "block 1", "block 2")])
def test_monomial_weights_get_their_factors_and_gauge_first_and_always_the_construction(monkeypatch, proves):
    got, failures = _candidates(monkeypatch, "monomial", C3, proves)
    assert got == ["factor", "gauge", "block 1", "block 2", "construction"] and failures == []


def test_failing_snaps_are_recorded_by_name_and_the_next_one_is_tried(monkeypatch):
    got, failures = _candidates(monkeypatch, "monomial", C3, raises=("factor", "gauge", "blocks", "construction"))
    assert got == []
    assert failures == [("the factors snapped", "no factor"), ("the factors in a fixed gauge", "no gauge"),
                        ("the block snap", "no blocks"), ("the construction read in the network's basis",
                                                          "no construction")]


@pytest.mark.parametrize("spec", ["rotation2d", "diagonal", "dplr:1"])
def test_a_structured_variant_gets_the_construction_only_when_no_block_snap_is_proved(monkeypatch, spec):
    # dplr has factors too, but not a permutation: no factor or gauge snap; not dense: no state-map snap
    assert _candidates(monkeypatch, spec, C3) == (["block 1", "block 2", "construction"], [])
    assert _candidates(monkeypatch, spec, FLIPFLOP, proves=("block 2",)) == (["block 1", "block 2"], [])
    assert _candidates(monkeypatch, spec, FLIPFLOP, proves=("block 1",)) == (["block 1", "block 2"], [])


def test_dense_weights_get_the_construction_and_the_state_map(monkeypatch):
    # nothing proved: both, for a permutation automaton as for any other
    assert _candidates(monkeypatch, "full", C3)[0] == ["block 1", "block 2", "construction", "state map"]
    assert _candidates(monkeypatch, "full", FLIPFLOP)[0] == ["block 1", "block 2", "construction", "state map"]
    # a block snap proved: the construction still; the state map only for an automaton that is not a permutation one
    assert _candidates(monkeypatch, "full", C3, ("block 1",))[0] == ["block 1", "block 2", "construction"]
    assert _candidates(monkeypatch, "full", FLIPFLOP, ("block 1",))[0] == [
        "block 1", "block 2", "construction", "state map"]
    # proved is read when the state map is reached: the construction proved just before counts
    assert _candidates(monkeypatch, "full", C3, ("construction",))[0] == ["block 1", "block 2", "construction"]


def test_a_failing_state_map_snap_is_recorded(monkeypatch):
    got, failures = _candidates(monkeypatch, "full", FLIPFLOP, raises=("state map",))
    assert got == ["block 1", "block 2", "construction"]
    assert failures == [("the exact map between the states' representatives", "no state map")]


# ------------------------------------------------------------------------------------------
# StackCertificate: sentences and JSON against texts written by hand
# ------------------------------------------------------------------------------------------
SNAP = StackSnap(stack="the exact stack", conductors=(3, None), normalised=(True, False), distances=(0.00123, 0.0456),
                 rules=("", "the block snap"))
UP_TO = Horizon.up_to(222, "float64", "S5", "the shortest layer horizon, layer 1's")
LAYERS = ((2, Horizon.up_to(222, "float64", "phase", "")), (6, Horizon.up_to(265, "float64", "", "")))


def _stack_cert(**kw):
    base = dict(status="horizon", layers=2, variant="rotation2d", dims=(2, 4), automaton="dihedral:3",
                check=_check(directed=14, worst=0.92), reason="the reason")
    return C.StackCertificate(**{**base, **kw})


def test_a_certified_stack_says_each_layer_and_the_check():
    cert = _stack_cert(snap=SNAP, proof=PROVED, horizon=UP_TO, layer_horizons=LAYERS)
    assert cert.certified == 222 and cert.snapped_weights() == "the exact stack"
    assert cert.to_text() == (
        "dihedral:3: stack of 2 rotation2d layers (hidden 2+4)\n"
        "  status: horizon: the reason\n"
        "  snap: layer 1: entries cos(2 pi j / n), conductor 3 (each matrix divided by its spectral norm), largest "
        "move 0.0012; layer 2: snapped against its own automaton (the block snap), relative distance 0.046\n"
        "  proof of the snap: proved\n"
        "  horizon (Theorem S5, float64 evaluation, rounding charged): every word up to length 222\n"
        "    layer 1 (M_1 of 2 states): every word up to length 222, phase bound\n"
        "    layer 2 (M_2 of 6 states): every word up to length 265\n"
        "  float check (14 directed + 8 random words of length 50, float64): no failure up to length 50 on these "
        "words, worst margin 0.92\n")
    assert cert.to_json() == {
        "status": "horizon", "layers": 2, "variant": "rotation2d", "dims": [2, 4], "automaton": "dihedral:3",
        "reason": "the reason",
        "snap": [{"layer": 1, "conductor": 3, "normalised": True, "max_distance": 0.00123, "rule": "entries"},
                 {"layer": 2, "conductor": None, "normalised": False, "max_distance": 0.0456,
                  "rule": "the block snap"}],
        "proof": PROVED.to_json(), "horizon": UP_TO.to_json(), "certified_length": 222, "every_length": False,
        "layer_horizons": [{"layer": 1, "states": 2, **LAYERS[0][1].to_json()},
                           {"layer": 2, "states": 6, **LAYERS[1][1].to_json()}],
        "float_check": cert.check.to_json()}


def test_an_uncertified_stack_says_why_and_a_failing_check_its_word():
    none = Horizon.none("float64", "layer 2 has no certified length", "S5")
    per = ((2, Horizon.up_to(30, "float64", "global", "")), (None, Horizon.none("float64", "the snapped layer 2: a tie")))
    snap = StackSnap(stack="s", conductors=(1,), normalised=(False,), distances=(0.25,))
    check = _check((0, 1, 1, 1), text="0 1^3", accuracy=0.875, worst=-0.0123, directed=3, n_words=5, length=40)
    cert = _stack_cert(status="snapped", check=check, snap=snap, proof=PROVED, horizon=none, layer_horizons=per)
    assert cert.certified is None
    assert cert.to_text() == (
        "dihedral:3: stack of 2 rotation2d layers (hidden 2+4)\n"
        "  status: snapped: the reason\n"
        "  snap: layer 1: entries cos(2 pi j / n), conductor 1, largest move 0.25\n"
        "  proof of the snap: proved\n"
        "  horizon (Theorem S5, float64 evaluation, rounding charged): no length (layer 2 has no certified length)\n"
        "    layer 1 (M_1 of 2 states): every word up to length 30, global bound\n"
        "    layer 2 (no automaton): no length: the snapped layer 2: a tie\n"
        "  float check (3 directed + 5 random words of length 40, float64): accuracy 0.8750, worst margin -0.0123, "
        "first failing word 0 1^3\n")
    data = cert.to_json()
    assert data["certified_length"] is None and data["every_length"] is False
    assert data["layer_horizons"] == [{"layer": 1, "states": 2, **per[0][1].to_json()},
                                      {"layer": 2, "states": None, **per[1][1].to_json()}]
    assert data["snap"] == [{"layer": 1, "conductor": 1, "normalised": False, "max_distance": 0.25, "rule": "entries"}]


def test_every_length_is_no_certified_length_but_every_length_in_the_json():
    every = Horizon.every_length("float64", "S5", "every layer holds at every length")
    cert = _stack_cert(status="proved", snap=SNAP, proof=PROVED, horizon=every,
                       layer_horizons=((2, Horizon.every_length("float64", "axes", "")),))
    assert cert.certified is None
    assert "  horizon (Theorem S5, float64 evaluation, rounding charged): every word of every length\n" \
           "    layer 1 (M_1 of 2 states): every word of every length, axes bound\n" in cert.to_text()
    data = cert.to_json()
    assert data["every_length"] is True and data["certified_length"] is None and data["horizon"] == every.to_json()


@pytest.mark.parametrize("snap, proof", [(None, None), (SNAP, None), (SNAP, REFUTED)])
def test_without_a_proved_snap_there_is_no_horizon_nor_snapped_stack(snap, proof):
    cert = _stack_cert(status="failed", check=_check(), snap=snap, proof=proof)
    assert cert.certified is None and cert.snapped_weights() is None
    text = cert.to_text().splitlines()
    assert text[2:] == ((["  snap: layer 1: entries cos(2 pi j / n), conductor 3 (each matrix divided by its spectral "
                          "norm), largest move 0.0012; layer 2: snapped against its own automaton (the block snap), "
                          "relative distance 0.046"] if snap is not None else [])
                        + (["  proof of the snap: counterexample"] if proof is not None else [])
                        + ["  horizon: not certified (no proved snap)",
                           "  float check (12 directed + 8 random words of length 50, float64): no failure up to "
                           "length 50 on these words, worst margin 2"])
    data = cert.to_json()
    assert data["snap"] == (None if snap is None else SNAP.describe())
    assert data["proof"] == (None if proof is None else REFUTED.to_json())
    assert (data["horizon"], data["certified_length"], data["every_length"], data["layer_horizons"]) == (
        None, None, False, [])


# ------------------------------------------------------------------------------------------
# certify_stack: its statuses and reasons, the float check, snap, prover and horizon stubbed
# ------------------------------------------------------------------------------------------
PROVED_PART = ("every layer snapped to exact weights and the snapped stack is proved for every word of every length "
               "(Theorem S1); ")
NO_FAILURE = "the float check found no failing word, which is evidence, not a certificate"


class _World:
    """The stubs: ``failure`` the float check's first failing word (None: it passes), ``snap`` the stack snap
    (None: no snap, with ``why`` its failures), ``proof`` the prover's verdict, ``horizon`` Theorem S5's."""

    def __init__(self, monkeypatch, failure=None, snap=SNAP, why=(), proof=PROVED, horizon=UP_TO, per=LAYERS):
        self.calls: list = []
        self.result = _check(failure, text=None if failure is None else " ".join(map(str, failure)),
                             accuracy=1.0 if failure is None else 0.5)

        def check(weights, automaton, length=500, words=1000, seed=0):
            self.calls.append(("check", weights, automaton, length, words, seed))
            return self.result

        def snap_stack(stack, tol=1e-4, failures=None):
            self.calls.append(("snap", stack, tol))
            failures.extend(why)
            return snap

        def prove_stack(stack, automaton):
            self.calls.append(("prove", stack, automaton))
            return proof

        def stack_horizon(stack, snapped):
            self.calls.append(("horizon", stack, snapped))
            return horizon, per

        monkeypatch.setattr(floatcheck, "check", check)
        monkeypatch.setattr(stacksnap, "snap_stack", snap_stack)
        monkeypatch.setattr(stackprover, "prove_stack", prove_stack)
        monkeypatch.setattr(C, "stack_horizon", stack_horizon)


def test_the_defaults_are_the_test_length_256_words_seed_0_and_the_stack_snap_tolerance(monkeypatch):
    world = _World(monkeypatch)
    c = C.certify_stack(FLOAT_STACK, PARITY)
    assert world.calls == [("check", FLOAT_STACK, PARITY, 500, 256, 0), ("snap", FLOAT_STACK, 1e-4),
                           ("prove", "the exact stack", PARITY), ("horizon", FLOAT_STACK, "the exact stack")]
    assert stacksnap.STACK_SNAP_TOL == 1e-4 and C.TEST_LENGTH == 500
    assert (c.status, c.layers, c.variant, c.dims, c.automaton) == ("horizon", 1, "diagonal", (1,), "parity")
    assert c.check is world.result and c.snap is SNAP and c.proof is PROVED
    assert c.horizon is UP_TO and c.layer_horizons is LAYERS and c.write_error is None


def test_given_lengths_words_seed_and_tolerance_are_passed_on(monkeypatch):
    world = _World(monkeypatch)
    C.certify_stack(FLOAT_STACK, PARITY, test_length=37, words=5, seed=9, tol=0.08)
    assert world.calls[:2] == [("check", FLOAT_STACK, PARITY, 37, 5, 9), ("snap", FLOAT_STACK, 0.08)]


@pytest.mark.parametrize("horizon, status, certified", [
    (UP_TO, "horizon", "the float stack is certified for every word up to length 222 (Theorem S5, layer by layer)"),
    (Horizon.every_length("float64", "S5", "all"), "proved",
     "the float stack is certified for every word of every length (Theorem S5, layer by layer)"),
    (Horizon.none("float64", "layer 1 has no certified length", "S5"), "uncertified",
     "no length is certified for the float stack (layer 1 has no certified length)")])
def test_a_proved_snap_and_a_passing_check(monkeypatch, horizon, status, certified):
    _World(monkeypatch, horizon=horizon)
    c = C.certify_stack(FLOAT_STACK, PARITY)
    assert c.status == status and c.horizon is horizon
    assert c.reason == f"{PROVED_PART}{certified}; {NO_FAILURE}"


@pytest.mark.parametrize("horizon", [Horizon.up_to(11, "float64", "S5", ""), Horizon.none("float64", "none", "S5")])
def test_a_failing_check_with_a_proved_snap_is_snapped(monkeypatch, horizon):
    _World(monkeypatch, failure=(0,) * 12, horizon=horizon)
    c = C.certify_stack(FLOAT_STACK, PARITY)
    assert c.status == "snapped" and c.horizon is horizon
    certified = ("the float stack is certified for every word up to length 11 (Theorem S5, layer by layer)"
                 if horizon.certified else "no length is certified for the float stack (none)")
    assert c.reason == (f"{PROVED_PART}{certified}; the float stack fails on the word "
                        f"{' '.join(['0'] * 12)} of the float check")


@pytest.mark.parametrize("horizon, text", [
    (Horizon.up_to(12, "float64", "S5", ""), "every word up to length 12"),
    (Horizon.every_length("float64", "S5", ""), "every word of every length")])
def test_a_failure_inside_the_certified_horizon_is_an_internal_error(monkeypatch, horizon, text):
    _World(monkeypatch, failure=(0,) * 12, horizon=horizon)
    with pytest.raises(BilinearError, match=f"^internal error: {text} certified for the stack in float64, yet a word "
                                            "of length 12 fails in float64; please report it$"):
        C.certify_stack(FLOAT_STACK, PARITY)


@pytest.mark.parametrize("why, what", [(("layer 2: no conductor fits",), "layer 2: no conductor fits"),
                                       ((), "a layer has no snap")])
@pytest.mark.parametrize("failure", [None, (1, 1)])
def test_no_snap_is_failed_and_nothing_is_proved(monkeypatch, why, what, failure):
    world = _World(monkeypatch, failure=failure, snap=None, why=why)
    c = C.certify_stack(FLOAT_STACK, PARITY)
    assert [call[0] for call in world.calls] == ["check", "snap"]
    assert (c.status, c.snap, c.proof, c.horizon, c.layer_horizons) == ("failed", None, None, None, ())
    part = NO_FAILURE if failure is None else "the float stack fails on the word 1 1 of the float check"
    assert c.reason == f"no exact snap: {what}; {part}"


@pytest.mark.parametrize("proof, what", [
    (REFUTED, "the snapped stack is not proved: counterexample on the word 0 1 (layer 2)"),
    (Counterexample(dim=1, word=(1,), text="1", expected=0, got=1, scores=(0.0, 1.0), states_explored=2),
     "the snapped stack is not proved: counterexample on the word 1"),
    (OPEN, "the snapped stack is not proved: open")])
def test_a_snap_not_proved_is_failed_with_its_verdict(monkeypatch, proof, what):
    world = _World(monkeypatch, proof=proof)
    c = C.certify_stack(FLOAT_STACK, PARITY)
    assert [call[0] for call in world.calls] == ["check", "snap", "prove"]
    assert (c.status, c.snap, c.proof, c.horizon, c.layer_horizons) == ("failed", SNAP, proof, None, ())
    assert c.reason == f"{what}; {NO_FAILURE}"


def test_an_automaton_without_a_name_is_called_automaton(monkeypatch):
    _World(monkeypatch)
    unnamed = Automaton([[1, 0], [0, 1]], labels=[0, 1])
    assert unnamed.name == ""
    assert C.certify_stack(FLOAT_STACK, unnamed).automaton == "automaton"


def test_weights_and_exact_stacks_are_refused(monkeypatch):
    world = _World(monkeypatch)
    with pytest.raises(WeightsError, match="^certify_stack needs a Stack, got Weights$"):
        C.certify_stack(_layer(), PARITY)
    exact = Stack((Weights("diagonal", A=[[[1]], [[-1]]], h0=[1], readout=[[1], [-1]]),))
    with pytest.raises(WeightsError, match="^this stack is exact: prove it with `bilinear verify SPEC --weights FILE`"):
        C.certify_stack(exact, PARITY)
    assert world.calls == []


# ------------------------------------------------------------------------------------------
# one real stack: parity in one float coordinate, moved off +-1
# ------------------------------------------------------------------------------------------
def test_a_real_parity_stack_is_snapped_back_and_proved_at_every_length():
    """A[0] = 1.00005, A[1] = -0.99995: every entry within 1e-4 of cos(2 pi j / 4) in {1, -1} (conductor 1),
    so the snap is the exact parity layer, proved; the float layer's state keeps its sign on every word (each
    step multiplies by a number of sign +-1), so its class is right at every length."""
    stack = Stack((_layer(1.00005, -0.99995),))
    c = C.certify_stack(stack, PARITY, test_length=20, words=4)
    assert c.status == "proved" and c.proof.status == "proved" and c.horizon.every and c.certified is None
    assert c.snap.conductors == (1,) and c.snap.normalised == (False,)
    assert np.asarray(c.snapped_weights().layers[0].A).tolist() == [[[1]], [[-1]]]
    assert c.layer_horizons[0][0] == 2 and c.layer_horizons[0][1].every
    assert c.check.first_failure is None and c.check.length == 20 and c.check.n_words == 4
    assert c.reason == (f"{PROVED_PART}the float stack is certified for every word of every length (Theorem S5, "
                        f"layer by layer); {NO_FAILURE}")

"""Float check: renormalised runs agree with the automaton; failures are found and reported."""

from __future__ import annotations

import math

import numpy as np
import pytest

from bilinear.automata import Automaton
from bilinear.automata.words import compress, expand

from bilinear.automata import from_spec
from bilinear.constructions.horizon.floatcheck import check, float_run
from bilinear.constructions import build
from bilinear.constructions import Weights
from bilinear.errors import AutomatonError, WeightsError


@pytest.mark.parametrize("spec,variant", [("dihedral:12", "block:2"), ("symmetric:4", "full"), ("cyclic:9", "rotation2d"), ("reset:3", "full")])
def test_constructions_pass_at_length_500(spec, variant):
    r = check(build(spec, variant), from_spec(spec), length=500, words=50, seed=1)
    assert r.passed and r.accuracy == 1.0 and r.final_accuracy == 1.0
    assert r.worst_margin > 0
    assert r.tokens == 500 * (50 + r.directed) and r.directed > 0


def test_margin_of_the_unit_norm_rotation():
    r = check(build("cyclic:6", "rotation2d"), from_spec("cyclic:6"), length=50, words=20)
    assert math.isclose(r.worst_margin, 1 - math.cos(2 * math.pi / 6), rel_tol=1e-9)


def test_renormalisation_keeps_huge_scales_finite():
    # A = 10 * rotation: without renormalisation h overflows after ~300 steps
    w = build("cyclic:5", "rotation2d").to_float()
    A, h0, R = w.float_arrays()
    big = Weights("rotation2d", A * 10.0, h0, R)
    r = check(big, from_spec("cyclic:5"), length=1000, words=8)
    assert r.passed
    for _, H in float_run(big.A, h0, np.zeros((2, 400), dtype=np.int64) + 1):
        assert np.all(np.isfinite(H)) and np.allclose(np.linalg.norm(H, axis=1), 1)


def test_perturbed_rotation_fails_and_reports_the_first_failure():
    a = from_spec("cyclic:5")
    theta = 2 * math.pi / 5 + 0.01
    A = np.array([[[math.cos(theta * s), -math.sin(theta * s)], [math.sin(theta * s), math.cos(theta * s)]] for s in range(5)])
    _, h0, R = build("cyclic:5", "rotation2d").float_arrays()
    w = Weights("rotation2d", A, h0, R)
    r = check(w, a, length=500, words=20, seed=3)
    assert not r.passed and r.accuracy < 1.0 and r.worst_margin < 0
    # the reported prefix really fails, and no shorter prefix of it does
    word = list(r.first_failure)
    h = h0
    for s in word:
        h = A[s] @ h
    assert int(np.argmax(R @ h)) != a.label(word)
    assert r.first_failure_text == compress(word, a)


def test_same_seed_same_result():
    w, a = build("dihedral:5", "block:2"), from_spec("dihedral:5")
    assert check(w, a, length=30, words=10, seed=7) .worst_margin == check(w, a, length=30, words=10, seed=7).worst_margin


def test_explicit_word_batch():
    w, a = build("parity", "diagonal"), from_spec("parity")
    r = check(w, a, word_batch=[[1, 1, 0], [0, 1, 1]])
    assert r.n_words == 2 and r.length == 3 and r.passed


@pytest.mark.parametrize("kwargs,error,message", [
    (dict(length=0), WeightsError, "length"),
    (dict(words=0), WeightsError, "words"),
    (dict(word_batch=[[0, 5]]), AutomatonError, "unknown symbol"),
    (dict(word_batch=[]), WeightsError, "word_batch"),
])
def test_bad_arguments(kwargs, error, message):
    with pytest.raises(error, match=message):
        check(build("parity", "diagonal"), from_spec("parity"), **kwargs)


def test_class_mismatch():
    w = build("parity", "diagonal")
    three = Weights("diagonal", w.A, w.h0, [[1], [-1], [0]])
    with pytest.raises(WeightsError, match="readout has 3 classes but automaton parity has 2"):
        check(three, from_spec("parity"))
    with pytest.raises(WeightsError, match="weights have 2 symbols but automaton cyclic:3 has 3"):
        check(w, from_spec("cyclic:3"))


def _leaky_counter(leak=0.01):
    """A mod-3 counter (inc, reset) whose inc leaks ``leak`` of the state into itself."""
    a = Automaton([[1, 2, 0], [0, 0, 0]], labels=[0, 1, 2], symbols=("inc", "reset"), name="counter3")
    P = np.roll(np.eye(3), 1, axis=0)  # P e_i = e_(i+1)
    inc = (1 - leak) * P + leak * np.eye(3)
    reset = np.outer([1.0, 0.0, 0.0], np.ones(3))  # every non-negative state -> the start direction
    return Weights("full", np.stack([inc, reset]), np.array([1.0, 0.0, 0.0]), np.eye(3)), a


def _shortest_failing_power(w, symbol, limit):
    A, h0, R = w.float_arrays()
    h = h0
    for n in range(1, limit + 1):
        h = A[symbol] @ h
        h = h / np.linalg.norm(h)
        if int(np.argmax(R @ h)) != n % 3 or np.sort(R @ h)[-1] == np.sort(R @ h)[-2]:
            return n
    return None


def test_leaky_counter_fails_on_a_power_of_inc_that_random_words_miss():
    w, a = _leaky_counter()
    n = _shortest_failing_power(w, 0, 500)
    assert n is not None and n > 50
    # random words reset too often to reach the failure ...
    assert check(w, a, length=500, words=1000, seed=0, directed=False).passed
    # ... the directed words find it, and name it run-length compressed
    r = check(w, a, length=500, words=1000, seed=0)
    assert not r.passed
    assert r.first_failure == (0,) * n and r.first_failure_text == f"inc^{n}"
    assert expand(r.first_failure_text, a) == r.first_failure
    assert f"inc^{n}" in r.reading and r.to_json()["first_failure_length"] == n


def test_check_accepts_any_tracker():
    from bilinear.constructions import as_tracker

    a = from_spec("parity")
    exact = as_tracker(lambda w: np.eye(2)[np.cumsum(w, axis=1) % 2] * 3.0, n_symbols=2, n_classes=2)
    r = check(exact, a, length=200, words=50)
    assert r.passed and r.accuracy == 1.0 and r.worst_margin == 3.0
    # wrong only after 150 ones in a row: found by the power 1^200, named 1^150
    def late(w):
        out = np.eye(2)[np.cumsum(w, axis=1) % 2] * 3.0
        run = np.zeros(w.shape[0], dtype=int)
        for t in range(w.shape[1]):
            run = np.where(w[:, t] == 1, run + 1, 0)
            out[run >= 150, t] = out[run >= 150, t][:, ::-1]
        return out
    r = check(as_tracker(late, n_symbols=2, n_classes=2), a, length=200, words=50)
    assert not r.passed and r.first_failure_text == "1^150"
    with pytest.raises(WeightsError, match="classes"):
        check(as_tracker(lambda w: np.zeros(w.shape + (3,)), n_symbols=2), a, length=5, words=2)

"""The float check's run rescales its states by powers of two only every few steps
(``floatrun.float_blocks``) and divides the margins by the norms afterwards.  Against a plain
per-word loop written for the tests (``plain_eval.per_word_margins``: one word at a time, one
matrix-vector product and one division by the norm per step, as docs/theory.md states the run): the same accuracy, last-step accuracy,
first failing word and worst margin, on random dense networks that pass and that fail, on one
whose states fall by 2^-30 a step (the span is run again, rescaled every step) and on one whose
matrices grow a state 2^8.5-fold a step (short spans)."""

from __future__ import annotations

import numpy as np
import pytest

from bilinear.automata import Automaton, from_spec
from bilinear.constructions import Weights, build
from bilinear.constructions.horizon import floatcheck
from bilinear.constructions.values import floatrun

from plain_eval import per_word_first_failure, per_word_margins


def _agrees(w, a, words, float_table=True):
    A, h0, R = w.float_arrays()
    m = per_word_margins(A, h0, R, a, words)
    r = floatcheck.check(w, a, word_batch=words, float_table=float_table)
    ok = m[:, 1:] > 0
    assert r.accuracy == pytest.approx(ok.mean(), abs=1e-12)
    assert r.final_accuracy == pytest.approx(ok[:, -1].mean(), abs=1e-12)
    assert r.worst_margin == pytest.approx(m.min(), rel=1e-9, abs=1e-12)
    assert r.first_failure == per_word_first_failure(m, words)
    return r


def _random_automaton(rng, k: int, states: int) -> Automaton:
    return Automaton(rng.integers(0, states, size=(k, states)).tolist(), labels=list(range(states)))


@pytest.mark.parametrize("k, d", [(3, 4), (12, 6)])  # "stacked" and "grouped" steps
def test_random_dense_networks_that_fail(k, d):
    rng = np.random.default_rng(k)
    a = _random_automaton(rng, k, 4)
    A = np.zeros((k, d, d))
    for s in range(k):
        A[s, :4, :4][a.delta[s], np.arange(4)] = 1.0
    A += rng.normal(scale=0.4, size=A.shape)  # dense; fails on some prefixes
    w = Weights("full", A, np.eye(d)[0] + rng.normal(scale=0.05, size=d), np.eye(4, d) + rng.normal(scale=0.05, size=(4, d)))
    words = rng.integers(0, k, size=(12, 150))
    r = _agrees(w, a, words)
    assert 0 < r.accuracy < 1


def test_a_construction_in_a_random_basis_passes():
    """cyclic:5 rotation2d conjugated by a random matrix: the same scores, states whose norms
    change every step (no longer a rotation), a margin that is not the unit one."""
    w = build("cyclic:5", "rotation2d").to_float()
    A, h0, R = w.float_arrays()
    P = np.random.default_rng(3).normal(size=(2, 2)) + 2 * np.eye(2)
    Q = np.linalg.inv(P)
    w = Weights("full", P @ A @ Q, P @ h0, R @ Q)
    words = np.random.default_rng(4).integers(0, 5, size=(12, 150))
    r = _agrees(w, from_spec("cyclic:5"), words)
    assert r.passed and r.worst_margin > 0


def test_states_that_fall_fast_are_run_again_rescaled_every_step(monkeypatch):
    """Symbol 0 shrinks the second coordinate by 2^-30 a step: a span of 64 steps would take a
    state below 2^-1900; the span ends below 2^-RESCALE_FLOOR and is run again step by step."""
    a = Automaton([[0, 1], [1, 0]], labels=[0, 1])  # symbol 0 keeps, symbol 1 flips
    A = np.array([[[1.0, 0.0], [0.0, 2.0**-30]], [[0.0, 1.0], [1.0, 0.0]]])
    w = Weights("full", A, np.array([1.0, 0.0]), np.array([[1.0, 0.2], [0.2, 1.0]]))
    words = np.random.default_rng(5).integers(0, 2, size=(12, 150))
    words[:6, 0], words[:6, 1:41] = 1, 0  # flip to (0, 1), then 40 shrinking steps: 2^-1200 unrescaled
    calls = []
    rescale = floatrun._rescale
    monkeypatch.setattr(floatrun, "_rescale", lambda H, *work: calls.append(1) or rescale(H, *work))
    r = _agrees(w, a, words, float_table=False)  # the dense run (the products are exact: a table would do)
    assert len(calls) > 150  # more rescalings than steps: spans were run again
    assert r.passed  # the weights compute the automaton (unrescaled, those states underflow to 0: ties)
    calls.clear()
    assert _agrees(w, a, words).passed and len(calls) == 1  # the table: the start row rescaled, no run


def test_matrices_that_grow_fast_take_short_spans():
    """Positive 32 x 32 matrices grow a state about 2^8.5-fold a step: 64 steps unrescaled
    would square to infinity in the norms."""
    rng = np.random.default_rng(6)
    a = _random_automaton(rng, 3, 4)
    A = rng.uniform(8, 15, size=(3, 32, 32))
    assert floatrun.rescale_span(A) <= 14
    w = Weights("full", A, rng.uniform(size=32), rng.normal(size=(4, 32)))
    words = rng.integers(0, 3, size=(12, 150))
    _agrees(w, a, words)

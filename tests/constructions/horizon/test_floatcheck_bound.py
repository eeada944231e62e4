"""With many classes the float check scores every class only for the prefixes a bound does not
rule out (``floatcheck._Bound``: the reference state of the automaton state, Hoelder's
inequality).  Against the plain per-word loop ``plain_eval.per_word_margins``: the same
accuracy, last-step accuracy and first failing word, the worst margin to the bound's tolerance,
on a construction that passes, the same with a readout that confuses two classes, the same
drifted, and random weights whose states do not repeat (those blocks are scored in full)."""

from __future__ import annotations

import numpy as np
import pytest

from bilinear.automata import Automaton, from_spec
from bilinear.constructions import Weights, build
from bilinear.constructions.horizon import floatcheck

from plain_eval import per_word_first_failure, per_word_margins


def _judged(monkeypatch, w, a, words):
    """The check in blocks of 10 steps, how many blocks the bound judged and how many it left to
    full scoring, checked against the per-word loop."""
    monkeypatch.setattr(floatcheck, "_BLOCK_ENTRIES", words.shape[0] * 10 * max(w.dim, w.n_classes // 8))
    counts = {"bound": 0, "full": 0}
    judge = floatcheck._Bound.judge

    def counted(self, *args):
        r = judge(self, *args)
        counts["full" if r is None else "bound"] += 1
        return r

    monkeypatch.setattr(floatcheck._Bound, "judge", counted)
    A, h0, R = w.float_arrays()
    m = per_word_margins(A, h0, R, a, words)
    r = floatcheck.check(w, a, word_batch=words)
    ok = m[:, 1:] > 0
    assert r.accuracy == pytest.approx(ok.mean(), abs=1e-12)
    assert r.final_accuracy == pytest.approx(ok[:, -1].mean(), abs=1e-12)
    rho = np.linalg.norm(R, axis=1).max()
    assert r.worst_margin == pytest.approx(m.min(), abs=floatcheck._Bound.WORST_TOL * rho + 1e-12)
    assert r.first_failure == per_word_first_failure(m, words)
    return r, counts


def test_a_construction_with_many_classes_is_judged_by_the_bound(monkeypatch):
    w, a = build("dihedral:12", "block:2").to_float(), from_spec("dihedral:12")
    assert floatcheck._Bound.make(w.float_arrays()[2], a) is not None  # 24 classes, hidden 2
    words = np.random.default_rng(0).integers(0, 2, size=(12, 200))
    r, counts = _judged(monkeypatch, w, a, words)
    assert r.passed and counts["bound"] > counts["full"]


def test_the_worst_margin_is_found_when_it_comes_late(monkeypatch):
    """dihedral:12 block:2 in another basis: the states repeat, their unit margins differ (the
    basis is not orthogonal), and a later block holds a smaller margin than the blocks before
    it: the prefixes near the worst so far are scored too, not only those below 0 (scoring
    only those reports a larger worst margin)."""
    w = build("dihedral:12", "block:2").to_float()
    A, h0, R = w.float_arrays()
    P = np.array([[1.0, 0.9], [0.0, 0.5]])
    Q = np.linalg.inv(P)
    a = from_spec("dihedral:12")
    words = np.random.default_rng(4).integers(0, 2, size=(12, 200))
    r, counts = _judged(monkeypatch, Weights("full", P @ A @ Q, P @ h0, R @ Q), a, words)
    assert r.passed and counts["bound"] > counts["full"]


def test_a_readout_that_confuses_two_classes_fails_where_the_loop_says(monkeypatch):
    """Class 1's readout row is 1.05 times class 0's: the states still repeat (the bound judges
    the blocks), the prefixes in the states of those labels fail."""
    w = build("dihedral:12", "block:2").to_float()
    A, h0, R = w.float_arrays()
    R = R.copy()
    R[1] = 1.05 * R[0]
    words = np.random.default_rng(2).integers(0, 2, size=(12, 200))
    r, counts = _judged(monkeypatch, Weights("full", A, h0, R), from_spec("dihedral:12"), words)
    assert 0.8 < r.accuracy < 1 and counts["bound"] > counts["full"]


def test_a_drifted_construction_is_scored_in_full_where_it_drifts(monkeypatch):
    w = build("dihedral:12", "block:2").to_float()
    A, h0, R = w.float_arrays()
    A = A + np.random.default_rng(1).normal(scale=5e-3, size=A.shape)  # drifts off its states
    words = np.random.default_rng(2).integers(0, 2, size=(12, 200))
    r, counts = _judged(monkeypatch, Weights("full", A, h0, R), from_spec("dihedral:12"), words)
    assert 0.9 < r.accuracy < 1 and counts["full"] > 0


def test_states_that_never_repeat_are_scored_in_full(monkeypatch):
    rng = np.random.default_rng(3)
    a = Automaton(rng.integers(0, 20, size=(3, 20)).tolist(), labels=list(range(20)))
    w = Weights("full", rng.normal(size=(3, 2, 2)), rng.normal(size=2), rng.normal(size=(20, 2)))
    words = rng.integers(0, 3, size=(12, 200))
    tried = []
    see = floatcheck._Bound._see
    monkeypatch.setattr(floatcheck._Bound, "_see", lambda self, *args: tried.append(1) or see(self, *args))
    r, counts = _judged(monkeypatch, w, a, words)
    assert 0 < r.accuracy < 1 and counts == {"bound": 0, "full": 20}
    assert len(tried) == floatcheck._Bound.MISSES  # then no longer tried

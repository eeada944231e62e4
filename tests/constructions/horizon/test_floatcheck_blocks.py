"""The float check's fast paths against a plain float64 loop written for the tests
(``tests/plain_eval.py``): the states advanced by one GEMM over all symbols ("stacked"), by one
GEMM per symbol on rows padded by symbol ("grouped"), or entry by entry for diagonal matrices
("entrywise"), judged a block of steps at a time with the
scores class-major.  Accuracy, the last step's accuracy, the worst margin and the first failing
word must be what the plain loop says, for blocks of one step, a few steps and all of them."""

from __future__ import annotations

import numpy as np
import pytest

from bilinear.automata import Automaton
from bilinear.constructions import Weights
from bilinear.constructions.horizon import floatcheck
from bilinear.constructions.values import floatrun

from plain_eval import float64_margins


def _noisy(k: int, d: int, classes: int, seed: int) -> tuple[Weights, Automaton]:
    """Random weights near a random automaton's: they fail on some prefixes, not on others."""
    rng = np.random.default_rng(seed)
    a = Automaton(rng.integers(0, classes, size=(k, classes)).tolist(), labels=list(range(classes)))
    A = np.zeros((k, d, d))
    for s in range(k):
        A[s, :classes, :classes][a.delta[s], np.arange(classes)] = 1.0  # e_q -> e_{q.s}
    A += rng.normal(scale=0.3, size=A.shape)
    h0 = np.eye(d)[0] + rng.normal(scale=0.05, size=d)
    R = np.eye(classes, d) + rng.normal(scale=0.05, size=(classes, d))
    return Weights("full", A, h0, R), a


def _expected(w, a, words):
    A, h0, R = w.float_arrays()
    m = float64_margins(A, h0, R, a, words)
    ok = m[:, 1:] > 0
    fail = np.argwhere(~ok)
    first = None
    if fail.size:
        t = fail[:, 1].min()
        b = fail[fail[:, 1] == t, 0].min()
        first = tuple(words[b, : t + 1].tolist())
    return ok.mean(), ok[:, -1].mean(), m.min(), first


def _agrees_with_the_plain_loop(w, a, words) -> None:
    """The check's accuracy, last step's accuracy, worst margin and first failure are the plain
    loop's, on words where the weights fail on some prefixes and not on others."""
    r = floatcheck.check(w, a, word_batch=words)
    accuracy, final, worst, first = _expected(w, a, words)
    assert 0 < r.accuracy < 1 and r.first_failure is not None
    assert r.accuracy == pytest.approx(accuracy, abs=1e-12) and r.final_accuracy == pytest.approx(final, abs=1e-12)
    assert r.worst_margin == pytest.approx(worst, rel=1e-9)
    assert r.first_failure == first


@pytest.mark.parametrize("k, d, method", [(3, 4, "stacked"), (12, 6, "grouped"), (40, 3, "gathered")])
@pytest.mark.parametrize("entries", [1, 200, 1 << 19])
def test_check_agrees_with_the_plain_loop(monkeypatch, k, d, method, entries):
    w, a = _noisy(k, d, min(d, 4), seed=k)
    assert floatrun._method(w.float_arrays()[0], 60, "auto") == method
    monkeypatch.setattr(floatcheck, "_BLOCK_ENTRIES", entries)  # blocks of 1 step, a few, all 40
    words = np.random.default_rng(1).integers(0, k, size=(60, 40))
    _agrees_with_the_plain_loop(w, a, words)


@pytest.mark.parametrize("score_bytes", [1 << 19, 1])
def test_a_readout_scored_in_chunks_agrees_with_the_plain_loop(monkeypatch, score_bytes):
    """10 hidden units (at least 8: the readout is scored in chunks of rows): 60 words x 40
    steps, one block of 2,400 rows, scored at once under the default bytes (chunks of 4,681 rows),
    and in 37 chunks of 64 rows and one of 32 under 1 byte (the floor of 64 rows)."""
    w, a = _noisy(6, 10, 4, seed=9)
    monkeypatch.setattr(floatcheck, "_SCORE_BYTES", score_bytes)
    assert floatcheck._chunk_rows(4, 10) == (4681 if score_bytes > 1 else 64)
    words = np.random.default_rng(10).integers(0, 6, size=(60, 40))
    assert floatcheck._block_steps(60, 10) >= 40  # one block
    _agrees_with_the_plain_loop(w, a, words)


@pytest.mark.parametrize("n, chunk", [(1, 64), (64, 64), (100, 64), (192, 64), (250, 0), (300, 128)])
def test_row_margins_in_chunks_are_each_rows_own(n, chunk):
    """Each row's margin (its label's score less the largest other), in chunks of ``chunk`` rows
    (0: all at once), against a loop over the rows and classes written here; a buffer made for
    more rows than the call's, and called twice (the second call on rows the first left behind)."""
    rng = np.random.default_rng(n + chunk)
    R = np.asfortranarray(rng.normal(size=(5, 9)))
    work = floatcheck._Work(320, 5, chunk, 9)
    for _ in range(2):
        rows, labels = rng.normal(size=(n, 9)), rng.integers(0, 5, size=n)
        want = [R[labels[i]] @ rows[i] - max(R[c] @ rows[i] for c in range(5) if c != labels[i]) for i in range(n)]
        np.testing.assert_allclose(floatcheck._row_margins(R, rows, labels, work), want, rtol=0, atol=1e-12)


@pytest.mark.parametrize("hidden", [1, 2, 3, 4, 9, 16])
def test_norms_are_the_rows_lengths_and_one_for_a_zero_row(hidden):
    rows = np.random.default_rng(hidden).normal(size=(7, hidden))
    rows[3] = 0.0
    want = np.linalg.norm(rows, axis=1)
    want[3] = 1.0
    np.testing.assert_allclose(floatcheck._norms(rows), want, rtol=1e-15, atol=0)
    squares, out = np.empty((7, hidden)), np.empty(7)
    assert floatcheck._norms(rows, out, squares) is out
    np.testing.assert_allclose(out, want, rtol=1e-15, atol=0)


def test_blocks_hold_the_states_of_every_step():
    """Each block row is the float run's unit state times a positive number (the run rescales by
    powers of two only every few steps), its absolute sum within the stated range."""
    w, _ = _noisy(3, 4, 4, seed=3)
    A, h0, _ = w.float_arrays()
    words = np.random.default_rng(2).integers(0, 3, size=(7, 70))
    every = np.stack(list(floatrun.float_steps(A, h0, words)))  # (time, batch, hidden)
    for steps in (1, 3, 10, 100):
        got = [(t, b.copy()) for t, b in floatrun.float_blocks(A, h0, words, steps)]
        assert [t for t, _ in got] == list(range(0, 70, min(steps, 70)))
        states = np.concatenate([b for _, b in got])
        top = np.abs(states).sum(axis=2)
        assert top.min() >= 2.0 ** (-3 * floatrun.RESCALE_FLOOR) and top.max() <= 2.0 ** (2 * floatrun.RESCALE_FLOOR)
        if steps == 100:  # spans of rescale_span(A) steps: multiplied on in between (these matrices grow)
            assert floatrun.rescale_span(A) > 10 and top.max() > 4
        np.testing.assert_allclose(states / np.linalg.norm(states, axis=2, keepdims=True), every, atol=1e-13, rtol=0)


def test_stacked_grouped_and_gathered_states_agree():
    w, _ = _noisy(5, 6, 4, seed=5)
    A, h0, _ = w.float_arrays()
    words = np.random.default_rng(4).integers(0, 5, size=(30, 70))
    runs = {m: np.stack(list(floatrun.float_steps(A, h0, words, method=m))) for m in ("stacked", "grouped", "gathered")}
    assert np.allclose(runs["stacked"], runs["gathered"], atol=1e-12, rtol=0)
    assert np.allclose(runs["grouped"], runs["gathered"], atol=1e-12, rtol=0)
    assert np.allclose(np.linalg.norm(runs["stacked"], axis=2), 1.0)


def test_slots_place_every_word_in_its_symbols_rows():
    words = np.random.default_rng(6).integers(0, 4, size=(25, 9))
    slots, groups, sources = floatrun._slots(words, 4, 1)
    for t in range(9):
        for s in range(4):
            mine = np.flatnonzero(words[:, t] == s)
            assert slots[t, mine].tolist() == list(range(s * groups, s * groups + mine.size))
            assert sources[t, s * groups : (s + 1) * groups].tolist() == mine.tolist() + [0] * (groups - mine.size)
    assert groups == max(np.bincount(words[:, t], minlength=4).max() for t in range(9))


def test_a_step_too_concentrated_to_pad_goes_symbol_by_symbol(monkeypatch):
    """Padding holds symbols x (most words on one symbol) rows; past GATHER_MAX_FLOATS floats the
    step multiplies each symbol's rows without padding, with the same states."""
    w, _ = _noisy(12, 6, 4, seed=7)
    A, h0, _ = w.float_arrays()
    words = np.random.default_rng(8).integers(0, 12, size=(40, 30))
    words[:, 3] = 5  # every word reads symbol 5 at step 4
    want = np.stack(list(floatrun.float_steps(A, h0, words, method="gathered")))
    monkeypatch.setattr(floatrun, "GATHER_MAX_FLOATS", 12 * 20 * 6)  # pads at most 20 words a symbol
    assert floatrun._slots(words, 12, 6)[1] == 40
    got = np.stack(list(floatrun.float_steps(A, h0, words, method="grouped")))
    assert np.allclose(got, want, atol=1e-12, rtol=0)
    # padding fits, the list of padded rows for every step (12 x 40 x 30) does not: rows placed by slot
    monkeypatch.setattr(floatrun, "GATHER_MAX_FLOATS", 12 * 40 * 6)
    assert floatrun._slots(words, 12, 6)[2] is None
    got = np.stack(list(floatrun.float_steps(A, h0, words, method="grouped")))
    assert np.allclose(got, want, atol=1e-12, rtol=0)


def _noisy_diagonal(k: int, d: int, classes: int, seed: int) -> tuple[Weights, Automaton]:
    """Random diagonal weights (entries of both signs, some far from 1, one 0) and a random
    automaton: they fail on some prefixes, not on others (the empty word not among them)."""
    rng = np.random.default_rng(seed)
    a = Automaton(rng.integers(0, classes, size=(k, classes)).tolist(), labels=list(range(classes)))
    diagonals = rng.choice([-1.0, 1.0], size=(k, d)) * rng.uniform(0.2, 3.0, size=(k, d))
    diagonals[0, -1] = 0.0
    A = np.zeros((k, d, d))
    A[:, np.arange(d), np.arange(d)] = diagonals
    R = rng.normal(size=(classes, d))
    return Weights("diagonal", A, R[a.labels[a.start]], R), a  # the empty word read correctly


@pytest.mark.parametrize("entries", [1, 200, 1 << 19])
@pytest.mark.parametrize("floats", [1, 5 * 60 * 3, floatrun.ENTRYWISE_FLOATS])
def test_a_diagonal_network_is_checked_entry_by_entry_as_the_plain_loop_says(monkeypatch, entries, floats):
    """Diagonal matrices go the "entrywise" way (auto), the rows' diagonals gathered one step, 3
    steps (not dividing the 40) or all 40 at a time, judged in blocks of 1, a few or all steps."""
    w, a = _noisy_diagonal(3, 5, 3, seed=11)
    assert floatrun._method(w.float_arrays()[0], 60, "auto") == "entrywise"
    monkeypatch.setattr(floatcheck, "_BLOCK_ENTRIES", entries)
    monkeypatch.setattr(floatrun, "ENTRYWISE_FLOATS", floats)
    words = np.random.default_rng(1).integers(0, 3, size=(60, 40))
    _agrees_with_the_plain_loop(w, a, words)

"""The float check's judges at their edges: the many-class bound (``floatcheck._Bound``) on rows
whose bound is exactly 0 or that tie, against margins computed here; the dense run's first
failure when the empty word ties; bad words named on the dense path (``float_table=False``)."""

from __future__ import annotations

import numpy as np
import pytest

from bilinear.automata import Automaton, from_spec
from bilinear.constructions import Weights, build
from bilinear.constructions.horizon import floatcheck
from bilinear.errors import AutomatonError, UnknownSymbolError

from plain_eval import no_dense_check, per_word_first_failure, per_word_margins


def _plain_margins(R, flat, label):
    """Per row: (score of ``label`` - the largest other score) / the row's norm (1 for 0)."""
    out = []
    for x in flat:
        scores = [float(np.dot(r, x)) for r in R]
        norm = float(np.sqrt(np.dot(x, x))) or 1.0
        out.append((scores[label] - max(s for c, s in enumerate(scores) if c != label)) / norm)
    return np.array(out)


@pytest.mark.parametrize("worst", [-0.5, 0.0, 0.3])
def test_the_bound_scores_rows_it_cannot_clear(worst):
    """Class 0 scores (x + y) / 2, the 13 others 0: the largest entry difference is 1/2, the
    reference (1, 0) has margin 1/2.  The row (1, 1) lies at distance exactly 1 (bound exactly 0)
    with margin 0.707, the zero row ties (margin 0): both must be scored (correct; wrong), rows
    at the reference are correct unscored, and the worst margin is the least scored one."""
    R = np.array([[0.5, 0.5]] + [[0.0, 0.0]] * 13)
    bound = floatcheck._Bound.make(R, from_spec("parity"))  # 2 automaton states, both labelled
    assert bound is not None
    bound.labels = np.zeros(2, dtype=np.int64)  # every state's label: class 0
    flat = np.array([[1.0, 0.0]] * 8 + [[1.0, 1.0], [0.0, 0.0]])
    norms = floatcheck._norms(flat)
    states, labels = np.zeros(10, dtype=np.int64), np.zeros(10, dtype=np.int64)
    ok, least = bound.judge(flat, norms, labels, states, worst)
    want = _plain_margins(R, flat, 0)
    assert want[8] == pytest.approx(0.5**0.5) and want[9] == 0.0
    assert ok.tolist() == (want > 0).tolist() == [True] * 9 + [False]
    assert least == 0.0
    ok, least = bound.judge(flat[:9], norms[:9], labels[:9], states[:9], worst)  # only the (1, 1) row left
    assert ok.all() and least == pytest.approx(0.5**0.5)


@pytest.mark.parametrize("float_table", [True, False])
def test_an_empty_word_that_ties_is_the_first_failure(monkeypatch, float_table):
    """A readout of zeros: every score ties, the empty word's margin is 0 (not above 0): the
    first failure is the empty word and no prefix is correct, on the dense path as on the table's."""
    w = build("parity", "diagonal").to_float()
    A, h0, R = w.float_arrays()
    if float_table:
        no_dense_check(monkeypatch)
    r = floatcheck.check(Weights("diagonal", A, h0, 0 * R), from_spec("parity"), length=6, words=4,
                         float_table=float_table)
    assert r.first_failure == () and r.accuracy == 0 and r.worst_margin == 0.0


@pytest.mark.parametrize("float_table", [True, False])
def test_bad_words_are_named(float_table):
    """A symbol one past the last, a negative one and words of floats are the automaton's typed
    errors, naming the symbol (not an index error of a table's walk), on both paths (words
    enough for a table of parity's pairs)."""
    w, a = build("parity", "diagonal").to_float(), from_spec("parity")
    words = np.zeros((60, 40), dtype=np.int64)
    assert floatcheck._table_check(w, a, words, np.inf) is not None
    words[1, 3] = a.n_symbols
    with pytest.raises(UnknownSymbolError, match="index 2 in word 1 at position 3"):
        floatcheck.check(w, a, word_batch=words, float_table=float_table)
    words[1, 3] = -1
    with pytest.raises(UnknownSymbolError, match="word 1 at position 3"):
        floatcheck.check(w, a, word_batch=words, float_table=float_table)
    with pytest.raises(AutomatonError, match="symbol indices"):
        floatcheck.check(w, a, word_batch=np.zeros((60, 40)), float_table=float_table)


@pytest.mark.parametrize("last", [None, 0])
def test_the_worst_margin_is_over_the_prefixes_read(monkeypatch, last):
    """The table holds every pair reachable under any symbol; words of one symbol visit few of
    them: the worst margin is the least over the prefixes read (the plain per-word loop's), not
    over the table (modarith:5 with symbol 0 acting as symbol 1: wrong where symbol 0 is read),
    a prefix read once included (the last word ending in a 0)."""
    w, a = build("modarith:5", "full").to_float(), from_spec("modarith:5")
    A, h0, R = w.float_arrays()
    A = A.copy()
    A[0] = A[1]
    w = Weights("full", A, h0, R)
    words = np.full((60, 40), 2, dtype=np.int64)
    if last is not None:
        words[-1, -1] = last
    no_dense_check(monkeypatch)
    r = floatcheck.check(w, a, word_batch=words)
    m = per_word_margins(A, h0, R, a, words)
    assert r.worst_margin == m.min() and r.first_failure == per_word_first_failure(m, words)
    assert r.accuracy == (m[:, 1:] > 0).mean()
    if last is None:
        assert r.accuracy == 1.0 and m.min() > 0
    else:
        assert r.first_failure == tuple(words[-1].tolist()) and m.min() < 0


def test_margins_in_buffers_are_the_plain_margins():
    """The judge's margins formed in a check's buffers (``_Work``), on a full block and a shorter
    last one, are the numbers of ``label_margins`` without them (ties, wins and losses among them)."""
    rng = np.random.default_rng(4)
    work = floatcheck._Work(50, 6)
    for rows in (50, 17):
        scores = rng.integers(-3, 4, size=(6, rows)).astype(float)  # small integers: ties
        labels = rng.integers(0, 6, size=rows)
        scores[labels[:3], np.arange(3)] = [9.0, 3.0, -9.0]  # a win, a tie with the largest other, a loss
        scores[(labels[1] + 1) % 6, 1] = 3.0
        scores[:, 1] = np.minimum(scores[:, 1], 3.0)
        want = floatcheck.label_margins(scores.copy(), labels)
        got = floatcheck.label_margins(scores.copy(), labels, work)
        assert got.shape == (rows,) and np.array_equal(got, want)
        assert want[0] > 0 and want[1] == 0 and want[2] < 0


def test_the_automaton_is_walked_block_by_block():
    """``_states`` walks whole blocks, at least ``_WALK_STEPS`` steps at a time, from the last
    walked states, in buffers kept from walk to walk: the automaton's own trace and labels, block
    for block (blocks of 3 over 40 steps: walks of 18 steps, the last one shorter; blocks of 40
    and of 1 too)."""
    a = from_spec("modarith:5")
    words = np.random.default_rng(6).integers(0, a.n_symbols, size=(7, 40))
    trace = a.run_batch(words, trace=True).T
    for steps in (3, 40, 1):
        states_of = floatcheck._states(a, words)
        blocks = [tuple(x.copy() for x in states_of(t0, min(steps, 40 - t0))) for t0 in range(0, 40, steps)]
        assert np.array_equal(np.concatenate([q for q, _ in blocks]), trace)
        assert np.array_equal(np.concatenate([lab for _, lab in blocks]), a.labels[trace])


@pytest.mark.parametrize("float_table", [True, False])
@pytest.mark.parametrize("hidden", [2, 9])
def test_one_class_is_never_wrong(monkeypatch, float_table, hidden):
    """An automaton of one class: no other score to beat, every prefix correct and the worst
    margin +inf, on the table's path and the dense run's, the rows scored at once and (9 hidden
    units, chunks of 64 rows) in chunks: 30 words x 20 steps, one block of 600 rows."""
    rng = np.random.default_rng(hidden)
    a = Automaton([[0], [0]], labels=[0])
    w = Weights("full", np.stack([np.eye(hidden)] * 2) + rng.normal(scale=0.1, size=(2, hidden, hidden)),
                np.ones(hidden), rng.normal(size=(1, hidden)))
    if float_table:
        w = Weights("full", np.stack([np.eye(hidden)] * 2), np.ones(hidden), np.ones((1, hidden)))
        no_dense_check(monkeypatch)
    monkeypatch.setattr(floatcheck, "_SCORE_BYTES", 1)
    r = floatcheck.check(w, a, word_batch=rng.integers(0, 2, size=(30, 20)), float_table=float_table)
    assert r.accuracy == r.final_accuracy == 1.0 and r.first_failure is None
    assert r.worst_margin == np.inf

"""The closure's keys and clock, against computations written for the tests.

The closure encodes each transformation as a key: a direct-address table up to 8 states, exact
bit-packed integers for 9-15 states (``ceil(log2 n)`` bits a state), a checked hash beyond.  A key
one bit too narrow merges distinct elements silently (``random:states=10,symbols=2,seed=1`` came
out with 43,935 elements instead of 45,291), so the packed range is checked against a plain
closure over Python tuples, and the encoding against every row that differs in one entry."""

from __future__ import annotations

import types

import numpy as np
import pytest

import bilinear.automata.closure as closure
from bilinear.automata import Automaton, from_spec
from bilinear.errors import MonoidTooLargeError


def plain_closure(automaton: Automaton) -> dict[tuple[int, ...], int]:
    """Every transformation of the monoid (first u, then v) -> its breadth-first index: a plain
    closure over tuples, no keys, no numpy."""
    gens = [tuple(row) for row in automaton.delta.tolist()]
    identity = tuple(range(automaton.n_states))
    index = {identity: 0}
    frontier = [identity]
    while frontier:
        nxt = []
        for t in frontier:
            for g in gens:
                child = tuple(g[q] for q in t)  # first t, then g
                if child not in index:
                    index[child] = len(index)
                    nxt.append(child)
        frontier = nxt
    return index


@pytest.mark.parametrize("spec, size", [
    ("random:states=10,symbols=2,seed=1", 45_291),  # 4 bits a state: merged to 43,935 with 3
    ("random:states=12,symbols=2,seed=2", 33_703),
    ("random:states=9,symbols=2,seed=0", 436),
])
def test_packed_keys_keep_every_element(spec, size):
    a = from_spec(spec)
    assert 9 <= a.n_states <= 15 and closure._Keys(a.n_states, np.dtype(np.uint8)).mode == "packed"
    reference = plain_closure(a)
    c = closure.close(a)
    assert len(reference) == size == c.elements.shape[0]
    found = {tuple(row) for row in c.elements.tolist()}
    assert found == set(reference)
    # the right Cayley table agrees with composing the rows directly
    rows = c.elements.astype(np.int64)
    for s in range(a.n_symbols):
        np.testing.assert_array_equal(rows[c.right[:, s]], a.delta[s][rows])


@pytest.mark.parametrize("n", range(9, 16))
def test_packed_encoding_is_injective_for_every_state_count(n):
    """Every row with one entry changed (to every other value) gets a key of its own: with too few
    bits a value >= 2**bits spills into the next state's bits (n - 1 at state i equals 1 at state
    i + 1 plus something at state i)."""
    keys = closure._Keys(n, np.dtype(np.uint8))
    assert keys.mode == "packed"
    base = np.arange(n)[::-1].copy()
    rows = [base]
    for i in range(n):
        for v in range(n):
            if v != base[i]:
                row = base.copy()
                row[i] = v
                rows.append(row)
    rows.append(np.zeros(n, dtype=np.int64))
    rows.append(np.full(n, n - 1))
    encoded = keys.encode(np.array(rows, dtype=np.uint8))
    distinct_rows = {tuple(r) for r in np.array(rows).tolist()}
    assert len(set(encoded.tolist())) == len(distinct_rows)


def test_the_time_budget_stops_at_the_first_tick_past_it(monkeypatch):
    """With a clock that advances one second per reading, a budget of 2.5 s lets the ticks at 1 s
    and 2 s through (each reports the elements found) and stops at the tick at 3 s: two reports,
    not five (a budget read as twice itself)."""
    now = iter(range(10_000))
    monkeypatch.setattr(closure, "time", types.SimpleNamespace(monotonic=lambda: float(next(now))))
    reports: list[int] = []
    with pytest.raises(MonoidTooLargeError, match="within the time budget of 2.5 s"):
        closure.close(closure.full_transformation_automaton(7), time_budget=2.5, progress=reports.append)
    assert len(reports) == 2
    assert reports == sorted(reports) and reports[0] == 1


def test_a_budget_longer_than_the_work_finishes(monkeypatch):
    now = iter(range(10_000))
    monkeypatch.setattr(closure, "time", types.SimpleNamespace(monotonic=lambda: float(next(now))))
    reports: list[int] = []
    c = closure.close(from_spec("random:states=9,symbols=2,seed=0"), time_budget=1000, progress=reports.append)
    assert c.elements.shape[0] == 436 and reports[-1] == 436 and len(reports) < 20

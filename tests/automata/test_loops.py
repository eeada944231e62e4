"""The catalogue of access words and loops, checked against the automaton's own runs."""

from __future__ import annotations

import itertools

import numpy as np

from bilinear.automata import from_spec
from bilinear.automata.loops import MAX_LOOPS, catalogue, directed_loops


def transformation(a, word):
    return tuple(a.run(word, q) for q in range(a.n_states))


def test_prefixes_reach_every_state_shortest_first():
    a = from_spec("dihedral:5")
    c = catalogue(a)
    assert sorted(a.run(p) for p in c.prefixes) == list(range(a.n_states))
    assert [len(p) for p in c.prefixes] == sorted(len(p) for p in c.prefixes) and c.prefixes[0] == ()


def test_loops_are_symbols_pairs_then_cycles_and_idempotents():
    a = from_spec("random:states=5,symbols=2,seed=1")  # idempotents and cycles of length 3 and 4
    c = catalogue(a)
    k = a.n_symbols
    assert c.loops[:k] == tuple((s,) for s in range(k))
    assert len(c.loops) <= MAX_LOOPS and len(set(c.loops)) == len(c.loops)
    for loop, kind in zip(c.loops, c.kinds):
        f = transformation(a, loop)
        if kind == "idempotent":
            assert transformation(a, loop * 2) == f
        elif kind == "cycle":
            assert transformation(a, loop * 2) != f
            assert any(transformation(a, loop * (p + 1)) == f for p in range(2, 40))
        else:
            assert kind in ("symbol", "pair") and len(loop) == (1 if kind == "symbol" else 2)
    d5 = catalogue(from_spec("dihedral:5"))  # r r s: a reflection, a cycle of the group of length 3
    assert (1, 1, 0) in d5.loops or (0, 0, 1) in d5.loops
    assert d5.kinds[d5.loops.index((0, 0, 1) if (0, 0, 1) in d5.loops else (1, 1, 0))] == "cycle"
    assert "idempotent" in c.kinds


def test_directed_loops_in_the_float_check_order():
    rows = directed_loops(from_spec("parity"))
    assert rows[:4] == [((), (0,)), ((), (1,)), ((0,), (1,)), ((1,), (0,))]
    assert ((), (0, 1)) in rows and ((), (0, 0)) not in rows  # primitive loops only
    big = directed_loops(from_spec("symmetric:4,alphabet=all"), max_words=50)
    assert len(big) <= 50 + 24 and all(len(loop) == 1 for _, loop in big)
    assert np.all([len(h) <= 1 for h, _ in big])


def test_many_symbols_list_no_table_of_all_pairs():
    """cyclic:2000: the directed words are the 2,000 powers and the catalogue the first 48 loops;
    neither lists the 4 million pairs first (about 0.4 GB and seconds, 49 million pairs at the
    table limit's 7,000 symbols) to keep a few of them."""
    import tracemalloc

    from bilinear.automata.loops import _primitive, _primitive_count

    a = from_spec("cyclic:2000")
    peaks = []
    for make in (lambda: directed_loops(a), lambda: catalogue(a).loops):
        tracemalloc.start()
        try:
            got = make()
            peaks.append(tracemalloc.get_traced_memory()[1])
        finally:
            tracemalloc.stop()
        assert got in ([((), (s,)) for s in range(2000)], tuple((s,) for s in range(48)))
    # the catalogue's access words copy the 2000 x 2000 table (32 MiB); the pairs were 0.4 GB more
    assert peaks[0] < 2**20 and peaks[1] < 48 * 2**20, peaks
    # the count that decides it, against the words themselves
    assert all(_primitive_count(k, n) == sum(map(_primitive, itertools.product(range(k), repeat=n)))
               for k in range(1, 5) for n in range(1, 7))

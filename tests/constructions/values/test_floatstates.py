"""The float run as an automaton (``floatstates``): exactness of products against rational
arithmetic, the canonical states and their table against the float run itself, the pair table
and the walk against plain loops written here."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from bilinear.automata import from_spec
from bilinear.constructions import build
from bilinear.constructions.values import floatrun, floatstates


def _exact_product(M, v) -> list[Fraction]:
    return [sum((Fraction(float(a)) * Fraction(float(x)) for a, x in zip(row, v)), Fraction(0)) for row in M]


@pytest.mark.parametrize("seed", range(6))
def test_products_called_exact_are_exact(seed):
    """Random dyadic entries with few bits: where ``exact_products`` says so, the float product
    (matmul, einsum and a reversed sum) equals the rational one; with 40-bit entries it must not
    say so unless that holds too."""
    rng = np.random.default_rng(seed)
    bits = 20 if seed % 2 else 40
    A = np.ldexp(rng.integers(-(2**bits), 2**bits, size=(3, 4, 4)).astype(float), -bits)
    F = np.ldexp(rng.integers(-(2**bits), 2**bits, size=(5, 4)).astype(float), -bits - 3)
    verdict = floatstates.exact_products(A, F)
    assert verdict == (bits == 20)  # 20 + 23 bits and a few for the sum fit in 52; 40 + 43 do not
    for s in range(3):
        for i in range(5):
            want = _exact_product(A[s], F[i])
            got = [A[s] @ F[i], np.einsum("ij,j->i", A[s], F[i]), A[s][:, ::-1] @ F[i][::-1]]
            if verdict:
                assert all([Fraction(float(x)) for x in g] == want for g in got)


def test_a_sum_that_rounds_is_not_exact():
    A = np.array([[[1.0, 1.0], [0.0, 1.0]]])
    assert floatstates.exact_products(A, np.array([[0.5, 2.0**-52]]))  # 0.5 + 2^-52: 51 bits
    assert not floatstates.exact_products(A, np.array([[0.5, 2.0**-55]]))  # rounds to 0.5
    assert not floatstates.exact_products(A, np.array([[np.nan, 0.0]]))
    assert floatstates.exact_products(np.zeros((1, 2, 2)), np.array([[0.5, 2.0**-55]]))  # zero matrix: 0
    # a zero row (a state a reset sends to 0) beside others: its products are 0, no overflow warning
    assert floatstates.exact_products(A, np.array([[0.0, 0.0], [0.5, 0.25]]))


def test_the_lowest_bit_may_not_fall_below_its_floor():
    """LOWEST_UNIT: a product whose lowest bit lies at 2^-800 is exact, one bit lower is refused
    (the run's rescaling needs the room); the unit is that of the entries' lowest set bits, an odd
    significand or an even one alike, and of the matrix's and the row's together."""
    one = np.array([[[1.0]]])
    assert floatstates.LOWEST_UNIT == -800
    assert floatstates.exact_products(one, np.array([[2.0**-800]]))
    assert not floatstates.exact_products(one, np.array([[2.0**-801]]))
    assert floatstates.exact_products(one, np.array([[3 * 2.0**-800]]))
    assert not floatstates.exact_products(one, np.array([[3 * 2.0**-801]]))
    assert floatstates.exact_products(np.array([[[2.0**-400]]]), np.array([[2.0**-400]]))
    assert not floatstates.exact_products(np.array([[[2.0**-400]]]), np.array([[2.0**-401]]))


@pytest.mark.parametrize("spec, variant, states", [("modarith:5", "full", 5), ("symmetric:4", "full", 24),
                                                    ("quaternion", "full", 8), ("parity", "diagonal", 2)])
def test_the_table_is_the_float_runs_own_step(spec, variant, states):
    """Each state is canonical, the start is the run's start row made canonical, and
    ``delta[s, i]`` is the canonical form of the float product ``A[s] @ states[i]``."""
    A, h0, _ = build(spec, variant).to_float().float_arrays()
    fs = floatstates.float_states(A, h0, 10_000)
    assert fs is not None and fs.states.shape == (states, A.shape[1]) and fs.delta.shape == (A.shape[0], states)
    top = np.abs(fs.states).max(axis=1)
    assert ((top >= 0.5) & (top < 1)).all()
    assert np.array_equal(fs.states[0], floatstates.canonical(floatrun.start_row(h0)[None])[0])
    for s in range(A.shape[0]):
        assert np.array_equal(floatstates.canonical(fs.states @ A[s].T), fs.states[fs.delta[s]])
    assert len({row.tobytes() for row in fs.states}) == states
    assert floatstates.float_states(A, h0, states - 1) is None  # one state too few


def test_rows_of_the_dense_run_are_the_states_times_powers_of_two():
    """The theorem the float check relies on: every row the float check's run yields is a
    canonical state of the table (the one the walk reaches) times a power of two."""
    A, h0, _ = build("symmetric:4", "full").to_float().float_arrays()
    A = A * np.array([2.0, 0.5])[:, None, None]  # the same network, rows that grow and shrink
    fs = floatstates.float_states(A, h0, 1000)
    words = np.random.default_rng(1).integers(0, 2, size=(9, 150))
    q, f, table, first = floatstates.pair_table(fs, np.zeros((2, 1), dtype=np.int64), 0, 1000)  # one automaton state
    walked = f[floatstates.walk(table, first, words)]
    rows = np.concatenate([b.copy() for _, b in floatrun.float_blocks(A, h0, words, 7)])  # (time, batch, hidden)
    assert np.abs(rows).sum(axis=2).max() > 2  # multiplied on between rescalings: not canonical themselves
    assert np.array_equal(floatstates.canonical(rows.reshape(-1, A.shape[1])), fs.states[walked.reshape(-1)])


def test_drifting_and_growing_runs_give_up():
    A, h0, _ = build("cyclic:7", "rotation2d").to_float().float_arrays()
    assert floatstates.float_states(A, h0, 10_000) is None  # cos(2 pi / 7) rounds
    A, h0, _ = build("modarith:5", "full").to_float().float_arrays()
    noisy = A + np.random.default_rng(0).normal(scale=1e-6, size=A.shape)
    assert floatstates.float_states(noisy, h0, 10_000) is None
    grow = np.array([[[2.0, 0.0], [0.0, 1.0]]])  # exact, but (1, 2^-n) never repeats
    assert floatstates.float_states(grow, np.array([1.0, 1.0]), 300) is None


@pytest.mark.parametrize("start", [0, 3, 4])
def test_pair_table_and_walk_against_plain_loops(start):
    """From the automaton's start and from other states (the start pair's code is start * float
    states, its index among the sorted codes; from 4 the pairs are not those from (4 // 2, 0))."""
    a = from_spec("cyclic:6")
    A, h0, _ = build("parity", "diagonal").to_float().float_arrays()  # 2 symbols
    fs = floatstates.float_states(A, h0, 100)
    delta = a.delta[:2]  # symbols 0 and 1 of Z_6: pairs (q, parity) reachable
    q, f, table, first = floatstates.pair_table(fs, delta, start, 100)
    seen, todo = {(start, 0)}, [(start, 0)]
    while todo:
        x, y = todo.pop()
        for s in range(2):
            nxt = (int(delta[s, x]), int(fs.delta[s, y]))
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    assert set(zip(q.tolist(), f.tolist())) == seen and (q[first], f[first]) == (start, 0)
    for s in range(2):
        assert (delta[s, q] == q[table[s]]).all() and (fs.delta[s, f] == f[table[s]]).all()
    assert floatstates.pair_table(fs, delta, start, len(seen) - 1) is None
    words = np.random.default_rng(2).integers(0, 2, size=(5, 30))
    got = floatstates.walk(table, first, words)
    for b in range(5):
        p = first
        for t in range(30):
            p = table[words[b, t], p]
            assert got[t, b] == p


def test_pair_codes_have_a_limit():
    """MAX_PAIR_CODES state combinations are marked; one more and the table is refused (None),
    however few pairs are reachable (here one: every symbol stays put)."""
    n = 1 << 12
    assert floatstates.MAX_PAIR_CODES == n * n
    fs = floatstates.FloatStates(np.zeros((n, 1)), np.zeros((1, n), dtype=np.int64))
    stay = np.zeros((1, n), dtype=np.int64)
    q, f, table, first = floatstates.pair_table(fs, stay, 0, 1)
    assert (q.tolist(), f.tolist(), table.tolist(), first) == ([0], [0], [[0]], 0)
    assert floatstates.pair_table(fs, np.zeros((1, n + 1), dtype=np.int64), 0, 1) is None


def test_frontier_in_chunks_gives_the_same_states(monkeypatch):
    # the products are formed a chunk of states at a time (CHUNK_FLOATS bounds the memory): one
    # state per chunk must give the same states, numbering and transitions as the whole frontier
    A, h0, _ = build("symmetric:5", "full").to_float().float_arrays()
    whole = floatstates.float_states(A, h0, 1000)
    monkeypatch.setattr(floatstates, "CHUNK_FLOATS", 1)
    one = floatstates.float_states(A, h0, 1000)
    assert whole.states.shape == (120, 4)
    assert np.array_equal(whole.states, one.states) and np.array_equal(whole.delta, one.delta)
    monkeypatch.setattr(floatstates, "CHUNK_FLOATS", 2 * 4 * 4)  # two states a chunk, a partial last one
    assert np.array_equal(floatstates.float_states(A, h0, 1000).delta, whole.delta)

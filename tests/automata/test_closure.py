"""The closure's keys and clock, against computations written for the tests.

The closure encodes each transformation as a key: a direct-address table up to 8 states, exact
bit-packed integers for 9-15 states (``ceil(log2 n)`` bits a state), a checked hash beyond.  A key
one bit too narrow merges distinct elements silently (``random:states=10,symbols=2,seed=1`` came
out with 43,935 elements instead of 45,291), so the packed range is checked against a plain
closure over Python tuples, and the encoding against every row that differs in one entry."""

from __future__ import annotations


import itertools

import numpy as np
import pytest

import bilinear.automata.closure as closure
import bilinear.automata.codetables as codetables
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
    # the identity has no parent (-1, -1); every other element is its parent followed by one symbol
    assert c.parent[0] == -1 and c.via[0] == -1
    parent, via = c.parent[1:], c.via[1:]
    assert (parent >= 0).all() and (parent < np.arange(1, len(c.parent))).all()
    np.testing.assert_array_equal(c.elements[1:], a.delta[via[:, None], c.elements[parent]])
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


class FakeClock:
    """``time.monotonic`` for the closure: starts at 1000 s and advances one second per reading."""

    def __init__(self) -> None:
        self.now = 999.0
        self.reads = 0

    def monotonic(self) -> float:
        self.now += 1.0
        self.reads += 1
        return self.now


@pytest.mark.parametrize("budget, ticks", [(2.5, 2), (3.0, 3)])
def test_the_time_budget_stops_at_the_first_tick_past_it(monkeypatch, budget, ticks):
    """The clock is read once when the closure starts (1000 s) and once per tick (1001 s, ...).
    A budget of 2.5 s lets the ticks at 1 and 2 s past the start through (each reports the
    elements found) and stops at the tick 3 s past it; a budget of 3 s is not spent at 3 s (the
    budget is what may be used), so three ticks report.  A budget read as twice itself, or
    counted from the wrong origin, reports more or fewer."""
    monkeypatch.setattr(closure, "time", FakeClock())
    reports: list[int] = []
    with pytest.raises(MonoidTooLargeError, match=f"within the time budget of {budget:g} s"):
        closure.close(closure.full_transformation_automaton(7), time_budget=budget, progress=reports.append)
    assert len(reports) == ticks
    assert reports == sorted(reports) and reports[0] == 1


def test_a_budget_longer_than_the_work_finishes(monkeypatch):
    monkeypatch.setattr(closure, "time", FakeClock())
    reports: list[int] = []
    c = closure.close(from_spec("random:states=9,symbols=2,seed=0"), time_budget=1000, progress=reports.append)
    assert c.elements.shape[0] == 436 and reports[-1] == 436 and len(reports) < 20


def test_progress_lines_every_two_seconds_once_two_have_passed(monkeypatch, capsys):
    """``progress=True`` prints a line on stderr at a tick at least PROGRESS_AFTER (2 s) after the
    start and after the last line: with one second per reading, at 2, 4, 6, ... seconds (ticks 2,
    4, 6, ...); never without ``progress``."""
    assert closure.PROGRESS_AFTER == 2.0
    clock = FakeClock()
    monkeypatch.setattr(closure, "time", clock)
    c = closure.close(closure.full_transformation_automaton(5), progress=True)
    assert c.elements.shape[0] == 5**5
    ticks = clock.reads - 1
    lines = capsys.readouterr().err.splitlines()
    assert ticks >= 4 and len(lines) == ticks // 2
    seconds = [float(line.rsplit(", ", 1)[1].removesuffix(" s")) for line in lines]
    assert seconds == [2.0 * (i + 1) for i in range(len(lines))]
    assert all(line.startswith("monoid of T_5: ") for line in lines)
    monkeypatch.setattr(closure, "time", FakeClock())
    closure.close(closure.full_transformation_automaton(5))
    assert capsys.readouterr().err == ""


def test_the_work_limit_refuses_only_past_it(monkeypatch):
    """flipflop:3 (not a group, so no orbit bound refuses it before the closure) has 4 elements: a
    work limit of exactly 4 x symbols x states entries lets it finish, one entry less refuses it on
    the elements found, naming them."""
    a = from_spec("flipflop:3")
    size = closure.close(a).elements.shape[0]
    assert size == 4
    work = size * a.n_symbols * a.n_states
    monkeypatch.setattr(closure, "WORK_LIMIT", work)
    assert closure.close(a).elements.shape[0] == size
    monkeypatch.setattr(closure, "WORK_LIMIT", work - 1)
    with pytest.raises(MonoidTooLargeError, match=rf"= {size}\+ x {a.n_symbols} x {a.n_states} = {work:,}\+\)"):
        closure.close(a)


def _natural(n: int) -> Automaton:
    """S_n on its n points: the transposition (0 1) and the n-cycle."""
    return Automaton([[1, 0] + list(range(2, n)), [(i + 1) % n for i in range(n)]], labels=list(range(n)))


ROUND_CASES = [
    lambda: _natural(5),  # direct keys, a group
    lambda: closure.full_transformation_automaton(4),  # direct keys, not a group
    lambda: from_spec("random:states=6,symbols=3,seed=4"),
    lambda: from_spec("flipflop:3"),
    lambda: from_spec("random:states=9,symbols=2,seed=0"),  # packed keys in a dict
    lambda: from_spec("dihedral:9"),  # 18 states: hashed keys, checked
]


@pytest.mark.parametrize("make", ROUND_CASES)
@pytest.mark.parametrize("entries", [0, 1 << 20])
def test_rounds_of_several_levels_number_as_the_plain_closure(monkeypatch, make, entries):
    """A round runs several levels of a small frontier at once (``_ROUND_ENTRIES``); with 0 every
    round is one level, with 2^20 a round runs up to ``_ROUND_LEVELS`` levels.  Either way element i
    is the i-th transformation of the plain breadth-first closure over tuples (parent-major,
    symbol-minor: shortlex order), its parent and symbol compose to it, and the right Cayley table
    agrees with composing the rows."""
    monkeypatch.setattr(closure, "_ROUND_ENTRIES", entries)
    a = make()
    c = closure.close(a)
    assert [tuple(row) for row in c.elements.tolist()] == list(plain_closure(a))
    assert c.parent[0] == -1 and c.via[0] == -1
    rows = c.elements.astype(np.int64)
    np.testing.assert_array_equal(rows[1:], a.delta[c.via[1:, None], rows[c.parent[1:]]])
    assert (c.parent[1:] < np.arange(1, rows.shape[0])).all()
    for s in range(a.n_symbols):
        np.testing.assert_array_equal(rows[c.right[:, s]], a.delta[s][rows])


def test_a_round_of_many_levels_stops_at_the_limit(monkeypatch):
    """The limit is checked on the elements a whole round finds, before any is stored."""
    monkeypatch.setattr(closure, "_ROUND_ENTRIES", 1 << 20)
    with pytest.raises(MonoidTooLargeError, match=r"has more than 100 elements \(limit=100\)$"):
        closure.close(_natural(5), limit=100)
    assert closure.close(_natural(5), limit=120).elements.shape[0] == 120


def test_the_orbit_bound_still_refuses_a_limit_below_the_orbit():
    """The orbit pre-check is skipped only where an orbit (at most n states) cannot refuse."""
    with pytest.raises(MonoidTooLargeError, match="it is a group with an orbit of 7 states"):
        closure.close(_natural(7), limit=6)
    with pytest.raises(MonoidTooLargeError, match=r"has more than 7 elements \(limit=7\)$"):
        closure.close(_natural(7), limit=7)


@pytest.mark.parametrize("n", range(1, 9))
def test_codes_compose_and_decode_as_the_rows(n):
    """Up to 8 states an element is its code, ``low + (high << s)`` with ``low`` the images of the
    first ``c = ceil(n/2)`` states in base ``n``, ``high`` the others' and ``s`` the bits of
    ``n**c - 1``, and is composed on the code (two tables): every code's children are the codes
    of the rows composed directly, and a code decodes to its row, for random rows and generators
    of every state count 1-8; the identity's code is the identity row's."""
    rng = np.random.default_rng(n)
    gens = rng.integers(0, n, size=(3, n)).astype(np.uint8)
    codes = closure._Codes(gens, np.dtype(np.uint8))
    rows = rng.integers(0, n, size=(40, n))
    c = (n + 1) // 2
    shift = (n**c - 1).bit_length()

    def code(row):
        low = sum(int(v) * n**q for q, v in enumerate(row[:c]))
        high = sum(int(v) * n**q for q, v in enumerate(row[c:]))
        assert low < 1 << shift
        return low + (high << shift)

    want = [code(row) for row in rows.tolist()]
    got = codes.code(rows.astype(np.uint8))
    assert got.tolist() == want
    assert max(want) < codes.table.shape[0] <= 2 * n**n
    assert codes.decode(got).tolist() == rows.tolist()
    assert codes.identity == code(list(range(n)))
    children = codes.children(got).reshape(40, 3)
    for a in range(3):
        composed = [[int(gens[a][v]) for v in row] for row in rows.tolist()]  # first row, then a
        assert children[:, a].tolist() == [code(row) for row in composed]


CODE_CASES = [
    lambda: Automaton([[0]], labels=[0]),  # one state: the trivial monoid
    lambda: Automaton([[1, 0], [0, 0]], labels=[0, 1]),
    lambda: _natural(7),  # 5,040 elements
    lambda: from_spec("random:states=8,symbols=2,seed=3"),
    lambda: Automaton([[(q + 1) % 8 for q in range(8)], [7 - q for q in range(8)], [0] * 8], labels=[0] * 8),
]


@pytest.mark.parametrize("make", CODE_CASES)
def test_the_codes_closure_numbers_as_the_row_closure(monkeypatch, make):
    """The closure on codes (1-8 states) against the same automaton closed on rows with packed keys
    in a dict (``_direct`` patched off) and against the plain closure over tuples: the same
    elements in the same order, parents, symbols and right Cayley table."""
    a = make()
    got = closure.close(a)
    assert [tuple(row) for row in got.elements.tolist()] == list(plain_closure(a))
    monkeypatch.setattr(closure, "_direct", lambda n: False)
    assert closure._Keys(a.n_states, np.dtype(np.uint8)).mode == "packed"
    want = closure.close(make())
    for name in got._fields:
        assert np.array_equal(getattr(got, name), getattr(want, name)), name
        assert getattr(got, name).dtype == getattr(want, name).dtype, name


def test_the_place_value_tables_are_read_only():
    """The tables made once a process are handed to every later closure: a caller writing into
    one would change every closure after it, so they are read-only."""
    for table in (codetables._place_values(6, 3, 6), codetables._powers(7), codetables._digit_bytes(5, 3, 3),
                  codetables._code_rows(6)):
        assert not table.flags.writeable
        with pytest.raises(ValueError):
            table[0] = 1


@pytest.mark.parametrize("n", range(1, 7))
def test_the_kept_rows_of_every_code_are_its_transformation(n):
    """Up to 6 states a code decodes by one look-up in a table of every code's row, made once a
    process: every one of the n**n transformations, coded as the closure codes it, reads back
    its own row there (written here digit by digit, not by the tables the closure uses)."""
    rows = codetables._code_rows(n)
    c = (n + 1) // 2
    shift = (n**c - 1).bit_length()
    every = np.array(list(itertools.product(range(n), repeat=n)), dtype=np.int64)  # all n**n rows
    low = every[:, :c] @ np.array([n**q for q in range(c)], dtype=np.int64)
    high = every[:, c:] @ np.array([n**q for q in range(n - c)], dtype=np.int64)
    assert rows.shape == (n ** (n - c) << shift, n) and rows.dtype == np.uint8
    assert np.array_equal(rows[low + (high << shift)], every)
    assert codetables._code_rows(7) is None  # 7 states: the two-part decoding (tested above)


def test_codes_up_to_eight_states_decided_without_n_to_the_n():
    """Up to 8 states (8**8 = 2**24 entries, the table's largest) a closure runs on codes; from
    9 on it does not, and the decision for a ten-million-state automaton is immediate (n**n, a
    70-million-digit integer, is never formed)."""
    assert closure._direct(8) and closure._direct(1)
    assert not closure._direct(9)
    assert not closure._direct(10**7)


def test_a_hash_collision_falls_back_to_exact_keys(monkeypatch):
    """Past 15 states or so a row's key is a 64-bit hash, checked against the rows: with every hash
    made equal (each row colliding with the first), the check must notice and the closure start
    again on exact keys, giving the 20 rotations of a 20-cycle and nothing merged."""
    original = closure._Keys.encode

    def colliding(self, rows):
        keys = original(self, rows)
        return keys & np.uint64(0) if self.mode == "hashed" else keys

    monkeypatch.setattr(closure._Keys, "encode", colliding)
    cycle = Automaton([[(q + 1) % 20 for q in range(20)]], labels=list(range(20)))
    c = closure.close(cycle)
    assert c.elements.shape[0] == 20
    assert sorted(tuple(row) for row in c.elements.tolist()) == sorted(plain_closure(cycle))


def test_every_round_and_level_reports_and_the_last_report_is_the_whole_monoid(monkeypatch):
    """A progress callable hears the elements found at every round and last the whole monoid: S_6
    on its points finds its last 8 elements in its last round.  With one level a round (as a large
    frontier runs), T_5 reports once per breadth-first level (its depth plus one, the last level
    finding nothing: counted from the parents) and once at the end."""
    reports: list[int] = []
    assert closure.close(_natural(6), progress=reports.append).elements.shape[0] == 720
    assert reports[-1] == 720 and reports[-2] < 720 and reports == sorted(reports)
    reports.clear()
    monkeypatch.setattr(closure, "_levels", lambda *args: 1)
    c = closure.close(closure.full_transformation_automaton(5), progress=reports.append)
    depth = np.zeros(c.parent.shape[0], dtype=np.int64)
    for i in range(1, depth.shape[0]):  # parents come first (shortlex order)
        depth[i] = depth[c.parent[i]] + 1
    assert reports[-1] == 5**5 and len(reports) == int(depth.max()) + 2


@pytest.mark.parametrize("n", range(1, 9))
def test_the_table_kept_for_the_next_closure_is_clear(monkeypatch, n):
    """Up to 7 states the direct-address table is kept for the next closure on as many states,
    cleared at the codes the closure wrote: after S_n on its points it is all zero, and the
    next closure (T_n's generators, other codes) numbers as the plain closure.  8 states (64
    MiB) keep none."""
    monkeypatch.setattr(codetables, "_kept_tables", {})
    a = _natural(n) if n > 1 else Automaton([[0]], labels=[0])
    closure.close(a)
    kept = codetables._kept_tables
    if n == 8:
        assert kept == {}
        return
    (table,) = kept.values()
    assert table.dtype == np.int32 and not table.any()
    b = closure.full_transformation_automaton(n) if n < 7 else from_spec("random:states=7,symbols=3,seed=5")
    assert [tuple(row) for row in closure.close(b).elements.tolist()] == list(plain_closure(b))
    assert codetables._kept_tables[table.shape[0]] is table and not table.any()


def test_a_table_left_by_a_closure_that_stopped_is_not_kept(monkeypatch):
    """A closure stopped by its limit has marked codes it never numbered: its table is dropped
    (the kept one, taken by it, is gone too), and the next closure makes a clear one."""
    monkeypatch.setattr(codetables, "_kept_tables", {})
    closure.close(_natural(6))
    assert len(codetables._kept_tables) == 1
    with pytest.raises(MonoidTooLargeError):
        closure.close(closure.full_transformation_automaton(6), limit=1000)
    assert codetables._kept_tables == {}
    b = from_spec("random:states=6,symbols=2,seed=7")
    assert [tuple(row) for row in closure.close(b).elements.tolist()] == list(plain_closure(b))

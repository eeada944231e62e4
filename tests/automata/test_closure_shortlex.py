"""The closure's arrays against a breadth-first search written for the test: Python tuples, a dict
and a queue, no numpy, no keys, no rounds.

The queue numbers a child the first time it is seen, taking the elements in their own order and
the symbols in order: that is the shortlex numbering, each element's (parent, symbol) the last
step of its shortlex-least word.  The closure must give the same elements in the same order, the
same right Cayley table, parents and symbols -- whichever of its paths runs: up to 8 states on
codes (several levels a round for a small frontier, ``code_round``; one level a round for a large
one), with every round one level (``_ROUND_ENTRIES = 0``) or as many as 24, and, past 128 states,
keyed by a few sampled states (a permutation group first tries as many as fit one 64-bit key)."""

from __future__ import annotations

import numpy as np
import pytest

import bilinear.automata.closure as closure
import bilinear.automata.sampled as sampled
from bilinear.automata import Automaton, from_spec


def queue_closure(delta: list[list[int]], cap: int) -> tuple | None:
    """(elements, right, parent, via) of the monoid the rows of ``delta`` generate (first u, then
    v), numbered in the order a queue first meets them; None past ``cap`` elements."""
    gens = [tuple(row) for row in delta]
    identity = tuple(range(len(delta[0])))
    index, elements, parent, via, right = {identity: 0}, [identity], [-1], [-1], []
    i = 0
    while i < len(elements):
        row = []
        for a, g in enumerate(gens):
            child = tuple(g[q] for q in elements[i])
            j = index.get(child)
            if j is None:
                if len(elements) == cap:
                    return None
                j = index[child] = len(elements)
                elements.append(child)
                parent.append(i)
                via.append(a)
            row.append(j)
        right.append(row)
        i += 1
    return elements, right, parent, via


def _random_cases(count: int, cap: int) -> list[tuple[list[list[int]], tuple]]:
    """``count`` random automata on 1-8 states with 1-3 symbols (about half of them permutation
    groups, the others random maps) whose monoid has at most ``cap`` elements, with their queue
    closure; a fixed seed, so the same cases every run."""
    rng = np.random.default_rng(48)
    cases: list[tuple[list[list[int]], tuple]] = []
    while len(cases) < count:
        n, k = int(rng.integers(1, 9)), int(rng.integers(1, 4))
        group = rng.random() < 0.5
        delta = [(rng.permutation(n) if group else rng.integers(0, n, n)).tolist() for _ in range(k)]
        want = queue_closure(delta, cap)
        if want is not None:
            cases.append((delta, want))
    return cases


CASES = _random_cases(40, 3000)


def assert_same(got: closure.Closure, want: tuple) -> None:
    elements, right, parent, via = want
    assert got.elements.tolist() == [list(e) for e in elements]
    assert got.right.tolist() == right
    assert got.parent.tolist() == parent and got.via.tolist() == via
    assert got.right.dtype == got.parent.dtype == got.via.dtype == np.int64


def test_the_cases_cover_every_state_count_and_large_monoids():
    """The random cases are not all trivial: every state count 1-8, groups and non-groups, and
    monoids of hundreds of elements (several rounds of several levels each)."""
    sizes = [len(want[0]) for _, want in CASES]
    assert {len(delta[0]) for delta, _ in CASES} == set(range(1, 9))
    assert max(sizes) > 500 and sum(size > 100 for size in sizes) >= 8


@pytest.mark.parametrize("entries", [0, None, 1 << 16])
def test_the_codes_closure_numbers_as_the_queue(monkeypatch, entries):
    """Up to 8 states, on codes: every round one level (0), the default (several levels for a
    small frontier, one for a large one), or up to 24 levels a round (2^16 candidates)."""
    if entries is not None:
        monkeypatch.setattr(closure, "_ROUND_ENTRIES", entries)
    for delta, want in CASES:
        assert_same(closure.close(Automaton(delta, labels=[0] * len(delta[0]))), want)


def test_a_run_of_rounds_then_single_levels_then_rounds_again(monkeypatch):
    """With rounds of at most 256 candidates, T_5's frontier grows past the budget and shrinks
    below it again at the end, so its rounds of several levels come in two runs with single
    levels between, each finding new elements (the second run the last 4): the right rows and
    parents each run leaves for the end are filled for both runs."""
    monkeypatch.setattr(closure, "_ROUND_ENTRIES", 256)
    a = closure.full_transformation_automaton(5)
    want = queue_closure(a.delta.tolist(), 10_000)
    assert want is not None and len(want[0]) == 5**5
    assert_same(closure.close(a), want)


def test_a_permutation_group_is_first_keyed_by_as_many_states_as_fit_64_bits():
    """cyclic:200 (a Cayley automaton: any one state's image tells its elements apart) is closed on
    the images of 63 // 8 = 7 sampled states; the result is the queue's."""
    a = from_spec("cyclic:200")
    first = next(sampled._samples(a))
    assert first.tolist() == sampled._sample(200, 7).tolist()
    want = queue_closure(a.delta.tolist(), 1000)
    assert want is not None
    assert_same(closure.close(a), want)


def test_a_permutation_alike_on_every_sampled_state_is_still_found(monkeypatch):
    """A transposition of two states outside both samples (7 and 64 states) fixes every sampled
    state: both sampled closures find one element, the check of the edge (identity, t) refuses
    each, and the whole-row closure finds the two.  Blocks of one row (``_CACHE_ENTRIES`` = 1)
    compose and check row by row."""
    monkeypatch.setattr(sampled, "_CACHE_ENTRIES", 1)
    n = 200
    keyed = set(sampled._sample(n).tolist()) | set(sampled._sample(n, 7).tolist())
    i, j = [q for q in range(n) if q not in keyed][:2]
    swap = list(range(n))
    swap[i], swap[j] = j, i
    cycle = [(q + 1) % 3 if q < 3 else q for q in range(n)]  # a 3-cycle on states 0-2, whatever is sampled
    delta = [swap, cycle]
    want = queue_closure(delta, 100)
    assert want is not None and len(want[0]) == 6
    assert_same(closure.close(Automaton(delta, labels=[0] * n)), want)


def _rotations_and_resets(n: int) -> list[list[int]]:
    """``n`` states, three symbols: a rotation by one, a reset to state 0 and a rotation by three.
    Not a group; its monoid is the ``n`` rotations and the ``n`` constant maps, and the third
    symbol is on the breadth-first tree (the rotation by three is found by it at depth one)."""
    return [[(q + 1) % n for q in range(n)], [0] * n, [(q + 3) % n for q in range(n)]]


def test_the_samples_are_distinct_states_and_a_narrow_one_only_for_a_group():
    """A permutation group is first keyed by 63 // ceil(log2 n) states, then 64; any other
    automaton by 64 at once; each sample is that many distinct states, sorted."""
    group, other = from_spec("dihedral:90"), Automaton(_rotations_and_resets(200), labels=[0] * 200)
    assert [len(s) for s in sampled._samples(group)] == [63 // 8, 64]
    assert [len(s) for s in sampled._samples(other)] == [64]
    for a in (group, other):
        for s in sampled._samples(a):
            assert s.tolist() == sorted(set(s.tolist())) and 0 <= s[0] and s[-1] < a.n_states


@pytest.mark.parametrize("rows", [None, 1, 3])
def test_each_sample_closes_whole_without_the_fallback(monkeypatch, rows):
    """The sampled closure itself (not its fallback to whole rows, which would hide a wrong
    composition) gives the queue's arrays, on every sample of a group of 180 states (two symbols)
    and of a monoid of 400 transformations of 200 states (three symbols: the offsets of every
    symbol's generator), with blocks of the default size, of one row and of three rows (blocks that
    end at a parent inside them and at the block size)."""
    if rows is not None:
        monkeypatch.setattr(sampled, "_CACHE_ENTRIES", rows * 200)
    for delta in (from_spec("dihedral:90").delta.tolist(), _rotations_and_resets(200)):
        a = Automaton(delta, labels=[0] * len(delta[0]))
        want = queue_closure(delta, 1000)
        assert want is not None
        for sample in sampled._samples(a):
            assert_same(closure._closure(a, closure.DEFAULT_LIMIT, exact=False, sample=sample), want)


def test_a_collision_on_an_edge_into_a_tree_element_by_its_own_symbol_is_found():
    """b swaps two sampled states s1, s2 and two unsampled ones j1, j2; a sends s2 to s1 and fixes
    the rest.  "b then a" agrees with a on every sampled state (a merges s1 and s2) but not on j1,
    so the sampled closure takes it for a, whose tree edge is (identity, a): the edge (b, a) leads
    to an element found by the same symbol from another parent, and only its check tells the two
    apart; the closure is redone on whole rows."""
    n = 200
    keyed = sampled._sample(n).tolist()
    s1, s2 = keyed[:2]
    j1, j2 = [q for q in range(n) if q not in set(keyed)][:2]
    b, a = list(range(n)), list(range(n))
    b[s1], b[s2], b[j1], b[j2] = s2, s1, j2, j1
    a[s2] = s1
    want = queue_closure([b, a], 100)
    assert want is not None and tuple(a[q] for q in b) in want[0]  # "b then a" is an element of its own
    assert_same(closure.close(Automaton([b, a], labels=[0] * n)), want)


def test_the_blocks_are_the_documented_sizes():
    """Rows a block composes: sqrt(1,500 size / n) -- 38 for S_6's and S_7's Cayley automata, as
    the docstring says -- at most _CACHE_ENTRIES entries (a large monoid on 200 states) and at
    least one row (one element of a million states)."""
    assert sampled._block_rows(720, 720) == sampled._block_rows(5040, 5040) == 38
    assert sampled._block_rows(2_000_000, 200) == sampled._CACHE_ENTRIES // 200
    assert sampled._block_rows(1, 10**6) == 1


def _levels_by_definition(frontier: int, k: int, width: int, chunk: int) -> int:
    """The round budget as _levels documents it, by its sum: one level past ``chunk``, else the
    most ``m <= 24`` with ``frontier x (k + ... + k^m) x width <= _ROUND_ENTRIES`` (at least one)."""
    if frontier > chunk:
        return 1
    m = 1
    while m < closure._ROUND_LEVELS and frontier * sum(k**j for j in range(1, m + 2)) * width <= closure._ROUND_ENTRIES:
        m += 1
    return m


def test_the_levels_a_round_runs_are_its_budget():
    """_levels against its definition on frontiers of 1 to 2,049 elements, 1 to 5 symbols and the
    widths of codes (1), a shrinking frontier of codes (_SHRINKING) and rows of 7 states, with a
    chunk below, at and above the frontier; one symbol reaches the cap of 24 levels."""
    for frontier in (1, 2, 3, 7, 64, 100, 255, 256, 1024, 2048, 2049):
        for k in (1, 2, 3, 5):
            for width in (1, closure._SHRINKING, 7):
                for chunk in (frontier - 1, frontier, 10**6):
                    got = closure._levels(frontier, k, width, chunk)
                    assert got == _levels_by_definition(frontier, k, width, chunk), (frontier, k, width, chunk)
    assert closure._levels(1, 1, 1, 10) == 24 and closure._levels(1, 2, 1, 10) == 10


def _rounds_by_definition(want: tuple, k: int, chunk: int, n: int | None = None) -> list[tuple[int, int]]:
    """(frontier, levels) of every round the closure runs, from the queue's depths: a round from
    the frontier of depth L runs _levels(frontier, k, width) levels, the next frontier is depth
    L + levels.  On codes (``n`` None) ``width`` is 1 or, for a frontier smaller than the one before
    (the closure is ending), _SHRINKING; on rows it is the ``n`` states."""
    parent = want[2]
    depth = [0] * len(parent)
    for i in range(1, len(parent)):
        depth[i] = depth[parent[i]] + 1
    counts = [depth.count(d) for d in range(max(depth) + 1)]
    rounds, d, last = [], 0, 1
    while d < len(counts):
        f = counts[d]
        width = n if n is not None else closure._SHRINKING if f < last else 1
        last = f
        rounds.append((f, _levels_by_definition(f, k, width, chunk)))
        d += rounds[-1][1]
    return rounds


@pytest.mark.parametrize("entries", [None, 256])
def test_the_rounds_follow_the_frontier_as_it_grows_and_shrinks(monkeypatch, entries):
    """The rounds the codes closure runs (recorded) are the ones the budget gives on the queue's
    frontiers: S_6 on its points ends on frontiers that shrink (29 elements at depth 16, then 8 in
    two levels), T_5 with 256 candidates a round grows past the budget and shrinks below it."""
    if entries is not None:
        monkeypatch.setattr(closure, "_ROUND_ENTRIES", entries)
    ran: list[tuple[int, int]] = []
    code_round, level = closure._Search.code_round, closure._Search.level

    def record_round(self, lo, hi, levels):
        ran.append((hi - lo, levels))
        return code_round(self, lo, hi, levels)

    def record_level(self, lo, hi):
        ran.append((hi - lo, 1))
        return level(self, lo, hi)

    monkeypatch.setattr(closure._Search, "code_round", record_round)
    monkeypatch.setattr(closure._Search, "level", record_level)
    for delta in ([[1, 0, 2, 3, 4, 5], [1, 2, 3, 4, 5, 0]], closure.full_transformation_automaton(5).delta.tolist()):
        n, k = len(delta[0]), len(delta)
        want = queue_closure(delta, 5000)
        assert want is not None
        ran.clear()
        assert_same(closure.close(Automaton(delta, labels=[0] * n)), want)
        assert ran == _rounds_by_definition(want, k, closure._CHUNK_ENTRIES // (k * n))
        assert any(levels > 1 for _, levels in ran)


@pytest.mark.parametrize("entries", [None, 256])
def test_the_rounds_on_rows_follow_the_frontier(monkeypatch, entries):
    """On rows (10 states), the rounds (recorded) are the budget's on the queue's frontiers, each
    row of 10 entries: the dihedral group D_10 and S_4 on 4 of 10 points; S_4 in two rounds of 6
    and 5 levels by default, with 256 entries a round in one of 3 levels, single levels, then 2."""
    if entries is not None:
        monkeypatch.setattr(closure, "_ROUND_ENTRIES", entries)
    ran: list[tuple[int, int]] = []
    run_round = closure._Search.round

    def record(self, lo, hi, levels):
        ran.append((hi - lo, levels))
        return run_round(self, lo, hi, levels)

    monkeypatch.setattr(closure._Search, "round", record)
    n = 10
    dihedral = [[(q + 1) % n for q in range(n)], [(-q) % n for q in range(n)]]
    s4 = [[1, 0, *range(2, n)], [1, 2, 3, 0, *range(4, n)]]
    for delta in (dihedral, s4):
        want = queue_closure(delta, 100)
        assert want is not None
        ran.clear()
        assert_same(closure.close(Automaton(delta, labels=[0] * n)), want)
        assert ran == _rounds_by_definition(want, 2, closure._CHUNK_ENTRIES // (2 * n), n)
        assert any(levels > 1 for _, levels in ran)
    assert ran == ([(1, 6), (3, 5)] if entries is None else [(1, 3), (5, 1), (5, 1), (5, 1), (3, 2)])

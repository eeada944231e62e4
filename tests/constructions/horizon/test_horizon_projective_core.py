"""Theorem 23's core (docs/theory.md, the projective orbit horizon) against computations written here:
the rank-one factorisations and resetting symbols by hand, the restart pairs and the non-resetting
closures enumerated by brute force, and the recurrence C_k, U_k, V_k, the readout check, the reset
demands, the binary search of a trace and the composition of runs stepped by hand in Fractions on
chosen dyadic constants (so that the ball arithmetic is exact and the values compare equal)."""

from __future__ import annotations

import itertools
from fractions import Fraction as Q
from types import SimpleNamespace

import numpy as np
import pytest

from bilinear.automata.automaton import Automaton
from bilinear.constructions.exact.balls import arb, precision
from bilinear.constructions.horizon import horizon_orbit
from bilinear.constructions.horizon.horizon_projective import (MAX_STEPS, _certified, _closure, _Common, _demand, _holds,
                                                                 _rank_one, _recurrence, _restart_pairs, _Run, _step_run,
                                                                 _within, resetting_symbols)


def _q(x) -> Q:
    """The exact value of a point ball (every ball compared here has radius 0)."""
    assert x.rad() == 0, x
    man, exp = x.mid().man_exp()
    return Q(int(man)) * Q(2) ** int(exp)


# ------------------------------------------------------------------------------------------
# the resetting symbols: rank one on the kept coordinates, factorised exactly
# ------------------------------------------------------------------------------------------
def test_rank_one_factorises_exactly_and_refuses_the_rest():
    """``_rank_one(M)`` is ``(b, g)`` with ``M = b g^T``, b the first nonzero column of M (row-major
    first nonzero entry) and g its row scaled to 1 there; None for the zero matrix, rank two,
    floats; a 1 x 1 and a non-square matrix factorise too."""
    b, g = _rank_one([[0, 0, 0], [0, 2, 4], [0, -1, -2]])
    assert (b, g) == ((0, 2, -1), (0, 1, 2))
    assert _rank_one([[Q(1, 2), 1], [1, 2]]) == ((Q(1, 2), 1), (1, 2))
    assert _rank_one([[3]]) == ((3,), (1,))
    assert _rank_one([[0, 2, 6]]) == ((2,), (0, 1, 3))
    assert _rank_one([[0], [5], [10]]) == ((0, 5, 10), (1,))
    assert _rank_one([[0, 0], [0, 0]]) is None
    assert _rank_one([[1, 0], [0, 1]]) is None
    assert _rank_one([[1, 1], [1, 2]]) is None  # agrees with b g^T on the first row and column only
    assert _rank_one([[1.0, 2.0], [2.0, 4.0]]) is None


def _rank(M) -> int:
    """The rank of a matrix of Fractions, by Gaussian elimination written here."""
    rows, r = [list(map(Q, row)) for row in M], 0
    for c in range(len(rows[0]) if rows else 0):
        p = next((i for i in range(r, len(rows)) if rows[i][c] != 0), None)
        if p is None:
            continue
        rows[r], rows[p] = rows[p], rows[r]
        for i in range(len(rows)):
            if i != r and rows[i][c] != 0:
                f = rows[i][c] / rows[r][c]
                rows[i] = [x - f * y for x, y in zip(rows[i], rows[r])]
        r += 1
    return r


def test_resetting_symbols_are_the_rank_one_blocks_on_the_kept_coordinates():
    """A snapped network of 3 coordinates with K = (0, 2): symbol 0 is rank two on the whole space
    but rank one on K (a reset), symbol 1 rank one on the whole space but zero on K (not), symbol 2
    rank two on K (not), symbol 3 rank one on K; each reset's b g^T is its K x K block."""
    A = [[[1, 5, 2], [0, 7, 0], [3, 0, 6]],
         [[0, 1, 0], [0, 2, 0], [0, 3, 0]],
         [[1, 0, 0], [0, 0, 0], [0, 0, 1]],
         [[0, 0, Q(1, 2)], [9, 9, 9], [0, 0, -1]]]
    A = np.array([[[Q(x) for x in row] for row in M] for M in A], dtype=object)
    snap = SimpleNamespace(block_weights=SimpleNamespace(A=A, n_symbols=4), kept_coords=(0, 2))
    got = resetting_symbols(snap)
    blocks = [[[A[a][i][j] for j in (0, 2)] for i in (0, 2)] for a in range(4)]
    assert sorted(got) == [a for a in range(4) if _rank(blocks[a]) == 1] == [0, 3]
    for a, (b, g) in got.items():
        assert [[b[i] * g[j] for j in range(2)] for i in range(2)] == blocks[a]
    assert got[3] == ((Q(1, 2), -1), (0, 1))


# ------------------------------------------------------------------------------------------
# restart pairs and the closures under the non-resetting symbols, by brute force
# ------------------------------------------------------------------------------------------
def test_restart_pairs_are_each_reachable_pair_sent_through_each_reset_with_its_sign():
    """``(delta[a, q], sign(g_a . z) b_a)`` for every pair (q, z) and reset a, in that order, with
    g . z computed here (values 1/2, -1/2, 3, -5/2: signs not decided by an integer part), and a
    reset that sends a reachable state to 0 refused."""
    aut = Automaton([[1, 2, 0], [0, 0, 2]], labels=[0, 1, 0])
    resets = {0: ((1, 2), (Q(1, 2), 0)), 1: ((3, -1), (1, Q(1, 2)))}
    pairs = [(0, (1, 0)), (2, (-1, 0)), (1, (Q(5, 2), -10))]
    want = []
    for q, z in pairs:
        for a, (b, g) in resets.items():
            gz = sum(x * y for x, y in zip(g, z))
            assert gz != 0
            want.append((int(aut.delta[a, q]), tuple(x if gz > 0 else -x for x in b)))
    got = _restart_pairs(SimpleNamespace(pairs=pairs), aut, resets)
    assert got == want == [(1, (1, 2)), (0, (3, -1)), (0, (-1, -2)), (2, (-3, 1)),
                           (2, (1, 2)), (0, (-3, 1))]
    with pytest.raises(ValueError, match="to 0"):
        _restart_pairs(SimpleNamespace(pairs=[(0, (1, -2))]), aut, resets)
    with pytest.raises(ValueError, match="to 0"):
        _restart_pairs(SimpleNamespace(pairs=[(0, (0, 0))]), aut, {0: ((1,), (1, 1))})


def _reach(r, aut, gens):
    """The pairs reached from r by the non-resetting symbols, by a fixed-point iteration written here."""
    seen = {r}
    while True:
        new = {(int(aut.delta[a, q]), tuple(sum(m[i][j] * z[j] for j in range(len(z))) for i in range(len(m))))
               for q, z in seen for a, m in gens} - seen
        if not new:
            return seen
        seen |= new


def test_closures_are_the_reachable_pairs_of_each_pair_not_covered_already():
    """One closure per pair of ``pairs`` (in sorted order) not inside an earlier closure: a quarter
    turn on a 2-cycle of states reaches 4 pairs from (0, e1), (1, e2) is among them (skipped), and
    (2, e1) on a fixed state of a swap of coordinates reaches 2; over the limit: None."""
    aut = Automaton([[1, 0, 2], [0, 1, 2]], labels=[0, 1, 0])
    gens = [(0, ((0, -1), (1, 0)))]  # symbol 1 is the reset, symbol 0 turns
    pairs = [(1, (0, 1)), (0, (1, 0)), (2, (1, 0)), (0, (1, 0))]
    got = _closure(pairs, aut, gens)
    want, covered = [], set()
    for r in sorted(set(pairs)):
        if r not in covered:
            want.append(_reach(r, aut, gens))
            covered |= want[-1]
    assert [set(s) for s in got] == want and len(got) == 2
    assert [len(s) for s in got] == [4, 4]
    assert got[0][0] == (0, (1, 0))
    assert sorted(map(len, _closure([(2, (1, 0)), (2, (0, 1))], aut, [(0, ((0, 1), (1, 0)))]))) == [2]
    assert _closure([], aut, gens) == []


def test_closure_over_the_limit_is_none(monkeypatch):
    """A pair whose closure has more than MAX_PRODUCTS pairs (doubling: unbounded) gives None."""
    monkeypatch.setattr(horizon_orbit, "MAX_PRODUCTS", 8)
    aut = Automaton([[0], [0]])
    assert _closure([(0, (1,))], aut, [(0, ((2,),))]) is None
    assert len(_closure([(0, (1,))], aut, [(0, ((-1,),))])[0]) == 2


# ------------------------------------------------------------------------------------------
# the readout check and the reset demand at one (U, V)
# ------------------------------------------------------------------------------------------
def _run(n=1, y=1, eta=0, xi=0, pairs=(), exits=()):
    return _Run(arb(Q(n)), arb(Q(y)), arb(Q(eta)), arb(Q(xi)),
                tuple(tuple(arb(Q(x)) for x in p) for p in pairs), tuple(tuple(arb(Q(x)) for x in e) for e in exits))


def test_readout_holds_exactly_where_every_pair_keeps_a_positive_margin():
    """``m - tau (Y + U + V) - L_K U - L_D V > 0`` for every pair, compared with the value computed
    here on a grid of dyadic constants (margins above, at and below 0, and above and below 1)."""
    vals = [Q(0), Q(1, 4), Q(1, 2), Q(3, 2)]
    count = {True: 0, False: 0}
    with precision():
        for m, lk, ld, tau in itertools.product([Q(1, 2), Q(1), Q(3), Q(9, 2)], vals, vals, [Q(0), Q(1, 8), Q(1, 2)]):
            for y, u, v in [(Q(1), Q(1, 2), Q(1, 4)), (Q(2), Q(1, 4), Q(1, 2)), (Q(1, 2), Q(1), Q(0))]:
                margin = m - tau * (y + u + v) - lk * u - ld * v
                run = _run(y=y, pairs=[(m, lk, ld)])
                got = _holds(run, _Common(*(arb(0),) * 4, arb(tau)), arb(u), arb(v))
                assert got == (margin > 0), (m, lk, ld, tau, y, u, v)
                count[got] += 1
        assert min(count.values()) > 100
        # every pair: one failing pair of two fails the run
        cm = _Common(*(arb(0),) * 4, arb(0))
        assert _holds(_run(pairs=[(1, 1, 0), (Q(1, 2), 1, 0)]), cm, arb(Q(3, 4)), arb(0)) is False
        assert _holds(_run(pairs=[(1, 1, 0), (Q(1, 2), 1, 0)]), cm, arb(Q(1, 4)), arb(0)) is True
        assert _holds(_run(pairs=[(Q(1, 2), 1, 1)]), cm, arb(Q(1, 4)), arb(Q(1, 4))) is False  # exactly 0
        assert _holds(_run(), cm, arb(100), arb(100)) is True


def _hand_demand(exits, cc, u, v):
    """The restart error a reset needs, docs/theory.md Theorem 23, in Fractions (None: a sign lost)."""
    eps, gamma, beta, rho = cc
    us, vs = [Q(0)], [Q(0)]
    for eta, xi, gz, gn in exits:
        den = gz - gn * u
        if den <= 0:
            return None
        us.append((eta + eps * u + gamma * v) / den)
        vs.append((xi + beta * u + rho * v) / den)
    return max(us), max(vs)


RESET_COUPLINGS = (Q(1, 8), Q(1, 4), Q(1, 16), Q(1, 2))  # eps, gamma, beta, rho over the resetting symbols
RUN_COUPLINGS = (Q(1, 32), Q(1, 64), Q(1, 128), Q(3, 4))  # over the non-resetting ones
TAU = Q(1, 1024)


def _cm(exit=True):
    return _Common(*(arb(x) for x in RUN_COUPLINGS), arb(TAU), exit=tuple(arb(x) for x in RESET_COUPLINGS) if exit else None)


def test_common_constants_at_a_reset_are_the_resetting_symbols_ones():
    """``at_reset`` gives the exit couplings where given, else the runs' own."""
    with precision():
        assert [_q(x) for x in _cm().at_reset()] == list(RESET_COUPLINGS)
        assert [_q(x) for x in _cm(False).at_reset()] == list(RUN_COUPLINGS)


@pytest.mark.parametrize("exits", [
    [(Q(1, 16), Q(1, 32), Q(1, 2), Q(1, 4))],
    [(Q(1, 16), Q(1, 32), Q(1, 2), Q(1, 4)), (Q(1, 64), Q(1, 8), Q(1, 4), Q(1, 8)), (Q(1, 8), 0, 1, Q(1, 2))],
    [(0, 0, Q(3, 4), Q(1, 2))],
    [],
])
@pytest.mark.parametrize("uv", [(Q(0), Q(0)), (Q(1, 4), Q(1, 8)), (Q(1, 2), Q(3, 4)), (Q(3, 2), Q(1, 2)), (Q(2), Q(1))])
def test_reset_demand_is_the_theorem_computed_by_hand(exits, uv):
    """``_demand`` at (U, V): the largest ``(eta + eps U + gamma V) / (|g.z| - ||g|| U)`` and
    ``(xi + beta U + rho V) / (...)`` over the exits with the resetting symbols' couplings (0 at
    least), or None where a denominator is 0 or negative (U = 2 on an exit with |g.z| = 1 and
    ||g|| = 1/2: exactly 0)."""
    want = _hand_demand(exits, RESET_COUPLINGS, *uv)
    with precision():
        got = _demand(_run(exits=exits), _cm(), arb(uv[0]), arb(uv[1]))
        if want is None:
            assert got is None
        else:
            assert got is not None and [float(x.mid()) for x in got] == pytest.approx([float(x) for x in want], rel=1e-12)
            assert all(x.rad() < 1e-30 for x in got)


def test_reset_demand_at_exactly_zero_and_below_one_denominators():
    """A denominator exactly 0 gives None (not a division); one in (0, 1) gives a demand."""
    with precision():
        run = _run(exits=[(Q(1, 8), Q(1, 8), 1, Q(1, 2))])
        assert _demand(run, _cm(), arb(2), arb(0)) is None
        d = _demand(run, _cm(), arb(1), arb(0))
        assert [_q(x) for x in d] == [(Q(1, 8) + Q(1, 8)) * 2, (Q(1, 8) + Q(1, 16)) * 2]


# ------------------------------------------------------------------------------------------
# the recurrence and one run, stepped by hand
# ------------------------------------------------------------------------------------------
def _hand_recurrence(n, eta, xi, cc, u0, v0, limit):
    eps, gamma, beta, rho = cc
    C, U, V, vmax = Q(0), u0, v0, v0
    out = []
    for k in range(limit + 1):
        if k:
            C = C + eta + eps * U + gamma * V
            U, V = n * (u0 + C), rho * V + xi + beta * U
            vmax = max(vmax, V)
        out.append((k, U, V, vmax))
    return out


RUN = dict(n=Q(3, 2), eta=Q(1, 8), xi=Q(1, 16))


def test_recurrence_is_the_theorem_stepped_by_hand():
    """(k, U_k, V_k, max V) for k = 0..limit: C_k = C_{k-1} + eta + eps U_{k-1} + gamma V_{k-1},
    U_k = N_0 (u_0 + C_k), V_k = rho V_{k-1} + xi + beta U_{k-1}, with every constant distinct and
    nonzero (V falls first, then rises: max V stays at v_0, then follows V)."""
    cc = (Q(1, 4), Q(1, 2), Q(1, 4), Q(1, 2))
    cm = _Common(*(arb(x) for x in cc), arb(0))
    for u0, v0, limit in [(Q(1, 4), Q(1, 2), 5), (Q(0), Q(0), 3), (Q(1, 2), Q(3), 0), (Q(1, 8), Q(1, 4), 1)]:
        want = _hand_recurrence(RUN["n"], RUN["eta"], RUN["xi"], cc, u0, v0, limit)
        with precision():
            got = [(k, _q(U), _q(V), _q(vm)) for k, U, V, vm in _recurrence(_run(**RUN), cm, arb(u0), arb(v0), limit)]
        assert got == want
    assert [v for _, _, v, _ in _hand_recurrence(RUN["n"], RUN["eta"], RUN["xi"], cc, Q(1, 4), Q(1, 2), 5)][:2] == \
        [Q(1, 2), Q(3, 8)]


def _hand_step_run(run, cc_run, cc_reset, tau, u0, v0, first, limit, need):
    """``(last, top)`` of one run, docs/theory.md Theorem 23, in Fractions."""
    top = (Q(0), Q(0))
    for k, U, V, vmax in _hand_recurrence(run["n"], run["eta"], run["xi"], cc_run, u0, v0, limit):
        if k >= first and not all(m - tau * (run["y"] + U + V) - lk * U - ld * V > 0 for m, lk, ld in run["pairs"]):
            return k - 1, top
        d = _hand_demand(run["exits"], cc_reset, U, vmax)
        if d is None or (need is not None and not (d[0] <= need[0] and d[1] <= need[1])):
            return k - 1, top
        top = d
    return limit, top


# exits with |g.z| = 1 and ||g|| = 0 (demands exact), or ||g|| > 0 (the sign lost at some U)
EXACT_EXITS = [(Q(1, 16), Q(1, 32), 1, 0)]
STEP_CASES = [
    # (run, u0, v0, first, limit, need)
    (dict(y=1, pairs=[(1, Q(1, 2), Q(1, 4))], exits=EXACT_EXITS), Q(1, 16), Q(1, 32), 1, 50, None),
    (dict(y=1, pairs=[(1, Q(1, 2), Q(1, 4))], exits=EXACT_EXITS), Q(1, 16), Q(1, 32), 1, 2, None),  # the limit ends it
    (dict(y=1, pairs=[(Q(1, 64), 1, 1)], exits=EXACT_EXITS), Q(1, 16), Q(1, 32), 0, 50, None),  # fails at k = 0
    (dict(y=1, pairs=[(Q(1, 64), 1, 1)], exits=EXACT_EXITS), Q(1, 16), Q(1, 32), 1, 50, None),  # k = 0 not checked
    (dict(y=1, pairs=[(1, Q(1, 2), Q(1, 4))], exits=[(Q(1, 16), Q(1, 32), 1, Q(1, 2))]), Q(1, 16), Q(1, 32), 1, 50, None),
    (dict(y=1, pairs=[(4, Q(1, 8), Q(1, 8))], exits=EXACT_EXITS), Q(1, 16), Q(1, 32), 1, 50, (Q(1, 2), Q(1, 2))),
    (dict(y=1, pairs=[(4, Q(1, 8), Q(1, 8))], exits=EXACT_EXITS), Q(1, 16), Q(1, 32), 1, 50, (Q(1, 2), Q(1, 4))),
    (dict(y=1, pairs=[(4, Q(1, 8), Q(1, 8))], exits=EXACT_EXITS), Q(1, 16), Q(1, 32), 1, 50, (Q(1, 4), Q(1))),
    (dict(y=1, pairs=[], exits=EXACT_EXITS), Q(1, 16), Q(1, 32), 0, 50, (Q(1, 32), Q(1, 32))),  # k = 0 over need
    # the sign of a reset lost (|g.z| - ||g|| U <= 0 at U >= 2) while the readout holds: with and without need
    (dict(y=1, pairs=[(100, Q(1, 8), Q(1, 8))], exits=[(Q(1, 16), Q(1, 32), 1, Q(1, 2))]), Q(1, 16), Q(1, 32), 1, 50, None),
    (dict(y=1, pairs=[(100, Q(1, 8), Q(1, 8))], exits=[(Q(1, 16), Q(1, 32), 1, Q(1, 2))]), Q(1, 16), Q(1, 32), 1, 50,
     (Q(100), Q(100))),
]


def _step_case(case, exact_need_at=None):
    run, u0, v0, first, limit, need = case
    run = dict(RUN, **run)
    want = _hand_step_run(run, RUN_COUPLINGS, RESET_COUPLINGS, TAU, u0, v0, first, limit, need)
    with precision():
        r = _Run(arb(run["n"]), arb(Q(run["y"])), arb(run["eta"]), arb(run["xi"]),
                 tuple(tuple(arb(Q(x)) for x in p) for p in run["pairs"]), tuple(tuple(arb(Q(x)) for x in e) for e in run["exits"]))
        k, top = _step_run(r, _cm(), arb(u0), arb(v0), first, limit,
                           None if need is None else (arb(need[0]), arb(need[1])))
        return (k, (_q(top[0]), _q(top[1]))), want


@pytest.mark.parametrize("case", STEP_CASES)
def test_one_run_is_the_theorem_stepped_by_hand(case):
    """``_step_run``'s last step and largest demand against the run stepped here: the readout from
    ``first`` on, the sign of every reset, every demand within ``need`` (where given)."""
    got, want = _step_case(case)
    assert got[0] == want[0] and [float(x) for x in got[1]] == pytest.approx([float(x) for x in want[1]], rel=1e-12)
    assert -1 <= got[0] < case[4] or case[4] == 2


def test_hand_step_cases_end_where_their_comments_say():
    """The cases above reach what they are meant to (so that each branch of the run is exercised)."""
    ends = [_hand_step_run(dict(RUN, **c[0]), RUN_COUPLINGS, RESET_COUPLINGS, TAU, *c[1:])[0] for c in STEP_CASES]
    assert ends[1] == 2 and ends[2] == -1 and ends[3] == 0 and ends[8] == -1
    assert ends[5:8] == [11, 6, 4] and ends[0] > 2 and ends[4] == 7 and ends[9] == ends[10] == 8


def test_a_demand_exactly_at_the_restart_error_is_within_it():
    """A demand equal to ``need`` in either component counts as within (``<=``): the run goes on
    one step further than with ``need`` a little below; and one component out is out."""
    base = dict(y=1, pairs=[(4, Q(1, 8), Q(1, 8))], exits=EXACT_EXITS)
    run = dict(RUN, **base)
    trace = [_hand_demand(run["exits"], RESET_COUPLINGS, U, vm)
             for _, U, _, vm in _hand_recurrence(run["n"], run["eta"], run["xi"], RUN_COUPLINGS, Q(1, 16), Q(1, 32), 6)]
    big = Q(10)
    for comp in (0, 1):
        at = trace[3][comp]
        for need, last in [((at, big) if comp == 0 else (big, at), 3), ((at - Q(1, 2**40), big) if comp == 0 else
                                                                          (big, at - Q(1, 2**40)), 2)]:
            got, want = _step_case((base, Q(1, 16), Q(1, 32), 1, 50, need))
            assert got == want and got[0] == last, (comp, got, want)


# ------------------------------------------------------------------------------------------
# the binary search of a trace and the composition of the runs
# ------------------------------------------------------------------------------------------
def _ball_trace(tr):
    return [(arb(a), arb(b)) for a, b in tr]


def test_within_is_the_last_step_of_a_prefix_within_the_need_found_by_brute_force():
    """Every non-decreasing trace of up to 7 demands from a small grid (both components), every need
    on the grid (equal values within, ``<=``): the binary search against the linear scan."""
    grid = [Q(0), Q(1, 4), Q(1, 2), Q(1), Q(2)]
    rng = np.random.default_rng(0)
    with precision():
        for length in range(8):
            for _ in range(12):
                a = sorted(grid[i] for i in rng.integers(0, 5, size=length))
                b = sorted(grid[i] for i in rng.integers(0, 5, size=length))
                tr = list(zip(a, b))
                bt = _ball_trace(tr)
                assert _within(bt, None) == length - 1
                for need in itertools.product(grid, grid):
                    t = -1
                    while t + 1 < length and tr[t + 1][0] <= need[0] and tr[t + 1][1] <= need[1]:
                        t += 1
                    assert _within(bt, (arb(need[0]), arb(need[1]))) == t, (tr, need)


def test_certified_with_no_runs_is_the_largest_number_of_steps_after_the_exhaustive_depth():
    """No start trace and no restart run: ``s + MAX_STEPS`` and no demand."""
    with precision():
        length, top = _certified([], [], _cm(), 7, (arb(1), arb(1)), True)
        assert length == 7 + MAX_STEPS and [_q(x) for x in top] == [0, 0]


CERT_RESTART = dict(y=1, pairs=[(4, Q(1, 8), Q(1, 8))], exits=EXACT_EXITS)


@pytest.mark.parametrize("traces,restart,check,s", [
    ([[(Q(1, 16), Q(1, 8)), (Q(1, 8), Q(1, 4)), (Q(1, 4), Q(1, 2)), (Q(1, 2), Q(1))]], (Q(1, 4), Q(1, 2)), True, 5),
    ([[(Q(1, 16), Q(1, 8)), (Q(1, 8), Q(1, 4)), (Q(1, 4), Q(1, 2)), (Q(1, 2), Q(1))]], (Q(1, 4), Q(1, 2)), False, 5),
    ([[(Q(1, 16), Q(1, 8)), (Q(1, 8), Q(1, 4))], [(Q(1, 32), Q(1, 2))]], (Q(1, 2), Q(3, 4)), True, 3),
    ([[(Q(1, 16), Q(1, 8)), (Q(1, 8), Q(1, 4))], [(Q(1, 32), Q(1, 2))]], (Q(1, 2), Q(1, 4)), True, 3),   # t = 1 and -1
    ([[(Q(1, 16), Q(1, 8)), (Q(1, 8), Q(1, 4))], [(Q(3, 4), Q(1, 64))]], (Q(1, 2), Q(1, 2)), True, 3),  # t = 1 and -1
    ([[(Q(1, 64), Q(1, 128)), (Q(1, 32), Q(1, 64))]], (Q(1, 64), Q(1, 32)), True, 0),   # t = 0: tr[0] is the top
    ([[(Q(1, 16), Q(1, 8))] * 12], (Q(1, 4), Q(1, 4)), True, 2),
    ([[(Q(1, 16), Q(1, 8))] * 12], (Q(1, 4), Q(1, 4)), False, 2),
    ([[(Q(1, 16), Q(1, 8))] * 12], (Q(16), Q(16)), False, 2),  # the restart's readout fails at k = 0
])
def test_certified_length_is_the_composition_of_the_runs_computed_by_hand(traces, restart, check, s):
    """``min(s + t over the start traces, s + 1 + k of each restart run stepped (from k = 0, the
    restart error its start) to at most the length so far minus s + 1)``, and the largest demand
    seen (the traces' at t, the restart runs' up to k), component by component."""
    need = restart if check else None
    length, tops = s + MAX_STEPS, [(Q(0), Q(0))]
    for tr in traces:
        t = -1
        while t + 1 < len(tr) and (need is None or (tr[t + 1][0] <= need[0] and tr[t + 1][1] <= need[1])):
            t += 1
        length = min(length, s + t)
        if t >= 0:
            tops.append(tr[t])
    run = dict(RUN, **CERT_RESTART)
    k, d = _hand_step_run(run, RUN_COUPLINGS, RESET_COUPLINGS, TAU, restart[0], restart[1], 0,
                          min(MAX_STEPS, max(0, length - s - 1)), need)
    length = min(length, s + 1 + k)
    tops.append(d)
    want = (length, (max(x for x, _ in tops), max(y for _, y in tops)))
    with precision():
        r = _Run(arb(run["n"]), arb(Q(run["y"])), arb(run["eta"]), arb(run["xi"]),
                 tuple(tuple(arb(Q(x)) for x in p) for p in run["pairs"]), tuple(tuple(arb(Q(x)) for x in e) for e in run["exits"]))
        got, top = _certified([_ball_trace(tr) for tr in traces], [r], _cm(), s, (arb(restart[0]), arb(restart[1])), check)
        assert (got, (_q(top[0]), _q(top[1]))) == want

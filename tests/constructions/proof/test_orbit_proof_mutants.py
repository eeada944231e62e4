"""The orbit of one generator (constructions/proof/orbitproof.py) on the cases its own tests left
open: an orbit with a tail, two states on one direction, a start state other than 0, a symbol on the
orbit that does not commute with the generator, the third generator tried, the limits on the orbit's
length and the hidden size, and the clock.  Each expected value is worked out by hand below and,
where the orbit is taken, compared with the general loop of ``prove`` (the orbit path turned off)."""

from __future__ import annotations

import dataclasses
import time

import numpy as np

from bilinear.automata import Automaton, from_spec
from bilinear.constructions.exact.domains import IntegerDomain, choose_domain, sparse_rows
from bilinear.constructions.exact.field import cos2pi, sin2pi
from bilinear.constructions.handmade.registry import build
from bilinear.constructions.proof import orbitproof, prover
from bilinear.constructions.proof.search import Clock, HiddenStore, PairSearch
from bilinear.constructions.values.weights import Weights


def _rotation(k: int, n: int, d: int = 2, rest: int = 1) -> list:
    """The rotation by 2 pi k / n in the first two coordinates of a d x d matrix, ``rest`` times
    the identity on the others."""
    M = [[rest * int(i == j) for j in range(d)] for i in range(d)]
    M[0][0], M[0][1], M[1][0], M[1][1] = cos2pi(k, n), -sin2pi(k, n), sin2pi(k, n), cos2pi(k, n)
    return M


def _readout(n: int, d: int = 2) -> list:
    """Class c reads the direction at angle 2 pi c / n: its score on ``R^k e1`` is cos 2 pi (c - k) / n."""
    return [[cos2pi(c, n), sin2pi(c, n)] + [0] * (d - 2) for c in range(n)]


def _cyclic(n: int, steps, labels=None, start: int = 0) -> Automaton:
    """Z_n with symbol i adding ``steps[i]``."""
    return Automaton([[(q + a) % n for q in range(n)] for a in steps], start=start, labels=labels)


def _general(weights, automaton, monkeypatch, **kwargs):
    with monkeypatch.context() as m:
        m.setattr(prover, "orbit_closure", lambda *args, **kw: None)  # the general loop only
        return prover.prove(weights, automaton, **kwargs)


def _watched(weights, automaton, monkeypatch, **kwargs):
    """``prove``'s result and whether the (real) orbit closure returned it."""
    taken = []
    real = prover.orbit_closure

    def watch(*args, **kw):
        out = real(*args, **kw)
        taken.append(out is not None)
        return out

    with monkeypatch.context() as m:
        m.setattr(prover, "orbit_closure", watch)
        result = prover.prove(weights, automaton, **kwargs)
    return result, taken == [True]


def _same(fast, slow):
    assert type(fast) is type(slow)
    for f in dataclasses.fields(fast):
        assert getattr(fast, f.name) == getattr(slow, f.name), f.name
    assert getattr(fast, "_hidden", None) == getattr(slow, "_hidden", None)


def _find(weights, limit: int = 64):
    domain = choose_domain(weights)
    rows = [sparse_rows(weights.A[s], domain) for s in range(weights.n_symbols)]
    return orbitproof._find_orbit(domain, rows, [domain.convert(x) for x in weights.h0], weights.dim, limit)


def test_an_orbit_with_a_tail_is_read_cyclically_past_the_tail(monkeypatch):
    """g = R (+) 0 in dimension 3 with R of order 7, from h0 = (1, 0, 1): h_k = (R^k e1, 0) for k >= 1,
    so h_8 = h_1: the cycle starts at t = 1, m = 8 directions, period 7, and index k >= 8 is
    1 + (k - 1) mod 7.  With the identity as second symbol and Z_7's labels the pairs are (0, h0) and
    (c mod 7, h_(1 + (c - 1) mod 7)) for c >= 1: 8 pairs on 8 directions, state 0 on two of them."""
    w = Weights("full", A=[_rotation(1, 7, 3, rest=0), _rotation(0, 7, 3)], h0=[1, 0, 1], readout=_readout(7, 3))
    a = _cyclic(7, [1, 0])
    orbit = _find(w)
    assert (orbit.t, orbit.m, orbit.jump.tolist()) == (1, 8, [1, 0])
    assert orbit.advance(np.array([0, 7, 8, 14, 15, 16])).tolist() == [0, 7, 1, 7, 1, 2]
    fast, taken = _watched(w, a, monkeypatch)
    assert taken and fast.status == "proved"
    assert (fast.states_explored, fast.hidden_states) == (8, 8)
    assert fast.state_map == ((0, 7), (1,), (2,), (3,), (4,), (5,), (6,))
    _same(fast, _general(w, a, monkeypatch))


def test_two_states_on_one_direction_are_two_pairs(monkeypatch):
    """Z_14 read through a rotation of order 7 (labels q mod 7): states q and q + 7 share the direction
    R^q e1, so the closure has 14 pairs on 7 directions (a pair is keyed by its state and its orbit
    index, not the index alone); two symbols (R, identity) are enough for the orbit path."""
    w = Weights("full", A=[_rotation(1, 7), _rotation(0, 7)], h0=[1, 0], readout=_readout(7))
    a = _cyclic(14, [1, 0], labels=[q % 7 for q in range(14)])
    fast, taken = _watched(w, a, monkeypatch)
    assert taken and fast.status == "proved"
    assert (fast.states_explored, fast.hidden_states) == (14, 7)
    assert fast.state_map == tuple((q % 7,) for q in range(14))
    _same(fast, _general(w, a, monkeypatch))


def test_a_start_state_other_than_0_is_the_first_pair_seen(monkeypatch):
    """cyclic:7's rotations read from start state 3 (label of q: q - 3 mod 7): the word of sum c
    reaches state 3 + c and direction c; the start pair (3, h0) is reached again by every word of
    sum 0 mod 7 and must not be added twice: 7 pairs, state 3 + c on direction c."""
    w = build(from_spec("cyclic:7"), "rotation2d")
    a = Automaton(from_spec("cyclic:7").delta, start=3, labels=[(q - 3) % 7 for q in range(7)])
    fast, taken = _watched(w, a, monkeypatch)
    assert taken and fast.status == "proved"
    assert (fast.states_explored, fast.hidden_states) == (7, 7)
    assert fast.state_map == tuple(((q - 3) % 7,) for q in range(7))
    _same(fast, _general(w, a, monkeypatch))


def test_a_symbol_on_the_orbit_that_does_not_commute_is_refused(monkeypatch):
    """D_7 on the plane: the rotation R of order 7 and the reflection F = diag(1, -1).  F h0 = h0 is on
    R's orbit, but F R = R^-1 F != R F (F h_k = h_-k, not h_k), so the orbit path is refused; the
    general loop proves the action on the 7 directions (state q: direction q, F sends q to -q)."""
    domain = choose_domain(Weights("full", A=[_rotation(1, 7)], h0=[1, 0], readout=[[1, 0]]))
    R, F, R2 = (sparse_rows(np.array(M, dtype=object), domain) for M in (_rotation(1, 7), [[1, 0], [0, -1]],
                                                                            _rotation(2, 7)))
    assert not orbitproof._commutes(domain, F, R, 2)
    assert orbitproof._commutes(domain, R2, R, 2)
    w = Weights("full", A=[_rotation(1, 7), [[1, 0], [0, -1]]], h0=[1, 0], readout=_readout(7))
    a = Automaton([[(q + 1) % 7 for q in range(7)], [(-q) % 7 for q in range(7)]])
    assert _find(w) is None
    result, taken = _watched(w, a, monkeypatch)
    assert not taken and result.status == "proved"
    assert (result.states_explored, result.hidden_states) == (7, 7)


def test_the_third_symbol_that_moves_the_start_is_tried_as_generator(monkeypatch):
    """Z_30 with symbols R^2, R^3, R (R of order 30): R^2's orbit (15 directions) misses R^3 h0 and
    R^3's (10 directions) misses R^2 h0, so the generator is the third symbol tried (of
    ORBIT_GENERATORS_TRIED = 3), with jumps 2, 3, 1; 30 pairs, state q on direction R^q e1."""
    w = Weights("full", A=[_rotation(2, 30), _rotation(3, 30), _rotation(1, 30)], h0=[1, 0], readout=_readout(30))
    a = _cyclic(30, [2, 3, 1])
    orbit = _find(w)
    assert (orbit.t, orbit.m, orbit.jump.tolist()) == (0, 30, [2, 3, 1])
    fast, taken = _watched(w, a, monkeypatch)
    assert taken and fast.status == "proved"
    assert (fast.states_explored, fast.hidden_states) == (30, 30)
    _same(fast, _general(w, a, monkeypatch))


def test_the_orbit_path_is_taken_up_to_the_largest_hidden_size_and_with_two_symbols(monkeypatch):
    """Z_36 on the first two of d coordinates (R of order 36 and the identity, 2 symbols): 36
    directions is more than 2 d + 1 for d = 16 and d = 17, so only ORBIT_MAX_DIM = 16 decides: the
    orbit at d = 16, the general loop at d = 17, the same proof of 36 pairs.  One symbol alone (R) is
    left to the general loop."""
    assert orbitproof.ORBIT_MAX_DIM == 16
    a = _cyclic(36, [1, 0])
    for d, expected in ((16, True), (17, False)):
        w = Weights("full", A=[_rotation(1, 36, d), _rotation(0, 36, d)], h0=[1] + [0] * (d - 1),
                    readout=_readout(36, d))
        result, taken = _watched(w, a, monkeypatch)
        assert taken is expected, d
        assert result.status == "proved" and (result.states_explored, result.hidden_states) == (36, 36)
    one = Weights("full", A=[_rotation(1, 7)], h0=[1, 0], readout=_readout(7))
    result, taken = _watched(one, _cyclic(7, [1]), monkeypatch)
    assert not taken and result.status == "proved" and result.states_explored == 7


def test_the_orbit_is_looked_for_up_to_the_bound_times_the_states(monkeypatch):
    """cyclic:12 (12 states, 12 directions): the orbit is looked for up to min(bound, 64) x 12
    directions, so it is taken with the default bound and with bound 1 (exactly 12 pairs, a proof),
    and ``_orbit_of`` finds an orbit of exactly ``limit`` directions, not one of more."""
    a = from_spec("cyclic:12")
    w = build(a, "rotation2d")
    for bound in (prover.DEFAULT_BOUND, 1):
        result, taken = _watched(w, a, monkeypatch, bound=bound)
        assert taken and result.status == "proved" and result.states_explored == 12, bound
    domain = choose_domain(w)
    g = sparse_rows(w.A[1], domain)
    h0 = [domain.convert(x) for x in w.h0]
    store, t = orbitproof._orbit_of(domain, g, h0, 12)
    assert (len(store), t) == (12, 0)
    assert orbitproof._orbit_of(domain, g, h0, 11) is None


def _cycle(n: int):
    """An n-cycle of the coordinates (integer entries) and e_0: an orbit of exactly n directions."""
    domain = IntegerDomain()
    rows = tuple((((j - 1) % n, 1),) for j in range(n))  # row j takes coordinate j - 1: e_i -> e_(i+1)
    return domain, rows, [1] + [0] * (n - 1)


def test_the_time_budget_is_read_once_every_256_directions_of_the_orbit():
    """Without a budget an orbit of 256 directions is found.  With a budget already spent, the orbit
    is abandoned (None) when its 256th direction is stored, the first time the clock is read, so an
    orbit of 255 directions is still found; the pairs' own ticks then stop the search."""
    domain, rows, h0 = _cycle(256)
    store, t = orbitproof._orbit_of(domain, rows, h0, 1000, Clock())
    assert (len(store), t) == (256, 0)
    spent = Clock(time_budget=1e-6)
    time.sleep(0.002)
    assert time.monotonic() > spent.deadline
    assert orbitproof._orbit_of(domain, rows, h0, 1000, spent) is None
    domain, rows, h0 = _cycle(255)
    store, t = orbitproof._orbit_of(domain, rows, h0, 1000, spent)
    assert (len(store), t) == (255, 0)


def test_a_spent_budget_stops_the_orbit_closure_after_its_first_chunk(monkeypatch):
    """cyclic:7 with a budget spent before the search: the first level adds 6 pairs (7 ticks in all,
    short of the search's every-16th-tick reading), and the clock read after that chunk stops the
    search: Unproved for time with the 7 pairs explored, not a proof."""
    a = from_spec("cyclic:7")
    result = prover.prove(build(a, "rotation2d"), a, time_budget=1e-9)
    assert result.status == "open" and result.cause == "time" and result.states_explored == 7


def test_more_symbols_than_a_chunk_of_transitions_takes_one_parent_per_step():
    """With more symbols than _CHUNK (2^18 + 1 here, one state, one class), a chunk is one parent;
    symbol s moves the start s mod 7 steps along the 7 directions of a rotation of order 7, so the
    closure is 7 pairs: the start's, then the directions 1 .. 6 in the order symbols 1 .. 6 reach them."""
    S = orbitproof._CHUNK + 1
    automaton = Automaton(np.zeros((S, 1), dtype=np.int64), labels=[0])
    w = Weights("full", A=[_rotation(1, 7), _rotation(0, 7)], h0=[1, 0], readout=[[1, 0]])
    domain = choose_domain(w)
    h0 = [domain.convert(x) for x in w.h0]
    found, t = orbitproof._orbit_of(domain, sparse_rows(w.A[0], domain), h0, 64)
    orbit = orbitproof._Orbit(list(found.vectors), t, np.arange(S, dtype=np.int64) % 7)
    readout = prover._Readout(w, automaton, domain)
    store = HiddenStore(domain, readout.floats, S, readout.floats_rad)
    search = PairSearch()
    search.add(0, store.add(h0), -1, -1)
    assert readout.screen(store, 0, 0) is None
    result = orbitproof._Levels(automaton, orbit, search, store, readout, 64, 2, 64).run()
    assert result.status == "proved" and result.margin is None
    assert (result.states_explored, result.hidden_states, result.state_map) == (7, 7, (tuple(range(7)),))
    assert list(result._hidden) == list(found.vectors)
    assert search.symbol == [-1, 1, 2, 3, 4, 5, 6]

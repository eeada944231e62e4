"""The prover's orbit of one generator (constructions/proof/orbitproof.py) returns what the general
loop returns: the same verdict, pairs, directions, exact vectors, state map and margin, or the same
counterexample or unproved report; and it is taken where its conditions hold, not elsewhere."""

from __future__ import annotations

import dataclasses

import pytest

from bilinear.automata import Automaton, from_spec
from bilinear.constructions.exact.domains import choose_domain, sparse_rows
from bilinear.constructions.exact.field import cos2pi, sin2pi
from bilinear.constructions.handmade.registry import build
from bilinear.constructions.proof import orbitproof, prover
from bilinear.constructions.values.weights import Weights


@pytest.fixture(autouse=True)
def _small_orbits_too(monkeypatch):
    """The tests' orbits are short (5 to 30 directions): take the orbit path wherever its conditions
    hold, also where it saves no work (tested on its own below)."""
    monkeypatch.setattr(orbitproof, "saves_work", lambda m, d: True)


def test_an_orbit_no_longer_than_2d_plus_1_is_left_to_the_general_loop(monkeypatch):
    """The orbit path pays 1 + 2 d exact products per symbol; the general loop one per pair and
    symbol: Z_5 in the plane (5 directions, d = 2) goes to the general loop, Z_7 takes the orbit."""
    monkeypatch.undo()
    assert not _orbit_found(build(from_spec("cyclic:5"), "rotation2d"), from_spec("cyclic:5"))
    assert _orbit_found(build(from_spec("cyclic:7"), "rotation2d"), from_spec("cyclic:7"))


def _both(weights, automaton, monkeypatch, bound=prover.DEFAULT_BOUND):
    fast = prover.prove(weights, automaton, bound)
    with monkeypatch.context() as m:
        m.setattr(prover, "orbit_closure", lambda *args, **kwargs: None)  # the general loop only
        slow = prover.prove(weights, automaton, bound)
    return fast, slow


def _same(fast, slow):
    assert type(fast) is type(slow)
    for f in dataclasses.fields(fast):  # every field, margin and state map included
        assert getattr(fast, f.name) == getattr(slow, f.name), f.name
    assert getattr(fast, "_hidden", None) == getattr(slow, "_hidden", None)  # the exact vectors, in id order


def _orbit_found(weights, automaton) -> bool:
    domain = choose_domain(weights)
    rows = [sparse_rows(weights.A[s], domain) for s in range(weights.n_symbols)]
    h0 = [domain.convert(x) for x in weights.h0]
    return orbitproof._find_orbit(domain, rows, h0, weights.dim, 64 * automaton.n_states) is not None


@pytest.mark.parametrize("spec,variant", [("cyclic:7", "rotation2d"), ("cyclic:12", "rotation2d"),
                                          ("cyclic:30", "rotation2d"), ("cyclic:6", "full"),
                                          ("cycle_navigation:5", "rotation2d")])
def test_constructions_of_cyclic_groups_take_the_orbit_and_agree(spec, variant, monkeypatch):
    a = from_spec(spec)
    w = build(a, variant)
    assert _orbit_found(w, a)
    fast, slow = _both(w, a, monkeypatch)
    assert fast.status == "proved"
    _same(fast, slow)


@pytest.mark.parametrize("spec,variant", [("dihedral:5", "block:2"), ("quaternion", "full"),
                                          ("cyclic:2*cyclic:3", "rotation2d")])
def test_without_a_generator_among_the_first_symbols_the_general_loop_runs(spec, variant, monkeypatch):
    """A reflection does not commute with the rotation (D_5), Q_8 is not abelian, and Z_2 x Z_3's
    first three symbols that move h0 have orders 3, 3 and 2 (ORBIT_GENERATORS_TRIED = 3)."""
    a = from_spec(spec)
    w = build(a, variant)
    assert not _orbit_found(w, a)
    _same(*_both(w, a, monkeypatch))


def _rotations(m: int, exponents, readout, h0=(1, 0)):
    A = [[[cos2pi(k, m), -sin2pi(k, m)], [sin2pi(k, m), cos2pi(k, m)]] for k in exponents]
    return Weights("rotation2d", A=A, h0=list(h0), readout=readout)


def test_a_counterexample_is_the_general_loops_shortest_one(monkeypatch):
    """Z_5 read with a readout that ties on some orbit point: the same first failing word."""
    a = from_spec("cyclic:5")
    good = build(a, "rotation2d")
    R = good.readout.copy()
    R[3] = R[2]  # classes 2 and 3 tie wherever 2 wins
    bad = Weights("rotation2d", A=good.A, h0=good.h0, readout=R)
    fast, slow = _both(bad, a, monkeypatch)
    assert fast.status == "counterexample"
    _same(fast, slow)


def test_the_bound_is_reported_as_the_general_loop_reports_it(monkeypatch):
    """One state, one class, a rotation of order 12: 12 directions, past the bound 2 x 1."""
    a = Automaton([[0], [0]], labels=[0])
    w = _rotations(12, [0, 1], readout=[[1, 0]])
    assert _orbit_found(w, a)
    fast, slow = _both(w, a, monkeypatch, bound=2)
    assert fast.status == "open" and fast.cause == "bound" and fast.states_explored == 3
    _same(fast, slow)
    assert prover.prove(w, a, bound=12).status == "proved"


def test_an_orbit_that_closes_only_up_to_a_factor_is_left_to_the_general_loop(monkeypatch):
    """2 R (R a rotation of order 4) returns to the direction of h0 at 16 h0, not h0: the closure's
    vectors would not be the orbit's, so the orbit is not used; the proof is the general loop's."""
    a = Automaton([[1, 2, 3, 0], [0, 1, 2, 3]], labels=[0, 1, 2, 3])
    w = Weights("full", A=[[[0, -2], [2, 0]], [[1, 0], [0, 1]]], h0=[1, 0],
                readout=[[1, 0], [0, 1], [-1, 0], [0, -1]])
    assert not _orbit_found(w, a)
    fast, slow = _both(w, a, monkeypatch)
    assert fast.status == "proved"
    _same(fast, slow)

"""Exact proofs: constructions proved, wrong weights refuted by a shortest word, unproved cases."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest

from bilinear.automata import Automaton
from bilinear.automata import from_spec
from bilinear.constructions.exact.field import cos2pi, sin2pi
from bilinear.constructions import Counterexample, Proof, Unproved, prove
from bilinear.constructions import build
from bilinear.constructions import Weights
from bilinear.errors import MismatchError, WeightsError


def rotation_weights(m, k=1, n=None):
    """Z_m automaton weights rotating by 2 pi k a / n per symbol a (n = m: the right angle)."""
    n = m if n is None else n
    A = [[[cos2pi(k * a, n), -sin2pi(k * a, n)], [sin2pi(k * a, n), cos2pi(k * a, n)]] for a in range(m)]
    readout = [[cos2pi(c, m), sin2pi(c, m)] for c in range(m)]
    return Weights("rotation2d", A, [1, 0], readout)


def brute_force_first_failure(weights, automaton, max_len):
    """Shortest failing word by enumeration in float (test oracle for small cases)."""
    A, h0, R = weights.float_arrays()
    for length in range(max_len + 1):
        for word in itertools.product(range(automaton.n_symbols), repeat=length):
            h = h0.copy()
            for s in word:
                h = A[s] @ h
            scores = R @ h
            label = automaton.label(list(word))
            others = np.delete(scores, label)
            if not (scores[label] - others.max() > 1e-9 if others.size else True):
                return word
    return None


@pytest.mark.parametrize("spec,variant,dim", [
    ("cyclic:2", "rotation2d", 2), ("cyclic:7", "rotation2d", 2), ("cyclic:12", "rotation2d", 2),
    ("parity", "diagonal", 1), ("dihedral:3", "block:2", 2), ("dihedral:8", "block:2", 2),
    ("dihedral:50", "block:2", 2), ("symmetric:3", "full", 2), ("symmetric:5", "full", 4),
    ("alternating:4", "full", 3), ("alternating:5", "full", 3), ("quaternion", "full", 4),
    ("flipflop:3", "full", 2), ("reset:4", "full", 2), ("modarith:5", "full", 5),
    ("cyclic:3*cyclic:4", "rotation2d", 2), ("cyclic:4*cyclic:6", "rotation2d", 4),
    ("parity*parity*parity", "diagonal", 3),
    ("dihedral:3*parity", "block:2", 4),
    ("random:states=6,symbols=3,seed=2", "full", 6), ("cyclic:5", "factorized:10", 2),
])
def test_constructions_are_proved(spec, variant, dim):
    a = from_spec(spec)
    w = build(spec, variant)
    result = prove(w, a)
    assert isinstance(result, Proof), result
    assert result.dim == w.dim == dim
    assert result.margin_float > 0
    # every automaton state reachable from the start appears in the state map
    assert all(result.state_map[q] for q in set(a.run_batch(np.random.default_rng(0).integers(0, a.n_symbols, (50, 8)), trace=True).ravel().tolist()))


def test_exact_margin_values():
    m = 7
    p = prove(build("cyclic:7", "rotation2d"), from_spec("cyclic:7"))
    assert p.margin == 1 - cos2pi(1, 7)  # exact element of Q(zeta_28)
    assert math.isclose(p.margin_float, 1 - math.cos(2 * math.pi / m))
    assert prove(build("parity", "diagonal"), from_spec("parity")).margin == 2
    assert prove(build("flipflop:2", "full"), from_spec("flipflop:2")).margin == 1


def test_wrong_exact_angle_gives_a_shortest_counterexample():
    # rotation by 2 pi / 8 for Z_7: after four 1s the direction pi sits exactly between two
    # orbit points (a tie, decided exactly) -- or fails earlier on another symbol
    a = from_spec("cyclic:7")
    w = rotation_weights(7, 1, 8)
    result = prove(w, a)
    assert isinstance(result, Counterexample)
    assert a.label(list(result.word)) == result.expected
    expected = brute_force_first_failure(w, a, len(result.word))
    assert expected is not None and len(expected) == len(result.word)


def test_exact_tie_is_a_failure():
    # Z_2 with readout rows (1, 0) and (1, 0): every score ties -> the empty word already fails
    a = from_spec("parity")
    w = Weights("diagonal", [[[1]], [[-1]]], [1], [[1], [1]])
    result = prove(w, a)
    assert isinstance(result, Counterexample)
    assert result.word == () and result.got is None


def test_float_perturbed_rotation_is_refuted():
    a = from_spec("cyclic:5")
    exact = build("cyclic:5", "rotation2d").to_float()
    A, h0, R = exact.float_arrays()
    theta = 2 * math.pi / 5 + 0.05
    A = np.array([[[math.cos(theta * s), -math.sin(theta * s)], [math.sin(theta * s), math.cos(theta * s)]] for s in range(5)])
    w = Weights("rotation2d", A, h0, R)
    result = prove(w, a)
    assert isinstance(result, Counterexample)
    assert len(result.word) <= 6
    # the float weights really fail on that word
    h = h0
    for s in result.word:
        h = A[s] @ h
    assert int(np.argmax(R @ h)) != result.expected


def test_exactly_converted_floats_of_a_rational_construction_are_proved():
    w = build("symmetric:3", "full").to_float()  # integer entries: floats are exact
    assert isinstance(prove(w, from_spec("symmetric:3")), Proof)


def test_unbounded_directions_are_unproved_not_refuted():
    # diag(2, 1) with a sign readout on the 1-state... a 2-class automaton that is always class 0:
    # directions (2^n, 1) never repeat, yet every label is right
    from bilinear.automata import Automaton

    a = Automaton([[0, 1]], labels=[0, 0], classes=["yes", "no"])
    w = Weights("diagonal", [[[2, 0], [0, 1]]], [1, 1], [[1, 0], [0, 0]])
    result = prove(w, a, bound=5)
    assert isinstance(result, Unproved)
    u, v = result.words
    assert a.run(list(u)) == a.run(list(v)) == result.state
    assert u != v


@pytest.mark.parametrize("bad,message", [
    (Weights("full", np.eye(2)[None].repeat(3, 0), [1, 0], [[1, 0], [0, 1]]), "3 symbols"),
    (Weights("full", np.eye(2)[None].repeat(2, 0), [1, 0], [[1, 0], [0, 1], [1, 1]]), "readout has 3 classes"),
])
def test_mismatched_weights_are_rejected(bad, message):
    with pytest.raises(WeightsError, match=message):
        prove(bad, from_spec("parity"))


def test_bad_bound():
    with pytest.raises(WeightsError, match="bound"):
        prove(build("parity", "diagonal"), from_spec("parity"), bound=0)


from hypothesis import given, settings
from hypothesis import strategies as st

from bilinear.automata.strategies import automata


@settings(max_examples=60)
@given(a=automata(max_states=4, max_symbols=2), data=st.data())
def test_int64_fast_path_agrees_with_the_generic_exact_loop(a, data):
    """The vectorised int64 closure and the generic exact loop give the same verdict, the same
    shortest word and the same margin (the generic loop runs when the readout is rational)."""
    d = data.draw(st.integers(1, 3), label="d")
    ints = st.integers(-2, 2)
    A = data.draw(st.lists(st.lists(st.lists(ints, min_size=d, max_size=d), min_size=d, max_size=d),
                           min_size=a.n_symbols, max_size=a.n_symbols), label="A")
    h0 = data.draw(st.lists(ints, min_size=d, max_size=d), label="h0")
    R = data.draw(st.lists(st.lists(ints, min_size=d, max_size=d), min_size=a.n_classes, max_size=a.n_classes), label="R")
    fast = prove(Weights("full", A, h0, R), a, bound=3)
    third = [[Fraction(x, 3) for x in row] for row in R]
    slow = prove(Weights("full", A, h0, third), a, bound=3)
    assert fast.status == slow.status
    assert fast.states_explored == slow.states_explored
    if isinstance(fast, Counterexample):
        assert fast.word == slow.word and fast.expected == slow.expected and fast.got == slow.got
    elif isinstance(fast, Proof):
        assert fast.hidden_states == slow.hidden_states
        if fast.margin is not None:
            assert Fraction(fast.margin) == 3 * Fraction(slow.margin)
    else:
        assert fast.state == slow.state and fast.words == slow.words


@pytest.mark.parametrize("spec,variant,swap", [
    ("parity", "diagonal", False), ("symmetric:3", "full", False), ("modarith:5", "full", False),
    ("cyclic:5", "full", True),
])
def test_int64_overflow_restarts_the_exact_loop_from_scratch(spec, variant, swap):
    """Weights scaled by 2^31 overflow the int64 closure's safety check after one level: it gives
    up (None) and the exact loop runs again from an empty search, with the verdict of the
    unscaled weights (a positive scale moves no direction)."""
    from bilinear.constructions.proof.prover import _Int64Closure

    a, w = from_spec(spec), build(spec, variant)
    readout = w.readout.copy()
    if swap:
        readout[[2, 3]] = readout[[3, 2]]  # wrong after two symbols: a counterexample past level 1
    small = Weights(variant, w.A, w.h0, readout)
    big = Weights(variant, w.A * 2**31, w.h0, readout)
    assert _Int64Closure.run(big, a, 64, PairSearch()) is None  # the fallback is what runs
    want, got = prove(small, a), prove(big, a)
    assert got.status == want.status == ("counterexample" if swap else "proved")
    assert got.states_explored == want.states_explored
    if swap:
        assert got.word == want.word and got.expected == want.expected and got.got == want.got
    else:
        assert got.hidden_states == want.hidden_states


def test_int64_safety_check_does_not_wrap_around():
    """A readout row of two entries -2^62 sums to -2^63 in int64, and the safety check once summed
    |R| in int64: the sum wrapped, the check passed, and the margins wrapped too; these weights
    (class 1 wins at the empty word) were proved with margin 2^62 + 1."""
    w = Weights("full", [[[1, 0], [0, 1]], [[-1, 0], [0, -1]]], [1, 1], [[-2**62, -2**62], [2**62 - 1, 0]])
    result = prove(w, from_spec("parity"))
    assert isinstance(result, Counterexample)
    assert (result.word, result.expected, result.got) == ((), 0, 1)


@pytest.mark.parametrize("A,readout,margin", [
    ([[[1]], [[-1]]], [[2**62], [-2**62]], 2**63),  # the root's scores are +-2^62
    ([[[2]], [[-2]]], [[2**61], [-2**61]], 2**62),  # the root's +-2^61 (margin 2^62), then +-2^62
])
def test_int64_check_stops_at_two_to_the_62(A, readout, margin):
    """Scores of size 2^62 are where int64 stops being safe: the margin best - other is then
    2^63, one past int64's largest value.  The check gives up there (>=, not >), and the exact
    loop proves these parity weights with their exact margin."""
    result = prove(Weights("diagonal", A, [1], readout), from_spec("parity"))
    assert isinstance(result, Proof) and result.margin == margin


def test_bound_one_is_accepted_and_a_non_weights_value_is_refused():
    assert isinstance(prove(build("parity", "diagonal"), from_spec("parity"), bound=1), Proof)  # 2 pairs <= 1 x 2
    with pytest.raises(MismatchError, match="prove needs a Weights value, got dict .*prove_stack"):
        prove({"A": [[[1]]]}, from_spec("parity"))


def test_time_budget_is_checked_between_chunks_of_scores(monkeypatch):
    """The int64 closure scores a level in chunks of at most _SCORE_CHUNK (pair, class) entries
    and checks the clock between chunks (symmetric:8 has 40,320 classes, and a budget must not
    wait for a whole level's scores).  With one pair per chunk the quaternion's search consults
    the clock more often than with the usual chunk."""
    from bilinear.constructions.proof import prover as prover_module
    from bilinear.constructions.proof.search import Clock

    calls = []
    check = Clock.check
    monkeypatch.setattr(Clock, "check", lambda self, *args: (calls.append(1), check(self, *args))[1])
    a, w = from_spec("quaternion"), build("quaternion", "full")
    assert isinstance(prove(w, a, time_budget=600), Proof)
    usual, calls[:] = len(calls), []
    monkeypatch.setattr(prover_module, "_SCORE_CHUNK", 1)
    assert isinstance(prove(w, a, time_budget=600), Proof)
    assert len(calls) >= usual + 4  # levels of 2, 4 and 1 new pairs: at least 4 checks between chunks


def test_proofs_name_their_conductor():
    """1 for the integer and rational loops (the int64 closure included), m for Q(zeta_m)."""
    assert prove(build("parity", "diagonal"), from_spec("parity")).conductor == 1  # int64
    half = Weights("diagonal", [[[1]], [[-1]]], [1], [[Fraction(1, 2)], [Fraction(-1, 2)]])
    assert prove(half, from_spec("parity")).conductor == 1
    rot = build("cyclic:5", "rotation2d")
    assert prove(rot, from_spec("cyclic:5")).conductor == rot.conductor > 1


# --- the parts: domains, search, time budget --------------------------------------------------
import time

from bilinear.constructions.proof import search as search_module
from bilinear.constructions.exact.domains import (
    CyclotomicDomain,
    Domain,
    IntegerDomain,
    RationalDomain,
    SparseCyclotomicDomain,
    choose_domain,
)
from bilinear.constructions.proof.prover import _closure
from bilinear.constructions.proof.search import PairSearch


def _shear_weights(entry):
    """Parity weights with directions (+-1, k) for every k: always right, never closed."""
    return Weights("full", [[[1, 0], [entry, 1]], [[-1, 0], [0, -1]]], [1, 0], [[1, 0], [-1, 0]])


@pytest.mark.parametrize("spec,variant,bound", [
    ("parity", "diagonal", 64), ("symmetric:3", "full", 64), ("flipflop:3", "full", 64),
    ("random:states=6,symbols=3,seed=2", "full", 64), ("symmetric:4", "full", 2),
])
def test_every_domain_gives_the_same_verdict(spec, variant, bound):
    """Integer weights proved in Z (int64 and exact ints), Q and Q(zeta_12): one verdict."""
    a, w = from_spec(spec), build(spec, variant)
    domains = [IntegerDomain(), RationalDomain(), CyclotomicDomain(12), SparseCyclotomicDomain(12)]
    assert all(isinstance(d, Domain) for d in domains)
    reference = prove(w, a, bound=bound).to_json()
    for domain in domains:
        assert _closure(w, a, bound, domain, PairSearch()).to_json() == reference, domain


@pytest.mark.parametrize(
    "domain", [IntegerDomain(), RationalDomain(), CyclotomicDomain(12), SparseCyclotomicDomain(12)]
)
def test_every_domain_finds_the_same_shortest_counterexample(domain):
    a = from_spec("modarith:5")
    w = build("modarith:5", "full")
    readout = w.readout.copy()
    readout[[1, 2]] = readout[[2, 1]]  # classes 1 and 2 swapped: wrong after a few symbols
    bad = Weights("full", w.A, w.h0, readout)
    reference = prove(bad, a)
    assert isinstance(reference, Counterexample)
    assert _closure(bad, a, 64, domain, PairSearch()).to_json() == reference.to_json()


@pytest.mark.parametrize("entry", [1, Fraction(1, 2)])  # the int64 path and the exact rational loop
def test_time_budget_gives_unproved_quickly(entry):
    a = from_spec("parity")
    start = time.perf_counter()
    result = prove(_shear_weights(entry), a, bound=10**9, time_budget=0.5)
    elapsed = time.perf_counter() - start
    assert isinstance(result, Unproved) and result.cause == "time"
    assert "time budget ran out" in result.reason and result.to_json()["cause"] == "time"
    assert result.states_explored > 2
    assert elapsed < 0.5 + 5.0  # the clock is read every 256 pairs
    if result.words:
        u, v = result.words
        assert a.run(list(u)) == a.run(list(v)) == result.state


def test_bound_still_gives_the_bound_reason():
    result = prove(_shear_weights(1), from_spec("parity"), bound=5, time_budget=60)
    assert isinstance(result, Unproved) and result.cause == "bound" and "cause" not in result.to_json()
    assert "more than 5 x 2" in result.reason


def test_progress_is_reported_for_long_searches(monkeypatch):
    monkeypatch.setattr(search_module, "PROGRESS_AFTER", 0.0)
    monkeypatch.setattr(search_module, "PROGRESS_EVERY", 0.0)
    seen = []
    result = prove(_shear_weights(Fraction(1, 2)), from_spec("parity"), bound=2000,
                   progress=lambda pairs, directions, seconds: seen.append((pairs, directions, seconds)))
    assert isinstance(result, Unproved)
    assert len(seen) >= 2 and seen[-1][0] == result.states_explored
    assert all(p1 <= p2 for (p1, _, _), (p2, _, _) in zip(seen, seen[1:]))


def test_progress_lines_go_to_stderr(monkeypatch, capsys):
    monkeypatch.setattr(search_module, "PROGRESS_AFTER", 0.0)
    monkeypatch.setattr(search_module, "PROGRESS_EVERY", 0.0)
    prove(_shear_weights(1), from_spec("parity"), bound=2000, progress=True)
    captured = capsys.readouterr()
    assert captured.out == "" and "prove: " in captured.err and "pairs" in captured.err


def test_quiet_by_default(capsys):
    prove(build("dihedral:8", "block:2"), from_spec("dihedral:8"), progress=True)
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize("budget", [0, -1.0, "1", True])
def test_bad_time_budget(budget):
    with pytest.raises(WeightsError, match="time_budget"):
        prove(build("parity", "diagonal"), from_spec("parity"), time_budget=budget)


def test_verify_with_a_time_budget_reports_open(tmp_path, capsys):
    from bilinear.cli import main

    path = tmp_path / "shear.json"
    _shear_weights(1).save(path)
    code = main(["verify", "parity", "full", "--weights", str(path), "--bound", "1000000", "--time-budget", "0.3"])
    out = capsys.readouterr().out
    assert code == 3 and ": open" in out and "time budget ran out" in out


# --- the sparse cyclotomic domain: same verdicts as the dense one, rigorous enclosures -------------
@pytest.mark.parametrize("spec,variant", [("dihedral:50", "block:2"), ("dihedral:12", "block:2"),
                                          ("cyclic:7", "rotation2d"), ("cyclic:9", "rotation2d")])
def test_sparse_and_dense_cyclotomic_domains_agree(spec, variant):
    a, w = from_spec(spec), build(spec, variant)
    m = w.conductor
    assert isinstance(choose_domain(w), SparseCyclotomicDomain)
    sparse = _closure(w, a, 64, SparseCyclotomicDomain(m), PairSearch())
    dense = _closure(w, a, 64, CyclotomicDomain(m), PairSearch())
    assert isinstance(sparse, Proof) and sparse.to_json() == dense.to_json()
    assert sparse.margin == dense.margin and sparse.hidden_vectors() == dense.hidden_vectors()


def test_sparse_domain_finds_the_dense_counterexample():
    a, w = from_spec("dihedral:20"), build("dihedral:20", "block:2")
    readout = w.readout.copy()
    readout[[3, 7]] = readout[[7, 3]]
    bad = Weights("block:2", w.A, w.h0, readout)
    sparse = _closure(bad, a, 64, SparseCyclotomicDomain(w.conductor), PairSearch())
    dense = _closure(bad, a, 64, CyclotomicDomain(w.conductor), PairSearch())
    assert isinstance(sparse, Counterexample)
    assert (sparse.word, sparse.expected, sparse.got, sparse.states_explored) == (
        dense.word, dense.expected, dense.got, dense.states_explored)
    assert np.allclose(sparse.scores, dense.scores, rtol=1e-13, atol=1e-13)  # float diagnostics


@pytest.mark.parametrize("m", [8, 12, 40, 2000])
def test_sparse_products_signs_and_enclosures_are_exact(m):
    from bilinear.constructions import CyclotomicField

    rng = np.random.default_rng(m)
    K, dom = CyclotomicField(m), SparseCyclotomicDomain(m)
    for _ in range(30):
        ks = rng.integers(0, m, size=3)
        cs = [Fraction(int(c), int(d)) for c, d in zip(rng.integers(-9, 10, size=3), rng.integers(1, 5, size=3))]
        x = sum((c * (K.zeta(int(k)) + K.zeta(-int(k))) for c, k in zip(cs, ks)), K(0))  # real
        y = K.zeta(int(ks[0])) + K.zeta(-int(ks[0])) + Fraction(1, 3)
        tx, ty = dom.convert(x), dom.convert(y)
        assert dom.mul(tx, ty) == dom.convert(x * y)
        assert dom.mul(dom.constant(x), ty) == dom.convert(x * y)  # fewest-term multiplicand
        assert dom.sign(tx) == x.sign() and dom.sign(tx - tx) == 0
        mid, rad = dom.enclose(tx)
        assert abs(mid - float(x)) <= rad
        back = dom.to_element(tx)
        assert back == x and hash(back) == hash(x)


@pytest.mark.parametrize("half", [False, True])
def test_a_failure_and_the_bound_in_the_same_level(half):
    """One state, A_0 = diag(2, 1), A_1 = diag(3, 1) from (1, 1): level n holds the n + 1 new
    directions (2^a 3^b, 1), a + b = n, found in the order 16, 24, 36, 54, 81 at level 4 (pairs
    11 to 15).  Class 0 scores c - 2^a 3^b against class 1's 0, so it is wrong from the first
    value above c.  With bound 12 the 13th pair (36) exceeds the bound: a failure at or before
    it is reported (c = 30: 36 fails), one after it is not (c = 40: 54 is the first failure,
    so the search stops unproved).  Integer weights run the int64 closure; halved h0 the exact
    loop over the rationals."""
    a = Automaton([[0], [0]], labels=[0], classes=("ok", "bad"))
    h = Fraction(1, 2) if half else 1
    for c, status in ((30, "counterexample"), (40, "open")):
        w = Weights("diagonal", A=[[[2, 0], [0, 1]], [[3, 0], [0, 1]]], h0=[h, h], readout=[[-1, c], [0, 0]])
        result = prove(w, a, bound=12)
        assert (result.status, result.states_explored) == (status, 13), c
        if status == "counterexample":
            assert result.word == (0, 0, 1, 1) and (result.expected, result.got) == (0, 1)

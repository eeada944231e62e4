"""Impossibility certificates: known cells, exact recheck, shortest-ness against brute force, and
the theorems they rest on, tested on random weights of each commuting variant."""

from __future__ import annotations

import dataclasses
import itertools
import json
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bilinear.automata import Automaton, from_spec
from bilinear.automata.strategies import automata, family_specs
from bilinear.constructions.impossible.certificates import (
    KINDS,
    THEOREMS,
    affine_kinds,
    certifiable_kinds,
    certify,
    minimal_period,
)
from bilinear.constructions import Weights
from bilinear.errors import AutomatonError, SpecError
from plain_eval import start_distances


# ------------------------------------------------------------------------------------------
# strategies (small automata, so that brute force over words is an oracle)
# ------------------------------------------------------------------------------------------
def small_automata(max_states: int = 4, max_symbols: int = 3):
    """Small random automata (bilinear.automata.strategies), so that brute force over words is
    an oracle."""
    return automata(max_states=max_states, max_symbols=max_symbols, max_classes=3)


def _words(k: int, length: int):
    return itertools.product(range(k), repeat=length)


def _brute_commutation(a: Automaton, bound: int) -> int | None:
    """Smallest |u|+|v| <= bound of a (u, a, b, v) with different labels, by enumeration."""
    k = a.n_symbols
    for total in range(bound + 1):
        for lu in range(total + 1):
            for u in _words(k, lu):
                for v in _words(k, total - lu):
                    for x, y in itertools.combinations(range(k), 2):
                        if a.label(list(u + (x, y) + v)) != a.label(list(u + (y, x) + v)):
                            return total
    return None


def _labels_along(a: Automaton, u, g, v, count: int) -> list[int]:
    return [a.label(list(u) + list(g) * n + list(v)) for n in range(count)]


def _eventually(seq: list[int], step: int, start: int) -> bool:
    return all(seq[n] == seq[n + step] for n in range(start, len(seq) - step))


def _brute_periodic(a: Automaton, step: int, bound: int, single: bool = False) -> int | None:
    """Smallest |u|+|g|+|v| <= bound, |g| >= 1 (|g| = 1 when ``single``), whose labels along
    g^n are not eventually step-periodic (checked on n < 3 * states + 6, past the pre-period
    <= states)."""
    k, count = a.n_symbols, 3 * a.n_states + 6
    for total in range(1, bound + 1):
        for lg in (1,) if single else range(1, total + 1):
            for lu in range(total - lg + 1):
                lv = total - lg - lu
                for u in _words(k, lu):
                    for g in _words(k, lg):
                        for v in _words(k, lv):
                            seq = _labels_along(a, u, g, v, count)
                            if not _eventually(seq, step, a.n_states):
                                return total
    return None


# ------------------------------------------------------------------------------------------
# the cells the issue names
# ------------------------------------------------------------------------------------------
def test_cyclic3_diagonal_has_a_period_certificate() -> None:
    a = from_spec("cyclic:3")
    c = certify(a, "diagonal")
    assert c is not None and c.kind == "period"
    assert c.variant == "diagonal"
    assert dict(c.indices) == {"u": (), "g": (1,), "v": ()}
    assert dict(c.words) == {"u": "ε", "g": "1", "v": "ε"}
    assert (c.preperiod, c.period, c.label_cycle, c.label_period) == (0, 3, ("0", "1", "2"), 3)
    assert c.witnesses == ((), (1, 1))
    assert c.labels == ("0", "2")
    assert c.theorem == THEOREMS["period"]
    assert c.length == 1
    assert c.verify(a)


def test_dihedral4_rotation2d_has_a_commutation_certificate() -> None:
    a = from_spec("dihedral:4")
    c = certify(a, "rotation2d")
    assert c is not None and c.kind == "commutation"
    assert dict(c.words) == {"u": "ε", "a": "r", "b": "s", "v": "ε"}
    assert c.witnesses == ((0, 1), (1, 0))
    # r s and s r are different elements of D_4: r s versus s r = r^3 s
    assert c.labels == (a.classes[a.label("rs")], a.classes[a.label("sr")])
    assert c.labels[0] != c.labels[1]
    assert c.length == 0
    assert c.describe() == "u=ε, (a,b)=(r,s), v=ε"
    assert c.verify(a)


def test_parity_positive_has_a_constancy_certificate() -> None:
    a = from_spec("parity")
    c = certify(a, "positive")
    assert c is not None and c.kind == "constancy"
    assert dict(c.indices) == {"u": (), "g": (1,), "v": ()}
    assert c.label_cycle == ("even", "odd") and c.label_period == 2
    assert c.labels == ("even", "odd")
    assert c.verify(a)


@pytest.mark.parametrize(
    "spec, variant",
    [
        ("parity", "diagonal"),
        ("parity", "rotation2d"),
        ("cyclic:5", "rotation2d"),
        ("cyclic:2*cyclic:2", "diagonal"),
        ("cyclic:2*cyclic:3", "rotation2d"),
        ("dihedral:4", "full"),
        ("dihedral:4", "block:2"),
        ("symmetric:4", "factorized:3"),
    ],
)
def test_no_certificate(spec: str, variant: str) -> None:
    assert certify(from_spec(spec), variant) is None


@pytest.mark.parametrize(
    "spec, variant, kind",
    [
        ("cyclic:5", "diagonal", "period"),
        ("cyclic:2*cyclic:3", "diagonal", "period"),
        ("cyclic:2*cyclic:2", "positive", "constancy"),
        ("cyclic:3", "block:1", "period"),  # block:1 is the real diagonal variant
        ("quaternion", "rotation2d", "commutation"),
        ("symmetric:4", "diagonal", "commutation"),  # commutation is preferred
        ("flipflop:2", "positive", "commutation"),
        ("modarith:3", "rotation2d", "commutation"),
    ],
)
def test_certificate_kinds(spec: str, variant: str, kind: str) -> None:
    a = from_spec(spec)
    c = certify(a, variant)
    assert c is not None and c.kind == kind and c.verify(a)
    first, second = c.witnesses
    assert a.label(list(first)) != a.label(list(second))


def test_spec_string_is_accepted_and_variant_is_canonical() -> None:
    c = certify("dihedral:5", " Rotation2D ")
    assert c is not None and c.variant == "rotation2d" and c.automaton == "dihedral:5"


def test_certifiable_kinds() -> None:
    assert certifiable_kinds("rotation2d") == ("commutation",)
    assert certifiable_kinds("diagonal") == ("commutation", "period")
    assert certifiable_kinds("block:1") == ("commutation", "period")
    assert certifiable_kinds("block:2") == ()
    assert set(KINDS) == {"commutation", "period", "constancy", "symbol-period", "symbol-constancy"}
    assert certifiable_kinds("householder:1") == ("symbol-period",)
    assert certifiable_kinds("householder:1,nonneg") == certifiable_kinds("householder:2,nonneg") == ("symbol-constancy",)
    assert certifiable_kinds("householder:2") == certifiable_kinds("householder:3,nonneg") == ()
    assert certifiable_kinds("monomial") == certifiable_kinds("dplr:1") == ()
    # one factor: c_a u w^T commute, with real eigenvalues (Theorems 6 and 7); two factors do not
    assert certifiable_kinds("factorized:1") == ("commutation", "period")
    assert certifiable_kinds("factorized:2") == ()
    assert affine_kinds("factorized:1") == ("symbol-period",) and affine_kinds("factorized:2") == ()


@pytest.mark.parametrize("spec, kind", [("dihedral:3", "commutation"), ("flipflop:2", "commutation"),
                                        ("cyclic:3", "period")])
def test_one_factor_cells_are_impossible(spec: str, kind: str) -> None:
    """`verify SPEC factorized:1` was `open` ("no impossibility theorem") where the certificates of
    the commuting real variants apply; parity is still proved in d = 1."""
    from bilinear.constructions.settle import settle

    cell = settle(spec, "factorized:1")
    assert cell.status == "impossible" and cell.certificate.kind == kind and cell.certificate.verify(from_spec(spec))
    assert settle("parity", "factorized:1").status == "proved"


def test_to_dict_is_json() -> None:
    c = certify("cyclic:3", "positive")
    d = json.loads(json.dumps(c.to_dict()))
    assert d["kind"] == "constancy" and d["words"] == {"u": "ε", "g": "1", "v": "ε"}
    assert d["indices"]["g"] == [1] and d["label_period"] == 3
    assert d["theorem"] == THEOREMS["constancy"]
    c = certify("dihedral:4", "diagonal")
    d = c.to_dict()
    assert "label_period" not in d and d["summary"] == "u=ε, (a,b)=(r,s), v=ε"


def test_a_prefix_and_suffix_are_found_when_needed() -> None:
    # a b = b a from the start state; from state 1 (u = "0") the words 01 and 10 lead to
    # states 3 and 2, which only the suffix v = "0" tells apart (3.0 = 4 has label 1)
    delta = [[1, 2, 2, 4, 4], [0, 1, 3, 3, 4]]
    a = Automaton(delta, labels=[0, 0, 0, 0, 1], name="late")
    c = certify(a, "rotation2d")
    assert c is not None and dict(c.indices) == {"u": (0,), "a": (0,), "b": (1,), "v": (0,)}
    assert c.length == 2 == _brute_commutation(a, 4)
    assert c.labels == ("1", "0")
    assert c.verify(a)


# ------------------------------------------------------------------------------------------
# verify refuses what is not true
# ------------------------------------------------------------------------------------------
def test_verify_rejects_tampering() -> None:
    a = from_spec("dihedral:4")
    c = certify(a, "rotation2d")
    assert c.verify(a)
    assert not dataclasses.replace(c, labels=(c.labels[0], c.labels[0])).verify(a)
    assert not dataclasses.replace(c, witnesses=((0, 1), (0, 1))).verify(a)
    assert not dataclasses.replace(c, indices=(("u", ()), ("a", (0,)), ("b", (0,)), ("v", ()))).verify(a)
    assert not dataclasses.replace(c, words=(("u", "ε"), ("a", "s"), ("b", "r"), ("v", "ε"))).verify(a)
    assert not dataclasses.replace(c, kind="bogus").verify(a)
    assert not c.verify(from_spec("cyclic:2*cyclic:2"))  # commutative: cannot hold there
    assert not c.verify("dihedral:4")  # not an Automaton


def test_verify_rejects_a_wrong_period_certificate() -> None:
    a = from_spec("cyclic:3")
    c = certify(a, "diagonal")
    assert not dataclasses.replace(c, label_period=2).verify(a)
    assert not dataclasses.replace(c, period=6).verify(a)
    assert not dataclasses.replace(c, witnesses=((), (1,))).verify(a)  # n -> n+1 is not the period claim
    # the same words on cyclic:2 (parity-like) describe a 2-periodic sequence: refused
    assert not c.verify(from_spec("cyclic:2"))
    # a constancy certificate of cyclic:2 is true, but a period certificate is not
    c2 = certify(from_spec("cyclic:2"), "positive")
    assert c2.verify(from_spec("cyclic:2"))
    assert not dataclasses.replace(c2, kind="period", witnesses=((), (1, 1))).verify(from_spec("cyclic:2"))


def _forged(c, a: Automaton, **changes):
    """``c`` with ``changes``, its words and labels recomputed from its indices and witnesses, so
    that only the changed fact can be wrong."""
    c = dataclasses.replace(c, **changes)
    return dataclasses.replace(c, words=tuple((key, a.format_word(w)) for key, w in c.indices),
                               labels=tuple(a.classes[a.label(list(w))] for w in c.witnesses))


def test_verify_checks_each_fact_on_its_own() -> None:
    """One false fact at a time, everything else consistent with it (the recorded words and
    labels recomputed): each must be refused by its own check."""
    d4 = from_spec("dihedral:4")
    c = certify(d4, "rotation2d")  # u = v = empty, (a, b) = (s, r)
    assert _forged(c, d4).verify(d4)  # the helper alone breaks nothing
    # a is two symbols: s r r and r s r differ, so the labels alone do not refuse it
    long_a = _forged(c, d4, indices=(("u", ()), ("a", (0, 1)), ("b", (1,)), ("v", ())),
                     witnesses=((0, 1, 1), (1, 0, 1)))
    assert long_a.labels[0] != long_a.labels[1] and not long_a.verify(d4)
    assert not _forged(c, d4, indices=(("u", ()), ("g", (0,)), ("v", ()))).verify(d4)  # names of another kind
    for bad in (2, -1, 1.0):  # a symbol out of range (d4 has 2), or not an integer: False, not an error
        assert not dataclasses.replace(c, indices=(("u", (bad,)),) + c.indices[1:]).verify(d4)
        assert not dataclasses.replace(c, witnesses=((bad, 0, 1), (bad, 1, 0))).verify(d4)

    z3 = from_spec("cyclic:3")
    sym = certify(z3, "householder:1")  # symbol-period along g = (1,)
    assert sym.kind == "symbol-period"
    # g = (1, 1): a true period certificate, but the symbol kinds need a single symbol
    two = _forged(sym, z3, indices=(("u", ()), ("g", (1, 1)), ("v", ())), witnesses=((), (1, 1, 1, 1)),
                  label_cycle=("0", "2", "1"))
    assert dataclasses.replace(two, kind="period").verify(z3)
    assert not two.verify(z3)
    period = certify(z3, "diagonal")
    rotated = dataclasses.replace(period, label_cycle=period.label_cycle[1:] + period.label_cycle[:1])
    assert rotated.label_period == 3 and not rotated.verify(z3)  # the cycle alone is wrong
    # witnesses with different labels, but not u g^n v: they witness nothing
    assert not _forged(period, z3, witnesses=((0,), (1,))).verify(z3)


def test_failing_word_tries_n_up_to_max_n() -> None:
    """Along g = +1 these weights are right at n = 0, 1 and wrong first at n = 2."""
    a = from_spec("cyclic:3")
    w = Weights("diagonal", A=[[[1]], [[-1]], [[1]]], h0=[1], readout=[[1], [-1], [0]])
    c = certify(a, "diagonal")
    assert c.failing_word(w, a, max_n=1) is None
    assert c.failing_word(w, a, max_n=2) == (1, 1)
    assert c.failing_word(w, a, max_n=0) is None


def test_word_lookup() -> None:
    c = certify("cyclic:3", "diagonal")
    assert c.word("g") == (1,)
    with pytest.raises(KeyError, match="no word 'a'"):
        c.word("a")


# ------------------------------------------------------------------------------------------
# bad input
# ------------------------------------------------------------------------------------------
def test_bad_variant() -> None:
    with pytest.raises(SpecError, match="unknown variant 'diagnal'"):
        certify("parity", "diagnal")


def test_bad_automaton() -> None:
    with pytest.raises(AutomatonError, match="Automaton or a spec string"):
        certify(42, "diagonal")
    with pytest.raises(SpecError, match="unknown family"):
        certify("cyclc:3", "diagonal")


def test_large_automata_are_settled_without_a_pair_table() -> None:
    # 5040 states: the pair search stops at the first distinguished pair (no 5040^2 table)
    c = certify("symmetric:7", "diagonal")
    assert c.kind == "commutation" and c.length == 0
    # commutative with 300 states and symbols: the period search runs on the minimal automaton
    c = certify("cyclic:300", "positive")
    assert c.kind == "constancy" and c.label_period == 300 and dict(c.words)["g"] == "1"


# ------------------------------------------------------------------------------------------
# shortest and complete: brute force over words as the oracle
# ------------------------------------------------------------------------------------------
@given(small_automata())
@settings(max_examples=40)
def test_commutation_certificate_is_shortest_and_complete(a: Automaton) -> None:
    c = certify(a, "rotation2d")
    # |u| <= states - 1 and a shortest distinguishing v has length <= states - 2
    brute = _brute_commutation(a, 2 * a.n_states - 3)
    if c is None:
        assert brute is None
    else:
        assert c.kind == "commutation" and c.verify(a)
        assert brute == c.length


@given(small_automata(max_states=3, max_symbols=2), st.sampled_from(["diagonal", "positive"]))
@settings(max_examples=30)
def test_periodic_certificate_is_shortest_and_sound(a: Automaton, variant: str) -> None:
    kind = "period" if variant == "diagonal" else "constancy"
    step = 2 if kind == "period" else 1
    c = certify(a, variant)
    brute = _brute_periodic(a, step, 4)
    if c is None:
        assert brute is None
        return
    assert c.verify(a)
    if c.kind == kind:
        _check_shortest_and_sound(a, c, step, brute)


def _check_shortest_and_sound(a: Automaton, c, step: int, brute: int | None) -> None:
    """No certificate shorter than ``c`` within the enumerated lengths (``brute``, up to 4), its
    labels along g^n truly not eventually ``step``-periodic, and its recorded orbit right."""
    assert brute is None or brute >= c.length
    if c.length <= 4:
        assert brute == c.length
    seq = _labels_along(a, c.word("u"), c.word("g"), c.word("v"), 3 * a.n_states + 6)
    assert not _eventually(seq, step, a.n_states)
    _check_recorded_orbit(a, c)


@given(small_automata(max_states=3, max_symbols=2),
       st.sampled_from([("householder:1", "symbol-period"), ("householder:1,nonneg", "symbol-constancy")]))
@settings(max_examples=40)
def test_symbol_certificate_is_shortest_and_sound(a: Automaton, cell) -> None:
    """The one-symbol kinds (Theorems 7 and 8 along powers of one symbol; no commutativity
    assumed) against enumeration: the shortest |u| + 1 + |v|, and labels that are truly not
    eventually 2-periodic / constant along g^n."""
    variant, kind = cell
    step = 2 if kind == "symbol-period" else 1
    c = certify(a, variant)
    brute = _brute_periodic(a, step, 4, single=True)
    if c is None:
        assert brute is None
        return
    assert c.kind == kind and len(c.word("g")) == 1 and c.verify(a)
    _check_shortest_and_sound(a, c, step, brute)


@pytest.mark.parametrize("variant", ["diagonal", "positive", "householder:1", "householder:1,nonneg"])
def test_witnesses_start_where_the_labels_first_break_the_pattern(variant) -> None:
    """Z_3 whose labels are (0, 1, 0): along g = +1 the labels 0 1 0 0 1 0 ... first break
    2-periodicity at n = 1 (label 1 against label 0 at n = 3), and constancy at n = 0 (0 then 1).
    The witnesses are u g^n v and u g^(n+step) v for that first n."""
    a = Automaton([[0, 1, 2], [1, 2, 0]], start=0, labels=[0, 1, 0], name="z3-labels-010")
    c = certify(a, variant)
    step = 2 if c.kind in ("period", "symbol-period") else 1
    first_n = 1 if step == 2 else 0
    assert c.word("u") == () and c.word("g") == (1,) and c.word("v") == ()
    assert c.witnesses == ((1,) * first_n, (1,) * (first_n + step))
    assert c.verify(a)


def _check_recorded_orbit(a: Automaton, c) -> None:
    """The certificate's pre-period, period, label cycle and minimal label period against a
    plain walk along g (not the module's ``_orbit`` and ``minimal_period``)."""
    u, g, v = c.word("u"), c.word("g"), c.word("v")
    states = [a.run(list(u))]
    while a.run(list(g), state=states[-1]) not in states:
        states.append(a.run(list(g), state=states[-1]))
    t = states.index(a.run(list(g), state=states[-1]))
    assert (c.preperiod, c.period) == (t, len(states) - t)
    cycle = tuple(a.classes[a.label(list(v), state=q)] for q in states[t:])
    assert c.label_cycle == cycle
    assert c.label_period == min(p for p in range(1, len(cycle) + 1) if cycle == cycle[p:] + cycle[:p])


# ------------------------------------------------------------------------------------------
# the theorems, on random weights of each variant (exact rational arithmetic)
# ------------------------------------------------------------------------------------------
_MAGNITUDES = [Fraction(1, 2), Fraction(1), Fraction(2), Fraction(3)]


@st.composite
def diagonal_weights(draw, n_symbols: int, n_classes: int, positive: bool) -> Weights:
    d = draw(st.integers(1, 4))
    entry = st.sampled_from(_MAGNITUDES if positive else _MAGNITUDES + [-m for m in _MAGNITUDES])
    A = [[[draw(entry) if i == j else 0 for j in range(d)] for i in range(d)] for _ in range(n_symbols)]
    h0 = draw(st.lists(st.integers(-3, 3), min_size=d, max_size=d))
    readout = [draw(st.lists(st.integers(-3, 3), min_size=d, max_size=d)) for _ in range(n_classes)]
    return Weights("positive" if positive else "diagonal", A=A, h0=h0, readout=readout)


@st.composite
def rotation_weights(draw, n_symbols: int, n_classes: int) -> Weights:
    blocks = draw(st.integers(1, 3))
    d = 2 * blocks
    small = st.fractions(min_value=-3, max_value=3, max_denominator=5)
    A = []
    for _ in range(n_symbols):
        m = [[Fraction(0)] * d for _ in range(d)]
        for k in range(blocks):
            x, y = draw(small), draw(small)
            m[2 * k][2 * k], m[2 * k][2 * k + 1] = x, -y
            m[2 * k + 1][2 * k], m[2 * k + 1][2 * k + 1] = y, x
        A.append(m)
    h0 = draw(st.lists(small, min_size=d, max_size=d))
    readout = [draw(st.lists(small, min_size=d, max_size=d)) for _ in range(n_classes)]
    return Weights("rotation2d", A=A, h0=h0, readout=readout)


def _hidden(w: Weights, word) -> np.ndarray:
    h = w.h0.copy()
    for s in word:
        h = w.A[s].dot(h)
    return h


def _predict(w: Weights, h) -> int:
    scores = w.readout.dot(h).tolist()
    return max(range(len(scores)), key=lambda c: (scores[c], -c))  # first argmax


@st.composite
def rank_one_weights(draw, n_symbols: int, n_classes: int) -> Weights:
    """``factorized:1`` weights ``A_a = c_a u w^T`` (exact integers, given by their factors)."""
    d = draw(st.integers(1, 4))
    small = st.integers(-3, 3)
    u = draw(st.lists(small, min_size=d, max_size=d))
    w = draw(st.lists(small, min_size=d, max_size=d))
    c = draw(st.lists(small, min_size=n_symbols, max_size=n_symbols))
    A = [[[c[s] * u[i] * w[j] for j in range(d)] for i in range(d)] for s in range(n_symbols)]
    h0 = draw(st.lists(small, min_size=d, max_size=d))
    readout = [draw(st.lists(small, min_size=d, max_size=d)) for _ in range(n_classes)]
    return Weights("factorized:1", A=A, h0=h0, readout=readout,
                   factors=([[x] for x in u], [[x] for x in c], [[x] for x in w]))


CERTIFIED = [
    ("dihedral:4", "factorized:1"),
    ("flipflop:2", "factorized:1"),
    ("cyclic:3", "factorized:1"),
    ("dihedral:4", "rotation2d"),
    ("quaternion", "rotation2d"),
    ("flipflop:2", "positive"),
    ("modarith:3", "diagonal"),
    ("cyclic:3", "diagonal"),
    ("cyclic:2*cyclic:3", "diagonal"),
    ("parity", "positive"),
    ("cyclic:5", "positive"),
]


@pytest.mark.parametrize("spec, variant", CERTIFIED)
@given(data=st.data())
@settings(max_examples=15)
def test_every_network_of_the_variant_fails_the_certificate(spec: str, variant: str, data) -> None:
    a = from_spec(spec)
    c = certify(a, variant)
    assert c is not None
    if variant == "rotation2d":
        w = data.draw(rotation_weights(a.n_symbols, a.n_classes))
    elif variant == "factorized:1":
        w = data.draw(rank_one_weights(a.n_symbols, a.n_classes))
    else:
        w = data.draw(diagonal_weights(a.n_symbols, a.n_classes, positive=variant == "positive"))
    if c.kind == "commutation":
        # Theorem 6: both witnesses reach exactly the same hidden state
        first, second = (_hidden(w, word) for word in c.witnesses)
        assert all(x == y for x, y in zip(first, second))
        scores = w.readout.dot(first).tolist()
        if scores.count(max(scores)) == 1:  # no exact tie for float rounding to break
            assert c.failing_word(w, a) in c.witnesses  # one of them is classified wrong
        return
    # Theorems 7, 8: along u g^n v the predicted labels are eventually 2-periodic / constant
    step = 2 if c.kind == "period" else 1
    u, g, v = c.word("u"), c.word("g"), c.word("v")
    hidden = [_hidden(w, u + g * n + v) for n in range(90)]
    for c1, c2 in itertools.combinations(range(a.n_classes), 2):
        # the sign of every readout difference is eventually 2-periodic / constant
        diff = w.readout[c1] - w.readout[c2]
        signs = [(x > 0) - (x < 0) for x in (diff.dot(h) for h in hidden)]
        assert all(signs[n] == signs[n + step] for n in range(50, 90 - step))
    preds = [_predict(w, h) for h in hidden]
    assert all(preds[n] == preds[n + step] for n in range(50, 90 - step))
    truth = [a.label(list(u + g * n + v)) for n in range(90)]
    assert preds[50:] != truth[50:]  # so the network is wrong on some word u g^n v
    # and failing_word finds one such word (float run with renormalisation)
    word = c.failing_word(w, a, max_n=89)
    assert word is not None
    n = next(n for n in range(90) if word == u + g * n + v)
    scores = w.readout.dot(hidden[n]).tolist()
    if scores.count(max(scores)) == 1:  # no exact tie: the float argmax is the exact one
        assert preds[n] != truth[n]


def _float_weights(variant: str, n_symbols: int, n_classes: int, rng: np.random.Generator) -> Weights:
    """Random float weights of a commuting variant: scaled rotations, real or positive diagonals."""
    if variant == "rotation2d":
        blocks = int(rng.integers(1, 4))
        d = 2 * blocks
        A = np.zeros((n_symbols, d, d))
        for s in range(n_symbols):
            for k in range(blocks):
                r, t = rng.uniform(0.5, 1.5), rng.uniform(0, 2 * np.pi)
                A[s, 2 * k : 2 * k + 2, 2 * k : 2 * k + 2] = r * np.array(
                    [[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]]
                )
    else:
        d = int(rng.integers(1, 6))
        diag = rng.uniform(0.5, 1.5, size=(n_symbols, d))
        if variant == "diagonal":
            diag *= rng.choice([-1.0, 1.0], size=(n_symbols, d))
        A = np.stack([np.diag(row) for row in diag])
    return Weights(variant, A=A, h0=rng.normal(size=d), readout=rng.normal(size=(n_classes, d)))


@given(
    small_automata(max_states=4, max_symbols=3),
    st.sampled_from(["rotation2d", "diagonal", "positive"]),
    st.integers(0, 2**32 - 1),
)
@settings(max_examples=40)
def test_float_weights_reach_the_same_state_up_to_scale(a: Automaton, variant: str, seed: int) -> None:
    """Theorem 6 numerically: for every commutation certificate and random float weights of the
    variant, the two witnesses reach the same hidden state up to a positive scale."""
    c = certify(a, variant)
    if c is None or c.kind != "commutation":
        return
    w = _float_weights(variant, a.n_symbols, a.n_classes, np.random.default_rng(seed))
    first, second = (_hidden(w, word) for word in c.witnesses)
    scale = max(np.linalg.norm(first), np.linalg.norm(second), 1e-300)
    assert np.allclose(first / scale, second / scale, atol=1e-9)


@given(family_specs(products=True), st.sampled_from(["rotation2d", "diagonal", "positive", "block:1"]))
@settings(max_examples=40)
def test_certificates_and_the_construction_registry_agree(spec: str, variant: str) -> None:
    """No construction in the registry contradicts a certificate: where a certificate exists,
    build() refuses; where build() succeeds and its weights are proved, there is no certificate."""
    from bilinear.constructions import prove
    from bilinear.constructions import build
    from bilinear.errors import ConstructionError

    a = from_spec(spec)
    if a.n_states > 120:
        return
    c = certify(a, variant)
    try:
        w = build(a, variant)
    except ConstructionError:
        w = None
    if c is not None:
        assert c.verify(a)
        assert w is None or prove(w, a).status != "proved"
    elif w is not None:
        assert prove(w, a).status == "proved"


@given(small_automata(max_states=5, max_symbols=3), st.sampled_from(["rotation2d", "diagonal", "positive"]))
@settings(max_examples=40)
def test_certificates_depend_only_on_the_language(a: Automaton, variant: str) -> None:
    """Certificates are statements about labels of words: the automaton and its minimal
    automaton have certificates of the same kind and length, each valid for the other."""
    from bilinear.automata import minimize

    m = minimize(a)
    c, cm = certify(a, variant), certify(m, variant)
    assert (c is None) == (cm is None)
    if c is None:
        return
    assert (c.kind, c.length) == (cm.kind, cm.length)
    if c.kind == "commutation":
        assert cm.verify(a) and c.verify(m)
    else:
        # the period search runs on the minimal automaton either way; the orbit's pre-period and
        # period may differ between a and m, the eventual period of the labels may not
        assert c.indices == cm.indices and c.label_period == cm.label_period
        assert _labels_along(a, (), c.word("g"), c.word("v"), 40) == _labels_along(m, (), c.word("g"), c.word("v"), 40)


def test_failing_word_on_given_weights() -> None:
    from bilinear.constructions import build
    from bilinear.errors import WeightsError

    a = from_spec("dihedral:4")
    c = certify(a, "rotation2d")
    # a correct construction of another variant is not refuted along the certificate
    assert c.failing_word(build("dihedral:4", "block:2"), a) is None
    rot = Weights("rotation2d", A=[[[0, -1], [1, 0]], [[1, 0], [0, 1]]], h0=[1, 0], readout=[[1, 0]] * 8)
    assert c.failing_word(rot, a) in c.witnesses
    p = from_spec("cyclic:3")
    cp = certify(p, "positive")
    assert cp.failing_word(build("cyclic:3", "rotation2d"), p, max_n=50) is None
    with pytest.raises(WeightsError, match="2 symbols and 8 classes"):
        cp.failing_word(rot, p)
    with pytest.raises(WeightsError, match="max_n must be a non-negative integer"):
        c.failing_word(rot, a, max_n=-1)


@pytest.mark.parametrize("table,labels,preperiod,period,label_period", [
    ([[1, 2, 3, 1]], [0, 0, 1, 2], 1, 3, 3),  # a tail of one state into a 3-cycle
    ([[1, 2, 3, 4, 5, 0]], [0, 1, 2, 0, 1, 2], 0, 6, 3),  # six states, labels of period three
])
def test_recorded_orbit_with_a_tail_or_a_shorter_label_period(table, labels, preperiod, period, label_period):
    a = Automaton(table, start=0, labels=labels)
    c = certify(a, "diagonal")
    assert c.kind == "period" and c.verify(a)
    assert (c.preperiod, c.period, c.label_period) == (preperiod, period, label_period)
    _check_recorded_orbit(a, c)


def test_describe_shows_32_labels_and_counts_the_rest():
    full = certify(from_spec("cyclic:32"), "diagonal")
    assert len(full.label_cycle) == 32 and "more]" not in full.describe()
    longer = certify(from_spec("cyclic:33"), "diagonal")
    assert "[1 more]" in longer.describe()
    assert longer.to_dict()["label_cycle"] == list(longer.label_cycle)  # the JSON keeps all 33


# ------------------------------------------------------------------------------------------
# shortest certificates on larger automata, against an oracle that searches pair by pair
# ------------------------------------------------------------------------------------------
def _separation(a: Automaton, x: int, y: int) -> int | None:
    """Length of a shortest v with label(x.v) != label(y.v), one breadth-first search of the
    pairs reachable from (x, y) alone (the module searches from every source at once)."""
    labels = a.labels
    if labels[x] != labels[y]:
        return 0
    seen, frontier, depth = {(x, y)}, [(x, y)], 0
    while frontier:
        depth += 1
        nxt = []
        for p, q in frontier:
            for s in range(a.n_symbols):
                pair = (int(a.delta[s, p]), int(a.delta[s, q]))
                if labels[pair[0]] != labels[pair[1]]:
                    return depth
                if pair[0] != pair[1] and pair not in seen:
                    seen.add(pair)
                    nxt.append(pair)
        frontier = nxt
    return None


def _shortest_commutation(a: Automaton) -> int | None:
    """min |u| + |v| over reachable p = q0.u and symbols x < y of the separation of p.x.y and p.y.x."""
    best = None
    for p, du in start_distances(a).items():
        for x, y in itertools.combinations(range(a.n_symbols), 2):
            sep = _separation(a, int(a.delta[y, a.delta[x, p]]), int(a.delta[x, a.delta[y, p]]))
            if sep is not None and (best is None or du + sep < best):
                best = du + sep
    return best


def _shortest_symbol_period(a: Automaton, step: int) -> int | None:
    """min |u| + 1 + |v| over reachable p = q0.u and symbols g of the separation of two states
    ``step`` apart on the cycle of p under g."""
    best = None
    for p, du in start_distances(a).items():
        for g in range(a.n_symbols):
            orbit = [p]
            while int(a.delta[g, orbit[-1]]) not in orbit:
                orbit.append(int(a.delta[g, orbit[-1]]))
            cycle = orbit[orbit.index(int(a.delta[g, orbit[-1]])):]
            for i in range(len(cycle)):
                sep = _separation(a, cycle[i], cycle[(i + step) % len(cycle)])
                if sep is not None and (best is None or du + 1 + sep < best):
                    best = du + 1 + sep
    return best


def _random_automata(count: int, seed: int):
    rng = np.random.default_rng(seed)
    # found by comparing the search with a mutated one: a source pair that an earlier source
    # reached first must keep that earlier (shorter) path
    yield Automaton([[4, 1, 3, 1, 1], [0, 3, 1, 0, 4]], labels=[1, 1, 0, 1, 4])
    for _ in range(count):
        n, k = int(rng.integers(4, 8)), int(rng.integers(2, 4))
        delta = rng.integers(0, n, size=(k, n)).tolist()
        yield Automaton(delta, labels=rng.integers(0, int(rng.integers(2, n + 1)), size=n).tolist())


def test_commutation_certificates_are_shortest_on_larger_automata() -> None:
    """4-7 states, 2-3 symbols, 150 seeded machines: the commutation certificate's |u| + |v|
    is the pair-by-pair oracle's minimum, and it exists exactly when the oracle finds one."""
    for a in _random_automata(150, seed=21):
        want = _shortest_commutation(a)
        c = certify(a, "diagonal")
        if want is None:
            assert c is None or c.kind != "commutation", a.delta.tolist()
            continue
        assert c is not None and c.kind == "commutation" and c.verify(a), a.delta.tolist()
        assert c.length == want, (a.delta.tolist(), a.labels.tolist(), c.indices, want)


@pytest.mark.parametrize("variant,step", [("householder:1", 2), ("householder:1,nonneg", 1)])
def test_symbol_certificates_are_shortest_on_larger_automata(variant, step) -> None:
    """The same machines for the one-symbol kinds: |u| + 1 + |v| is the oracle's minimum."""
    for a in _random_automata(150, seed=22):
        want = _shortest_symbol_period(a, step)
        c = certify(a, variant)
        if want is None:
            assert c is None, a.delta.tolist()
            continue
        assert c is not None and c.verify(a) and len(c.word("g")) == 1
        assert c.length == want, (a.delta.tolist(), a.labels.tolist(), c.indices, want)


def test_minimal_period_is_the_number_of_distinct_rotations() -> None:
    """Every sequence over three labels up to length 6 (and the constant ones, whose period is
    1): a cyclic sequence has exactly as many distinct rotations as its minimal period."""
    for n in range(1, 7):
        for seq in itertools.product(range(3), repeat=n):
            rotations = {seq[i:] + seq[:i] for i in range(n)}
            assert minimal_period(seq) == len(rotations), seq


def test_the_search_is_remembered_per_automaton_and_variant(monkeypatch):
    """``certify`` searches once per automaton content, canonical variant and ``affine``: a fresh
    but equal automaton gets the same certificate without a second search, another variant or
    ``affine`` searches again, ``clear_caches`` forgets, and a bad variant is refused every time."""
    from bilinear.constructions.impossible import certificates
    from bilinear.constructions.values.memo import clear_caches
    from bilinear.errors import SpecError

    clear_caches()
    calls = []
    real = certificates._commutation
    monkeypatch.setattr(certificates, "_commutation", lambda a, v: calls.append(v) or real(a, v))
    first = certify(from_spec("dihedral:3"), "diagonal")
    assert certify(from_spec("dihedral:3"), "diagonal") is first and calls == ["diagonal"]
    assert certify(from_spec("dihedral:4"), "diagonal").verify(from_spec("dihedral:4")) and len(calls) == 2
    assert certify(from_spec("dihedral:3"), "rotation2d").kind == "commutation" and len(calls) == 3
    affine = certify(from_spec("dihedral:3"), "diagonal", affine=True)  # another entry: no commutation kind
    assert affine.kind == "symbol-period" and affine != first and len(calls) == 3
    clear_caches()
    assert certify(from_spec("dihedral:3"), "diagonal") == first and len(calls) == 4
    for _ in range(2):
        with pytest.raises(SpecError):
            certify(from_spec("dihedral:3"), "no-such-variant")

"""Tests of bilinear.automata.minimize: theorems about minimisation and isomorphism."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from bilinear.automata import Automaton, from_spec
from bilinear.automata.minimize import (
    distinguishing_word,
    equivalent,
    isomorphism,
    minimize,
    reachable_states,
)
from bilinear.automata.strategies import automata, automata_and_words, words
from bilinear.errors import AutomatonError


def relabel(a: Automaton, perm: list[int]) -> Automaton:
    """The same automaton with state q renamed perm[q]."""
    perm_arr = np.asarray(perm)
    inverse = np.argsort(perm_arr)
    delta = perm_arr[a.delta[:, inverse]]
    labels = a.labels[inverse]
    return Automaton(delta, start=int(perm_arr[a.start]), labels=labels, symbols=a.symbols, classes=a.classes)


@given(automata_and_words(max_states=7, max_symbols=3, n_words=15, max_size=25))
def test_minimisation_preserves_every_label(pair) -> None:
    a, ws = pair
    m = minimize(a)
    for w in ws:
        assert a.label(w) == m.label(w)
        # every prefix too: labels along the trace agree
        assert a.labels[a.trace(w)].tolist() == m.labels[m.trace(w)].tolist()


@given(automata(max_states=7, max_symbols=3))
def test_minimisation_is_idempotent_and_minimal(a: Automaton) -> None:
    m = minimize(a)
    assert minimize(m) == m
    assert m.n_states <= a.n_states
    assert equivalent(a, m)
    # minimal: any two distinct states are told apart by some word
    for p in range(m.n_states):
        for q in range(p + 1, m.n_states):
            assert distinguishing_word(
                Automaton(m.delta, start=p, labels=m.labels), Automaton(m.delta, start=q, labels=m.labels)
            ) is not None


@given(automata(max_states=7, max_symbols=3), st.randoms(use_true_random=False))
def test_isomorphism_is_invariant_under_relabelling(a: Automaton, rnd) -> None:
    perm = list(range(a.n_states))
    rnd.shuffle(perm)
    b = relabel(a, perm)
    phi = isomorphism(a, b)
    assert phi is not None
    # phi is a label-respecting bijection commuting with every symbol, start to start
    assert sorted(phi.values()) == list(range(a.n_states))
    assert phi[a.start] == b.start
    for q, image in phi.items():
        assert a.labels[q] == b.labels[image]
        for s in range(a.n_symbols):
            assert phi[int(a.delta[s, q])] == int(b.delta[s, image])
    # the minimal automata of the two are equal, not only isomorphic
    assert minimize(a) == minimize(b)


@given(automata(max_states=6, max_symbols=2), automata(max_states=6, max_symbols=2))
def test_distinguishing_word_is_a_witness_and_agrees_with_minimisation(a: Automaton, b: Automaton) -> None:
    if a.n_symbols != b.n_symbols:
        with pytest.raises(AutomatonError, match="symbol counts"):
            distinguishing_word(a, b)
        return
    w = distinguishing_word(a, b)
    ma, mb = minimize(a), minimize(b)
    if w is None:
        assert isomorphism(ma, mb) is not None
    else:
        assert a.label(list(w)) != b.label(list(w))
        assert isomorphism(ma, mb) is None


@given(automata(max_states=5, max_symbols=2), st.data())
def test_distinguishing_word_is_shortest(a: Automaton, data) -> None:
    b = data.draw(automata(min_symbols=a.n_symbols, max_symbols=a.n_symbols, max_states=5))
    w = distinguishing_word(a, b)
    if w is None:
        return
    # brute force: no shorter word distinguishes them
    import itertools

    for length in range(len(w)):
        for short in itertools.product(range(a.n_symbols), repeat=length):
            assert a.label(list(short)) == b.label(list(short))


def test_minimize_known_cases() -> None:
    four_state_parity = Automaton([[1, 2, 3, 0], [0, 1, 2, 3]], labels=[0, 1, 0, 1])
    m = minimize(four_state_parity)
    assert m.n_states == 2 and m.delta.tolist() == [[1, 0], [0, 1]] and m.labels.tolist() == [0, 1]
    # unreachable states are dropped
    a = Automaton([[1, 0, 3, 2]], labels=[0, 1, 2, 3])
    assert minimize(a).n_states == 2
    # group automata labelled by element are already minimal
    for spec, size in [("dihedral:5", 10), ("quaternion", 8), ("symmetric:4", 24)]:
        assert minimize(from_spec(spec)).n_states == size
    # flip-flop with all states the same class collapses to one state
    ff = from_spec("flipflop:3")
    one_class = Automaton(ff.delta, labels=[0, 0, 0])
    assert minimize(one_class).n_states == 1


def test_minimize_keeps_symbols_classes_and_name() -> None:
    a = from_spec("dihedral:3")
    m = minimize(a)
    assert m.symbols == a.symbols and m.classes == a.classes and m.name == a.name


def test_reachable_states_breadth_first() -> None:
    a = Automaton([[1, 3, 0, 3], [2, 0, 0, 3]], start=0)
    assert reachable_states(a).tolist() == [0, 1, 2, 3]
    b = Automaton([[0, 2, 1]], start=1)
    assert reachable_states(b).tolist() == [1, 2]


def test_isomorphism_with_unreachable_states_backtracks() -> None:
    # states 2,3 unreachable from 0; they form a 2-cycle in both but relabelled
    a = Automaton([[1, 0, 3, 2]], labels=[0, 1, 2, 2])
    b = Automaton([[1, 0, 3, 2]], labels=[0, 1, 2, 2])
    phi = isomorphism(a, b)
    assert phi is not None and phi[0] == 0 and phi[1] == 1 and {phi[2], phi[3]} == {2, 3}
    # same sizes and label multisets but different unreachable structure
    c = Automaton([[1, 0, 2, 3]], labels=[0, 1, 2, 2])
    assert isomorphism(a, c) is None


def test_isomorphism_rejects_and_errors() -> None:
    assert isomorphism(from_spec("dihedral:3"), from_spec("dihedral:4")) is None  # 6 vs 8 states
    with pytest.raises(AutomatonError, match="different symbol counts"):
        isomorphism(from_spec("parity"), from_spec("cyclic:3"))
    # same shape, different start label
    assert isomorphism(Automaton([[1, 0]], labels=[0, 1]), Automaton([[1, 0]], start=1, labels=[0, 1])) is None
    with pytest.raises(AutomatonError, match="not an Automaton"):
        isomorphism(from_spec("parity"), "parity")  # type: ignore[arg-type]


def test_isomorphism_of_dihedral_products_respects_labels() -> None:
    a = from_spec("cyclic:2*cyclic:3")
    b = from_spec("cyclic:2*cyclic:3")
    assert isomorphism(a, b) == {q: q for q in range(6)}


def test_distinguishing_word_known() -> None:
    # cyclic:4 against cyclic:4 with its classes merged mod 2
    c4 = from_spec("cyclic:4")
    mod2 = Automaton(c4.delta, labels=[0, 1, 0, 1])
    assert distinguishing_word(c4, mod2) == (2,)  # labels 2 vs 0; the words 0 and 1 agree
    assert distinguishing_word(c4, c4) is None


@given(automata(max_states=5, max_symbols=2), st.data())
def test_words_strategy_is_valid(a: Automaton, data) -> None:
    w = data.draw(words(a, max_size=7))
    assert len(w) <= 7 and all(0 <= s < a.n_symbols for s in w)


def test_distinguishing_word_minimises_past_the_pair_limit(monkeypatch) -> None:
    import importlib

    mod = importlib.import_module("bilinear.automata.minimize")  # the module, not the function

    c4 = from_spec("cyclic:4")
    padded = Automaton(from_spec("cyclic:8").delta[:4] % 8, labels=[0, 1, 2, 3, 0, 1, 2, 3])  # cyclic:4 in 8 states
    assert distinguishing_word(c4, padded) is None
    monkeypatch.setattr(mod, "PAIR_LIMIT", 20)  # 4 x 8 pairs > 20: minimise both (4 x 4 = 16)
    assert mod.distinguishing_word(c4, padded) is None
    assert mod.distinguishing_word(c4, Automaton(c4.delta, labels=[0, 1, 0, 1])) == (2,)
    monkeypatch.setattr(mod, "PAIR_LIMIT", 4)
    with pytest.raises(AutomatonError, match="pair limit"):
        mod.distinguishing_word(c4, padded)

"""Theorems the analysis must respect, on random automata (Hypothesis)."""

import math

import numpy as np
from hypothesis import given, settings

from bilinear.analysis import commutators
from bilinear.analysis.examples import one_hot
from bilinear.analysis import ExtractConfig, extract
from bilinear.analysis import relation_residuals
from bilinear.analysis import spectrum
from bilinear.automata import minimize
from bilinear.automata.strategies import automata, permutation_automata


def _perm_order(perm) -> int:
    seen, order = set(), 1
    for start in range(len(perm)):
        if start in seen:
            continue
        length, q = 0, start
        while q not in seen:
            seen.add(q)
            q = int(perm[q])
            length += 1
        order = order * length // math.gcd(order, length)
    return order


@settings(max_examples=25)
@given(permutation_automata(max_states=6, max_symbols=3))
def test_one_hot_permutation_matrix_order_is_the_permutation_order(a):
    # a permutation matrix P has P^k = c I (c > 0) exactly when k is a multiple of the order
    sp = spectrum(one_hot(a), a, word_length=1, max_order=60)
    for s, m in enumerate(sp.symbols):
        assert m.exact and m.index == 0
        assert m.order == _perm_order(a.delta[s])


@settings(max_examples=25)
@given(automata(max_states=5, max_symbols=2))
def test_one_hot_satisfies_every_defining_relation_exactly(a):
    # the one-hot representation is faithful: A(u) = A(v) iff u and v act alike on the states
    rel = relation_residuals(one_hot(a), a)
    assert rel.all_hold and all(r.exactly for r in rel.relations)


@settings(max_examples=20)
@given(automata(max_states=5, max_symbols=3))
def test_one_hot_extracts_to_the_minimal_automaton(a):
    ex = extract(one_hot(a, exact=False), a, ExtractConfig(words=60, length=12, method="geometry"))
    assert ex.isomorphic is True and ex.minimal == minimize(a)
    assert ex.separated and ex.conflicts == 0 and ex.accuracy == 1.0


@settings(max_examples=20)
@given(automata(max_states=5, max_symbols=3))
def test_commutators_of_one_hot_vanish_iff_symbols_commute_on_states(a):
    c = commutators(one_hot(a), a, word_length=1)
    for x in range(a.n_symbols):
        for y in range(a.n_symbols):
            commute = np.array_equal(a.delta[x][a.delta[y]], a.delta[y][a.delta[x]])
            assert c.exactly_zero[x][y] == commute

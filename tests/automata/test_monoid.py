"""Tests of bilinear.automata.monoid: sizes from the closure, algebra, theorems."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from bilinear.automata import Automaton, from_permutations, from_spec, product
from bilinear.automata.monoid import (
    Monoid,
    full_transformation_automaton,
    solvable_by_order,
    transformation_monoid,
)
from bilinear.automata.strategies import automata, permutation_automata
from bilinear.errors import AutomatonError, BilinearError, MonoidTooLargeError


@pytest.mark.parametrize(
    "spec, size, group, commutative, aperiodic, solvable, classification",
    [
        ("symmetric:5", 120, True, False, False, False, "non-solvable group of order 120"),
        ("dihedral:8", 16, True, False, False, True, "non-abelian solvable group of order 16"),
        ("dihedral:5", 10, True, False, False, True, "non-abelian solvable group of order 10"),
        ("quaternion", 8, True, False, False, True, "non-abelian solvable group of order 8"),
        ("alternating:5", 60, True, False, False, False, "non-solvable group of order 60"),
        ("modarith:5", 25, False, False, False, True, "solvable monoid of size 25"),
        ("cyclic:2*cyclic:3", 6, True, True, False, True, "abelian group of order 6"),
        ("parity", 2, True, True, False, True, "abelian group of order 2"),
        ("flipflop:3", 4, False, False, True, True, "aperiodic monoid of size 4"),
        ("reset:4", 5, False, False, True, True, "aperiodic monoid of size 5"),
        ("symmetric:4", 24, True, False, False, True, "non-abelian solvable group of order 24"),
        ("cyclic:1", 1, True, True, True, True, "trivial group of order 1"),
    ],
)
def test_known_monoids(spec, size, group, commutative, aperiodic, solvable, classification) -> None:
    m = transformation_monoid(from_spec(spec))
    assert (m.size, m.is_group, m.is_commutative, m.is_aperiodic, m.is_solvable) == (
        size, group, commutative, aperiodic, solvable,
    )
    assert m.classification == classification


@pytest.mark.parametrize("n, size", [(1, 1), (2, 4), (3, 27), (4, 256), (5, 3125)])
def test_full_transformation_monoid_sizes(n: int, size: int) -> None:
    m = transformation_monoid(full_transformation_automaton(n))
    assert m.size == size == n**n
    assert m.idempotents.size == sum(
        __import__("math").comb(n, k) * k ** (n - k) for k in range(1, n + 1)
    )


def test_full_transformation_monoid_subgroups_are_symmetric_groups() -> None:
    m = transformation_monoid(full_transformation_automaton(5))
    orders = sorted(g.order() for g in m.maximal_subgroups())
    assert orders == [1, 2, 6, 24, 120]  # S_k for every rank k
    assert len(m.d_classes()) == 5  # T_n: one D-class per rank
    assert m.classification == "non-solvable monoid of size 3125"
    assert not m.is_solvable
    assert transformation_monoid(full_transformation_automaton(4)).classification == "solvable monoid of size 256"


def test_modarith_subgroups() -> None:
    m = transformation_monoid(from_spec("modarith:5"))
    orders = sorted(g.order() for g in m.maximal_subgroups())
    assert orders == [1, 20]  # constants, and the affine group AGL(1,5)
    assert m.maximal_subgroup(0).is_solvable


def test_words_are_shortlex_least_and_evaluate_to_their_element() -> None:
    a = from_spec("dihedral:4")
    m = transformation_monoid(a)
    words = m.words
    assert words[0] == ()
    assert all((len(u), u) < (len(v), v) for u, v in zip(words, words[1:]))  # shortlex order
    for i, w in enumerate(words):
        assert m.elements[i].tolist() == [a.run(list(w), q) for q in range(a.n_states)]
        assert m.word(i) == w and m.lengths[i] == len(w)
    # brute force: each element's word is the least word that gives it
    seen = {}
    for length in range(0, 6):
        for w in itertools.product(range(a.n_symbols), repeat=length):
            row = tuple(a.run(list(w), q) for q in range(a.n_states))
            seen.setdefault(row, w)
    assert {tuple(m.elements[i].tolist()): words[i] for i in range(m.size)} == seen


@given(automata(max_states=5, max_symbols=3))
def test_right_table_and_closure(a: Automaton) -> None:
    m = transformation_monoid(a)
    assert (m.elements[0] == np.arange(a.n_states)).all()
    rows = {tuple(r) for r in m.elements.tolist()}
    assert len(rows) == m.size  # distinct
    for i in range(m.size):
        for s in range(a.n_symbols):
            assert (m.elements[m.right[i, s]] == a.delta[s][m.elements[i]]).all()
            assert (m.elements[m.left[i, s]] == m.elements[i][a.delta[s]]).all()
    # multiply agrees with composition; find inverts elements
    i, j = m.size - 1, m.size // 2
    assert (m.elements[m.multiply(i, j)] == m.elements[j][m.elements[i]]).all()
    assert m.find(m.elements).tolist() == list(range(m.size))


@given(permutation_automata(max_states=6, max_symbols=3))
def test_a_permutation_automatons_monoid_is_a_group(a: Automaton) -> None:
    m = transformation_monoid(a)
    assert m.is_group
    assert m.group().order() == m.size
    # every element has an inverse in the monoid, and x · x^-1 is the identity
    inverses = m.find(np.argsort(m.elements, axis=1))
    assert (inverses >= 0).all()
    for i in range(0, m.size, max(1, m.size // 20)):
        assert m.multiply(i, int(inverses[i])) == 0
    assert m.is_solvable == m.group().is_solvable
    assert m.is_aperiodic == (m.size == 1)


@given(automata(max_states=5, max_symbols=2), automata(max_states=4, max_symbols=2), st.data())
def test_a_direct_product_runs_as_the_pair_of_its_factors(a: Automaton, b: Automaton, data) -> None:
    p = product(a, b)
    for _ in range(5):
        w = data.draw(st.lists(st.tuples(st.integers(0, a.n_symbols - 1), st.integers(0, b.n_symbols - 1)), max_size=12))
        wa, wb = [x for x, _ in w], [y for _, y in w]
        word = [x * b.n_symbols + y for x, y in w]
        state = p.run(word)
        assert state == a.run(wa) * b.n_states + b.run(wb)
        assert p.label(word) == a.label(wa) * b.n_classes + b.label(wb)
    # and its monoid embeds in the product of the factor monoids
    assert transformation_monoid(p).size <= transformation_monoid(a).size * transformation_monoid(b).size


@given(automata(max_states=4, max_symbols=3))  # at most 4**4 = 256 elements: quadratic checks
def test_algebraic_flags_agree_with_definitions(a: Automaton) -> None:
    m = transformation_monoid(a)
    rows = m.elements.astype(np.int64)
    comm = all((rows[j][rows[i]] == rows[i][rows[j]]).all() for i in range(m.size) for j in range(m.size))
    assert m.is_commutative == comm
    # aperiodic iff x^k = x^(k+1) for some k, for every x
    def aperiodic_element(i: int) -> bool:
        powers = [i]
        for _ in range(m.size + 1):
            nxt = m.multiply(powers[-1], i)
            if nxt == powers[-1]:
                return True
            if nxt in powers:
                return False
            powers.append(nxt)
        return False

    assert m.is_aperiodic == all(aperiodic_element(i) for i in range(m.size))
    # solvable iff every maximal subgroup (sympy) is
    assert m.is_solvable == all(g.is_solvable for g in m.maximal_subgroups())
    # one maximal subgroup per regular D-class; idempotents of one D-class have isomorphic groups
    d = m.d_class_index
    for e in m.idempotents.tolist():
        twin = m.regular_d_classes()[[int(d[f]) for f in m.regular_d_classes()].index(int(d[e]))]
        assert m.h_class(e).size == m.h_class(twin).size


def test_relations_hold_and_present_the_monoid() -> None:
    a = from_spec("dihedral:3")
    m = transformation_monoid(a)
    rels = m.relations()
    assert len(rels) == m.size * m.n_symbols - (m.size - 1)
    for u, v in rels:
        assert u != v
        for q in range(a.n_states):
            assert a.run(list(u), q) == a.run(list(v), q)


def test_cayley_graph() -> None:
    m = transformation_monoid(from_spec("dihedral:3"))
    g = m.cayley_graph()
    assert g.number_of_nodes() == 6 and g.number_of_edges() == 12
    assert all(d["symbol"] in ("r", "s") for _, _, d in g.edges(data=True))
    for i in range(6):
        for a in range(2):
            assert g.has_edge(i, int(m.right[i, a]), key=a)


def test_limit_raises_naming_the_limit() -> None:
    with pytest.raises(MonoidTooLargeError, match="more than 1000 elements \\(limit=1000\\)"):
        transformation_monoid(full_transformation_automaton(5), limit=1000)
    with pytest.raises(BilinearError):
        transformation_monoid(from_spec("symmetric:6"), limit=100)
    with pytest.raises(AutomatonError, match="limit"):
        transformation_monoid(from_spec("parity"), limit=0)
    with pytest.raises(AutomatonError, match="Automaton"):
        transformation_monoid("parity")  # type: ignore[arg-type]


def test_many_states_use_exact_keys() -> None:
    # 300 states: keys are hashed, and checked against the rows
    a = from_spec("cyclic:2*dihedral:75")
    m = transformation_monoid(a)
    assert m.size == 300 and m.is_group and not m.is_commutative
    b = full_transformation_automaton(20)  # T_20 is far too large
    with pytest.raises(MonoidTooLargeError):
        transformation_monoid(b, limit=5000)


def test_automaton_monoid_is_cached() -> None:
    a = from_spec("quaternion")
    assert transformation_monoid(a) is transformation_monoid(a)
    assert isinstance(transformation_monoid(a), Monoid)


def test_index_and_word_errors() -> None:
    m = transformation_monoid(from_spec("dihedral:3"))
    assert m.index("rrr") == 0 and m.index("rs") == m.index(["r", "s"])
    with pytest.raises(AutomatonError, match="unknown symbol 'x' at position 1"):
        m.index(["r", "x"])
    with pytest.raises(AutomatonError, match="out of range"):
        m.word(6)


@pytest.mark.parametrize(
    "gens, solvable",
    [
        ([(1, 0, 2, 3), (1, 2, 3, 0)], True),  # S_4
        ([(1, 0, 2, 3, 4), (1, 2, 3, 4, 0)], False),  # S_5
        ([(1, 2, 0, 3, 4), (0, 1, 3, 4, 2)], False),  # A_5
        ([(1, 2, 3, 4, 0)], True),  # Z_5
    ],
)
def test_solvability_agrees_with_sympy(gens, solvable) -> None:
    from sympy.combinatorics import Permutation, PermutationGroup

    assert transformation_monoid(from_permutations(gens)).is_solvable == solvable
    assert PermutationGroup([Permutation(list(g)) for g in gens]).is_solvable == solvable


def test_solvable_by_order() -> None:
    assert all(solvable_by_order(n) for n in range(1, 60))
    assert not solvable_by_order(60) and not solvable_by_order(120)
    assert solvable_by_order(2**5 * 3**4) and solvable_by_order(3 * 5 * 7 * 11)


def test_solvable_by_order_is_burnside_by_sympys_factorisation() -> None:
    from sympy import factorint

    orders = [*range(1, 700), 2**20 * 3**7, 2 * 3 * 5 * 7 * 11 * 13, 2 * 999983, 4 * 999983**2, 1024 * 1009]
    for n in orders:
        assert solvable_by_order(n) == (n < 60 or n % 2 == 1 or len(factorint(n)) <= 2), n


def test_find_rejects_rows_outside_the_monoid() -> None:
    m = transformation_monoid(from_spec("flipflop:2"))
    assert m.find([[0, 1], [0, 0], [1, 0], [5, 0], [-1, 0]]).tolist() == [0, m.index("w0"), -1, -1, -1]
    with pytest.raises(AutomatonError, match="shape"):
        m.find([[0, 1, 2]])


def test_groups_have_one_idempotent_and_monoids_their_own() -> None:
    assert transformation_monoid(from_spec("symmetric:4")).idempotents.tolist() == [0]
    m = transformation_monoid(from_spec("reset:3"))
    assert m.idempotents.size == m.size == 4  # identity and the three constants


@given(automata(max_states=5, max_symbols=3))
def test_d_classes_are_the_strong_components_of_the_two_sided_cayley_graph(a: Automaton) -> None:
    import networkx as nx

    m = transformation_monoid(a)
    g = nx.DiGraph()
    g.add_nodes_from(range(m.size))
    for i in range(m.size):
        for s in range(m.n_symbols):
            g.add_edge(i, int(m.right[i, s]))
            g.add_edge(i, int(m.left[i, s]))
    expected = sorted(sorted(c) for c in nx.strongly_connected_components(g))
    assert sorted(sorted(c.tolist()) for c in m.d_classes()) == expected


def test_a_group_with_a_large_orbit_fails_before_the_closure() -> None:
    with pytest.raises(MonoidTooLargeError, match="limit=100\\): it is a group with an orbit of 120 states"):
        transformation_monoid(from_spec("symmetric:5"), limit=100)
    # the bound is only a lower bound: a group within the limit still closes
    assert transformation_monoid(from_spec("symmetric:5"), limit=120).size == 120


def test_work_limit_names_the_cost(monkeypatch) -> None:
    import importlib

    mod = importlib.import_module("bilinear.automata.closure")
    monkeypatch.setattr(mod, "WORK_LIMIT", 1000)
    with pytest.raises(MonoidTooLargeError, match="too costly to enumerate.*1,000 state entries"):
        mod.close(from_spec("flipflop:30"))
    assert mod.close(from_spec("flipflop:3")).elements.shape[0] == 4  # 1 + 4 x 4 x 3 + ... fits


@pytest.mark.parametrize("spec", ["dihedral:10", "quaternion*dihedral:2", "flipflop:17"])
def test_exact_byte_keys_give_the_same_closure_as_hashed_keys(spec: str) -> None:
    import importlib

    mod = importlib.import_module("bilinear.automata.closure")
    a = from_spec(spec)
    hashed = mod._closure(a, 100_000, exact=False)
    exact = mod._closure(a, 100_000, exact=True)
    assert mod._Keys(a.n_states, hashed.elements.dtype, exact=True).mode == "bytes"
    for name in ("elements", "right", "parent", "via"):
        assert np.array_equal(getattr(hashed, name), getattr(exact, name))


# -- groups recognised from a table (automata/groups.py) -------------------------------------
@pytest.mark.parametrize(
    "spec, cyclic, dihedral",
    [
        ("cyclic:2*cyclic:3", 6, None),  # Z_2 x Z_3 = Z_6
        ("cyclic:2*cyclic:4", None, None),
        ("dihedral:4", None, 4),
        ("symmetric:3", None, 3),  # S_3 = D_3
        ("quaternion", None, None),  # order 8, one element of order 2: not D_4
        ("alternating:4", None, None),
        ("flipflop:2", None, None),  # not a group
    ],
)
def test_cyclic_and_dihedral_groups_are_recognised_from_the_table(spec, cyclic, dihedral) -> None:
    from bilinear.automata.groups import RegularGroup, cyclic_presentation, dihedral_presentation

    a = from_spec(spec)
    group = RegularGroup.of(Automaton(a.delta, start=a.start))  # no spec, no names
    c, d = cyclic_presentation(group), dihedral_presentation(group)
    assert (c[0] if c else None) == cyclic and (d[0] if d else None) == dihedral
    if d is not None:  # every symbol written r^i s^j acts as that element
        n, exponents = d
        assert len(exponents) == a.n_symbols and all(0 <= i < n and j in (0, 1) for i, j in exponents)


def test_memory_guard_counts_the_right_cayley_table(monkeypatch) -> None:
    """modarith:20 has 400 elements of 20 states but 40 symbols: the per-symbol table (8 bytes a
    symbol) dominates, so a budget of 500 element rows is far too small for it."""
    import importlib

    mod = importlib.import_module("bilinear.automata.closure")
    assert mod.row_bytes(1000, 2000) >= 1000 * 2 + 2000 * 8
    monkeypatch.setattr(mod, "MEMORY_LIMIT_BYTES", 500 * 20)
    with pytest.raises(MonoidTooLargeError, match="bytes per element for 20 states and 40 symbols"):
        mod.close(from_spec("modarith:20"))


@pytest.mark.parametrize("spec", ["modarith:1000", "modarith:300", "cyclic:2000", "flipflop:2000"])
def test_costly_closures_are_refused_on_the_elements_found_not_after_the_work(spec: str) -> None:
    import time

    start = time.process_time()
    with pytest.raises(MonoidTooLargeError, match="too costly to enumerate.*WORK_LIMIT"):
        transformation_monoid(from_spec(spec))
    assert time.process_time() - start < 20  # it used to run for minutes (and 21 GB for M=1000)


def test_closure_time_budget_and_progress(monkeypatch, capsys) -> None:
    import importlib

    mod = importlib.import_module("bilinear.automata.closure")
    with pytest.raises(MonoidTooLargeError, match="within the time budget of 1e-09 s"):
        mod.close(from_spec("modarith:40"), time_budget=1e-9)
    with pytest.raises(AutomatonError, match="time_budget"):
        mod.close(from_spec("parity"), time_budget=-1)
    monkeypatch.setattr(mod, "PROGRESS_AFTER", 0.0)
    assert mod.close(from_spec("modarith:40"), progress=True).elements.shape[0] == 1600
    assert "monoid of modarith:40:" in capsys.readouterr().err

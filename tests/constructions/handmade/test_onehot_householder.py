"""The ``one-hot-householder`` construction (Theorem F9 of docs/theory.md): every automaton as
``householder:K`` with d = n, K <= n, exact rational factors.

The claims are checked against computations written here: the factors multiplied out with plain
``Fraction`` lists (not ``householder_compose``), every word up to a length run through those
matrices, each hidden vector a positive multiple of the one-hot vector of the automaton's state,
and the readout's strict argmax the automaton's label; then the exact prover on top.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings

from bilinear.automata import from_spec
from bilinear.automata import minimize
from bilinear.automata.strategies import automata
from bilinear.constructions.handmade import reflections
from bilinear.constructions.values.factored import householder_compose
from bilinear.constructions import Proof, prove
from bilinear.constructions.handmade.reflections import onehot_householder, positive_unit
from bilinear.constructions import build
from bilinear.constructions.settle import _build
from bilinear.errors import ConstructionError
from plain_eval import householder_product

#: The rows of the default capability matrix whose ``householder`` cell was open before this
#: construction (docs/theory.md, section 5).
FORMERLY_OPEN = ["modarith:3", "random:states=5,symbols=2,seed=0", "even_pairs", "gridworld:9",
                 "permutation_reset:3"]


def _check_every_word(w, automaton, length: int) -> int:
    """Every word up to ``length`` through the factors' own product: the hidden vector is c e_q
    (c > 0) for the minimal automaton's state q, and the label is the readout's strict argmax.
    Returns the number of words checked."""
    V, beta = w.factors
    mats = [householder_product(V[s], beta[s]) for s in range(w.n_symbols)]
    for s in range(w.n_symbols):  # the weights' A is the product of their factors
        assert [[Fraction(x) for x in row] for row in w.A[s]] == mats[s]
    m = minimize(automaton)
    h0 = [Fraction(x) for x in w.h0]
    R = [[Fraction(x) for x in row] for row in w.readout]
    checked = 0
    for n in range(length + 1):
        for word in itertools.product(range(w.n_symbols), repeat=n):
            h, q, state = list(h0), int(automaton.start), int(m.start)
            for a in word:
                h = [sum(mats[a][i][j] * h[j] for j in range(len(h))) for i in range(len(h))]
                q, state = int(automaton.delta[a][q]), int(m.delta[a][state])
            nonzero = [i for i, x in enumerate(h) if x != 0]
            assert nonzero == [state] and h[state] > 0  # a positive multiple of e_state
            scores = [sum(r[i] * h[i] for i in range(len(h))) for r in R]
            best = max(scores)
            assert scores.count(best) == 1 and scores.index(best) == int(automaton.labels[q])
            checked += 1
    return checked


def test_positive_unit_vectors_are_exact_positive_and_unit():
    for m in range(1, 70):
        u = positive_unit(m)
        assert len(u) == m and all(isinstance(x, Fraction) and x > 0 for x in u)
        assert sum(x * x for x in u) == 1
    assert positive_unit(2) == [Fraction(3, 5), Fraction(4, 5)]
    with pytest.raises(ConstructionError, match="at least one coordinate"):
        positive_unit(0)


@pytest.mark.parametrize("spec", FORMERLY_OPEN + ["reset:3", "flipflop:2", "parity", "cyclic:5", "dihedral:4"])
def test_every_word_is_classified_and_the_prover_agrees(spec):
    a = from_spec(spec)
    w = onehot_householder(a)
    n = minimize(a).n_states
    K = w.variant_info.param
    assert w.dim == n and w.variant == f"householder:{K}" and 1 <= K <= n
    V, beta = w.factors
    assert {Fraction(b) for b in np.asarray(beta).flat} <= {Fraction(0), Fraction(1), Fraction(2)}
    length = 7 if w.n_symbols <= 2 else 4
    assert _check_every_word(w, a, length) >= 2 ** length
    assert isinstance(prove(w, a), Proof)


def test_factor_counts_projections_plus_reflections():
    """K counts n - |image| projections (beta = 1) and one reflection (beta = 2) per moved
    image vector: a reset of three states to one is 2 projections and 1 reflection; a
    permutation is n - (its cycles) reflections and no projection."""
    a = from_spec("reset:3")  # three resets and the identity
    w = onehot_householder(a)
    V, beta = w.factors
    resets = 0
    for s in range(w.n_symbols):
        kinds = sorted(Fraction(b) for b in beta[s] if b != 0)
        if len(set(a.delta[s].tolist())) == 1:
            resets += 1
            assert kinds == [1, 1, 2], (s, kinds)
        else:
            assert a.delta[s].tolist() == [0, 1, 2] and kinds == []  # the identity: no factor
    assert resets == 3
    p = onehot_householder(from_spec("cyclic:5"))  # the 5-cycle: 4 transpositions, the identity none
    counts = sorted(sum(1 for b in p.factors[1][s] if b != 0) for s in range(p.n_symbols))
    assert counts[-1] == 4 and all(Fraction(b) in (0, 2) for b in np.asarray(p.factors[1]).flat)


@settings(max_examples=40, deadline=None)
@given(automata(max_states=5, max_symbols=3))
def test_random_automata_are_proved_property(a):
    w = onehot_householder(a)
    assert w.dim == minimize(a).n_states and w.variant_info.param <= max(1, w.dim)
    _check_every_word(w, a, 4)
    assert isinstance(prove(w, a), Proof)


def test_the_state_limit_is_checked_before_building(monkeypatch):
    monkeypatch.setattr(reflections, "ONE_HOT_HOUSEHOLDER_MAX_STATES", 4)
    with pytest.raises(ConstructionError, match=r"5 states, over the 4 the one-hot-householder construction"):
        reflections.onehot_householder.__wrapped__(from_spec("even_pairs"))


@pytest.mark.parametrize("spec", FORMERLY_OPEN)
def test_the_registry_builds_it_for_the_bare_householder_column(spec):
    w = _build(from_spec(spec), "householder")
    assert w.variant.startswith("householder:") and isinstance(prove(w, from_spec(spec)), Proof)
    K = w.variant_info.param
    with pytest.raises(ConstructionError):  # no smaller K in the registry (K <= 6 tried in turn)
        if K > 1:
            build(spec, f"householder:{min(K - 1, 6)}")
        else:
            raise ConstructionError("K = 1 is the least")


def test_past_six_factors_the_column_takes_the_constructions_own_count():
    """``modular_arithmetic:3``: 25 states, K = 25, past the K <= 6 the column tries in turn."""
    a = from_spec("modular_arithmetic:3")
    w = _build(a, "householder")
    assert w.variant == "householder:25" and w.dim == 25
    assert isinstance(prove(w, a), Proof)
    # beta = 2 is no nonneg factor: the nonneg column gets the one-hot reflections as half-turns
    # (Theorem F13), d + 4 = 13 factors per half-turn
    w = _build(from_spec("gridworld:9"), "householder,nonneg")
    assert w.variant == "householder:105,nonneg" and w.dim == 9


def test_exact_compose_by_rank_one_updates_equals_the_matrix_product():
    rng = np.random.default_rng(3)
    for d, K in [(1, 1), (3, 4), (5, 2)]:
        V = np.empty((2, K, d), dtype=object)
        beta = np.empty((2, K), dtype=object)
        for s, j in itertools.product(range(2), range(K)):
            v = [Fraction(int(x), int(y)) for x, y in zip(rng.integers(-5, 6, d), rng.integers(1, 4, d))]
            if all(x == 0 for x in v):
                v[0] = Fraction(1)
            V[s, j] = v
            beta[s, j] = [Fraction(0), Fraction(1), Fraction(2), Fraction(3, 7)][(s + j) % 4]
        got = householder_compose(V, beta)
        for s in range(2):
            assert [[Fraction(x) for x in row] for row in got[s]] == householder_product(V[s], beta[s])


def test_other_variants_do_not_build_it(monkeypatch):
    """``build`` skips it for every kind but ``householder`` (its d = n is the one-hot
    construction's there), and says so in the refusals."""
    calls = []
    inner = reflections.onehot_householder
    import bilinear.constructions.handmade.registry as registry

    spy = [c for c in registry.CONSTRUCTIONS if c.name == "one-hot-householder"]
    assert len(spy) == 1 and spy[0].kinds == ("householder",)
    monkeypatch.setattr(registry, "CONSTRUCTIONS", tuple(
        c if c.name != "one-hot-householder" else type(c)(**{**c.__dict__, "builder": lambda a: calls.append(1) or inner(a)})
        for c in registry.CONSTRUCTIONS))
    refusals: list = []
    with pytest.raises(ConstructionError):
        build("gridworld:9", "diagonal", refusals=refusals)
    assert calls == [] and ("one-hot-householder", "built for householder variants only (not diagonal)") in refusals
    assert build("gridworld:9", "householder:9").dim == 9 and calls == [1]


def test_explain_of_a_bare_column_names_each_count_tried():
    """``verify gridworld:9 householder --explain`` used to say "no construction was tried" after
    trying K = 1..6 and the construction's own K: each count now has its line, then the chosen
    build's refusals."""
    refusals: list = []
    w = _build(from_spec("gridworld:9"), "householder", refusals=refusals)
    assert w.variant == "householder:9"
    names = [name for name, _ in refusals]
    assert names[:6] == [f"householder:{k}" for k in range(1, 7)]
    assert all("no construction of gridworld:9 for variant" in why for _, why in refusals[:6])
    assert ("one-hot", "built full d=9, which does not conform to householder:9") in refusals

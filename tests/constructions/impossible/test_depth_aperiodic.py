"""Theorem S4 (docs/theory.md section 8): the identity (X^w Y^w)^w X^w = (X^w Y^w)^w of stacks of
commuting layers, its witness search, and verify / matrix --layers on automata with resets."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest

from bilinear.automata import Automaton, from_spec
from bilinear.automata import transformation_monoid
from bilinear.cli import main
from bilinear.constructions.impossible.depth import aperiodic_witness, min_layers
from bilinear.constructions.values.memo import minimal
from bilinear.constructions.settle import settle


def _then(x, y):
    """x then y, as maps q -> y[x[q]]."""
    return tuple(y[q] for q in x)


def _omega_naive(x):
    """The idempotent power of x by plain repeated multiplication."""
    p = x
    while _then(p, p) != p:
        p = _then(p, x)
    return p


def _identity_breaks(automaton) -> bool:
    """Independent check over *all* pairs of elements x, y: (x^w y^w)^w x^w != (x^w y^w)^w."""
    elements = [tuple(int(v) for v in row) for row in transformation_monoid(automaton).elements]
    for x, y in itertools.product(elements, repeat=2):
        X, Y = _omega_naive(x), _omega_naive(y)
        W = _omega_naive(_then(X, Y))
        if _then(W, X) != W:
            return True
    return False


def _action(automaton, word):
    """The map q -> q . word, read off the transition table."""
    q = list(range(automaton.n_states))
    for a in word:
        q = [int(automaton.delta[a, x]) for x in q]
    return tuple(q)


RESET_ROWS = ["flipflop:2", "reset:3", "modarith:3", "gridworld:5", "even_pairs", "permutation_reset:3",
              "random:states=5,symbols=2,seed=0"]


@pytest.mark.parametrize("spec", RESET_ROWS + ["dihedral:4", "cyclic:3", "symmetric:3"])
def test_witness_search_agrees_with_all_pairs(spec):
    m = minimal(from_spec(spec))
    found = aperiodic_witness(m)
    assert (found is not None) == _identity_breaks(m)
    if found is not None:  # the two words really break the identity
        X, Y = (_action(m, w) for w in found)
        W = _omega_naive(_then(X, Y))
        assert _then(X, X) == X and _then(Y, Y) == Y and _then(W, X) != W


def _seen_a_then_b() -> Automaton:
    """'an a, and later a b': R-trivial, not commutative, not a group."""
    return Automaton([[1, 1, 2], [0, 2, 2]], symbols=("a", "b"), name="a-then-b")


def test_identity_holds_without_resets_to_two_states():
    a = _seen_a_then_b()
    assert not transformation_monoid(a).is_commutative
    assert aperiodic_witness(a) is None and not _identity_breaks(a)
    b = min_layers(a, "diagonal")
    assert b.theorem is None and b.excludes(2) is None and "satisfies the identity of Theorem S4" in b.reason


def _cascade_automaton(rng, layers: int, symbols: int = 2, classes: int = 2) -> Automaton:
    """The reachable tuple automaton of a random exact stack of diagonal layers with entries in
    {0, 1, -1} (finitely many directions; singular matrices included), h0 = (1, ..., 1), integer
    readouts (argmax, ties to the first class).  Its states are the direction tuples."""
    dims = [int(rng.integers(1, 4)) for _ in range(layers)]
    tables = [rng.choice([0, 1, -1], size=(symbols * (1 if l == 0 else classes), dims[l]), p=[0.3, 0.4, 0.3])
              for l in range(layers)]
    readouts = [rng.integers(-3, 4, size=(classes, dims[l])) for l in range(layers)]

    def step(state, a):
        out, c = [], None
        for l, h in enumerate(state):
            sym = a if l == 0 else a * classes + c
            h = tuple(int(x) for x in tables[l][sym] * np.asarray(h))
            c = int(np.argmax(readouts[l] @ np.asarray(h)))
            out.append(h)
        return tuple(out)

    start = tuple(tuple([1] * d) for d in dims)
    index, order, delta = {start: 0}, [start], []
    for state in order:
        row = []
        for a in range(symbols):
            nxt = step(state, a)
            if nxt not in index:
                index[nxt] = len(order)
                order.append(nxt)
            row.append(index[nxt])
        delta.append(row)
    return Automaton(np.asarray(delta).T, name="random cascade")


def test_random_commuting_cascades_satisfy_the_identity():
    """Claim C(L) of the proof of Theorem S4, checked on the tuple automata themselves: every
    random stack of commuting (diagonal, possibly singular) layers has a monoid satisfying the
    identity, while many of those monoids are neither commutative nor groups."""
    rng = np.random.default_rng(0)
    noncommutative = nongroup = 0
    for trial in range(60):
        a = _cascade_automaton(rng, layers=1 + trial % 3)
        mon = transformation_monoid(a)
        assert aperiodic_witness(a) is None, trial
        noncommutative += not mon.is_commutative
        nongroup += not mon.is_group
    assert noncommutative >= 10 and nongroup >= 30


@pytest.mark.parametrize("spec", RESET_ROWS)
def test_min_layers_names_theorem_s4(spec):
    b = min_layers(spec, "positive")
    assert b.min_layers is None and b.theorem == "Theorem S4" and b.witness.startswith("the words x = ")
    assert b.excludes(1) == "impossible" and b.excludes(5) == "open"


def test_verify_and_matrix_layers_on_resets(capsys):
    c = settle("flipflop:2", "diagonal", layers=3)
    assert c.status == "open" and "by Theorem S4 no stack of 3 commuting layers" in c.detail
    assert "x = w0 and y = w1" in c.detail
    assert settle("flipflop:2", "diagonal", layers=1).status == "impossible"  # Theorem 6
    code = main(["verify", "modarith:3", "rotation2d", "--layers", "2", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 3 and out["status"] == "open" and out["min_layers_theorem"] == "Theorem S4"
    assert main(["matrix", "--layers", "--rows", "flipflop:2,dihedral:3", "--columns", "rotation2d"]) == 0
    text = capsys.readouterr().out
    assert "| `flipflop:2` | none (S4)  |" in text and "| `dihedral:3` | 2          |" in text


@pytest.mark.parametrize("layers", [None, 2])
def test_verify_states_theorem_s4_once(capsys, layers):
    """The depth line and the verdict at a given depth said the same Theorem S4 sentence twice."""
    extra = [] if layers is None else ["--layers", str(layers)]
    main(["verify", "flipflop:2", "rotation2d", *extra])
    text = capsys.readouterr().out
    assert text.count("Theorem S4") == 1 and "x = w0 and y = w1" in text


@pytest.mark.parametrize("spec,variant", [("flipflop:2", "full"), ("modarith:3", "full"), ("reset:3", "block:2")])
def test_resets_in_non_commuting_stacks_are_the_repeated_layer(spec, variant):
    """Where no cascade exists but one layer of the variant computes the automaton, verify --layers
    proves the layer repeated (each layer ignores the class below), with the stack prover."""
    from bilinear.constructions.values.floatrun import run_float
    from bilinear.constructions import build
    from bilinear.constructions.values.stack import repeated
    from bilinear.constructions import prove_stack

    a = from_spec(spec)
    c = settle(a, variant, layers=3)
    assert c.status == "proved" and c.layers == 3 and "ignoring the class below" in c.detail
    w = build(a, variant)
    s = repeated(w, 3)
    assert prove_stack(s, a).status == "proved"
    words = np.random.default_rng(0).integers(0, a.n_symbols, size=(20, 30))
    assert (run_float(s, words).labels == run_float(w, words).labels).all()
    broken = repeated(type(w)(w.variant, w.A[::-1], w.h0, w.readout), 2)  # symbols swapped: not the automaton
    assert prove_stack(broken, a).status == "counterexample"


def test_identity_search_refuses_past_its_limit(monkeypatch):
    from bilinear.constructions.impossible import depth
    m = minimal(from_spec("flipflop:2"))
    assert aperiodic_witness(m, limit=1) == "too large"
    monkeypatch.setattr(depth, "IDENTITY_WORK_LIMIT", 1)
    b = depth.min_layers("flipflop:2", "diagonal")
    assert b.theorem is None and "not checked (monoid too large)" in b.reason and b.excludes(3) is None

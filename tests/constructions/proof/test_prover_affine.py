"""prove() on AffineWeights (Theorems A1 and A4 of docs/theory.md), checked against an exhaustive
exact run of every word to a depth written here, and the affine certificate search (Theorem A3)."""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest

from bilinear.automata import Automaton, from_spec
from bilinear.constructions.exact.field import FieldElement
from bilinear.constructions.handmade.registry import build
from bilinear.constructions.impossible.certificates import certify
from bilinear.constructions.proof.prover import prove
from bilinear.constructions.values.affine import AffineWeights
from bilinear.errors import MismatchError, WeightsError


def _exact_labels(aff: AffineWeights, word) -> list:
    """Labels after each symbol, exact (Fractions or field elements), by the affine recurrence by
    hand: None for a tie.  Independent of the lift and of the prover."""
    d = aff.dim
    h = list(aff.h0)
    out = []
    for a in word:
        h = [sum((aff.A[a][i][j] * h[j] for j in range(d)), 0) + aff.b[a][i] for i in range(d)]
        R = aff.readout[a]
        scores = [sum((R[c][j] * h[j] for j in range(d)), 0) + R[c][d] for c in range(aff.n_classes)]
        best = max(range(len(scores)), key=lambda c: _value(scores[c]))
        tied = sum(1 for s in scores if _value(s - scores[best]) == 0) > 1
        out.append(None if tied else best)
    return out


def _value(x) -> float:
    if isinstance(x, FieldElement):
        return float(x)
    return float(Fraction(x))


def _first_failure(aff: AffineWeights, automaton: Automaton, depth: int):
    """The shortest word (shortlex) up to ``depth`` with a wrong or tied label, or None."""
    for n in range(1, depth + 1):
        for word in itertools.product(range(aff.n_symbols), repeat=n):
            if _exact_labels(aff, word)[-1] != automaton.label(list(word)):
                return word
    return None


def test_affine_diagonal_flipflop_is_proved_and_never_certified_impossible() -> None:
    flipflop = from_spec("flipflop:2")
    flip = AffineWeights("diagonal", A=[[[0]], [[0]], [[1]]], b=[[-1], [1], [0]], readout=[[-1, 0], [1, 0]], h0=[-1])
    proof = prove(flip, flipflop)
    assert proof.status == "proved" and proof.margin == 2 and proof.states_explored == 2
    assert _first_failure(flip, flipflop, 6) is None
    # Theorem 6 rules out every *linear* diagonal network: a commutation certificate ...
    assert certify(flipflop, "diagonal").kind == "commutation"
    # ... which does not transfer to the affine recurrence (Theorem A3): no certificate at all
    for variant in ("diagonal", "positive", "rotation2d"):
        assert certify(flipflop, variant, affine=True) is None
    # a positive version (A = 1/2 for the sets: 0 is not positive) is right on every word, but its
    # states converge to +-6 without reaching them: infinitely many directions, so unproved, never wrong
    half = AffineWeights("positive", A=[[[Fraction(1, 2)]], [[Fraction(1, 2)]], [[1]]], b=[[-3], [3], [0]],
                         readout=[[-1, 0], [1, 0]], h0=[-1])
    assert prove(half, flipflop, bound=4).status == "open"
    assert _first_failure(half, flipflop, 6) is None


def test_affine_certificates_that_do_transfer() -> None:
    # Theorem 7 transfers: Z_3 has labels of period 3 along 1^n, for every affine diagonal network
    cert = certify("cyclic:3", "diagonal", affine=True)
    assert cert.kind == "symbol-period" and "Theorem A2" in cert.theorem and cert.verify(from_spec("cyclic:3"))
    # Theorem 8 transfers: parity is impossible for affine positive-diagonal networks
    assert certify("parity", "positive", affine=True).kind == "symbol-constancy"
    assert certify("parity", "diagonal", affine=True) is None  # A = -1 computes it


def _last_symbol() -> Automaton:
    """States: start, then 'the last symbol was a' (a = 0, 1, 2); label = that symbol."""
    delta = [[1, 1, 1, 1], [2, 2, 2, 2], [3, 3, 3, 3]]
    return Automaton(delta, labels=[0, 0, 1, 2], classes=("0", "1", "2"), symbols=("a", "b", "c"))


def test_per_symbol_readout_reads_the_symbol_just_read() -> None:
    automaton = _last_symbol()
    R = [[[0, 1 if c == a else 0] for c in range(3)] for a in range(3)]  # a bias per symbol
    aff = AffineWeights("diagonal", A=[[[1]]] * 3, b=[[0]] * 3, readout=R)
    proof = prove(aff, automaton)
    assert proof.status == "proved" and proof.hidden_states == 1 and proof.margin == 1
    assert _first_failure(aff, automaton, 5) is None
    # the same state with the fixed readout of symbol a: wrong, and the prover finds the shortest word
    fixed = AffineWeights("diagonal", A=[[[1]]] * 3, b=[[0]] * 3, readout=R[0])
    bad = prove(fixed, automaton)
    assert bad.status == "counterexample" and bad.word == (1,) and bad.got == 0
    with pytest.raises(MismatchError, match="2 classes but automaton"):
        prove(AffineWeights("diagonal", [[[1]]] * 3, [[0]] * 3, [[[1, 0]] * 2] * 3), automaton)


def test_symmetric3_affine_triangle_with_per_symbol_readout() -> None:
    """The construction of fixture (b) in exact arithmetic: the triangle's matrices A_a (entries in
    Q(zeta_12)), the fixed point c, b_a = (I - A_a) c, h0 = 0, so h_w = (I - A_w) c; class g reads
    h - c = -A_w c with the row -A_g c and the bias (A_g c) . c (Theorem 2 on the orbit of -c)."""
    s3 = from_spec("symmetric:3")
    A = build("symmetric:3", "householder:2").A
    c = np.array([3, 1], dtype=object)
    Aw = {}
    for q, word in _access(s3).items():
        M = np.eye(2, dtype=np.int64).astype(object)
        for a in word:
            M = A[a].dot(M)
        Aw[int(s3.labels[q])] = M
    rows = []
    for g in range(s3.n_classes):
        p = -Aw[g].dot(c)
        rows.append(list(p) + [-p.dot(c)])
    b = [list(c - A[a].dot(c)) for a in range(2)]
    per_symbol = [rows, [[x * 2 for x in r] for r in rows]]  # symbol 1 reads with a positive multiple
    aff = AffineWeights("full", A, b, per_symbol)
    proof = prove(aff, s3)
    assert proof.status == "proved" and proof.hidden_states == 6 and proof.conductor == 12
    assert _first_failure(aff, s3, 5) is None
    # another fixed point for one symbol (b off by 4 e_0): the orbit leaves the triangle's, and a
    # shortest failing word is found (the exhaustive run's first failure has its length)
    b_bad = [b[0], [b[1][0] + 4, b[1][1]]]
    wrong = prove(AffineWeights("full", A, b_bad, per_symbol), s3, bound=4)
    failing = _first_failure(AffineWeights("full", A, b_bad, per_symbol), s3, 5)
    assert failing is not None
    assert wrong.status == "counterexample" and len(wrong.word) == len(failing)


def _access(automaton: Automaton) -> dict[int, tuple[int, ...]]:
    words = {int(automaton.start): ()}
    frontier = [int(automaton.start)]
    while frontier:
        nxt = []
        for q in frontier:
            for a in range(automaton.n_symbols):
                r = int(automaton.delta[a, q])
                if r not in words:
                    words[r] = words[q] + (a,)
                    nxt.append(r)
        frontier = nxt
    return words


@pytest.mark.parametrize("seed", range(12))
def test_random_affine_networks_agree_with_the_exhaustive_run(seed: int) -> None:
    """Small integer affine networks with finite orbits (A in {0, +-1} diagonal, b in {-1, 0, 1}) and
    per-symbol readouts: a proof means no failure to depth 6; a counterexample is a shortest
    failing word (the exhaustive search's first failure has its length)."""
    rng = np.random.default_rng(seed)
    automaton = from_spec(f"random:states=3,symbols=2,seed={seed}")
    d = 2
    A = [np.diag(rng.choice([0, 1, -1], size=d)).tolist() for _ in range(2)]
    b = rng.integers(-1, 2, size=(2, d)).tolist()
    R = rng.integers(-2, 3, size=(2, automaton.n_classes, d + 1)).tolist()
    aff = AffineWeights("diagonal", A, b, R)
    result = prove(aff, automaton)
    failing = _first_failure(aff, automaton, 6)
    if result.status == "proved":
        assert failing is None
    else:
        assert result.status == "counterexample"
        assert failing is not None and len(result.word) == len(failing)
        assert _exact_labels(aff, result.word)[-1] != automaton.label(list(result.word))


def _own_automaton(aff: AffineWeights) -> Automaton | None:
    """The automaton a finite-orbit affine network computes, built here by a search over (state,
    last symbol) in Fractions: states are the start and the pairs (h, a), labels the strict argmax of
    a's readout on h (None when some reachable pair ties)."""
    start = tuple(Fraction(x) for x in aff.h0)
    global _OWN_MARGIN
    _OWN_MARGIN = None
    index: dict = {("start",): 0}
    table: list[list[int]] = []
    labels = [0]
    frontier = [(("start",), start)]
    while frontier:
        nxt = []
        for _key, h in frontier:
            row = []
            for a in range(aff.n_symbols):
                h2 = tuple(_exact_step(aff, a, h))
                label = _exact_labels_from(aff, a, h2)
                if label is None:
                    return None
                margin = _exact_margin(aff, a, h2, label)
                _OWN_MARGIN = margin if _OWN_MARGIN is None else min(_OWN_MARGIN, margin)
                k2 = (h2, a)
                if k2 not in index:
                    index[k2] = len(index)
                    labels.append(label)
                    nxt.append((k2, h2))
                row.append(index[k2])
            table.append(row)
        frontier = nxt
        if len(index) > 200:
            return None
    delta = np.array(table).T.tolist()
    return Automaton(delta, labels=labels, classes=tuple(str(c) for c in range(aff.n_classes)))


_OWN_MARGIN = None  # the exact minimum margin over the pairs _own_automaton reached


def _exact_margin(aff, a, h, label):
    d, R = aff.dim, aff.readout[a]
    scores = [sum((Fraction(R[c][j]) * h[j] for j in range(d)), Fraction(0)) + Fraction(R[c][d])
              for c in range(aff.n_classes)]
    return scores[label] - max(x for c, x in enumerate(scores) if c != label)


def _exact_step(aff, a, h):
    d = aff.dim
    return [sum((Fraction(aff.A[a][i][j]) * h[j] for j in range(d)), Fraction(0)) + Fraction(aff.b[a][i])
            for i in range(d)]


def _exact_labels_from(aff, a, h):
    d, R = aff.dim, aff.readout[a]
    scores = [sum((Fraction(R[c][j]) * h[j] for j in range(d)), Fraction(0)) + Fraction(R[c][d])
              for c in range(aff.n_classes)]
    best = max(scores)
    return scores.index(best) if scores.count(best) == 1 else None


@pytest.mark.parametrize("seed", range(8))
def test_random_affine_networks_prove_their_own_automaton(seed: int) -> None:
    """The automaton the network computes (built above, independently) is proved, with as many
    lifted directions as distinct reachable states h; its label changed on one state gives a
    counterexample of the exhaustive run's length."""
    rng = np.random.default_rng(100 + seed)
    for _ in range(20):  # draw until the start and every reachable pair have strict labels
        diag = rng.choice([0, 1, -1], size=(3, 2))
        b = rng.integers(-1, 2, size=(3, 2)) * (diag != 1)  # no translation: a finite orbit
        aff = AffineWeights("diagonal", [np.diag(x).tolist() for x in diag], b.tolist(),
                            rng.integers(-20, 21, size=(3, 3, 3)).tolist())
        own = _own_automaton(aff)
        if own is not None:
            break
    assert own is not None
    proof = prove(aff, own)
    assert proof.status == "proved"
    assert proof.margin == _OWN_MARGIN and proof.margin_float == float(_OWN_MARGIN)
    assert _first_failure(aff, own, 4) is None
    labels = list(own.labels)
    q = len(labels) - 1  # the last state found: some word reaches it
    labels[q] = (labels[q] + 1) % aff.n_classes
    changed = Automaton(own.delta.tolist(), labels=labels, classes=own.classes)
    bad = prove(aff, changed)
    failing = _first_failure(aff, changed, 8)
    assert bad.status == "counterexample" and failing is not None and len(bad.word) == len(failing)


def test_time_budget_and_bound_stop_an_infinite_orbit_as_unproved() -> None:
    """A translation h -> h + 1 reaches a new state at every step: never a proof, never wrong."""
    automaton = Automaton([[0]], labels=[0], classes=("pos", "neg"), symbols=("x",))
    grows = AffineWeights("diagonal", A=[[[1]]], b=[[1]], readout=[[[1, 0], [-1, 0]]], h0=[0])
    by_bound = prove(grows, automaton, bound=5)
    assert by_bound.status == "open" and by_bound.cause == "bound" and by_bound.states_explored == 6
    assert by_bound.texts == ("ε", "x")
    by_time = prove(grows, automaton, bound=10**9, time_budget=0.05)
    assert by_time.status == "open" and by_time.cause == "time" and "time budget ran out after" in by_time.reason


def test_per_symbol_failures_name_the_symbol_and_the_weights_answer() -> None:
    automaton = _last_symbol()
    R = [[[0, 1 if c == a else 0] for c in range(3)] for a in range(3)]
    R[2] = [[0, 1], [0, 0], [0, Fraction(1, 2)]]  # after c the weights say "0" (score 1), not "2" (1/2)
    bad = prove(AffineWeights("diagonal", A=[[[1]]] * 3, b=[[0]] * 3, readout=R), automaton)
    assert bad.status == "counterexample" and bad.word == (2,) and bad.expected == 2 and bad.got == 0
    assert bad.scores == (1.0, 0.0, 0.5)  # symbol c's rows, not another symbol's
    R[2] = [[0, Fraction(7, 10)], [0, 1], [0, Fraction(1, 2)]]  # the first class above "2" is 0, the top one 1
    bad = prove(AffineWeights("diagonal", A=[[[1]]] * 3, b=[[0]] * 3, readout=R), automaton)
    assert bad.word == (2,) and bad.got == 1 and bad.scores == (0.7, 1.0, 0.5)
    # two classes: a per-symbol flip-flop whose r rows are swapped fails on "r" (the start is state 0)
    flipflop = from_spec("flipflop:2")
    rows = [[[-1, 0], [1, 0]], [[-1, 0], [1, 0]], [[1, 0], [-1, 0]]]
    swapped = AffineWeights("diagonal", A=[[[0]], [[0]], [[1]]], b=[[-1], [1], [0]], readout=rows, h0=[-1])
    result = prove(swapped, flipflop)
    assert result.status == "counterexample" and result.word == (2,) and result.got == 1
    rows[2] = [[-1, 0], [1, 0]]
    right = prove(AffineWeights("diagonal", A=[[[0]], [[0]], [[1]]], b=[[-1], [1], [0]], readout=rows, h0=[-1]),
                  flipflop)
    assert right.status == "proved" and right.margin == 2 and right.margin_float == 2.0


def test_a_margin_below_float_resolution_is_decided_exactly() -> None:
    """Scores 1 + 10^-20 against 1: the float screen cannot tell them apart, the exact sign can."""
    automaton = _last_symbol()
    tiny = Fraction(1, 10**20)
    R = [[[0, 1 + tiny if c == a else 1] for c in range(3)] for a in range(3)]
    proof = prove(AffineWeights("diagonal", A=[[[1]]] * 3, b=[[0]] * 3, readout=R), automaton)
    assert proof.status == "proved" and proof.margin == tiny
    R[1][1] = [0, 1 - tiny]  # now b's right class is below the others by 10^-20
    bad = prove(AffineWeights("diagonal", A=[[[1]]] * 3, b=[[0]] * 3, readout=R), automaton)
    assert bad.status == "counterexample" and bad.word == (1,) and bad.got is None  # classes 0 and 2 tie


def test_bad_arguments_are_refused_by_name() -> None:
    aff = AffineWeights("diagonal", A=[[[1]]] * 3, b=[[0]] * 3, readout=[[[0, 1], [0, 0], [0, 0]]] * 3)
    with pytest.raises(MismatchError, match="expected an Automaton"):
        prove(aff, "flipflop:2")
    with pytest.raises(WeightsError, match="bound must be a positive integer"):
        prove(aff, _last_symbol(), bound=0)


def test_one_class_has_no_margin() -> None:
    one = Automaton([[0, 0]], labels=[0, 0], classes=("only",), symbols=("x",))
    proof = prove(AffineWeights("diagonal", A=[[[1]]], b=[[1]], readout=[[[0, 0]]]), one, bound=1)
    assert proof.status == "open"  # h = 1, 2, 3, ...: an infinite orbit, one class or not
    proof = prove(AffineWeights("diagonal", A=[[[0]]], b=[[1]], readout=[[[0, 0]]]), one)
    assert proof.status == "proved" and proof.margin is None and proof.margin_float is None

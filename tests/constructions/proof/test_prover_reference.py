"""The prover's numbers against a closure written for this test, in plain Fractions.

The reference follows the definition in docs/theory.md (Theorem 5) and the prover's docstring,
not its code: breadth-first over the pairs ``(q, [h])`` with the symbols in order, each direction
stored as the first vector that reaches it (later vectors in it are positive multiples), every
new pair's readout checked when it is found.  A proof's margin is the minimum over the pairs of
``score[label] - max(other scores)`` on the stored vectors; a counterexample is the first failing
pair in that order.

The weights are the registry's constructions with their readout perturbed: by a few sevenths
(margins that differ per pair) and by ``2^-60`` (margins that differ in the 18th digit, below the
float screen's resolution, so that the exact decisions pick the minimum), and sometimes enough to
break them (counterexamples).  Integer readouts go through the int64 closure, Fractions through
the exact loop.
"""

from __future__ import annotations

from collections import deque
from fractions import Fraction

import numpy as np
import pytest

from bilinear.automata import from_spec
from bilinear.constructions import Counterexample, Proof, prove
from bilinear.constructions import build
from bilinear.constructions import Weights


def _direction(h: tuple) -> tuple:
    for x in h:
        if x != 0:
            return tuple(y / abs(x) for y in h)
    return h


def reference(w: Weights, a) -> tuple:
    """('proved', pairs, directions, margin) or ('counterexample', word, expected, got)."""
    A = [[[Fraction(x) for x in row] for row in w.A[s].tolist()] for s in range(w.n_symbols)]
    R = [[Fraction(x) for x in row] for row in w.readout.tolist()]
    stored: dict[tuple, tuple] = {}  # direction -> its first vector

    def store(h):
        return stored.setdefault(_direction(h), h)

    def failure(q, h):
        scores = [sum(r * x for r, x in zip(row, h)) for row in R]
        L = int(a.labels[q])
        others = [s for c, s in enumerate(scores) if c != L]
        if not others or scores[L] > max(others):
            return None, (scores[L] - max(others) if others else None)
        top = max(scores)
        best = [c for c, s in enumerate(scores) if s == top]
        return (L, best[0] if len(best) == 1 else None), None

    h0 = store(tuple(Fraction(x) for x in w.h0.tolist()))
    start = (int(a.start), _direction(h0))
    pairs = {start: ()}
    bad, margin = failure(int(a.start), h0)
    if bad:
        return ("counterexample", (), *bad)
    margins = [margin]
    queue = deque([start])
    while queue:
        q, key = queue.popleft()
        h = stored[key]
        for s in range(w.n_symbols):
            nxt = store(tuple(sum(x * y for x, y in zip(row, h)) for row in A[s]))
            pair = (int(a.delta[s, q]), _direction(nxt))
            if pair in pairs:
                continue
            pairs[pair] = pairs[(q, key)] + (s,)
            bad, margin = failure(pair[0], nxt)
            if bad:
                return ("counterexample", pairs[pair], *bad)
            margins.append(margin)
            queue.append(pair)
    return ("proved", len(pairs), len(stored), None if margins[0] is None else min(margins))


def perturbed(spec: str, seed: int, scale: Fraction, integral: bool, tiny: bool = False) -> Weights:
    """The full construction of ``spec`` with ``scale`` times small integers added to its readout;
    ``tiny``: then scaled by 2^-60 and a random row added to every class (the same row, so the
    argmax is kept): the scores stay of order one while every margin is below the float screen's
    resolution, and each one is decided exactly."""
    w = build(spec, "full")
    rng = np.random.default_rng(seed)
    noise = rng.integers(-3, 4, size=w.readout.shape)
    R = [[Fraction(x) + scale * int(n) for x, n in zip(row, nrow)] for row, nrow in zip(w.readout.tolist(), noise)]
    if tiny:
        shift = rng.integers(1, 4, size=w.dim)
        R = [[x / 2**60 + int(v) for x, v in zip(row, shift)] for row in R]
    if integral:  # the same directions and verdict, with integer scores: the int64 closure
        den = max(x.denominator for row in R for x in row)
        R = [[int(x * den) for x in row] for row in R]
    return Weights("full", w.A, w.h0, R)


SPECS = ["parity", "cyclic:4", "symmetric:3", "symmetric:4", "flipflop:3", "dihedral:4", "modarith:4", "quaternion",
         "random:states=4,symbols=2,seed=1", "random:states=5,symbols=3,seed=4"]
SCALES = [Fraction(1, 7), Fraction(1, 2**60), Fraction(1, 2)]


@pytest.mark.parametrize("spec", SPECS)
@pytest.mark.parametrize("scale", SCALES, ids=["sevenths", "2^-60", "halves"])
@pytest.mark.parametrize("integral", [False, True], ids=["exact-loop", "int64"])
@pytest.mark.parametrize("tiny", [False, True], ids=["", "tiny-margins"])
def test_prover_agrees_with_a_plain_fraction_closure(spec, scale, integral, tiny):
    a = from_spec(spec)
    outcomes = set()
    for seed in range(4):
        w = perturbed(spec, seed, scale, integral, tiny)
        want = reference(w, a)
        got = prove(w, a, bound=10_000)
        outcomes.add(want[0])
        if want[0] == "proved":
            assert isinstance(got, Proof), (seed, got)
            assert (got.states_explored, got.hidden_states) == want[1:3]
            want_margin = want[3] if not integral or want[3] is None else int(want[3])
            assert got.margin == want_margin, seed
        else:
            assert isinstance(got, Counterexample), (seed, got)
            assert (got.word, got.expected, got.got) == want[1:], seed
    if scale != SCALES[2]:
        assert "proved" in outcomes  # small perturbations keep some constructions right


def test_the_suite_meets_both_outcomes_and_varied_margins():
    """The perturbations do what the test above needs: proofs whose pairs have different
    margins (the minimum is not the first pair's), and counterexamples past the empty word."""
    varied = deep = 0
    for spec in SPECS:
        a = from_spec(spec)
        for seed in range(4):
            w = perturbed(spec, seed, SCALES[1], False)
            if reference(w, a)[0] == "proved":
                R = w.readout
                scores = {tuple(R.dot(np.array(h, dtype=object)).tolist()) for h in prove(w, a)._hidden}
                varied += len(scores) > 2
            bad = reference(perturbed(spec, seed, SCALES[2], False), a)
            deep += bad[0] == "counterexample" and len(bad[1]) >= 2
    assert varied >= 5 and deep >= 3, (varied, deep)

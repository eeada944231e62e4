"""Directed words run in exact arithmetic: a refutation of exact weights that the breadth-first
proof would reach only after its budget.

The exact prover (:func:`~bilinear.constructions.proof.prover.prove`) explores words breadth-first,
so a network that errs first at length 200 is out of its reach: the pairs outgrow the bound long
before.  The float check's directed words (powers ``a^n``, ``a b^n``, short loops repeated; see
:func:`~bilinear.constructions.horizon.floatcheck.directed_words`) reach such lengths at once.
:func:`exact_failure` runs the words that fail in float64, up to their failing length, in exact
arithmetic (the network of :meth:`Weights.exact_network`, rescaled by
positive powers of two, which changes no label): a wrong or tied label there is a counterexample,
exactly as one found by the prover, though not necessarily a shortest one.

>>> from fractions import Fraction
>>> from bilinear.automata.families import from_spec
>>> from bilinear.constructions.values.weights import Weights
>>> t = Fraction(577, 1000)   # tan(theta / 2): theta = pi/3 - 5.25e-4, not a sixth of a turn
>>> c, s = (1 - t * t) / (1 + t * t), 2 * t / (1 + t * t)
>>> import numpy as np
>>> A = [np.linalg.matrix_power(np.array([[c, -s], [s, c]], dtype=object), k) for k in range(6)]
>>> w = Weights("rotation2d", A, [1, 0], [M[:, 0] for M in A])   # class k: the direction of A_1^k h0
>>> found = exact_failure(w, from_spec("cyclic:6"), 500)
>>> len(found.word), found.word[0], found.got   # 5^200: the automaton says 4, the network 3
(200, 5, 3)
"""

from __future__ import annotations

import math
import time
from fractions import Fraction
from typing import NamedTuple

import flint
import numpy as np

from ..exact.field import exact_sign
from .failsearch import first_failures
from .floatcheck import directed_words

__all__ = ["exact_failure", "ExactFailure", "EXACT_WORDS_SECONDS"]


class ExactFailure(NamedTuple):
    """A word whose exact label is wrong: ``got`` the network's class (None: a tie)."""

    word: tuple[int, ...]
    got: int | None

#: Seconds :func:`exact_failure` runs for at most (``verify`` spends them before the proof).
EXACT_WORDS_SECONDS = 3.0


def exact_failure(weights, automaton, length: int, seconds: float = EXACT_WORDS_SECONDS):
    """:class:`ExactFailure` of a prefix on which the exact network's label is wrong or tied, or
    None (none found within ``seconds``).  Only the directed words of ``length`` that fail in
    float64 are run, each up to its float64 failing length, in the order of those lengths, and the
    search stops at the first exact failure: every later word fails in float64 no sooner.  So the
    prefix is the shortest exact failure among these words unless a later word fails exactly
    sooner than in float64 (by more than the gap between the two float64 failures); it is always
    a true counterexample, never claimed the shortest.  The words that pass in float64 are left to the
    breadth-first proof, which runs every short word exactly anyway.  ``weights``: exact or
    float :class:`Weights`."""
    deadline = time.monotonic() + seconds
    words = directed_words(automaton, length, weights.variant)
    first = first_failures(weights, automaton, words)
    order = sorted(range(len(words)), key=lambda i: (first[i] < 0, first[i], i))
    net = weights.exact_network()
    A, R, h0 = _arrays(net)
    for i in order:
        if first[i] < 0:  # passing in float64 (sorted last): short prefixes are the proof's own words
            break
        found = _first_wrong(A, R, h0, automaton, words[i][: int(first[i])], deadline)
        if found is not None:  # the rest fail in float64 no sooner (never claimed the shortest)
            return found
        if time.monotonic() > deadline:
            break
    return None


def _arrays(net):
    """``(A per symbol, R, h0)``: for rational weights flint ``fmpz_mat`` integer matrices, each
    the rational one times a positive common denominator (which changes no label: the network is
    scale-invariant), so that a step is one integer product; else object arrays of field elements."""
    rational = all(isinstance(x, (int, Fraction)) for arr in (net.A, net.h0, net.readout) for x in arr.flat)
    if not rational:
        return ([np.asarray(net.A[s], dtype=object) for s in range(net.n_symbols)],
                np.asarray(net.readout, dtype=object), np.asarray(net.h0, dtype=object))

    def integer(M):
        M = np.atleast_2d(np.asarray(M, dtype=object))
        den = math.lcm(*(Fraction(x).denominator for x in M.flat))
        return flint.fmpz_mat(M.shape[0], M.shape[1], [int(Fraction(x) * den) for x in M.flat])

    return ([integer(net.A[s]) for s in range(net.n_symbols)], integer(net.readout),
            integer(np.asarray(net.h0, dtype=object)[:, None]))


def _primitive(h):
    """An integer column divided by the gcd of its entries (a positive scale)."""
    g = flint.fmpz(0)
    for i in range(h.nrows()):
        g = g.gcd(h[i, 0])
    return h if g <= 1 else flint.fmpz_mat(h.nrows(), 1, [h[i, 0] // g for i in range(h.nrows())])


def _first_wrong(A, R, h0, automaton, word, deadline: float):
    """The shortest prefix of ``word`` whose exact label is wrong or tied (None: none, or out of time)."""
    h = h0
    rational = isinstance(h0, flint.fmpz_mat)
    q = int(automaton.start)
    for t, a in enumerate(word):
        if time.monotonic() > deadline:
            return None
        if rational:
            h = _primitive(A[int(a)] * h)
            column = R * h
            scores = [column[c, 0] for c in range(R.nrows())]
        else:
            h = _scaled(A[int(a)] @ h)
            scores = R @ h
        q = int(automaton.delta[int(a), q])
        if not _strict(scores, int(automaton.labels[q])):
            return ExactFailure(tuple(int(x) for x in word[: t + 1]), _argmax(scores))
    return None


def _scaled(h):
    """``h`` divided by the largest power of two below its largest entry (exact, positive): the
    numbers stay of moderate size over hundreds of steps."""
    top = max((abs(float(x)) for x in h), default=0.0)
    if top == 0.0 or 2.0**-64 < top < 2.0**64:
        return h
    e = int(np.frexp(top)[1])
    return h * Fraction(1, 2**e) if e > 0 else h * 2**-e


def _sign(x) -> int:
    return (x > 0) - (x < 0) if isinstance(x, flint.fmpz) else exact_sign(x)


def _argmax(scores) -> int | None:
    """The class with the strictly largest exact score (None: a tie at the top)."""
    best = 0
    for c in range(1, len(scores)):
        if _sign(scores[c] - scores[best]) > 0:
            best = c
    return best if _strict(scores, best) else None


def _strict(scores, label: int) -> bool:
    return all(_sign(scores[label] - scores[c]) > 0 for c in range(len(scores)) if c != label)

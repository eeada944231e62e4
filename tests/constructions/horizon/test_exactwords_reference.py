"""exact_failure (constructions/horizon/exactwords.py) against a brute force written for the test:
every prefix of every directed word that fails in float64, up to its float64 failing length, run in
Fraction arithmetic; the shortest exact failure among them, the earliest word first.  On these
networks (rotations of Z_m off by a little, the readout the directions of the powers) the float64
run fails no later than the exact one, so the search's answer is that shortest failure."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from exact_rotations import off_rotation

from bilinear.automata.families import from_spec
from bilinear.constructions.horizon.exactwords import exact_failure
from bilinear.constructions.horizon.failsearch import first_failures
from bilinear.constructions.horizon.floatcheck import directed_words
from bilinear.constructions.values.weights import Weights


def _integers(M) -> list[list[int]]:
    """``M`` times the lcm of its denominators (a positive scale: no label changes)."""
    den = math.lcm(*(Fraction(x).denominator for x in np.asarray(M).flat))
    return [[int(Fraction(x) * den) for x in row] for row in np.atleast_2d(np.asarray(M))]


def _exact_labels(w: Weights, word) -> list[int | None]:
    """The network's strict argmax after each prefix (None: a tie), in integers: every matrix and
    the readout scaled to integers, the state never divided."""
    A = [_integers(w.A[s]) for s in range(w.n_symbols)]
    R = _integers(w.readout)
    h = [int(x) for x in _integers([w.h0])[0]]
    out = []
    for a in word:
        M = A[int(a)]
        h = [sum(M[i][j] * h[j] for j in range(len(h))) for i in range(len(h))]
        scores = [sum(r * x for r, x in zip(row, h)) for row in R]
        top = max(scores)
        out.append(scores.index(top) if scores.count(top) == 1 else None)
    return out


def _brute_force(w: Weights, spec: str, length: int):
    a = from_spec(spec)
    words = directed_words(a, length, w.variant)
    first = first_failures(w, a, words)
    best = None
    for i in sorted(range(len(words)), key=lambda i: (first[i], i)):
        if first[i] < 1:
            continue
        word = [int(x) for x in words[i][: first[i]]]
        q, labels = int(a.start), []
        for x in word:
            q = int(a.delta[x, q])
            labels.append(int(a.labels[q]))
        for t, got in enumerate(_exact_labels(w, word)):
            if got != labels[t]:
                if best is None or t + 1 < len(best[0]):
                    best = (tuple(word[: t + 1]), got)
                break
    return best


@pytest.mark.parametrize("m,t,scale", [
    (6, Fraction(577, 1000), 1), (6, Fraction(578, 1000), 1), (6, Fraction(5765, 10000), 3),
    (5, Fraction(7255, 10000), 1), (5, Fraction(728, 1000), 2), (5, Fraction(724, 1000), 1),
    (4, Fraction(1005, 1000), 1), (4, Fraction(995, 1000), 3), (4, Fraction(102, 100), 1),
])
def test_the_search_finds_the_brute_forces_shortest_failure(m, t, scale):
    w = off_rotation(m, t, scale)
    expected = _brute_force(w, f"cyclic:{m}", 250)
    assert expected is not None  # these networks do fail within 250 steps
    assert exact_failure(w, from_spec(f"cyclic:{m}"), 250) == expected


def test_a_scale_changes_no_answer_and_right_weights_have_none():
    """The network is scale-invariant: times 3 (entries growing as 3^n, divided by their gcd on
    the way) it fails on the same word; the exact Z_4 rotation (a quarter turn) fails nowhere."""
    base = exact_failure(off_rotation(6, Fraction(577, 1000)), from_spec("cyclic:6"), 300)
    assert base is not None and exact_failure(off_rotation(6, Fraction(577, 1000), 3), from_spec("cyclic:6"), 300) == base
    assert exact_failure(off_rotation(4, Fraction(1)), from_spec("cyclic:4"), 300) is None


def test_out_of_time_is_none():
    assert exact_failure(off_rotation(6, Fraction(577, 1000)), from_spec("cyclic:6"), 300, seconds=0.0) is None


def test_the_exact_run_returns_the_failing_prefix_of_a_longer_word():
    """Given 5^250 (longer than its failure at 200), the run stops at the failing prefix."""
    from bilinear.constructions.horizon.exactwords import _arrays, _first_wrong

    w = off_rotation(6, Fraction(577, 1000))
    A, R, h0 = _arrays(w.exact_network())
    found = _first_wrong(A, R, h0, from_spec("cyclic:6"), [5] * 250, float("inf"))
    assert found is not None and found.word == (5,) * 200 and found.got == _exact_labels(w, [5] * 200)[-1]
    assert _first_wrong(A, R, h0, from_spec("cyclic:6"), [5] * 199, float("inf")) is None


def test_states_are_kept_small_by_exact_positive_scales():
    """An integer state is divided by the gcd of its entries; a field state by the power of two
    that brings its largest entry below 1 when it leaves [2^-64, 2^64] (both positive: no label
    changes; the numbers stay of moderate size over hundreds of steps)."""
    import flint

    from bilinear.constructions.horizon.exactwords import _primitive, _scaled

    col = _primitive(flint.fmpz_mat(3, 1, [6, -4, 10]))
    assert [int(col[i, 0]) for i in range(3)] == [3, -2, 5]
    col = _primitive(flint.fmpz_mat(2, 1, [3, 5]))
    assert [int(col[i, 0]) for i in range(2)] == [3, 5]
    big = np.array([Fraction(3 * 2**70), Fraction(1)], dtype=object)
    assert _scaled(big).tolist() == [Fraction(3, 4), Fraction(1, 2**72)]
    small = np.array([Fraction(1, 2**70), Fraction(-1, 2**71)], dtype=object)
    assert _scaled(small).tolist() == [Fraction(1, 2), Fraction(-1, 4)]
    inside = np.array([Fraction(2**63), Fraction(1, 2**63)], dtype=object)
    assert _scaled(inside) is inside
    edge = np.array([Fraction(2**64), Fraction(1)], dtype=object)  # the bounds themselves are outside
    assert _scaled(edge).tolist() == [Fraction(1, 2), Fraction(1, 2**65)]
    edge = np.array([Fraction(1, 2**64)], dtype=object)
    assert _scaled(edge).tolist() == [Fraction(1, 2)]
    zero = np.array([Fraction(0), Fraction(0)], dtype=object)
    assert _scaled(zero) is zero


def test_a_field_network_is_run_in_its_field():
    """Z_5 turned by 2 pi / 5 (entries in Q(zeta_20)) and a little more (tan = 1/500), times 3:
    the object-array path, its states rescaled; the failure agrees with a 60-digit float run."""
    import mpmath

    from bilinear.constructions.exact.field import CyclotomicField

    F = CyclotomicField(20)
    t = Fraction(1, 500)
    cd, sd = (1 - t * t) / (1 + t * t), 2 * t / (1 + t * t)
    turn = np.array([[F.cos(1, 5), -F.sin(1, 5)], [F.sin(1, 5), F.cos(1, 5)]], dtype=object)
    drift = np.array([[cd, -sd], [sd, cd]], dtype=object)
    A = [np.linalg.matrix_power(turn @ drift * 3, k) for k in range(5)]
    readout = [np.linalg.matrix_power(turn, k)[:, 0] for k in range(5)]
    w = Weights("rotation2d", A, [1, 0], readout)
    found = exact_failure(w, from_spec("cyclic:5"), 250)
    assert found is not None and 81 ** len(found.word) > 2**200  # the 4-turn grows 81-fold: rescaled on the way
    mpmath.mp.dps = 60
    theta = 2 * mpmath.pi / 5 + 2 * mpmath.atan(mpmath.mpf(1) / 500)
    a = from_spec("cyclic:5")
    q, angle = int(a.start), mpmath.mpf(0)
    for n, x in enumerate(found.word, start=1):
        q, angle = int(a.delta[x, q]), angle + x * theta
        scores = [mpmath.cos(angle - 2 * mpmath.pi * k / 5) for k in range(5)]
        best = max(range(5), key=lambda k: scores[k])
        if n < len(found.word):
            assert best == int(a.labels[q])
        else:
            assert best != int(a.labels[q]) and best == found.got


def test_an_exact_tie_is_a_failure_and_a_margin_of_one_is_not():
    """The exact quarter turn of Z_4 with class 3's readout row made class 2's: after +2 the two
    tie (a failure, got None); after +1 the integer scores are 1 and 0 (a margin of exactly one,
    right)."""
    w = off_rotation(4, Fraction(1))
    R = np.array(w.readout, dtype=object)
    R[3] = R[2]
    tied = Weights("rotation2d", w.A, w.h0, R)
    assert _exact_labels(tied, [1]) == [1] and _exact_labels(tied, [2]) == [None]
    assert exact_failure(tied, from_spec("cyclic:4"), 50) == ((2,), None) == _brute_force(tied, "cyclic:4", 50)


def test_a_margin_of_exactly_one_before_a_tie_is_right():
    """One symbol turning a 4-cycle a quarter turn, classes 2 and 3 read alike: a^1 is right by
    an integer margin of exactly 1, a^2 the first failure (a tie)."""
    from bilinear.automata import Automaton

    cycle = Automaton([[1, 2, 3, 0]], labels=[0, 1, 2, 3], symbols=("a",))
    turn = [[0, -1], [1, 0]]
    w = Weights("rotation2d", A=[turn], h0=[1, 0], readout=[[1, 0], [0, 1], [-1, 0], [-1, 0]])
    assert exact_failure(w, cycle, 20) == ((0, 0), None)

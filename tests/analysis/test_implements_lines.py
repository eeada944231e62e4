"""The one-line verdict per network (analysis/implements.py), clause by clause: each test puts a
clause where it is true beside a network where it would be false, the expected numbers worked
out by hand from the weights.  Written for the mutants of
``benchmarks/mutate_auto.py -k implements`` that the report tests left alive."""

from __future__ import annotations

import math

import numpy as np
import pytest

from bilinear.analysis import analyze
from bilinear.analysis.implements import (_certificate_text, _exact_verdict, _failing_text, algebra_name, implements_line,
                                          mechanism_text, phase_error, quotient_map, transitions_text)
from bilinear.analysis.lengths import LengthCurve
from bilinear.analysis.spectrum import spectrum
from bilinear.automata import Automaton, from_spec
from bilinear.constructions.handmade.registry import build
from bilinear.constructions.values.weights import Weights

PARITY, CYCLIC3 = from_spec("parity"), from_spec("cyclic:3")
R3 = [[math.cos(2 * math.pi * k / 3), math.sin(2 * math.pi * k / 3)] for k in range(3)]


def _rot(t: float) -> np.ndarray:
    return np.array([[math.cos(t), -math.sin(t)], [math.sin(t), math.cos(t)]])


def test_a_monoid_too_large_to_classify_is_named_by_the_automaton(monkeypatch):
    from bilinear.automata import monoid

    monkeypatch.setattr(monoid, "DEFAULT_LIMIT", 5)  # the reset automaton's monoid has more elements
    delta = np.array([[1, 2, 3, 0], [0, 0, 0, 0], [1, 0, 2, 3]])
    assert algebra_name(Automaton(delta, 0, name="resets")) == "resets"
    assert algebra_name(Automaton(delta, 0)) == "the automaton"


def test_a_quotient_map_sends_start_to_the_image_start():
    assert quotient_map(Automaton([[1, 2, 3, 0]]), Automaton([[1, 0]], start=1)) == {0: 1, 1: 0, 2: 1, 3: 0}


def test_the_phase_error_without_an_automaton_reads_each_symbol_s_own_order():
    # symbol 1 turns by 4 pi / 5 + 1e-3: order 5 on its visited span, 1e-3 from the second 5th root
    off = Weights("full", [np.eye(2), _rot(4 * math.pi / 5 + 1e-3)], [1.0, 0.0], [[1.0, 0.0], [0.0, 1.0]])
    assert abs(phase_error(spectrum(off)) - 1e-3) < 1e-9
    # a turn of 1 rad is of no order within the span's tolerance: only the identity's 0 is read
    one_rad = spectrum(Weights("full", [np.eye(2), _rot(1.0)], [1.0, 0.0], [[1.0, 0.0], [0.0, 1.0]]))
    assert not one_rad.symbols[1].holds_on_span and phase_error(one_rad) == 0.0
    exact = spectrum(Weights("diagonal", [[[1, 0], [0, 1]], [[-1, 0], [0, 1]]], [1, 1], [[1, 0], [0, 1]]))
    assert exact.symbols[1].order == 2 and phase_error(exact) < 1e-12  # exact weights: no visited span


def test_the_mechanism_names_only_what_is_off():
    # symbol 1 turns 0.4 rad past 2 pi / 3 (within pi / 6 of it): near its root, on the unit circle
    near = Weights("full", [np.eye(2), _rot(2 * math.pi / 3 + 0.4), _rot(4 * math.pi / 3)], [1.0, 0.0], R3)
    assert mechanism_text(spectrum(near, CYCLIC3), CYCLIC3, "full") == ""
    half = Weights("full", [np.eye(2), np.diag([-0.5, 1.0])], [1.0, 1.0], [[0.0, 1.0], [-1.0, 0.0]])
    text = mechanism_text(spectrum(half, PARITY), PARITY, "full")
    assert text == "; mechanism: symbol 1's eigenvalue -0.5 is off the unit circle: its sign flips decay as 0.5^n"


def test_the_transitions_of_several_kinds_are_listed_in_order():
    three = Weights("diagonal", [np.diag([-1, 1, 1]), np.diag([1, 0, 1]), np.diag([1, 2, 3])], [1, 1, 1], [[1, 0, 0]])
    assert transitions_text(spectrum(three)) == ("transitions of order 2 (0), idempotent up to scale (1) and of no "
                                                 "finite order (2)")
    two = Weights("diagonal", [np.diag([-1, 1]), np.diag([1, 0])], [1, 1], [[1, 0]])
    assert transitions_text(spectrum(two)) == "transitions of order 2 (0) and idempotent up to scale (1)"
    one = Weights("diagonal", [np.diag([1, 0])], [1, 1], [[1, 0]])
    assert transitions_text(spectrum(one)) == "transitions idempotent up to scale (0)"
    # float: symbol 1 is of no order on the whole space (its 0.5), idempotent on the visited span e1, e2
    swap = np.array([[0, 1, 0], [1, 0, 0], [0, 0, 1.0]])
    visited = spectrum(Weights("full", [swap, [[1, 1, 0], [0, 0, 0], [0, 0, 0.5]]], [1.0, 0, 0], [[1, 0, 0], [0, 1, 0]]))
    assert visited.symbols[1].index is None and (visited.symbols[1].visited.index, visited.symbols[1].visited.period) == (1, 1)
    assert transitions_text(visited) == "transitions of order 2 (0) and idempotent up to scale (1)"


def test_a_differing_extraction_names_the_word_with_every_label():
    """Parity's count of ones, read off the zeros instead: the extraction flips on 0."""
    on_zeros = Weights("diagonal", [[[-1, 0], [0, 1]], [[1, 0], [0, 1]]], [1, 1], [[1, 0], [-1, 0]])
    report = analyze(on_zeros, PARITY)
    assert ("does not implement Z_2: its extracted automaton (2 states) differs, first on 0 (automaton even, "
            "extraction odd, network odd); the network itself first errs on 0") in report.implements
    line = implements_line(PARITY, on_zeros.variant, report.spectrum, report.extraction, report.curve)
    assert "first on 0 (automaton even, extraction odd); mechanism" in line  # no network given: no network label
    # a two-state extraction of Z_3 is no quotient of it (3 is odd): it differs, it does not "track a quotient"
    two = Weights("diagonal", [np.eye(2), np.diag([-1.0, 1.0]), np.eye(2)], [1, 1], [[1, 0], [-1, 0], [-2, 0]])
    line = analyze(two, CYCLIC3).implements
    assert line.startswith("does not implement Z_3: its extracted automaton (2 states) differs") and "quotient" not in line


@pytest.fixture(scope="module")
def drifting():
    """Z_3 by turns 0.002 rad per step past 2 pi / 3: its extraction matches, random words err at 476."""
    w = Weights("full", [np.eye(2), _rot(2 * math.pi / 3 + 0.002), _rot(4 * math.pi / 3 + 0.004)], [1.0, 0.0], R3)
    return analyze(w, CYCLIC3)


def test_a_matching_extraction_is_no_evidence_where_a_theorem_rules_the_variant_out(drifting):
    """Read as a diagonal network (Theorem 7 rules Z_3 out), the same measurements give the
    random words' first error, with the extraction said to mimic Z_3 on the sampled words only."""
    assert drifting.extraction.isomorphic and drifting.curve.first_failure == 476
    line = implements_line(CYCLIC3, "diagonal", drifting.spectrum, drifting.extraction, drifting.curve)
    assert line.startswith("does not implement Z_3: first error on random words at length 476 (its hidden states, "
                           "clustered, mimic Z_3 on the sampled words: separated); no diagonal network")
    right = LengthCurve(drifting.curve.accuracy[:400], drifting.curve.words, 0, 3, None, None)
    line = implements_line(CYCLIC3, "diagonal", drifting.spectrum, None, right)
    assert line.startswith("does not implement Z_3: it errs; no diagonal network")  # no error measured to name


def test_a_certificate_word_is_named_only_before_the_curve_s_first_failure():
    on_zeros = Weights("diagonal", [[[-1, 0], [0, 1]], [[1, 0], [0, 1]]], [1, 1], [[1, 0], [-1, 0]])
    curve = LengthCurve((0.0, 0.0), 10, 0, 2, 1, None)  # first failure at length 1, the word's own length
    assert _failing_text(PARITY, on_zeros, (0,), curve) == ""
    assert _failing_text(PARITY, on_zeros, (0,), None) == ("; yet it errs at length 1 on 0 (automaton even, "
                                                           "network odd; the certificate's failing word)")


def test_exact_verdicts_without_a_curve_and_with_ties():
    c6, w6 = from_spec("cyclic:6"), build("cyclic:6", "rotation2d")
    report = analyze(w6, c6)
    line = implements_line(c6, w6.variant, report.spectrum, report.extraction, None, exact=True, weights=w6)
    assert line.startswith("implements Z_6 exactly (proved for every word: 6 reachable")
    # even scores 1 + 1 at the start, odd 0; after a 1 both score 0: a tie, found by a directed word
    tie_after_one = Weights("diagonal", [[[1, 0], [0, 1]], [[-1, 0], [0, 1]]], [1, 1], [[1, 1], [0, 0]])
    assert _exact_verdict(tie_after_one, PARITY, "Z_2") == (
        "counterexample", "its exact network errs on 1 (automaton odd, network a tie; a directed word run in exact "
        "arithmetic)")
    tie_at_start = Weights("diagonal", [[[1, 0], [0, 1]], [[-1, 0], [0, 1]]], [1, 1], [[0, 1], [0, 1]])
    assert _exact_verdict(tie_at_start, PARITY, "Z_2") == (
        "counterexample", "the exact proof's counterexample ε (automaton even, network a tie)")


def _corner() -> Automaton:
    """Z_3 x Z_3: ``a`` turns the first coordinate, ``b`` the second; ``yes`` only at (2, 2)."""
    delta = np.array([[((x + 1) % 3) * 3 + y, x * 3 + (y + 1) % 3] for x in range(3) for y in range(3)]).T
    labels = [int(x == 2 and y == 2) for x in range(3) for y in range(3)]
    return Automaton(delta, 0, labels, symbols=["a", "b"], classes=["no", "yes"], name="corner")


def test_a_certificate_whose_g_has_two_symbols_puts_g_in_parentheses():
    corner = _corner()
    # along (a b)^n the state is (n, n): no no yes, period 3, which no diagonal network can follow
    # (its labels along any g^n are eventually 2-periodic); along a single symbol from a start at
    # most one symbol away the label never changes, so the shortest certificate's g is "a b"
    assert [corner.classes[corner.label([0, 1] * n)] for n in range(6)] == ["no", "no", "yes"] * 2
    short = [(), (0,), (1,)]
    assert all(len({corner.label(list(u) + [g] * n + list(v)) for n in range(9)}) == 1
               for u in short for v in short for g in (0, 1) if len(u) + len(v) <= 1)
    text = _certificate_text(corner, "diagonal", "can implement it")
    assert "the labels of (a b)^n are eventually 2-periodic in n" in text
    assert "repeat no no yes with period 3" in text

"""Every sentence template of the one-line verdict (analysis/implements.py) and the report's word
lines, each on a network where the sentence would be false: the test fails if the false sentence
is printed there.  Each checks the theorem it quotes against the network directly."""

from __future__ import annotations

import numpy as np

from bilinear.analysis import ExtractConfig, extract
from bilinear.analysis.implements import implements_line
from bilinear.analysis.lengths import accuracy_by_length, shortest_error
from bilinear.analysis import AnalysisConfig, analyze
from bilinear.automata import Automaton, from_spec
from bilinear.constructions import build
from bilinear.constructions import Weights


def run_label(weights: Weights, word) -> int:
    """The network's label of ``word``: a plain loop, h <- A h / |A h|, argmax R h."""
    A, h0, R = (np.asarray(x, dtype=float) for x in weights.float_arrays())
    h = h0 / np.linalg.norm(h0)
    for s in word:
        h = A[s] @ h
        h = h / np.linalg.norm(h)
    return int(np.argmax(R @ h))


def diagonal_z3() -> Weights:
    """A 2-dimensional diagonal network on cyclic:3: A_1 = diag(-1, 1/2); labels ε, 1, 1^2 as
    0, 1, 2 (so ε and 1^2 differently), and 1^3 as 1 (the automaton says 0)."""
    A = np.array([np.eye(2), np.diag([-1.0, 0.5]), np.diag([1.0, 0.25])])
    R = np.array([[0.0, 1.5], [-1.0, 0.0], [1.0, 0.0]])
    return Weights("diagonal", A, np.array([1.0, 1.0]), R)


def test_theorem_7_is_stated_as_eventual_periodicity_not_as_two_words_alike():
    w, a = diagonal_z3(), from_spec("cyclic:3")
    assert run_label(w, ()) != run_label(w, (1, 1))  # the old sentence "labels ε and 1^2 alike" is false here
    line = analyze(w, a, AnalysisConfig(extract=ExtractConfig(words=100, length=20), curve_length=50,
                                        curve_words=20, run_certify=False)).implements
    assert "alike" not in line
    assert "Theorem 7: for every diagonal network the labels of 1^n are eventually 2-periodic in n" in line
    assert "Z_3's repeat 0 1 2 with period 3" in line
    # and the theorem itself holds on this network: labels of 1^n, n >= 1, alternate 1, 2
    labels = [run_label(w, (1,) * n) for n in range(1, 40)]
    assert labels[2:] == labels[:-2]


def test_a_named_difference_is_rerun_through_the_network():
    """The extraction's distinguishing word is printed with the network's own label (the old line
    said 'differs, first on 1111' where the network itself was right); the network's own first
    error is a word on which it really errs, and every shorter word is right."""
    w, a = diagonal_z3(), from_spec("cyclic:3")
    err = shortest_error(w, a)
    assert err is not None and err.right is False
    assert run_label(w, err.word) != a.label(err.word)
    k = a.n_symbols
    for n in range(len(err.word)):
        for code in range(k**n):
            word = np.unravel_index(code, (k,) * n) if n else ()
            word = tuple(int(x) for x in word)
            assert run_label(w, word) == a.label(word), word
    ex = extract(w, a, ExtractConfig(words=200, length=20, method="geometry", burn_in=0))
    line = implements_line(a, "diagonal", analyze(w, a, AnalysisConfig(run_extraction=False, curve_length=0,
                                                                       run_certify=False)).spectrum,
                           ex, accuracy_by_length(w, a, 50, 20), weights=w)
    assert f"the network itself first errs on {err.text} (automaton {a.classes[a.label(err.word)]}, network " \
           f"{a.classes[run_label(w, err.word)]})" in line
    word = ex.distinguishing_word
    assert word is not None
    assert f"automaton {a.classes[a.label(word)]}, extraction " in ex.reading
    assert f"network {a.classes[run_label(w, word)]})" in ex.reading


def test_a_quotient_is_not_said_to_be_the_most_any_network_can_do():
    """cyclic:6 with a diagonal network that tracks nothing (one state): diagonal networks can
    track the Z_2 quotient of Z_6 (parity), so 'no diagonal network can do more' would be false."""
    a = from_spec("cyclic:6")
    w = Weights("diagonal", np.ones((6, 1, 1)), np.array([1.0]), np.array([[1.0]] + [[0.0]] * 5))
    line = analyze(w, a, AnalysisConfig(extract=ExtractConfig(words=100, length=20), curve_length=50,
                                        curve_words=20, run_certify=False)).implements
    assert line.startswith("tracks only the")
    assert "can do more" not in line and "no diagonal network can implement Z_6" in line
    # the claim it no longer makes is false: an exact diagonal network tracks the parity quotient
    parity = Weights("diagonal", np.array([[[(-1.0) ** s]] for s in range(6)]), np.array([1.0]),
                     np.array([[1.0], [-1.0]] + [[0.0]] * 4))
    words = np.random.default_rng(0).integers(0, 6, size=(50, 30))
    for word in words:
        assert run_label(parity, word) == int(word.sum()) % 2


def test_aperiodic_transitions_are_named_never_an_empty_order():
    a = from_spec("flipflop:2")
    w = build(a, "full")
    line = analyze(w, a, AnalysisConfig(extract=ExtractConfig(words=100, length=20), curve_length=50,
                                        curve_words=20, run_certify=False)).implements
    assert "order  " not in line and "order ," not in line
    assert "transitions of order 1 (r) and idempotent up to scale (w0, w1)" in line
    # the words of the sentence are true of the matrices: A_w^2 = c A_w, A_r = c I
    A = w.to_float().A
    for s in (0, 1):
        ratio = np.linalg.norm(A[s] @ A[s]) / np.linalg.norm(A[s])
        assert np.allclose(A[s] @ A[s], ratio * A[s])
    assert np.allclose(A[2], A[2][0, 0] * np.eye(w.dim))
    # a near-exact float copy: the same words
    rng = np.random.default_rng(0)
    f = w.to_float()
    noisy = Weights("full", f.A + 1e-6 * rng.standard_normal(f.A.shape), f.h0, f.readout)
    line = analyze(noisy, a, AnalysisConfig(extract=ExtractConfig(words=100, length=20), curve_length=50,
                                            curve_words=20, run_certify=False)).implements
    assert "idempotent up to scale (w0, w1)" in line


def test_exactly_is_not_said_of_exact_weights_that_fail_at_length():
    """Exact weights whose extraction agrees but whose random-word curve fails: no 'exactly'."""
    a = from_spec("parity")
    two = Automaton(a.delta, start=a.start, labels=a.labels, symbols=a.symbols, classes=a.classes)

    class Ex:
        isomorphic, minimal, status, distinguishing_word, start_word = True, two, "ok", None, ()

    class Curve:
        first_failure, max_length = 40, 100

        @staticmethod
        def at(t):
            return -1.0

    spectrum = analyze(build(a, "diagonal"), a, AnalysisConfig(run_extraction=False, curve_length=0,
                                                               run_certify=False)).spectrum
    line = implements_line(a, "diagonal", spectrum, Ex(), Curve(), exact=True)
    assert "exactly" not in line
    assert "right up to length 39 only" in line


def test_no_error_is_not_claimed_when_the_curve_fails():
    a = from_spec("cyclic:5")
    from bilinear.analysis.examples import cyclic_rotation2d

    w = cyclic_rotation2d(5, angle_error=0.05)
    curve = accuracy_by_length(w, a, 200, 20)
    assert curve.first_failure is not None

    class Ex:
        isomorphic, minimal, status, distinguishing_word, start_word = True, a, "ok", None, ()

    spectrum = analyze(w, a, AnalysisConfig(run_extraction=False, curve_length=0, run_certify=False)).spectrum
    line = implements_line(a, "rotation2d", spectrum, Ex(), curve, weights=w)
    assert "no error" not in line
    assert f"right up to length {curve.first_failure - 1} only" in line


def test_first_error_at_length_is_a_length_where_the_network_errs():
    a = from_spec("cyclic:5")
    from bilinear.analysis.examples import cyclic_rotation2d

    w = cyclic_rotation2d(5, angle_error=0.3)
    curve = accuracy_by_length(w, a, 50, 20)
    spectrum = analyze(w, a, AnalysisConfig(run_extraction=False, curve_length=0, run_certify=False)).spectrum
    line = implements_line(a, "rotation2d", spectrum, None, curve, weights=w)
    assert line.startswith(f"does not implement Z_5: first error on random words at length {curve.first_failure}")
    assert curve.accuracy[curve.first_failure - 1] < 1.0 and all(x == 1.0 for x in curve.accuracy[: curve.first_failure - 1])
    assert "the network itself first errs on 3 (automaton 3, network 4)" in line
    assert run_label(w, (3,)) == 4


def test_implements_is_never_said_where_a_theorem_excludes_it():
    """An extraction that mimics Z_3 (isomorphic on the sampled words) on a diagonal network: the
    line must not say 'implements Z_3' (Theorem 7 excludes every diagonal network), and says
    where the network itself errs."""
    w, a = diagonal_z3(), from_spec("cyclic:3")

    class Ex:
        isomorphic, minimal, status, distinguishing_word, start_word, separated = True, a, "ok", None, (), False

    curve = accuracy_by_length(w, a, 50, 20)
    spectrum = analyze(w, a, AnalysisConfig(run_extraction=False, curve_length=0, run_certify=False)).spectrum
    line = implements_line(a, "diagonal", spectrum, Ex(), curve, weights=w)
    assert not line.startswith("implements") and line.startswith("does not implement Z_3")
    err = shortest_error(w, a)
    assert f"the network itself first errs on {err.text}" in line and "Theorem 7" in line


def test_implements_names_the_certificates_failing_word_and_only_one_the_network_fails():
    """A rotation off by 0.01 rad a step for symbol 1 (0.01 a for symbol a) is right on the curve's
    random words up to length 20 but errs on 1^n once n * 0.01 passes half a step (pi / 5), about
    n = 63: the line still says "implements" (the
    extraction is right), names that word with both labels, and calls no length right on its
    account; a word the network gets right, or one longer than the curve's first failure, is not
    named."""
    from bilinear.analysis.examples import cyclic_rotation2d

    a, w = from_spec("cyclic:5"), cyclic_rotation2d(5, angle_error=0.01)
    curve = accuracy_by_length(w, a, 20, 20)
    assert curve.first_failure is None
    n = next(n for n in range(1, 200) if run_label(w, (1,) * n) != n % 5)  # independent: the plain float run
    assert 60 <= n <= 66 and all(run_label(w, (1,) * m) == m % 5 for m in range(1, n))

    class Ex:
        isomorphic, minimal, status, distinguishing_word, start_word = True, a, "ok", None, ()

    spectrum = analyze(w, a, AnalysisConfig(run_extraction=False, curve_length=0, run_certify=False)).spectrum
    line = implements_line(a, "rotation2d", spectrum, Ex(), curve, weights=w, failing=(1,) * n)
    assert line.startswith("implements Z_5")
    assert (f"; yet it errs at length {n} on 1^{n} (automaton {n % 5}, network {run_label(w, (1,) * n)}; "
            "the certificate's failing word); no failure up to length 20 on the random words run") in line
    assert "right up to" not in line
    # a word the network gets right is never named as a failure
    assert "errs" not in implements_line(a, "rotation2d", spectrum, Ex(), curve, weights=w, failing=(1,) * (n - 1))
    # the curve's own failure comes first: a longer word adds nothing
    short = accuracy_by_length(cyclic_rotation2d(5, angle_error=0.05), a, 200, 20)
    assert short.first_failure is not None and short.first_failure <= n
    assert "errs at length" not in implements_line(a, "rotation2d", spectrum, Ex(), short, weights=w, failing=(1,) * n)

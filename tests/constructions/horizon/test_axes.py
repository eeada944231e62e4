"""Theorem 21 (axis orbit): a float network whose state stays on the signed axes is proved for
every length; checked against an independent run of every short word and of long random words
(run_float, the toolkit's float64 evaluation), and refused where it does not apply."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from plain_eval import first_wrong_length

from bilinear.analysis.certify import certify_network
from bilinear.automata.families import from_spec
from bilinear.constructions.handmade.registry import build
from bilinear.constructions.horizon.axes import axis_horizon, axis_pairs
from bilinear.constructions.values.factored import monomial_compose
from bilinear.constructions.values.floatrun import run_float
from bilinear.constructions.values.weights import Weights


def _mono(perm, D, h0, R) -> Weights:
    return Weights("monomial", monomial_compose(perm, D, exact=False), h0, R, factors=(perm, D))


def _moduli(spec: str, size: float, seed: int = 0) -> Weights:
    """The monomial construction of ``spec`` with every entry of D multiplied by a random modulus in
    [1 - size, 1 + size] (still monomial: one non-zero per column; the start state an axis)."""
    w = build(spec, "monomial").to_float()
    perm, D = w.factors
    D = np.asarray(D, dtype=float) * np.random.default_rng(seed).uniform(1 - size, 1 + size, size=np.shape(D))
    return _mono(perm, D, w.h0.astype(float), w.readout.astype(float))


def _first_failure(w: Weights, a, exhaustive: int = 6, random_length: int = 400) -> int | None:
    """The length of the first failing word among every word up to ``exhaustive`` symbols and 64
    random words of ``random_length`` (float64, run_float), or None."""
    words = [np.array(list(itertools.product(range(a.n_symbols), repeat=exhaustive)))]
    words.append(np.random.default_rng(1).integers(0, a.n_symbols, size=(64, random_length)))
    return first_wrong_length(lambda batch: run_float(w, batch).labels, a, words)


@pytest.mark.parametrize("spec", ["reset:3", "flipflop:3", "parity"])
def test_axis_networks_are_proved_and_never_fail(spec) -> None:
    a = from_spec(spec)
    w = _moduli(spec, 0.4)
    for arithmetic in ("real", "float64", "float32"):
        h = axis_horizon(w, a, arithmetic)
        assert h is not None and h.every, arithmetic
    assert _first_failure(w, a) is None
    hidden = run_float(w, np.random.default_rng(2).integers(0, a.n_symbols, size=(8, 50)), hidden=True).hidden
    assert (np.count_nonzero(hidden, axis=-1) == 1).all()  # every float state is an axis (the theorem's premise)
    assert (np.abs(hidden[hidden != 0]) == 1).all()


def test_certify_proves_a_monomial_reset_whose_state_is_an_axis() -> None:
    a = from_spec("reset:3")
    cert = certify_network(_moduli("reset:3", 0.3), a, random_words=16, shorten_seconds=0.5)
    assert cert.status == "proved" and cert.horizon.bound == "axes"
    assert all(h.every for h in cert.horizons.values())


def test_a_wrong_axis_pair_is_not_proved_and_the_run_fails() -> None:
    a = from_spec("reset:3")
    w = _moduli("reset:3", 0.3)
    perm, D = w.factors
    D = D.copy()
    D[2, 2] = -D[2, 2]  # reset2 sends e_2 to -e_2, which the identity readout labels wrong
    bad = _mono(perm, D, w.h0, w.readout)
    assert axis_pairs(bad, a) is not None and axis_horizon(bad, a) is None
    assert _first_failure(bad, a) is not None


def test_a_tie_within_the_rounding_is_not_proved() -> None:
    a = from_spec("reset:3")
    w = _moduli("reset:3", 0.3)
    R = w.readout.astype(float).copy()
    R[1, 0] = 1 - 2.0**-52  # class 1 scores within two units of class 0 on e_0: not beyond the rounding
    close = _mono(*w.factors, w.h0, R)
    assert axis_horizon(close, a, "float64") is None
    assert axis_horizon(close, a, "real").every  # exactly, class 0 still wins


def test_the_theorem_does_not_apply_off_the_axes() -> None:
    a = from_spec("reset:3")
    w = _moduli("reset:3", 0.3)
    off = _mono(*w.factors, np.array([1.0, 0.5, 0.0]), w.readout)
    assert axis_pairs(off, a) is None and axis_horizon(off, a) is None
    assert axis_horizon(build("reset:3", "full").to_float(), a) is None  # two non-zeros in a column


def _parity(a: float, b: float, start: float = 1.0) -> Weights:
    """The 1-d parity network (x -> x, x -> -x) with readout rows a (even) and b (odd): both of
    its pairs are right exactly when start * (a - b) beats the rounding bound."""
    return _mono(np.array([[0], [0]]), np.array([[1.0], [-1.0]]), np.array([start]), np.array([[a], [b]]) * start)


def test_the_rounding_bound_is_strict_and_its_factor_is_two_units():
    """Readout rows 1/2 + 2^-53 and 1/2 - 2^-53: a - b = 2^-52 = 2 u (|a| + |b|) exactly, so not
    beyond the rounding; with the even row 1/2 + 2^-52 the gap is 1.5 x 2^-52, beyond 2 u but not
    beyond 3 u.  A negative start (the readout negated with it: the same labels) is judged alike."""
    a = from_spec("parity")
    for start in (1.0, -1.0):
        assert axis_horizon(_parity(0.5 + 2.0**-53, 0.5 - 2.0**-53, start), a, "float64") is None
        proved = axis_horizon(_parity(0.5 + 2.0**-52, 0.5 - 2.0**-53, start), a, "float64")
        assert proved is not None and proved.every
        assert axis_pairs(_parity(0.5 + 2.0**-52, 0.5 - 2.0**-53, start), a) == [(0, 0, int(start)), (1, 0, -int(start))]


def test_each_arithmetic_holds_the_network_as_it_would():
    """float64 rescales by powers of two (matrices of scale 2^-1070 are not underflowing
    there); float32 rounds every entry (a readout gap of 2^-30 at 1 is a tie in float32, not in
    float64); real takes the floats as they are."""
    a = from_spec("parity")
    tiny = _mono(np.array([[0], [0]]), np.array([[2.0**-1073], [-(2.0**-1073)]]), np.array([1.0]),
                 np.array([[1.0], [-1.0]]))
    assert axis_horizon(tiny, a, "float64").every  # held as they are, 2^-1073 would be at the underflow bound
    close = _parity(1.0, 1.0 - 2.0**-30)
    assert axis_horizon(close, a, "float64").every and axis_horizon(close, a, "real").every
    assert axis_horizon(close, a, "float32") is None


def test_a_product_at_the_underflow_threshold_leaves_the_axes():
    """A reached column whose entry is at most 4 eta (eta = 2^-1075, the underflow error of one
    rounded product in float64) may round a state of size 1/2 to zero: 2^-1074 (which passed while
    eta, written 2.0**-1075, was 0.0) and 2^-1073 leave the axes, 3 x 2^-1074 does not.  A zero
    column (the state sent to 0) leaves the axes too."""
    a = from_spec("parity")
    assert 2.0**-1074 * 0.5 == 0.0  # the smallest subnormal times a state of size 1/2: rounded to zero
    for entry, on_axes in ((2.0**-1074, False), (2.0**-1073, False), (3 * 2.0**-1074, True)):
        w = _mono(np.array([[0, 1], [1, 0]]), np.array([[1.0, 1.0], [1.0, entry]]), np.array([1.0, 0.0]),
                  np.array([[1.0, 0.0], [0.0, 1.0]]))
        assert (axis_pairs(w, a) is not None) is on_axes, entry
    zero = _mono(np.array([[0, 1], [1, 0]]), np.array([[1.0, 1.0], [1.0, 0.0]]), np.array([1.0, 0.0]),
                 np.array([[1.0, 0.0], [0.0, 1.0]]))
    assert axis_pairs(zero, a) is None


def test_every_symbol_is_followed_even_with_more_symbols_than_axes():
    """reset:3 has four symbols on three axes: breaking the last (the identity) sends e_1 to
    -e_1, a wrong pair the search reaches only through symbol 3."""
    a = from_spec("reset:3")
    w = _moduli("reset:3", 0.3)
    perm, D = w.factors
    D = D.copy()
    D[3, 1] = -D[3, 1]
    bad = _mono(perm, D, w.h0, w.readout)
    assert a.n_symbols == 4 > w.dim == 3
    assert axis_pairs(bad, a) is not None and axis_horizon(bad, a) is None


def test_every_class_is_a_competitor_even_with_more_classes_than_axes():
    """One axis, three classes: state 0 (label 0) is beaten by class 1, which only a check of
    every class (not every axis) finds; state 1 (label 2) is right."""
    from bilinear.automata import Automaton

    a = Automaton([[1, 0]], labels=[0, 2], symbols=("a",))
    w = _mono(np.array([[0]]), np.array([[-1.0]]), np.array([1.0]), np.array([[1.0], [2.0], [0.0]]))
    assert a.n_classes == 3 > w.dim == 1
    assert axis_pairs(w, a) == [(0, 0, 1), (1, 0, -1)] and axis_horizon(w, a) is None


def test_the_underflow_error_counts_in_the_rounding_bound():
    """float32 holds the readout as it is (no rescaling): rows of size 2^-140 differ by 4 or 5 x
    2^-149, against a bound of 2 eta4 = 4 x 2^-149 (the unit roundoff's share is below 2^-160):
    4 is not beyond it (equal), 5 is.  A bound of 3 eta4 (6 x 2^-149) would refuse both, one
    of -2 eta4 accept both."""
    a = from_spec("parity")
    top = 2.0**-140
    assert axis_horizon(_parity(top, top - 4 * 2.0**-149), a, "float32") is None
    assert axis_horizon(_parity(top, top - 5 * 2.0**-149), a, "float32").every

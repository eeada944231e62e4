"""Sentences that agree with the report they stand in (issue 45, item 4): "exactly" only with a
proof, the phase error of every unit-circle eigenvalue, the tolerance of "up to scale"."""

from __future__ import annotations

import cmath
import math
from fractions import Fraction

import numpy as np

from bilinear.analysis.report import analyze
from bilinear.automata.families import from_spec
from bilinear.constructions.handmade.registry import build
from bilinear.constructions.values.weights import Weights

CYCLIC6 = from_spec("cyclic:6")


def _rotations(t: Fraction) -> Weights:
    """Exact Z_6 rotation2d weights, symbol k the k-th power of the rotation with tan(theta/2) = t."""
    c, s = (1 - t * t) / (1 + t * t), 2 * t / (1 + t * t)
    A = [np.linalg.matrix_power(np.array([[c, -s], [s, c]], dtype=object), k) for k in range(6)]
    return Weights("rotation2d", A, [1, 0], [M[:, 0] for M in A])


def _theta(t: Fraction) -> float:
    return 2 * math.atan(float(t))


def test_exact_weights_that_fail_are_never_said_to_implement_exactly() -> None:
    line = analyze(_rotations(Fraction(577, 1000)), CYCLIC6).implements
    assert "exactly" not in line
    assert line.startswith("does not implement Z_6") and "5^200" in line


def test_unproved_exact_weights_say_what_was_run() -> None:
    """Off by 7.5e-5 rad per step: right on every word the analysis runs, and not proved."""
    line = analyze(_rotations(Fraction(5773, 10000)), CYCLIC6).implements
    assert "exactly" not in line and "not proved" in line


def test_proved_exact_weights_implement_exactly() -> None:
    line = analyze(build("cyclic:6", "rotation2d"), CYCLIC6).implements
    assert line.startswith("implements Z_6 exactly") and "proved" in line


def test_phase_error_is_measured_on_every_unit_eigenvalue() -> None:
    """The generator's eigenvalues e^(+-i theta), theta = pi/3 - 7.5e-5, against the 6th roots of
    unity (the order of symbol 1 in Z_6); symbol k rotates by k theta, off by k 7.5e-5 from the
    nearest root of its order in Z_6: the worst is symbol 5's."""
    t = Fraction(5773, 10000)
    expected = max(abs(cmath.phase(cmath.exp(1j * k * _theta(t)) * cmath.exp(-1j * 2 * math.pi * round(k * _theta(t) * 6 / (2 * math.pi)) / 6)))
                   for k in range(1, 6))
    line = analyze(_rotations(t), CYCLIC6).implements
    assert "phase error" in line
    got = float(line.split("phase error ")[1].split(" rad")[0])
    assert abs(got - expected) <= 0.05 * expected and expected > 3e-4


def test_up_to_scale_says_its_tolerance() -> None:
    """diag(1, 1e-5) is eventually idempotent up to scale only within the float tolerance (rank 2:
    A^3 - c A^2 is 1e-10 off, not 0)."""
    from bilinear.analysis.spectrum import matrix_spectrum

    reading = matrix_spectrum(np.diag([1.0, 1e-5])).reading
    assert "idempotent up to scale" in reading and "only up to a scale-free distance of 1e-10, within the tolerance 1e-06" in reading
    exact = matrix_spectrum(np.array([[1, 0], [0, 0]], dtype=object)).reading
    assert "idempotent up to scale" in exact and "tolerance" not in exact


def _contracting(bias: float) -> Weights:
    """Z_3 tracked by a rotation of order 3 contracted by 0.7 beside a fixed direction that the
    readout favours for class 0 by ``bias``: right while 0.7^n outweighs the bias, then class 0."""
    c, s = math.cos(2 * math.pi / 3), math.sin(2 * math.pi / 3)
    A1 = np.array([[0.7 * c, -0.7 * s, 0], [0.7 * s, 0.7 * c, 0], [0, 0, 1]])
    R = [[math.cos(2 * math.pi * k / 3), math.sin(2 * math.pi * k / 3), bias * (k == 0)] for k in range(3)]
    return Weights("full", [np.eye(3), A1, A1 @ A1], [1.0, 0.0, 1.0], R)


def test_quotient_line_names_the_mechanism_and_agrees_with_the_curve() -> None:
    report = analyze(_contracting(1e-4), from_spec("cyclic:3"))
    line = report.implements
    assert line.startswith("tracks only the Z_1 quotient of Z_3") and "burn-in" in line
    assert "contracting rotation of order 3 and modulus 0.7" in line
    # no short word errs, the random words do: the line must not say it is right on every word run
    assert report.curve.first_failure is not None
    assert "right on every word it was run on" not in line
    assert f"errs on random words from length {report.curve.first_failure}" in line


def test_mechanism_names_a_reflection_with_beta_not_2() -> None:
    from bilinear.analysis.implements import mechanism_text
    from bilinear.analysis.spectrum import spectrum

    parity = from_spec("parity")
    w = Weights("householder:1", [np.eye(2), np.diag([-0.5, 1.0])], [1.0, 1.0], [[0.0, 1.0], [-1.0, 0.0]],
                ([[[1.0, 0.0]], [[1.0, 0.0]]], [[0.0], [1.5]]))
    text = mechanism_text(spectrum(w, parity), parity, w.variant)
    assert "eigenvalue -0.5 is off the unit circle (a reflection with beta = 1.5, not 2)" in text
    right = Weights("householder:1", [np.eye(2), np.diag([-1.0, 1.0])], [1.0, 1.0], [[0.0, 1.0], [-1.0, 0.0]])
    assert mechanism_text(spectrum(right, parity), parity, right.variant) == ""

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

"""Which arithmetic a certified horizon is about, and what one float step may cost in it.

A horizon (docs/theory.md Section 7) is a theorem about a network *evaluated in some
arithmetic*.  In ``real`` arithmetic the float weights are exact dyadic numbers and nothing is
rounded.  In ``float64`` (how :func:`~bilinear.constructions.values.floatrun.float_run`, ``check`` and
the failing-word search run) and ``float32`` (how torch trains), every step rounds.  The
standard model of floating-point arithmetic (unit roundoff u = 2^-53 or 2^-24, no underflow)
bounds one renormalised step and one readout, whatever the order of summation:

* a step ``h' = fl(fl(A h) / n)`` (n any positive number) equals ``(A h + e) / n`` with
  ``|e| <= gamma_{d+1} |A| |h|`` componentwise, gamma_k = k u / (1 - k u); in float32 the
  matrix is rounded to float32 first, one more unit: gamma_{d+2};
* a score ``fl(R_c . h)`` is within ``gamma_d |R_c| . |h|`` of ``R_c . h`` (float32: gamma_{d+1}).

So in the 2-norm ``||e|| <= gamma ||A||_F ||h||`` (the Frobenius norm bounds the 2-norm of
``|A|``), and two scores compare correctly when their exact difference exceeds
``gamma_r (||R_l|| + ||R_c||) ||h||``.  The horizon theorems charge these per step
(:class:`RoundOff`); ``real`` charges nothing.

>>> r = RoundOff.of("float64", 4)
>>> float(r.step.mid()) > 5 * 2**-53, r.readout < r.step
(True, True)
>>> RoundOff.of("real", 4).step == 0
True
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import flint

from bilinear.errors import WeightsError

from ..exact.balls import arb, hi

__all__ = ["ARITHMETICS", "RoundOff"]

#: The arithmetics a horizon can be about, and their unit roundoff.
ARITHMETICS = {"real": Fraction(0), "float64": Fraction(1, 2**53), "float32": Fraction(1, 2**24)}


def _gamma(k: int, u: Fraction) -> flint.arb:
    """gamma_k = k u / (1 - k u), an upper bound (exact point)."""
    if u == 0:
        return flint.arb(0)
    return hi(arb(k * u) / (1 - arb(k * u)))


@dataclass(frozen=True)
class RoundOff:
    """The round-off of one evaluation step and one readout in an arithmetic (module docstring).

    ``step``: gamma with ``||e|| <= step ||A||_F ||h||`` for a renormalised step;
    ``readout``: gamma with ``|fl(R_c . h) - R_c . h| <= readout ||R_c|| ||h||``;
    ``start``: relative error of the normalised start state.
    """

    arithmetic: str
    step: flint.arb
    readout: flint.arb
    start: flint.arb

    @classmethod
    def of(cls, arithmetic: str, dim: int) -> "RoundOff":
        """The round-off of ``arithmetic`` (one of :data:`ARITHMETICS`) at hidden size ``dim``."""
        if arithmetic not in ARITHMETICS:
            raise WeightsError(f"unknown arithmetic {arithmetic!r} (known: {', '.join(ARITHMETICS)})")
        u = ARITHMETICS[arithmetic]
        extra = 1 if arithmetic == "float32" else 0  # the weights rounded to float32 first
        return cls(arithmetic, _gamma(dim + 1 + extra, u), _gamma(dim + extra, u), _gamma(1 + extra, u))

    @property
    def exact(self) -> bool:
        """True for real arithmetic (nothing is charged)."""
        return self.arithmetic == "real"

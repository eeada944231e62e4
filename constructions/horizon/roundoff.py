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

Underflow (a result below the smallest normal number, 2^-1022; float32 2^-126) has an absolute
error of at most eta = 2^-1075 (float32 2^-150) per operation instead.  :meth:`RoundOff.for_network`
charges it for one network: the float64 run divides every matrix, ``h0`` and the readout by powers
of two (exact), so each non-zero matrix has ``||A||_F >= a_min`` and each state has norm at least
1/2; a step's absolute error ``(d + 2) eta`` per coordinate is then at most
``underflow ||A||_F ||h||`` with ``underflow = 2 (d + 2) eta / a_min``, and a score's
``(d + 1) eta`` at most ``readout_underflow r_max ||h||`` (``r_max`` the largest readout row).
float32 is how torch runs the weights, rounded to float32 and not rescaled: a network with a
non-zero entry outside float32's normal range gets no float32 length
(:attr:`RoundOff.unrepresentable` says which entry).

>>> r = RoundOff.of("float64", 4)
>>> float(r.step.mid()) > 5 * 2**-53, r.readout < r.step
(True, True)
>>> RoundOff.of("real", 4).step == 0
True
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from fractions import Fraction

import flint
import numpy as np

from bilinear.errors import WeightsError

from ..exact.balls import arb, hi
from ..values.entries import index_name
from ..values.floatrun import rescaled, scale_exponents

__all__ = ["ARITHMETICS", "FORMATS", "FloatFormat", "RoundOff"]


@dataclass(frozen=True)
class FloatFormat:
    """The constants of one binary float format (IEEE 754 binary64, binary32, binary16, and
    bfloat16): ``u`` the unit roundoff ``2^-p`` (p the significand's bits, the implicit one
    included), ``tiny`` the smallest positive normal number, ``subnormal`` the smallest positive
    subnormal one, ``largest`` the largest finite one.  Theorems 18 and A6 (docs/theory.md).

    >>> f = FORMATS["bfloat16"]
    >>> f.u == Fraction(1, 2**8), f.tiny == Fraction(1, 2**126), f.eta == Fraction(1, 2**134)
    (True, True, True)
    """

    name: str
    u: Fraction
    tiny: Fraction
    subnormal: Fraction
    largest: float

    @property
    def eta(self) -> Fraction:
        """The absolute error of one operation whose result underflows (gradual underflow): half
        the subnormal spacing."""
        return self.subnormal / 2

    @property
    def exponent_range(self) -> tuple[float, float]:
        """``(tiny, largest)``: where a non-zero result keeps its relative error ``u``."""
        return float(self.tiny), self.largest


def _format(name: str, p: int, emin: int, emax: int) -> FloatFormat:
    """A binary format with ``p`` significand bits and normal exponents ``emin..emax``."""
    return FloatFormat(name, Fraction(1, 2**p), Fraction(1, 2**-emin), Fraction(1, 2**(p - 1 - emin)),
                       float((2 - Fraction(1, 2**(p - 1))) * 2**emax))


#: The one table of float formats: every rounding constant of the horizons (:class:`RoundOff`)
#: and of ``certify --from --dtype`` (``analysis/external_head.py``) is read from here.
FORMATS: dict[str, FloatFormat] = {f.name: f for f in (
    _format("float64", 53, -1022, 1023), _format("float32", 24, -126, 127),
    _format("bfloat16", 8, -126, 127), _format("float16", 11, -14, 15))}

#: The arithmetics a horizon can be about, and their unit roundoff.
ARITHMETICS = {"real": Fraction(0), "float64": FORMATS["float64"].u, "float32": FORMATS["float32"].u}


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
    ``start``: relative error of the normalised start state;
    ``underflow`` / ``readout_underflow`` / ``start_underflow``: the absolute error per
    coordinate / score / start coordinate, relative to ``||A||_F ||h||`` / ``r_max ||h||`` / ``||h0||`` (module docstring; 0 from :meth:`of`, already added to
    ``step``, ``readout`` and ``start`` by :meth:`for_network`);
    ``unrepresentable``: why this arithmetic cannot hold the network at all ("" when it can).
    """

    arithmetic: str
    step: flint.arb
    readout: flint.arb
    start: flint.arb
    underflow: flint.arb = flint.arb(0)
    readout_underflow: flint.arb = flint.arb(0)
    start_underflow: flint.arb = flint.arb(0)
    unrepresentable: str = ""

    @classmethod
    def of(cls, arithmetic: str, dim: int) -> "RoundOff":
        """The round-off of ``arithmetic`` (one of :data:`ARITHMETICS`) at hidden size ``dim``."""
        if arithmetic not in ARITHMETICS:
            raise WeightsError(f"unknown arithmetic {arithmetic!r} (known: {', '.join(ARITHMETICS)})")
        u = ARITHMETICS[arithmetic]
        extra = 1 if arithmetic == "float32" else 0  # the weights rounded to float32 first
        return cls(arithmetic, _gamma(dim + 1 + extra, u), _gamma(dim + extra, u), _gamma(1 + extra, u))

    @classmethod
    def for_network(cls, arithmetic: str, weights) -> "RoundOff":
        """:meth:`of`, with the underflow of this float network charged (module docstring), and
        for float32 :attr:`unrepresentable` set where float32 cannot hold a weight.

        >>> import numpy as np
        >>> from bilinear.constructions.values.weights import Weights
        >>> w = Weights("diagonal", [[[1.0]]], [2.0**-1070], [[1.0]])
        >>> RoundOff.for_network("float32", w).unrepresentable
        "h0[0] = 7.91e-323 is outside float32's normal range [2^-126, 2^128)"
        >>> r = RoundOff.for_network("float64", w); r.underflow > 0 and r.step > RoundOff.of("float64", 1).step
        True
        """
        base = cls.of(arithmetic, weights.dim)
        if base.exact:
            return base
        A, h0, R = weights.float_arrays()
        d = weights.dim
        if arithmetic == "float32":
            why = _outside_float32(A, h0, R)
            if why:
                return replace(base, unrepresentable=why)
            eta = FORMATS["float32"].eta
            A, R = A.astype(np.float32).astype(np.float64), R.astype(np.float32).astype(np.float64)
        else:
            eta = FORMATS["float64"].eta
            A = np.ldexp(A, -scale_exponents(A)[:, None, None])
            R = rescaled(R)
        norms = [float(np.linalg.norm(M)) for M in A if np.any(M != 0)]
        rows = float(np.linalg.norm(R, axis=1).max(initial=0.0))
        under = hi(arb(2 * (d + 2) * eta) / arb(min(norms))) if norms else flint.arb(0)
        under_r = hi(arb(2 * (d + 1) * eta) / arb(rows)) if rows > 0 else flint.arb(0)
        root_d = hi(arb(d).sqrt())
        return replace(base, step=hi(base.step + root_d * under), readout=hi(base.readout + under_r),
                       start=hi(base.start + root_d * arb(2 * eta)), underflow=under, readout_underflow=under_r,
                       start_underflow=hi(arb(2 * eta)))

    @property
    def exact(self) -> bool:
        """True for real arithmetic (nothing is charged)."""
        return self.arithmetic == "real"


#: float32's smallest normal and first overflowing magnitudes.
FLOAT32_RANGE = (float(FORMATS["float32"].tiny), 2.0**128)


def _outside_float32(A, h0, R) -> str:
    """Which entry float32 cannot hold as a normal number ("" when every one fits); the start
    state also needs ``max |h0| >= 2^-63``, so that its squared norm is normal."""
    low, high = FLOAT32_RANGE
    for name, x in (("A", A), ("h0", h0), ("readout", R)):
        a = np.abs(x)
        bad = np.argwhere((a != 0) & ((a < low) | (a >= high)))
        if bad.size:
            index = tuple(int(i) for i in bad[0])
            return (f"{index_name(name, index)} = {float(x[index]):.3g} is outside float32's normal range "
                    f"[2^-126, 2^128)")
    top = float(np.abs(h0).max(initial=0.0))
    if 0 < top < 2.0**-63:
        return f"h0's largest entry {top:.3g} is below 2^-63: its squared norm underflows in float32"
    return ""

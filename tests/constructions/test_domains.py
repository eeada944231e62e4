"""The contract of each exact domain of the prover (constructions/domains.py), on its own.

The closure merges two hidden vectors only when the domain says one is a *positive* multiple of
the other; a wrong "yes" merges different directions and makes a proof unsound.  The prover's
float bucketing happens to keep ``a`` and ``-a`` apart before ``parallel`` is asked, so these
facts are checked here directly: ``parallel`` and ``key`` against the definition, and the float
enclosures against the value computed at 50 digits with mpmath (not with the domain's code).
"""

from __future__ import annotations

from fractions import Fraction

import flint
import mpmath
import numpy as np
import pytest

from bilinear.constructions.domains import (
    CyclotomicDomain,
    IntegerDomain,
    RationalDomain,
    SparseCyclotomicDomain,
    sparse_rows,
)
from bilinear.constructions.registry import build

ROT = build("cyclic:5", "rotation2d")  # entries in Q(zeta_20)


def _vectors(D):
    """Three vectors of the domain: a, b = a scaled by 3/2 (a positive multiple), and c, which
    agrees with a off its first coordinate (zero there)."""
    if isinstance(D, CyclotomicDomain):
        h = [D.convert(x) for x in ROT.h0]
        a = D.matvec(sparse_rows(ROT.A[1], D), h)  # (cos 72, sin 72): both coordinates non-zero
        three_halves = D.convert(Fraction(3, 2))
        mul = (lambda x, y: D.mul(x, y)) if isinstance(D, SparseCyclotomicDomain) else (lambda x, y: x * y % D.mod)
        return a, [mul(three_halves, x) for x in a], [D.zero, a[1]], lambda v: [mul(D.convert(-1), x) for x in v]
    if isinstance(D, IntegerDomain):
        return [2, -4], [3, -6], [0, -4], lambda v: [-x for x in v]
    a = [D.convert(Fraction(1, 3)), D.convert(Fraction(-5, 7))]
    return a, [x * D.convert(Fraction(3, 2)) for x in a], [D.convert(0), a[1]], lambda v: [-x for x in v]


DOMAINS = [RationalDomain(), IntegerDomain(), CyclotomicDomain(20), SparseCyclotomicDomain(20)]
IDS = ["Q", "Z", "Q(zeta_20)", "Q(zeta_20) sparse"]


@pytest.mark.parametrize("D", DOMAINS, ids=IDS)
@pytest.mark.parametrize("with_floats", [False, True])
def test_parallel_means_a_positive_multiple(D, with_floats):
    a, b, c, neg = _vectors(D)
    zero = [D.convert(0)] * 2

    def par(x, y):
        floats = (D.floats(x), D.floats(y)) if with_floats else None
        return D.parallel(x, y, floats)

    assert par(a, a) and par(a, b) and par(b, a)
    assert not par(a, neg(a)) and not par(neg(b), a)  # negative multiples are other directions
    assert not par(a, c) and not par(c, a)  # zero where the other is not
    assert not par(a, zero) and not par(zero, a) and par(zero, zero)


@pytest.mark.parametrize("D", [d for d in DOMAINS if d.exact_keys], ids=["Q", "Z"])
def test_exact_keys_name_directions(D):
    a, b, c, neg = _vectors(D)
    assert D.key(a) == D.key(b)
    assert D.key(a) != D.key(neg(a)) and D.key(a) != D.key(c)


def _value(D, x) -> mpmath.mpf:
    """Re x at 50 digits, from the coefficients alone."""
    with mpmath.workdps(50):
        if isinstance(D, SparseCyclotomicDomain):
            terms = dict(x).items()
        elif isinstance(D, CyclotomicDomain):
            terms = enumerate(x.coeffs())
        else:
            p, q = (x, 1) if isinstance(x, int) else (int(x.p), int(x.q))
            return mpmath.mpf(p) / q
        zeta = mpmath.exp(2j * mpmath.pi / D.m)
        return mpmath.re(sum(mpmath.mpf(int(c.p)) / int(c.q) * zeta**k for k, c in terms))


@pytest.mark.parametrize("D", DOMAINS, ids=IDS)
def test_float_enclosures_contain_the_value_and_are_tight(D):
    a, b, c, neg = _vectors(D)
    for v in (a, b, c, neg(a)):
        mid, rad = D.floats(v)
        for x, m, r in zip(v, mid, rad):
            true = _value(D, x)
            assert abs(true - mpmath.mpf(m)) <= r
            assert r <= 1e-13 * abs(m) + 1e-299  # a few dozen units of the last place at most


def test_cyclotomic_products_are_reduced():
    """zeta^2 * zeta^6 = zeta^8, of degree phi(20) = 8: reduced mod Phi_20 by matvec as by dot."""
    D = CyclotomicDomain(20)
    x2, x6 = flint.fmpq_poly([0, 0, 1]), flint.fmpq_poly([0, 0, 0, 0, 0, 0, 1])
    out = D.matvec([((0, x2),)], [x6])[0]
    assert out.degree() < D.field.degree and out == D.dot(((0, x2),), [x6])
    assert not out.is_zero() and np.isclose(float(_value(D, out)), np.cos(2 * np.pi * 8 / 20))

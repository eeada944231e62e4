"""The contract of each exact domain of the prover (constructions/exact/domains.py), on its own.

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

from bilinear.constructions.exact.domains import (
    CyclotomicDomain,
    IntegerDomain,
    RationalDomain,
    SparseCyclotomicDomain,
    sparse_rows,
)
from bilinear.constructions import build

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


@pytest.mark.parametrize("D", [d for d in DOMAINS if not d.exact_keys], ids=["Q(zeta_20)", "Q(zeta_20) sparse"])
def test_parallel_with_one_enclosure_that_decides_nothing(D):
    """A sign read from a tight enclosure and one decided exactly (infinite radius) agree."""
    a, b, c, neg = _vectors(D)
    useless = (D.floats(b)[0], np.full(2, np.inf))
    assert D.parallel(a, b, (D.floats(a), useless)) and D.parallel(b, a, (useless, D.floats(a)))
    assert not D.parallel(a, neg(b), (D.floats(a), (D.floats(neg(b))[0], np.full(2, np.inf))))


def test_enclosures_of_constants_and_of_zeta_itself():
    """Degree 0 (a rational) and degree 1 (zeta_20, whose real part is cos 18 degrees)."""
    D = CyclotomicDomain(20)
    v = [flint.fmpq_poly([flint.fmpq(-3, 7)]), flint.fmpq_poly([0, 1]), flint.fmpq_poly([2, 1])]
    mid, rad = D.floats(v)
    for x, m, r in zip(v, mid, rad):
        assert abs(_value(D, x) - mpmath.mpf(m)) <= r <= 1e-13 * abs(m)
    assert np.isclose(mid[1], np.cos(np.pi / 10))


@pytest.mark.parametrize("D", [d for d in DOMAINS if d.exact_keys], ids=["Q", "Z"])
def test_keys_of_multiples_whose_first_entry_is_one_or_two(D):
    a = [D.convert(1), D.convert(-3)] if isinstance(D, IntegerDomain) else [D.convert(Fraction(1, 3)), D.convert(Fraction(-5, 7))]
    first = a[0]
    for t in (1, 2, 3, 6):
        scaled = [x * t for x in a] if isinstance(D, IntegerDomain) else [x * (D.convert(t) / first) / 3 for x in a]
        assert D.key(scaled) == D.key(a), t


def test_radical_is_the_product_of_the_distinct_primes():
    from sympy import primefactors

    from bilinear.constructions.exact.domains import _radical

    assert [_radical(m) for m in range(1, 300)] == [int(np.prod(primefactors(m))) for m in range(1, 300)]


@pytest.mark.parametrize("m", [12, 15, 20, 21, 30, 36, 35, 60])
def test_sparse_arithmetic_agrees_with_dense_polynomials(m):
    """Products and sums of random sparse elements of Q(zeta_m) against plain polynomial
    multiplication reduced mod Phi_m (m = 15, 21, 35: cyclotomic polynomials whose reductions
    have several terms with coefficient +1)."""
    from bilinear.constructions.exact.domains import Terms, terms_poly

    S = SparseCyclotomicDomain(m)
    phi = flint.fmpq_poly(flint.fmpz_poly.cyclotomic(m).coeffs())
    rng = np.random.default_rng(m)
    for _ in range(20):
        x, y = (Terms({int(k): flint.fmpq(int(rng.integers(-5, 6)) or 1, int(rng.integers(1, 4)))
                       for k in rng.choice(S.field.degree, size=3, replace=False)}) for _ in range(2))
        assert terms_poly(S.mul(x, y)) == terms_poly(x) * terms_poly(y) % phi
        assert terms_poly(x + y) == terms_poly(x) + terms_poly(y)
        assert max(S.mul(x, y), default=0) < S.field.degree  # reduced


@pytest.mark.parametrize("m", [12, 15, 20, 36, 60])
def test_compact_multiplicands_multiply_as_the_element(m):
    """``constant(x)`` writes a weight entry with the fewest terms (a group that is a reduced
    monomial c x^i y^q becomes one term); multiplying by it must give what multiplying by ``x``
    itself gives, for zeta^k, (zeta^k + zeta^-k) / 2 and sums of them."""
    from bilinear.constructions.exact.domains import Terms
    from bilinear.constructions import FieldElement

    S = SparseCyclotomicDomain(m)

    def power(k):
        red = S._reduce[k % m]
        return Terms({red: flint.fmpq(1)}) if isinstance(red, int) else Terms({e: flint.fmpq(t) for e, t in red})

    rng = np.random.default_rng(m)
    for k in range(m):
        half = flint.fmpq(1, 2)
        cos_like = Terms({e: c * half for e, c in (power(k) + power(-k)).items()})
        for terms in (power(k), cos_like, power(k) + power(3 * k + 1)):
            x = FieldElement.from_terms(S.field, terms)
            y = Terms({int(e): flint.fmpq(int(rng.integers(-4, 5)) or 1) for e in rng.choice(S.field.degree, 3, replace=False)})
            assert S.mul(S.constant(x), y) == S.mul(S.convert(x), y), (k, terms)


@pytest.mark.parametrize("m", [4, 8, 9, 12, 18, 20, 24, 36, 60])
def test_reduction_table_is_x_to_the_k_mod_phi(m):
    """Every entry of the sparse domain's reduction table, k < 2m (products of compact
    multiplicands reach past phi(m)), is x^k mod Phi_m, computed here with dense polynomials.
    A single monomial with coefficient 1 is stored as its exponent, anything else as terms."""
    S = SparseCyclotomicDomain(m)
    phi = flint.fmpq_poly(flint.fmpz_poly.cyclotomic(m).coeffs())
    for k in range(2 * m):
        entry = S._reduce[k]
        terms = {entry: 1} if isinstance(entry, int) else dict(entry)
        coeffs = [0] * (max(terms) + 1)
        for e, t in terms.items():
            coeffs[e] = t
        assert flint.fmpq_poly(coeffs) == flint.fmpq_poly([0] * k + [1]) % phi, k


def test_signs_of_coordinates_whose_floats_are_zero_or_wrong():
    """``parallel`` reads the first non-zero coordinate's sign from its float enclosure only when
    the enclosure excludes zero.  A rational 10^-400 is 0.0 as a float (radius 0): its sign is
    decided exactly, so (t, 1) and (-t, 1) are not parallel (beside 1: a vector whose entries are
    all that small is rescaled first, :data:`SCALE_BITS`).  And a sign read from a float that
    decides and one read exactly (an infinite radius) are the same number for the same sign."""
    D = CyclotomicDomain(20)
    t, one = D.convert(Fraction(1, 10**400)), D.convert(Fraction(1))
    a, b = [t, one], [-t, one]
    assert D.floats(a)[0][0] == 0.0 and D.floats(a)[1][0] == 0.0  # the premise
    assert not D.parallel(a, b, (D.floats(a), D.floats(b)))
    assert D.parallel(a, [3 * t, 3 * one], (D.floats(a), D.floats([3 * t, 3 * one])))
    alone = D.floats([t, D.zero])  # all tiny: rescaled, the sign read from the float
    assert alone[0][0] > alone[1][0] > 0 and not D.parallel([t, D.zero], [-t, D.zero])
    # rescaled by 2^-e: the zero entry's radius is the underflow allowance alone, the other's above it
    assert alone[1][1] == 2.0**-1000 and alone[1][0] >= 2.0**-1000 + alone[0][0] * 2.0**-52
    for x in (D.convert(Fraction(5, 7)), D.convert(Fraction(-5, 7))):
        c, d = [x, D.zero], [2 * x, D.zero]
        decides = D.floats(c)
        nothing = (D.floats(d)[0], np.full(2, np.inf))
        assert D.parallel(c, d, (decides, nothing)) and D.parallel(d, c, (nothing, decides))


def test_a_float_midpoint_of_the_wrong_sign_is_not_read():
    """x = big (z + z^4) - round(big (sqrt 5 - 1) / 2) in Q(zeta_5) with big = 10^15 + 2 is positive,
    but its float midpoint is -0.25 (radius 0.64: the enclosure contains zero).  Its sign must be
    decided exactly, so (x, 0) and (-x, 0) are not parallel."""
    from bilinear.constructions import CyclotomicField

    D, field = CyclotomicDomain(5), CyclotomicField(5)
    big = 10**15 + 2
    x = D.convert((field.zeta(1) + field.zeta(4)) * big - Fraction(round(0.6180339887498949 * big)))
    a, b = [x, D.zero], [-x, D.zero]
    (mid, rad), fb = D.floats(a), D.floats(b)
    assert D.sign(x) == 1 and mid[0] < 0 < rad[0] + mid[0]  # the premise
    assert not D.parallel(a, b, ((mid, rad), fb)) and not D.parallel(b, a, (fb, (mid, rad)))
    assert D.parallel(a, [3 * x, D.zero], ((mid, rad), D.floats([3 * x, D.zero])))


def test_cyclotomic_keys_bucket_directions_by_their_values():
    """The float key of a cyclotomic vector is the bucket of its values' direction: a positive
    multiple shares it, the negated vector does not (a key from the radii would confuse them)."""
    for D in (CyclotomicDomain(20), SparseCyclotomicDomain(20)):
        a, b, c, neg = _vectors(D)
        assert D.key(a) == D.key(b) and D.key(a) != D.key(neg(a))


def test_sparse_conversions_of_constants_and_back():
    """A flint rational converts like the Fraction it equals (a constant, not a multiple of
    zeta); ``to_element`` gives an int, a Fraction, or a field element, whatever the element's
    number of terms, and the element it gives converts back to the same terms."""
    from bilinear.constructions import CyclotomicField, FieldElement

    S, field = SparseCyclotomicDomain(20), CyclotomicField(20)
    assert S.convert(flint.fmpq(3, 4)) == S.convert(Fraction(3, 4)) == {0: flint.fmpq(3, 4)}
    assert S.convert(flint.fmpq(0)) == S.zero
    assert S.to_element(S.convert(5)) == 5 and isinstance(S.to_element(S.convert(5)), int)
    assert S.to_element(S.convert(Fraction(3, 4))) == Fraction(3, 4)
    assert S.to_element(S.zero) == 0
    for x in (field.zeta(1), field.zeta(1) + Fraction(1, 2), 3 * field.zeta(3) - 2 * field.zeta(1) + 1):
        back = S.to_element(S.convert(x))
        assert isinstance(back, FieldElement) and S.convert(back) == S.convert(x)

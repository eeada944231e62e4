"""Tests that kill the operator mutants of constructions/exact/field.py (benchmarks/mutate_auto.py -k field).

Every expected value is computed independently of the code under test: by hand, with Fractions,
with floats of math.cos / math.sin, with sympy, or from identities of cyclotomic fields
(zeta^m = 1, x * x^-1 = 1, conjugation fixes exactly the real elements).
"""

from __future__ import annotations

import math
from fractions import Fraction

import flint
import pytest
import sympy

from bilinear.constructions.exact.field import (
    MAX_CONDUCTOR,
    CyclotomicField,
    FieldElement,
    _mobius,
    _totient,
    cos2pi,
    exact_sign,
    is_exact_scalar,
    real_poly_sign,
    sin2pi,
    to_fmpq,
)
from bilinear.errors import FieldError


# --- scalars and conductors ---------------------------------------------------------------------
def test_booleans_are_not_exact_scalars():
    with pytest.raises(FieldError, match="boolean"):
        to_fmpq(True)
    with pytest.raises(FieldError, match="boolean"):
        CyclotomicField(5)(False)
    assert is_exact_scalar(True) is False and is_exact_scalar(False) is False
    assert is_exact_scalar(3) and is_exact_scalar(Fraction(1, 3)) and is_exact_scalar(flint.fmpq(1, 3))
    assert not is_exact_scalar(0.5)
    with pytest.raises(TypeError):
        CyclotomicField(5).zeta() + True


def test_conductor_must_be_an_integer_in_range():
    for bad in (True, 2.5, 4.0, Fraction(8, 1)):
        with pytest.raises(FieldError, match="not an integer"):
            CyclotomicField(bad)
    for bad in (0, -3, MAX_CONDUCTOR + 1):
        with pytest.raises(FieldError, match="must be in"):
            CyclotomicField(bad)
    # both ends of the range are accepted; Phi_100000(x) = Phi_10(x^10000) has degree 4 * 10000
    assert CyclotomicField(1).degree == 1
    assert CyclotomicField(MAX_CONDUCTOR).degree == 40_000


def test_only_subfield_elements_are_accepted():
    z5 = CyclotomicField(5).zeta()
    with pytest.raises(FieldError, match=r"is not in Q\(zeta_7\)"):
        CyclotomicField(7)(z5)
    # zeta_5 = zeta_10^2
    assert CyclotomicField(10)(z5) == CyclotomicField(10).zeta(2)
    with pytest.raises(FieldError, match="not a subfield"):
        z5.embed(7)


# --- zeta, cos, sin -----------------------------------------------------------------------------
def test_negative_and_large_powers_of_zeta():
    K = CyclotomicField(5)
    assert K.zeta(-1) * K.zeta() == 1
    assert K.zeta(-1) == K.zeta(4) and K.zeta(5) == 1 and K.zeta(7) == K.zeta(2)
    # 1 + z + z^2 + z^3 + z^4 = 0 in Q(zeta_5): z^4 is -1 - z - z^2 - z^3
    assert K.zeta(4).coeffs() == [-1, -1, -1, -1]


def _close(x, value: float) -> bool:
    return abs(float(x) - value) < 1e-12


def test_cos_and_sin_in_a_field_are_the_real_values():
    K = CyclotomicField(24)
    for n in (1, 2, 3, 4, 6, 8, 12, 24):
        for k in (-5, 0, 1, 2, 7):
            assert _close(K.cos(k, n), math.cos(2 * math.pi * k / n)), (k, n)
            assert _close(K.sin(k, n), math.sin(2 * math.pi * k / n)), (k, n)
    assert CyclotomicField(3).cos(0, 1) == 1 and CyclotomicField(4).sin(0, 1) == 0
    assert CyclotomicField(8).sin(1, 8) ** 2 == Fraction(1, 2) and CyclotomicField(8).sin(1, 8).sign() == 1


@pytest.mark.parametrize("n", [0, -4, 3, 5])
def test_cos_and_sin_outside_the_field_are_refused(n):
    K = CyclotomicField(8)
    with pytest.raises(FieldError, match=r"cos\(2 pi"):
        K.cos(1, n)
    with pytest.raises(FieldError, match=r"sin\(2 pi"):
        K.sin(1, n)


def test_sin_needs_four_to_divide_the_conductor():
    with pytest.raises(FieldError, match="needs 4"):
        CyclotomicField(6).sin(1, 6)


def test_cos2pi_and_sin2pi_live_in_the_documented_field():
    # both in Q(zeta_lcm(4, n)) when irrational (their docstrings)
    for n, m in ((5, 20), (7, 28), (8, 8), (9, 36), (10, 20), (12, 12), (13, 52)):
        c = cos2pi(1, n)
        assert c.field.m == m and _close(c, math.cos(2 * math.pi / n)), n
    for n, m in ((5, 20), (6, 12), (7, 28), (8, 8), (9, 36), (10, 20), (13, 52)):
        s = sin2pi(1, n)
        assert s.field.m == m and _close(s, math.sin(2 * math.pi / n)), n
    assert cos2pi(1, 6) == Fraction(1, 2) and sin2pi(3, 4) == -1


# --- the element's representations --------------------------------------------------------------
def test_sparse_terms_build_the_polynomial():
    K = CyclotomicField(7)
    x = FieldElement.from_terms(K, {0: flint.fmpq(2), 3: flint.fmpq(-1, 2)})
    assert not x.is_rational()
    assert x.coeffs() == [2, 0, 0, Fraction(-1, 2)]
    assert FieldElement.from_terms(K, {0: flint.fmpq(5, 3)}).is_rational()
    assert FieldElement.from_terms(K, {0: flint.fmpq(5, 3)}).rational() == Fraction(5, 3)
    assert FieldElement.from_terms(K, {}).poly.is_zero()
    assert FieldElement.from_terms(K, {1: flint.fmpq(1)}) == K.zeta()


def test_rational_parts():
    K = CyclotomicField(5)
    assert K(0).rational() == 0 and K(Fraction(-7, 3)).rational() == Fraction(-7, 3)
    assert K(4).is_rational() and not K.zeta().is_rational()
    with pytest.raises(FieldError, match="not rational"):
        K.zeta().rational()
    assert K.zeta().simplify() is not None and K(3).simplify() == 3


def test_embedding_spreads_the_coefficients():
    K = CyclotomicField(5)
    x = 2 - 3 * K.zeta() + K.zeta(3) / 2
    y = x.embed(15)
    assert y.field.m == 15 and y == x
    # zeta_5 = zeta_15^3, so x = 2 - 3 zeta_15^3 + 1/2 zeta_15^9, reduced modulo Phi_15
    L = CyclotomicField(15)
    assert y == 2 - 3 * L.zeta(3) + L.zeta(9) / 2
    assert abs(complex(y) - complex(x)) < 1e-12
    assert K(3).embed(10) == 3 and K(0).embed(10) == 0
    assert x.embed(5) is x


def test_elements_whose_common_field_is_the_largest_allowed():
    # lcm(32, 3125) = 100000 = MAX_CONDUCTOR: allowed; lcm(32, 3127) is not
    assert CyclotomicField(32)(1) + CyclotomicField(3125)(2) == 3
    with pytest.raises(FieldError, match="combine only"):
        CyclotomicField(32)(1) + CyclotomicField(3127)(2)


# --- arithmetic ---------------------------------------------------------------------------------
def test_products_are_reduced():
    K = CyclotomicField(5)
    z = K.zeta()
    for a, b in ((z, K.zeta(3)), (K.zeta(3), z), (K.zeta(2), K.zeta(2))):
        # z^4 = -1 - z - z^2 - z^3 (reduced: degree below phi(5) = 4)
        assert (a * b).coeffs() == [-1, -1, -1, -1]
        assert (a * b).poly.degree() < 4
    assert (z * 3).coeffs() == [0, 3] and (3 * z).coeffs() == [0, 3]


def test_subtraction_both_ways():
    K = CyclotomicField(7)
    z = K.zeta()
    assert (3 - z).coeffs() == [3, -1] and (z - 3).coeffs() == [-3, 1]
    assert (Fraction(1, 2) - z * z).coeffs() == [Fraction(1, 2), 0, -1]
    assert (-(z - 2)).coeffs() == [2, -1] and +z is z


def test_inverses_and_division():
    K = CyclotomicField(9)
    z = K.zeta()
    for x in (K(Fraction(-2, 3)), z, 1 + z, 2 - z + z ** 4, K.cos(1, 9)):
        assert x * x.inverse() == 1 and x.inverse() * x == 1
        assert 1 / x == x.inverse() and x / x == 1
    assert K(Fraction(-2, 3)).inverse() == Fraction(-3, 2)
    assert (2 / z) == 2 * K.zeta(8) and (z / 2).coeffs() == [0, Fraction(1, 2)]
    with pytest.raises(FieldError, match="division by zero"):
        K(0).inverse()
    with pytest.raises(FieldError, match="division by zero"):
        z / 0


def test_powers():
    K = CyclotomicField(7)
    z = K.zeta()
    for n in range(-9, 10):
        assert z ** n == K.zeta(n % 7), n
    x = 1 + z
    assert x ** 3 == x * x * x and x ** -2 * x * x == 1 and x ** 0 == 1 and x ** 1 == x
    assert K(0) ** 0 == 1 and K(0) ** 3 == 0
    assert K(Fraction(2, 3)) ** 5 == Fraction(32, 243) and K(2) ** -3 == Fraction(1, 8)
    with pytest.raises(TypeError):
        z ** True
    with pytest.raises(TypeError):
        z ** 0.5


# --- comparison and hashing ---------------------------------------------------------------------
def test_equality_with_floats_and_other_types():
    K = CyclotomicField(5)
    assert K(Fraction(1, 2)) == 0.5 and not (K(Fraction(1, 2)) == 0.25)
    assert not (K.zeta() == 0.5) and K.zeta() != 0.5
    assert K.zeta() != "zeta" and not (K.zeta() == "zeta")
    assert K.zeta() != K.zeta(2) and not (K.zeta() != K.zeta(6))
    assert (K.zeta() != 1) is True and (K(1) != 1) is False


def test_order_of_real_elements():
    c = cos2pi(1, 5)  # (sqrt 5 - 1) / 4 = 0.309...
    for x, y in ((c, c), (c, Fraction(1, 3)), (Fraction(1, 4), c), (c, 2 * c), (-c, c)):
        fx, fy = float(x), float(y)
        assert (x < y) == (fx < fy) and (x <= y) == (fx <= fy), (x, y)
        assert (x > y) == (fx > fy) and (x >= y) == (fx >= fy), (x, y)
    with pytest.raises(TypeError, match="cannot compare"):
        assert c < 0.5


def test_truth_and_absolute_value():
    K = CyclotomicField(8)
    r = K.zeta() + K.zeta(-1)  # sqrt 2
    assert not K(0) and bool(K.zeta()) and bool(K(Fraction(1, 9)))
    assert abs(r - 2) == 2 - r and abs(r - 1) == r - 1 and abs(K(Fraction(1, 2))) == Fraction(1, 2)
    assert abs(K(0)) == 0 and abs(K(-3)) == 3


def test_normalized_trace_is_the_rational_mean_of_the_conjugates():
    # the mean of sigma_j(x) over j coprime to m, by floats: Tr(zeta_m^k) is a Ramanujan sum
    for m in (1, 2, 4, 9, 12, 30):
        K = CyclotomicField(m)
        units = [j for j in range(1, m + 1) if math.gcd(j, m) == 1]
        for k in range(m):
            mean = sum(math.cos(2 * math.pi * j * k / m) for j in units) / len(units)
            got = (3 * K.zeta(k)).normalized_trace()
            assert abs(float(got) - 3 * mean) < 1e-9, (m, k)


def test_totient_and_mobius_are_sympys():
    for n in range(1, 400):
        assert _totient(n) == int(sympy.totient(n)), n
        assert _mobius(n) == int(sympy.mobius(n)), n


@pytest.mark.parametrize(("m", "k", "c", "floor"), [
    (3, 1, Fraction(0), -2**31),          # Re zeta_3 = -1/2
    (6, 1, Fraction(0), 2**31),           # Re zeta_6 = 1/2
    (4, 1, Fraction(0), 0),               # Re i = 0
    (3, 1, Fraction(1, 4), -2**30),       # -1/2 + 1/4
    (3, 2, Fraction(-3, 2), -2**33),      # -1/2 - 3/2
    (12, 4, Fraction(-5), -5 * 2**32 - 2**31),  # -1/2 - 5
    (6, 1, Fraction(-1, 2**33), 2**31 - 1),  # just below 2^31 / 2^32
    (6, 1, Fraction(1, 2**33), 2**31),       # just above
    (5, 1, Fraction(0), math.floor(2**32 * math.cos(2 * math.pi / 5))),
    # on the grid, with arb's midpoint below the grid point at every precision tried: floor(mid) = floor - 1
    (12, 10, Fraction(0), 2**31),          # Re zeta_12^10 = 1/2
    # just below the grid point -2^31, closer than any ball tried resolves: floor(mid) = floor + 1
    (3, 1, -Fraction(1, 2**300), -2**31 - 1),
])
def test_hash_grid_is_the_exact_floor_of_the_real_part(m, k, c, floor):
    """__hash__ hashes floor(2^32 Re x) of a non-rational x; on the grid it is decided exactly."""
    x = CyclotomicField(m).zeta(k) + c
    assert x._real_floor() == floor
    assert hash(x) == hash(("Q(zeta)", floor))
    assert hash(x.embed(4 * m)) == hash(x)


# --- conjugation and reality --------------------------------------------------------------------
def test_conjugates_are_the_inverse_powers():
    K = CyclotomicField(5)
    for k in range(5):
        assert K.zeta(k).conjugate() == K.zeta(-k), k
    x = 2 + 3 * K.zeta() - K.zeta(3)
    assert x.conjugate() == 2 + 3 * K.zeta(4) - K.zeta(2)
    assert K(Fraction(4, 3)).conjugate() == Fraction(4, 3)
    assert abs(complex(x.conjugate()) - complex(x).conjugate()) < 1e-12


def test_reality_decided_exactly_and_propagated():
    K = CyclotomicField(5)
    z = K.zeta()
    assert not z.is_real() and not K.element([0, 2]).is_real() and not (z + 1).is_real()
    assert K.element([0, 1, 0, 0, 1]).is_real()  # z + z^4 = 2 cos(2 pi / 5)
    assert K(7).is_real()
    c = K.cos(1, 5)
    assert (c * 3)._real is True and (3 + c)._real is True and (c - Fraction(1, 2))._real is True
    assert (c * K(2))._real is True and (K(2) - c)._real is True
    assert not (z * c).is_real() and not (c + z).is_real() and not (1 - z).is_real()
    with pytest.raises(FieldError, match="not real"):
        float(z)
    with pytest.raises(FieldError, match="not real"):
        z.sign()


def test_floats_and_complex_values():
    K = CyclotomicField(12)
    z = K.zeta()
    assert abs(complex(z) - complex(math.cos(math.pi / 6), math.sin(math.pi / 6))) < 1e-15
    assert float(K.cos(1, 12)) == pytest.approx(math.sqrt(3) / 2, abs=1e-15)
    assert float(K(Fraction(1, 3))) == 1 / 3


# --- signs --------------------------------------------------------------------------------------
def test_signs_of_rationals_and_small_reals():
    K = CyclotomicField(8)
    r = K.zeta() + K.zeta(-1)  # sqrt 2
    assert K(Fraction(1, 2)).sign() == 1 and K(Fraction(-1, 2)).sign() == -1 and K(0).sign() == 0
    assert K(3).sign() == 1
    assert (r - 1).sign() == 1 and (1 - r).sign() == -1 and (r - Fraction(3, 2)).sign() == -1
    # sqrt 2 - 1 = 0.414...: both signs of an element in (0, 1) and (-1, 0)
    assert (r - 1) ** 40 > 0 and -((r - 1) ** 40) < 0
    for poly, sign in (([0], 0), ([Fraction(1, 3)], 1), ([Fraction(-1, 3)], -1), ([3], 1), ([-3], -1)):
        assert real_poly_sign(K, flint.fmpq_poly([to_fmpq(c) for c in poly])) == sign
    assert real_poly_sign(K, (r - 1).poly) == 1 and real_poly_sign(K, (1 - r).poly) == -1


def test_tiny_positive_and_negative_elements():
    K = CyclotomicField(8)
    r = K.zeta() + K.zeta(-1)  # sqrt 2
    approx = Fraction(1)
    for _ in range(7):
        approx = (approx + 2 / approx) / 2  # Newton from above: 0 < approx - sqrt 2 < 1e-30
    assert (approx - r).sign() == 1 and (r - approx).sign() == -1
    assert real_poly_sign(K, (approx - r).poly) == 1 and real_poly_sign(K, (r - approx).poly) == -1


def test_a_sign_beyond_the_last_precision_is_refused():
    K = CyclotomicField(8)
    x = (K.zeta() + K.zeta(-1) - 1) ** 12900  # (sqrt 2 - 1)^12900 < 2^-16400, coefficients of 16400 bits
    with pytest.raises(FieldError, match="could not decide the sign .* at 16384 bits"):
        x.sign()


def test_exact_sign_of_scalars():
    for value, sign in ((Fraction(1, 2), 1), (Fraction(-1, 2), -1), (0, 0), (2, 1), (-3, -1),
                        (flint.fmpq(1, 7), 1), (Fraction(0), 0)):
        assert exact_sign(value) == sign, value
    assert exact_sign(cos2pi(1, 3) + cos2pi(1, 5)) == -1  # -1/2 + 0.309


# --- printing -----------------------------------------------------------------------------------
def test_repr_writes_the_polynomial_in_z():
    K = CyclotomicField(5)
    z = K.zeta()
    assert repr(K(Fraction(3, 4))) == "3/4" and repr(K(0)) == "0"
    assert repr(1 - z + 2 * z ** 2 - Fraction(1, 2) * z ** 3) == "(1 - z + 2*z^2 - 1/2*z^3 in Q(z_5))"
    assert repr(-z ** 2 + z ** 3) == "(-z^2 + z^3 in Q(z_5))"
    assert repr(-1 + z) == "(-1 + z in Q(z_5))"
    assert repr(Fraction(1, 2) + Fraction(1, 3) * z) == "(1/2 + 1/3*z in Q(z_5))"
    assert repr(Fraction(2, 3) * z ** 2 - 2 * z ** 3) == "(2/3*z^2 - 2*z^3 in Q(z_5))"
    assert repr(-Fraction(2, 3) * z) == "(-2/3*z in Q(z_5))"
    assert K.zeta(2).to_json() == {"field": "cyclotomic:5", "coeffs": ["0", "0", "1"]}

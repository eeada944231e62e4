"""Exact cyclotomic arithmetic: field axioms on samples, trigonometric identities, exact signs."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bilinear.constructions.exact.field import CyclotomicField, FieldElement, cos2pi, exact_sign, sin2pi
from bilinear.errors import FieldError


@pytest.mark.parametrize("n", [3, 5, 7, 8, 12, 50, 140])
def test_rotation_by_2pi_over_n_has_order_n(n):
    c, s = cos2pi(1, n), sin2pi(1, n)
    assert c * c + s * s == 1
    # (c + i s)^n = 1, computed on 2x2 matrices
    a, b = Fraction(1), Fraction(0)
    for _ in range(n):
        a, b = a * c - b * s, a * s + b * c
    assert a == 1 and b == 0
    assert abs(float(c) - math.cos(2 * math.pi / n)) < 1e-12
    assert abs(float(s) - math.sin(2 * math.pi / n)) < 1e-12


@pytest.mark.parametrize("k,n", [(1, 4), (1, 6), (1, 3), (0, 9), (3, 12)])
def test_rational_values_come_back_as_fractions(k, n):
    assert isinstance(cos2pi(k, n), Fraction)
    assert cos2pi(k, n) == Fraction(round(2 * math.cos(2 * math.pi * k / n)), 2)


def test_golden_ratio_identity_and_sign():
    c = cos2pi(1, 5)  # (sqrt5 - 1) / 4
    assert 4 * c * c + 2 * c - 1 == 0
    assert (c - Fraction(309016, 1_000_000)).sign() == 1
    assert (c - Fraction(309017, 1_000_000)).sign() == -1


def test_sign_of_a_tiny_nonzero_element_needs_more_precision():
    r2 = CyclotomicField(8).zeta() + CyclotomicField(8).zeta(-1)  # sqrt 2
    # a rational approximation of sqrt 2 good to ~1e-30: the sign must still be exact
    approx = Fraction(1)
    for _ in range(7):
        approx = (approx + 2 / approx) / 2
    assert (r2 - approx).sign() == -1  # Newton iterates from above
    assert (r2 * r2 - 2).sign() == 0


def test_inverse_and_mixed_fields():
    x = cos2pi(1, 7) + 3 * sin2pi(1, 7) - Fraction(1, 5)
    assert x * x.inverse() == 1
    y = cos2pi(1, 5)  # lives in Q(zeta_20); combined with Q(zeta_28) in Q(zeta_140)
    z = x * y
    assert z.field.m == 140
    assert z / y == x


def test_conjugation_and_reality():
    K = CyclotomicField(7)
    z = K.zeta()
    assert not z.is_real()
    assert (z + z.conjugate()).is_real()
    with pytest.raises(FieldError, match="not real"):
        z.sign()
    with pytest.raises(FieldError, match="not real"):
        float(z)
    assert abs(complex(z) - complex(math.cos(2 * math.pi / 7), math.sin(2 * math.pi / 7))) < 1e-12


def test_equal_elements_of_different_fields_hash_alike():
    c = cos2pi(1, 5)  # in Q(zeta_20)
    assert c.embed(60) == c and hash(c.embed(60)) == hash(c)
    assert {c: "x"}[c.embed(140)] == "x"
    z = CyclotomicField(7).zeta()
    assert hash(z.embed(21)) == hash(z)


@given(st.integers(1, 30), st.integers(0, 29))
def test_normalized_trace_is_the_mean_of_the_conjugates(m, k):
    import cmath

    K = CyclotomicField(m)
    x = K.zeta(k) + 2
    units = [j for j in range(1, m + 1) if math.gcd(j, m) == 1]
    mean = sum(cmath.exp(2j * cmath.pi * j * k / m) for j in units) / len(units) + 2
    assert abs(float(x.normalized_trace()) - mean.real) < 1e-9


def test_hash_matches_equality_for_rationals():
    assert hash(CyclotomicField(12)(Fraction(3, 4))) == hash(Fraction(3, 4))
    assert {cos2pi(1, 7): 1}[cos2pi(1, 7)] == 1


def test_bad_input():
    with pytest.raises(FieldError, match="conductor"):
        CyclotomicField(0)
    with pytest.raises(FieldError, match="division by zero"):
        CyclotomicField(5)(0).inverse()
    with pytest.raises(FieldError, match="not an exact rational"):
        CyclotomicField(5)(0.5)


elements = st.lists(st.fractions(min_value=-50, max_value=50, max_denominator=20), min_size=1, max_size=6)


@given(elements, elements, elements)
def test_ring_axioms_in_q_zeta_9(a, b, c):
    K = CyclotomicField(9)
    x, y, z = K.element(a), K.element(b), K.element(c)
    assert (x + y) * z == x * z + y * z
    assert (x * y) * z == x * (y * z)
    assert x - x == 0
    if x != 0:
        assert (y / x) * x == y


@given(elements)
def test_sign_agrees_with_float_on_real_parts(a):
    K = CyclotomicField(15)
    x = K.element(a)
    r = x + x.conjugate()
    value = float(r)
    if abs(value) > 1e-9:
        assert exact_sign(r) == (1 if value > 0 else -1)


def test_hash_is_consistent_with_equality_on_the_exact_branch():
    # Re(zeta_3) = -1/2 sits exactly on the hash grid: decided by an exact comparison
    z = CyclotomicField(3).zeta()
    for m in (6, 12, 30):
        assert z.embed(m) == z and hash(z.embed(m)) == hash(z)
    assert hash(CyclotomicField(8).zeta(2)) == hash(CyclotomicField(4).zeta())


def test_a_dict_of_2000_conjugates_stays_linear(monkeypatch):
    """zeta^k, k < 2000, are Galois conjugates of each other in large groups: the old hash
    (Galois invariants) sent them all to a few buckets, so a dict compared quadratically."""
    K = CyclotomicField(2000)
    points = [K.zeta(k) for k in range(2000)]  # zeta^k and zeta^-k share a real part: pairs collide
    calls = [0]
    original = FieldElement.__eq__

    def counting(self, other):
        calls[0] += 1
        return original(self, other)

    monkeypatch.setattr(FieldElement, "__eq__", counting)
    table = {x: k for k, x in enumerate(points)}
    assert len(table) == 2000
    assert all(table[x] == k for k, x in enumerate(points))
    assert calls[0] < 4 * 2000  # a quadratic dict makes about 2000^2 / 2 comparisons


def test_reality_is_propagated_through_ring_operations_and_is_exact():
    c, s = cos2pi(1, 7), sin2pi(2, 7)
    product = c * s - c + 3 * s * s
    assert product._real is True and product.is_real()  # known without a conjugation
    z = CyclotomicField(28).zeta()
    mixed = z * c
    assert mixed._real is None and not mixed.is_real()
    assert (mixed + mixed.conjugate()).is_real()


def test_an_element_from_terms_is_the_same_number():
    K = CyclotomicField(2000)
    dense = (K.zeta(3) + K.zeta(-3)) * Fraction(1, 2) + 2
    lazy = FieldElement.from_terms(K, dense.terms())
    assert lazy._poly is None and lazy == dense and not lazy.is_rational()
    assert lazy.poly == dense.poly and hash(lazy) == hash(dense)
    assert FieldElement.from_terms(K, {0: Fraction(3, 2)}).is_rational()
    assert FieldElement.from_terms(K, {}) == 0

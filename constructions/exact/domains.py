"""Exact arithmetic domains of the prover: Q (``flint.fmpq``), Z (Python ints) and Q(zeta_m).

A domain turns weight entries into its own scalars and does the few operations the closure of
:func:`bilinear.constructions.proof.prover.prove` needs: sparse matrix-vector products, readout dot
products, exact signs, float enclosures of a vector (for the float screen of margins) and a way
to recognise a hidden direction seen before (Theorem 5 of docs/theory.md, the inductive proof):

* exact keys (``exact_keys = True``): ``key(h)`` is equal for two vectors exactly when one is a
  positive multiple of the other;
* otherwise (cyclotomic): vectors are bucketed by their rounded float direction and
  ``parallel(a, b)`` decides exactly whether ``a = lambda b`` with ``lambda > 0``.

Q(zeta_m) has two domains: :class:`CyclotomicDomain` (dense ``fmpq_poly``) and, when
Phi_m(x) = Phi_r(x^s) has a small radical part phi(r) (m = 2000: r = 10, phi(r) = 4),
:class:`SparseCyclotomicDomain`, whose elements are dictionaries of their few non-zero reduced
coefficients, multiplied term by term and enclosed by float sums with a rigorous error bound.

>>> d = RationalDomain()
>>> h = [d.convert(x) for x in (0, -2, 4)]
>>> d.key(h) == d.key([d.convert(x) for x in (0, -1, 2)]), d.sign(d.dot(((1, d.convert(3)),), h))
(True, -1)
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, Protocol, runtime_checkable

import flint
import numpy as np

from .field import CyclotomicField, FieldElement, real_poly_sign

__all__ = [
    "Domain",
    "RationalDomain",
    "IntegerDomain",
    "CyclotomicDomain",
    "SparseCyclotomicDomain",
    "sparse_rows",
    "choose_domain",
    "direction_bucket",
    "EPS",
]

EPS = 2.0**-50  # generous unit round-off for the float screen


@runtime_checkable
class Domain(Protocol):
    """What the prover needs of an exact scalar domain (see the module docstring)."""

    m: int  # conductor: 1 for Q and Z
    exact_keys: bool
    zero: Any  # the domain's own zero (int, fmpq, polynomial or sparse terms)

    def convert(self, x): ...

    def is_zero(self, x) -> bool: ...

    def matvec(self, rows, h) -> list: ...

    def dot(self, row, h): ...

    def sign(self, x) -> int: ...

    def key(self, h): ...

    def parallel(self, a, b, floats=None) -> bool: ...

    def floats(self, h) -> tuple[np.ndarray, np.ndarray]: ...


def sparse_rows(matrix, domain: Domain) -> tuple:
    """The rows of an object matrix as tuples of ``(column, entry)`` over its non-zero entries
    (entries as the domain's multiplicands: :meth:`SparseCyclotomicDomain.constant`)."""
    convert = getattr(domain, "constant", domain.convert)
    return tuple(
        tuple((j, convert(matrix[i, j])) for j in range(matrix.shape[1]) if matrix[i, j] != 0)
        for i in range(matrix.shape[0])
    )


#: A hidden vector whose largest entry passes 2^SCALE_BITS in magnitude (or stays below
#: 2^-SCALE_BITS) has its float enclosure taken of ``h / 2^e``, e near log2 of that entry, exact:
#: a positive multiple, so every score keeps its sign.  A growing network (diag(3, 1) from (1, 1))
#: reaches entries past a float's range long before its proof's bound (an OverflowError before).
SCALE_BITS = 256
#: The absolute error added to every radius of a rescaled vector (its entries far below the largest
#: may underflow to zero).
_UNDERFLOW = 2.0**-1000


def _bits(x) -> int:
    """About log2 |x| of a rational (fmpq, int), within one; 0 for zero."""
    if not x:
        return 0
    if isinstance(x, int):
        return abs(x).bit_length()
    return abs(int(x.p)).bit_length() - int(x.q).bit_length()


def _poly_bits(x) -> int:
    """About log2 of the largest coefficient's magnitude of a non-zero fmpq_poly, within one: the
    bits of its numerator's largest coefficient (one call into FLINT) less its denominator's.
    ``n / D`` with ``2^(a-1) <= n < 2^a`` and ``2^(b-1) <= D < 2^b`` lies within a factor 2 of
    ``2^(a-b)`` either way, as the reduced coefficient's :func:`_bits` does.

    >>> _poly_bits(flint.fmpq_poly([flint.fmpq(3, 4), flint.fmpq(-100, 3), 7]))  # 100/3: about 2^5
    5
    """
    return x.numer().height_bits() - x.denom().bit_length()


def scale_exponent(bits) -> int:
    """The e of :data:`SCALE_BITS` for entries of about ``bits`` binary digits (0: no rescaling).

    >>> scale_exponent([3, 700]), scale_exponent([-600, -700]), scale_exponent([5, -900])
    (699, -601, 0)
    """
    bits = list(bits)
    if not bits:
        return 0
    top = max(bits)
    return top - 1 if top > SCALE_BITS or top < -SCALE_BITS else 0


def _times_power_of_two(x, e: int):
    """``x * 2^-e`` exactly (an fmpq, or an fmpq_poly)."""
    return x * flint.fmpq(1, 2**e) if e > 0 else x * 2 ** (-e)


class RationalDomain:
    """Q with flint.fmpq; directions keyed exactly by their canonical form (h divided by the
    absolute value of its first non-zero coordinate)."""

    m = 1
    exact_keys = True
    zero: Any = flint.fmpq(0)

    def convert(self, x):
        if isinstance(x, float):
            x = Fraction(x)
        if isinstance(x, FieldElement):
            x = x.rational()
        if isinstance(x, Fraction):
            return flint.fmpq(x.numerator, x.denominator)
        return flint.fmpq(int(x))

    def is_zero(self, x) -> bool:
        return x == 0

    def matvec(self, rows, h) -> list:
        return [self.dot(row, h) for row in rows]

    def dot(self, row, h):
        acc = self.zero
        for j, a in row:
            acc += a * h[j]
        return acc

    def sign(self, x) -> int:
        return (x > 0) - (x < 0)

    def canon(self, h) -> tuple:
        for x in h:
            if x != 0:
                if x == 1:
                    return tuple(h)
                scale = 1 / abs(x)
                return tuple(y * scale for y in h)
        return tuple(h)

    def key(self, h):
        # fmpq hashes through Fraction (slow); (numerator, denominator) fmpz pairs are fast
        return tuple((x.p, x.q) for x in self.canon(h))

    def parallel(self, a, b, floats=None) -> bool:
        return self.key(a) == self.key(b)

    def floats(self, h) -> tuple[np.ndarray, np.ndarray]:
        e = scale_exponent(_bits(x) for x in h if x)
        if e:  # a positive multiple of h within a float's range (SCALE_BITS)
            mid = np.array([float(_times_power_of_two(flint.fmpq(x), e)) for x in h])
            return mid, np.abs(mid) * EPS + _UNDERFLOW
        mid = np.array([float(x) for x in h])
        return mid, np.abs(mid) * EPS


class IntegerDomain(RationalDomain):
    """Integer transitions and start state: hidden vectors stay integer tuples (Python ints);
    directions keyed exactly by the primitive vector (divided by the gcd of the entries)."""

    zero = 0

    def convert(self, x):
        return int(x)

    def matvec(self, rows, h) -> list:
        return [sum(a * h[j] for j, a in row) for row in rows]

    def key(self, h):
        g = math.gcd(*h)
        return tuple(h) if g in (0, 1) else tuple(x // g for x in h)

    def floats(self, h) -> tuple[np.ndarray, np.ndarray]:
        e = scale_exponent(_bits(x) for x in h if x)
        if e:  # integers only grow: h / 2^e, each quotient rounded once by Python's true division
            mid = np.array([x / 2**e for x in h], dtype=np.float64)
            return mid, np.abs(mid) * EPS + _UNDERFLOW
        mid = np.array(h, dtype=np.float64)
        return mid, np.abs(mid) * EPS


class CyclotomicDomain:
    """Q(zeta_m) with reduced fmpq_poly; directions found by a float bucket, then confirmed
    exactly (:meth:`parallel`).  A bucket miss can only duplicate a direction (harmless for
    soundness: the stored set stays closed), never merge two different ones."""

    exact_keys = False

    def __init__(self, m: int):
        self.m = m
        self.field = CyclotomicField(m)
        self.mod = self.field.modulus
        self.zero: Any = flint.fmpq_poly([])
        self._zeta = self.field.zeta_ball(64)

    def convert(self, x):
        if isinstance(x, FieldElement):
            return x.embed(self.m).poly
        if isinstance(x, float):
            x = Fraction(x)
        if isinstance(x, Fraction):
            return flint.fmpq_poly([flint.fmpq(x.numerator, x.denominator)])
        return flint.fmpq_poly([int(x)])

    def is_zero(self, x) -> bool:
        return x.is_zero()

    def matvec(self, rows, h) -> list:
        out = []
        for row in rows:
            acc = self.zero
            for j, a in row:
                acc = acc + a * h[j]
            out.append(acc % self.mod if acc.degree() >= self.field.degree else acc)
        return out

    def dot(self, row, h):
        acc = self.zero
        for j, a in row:
            acc = acc + a * h[j]
        return acc % self.mod

    def sign(self, x) -> int:
        """Exact sign of a real element (entries of real weights stay real)."""
        return real_poly_sign(self.field, x)

    def key(self, h):
        """The float bucket of the direction of ``h`` (not exact: see :meth:`parallel`)."""
        return direction_bucket(self.floats(h)[0])

    def parallel(self, a, b, floats=None) -> bool:
        """a = lambda b for some lambda > 0, decided exactly.  ``floats``: optional enclosures
        ``((mid_a, rad_a), (mid_b, rad_b))`` of the two vectors, used to read signs cheaply."""
        for i, x in enumerate(a):  # noqa: B007 (i is read after the loop)
            if not x.is_zero():
                break
        else:
            return all(y.is_zero() for y in b)
        y = b[i]
        if y.is_zero() or self._sign_at(x, i, floats, 0) != self._sign_at(y, i, floats, 1):
            return False
        return all(j == i or ((x * b[j] - a[j] * y) % self.mod).is_zero() for j in range(len(a)))

    def _sign_at(self, x, i: int, floats, which: int) -> int:
        """The sign of the non-zero coordinate ``x`` (index ``i``), from its float enclosure
        when that excludes zero, else exactly."""
        if floats is not None:
            mid, rad = floats[which][0][i], floats[which][1][i]
            if abs(mid) > rad:
                return 1 if mid > 0 else -1
        return self.sign(x)

    def floats(self, h) -> tuple[np.ndarray, np.ndarray]:
        mid = np.empty(len(h))
        rad = np.zeros(len(h))  # every entry's radius is written below; rescaled, it starts at _UNDERFLOW
        e = scale_exponent(_poly_bits(x) for x in h if not x.is_zero())
        if e:  # a positive multiple of h within a float's range (SCALE_BITS)
            h = [_times_power_of_two(x, e) for x in h]
            rad += _UNDERFLOW
        for i, x in enumerate(h):
            if x.degree() <= 0:
                mid[i] = float(x.coeffs()[0]) if not x.is_zero() else 0.0
                rad[i] = (rad[i] if e else 0.0) + abs(mid[i]) * EPS
            else:
                b = x.numer()(self._zeta).real / x.denom()  # integer coefficients: FLINT evaluates them directly
                mid[i] = float(b.mid())
                rad[i] = (rad[i] if e else 0.0) + float(b.rad()) + abs(mid[i]) * EPS
        return mid, rad


class Terms(dict):
    """A sparse element of Q(zeta_m) for :class:`SparseCyclotomicDomain`: ``{k: fmpq}``, the
    non-zero coefficients of its polynomial reduced mod Phi_m (unique, so ``==`` is exact)."""

    __slots__ = ()

    def __neg__(self) -> "Terms":
        return Terms({k: -c for k, c in self.items()})

    def __add__(self, other: "Terms") -> "Terms":
        out = Terms(self)
        for k, c in other.items():
            v = out.get(k)
            if v is None:
                out[k] = c
            else:
                v = v + c
                if v:
                    out[k] = v
                else:
                    del out[k]
        return out

    def __sub__(self, other: "Terms") -> "Terms":
        return self + (-other)


def terms_poly(x: dict) -> flint.fmpq_poly:
    """The polynomial with the coefficients ``{k: c}``."""
    if not x:
        return flint.fmpq_poly([])
    coeffs = [0] * (max(x) + 1)
    for k, c in x.items():
        coeffs[k] = c
    return flint.fmpq_poly(coeffs)


def _entry(terms: tuple):
    return terms[0][0] if len(terms) == 1 and terms[0][1] == 1 else terms


#: SparseCyclotomicDomain serves Q(zeta_m) when phi(rad(m)) is at most this.
SPARSE_MAX_RADICAL_DEGREE = 32


def _radical(m: int) -> int:
    out, p, k = 1, 2, m
    while p * p <= k:
        if k % p == 0:
            out *= p
            while k % p == 0:
                k //= p
        p += 1
    return out * k if k > 1 else out


class SparseCyclotomicDomain(CyclotomicDomain):
    """Q(zeta_m) with sparse elements (:class:`Terms`), for m with a small radical part.

    Phi_m(x) = Phi_r(x^s) with r = rad(m), s = m / r, so the reduced basis is
    x^(i + s j) (i < s, j < phi(r)) and x^(i + s q) reduces to x^i (y^q mod Phi_r(y)), y = x^s:
    a product of sparse elements stays sparse (rotation entries (zeta^k + zeta^-k)/2 have a few
    terms).  Real parts are enclosed by sums of cos(2 pi k / m) with a rigorous error bound;
    signs the enclosure leaves open are decided exactly (:func:`real_poly_sign`)."""

    def __init__(self, m: int):
        super().__init__(m)
        r = _radical(m)
        self.s = m // r
        phi_r = flint.fmpz_poly.cyclotomic(r)
        self.zero = Terms()
        self._table = [
            tuple((self.s * j, int(c)) for j, c in enumerate((flint.fmpz_poly([0] * q + [1]) % phi_r).coeffs()) if c)
            for q in range(r)
        ]
        # x^k (k < 2m) reduced: x^(k mod s) (y^q mod Phi_r(y)), q = (k mod m) // s
        # (an int when it is the single monomial x^e, else ((e, t), ...))
        self._reduce = [_entry(tuple((k % m % self.s + off, t) for off, t in self._table[k % m // self.s]))
                        for k in range(2 * m)]
        old = flint.ctx.prec
        flint.ctx.prec = 128
        try:  # cos(2 pi k / m) to within 2^-53 (mid rounded to a float)
            self._cos = [float((flint.arb(2 * k) / m).cos_pi().mid()) for k in range(m)]
        finally:
            flint.ctx.prec = old

    @staticmethod
    def suits(m: int) -> bool:
        """True when Q(zeta_m) is worth sparse elements (phi(rad(m)) small, m > 2)."""
        r = _radical(m)
        return m > 2 and flint.fmpz_poly.cyclotomic(r).degree() <= SPARSE_MAX_RADICAL_DEGREE

    def convert(self, x):
        if isinstance(x, FieldElement):
            return Terms(x.embed(self.m).terms())
        if isinstance(x, flint.fmpq):
            return Terms({0: x}) if x else Terms()
        q = flint.fmpq(x.numerator, x.denominator) if isinstance(x, Fraction) else None
        if isinstance(x, float):
            f = Fraction(x)
            q = flint.fmpq(f.numerator, f.denominator)
        if q is None:
            q = flint.fmpq(int(x))
        return Terms({0: q}) if q else Terms()

    def is_zero(self, x) -> bool:
        return not x

    def constant(self, x) -> Terms:
        """``x`` as a multiplicand of :meth:`mul` with the fewest terms: each group
        ``x^i p(y)`` (i < s) that is ``c x^i y^q`` reduced becomes the one term ``c x^(i + s q)``
        (``(zeta^k + zeta^-k) / 2`` has two terms, not up to 2 phi(r)).  Not unique: only for
        weight matrices and readout rows, never for hidden vectors."""
        groups: dict = {}
        for k, c in self.convert(x).items():
            groups.setdefault(k % self.s, {})[k // self.s] = c
        out = Terms()
        for i, p in groups.items():
            out.update((len(p) > 1 and self._monomial(i, p)) or {i + self.s * j: c for j, c in p.items()})
        return out

    def _monomial(self, i: int, p: dict) -> dict | None:
        for q, row in enumerate(self._table):
            if len(row) == len(p) and all(off // self.s in p for off, _ in row):
                off, t = row[0]
                c = p[off // self.s] / t
                if all(p[o // self.s] == c * u for o, u in row):
                    return {i + self.s * q: c}
        return None

    def mul(self, a, b) -> Terms:
        """The product of two sparse elements (``a`` may be a :meth:`constant`), reduced."""
        return self.dot(((0, a),), (b,))

    def dot(self, row, h) -> Terms:
        """sum_j a_j h[j] over ``row = ((j, a_j), ...)``, accumulated in one dictionary."""
        reduce = self._reduce
        acc: dict = {}
        get = acc.get
        for col, a in row:
            b = h[col]
            for i, x in a.items():
                for j, y in b.items():
                    c = x * y
                    red = reduce[i + j]
                    if red.__class__ is int:  # x^(i+j) reduces to one monomial x^red
                        v = get(red)
                        acc[red] = c if v is None else v + c
                        continue
                    for k, t in red:
                        v = get(k)
                        c2 = c if t == 1 else c * t
                        acc[k] = c2 if v is None else v + c2
        return Terms({k: c for k, c in acc.items() if c})

    def matvec(self, rows, h) -> list:
        return [self.dot(row, h) for row in rows]

    def to_poly(self, x) -> flint.fmpq_poly:
        return terms_poly(x)

    def to_element(self, x):
        """``x`` as an int, Fraction or :class:`FieldElement` (its terms cached)."""
        if not x:
            return 0
        if len(x) == 1 and 0 in x:
            c = x[0]
            return int(c.p) if c.q == 1 else Fraction(int(c.p), int(c.q))
        return FieldElement.from_terms(self.field, x)

    def enclose(self, x) -> tuple[float, float]:
        """``(mid, rad)`` with ``|Re x - mid| <= rad``: every float rounding (coefficient, table
        entry, product, sum) is below 2^-52 relative, so ``(n + 4) 2^-50 sum |c_k|`` bounds it."""
        if not x:
            return 0.0, 0.0
        cos = self._cos
        mid = mag = 0.0
        for k, c in x.items():
            f = float(c)
            mid += f * cos[k]
            mag += abs(f)
        rad = mag * (len(x) + 4) * EPS + 1e-300
        if not (math.isfinite(mid) and math.isfinite(rad)):
            return 0.0, math.inf
        return mid, rad

    def sign(self, x) -> int:
        mid, rad = self.enclose(x)
        if abs(mid) > rad:
            return 1 if mid > 0 else -1
        return real_poly_sign(self.field, self.to_poly(x) % self.mod)

    def parallel(self, a, b, floats=None) -> bool:
        if list(a) == list(b):  # reduced terms are unique: equal vectors, lambda = 1
            return True
        for i, x in enumerate(a):  # noqa: B007 (i is read after the loop)
            if x:
                break
        else:
            return not any(b)
        y = b[i]
        if not y or self._sign_at(x, i, floats, 0) != self._sign_at(y, i, floats, 1):
            return False
        return all(j == i or self.mul(x, b[j]) == self.mul(a[j], y) for j in range(len(a)))

    def floats(self, h) -> tuple[np.ndarray, np.ndarray]:
        e = scale_exponent(max(_bits(c) for c in x.values()) for x in h if x)
        if e:  # a positive multiple of h within a float's range (SCALE_BITS)
            h = [Terms({k: _times_power_of_two(c, e) for k, c in x.items()}) for x in h]
        pairs = [self.enclose(x) for x in h]
        rad = np.array([p[1] for p in pairs])
        return np.array([p[0] for p in pairs]), rad + _UNDERFLOW if e else rad


def direction_bucket(mid: np.ndarray):
    """The rounded float direction of a vector (``None`` for the zero vector)."""
    norm = float(np.sqrt(mid @ mid))
    return tuple(np.round(mid * (1e7 / norm)).astype(np.int64).tolist()) if norm > 0 else None


def choose_domain(weights) -> Domain:
    """The domain a proof of ``weights`` runs in: Q(zeta_m) for cyclotomic entries, Z when the
    transitions and start state are integers, else Q (floats as the binary fractions they are)."""
    if not weights.exact:
        return RationalDomain()
    if all(isinstance(x, int) for arr in (weights.A, weights.h0) for x in arr.flat) and not any(
        isinstance(x, FieldElement) for x in weights.readout.flat
    ):
        return IntegerDomain()  # (checked before the conductor, which is 1 here)
    m = weights.conductor
    if m > 1 and SparseCyclotomicDomain.suits(m):
        return SparseCyclotomicDomain(m)
    return CyclotomicDomain(m) if m > 1 else RationalDomain()

"""Exact arithmetic in cyclotomic fields Q(zeta_m), fast through python-flint.

An element of Q(zeta_m) (zeta_m = exp(2 pi i / m)) is stored as a rational polynomial of degree
below phi(m), reduced modulo the cyclotomic polynomial Phi_m.  Because Phi_m is the minimal
polynomial of zeta_m, that reduced polynomial is *unique*: equality and zero-ness are decided
exactly by comparing coefficients, never by ``simplify``.  The polynomial arithmetic is
python-flint's ``fmpq_poly`` (C, FLINT).

Signs of real elements are decided rigorously: zero-ness exactly, then ball arithmetic
(``flint.acb``) at increasing precision until the ball excludes zero.  A non-zero algebraic number
has a ball that eventually excludes zero, so the refinement terminates.

Elements of different fields combine in Q(zeta_lcm): zeta_a = zeta_L^(L/a).

Examples
--------
>>> K = CyclotomicField(7)
>>> z = K.zeta()
>>> z ** 7 == 1
True
>>> c, s = cos2pi(1, 7), sin2pi(1, 7)     # cos, sin of 2 pi / 7 live in Q(zeta_28)
>>> c * c + s * s == 1
True
>>> round(float(c), 6), (c - Fraction(1, 2)).sign()
(0.62349, 1)
>>> from fractions import Fraction
>>> CyclotomicField(6).cos(1, 6) == Fraction(1, 2)
True
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import lru_cache, cache
from numbers import Integral, Rational

import flint

from bilinear.errors import FieldError

__all__ = [
    "CyclotomicField",
    "FieldElement",
    "cos2pi",
    "sin2pi",
    "exact_sign",
    "real_poly_sign",
    "to_fmpq",
    "is_exact_scalar",
    "MAX_CONDUCTOR",
]

#: Largest conductor m accepted (phi(m) coefficients per element).
MAX_CONDUCTOR = 100_000

#: Precisions (bits) tried, in order, when deciding a sign with ball arithmetic.
_PRECISIONS = (64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384)

_HASH_SCALE = 2**32  # grid of the hash of non-rational elements (see FieldElement.__hash__)


def _lcm(a: int, b: int) -> int:
    return a * b // math.gcd(a, b)


def to_fmpq(value) -> flint.fmpq:
    """An int, Fraction or fmpq as ``flint.fmpq`` (exact); anything else raises FieldError.

    >>> to_fmpq(Fraction(3, 4))
    3/4
    """
    if isinstance(value, flint.fmpq):
        return value
    if isinstance(value, bool):
        raise FieldError(f"{value!r} is a boolean, not a number")
    if isinstance(value, (flint.fmpz, Integral)):
        return flint.fmpq(int(value))
    if isinstance(value, Rational):
        return flint.fmpq(int(value.numerator), int(value.denominator))
    raise FieldError(f"{value!r} ({type(value).__name__}) is not an exact rational")


def is_exact_scalar(value) -> bool:
    """True for ints, Fractions, fmpq and field elements (not floats, not booleans)."""
    if isinstance(value, bool):
        return False
    return isinstance(value, (FieldElement, flint.fmpq, flint.fmpz, Integral, Rational))


class CyclotomicField:
    """The cyclotomic field Q(zeta_m); instances are cached, one per m.

    >>> K = CyclotomicField(12)
    >>> K.degree, CyclotomicField(12) is K
    (4, True)
    """

    _cache: dict[int, "CyclotomicField"] = {}
    m: int
    modulus: flint.fmpq_poly
    degree: int

    def __new__(cls, m: int):
        if isinstance(m, bool) or not isinstance(m, Integral):
            raise FieldError(f"cyclotomic conductor {m!r} is not an integer")
        m = int(m)
        if not 1 <= m <= MAX_CONDUCTOR:
            raise FieldError(f"cyclotomic conductor m={m} must be in 1..{MAX_CONDUCTOR}")
        field = cls._cache.get(m)
        if field is None:
            field = super().__new__(cls)
            field.m = m
            field.modulus = flint.fmpq_poly(flint.fmpz_poly.cyclotomic(m))
            field.degree = field.modulus.degree()
            cls._cache[m] = field
        return field

    def __repr__(self) -> str:
        return f"CyclotomicField({self.m})"

    def __reduce__(self):
        return (CyclotomicField, (self.m,))

    # --- construction ------------------------------------------------------------------
    def __call__(self, value) -> "FieldElement":
        """``value`` (int, Fraction, or an element of a subfield) as an element of this field."""
        if isinstance(value, FieldElement):
            if self.m % value.field.m:
                raise FieldError(f"{value!r} is not in Q(zeta_{self.m})")
            return value.embed(self.m)
        return FieldElement(self, flint.fmpq_poly([to_fmpq(value)]))

    def element(self, coeffs) -> "FieldElement":
        """The element sum_k coeffs[k] zeta^k (coefficients exact rationals)."""
        return FieldElement(self, flint.fmpq_poly([to_fmpq(c) for c in coeffs]))

    def zeta(self, k: int = 1) -> "FieldElement":
        """zeta_m^k."""
        k %= self.m
        coeffs = [0] * k + [1]
        return FieldElement(self, flint.fmpq_poly(coeffs))

    def cos(self, k: int, n: int) -> "FieldElement":
        """cos(2 pi k / n) as an element of this field (needs n | m)."""
        if n <= 0 or self.m % n:
            raise FieldError(f"cos(2 pi {k}/{n}) is not in Q(zeta_{self.m}) (need {n} | {self.m})")
        step = self.m // n
        out = (self.zeta(k * step) + self.zeta(-k * step)) * Fraction(1, 2)
        out._real = True  # zeta^j + zeta^-j is real
        return out

    def sin(self, k: int, n: int) -> "FieldElement":
        """sin(2 pi k / n) = cos(2 pi (m/4 - k m/n) / m) (needs 4 | m and n | m)."""
        if n <= 0 or self.m % n or self.m % 4:
            raise FieldError(f"sin(2 pi {k}/{n}) needs 4 | m and {n} | m, m = {self.m}")
        j = self.m // 4 - k * (self.m // n)
        out = (self.zeta(j) + self.zeta(-j)) * Fraction(1, 2)
        out._real = True  # zeta^j + zeta^-j is real
        return out

    # --- numerics ------------------------------------------------------------------------
    def zeta_ball(self, prec: int) -> flint.acb:
        return _zeta_ball(self.m, prec)


@lru_cache(maxsize=4096)
def _zeta_ball(m: int, prec: int) -> flint.acb:
    old = flint.ctx.prec
    flint.ctx.prec = prec
    try:
        return flint.acb(flint.arb(2) / m).exp_pi_i()
    finally:
        flint.ctx.prec = old


def cos2pi(k: int, n: int) -> "FieldElement | Fraction":
    """cos(2 pi k / n) exactly: a Fraction when rational, else an element of Q(zeta_lcm(4, n)).

    >>> cos2pi(1, 4), cos2pi(1, 3)
    (Fraction(0, 1), Fraction(-1, 2))
    >>> float(cos2pi(1, 8)) ** 2
    0.5000000000000001
    """
    field = CyclotomicField(n if n % 4 == 0 else _lcm(4, n))
    return field.cos(k, n).simplify()


def sin2pi(k: int, n: int) -> "FieldElement | Fraction":
    """sin(2 pi k / n) exactly (a Fraction when rational).

    >>> sin2pi(1, 4), sin2pi(1, 12)
    (Fraction(1, 1), Fraction(1, 2))
    """
    field = CyclotomicField(_lcm(4, n))
    return field.sin(k, n).simplify()


class FieldElement:
    """An element of Q(zeta_m): a reduced rational polynomial in zeta_m.

    Supports ``+ - * /`` and ``**`` with other elements, ints and Fractions; ``==`` and
    ``hash`` (rational elements hash as their Fraction); ``conjugate()``; ``float()`` and
    ``complex()``; ``sign()`` (exact, for real elements).

    >>> K = CyclotomicField(8)
    >>> r = K.zeta() + K.zeta(-1)          # sqrt(2)
    >>> r * r == 2, r.sign(), (r - Fraction(141, 100)).sign()
    (True, 1, 1)
    """

    __slots__ = ("field", "_poly", "_hash", "_real", "_terms")
    field: CyclotomicField
    _poly: flint.fmpq_poly | None
    _hash: int | None
    _real: bool | None
    _terms: dict | None

    def __init__(self, field: CyclotomicField, poly: flint.fmpq_poly | None, reduced: bool = False):
        self.field = field
        self._poly = poly if reduced or poly is None else poly % field.modulus
        self._hash = None
        self._real = None
        self._terms = None  # cache of the non-zero coefficients {k: fmpq} (see terms())

    @classmethod
    def from_terms(cls, field: CyclotomicField, terms: dict, real: bool | None = None) -> "FieldElement":
        """The element sum_k terms[k] zeta^k, ``terms`` the non-zero coefficients (fmpq) of a
        reduced polynomial; the polynomial itself is built only when first needed."""
        out = cls(field, None)
        out._terms = dict(terms)
        out._real = real
        return out

    @property
    def poly(self) -> flint.fmpq_poly:
        """The polynomial in zeta_m, reduced mod Phi_m (so unique)."""
        if self._poly is None:
            terms = self._terms or {}
            coeffs: list = [0] * (max(terms) + 1 if terms else 0)
            for k, c in terms.items():
                coeffs[k] = c
            self._poly = flint.fmpq_poly(coeffs)
        return self._poly

    def terms(self) -> dict:
        """The non-zero coefficients of the reduced polynomial as ``{k: fmpq}`` (cached)."""
        if self._terms is None:
            self._terms = {k: c for k, c in enumerate(self.poly.coeffs()) if c}
        return self._terms

    # --- helpers -------------------------------------------------------------------------
    @property
    def m(self) -> int:
        return self.field.m

    def coeffs(self) -> list[Fraction]:
        """Coefficients of 1, zeta, zeta^2, ... as Fractions (trailing zeros dropped)."""
        return [Fraction(int(c.p), int(c.q)) for c in self.poly.coeffs()]

    def is_rational(self) -> bool:
        if self._poly is None:
            return all(k == 0 for k in self._terms or ())
        return self.poly.degree() <= 0

    def rational(self) -> Fraction:
        """The element as a Fraction; FieldError if it is not rational."""
        if not self.is_rational():
            raise FieldError(f"{self!r} is not rational")
        cs = self.poly.coeffs()
        return Fraction(int(cs[0].p), int(cs[0].q)) if cs else Fraction(0)

    def simplify(self) -> "FieldElement | Fraction":
        """A Fraction when the element is rational, else the element itself."""
        return self.rational() if self.is_rational() else self

    def embed(self, m: int) -> "FieldElement":
        """The same number as an element of Q(zeta_m) (needs self.m | m)."""
        if m == self.field.m:
            return self
        if m % self.field.m:
            raise FieldError(f"Q(zeta_{self.field.m}) is not a subfield of Q(zeta_{m})")
        field = CyclotomicField(m)  # the conductor limit, before the coefficient list is spread
        step = m // self.field.m
        cs = self.poly.coeffs()
        spread: list = [0] * ((len(cs) - 1) * step + 1) if cs else []
        for i, c in enumerate(cs):
            spread[i * step] = c
        return _with_reality(FieldElement(field, flint.fmpq_poly(spread)), self, self)

    def _coerce(self, other) -> tuple["FieldElement", "FieldElement"] | None:
        if isinstance(other, FieldElement):
            if other.field is self.field:
                return self, other
            m = _lcm(self.field.m, other.field.m)
            if m > MAX_CONDUCTOR:
                raise FieldError(f"elements of Q(zeta_{self.field.m}) and Q(zeta_{other.field.m}) combine only in "
                                 f"Q(zeta_{m}), over the conductor limit MAX_CONDUCTOR = {MAX_CONDUCTOR:,}")
            return self.embed(m), other.embed(m)
        if is_exact_scalar(other):
            return self, FieldElement(self.field, flint.fmpq_poly([to_fmpq(other)]), True)
        return None

    # --- arithmetic ----------------------------------------------------------------------
    def __add__(self, other):
        pair = self._coerce(other)
        if pair is None:
            return NotImplemented
        a, b = pair
        return _with_reality(FieldElement(a.field, a.poly + b.poly, True), a, b)

    __radd__ = __add__

    def __sub__(self, other):
        pair = self._coerce(other)
        if pair is None:
            return NotImplemented
        a, b = pair
        return _with_reality(FieldElement(a.field, a.poly - b.poly, True), a, b)

    def __rsub__(self, other):
        pair = self._coerce(other)
        if pair is None:
            return NotImplemented
        a, b = pair
        return _with_reality(FieldElement(a.field, b.poly - a.poly, True), a, b)

    def __neg__(self):
        return _with_reality(FieldElement(self.field, -self.poly, True), self, self)

    def __pos__(self):
        return self

    def __mul__(self, other):
        pair = self._coerce(other)
        if pair is None:
            return NotImplemented
        a, b = pair
        if b.poly.degree() <= 0 or a.poly.degree() <= 0:
            return _with_reality(FieldElement(a.field, a.poly * b.poly, True), a, b)
        return _with_reality(FieldElement(a.field, a.poly * b.poly), a, b)

    __rmul__ = __mul__

    def inverse(self) -> "FieldElement":
        """1 / self (extended Euclid modulo Phi_m); FieldError for zero."""
        if self.poly.is_zero():
            raise FieldError("division by zero in a cyclotomic field")
        if self.poly.degree() == 0:
            return FieldElement(self.field, flint.fmpq_poly([1 / self.poly.coeffs()[0]]), True)
        g, s, _ = self.poly.xgcd(self.field.modulus)
        # g is a non-zero constant because Phi_m is irreducible
        return FieldElement(self.field, s * (1 / g.coeffs()[0]))

    def __truediv__(self, other):
        pair = self._coerce(other)
        if pair is None:
            return NotImplemented
        a, b = pair
        return a * b.inverse()

    def __rtruediv__(self, other):
        pair = self._coerce(other)
        if pair is None:
            return NotImplemented
        a, b = pair
        return b * a.inverse()

    def __pow__(self, n: int):
        if isinstance(n, bool) or not isinstance(n, Integral):
            return NotImplemented
        base, n = (self, int(n)) if n >= 0 else (self.inverse(), -int(n))
        result = FieldElement(self.field, flint.fmpq_poly([1]), True)
        while n:
            if n & 1:
                result = result * base
            base = base * base
            n >>= 1
        return result

    # --- comparison ----------------------------------------------------------------------
    def __eq__(self, other) -> bool:
        pair = self._coerce(other)
        if pair is None:
            if isinstance(other, float):
                return self.is_rational() and float(self.rational()) == other
            return NotImplemented
        a, b = pair
        if a._poly is None or b._poly is None:  # sparse elements: compare their terms
            return a.terms() == b.terms()
        return a.poly == b.poly

    def __ne__(self, other):
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    def normalized_trace(self) -> Fraction:
        """Tr(x) / [Q(zeta_m) : Q]: the mean of the Galois conjugates, the same in every
        cyclotomic field containing x (Ramanujan sums: zeta^k has mean mu(n)/phi(n), n = m/gcd(k, m)).

        >>> CyclotomicField(5).zeta().normalized_trace(), cos2pi(1, 5).normalized_trace()
        (Fraction(-1, 4), Fraction(-1, 4))
        """
        m = self.field.m
        total = Fraction(0)
        for k, c in enumerate(self.coeffs()):
            if c:
                n = m // math.gcd(k, m)
                total += c * Fraction(_mobius(n), _totient(n))
        return total

    def __hash__(self) -> int:
        # Consistent with __eq__ across fields (equal elements of Q(zeta_a) and Q(zeta_b) are the
        # same complex number) and with Fraction for rational elements.  Non-rational elements
        # hash the exact floor of 2^32 Re(x): Galois conjugates (the orbit points of a group)
        # have different real parts, so dictionaries of them stay linear.
        if self._hash is None:
            if self.is_rational():
                self._hash = hash(self.rational())
            else:
                floor = self._real_floor()
                if floor is None:  # pragma: no cover - |Re x| beyond 2^30
                    floor = (self.normalized_trace(), (self * self).normalized_trace())
                self._hash = hash(("Q(zeta)", floor))
        return self._hash

    def _real_floor(self):
        """floor(2^32 Re(x)), exactly: balls until one lies between two integers, else an exact
        comparison of the real part with the nearest integers; None when Re(x) is too large
        for the grid (the caller then hashes Galois invariants)."""
        n = None
        for prec in _PRECISIONS[:3]:
            re = self.ball(prec).real * _HASH_SCALE
            n = re.mid().floor().unique_fmpz()
            if n is None:
                continue
            n = int(n)
            if re > n and re < n + 1:
                return n
        if n is None:
            return None
        scaled_real = (self + self.conjugate()) * (_HASH_SCALE // 2)  # 2^32 Re(x), exact
        for cand in (n + 1, n, n - 1):
            if (scaled_real - cand).sign() >= 0:
                return cand
        return None

    def __bool__(self) -> bool:
        return not self.poly.is_zero()

    def _order(self, other) -> int:
        pair = self._coerce(other)
        if pair is None:
            raise TypeError(f"cannot compare a field element with {type(other).__name__}")
        a, b = pair
        return (a - b).sign()

    def __lt__(self, other):
        return self._order(other) < 0

    def __le__(self, other):
        return self._order(other) <= 0

    def __gt__(self, other):
        return self._order(other) > 0

    def __ge__(self, other):
        return self._order(other) >= 0

    # --- conjugation, reality, numerics ---------------------------------------------------
    def conjugate(self) -> "FieldElement":
        """Complex conjugate: zeta -> zeta^-1 = zeta^(m-1).

        With d = deg p, p(zeta^-1) = zeta^-d rev(p)(zeta) = zeta^(m-d) rev(p)(zeta).
        """
        cs = self.poly.coeffs()
        if len(cs) <= 1:
            return self
        d = len(cs) - 1
        return FieldElement(self.field, flint.fmpq_poly(cs[::-1]).left_shift(self.field.m - d))

    def is_real(self) -> bool:
        """True when the element equals its complex conjugate (cached)."""
        if self._real is None:
            self._real = self.poly.degree() <= 0 or self.conjugate() == self
        return self._real

    def __abs__(self):
        return -self if self.sign() < 0 else self

    def ball(self, prec: int = 64) -> flint.acb:
        """A complex ball containing the element, computed at ``prec`` bits."""
        old = flint.ctx.prec
        flint.ctx.prec = prec
        try:
            return flint.acb_poly(self.poly)(self.field.zeta_ball(prec))
        finally:
            flint.ctx.prec = old

    def __complex__(self) -> complex:
        b = self.ball(64)
        return complex(float(b.real.mid()), float(b.imag.mid()))

    def __float__(self) -> float:
        if not self.is_real():
            raise FieldError(f"{self!r} is not real; float() needs a real element")
        return float(self.ball(64).real.mid())

    def sign(self) -> int:
        """-1, 0 or 1, decided exactly (zero-ness) and rigorously (ball arithmetic).

        FieldError if the element is not real.
        """
        if self.poly.is_zero():
            return 0
        if self.poly.degree() == 0:
            c = self.poly.coeffs()[0]
            return 1 if c > 0 else -1
        if not self.is_real():
            raise FieldError(f"{self!r} is not real; only real elements have a sign")
        return real_poly_sign(self.field, self.poly)

    def __repr__(self) -> str:
        """``(1 - 1/2*z^4 + 1/2*z^10 in Q(z_28))`` with z = exp(2 pi i / m); rationals plainly."""
        if self.is_rational():
            return f"{self.rational()}"
        out = ""
        for i, c in enumerate(self.coeffs()):
            if c == 0:
                continue
            z = "" if i == 0 else ("z" if i == 1 else f"z^{i}")
            mag = abs(c)
            term = str(mag) if i == 0 else (z if mag == 1 else f"{mag}*{z}")
            if not out:
                out = ("-" if c < 0 else "") + term
            else:
                out += (" - " if c < 0 else " + ") + term
        return f"({out} in Q(z_{self.field.m}))"

    def to_json(self) -> dict:
        """``{"field": "cyclotomic:M", "coeffs": ["p/q", ...]}``."""
        return {"field": f"cyclotomic:{self.field.m}", "coeffs": [str(c) for c in self.coeffs()]}


def _with_reality(out: FieldElement, a: FieldElement, b: FieldElement) -> FieldElement:
    """Mark ``out`` real when both operands are known to be real (the reals are a subring), so
    that :meth:`FieldElement.is_real` of sums and products of real elements costs nothing."""
    if (a._real or a.poly.degree() <= 0) and (b._real or b.poly.degree() <= 0):
        out._real = True
    return out


@cache
def _totient(n: int) -> int:
    result, p, k = n, 2, n
    while p * p <= k:
        if k % p == 0:
            while k % p == 0:
                k //= p
            result -= result // p
        p += 1
    if k > 1:
        result -= result // k
    return result


@cache
def _mobius(n: int) -> int:
    sign, p, k = 1, 2, n
    while p * p <= k:
        if k % p == 0:
            k //= p
            if k % p == 0:
                return 0
            sign = -sign
        p += 1
    return -sign if k > 1 else sign


def real_poly_sign(field: CyclotomicField, poly: flint.fmpq_poly) -> int:
    """The sign of the real element ``poly(zeta_m)`` (``poly`` reduced; reality not checked):
    exact zero test, then balls at growing precision until one excludes zero (a non-zero
    algebraic number has such a ball, so this ends).  Shared by :meth:`FieldElement.sign` and
    the prover's cyclotomic domain."""
    if poly.is_zero():
        return 0
    if poly.degree() == 0:
        return 1 if poly.coeffs()[0] > 0 else -1
    for prec in _PRECISIONS:
        old = flint.ctx.prec
        flint.ctx.prec = prec
        try:
            re = flint.acb_poly(poly)(field.zeta_ball(prec)).real
        finally:
            flint.ctx.prec = old
        if re > 0:
            return 1
        if re < 0:
            return -1
    raise FieldError(f"could not decide the sign of {poly} at {_PRECISIONS[-1]} bits")  # pragma: no cover


def exact_sign(value) -> int:
    """The sign of an exact real scalar (int, Fraction, fmpq or real field element).

    >>> exact_sign(Fraction(-1, 3)), exact_sign(0), exact_sign(cos2pi(1, 5))
    (-1, 0, 1)
    """
    if isinstance(value, FieldElement):
        return value.sign()
    q = to_fmpq(value)
    return (q > 0) - (q < 0)

"""Weights of a bilinear RNN: transition matrices, start state and readout, tied to a variant.

A :class:`Weights` value holds ``A`` (symbols, hidden, hidden), ``h0`` (hidden,) and a bias-free
``readout`` (classes, hidden).  The network reads a word ``w = a_1 ... a_T`` as
``h_T = A[a_T] ... A[a_1] h0`` and predicts ``argmax_c (readout @ h_T)[c]``.

Entries are either **float** (numpy float64; from training) or **exact** (numpy object arrays of
``int``, ``fractions.Fraction`` or real :class:`~bilinear.constructions.field.FieldElement`).
Every value is checked at construction: shapes, finiteness, and conformance to the variant
(exactly for exact weights, with ``atol = 1e-6 * max|A|`` for float weights).

Variants (spec strings, see :func:`parse_variant`)::

    full            dense hidden x hidden
    factorized:R    A[s] = U diag(C[s]) W^T, U and W (hidden, R), C (symbols, R)
    block:B         block-diagonal with B x B blocks (B divides hidden)
    rotation2d      2x2 blocks [[a, -b], [b, a]] (scaled rotations; a complex diagonal)
    diagonal        real diagonal
    positive        diagonal with strictly positive entries

File format (``save``/``load``): one JSON object, UTF-8, no pickle::

    {"format": "bilinear.weights", "version": 1,
     "variant": "block:2", "exact": true,
     "shape": {"symbols": S, "hidden": D, "classes": C},
     "A": [[[e, ...], ...], ...], "h0": [e, ...], "readout": [[e, ...], ...],
     "factors": null | {"U": [[e]], "C": [[e]], "W": [[e]]},
     "checksum": "sha256:..."}

An entry ``e`` is a JSON number (float weights, or an integer in exact weights), a string
``"p/q"`` (an exact Fraction) or ``{"field": "cyclotomic:M", "coeffs": ["p/q", ...]}`` (the
element sum_k coeffs[k] zeta_M^k).  ``checksum`` (optional when writing by hand) is the SHA-256
of the canonical JSON (sorted keys, no spaces) of every other key; a file whose checksum does not
match, whose shapes disagree, which has unknown keys or non-finite numbers is refused with a
:class:`~bilinear.errors.WeightsError` naming the item.

Examples
--------
>>> w = Weights("diagonal", A=[[[-1]], [[1]]], h0=[1], readout=[[1], [-1]])
>>> w.exact, w.dim, w.n_symbols, w.n_classes
(True, 1, 2, 2)
>>> w.variant
'diagonal'
>>> Weights("diagonal", A=[[[0, 1], [1, 0]]], h0=[1, 0], readout=[[1, 0]])
Traceback (most recent call last):
...
bilinear.errors.ConformanceError: variant 'diagonal': A[0][0, 1] = 1 is off the diagonal
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from dataclasses import dataclass
from fractions import Fraction
from numbers import Integral, Rational, Real
from pathlib import Path

import numpy as np

from bilinear.errors import ConformanceError, FieldError, SpecError, WeightsError
from bilinear.fileio import atomic_write_text

from .field import CyclotomicField, FieldElement, exact_sign

__all__ = [
    "Variant",
    "VARIANT_KINDS",
    "parse_variant",
    "Weights",
    "FORMAT",
    "FORMAT_VERSION",
    "rank_decomposition",
]

FORMAT = "bilinear.weights"
FORMAT_VERSION = 1
#: Relative tolerance of the conformance check for float weights.
FLOAT_ATOL = 1e-6

#: Variant kinds, in the order tables list them; those with a parameter name it.
VARIANT_KINDS = {
    "full": None,
    "factorized": "R",
    "block": "B",
    "rotation2d": None,
    "diagonal": None,
    "positive": None,
}
_COMMUTING = frozenset({"rotation2d", "diagonal", "positive"})


@dataclass(frozen=True)
class Variant:
    """A parsed variant: ``kind`` and its integer parameter (``None`` when it has none).

    >>> v = parse_variant(" Factorized( 6 ) ")
    >>> v.kind, v.param, v.spec, v.commuting
    ('factorized', 6, 'factorized:6', False)
    """

    kind: str
    param: int | None = None

    @property
    def spec(self) -> str:
        """Canonical spec string, e.g. ``"block:2"``."""
        return self.kind if self.param is None else f"{self.kind}:{self.param}"

    @property
    def commuting(self) -> bool:
        """True when all transition matrices of the variant commute (diagonal-like)."""
        return self.kind in _COMMUTING

    def __str__(self) -> str:
        return self.spec


def parse_variant(spec: "str | Variant") -> Variant:
    """Parse a variant spec: ``full``, ``factorized:R``, ``block:B``, ``rotation2d``, ``diagonal``,
    ``positive`` (case-insensitive; ``factorized(R)`` also accepted).  SpecError otherwise.

    >>> parse_variant("block:2")
    Variant(kind='block', param=2)
    >>> parse_variant("block")
    Traceback (most recent call last):
    ...
    bilinear.errors.SpecError: variant 'block' needs a parameter B, e.g. 'block:2'
    """
    if isinstance(spec, Variant):
        return spec
    if not isinstance(spec, str) or not spec.strip():
        raise SpecError(f"empty or non-string variant {spec!r}")
    text = re.sub(r"\s+", "", spec).lower()
    match = re.fullmatch(r"([a-z0-9_]+)(?::([^:()]*)|\(([^()]*)\))?", text)
    if not match:
        raise SpecError(f"malformed variant {spec!r}")
    kind, arg = match.group(1), match.group(2) if match.group(2) is not None else match.group(3)
    if kind not in VARIANT_KINDS:
        raise SpecError(f"unknown variant {kind!r} in {spec!r} (known: {', '.join(VARIANT_KINDS)})")
    pname = VARIANT_KINDS[kind]
    if pname is None:
        if arg is not None:
            raise SpecError(f"variant {kind!r} takes no parameter, got {spec!r}")
        return Variant(kind)
    if arg is None or arg == "":
        raise SpecError(f"variant {kind!r} needs a parameter {pname}, e.g. '{kind}:2'")
    if not re.fullmatch(r"\+?\d+", arg):
        raise SpecError(f"parameter {pname} of variant {kind!r} must be a positive integer, got {arg!r}")
    value = int(arg)
    if value < 1:
        raise SpecError(f"parameter {pname} of variant {kind!r} must be >= 1, got {value}")
    return Variant(kind, value)


# ------------------------------------------------------------------------------------------
# entries
# ------------------------------------------------------------------------------------------
def _fmt(value) -> str:
    if isinstance(value, float):
        return repr(value)
    return str(value)


def _normalise_exact(value, where: str):
    """int / Fraction / real FieldElement, or WeightsError."""
    if isinstance(value, (bool, np.bool_)):
        raise WeightsError(f"{where} = {value!r} is a boolean, not a number")
    if isinstance(value, FieldElement):
        if not value.is_real():
            raise WeightsError(f"{where} = {value!r} is not real")
        return _simplify(value.rational()) if value.is_rational() else value
    if isinstance(value, (Integral, np.integer)):
        return int(value)
    if isinstance(value, Rational):
        return _simplify(Fraction(int(value.numerator), int(value.denominator)))
    try:  # flint.fmpq / fmpz
        import flint

        if isinstance(value, flint.fmpq):
            return _simplify(Fraction(int(value.p), int(value.q)))
        if isinstance(value, flint.fmpz):
            return int(value)
    except ImportError:  # pragma: no cover
        pass
    raise WeightsError(f"{where} = {value!r} ({type(value).__name__}) is not an exact real number")


def _index_name(name: str, index: tuple[int, ...]) -> str:
    if name == "A" and len(index) == 3:
        return f"A[{index[0]}][{index[1]}, {index[2]}]"
    return f"{name}[{', '.join(str(i) for i in index)}]"


def _to_array(value, name: str, ndim: int) -> np.ndarray:
    if hasattr(value, "detach") and hasattr(value, "cpu"):  # torch tensor
        value = value.detach().cpu().numpy()
    if isinstance(value, np.ndarray):
        array = value
    else:
        try:
            array = np.array(value, dtype=object)
        except (ValueError, TypeError) as exc:
            raise WeightsError(f"{name} is ragged or not an array: {exc}") from None
    if array.ndim != ndim or (array.dtype == object and any(isinstance(x, (list, tuple, np.ndarray)) for x in array.flat)):
        raise WeightsError(f"{name} must have {ndim} dimension(s), got shape {np.shape(array)}")
    if array.dtype.kind == "c" or (array.dtype == object and any(isinstance(x, complex) for x in array.flat)):
        raise WeightsError(f"{name} has complex entries; weights must be real")
    return array


def _is_float_array(array: np.ndarray) -> bool:
    if array.dtype.kind == "f":
        return True
    if array.dtype == object:
        return any(isinstance(x, (float, np.floating)) for x in array.flat)
    return False


def _as_float(array: np.ndarray, name: str) -> np.ndarray:
    if array.dtype.kind in "fiu":
        out = array.astype(np.float64)
    elif array.dtype.kind == "b":
        raise WeightsError(f"{name} holds booleans, not numbers")
    else:
        out = np.empty(array.shape, dtype=np.float64)
        for index, x in np.ndenumerate(array):
            where = _index_name(name, index)
            if isinstance(x, (bool, np.bool_)):
                raise WeightsError(f"{where} = {x!r} is a boolean, not a number")
            if isinstance(x, FieldElement):
                try:
                    out[index] = float(x)
                except FieldError as exc:
                    raise WeightsError(f"{where}: {exc}") from None
            elif isinstance(x, (Real, np.integer, np.floating)):
                out[index] = float(x)
            else:
                raise WeightsError(f"{where} = {x!r} ({type(x).__name__}) is not a real number")
    bad = np.argwhere(~np.isfinite(out))
    if bad.size:
        index = tuple(int(i) for i in bad[0])
        raise WeightsError(f"{_index_name(name, index)} = {float(out[index])!r} is not finite")
    out.setflags(write=False)
    return out


def _as_exact(array: np.ndarray, name: str) -> np.ndarray:
    if array.dtype.kind in "iu":  # numpy integers: Python ints, no per-entry checks needed
        out = array.astype(object)
        out.setflags(write=False)
        return out
    out = np.empty(array.shape, dtype=object)
    flat_in, flat_out = array.reshape(-1), out.reshape(-1)
    for i, x in enumerate(flat_in):
        if type(x) is int:
            flat_out[i] = x
            continue
        try:
            flat_out[i] = _normalise_exact(x, "")
        except WeightsError:
            index = np.unravel_index(i, array.shape)
            _normalise_exact(x, _index_name(name, tuple(int(j) for j in index)))  # raises, named
    out.setflags(write=False)
    return out


# ------------------------------------------------------------------------------------------
# exact linear algebra helpers
# ------------------------------------------------------------------------------------------
def _is_zero(x) -> bool:
    return x == 0


def rank_decomposition(M) -> tuple[np.ndarray, np.ndarray]:
    """Exact rank decomposition ``M = U @ W.T`` with ``U, W`` of shape (rows, r), r = rank.

    Gaussian elimination over the exact entries (ints, Fractions, field elements): U holds the
    pivot columns of M, W^T the non-zero rows of its reduced row echelon form.

    >>> U, W = rank_decomposition(np.array([[1, 2], [2, 4]], dtype=object))
    >>> U.shape, (U @ W.T).tolist()
    ((2, 1), [[1, 2], [2, 4]])
    """
    M = np.array(M, dtype=object)
    rows, cols = M.shape
    if rows and cols and not any(isinstance(x, FieldElement) for x in M.flat):
        return _rational_rank_decomposition(M)
    R = [[M[i, j] for j in range(cols)] for i in range(rows)]
    pivots: list[int] = []
    r = 0
    for j in range(cols):
        p = next((i for i in range(r, rows) if not _is_zero(R[i][j])), None)
        if p is None:
            continue
        R[r], R[p] = R[p], R[r]
        inv = Fraction(1) / R[r][j] if not isinstance(R[r][j], FieldElement) else R[r][j].inverse()
        R[r] = [x * inv for x in R[r]]
        for i in range(rows):
            if i != r and not _is_zero(R[i][j]):
                f = R[i][j]
                R[i] = [a - f * b for a, b in zip(R[i], R[r])]
        pivots.append(j)
        r += 1
        if r == rows:
            break
    U = np.empty((rows, r), dtype=object)
    W = np.empty((cols, r), dtype=object)
    for k, j in enumerate(pivots):
        for i in range(rows):
            U[i, k] = _simplify(M[i, j])
        for c in range(cols):
            W[c, k] = _simplify(R[k][c])
    return U, W


def _rational_rank_decomposition(M: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """rank_decomposition over Q with FLINT's reduced row echelon form (fast, exact)."""
    import flint

    rows, cols = M.shape
    fm = flint.fmpq_mat(rows, cols, [flint.fmpq(int(Fraction(x).numerator), int(Fraction(x).denominator)) for x in M.flat])
    rref, rank = fm.rref()
    pivots = []
    for r in range(rank):
        for c in range(cols):
            if rref[r, c] != 0:
                pivots.append(c)
                break
    U = np.empty((rows, rank), dtype=object)
    W = np.empty((cols, rank), dtype=object)
    for k, j in enumerate(pivots):
        for i in range(rows):
            U[i, k] = _simplify(M[i, j])
        for c in range(cols):
            q = rref[k, c]
            W[c, k] = _simplify(Fraction(int(q.p), int(q.q)))
    return U, W


def _simplify(x):
    if isinstance(x, FieldElement):
        return x.rational() if x.is_rational() else x
    if isinstance(x, Fraction) and x.denominator == 1:
        return int(x)
    return x


def _float_rank_decomposition(M: np.ndarray, tol: float) -> tuple[np.ndarray, np.ndarray]:
    u, s, vt = np.linalg.svd(M)
    r = int((s > tol).sum())
    return u[:, :r] * s[:r], vt[:r].T


# ------------------------------------------------------------------------------------------
# Weights
# ------------------------------------------------------------------------------------------
class Weights:
    """Weights of a bilinear RNN, frozen and validated.

    Parameters
    ----------
    variant:
        Variant spec string (see :func:`parse_variant`); stored in canonical form.
    A:
        Transition matrices, shape (symbols, hidden, hidden).
    h0:
        Start state, shape (hidden,).
    readout:
        Bias-free readout, shape (classes, hidden).
    factors:
        For ``factorized:R`` only: ``(U (hidden, R), C (symbols, R), W (hidden, R))`` with
        ``A[s] = U diag(C[s]) W^T``.  When omitted they are derived (exactly) when the stacked
        rank decompositions of the A[s] fit in R, or U = W = I when every A[s] is diagonal and
        R >= hidden; otherwise pass them.

    Raises WeightsError (shapes, types, non-finite entries) or ConformanceError (variant).

    >>> w = Weights("rotation2d", A=[[[0, -1], [1, 0]]], h0=[1, 0], readout=[[1, 0], [0, 1]])
    >>> w.to_float().A.dtype, w.float_arrays()[0].shape
    (dtype('float64'), (1, 2, 2))
    """

    __slots__ = ("variant", "A", "h0", "readout", "factors", "_variant", "_exact")

    def __init__(self, variant, A, h0, readout, factors=None):
        try:
            v = parse_variant(variant)
        except SpecError as exc:
            raise WeightsError(f"bad variant: {exc}") from None
        arrays = {
            "A": _to_array(A, "A", 3),
            "h0": _to_array(h0, "h0", 1),
            "readout": _to_array(readout, "readout", 2),
        }
        fac = None
        if factors is not None:
            if v.kind != "factorized":
                raise WeightsError(f"factors are only for factorized variants, not {v.spec!r}")
            if not isinstance(factors, (tuple, list)) or len(factors) != 3:
                raise WeightsError("factors must be a triple (U, C, W)")
            fac = {k: _to_array(f, k, 2) for k, f in zip("UCW", factors)}
            arrays.update(fac)
        exact = not any(_is_float_array(a) for a in arrays.values())
        conv = _as_exact if exact else _as_float
        arrays = {k: conv(a, k) for k, a in arrays.items()}
        Aa, h, r = arrays["A"], arrays["h0"], arrays["readout"]
        k, d1, d2 = Aa.shape
        if k == 0 or d1 == 0:
            raise WeightsError(f"A has shape {Aa.shape}: need at least one symbol and hidden >= 1")
        if d1 != d2:
            raise WeightsError(f"A must be square in its last two axes (symbols, hidden, hidden), got {Aa.shape}")
        if h.shape != (d1,):
            raise WeightsError(f"h0 has shape {h.shape}, expected ({d1},) to match A's hidden size")
        if r.ndim != 2 or r.shape[1] != d1 or r.shape[0] == 0:
            raise WeightsError(f"readout has shape {r.shape}, expected (classes >= 1, {d1})")
        setattr_ = object.__setattr__
        setattr_(self, "_variant", v)
        setattr_(self, "_exact", exact)
        setattr_(self, "variant", v.spec)
        setattr_(self, "A", Aa)
        setattr_(self, "h0", h)
        setattr_(self, "readout", r)
        if fac is not None:
            fac = tuple(arrays[key] for key in "UCW")
        setattr_(self, "factors", fac)
        self._check_conformance()

    def __setattr__(self, key, value):
        raise AttributeError(f"Weights is immutable (cannot set {key!r})")

    def __delattr__(self, key):
        raise AttributeError(f"Weights is immutable (cannot delete {key!r})")

    # --- basic facts ---------------------------------------------------------------------
    @property
    def exact(self) -> bool:
        """True when the entries are exact (int, Fraction, field elements)."""
        return self._exact

    @property
    def variant_info(self) -> Variant:
        """The parsed :class:`Variant`."""
        return self._variant

    @property
    def dim(self) -> int:
        """Hidden size d."""
        return int(self.A.shape[1])

    @property
    def n_symbols(self) -> int:
        return int(self.A.shape[0])

    @property
    def n_classes(self) -> int:
        return int(self.readout.shape[0])

    @property
    def conductor(self) -> int:
        """The m of the smallest cyclotomic field Q(zeta_m) holding every exact entry (1: Q).

        >>> from bilinear.constructions.field import cos2pi
        >>> Weights("full", [[[cos2pi(1, 5)]]], [1], [[1]]).conductor
        20
        """
        if not self._exact:
            raise WeightsError("float weights have no conductor")
        m = 1
        for arr in self._all_arrays():
            for x in arr.flat:
                if isinstance(x, FieldElement):
                    m = m * x.field.m // math.gcd(m, x.field.m)
        return m

    def _all_arrays(self):
        yield self.A
        yield self.h0
        yield self.readout
        if self.factors is not None:
            yield from self.factors

    def __repr__(self) -> str:
        kind = "exact" if self._exact else "float"
        return (
            f"Weights({self.variant!r}, {kind}, symbols={self.n_symbols}, hidden={self.dim}, "
            f"classes={self.n_classes})"
        )

    def __eq__(self, other) -> bool:
        if not isinstance(other, Weights):
            return NotImplemented
        if self.variant != other.variant or self._exact != other._exact:
            return False
        mine, theirs = list(self._all_arrays()), list(other._all_arrays())
        if len(mine) != len(theirs):
            return False
        for a, b in zip(mine, theirs):
            if a.shape != b.shape:
                return False
            if self._exact:
                if not all(x == y for x, y in zip(a.flat, b.flat)):
                    return False
            elif not np.array_equal(a, b):
                return False
        return True

    __hash__ = None  # arrays: not hashable

    # --- conversion ----------------------------------------------------------------------
    def to_float(self) -> "Weights":
        """The same weights with float64 entries (exact entries rounded)."""
        if not self._exact:
            return self
        fac = None
        if self.factors is not None:
            fac = tuple(_as_float(f, n) for f, n in zip(self.factors, "UCW"))
        return Weights(
            self.variant,
            _as_float(self.A, "A"),
            _as_float(self.h0, "h0"),
            _as_float(self.readout, "readout"),
            fac,
        )

    def float_arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(A (symbols, hidden, hidden), h0 (hidden,), readout (classes, hidden))`` as float64."""
        w = self.to_float()
        return w.A, w.h0, w.readout

    # --- conformance ---------------------------------------------------------------------
    def _tol(self) -> float:
        if self._exact:
            return 0.0
        scale = float(np.abs(self.A).max()) if self.A.size else 0.0
        return FLOAT_ATOL * max(scale, 1e-300)

    def _nonzero_mask(self, array: np.ndarray, tol: float) -> np.ndarray:
        if self._exact:
            return np.asarray(array != 0, dtype=bool)
        return np.abs(array) > tol

    def _zero(self, x, tol: float) -> bool:
        return x == 0 if self._exact else abs(x) <= tol

    def _check_conformance(self) -> None:
        v, A, d = self._variant, self.A, self.dim
        tol = self._tol()
        spec = v.spec

        def fail(s, i, j, why):
            raise ConformanceError(f"variant {spec!r}: A[{s}][{i}, {j}] = {_fmt(A[s, i, j])} {why}")

        if v.kind == "full":
            return
        nonzero = self._nonzero_mask(A, tol)  # (symbols, hidden, hidden) bool
        i_idx, j_idx = np.indices((d, d))

        def first(mask, why):
            bad = np.argwhere(mask)
            if bad.size:
                s, i, j = (int(x) for x in bad[0])
                fail(s, i, j, why)

        if v.kind == "block":
            B = v.param
            if d % B:
                raise ConformanceError(f"variant {spec!r}: block size {B} does not divide hidden size {d}")
            first(nonzero & (i_idx // B != j_idx // B)[None], f"is outside the {B}x{B} diagonal blocks")
            return
        if v.kind in ("diagonal", "positive"):
            first(nonzero & (i_idx != j_idx)[None], "is off the diagonal")
            if v.kind == "positive":
                for s in range(A.shape[0]):
                    for i in range(d):
                        x = A[s, i, i]
                        positive = exact_sign(x) > 0 if self._exact else x > 0
                        if not positive:
                            fail(s, i, i, "is not strictly positive")
            return
        if v.kind == "rotation2d":
            if d % 2:
                raise ConformanceError(f"variant {spec!r}: hidden size {d} is odd; rotation2d needs 2x2 blocks")
            first(nonzero & (i_idx // 2 != j_idx // 2)[None], "is outside the 2x2 rotation blocks")
            for s in range(A.shape[0]):
                for b in range(0, d, 2):
                    if not self._zero(A[s, b, b] - A[s, b + 1, b + 1], tol):
                        fail(s, b + 1, b + 1, f"differs from A[{s}][{b}, {b}] = {_fmt(A[s, b, b])} (not a scaled rotation)")
                    if not self._zero(A[s, b, b + 1] + A[s, b + 1, b], tol):
                        fail(s, b, b + 1, f"is not -A[{s}][{b + 1}, {b}] = {_fmt(-A[s, b + 1, b])} (not a scaled rotation)")
            return
        if v.kind == "factorized":
            self._check_factorized(tol)
            return
        raise ConformanceError(f"unknown variant {spec!r}")  # pragma: no cover - parse_variant guards

    def _check_factorized(self, tol: float) -> None:
        R, A, d, k = self._variant.param, self.A, self.dim, self.n_symbols
        spec = self._variant.spec
        if self.factors is None:
            object.__setattr__(self, "factors", self._derive_factors(R))
        U, C, W = self.factors
        for name, f, rows in (("U", U, d), ("C", C, k), ("W", W, d)):
            if f.shape != (rows, R):
                raise ConformanceError(f"variant {spec!r}: factor {name} has shape {f.shape}, expected ({rows}, {R})")
        for s in range(k):
            prod = (U * C[s][None, :]) @ W.T
            bad = np.argwhere(self._nonzero_mask(prod - A[s], tol))
            if bad.size:
                i, j = (int(x) for x in bad[0])
                if True:
                        raise ConformanceError(
                            f"variant {spec!r}: A[{s}][{i}, {j}] = {_fmt(A[s, i, j])} differs from "
                            f"(U diag(C[{s}]) W^T)[{i}, {j}] = {_fmt(prod[i, j])}"
                        )

    def _derive_factors(self, R: int):
        A, d, k = self.A, self.dim, self.n_symbols
        spec = self._variant.spec
        tol = self._tol()
        diag = not (self._nonzero_mask(A, tol) & ~np.eye(d, dtype=bool)[None]).any()
        zero = 0 if self._exact else 0.0
        one = 1 if self._exact else 1.0

        def padded(cols: list[np.ndarray], rows: int) -> np.ndarray:
            out = np.full((rows, R), zero, dtype=object if self._exact else np.float64)
            for c, col in enumerate(cols):
                out[:, c] = col
            return out

        if diag and R >= d:
            eye = [np.array([one if i == c else zero for i in range(d)], dtype=object if self._exact else np.float64) for c in range(d)]
            C = np.full((k, R), zero, dtype=object if self._exact else np.float64)
            for s in range(k):
                for i in range(d):
                    C[s, i] = A[s, i, i]
            return tuple(_freeze(x) for x in (padded(eye, d), C, padded(eye, d)))
        us, ws, owner = [], [], []
        for s in range(k):
            U, W = rank_decomposition(A[s]) if self._exact else _float_rank_decomposition(A[s], tol)
            for c in range(U.shape[1]):
                us.append(U[:, c])
                ws.append(W[:, c])
                owner.append(s)
        if len(us) > R:
            raise ConformanceError(
                f"variant {spec!r}: the transition matrices have ranks summing to {len(us)} > R = {R} "
                f"and are not all diagonal; pass factors (U, C, W) to show A[s] = U diag(C[s]) W^T"
            )
        C = np.full((k, R), zero, dtype=object if self._exact else np.float64)
        for c, s in enumerate(owner):
            C[s, c] = one
        return tuple(_freeze(x) for x in (padded(us, d), C, padded(ws, d)))

    # --- file format ---------------------------------------------------------------------
    def to_json(self) -> dict:
        """The JSON object of the file format (with checksum)."""
        enc = _encode_exact if self._exact else _encode_float
        payload = {
            "format": FORMAT,
            "version": FORMAT_VERSION,
            "variant": self.variant,
            "exact": self._exact,
            "shape": {"symbols": self.n_symbols, "hidden": self.dim, "classes": self.n_classes},
            "A": _tolist(self.A, enc),
            "h0": _tolist(self.h0, enc),
            "readout": _tolist(self.readout, enc),
            "factors": None
            if self.factors is None
            else {n: _tolist(f, enc) for n, f in zip("UCW", self.factors)},
        }
        payload["checksum"] = _checksum(payload)
        return payload

    @classmethod
    def from_json(cls, data, source: str = "weights") -> "Weights":
        """Rebuild from :meth:`to_json` output, refusing tampered or malformed data."""
        if not isinstance(data, dict):
            raise WeightsError(f"{source}: top level must be a JSON object")
        allowed = {"format", "version", "variant", "exact", "shape", "A", "h0", "readout", "factors", "checksum"}
        unknown = sorted(set(data) - allowed)
        if unknown:
            raise WeightsError(f"{source}: unknown key {unknown[0]!r}")
        for key in ("format", "version", "variant", "exact", "A", "h0", "readout"):
            if key not in data:
                raise WeightsError(f"{source}: missing key {key!r}")
        if data["format"] != FORMAT:
            raise WeightsError(f"{source}: format is {data['format']!r}, expected {FORMAT!r}")
        if data["version"] != FORMAT_VERSION:
            raise WeightsError(f"{source}: unsupported version {data['version']!r} (expected {FORMAT_VERSION})")
        if "checksum" in data:
            body = {k: v for k, v in data.items() if k != "checksum"}
            if data["checksum"] != _checksum(body):
                raise WeightsError(f"{source}: checksum mismatch (the file was modified after it was written)")
        exact = data["exact"]
        if not isinstance(exact, bool):
            raise WeightsError(f"{source}: 'exact' must be true or false, got {exact!r}")
        dec = _decode_exact if exact else _decode_float
        arrays = {}
        for key in ("A", "h0", "readout"):
            arrays[key] = _fromlist(data[key], dec, key, source)
        factors = data.get("factors")
        if factors is not None:
            if not isinstance(factors, dict) or set(factors) != set("UCW"):
                raise WeightsError(f"{source}: 'factors' must be null or an object with keys U, C, W")
            factors = tuple(_fromlist(factors[n], dec, n, source) for n in "UCW")
        try:
            w = cls(data["variant"], arrays["A"], arrays["h0"], arrays["readout"], factors)
        except WeightsError as exc:
            raise type(exc)(f"{source}: {exc}") from None
        if w._exact != exact and any(a.size for a in arrays.values()):
            raise WeightsError(f"{source}: 'exact' is {exact} but the entries say otherwise")
        shape = data.get("shape")
        if shape is not None:
            want = {"symbols": w.n_symbols, "hidden": w.dim, "classes": w.n_classes}
            if not isinstance(shape, dict) or set(shape) != set(want):
                raise WeightsError(f"{source}: 'shape' must have keys symbols, hidden, classes")
            for key, value in want.items():
                if shape[key] != value:
                    raise WeightsError(f"{source}: shape.{key} = {shape[key]!r} but the arrays have {value}")
        return w

    def save(self, path) -> Path:
        """Write the JSON file (atomically: a temporary file renamed into place)."""
        path = Path(path)
        text = json.dumps(self.to_json(), indent=1, allow_nan=False)
        path.parent.mkdir(parents=True, exist_ok=True)
        return atomic_write_text(path, text + "\n")

    @classmethod
    def load(cls, path) -> "Weights":
        """Read a weights file written by :meth:`save` (or by hand, in the documented format)."""
        path = Path(path)
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise WeightsError(f"cannot read weights file {str(path)!r}: {exc}") from None

        def no_constants(name):
            raise WeightsError(f"{path}: non-finite number {name} in weights file")

        try:
            data = json.loads(text, parse_constant=no_constants)
        except json.JSONDecodeError as exc:
            raise WeightsError(f"{path}: not valid JSON ({exc.msg} at line {exc.lineno})") from None
        return cls.from_json(data, source=str(path))


def _freeze(a: np.ndarray) -> np.ndarray:
    a = np.array(a, dtype=a.dtype, copy=True)
    a.setflags(write=False)
    return a


def _checksum(payload: dict) -> str:
    canon = json.dumps(payload, sort_keys=True, separators=(",", ":"), allow_nan=False)
    return "sha256:" + hashlib.sha256(canon.encode("utf-8")).hexdigest()


def _tolist(array: np.ndarray, enc):
    if array.ndim == 0:
        return enc(array[()])
    return [_tolist(a, enc) for a in array] if array.ndim > 1 else [enc(x) for x in array]


def _encode_float(x) -> float:
    return float(x)


def _encode_exact(x):
    if isinstance(x, FieldElement):
        return x.to_json()
    if isinstance(x, Fraction):
        return str(x) if x.denominator != 1 else int(x)
    return int(x)


def _decode_float(x, where: str):
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        raise WeightsError(f"{where} = {x!r} is not a number (float weights)")
    return float(x)


_FRACTION = re.compile(r"[+-]?\d+(/\d+)?")


def _decode_fraction(x, where: str):
    if isinstance(x, bool):
        raise WeightsError(f"{where} = {x!r} is a boolean, not a number")
    if isinstance(x, int):
        return x
    if isinstance(x, float):
        raise WeightsError(f"{where} = {x!r} is a float in exact weights (write \"p/q\")")
    if isinstance(x, str) and _FRACTION.fullmatch(x.strip()):
        try:
            return Fraction(x.strip())
        except ZeroDivisionError:
            raise WeightsError(f"{where} = {x!r} has a zero denominator") from None
    raise WeightsError(f"{where} = {x!r} is not an integer or a \"p/q\" fraction")


def _decode_exact(x, where: str):
    if isinstance(x, dict):
        if set(x) != {"field", "coeffs"}:
            raise WeightsError(f"{where}: a field element needs exactly the keys 'field' and 'coeffs'")
        field = x["field"]
        match = re.fullmatch(r"cyclotomic:(\d+)", field) if isinstance(field, str) else None
        if not match:
            raise WeightsError(f"{where}: field must be 'cyclotomic:M', got {field!r}")
        if not isinstance(x["coeffs"], list):
            raise WeightsError(f"{where}: coeffs must be a list")
        coeffs = [_decode_fraction(c, f"{where}.coeffs[{i}]") for i, c in enumerate(x["coeffs"])]
        try:
            K = CyclotomicField(int(match.group(1)))
        except FieldError as exc:
            raise WeightsError(f"{where}: {exc}") from None
        if len(coeffs) > K.degree:
            raise WeightsError(f"{where}: {len(coeffs)} coefficients, but Q(zeta_{K.m}) has degree {K.degree}")
        return K.element(coeffs)
    return _decode_fraction(x, where)


def _fromlist(data, dec, name: str, source: str) -> np.ndarray:
    ndim = {"A": 3, "h0": 1, "readout": 2, "U": 2, "C": 2, "W": 2}[name]

    def shape_of(node, depth):
        if depth == ndim:
            return ()
        if not isinstance(node, list):
            raise WeightsError(f"{source}: {name} must be nested lists of depth {ndim}")
        shapes = {shape_of(child, depth + 1) for child in node}
        if len(shapes) > 1:
            raise WeightsError(f"{source}: {name} is ragged (rows of different lengths)")
        inner = shapes.pop() if shapes else (0,) * (ndim - depth - 1)
        return (len(node),) + inner

    shape = shape_of(data, 0)
    out = np.empty(shape, dtype=object)
    for index in np.ndindex(*shape):
        node = data
        for i in index:
            node = node[i]
        out[index] = dec(node, f"{source}: {_index_name(name, index)}")
    return out

"""The weights file format: one JSON object, UTF-8, no pickle (see :mod:`bilinear.constructions.values.weights`).

:func:`encode` turns the arrays of a :class:`~bilinear.constructions.values.weights.Weights` into the
JSON object (with checksum); :func:`decode` checks a JSON object (keys, format, version,
checksum, entry types) and returns the raw arrays; :func:`read_json` reads a file.  Every
problem raises :class:`~bilinear.errors.WeightsError` naming the item.

The checksum is required unless the caller allows an unsigned (hand-written) file
(``allow_unsigned=True``; ``--unsigned`` on the command line).  Limits, checked while reading:
:data:`MAX_FLOAT_MAGNITUDE` for float entries, :data:`MAX_EXACT_DIGITS` digits for an exact
numerator or denominator, and those of :func:`bilinear.jsonfile.read_json_file` (regular files
only, size, integer digits, nesting depth, duplicate keys).  docs/formats.md describes the format.

>>> data = {"format": FORMAT, "version": 1, "variant": "diagonal", "exact": True,
...         "A": [[[-1]]], "h0": [1], "readout": [["1/2"]]}
>>> decode(data, allow_unsigned=True).readout.tolist()
[[Fraction(1, 2)]]
>>> decode(data)
Traceback (most recent call last):
...
bilinear.errors.WeightsError: weights: no checksum (a hand-written file needs allow_unsigned=True, or --unsigned)
"""

from __future__ import annotations

import math
import re
from fractions import Fraction
from typing import Any, NamedTuple

import numpy as np

from bilinear.errors import FieldError, WeightsError
from bilinear.jsonfile import check_header, checksum

from .entries import index_name as _index_name
from ..exact.field import MAX_CONDUCTOR, CyclotomicField, FieldElement

__all__ = ["FORMAT", "FORMAT_VERSION", "Decoded", "encode", "decode", "read_json", "check_shape", "shape_problem",
           "MAX_FLOAT_MAGNITUDE", "MAX_EXACT_DIGITS"]

FORMAT = "bilinear.weights"
FORMAT_VERSION = 1
_KEYS = ("format", "version", "variant", "exact", "shape", "A", "h0", "readout", "factors", "checksum")
_REQUIRED = ("format", "version", "variant", "exact", "A", "h0", "readout")
#: Largest absolute value of a float entry (the exact prover works in float intervals too).
MAX_FLOAT_MAGNITUDE = 1e100
#: Most digits of the numerator or denominator of an exact entry (or coefficient).
MAX_EXACT_DIGITS = 100


class Decoded(NamedTuple):
    """The raw content of a weights file: variant spec, exactness flag and object arrays."""

    variant: Any  # as read from the file; decode checks it
    exact: bool
    A: np.ndarray
    h0: np.ndarray
    readout: np.ndarray
    factors: tuple | None
    shape: object


def encode(variant: str, exact: bool, A, h0, readout, factors) -> dict:
    """The JSON object of the file format (with checksum)."""
    enc = _encode_exact if exact else _encode_float
    if factors is not None and not isinstance(factors, dict):  # a tuple in the kind's order
        from .variants import parse_variant

        factors = dict(zip(parse_variant(variant).info.factor_names, factors))
    payload = {
        "format": FORMAT,
        "version": FORMAT_VERSION,
        "variant": variant,
        "exact": exact,
        "shape": {"symbols": int(A.shape[0]), "hidden": int(A.shape[1]), "classes": int(readout.shape[0])},
        "A": _tolist(A, enc),
        "h0": _tolist(h0, enc),
        "readout": _tolist(readout, enc),
        "factors": None if factors is None else {n: _tolist(f, _encode_index if f.dtype.kind in "iu" else enc)
                                                 for n, f in factors.items()},
    }
    payload["checksum"] = _checksum(payload)
    return payload


def _check_header(data, source: str, allow_unsigned: bool = False) -> bool:
    """Keys, format, version, checksum; returns the ``exact`` flag."""
    check_header(data, source, WeightsError, FORMAT, FORMAT_VERSION, _KEYS, _REQUIRED, signed=not allow_unsigned,
                 unsigned_hint="a hand-written file needs allow_unsigned=True, or --unsigned")
    exact = data["exact"]
    if not isinstance(exact, bool):
        raise WeightsError(f"{source}: 'exact' must be true or false, got {exact!r}")
    return exact


def decode(data, source: str = "weights", allow_unsigned: bool = False) -> Decoded:
    """Check a JSON object of the file format and return its raw arrays (not yet validated as
    :class:`~bilinear.constructions.values.weights.Weights`); without a checksum only with
    ``allow_unsigned``."""
    exact = _check_header(data, source, allow_unsigned)
    dec = _decode_exact if exact else _decode_float
    # the shapes of the nested lists first, compared before any entry is decoded (a 45 MB file with
    # h0 of 3,000,000 entries and A of 1 x 1 x 1 decoded for over 120 s before the shapes were read)
    shapes = {key: _shape_of(data[key], key, source) for key in ("A", "h0", "readout")}
    problem = shape_problem(shapes["A"], shapes["h0"], shapes["readout"])
    if problem:
        raise WeightsError(f"{source}: {problem}")
    arrays = {key: _fill(data[key], shapes[key], dec, key, source) for key in ("A", "h0", "readout")}
    factors = data.get("factors")
    if factors is not None:
        factors = _decode_factors(data["variant"], factors, dec, source)
    if exact:
        _check_common_field([*arrays.values(), *(factors or ())], source)
    return Decoded(data["variant"], exact, arrays["A"], arrays["h0"], arrays["readout"], factors, data.get("shape"))


def _decode_factors(variant, factors, dec, source: str) -> tuple:
    """The factors of the variant's kind, in its order (``factor_names``), checked by name."""
    from bilinear.errors import SpecError

    from .variants import parse_variant

    try:
        info = parse_variant(variant).info
    except SpecError as exc:
        raise WeightsError(f"{source}: bad variant: {exc}") from None
    names = info.factor_names
    if not names:
        raise WeightsError(f"{source}: variant {variant!r} carries no factors ('factors' must be null)")
    if not isinstance(factors, dict) or set(factors) != set(names):
        raise WeightsError(f"{source}: 'factors' must be null or an object with keys {', '.join(names)}")
    out = []
    for n, nd in zip(names, info.factor_ndims):
        decode_entry = _decode_index if n in info.index_factors else dec
        out.append(_fromlist(factors[n], decode_entry, n, source, nd))
    return tuple(out)


def _encode_index(x) -> int:
    return int(x)


def _decode_index(x, where: str) -> int:
    if isinstance(x, bool) or not isinstance(x, int) or not 0 <= x < 2**31:
        raise WeightsError(f"{where} = {str(x)[:40]!r} is not a non-negative integer index")
    return x


def _check_common_field(arrays, source: str) -> None:
    """WeightsError when the entries' fields meet only in a field past MAX_CONDUCTOR (two large
    conductors, 99991 and 99989, would need Q(zeta_9998000099)): checked before any arithmetic
    embeds an element in it."""
    from ..exact.field import MAX_CONDUCTOR

    m, first = 1, None
    for array in arrays:
        if array.dtype != object:
            continue
        for x in array.flat:
            if isinstance(x, FieldElement) and m % x.field.m:
                m = m * x.field.m // math.gcd(m, x.field.m)
                first = first or x.field.m
                if m > MAX_CONDUCTOR:
                    raise WeightsError(
                        f"{source}: the entries' fields (conductors {first} and {x.field.m}) meet only in "
                        f"Q(zeta_{m}), over the conductor limit MAX_CONDUCTOR = {MAX_CONDUCTOR:,}: write every "
                        f"entry in one cyclotomic field of conductor at most the limit")


def check_shape(decoded: Decoded, weights, source: str) -> None:
    """The ``exact`` flag and the ``shape`` object of the file agree with the built weights."""
    sizes = [a.size for a in (decoded.A, decoded.h0, decoded.readout)]
    if weights.exact != decoded.exact and any(sizes):
        raise WeightsError(f"{source}: 'exact' is {decoded.exact} but the entries say otherwise")
    shape = decoded.shape
    if shape is None:
        return
    want = {"symbols": weights.n_symbols, "hidden": weights.dim, "classes": weights.n_classes}
    if not isinstance(shape, dict) or set(shape) != set(want):
        raise WeightsError(f"{source}: 'shape' must have keys symbols, hidden, classes")
    for key, value in want.items():
        if shape[key] != value:
            raise WeightsError(f"{source}: shape.{key} = {shape[key]!r} but the arrays have {value}")


def read_json(path) -> dict:
    """The JSON object of a weights file, read defensively (see
    :func:`bilinear.jsonfile.read_json_file`), or WeightsError."""
    from bilinear.jsonfile import read_json_file

    return read_json_file(path, WeightsError, what="weights file")


def _checksum(payload: dict, source: str = "weights") -> str:
    return checksum(payload, WeightsError, source)


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
        raise WeightsError(f"{where} = {str(x)[:40]!r} is not a number (float weights)")
    try:
        value = float(x)
    except OverflowError:
        value = math.inf
    if not abs(value) <= MAX_FLOAT_MAGNITUDE:
        raise WeightsError(f"{where} = {str(x)[:40]} is over the magnitude limit {MAX_FLOAT_MAGNITUDE:g}")
    return value


def _check_digits(text: str, where: str) -> None:
    for part in text.lstrip("+-").split("/"):
        if len(part) > MAX_EXACT_DIGITS:
            raise WeightsError(f"{where} has a number of {len(part)} digits (the limit is {MAX_EXACT_DIGITS})")


_FRACTION = re.compile(r"[+-]?[0-9]+(/[0-9]+)?")  # ASCII digits only


def _decode_fraction(x, where: str):
    if isinstance(x, bool):
        raise WeightsError(f"{where} = {x!r} is a boolean, not a number")
    if isinstance(x, int):
        _check_digits(str(x), where)
        return x
    if isinstance(x, float):
        raise WeightsError(f"{where} = {x!r} is a float in exact weights (write \"p/q\")")
    if isinstance(x, str) and _FRACTION.fullmatch(x.strip()):
        _check_digits(x.strip(), where)
        try:
            return Fraction(x.strip())
        except ZeroDivisionError:
            raise WeightsError(f"{where} = {x!r} has a zero denominator") from None
    shown = "null" if x is None else repr(str(x)[:40])  # JSON's name for None
    raise WeightsError(f"{where} = {shown} is not an integer or a \"p/q\" fraction")


def _decode_exact(x, where: str):
    if isinstance(x, dict):
        if set(x) != {"field", "coeffs"}:
            raise WeightsError(f"{where}: a field element needs exactly the keys 'field' and 'coeffs'")
        field = x["field"]
        match = re.fullmatch(r"cyclotomic:([0-9]+)", field) if isinstance(field, str) else None
        if not match:
            raise WeightsError(f"{where}: field must be 'cyclotomic:M', got {str(field)[:40]!r}")
        if len(match.group(1)) > 12:  # past any conductor, said before the digits are read as a number
            raise WeightsError(f"{where}: cyclotomic conductor of {len(match.group(1)):,} digits must be in "
                               f"1..{MAX_CONDUCTOR}")
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


def shape_problem(A: tuple, h0: tuple, readout: tuple) -> str | None:
    """What is wrong with the shapes of ``A``, ``h0`` and ``readout`` (None when they fit): the
    one check of the file loader (before any entry is decoded) and of ``Weights``.

    >>> shape_problem((1, 1, 1), (3000000,), (2, 1))
    "h0 has shape (3000000,), expected (1,) to match A's hidden size"
    """
    k, d1, d2 = A
    if k == 0 or d1 == 0:
        return f"A has shape {A}: need at least one symbol and hidden >= 1"
    if d1 != d2:
        return f"A must be square in its last two axes (symbols, hidden, hidden), got {A}"
    if h0 != (d1,):
        return f"h0 has shape {h0}, expected ({d1},) to match A's hidden size"
    if len(readout) != 2 or readout[1] != d1 or readout[0] == 0:
        return f"readout has shape {readout}, expected (classes >= 1, {d1})"
    return None


def _shape_of(data, name: str, source: str, ndim: int | None = None) -> tuple:
    """The shape of nested lists of depth ``ndim`` (WeightsError when not nested lists of that
    depth, or ragged), without reading an entry."""
    ndim = ndim if ndim is not None else {"A": 3, "h0": 1, "readout": 2}[name]

    def shape_of(node, depth):
        if not isinstance(node, list):
            raise WeightsError(f"{source}: {name} must be nested lists of depth {ndim}")
        if depth == ndim - 1:  # the entries: only that none is a list (a level too deep)
            if any(isinstance(child, list) for child in node):
                raise WeightsError(f"{source}: {name} must be nested lists of depth {ndim}")
            return (len(node),)
        shapes = {shape_of(child, depth + 1) for child in node}
        if len(shapes) > 1:
            raise WeightsError(f"{source}: {name} is ragged (rows of different lengths)")
        inner = shapes.pop() if shapes else (0,) * (ndim - depth - 1)
        return (len(node),) + inner

    return shape_of(data, 0) if ndim else ()


def _fromlist(data, dec, name: str, source: str, ndim: int | None = None) -> np.ndarray:
    return _fill(data, _shape_of(data, name, source, ndim), dec, name, source)


def _fill(data, shape: tuple, dec, name: str, source: str) -> np.ndarray:
    """The object array of ``shape`` (:func:`_shape_of`) of the entries of ``data``, decoded."""
    out = np.empty(shape, dtype=object)
    for index in np.ndindex(*shape):
        node = data
        for i in index:
            node = node[i]
        out[index] = dec(node, f"{source}: {_index_name(name, index)}")
    return out

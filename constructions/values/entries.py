"""Entries of weights: normalising exact numbers and converting arrays to float64 or exact form.

Float entries are numpy float64 (finite); exact entries are ``int``, ``fractions.Fraction`` or a
real :class:`~bilinear.constructions.exact.field.FieldElement` (a rational field element is stored as
its rational value).  Every conversion names the first bad entry in its
:class:`~bilinear.errors.WeightsError`.

>>> as_exact(np.array([[Fraction(2, 1), 3]], dtype=object), "h0").tolist()
[[2, 3]]
>>> as_float(np.array([1, float("nan")], dtype=object), "h0")
Traceback (most recent call last):
...
bilinear.errors.WeightsError: h0[1] = nan is not finite
"""

from __future__ import annotations

from fractions import Fraction
from numbers import Integral, Rational, Real

import flint
import numpy as np

from bilinear.errors import FieldError, WeightsError

from ..exact.field import FieldElement

__all__ = ["as_exact", "as_float", "to_array", "is_float_array", "index_name", "simplify", "freeze", "fmt"]


def simplify(x):
    """A rational field element as its Fraction, an integral Fraction as int; else unchanged."""
    if isinstance(x, FieldElement):
        return x.rational() if x.is_rational() else x
    if isinstance(x, Fraction) and x.denominator == 1:
        return int(x)
    return x



def fmt(value) -> str:
    """An entry as error messages show it (floats by their repr)."""
    if isinstance(value, (float, np.floating)):
        return repr(float(value))
    return str(value)


def _normalise_exact(value, where: str):
    """int / Fraction / real FieldElement, or WeightsError."""
    if isinstance(value, (bool, np.bool_)):
        raise WeightsError(f"{where} = {value!r} is a boolean, not a number")
    if isinstance(value, FieldElement):
        if not value.is_real():
            raise WeightsError(f"{where} = {value!r} is not real")
        return simplify(value.rational()) if value.is_rational() else value
    if isinstance(value, (Integral, np.integer)):
        return int(value)
    if isinstance(value, Rational):
        return simplify(Fraction(int(value.numerator), int(value.denominator)))
    if isinstance(value, flint.fmpq):
        return simplify(Fraction(int(value.p), int(value.q)))
    if isinstance(value, flint.fmpz):
        return int(value)
    raise WeightsError(f"{where} = {value!r} ({type(value).__name__}) is not an exact real number")


def index_name(name: str, index: tuple[int, ...]) -> str:
    """``A[s][i, j]`` for A, ``name[i, ...]`` for the others."""
    if name == "A" and len(index) == 3:
        return f"A[{index[0]}][{index[1]}, {index[2]}]"
    return f"{name}[{', '.join(str(i) for i in index)}]"


def to_array(value, name: str, ndim: int) -> np.ndarray:
    """A numpy array (object dtype for lists) of ``ndim`` dimensions from lists, arrays or tensors."""
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


def is_float_array(array: np.ndarray) -> bool:
    """True when the array holds floats (a float dtype, or a float among object entries)."""
    if array.dtype.kind == "f":
        return True
    if array.dtype == object:
        return any(isinstance(x, (float, np.floating)) for x in array.flat)
    return False


def as_float(array: np.ndarray, name: str) -> np.ndarray:
    """A read-only float64 copy; every entry real and finite, else WeightsError naming it."""
    if array.dtype.kind in "fiu":
        out = array.astype(np.float64)
    elif array.dtype.kind == "b":
        raise WeightsError(f"{name} holds booleans, not numbers")
    else:
        out = np.empty(array.shape, dtype=np.float64)
        for index, x in np.ndenumerate(array):
            where = index_name(name, index)
            if isinstance(x, (bool, np.bool_)):
                raise WeightsError(f"{where} = {x!r} is a boolean, not a number")
            if isinstance(x, FieldElement):
                try:
                    out[index] = float(x)
                except FieldError as exc:
                    raise WeightsError(f"{where}: {exc}") from None
            elif isinstance(x, (Real, np.integer, np.floating)):
                try:
                    out[index] = float(x)
                except OverflowError:  # an exact 10**400 has no float
                    raise WeightsError(f"{where} = {str(x)[:20]}... is too large for a float (over 1.8e308)") from None
            else:
                raise WeightsError(f"{where} = {x!r} ({type(x).__name__}) is not a real number")
    bad = np.argwhere(~np.isfinite(out))
    if bad.size:
        index = tuple(int(i) for i in bad[0])
        raise WeightsError(f"{index_name(name, index)} = {float(out[index])!r} is not finite")
    out.setflags(write=False)
    return out


def as_exact(array: np.ndarray, name: str) -> np.ndarray:
    """A read-only object array of int / Fraction / real FieldElement, else WeightsError naming the entry."""
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
        if type(x) is Fraction and type(x.numerator) is int and type(x.denominator) is int:
            # what _normalise_exact gives, without its abstract-class checks and a new Fraction
            # (a Fraction is in lowest terms): the Fraction itself, an int when integral
            flat_out[i] = x.numerator if x.denominator == 1 else x
            continue
        try:
            flat_out[i] = _normalise_exact(x, "")
        except WeightsError:
            index = np.unravel_index(i, array.shape)
            _normalise_exact(x, index_name(name, tuple(int(j) for j in index)))  # raises, named
    out.setflags(write=False)
    return out




def freeze(a: np.ndarray) -> np.ndarray:
    """A read-only copy."""
    a = np.array(a, dtype=a.dtype, copy=True)
    a.setflags(write=False)
    return a

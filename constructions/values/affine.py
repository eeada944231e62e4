"""Affine recurrences with a readout per symbol: the value behind models from elsewhere.

An :class:`AffineWeights` value holds, per symbol ``a``, a transition matrix ``A[a]`` (hidden x
hidden), an additive term ``b[a]`` (hidden) and a start state ``h0`` (default 0).  The network
reads a word ``a_1 ... a_T`` as

    h_t = A[a_t] h_{t-1} + b[a_t],      h_0 = h0      (no renormalisation)

the recurrence of fla's DeltaNet family (``b = beta k v^T`` per value column) and of Mamba.  The
readout acts on the *lifted* state ``[h; 1]`` (so its last column is a bias):

* a **fixed** readout (classes, hidden + 1): the label of every word, the empty one included, is
  ``argmax_c readout[c] . [h; 1]``;
* a **per-symbol** readout (symbols, classes, hidden + 1): the label after reading ``a`` is
  ``argmax_c readout[a][c] . [h; 1]`` -- it depends on the state and on the symbol just read, as
  ``o_t = S_t^T q_t`` does with ``q_t`` from the current token.  The empty word has no label (a
  model emits one after each token).

A readout given with ``hidden`` columns has no bias (a zero column is appended).

**The lift** (Theorem A1 of docs/theory.md): ``x = [h; 1]`` evolves linearly,
``x_t = L[a_t] x_{t-1}`` with ``L[a] = [[A[a], b[a]], [0, 1]]``.  :meth:`AffineWeights.lift` gives
that linear network as :class:`~bilinear.constructions.values.weights.Weights` of hidden size
``hidden + 1``.  Its last coordinate is 1 after every word, so two lifted states are positive
multiples of each other exactly when they are equal: renormalising ``x`` by a positive number
changes no label (the readout is linear in ``x``), renormalising ``h`` alone does.  The lifted
matrices are block upper-triangular, not diagonal: a ``diagonal`` or ``positive`` family lifts to
``dplr:1`` (``diag(A[a], 1) + [b[a]; 0] e^T``), every other family to ``full``.

Entries are exact (int, Fraction, real cyclotomic numbers) or float, as in ``Weights``; the
homogeneous part ``A`` must conform to ``variant`` (checked as ``Weights`` checks it).

File format (:meth:`save` / :meth:`load`, docs/formats.md)::

    {"format": "bilinear.affine", "version": 1, "variant": "diagonal", "exact": true,
     "shape": {"symbols": S, "hidden": D, "classes": C, "per_symbol": true},
     "A": [...], "b": [...], "h0": [...], "readout": [...], "factors": null,
     "checksum": "sha256:..."}

Examples
--------
>>> flip = AffineWeights("diagonal", A=[[[0]], [[0]], [[1]]], b=[[-1], [1], [0]],
...                      readout=[[-1, 0], [1, 0]], h0=[-1])
>>> flip.dim, flip.n_symbols, flip.n_classes, flip.per_symbol
(1, 3, 2, False)
>>> lifted = flip.lift()
>>> lifted.variant, lifted.dim, lifted.A[1].tolist()
('dplr:1', 2, [[0, 1], [0, 1]])
>>> flip.float_labels([1, 2, 0, 2])
[1, 1, 0, 0]
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np

from bilinear.errors import SpecError, WeightsError
from bilinear.fileio import atomic_write_text

from . import fileformat
from .entries import as_exact, as_float, is_float_array, to_array
from .variants import parse_variant
from .weights import Frozen, Weights, check_entries

__all__ = ["AffineWeights", "AFFINE_FORMAT", "AFFINE_VERSION", "lifted_variant"]

AFFINE_FORMAT = "bilinear.affine"
AFFINE_VERSION = 1
_KEYS = ("format", "version", "variant", "exact", "shape", "A", "b", "h0", "readout", "factors", "checksum")
_REQUIRED = ("format", "version", "variant", "exact", "A", "b", "readout")
#: Variants whose lift is ``dplr:1`` (diagonal plus the rank-one column of the additive term).


def lifted_variant(variant) -> str:
    """The variant the lifted matrices ``[[A, b], [0, 1]]`` conform to, for every ``b``.

    >>> lifted_variant("positive"), lifted_variant("block:1"), lifted_variant("householder:2")
    ('dplr:1', 'dplr:1', 'full')
    """
    v = parse_variant(variant)
    if v.block_size == 1:  # diagonal, positive, block:1
        return "dplr:1"
    return "full"


class AffineWeights(Frozen):
    """An affine recurrence with a fixed or per-symbol readout, frozen and validated.

    Parameters
    ----------
    variant:
        The variant of the homogeneous part ``A`` (``diagonal``, ``householder:2``, ...).
    A:
        (symbols, hidden, hidden) transition matrices.
    b:
        (symbols, hidden) additive terms.
    readout:
        (classes, hidden [+ 1]) fixed, or (symbols, classes, hidden [+ 1]) per symbol; the
        optional last column multiplies the lifted coordinate 1 (a bias).
    h0:
        (hidden,) start state; default 0 (as fla and Mamba start).
    factors:
        The homogeneous variant's factors, as for ``Weights``.

    Raises WeightsError (shapes, types, sizes) or ConformanceError (``A`` against ``variant``).
    """

    __slots__ = ("variant", "A", "b", "h0", "readout", "per_symbol", "factors", "_exact")
    variant: str
    A: np.ndarray  # (symbols, hidden, hidden)
    b: np.ndarray  # (symbols, hidden)
    h0: np.ndarray  # (hidden,)
    readout: np.ndarray  # (symbols, classes, hidden + 1); a fixed readout is repeated per symbol
    per_symbol: bool
    factors: tuple | None
    _exact: bool

    def __init__(self, variant, A, b, readout, h0=None, factors=None):
        A_ = to_array(A, "A", 3)
        if A_.shape[0] == 0 or A_.shape[1] == 0 or A_.shape[1] != A_.shape[2]:
            raise WeightsError(f"A has shape {A_.shape}: need (symbols >= 1, hidden >= 1, hidden)")
        k, d = int(A_.shape[0]), int(A_.shape[1])
        check_entries("affine (lifted)", f"{k} symbols", k, d + 1)
        b_ = to_array(b, "b", 2)
        if b_.shape != (k, d):
            raise WeightsError(f"b has shape {b_.shape}, expected ({k}, {d}) (symbols, hidden)")
        h_ = to_array(np.zeros(d, dtype=np.int64) if h0 is None else h0, "h0", 1)
        if h_.shape != (d,):
            raise WeightsError(f"h0 has shape {h_.shape}, expected ({d},)")
        r_ = _readout_array(readout, k, d)
        exact = not any(is_float_array(x) for x in (A_, b_, h_, r_))
        conv = as_exact if exact else as_float
        A_, b_, h_, r_ = (conv(x, name) for x, name in ((A_, "A"), (b_, "b"), (h_, "h0"), (r_, "readout")))
        per_symbol = r_.ndim == 3
        if r_.shape[-1] == d:  # no bias column: append zeros
            pad = np.zeros(r_.shape[:-1] + (1,), dtype=r_.dtype)
            if exact:
                pad = pad.astype(np.int64).astype(object)
            r_ = np.concatenate([r_, pad], axis=-1)
        if not per_symbol:
            r_ = np.repeat(r_[None], k, axis=0)
        r_.setflags(write=False)
        try:  # the homogeneous part conforms to its variant exactly as a Weights would
            hom = Weights(variant, A_, h_, np.zeros((1, d), dtype=np.int64), factors)
        except SpecError as exc:  # pragma: no cover - Weights turns spec errors into WeightsError
            raise WeightsError(str(exc)) from None
        setattr_ = object.__setattr__
        setattr_(self, "variant", hom.variant)
        setattr_(self, "A", hom.A)
        setattr_(self, "b", b_)
        setattr_(self, "h0", h_)
        setattr_(self, "readout", r_)
        setattr_(self, "per_symbol", per_symbol)
        setattr_(self, "factors", hom.factors)
        setattr_(self, "_exact", exact)

    @property
    def n_classes(self) -> int:
        return int(self.readout.shape[1])

    def __repr__(self) -> str:
        kind = "exact" if self._exact else "float"
        which = "per-symbol" if self.per_symbol else "fixed"
        return (f"AffineWeights({self.variant!r}, {kind}, symbols={self.n_symbols}, hidden={self.dim}, "
                f"classes={self.n_classes}, {which} readout)")

    # --- the lift ------------------------------------------------------------------------
    def lifted_matrices(self) -> tuple[np.ndarray, np.ndarray]:
        """``(L (symbols, hidden+1, hidden+1), x0 (hidden+1,))`` with ``L[a] = [[A[a], b[a]], [0, 1]]``
        and ``x0 = [h0; 1]`` (exact or float64 like the weights)."""
        k, d = self.n_symbols, self.dim
        one, zero = (1, 0) if self._exact else (1.0, 0.0)
        L = np.empty((k, d + 1, d + 1), dtype=object if self._exact else np.float64)
        L[:, :d, :d] = self.A
        L[:, :d, d] = self.b
        L[:, d, :d] = zero
        L[:, d, d] = one
        x0 = np.empty(d + 1, dtype=L.dtype)
        x0[:d] = self.h0
        x0[d] = one
        return L, x0

    def lift(self) -> Weights:
        """The lifted linear network (Theorem A1): :class:`Weights` of hidden size ``d + 1``, variant
        :func:`lifted_variant` (``dplr:1`` for a diagonal family, else ``full``).  Only for a fixed
        readout: a per-symbol readout is not a ``Weights`` readout (prove it with
        :func:`~bilinear.constructions.proof.prover.prove`, which takes ``AffineWeights``)."""
        if self.per_symbol:
            raise WeightsError("a per-symbol readout has no Weights form: prove(AffineWeights, automaton) "
                               "proves it, lifted_matrices() gives the lifted transitions")
        L, x0 = self.lifted_matrices()
        variant = lifted_variant(self.variant)
        factors = None
        if parse_variant(self.variant).block_size == 1:  # lifted to dplr:1
            d = self.dim
            factors = (np.array([list(np.diagonal(L[s])) for s in range(self.n_symbols)], dtype=L.dtype),
                       _column(self.b, self._exact), np.repeat(_unit(d + 1, self._exact)[None], self.n_symbols, axis=0))
        return Weights(variant, L, x0, self.readout[0], factors)

    # --- the float run -------------------------------------------------------------------
    def float_labels(self, word) -> list[int | None]:
        """The label after each symbol of ``word`` (symbol indices), computed as the model does: in
        float64, unnormalised, ``h = A h + b``; ``None`` where the top score is tied."""
        A = np.asarray(self.A, dtype=np.float64)
        b = np.asarray(self.b, dtype=np.float64)
        R = np.asarray(self.readout, dtype=np.float64)
        h = np.asarray(self.h0, dtype=np.float64)
        out: list[int | None] = []
        for a in word:
            h = A[a] @ h + b[a]
            scores = R[a][:, :-1] @ h + R[a][:, -1]
            best = int(np.argmax(scores))
            out.append(None if int((scores == scores[best]).sum()) > 1 else best)
        return out

    # --- file format ---------------------------------------------------------------------
    def to_json(self) -> dict:
        enc = fileformat._encode_exact if self._exact else fileformat._encode_float
        readout = self.readout if self.per_symbol else self.readout[0]
        payload = {
            "format": AFFINE_FORMAT, "version": AFFINE_VERSION, "variant": self.variant, "exact": self._exact,
            "shape": {"symbols": self.n_symbols, "hidden": self.dim, "classes": self.n_classes,
                      "per_symbol": self.per_symbol},
            "A": fileformat._tolist(self.A, enc), "b": fileformat._tolist(self.b, enc),
            "h0": fileformat._tolist(self.h0, enc), "readout": fileformat._tolist(readout, enc),
            "factors": None if self.factors is None else dict(zip(
                parse_variant(self.variant).info.factor_names,
                (fileformat._tolist(f, fileformat._encode_index if f.dtype.kind in "iu" else enc)
                 for f in self.factors))),
        }
        payload["checksum"] = fileformat._checksum(payload)
        return payload

    @classmethod
    def from_json(cls, data, source: str = "affine weights", allow_unsigned: bool = False) -> "AffineWeights":
        """Rebuild from :meth:`to_json` output (a hand-written file only with ``allow_unsigned``)."""
        from bilinear.jsonfile import check_header

        check_header(data, source, WeightsError, AFFINE_FORMAT, AFFINE_VERSION, _KEYS, _REQUIRED,
                     signed=not allow_unsigned, unsigned_hint="a hand-written file needs allow_unsigned=True, or --unsigned")
        exact = data["exact"]
        if not isinstance(exact, bool):
            raise WeightsError(f"{source}: 'exact' must be true or false, got {exact!r}")
        dec = fileformat._decode_exact if exact else fileformat._decode_float
        readout = data["readout"]
        depth = 3 if isinstance(readout, list) and readout and isinstance(readout[0], list) \
            and readout[0] and isinstance(readout[0][0], list) else 2
        arrays = {key: fileformat._fromlist(data[key], dec, key, source, nd)
                  for key, nd in (("A", 3), ("b", 2), ("readout", depth))}
        h0 = None if data.get("h0") is None else fileformat._fromlist(data["h0"], dec, "h0", source, 1)
        factors = data.get("factors")
        if factors is not None:
            factors = fileformat._decode_factors(data["variant"], factors, dec, source)
        try:
            w = cls(data["variant"], arrays["A"], arrays["b"], arrays["readout"], h0, factors)
        except WeightsError as exc:
            raise type(exc)(f"{source}: {exc}") from None
        _check_shape(data.get("shape"), w, exact, source)
        return w

    def save(self, path) -> Path:
        """Write the JSON file atomically, with its checksum."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        return atomic_write_text(path, json.dumps(self.to_json(), indent=1, allow_nan=False) + "\n")

    @classmethod
    def load(cls, path, allow_unsigned: bool = False) -> "AffineWeights":
        if not isinstance(path, (str, os.PathLike)) or not str(path):
            raise WeightsError(f"an affine weights file path must be a non-empty string or path, got {path!r}")
        return cls.from_json(fileformat.read_json(path), str(Path(path)), allow_unsigned)


def _unit(n: int, exact: bool) -> np.ndarray:
    """e_n as an (n, 1) column: the W factor of the lift's rank-one term."""
    e = np.zeros((n, 1), dtype=object if exact else np.float64)
    e[:, 0] = 0 if exact else 0.0
    e[n - 1, 0] = 1 if exact else 1.0
    return e


def _column(b: np.ndarray, exact: bool) -> np.ndarray:
    """(symbols, hidden + 1, 1): the U factor ``[b[a]; 0]`` of the lift's rank-one term."""
    k, d = b.shape
    U = np.zeros((k, d + 1, 1), dtype=object if exact else np.float64)
    U[:, d, 0] = 0 if exact else 0.0
    U[:, :d, 0] = b
    return U


def _readout_array(readout, k: int, d: int) -> np.ndarray:
    """The readout as an array of 2 or 3 dimensions with d or d + 1 columns, else WeightsError."""
    arr = None
    for nd in (2, 3):
        try:
            arr = to_array(readout, "readout", nd)
            break
        except WeightsError:
            continue
    if arr is None:
        raise WeightsError(f"readout must be (classes, hidden [+ 1]) or (symbols, classes, hidden [+ 1]), "
                           f"got shape {np.shape(readout)}")
    if arr.shape[-1] not in (d, d + 1) or arr.shape[-2] == 0 or (arr.ndim == 3 and arr.shape[0] != k):
        want = f"(classes >= 1, {d} or {d + 1}) or ({k}, classes >= 1, {d} or {d + 1})"
        raise WeightsError(f"readout has shape {arr.shape}, expected {want}")
    return arr


def _check_shape(shape, w: AffineWeights, exact: bool, source: str) -> None:
    if w.exact != exact and w.A.size:
        raise WeightsError(f"{source}: 'exact' is {exact} but the entries say otherwise")
    if shape is None:
        return
    want = {"symbols": w.n_symbols, "hidden": w.dim, "classes": w.n_classes, "per_symbol": w.per_symbol}
    if not isinstance(shape, dict) or set(shape) != set(want):
        raise WeightsError(f"{source}: 'shape' must have keys {', '.join(want)}")
    for key, value in want.items():
        if shape[key] != value:
            raise WeightsError(f"{source}: shape.{key} = {shape[key]!r} but the arrays have {value}")

"""Weights of a bilinear RNN: transition matrices, start state and readout, tied to a variant.

A :class:`Weights` value holds ``A`` (symbols, hidden, hidden), ``h0`` (hidden,) and a bias-free
``readout`` (classes, hidden).  The network reads a word ``w = a_1 ... a_T`` as
``h_T = A[a_T] ... A[a_1] h0`` and predicts ``argmax_c (readout @ h_T)[c]``.

Entries are either **float** (numpy float64; from training) or **exact** (numpy object arrays of
``int``, ``fractions.Fraction`` or real :class:`~bilinear.constructions.exact.field.FieldElement`).
Every value is checked at construction: shapes, finiteness, and conformance to the variant
(exactly for exact weights; float weights per matrix and per block against that matrix's own
scale, see :mod:`bilinear.constructions.values.variants`).  :meth:`Weights.project` gives the nearest
weights of a variant and how far they moved.

Variants (spec strings, see :func:`parse_variant`)::

    full            dense hidden x hidden
    factorized:R    A[s] = U diag(C[s]) W^T, U and W (hidden, R), C (symbols, R)
    block:B         block-diagonal with B x B blocks (B divides hidden)
    rotation2d      2x2 blocks [[a, -b], [b, a]] (scaled rotations; a complex diagonal)
    diagonal        real diagonal
    positive        diagonal with strictly positive entries
    householder:K   product of K reflections I - beta v v^T / v^T v, beta in [0, 2]
                    (householder:K,nonneg: beta in [0, 1]); factors V, beta
    monomial        P diag(D), P column one-hot; factors perm (integers), D
    dplr:R          diag(D) + U W^T (rank R); factors D, U, W

File format (``save``/``load``): one JSON object, UTF-8, no pickle::

    {"format": "bilinear.weights", "version": 1,
     "variant": "block:2", "exact": true,
     "shape": {"symbols": S, "hidden": D, "classes": C},
     "A": [[[e, ...], ...], ...], "h0": [e, ...], "readout": [[e, ...], ...],
     "factors": null | {"U": [[e]], "C": [[e]], "W": [[e]]} (factorized; the other
                 kinds' factors by name, docs/formats.md),
     "checksum": "sha256:..."}

An entry ``e`` is a JSON number (float weights, or an integer in exact weights), a string
``"p/q"`` (an exact Fraction) or ``{"field": "cyclotomic:M", "coeffs": ["p/q", ...]}`` (the
element sum_k coeffs[k] zeta_M^k).  ``checksum`` is the SHA-256 of the canonical JSON (sorted
keys, no spaces) of every other key; it is required unless the file is loaded with
``allow_unsigned=True`` (a hand-written file; ``--unsigned`` on the command line).  A file whose
checksum does not match, whose shapes disagree, which has unknown or duplicate keys, non-finite
or over-large numbers is refused with a :class:`~bilinear.errors.WeightsError` naming the item
(docs/formats.md has the limits and a hand-written example).

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

import json
import os
import math
from pathlib import Path

import numpy as np

from bilinear.errors import ConformanceError, SpecError, WeightsError
from bilinear.fileio import atomic_write_text

from . import fileformat
from .entries import as_exact, as_float, is_float_array, to_array
from ..exact.field import FieldElement
from .fileformat import FORMAT, FORMAT_VERSION
from .linalg import float_rank_decomposition, rank_decomposition
from .variants import VARIANT_KINDS, Variant, conform, parse_variant, project, relative_distance

__all__ = [
    "MAX_WEIGHT_ENTRIES",
    "check_entries",
    "Variant",
    "VARIANT_KINDS",
    "parse_variant",
    "Weights",
    "FORMAT",
    "FORMAT_VERSION",
    "rank_decomposition",
    "float_rank_decomposition",
]


#: Most transition-matrix entries (symbols x hidden x hidden) of a construction, checked before its
#: matrices are allocated: exact weights take about 24 bytes an entry (the integer table, the exact
#: object array, the prover's float copy), so 5·10^7 entries are about 1.1 GiB.
MAX_WEIGHT_ENTRIES = 50_000_000
#: Bytes an exact entry takes across its copies (see MAX_WEIGHT_ENTRIES).
ENTRY_BYTES = 24


def check_entries(construction: str, label: str, symbols: int, hidden: int) -> None:
    """ConstructionTooLargeError, with the estimate, when ``symbols`` matrices of size ``hidden``
    pass :data:`MAX_WEIGHT_ENTRIES` (``verify modarith:1000 full``: one-hot, hidden 1000 with 2000
    symbols, 2·10^9 entries, used to ask numpy for 14.9 GiB).

    >>> check_entries("one-hot", "modarith:1000", 2000, 1000)
    Traceback (most recent call last):
    ...
    bilinear.errors.ConstructionTooLargeError: the one-hot construction of modarith:1000 has hidden 1,000 and 2,000 symbols: 2,000,000,000 matrix entries (about 44.7 GiB as exact weights), over the limit MAX_WEIGHT_ENTRIES = 50,000,000 (bilinear.constructions.values.weights)
    """
    from bilinear.errors import ConstructionTooLargeError

    entries = symbols * hidden * hidden
    if entries > MAX_WEIGHT_ENTRIES:
        raise ConstructionTooLargeError(
            f"the {construction} construction of {label} has hidden {hidden:,} and {symbols:,} symbols: "
            f"{entries:,} matrix entries (about {entries * ENTRY_BYTES / 1024**3:.3g} GiB as exact weights), "
            f"over the limit MAX_WEIGHT_ENTRIES = {MAX_WEIGHT_ENTRIES:,} (bilinear.constructions.values.weights)"
        )


class Frozen:
    """What :class:`Weights` and ``affine.AffineWeights`` share: set once by ``object.__setattr__``
    in the constructor, immutable after; ``A`` holds one matrix per symbol."""

    __slots__ = ()

    def __setattr__(self, key, value):
        raise AttributeError(f"{type(self).__name__} is immutable (cannot set {key!r})")

    def __delattr__(self, key):
        raise AttributeError(f"{type(self).__name__} is immutable (cannot delete {key!r})")

    @property
    def exact(self) -> bool:
        """True when the entries are exact (int, Fraction, field elements)."""
        return self._exact  # type: ignore[attr-defined]

    @property
    def dim(self) -> int:
        """Hidden size d."""
        return int(self.A.shape[1])  # type: ignore[attr-defined]

    @property
    def n_symbols(self) -> int:
        return int(self.A.shape[0])  # type: ignore[attr-defined]


class Weights(Frozen):
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
        For the variants defined by factors, a tuple in the order of the kind's
        ``factor_names`` (or a dict by name): ``factorized:R`` ``(U (hidden, R), C (symbols, R),
        W (hidden, R))`` with ``A[s] = U diag(C[s]) W^T``; ``householder:K`` ``(V (symbols, K,
        hidden), beta (symbols, K))``; ``monomial`` ``(perm (symbols, hidden) integers, D
        (symbols, hidden))``; ``dplr:R`` ``(D (symbols, hidden), U, W (symbols, hidden, R))``
        (:mod:`bilinear.constructions.values.factored`).  ``A`` is always given too and checked to equal
        their composition.  When omitted they are derived where that is exact (factorized: the
        stacked rank decompositions, or U = W = I for diagonal matrices; householder: orthogonal
        matrices split into rank(A - I) reflections; monomial: A's pattern; dplr: the diagonal
        leaving the lowest rank); otherwise ConformanceError asks for them.

    Raises WeightsError (shapes, types, non-finite entries) or ConformanceError (variant).

    >>> w = Weights("rotation2d", A=[[[0, -1], [1, 0]]], h0=[1, 0], readout=[[1, 0], [0, 1]])
    >>> w.to_float().A.dtype, w.float_arrays()[0].shape
    (dtype('float64'), (1, 2, 2))
    """

    __slots__ = ("variant", "A", "h0", "readout", "factors", "_variant", "_exact", "_float")
    variant: str
    A: np.ndarray  # (symbols, hidden, hidden)
    h0: np.ndarray  # (hidden,)
    readout: np.ndarray  # (classes, hidden)
    factors: tuple | None
    _variant: Variant
    _exact: bool
    _float: "Weights | None"  # to_float's result, made once

    def __init__(self, variant, A, h0, readout, factors=None):
        try:
            v = parse_variant(variant)
        except SpecError as exc:
            raise WeightsError(f"bad variant: {exc}") from None
        arrays = {
            "A": to_array(A, "A", 3),
            "h0": to_array(h0, "h0", 1),
            "readout": to_array(readout, "readout", 2),
        }
        fac = None
        names = v.info.factor_names
        if factors is not None:
            if not names:
                raise WeightsError(f"variant {v.spec!r} carries no factors (only {_factored_kinds()} do)")
            if isinstance(factors, dict):
                if set(factors) != set(names):
                    raise WeightsError(f"factors of {v.spec!r} must be named {', '.join(names)}, got {', '.join(map(str, factors))}")
                factors = tuple(factors[n] for n in names)
            if not isinstance(factors, (tuple, list)) or len(factors) != len(names):
                raise WeightsError(f"factors of {v.spec!r} must be ({', '.join(names)})")
            fac = {k: to_array(f, k, nd) for k, f, nd in zip(names, factors, v.info.factor_ndims)}
            arrays.update(fac)
        index = v.info.index_factors
        exact = not any(is_float_array(a) for k, a in arrays.items() if k not in index)
        conv = as_exact if exact else as_float
        arrays = {k: (a if k in index else conv(a, k)) for k, a in arrays.items()}
        Aa, h, r = arrays["A"], arrays["h0"], arrays["readout"]
        problem = fileformat.shape_problem(Aa.shape, h.shape, r.shape)
        if problem:
            raise WeightsError(problem)
        setattr_ = object.__setattr__
        setattr_(self, "_variant", v)
        setattr_(self, "_exact", exact)
        setattr_(self, "_float", None)
        setattr_(self, "variant", v.spec)
        setattr_(self, "A", Aa)
        setattr_(self, "h0", h)
        setattr_(self, "readout", r)
        if fac is not None:
            fac = tuple(arrays[key] for key in names)
        setattr_(self, "factors", fac)
        self._check_conformance()

    @classmethod
    def _trusted(cls, variant, A, h0, readout, factors=None, *, exact: bool, conform: bool = True) -> "Weights":
        """Weights from parts the library itself produced from validated Weights (internal: the
        constructions' re-expression, padding and direct sums; never user data).

        The parts are arrays whose entries are already normalised (the ``A``, ``h0``,
        ``readout`` and factors of Weights values, or zeros and copies of them), all exact or all
        float64 as ``exact`` says, so the per-entry conversion of ``__init__`` (a Python loop
        over every entry: most of the cost of building a large exact network) is skipped; the
        shapes are still checked, and the conformance to ``variant`` unless ``conform=False``
        (only when the parts are those of weights already checked in that very variant).
        """
        v = variant if isinstance(variant, Variant) else parse_variant(variant)
        parts = {"A": A, "h0": h0, "readout": readout}
        names = v.info.factor_names
        if factors is not None:
            if len(factors) != len(names):
                raise WeightsError(f"factors of {v.spec!r} must be ({', '.join(names)})")
            parts.update(zip(names, factors))
        frozen = {}
        for key, a in parts.items():
            a = np.asarray(a)
            if a.flags.writeable:
                a = a.copy()
                a.setflags(write=False)
            frozen[key] = a
        Aa, h, r = frozen["A"], frozen["h0"], frozen["readout"]
        if Aa.ndim != 3 or Aa.shape[1] != Aa.shape[2] or h.shape != (Aa.shape[1],) or r.ndim != 2 or r.shape[1] != Aa.shape[1]:
            raise WeightsError(f"inconsistent shapes A {Aa.shape}, h0 {h.shape}, readout {r.shape}")
        self = object.__new__(cls)
        setattr_ = object.__setattr__
        setattr_(self, "_variant", v)
        setattr_(self, "_exact", bool(exact))
        setattr_(self, "_float", None)
        setattr_(self, "variant", v.spec)
        setattr_(self, "A", Aa)
        setattr_(self, "h0", h)
        setattr_(self, "readout", r)
        setattr_(self, "factors", None if factors is None else tuple(frozen[n] for n in names))
        if conform:
            self._check_conformance()
        return self

    # --- basic facts ---------------------------------------------------------------------
    @property
    def variant_info(self) -> Variant:
        """The parsed :class:`Variant`."""
        return self._variant

    @property
    def n_classes(self) -> int:
        return int(self.readout.shape[0])

    @property
    def conductor(self) -> int:
        """The m of the smallest cyclotomic field Q(zeta_m) holding every exact entry (1: Q).

        >>> from bilinear.constructions.exact.field import cos2pi
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

    @property
    def named_factors(self) -> dict:
        """The factors by name (``{"V": ..., "beta": ...}`` for householder; empty without).

        >>> Weights("householder:1", [[[-1]]], [1], [[1]]).named_factors["beta"].tolist()
        [[2]]
        """
        if self.factors is None:
            return {}
        return dict(zip(self._variant.info.factor_names, self.factors))

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

    __hash__ = None  # type: ignore[assignment]  # arrays: not hashable (the usual idiom mypy rejects)

    # --- conversion ----------------------------------------------------------------------
    def to_float(self) -> "Weights":
        """The same weights with float64 entries (exact entries rounded); made once per value (the
        weights are frozen), as certify asks for them a few dozen times."""
        if not self._exact:
            return self
        made = getattr(self, "_float", None)
        if made is not None:
            return made
        fac = None
        if self.factors is not None:
            index = self._variant.info.index_factors
            fac = tuple(f if n in index else as_float(f, n) for f, n in zip(self.factors, self._variant.info.factor_names))
        out = Weights(
            self.variant,
            as_float(self.A, "A"),
            as_float(self.h0, "h0"),
            as_float(self.readout, "readout"),
            fac,
        )
        object.__setattr__(self, "_float", out)
        return out

    def exact_network(self) -> "Weights":
        """The network these weights define, in exact arithmetic: exact weights are it; a float
        entry is the dyadic rational it is (``Fraction(x)``), and for a factored variant
        (``factorized``, ``householder``, ``monomial``, ``dplr``) ``A`` is the **exact**
        composition of the factors, which the float ``A`` only approximates (it was checked
        against it within the float tolerance).  The prover proves this network
        (docs/formats.md, "The network a float file defines"; docs/theory.md, Theorem 5).

        >>> w = Weights("householder:1", [[[0.7, -0.6], [-0.6, -0.2]]], [1.0, 0.0], [[1.0, 0.0]],
        ...             ([[[1.0, 2.0]]], [[1.5]]))
        >>> [str(x) for x in w.exact_network().A[0].flat], float(w.A[0, 0, 0]) == 0.7
        (['7/10', '-3/5', '-3/5', '-1/5'], True)
        """
        if self._exact:
            return self
        from .factored import compose_factors, dyadic

        v = self._variant
        h0, readout = dyadic(self.h0), dyadic(self.readout)
        if self.factors is None:
            return Weights._trusted(v, dyadic(self.A), h0, readout, exact=True, conform=False)
        index = v.info.index_factors
        factors = tuple(f if n in index else dyadic(f) for f, n in zip(self.factors, v.info.factor_names))
        return Weights._trusted(v, compose_factors(v, factors, exact=True), h0, readout, factors, exact=True)

    def float_arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(A (symbols, hidden, hidden), h0 (hidden,), readout (classes, hidden))`` as float64."""
        w = self.to_float()
        return w.A, w.h0, w.readout

    # --- conformance and projection ------------------------------------------------------
    def _check_conformance(self) -> None:
        A, factors = conform(self._variant, self.A, self._exact, self.factors)
        object.__setattr__(self, "A", A)
        object.__setattr__(self, "factors", factors)

    def project(self, variant=None) -> tuple["Weights", np.ndarray]:
        """The nearest float weights of ``variant`` (default: this one's) and how far they moved.

        Returns ``(weights, distance)``: ``distance[s]`` is the relative Frobenius distance
        ``||A[s] - P[s]|| / ||A[s]||`` of each transition matrix (``h0`` and ``readout`` are
        kept).  Exact weights are rounded to float first; weights that already conform to
        ``variant`` come back unchanged, with distance 0.  A proof about the result is a proof
        about the projected weights, not about these.

        >>> w = Weights("full", [[[1.0, 0.5], [0.0, 2.0]]], [1, 0], [[1, 0]])
        >>> p, dist = w.project("diagonal")
        >>> p.A.tolist(), [round(float(x), 4) for x in dist]
        ([[[1.0, 0.0], [0.0, 2.0]]], [0.2182])
        """
        v = self._variant if variant is None else parse_variant(variant)
        if v.spec == self.variant:
            return self, np.zeros(self.n_symbols)
        return _projected(v, self.to_float(), None)

    # --- file format ---------------------------------------------------------------------
    def to_json(self) -> dict:
        """The JSON object of the file format (with checksum)."""
        return fileformat.encode(self.variant, self._exact, self.A, self.h0, self.readout, self.named_factors or None)

    @classmethod
    def from_json(cls, data, source: str = "weights", allow_unsigned: bool = False) -> "Weights":
        """Rebuild from :meth:`to_json` output, refusing tampered, malformed or non-conforming data
        (data without a checksum only with ``allow_unsigned``)."""
        decoded = fileformat.decode(data, source, allow_unsigned)
        w = _build(cls, decoded, decoded.variant, decoded.factors, source)
        fileformat.check_shape(decoded, w, source)
        _check_as_written(decoded, w, source)
        return w

    @classmethod
    def from_json_as_written(cls, data, source: str = "weights", allow_unsigned: bool = False) -> "Weights":
        """The file's own network, entry for entry: its arrays as ``full`` weights (no snap to
        the variant, no projection).  ``verify --project --float`` runs its float check on this,
        so the float check is about the file as written, not about the projection."""
        decoded = fileformat.decode(data, source, allow_unsigned)
        return _build(cls, decoded, "full", None, source)

    @classmethod
    def from_json_projected(cls, data, source: str = "weights",
                            allow_unsigned: bool = False) -> tuple["Weights", np.ndarray]:
        """Like :meth:`from_json`, but weights that do not conform to their variant are projected
        onto it (see :meth:`project`); returns ``(weights, distance per matrix)``."""
        decoded = fileformat.decode(data, source, allow_unsigned)
        try:
            w = _build(cls, decoded, decoded.variant, decoded.factors, source)
            _check_as_written(decoded, w, source)
            dist = np.zeros(w.n_symbols)
        except ConformanceError:
            v = parse_variant(decoded.variant)
            raw = _build(cls, decoded, "full", None, source)
            factors = decoded.factors if v.info.has_factors else None
            try:
                w, dist = _projected(v, raw.to_float(), factors)
            except WeightsError as exc:
                raise type(exc)(f"{source}: cannot project onto {v.spec!r}: {exc}") from None
        fileformat.check_shape(decoded, w, source)
        return w, dist

    def save(self, path) -> Path:
        """Write the JSON file (atomically: a temporary file renamed into place)."""
        path = Path(path)
        text = json.dumps(self.to_json(), indent=1, allow_nan=False)
        path.parent.mkdir(parents=True, exist_ok=True)
        return atomic_write_text(path, text + "\n")

    @classmethod
    def load(cls, path, allow_unsigned: bool = False) -> "Weights":
        """Read a weights file written by :meth:`save`; a hand-written file (docs/formats.md)
        has no checksum and loads only with ``allow_unsigned=True``."""
        _check_path(path)
        return cls.from_json(fileformat.read_json(path), source=str(Path(path)), allow_unsigned=allow_unsigned)

    @classmethod
    def load_projected(cls, path, allow_unsigned: bool = False) -> tuple["Weights", np.ndarray]:
        """Read a weights file, projecting it onto its variant when it does not conform
        (see :meth:`from_json_projected`)."""
        _check_path(path)
        return cls.from_json_projected(fileformat.read_json(path), source=str(Path(path)),
                                       allow_unsigned=allow_unsigned)


def _factored_kinds() -> str:
    from .variants import KINDS

    return ", ".join(k.name for k in KINDS.values() if k.has_factors)


def _check_path(path) -> None:
    if not isinstance(path, (str, os.PathLike)) or not str(path):
        raise WeightsError(f"a weights file path must be a non-empty string or path, got {path!r}")


def _check_as_written(decoded, w: Weights, source: str) -> None:
    """ConformanceError when building ``w`` snapped a float entry of the file to its variant's
    pattern (an off-pattern entry within the float tolerance set to 0, a rotation block averaged):
    the network proved would then not be the file's own.  ``--project`` proves the projection
    and says by how much it moved."""
    if w.exact:
        return
    _check_factors_as_written(decoded, w, source)
    raw = np.asarray(decoded.A, dtype=np.float64)
    if raw.shape != w.A.shape or np.array_equal(raw, w.A):
        return
    diff = np.abs(raw - w.A)
    s, i, j = (int(x) for x in np.unravel_index(int(np.argmax(diff)), diff.shape))
    raise ConformanceError(
        f"{source}: A[{s}][{i}, {j}] = {float(raw[s, i, j])!r} is not what variant {w.variant!r} allows "
        f"(it conforms only within the float tolerance; the largest change to make it conform is "
        f"{diff[s, i, j]:.3g}, at this entry), so the file's own network is not a {w.variant!r} network; "
        f"fix the file, or prove the projected weights with --project (verify)"
    )


def _check_factors_as_written(decoded, w: Weights, source: str) -> None:
    """ConformanceError when conformance changed a float factor of the file (a beta outside the
    variant's range by less than the float tolerance, clipped): the network of a float file is
    its factors as written, composed exactly, so a changed factor is another network."""
    if decoded.factors is None or w.factors is None:
        return
    info = w.variant_info.info
    for name, raw, kept in zip(info.factor_names, decoded.factors, w.factors):
        if name in info.index_factors:
            continue
        raw = np.asarray(raw, dtype=np.float64)
        if raw.shape != kept.shape or np.array_equal(raw, kept):
            continue
        index = tuple(int(x) for x in np.argwhere(raw != kept)[0])
        raise ConformanceError(
            f"{source}: {name}[{', '.join(map(str, index))}] = {float(raw[index])!r} is not what variant "
            f"{w.variant!r} allows (conforming would change it to {float(kept[index])!r}), so the file's own "
            f"network is not a {w.variant!r} network; fix the file, or prove the projected weights with "
            f"--project (verify)")


def _build(cls, decoded, variant, factors, source: str) -> Weights:
    try:
        return cls(variant, decoded.A, decoded.h0, decoded.readout, factors)
    except WeightsError as exc:
        raise type(exc)(f"{source}: {exc}") from None


def _projected(v: Variant, w: Weights, factors) -> tuple[Weights, np.ndarray]:
    """``w`` (float) projected onto ``v``, with the relative distance per matrix."""
    P, fac = project(v, w.A, factors)
    return Weights(v.spec, P, w.h0, w.readout, fac), relative_distance(w.A, P)

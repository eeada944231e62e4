"""The variants of a bilinear RNN, listed once: what each kind allows, how it is checked, how to
project onto it.

A variant spec is ``full``, ``factorized:R``, ``block:B``, ``rotation2d``, ``diagonal``,
``positive``, ``householder:K[,nonneg]``, ``monomial[,complex]`` or ``dplr:R`` (see :func:`parse_variant`;
the last three carry their factors, checked in :mod:`bilinear.constructions.values.factored`).  Each kind has one :class:`VariantKind` in
:data:`KINDS`: its parameter name, whether its matrices commute, the spectral class the
impossibility certificates rely on, its block size, its conformance check (exact, and float) and
its projection (the nearest conforming float matrices).  Code that needs a fact about a variant
looks it up here (``parse_variant(spec).info`` or ``KINDS[name]``) instead of testing names.

Float conformance is judged **per matrix and per block, against that matrix's own scale**
(``docs/theory.md``, "Conformance of float weights"): an entry outside the allowed blocks of
``A[s]`` is treated as zero only when ``|x| <= FLOAT_RTOL * min(scale of its row block, scale of
its column block)``, where a block's scale is the largest magnitude in that diagonal block of
``A[s]``; the two entries of a rotation block that must agree are compared against that block's
scale; a factorized ``A[s]`` is compared with ``U diag(C[s]) W^T`` against ``max|A[s]|``.
Scaling one symbol's matrix (which leaves the network's predictions unchanged) therefore never
loosens the check of another.  Accepted float entries are snapped to their conforming values
(the zeros set to 0.0, rotation blocks made exact), so the exact prover always sees weights that
conform exactly.

>>> v = parse_variant("block:1")
>>> v.info.name, v.block_size, v.commuting, v.spectral
('block', 1, True, 'real')
>>> [(k.name, k.param, k.spectral) for k in KINDS.values() if k.commuting]
[('rotation2d', None, 'complex'), ('diagonal', None, 'real'), ('positive', None, 'nonnegative')]
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from bilinear.errors import ConformanceError, SpecError

from .entries import fmt as _fmt
from .entries import freeze as _freeze
from ..exact.field import exact_sign
from .linalg import float_rank_decomposition, rank_decomposition

__all__ = [
    "Variant",
    "VariantKind",
    "KINDS",
    "VARIANT_KINDS",
    "SPECTRAL_CLASSES",
    "FLOAT_RTOL",
    "parse_variant",
    "variant_usage",
    "FACTOR_SOURCES",
    "conform",
    "project",
]

#: Relative tolerance of the float conformance check (per matrix, per block).
FLOAT_RTOL = 1e-6
#: Floor of a projected ``positive`` diagonal entry, relative to its matrix's scale.
POSITIVE_FLOOR = 1e-9
#: What the eigenvalues of every product of a variant's matrices are guaranteed to be.
SPECTRAL_CLASSES = ("complex", "real", "nonnegative")


# ------------------------------------------------------------------------------------------
# the table
# ------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class VariantKind:
    """One kind of variant.

    Attributes
    ----------
    name:
        The kind's name in specs (``"block"``).
    param:
        Name of its integer parameter (``"R"``, ``"B"``), or None when it takes none.
    commuting:
        True when the matrices of every network of this kind commute (for ``block`` this holds
        only for B = 1: see :meth:`commuting_for`).
    spectral:
        ``"complex"``, ``"real"`` or ``"nonnegative"``: the eigenvalues the kind guarantees
        (``block:1`` is ``"real"``: see :meth:`spectral_for`).
    block:
        The block size given the parameter (``None`` for no block structure).
    pattern:
        How an entry outside the blocks is described in a ConformanceError (``{B}`` is the
        block size).
    extra:
        A further per-matrix check and snap after the block pattern (rotation blocks,
        positivity), ``(A, exact, spec) -> A``, or None.
    projector:
        The projection of float matrices after the block pattern, ``(A, param) -> A``, or None.
    factored:
        True when its weights carry factors ``(U, C, W)`` with ``A[s] = U diag(C[s]) W^T``.
    checker:
        Replaces the block-pattern check for kinds not described by one (``factorized``):
        ``(variant, A, exact, factors) -> (A, factors)``.
    full_projector:
        Replaces the block-pattern projection likewise: ``(variant, A, factors) -> (A, factors)``.
    positive_det:
        True when every invertible matrix of the kind has a positive determinant (``rotation2d``:
        a^2 + b^2 per block; ``positive``: a product of positive entries), so that in d = 2 the
        permutations a network induces form a cyclic group (Theorem 14 of docs/theory.md).
    summary:
        One line for tables and help.
    dense:
        True for the kind that allows every matrix (``full``): code that needs arbitrary dense
        matrices (the state-map snap) asks this instead of the name.
    counts_factors:
        True when the parameter counts factors (``factorized:R``, ``householder:K``, ``dplr:R``):
        a matrix column with the bare name takes the smallest parameter a construction needs, and
        a proved cell shows it (``K=2``).
    options:
        The options a spec may add after commas (``householder:2,nonneg``).
    factor_names, factor_ndims:
        The factors the weights of this kind carry (``Weights.factors``, in this order) and their
        numbers of axes; empty for kinds given by ``A`` alone.
    index_factors:
        Factors that are integer index maps (``perm``), never converted to floats.
    spectral_rule:
        ``(param, options) -> spectral class`` when it depends on them (``householder``).
    spectral_scope:
        ``"products"`` when :attr:`spectral` holds for every product of transition matrices
        (Theorems 7, 8), ``"symbols"`` when only for each single matrix (``householder:1``:
        Theorems F1, F2 of docs/theory.md).
    published:
        The published model this kind is (docs/theory.md has the table).
    coordinate_map:
        True when every matrix, hence every product, is monomial (each column one non-zero
        entry at most), real: Theorem F6 of docs/theory.md bounds d by the label periods.
    count_needed:
        ``(A, exact, options) -> int | None``: the least parameter with which these matrices fit
        the kind with ``options`` without given factors (``dplr``: the rank left by the best
        candidate diagonal; ``householder``: the most reflections a matrix splits into), None
        when they do not fit it at all, so a bare column finds it past the counts it tries one
        by one.
    rescale:
        ``(factors, e) -> factors`` of the weights whose ``A[s]`` is divided by ``2**e[s]``
        (exact in floats), or None when the kind has no free scale (``householder``: A is a
        product of reflections, of norm at most 1, so its scale is never extreme).
    pad:
        ``(factors, param) -> factors`` re-expressing weights of this kind with a larger factor
        count (identity factors or zero terms appended), None when the count is larger.
    """

    name: str
    param: str | None
    commuting: bool
    spectral: str
    block: Callable[[int | None], int | None]
    pattern: str = ""
    extra: Callable | None = None
    projector: Callable | None = None
    factored: bool = False
    checker: Callable | None = None
    full_projector: Callable | None = None
    positive_det: bool = False
    summary: str = ""
    dense: bool = False
    counts_factors: bool = False
    options: tuple[str, ...] = ()
    factor_names: tuple[str, ...] = ()
    factor_ndims: tuple[int, ...] = ()
    index_factors: tuple[str, ...] = ()
    spectral_rule: Callable | None = None
    spectral_scope: str = "products"
    published: str = ""
    pad: Callable | None = None
    coordinate_map: bool = False
    rescale: Callable | None = None
    count_needed: Callable | None = None

    def block_size(self, param: int | None) -> int | None:
        """Size of the diagonal blocks for this parameter (None: no block structure)."""
        return self.block(param)

    @property
    def has_factors(self) -> bool:
        """True when weights of this kind carry named factors (:attr:`factor_names`)."""
        return bool(self.factor_names)

    def usage(self) -> str:
        """The spec as help shows it: ``full``, ``block:B``, ``householder:K[,nonneg]``."""
        text = self.name if self.param is None else f"{self.name}:{self.param}"
        return text + "".join(f"[,{o}]" for o in self.options)

    def commuting_for(self, param: int | None) -> bool:
        """True when all matrices commute (``block:1`` is the diagonal variant)."""
        return self.commuting or self.block(param) == 1

    def spectral_for(self, param: int | None, options: tuple[str, ...] = ()) -> str:
        """The spectral class for this parameter (``block:1`` has real eigenvalues)."""
        if self.spectral_rule is not None:
            return self.spectral_rule(param, options)
        if self.spectral == "complex" and self.block(param) == 1:
            return "real"
        return self.spectral

    def spec(self, param: int | None = None, options: tuple[str, ...] = ()) -> str:
        """The canonical spec string."""
        text = self.name if param is None else f"{self.name}:{param}"
        return text + "".join(f",{o}" for o in options)


def _rotation_extra(A: np.ndarray, exact: bool, spec: str) -> np.ndarray:
    """Each 2x2 block is [[a, -b], [b, a]]; float blocks are compared against their own scale."""
    diag = lambda M: np.diagonal(M, axis1=1, axis2=2)  # noqa: E731 - (symbols, blocks)
    same = diag(A[:, 0::2, 0::2]) - diag(A[:, 1::2, 1::2])
    opposite = diag(A[:, 0::2, 1::2]) + diag(A[:, 1::2, 0::2])
    bad_same, bad_opposite = np.asarray(same != 0, dtype=bool), np.asarray(opposite != 0, dtype=bool)
    if not (bad_same.any() or bad_opposite.any()):
        return A
    if not exact:
        tol = FLOAT_RTOL * block_scales(A, 2)
        bad_same, bad_opposite = np.abs(same) > tol, np.abs(opposite) > tol
    bad = np.argwhere(bad_same | bad_opposite)
    if bad.size:
        s, b = (int(x) for x in bad[0])
        i, blk = 2 * b, A[s, 2 * b : 2 * b + 2, 2 * b : 2 * b + 2]
        if bad_same[s, b]:
            raise ConformanceError(
                f"variant {spec!r}: A[{s}][{i + 1}, {i + 1}] = {_fmt(blk[1, 1])} differs from "
                f"A[{s}][{i}, {i}] = {_fmt(blk[0, 0])} (not a scaled rotation)"
            )
        raise ConformanceError(
            f"variant {spec!r}: A[{s}][{i}, {i + 1}] = {_fmt(blk[0, 1])} is not "
            f"-A[{s}][{i + 1}, {i}] = {_fmt(-blk[1, 0])} (not a scaled rotation)"
        )
    return A if exact else _rotation_project(A, None)


def _positive_extra(A: np.ndarray, exact: bool, spec: str) -> np.ndarray:
    diag = np.diagonal(A, axis1=1, axis2=2)  # (symbols, hidden)
    if exact:
        bad = np.argwhere(np.array([[exact_sign(x) <= 0 for x in row] for row in diag], dtype=bool))
    else:
        bad = np.argwhere(~(diag > 0))
    if bad.size:
        s, i = (int(x) for x in bad[0])
        raise ConformanceError(f"variant {spec!r}: A[{s}][{i}, {i}] = {_fmt(A[s, i, i])} is not strictly positive")
    return A


def _rotation_project(A: np.ndarray, param) -> np.ndarray:
    """Each 2x2 block replaced by its nearest scaled rotation (the average of the two)."""
    out = np.zeros_like(A, dtype=np.float64)
    a = (A[:, 0::2, 0::2] + A[:, 1::2, 1::2]) / 2
    b = (A[:, 1::2, 0::2] - A[:, 0::2, 1::2]) / 2
    i = np.arange(0, A.shape[1], 2)
    out[:, i, i] = np.diagonal(a, axis1=1, axis2=2)
    out[:, i + 1, i + 1] = np.diagonal(a, axis1=1, axis2=2)
    out[:, i + 1, i] = np.diagonal(b, axis1=1, axis2=2)
    out[:, i, i + 1] = -np.diagonal(b, axis1=1, axis2=2)
    return out


def _positive_project(A: np.ndarray, param) -> np.ndarray:
    """The diagonal, each entry at least POSITIVE_FLOOR times its matrix's scale."""
    out = np.zeros_like(A, dtype=np.float64)
    idx = np.arange(A.shape[1])
    scale = np.abs(A).max(axis=(1, 2))
    floor = POSITIVE_FLOOR * np.where(scale > 0, scale, 1.0)
    out[:, idx, idx] = np.maximum(A[:, idx, idx], floor[:, None])
    return out


def _householder_spectrum(param, options) -> str:
    """One generalised reflection has eigenvalues 1 and 1 - beta (real; in [0, 1] for beta in
    [0, 1]); a product of two with beta in [0, 1] is a product of two positive semidefinite
    matrices, whose eigenvalues are real and non-negative (Theorem F2 of docs/theory.md)."""
    nonneg = "nonneg" in options
    if param == 1:
        return "nonnegative" if nonneg else "real"
    if param == 2 and nonneg:
        return "nonnegative"
    return "complex"


def _factored_checker(name):
    def check(v, A, exact, f):
        from . import factored

        return getattr(factored, f"check_{name}")(v, A, exact, f, FLOAT_RTOL)
    return check


def _factored_projector(name):
    def proj(v, A, f):
        from . import factored

        return getattr(factored, f"project_{name}")(v, A, f)
    return proj


def _factored_pad(name):
    def pad(factors, param):
        from . import factored

        return getattr(factored, f"pad_{name}")(factors, param)
    return pad


def _factored_count(name):
    def count(A, exact, options=()):
        from . import factored

        return getattr(factored, f"{name}_count")(A, exact, options)
    return count


def _pad_columns(factors, R: int):
    """(U, C, W) with zero columns appended up to R rank-one terms (None when there are more)."""
    if factors[0].shape[1] > R:
        return None
    out = []
    for f in factors:
        g = np.zeros((f.shape[0], R), dtype=f.dtype)
        g[:, : f.shape[1]] = f
        out.append(g)
    return tuple(out)


KINDS: dict[str, VariantKind] = {
    k.name: k
    for k in (
        VariantKind("full", None, False, "complex", lambda p: None, summary="dense hidden x hidden", dense=True,
                    published="the bilinear RNN (Ebrahimi & Memisevic 2025)"),
        VariantKind("factorized", "R", False, "complex", lambda p: None,
                    factored=True,
                    checker=lambda v, A, exact, f: (A, _check_factorized(A, v.param, exact, v.spec, f)),
                    full_projector=lambda v, A, f: _project_factorized(A, v.param, f),
                    summary="A[s] = U diag(C[s]) W^T, U and W (hidden, R), C (symbols, R)",
                    counts_factors=True, factor_names=("U", "C", "W"), factor_ndims=(2, 2, 2), pad=_pad_columns,
                    rescale=lambda f, e: (f[0], np.ldexp(f[1], -e[:, None]), f[2]),
                    published="the factorised bilinear RNN (Ebrahimi & Memisevic 2025)"),
        VariantKind("block", "B", False, "complex", lambda p: p, "is outside the {B}x{B} diagonal blocks",
                    summary="block-diagonal with B x B blocks (B divides hidden)",
                    published="block-diagonal bilinear RNN (Ebrahimi & Memisevic 2025)"),
        VariantKind("rotation2d", None, True, "complex", lambda p: 2, "is outside the 2x2 rotation blocks",
                    _rotation_extra, _rotation_project, positive_det=True, summary="2x2 blocks [[a, -b], [b, a]] (scaled rotations)",
                    published="complex-diagonal SSMs (LRU-like)"),
        VariantKind("diagonal", None, True, "real", lambda p: 1, "is off the diagonal", summary="real diagonal",
                    published="Mamba with eigenvalues in [-1, 1] (Grazzi et al. 2025)"),
        VariantKind("positive", None, True, "nonnegative", lambda p: 1, "is off the diagonal",
                    _positive_extra, _positive_project, positive_det=True, summary="diagonal with strictly positive entries",
                    published="Mamba (eigenvalues in (0, 1])"),
        VariantKind("householder", "K", False, "complex", lambda p: None,
                    checker=_factored_checker("householder"), full_projector=_factored_projector("householder"),
                    summary="A[s] = product of K reflections I - beta v v^T / v^T v, beta in [0, 2] ([0, 1] with nonneg)",
                    counts_factors=True, options=("nonneg",), factor_names=("V", "beta"), factor_ndims=(3, 2),
                    spectral_rule=_householder_spectrum, spectral_scope="symbols", pad=_factored_pad("householder"),
                    count_needed=_factored_count("householder"),
                    published="DeltaProduct_K [-1, 1] (Siems et al. 2025); K = 1: DeltaNet [-1, 1] (Grazzi et al. 2025); "
                              "nonneg: DeltaNet / DeltaProduct with beta in [0, 1]"),
        VariantKind("monomial", None, False, "complex", lambda p: None,
                    checker=_factored_checker("monomial"), full_projector=_factored_projector("monomial"),
                    summary="A[s] = P_s diag(D[s]), P_s column one-hot (perm), D real "
                            "(complex: hidden/2 complex coordinates, D[s] complex as 2x2 blocks [[a, -b], [b, a]])",
                    options=("complex",),
                    factor_names=("perm", "D"), factor_ndims=(2, 2), index_factors=("perm",), coordinate_map=True,
                    rescale=lambda f, e: (f[0], np.ldexp(f[1], -e[:, None])),
                    published="PD-SSM with real D (Terzic et al. 2025); complex: PD-SSM with complex D"),
        VariantKind("dplr", "R", False, "complex", lambda p: None,
                    checker=_factored_checker("dplr"), full_projector=_factored_projector("dplr"),
                    summary="A[s] = diag(D[s]) + U[s] W[s]^T, U and W (hidden, R)",
                    counts_factors=True, factor_names=("D", "U", "W"), factor_ndims=(2, 3, 3), pad=_factored_pad("dplr"),
                    rescale=lambda f, e: (np.ldexp(f[0], -e[:, None]), np.ldexp(f[1], -e[:, None, None]), f[2]),
                    count_needed=_factored_count("dplr"),
                    published="RWKV-7 generalised delta rule; gated DeltaNet alpha (I - beta k k^T) (R = 1)"),
    )
}

#: Variant kinds, in the order tables list them, with the name of their parameter (None: none).
VARIANT_KINDS: dict[str, str | None] = {name: k.param for name, k in KINDS.items()}

#: Variants whose constructions the bare ``factorized`` column factorises (with the registry's
#: own candidates): dense, diagonal, rotation and 2x2-block ones (products' direct sums).
FACTOR_SOURCES = ("full", "diagonal", "rotation2d", "block:2")


def variant_usage() -> str:
    """Every variant as help lists it, from :data:`KINDS`.

    >>> variant_usage()
    'full, factorized:R, block:B, rotation2d, diagonal, positive, householder:K[,nonneg], monomial[,complex], dplr:R'
    """
    return ", ".join(k.usage() for k in KINDS.values())


# ------------------------------------------------------------------------------------------
# parsed variants
# ------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Variant:
    """A parsed variant: ``kind`` and its integer parameter (``None`` when it has none).

    >>> v = parse_variant(" Factorized( 6 ) ")
    >>> v.kind, v.param, v.spec, v.commuting
    ('factorized', 6, 'factorized:6', False)
    """

    kind: str
    param: int | None = None
    options: tuple[str, ...] = field(default=(), repr=False)

    @property
    def nonneg(self) -> bool:
        """True with the ``nonneg`` option (``householder:K,nonneg``: beta in [0, 1])."""
        return "nonneg" in self.options

    @property
    def complex(self) -> bool:
        """True with the ``complex`` option (``monomial,complex``: hidden/2 complex coordinates,
        each real pair ``(h[2j], h[2j+1])`` one complex number)."""
        return "complex" in self.options

    @property
    def coordinate_map(self) -> bool:
        """True when every product of the matrices is real monomial (Theorem F6 applies);
        ``monomial,complex`` is not: its blocks rotate."""
        return self.info.coordinate_map and not self.complex

    @property
    def positive_det(self) -> bool:
        """True when every invertible matrix of the variant has a positive determinant
        (Theorem 14): the kind's, ``householder:K,nonneg`` (each factor has determinant
        ``1 - beta >= 0``) and ``monomial,complex`` (a block permutation has determinant
        ``det(P)^2 = 1``, each block ``a^2 + b^2``)."""
        return self.info.positive_det or self.nonneg or self.complex

    @property
    def info(self) -> VariantKind:
        """The kind's entry in :data:`KINDS`."""
        return KINDS[self.kind]

    @property
    def spec(self) -> str:
        """Canonical spec string, e.g. ``"block:2"``."""
        return self.info.spec(self.param, self.options)

    @property
    def commuting(self) -> bool:
        """True when all transition matrices of the variant commute (diagonal-like)."""
        return self.info.commuting_for(self.param)

    @property
    def spectral(self) -> str:
        """``"complex"``, ``"real"`` or ``"nonnegative"`` (see :class:`VariantKind`)."""
        return self.info.spectral_for(self.param, self.options)

    @property
    def block_size(self) -> int | None:
        """Size of the diagonal blocks (None: no block structure)."""
        return self.info.block_size(self.param)

    def __str__(self) -> str:
        return self.spec


def _split_spec(text: str, spec) -> tuple[str, str | None, tuple[str, ...]]:
    """``(kind, parameter text or None, options)`` of a lower-cased spec without spaces."""
    opts: list[str] = []
    if "," in text:
        text, *opts = text.split(",")
    match = re.fullmatch(r"([a-z0-9_]+)(?::([^:()]*)|\(([^()]*)\))?", text)
    if not match or any(not o for o in opts):
        raise SpecError(f"malformed variant {spec!r}")
    kind, arg = match.group(1), match.group(2) if match.group(2) is not None else match.group(3)
    if kind not in KINDS:
        raise SpecError(f"unknown variant {kind!r} in {spec!r} (known: {', '.join(KINDS)})")
    for o in opts:
        if o not in KINDS[kind].options:
            allowed = ", ".join(KINDS[kind].options) or "none"
            raise SpecError(f"variant {kind!r} has no option {o!r} in {spec!r} (options: {allowed})")
    if len(set(opts)) < len(opts):  # householder:1,nonneg,nonneg: one spec has one spelling
        twice = next(o for o in opts if opts.count(o) > 1)
        raise SpecError(f"variant spec {spec!r} repeats the option {twice!r}")
    return kind, arg, tuple(o for o in KINDS[kind].options if o in opts)


def parse_column(column: str) -> tuple[str, tuple[str, ...]] | None:
    """``(kind, options)`` when ``column`` names a factor-counting kind without its parameter
    (``householder``, ``householder,nonneg``, ``dplr``, ``factorized``: the builder takes the
    smallest parameter), else None.  SpecError for a malformed spec.

    >>> parse_column("householder,nonneg"), parse_column("householder:2")
    (('householder', ('nonneg',)), None)
    """
    text = re.sub(r"\s+", "", str(column)).lower()
    kind, arg, options = _split_spec(text, column)
    if arg is None and KINDS[kind].counts_factors:
        return kind, options
    return None


def parse_variant(spec: "str | Variant") -> Variant:
    """Parse a variant spec, one of :func:`variant_usage` (case-insensitive; ``factorized(R)``
    also accepted; options after commas, ``householder:2,nonneg``).  SpecError otherwise.

    >>> parse_variant("householder:1,nonneg").spec, parse_variant("householder:1,nonneg").spectral
    ('householder:1,nonneg', 'nonnegative')
    >>> parse_variant("householder:2").spectral, parse_variant("monomial").spec
    ('complex', 'monomial')

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
    return _parse_text(spec)


@functools.lru_cache(maxsize=512)
def _parse_text(spec: str) -> Variant:
    """:func:`parse_variant` of a string, remembered: ``verify`` asks for the same variant in
    several places (settle, registry, adapt, weights), and the text is parsed once (a SpecError
    is raised again each time, never cached)."""
    text = re.sub(r"\s+", "", spec).lower()
    kind, arg, options = _split_spec(text, spec)
    pname = KINDS[kind].param
    if pname is None:
        if arg is not None:
            raise SpecError(f"variant {kind!r} takes no parameter, got {spec!r}")
        return Variant(kind, None, options)
    if arg is None or arg == "":
        raise SpecError(f"variant {kind!r} needs a parameter {pname}, e.g. '{kind}:2'")
    if not re.fullmatch(r"\+?[0-9]+", arg):
        raise SpecError(f"parameter {pname} of variant {kind!r} must be a positive integer, got {arg!r}")
    value = int(arg)
    if value < 1:
        raise SpecError(f"parameter {pname} of variant {kind!r} must be >= 1, got {value}")
    return Variant(kind, value, options)


# ------------------------------------------------------------------------------------------
# conformance
# ------------------------------------------------------------------------------------------
def _block_masks(d: int, B: int, spec: str, kind: str) -> np.ndarray:
    if d % B:
        if KINDS[kind].param is None:  # a fixed block size (rotation2d)
            raise ConformanceError(f"variant {spec!r}: hidden size {d} is not a multiple of {B}; {kind} needs {B}x{B} blocks")
        raise ConformanceError(f"variant {spec!r}: block size {B} does not divide hidden size {d}")
    bi = np.arange(d) // B
    return bi[:, None] != bi[None, :]


def block_scales(A: np.ndarray, B: int) -> np.ndarray:
    """``(symbols, hidden // B)``: the largest magnitude in each diagonal block of each matrix."""
    k, d, _ = A.shape
    nb, idx = d // B, np.arange(d // B)
    blocks = np.abs(np.asarray(A, dtype=np.float64)).reshape(k, nb, B, nb, B)[:, idx, :, idx, :]
    return blocks.max(axis=(2, 3)).T  # fancy indexing put the block axis first


def _check_pattern(A: np.ndarray, B: int, exact: bool, spec: str, why: str, kind: str) -> np.ndarray:
    """Entries outside the B x B diagonal blocks are zero (float: within the per-block tolerance,
    then set to zero).  Returns the (snapped) matrices."""
    d = A.shape[1]
    outside = _block_masks(d, B, spec, kind)
    nonzero = np.argwhere(np.asarray(A != 0, dtype=bool) & outside[None])  # (n, 3): s, i, j
    if not nonzero.size:
        return A
    if exact:
        bad = nonzero
    else:  # tolerance of (s, i, j): FLOAT_RTOL * min(scale of block(i), scale of block(j)) in A[s]
        scale = block_scales(A, B)  # (symbols, blocks)
        s_, i_, j_ = nonzero.T
        tol = FLOAT_RTOL * np.minimum(scale[s_, i_ // B], scale[s_, j_ // B])
        bad = nonzero[np.abs(A[s_, i_, j_]) > tol]
    if bad.size:
        s, i, j = (int(x) for x in bad[0])
        raise ConformanceError(f"variant {spec!r}: A[{s}][{i}, {j}] = {_fmt(A[s, i, j])} {why.format(B=B)}")
    return np.where(outside[None], 0.0, A)


def conform(variant: Variant, A: np.ndarray, exact: bool, factors=None):
    """Check ``A`` (symbols, hidden, hidden) against ``variant``; returns ``(A, factors)`` with
    float entries snapped to their conforming values and, for ``factorized``, the factors
    (derived when not given).  Raises ConformanceError naming the first bad entry."""
    info, spec = variant.info, variant.spec
    if info.checker is not None:
        return info.checker(variant, A, exact, factors)
    B = info.block_size(variant.param)
    if B is not None:
        A = _check_pattern(A, B, exact, spec, info.pattern, info.name)
    if info.extra is not None:
        A = info.extra(A, exact, spec)
    if not exact and A.flags.writeable:  # snapped: a new array
        A = _freeze(np.asarray(A, dtype=np.float64))
    return A, None


def _matrix_tol(A: np.ndarray, exact: bool) -> np.ndarray:
    """Per-matrix float tolerance FLOAT_RTOL * max|A[s]| (zeros for exact weights)."""
    if exact:
        return np.zeros(A.shape[0])
    return FLOAT_RTOL * np.abs(A).max(axis=(1, 2))


#: Factor ranks up to this are always accepted, whatever the sizes (tiny factors).
MIN_FACTOR_RANK_LIMIT = 256


def max_factor_rank(symbols: int, hidden: int) -> int:
    """The largest R of ``factorized:R`` accepted for ``symbols`` matrices of size ``hidden``:
    ``max(symbols x hidden, hidden^2, 256)``, checked before the factors ``U, C, W`` are
    allocated.  No factorisation needs more than ``symbols x hidden`` (stack the rank
    decompositions) or ``hidden^2`` (one term per matrix position); the floor keeps small,
    redundant factorisations legal.

    >>> max_factor_rank(2, 8), max_factor_rank(40, 16)
    (256, 640)
    """
    return max(symbols * hidden, hidden * hidden, MIN_FACTOR_RANK_LIMIT)


def check_factor_rank(R: int, symbols: int, hidden: int, spec: str) -> None:
    """ConformanceError, with the bytes the factors would take, when R passes :func:`max_factor_rank`."""
    most = max_factor_rank(symbols, hidden)
    if R > most:
        entries = R * (2 * hidden + symbols)
        raise ConformanceError(
            f"variant {spec!r}: R = {R:,} exceeds the factor-rank limit {most:,} = max(symbols x hidden, "
            f"hidden^2, {MIN_FACTOR_RANK_LIMIT}) for {symbols} symbols and hidden {hidden} (no factorisation "
            f"needs more than symbols x hidden; U, C, W would hold {entries:,} entries, about "
            f"{entries * 8 / 1024**3:.3g} GiB as floats); use factorized:R with R <= {most:,}"
        )


def _check_factorized(A: np.ndarray, R: int, exact: bool, spec: str, factors):
    k, d, _ = A.shape
    check_factor_rank(R, k, d, spec)
    if factors is None:
        factors = _derive_factors(A, R, exact, spec)
    U, C, W = factors
    for name, f, rows in (("U", U, d), ("C", C, k), ("W", W, d)):
        if f.shape != (rows, R):
            raise ConformanceError(f"variant {spec!r}: factor {name} has shape {f.shape}, expected ({rows}, {R})")
    tol = _matrix_tol(A, exact)
    for s in range(k):
        prod = (U * C[s][None, :]) @ W.T
        diff = prod - A[s]
        bad = np.argwhere(np.asarray(diff != 0, dtype=bool) if exact else np.abs(diff) > tol[s])
        if bad.size:
            i, j = (int(x) for x in bad[0])
            raise ConformanceError(
                f"variant {spec!r}: A[{s}][{i}, {j}] = {_fmt(A[s, i, j])} differs from "
                f"(U diag(C[{s}]) W^T)[{i}, {j}] = {_fmt(prod[i, j])}"
            )
    return factors


def is_diagonal(A: np.ndarray, exact: bool) -> bool:
    """Every ``A[s]`` (symbols, hidden, hidden) is diagonal: exactly zero off the diagonal, or for
    floats below ``FLOAT_RTOL`` times that matrix's own largest entry (each matrix judged against
    its own scale, as conformance is).

    >>> is_diagonal(np.array([[[2.0, 1e-12], [0.0, 1.0]]]), exact=False), is_diagonal(np.array([[[1, 1], [0, 1]]], dtype=object), exact=True)
    (True, False)
    """
    off = ~np.eye(A.shape[1], dtype=bool)[None]
    if exact:
        return not (np.asarray(A != 0, dtype=bool) & off).any()
    tol = FLOAT_RTOL * np.abs(A).max(axis=(1, 2))
    return not ((np.abs(A) > tol[:, None, None]) & off).any()


def _derive_factors(A: np.ndarray, R: int, exact: bool, spec: str):
    """``(U, C, W)`` with ``A[s] = U diag(C[s]) W^T``: the identity when every matrix is diagonal
    and R >= hidden, else the stacked rank decompositions (ranks judged per matrix)."""
    k, d, _ = A.shape
    check_factor_rank(R, k, d, spec)
    dtype = object if exact else np.float64
    zero, one = (0, 1) if exact else (0.0, 1.0)
    U, C, W = (np.full(shape, zero, dtype=dtype) for shape in ((d, R), (k, R), (d, R)))
    if is_diagonal(A, exact) and R >= d:
        for i in range(d):
            U[i, i] = W[i, i] = one
            for s in range(k):
                C[s, i] = A[s, i, i]
        return tuple(_freeze(x) for x in (U, C, W))
    tol = _matrix_tol(A, exact)
    parts = [rank_decomposition(A[s]) if exact else float_rank_decomposition(A[s], tol[s]) for s in range(k)]
    total = sum(u.shape[1] for u, _ in parts)
    if total > R:
        raise ConformanceError(
            f"variant {spec!r}: the transition matrices have ranks summing to {total} > R = {R} "
            f"and are not all diagonal; pass factors (U, C, W) to show A[s] = U diag(C[s]) W^T"
        )
    c = 0
    for s, (u, w) in enumerate(parts):
        for j in range(u.shape[1]):
            U[:, c], W[:, c], C[s, c] = u[:, j], w[:, j], one
            c += 1
    return tuple(_freeze(x) for x in (U, C, W))


# ------------------------------------------------------------------------------------------
# projection
# ------------------------------------------------------------------------------------------
def project(variant: Variant, A: np.ndarray, factors=None) -> tuple[np.ndarray, tuple | None]:
    """The float matrices of ``variant`` nearest to ``A`` (symbols, hidden, hidden), and factors.

    Block patterns: entries outside the blocks set to zero (the nearest point in Frobenius
    norm); ``rotation2d``: each 2x2 block replaced by the average of ``[[a, -b], [b, a]]`` over
    its two readings (nearest); ``positive``: the diagonal, each entry raised to at least
    ``POSITIVE_FLOOR * max|A[s]|``; ``factorized:R``: ``U diag(C[s]) W^T`` when factors are
    given, else the per-matrix truncated SVDs keeping the R largest singular values relative to
    each matrix's own largest (a conforming point near A; the joint nearest point is a
    non-convex problem).

    >>> P, _ = project(parse_variant("rotation2d"), np.array([[[1.0, -1.0], [3.0, 3.0]]]))
    >>> P.tolist()
    [[[2.0, -2.0], [2.0, 2.0]]]
    """
    A = np.asarray(A, dtype=np.float64)
    info = variant.info
    if info.full_projector is not None:
        return info.full_projector(variant, A, factors)
    B = info.block_size(variant.param)
    if B is not None:
        outside = _block_masks(A.shape[1], B, variant.spec, info.name)
        A = np.where(outside[None], 0.0, A)
    if info.projector is not None:
        A = info.projector(A, variant.param)
    return A, None


def _project_factorized(A: np.ndarray, R: int, factors) -> tuple[np.ndarray, tuple | None]:
    k, d, _ = A.shape
    check_factor_rank(R, k, d, f"factorized:{R}")
    if factors is not None:
        U, C, W = (np.asarray(f, dtype=np.float64) for f in factors)
        for name, f, rows in (("U", U, d), ("C", C, k), ("W", W, d)):
            if f.shape != (rows, R):
                raise ConformanceError(f"factor {name} has shape {f.shape}, expected ({rows}, {R})")
        return np.stack([(U * C[s][None, :]) @ W.T for s in range(k)]), (U, C, W)
    if is_diagonal(A, False) and R >= d:
        return A, None
    svds = [np.linalg.svd(A[s]) for s in range(k)]
    rel = [(sv / sv[0] if sv[0] > 0 else sv * 0, s) for s, (_, sv, _) in enumerate(svds)]
    ranked = sorted(((r[i], s, i) for r, s in rel for i in range(len(r)) if r[i] > FLOAT_RTOL), reverse=True)
    keep = [0] * k
    for _, s, _ in ranked[:R]:
        keep[s] += 1
    out = np.zeros_like(A)
    for s, (u, sv, vt) in enumerate(svds):
        r = keep[s]
        out[s] = (u[:, :r] * sv[:r]) @ vt[:r]
    return out, None


def relative_distance(A: np.ndarray, P: np.ndarray) -> np.ndarray:
    """``(symbols,)``: ``||A[s] - P[s]||_F / ||A[s]||_F`` (0 where A[s] = 0)."""
    A = np.asarray(A, dtype=np.float64)
    num = np.linalg.norm((A - P).reshape(A.shape[0], -1), axis=1)
    den = np.linalg.norm(A.reshape(A.shape[0], -1), axis=1)
    return np.where(den > 0, num / np.where(den > 0, den, 1.0), 0.0)

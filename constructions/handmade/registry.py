"""The construction registry: which construction builds which family in which variant.

``CONSTRUCTIONS`` lists every construction once (family, native variant, dimension, theorem);
:func:`build` picks, for an automaton (or spec string) and a variant, the construction of
smallest dimension that conforms to the variant, embedding where natural:

* ``full`` accepts any construction (every structure is a special dense matrix);
* ``block:B`` accepts a construction whose matrices are block-diagonal with blocks dividing B,
  after padding the hidden state with zero coordinates to a multiple of B (so any construction
  of dimension <= B fits in one block);
* ``factorized:R`` factorises a construction: R >= d for diagonal ones (U = W = I), else R >= the
  sum of the ranks of the A[a] (stacked rank decompositions); the error names the R needed;
* ``rotation2d``, ``diagonal``, ``positive`` accept constructions already of that form.

Products (``cyclic:3*parity``) are built factor by factor and combined by the direct sum.

>>> w = build("dihedral:5", "block:2")
>>> w.variant, w.dim
('block:2', 2)
>>> build("cyclic:7", "full").dim
2
>>> build("cyclic:3", "diagonal")
Traceback (most recent call last):
...
bilinear.errors.ConstructionError: no construction of cyclic:3 for variant 'diagonal' (candidates: rotation (rotation2d, d=2), ..., signed-cycles (monomial, d=3))
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from bilinear.errors import ConformanceError, ConstructionError, ConstructionTooLargeError

from .abelian import abelian_full, abelian_rotation
from .dihedral import dihedral_block, dihedral_exponents
from .factorized import (
    factorized_abelian,
    factorized_dihedral,
    factorized_onehot,
    factorized_quaternion,
    factorized_reset,
)
from .halfturns import nonneg_dim, nonneg_shape, nonneg_weights, source_factors
from .icosahedral import icosahedral
from ..values.linalg import float_rank_decomposition, rank_decomposition
from .onehot import onehot
from .product import direct_sum
from .quaternion import quaternion_right
from .reflections import (
    cube,
    cyclic_monomial,
    cyclic_monomial_dim,
    dihedral_permutation,
    onehot_householder,
    parity_projections,
    permutation,
    simplex,
    triangle,
    reset_projection,
    tetrahedral,
    rotation_projections,
    sign_projections,
)
from .complex_monomial import complex_dihedral, complexify
from ..values.memo import minimal, per_automaton
from .reset import reset_parabola
from .rotation import crt_rotation, cyclic_rotation, cyclic_sign
from .standard import standard
from ..values.variants import KINDS, is_diagonal, max_factor_rank
from ..values.weights import Weights, parse_variant

__all__ = ["Construction", "CONSTRUCTIONS", "build", "candidates", "factor_counts", "adapt", "factorized_rank",
           "smallest_factor_rank"]


@dataclass(frozen=True)
class Construction:
    """One construction: the families it applies to, its native variant, dimension, theorem."""

    name: str
    families: tuple[str, ...]  # ("*",): every automaton
    variant: str
    dim: str
    theorem: str  # as numbered in docs/theory.md
    builder: Callable[..., Any]  # (automaton) -> Weights
    #: (automaton) -> the d the builder will produce, known before building it (None: unknown);
    #: ``build`` skips the construction when a smaller or equal d is already found, so a
    #: construction of d = n is never built (O(n^3) exact work) when d = 2 exists.
    known_dim: Callable | None = None
    #: The variant kinds ``build`` tries the construction for (None: every kind): weights that
    #: only ever beat the others in their own kind are not built for the rest.
    kinds: tuple[str, ...] | None = None
    #: (automaton) -> the factorised rank (:func:`factorized_rank`) of the builder's weights, known
    #: before building them (None: unknown); a construction whose R cannot beat the smallest R
    #: found is not built for a ``factorized`` column (:func:`smallest_factor_rank`).
    known_rank: Callable | None = None
    #: (automaton) -> the factor count (K of ``householder``) of the builder's weights in its native
    #: kind, known before building them (None: unknown); ``build`` does not build the construction
    #: for a smaller count of its kind (:func:`_count_refused`), nor ``candidates`` past a count.
    known_count: Callable | None = None
    #: (automaton) -> whether every factor of the builder's weights has beta in [0, 1] (True), or
    #: some is a reflection (False), known before building them (None: unknown); ``build`` does
    #: not build the construction for a ``nonneg`` variant when False.
    known_nonneg: Callable | None = None

    def applies(self, family: str | None) -> bool:
        return "*" in self.families or family in self.families


#: The orthogonal constructions ``half-turns`` takes as sources (each only for the families it is
#: tried for), beside ``one-hot-householder`` (Theorem F9, every automaton).
HALF_TURN_SOURCES = ("cube", "icosahedral", "dihedral", "triangle", "quaternion", "simplex", "rotation")


@per_automaton
def _half_turn_sources(automaton) -> tuple[list, list]:
    """``(sources, read)`` of ``half-turns``: the orthogonal constructions of
    :data:`HALF_TURN_SOURCES` that apply to the automaton's family, then ``one-hot-householder``
    (d = n, the states of the minimal automaton; its converted d is at least n) only when no
    other source's converted d (:func:`~.halfturns.nonneg_dim`) is below n: it cannot win
    otherwise (``symmetric:4``: d = 24 against the cube's 3); ``read`` their
    :func:`~.halfturns.source_factors`.  Kept per automaton: ``half-turns``' d and K
    (:func:`_half_turns_shape`) and its build read the same."""
    family = _family(automaton)
    sources = []
    for c in CONSTRUCTIONS:
        if c.name in HALF_TURN_SOURCES and c.applies(family):
            try:
                sources.append(c.builder(automaton))
            except ConstructionError:
                continue
    read = [source_factors(w) for w in sources]
    dims = [nonneg_dim(w, f) for w, f in zip(sources, read) if f is not None]
    if not dims or min(dims) >= minimal(automaton).n_states:
        try:
            sources.append(onehot_householder(automaton))
            read.append(source_factors(sources[-1]))
        except ConstructionError:
            pass
    return sources, read


@per_automaton
def half_turns(automaton) -> Weights:
    """``half-turns`` (Theorem F13 of docs/theory.md, :mod:`~.halfturns`): the orthogonal
    constructions of :data:`HALF_TURN_SOURCES` that apply to the automaton's family and
    ``one-hot-householder`` (:func:`_half_turn_sources`), as ``householder:K,nonneg`` weights
    (the smallest d, then K)."""
    sources, read = _half_turn_sources(automaton)
    return nonneg_weights(automaton.name or "automaton", automaton.symbols, sources, read)


@per_automaton
def _half_turns_shape(automaton) -> tuple[int, int]:
    """``(d, K)`` of the ``half-turns`` weights, counted before any factor is converted (the sources
    are built: :func:`_half_turn_sources`; :func:`~.halfturns.nonneg_shape`, docs/theory.md,
    Theorem F13's corollary): its ``known_dim`` and ``known_count``, so ``build`` converts no
    factor where a smaller d is found or for a smaller K."""
    sources, read = _half_turn_sources(automaton)
    return nonneg_shape(automaton.name or "automaton", sources, read)


def complexified(automaton) -> Weights:
    """The registry's smallest real ``monomial`` weights of ``automaton``, complexified (d = 2 x
    theirs, :func:`~.complex_monomial.complexify`): a ``monomial,complex`` network for every
    automaton (real monomial ones exist for every automaton: the one-hot construction's matrices
    are column one-hot).  Theorem F11 (iv) of docs/theory.md."""
    return complexify(build(automaton, "monomial"))


CONSTRUCTIONS: tuple[Construction, ...] = (
    Construction("sign", ("parity", "cyclic"), "diagonal", "1 (Z_1, Z_2 only)", "Theorem 2 (orbit separation, orbit {1, -1})", cyclic_sign),
    Construction("rotation", ("parity", "cyclic"), "rotation2d", "2", "Theorem 2 (orbit separation)", cyclic_rotation),
    Construction("crt-rotation", ("product",), "rotation2d", "2 (coprime cyclic factors)",
                 "Chinese remainder theorem + Theorem 2 (orbit separation)", crt_rotation),
    Construction("dihedral", ("dihedral",), "block:2", "2", "Theorem 2 (orbit separation)", dihedral_block),
    Construction("standard", ("symmetric", "alternating"), "full", "N-1", "Theorem 2 (orbit separation)", standard),
    Construction("quaternion", ("quaternion",), "full", "4", "Theorem 2 (orbit separation)", quaternion_right),
    Construction("icosahedral", ("*",), "full", "3 (A_5 only)", "Theorem 2 (orbit separation)", icosahedral),
    Construction("abelian", ("*",), "full", "1 per invariant factor 2, 2 per factor > 2",
                 "Theorem 11 (abelian groups by invariant factors)", abelian_full),
    Construction("abelian-rotation", ("*",), "rotation2d", "2 per invariant factor",
                 "Theorem 11 (abelian groups by invariant factors)", abelian_rotation),
    Construction("reset-parabola", ("*",), "full", "2 (resets and identities)", "Theorem 10 (resets on a parabola)", reset_parabola),
    Construction("abelian-factorized", ("*",), "factorized", "as abelian, R = n_1 + 3 n_2",
                 "Theorem 12 (small factorised ranks)", factorized_abelian),
    Construction("dihedral-pencil", ("dihedral",), "factorized", "2, R = 2", "Theorem 12 (small factorised ranks)", factorized_dihedral),
    Construction("quaternion-pencil", ("quaternion",), "factorized", "4, R = 6", "Theorem 12 (small factorised ranks)", factorized_quaternion),
    Construction("reset-support", ("*",), "factorized", "2, R = 3", "Theorem 12 (small factorised ranks)", factorized_reset),
    Construction("one-hot-support", ("*",), "factorized", "n, R = transition edges",
                 "Theorem 12 (small factorised ranks)", factorized_onehot,
                 known_dim=lambda a: minimal(a).n_states, known_rank=lambda a: _edges(minimal(a))),
    Construction("one-hot", ("*",), "full", "n (states of the minimal automaton)", "Theorem 1 (one-hot simulation)", onehot,
                 known_rank=lambda a: _onehot_rank(minimal(a))),
    Construction("cube", ("symmetric", "alternating"), "full", "3 (S_4, A_4 only; rotations, K = 2)",
                 "Theorem 2 (orbit separation) + Theorem F4 (rotations of R^3 are two reflections)", cube),
    Construction("tetrahedral", ("symmetric", "alternating"), "full", "3 (S_4, A_4 only; transpositions K = 1)",
                 "Theorem 2 (orbit separation)", tetrahedral),
    Construction("triangle", ("symmetric", "alternating"), "full", "2 (S_3, A_3 only)",
                 "Theorem 2 (orbit separation)", triangle),
    Construction("permutation", ("symmetric", "alternating"), "full", "N (transpositions K = 1)",
                 "Theorem 2 (orbit separation)", permutation),
    Construction("simplex", ("symmetric", "alternating"), "full", "N-1 (orthogonal in Q(zeta_4N); N <= 8)",
                 "Theorem 2 (orbit separation) + Theorem F4 (orthogonal matrices are rank(Q - I) reflections)", simplex,
                 known_dim=lambda a: _points(a) - 1),
    Construction("signed-cycles", ("parity", "cyclic", "product"), "monomial", "sum of prime powers of m / gcd(m, 2)",
                 "Theorem 2 (orbit separation); minimal by Theorem F6", cyclic_monomial,
                 known_dim=cyclic_monomial_dim),
    Construction("n-gon", ("dihedral",), "monomial", "N", "Theorem 2 (orbit separation)", dihedral_permutation,
                 known_dim=lambda a: dihedral_exponents(a)[0]),
    Construction("reset-projection", ("*",), "householder:1,nonneg", "2 (resets and identities)",
                 "Theorem 10 (resets on a parabola), resets as projections", reset_projection),
    Construction("parity-projections", ("*",), "householder:3,nonneg", "2 (two-state groups), K = 3",
                 "Theorem F2 (three projections flip a sign)", parity_projections),
    Construction("rotation-projections", ("*",), "householder:3,nonneg",
                 "2 (Z_m, m = 3, 4, 5, 6: K = 3 per generator a symbol takes; Z_3 K = 3, Z_4 and Z_5 K <= 6, Z_6 K <= 9)",
                 "Theorem F10 (three factors with beta in [0, 1] make a rotation of order 3, 4, 5 or 6)", rotation_projections,
                 kinds=("householder",)),
    Construction("sign-projections", ("*",), "householder:7,nonneg",
                 "d (+1 when a symbol has an odd number of -1 signs), K = 6 per pair of -1 signs + 1 per +1",
                 "Theorem F12 (-I on a plane is six factors with beta in [0, 1))", sign_projections,
                 kinds=("householder",)),
    Construction("half-turns", ("*",), "householder:14,nonneg",
                 "an orthogonal construction's d (d = n from one-hot-householder), +1 for an odd run of "
                 "reflections or d = 2; K <= d + 4 per reflection (one more for an odd run)",
                 "Theorem F13 (a rotation is half-turns; a half-turn is d + 4 factors with beta in [0, 1))", half_turns,
                 kinds=("householder,nonneg",), known_dim=lambda a: _half_turns_shape(a)[0],
                 known_count=lambda a: _half_turns_shape(a)[1]),
    Construction("complex-dihedral", ("dihedral", "symmetric"), "monomial,complex", "4 (two complex coordinates)",
                 "Theorem F11 (D_n induced from a character of the rotations)", complex_dihedral,
                 kinds=("monomial,complex",)),
    Construction("complexified", ("*",), "monomial,complex", "2 x the real monomial d",
                 "Theorem F11 (real monomial weights as complex ones)", complexified, kinds=("monomial,complex",)),
    Construction("one-hot-householder", ("*",), "householder", "n (states of the minimal automaton), K <= n",
                 "Theorem F9 (one-hot states, each symbol a partial isometry: projections, then reflections)",
                 onehot_householder, known_dim=lambda a: minimal(a).n_states, kinds=("householder",),
                 known_count=lambda a: _onehot_householder_count(minimal(a)),
                 known_nonneg=lambda a: _onehot_householder_nonneg(minimal(a))),
)


def _points(a) -> int:
    """N of a ``symmetric:N`` / ``alternating:N`` spec (ConstructionError for another automaton)."""
    if a.spec is None or a.spec.is_product or a.spec.family not in ("symmetric", "alternating"):
        raise ConstructionError(f"{a.name or 'automaton'}: needs a symmetric or alternating spec")
    return int(a.spec.param("N"))


def _edges(m) -> int:
    """The transition edges ``q -> delta(a, q)`` of ``m`` (distinct pairs): one-hot-support's R."""
    n = m.n_states
    return max(len(np.unique((m.delta * n + np.arange(n)).ravel())), 1)


def _onehot_rank(m) -> int:
    """:func:`factorized_rank` of the one-hot weights of ``m``: each matrix's rank is the size of
    its symbol's image, capped at d when every symbol is the identity (diagonal weights)."""
    total = sum(len(np.unique(row)) for row in m.delta)
    return min(total, m.n_states) if (m.delta == np.arange(m.n_states)).all() else total


def _onehot_householder_count(m) -> int | None:
    """K of the one-hot-householder weights of ``m`` (Theorem F9) when every symbol permutes the
    states, else None (not known before building).  A permutation with ``c`` cycles (fixed points
    included) takes ``n - c`` reflections, each sending one state's current image to its place (as
    selection sort takes ``n - c`` transpositions), and no projection; K is the most any symbol
    takes, at least 1.

    >>> from bilinear.automata.families import from_spec
    >>> [_onehot_householder_count(minimal(from_spec(s))) for s in ("cyclic:5", "dihedral:4", "flipflop:2")]
    [4, 6, None]
    """
    n = m.n_states
    most = 1
    for row in m.delta:
        if len(set(int(x) for x in row)) < n:
            return None  # projections, and reflections of unit vectors that are not one-hot
        seen, cycles = [False] * n, 0
        for q in range(n):
            if not seen[q]:
                cycles += 1
                while not seen[q]:
                    seen[q] = True
                    q = int(row[q])
        most = max(most, n - cycles)
    return most


def _onehot_householder_nonneg(m) -> bool | None:
    """Whether the one-hot-householder weights of ``m`` have no reflection (beta = 2), known for a
    permutation automaton (:func:`_onehot_householder_count`): only when every symbol is the
    identity; None for another automaton.

    >>> from bilinear.automata.families import from_spec
    >>> [_onehot_householder_nonneg(minimal(from_spec(s))) for s in ("cyclic:5", "flipflop:2")]
    [False, None]
    """
    if _onehot_householder_count(m) is None:
        return None
    return bool((m.delta == np.arange(m.n_states)).all())


def _pad(w: Weights, d: int) -> Weights:
    if d == w.dim:
        return w
    k, c = w.n_symbols, w.n_classes
    dtype = object if w.exact else np.float64
    A = np.zeros((k, d, d), dtype=dtype)
    A[:, : w.dim, : w.dim] = w.A
    h0 = np.zeros(d, dtype=dtype)
    h0[: w.dim] = w.h0
    R = np.zeros((c, d), dtype=dtype)
    R[:, : w.dim] = w.readout
    return Weights._trusted("full", A, h0, R, exact=w.exact)  # entries: w's and zeros


def _native_kind(c: Construction) -> str:
    """The kind of a construction's native variant (``householder:3,nonneg`` -> ``householder``)."""
    return c.variant.split(":", 1)[0].split(",", 1)[0]


def _kind_matches(c: Construction, v) -> bool:
    """True when ``build`` tries ``c`` for variant ``v``: ``c.kinds`` is None, or names ``v``'s
    kind (``householder``), or its kind with its options (``monomial,complex``, not ``monomial``)."""
    return c.kinds is None or v.kind in c.kinds or v.info.spec(None, v.options) in c.kinds


def _factored(c: Construction) -> bool:
    """True for a construction whose native variant carries factors (``factorized``)."""
    return KINDS[_native_kind(c)].factored


def factorized_rank(w: Weights) -> int:
    """The R for which :func:`adapt` can factorise ``w``: d if diagonal, else the sum of ranks.

    >>> factorized_rank(build("parity", "diagonal")), factorized_rank(build("cyclic:3", "rotation2d"))
    (1, 6)
    """
    if w.factors is not None and w.variant_info.info.factored:  # weights built with their own (small) factors
        return int(w.factors[0].shape[1])
    total = 0
    for s in range(w.n_symbols):
        if w.exact:
            total += rank_decomposition(w.A[s])[0].shape[1]
        else:
            total += float_rank_decomposition(w.A[s], 1e-9)[0].shape[1]
    return min(total, w.dim) if is_diagonal(w.A if w.exact else w.float_arrays()[0], w.exact) else total


def adapt(w: Weights, variant) -> Weights | None:
    """``w`` re-expressed in ``variant`` (embedding where natural), or None if it does not fit."""
    v = parse_variant(variant)
    if v.info.factored:
        assert v.param is not None  # parse_variant requires the parameter of a factored kind
        if v.param > max_factor_rank(w.n_symbols, w.dim):  # before any factor is allocated
            return None
        if factorized_rank(w) > v.param:
            return None
    if v.info.param is not None and v.block_size is not None:  # block:B pads to a multiple of B
        w = _pad(w, -(-w.dim // v.block_size) * v.block_size)
    if w.variant == v.spec:
        return w  # built and checked in this very variant: nothing to re-express or re-check
    try:  # w's own (normalised) entries in another variant: only the conformance is checked
        if w.factors is not None and w.variant_info.kind == v.kind:  # its own factors, padded
            factors = w.factors if v.info.pad is None else v.info.pad(w.factors, v.param)
            return None if factors is None else Weights._trusted(v, w.A, w.h0, w.readout, factors, exact=w.exact)
        return Weights._trusted(v, w.A, w.h0, w.readout, exact=w.exact)
    except ConformanceError:
        return None


def _family(a) -> str | None:
    """The family the constructions read: the spec's, else one recognised from the algebra."""
    if a.spec is not None:
        return a.spec.family
    from bilinear.automata.groups import RegularGroup, cyclic_presentation, dihedral_presentation

    group = RegularGroup.of(a)
    if cyclic_presentation(group) is not None:
        return "cyclic"
    if dihedral_presentation(group) is not None:
        return "dihedral"
    return None


def _resolve(spec_or_automaton):
    """(automaton, family name or None, factor automata of a product or None)."""
    from bilinear.automata.automaton import Automaton
    from bilinear.automata.families import from_spec

    if isinstance(spec_or_automaton, Automaton):
        a = spec_or_automaton
    elif isinstance(spec_or_automaton, str):
        a = from_spec(spec_or_automaton)
    else:
        raise ConstructionError(f"build needs a spec string or an Automaton, got {type(spec_or_automaton).__name__}")
    if a.spec is not None and a.spec.is_product:
        return a, a.spec.family, [from_spec(f.text) for f in a.spec.factors]
    return a, _family(a), None


def candidates(spec_or_automaton, kind: str | None = None, *, tried_for=None) -> list[tuple[Construction, Weights]]:
    """Every construction that applies, built (exact), in registry order; with ``kind``, only
    those whose own variant is of that kind (``householder``: none of the one-hot ``full`` ones);
    with ``tried_for`` (a variant), only those :func:`build` tries for it (``half-turns`` is built
    for ``householder,nonneg`` alone), the others not built at all.

    See Also
    --------
    factor_counts : the factor counts of these constructions, known ones read without building.
    """
    a, family, _ = _resolve(spec_or_automaton)
    v = None if tried_for is None else parse_variant(tried_for)
    out = []
    for c in CONSTRUCTIONS:
        if kind is not None and _native_kind(c) != kind:
            continue
        if v is not None and (not _kind_matches(c, v) or (_factored(c) and not v.info.factored)):
            continue  # not tried for v by build (_skip_reason): a factorised one is for factored variants only
        if c.applies(family):
            try:
                out.append((c, c.builder(a)))
            except ConstructionError:
                continue
    return out


def factor_counts(spec_or_automaton, kind: str, *, tried_for) -> list[int]:
    """The factor counts (``K``, ``R``: the variant's parameter) of the constructions of native
    ``kind`` that :func:`build` tries for the variant ``tried_for``, in registry order: each one
    known before building (``known_count``: ``one-hot-householder`` of a permutation automaton,
    ``half-turns`` counted from its sources) without building it, the others read off the
    weights built (:func:`candidates`).

    >>> factor_counts("dihedral:5", "householder", tried_for="householder:7,nonneg")
    [14, 8]
    """
    a, family, _ = _resolve(spec_or_automaton)
    v = parse_variant(tried_for)
    out = []
    for c in CONSTRUCTIONS:
        if _native_kind(c) != kind or not _kind_matches(c, v) or not c.applies(family):
            continue
        k = _known_count(c, a)
        if k is None:
            try:
                k = c.builder(a).variant_info.param
            except ConstructionError:
                continue
        if k is not None:
            out.append(int(k))
    return out


def smallest_factor_rank(spec_or_automaton) -> int | None:
    """The smallest :func:`factorized_rank` among the constructions ``build`` tries for a
    ``factorized`` variant (and, for a product, the direct sums of its factors' constructions in
    each variant of :data:`~bilinear.constructions.values.variants.FACTOR_SOURCES`), None when none
    applies.  A construction whose rank is known before building it (``known_rank``) is built only
    when that rank beats the smallest found, so ``symmetric:6`` never builds the 720-state one-hot
    ones; those built only for other kinds (``half-turns``, ``complexified``) are not built.

    >>> smallest_factor_rank("symmetric:6"), smallest_factor_rank("cyclic:3*parity")
    (10, 3)
    """
    from ..values.variants import FACTOR_SOURCES

    a, family, parts = _resolve(spec_or_automaton)
    v = parse_variant("factorized:1")
    ranks: list[int] = []
    later = []
    for c in CONSTRUCTIONS:
        if not c.applies(family) or not _kind_matches(c, v):
            continue
        if c.known_rank is not None:
            later.append(c)
            continue
        try:
            ranks.append(factorized_rank(c.builder(a)))
        except ConstructionError:
            continue
    for c in later:
        assert c.known_rank is not None  # later holds the constructions that know their rank
        try:
            if ranks and c.known_rank(a) >= min(ranks):
                continue
            ranks.append(factorized_rank(c.builder(a)))
        except ConstructionError:
            continue
    for variant in FACTOR_SOURCES if parts is not None else ():  # products' direct sums
        try:
            ranks.append(factorized_rank(build(a, variant)))
        except ConstructionError:
            continue
    return min(ranks, default=None)


def _count_refused(c: Construction, a, v) -> tuple[str, str | None] | None:
    """Why ``build`` does not build ``c`` for ``v``, a variant of its own kind that counts factors
    (``householder:K``), with the error's line for it: its count, known before building it
    (``known_count``), exceeds ``v``'s (the line names its native variant at that count and, where
    known, its d, as the lines of the constructions built give theirs: ``half-turns
    (householder:14,nonneg, d=3; counted, not built)``, so that the error still names what would
    fit), or its factors include reflections and ``v`` is ``nonneg`` (no line); None when it may
    fit (or is not known)."""
    if _native_kind(c) != v.kind or not v.info.counts_factors or v.info.factored:
        return None
    k = _known_count(c, a)
    name = v.info.param
    if k is not None and k > v.param:
        d = None if c.known_dim is None else _known(c.known_dim, a)
        native = v.info.spec(k, tuple(c.variant.split(",")[1:]))  # its own options (nonneg), at count k
        line = f"{c.name} ({native}" + ("" if d is None else f", d={d}") + "; counted, not built)"
        return f"its {name} = {k} exceeds {name} = {v.param}", line
    if "nonneg" in v.options and c.known_nonneg is not None and _known(c.known_nonneg, a) is False:
        return f"its factors include reflections (beta = 2), not {v.spec}", None
    return None


def _known(fn: Callable, a):
    """``fn(a)``, None when it raises ConstructionError (the builder says why when built)."""
    try:
        return fn(a)
    except ConstructionError:
        return None


def _known_count(c: Construction, a) -> int | None:
    """``c``'s factor count known before building it, or None (not known, or it does not apply:
    its builder says why when built)."""
    return None if c.known_count is None else _known(c.known_count, a)


def _rank_refused(c: Construction, a, v) -> str | None:
    """Why ``build`` does not build ``c`` for the factored variant ``v``: its rank, known before
    building it (``known_rank``), exceeds ``v``'s R; None when it may fit (or is not known)."""
    if not v.info.factored or c.known_rank is None:
        return None
    try:
        r = c.known_rank(a)
    except ConstructionError as exc:
        return str(exc)
    return f"its R = {r} exceeds R = {v.param}" if r > v.param else None


@dataclass
class _Candidate:
    """One construction :func:`build` considered, at its place in the order that breaks ties and
    orders ``--explain`` and the error's list (``order``: the direct sums first, then the
    registry's order): ``tried``, the error's line for it when it was built; ``weights``, its
    weights when they conform to the variant; ``reason``, why it was not chosen, when it was not;
    ``too_large``, the error of a construction too large to build."""

    order: tuple[int, int]
    name: str
    tried: str | None = None
    dim: int | None = None  # the hidden size of what was built
    weights: Weights | None = None
    reason: str | None = None
    too_large: ConstructionTooLargeError | None = None


def _smallest(found: list[_Candidate]) -> int | None:
    """The smallest d among the candidates with weights, or None."""
    return min((c.weights.dim for c in found if c.weights is not None), default=None)


def _direct_sums(parts, v) -> list[_Candidate]:
    """The direct sums of the factors' constructions (in ``v``, then in ``full``) of a product."""
    out = []
    subs = [] if v.info.factored else [v.spec]
    for i, sub_variant in enumerate(dict.fromkeys([*subs, "full"])):
        name = f"direct sum ({sub_variant})"
        try:
            factors = [build(p, sub_variant) for p in parts]
        except ConstructionError as exc:
            out.append(_Candidate((0, i), name, tried=f"direct sum: {exc}", reason=str(exc)))
            continue
        combined = direct_sum(factors, "full")
        w = adapt(combined, v)
        out.append(_Candidate((0, i), name, tried=f"direct sum ({sub_variant}, d={combined.dim})", weights=w,
                              dim=combined.dim,
                              reason=None if w is not None else
                              f"built {combined.variant} d={combined.dim}, which does not conform to {v.spec}"))
    return out


def _attempt(c: Construction, order: tuple[int, int], a, v) -> _Candidate:
    """Build ``c`` and adapt it to ``v``: its weights, or why not."""
    try:
        base = c.builder(a)
    except ConstructionTooLargeError as exc:
        return _Candidate(order, c.name, reason=str(exc), too_large=exc)  # raised when nothing smaller is found
    except ConstructionError as exc:
        return _Candidate(order, c.name, reason=str(exc))
    w = adapt(base, v)
    return _Candidate(order, c.name, tried=f"{c.name} ({base.variant}, d={base.dim})", weights=w, dim=base.dim,
                      reason=None if w is not None else f"built {base.variant} d={base.dim}, which does not conform to {v.spec}")


def _skip_reason(c: Construction, a, v, found: list[_Candidate]) -> tuple[str, str | None] | None:
    """Why ``c`` is not built at all (its kind, or a known d no smaller than one ``found``), with
    the error's line for it where its count refused it (:func:`_count_refused`), or None."""
    if not _kind_matches(c, v):
        return f"built for {', '.join(c.kinds or ())} variants only (not {v.spec})", None  # another of the same d comes first
    if _factored(c) and not v.info.factored:
        return f"a factorised construction, for factored variants only (not {v.spec})", None  # it reuses another's matrices
    rank = _rank_refused(c, a, v)
    if rank is not None:  # its rank, known before building it, exceeds the variant's
        return rank, None
    counted = _count_refused(c, a, v)
    if counted is not None:
        return counted
    smallest = _smallest(found)
    if c.name == "one-hot":  # d = n: it cannot beat what was found
        return None if smallest is None or smallest > a.n_states else \
            (f"its d = {a.n_states} cannot beat the d = {smallest} found", None)
    if c.known_dim is not None and smallest is not None:
        try:
            d = c.known_dim(a)
        except ConstructionError as exc:
            return str(exc), None
        if d >= smallest:
            return f"its d = {d} cannot beat the d = {smallest} found", None
    return None


def _registry_candidates(a, family, v, out: list[_Candidate]) -> None:
    """Append the registry's constructions of ``family`` to ``out``, in the order they are built.

    The one-hot construction (d = the number of states) is built last, and only when nothing
    after it in the registry found a smaller d: it is the slowest to build and adapt (S_6 has 720
    states), and it is rarely the smallest.  It keeps its place in the order, so it wins a tie
    with the constructions after it exactly as when it was built in turn."""
    deferred: tuple[Construction, tuple[int, int]] | None = None
    for i, c in enumerate(CONSTRUCTIONS):
        if not c.applies(family):
            continue
        skipped = _skip_reason(c, a, v, out)
        if skipped is not None:
            out.append(_Candidate((1, i), c.name, tried=skipped[1], reason=skipped[0]))
        elif c.name == "one-hot":
            deferred = (c, (1, i))
        else:
            out.append(_attempt(c, (1, i), a, v))
    if deferred is not None:
        smallest = _smallest(out)
        if smallest is not None and smallest < a.n_states:
            out.append(_Candidate(deferred[1], deferred[0].name,
                                  reason=f"its d = {a.n_states} cannot beat the d = {smallest} found"))
        else:
            out.append(_attempt(*deferred, a, v))


def _count_limit_note(v, largest: int) -> str:
    """``"; K = 1,000 is over 64 x hidden = 128 ..."`` when the factor count of ``v`` passes the
    limit (:data:`~bilinear.constructions.values.factored.MAX_COUNT_PER_HIDDEN` per hidden
    dimension, the one ``train`` names) at the largest hidden size ``largest`` of every
    construction built; else ``""``."""
    from ..values.factored import MAX_COUNT_PER_HIDDEN

    most = MAX_COUNT_PER_HIDDEN * largest
    if v.param is None or v.param <= most:
        return ""
    name = KINDS[v.kind].param
    return (f"; {name} = {v.param:,} is over {MAX_COUNT_PER_HIDDEN} x hidden = {most:,} for every construction "
            f"built (d <= {largest}): use {name} <= {most:,}")


def _nothing_fits(a, family, v, tried: list[str], dims: list[int]) -> ConstructionError:
    """The error when no construction fits: the candidates built, for a factored variant the
    smallest factor rank known and the factor-rank limit, and for a count of factors (K, R) past
    the limit at every hidden size built (``dims``), that limit."""
    extra = ""
    if not v.info.factored and v.info.counts_factors and dims:
        extra = _count_limit_note(v, max(dims))
    if v.info.factored:
        # the constructions build tries for a factored variant, as smallest_factor_rank counts
        # them (none built that cannot beat the smallest rank; half-turns, built only for its own
        # kind, not at all: modarith:6*modarith:6's refusal took 26.6 s building it for this
        # message alone); the limits from their hidden sizes, known before building where known
        smallest = smallest_factor_rank(a)
        most = []
        for c in CONSTRUCTIONS:
            if c.applies(family) and _kind_matches(c, v):
                try:
                    d = _known(c.known_dim, a) if c.known_dim is not None else c.builder(a).dim
                except ConstructionError:
                    continue
                if d is not None:
                    most.append(max_factor_rank(a.n_symbols, d))
        if smallest is not None:
            extra = f"; the smallest known needs R >= {smallest}"
        assert v.param is not None  # parse_variant requires the parameter of a factored kind
        if most and v.param > max(most):
            extra += (f"; R = {v.param:,} exceeds the factor-rank limit (max(symbols x hidden, "
                      f"hidden^2, 256) = {max(most):,}) of every construction")
    label = a.name or "automaton"
    return ConstructionError(f"no construction of {label} for variant {v.spec!r} (candidates: {', '.join(tried)}){extra}")


def build(spec_or_automaton, variant, *, refusals: list | None = None) -> Weights:
    """Exact weights of the smallest known construction of this automaton in ``variant``.

    ``refusals``, when a list, receives ``(construction, reason)`` for every construction of the
    family that was not chosen — the builder's own ConstructionError, weights that do not conform
    to ``variant``, a skip, or a larger d than the one chosen — so ``bilinear verify --explain``
    can say why (the reasons are kept even when nothing fits and ConstructionError is raised).

    ``spec_or_automaton`` is a family spec (products with ``*``) or an Automaton (one made by
    ``from_spec`` carries its parsed spec; one built by hand is recognised from its algebra when
    it is a cyclic or dihedral group acting on its states, else gets the constructions that read
    only the algebra: abelian groups, resets, A_5, one-hot).  Raises
    SpecError for a bad spec or variant, ConstructionError naming family and variant when no
    construction fits.
    """
    v = parse_variant(variant)
    a, family, parts = _resolve(spec_or_automaton)
    considered = _direct_sums(parts, v) if parts is not None else []
    _registry_candidates(a, family, v, considered)
    too_large = next((c.too_large for c in considered if c.too_large is not None), None)  # the first raised
    considered.sort(key=lambda c: c.order)
    found = [(c.name, c.weights) for c in considered if c.weights is not None]
    best = min(found, key=lambda t: t[1].dim, default=None)  # the smallest d, the first among equals
    refused = [(c.name, c.reason) for c in considered if c.reason is not None]
    if best is not None:
        refused += [(name, f"d = {w.dim}; {best[0]} (d = {best[1].dim}) was chosen: the smallest d, "
                           "the first built among equals") for name, w in found if w is not best[1]]
    if refusals is not None:
        refusals.extend(refused)
    if best is None and too_large is not None:
        raise too_large
    if best is None:
        raise _nothing_fits(a, family, v, [c.tried for c in considered if c.tried is not None],
                            [c.dim for c in considered if c.dim is not None])
    return best[1]

"""Half-turns from factors with beta in [0, 1): orthogonal and one-hot constructions as
``householder:K,nonneg`` (Theorem F13 of docs/theory.md).

A *half-turn* is ``-1`` on a plane ``P`` and ``+1`` on ``P^perp``.  With beta in [0, 1) every
factor ``H(v, beta) = I - beta v v^T / (v^T v)`` is positive definite, so no factor, and no
product of two, rotates; three can (Theorem F10).  Here:

1. **A half-turn is ``d + 4`` factors, up to a positive scale** (:func:`half_turn_factors`).  Let
   ``p_1 ⊥ p_2`` span P (``n_i = p_i . p_i``) and take ``a = p_1``, ``b = p_1 + t p_2``,
   ``c = p_1 - t p_2`` with ``t`` the least positive integer with ``t^2 n_2 > n_1``, so that
   ``(a.b)(b.c)(c.a) < 0``.  With ``beta_1 = beta_2 = 1 - 2^-k`` and ``beta_3`` solved from the
   linear equation ``tr_P(H(a, beta_1) H(b, beta_2) H(c, beta_3)) = 0``, the three factors act on
   P as a matrix ``M`` of trace 0 and determinant ``delta = (1 - beta_1)(1 - beta_2)(1 - beta_3) > 0``,
   so ``M^2 = -delta I`` on P (Cayley-Hamilton), and as the identity on ``P^perp``.  For ``k`` large
   enough ``beta_3`` lies in (0, 1): at ``beta_3 = 0`` the trace is that of a product of two positive
   definite matrices (positive), and at ``beta_3 = 1`` it tends, as ``k`` grows, to
   ``(a.b)(b.c)(c.a) / (n_a n_b n_c) < 0`` (the three projections onto the lines perpendicular to
   a, b, c).  The six factors ``M M`` and one factor ``H(q, 1 - delta)`` per vector of an orthogonal
   basis of ``P^perp`` give ``delta`` times the half-turn.
2. **A rotation is half-turns** (:func:`rotation_half_turns`).  ``g`` in SO(d), d >= 3, is
   ``R_{v_1} ... R_{v_k}`` with ``k = rank(g - I)`` exact reflections (Theorem F4); a pair
   ``R_u R_v`` is one half-turn when ``u ⊥ v`` and otherwise ``(R_u R_w)(R_w R_v)`` with ``w`` orthogonal
   to both (d >= 3), two half-turns.  So g is at most k half-turns, ``k (d + 4)`` factors.
3. **Sources transfer** (:func:`nonneg_weights`; the registry's ``half_turns`` picks the sources).  Take weights whose factors are reflections
   (beta = 2) and factors with beta in [0, 1]: an orthogonal construction (``cube``, ``dihedral``,
   ``quaternion``, ``icosahedral``, ``triangle``, ``simplex``, the cyclic ``rotation``) split into
   its exact reflections, or ``one-hot-householder`` (Theorem F9: projections, beta = 1, then
   reflections; every automaton, d = n).  Every run of consecutive reflections becomes half-turns
   by step 2; a run of odd length first takes the reflection in one more coordinate, where h0 and
   the readout are 0 (so every hidden vector is 0 there and its sign never matters), and that
   coordinate is the ``w`` of every non-orthogonal pair (which also covers d = 2).  The new
   matrices are positive multiples of the source's (extended by +-1 on the new coordinate), so
   every hidden vector keeps its direction and the same readout works.  Among the sources the
   smallest d wins, then the smallest K, both counted before any factor is converted
   (:func:`nonneg_dim`, :func:`nonneg_count`): only the winner is converted.

Every entry lies in the field of the orthogonal construction (rationals or a cyclotomic field):
no square root is taken.

>>> from bilinear.automata.families import from_spec
>>> from bilinear.constructions.handmade.registry import half_turns
>>> w = half_turns(from_spec("dihedral:4"))
>>> w.variant, w.dim
('householder:14,nonneg', 3)
"""

from __future__ import annotations

from fractions import Fraction

import flint
import numpy as np

from bilinear.errors import ConstructionError

from ..values.linalg import fraction_vector, rational_matrix
from ..values.weights import Weights

__all__ = ["half_turn_factors", "rotation_half_turns", "nonneg_weights", "source_factors", "nonneg_dim", "nonneg_count",
           "nonneg_shape", "HALF_TURNS_MAX_DIM", "HALF_TURN_STEPS"]

#: The largest hidden size :func:`nonneg_weights` builds: a symbol takes up to d + 4 factors per
#: reflection of its source (two half-turns per pair), composed exactly in O(d^2) each
#: (``modular_arithmetic:3``, d = 25, K = 189: 6.5 s on one core).
HALF_TURNS_MAX_DIM = 32

#: How far ``beta_1 = beta_2 = 1 - 2^-k`` is pushed towards 1 before giving up (the proof in the
#: module docstring says some k works; the capability matrix's rows need k <= 6).
HALF_TURN_STEPS = 60


def _dot(u, v):
    return sum((x * y for x, y in zip(u, v)), Fraction(0))


def _complement(vectors: list, d: int) -> list:
    """An orthogonal basis (exact Gram-Schmidt, no normalisation) of the orthogonal complement of
    the span of ``vectors``, themselves pairwise orthogonal and non-zero."""
    fast = _rational_complement(vectors, d)
    if fast is not None:
        return fast
    basis = [np.asarray(v, dtype=object) for v in vectors]
    out = []
    for i in range(d):
        e = np.array([Fraction(int(i == j)) for j in range(d)], dtype=object)
        for b in basis:
            e = e - b * (_dot(e, b) / _dot(b, b))
        if any(x != 0 for x in e):
            basis.append(e)
            out.append(e)
    return out


def _rational_complement(vectors: list, d: int) -> list | None:
    """:func:`_complement` in FLINT's exact rationals when every entry is an int or a Fraction
    (else None).  With the basis pairwise orthogonal, the Gram-Schmidt residual of ``e_i`` is
    column i of the projector ``P = I - sum_b b b^T / (b.b)`` (each projection of e_i onto a
    later b reads the same dot product as onto the original e_i), so keeping P and subtracting
    ``r r^T / (r.r)`` for every residual r kept gives the same vectors, in O(d^2) C operations
    per coordinate instead of O(d^2) Python Fractions.  Entries come back as Fractions, as there."""
    P = flint.fmpq_mat(d, d, [1 if i == j else 0 for i in range(d) for j in range(d)])
    for v in vectors:
        b = rational_matrix(list(v), d, 1)
        if b is None:
            return None
        P = P - b * (b.transpose() * (1 / (b.transpose() * b)[0, 0]))
    out = []
    for i in range(d):
        r = flint.fmpq_mat(d, 1, [P[j, i] for j in range(d)])
        if any(x != 0 for x in r.entries()):
            out.append(fraction_vector(r))
            P = P - r * (r.transpose() * (1 / (r.transpose() * r)[0, 0]))
    return out


def half_turn_factors(u, w) -> tuple[list, object]:
    """``(factors, delta)``: factors ``(v, beta)``, beta in [0, 1), whose product (in order) is
    ``delta > 0`` times the half-turn on the plane spanned by ``u ⊥ w`` (step 1 of the module
    docstring; ``len(factors) = d + 4``)."""
    u = np.asarray(u, dtype=object)
    w = np.asarray(w, dtype=object)
    d = len(u)
    if _dot(u, w) != 0 or _dot(u, u) == 0 or _dot(w, w) == 0:
        raise ConstructionError("half_turn_factors: the plane's two vectors must be non-zero and orthogonal")
    n1, n2 = _dot(u, u), _dot(w, w)
    t = 1
    while not t * t * n2 > n1:
        t += 1
    a, b, c = u, u + t * w, u - t * w
    na, nb, nc = _dot(a, a), _dot(b, b), _dot(c, c)
    ab, bc, ca = _dot(a, b), _dot(b, c), _dot(c, a)
    for k in range(1, HALF_TURN_STEPS + 1):
        beta = 1 - Fraction(1, 2**k)
        # N = H(a, beta) H(b, beta) is the identity on P^perp; on P its trace and c^T N c are
        tr_plane = 2 - 2 * beta + beta * beta * ab * ab / (na * nb)
        cNc = nc - beta * bc * bc / nb - beta * ca * ca / na + beta * beta * ca * ab * bc / (na * nb)
        if cNc == 0:
            continue
        beta3 = tr_plane * nc / cNc  # tr_P(N H(c, beta3)) = tr_P(N) - beta3 c^T N c / |c|^2 = 0
        if 0 < beta3 < 1:
            break
    else:  # pragma: no cover - the module docstring's limit argument
        raise ConstructionError(f"half_turn_factors: no beta_3 in (0, 1) with beta_1 = beta_2 <= 1 - 2^-{HALF_TURN_STEPS}")
    delta = (1 - beta) * (1 - beta) * (1 - beta3)
    triple = [(a, beta), (b, beta), (c, beta3)]
    scale = [(q, 1 - delta) for q in _complement([u, w], d)]
    return triple + triple + scale, delta


def _orthogonal_to(u, v, d: int):
    for e in _complement([u, v - u * (_dot(v, u) / _dot(u, u))], d):
        return e
    raise ConstructionError("a pair of reflections in d = 2 is no product of half-turns")  # pragma: no cover


def rotation_half_turns(g) -> list[tuple]:
    """The planes ``(u, w)`` (u ⊥ w) of half-turns whose product, in order, is ``g`` in SO(d),
    d >= 3 (step 2 of the module docstring): at most rank(g - I) of them."""
    from ..values.factored import _split_orthogonal

    g = np.asarray(g, dtype=object)
    d = g.shape[0]
    vs = _split_orthogonal(g, True, 0.0)
    if len(vs) % 2:
        raise ConstructionError("rotation_half_turns: a matrix of determinant -1 is no product of half-turns")
    planes = []
    for u, v in zip(vs[0::2], vs[1::2]):
        u = np.asarray(u, dtype=object)
        v = np.asarray(v, dtype=object)
        if _dot(u, v) == 0:
            planes.append((u, v))
        else:
            w = _orthogonal_to(u, v, d)
            planes += [(u, w), (w, v)]  # R_u R_v = (R_u R_w)(R_w R_v)
    return planes


def source_factors(w: Weights) -> list | None:
    """Per symbol the factors ``[(v, beta), ...]`` of source weights: a ``householder`` variant's own
    (those with beta != 0), an exact orthogonal matrix's reflections (Theorem F4), else None."""
    from ..values.factored import _orthogonal, _split_orthogonal
    from ..values.variants import parse_variant

    if not w.exact:
        return None
    if parse_variant(w.variant).info.factor_names == ("V", "beta") and w.factors is not None:  # Householder factors
        V, beta = w.factors
        return [[(V[s, j], beta[s, j]) for j in range(V.shape[1]) if beta[s, j] != 0] for s in range(w.n_symbols)]
    if all(_orthogonal(np.asarray(M, dtype=object), True, 0.0) for M in w.A):
        return [[(v, 2) for v in _split_orthogonal(np.asarray(M, dtype=object), True, 0.0)] for M in w.A]
    return None


def _nonneg_factors(factors: list, d0: int, extra: bool) -> list:
    """A symbol's factors with every run of reflections (beta = 2) replaced by half-turns (step 2):
    an odd run takes the reflection in the extra coordinate ``e_d0`` (0 in every hidden vector)
    when ``extra``; a non-orthogonal pair ``R_u R_v`` becomes ``(R_u R_w)(R_w R_v)`` with ``w``
    the extra coordinate, or a vector orthogonal to both."""
    d = d0 + (1 if extra else 0)
    out: list = []
    run: list = []

    def flush():
        if len(run) % 2:
            e = np.array([Fraction(int(j == d0)) for j in range(d)], dtype=object)
            run.append(e)
        for u, v in zip(run[0::2], run[1::2]):
            if _dot(u, v) == 0:
                planes = [(u, v)]
            else:
                w = (np.array([Fraction(int(j == d0)) for j in range(d)], dtype=object) if extra
                     else _orthogonal_to(u, v, d))
                planes = [(u, w), (w, v)]  # R_u R_v = (R_u R_w)(R_w R_v)
            for a, b in planes:
                out.extend(half_turn_factors(a, b)[0])
        run.clear()

    for v, b in factors:
        v = np.array([Fraction(x) if isinstance(x, int) else x for x in v] + [Fraction(0)] * (d - d0), dtype=object)
        if b == 2:
            run.append(v)
            continue
        flush()
        out.append((v, b))
    flush()
    return out


def _odd_or_flat(factors: list, d0: int) -> bool:
    """True when the symbol's reflections need the extra coordinate: an odd run, or (d0 = 2) any run."""
    runs, n = [], 0
    for _, b in factors:
        if b == 2:
            n += 1
        else:
            runs.append(n)
            n = 0
    runs.append(n)
    return any(r % 2 for r in runs) or (d0 < 3 and any(runs))


def nonneg_dim(w: Weights, factors: list | None = None) -> int:
    """The d of the ``householder:K,nonneg`` weights :func:`nonneg_weights` makes from source
    weights ``w`` (``factors``: :func:`source_factors` of ``w``, read when not given), known
    before any factor is converted: ``w.dim``, one more when a symbol's reflections need the extra
    coordinate (an odd run, or any run when d = 2).  ValueError for weights that are no source.

    >>> from bilinear.automata.families import from_spec
    >>> from bilinear.constructions.handmade.registry import build
    >>> nonneg_dim(build("dihedral:4", "full")), nonneg_dim(build("quaternion", "full"))
    (3, 4)
    """
    factors = _read(w, factors)
    return w.dim + (1 if any(_odd_or_flat(f, w.dim) for f in factors) else 0)


def _read(w: Weights, factors: list | None) -> list:
    """``factors``, or :func:`source_factors` of ``w`` when None; ValueError for weights that are
    no source."""
    factors = source_factors(w) if factors is None else factors
    if factors is None:
        raise ValueError(f"{w.variant} weights of d = {w.dim} are no half-turns source")
    return factors


def _check_betas(factors: list) -> None:
    bad = [b for f in factors for _, b in f if not (0 <= b <= 1 or b == 2)]
    if bad:
        raise ConstructionError(f"half-turns: a factor with beta = {bad[0]} is neither in [0, 1] nor a reflection")


def _convert(w: Weights, factors: list) -> tuple[int, list]:
    _check_betas(factors)
    d = nonneg_dim(w, factors)
    return d, [_nonneg_factors(f, w.dim, d > w.dim) for f in factors]


def _run_count(run: list, turn: int) -> int:
    """The factors a run of reflections ``run`` (their vectors) becomes, ``turn`` per half-turn:
    its pairs in order, one half-turn for an orthogonal pair and two for another (step 2), and
    an odd run's last reflection paired with the extra coordinate, orthogonal to it (one)."""
    pairs = sum(1 if _dot(u, v) == 0 else 2 for u, v in zip(run[0::2], run[1::2]))
    return turn * (pairs + len(run) % 2)


def nonneg_count(w: Weights, factors: list | None = None) -> int:
    """The K of the ``householder:K,nonneg`` weights :func:`nonneg_weights` makes from source
    weights ``w`` alone (``factors``: :func:`source_factors` of ``w``, read when not given), counted
    before any factor is converted (docs/theory.md, Theorem F13, its corollary): per symbol, one
    factor for each factor with beta in [0, 1], and ``d + 4`` (``d`` that of :func:`nonneg_dim`) for
    each half-turn of its runs of reflections (:func:`_run_count`).  K is the most any symbol
    takes, at least 1.  ConstructionError for a factor whose beta is neither in [0, 1] nor 2, as
    converting it raises; ValueError for weights that are no source.

    >>> from bilinear.automata.families import from_spec
    >>> from bilinear.constructions.handmade.registry import build
    >>> nonneg_count(build("dihedral:4", "full")), nonneg_count(build("quaternion", "full"))
    (14, 32)
    """
    factors = _read(w, factors)
    _check_betas(factors)
    turn = nonneg_dim(w, factors) + 4  # factors of one half-turn (step 1)
    most = 1
    for symbol in factors:
        count, run = 0, []
        for v, b in symbol:
            if b == 2:
                run.append(v)
                continue
            count += _run_count(run, turn) + 1
            run = []
        most = max(most, count + _run_count(run, turn))
    return most


def _best_source(label: str, sources: list, read: list | None = None) -> tuple[int, int, Weights, list]:
    """``(d, K, w, factors)`` of the source :func:`nonneg_weights` converts: among ``sources``
    (:func:`source_factors` of the first ones in ``read``; those with none are skipped, and those
    past :data:`HALF_TURNS_MAX_DIM`) the smallest ``(d, K)``, the first among equals, both counted
    before converting (:func:`nonneg_dim`, :func:`nonneg_count`; one with a larger d than the best
    so far is not counted).  ConstructionError when none is left."""
    best = None
    read = [] if read is None else read
    for i, w in enumerate(sources):
        factors = read[i] if i < len(read) else source_factors(w)
        if factors is None:
            continue
        d = nonneg_dim(w, factors)
        if d > HALF_TURNS_MAX_DIM:  # the limit, before any factor is made
            continue
        if best is not None and d > best[0]:  # (d, K) compared: a larger d cannot win
            continue
        K = nonneg_count(w, factors)
        if best is None or (d, K) < best[:2]:
            best = (d, K, w, factors)
    if best is None:
        raise ConstructionError(f"{label}: no source weights (an exact orthogonal or householder construction) within "
                                f"HALF_TURNS_MAX_DIM = {HALF_TURNS_MAX_DIM} (d + 4 factors of d x d exact matrices per "
                                f"reflection of the source)")
    return best


def nonneg_shape(label: str, sources: list, read: list | None = None) -> tuple[int, int]:
    """``(d, K)`` of :func:`nonneg_weights` on these arguments, known before any factor is
    converted (the registry's ``half-turns``: its ``known_dim`` and ``known_count``).
    ConstructionError as it raises."""
    return _best_source(label, sources, read)[:2]


def nonneg_weights(label: str, symbols, sources: list, read: list | None = None) -> Weights:
    """``householder:K,nonneg`` weights whose matrices are positive multiples of a source's (module
    docstring, Theorem F13): the same h0 and readout, one more coordinate when a symbol's
    reflections need it; among the sources (:func:`source_factors` reads each; others are
    skipped) the smallest d, then the smallest K.  ``label`` and ``symbols`` name the automaton in
    errors; ``read``, when given, holds :func:`source_factors` of the first sources, already read
    (an orthogonal matrix's reflections are exact work).  The registry's ``half-turns``
    construction calls it with its sources."""
    from ..values.factored import householder_compose, positive_multiple

    d, K, w, factors = _best_source(label, sources, read)
    d, converted = _convert(w, factors)
    if max(1, max(len(f) for f in converted)) != K:  # pragma: no cover - an internal invariant
        raise AssertionError(f"{label}: half-turns made other than the {K} factors counted")
    d0 = w.dim
    V = np.empty((w.n_symbols, K, d), dtype=object)
    beta = np.empty((w.n_symbols, K), dtype=object)
    for s, factors in enumerate(converted):
        padded = factors + [(np.array([Fraction(int(j == 0)) for j in range(d)], dtype=object), Fraction(0))] * (
            K - len(factors))
        for j, (v, b) in enumerate(padded):
            V[s, j] = list(v)
            beta[s, j] = b
    A = householder_compose(V, beta)
    for s in range(w.n_symbols):  # each symbol a positive multiple of the source's matrix (its d0 x d0 block)
        if not positive_multiple(A[s], np.asarray(w.A[s], dtype=object)):
            raise ConstructionError(f"{label}: symbol {symbols[s]!r} is not a positive multiple of "
                                    f"its source matrix")  # pragma: no cover - Theorem F13
    h0 = np.empty(d, dtype=object)
    h0[...] = Fraction(0)
    h0[:d0] = w.h0
    readout = np.empty((w.n_classes, d), dtype=object)
    readout[...] = Fraction(0)
    readout[:, :d0] = w.readout
    return Weights(f"householder:{K},nonneg", A, h0, readout, (V, beta))

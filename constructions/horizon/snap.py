"""Snap float (trained) weights to exact algebra of the same variant.

A trained network that tracks a group keeps its hidden state on a few invariant planes on which
each symbol acts as a rotation whose angle is close to, but not exactly, 2 pi k / p.  Snapping
replaces every such block by the exact rotation (modulus 1, angle 2 pi k / p with p the period of
the symbol's transformation in the automaton's monoid), every real eigenvalue by +1 / -1, and
drops (zeroes) the blocks the network contracts.  Entries of the snapped blocks are exact
cyclotomic numbers (:func:`~bilinear.constructions.exact.field.cos2pi`), start state and readout are
dyadic rational approximations of the trained ones.

The blocks are read in a *block basis* ``P``:

* ``rotation2d`` and ``block:2``: the variant's own 2x2 blocks (``P = I``); a ``block:2`` block
  is snapped to the nearest rotation or reflection (polar decomposition);
* ``diagonal`` and ``positive``: the coordinates (``P = I``);
* ``full``, ``factorized:R`` and ``block:B`` (B > 2): the real eigenvectors of a generic
  combination of the (normalised) matrices, rounded to dyadic rationals, which block-diagonalises
  commuting matrices (for ``block:B`` one basis per diagonal block, so the snap keeps the
  variant).  The snapped matrices are ``P S P^-1``, exact.

:func:`snap_candidates` yields one :class:`Snap` per choice of kept blocks (the span visited at
length, then thresholds on the relative modulus); the caller proves each with
:func:`~bilinear.constructions.proof.prover.prove` and keeps the first that is proved.

>>> import numpy as np
>>> from bilinear.automata.families import from_spec
>>> from bilinear.constructions.handmade.registry import build
>>> a = from_spec("cyclic:5")
>>> w = drift(build("cyclic:5", "rotation2d").to_float(), 0.01)
>>> s = next(snap_candidates(w, a))
>>> s.kept, [round(x, 3) for x in s.distance]
((0,), [0.0, 0.01, 0.01, 0.01, 0.01])
>>> s.original().A[1, 0, 0] == build("cyclic:5", "rotation2d").A[1, 0, 0]
True
"""

from __future__ import annotations

from typing import Any

import math
from dataclasses import dataclass
from fractions import Fraction

import flint
import numpy as np

from bilinear.automata.minimize import access_words
from bilinear.errors import ConformanceError, WeightsError

from ..values.floatrun import float_steps, rescaled
from ..exact.field import CyclotomicField, FieldElement, cos2pi, sin2pi, to_fmpq
from ..values.weights import Weights

__all__ = ["Snap", "snap_candidates", "state_map_snap", "construction_snap", "factor_snap", "symbol_periods", "drift",
           "DYADIC_BITS", "FACTOR_SNAP_ZERO", "FACTOR_SNAP_ANGLE", "snap_angle", "FACTOR_SNAP_MAX_ORDER", "FACTOR_SNAP_MAX_FIELD",
           "drift_layers"]

#: Snapped start state, readout and basis are rounded to multiples of 2^-DYADIC_BITS.
DYADIC_BITS = 24


def _dyadic(x: float, bits: int = DYADIC_BITS) -> Fraction:
    return Fraction(round(float(x) * (1 << bits)), 1 << bits)


#: Thresholds on the relative modulus of a block, tried in order after the visited span.
KEEP_THRESHOLDS = (0.95, 0.8, 0.5, 0.0)


def symbol_periods(automaton) -> tuple[int, ...]:
    """Per symbol, the period p of its transformation (t^(i+p) = t^i for large i).

    An exact block computing the automaton acts by a p-th root of unity on its unit-modulus part.

    >>> from bilinear.automata.families import from_spec
    >>> symbol_periods(from_spec("cyclic:6"))
    (1, 6, 3, 2, 3, 6)
    """
    out = []
    for t in np.asarray(automaton.delta):
        seen, power, i = {}, tuple(int(x) for x in t), 0
        while power not in seen:
            seen[power] = i
            power, i = tuple(int(t[x]) for x in power), i + 1
        out.append(i - seen[power])
    return tuple(out)


def drift(weights: Weights, delta: float, hidden: int | None = None, contraction: float = 0.5, seed: int = 0) -> Weights:
    """A trained-like float network made from exact ``weights`` (``rotation2d`` or ``full``).

    Every non-identity 2x2 diagonal block is turned ``delta`` rad further per use (right at short
    lengths, drifting at long ones, as trained rotations do); with ``hidden`` larger than the
    construction's dimension, seeded random blocks of modulus ``contraction`` fill the rest, with
    small start-state and readout entries; a ``full`` network is then conjugated by a seeded
    random basis, so that its matrices are dense (no other variant: a basis change would leave
    its structure, as it would a ``monomial`` matrix's pattern).
    """
    A, h0, R = weights.float_arrays()
    k, d0 = A.shape[0], A.shape[1]
    d = d0 if hidden is None else hidden
    B = weights.variant_info.block_size
    if d < d0 or (B is not None and d % B):
        raise WeightsError(f"hidden {d} cannot hold the {d0}-dimensional {weights.variant} weights")
    rng = np.random.default_rng(seed)
    c, s = math.cos(delta), math.sin(delta)
    turn = np.array([[c, -s], [s, c]])
    F = np.zeros((k, d, d))
    F[:, :d0, :d0] = A
    for a in range(k):
        for i in range(0, d0 - 1, 2):
            if not np.allclose(A[a, i : i + 2, i : i + 2], np.eye(2)):
                F[a, i : i + 2, i : i + 2] = turn @ A[a, i : i + 2, i : i + 2]
        for i in range(d0, d - 1, 2):
            t = rng.uniform(0, 2 * math.pi)
            F[a, i : i + 2, i : i + 2] = contraction * np.array([[math.cos(t), -math.sin(t)], [math.sin(t), math.cos(t)]])
        if (d - d0) % 2:
            F[a, d - 1, d - 1] = contraction
    H = np.concatenate([h0, 0.1 * rng.normal(size=d - d0)])
    Rd = np.concatenate([R, 0.1 * rng.normal(size=(R.shape[0], d - d0))], axis=1)
    v = weights.variant_info
    if v.info.dense:  # unstructured (full): any basis conforms; the factored kinds keep their structure
        P = np.linalg.qr(rng.normal(size=(d, d)))[0] @ np.diag(rng.uniform(0.5, 2.0, size=d))
        Pinv = np.linalg.inv(P)
        F, H, Rd = np.einsum("ij,sjk,kl->sil", P, F, Pinv), P @ H, Rd @ Pinv
    return Weights(weights.variant, F, H, Rd)


@dataclass(frozen=True)
class Snap:
    """One snapped network.

    ``block_weights`` is the exact snapped network *in the block basis* (block-diagonal: the kept
    exact blocks, zero elsewhere; variant ``full`` when the basis is not the identity); the
    snapped network in the original basis (:meth:`original`) is ``P S P^-1`` with start state
    ``P h0`` and readout ``R P^-1``, exactly similar, so both give the same scores on every word
    and one proof covers both.  ``blocks`` lists the coordinate groups of the block basis,
    ``kept`` the blocks kept (the others are zeroed), ``exact_blocks[a][i]`` the exact block of
    symbol ``a`` (rows), ``scale[a]`` the positive factor that brings the float matrix to the
    snapped one's scale, ``distance[a]`` the relative Frobenius distance
    ``||scale[a] A_float[a] - A_snap[a]|| / ||scale[a] A_float[a]||`` in the original basis.
    ``basis`` is the exact block basis P (numpy array of Fractions) or ``None`` (identity).
    ``isometric`` is False for a state-map snap (:func:`state_map_snap`), whose matrices are not
    orthogonal on the kept coordinates (the perturbation horizon needs them to be).
    """

    block_weights: Weights
    blocks: tuple[tuple[int, ...], ...]
    kept: tuple[int, ...]
    exact_blocks: tuple
    scale: tuple[float, ...]
    distance: tuple[float, ...]
    basis: Any
    variant: str
    rule: str
    isometric: bool = True

    @property
    def kept_coords(self) -> tuple[int, ...]:
        return tuple(j for i in self.kept for j in self.blocks[i])

    def original(self) -> Weights:
        """The exact snapped Weights in the trained network's basis and variant, with entries
        small enough for the weights file (every number within the loader's digit limit).

        With a block basis P (kept coordinates K) the written network is
        ``A_a = P_K S_a[K,K] Q``, ``h0 = P_K y0[K]``, ``R = Rb[:, K] Q`` where P_K is the kept
        columns of P rounded to few bits and Q any exact left inverse of P_K (``Q P_K = I``),
        built from the rounded rows of P^-1: then ``R A_w h0 = Rb[:, K] S_w y0[K]`` for every
        word w, the scores of the proved block network, so one proof covers both.  The bits are
        lowered (24, 16, 12, 8, 6, 4) until every number fits.
        """
        w = self.block_weights
        if self.basis is None:
            return w
        last = None
        for bits in (24, 16, 12, 8, 6, 4):
            try:
                out = _score_equivalent(self, bits)
                return Weights.from_json(out.to_json())  # within the loader's limits
            except WeightsError as exc:
                last = exc
        raise WeightsError(f"the snapped network has no small exact form in the trained basis: {last}")

    def to_json(self) -> dict:
        return {
            "rule": self.rule,
            "basis": "identity" if self.basis is None else "rational eigenbasis",
            "isometric": self.isometric,
            "blocks": len(self.blocks),
            "kept_blocks": list(self.kept),
            "kept_dim": len(self.kept_coords),
            "scale": list(self.scale),
            "relative_distance": list(self.distance),
        }


def _score_equivalent(snap: "Snap", bits: int) -> Weights:
    """The network of :meth:`Snap.original` with the basis rounded to ``bits`` bits."""
    w = snap.block_weights
    K = list(snap.kept_coords)
    Pf = np.array(snap.basis, dtype=float)
    PK = _fmpq_matrix([[_dyadic(x, bits) for x in row] for row in Pf[:, K]])
    Q0 = _fmpq_matrix([[_dyadic(x, bits) for x in row] for row in np.linalg.inv(Pf)[K, :]])
    G = Q0 * PK
    if G.det() == 0:
        raise WeightsError(f"the kept basis rounded to {bits} bits is singular")
    Q = G.inv() * Q0
    A = np.stack([_exact_in_basis(PK, Q, w.A[a][np.ix_(K, K)]) for a in range(w.n_symbols)])
    h0_mat = PK * flint.fmpq_mat([[to_fmpq(w.h0[j])] for j in K])
    R_mat = flint.fmpq_mat([[to_fmpq(w.readout[c][j]) for j in K] for c in range(w.n_classes)]) * Q
    h0 = [_to_fraction(h0_mat[j, 0]) for j in range(w.dim)]
    R = [[_to_fraction(R_mat[c, j]) for j in range(w.dim)] for c in range(w.n_classes)]
    try:
        return Weights(snap.variant, A, h0, R)
    except ConformanceError as exc:
        raise WeightsError(f"the snapped matrices do not conform to {snap.variant}: {exc}") from None


# ------------------------------------------------------------------------------------------
# block bases
# ------------------------------------------------------------------------------------------
def _eigenbasis(M: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, list[tuple[int, ...]]]:
    """Real block-eigenbasis (n, n) of a generic combination of the matrices M (k, n, n).

    Columns (Re v, Im v) per complex pair, v per real eigenvalue; groups of local indices.
    """
    norms = np.linalg.norm(M, axis=(1, 2))
    norms[norms == 0] = 1.0
    G = np.einsum("k,kij->ij", rng.normal(size=M.shape[0]), M / norms[:, None, None])
    vals, vecs = np.linalg.eig(G)
    cols: list[np.ndarray] = []
    groups: list[tuple[int, ...]] = []
    used = np.zeros(len(vals), bool)
    tol = 1e-9 * max(1.0, float(np.abs(vals).max()))
    for i in np.argsort(-np.abs(vals), kind="stable"):
        if used[i]:
            continue
        used[i] = True
        v = vecs[:, i]
        if abs(vals[i].imag) > tol:
            j = min((j for j in range(len(vals)) if not used[j]), key=lambda j: abs(vals[j] - vals[i].conjugate()))
            used[j] = True
            re, im = v.real, v.imag
            if vals[i].imag < 0:
                im = -im
            groups.append((len(cols), len(cols) + 1))
            n = np.linalg.norm(v)  # one scale for both: the block stays a scaled rotation
            cols += [re / n, im / n]
        else:
            re = v.real if np.linalg.norm(v.real) >= np.linalg.norm(v.imag) else v.imag
            groups.append((len(cols),))
            cols.append(re / np.linalg.norm(re))
    return np.stack(cols, axis=1), groups


def _block_basis(weights: Weights):
    """``(P_exact or None, P_float, groups)``: the block basis of the variant (module docstring)."""
    v = weights.variant_info
    A, _, _ = weights.float_arrays()
    d = weights.dim
    if v.block_size == 2:  # rotation2d, block:2: the variant's own 2x2 blocks
        return None, np.eye(d), [(i, i + 1) for i in range(0, d, 2)]
    if v.block_size == 1:  # diagonal, positive, block:1
        return None, np.eye(d), [(i,) for i in range(d)]
    size = v.block_size or d
    rng = np.random.default_rng(0)
    P = np.zeros((d, d))
    groups = []
    for start in range(0, d, size):
        sl = slice(start, start + size)
        Pb, gb = _eigenbasis(A[:, sl, sl], rng)
        P[sl, sl] = Pb
        groups += [tuple(start + j for j in g) for g in gb]
    Pq = np.vectorize(_dyadic, otypes=[object])(P)
    if abs(np.linalg.det(P)) < 1e-12 or np.linalg.cond(Pq.astype(float)) > 1e8:
        raise WeightsError("the trained matrices have no well-conditioned common eigenbasis")
    return Pq, Pq.astype(float), groups


# ------------------------------------------------------------------------------------------
# snapping blocks
# ------------------------------------------------------------------------------------------
def _snap_block(B: np.ndarray, period: int, reflect_order: int, positive: bool):
    """``(modulus, exact rows)`` of one float block (1x1 or 2x2) snapped to unit algebra."""
    if B.shape == (1, 1):
        x = float(B[0, 0])
        return abs(x), [[1 if (x >= 0 or positive) else -1]]
    U, S, Vt = np.linalg.svd(B)
    Q = U @ Vt
    if np.linalg.det(Q) > 0:
        k = round(math.atan2(Q[1, 0], Q[0, 0]) * period / (2 * math.pi)) % period
        c, s = cos2pi(k, period), sin2pi(k, period)
        return float(S.max()), [[c, -s], [s, c]]
    k = round(math.atan2(Q[0, 1], Q[0, 0]) * reflect_order / (2 * math.pi)) % reflect_order
    c, s = cos2pi(k, reflect_order), sin2pi(k, reflect_order)
    return float(S.max()), [[c, s], [s, -c]]


def _read_blocks(weights: Weights, automaton, Pf: np.ndarray, groups):
    """Per symbol and block: the float block, its modulus and its exact snap."""
    A, _, _ = weights.float_arrays()
    periods = symbol_periods(automaton)
    reflect = 2 * math.lcm(*periods)
    positive = weights.variant_info.spectral == "nonnegative"
    Pinv = np.linalg.inv(Pf)
    moduli = np.zeros((A.shape[0], len(groups)))
    exact = []
    for a in range(A.shape[0]):
        B = Pinv @ A[a] @ Pf
        row = []
        for i, g in enumerate(groups):
            moduli[a, i], ex = _snap_block(B[np.ix_(g, g)], periods[a], reflect, positive)
            row.append(ex)
        exact.append(row)
    return moduli, exact


def _keep_sets(weights: Weights, Pf: np.ndarray, groups, moduli: np.ndarray):
    """Candidate sets of kept blocks: ``(rule, kept)``, most selective first, no repeats."""
    from bilinear.constructions.values.span import visited_span  # the one visited span (analyze reads it too)

    top = moduli.max(axis=1, keepdims=True)
    top[top == 0] = 1.0
    rel = (moduli / top).min(axis=0)
    out, seen = [], set()
    Q = np.linalg.solve(Pf, visited_span(weights).basis)
    if Q.size:
        energy = np.array([float(np.sum(Q[list(g), :] ** 2)) for g in groups]) / float(np.sum(Q**2))
        out.append(("blocks on the span visited at length", tuple(np.nonzero(energy > 1e-3)[0])))
    for tau in KEEP_THRESHOLDS:
        out.append((f"blocks of relative modulus >= {tau:g}", tuple(np.nonzero(rel >= tau)[0])))
    for rule, kept in out:
        if kept and kept not in seen:
            seen.add(kept)
            yield rule, tuple(int(i) for i in kept)


def _rational_vector(x: np.ndarray, coords, scale: float | None = None) -> list:
    """Dyadic rationals of ``x[coords] / scale`` (zero elsewhere); ``scale`` defaults to the
    largest |x[coords]|.  One positive scale for a whole readout (every row divided by the
    same number) keeps the classifier: a scale per row would change which score is largest."""
    if scale is None:
        scale = float(np.abs(x[list(coords)]).max()) if coords else 0.0
    out: list[int | Fraction] = [0] * len(x)
    if scale == 0:
        return out
    for j in coords:
        out[j] = _dyadic(x[j] / scale)
    return out


def _fmpq_matrix(rows) -> flint.fmpq_mat:
    return flint.fmpq_mat([[flint.fmpq(x.numerator, x.denominator) for x in row] for row in rows])


def _to_fraction(x) -> Fraction:
    return Fraction(int(x.p), int(x.q))


def _exact_in_basis(P: flint.fmpq_mat, Pinv: flint.fmpq_mat, block_matrix: np.ndarray) -> np.ndarray:
    """``P S P^-1`` exactly, S exact (entries Fraction / FieldElement), through coefficient
    matrices: with every entry of S written sum_t c_t zeta_m^t, the result is sum_t zeta_m^t
    (P C_t P^-1), one rational matrix product per power (in C, flint)."""
    d, k = P.nrows(), block_matrix.shape[0]
    fields = [x.m for x in block_matrix.flat if isinstance(x, FieldElement)]
    m = math.lcm(*fields) if fields else 1
    K = CyclotomicField(m) if m > 1 else None
    coeff: dict[int, flint.fmpq_mat] = {}
    for (r, c), x in np.ndenumerate(block_matrix):
        if x == 0:
            continue
        cs = x.embed(m).poly.coeffs() if isinstance(x, FieldElement) else [flint.fmpq(x.numerator, x.denominator)]
        for t, ct in enumerate(cs):
            if ct != 0:
                coeff.setdefault(t, flint.fmpq_mat(k, k))[r, c] = ct
    prods = {t: P * C * Pinv for t, C in coeff.items()}
    out = np.empty((d, d), dtype=object)
    top = max(prods, default=0)
    for j in range(d):
        for l in range(d):
            entry = [prods[t][j, l] if t in prods else 0 for t in range(top + 1)]
            if top == 0 or all(c == 0 for c in entry[1:]):
                out[j, l] = _to_fraction(flint.fmpq(entry[0]))
            else:
                assert K is not None  # powers of zeta come only from field entries, so m > 1
                out[j, l] = FieldElement(K, flint.fmpq_poly(entry)).simplify()
    return out


def _build(weights: Weights, Pq, Pf, groups, kept, exact, moduli, rule) -> Snap:
    A, h0, R = weights.float_arrays()
    k, d = A.shape[0], weights.dim
    top, low = moduli[:, list(kept)].max(axis=1), moduli[:, list(kept)].min(axis=1)
    if np.any(low == 0):
        raise WeightsError("a symbol's matrix vanishes on a kept block")
    # the scale that puts the kept moduli closest to 1: max |c r - 1| is least at c = 2 / (min + max)
    scale = tuple(float(2.0 / (t + l)) for t, l in zip(top, low))
    coords = [j for i in kept for j in groups[i]]
    h0b = _rational_vector(np.linalg.solve(Pf, h0), coords)
    if all(x == 0 for x in h0b):
        raise WeightsError("the start state has no component on the kept blocks")
    RP = R @ Pf
    top = float(np.abs(RP[:, coords]).max()) if coords else 0.0  # one scale for every row
    Rb = np.array([_rational_vector(row, coords, top) for row in RP], dtype=object)
    S = np.zeros((k, d, d), dtype=object)
    for a in range(k):
        for i in kept:
            g = groups[i]
            S[a][np.ix_(g, g)] = np.array(exact[a][i], dtype=object)
    variant = weights.variant if Pq is None else "full"
    try:
        block = Weights(variant, S, h0b, Rb)
    except ConformanceError as exc:  # pragma: no cover - the blocks follow the variant
        raise WeightsError(f"the snapped blocks do not conform to {variant}: {exc}") from None
    Sf, _, _ = block.float_arrays()
    if Pq is not None:
        Sf = Pf @ Sf @ np.linalg.inv(Pf)  # (a three-operand einsum takes no BLAS path)
    dist = tuple(
        float(np.linalg.norm(scale[a] * A[a] - Sf[a]) / max(np.linalg.norm(scale[a] * A[a]), 1e-300))
        for a in range(k)
    )
    return Snap(block, tuple(groups), tuple(kept), tuple(exact), scale, dist, Pq, weights.variant, rule)


def snap_candidates(weights: Weights, automaton, failures: list | None = None):
    """Yield the :class:`Snap` of each candidate set of kept blocks (module docstring).

    A candidate that cannot be built appends ``(rule, reason)`` to ``failures`` when given.
    WeightsError when the weights are exact, or have no usable block basis.
    """
    if weights.exact:
        raise WeightsError("snapping needs float weights; these are exact already")
    Pq, Pf, groups = _block_basis(weights)
    moduli, exact = _read_blocks(weights, automaton, Pf, groups)
    for rule, kept in _keep_sets(weights, Pf, groups, moduli):
        try:
            yield _build(weights, Pq, Pf, groups, kept, exact, moduli, rule)
        except WeightsError as exc:
            if failures is not None:
                failures.append((rule, str(exc)))


# ------------------------------------------------------------------------------------------
# the state-map snap (any automaton, full variant)
# ------------------------------------------------------------------------------------------
def state_map_snap(weights: Weights, automaton) -> Snap:
    """The exact map sending each state's representative to its successor's (``full`` only).

    The representative r_q of automaton state q is the float network's unit hidden state after
    a shortest word reaching q, rounded to dyadic rationals; with R = [r_q] of full column rank,
    ``M_a = N_a (R^T R)^-1 R^T`` (N_a = [r_delta(q, a)]) satisfies M_a r_q = r_delta(q, a)
    exactly, so the snapped network visits exactly the representatives.  WeightsError when the
    variant is not ``full`` or the representatives are linearly dependent.
    """
    if not weights.variant_info.info.dense:
        raise WeightsError(f"the state-map snap builds a full network, not {weights.variant}")
    A, h0, Rf = weights.float_arrays()
    access = access_words(automaton)
    states = sorted(access.states.tolist())
    reps = []
    start = rescaled(h0)  # exact (a power of two) before the norm, whose squares under- or overflow
    start = start / (np.linalg.norm(start) or 1.0)
    for q in states:  # the network's one float run (renormalised), on a shortest word to q
        h = start
        word = access.word(q)
        for H in float_steps(A, h0, np.array([word], dtype=np.int64)) if word else ():
            h = H[0]
        reps.append(h)
    X = np.stack(reps, axis=1)
    sv = np.linalg.svd(X, compute_uv=False)
    if len(states) > weights.dim or sv[-1] < 1e-3 * sv[0]:
        raise WeightsError(
            f"the {len(states)} state representatives span only {int(np.sum(sv > 1e-3 * sv[0]))} "
            "dimensions: the state-map snap needs them linearly independent"
        )
    Rq = _fmpq_matrix([[_dyadic(x) for x in row] for row in X])
    G = Rq.transpose() * Rq
    pinv = G.inv() * Rq.transpose()
    col = {q: i for i, q in enumerate(states)}
    M = np.empty((weights.n_symbols, weights.dim, weights.dim), dtype=object)
    for a in range(weights.n_symbols):
        N = flint.fmpq_mat([[Rq[j, col[int(automaton.delta[a, q])]] for q in states] for j in range(weights.dim)])
        Ma = N * pinv
        M[a] = [[_to_fraction(Ma[j, l]) for l in range(weights.dim)] for j in range(weights.dim)]
    h0s = [_to_fraction(Rq[j, col[int(automaton.start)]]) for j in range(weights.dim)]
    top = float(np.abs(Rf).max()) or 1.0
    Rs = [[_dyadic(x / top) for x in row] for row in Rf]
    snapped = Weights("full", M, h0s, Rs)
    Mf, _, _ = snapped.float_arrays()
    scale = tuple(float(np.sum(A[a] * Mf[a]) / max(np.sum(A[a] ** 2), 1e-300)) for a in range(len(A)))
    scale = tuple(x if x > 0 else 1.0 for x in scale)
    dist = tuple(float(np.linalg.norm(scale[a] * A[a] - Mf[a]) / max(np.linalg.norm(scale[a] * A[a]), 1e-300))
                 for a in range(len(A)))
    groups = tuple((j,) for j in range(weights.dim))
    return Snap(snapped, groups, tuple(range(weights.dim)), (), scale, dist, None, "full",
                "the exact map between the states' representatives", isometric=False)


# ------------------------------------------------------------------------------------------
# the construction snap (any automaton with a proved construction, full networks)
# ------------------------------------------------------------------------------------------
#: The largest residual ``sqrt(sum_a ||M_a X - X S_a||_F^2)`` of a unit X (``||X||_F = 1``, each
#: M_a divided by its spectral radius) for which a network is said to hold a copy of the
#: construction S: the smallest singular value of the stacked Sylvester systems.  Trained
#: networks near a construction read 0.04-0.2 (the tests' and the tour's); a network with no copy
#: reads about 1 (a positive network's parity: no eigenvalue near -1) or more.
INTERTWINER_RESIDUAL = 0.5


def _intertwiner(M: np.ndarray, S: np.ndarray) -> np.ndarray | None:
    """A d x d0 matrix X of full column rank with ``M_a X ~ X S_a`` for every symbol (the
    smallest right singular vectors of the stacked Sylvester systems, combined at random so
    that X is injective when the intertwiners are several), or None (none within
    :data:`INTERTWINER_RESIDUAL`)."""
    k, d, _ = M.shape
    d0 = S.shape[1]
    rows = [np.kron(np.eye(d0), M[a]) - np.kron(S[a].T, np.eye(d)) for a in range(k)]
    _, sv, Vt = np.linalg.svd(np.concatenate(rows, axis=0))
    scale = max(float(sv[0]), 1e-300)
    small = [i for i in range(len(sv)) if sv[i] <= 1e-2 * scale]
    if not small:  # no near-null space: the best unit X, if it is near an intertwiner at all
        if not sv[-1] <= INTERTWINER_RESIDUAL:
            return None
        small = [len(sv) - 1]
    rng = np.random.default_rng(0)
    for _ in range(4):
        x = Vt[small].T @ rng.normal(size=len(small)) if len(small) > 1 else Vt[small[0]]
        X = x.reshape(d0, d).T  # vec is column-major: column j of X is x[j d:(j + 1) d]
        s = np.linalg.svd(X, compute_uv=False)
        if s[-1] > 1e-6 * s[0]:
            return X / s[0]
    return None


def construction_snap(weights: Weights, automaton) -> Snap:
    """The proved construction of the automaton (:func:`~bilinear.constructions.handmade.registry.build`,
    ``full``) read off the float network up to a change of basis.

    A network near a construction S (d0 x d0) satisfies ``A_a P ~ c_a P S_a`` for a d x d0
    matrix P (the construction's coordinates in the network) and the scale c_a, the spectral
    radius of A_a (S_a's eigenvalues lie on the unit circle or at 0); the left intertwiner
    ``Q A_a ~ c_a S_a Q`` gives the complement ker Q, the directions the network forgets.  In
    the basis [P | ker Q] (rounded to dyadic rationals) the snap is S on the first d0
    coordinates and zero on the rest: a block basis in the sense of Theorem 16, which needs no
    commuting matrices (D_4, Q_8, resets ...).  ``isometric`` says whether every S_a is
    orthogonal (exactly).  Any variant: the snap is a ``full`` network (its written form too).
    WeightsError when there is no construction, or no injective intertwiner.
    """
    from bilinear.errors import BilinearError

    from ..handmade.registry import build

    try:
        exact = build(automaton, "full")
    except BilinearError as exc:
        raise WeightsError(f"no construction to snap to: {exc}") from None
    A, h0, R = weights.float_arrays()
    S, _, _ = exact.float_arrays()
    d, d0 = weights.dim, exact.dim
    if d0 > d or exact.n_symbols != weights.n_symbols:
        raise WeightsError(f"the construction has d = {d0}, more than the network's {d}")
    scale = np.array([max(float(np.abs(np.linalg.eigvals(A[a])).max()), 1e-300) for a in range(len(A))])
    M = A / scale[:, None, None]
    X = _intertwiner(M, S)
    Y = _intertwiner(np.transpose(M, (0, 2, 1)), np.transpose(S, (0, 2, 1)))
    if X is None or Y is None:
        raise WeightsError("the network holds no copy of the construction (no injective intertwiner "
                           f"within the residual {INTERTWINER_RESIDUAL})")
    Q = Y.T  # Q M_a ~ S_a Q
    if d0 < d:
        _, _, Vt = np.linalg.svd(Q)
        P = np.concatenate([X, Vt[d0:].T], axis=1)  # [P_K | an orthonormal basis of ker Q]
    else:
        P = X
    Pq = np.vectorize(_dyadic, otypes=[object])(P)
    Pf = Pq.astype(float)
    if not np.linalg.cond(Pf) <= 1e8:  # singular (inf) too; a determinant would refuse a large well-conditioned basis
        raise WeightsError("the construction's coordinates in the network are ill-conditioned")
    K = list(range(d0))
    Sb = np.zeros((len(A), d, d), dtype=object)
    for a in range(len(A)):
        Sb[a][np.ix_(K, K)] = exact.A[a]
    h0b = _rational_vector(np.linalg.solve(Pf, h0), K)
    if all(x == 0 for x in h0b):
        raise WeightsError("the start state has no component on the construction's coordinates")
    RP = R @ Pf
    top = float(np.abs(RP[:, K]).max())
    Rb = np.array([_rational_vector(row, K, top) for row in RP], dtype=object)
    block = Weights("full", Sb, h0b, Rb)
    Sf = Pf @ block.float_arrays()[0] @ np.linalg.inv(Pf)
    c = tuple(float(1.0 / s) for s in scale)
    dist = tuple(float(np.linalg.norm(c[a] * A[a] - Sf[a]) / max(np.linalg.norm(c[a] * A[a]), 1e-300))
                 for a in range(len(A)))
    isometric = all(_is_orthogonal(exact.A[a]) for a in range(len(A)))
    groups = (tuple(K),) + tuple((j,) for j in range(d0, d))
    return Snap(block, groups, (0,), (), c, dist, Pq, "full",
                f"the {exact.variant} construction (d = {d0}) read in the network's basis", isometric=isometric)


#: A ``monomial`` entry of relative modulus below this (against its symbol's largest) snaps to 0.
FACTOR_SNAP_ZERO = 0.5
#: The largest angle (radians) between a ``monomial`` entry and the root of unity it snaps to.
FACTOR_SNAP_ANGLE = 0.05
#: The largest order of a root of unity a ``monomial,complex`` entry snaps to (real: 1 and 2).
FACTOR_SNAP_MAX_ORDER = 24
#: The largest conductor of the field that holds every snapped entry (the lcm of their orders).
FACTOR_SNAP_MAX_FIELD = 120


def snap_angle(q: int) -> float:
    """How far (radians) an entry may be from a root of unity of order ``q`` to snap to it:
    ``min(FACTOR_SNAP_ANGLE, pi / (2 q^2))``.  The window shrinks with the order, so an entry at a
    root of order 12 is not taken by the root of order 11 0.048 rad away, while low orders keep
    the full :data:`FACTOR_SNAP_ANGLE` for a trained network's drift; the orders are tried from
    the smallest, so where two windows overlap (among orders up to 24 only 1/5 and 5/24, 1/6 and
    4/23 of a turn, and their mirror images, by less than 0.0012 rad) the smaller order wins.

    >>> round(snap_angle(5), 4), round(snap_angle(12), 4)
    (0.05, 0.0109)
    """
    return min(FACTOR_SNAP_ANGLE, math.pi / (2 * q * q))


def monomial_entries(weights: Weights, what: str):
    """``(perm, z)`` of float monomial weights: the index factor and the diagonal entries as complex
    numbers (symbols x coordinates); WeightsError naming ``what`` for other weights."""
    v = weights.variant_info
    if "perm" not in v.info.factor_names or weights.factors is None:
        raise WeightsError(f"{what} is for monomial weights with their factors, not {v.spec!r}")
    if weights.exact:
        raise WeightsError("snapping needs float weights; these are exact already")
    perm = np.asarray(weights.factors[0], dtype=np.int64)
    D = np.asarray(weights.factors[1], dtype=np.float64)
    z = D[:, 0::2] + 1j * D[:, 1::2] if v.complex else D.astype(np.complex128)
    return perm, z


def factor_snap(weights: Weights, automaton) -> Snap:
    """The factors of float ``monomial`` / ``monomial,complex`` weights snapped in their own
    variant: ``perm`` kept (it is exact already), each entry of ``D`` divided by its symbol's
    largest modulus and replaced by 0 when its relative modulus is below
    :data:`FACTOR_SNAP_ZERO`, else by a root of unity (real: +1 or -1; complex: the smallest
    order q up to :data:`FACTOR_SNAP_MAX_ORDER` with a root within :func:`snap_angle` (q)),
    as exact cyclotomic numbers of one field; start state and readout dyadic.  PD-SSM's
    transitions are monomial by construction, so no change of basis is needed: the snap is the
    trained network with each transition entry rounded to the nearest exact unit.  ``isometric``
    when every kept entry is a unit and every ``perm`` row a permutation (then every matrix is
    orthogonal).  WeightsError naming the entry that is not near a root of unity.

    >>> from bilinear.constructions.handmade.registry import build
    >>> w = drift(build("dihedral:5", "monomial,complex").to_float(), 0.001)
    >>> s = factor_snap(w, None)
    >>> s.block_weights.variant, s.isometric, s.block_weights.A[0, 0, 0] == build("dihedral:5", "monomial,complex").A[0, 0, 0]
    ('monomial,complex', True, True)
    """
    v = weights.variant_info
    perm, z = monomial_entries(weights, "the factor snap")
    A, h0, R = weights.float_arrays()
    d = weights.dim
    top = np.abs(z).max(axis=1)
    if not (top > 0).all():
        raise WeightsError(f"symbol {int(np.argmin(top))}'s matrix is zero")
    rel = z / top[:, None]
    orders = range(1, FACTOR_SNAP_MAX_ORDER + 1) if v.complex else (1, 2)
    chosen: dict[tuple[int, int], tuple[int, int]] = {}
    for (a, j), x in np.ndenumerate(rel):
        if abs(x) < FACTOR_SNAP_ZERO:
            continue
        angle = math.atan2(x.imag, x.real)
        for q in orders:
            k = round(angle * q / (2 * math.pi))
            if abs(angle - 2 * math.pi * k / q) <= snap_angle(q):
                chosen[(a, j)] = (k % q, q)
                break
        else:
            what = (f"a root of unity of order q <= {FACTOR_SNAP_MAX_ORDER} (within min({FACTOR_SNAP_ANGLE}, "
                    "pi / (2 q^2)) rad)" if v.complex else f"+1 or -1 (within {FACTOR_SNAP_ANGLE} rad)")
            raise WeightsError(f"entry {j} of D for symbol {a} (relative modulus {abs(x):.3g}, angle {angle:.4f} rad) "
                               f"is not near {what}")
    L = math.lcm(*(q for _, q in chosen.values())) if chosen else 1
    if L > FACTOR_SNAP_MAX_FIELD:
        raise WeightsError(f"the snapped entries need roots of unity of order {L}, more than {FACTOR_SNAP_MAX_FIELD}")
    De = np.zeros((z.shape[0], z.shape[1] * (2 if v.complex else 1)), dtype=object)  # D's shape
    De[...] = 0
    for (a, j), (k, q) in chosen.items():
        if v.complex:
            De[a, 2 * j], De[a, 2 * j + 1] = cos2pi(k * (L // q), L), sin2pi(k * (L // q), L)
        else:
            De[a, j] = 1 if k == 0 else -1
    from ..values.factored import monomial_compose

    Ae = monomial_compose(perm, De, True, complex_=v.complex)
    coords = range(d)
    Rtop = float(np.abs(R).max())
    block = Weights(v.spec, Ae, _rational_vector(h0, coords),
                    np.array([_rational_vector(row, coords, Rtop) for row in R], dtype=object), factors=(perm, De))
    Af = block.float_arrays()[0]
    c = tuple(float(1.0 / t) for t in top)
    dist = tuple(float(np.linalg.norm(c[a] * A[a] - Af[a]) / max(np.linalg.norm(c[a] * A[a]), 1e-300))
                 for a in range(len(A)))
    full = len(chosen) == rel.size and all(len(set(row.tolist())) == len(row) for row in perm)
    units = f"roots of unity of order dividing {L}" if v.complex else "+1 or -1"
    return Snap(block, (tuple(coords),), (0,), (), c, dist, None, v.spec,
                f"the factors snapped (perm kept, D to 0 or {units})", isometric=full)


def _is_orthogonal(M: np.ndarray) -> bool:
    """Exactly: M^T M = I (entries Fractions, ints or FieldElements)."""
    n = M.shape[0]
    for i in range(n):
        for j in range(n):
            s = sum((M[k, i] * M[k, j] for k in range(n)), 0)
            if not s == (1 if i == j else 0):
                return False
    return True


def drift_layers(stack, delta: float, seed: int = 0):
    """``stack`` (float) with every layer's transitions moved by about ``delta``: each matrix
    multiplied by a random orthogonal rotation exp(delta K) (K skew) projected back onto the variant
    (a 1 x 1 matrix, which has no rotation, by 1 +- delta) -- a near-exact stack whose snap must fail
    once ``delta`` passes the snapping tolerance."""
    from ..values.stack import Stack

    rng = np.random.default_rng(seed)
    out = []
    for w in stack.to_float().layers:
        A, h0, R = w.float_arrays()
        moved = []
        for M in A:
            if len(M) == 1:  # no rotation in one dimension: a scaling by 1 +- delta instead
                moved.append(M * (1 + delta * rng.choice((-1.0, 1.0))))
                continue
            K = rng.normal(size=M.shape)
            K = (K - K.T) / np.linalg.norm(K - K.T)
            half = delta * K / 2
            eye = np.eye(len(M))
            moved.append(M @ np.linalg.solve(eye - half, eye + half))  # Cayley: orthogonal, about exp(delta K)
        full = Weights("full", np.asarray(moved), h0, R)
        out.append(full.project(w.variant)[0])
    return Stack(tuple(out))

"""Small ranks R for ``factorized:R``: A[s] = U diag(C[s]) W^T with few rank-one terms.

The variant asks every A[s] to lie in the span of the same R rank-one matrices u_r w_r^T.  Two
exact constructions (Theorem 12 of docs/theory.md):

* **blockwise** (:func:`blockwise_factors`): weights whose matrices are block-diagonal with 1x1
  blocks and 2x2 scaled rotations [[a, -b], [b, a]] (every abelian construction).  A 1x1 block
  costs one rank-one term; a rotation block costs three, because
  [[a, -b], [b, a]] = (a - b) E_11 + (a + b) E_22 + b (1, 1)^T (1, -1).
  So Z_m (m >= 3) needs R = 3 instead of the sum m * 2 of the ranks.
* **pencil** (:func:`pencil_factors`): two symbols with A_0 invertible and N = A_0^{-1} A_1
  satisfying N^2 = alpha N + beta I.  In a basis P of N-cyclic pairs (x, N x), N is block
  diagonal with companion blocks K = [[0, beta], [1, alpha]], and I and K lie in the span of
  E_11, E_22 and (1, 1)^T (1, beta) (K = -E_11 + (alpha - beta) E_22 + (1, 1)^T (1, beta)): R = 3d/2.
  When N is diagonal, or an involution (alpha = 0, beta = 1) whose eigenvectors diagonalise it,
  R = d.
  D_n (A_s^{-1} A_r is a reflection) gets R = 2 and Q8 (A_j^{-1} A_i squares to -I) R = 6.

A third, for any weights (:func:`support_factors`): one rank-one term E_ij per position where some
A[s] is non-zero (resets: R = 3; the one-hot construction: one term per transition edge).

By Ja'Ja's theorem on pairs of bilinear forms (J. Ja'Ja', SIAM J. Comput. 8(3), 1979) the
tensor rank of a pencil (A_0, A_1) with A_0 invertible is d + delta(N), delta the number of
invariant factors of N that do not split into distinct real linear factors: so for the matrices
used here, 3 (Z_m), 2 (D_n) and 6 (Q8) are the least R.

>>> from bilinear.automata.families import from_spec
>>> w = factorized_abelian(from_spec("cyclic:7"))
>>> w.variant, w.dim
('factorized:3', 2)
>>> factorized_dihedral(from_spec("dihedral:5")).variant, factorized_quaternion(from_spec("quaternion")).variant
('factorized:2', 'factorized:6')
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from bilinear.errors import ConstructionError

from ..values.memo import per_automaton
from ..values.weights import Weights

__all__ = ["blockwise_factors", "pencil_factors", "factorized_abelian", "factorized_dihedral", "factorized_quaternion",
           "factorized_reset", "factorized_onehot", "support_factors", "exact_inverse"]


#: Largest minimal automaton given the one-hot support factorisation.
MAX_ONEHOT_STATES = 1000


def _factorized(R: int, A, h0, readout, factors) -> Weights:
    """``factorized:R`` weights, or ConstructionError when R passes
    :func:`~bilinear.constructions.values.variants.max_factor_rank` (symbols x hidden): the stacked rank
    decompositions are then smaller, and :func:`~bilinear.constructions.handmade.registry.build` uses them."""
    from ..values.variants import max_factor_rank

    k, d = np.shape(A)[0], np.shape(A)[1]
    if R > max_factor_rank(k, d):
        raise ConstructionError(f"R = {R} passes symbols x hidden = {k} x {d}: the stacked rank "
                                f"decompositions are smaller")
    return Weights(f"factorized:{R}", A, h0, readout, factors)


def exact_inverse(M) -> np.ndarray:
    """Inverse of a square exact matrix by Gauss-Jordan elimination; ConstructionError if singular."""
    M = np.array(M, dtype=object)
    d = M.shape[0]
    R = [[M[i, j] for j in range(d)] + [1 if i == j else 0 for j in range(d)] for i in range(d)]
    for j in range(d):
        p = next((i for i in range(j, d) if R[i][j] != 0), None)
        if p is None:
            raise ConstructionError("matrix is singular")
        R[j], R[p] = R[p], R[j]
        piv = R[j][j]
        inv = piv.inverse() if hasattr(piv, "inverse") else Fraction(1) / piv
        R[j] = [x * inv for x in R[j]]
        for i in range(d):
            if i != j and R[i][j] != 0:
                f = R[i][j]
                R[i] = [a - f * b for a, b in zip(R[i], R[j])]
    return np.array([row[d:] for row in R], dtype=object)


def _blocks(A) -> list[int]:
    """Sizes of the diagonal blocks (1 or 2) of a stack (symbols, d, d), or ConstructionError."""
    d = A.shape[1]
    sizes, i = [], 0
    while i < d:
        if i + 1 < d and ((A[:, i, i + 1] != 0).any() or (A[:, i + 1, i] != 0).any()):
            sizes.append(2)
            i += 2
        else:
            sizes.append(1)
            i += 1
    off = np.ones((d, d), dtype=bool)
    o = 0
    for b in sizes:
        off[o:o + b, o:o + b] = False
        o += b
    if (A[:, off] != 0).any():
        raise ConstructionError("the matrices are not block-diagonal with blocks of size 1 and 2")
    return sizes


def _zeros(shape) -> np.ndarray:
    out = np.empty(shape, dtype=object)
    out[...] = 0
    return out


def blockwise_factors(w: Weights) -> Weights:
    """``w`` (exact, 1x1 blocks and 2x2 scaled rotations) as ``factorized:R``, R = n_1 + 3 n_2."""
    A = w.A
    sizes = _blocks(A)
    R = sum(1 if b == 1 else 3 for b in sizes)
    d, k = w.dim, w.n_symbols
    U, W, C = _zeros((d, R)), _zeros((d, R)), _zeros((k, R))
    o = r = 0
    for b in sizes:
        if b == 1:
            U[o, r] = W[o, r] = 1
            C[:, r] = A[:, o, o]
        else:
            a, bb = A[:, o, o], A[:, o + 1, o]
            if (A[:, o + 1, o + 1] != a).any() or (A[:, o, o + 1] != -bb).any():
                raise ConstructionError("a 2x2 block is not a scaled rotation [[a, -b], [b, a]]")
            U[o, r] = W[o, r] = 1
            U[o + 1, r + 1] = W[o + 1, r + 1] = 1
            U[o, r + 2] = U[o + 1, r + 2] = W[o, r + 2] = 1
            W[o + 1, r + 2] = -1
            C[:, r], C[:, r + 1], C[:, r + 2] = a - bb, a + bb, bb
        o += b
        r += 1 if b == 1 else 3
    return _factorized(R, A, w.h0, w.readout, (U, C, W))


def _cyclic_basis(N, d: int) -> np.ndarray:
    """P = [x_1, N x_1, x_2, N x_2, ...] invertible, from standard basis vectors, or ConstructionError."""
    cols: list[np.ndarray] = []
    for i in range(d):
        if len(cols) == d:
            break
        e = _zeros(d)
        e[i] = 1
        trial = cols + [e, N.dot(e)]
        if _rank(np.stack(trial, axis=1)) == len(trial):
            cols = trial
    if len(cols) != d:
        raise ConstructionError("no basis of N-cyclic pairs from the standard basis")
    return np.stack(cols, axis=1)


def _rank(M) -> int:
    from ..values.linalg import rank_decomposition

    return rank_decomposition(M)[0].shape[1]


def _quadratic(N, d: int):
    """(alpha, beta) with N^2 = alpha N + beta I and N not a scalar, or None."""
    N2 = N.dot(N)
    i, j = next(((i, j) for i in range(d) for j in range(d) if i != j and N[i, j] != 0), (None, None))
    if i is None:
        return None
    alpha = N2[i, j] / N[i, j]
    beta = N2[0, 0] - alpha * N[0, 0]
    eye = np.eye(d, dtype=int).astype(object)
    if (N2 != alpha * N + beta * eye).any():
        return None
    return alpha, beta


def pencil_factors(w: Weights) -> Weights:
    """Two-symbol exact weights as ``factorized:R`` through N = A_0^{-1} A_1 (module docstring)."""
    if w.n_symbols != 2 or not w.exact:
        raise ConstructionError("the pencil factorisation needs exact weights with two symbols")
    d = w.dim
    A0 = w.A[0]
    N = exact_inverse(A0).dot(w.A[1])
    eye = np.eye(d, dtype=int).astype(object)
    if not (N[~np.eye(d, dtype=bool)] != 0).any():  # already diagonal: U = A_0, W = I
        C = np.array([[1] * d, [N[i, i] for i in range(d)]], dtype=object)
        return Weights(f"factorized:{d}", w.A, w.h0, w.readout, (A0, C, eye))
    ab = _quadratic(N, d)
    if ab is None:
        raise ConstructionError("N = A_0^{-1} A_1 satisfies no quadratic equation")
    alpha, beta = ab
    disc = alpha * alpha + 4 * beta
    if alpha == 0 and beta == 1:  # involution: eigenvectors of +1 and -1
        cols, signs = [], []
        for M, sgn in ((N + eye, 1), (N - eye, -1)):
            U0, _ = _rank_columns(M)
            cols += list(U0.T)
            signs += [sgn] * U0.shape[1]
        P = np.stack(cols, axis=1)
        U, W = A0.dot(P), exact_inverse(P).T
        C = np.array([[1] * d, signs], dtype=object)
        return Weights(f"factorized:{d}", w.A, w.h0, w.readout, (U, C, W))
    if d % 2 or not disc < 0:
        raise ConstructionError("N has real eigenvalues and is not an involution")
    P = _cyclic_basis(N, d)
    R = 3 * d // 2
    U0, W0, C = _zeros((d, R)), _zeros((d, R)), _zeros((2, R))
    for b in range(d // 2):
        o, r = 2 * b, 3 * b
        U0[o, r] = W0[o, r] = 1
        U0[o + 1, r + 1] = W0[o + 1, r + 1] = 1
        U0[o, r + 2] = U0[o + 1, r + 2] = W0[o, r + 2] = 1
        W0[o + 1, r + 2] = beta
        C[0, r], C[0, r + 1], C[0, r + 2] = 1, 1, 0
        C[1, r], C[1, r + 1], C[1, r + 2] = -1, alpha - beta, 1
    U, W = A0.dot(P).dot(U0), exact_inverse(P).T.dot(W0)
    return _factorized(R, w.A, w.h0, w.readout, (U, C, W))


def _rank_columns(M):
    from ..values.linalg import rank_decomposition

    return rank_decomposition(M)


@per_automaton
def factorized_abelian(automaton) -> Weights:
    """The invariant-factor construction of a finite abelian group, factorised blockwise."""
    from .abelian import abelian_weights

    return blockwise_factors(abelian_weights(automaton, rotation2d=False))


@per_automaton
def factorized_dihedral(automaton) -> Weights:
    """D_n through the pencil of its two generators: R = 2."""
    from .dihedral import dihedral_block

    return pencil_factors(dihedral_block(automaton))


@per_automaton
def factorized_quaternion(automaton) -> Weights:
    """Q8 through the pencil of i and j: R = 6."""
    from .quaternion import quaternion_right

    return pencil_factors(quaternion_right(automaton))


def support_factors(w: Weights) -> Weights:
    """``w`` as ``factorized:R`` with one rank-one term E_ij per position (i, j) where some A[s] is
    non-zero: R = the size of the union of the supports (U, W hold unit vectors, C the entries)."""
    A = w.A
    nonzero = np.asarray((A != 0).any(axis=0), dtype=bool)  # (hidden, hidden)
    positions = [tuple(int(x) for x in ij) for ij in np.argwhere(nonzero)]
    R, d = max(len(positions), 1), w.dim
    U, W, C = _zeros((d, R)), _zeros((d, R)), _zeros((w.n_symbols, R))
    for r, (i, j) in enumerate(positions):
        U[i, r] = W[j, r] = 1
        C[:, r] = A[:, i, j]
    return _factorized(R, A, w.h0, w.readout, (U, C, W))


@per_automaton
def factorized_reset(automaton) -> Weights:
    """Resets and identities: their 2x2 matrices use the positions (1,1), (2,1), (2,2): R = 3."""
    from .reset import reset_parabola

    return support_factors(reset_parabola(automaton))


@per_automaton
def factorized_onehot(automaton) -> Weights:
    """The one-hot construction with one rank-one term per transition edge q -> delta(a, q)."""
    from ..values.memo import minimal
    from .onehot import onehot

    n = minimal(automaton).n_states
    if n > MAX_ONEHOT_STATES:
        raise ConstructionError(
            f"{automaton.name or 'automaton'}: the one-hot factorisation is limited to {MAX_ONEHOT_STATES} states "
            f"(the minimal automaton has {n}: {n}x{n} matrices per symbol)"
        )
    return support_factors(onehot(automaton))

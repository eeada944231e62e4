"""How far a float network holds: a certified horizon and a directed search for a failing word.

**Lower bound** (Theorem 16 of docs/theory.md, perturbation horizon).  Let S be a snapped network
proved by :func:`~bilinear.constructions.prover.prove`, written in its block basis P: the kept
coordinates K carry exact rotations, reflections or +-1 (orthogonal: ``||S_a y|| = ||y||``), the
dropped ones D are zero.  Write the float network in the same basis, each matrix scaled by a
positive constant (which changes no prediction): ``F_a = P^-1 (c_a A_a) P``.  With

    eps   = max_a ||F_a[K,K] - S_a[K,K]||     gamma = max_a ||F_a[K,D]||
    beta  = max_a ||F_a[D,K]||                rho   = max_a ||F_a[D,D]||
    sigma = max_a ||F_a[K,K]||

(operator 2-norms, bounded above exactly per 2x2 block, or through powers of M^T M), with c_a
chosen so that ``||F_a[K,K]|| ~ 1``, the errors ``u_t = ||x_t[K] - y_t||`` and ``v_t = ||x_t[D]||``
of the float state x_t against the unit snapped state y_t obey

    u_t <= sigma u_{t-1} + eps + gamma v_{t-1},     v_t <= rho v_{t-1} + beta (1 + u_{t-1}),

and a word of length t is classified correctly while ``mu > L_K u_t + L_D v_t``, where ``mu`` is
the smallest normalised margin of the float readout on the snapped reachable states and
``L_K``, ``L_D`` bound the norms of the readout differences on K and D.  The recurrence is
stepped for the first steps and then solved in closed form (valid when rho < 1); everything is
evaluated in python-flint ``arb`` ball arithmetic from the exact binary values of the floats,
so the certified length holds for the real-number network with the given float weights.
For a rational eigenbasis the bound is also tried with the dropped coordinates in an
orthonormal basis (when rho >= 1 in the eigenbasis); for block-diagonal networks the block-wise
bound of :mod:`~bilinear.constructions.horizon_blocks` (one scale per block) is tried too, and
the longer certified length is kept.

**Upper bound**: :func:`search_failure` runs the float network (renormalised, as
:func:`~bilinear.constructions.floatcheck.check` does) on powers of every symbol, powers of short
loops ranked by their measured drift, and random words, and returns the shortest failing prefix.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from fractions import Fraction

import flint
import numpy as np

from .floatrun import float_run
from .weights import Weights

__all__ = ["Horizon", "perturbation_horizon", "invariant_tube", "search_failure", "compress_word"]

#: Bits of the ball arithmetic.
PREC = 128
#: Steps of the recurrence evaluated one by one before the closed form takes over.
STEPPED = 256
#: Largest certified length reported (a bound beyond it is reported as this).
CAP = 10**18


@dataclass(frozen=True)
class Horizon:
    """The certified horizon: every word of length <= ``length`` is right (``None``: every
    length).  The other fields are the bound's ingredients (upper ends of their balls)."""

    length: int | None
    epsilon: float
    gamma: float
    beta: float
    rho: float
    margin: float
    lipschitz_kept: float
    lipschitz_dropped: float
    start_error: float
    note: str = ""
    #: which theorem gave the length: "global" (one scale per step) or "block-wise"
    bound: str = "global"
    #: upper bound of the norm of the rescaled float matrices on the kept coordinates
    sigma: float = 0.0

    def to_json(self) -> dict:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


def _arb(x) -> flint.arb:
    if isinstance(x, float) or isinstance(x, np.floating):
        return flint.arb(float(x))  # exact: a double is a dyadic rational
    if isinstance(x, (int, Fraction)):
        f = Fraction(x)
        return flint.arb(flint.fmpq(f.numerator, f.denominator))
    return x.ball(PREC).real  # FieldElement


def _arb_matrix(rows) -> flint.arb_mat:
    rows = [list(r) for r in rows]
    M = flint.arb_mat(len(rows), len(rows[0]))
    for i, r in enumerate(rows):
        for j, x in enumerate(r):
            if x != 0:
                M[i, j] = _arb(x)
    return M


def _hi(x: flint.arb) -> flint.arb:
    """The upper end of a ball, as an exact point."""
    return x.upper()


def _root(x: flint.arb) -> flint.arb:
    """Upper bound (an exact point) of sqrt(x) for a ball x around a non-negative number."""
    top = _hi(x)
    return _hi(top.sqrt()) if top > 0 else flint.arb(0)


def _lo(x: flint.arb) -> flint.arb:
    return x.lower()


def _max(values) -> flint.arb:
    out = flint.arb(0)
    for v in values:
        if _hi(v) > out:
            out = _hi(v)
    return out


def _norm_bound(M: flint.arb_mat, rows, cols, groups) -> flint.arb:
    """Upper bound (an exact point) of the 2-norm of ``M[rows, cols]``.

    :func:`_op_norm` (powers of M^T M); on the diagonal (``rows is cols``) also the largest 2-norm
    of a diagonal block of ``groups`` (exact for 1x1 and 2x2 blocks) plus the Frobenius norm of
    the entries outside those blocks (triangle inequality); the smaller of the two.
    """
    whole = _op_norm(M, rows, cols)
    if rows is not cols or not groups:
        return whole
    inside = {(i, j) for g in groups for i in g for j in g}
    rest = sum((M[i, j] ** 2 for i in rows for j in cols if (i, j) not in inside), flint.arb(0))
    blocks = _max(_block_norm(M, g) if len(g) == 2 else abs(M[g[0], g[0]]) for g in groups)
    split = _hi(blocks + _root(rest))
    return split if split < whole else whole


def _op_norm(M: flint.arb_mat, rows, cols, squarings: int = 4) -> flint.arb:
    """Upper bound (an exact point) of the 2-norm of ``M[rows, cols]``: with B = M^T M,
    ||M||^2 = lambda_max(B) <= ||B^(2^k)||_inf^(2^-k) (the spectral radius is at most any induced
    norm), and never more than the Frobenius norm."""
    rows, cols = list(rows), list(cols)
    if not rows or not cols:
        return flint.arb(0)
    old = flint.ctx.prec
    flint.ctx.prec = 64  # ball arithmetic is rigorous at any precision; an upper bound is all we need
    try:
        return _op_norm_at(M, rows, cols, squarings)
    finally:
        flint.ctx.prec = old


def _op_norm_at(M: flint.arb_mat, rows, cols, squarings: int) -> flint.arb:
    sub = flint.arb_mat([[M[i, j] for j in cols] for i in rows])
    frob = _root(sum((sub[i, j] ** 2 for i in range(len(rows)) for j in range(len(cols))), flint.arb(0)))
    B = sub.transpose() * sub
    for _ in range(squarings):
        B = B * B
    inf = _max(sum((abs(B[i, j]) for j in range(B.ncols())), flint.arb(0)) for i in range(B.nrows()))
    if not inf > 0:
        return frob
    bound = _hi((inf.log() / 2 ** (squarings + 1)).exp())
    return bound if bound < frob else frob


def _block_norm(M: flint.arb_mat, g) -> flint.arb:
    """The 2-norm of a 2x2 diagonal block, exactly: s^2 = (f + sqrt(f^2 - 4 det^2)) / 2."""
    a, b, c, d = M[g[0], g[0]], M[g[0], g[1]], M[g[1], g[0]], M[g[1], g[1]]
    f = a * a + b * b + c * c + d * d
    det = a * d - b * c
    disc = f * f - 4 * det * det
    disc = _hi(disc) if _hi(disc) > 0 else flint.arb(0)
    return _hi(((f + disc.sqrt()) / 2).sqrt())


def _transformed(weights: Weights, snap):
    """Float matrices, start state and readout in the snap's block basis, as arb values."""
    A, h0, R = weights.float_arrays()
    if snap.basis is None:
        F = [_arb_matrix(A[a]) * _arb(snap.scale[a]) for a in range(A.shape[0])]
        return F, _arb_matrix([[x] for x in h0]), _arb_matrix(R)
    P = flint.fmpq_mat([[flint.fmpq(x.numerator, x.denominator) for x in row] for row in snap.basis])
    Pa, Pinv = flint.arb_mat(P), flint.arb_mat(P.inv())
    F = [Pinv * (_arb_matrix(A[a]) * _arb(snap.scale[a])) * Pa for a in range(A.shape[0])]
    return F, Pinv * _arb_matrix([[x] for x in h0]), _arb_matrix(R) * Pa


def _margins(proof, automaton, Rb: flint.arb_mat, K, D):
    """``(mu, L_K, L_D)``: smallest normalised float-readout margin on the snapped reachable
    states, and the largest norms of the readout differences on K and on D."""
    hidden = proof.hidden_vectors()
    mu, lk, ld = None, flint.arb(0), flint.arb(0)
    C = Rb.nrows()
    for q, hids in enumerate(proof.state_map):
        lab = int(automaton.labels[q])
        for c in range(C):
            if c == lab:
                continue
            diff = [Rb[lab, j] - Rb[c, j] for j in range(Rb.ncols())]
            lk = _max([lk, _root(sum((diff[j] ** 2 for j in K), flint.arb(0)))])
            ld = _max([ld, _root(sum((diff[j] ** 2 for j in D), flint.arb(0)))])
            for h in hids:
                y = [_arb(x) for x in hidden[h]]
                n = sum((x * x for x in y), flint.arb(0)).sqrt()
                m = _lo(sum((diff[j] * y[j] for j in K), flint.arb(0)) / n)
                mu = m if mu is None or m < mu else mu
    return mu, lk, ld


def _column(values) -> flint.arb_mat:
    M = flint.arb_mat(len(values), 1)
    for j, x in enumerate(values):
        M[j, 0] = x
    return M


def _ingredients(weights: Weights, snap, proof, automaton, orthonormal: bool = False):
    """The constants of the theorem, and the scaled float and unit snapped start states."""
    F, h0, Rb = _transformed(weights, snap)
    d = weights.dim
    K = list(snap.kept_coords)
    D = [j for j in range(d) if j not in set(K)]
    groups = [snap.blocks[i] for i in snap.kept]
    dropped = [g for i, g in enumerate(snap.blocks) if i not in snap.kept]
    if orthonormal:
        F, h0, Rb = _orthonormal_dropped(F, h0, Rb, snap, K, D)
        dropped = []
    F = [F[a] * _arb(1.0 / (_float_norm(F[a], K) or 1.0)) for a in range(len(F))]  # ||F[K,K]|| ~ 1
    S = [_arb_matrix(snap.block_weights.A[a]) for a in range(weights.n_symbols)]
    sigma = _max(_norm_bound(F[a], K, K, groups) for a in range(len(F)))
    eps = _max(_norm_bound(F[a] - S[a], K, K, groups) for a in range(len(F)))
    gamma = _max(_norm_bound(F[a], K, D, groups) for a in range(len(F))) if D else flint.arb(0)
    beta = _max(_norm_bound(F[a], D, K, groups) for a in range(len(F))) if D else flint.arb(0)
    rho = _max(_norm_bound(F[a], D, D, dropped) for a in range(len(F))) if D else flint.arb(0)
    mu, lk, ld = _margins(proof, automaton, Rb, K, D)
    y0 = [_arb(x) for x in snap.block_weights.h0]
    n0 = sum((y0[j] ** 2 for j in K), flint.arb(0)).sqrt()
    y0 = [x / n0 for x in y0]
    hk = np.array([float(h0[j, 0].mid()) for j in K])
    yk = np.array([float(y0[j].mid()) for j in K])
    c0 = _arb(float(yk @ hk) / float(hk @ hk)) if float(hk @ hk) > 0 else flint.arb(1)
    consts = (eps, gamma, beta, rho, mu, lk, ld, sigma)
    return consts, (F, S, h0 * c0, _column(y0), Rb, K, D)


def _float_norm(M: flint.arb_mat, K) -> float:
    return float(np.linalg.norm(np.array([[float(M[i, j].mid()) for j in K] for i in K]), 2))


def _orthonormal_dropped(F, h0, Rb, snap, K, D):
    """Change the basis of the dropped coordinates only (T = I on K, T_DD on D) so that the
    dropped basis vectors P_D T_DD are orthonormal (QR, T_DD = R^-1 as exact floats): the kept
    part and the snapped matrices are unchanged, and the dropped blocks are measured in a
    Euclidean norm instead of an ill-conditioned eigenbasis."""
    Pf = np.array(snap.basis, dtype=float)
    Tdd = np.linalg.inv(np.linalg.qr(Pf[:, D])[1])
    d = Pf.shape[0]
    T = flint.fmpq_mat(d, d)
    for j in K:
        T[j, j] = 1
    for r, i in enumerate(D):
        for c, j in enumerate(D):
            f = Fraction(float(Tdd[r, c]))
            T[i, j] = flint.fmpq(f.numerator, f.denominator)
    Ta = flint.arb_mat(T)
    Tinv = Ta.inv()  # a ball enclosing the exact inverse (cheaper than the rational inverse)
    return [Tinv * M * Ta for M in F], Tinv * h0, Rb * Ta


def _exhaustive(automaton, F, S, x0, y0, Rb, K, D, max_nodes: int = 1024):
    """Every word up to the depth s where the next level would exceed ``max_nodes`` words, run
    in ball arithmetic: ``(s, u_s, v_s, first failing length or None)``."""
    C = Rb.nrows()
    diffs = {(l, c): flint.arb_mat([[Rb[l, j] - Rb[c, j] for j in range(Rb.ncols())]])
             for l in range(C) for c in range(C) if c != l}
    level, depth = [(x0, y0, int(automaton.start))], 0
    while True:
        for x, _, q in level:
            lab = int(automaton.labels[q])
            if not all((diffs[lab, c] * x)[0, 0] > 0 for c in range(C) if c != lab):
                return depth, None, None, depth
        if len(level) * len(F) > max_nodes:
            break
        level = [(F[a] * x, S[a] * y, int(automaton.delta[a, q])) for x, y, q in level for a in range(len(F))]
        depth += 1
    u = _max(_root(sum(((x[j, 0] - y[j, 0]) ** 2 for j in K), flint.arb(0))) for x, y, _ in level)
    v = _max(_root(sum((x[j, 0] ** 2 for j in D), flint.arb(0))) for x, _, _ in level) if D else flint.arb(0)
    return depth, u, v, None


def _closed_form(eps, gamma, beta, rho, mu, lk, ld, u, V, sig) -> int | None:
    """Steps s >= 0 after which the bound still certifies, from (u, V) on; None: every s."""
    e_ratio = beta / (1 - rho)
    a = _hi(sig - 1 + gamma * e_ratio)
    a = a if a > 0 else flint.arb(0)  # u' <= (1 + a) u + c stays true with a raised to 0
    c = eps + gamma * V + gamma * e_ratio
    caps = []
    if lk > 0:
        caps.append((mu - ld * V) / lk)
    if lk + ld * e_ratio > 0:
        caps.append((mu - ld * e_ratio) / (lk + ld * e_ratio))
    if not caps:
        return None
    u_max = _lo(caps[0])
    for x in caps[1:]:
        if _lo(x) < u_max:
            u_max = _lo(x)
    if not u_max > u:
        return 0
    if a.is_zero():
        if c.is_zero():
            return None
        X = (u_max - u) / c
    else:
        X = ((u_max + c / a) / (u + c / a)).log() / a.log1p()
    low = _lo(X)
    if not math.isfinite(float(low.mid())) or low > CAP:
        return CAP
    return max(0, math.ceil(float(low.mid()) * (1 - 1e-12)) - 2)


def perturbation_horizon(weights: Weights, snap, proof, automaton) -> Horizon:
    """The certified horizon of float ``weights`` against a proved ``snap`` (module docstring):
    the longer of the global bound and, for block-diagonal networks, the block-wise bound
    (:mod:`~bilinear.constructions.horizon_blocks`).  Both are rigorous.

    The words of the first few lengths (up to about a thousand words) are run exhaustively in
    ball arithmetic; the recurrence starts from their largest errors.
    """
    from .horizon_blocks import blockwise_horizon

    old = flint.ctx.prec
    flint.ctx.prec = PREC
    try:
        found = _global_horizon(weights, snap, proof, automaton)
        if (snap.basis is not None and len(snap.kept_coords) < weights.dim and found.length is not None
                and not found.rho < 1):
            other = _global_horizon(weights, snap, proof, automaton, orthonormal=True)
            if other.length is None or other.length > found.length:
                found = other
    finally:
        flint.ctx.prec = old
    if found.length is None or not found.note.startswith("every word"):
        return found
    other = blockwise_horizon(weights, snap, proof, automaton)
    if other is not None and (other.length is None or other.length > found.length):
        return other
    return found


def _global_horizon(weights: Weights, snap, proof, automaton, orthonormal: bool = False) -> Horizon:
    """The global bound; ``orthonormal``: in the basis of :func:`_orthonormal_dropped`."""
    (eps, gamma, beta, rho, mu, lk, ld, sig), (F, S, x0, y0, Rb, K, D) = _ingredients(
        weights, snap, proof, automaton, orthonormal)
    s, u, v, failed = _exhaustive(automaton, F, S, x0, y0, Rb, K, D)
    f = lambda x: float(_hi(x).mid())  # noqa: E731
    consts = (f(eps), f(gamma), f(beta), f(rho), float(mu.mid()), f(lk), f(ld))
    if failed is not None:
        return Horizon(failed - 1, *consts, 0.0, f"the float network fails on a word of length {failed}", sigma=f(sig))
    length, note, start = _iterate(eps, gamma, beta, rho, mu, lk, ld, u, v, s, sig), "", u + v
    if length == -2:
        length, note = STEPPED, "the dropped blocks do not contract (rho >= 1): stepped bound only"
    note = note or f"every word up to length {s} run exhaustively in ball arithmetic"
    if orthonormal:
        note += "; dropped coordinates in an orthonormal basis"
    return Horizon(length, *consts, f(start), note, sigma=f(sig))


def _iterate(eps, gamma, beta, rho, mu, lk, ld, u, v, s: int, sig) -> int | None:
    """The recurrence from (u_s, v_s): stepped to STEPPED, then in closed form; -2: rho >= 1."""
    for t in range(s, STEPPED + 1):
        if not mu - lk * u - ld * v > 0:
            return max(s, t - 1)
        if t < STEPPED:
            u, v = _hi(sig * u + eps + gamma * v), _hi(rho * v + beta * (1 + u))
    if not rho < 1:
        return -2
    more = _closed_form(eps, gamma, beta, rho, mu, lk, ld, u, v, sig)
    return None if more is None else min(CAP, STEPPED + more)


# ------------------------------------------------------------------------------------------
# the directed search for a failing word
# ------------------------------------------------------------------------------------------
def compress_word(automaton, word) -> str:
    """A word, run-length compressed: ``2^639``, ``(0 1)^320 0``, ``3^2 1 4^5``.

    >>> from bilinear.automata.families import from_spec
    >>> a = from_spec("cyclic:5")
    >>> compress_word(a, (2,) * 639), compress_word(a, (0, 1) * 3 + (0,)), compress_word(a, (3, 3, 1))
    ('2^639', '(0 1)^3 0', '3^2 1')
    """
    from bilinear.automata.words import compress

    return compress(word, automaton)


def _first_failures(weights: Weights, automaton, words: np.ndarray) -> np.ndarray:
    """Per word, the length of its shortest failing prefix (0: the empty word; -1: none)."""
    A, h0, R = weights.float_arrays()
    labels = automaton.labels[automaton.run_batch(words, trace=True)]
    first = np.full(words.shape[0], -1)
    s0 = R @ (h0 / (np.linalg.norm(h0) or 1.0))
    lab0 = int(automaton.labels[automaton.start])
    if R.shape[0] > 1 and not s0[lab0] > np.delete(s0, lab0).max():
        return np.zeros(words.shape[0], dtype=int)
    rows = np.arange(words.shape[0])
    for t, scores in float_run(A, h0, words, R):
        own = scores[rows, labels[:, t]].copy()
        scores[rows, labels[:, t]] = -np.inf
        bad = (own <= scores.max(axis=1)) & (first < 0)
        first[bad] = t + 1
        if R.shape[0] == 1:
            break
    return first


def _loops(weights: Weights, snap, k: int, top: int = 16) -> list[tuple[int, ...]]:
    """Loops of length 2 (all) and 3 (the ``top`` that drift most from the snap per use)."""
    loops = [u for u in itertools.product(range(k), repeat=2) if len(set(u)) > 1]
    if k**3 > 4096 or snap is None:
        return loops
    A, _, _ = weights.float_arrays()
    S, h, _ = snap.block_weights.float_arrays()
    P = np.eye(weights.dim) if snap.basis is None else np.array(snap.basis, dtype=float)
    F = np.einsum("ij,sjk,kl->sil", np.linalg.inv(P), A * np.array(snap.scale)[:, None, None], P)
    y = h / np.linalg.norm(h)
    drift = {}
    for u in itertools.product(range(k), repeat=3):
        if len(set(u)) > 1:
            x, z = y, y
            for a in u:
                x, z = F[a] @ x, S[a] @ z
            drift[u] = float(np.linalg.norm(x - z))
    return loops + sorted(drift, key=drift.get, reverse=True)[:top]


def _certificate_words(automaton, length: int, limit: int = 256) -> list[np.ndarray]:
    from .snap import _access_words

    out = []
    for _q, w in sorted(_access_words(automaton).items()):
        if w and len(w) < length:
            out += [np.concatenate([np.array(w), np.full(length - len(w), a)]) for a in range(automaton.n_symbols)]
        if len(out) >= limit:
            break
    return out[:limit]


def search_failure(weights: Weights, automaton, length: int, snap=None, random_words: int = 256, seed: int = 0):
    """The shortest failing word found (a tuple of symbol indices), or None.

    Runs, up to ``length``: every symbol's powers, powers of the loops of :func:`_loops`, a
    shortest word reaching each automaton state followed by every symbol's powers (certificate
    words: the snapped proof's states, entered the shortest way), and ``random_words`` uniform
    random words (of length ``min(length, 2000)``).
    """
    k = weights.n_symbols
    words = [np.full(length, a) for a in range(k)]
    words += [np.resize(np.array(u), length) for u in _loops(weights, snap, k)]
    words += _certificate_words(automaton, length)
    batches = [np.stack(words)]
    if random_words:
        rng = np.random.default_rng(seed)
        batches.append(rng.integers(0, k, size=(random_words, min(length, 2000))))
    best = None
    for batch in batches:
        first = _first_failures(weights, automaton, batch)
        for i in np.nonzero(first >= 0)[0]:
            if best is None or first[i] < len(best):
                best = tuple(int(x) for x in batch[i, : first[i]])
    return best


# ------------------------------------------------------------------------------------------
# the invariant tube: a proof for every length where the dynamics contract
# ------------------------------------------------------------------------------------------
def _unit(v: flint.arb_mat) -> flint.arb_mat:
    n = sum((v[j, 0] ** 2 for j in range(v.nrows())), flint.arb(0)).sqrt()
    return v * (1 / n)


def _frob(M: flint.arb_mat) -> flint.arb:
    return _root(sum((M[i, j] ** 2 for i in range(M.nrows()) for j in range(M.ncols())), flint.arb(0)))


def _tube_pairs(proof, automaton, S):
    """``[(q, i)]`` reachable pairs and ``succ[(pair, a)] -> pair`` of the snapped network."""
    hidden = [np.array([float(x) for x in h]) for h in proof.hidden_vectors()]
    pairs = [(q, i) for q, hs in enumerate(proof.state_map) for i in hs]
    succ = {}
    for q, i in pairs:
        for a in range(len(S)):
            q2 = int(automaton.delta[a, q])
            v = S[a] @ hidden[i]
            v = v / np.linalg.norm(v)
            best = max(proof.state_map[q2], key=lambda j: float(v @ hidden[j] / np.linalg.norm(hidden[j])))
            succ[(q, i), a] = (q2, best)
    return pairs, succ


def invariant_tube(weights: Weights, snap, proof, automaton) -> float | None:
    """Radius r of a proved invariant tube, or None (Theorem 17 of docs/theory.md, invariant tube).

    Around every snapped reachable pair (q, y) (unit y) the tube holds the directions
    y + e, e orthogonal to y, ||e|| <= r.  It is proved invariant when every float map sends the
    tube around (q, y) into the tube around its snapped successor, every direction in the tube
    has the label of q as strict maximum, and the start state lies in the tube of the start pair:
    then the float network is right on every word of every length.  Needs the dynamics to
    contract transversally (it never holds for isometries with a phase error).
    """
    old = flint.ctx.prec
    flint.ctx.prec = PREC
    try:
        return _tube(weights, snap, proof, automaton)
    finally:
        flint.ctx.prec = old


def _tube(weights: Weights, snap, proof, automaton) -> float | None:
    F, h0, Rb = _transformed(weights, snap)
    S, _, _ = snap.block_weights.float_arrays()
    d = weights.dim
    pairs, succ = _tube_pairs(proof, automaton, S)
    hidden = proof.hidden_vectors()
    Y = {i: _unit(_arb_matrix([[x] for x in hidden[i]])) for _, i in pairs}
    eye = flint.arb_mat(d, d)
    for j in range(d):
        eye[j, j] = flint.arb(1)
    proj = {i: eye - y * y.transpose() for i, y in Y.items()}
    need = []  # (alpha, z, n, b) per (pair, symbol): image radius (z + n r) / (alpha - b r)
    for (q, i) in pairs:
        for a in range(len(F)):
            j = succ[(q, i), a][1]
            Fy = F[a] * Y[i]
            alpha = (Y[j].transpose() * Fy)[0, 0]
            if not alpha > 0:
                return None
            z = _frob(Fy - Y[j] * alpha)
            need.append((alpha, z, _frob(proj[j] * F[a] * proj[i]), _frob(proj[i] * F[a].transpose() * Y[j])))
    margins = []  # (m, k): the margin at y minus k r must stay positive
    for (q, i) in pairs:
        lab = int(automaton.labels[q])
        for c in range(Rb.nrows()):
            if c != lab:
                diff = flint.arb_mat([[Rb[lab, j] - Rb[c, j] for j in range(d)]])
                margins.append(((diff * Y[i])[0, 0], _frob(diff * proj[i])))
    start = [i for i in proof.state_map[int(automaton.start)]]
    y0 = Y[max(start, key=lambda i: float((Y[i].transpose() * h0)[0, 0].mid()))]
    s0 = (y0.transpose() * h0)[0, 0]
    if not s0 > 0:
        return None
    r0 = _frob(h0 * (1 / s0) - y0)
    return _tube_radius(need, margins, r0)


def _tube_radius(need, margins, r0) -> float | None:
    """The smallest radius satisfying every tube condition, checked in ball arithmetic."""
    f = lambda x: float(x.mid())  # noqa: E731
    lo = f(r0)
    for alpha, z, n, b in need:
        A_, B_, C_ = f(b), f(n) - f(alpha), f(z)  # b r^2 + (n - alpha) r + z <= 0
        if A_ == 0:
            if B_ >= 0:
                return None
            lo = max(lo, -C_ / B_)
            continue
        disc = B_ * B_ - 4 * A_ * C_
        if disc < 0:
            return None
        lo = max(lo, (-B_ - math.sqrt(disc)) / (2 * A_))
    r = flint.arb(_dyadic_up(lo * 1.01 + 1e-300))
    ok = all(alpha - b * r > 0 and z + n * r <= r * (alpha - b * r) for alpha, z, n, b in need)
    ok = ok and r >= r0 and all(m - k * r > 0 for m, k in margins)
    return float(r.mid()) if ok else None


def _dyadic_up(x: float) -> flint.fmpq:
    f = Fraction(math.ceil(x * 2**40), 2**40)
    return flint.fmpq(f.numerator, f.denominator)

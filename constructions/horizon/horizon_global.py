"""Theorem 16 (perturbation horizon): the global bound, one scale per step, in the snap's basis.

Let S be a snapped network proved by :func:`~bilinear.constructions.proof.prover.prove`, written in
its block basis P: the kept coordinates K carry exact rotations, reflections or +-1
(orthogonal: ``||S_a y|| = ||y||``), the dropped ones D are zero.  Write the float network in
the same basis, each matrix scaled by a positive constant (which changes no prediction):
``F_a = P^-1 (c_a A_a) P``.  The eight constants of the theorem (:class:`PerturbationBound`) are

    eps   >= max_a ||F_a[K,K] - S_a[K,K]||     gamma >= max_a ||F_a[K,D]||
    beta  >= max_a ||F_a[D,K]||                rho   >= max_a ||F_a[D,D]||
    sigma >= max_a ||F_a[K,K]||                mu    <= the smallest normalised margin
    L_K   >= readout differences on K          L_D   >= readout differences on D

and the errors ``u_t = ||x_t[K] - y_t||``, ``v_t = ||x_t[D]||`` of the float state against the
unit snapped state obey ``u_t <= sigma u + eps + gamma v``, ``v_t <= rho v + beta (1 + u)``; a word
of length t is right while ``mu > L_K u_t + L_D v_t``.  Rounding (float64, float32) adds
``delta`` to each of eps, gamma, beta, rho, sigma and ``tau`` to L_K and L_D and takes it from mu
(:meth:`PerturbationBound.with_roundoff`, docs/theory.md Section 7).  The first levels of words are run
exhaustively in ball arithmetic (with the rounding as a ball around each state), then the
recurrence is stepped, then solved in closed form (rho < 1).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from fractions import Fraction

import flint
import numpy as np

from ..exact.balls import arb, arb_matrix, bmax, column, frob_array, hi, lo, norm_bound, op_norm, precision, root, sq
from .horizon_base import CAP, MAX_EXHAUSTIVE_DEPTH, STEPPED, Horizon
from .roundoff import RoundOff

__all__ = ["PerturbationBound", "global_horizon", "iterate", "closed_form"]

#: The exhaustive start stops before a level of more words than this.
MAX_NODES = 1024


@dataclass(frozen=True)
class PerturbationBound:
    """The eight constants of Theorem 16 (perturbation horizon; module docstring), as balls (exact
    points)."""

    eps: flint.arb
    gamma: flint.arb
    beta: flint.arb
    rho: flint.arb
    sigma: flint.arb
    mu: flint.arb
    lk: flint.arb
    ld: flint.arb

    def with_roundoff(self, delta: flint.arb, tau: flint.arb) -> "PerturbationBound":
        """The constants of the rounded evaluation: every step perturbs F_a by at most delta in
        norm (relative to the state), every score by at most tau ||x||."""
        if delta == 0 and tau == 0:
            return self
        up = lambda x: hi(x + delta)  # noqa: E731
        return replace(self, eps=up(self.eps), gamma=up(self.gamma), beta=up(self.beta), rho=up(self.rho),
                       sigma=up(self.sigma), mu=lo(self.mu - tau), lk=hi(self.lk + tau), ld=hi(self.ld + tau))

    def step(self, u: flint.arb, v: flint.arb) -> tuple[flint.arb, flint.arb]:
        """One step of the recurrence: ``(sigma u + eps + gamma v, rho v + beta (1 + u))``."""
        return hi(self.sigma * u + self.eps + self.gamma * v), hi(self.rho * v + self.beta * (1 + u))

    def holds(self, u: flint.arb, v: flint.arb) -> bool:
        """The readout condition ``mu > L_K u + L_D v`` (certainly, for the whole ball)."""
        return bool(self.mu - self.lk * u - self.ld * v > 0)

    def floats(self) -> dict:
        f = lambda x: float(x.mid())  # noqa: E731
        return {"epsilon": f(self.eps), "gamma": f(self.gamma), "beta": f(self.beta), "rho": f(self.rho),
                "sigma": f(self.sigma), "margin": f(self.mu), "lipschitz_kept": f(self.lk),
                "lipschitz_dropped": f(self.ld)}


def iterate(c: PerturbationBound, u, v, s: int) -> int | None:
    """Theorem 16's recurrence from (u_s, v_s): the largest certified length, stepped to STEPPED and then
    in closed form.  None: every length (no growth at all); STEPPED is the answer when rho >= 1
    (no closed form)."""
    for t in range(s, STEPPED + 1):
        if not c.holds(u, v):
            return max(s, t - 1)
        if t < STEPPED:
            u, v = c.step(u, v)
    if not c.rho < 1:
        return STEPPED
    more = closed_form(c, u, v)
    return None if more is None else min(CAP, STEPPED + more)


def closed_form(c: PerturbationBound, u, V) -> int | None:
    """Steps s >= 0 after which the bound still certifies, from (u, V) on; None: every s.

    From a step on, v <= max(V, beta (1 + u) / (1 - rho)), and u grows at most like
    (u + c'/a)(1 + a)^s - c'/a with a = max(0, sigma - 1 + gamma beta / (1 - rho)) and
    c' = eps + gamma V + gamma beta / (1 - rho) (u + c' s when a = 0).
    """
    e_ratio = c.beta / (1 - c.rho)
    a = hi(c.sigma - 1 + c.gamma * e_ratio)
    a = a if a > 0 else flint.arb(0)  # u' <= (1 + a) u + c' stays true with a raised to 0
    cc = c.eps + c.gamma * V + c.gamma * e_ratio
    caps = []
    if c.lk > 0:
        caps.append((c.mu - c.ld * V) / c.lk)
    if c.lk + c.ld * e_ratio > 0:
        caps.append((c.mu - c.ld * e_ratio) / (c.lk + c.ld * e_ratio))
    if not caps:
        return None
    u_max = lo(caps[0])
    for x in caps[1:]:
        if lo(x) < u_max:
            u_max = lo(x)
    if not u_max > u:
        return 0
    if a.is_zero():
        if cc.is_zero():
            return None
        X = (u_max - u) / cc
    else:
        X = ((u_max + cc / a) / (u + cc / a)).log() / a.log1p()
    low = lo(X)
    if not low.is_finite():  # lo() maps a NaN ball to -inf: nothing certified then
        return CAP if low > 0 else 0
    if low > CAP:
        return CAP
    return max(0, math.ceil(float(low.mid()) * (1 - 1e-12)) - 2)


def _transformed(weights, snap):
    """Float matrices (times the snap's scales), start state and readout in the snap's block
    basis, as arb values, and the basis P and P^-1 (None for the identity)."""
    A, h0, R = weights.float_arrays()
    if snap.basis is None:
        F = [arb_matrix(A[a]) * arb(snap.scale[a]) for a in range(A.shape[0])]
        return F, arb_matrix([[x] for x in h0]), arb_matrix(R), None, None
    P = flint.fmpq_mat([[flint.fmpq(x.numerator, x.denominator) for x in row] for row in snap.basis])
    Pa, Pinv = flint.arb_mat(P), flint.arb_mat(P.inv())
    F = [Pinv * (arb_matrix(A[a]) * arb(snap.scale[a])) * Pa for a in range(A.shape[0])]
    return F, Pinv * arb_matrix([[x] for x in h0]), arb_matrix(R) * Pa, Pa, Pinv


def _margins(proof, automaton, Rb: flint.arb_mat, K, D):
    """``(mu, L_K, L_D)``: smallest normalised float-readout margin on the snapped reachable
    states, and the largest norms of the readout differences on K and on D."""
    hidden = proof.hidden_vectors()
    mu, lk, ld = None, flint.arb(0), flint.arb(0)
    for q, hids in enumerate(proof.state_map):
        lab = int(automaton.labels[q])
        for c in range(Rb.nrows()):
            if c == lab:
                continue
            diff = [Rb[lab, j] - Rb[c, j] for j in range(Rb.ncols())]
            lk = bmax([lk, root(sum((sq(diff[j]) for j in K), flint.arb(0)))])
            ld = bmax([ld, root(sum((sq(diff[j]) for j in D), flint.arb(0)))])
            for h in hids:
                y = [arb(x) for x in hidden[h]]
                n = sum((x * x for x in y), flint.arb(0)).sqrt()
                m = lo(sum((diff[j] * y[j] for j in K), flint.arb(0)) / n)
                mu = m if mu is None or m < mu else mu
    return mu, lk, ld


def _float_norm(M: flint.arb_mat, K) -> float:
    return float(np.linalg.norm(np.array([[float(M[i, j].mid()) for j in K] for i in K]), 2))


def _orthonormal_dropped(snap, K, D):
    """T = I on K, T_DD on D, such that the dropped basis vectors P_D T_DD are orthonormal (QR,
    T_DD = R^-1 as exact floats): ``(T, T^-1)`` as arb matrices."""
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
    return Ta, Ta.inv()  # a ball enclosing the exact inverse (cheaper than the rational inverse)


@dataclass(frozen=True)
class _Setup:
    """The network in the theorem's basis: scaled float matrices F, snapped S, scaled float start
    x0 (with its rounding as a ball), unit snapped start y0, readout Rb, coordinates K and D, the
    per-step rounding delta and the readout rounding tau."""

    F: list
    S: list
    x0: flint.arb_mat
    y0: flint.arb_mat
    Rb: flint.arb_mat
    K: list
    D: list
    delta: flint.arb
    tau: flint.arb


#: The last few :func:`_real_part` results, keyed by the identity of their arguments (each entry
#: holds its arguments, so no id is reused while it is kept).
_REAL_PARTS: list = []


def _real_part(weights, snap, proof, automaton, orthonormal: bool):
    """The part of :func:`ingredients` that does not depend on the arithmetic (certify asks for
    the horizon in float64, real and float32 arithmetic on the same snap): the basis change,
    Theorem 16's constants (:class:`PerturbationBound`), the start states.  Made once per (weights, snap, proof, automaton,
    orthonormal), read-only afterwards."""
    key = (weights, snap, proof, automaton, orthonormal)
    for entry in _REAL_PARTS:
        if all(x is y for x, y in zip(entry[0][:4], key[:4])) and entry[0][4] == orthonormal:
            return entry[1]
    F, h0, Rb, Pa, Pinv = _transformed(weights, snap)
    d = weights.dim
    K = list(snap.kept_coords)
    D = [j for j in range(d) if j not in set(K)]
    groups = [snap.blocks[i] for i in snap.kept]
    dropped = [g for i, g in enumerate(snap.blocks) if i not in snap.kept]
    if orthonormal:
        Ta, Tinv = _orthonormal_dropped(snap, K, D)
        F, h0, Rb = [Tinv * M * Ta for M in F], Tinv * h0, Rb * Ta
        Pa, Pinv = Pa * Ta, Tinv * Pinv
        dropped = []
    norms = [1.0 / (_float_norm(F[a], K) or 1.0) for a in range(len(F))]
    F = [F[a] * arb(norms[a]) for a in range(len(F))]  # ||F[K,K]|| ~ 1
    S = [arb_matrix(snap.block_weights.A[a]) for a in range(weights.n_symbols)]
    mu, lk, ld = _margins(proof, automaton, Rb, K, D)
    c = PerturbationBound(
        eps=bmax(norm_bound(F[a] - S[a], K, K, groups) for a in range(len(F))),
        gamma=bmax(norm_bound(F[a], K, D, groups) for a in range(len(F))) if D else flint.arb(0),
        beta=bmax(norm_bound(F[a], D, K, groups) for a in range(len(F))) if D else flint.arb(0),
        rho=bmax(norm_bound(F[a], D, D, dropped) for a in range(len(F))) if D else flint.arb(0),
        sigma=bmax(norm_bound(F[a], K, K, groups) for a in range(len(F))),
        mu=mu, lk=lk, ld=ld,
    )
    y0 = [arb(x) for x in snap.block_weights.h0]
    n0 = sum((sq(y0[j]) for j in K), flint.arb(0)).sqrt()
    y0 = [x / n0 for x in y0]
    hk = np.array([float(h0[j, 0].mid()) for j in K])
    yk = np.array([float(y0[j].mid()) for j in K])
    # the least-squares scale of the start, where it is positive (a scale may not flip the state: the float
    # network's predictions from -h0 are not its predictions from h0)
    scale0 = float(yk @ hk) / float(hk @ hk) if float(hk @ hk) > 0 else 0.0
    c0 = arb(scale0) if scale0 > 0 else flint.arb(1)
    x0 = h0 * c0
    p_norm = flint.arb(1) if Pa is None else op_norm(Pa, range(d), range(d))
    pinv_norm = flint.arb(1) if Pa is None else op_norm(Pinv, range(d), range(d))
    out = (c, F, S, h0, Rb, Pa, Pinv, K, D, norms, c0, x0, y0, p_norm, pinv_norm)
    _REAL_PARTS.insert(0, (key, out))
    del _REAL_PARTS[4:]
    return out


def ingredients(weights, snap, proof, automaton, roundoff: RoundOff, orthonormal: bool = False):
    """``(PerturbationBound constants in real arithmetic, _Setup)`` of a snap."""
    c, F, S, h0, Rb, Pa, Pinv, K, D, norms, c0, x0, y0, p_norm, pinv_norm = _real_part(
        weights, snap, proof, automaton, orthonormal)
    A, h0f, Rf = weights.float_arrays()
    d = weights.dim
    delta, tau = flint.arb(0), flint.arb(0)
    if not roundoff.exact:
        kappa = flint.arb(1) if Pa is None else hi(p_norm * pinv_norm)
        delta = bmax(roundoff.step * kappa * arb(abs(snap.scale[a]) * norms[a]) * frob_array(A[a])
                     for a in range(len(F)))
        rows = [frob_array(r) for r in Rf]
        labels = sorted(set(int(x) for x in automaton.labels))
        pair = bmax(rows[l] + rows[k] for l in labels for k in range(len(rows)) if k != l)
        tau = hi(roundoff.readout * pair * p_norm)
        start = hi(roundoff.start * pinv_norm * abs(c0) * frob_array(h0f))
        x0 = x0 + column([flint.arb(0, start)] * d)
    return c, _Setup(F, S, x0, column(y0), Rb, K, D, delta, tau)


def _round(x: flint.arb_mat, delta) -> flint.arb_mat:
    """The ball of every state within ``delta ||x||`` of x (a box around each coordinate)."""
    if delta == 0:
        return x
    r = hi(delta * root(sum((sq(x[j, 0]) for j in range(x.nrows())), flint.arb(0))))
    return x + column([flint.arb(0, r)] * x.nrows())


def exhaustive(automaton, st: _Setup, max_nodes: int = MAX_NODES):
    """Every word up to the depth s where the next level would exceed ``max_nodes`` words, run in
    ball arithmetic (rounding charged): ``(s, u_s, v_s, first length not certified or None)``."""
    C = st.Rb.nrows()
    diffs = {(l, c): flint.arb_mat([[st.Rb[l, j] - st.Rb[c, j] for j in range(st.Rb.ncols())]])
             for l in range(C) for c in range(C) if c != l}
    level, depth = [(st.x0, st.y0, int(automaton.start))], 0
    while True:
        for x, _, q in level:
            lab = int(automaton.labels[q])
            nx = root(sum((sq(x[j, 0]) for j in range(x.nrows())), flint.arb(0))) if st.tau != 0 else 0
            if not all((diffs[lab, c] * x)[0, 0] - st.tau * nx > 0 for c in range(C) if c != lab):
                return depth, None, None, depth
        if len(level) * len(st.F) > max_nodes or depth >= MAX_EXHAUSTIVE_DEPTH:  # one symbol: no growth
            break
        level = [(_round(st.F[a] * x, st.delta), st.S[a] * y, int(automaton.delta[a, q]))
                 for x, y, q in level for a in range(len(st.F))]
        depth += 1
    K, D = st.K, st.D
    u = bmax(root(sum((sq(x[j, 0] - y[j, 0]) for j in K), flint.arb(0))) for x, y, _ in level)
    v = bmax(root(sum((sq(x[j, 0]) for j in D), flint.arb(0))) for x, _, _ in level) if D else flint.arb(0)
    return depth, u, v, None


def exhaustive_phase(automaton, st, c, roundoff: RoundOff, method: str, where: str = ""):
    """The first phase of Theorems 16 and 19: every word up to the exhaustive depth ``s`` run in
    ball arithmetic (:func:`exhaustive`).  Returns ``(horizon, consts, s, u, v)``: ``horizon`` is
    the answer when a word of that phase is not certified (None when every one is), ``consts``
    the constants a :class:`Horizon` reports (with the start error ``u + v`` once the phase
    passed), and ``(s, u, v)`` where the recurrence starts."""
    s, u, v, failed = exhaustive(automaton, st)
    consts = dict(c.floats(), start_error=0.0, roundoff_step=float(st.delta.mid()))
    if failed is not None:
        note = f"a word of length {failed} is not certified in ball arithmetic{where}"
        if failed == 0:
            return Horizon.none(roundoff.arithmetic, note, method, **consts), consts, s, u, v
        return Horizon.up_to(failed - 1, roundoff.arithmetic, method, note, **consts), consts, s, u, v
    consts["start_error"] = float(hi(u + v).mid())
    return None, consts, s, u, v


def global_horizon(weights, snap, proof, automaton, roundoff: RoundOff, orthonormal: bool = False) -> Horizon:
    """The certified horizon of Theorem 16 in ``roundoff``'s arithmetic; ``orthonormal``: the
    dropped coordinates in an orthonormal basis (:func:`_orthonormal_dropped`)."""
    with precision():
        real, st = ingredients(weights, snap, proof, automaton, roundoff, orthonormal)
        c = real.with_roundoff(st.delta, st.tau)
        where = "; dropped coordinates in an orthonormal basis" if orthonormal else ""
        refused, consts, s, u, v = exhaustive_phase(automaton, st, c, roundoff, "global", where)
        if refused is not None:
            return refused
        length = iterate(c, u, v, s)
        note = f"every word up to length {s} run exhaustively in ball arithmetic{where}"
        if length is None:
            return Horizon.every_length(roundoff.arithmetic, "global", note, **consts)
        if length == STEPPED and not c.rho < 1:
            note = "the dropped blocks do not contract (rho >= 1): stepped bound only; " + note
        return Horizon.up_to(length, roundoff.arithmetic, "global", note, **consts)


def global_ceiling(weights, snap) -> float:
    """An upper bound on :func:`global_horizon` of ``snap`` in every arithmetic and in both bases
    (the snap's, and the dropped coordinates orthonormal), from float values and no balls; a
    candidate whose ceiling is below a length already certified cannot win, so its horizon need
    not be computed (``certify``).

    Scaled as in :func:`ingredients`, ``||F_a[K,K]|| = 1``, so the recurrence has sigma >= 1 and
    ``u_t >= (t - s) eps`` after the exhaustive depth ``s <= MAX_EXHAUSTIVE_DEPTH``; a normalised
    margin is at most the norm of its readout difference on K (Cauchy-Schwarz), so ``mu <= L_K``
    and no length beyond ``s + 1 / eps`` passes ``mu > L_K u_t``.  The balls (and rounding's delta)
    only raise eps.  When the dropped block's norm rho is at least 1 in both bases, the recurrence
    is stepped to :data:`STEPPED` and no further (:func:`iterate`).  ``eps`` and ``rho`` here are
    the true norms of the float matrices (computed in float64, with a relative slack of 1e-6),
    which the balls enclose from above.
    """
    A, _, _ = weights.float_arrays()
    S, _, _ = snap.block_weights.float_arrays()
    K = list(snap.kept_coords)
    D = [j for j in range(weights.dim) if j not in set(K)]
    F = A * np.array([float(c) for c in snap.scale])[:, None, None]
    P = None if snap.basis is None else np.array(snap.basis, dtype=float)
    if P is not None:
        F = np.linalg.inv(P) @ F @ P  # (a three-operand einsum takes no BLAS path: 50x slower at d = 64)
    norms = [float(np.linalg.norm(F[a][np.ix_(K, K)], 2)) for a in range(len(F))]
    if not all(n > 0 and math.isfinite(n) for n in norms):
        return math.inf
    F = F / np.array(norms)[:, None, None]
    eps = max(float(np.linalg.norm(F[a][np.ix_(K, K)] - S[a][np.ix_(K, K)], 2)) for a in range(len(F)))
    ceiling = math.inf if not eps > 0 else MAX_EXHAUSTIVE_DEPTH + 2 + (1 + 1e-6) / eps
    if D and P is not None:
        Tdd = np.linalg.inv(np.linalg.qr(P[:, D])[1])  # as _orthonormal_dropped
        Tinv = np.linalg.inv(Tdd)
        rho = min(max(float(np.linalg.norm(M, 2)) for M in (F[a][np.ix_(D, D)] for a in range(len(F)))),
                  max(float(np.linalg.norm(Tinv @ F[a][np.ix_(D, D)] @ Tdd, 2)) for a in range(len(F))))
        if rho >= 1 + 1e-6:
            ceiling = min(ceiling, STEPPED)
    return ceiling

"""Theorem 19 (orbit horizon): the perturbation horizon of a snap whose matrices are not isometries.

Theorem 16 needs the snapped matrices to be orthogonal on the kept coordinates K, so that the
snapped state keeps norm 1 and an error is never amplified by the snap itself.  The exact
constructions of S_4, A_4 (3-dimensional integer representations) and of resets (projections)
are not orthogonal, but the snapped network visits a *finite* set of states and its matrix
products form a *finite* set: both are enumerated here exactly (breadth first, the snapped entries
are integers, rationals or cyclotomic numbers), which gives

    N     >= max ||M||  over M = S_w[K,K], w any word (the empty word: the identity),
    Ymax  >= max ||z||  over the snapped states z = S_w y0 (not normalised),
    m     <= min (R'_l - R'_c)[K] . z over the reachable pairs (q, z), c != l = L(q),

and the float errors ``U_t >= ||x_t[K] - z_t||``, ``V_t >= ||x_t[D]||`` obey (docs/theory.md,
Theorem 19) ``W = Ymax + U``,

    C_t = C_{t-1} + eps W_{t-1} + gamma V_{t-1},   U_t = N (u_s + C_t),
    V_t = rho V_{t-1} + beta W_{t-1},

with eps, gamma, beta, rho the norms of F_a - S_a on the blocks (K,K), (K,D), (D,K), (D,D) at the
float matrices' least-squares scale; a word of length t is right while
``m_lc - tau (W_t + V_t) > L_K,lc U_t + L_D,lc V_t`` for every ordered pair of classes (l, c), l a
reachable label (``m_lc`` the smallest margin of l over c on the reachable pairs of label l,
``L_K,lc``, ``L_D,lc`` the norms of (R'_l - R'_c) on K and D).  Rounding adds ``delta`` to eps, gamma, beta and rho
(Theorem 18).  The first levels are run exhaustively in ball arithmetic
(:func:`~bilinear.constructions.horizon.horizon_global.exhaustive`), the recurrence is stepped to
:data:`~bilinear.constructions.horizon.horizon_base.STEPPED` and then solved in closed form (rho < 1).

>>> from bilinear.automata.families import from_spec
>>> from bilinear.constructions.handmade.registry import build
>>> from bilinear.constructions.horizon.snap import construction_snap
>>> from bilinear.constructions.proof.prover import prove
>>> from bilinear.constructions.horizon.roundoff import RoundOff
>>> a = from_spec("symmetric:4")
>>> w = build("symmetric:4", "full").to_float()
>>> s = construction_snap(w, a)
>>> s.isometric
False
>>> h = orbit_horizon(w, s, prove(s.block_weights, a), a, RoundOff.of("float64", w.dim))
>>> h.bound, h.length > 10**6
('orbit', True)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import flint
import numpy as np

from ..exact.balls import arb, arb_matrix, bmax, column, frob_array, hi, lo, norm_bound, op_norm, precision, root, sq
from .horizon_base import CAP, STEPPED, Horizon
from .horizon_global import _Setup, _transformed, exhaustive_phase
from .roundoff import RoundOff
from ..proof.search import breadth_first

__all__ = ["Orbit", "OrbitPerturbationBound", "orbit_horizon", "exact_orbit", "MAX_PRODUCTS"]

#: Largest number of distinct snapped matrix products (and of reachable pairs) enumerated.
MAX_PRODUCTS = 4096


@dataclass(frozen=True)
class Orbit:
    """The finite orbit of a snapped network on its kept coordinates: every product
    ``S_w[K,K]`` (``products``, the identity first) and every reachable pair ``(q, z)`` with
    ``z = S_w y0[K]`` (not normalised), all exact (tuples of the snapped entries)."""

    products: tuple
    pairs: tuple


def _mat_mul(X, Y):
    n, k, m = len(X), len(Y), len(Y[0])
    return tuple(tuple(sum((X[i][l] * Y[l][j] for l in range(k) if X[i][l] != 0), 0) for j in range(m))
                 for i in range(n))


def _mat_vec(X, z):
    return tuple(sum((X[i][l] * z[l] for l in range(len(z)) if X[i][l] != 0), 0) for i in range(len(X)))


def exact_orbit(snap, automaton, limit: int = MAX_PRODUCTS) -> Orbit | None:
    """The :class:`Orbit` of ``snap`` (breadth first, exact), or None when the products or the
    reachable pairs outgrow ``limit`` (the snapped matrices then generate no small finite set)."""
    w = snap.block_weights
    K = list(snap.kept_coords)
    gens = [tuple(tuple(w.A[a][i, j] for j in K) for i in K) for a in range(w.n_symbols)]
    ident = tuple(tuple(1 if i == j else 0 for j in range(len(K))) for i in range(len(K)))
    products = breadth_first(ident, lambda M: (_mat_mul(g, M) for g in gens), limit)
    if products is None:
        return None
    start = (int(automaton.start), tuple(w.h0[j] for j in K))
    pairs = breadth_first(start, lambda p: ((int(automaton.delta[a, p[0]]), _mat_vec(gens[a], p[1]))
                                            for a in range(w.n_symbols)), limit)
    if pairs is None:
        return None
    return Orbit(tuple(products), tuple(pairs))


@dataclass(frozen=True)
class OrbitPerturbationBound:
    """The constants of Theorem 19 (orbit horizon; module docstring), as balls (exact points); ``tau`` is the
    readout rounding (0 in real arithmetic), already folded into nothing else."""

    eps: flint.arb
    gamma: flint.arb
    beta: flint.arb
    rho: flint.arb
    n: flint.arb
    ymax: flint.arb
    mu: flint.arb
    lk: flint.arb
    ld: flint.arb
    tau: flint.arb
    #: per ordered pair of classes (l, c), l a reachable label: (mu_lc, L_K,lc, L_D,lc); the readout
    #: condition is checked pair by pair (empty: the single pair (mu, lk, ld) above)
    pairs: tuple = ()

    def _pairs(self):
        return self.pairs or ((self.mu, self.lk, self.ld),)

    def step(self, c, v, w, u_s):
        """One step from ``(C, V, W)``: ``(C', V', W', U')``."""
        c2 = hi(c + self.eps * w + self.gamma * v)
        v2 = hi(self.rho * v + self.beta * w)
        u2 = hi(self.n * (u_s + c2))
        return c2, v2, hi(self.ymax + u2), u2

    def holds(self, u, v, w) -> bool:
        """``m_lc - tau (W + V) > L_K,lc U + L_D,lc V`` for every pair of classes, for the whole ball."""
        return all(bool(m - self.tau * (w + v) - lk * u - ld * v > 0) for m, lk, ld in self._pairs())

    def floats(self) -> dict:
        f = lambda x: float(x.mid())  # noqa: E731
        return {"epsilon": f(self.eps), "gamma": f(self.gamma), "beta": f(self.beta), "rho": f(self.rho),
                "product_norm": f(self.n), "state_norm_max": f(self.ymax), "margin": f(self.mu),
                "lipschitz_kept": f(self.lk), "lipschitz_dropped": f(self.ld)}


def iterate_orbit(c: OrbitPerturbationBound, u_s, v_s, s: int) -> int | None:
    """Theorem 19's recurrence: the largest certified length from the errors ``(u_s, v_s)`` after the exhaustive depth s
    (every word of length <= s already checked): the recurrence stepped to STEPPED, then in
    closed form; None for every length (no perturbation at all)."""
    if c.eps.is_zero() and c.gamma.is_zero() and c.beta.is_zero() and u_s.is_zero() and v_s.is_zero() \
            and c.holds(u_s, v_s, c.ymax):
        return None
    C, V, W = flint.arb(0), v_s, hi(c.ymax + u_s)
    for t in range(s + 1, max(STEPPED, s + 1) + 1):
        C, V, W, U = c.step(C, V, W, u_s)
        if not c.holds(U, V, W):
            return t - 1
    if not c.rho < 1:
        return max(STEPPED, s + 1)
    more = _closed_form_orbit(c, V, W)
    return min(CAP, max(STEPPED, s + 1) + more)


def _closed_form_orbit(c: OrbitPerturbationBound, V, W) -> int:
    """Steps k >= 0 after step T (errors V_T = V, W_T = W) that still certify: with
    ``a = eps + gamma beta / (1 - rho)``, ``W_{T+k} <= (W + g/a)(1 + N a)^k - g/a`` (g = gamma V)
    and ``V_{T+k} <= V + beta W_{T+k} / (1 - rho)``, against the largest W the readout allows."""
    r = c.beta / (1 - c.rho)
    a = hi(c.eps + c.gamma * r)
    g = hi(c.gamma * V)
    # m_lc - tau (W + V + r W) > L_K,lc (W - Ymax) + L_D,lc (V + r W), for every pair (l, c)
    w_max = min((lo((m + lk * c.ymax - (c.tau + ld) * V) / (lk + c.tau + (c.tau + ld) * r)) for m, lk, ld in c._pairs()),
                key=lambda x: float(x.mid()) if x.is_finite() else -math.inf)
    if not w_max > W:
        return 0
    if a.is_zero():
        return CAP
    X = ((w_max + g / a) / (W + g / a)).log() / (c.n * a).log1p()
    low = lo(X)
    if not low.is_finite():
        return CAP if low > 0 else 0
    if low > CAP:
        return CAP
    return max(0, math.ceil(float(low.mid()) * (1 - 1e-12)) - 2)


def _ls_scale(F: flint.arb_mat, S: flint.arb_mat, K) -> float:
    """The least-squares factor c with c F[K,K] ~ S[K,K] (a float; any positive number is valid)."""
    f = np.array([[float(F[i, j].mid()) for j in K] for i in K])
    s = np.array([[float(S[i, j].mid()) for j in K] for i in K])
    den = float(np.sum(f * f))
    return float(np.sum(f * s)) / den if den > 0 else 0.0


def orbit_ingredients(weights, snap, orbit: Orbit, automaton, roundoff: RoundOff):
    """``(OrbitPerturbationBound, _Setup)`` or ``(None, reason)``: the constants of Theorem 19 for
    a snap and its orbit."""
    F, h0, Rb, Pa, Pinv = _transformed(weights, snap)
    A, h0f, Rf = weights.float_arrays()
    d = weights.dim
    K = list(snap.kept_coords)
    D = [j for j in range(d) if j not in set(K)]
    S = [arb_matrix(snap.block_weights.A[a]) for a in range(weights.n_symbols)]
    scales = [_ls_scale(F[a], S[a], K) for a in range(len(F))]
    if not all(x > 0 for x in scales):
        return None, "a float matrix points away from its snapped matrix (no positive scale fits)"
    F = [F[a] * arb(scales[a]) for a in range(len(F))]
    groups = [snap.blocks[i] for i in snap.kept]
    dropped = [g for i, g in enumerate(snap.blocks) if i not in snap.kept]
    n = bmax(op_norm(arb_matrix(M), range(len(K)), range(len(K))) for M in orbit.products)
    kk = list(range(len(K)))
    mu, lk, ld, ymax = None, flint.arb(0), flint.arb(0), flint.arb(0)
    labels = sorted({int(automaton.labels[q]) for q, _ in orbit.pairs})
    diffs = {}
    for lab in labels:
        for c in range(Rb.nrows()):
            if c != lab:
                diff = [Rb[lab, j] - Rb[c, j] for j in range(d)]
                diffs[lab, c] = diff
                lk = bmax([lk, root(sum((sq(diff[j]) for j in K), flint.arb(0)))])
                ld = bmax([ld, root(sum((sq(diff[j]) for j in D), flint.arb(0)))])
    per: dict = {}  # (l, c) -> the smallest margin over the reachable pairs of label l
    for q, z in orbit.pairs:
        zb = [arb(x) for x in z]
        ymax = bmax([ymax, root(sum((sq(x) for x in zb), flint.arb(0)))])
        lab = int(automaton.labels[q])
        for c in range(Rb.nrows()):
            if c != lab:
                m = lo(sum((diffs[lab, c][K[i]] * zb[i] for i in kk), flint.arb(0)))
                mu = m if mu is None or m < mu else mu
                per[lab, c] = m if (lab, c) not in per or m < per[lab, c] else per[lab, c]
    pair_consts = tuple((m, root(sum((sq(diffs[key][j]) for j in K), flint.arb(0))),
                         root(sum((sq(diffs[key][j]) for j in D), flint.arb(0)))) for key, m in sorted(per.items()))
    y0 = [arb(x) for x in snap.block_weights.h0]
    hk = np.array([float(h0[j, 0].mid()) for j in K])
    yk = np.array([float(y0[j].mid()) for j in K])
    c0 = float(yk @ hk) / float(hk @ hk) if float(hk @ hk) > 0 else 0.0
    if not c0 > 0:
        return None, "the float start state points away from the snapped one"
    x0 = h0 * arb(c0)
    delta, tau = flint.arb(0), flint.arb(0)
    if not roundoff.exact:
        full = range(d)
        p_norm = flint.arb(1) if Pa is None else op_norm(Pa, full, full)
        pinv_norm = flint.arb(1) if Pa is None else op_norm(Pinv, full, full)
        kappa = hi(p_norm * pinv_norm)
        delta = bmax(roundoff.step * kappa * arb(abs(snap.scale[a]) * scales[a]) * frob_array(A[a])
                     for a in range(len(F)))
        rows = [frob_array(r) for r in Rf]
        pair = bmax(rows[l] + rows[k] for l in labels for k in range(len(rows)) if k != l)
        tau = hi(roundoff.readout * pair * p_norm)
        start = hi(roundoff.start * pinv_norm * arb(c0) * frob_array(h0f))
        x0 = x0 + column([flint.arb(0, start)] * d)
    up = lambda x: hi(x + delta)  # noqa: E731
    consts = OrbitPerturbationBound(
        eps=up(bmax(norm_bound(F[a] - S[a], K, K, groups) for a in range(len(F)))),
        gamma=up(bmax(norm_bound(F[a], K, D, groups) for a in range(len(F))) if D else flint.arb(0)),
        beta=up(bmax(norm_bound(F[a], D, K, groups) for a in range(len(F))) if D else flint.arb(0)),
        rho=up(bmax(norm_bound(F[a], D, D, dropped) for a in range(len(F))) if D else flint.arb(0)),
        n=n, ymax=ymax, mu=mu if mu is not None else flint.arb(0), lk=lk, ld=ld, tau=tau, pairs=pair_consts,
    )
    return consts, _Setup(F, S, x0, column(y0), Rb, K, D, delta, tau)


def orbit_horizon(weights, snap, proof, automaton, roundoff: RoundOff) -> Horizon:
    """The certified horizon of Theorem 19 in ``roundoff``'s arithmetic (module docstring).
    ``proof`` (the snap's proof) is not read: the orbit is enumerated here exactly."""
    with precision():
        orbit = exact_orbit(snap, automaton, MAX_PRODUCTS)
        if orbit is None:
            return Horizon.none(roundoff.arithmetic, f"the snapped matrices generate more than {MAX_PRODUCTS} "
                                "products or reachable states (Theorem 19 needs a small finite orbit)", "orbit")
        c, st = orbit_ingredients(weights, snap, orbit, automaton, roundoff)
        if c is None:
            return Horizon.none(roundoff.arithmetic, st, "orbit")
        refused, consts, s, u, v = exhaustive_phase(automaton, st, c, roundoff, "orbit")
        if refused is not None:
            return refused
        length = iterate_orbit(c, u, v, s)
        note = (f"every word up to length {s} run exhaustively in ball arithmetic; {len(orbit.pairs)} snapped "
                f"states, {len(orbit.products)} matrix products")
        if length is None:
            return Horizon.every_length(roundoff.arithmetic, "orbit", note, **consts)
        if length <= STEPPED and not c.rho < 1:
            note = "the dropped blocks do not contract (rho >= 1): stepped bound only; " + note
        return Horizon.up_to(length, roundoff.arithmetic, "orbit", note, **consts)

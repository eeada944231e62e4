"""Theorem 23 (projective orbit horizon): Theorem 19 with the error forgotten at every reset.

Theorem 19 charges every step's error through the largest product norm N for the whole word.  But
the prediction depends only on the *ray* of the state, and a resetting symbol ``a`` -- one whose
snapped matrix is rank one on K, ``S_a[K,K] = b_a g_a^T`` -- sends the float state
``lam (z + e)`` to ``lam (g_a . z + g_a . e) b_a + p``: a positive multiple of ``b_a`` (up to sign)
plus one step's error ``p``.  The accumulated error ``e`` only rescales the state (by
``1 + g_a.e / g_a.z > 0``), which changes no prediction.  So only the steps since the last reset
accumulate, propagated by the products of the *non-resetting* symbols alone (norm ``N_0``), and the
error is measured relative to the reset's own ray ``r = sign(g_a . z) b_a``.

The runs (docs/theory.md, Theorem 23): a *start run* from the exhaustive depth s (words with no reset
after s, against the snapped states of Theorem 19's orbit), and one *restart run* per restart pair
``(q, r)`` (words whose last reset leads to it, against the states reached from ``r`` by
non-resetting symbols).  Each steps

    C_k = C_{k-1} + eta + eps U_{k-1} + gamma V_{k-1},   U_k = N_0 (u_0 + C_k),
    V_k = rho V_{k-1} + xi + beta U_{k-1},

with ``eta >= ||(F_a - S_a)[K,K] z|| + delta ||z||`` and ``xi >= ||F_a[D,K] z|| + delta ||z||`` over the run's
snapped states z and non-resetting symbols a (the drift at the states, never more than Theorem 19's
``eps Y``) and ``eps, gamma, beta, rho`` Theorem 19's couplings over the non-resetting symbols only
(the exits below: over the resetting ones), checks the readout pair by pair as Theorem 19, and checks that a reset from every state
of the run lands within the restart error ``(u_R, v_R)``:

    (eta_a(z) + eps U + gamma V) / (|g_a . z| - ||g_a|| U) <= u_R,
    (xi_a(z) + beta U + rho V) / (|g_a . z| - ||g_a|| U) <= v_R    (the denominator positive).

Where a float dropped block has norm at least 1 in the snap's basis, the dropped coordinates are
first re-based (:func:`contracting_dropped`): the snapped network is the same in any basis of D, and
with ``rho >= 1`` no restart error is a fixed point.

>>> import numpy as np
>>> from bilinear.automata.families import from_spec
>>> from bilinear.constructions.handmade.registry import build
>>> from bilinear.constructions.horizon.horizon_orbit import orbit_horizon
>>> from bilinear.constructions.horizon.snap import construction_snap
>>> from bilinear.constructions.horizon.roundoff import RoundOff
>>> from bilinear.constructions.values.weights import Weights
>>> a = from_spec("reset:3")
>>> A, h0, R = build("reset:3", "full").to_float().float_arrays()
>>> w = Weights("full", A + 1e-3 * np.random.default_rng(0).normal(size=A.shape), h0, R)
>>> s, ro = construction_snap(w, a), RoundOff.of("float64", w.dim)
>>> h = projective_horizon(w, s, None, a, ro)
>>> h.bound, h.length > 4 * orbit_horizon(w, s, None, a, ro).length
('projective', True)
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from fractions import Fraction

import flint
import numpy as np

from ..exact.balls import arb, arb_matrix, bmax, hi, lo, norm_bound, op_norm, precision, root, sq
from ..proof.search import breadth_first
from .horizon_base import Horizon
from .horizon_global import exhaustive_phase
from . import horizon_orbit
from .horizon_orbit import _mat_mul, _mat_vec, exact_orbit, orbit_ingredients
from .roundoff import RoundOff

__all__ = ["projective_horizon", "resetting_symbols", "contracting_dropped", "MAX_STEPS"]

#: Largest number of steps a run is stepped (the certified length is at most about this).
MAX_STEPS = 1 << 15
#: Rounds of the restart error's fixed point (each a full set of runs).
ROUNDS = 5
#: Points of the restart error's geometric grid (factors of sqrt 2: a range of 2^24).
GRID = 48
#: Most dropped coordinates re-based for a contracting norm (:func:`contracting_dropped`).
MAX_REBASED = 24
#: Steps of the descent that re-bases the dropped coordinates, and the norm at which it stops.
DESCENT_STEPS = 400
TARGET_RHO = 0.8


def _rank_one(M) -> tuple | None:
    """``(b, g)`` with ``M = b g^T`` exactly, for a matrix of rationals of rank exactly one; else None."""
    if not all(isinstance(x, (int, Fraction)) for row in M for x in row):
        return None
    nz = [(i, j) for i, row in enumerate(M) for j, x in enumerate(row) if x != 0]
    if not nz:
        return None
    i0, j0 = nz[0]
    b = tuple(Fraction(M[i][j0]) for i in range(len(M)))
    g = tuple(Fraction(M[i0][j]) / M[i0][j0] for j in range(len(M[0])))
    if any(M[i][j] != b[i] * g[j] for i in range(len(M)) for j in range(len(M[0]))):
        return None
    return b, g


def resetting_symbols(snap) -> dict:
    """The symbols whose snapped matrix is rank one on the kept coordinates: ``{a: (b_a, g_a)}``
    with ``S_a[K,K] = b_a g_a^T`` exactly."""
    w = snap.block_weights
    K = list(snap.kept_coords)
    out = {}
    for a in range(w.n_symbols):
        f = _rank_one([[w.A[a][i, j] for j in K] for i in K])
        if f is not None:
            out[a] = f
    return out


def _float_blocks(weights, snap) -> tuple:
    """``(P, [B_a])``: the snap's basis as a float array and the float matrices' dropped blocks
    ``B_a = (P^-1 A_a P)[D,D]`` (times the snap's scale and the least-squares scale on K)."""
    A = weights.float_arrays()[0]
    d = A.shape[1]
    Pf = np.eye(d) if snap.basis is None else np.array(snap.basis, dtype=float)
    K = list(snap.kept_coords)
    D = [j for j in range(d) if j not in set(K)]
    S = snap.block_weights.float_arrays()[0]
    out = []
    for a in range(A.shape[0]):
        F = np.linalg.solve(Pf, A[a] * float(snap.scale[a])) @ Pf
        fk, sk = F[np.ix_(K, K)], S[a][np.ix_(K, K)]
        c = float(np.sum(fk * sk) / np.sum(fk * fk)) if np.sum(fk * fk) > 0 else 1.0
        out.append(abs(c) * F[np.ix_(D, D)])
    return Pf, out


def _worst(T, blocks) -> tuple:
    """``(max_a ||T B_a T^-1||, its subgradient in T)`` in floats (top singular vectors)."""
    Ti = np.linalg.inv(T)
    best, grad = -1.0, None
    for B in blocks:
        X = T @ B @ Ti
        U, sv, Vt = np.linalg.svd(X)
        if sv[0] > best:
            u, v = U[:, 0], Vt[0]
            best, grad = float(sv[0]), np.outer(u, B @ Ti @ v) - np.outer(X.T @ u, Ti @ v)
    return best, grad


def contracting_dropped(weights, snap):
    """The snap with its dropped coordinates re-based so that the dropped blocks contract in the
    2-norm (docs/theory.md, Theorem 23: any basis of D serves), or None where they do already
    (every ``||B_a|| < 1`` in the snap's basis), where there are none or more than
    :data:`MAX_REBASED`, or where no such basis is found.

    ``T`` (upper triangular, from the identity) descends ``max_a ||T B_a T^-1||`` along its
    subgradient, a step kept only where it lowers the maximum (else halved), until the maximum is
    below :data:`TARGET_RHO` or :data:`DESCENT_STEPS` steps.  The new basis is ``P diag(I, W)``
    with ``W`` the float inverse of ``T`` read as exact rationals: S is zero outside K x K, so the
    snapped network, its orbit and its proof are unchanged; the norms are then bounded in ball
    arithmetic from the new basis (the descent only chooses W, it bounds nothing)."""
    K = list(snap.kept_coords)
    Pf, blocks = _float_blocks(weights, snap)
    D = [j for j in range(Pf.shape[0]) if j not in set(K)]
    if not D or len(D) > MAX_REBASED or max(np.linalg.norm(B, 2) for B in blocks) < 1:
        return None
    T, step = np.eye(len(D)), 0.1
    f, g = _worst(T, blocks)
    for _ in range(DESCENT_STEPS):
        if f < TARGET_RHO or step < 1e-6:
            break
        trial = np.triu(T - step * g / max(np.linalg.norm(g), 1e-300))
        trial /= np.linalg.norm(trial, 2)
        if abs(np.linalg.det(trial)) > 1e-12 and (ft := _worst(trial, blocks))[0] < f:
            T, (f, g), step = trial, ft, step * 1.5
        else:
            step /= 2
    if not f < 1:
        return None
    W = np.linalg.inv(T)
    d = Pf.shape[0]
    base = [[Fraction(1 if i == j else 0) for j in range(d)] for i in range(d)] if snap.basis is None else \
        [[Fraction(x) for x in row] for row in snap.basis]
    block = [[Fraction(1 if i == j else 0) for j in range(d)] for i in range(d)]
    for r, i in enumerate(D):
        for c, j in enumerate(D):
            block[i][j] = Fraction(float(W[r, c]))
    P = np.empty((d, d), dtype=object)
    for i in range(d):
        for j in range(d):
            P[i, j] = sum((base[i][k] * block[k][j] for k in range(d)), Fraction(0))
    return replace(snap, basis=P)


@dataclass(frozen=True)
class _Run:
    """One run of Theorem 23: its start ``(u0, v0)``, products' norm ``n``, largest state norm
    ``ymax``, drift ``eta`` and leak ``xi`` at its states, readout pairs ``(m, L_K, L_D)`` and exits
    ``(eta_a(z), xi_a(z), |g_a . z|, ||g_a||)`` per state and reset."""

    n: flint.arb
    ymax: flint.arb
    eta: flint.arb
    xi: flint.arb
    pairs: tuple
    exits: tuple
    front: tuple = field(init=False, repr=False, compare=False)  # the exits no other one dominates

    def __post_init__(self) -> None:
        object.__setattr__(self, "front", _front(self.exits))


def _front(exits: tuple) -> tuple:
    """The exits with one ``(|g . z|, ||g||)`` merged into one (the largest drift and leak: the
    two demands are maxima over exits, each of its own numerator, so the merged exit demands the
    same), then those not dominated by another (a larger or equal drift and leak, a smaller or
    equal ``|g . z|``, a larger or equal ``||g||``: its demand is at least as large at every
    ``(U, V)``, and its denominator reaches 0 first); beyond 64 exits no domination (quadratic)."""
    merged: list = []
    for e in exits:
        for i, f in enumerate(merged):
            if bool(f[2] == e[2]) and bool(f[3] == e[3]):  # exact points (lo and hi)
                merged[i] = (bmax([f[0], e[0]]), bmax([f[1], e[1]]), f[2], f[3])
                break
        else:
            merged.append(e)
        if len(merged) > 64:
            return exits
    exits = tuple(merged)

    def over(f, e) -> bool:
        return bool(f[0] >= e[0] and f[1] >= e[1] and f[2] <= e[2] and f[3] >= e[3])

    return tuple(e for i, e in enumerate(exits)
                 if not any(over(f, e) and (j < i or not over(e, f)) for j, f in enumerate(exits) if j != i))


@dataclass(frozen=True)
class _Common:
    """The coupling constants of the runs' steps (maxima over the non-resetting symbols), the
    readout rounding, and ``exit``: the same four over the resetting symbols (None: the runs')."""

    eps: flint.arb
    gamma: flint.arb
    beta: flint.arb
    rho: flint.arb
    tau: flint.arb
    exit: tuple | None = None

    def at_reset(self) -> tuple:
        return self.exit if self.exit is not None else (self.eps, self.gamma, self.beta, self.rho)


def _vnorm(v) -> flint.arb:
    return root(sum((sq(x) for x in v), flint.arb(0)))


def _matrices(F, S, K, D) -> list:
    """Per symbol ``((F_a - S_a)[K,K], F_a[D,K] or None)`` as ``arb_mat``: what a run multiplies its states by."""
    out = []
    for Fa, Sa in zip(F, S):
        kk = flint.arb_mat([[Fa[i, j] - Sa[i, j] for j in K] for i in K])
        out.append((kk, flint.arb_mat([[Fa[i, j] for j in K] for i in D]) if D else None))
    return out


def _run(states, labels, mats, resets, non_resets, delta, diffs, n) -> _Run:
    """The constants of the run over ``states`` (pairs ``(q, z)``, z exact, in the run's scale);
    ``mats``: :func:`_matrices`."""
    eta, xi, ymax = flint.arb(0), flint.arb(0), flint.arb(0)
    per: dict = {}  # (l, c) -> the smallest margin over the run's states of label l
    exits: list = []
    for q, z in states:
        zb = [arb(x) for x in z]
        zc = flint.arb_mat([[x] for x in zb])
        nz = _vnorm(zb)
        ymax = bmax([ymax, nz])
        drift = [(hi(_vnorm((mk * zc).entries()) + delta * nz),
                  hi(_vnorm((md * zc).entries()) + delta * nz) if md is not None else flint.arb(0)) for mk, md in mats]
        eta = bmax([eta] + [drift[a][0] for a in non_resets])
        xi = bmax([xi] + [drift[a][1] for a in non_resets])
        for a, (_, g) in resets.items():
            gz = lo(abs(sum((arb(g[j]) * zb[j] for j in range(len(zb))), flint.arb(0))))
            exits.append((drift[a][0], drift[a][1], gz, hi(_vnorm([arb(x) for x in g]))))
        lab = int(labels[q])
        for c, (dk, _, _) in diffs.get(lab, {}).items():
            m = lo(sum((dk[i] * zb[i] for i in range(len(zb))), flint.arb(0)))
            per[lab, c] = m if (lab, c) not in per or m < per[lab, c] else per[lab, c]
    pairs = tuple((m, diffs[key[0]][key[1]][1], diffs[key[0]][key[1]][2]) for key, m in sorted(per.items()))
    return _Run(n, ymax, eta, xi, pairs, tuple(exits))


def _holds(run: _Run, cm: _Common, u, v) -> bool:
    """Theorem 19's readout condition pair by pair, with ``||x[K]|| <= Y + U``."""
    return all(bool(m - cm.tau * (run.ymax + u + v) - lk * u - ld * v > 0) for m, lk, ld in run.pairs)


def _demand(run: _Run, cm: _Common, u, v):
    """The restart error ``(u_R, v_R)`` a reset needs from a state of ``run`` with errors ``(U, V)``
    (``None``: some reset may not keep the sign, ``|g_a . z| <= ||g_a|| U``)."""
    eps, gamma, beta, rho = cm.at_reset()
    us, vs = [flint.arb(0)], [flint.arb(0)]
    for eta, xi, gz, gn in run.front:
        den = lo(gz - gn * u)
        if not den > 0:
            return None
        us.append((eta + eps * u + gamma * v) / den)
        vs.append((xi + beta * u + rho * v) / den)
    return bmax(us), bmax(vs)


def _recurrence(run: _Run, cm: _Common, u0, v0, limit: int):
    """``(k, U_k, V_k, max V_i for i <= k)`` for k = 0 .. ``limit``: the run's recurrence of Theorem 23
    from ``(u0, v0)`` (C_0 = 0), each step rounded up."""
    C, U, V, vmax = flint.arb(0), u0, v0, v0
    for k in range(limit + 1):
        if k:
            C = hi(C + run.eta + cm.eps * U + cm.gamma * V)
            U, V = hi(run.n * (u0 + C)), hi(cm.rho * V + run.xi + cm.beta * U)
            vmax = V if V > vmax else vmax
        yield k, U, V, vmax


def _step_run(run: _Run, cm: _Common, u0, v0, first: int, limit: int, need):
    """Steps k = 0, 1, ... of ``run`` from ``(u0, v0)``; returns ``(last, demand)``: the last k at
    which the readout holds at every step from ``first`` on and (when ``need``) every state's reset
    demand is within ``need``, and the largest demand up to it."""
    top = (flint.arb(0), flint.arb(0))
    for k, U, V, vmax in _recurrence(run, cm, u0, v0, limit):
        if k >= first and not _holds(run, cm, U, V):
            return k - 1, top
        d = _demand(run, cm, U, vmax)
        if d is None or (need is not None and not (d[0] <= need[0] and d[1] <= need[1])):
            return k - 1, top
        top = d
    return limit, top


def _closure(pairs, automaton, gens_nr) -> list | None:
    """Per pair of ``pairs`` not reached already: the pairs reached from it by non-resetting symbols
    (None when one outgrows Theorem 19's limit, :data:`~.horizon_orbit.MAX_PRODUCTS`)."""
    out: list = []
    covered: set = set()
    for r in sorted(set(pairs)):
        if r in covered:  # a run over a closure that contains r's covers r's words (its constants are worst cases)
            continue
        sub = breadth_first(r, lambda p: ((int(automaton.delta[a, p[0]]), _mat_vec(m, p[1])) for a, m in gens_nr),
                            horizon_orbit.MAX_PRODUCTS)
        if sub is None:
            return None
        out.append(sub)
        covered.update(sub)
    return out


def _restart_pairs(orbit, automaton, resets) -> list:
    """The restart pairs ``(q', sign(g_a . z) b_a)`` over the reachable pairs ``(q, z)`` and resets a."""
    starts = []
    for q, z in orbit.pairs:
        for a, (b, g) in resets.items():
            gz = sum((g[j] * z[j] for j in range(len(z))), Fraction(0))
            if gz == 0:
                raise ValueError("a reset sends a reachable snapped state to 0")
            starts.append((int(automaton.delta[a, q]), tuple(x if gz > 0 else -x for x in b)))
    return starts


def _couplings(st, snap, symbols) -> tuple:
    """``(eps, gamma, beta, rho)`` of Theorem 19 (each raised by the rounding's delta) as maxima over
    ``symbols`` only: the runs step the non-resetting symbols, the exits the resetting ones."""
    K, D, up = st.K, st.D, lambda x: hi(x + st.delta)  # noqa: E731
    groups = [snap.blocks[i] for i in snap.kept]
    dropped = [g for i, g in enumerate(snap.blocks) if i not in snap.kept]
    zero = flint.arb(0)
    if not symbols:
        return zero, zero, zero, zero
    eps = up(bmax(norm_bound(st.F[a] - st.S[a], K, K, groups) for a in symbols))
    if not D:
        return eps, zero, zero, zero
    return (eps, up(bmax(norm_bound(st.F[a], K, D, groups) for a in symbols)),
            up(bmax(norm_bound(st.F[a], D, K, groups) for a in symbols)),
            up(bmax(norm_bound(st.F[a], D, D, dropped) for a in symbols)))


def _setup(weights, snap, automaton, roundoff):
    """``(start run, restart runs, common constants, exhaustive phase)`` or ``(None, reason)``."""
    resets = resetting_symbols(snap)
    if not resets:
        return None, "no symbol's snapped matrix has rank one (Theorem 23 needs a resetting symbol)"
    orbit = exact_orbit(snap, automaton, horizon_orbit.MAX_PRODUCTS)
    if orbit is None:
        return None, f"the snapped matrices generate more than {horizon_orbit.MAX_PRODUCTS} products or reachable states"
    c, st = orbit_ingredients(weights, snap, orbit, automaton, roundoff)
    if c is None:
        return None, st
    w = snap.block_weights
    K, D = st.K, st.D
    kk = range(len(K))
    non_resets = [a for a in range(w.n_symbols) if a not in resets]
    gens_nr = [(a, tuple(tuple(w.A[a][K[i], K[j]] for j in kk) for i in kk)) for a in non_resets]
    ident = tuple(tuple(1 if i == j else 0 for j in kk) for i in kk)
    prods = breadth_first(ident, lambda M: (_mat_mul(g, M) for _, g in gens_nr), horizon_orbit.MAX_PRODUCTS)
    if prods is None:
        return None, f"the non-resetting symbols generate more than {horizon_orbit.MAX_PRODUCTS} products"
    n0 = bmax(op_norm(arb_matrix(M), kk, kk) for M in prods)
    try:
        subs = _closure(_restart_pairs(orbit, automaton, resets), automaton, gens_nr)
    except ValueError as exc:
        return None, str(exc)
    firsts = _closure(orbit.pairs, automaton, gens_nr)
    if subs is None or firsts is None:
        return None, f"the non-resetting symbols reach more than {horizon_orbit.MAX_PRODUCTS} states from one"
    diffs: dict = {}
    for lab in sorted({int(automaton.labels[q]) for q in range(automaton.n_states)}):
        for cl in range(st.Rb.nrows()):
            if cl != lab:
                full = [st.Rb[lab, j] - st.Rb[cl, j] for j in range(weights.dim)]
                diffs.setdefault(lab, {})[cl] = ([full[j] for j in K], _vnorm([full[j] for j in K]),
                                                 _vnorm([full[j] for j in D]))
    args = (automaton.labels, _matrices(st.F, st.S, K, D), resets, non_resets, st.delta, diffs, n0)
    starts = [_run(sub, *args) for sub in firsts]
    restarts = [_run(sub, *args) for sub in subs]
    cm = _Common(*_couplings(st, snap, non_resets), c.tau,
                 exit=_couplings(st, snap, [a for a in range(w.n_symbols) if a in resets]))
    return (starts, restarts, cm, c, st), ""


def _trace(run: _Run, cm: _Common, u0, v0, first: int, limit: int) -> list:
    """The reset demands of ``run`` at k = 0, 1, ... while its readout holds (from ``first`` on) and
    every reset keeps its sign: non-decreasing in k (``U`` and ``max V`` are)."""
    out = []
    for k, U, V, vmax in _recurrence(run, cm, u0, v0, limit):
        if k >= first and not _holds(run, cm, U, V):
            break
        d = _demand(run, cm, U, vmax)
        if d is None:
            break
        out.append(d)
    return out


def _within(trace: list, need) -> int:
    """The last k of a :func:`_trace` whose demand (and every earlier one) is within ``need``
    (all of it for ``need`` None): a binary search, the demands being non-decreasing."""
    if need is None:
        return len(trace) - 1
    lo_k, hi_k = 0, len(trace)  # trace[:lo_k] within, trace[hi_k:] not
    while lo_k < hi_k:
        mid = (lo_k + hi_k) // 2
        if trace[mid][0] <= need[0] and trace[mid][1] <= need[1]:
            lo_k = mid + 1
        else:
            hi_k = mid
    return lo_k - 1


def _certified(traces, restarts, cm, s, restart, check: bool) -> tuple[int, tuple]:
    """The length certified with restart error ``restart`` (Theorem 23; ``check``: every state's
    reset demand within it, else only the readout), and the largest demand seen; ``traces``: the
    start runs' :func:`_trace` (they do not depend on the restart error)."""
    need = restart if check else None
    length, top = s + MAX_STEPS, [(flint.arb(0), flint.arb(0))]
    for tr in traces:
        t = _within(tr, need)
        length = min(length, s + t)
        if t >= 0:
            top.append(tr[t])
    for run in restarts:
        k, d = _step_run(run, cm, restart[0], restart[1], 0, min(MAX_STEPS, max(0, length - s - 1)), need)
        length = min(length, s + 1 + k)
        top.append(d)
    return length, (bmax(d[0] for d in top), bmax(d[1] for d in top))


def _grid_search(starts, traces, restarts, cm, s, us, vs, beat: int) -> tuple[int, tuple]:
    """The longest length over restart errors on a geometric grid (factors of sqrt 2 above the
    smallest demand any run makes, with ``v_R`` in that demand's proportion): every 3rd point,
    then the neighbours of the best.  Where the demand grows without bound towards the readout's
    limit (``|g_a . z| - ||g_a|| U`` reaching 0 as the margin does), the fixed point does not settle."""
    low = [_demand(run, cm, us, vs) for run in starts] + [_demand(run, cm, flint.arb(0), flint.arb(0)) for run in restarts]
    if any(d is None for d in low):
        return s, (flint.arb(0), flint.arb(0))
    u_lo = bmax(d[0] for d in low)  # type: ignore[index]
    if not u_lo > 0:
        return s, (flint.arb(0), flint.arb(0))
    ratio = bmax(d[1] / u_lo for d in low)  # type: ignore[index]
    memo: dict = {}

    def at(j: int) -> int:
        if j not in memo:
            need = (hi(u_lo * flint.arb(2) ** (flint.arb(j) / 2)), flint.arb(0))
            need = (need[0], hi(need[0] * ratio))
            if min(s + _within(tr, need) for tr in traces) <= beat:  # the start runs alone: no better
                memo[j] = (s, need)
            else:
                memo[j] = (_certified(traces, restarts, cm, s, need, True)[0], need)
        return memo[j][0]

    best = max(range(0, GRID, 3), key=lambda j: (at(j), -j))
    for j in (best - 2, best - 1, best + 1, best + 2):
        if 0 <= j < GRID:
            at(j)
    j = max(memo, key=lambda j: (memo[j][0], -j))
    return memo[j]


def projective_horizon(weights, snap, proof, automaton, roundoff: RoundOff) -> Horizon:
    """The certified horizon of Theorem 23 in ``roundoff``'s arithmetic (module docstring): no
    length (``Horizon.none``) where no snapped symbol is rank one or the orbit is too large.
    ``proof`` (the snap's proof) is not read: the orbit is enumerated here exactly."""
    rebased = contracting_dropped(weights, snap)
    snap = rebased or snap
    with precision():
        got, why = _setup(weights, snap, automaton, roundoff)
        if got is None:
            return Horizon.none(roundoff.arithmetic, why, "projective")
        starts, restarts, cm, c, st = got
        refused, consts, s, us, vs = exhaustive_phase(automaton, st, c, roundoff, "projective")
        if refused is not None:
            return refused
        traces = [_trace(run, cm, us, vs, 1, MAX_STEPS) for run in starts]
        # the restart error, raised to the demand of the runs it allows; a length counts only when
        # every demand up to it is within the restart error it was stepped with
        restart, best = (flint.arb(0), flint.arb(0)), s
        first = _certified(traces, restarts, cm, s, restart, False)
        ceiling = first[0]  # no restart error: the most
        for i in range(ROUNDS):
            length, top = first if i == 0 else _certified(traces, restarts, cm, s, restart, False)
            if top[0] <= restart[0] and top[1] <= restart[1]:
                best = max(best, length)
                break
            best = max(best, _certified(traces, restarts, cm, s, restart, True)[0])
            restart = (bmax([restart[0], top[0]]), bmax([restart[1], top[1]]))
        if 2 * (best - s) < ceiling - s:  # the fixed point settled far below the ceiling: search
            found = _grid_search(starts, traces, restarts, cm, s, us, vs, best)
            if found[0] > best:
                best, restart = found
        note = (f"every word up to length {s} run exhaustively in ball arithmetic; {len(starts) + len(restarts)} runs after "
                f"the exhaustive depth or a reset, the error forgotten at each of {len(resetting_symbols(snap))} resetting symbols"
                + ("; the dropped coordinates re-based so that their blocks contract" if rebased is not None else ""))
        consts.update(product_norm=float(starts[0].n.mid()), restart_error=float(restart[0].mid()))
        return Horizon.up_to(best, roundoff.arithmetic, "projective", note, **consts)

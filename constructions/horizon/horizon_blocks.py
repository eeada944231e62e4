"""The block-wise horizon: the perturbation bound of a network whose matrices are block-diagonal.

``rotation2d``, ``block:2``, ``diagonal`` and ``positive`` networks are block-diagonal in the
identity basis: every 2x2 (or 1x1) block evolves on its own.  The model is invariant under a
positive scale of each step, but a trained network's blocks each have their own modulus
(0.8-1.2 for one symbol), so one scale per step cannot make every block an isometry.  Here every
kept block i gets its *own* scale c_{a,i} (least squares against the snapped block), its relative
error is tracked on its own, and the blocks are combined at the readout (Theorem "block-wise
horizon", docs/theory.md Section 6):

* per good block i: ``N_{a,i} = F_a[i] / c_{a,i}``, ``sigma_i >= max_a ||N_{a,i}||``,
  ``eps_i >= max_a ||N_{a,i} - S_a[i]||``; the relative error ``u_i`` of the block (against its
  snapped state, relative to that state's norm) obeys ``u_i <- sigma_i u_i + eps_i``; its
  normalised margin ``m_i`` (every reachable pair, every class) is positive: the block alone
  classifies;
* per other block j (dropped, or a kept block outside the good set G): ``||x_j||`` relative to the
  geometric mean W of the good blocks' weights grows at most by ``theta_j = max_a ||F_a[j]|| / g_a``
  per step, ``g_a`` the geometric mean of ``c_{a,i}`` over G;
* a word of length t is right while ``|G| min_i (m_i - L_i u_i) > sum_j L_j r_j``.

For a rotation whose angle is off by delta, ``sigma_i = 1`` and ``eps_i ~ delta``: the bound is
linear, ``t ~ m_i / (L_i delta)``, within a small factor of the true failure.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import flint
import numpy as np

from ..exact.balls import arb as _arb, arb_matrix as _arb_matrix, block_norm as _block_norm, bmax as _max
from ..exact.balls import column, frob_array, sq
from ..exact.balls import hi as _hi, lo as _lo, mat_vec as _mul, precision, root as _root, vnorm as _vnorm
from .horizon_base import CAP, MAX_EXHAUSTIVE_DEPTH, STEPPED, Horizon
from .roundoff import RoundOff

__all__ = ["blockwise_horizon"]

#: Words run exhaustively before the recurrence takes over (the last level has at most this many).
MAX_NODES = 1024


def _norm(M: flint.arb_mat) -> flint.arb:
    """Upper bound of the 2-norm of a 1x1 or 2x2 arb matrix (exact formula)."""
    return _hi(abs(M[0, 0])) if M.nrows() == 1 else _block_norm(M, (0, 1))


def _sub(M: flint.arb_mat, g) -> flint.arb_mat:
    return flint.arb_mat([[M[i, j] for j in g] for i in g])


def _is_block_diagonal(A: np.ndarray, blocks) -> bool:
    mask = np.zeros(A.shape[1:], dtype=bool)
    for g in blocks:
        mask[np.ix_(g, g)] = True
    return not np.any(A[:, ~mask])


def _block_constants(F, S, Sf, Af, g):
    """``(c per symbol, sigma, eps)`` of one kept block, or None when a scale is not positive."""
    cs, sig, eps = [], flint.arb(0), flint.arb(0)
    for a in range(len(F)):
        s2 = float(np.sum(Sf[a][np.ix_(g, g)] ** 2))
        c = float(np.sum(Af[a][np.ix_(g, g)] * Sf[a][np.ix_(g, g)])) / s2 if s2 else 0.0
        if not c > 0:
            return None
        c = _arb(Fraction(c))
        N = _sub(F[a], g) * (1 / c)
        sig, eps = _max([sig, _norm(N)]), _max([eps, _norm(N - _sub(S[a], g))])
        cs.append(c)
    return cs, sig, eps


def _block_margins(proof, automaton, R: flint.arb_mat, g):
    """``(m, L)``: the block's smallest normalised margin over reachable pairs and classes (None
    when the block vanishes on a pair), and the largest norm of a readout difference on it."""
    hidden = proof.hidden_vectors()
    m, L = None, flint.arb(0)
    for q, hids in enumerate(proof.state_map):
        lab = int(automaton.labels[q])
        for c in range(R.nrows()):
            if c == lab:
                continue
            diff = [R[lab, j] - R[c, j] for j in g]
            L = _max([L, _root(sum((x * x for x in diff), flint.arb(0)))])
            for h in hids:
                y = [_arb(hidden[h][j]) for j in g]
                n = _vnorm(y)
                if not n > 0:
                    return None, L
                v = _lo(sum((x * z for x, z in zip(diff, y)), flint.arb(0)) / n)
                m = v if m is None or v < m else m
    return m, L


def _levels(automaton, F, S, x0, y0, R, ro: RoundOff, max_nodes: int = MAX_NODES):
    """Every word up to depth s, in ball arithmetic: ``(s, level, first length not certified or
    None)``; ``level`` holds ``(x, y, word)`` of the words of length s.  With rounding, each float
    step puts a box of radius ``ro.step (|A| |x|)_j`` around coordinate j, and a margin must
    exceed ``ro.readout (|R_l| + |R_c|) . |x|``."""
    C, d = R.nrows(), R.ncols()
    absF = [flint.arb_mat([[abs(M[i, j]) for j in range(M.ncols())] for i in range(M.nrows())]) for M in F]
    fro = [_fro(M) for M in absF]  # once per symbol, not once per word (the same balls)
    # per label l, the rows R_l - R_c and |R_l| + |R_c| of every other class c: one ball dot product each
    diff = {l: flint.arb_mat([[R[l, j] - R[c, j] for j in range(d)] for c in range(C) if c != l]) for l in range(C)}
    spread = {l: flint.arb_mat([[abs(R[l, j]) + abs(R[c, j]) for j in range(d)] for c in range(C) if c != l])
              for l in range(C)}
    rmax = _max(_root(sum((sq(R[c, j]) for j in range(d)), flint.arb(0))) for c in range(C))
    level: list[tuple[Any, Any, tuple[int, ...], int]] = [(x0, y0, (), int(automaton.start))]
    depth = 0
    while True:
        for x, _, _, q in level:
            lab = int(automaton.labels[q])
            if C < 2:
                continue
            margins = (diff[lab] * column(x)).entries()
            if not ro.exact:
                ax = [_hi(abs(t)) for t in x]
                widths = (spread[lab] * column(ax)).entries()
                under = ro.readout_underflow * rmax * sum(ax, flint.arb(0))  # underflow: absolute
                margins = [m - ro.readout * w - under for m, w in zip(margins, widths)]
            if not all(m > 0 for m in margins):
                return depth, None, depth
        if len(level) * len(F) > max_nodes or depth >= MAX_EXHAUSTIVE_DEPTH:  # one symbol: no growth
            return depth, level, None
        level = [(_step(F[a], absF[a], fro[a], x, ro), _mul(S[a], y), w + (a,), int(automaton.delta[a, q]))
                 for x, y, w, q in level for a in range(len(F))]
        depth += 1


def _step(M, absM, fro, x: list, ro: RoundOff) -> list:
    """``M x`` and, with rounding, a box of radius ``ro.step (|M| |x|)_j`` around coordinate j
    (``fro``: the Frobenius norm of ``absM``, :func:`_fro`)."""
    out = _mul(M, x)
    if ro.exact:
        return out
    ax = [_hi(abs(t)) for t in x]
    spread = _mul(absM, ax)  # (|M| |x|)_j, one ball dot product each
    under = ro.underflow * fro * sum(ax, flint.arb(0))  # an underflow's absolute error, per coordinate
    return [o + flint.arb(0, _hi(ro.step * r + under)) for o, r in zip(out, spread)]


def _fro(absM) -> Any:
    """The Frobenius norm of a matrix of absolute values (``flint.arb_mat``; an upper bound)."""
    return _hi(sum((sq(absM[i, j]) for i in range(absM.nrows()) for j in range(absM.ncols())), flint.arb(0)).sqrt())


def _run_bound(good, others, eps, sig, margin, lip, weight, u, r, theta, s: int) -> int:
    """Largest T such that every word of length in s..T satisfies the readout condition."""
    def ok(us, rs):
        slack = min((_lo((margin[i] - lip[i] * us[i]) / weight[i]) for i in good), key=lambda x: float(x.mid()))
        return slack > sum((lip[j] * rs[j] for j in others), flint.arb(0))

    us, rs = dict(u), dict(r)
    for t in range(s, STEPPED + 1):
        if not ok(us, rs):
            return max(s, t - 1)
        if t < STEPPED:
            us = {i: _hi(sig[i] * us[i] + eps[i]) for i in good}
            rs = {j: _hi(theta[j] * rs[j]) for j in others}

    def after(k: int):  # closed forms k steps after STEPPED (monotone in k)
        kb = flint.arb(k)
        ua = {}
        for i in good:
            if sig[i] <= 1:
                ua[i] = us[i] + kb * eps[i]
            else:
                p = (kb * sig[i].log()).exp()
                ua[i] = p * us[i] + eps[i] * (p - 1) / (sig[i] - 1)
        ra = {j: rs[j] * (1 if theta[j] <= 1 else (kb * theta[j].log()).exp()) for j in others}
        return ok(ua, ra)

    # gallop to the first k where the condition fails, never past CAP - STEPPED steps: CAP is
    # reported only where the condition holds that far (a gallop that merely passed CAP once
    # reported CAP for a bound of 8e17)
    top = CAP - STEPPED
    lo, hi = 0, 1
    while after(hi):
        if hi >= top:
            return CAP
        lo, hi = hi, min(hi * 2, top)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if after(mid) else (lo, mid)
    return STEPPED + lo


def _start(level, blocks, good, others, cs, y_norm, w0, weight):
    """Largest relative errors ``u_i`` (good blocks) and ratios ``r_j`` (other blocks) over the
    words of the last exhaustive level."""
    u = {i: flint.arb(0) for i in good}
    r = {j: flint.arb(0) for j in others}
    for x, y, word, _ in level:
        w = {i: w0[i] * _prod(cs[i][a] for a in word) for i in good}
        for i in good:
            e = [x[j] / w[i] - y[j] for j in blocks[i]]  # upper ends: a ball around 0 has no sqrt
            u[i] = _max([u[i], _root(sum((sq(t) for t in e), flint.arb(0))) / y_norm[i]])
        W = (sum((weight[i] * (w[i] * y_norm[i]).log() for i in good), flint.arb(0))).exp()
        for j in others:
            r[j] = _max([r[j], _root(sum((sq(x[k]) for k in blocks[j]), flint.arb(0))) / W])
    return u, r


def _prod(values) -> flint.arb:
    out = flint.arb(1)
    for v in values:
        out = out * v
    return out


def _per_block(weights, snap, proof, automaton, F, S, R, ro: RoundOff):
    """Per block: scales, sigma, eps (good candidates), margin and Lipschitz constant, growth,
    all with the rounding of ``ro`` charged (docs/theory.md Section 7): a step adds
    ``ro.step ||A_a[i]||_F`` (relative to the block's scale) to sigma_i, eps_i and the growth,
    a score error ``tau_i = ro.readout max (||R_l[i]|| + ||R_c[i]||)`` is taken from m_i and added
    to L_i."""
    Af, _, _ = weights.float_arrays()
    Sf, _, _ = snap.block_weights.float_arrays()
    cand, lip, growth = {}, {}, {}
    d = Af.shape[1]
    # an underflow's absolute error, per block: sqrt(d) ro.underflow ||A_a||_F per step, and
    # ro.readout_underflow r_max per score (roundoff.py), whatever the block's own scale
    under = [_hi(_arb(d).sqrt() * ro.underflow * frob_array(Af[a])) for a in range(len(F))]
    rmax = _max(_root(sum((sq(R[c, j]) for j in range(R.ncols())), flint.arb(0))) for c in range(R.nrows()))
    for i, g in enumerate(snap.blocks):
        fro = [frob_array(Af[a][np.ix_(g, g)]) for a in range(len(F))]
        tau = _hi(ro.readout * _pair_norm(R, automaton, g) + ro.readout_underflow * rmax)
        m = _block_margins(proof, automaton, R, g)[0] if i in snap.kept else None
        lip[i] = _hi(_diff_norm(R, automaton, g) + tau)
        growth[i] = [_hi(_norm(_sub(F[a], g)) + ro.step * fro[a] + under[a]) for a in range(len(F))]
        m = None if m is None else _lo(m - tau)
        if m is not None and m > 0:
            k = _block_constants(F, S, Sf, Af, g)
            if k is not None:
                cs, sig, eps = k
                delta = _max((ro.step * fro[a] + under[a]) / cs[a] for a in range(len(F)))
                cand[i] = (m, cs, _hi(sig + delta), _hi(eps + delta))
    return cand, lip, growth


def _pair_norm(R: flint.arb_mat, automaton, g) -> flint.arb:
    """max over labels l and classes c != l of ||R_l[g]|| + ||R_c[g]||."""
    labels = sorted(set(int(x) for x in automaton.labels))
    rows = [_root(sum((sq(R[c, j]) for j in g), flint.arb(0))) for c in range(R.nrows())]
    return _max(rows[l] + rows[c] for l in labels for c in range(R.nrows()) if c != l)


def _diff_norm(R: flint.arb_mat, automaton, g) -> flint.arb:
    labels = sorted(set(int(x) for x in automaton.labels))
    return _max(_root(sum((sq(R[l, j] - R[c, j]) for j in g), flint.arb(0)))
                for l in labels for c in range(R.nrows()) if c != l)


def blockwise_horizon(weights, snap, proof, automaton, roundoff: RoundOff) -> Horizon | None:
    """The certified horizon of the block-wise theorem (module docstring) in ``roundoff``'s
    arithmetic, or None where it does not apply: a non-identity basis, off-block entries, a block
    larger than 2x2, or no kept block that classifies alone."""
    A, h0, Rf = weights.float_arrays()
    if snap.basis is not None or not snap.isometric or not _is_block_diagonal(A, snap.blocks):
        return None
    if any(len(g) > 2 for g in snap.blocks):  # the norms below are the 1x1 and 2x2 formulas (a monomial
        return None                            # network's factor snap is one block of every coordinate)
    with precision():
        return _blockwise(weights, snap, proof, automaton, A, h0, Rf, roundoff)


def _blockwise(weights, snap, proof, automaton, A, h0, Rf, ro: RoundOff) -> Horizon | None:
    F = [_arb_matrix(A[a]) for a in range(A.shape[0])]
    S = [_arb_matrix(snap.block_weights.A[a]) for a in range(A.shape[0])]
    R = _arb_matrix(Rf)
    cand, lip, growth = _per_block(weights, snap, proof, automaton, F, S, R, ro)
    h0_norm = _root(sum((sq(_arb(x)) for x in h0), flint.arb(0)))
    x0 = [_arb(x) if ro.exact else _arb(x) + flint.arb(0, _hi(ro.start * abs(_arb(x)) + ro.start_underflow * h0_norm))
          for x in h0]
    y0 = [_arb(x) for x in snap.block_weights.h0]
    s, level, failed = _levels(automaton, F, S, x0, y0, R, ro)
    if failed is not None:
        note = f"a word of length {failed} is not certified in ball arithmetic"
        if failed == 0:
            return Horizon.none(ro.arithmetic, note, "block-wise")
        return Horizon.up_to(failed - 1, ro.arithmetic, "block-wise", note)
    y_norm, w0 = {}, {}
    for i in list(cand):
        g = snap.blocks[i]
        y_norm[i] = _vnorm([y0[j] for j in g])
        w0[i] = sum((x0[j] * y0[j] for j in g), flint.arb(0)) / sq(y_norm[i]) if y_norm[i] > 0 else flint.arb(0)
        if not w0[i] > 0:
            del cand[i]
    if not cand:
        return None
    order = sorted(cand, key=lambda i: -float(cand[i][0].mid()) / max(float(cand[i][3].mid()), 1e-300))
    best: tuple[Any, list[int], list[int]] | None = None
    for n in range(1, len(order) + 1):
        good = order[:n]
        others = [j for j in range(len(snap.blocks)) if j not in good]
        cs = {i: cand[i][1] for i in good}
        T = _try_set(good, others, cand, cs, lip, growth, level, snap.blocks, y_norm, w0, s, len(F))
        if best is None or T > best[0]:
            best = (T, good, others)
    assert best is not None  # cand is not empty, so the loop ran at least once
    T, good, others = best
    f = lambda x: float(_hi(x).mid())  # noqa: E731
    consts = dict(epsilon=max(f(cand[i][3]) for i in good), margin=min(float(cand[i][0].mid()) for i in good),
                  lipschitz_kept=max(f(lip[i]) for i in good),
                  lipschitz_dropped=max((f(lip[j]) for j in others), default=0.0))
    note = (f"block-wise bound on {len(good)} of {len(snap.blocks)} blocks; every word up to length "
            f"{s} run exhaustively in ball arithmetic")
    return Horizon.up_to(T, ro.arithmetic, "block-wise", note, **consts)


def _try_set(good, others, cand, cs, lip, growth, level, blocks, y_norm, w0, s, k) -> int:
    """The bound for one good set: weights p_i proportional to the blocks' m_i / L_i (sum 1)."""
    cap = {i: _lo(cand[i][0] / lip[i]) for i in good}
    total = sum((cap[i] for i in good), flint.arb(0))
    weight = {i: cap[i] / total for i in good}
    g_a = [sum((weight[i] * cs[i][a].log() for i in good), flint.arb(0)).exp() for a in range(k)]
    theta = {j: _max(growth[j][a] / g_a[a] for a in range(k)) for j in others}
    u, r = _start(level, blocks, good, others, cs, y_norm, w0, weight)
    eps = {i: cand[i][3] for i in good}
    sig = {i: cand[i][2] for i in good}
    margin = {i: cand[i][0] for i in good}
    return _run_bound(good, others, eps, sig, margin, lip, weight, u, r, theta, s)

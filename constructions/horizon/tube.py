"""Theorem 17 (invariant tube): a proof for every length where the float dynamics contract.

Around every snapped reachable pair (q, y) (unit y) the tube holds the directions y + e, e
orthogonal to y, ||e|| <= r.  It is proved invariant when every float map sends the tube around
(q, y) into the tube around its snapped successor, every direction in the tube has the label of
q as strict maximum, and the start state lies in the tube of the start pair: then the float
network is right on every word of every length (docs/theory.md Section 7).  Rounding (float64,
float32) perturbs every step by ``delta ||x||`` and every score by ``tau ||x||``: the conditions
are checked with alpha - delta, b + delta, z + delta, n + delta, margins m - tau and k + tau.
Needs the dynamics to contract transversally (it never holds for isometries with a phase error).
"""

from __future__ import annotations

import math

import flint
import numpy as np

from ..exact.balls import arb, arb_matrix, bmax, dyadic_up, frob, frob_array, hi, op_norm, precision, sq
from .horizon_global import _transformed
from .roundoff import RoundOff

__all__ = ["invariant_tube"]


def _unit(v: flint.arb_mat) -> flint.arb_mat:
    n = sum((sq(v[j, 0]) for j in range(v.nrows())), flint.arb(0)).sqrt()
    return v * (1 / n)


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


def invariant_tube(weights, snap, proof, automaton, roundoff: RoundOff) -> float | None:
    """Radius r of a proved invariant tube in ``roundoff``'s arithmetic, or None (module
    docstring)."""
    with precision():
        return _tube(weights, snap, proof, automaton, roundoff)


def _tube(weights, snap, proof, automaton, ro: RoundOff) -> float | None:
    F, h0, Rb, Pa, Pinv = _transformed(weights, snap)
    A, h0f, Rf = weights.float_arrays()
    S, _, _ = snap.block_weights.float_arrays()
    d = weights.dim
    pairs, succ = _tube_pairs(proof, automaton, S)
    hidden = proof.hidden_vectors()
    Y = {i: _unit(arb_matrix([[x] for x in hidden[i]])) for _, i in pairs}
    eye = flint.arb_mat(d, d)
    for j in range(d):
        eye[j, j] = flint.arb(1)
    proj = {i: eye - y * y.transpose() for i, y in Y.items()}
    delta, tau, err0 = [flint.arb(0)] * len(F), flint.arb(0), flint.arb(0)
    if not ro.exact:
        p_norm = flint.arb(1) if Pa is None else op_norm(Pa, range(d), range(d))
        pinv_norm = flint.arb(1) if Pa is None else op_norm(Pinv, range(d), range(d))
        delta = [hi(ro.step * p_norm * pinv_norm * arb(abs(snap.scale[a])) * frob_array(A[a]))
                 for a in range(len(F))]
        rows = [frob_array(r) for r in Rf]
        labels = sorted(set(int(x) for x in automaton.labels))
        tau = hi(ro.readout * p_norm * bmax(rows[l] + rows[k] for l in labels for k in range(len(rows)) if k != l))
        err0 = hi(ro.start * pinv_norm * frob_array(h0f))
    need = []  # (alpha, z, n, b) per (pair, symbol): image radius (z + n r) / (alpha - b r)
    for (q, i) in pairs:
        for a in range(len(F)):
            j = succ[(q, i), a][1]
            Fy = F[a] * Y[i]
            alpha = (Y[j].transpose() * Fy)[0, 0] - delta[a]
            if not alpha > 0:
                return None
            z = frob(Fy - Y[j] * (Y[j].transpose() * Fy)[0, 0]) + delta[a]
            need.append((alpha, z, frob(proj[j] * F[a] * proj[i]) + delta[a],
                         frob(proj[i] * F[a].transpose() * Y[j]) + delta[a]))
    margins = []  # (m, k): the margin at y minus k r must stay positive
    for (q, i) in pairs:
        lab = int(automaton.labels[q])
        for c in range(Rb.nrows()):
            if c != lab:
                diff = flint.arb_mat([[Rb[lab, j] - Rb[c, j] for j in range(d)]])
                margins.append(((diff * Y[i])[0, 0] - tau, frob(diff * proj[i]) + tau))
    start = [i for i in proof.state_map[int(automaton.start)]]
    y0 = Y[max(start, key=lambda i: float((Y[i].transpose() * h0)[0, 0].mid()))]
    s0 = (y0.transpose() * h0)[0, 0] - err0
    if not s0 > 0:
        return None
    r0 = frob(h0 * (1 / s0) - y0 * ((y0.transpose() * h0)[0, 0] / s0)) + hi(2 * err0 / s0)
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
    r = flint.arb(dyadic_up(lo * 1.01 + 1e-300))
    ok = all(alpha - b * r > 0 and z + n * r <= r * (alpha - b * r) for alpha, z, n, b in need)
    ok = ok and r >= r0 and all(m - k * r > 0 for m, k in margins)
    return float(r.mid()) if ok else None

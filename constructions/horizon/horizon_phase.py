"""Theorem 24 (docs/theory.md Section 7): the phase horizon of a network of complex scalars.

A ``rotation2d`` or ``diagonal`` network (and a ``block:2`` one whose snap is made of rotations) is
block-diagonal: every 2x2 block acts on its plane as a complex number (``M z = alpha z + beta
conj(z)``, with ``beta = 0`` for a scaled rotation) and every 1x1 block as a real one.  When the snap
is such a network too (exact complex scalars ``s``), the float state of every block is, exactly, the
snapped state of the same word times a complex factor: the product of the per-step ratios
``alpha / s`` (times ``1 + eta`` with ``|eta| <= |beta / alpha|`` plus the rounding).  Its phase
moves by at most ``pi_b`` a step and its log-modulus, against one positive scale per step, by at
most ``ell_b``: a box that grows linearly with the length.  The scores are then bounded exactly on
that box (``|K| cos(theta + P)`` per block, no Lipschitz constant), which certifies a rotation whose
angle is off by ``delta`` up to about (its angular margin) / ``delta``, the true failure, where
Theorem 16 stops at the chord-length bound ``m / (L delta)``.

>>> from bilinear.automata.families import from_spec
>>> from bilinear.constructions.handmade.registry import build
>>> from bilinear.constructions.horizon.snap import snap_candidates
>>> from bilinear.constructions.proof.prover import prove
>>> from bilinear.constructions.values.weights import Weights
>>> import numpy as np
>>> a = from_spec("cyclic:5")
>>> A, h0, R = build("cyclic:5", "rotation2d").to_float().float_arrays()
>>> turn = np.array([[np.cos(1e-3), -np.sin(1e-3)], [np.sin(1e-3), np.cos(1e-3)]])
>>> w = Weights("rotation2d", A @ turn, h0, R)   # every symbol's angle off by 1e-3
>>> snap = next(snap_candidates(w, a))
>>> h = phase_horizon(w, snap, prove(snap.block_weights, a), a, RoundOff.for_network("float64", w))
>>> h.length   # the true first failure: 0^629 (the phase passes pi / 5 = 0.628 at step 629)
628
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import flint
import numpy as np

from ..exact.balls import arb, frob_array, hi, lo, precision
from .horizon_base import CAP, Horizon
from .roundoff import RoundOff

__all__ = ["phase_horizon", "UNDERFLOW_RATIO_BITS", "PHASE_WORK_LIMIT"]

#: Most (reachable pair, other class) rows times followed blocks the bound evaluates in balls; past
#: it the phase bound is not tried (the other bounds still are).
PHASE_WORK_LIMIT = 400_000

#: Underflow is charged relative to each block as if the whole state were at most 2^this times the
#: block (float64; float32 uses 2^:data:`FLOAT32_RATIO_BITS`): a certified length also checks that
#: ratio on every word.
UNDERFLOW_RATIO_BITS = 500
#: The same ratio's bits in float32 (whose underflow error, 2^-150, is larger).
FLOAT32_RATIO_BITS = 40


@dataclass(frozen=True)
class _Box:
    """Per tracked block: the start's log-modulus ``L0`` (centred) with radius ``l0``, the start's
    phase radius ``p0`` and unit factor ``unit`` (its phase), the steps ``ell`` (log-modulus) and
    ``pi`` (phase): balls or exact points."""

    L0: list
    l0: list
    p0: list
    unit: list
    ell: list
    pi: list


def phase_horizon(weights, snap, proof, automaton, roundoff: RoundOff) -> Horizon | None:
    """Theorem 24's certified length (module docstring) in ``roundoff``'s arithmetic, or None where
    it does not apply: a non-identity basis, blocks larger than 2, off-block entries (float or
    snapped), a snapped block that is not an exact complex scalar (a reflection, or 0), a float
    block whose ``|beta|`` and rounding reach ``|alpha|``, a float block that does not start at 0
    where the snap drops it (or starts it at 0), or more work than :data:`PHASE_WORK_LIMIT`."""
    A, h0, Rf = weights.float_arrays()
    blocks = snap.blocks
    d = A.shape[1]
    if snap.basis is not None or Rf.shape[0] < 2 or any(len(g) > 2 for g in blocks):
        return None
    if sorted(j for g in blocks for j in g) != list(range(d)):
        return None
    mask = np.zeros((d, d), dtype=bool)
    for g in blocks:
        mask[np.ix_(g, g)] = True
    S = np.asarray(snap.block_weights.A, dtype=object)  # the snap too (a state-map snap is dense)
    if np.any(A[:, ~mask]) or any(x != 0 for x in S[:, ~mask].ravel()):
        return None
    with precision():
        return _phase(A, h0, Rf, snap, proof, automaton, roundoff)


def _cx(v, g) -> flint.acb:
    """The complex number of a vector's block ``g`` (exact entries or floats)."""
    return flint.acb(arb(v[g[0]]), arb(v[g[1]]) if len(g) == 2 else 0)


def _float_scalar(M, g) -> tuple[flint.acb, flint.acb]:
    """``(alpha, beta)`` of a float block: ``M z = alpha z + beta conj(z)`` on its plane."""
    if len(g) == 1:
        return flint.acb(arb(M[g[0], g[0]])), flint.acb(0)
    (i, j), half = g, flint.arb(0.5)
    a, b, c, e = (arb(M[i, i]), arb(M[i, j]), arb(M[j, i]), arb(M[j, j]))
    return flint.acb((a + e) * half, (c - b) * half), flint.acb((a - e) * half, (c + b) * half)


def _exact_scalar(S, g) -> flint.acb | None:
    """The complex scalar of an exact block (None when it is not one: a reflection, or 0)."""
    if len(g) == 2:
        i, j = g
        if not (S[i][i] == S[j][j] and S[i][j] == -S[j][i]):
            return None
    s = _cx([S[k][g[0]] for k in range(len(S))], g)
    return s if s.abs_lower() > 0 else None


def _phase(A, h0, Rf, snap, proof, automaton, ro: RoundOff) -> Horizon | None:
    y0 = snap.block_weights.h0
    tracked = []
    for b, g in enumerate(snap.blocks):
        if not np.any(h0[list(g)]):
            continue  # a float block that starts at 0 stays exactly 0, in every arithmetic
        if b not in snap.kept or all(y0[k] == 0 for k in g):
            return None  # a float block the snap does not follow
        tracked.append(b)
    if not tracked:
        return None
    rows = sum(len(h) for h in proof.state_map) * (Rf.shape[0] - 1)
    if rows * len(tracked) > PHASE_WORK_LIMIT:
        return None
    box = _box(A, h0, snap.block_weights.A, y0, snap.blocks, tracked, ro)
    if box is None:
        return None
    terms = _terms(proof, automaton, Rf, snap.blocks, tracked, box, ro)
    under = not ro.exact and ro.underflow > 0
    fast = _Floats.of(terms, box)
    bits = _ratio_bits(ro)  # the ratio the underflow was charged at (_box), checked on every row
    T = _bisect(lambda t: fast.holds(t, under), 0, CAP)
    checked: dict[int, bool] = {}  # each length checked in ball arithmetic once (the searches below meet)

    def holds(t: int) -> bool:
        if t not in checked:
            checked[t] = _holds(terms, box, t, under, bits)
        return checked[t]

    if T is None or not holds(T):
        T = _bisect(holds, 0, CAP if T is None else T)
    elif T < CAP and holds(T + 1):  # the float search stopped short (its exponentials underflow)
        T = _bisect(holds, T + 1, CAP)
    phase = max(float(x.mid()) for x in box.pi)
    modulus = max(float(x.mid()) for x in box.ell)
    if T is None:
        return Horizon.none(ro.arithmetic, "the phase bound does not hold at the start", "phase")
    note = (f"phase bound on {len(tracked)} complex blocks: phase error at most {phase:.3g} rad and "
            f"log-modulus spread at most {modulus:.3g} per step")
    return Horizon.up_to(T, ro.arithmetic, "phase", note, phase_step=phase, modulus_step=modulus)


def _ratio_bits(ro: RoundOff) -> int:
    """The bits of the largest ratio ||x|| / |x_b| under which underflow is charged per block."""
    return UNDERFLOW_RATIO_BITS if ro.arithmetic == "float64" else FLOAT32_RATIO_BITS


def _box(A, h0, S, y0, blocks, tracked, ro: RoundOff) -> _Box | None:
    """The per-block constants of Theorem 24 with the rounding of ``ro`` charged (None: see
    :func:`phase_horizon`)."""
    d = A.shape[1]
    under = flint.arb(0)
    if not ro.exact and ro.underflow > 0:  # an underflow's absolute error, at most 2^bits times the block
        under = hi(flint.arb(d).sqrt() * ro.underflow * flint.arb(2) ** _ratio_bits(ro))
    ell = [flint.arb(0)] * len(tracked)
    pi = [flint.arb(0)] * len(tracked)
    for a in range(A.shape[0]):
        fro_a = frob_array(A[a])
        logs, kappas = [], []
        for n, b in enumerate(tracked):
            g = blocks[b]
            s = _exact_scalar(S[a], g)
            alpha, beta = _float_scalar(A[a], g)
            if s is None or not alpha.abs_lower() > 0:
                return None
            kappa = hi((beta.abs_upper() + ro.step * frob_array(A[a][np.ix_(g, g)]) + under * fro_a)
                       / alpha.abs_lower())
            if not kappa < 1:
                return None
            r = alpha / s
            logs.append(abs(r).log())
            kappas.append(kappa)
            pi[n] = _top(pi[n], hi(abs(r.arg()) + kappa.asin()))
        mids = [float(x.mid()) for x in logs]  # one positive scale per step: the middle log-modulus
        centre = arb((max(mids) + min(mids)) / 2)
        ell = [_top(e, hi(abs(x - centre) - (1 - k).log())) for e, x, k in zip(ell, logs, kappas)]
    norm0 = hi(sum((abs(arb(x)) for x in h0), flint.arb(0)))  # ||h0||_1 >= ||h0||, exactly
    L0, l0, p0, unit = [], [], [], []
    for b in tracked:
        g = blocks[b]
        x0 = _cx(h0, g)
        k0 = flint.arb(0) if ro.exact else hi(ro.start * norm0 / x0.abs_lower())
        if not k0 < 1:
            return None
        r0 = x0 / _cx(y0, g)
        L0.append(abs(r0).log())
        l0.append(hi(-(1 - k0).log()))
        p0.append(hi(k0.asin()))
        unit.append(r0 / abs(r0))
    mids = [float(x.mid()) for x in L0]
    centre = arb((max(mids) + min(mids)) / 2)
    return _Box([x - centre for x in L0], l0, p0, unit, ell, pi)


def _top(x, y):
    return y if y > x else x


@dataclass(frozen=True)
class _Terms:
    """Per row (a reachable pair and a class other than its label) and tracked block: ``K``, the
    modulus of ``conj(Delta_b) y_b`` (a ball), ``theta``, the modulus of its argument after the
    start's phase (a ball; pi where the product may be 0), ``y_hi`` / ``y_lo`` the block's ``|y_b|``;
    per row ``tau``, the score rounding's factor."""

    K: list
    theta: list
    y_hi: list
    y_lo: list
    tau: list


def _terms(proof, automaton, Rf, blocks, tracked, box: _Box, ro: RoundOff) -> _Terms:
    hidden = proof.hidden_vectors()
    R = [[arb(x) for x in row] for row in Rf]
    norms = [hi(sum((x * x for x in row), flint.arb(0)).sqrt()) for row in R]
    rmax = max(norms, key=lambda x: float(x.mid()))
    K, theta, y_hi, y_lo, tau = [], [], [], [], []
    for q, hids in enumerate(proof.state_map):
        lab = int(automaton.labels[q])
        for h in hids:
            yb = [_cx(hidden[h], blocks[b]) for b in tracked]
            for c in range(len(R)):
                if c == lab:
                    continue
                delta = [x - z for x, z in zip(R[lab], R[c])]
                prods = [_cx(delta, blocks[b]).conjugate() * v for v, b in zip(yb, tracked)]
                K.append([abs(z) for z in prods])
                theta.append([_theta(z * u) for z, u in zip(prods, box.unit)])
                y_hi.append([hi(v.abs_upper()) for v in yb])
                y_lo.append([v.abs_lower() for v in yb])
                tau.append(flint.arb(0) if ro.exact else
                           hi(ro.readout * (norms[lab] + norms[c]) + ro.readout_underflow * rmax))
    return _Terms(K, theta, y_hi, y_lo, tau)


def _theta(z: flint.acb) -> flint.arb:
    """|arg z| as a ball; pi when the ball of z contains 0."""
    return abs(z.arg()) if z.abs_lower() > 0 else flint.arb.pi()


def _holds(terms: _Terms, box: _Box, t: int, under: bool, bits: int) -> bool:
    """Theorem 24's condition at length ``t`` in ball arithmetic (module docstring): every row's
    lower bound of its score difference, summed over the blocks, is positive."""
    tb = flint.arb(t)
    pi = flint.arb.pi()
    lam_lo = [(x - r - tb * e).exp() for x, r, e in zip(box.L0, box.l0, box.ell)]
    lam_hi = [(x + r + tb * e).exp() for x, r, e in zip(box.L0, box.l0, box.ell)]
    spread = [p + tb * q for p, q in zip(box.p0, box.pi)]
    for K, theta, yh, yl, tau in zip(terms.K, terms.theta, terms.y_hi, terms.y_lo, terms.tau):
        total = flint.arb(0)
        for j in range(len(K)):
            angle = hi(theta[j] + spread[j])
            cos = flint.arb(-1) if not angle < pi else lo(angle.cos())
            v = lo(K[j] * cos - tau * yh[j])
            total += lo((lam_lo[j] if v >= 0 else lam_hi[j]) * v)
        if not total > 0:
            return False
        if under:  # the ratio ||x|| / |x_b| under which the underflow was charged
            whole = sum((lam_hi[j] * yh[j] for j in range(len(K))), flint.arb(0))
            if not all(lam_lo[j] * yl[j] * flint.arb(2) ** bits >= whole for j in range(len(K))):
                return False
    return True


@dataclass(frozen=True)
class _Floats:
    """The terms and the box as float arrays (mid-points): a fast, unrigorous search for the length
    that :func:`_holds` then checks in balls."""

    K: np.ndarray
    theta: np.ndarray
    y: np.ndarray
    tau: np.ndarray
    L0: np.ndarray
    l0: np.ndarray
    p0: np.ndarray
    ell: np.ndarray
    pi: np.ndarray

    @classmethod
    def of(cls, terms: _Terms, box: _Box) -> "_Floats":
        f = lambda rows: np.array([[float(x.mid()) for x in row] for row in rows], dtype=float)  # noqa: E731
        v = lambda row: np.array([float(x.mid()) for x in row], dtype=float)  # noqa: E731
        return cls(f(terms.K), f(terms.theta), f(terms.y_hi), v(terms.tau), v(box.L0), v(box.l0), v(box.p0),
                   v(box.ell), v(box.pi))

    def holds(self, t: int, under: bool) -> bool:
        with np.errstate(all="ignore"):
            angle = self.theta + self.p0 + t * self.pi
            cos = np.where(angle < math.pi, np.cos(np.minimum(angle, math.pi)), -1.0)
            v = self.K * cos - self.tau[:, None] * self.y
            low, high = np.exp(self.L0 - self.l0 - t * self.ell), np.exp(self.L0 + self.l0 + t * self.ell)
            total = np.where(v >= 0, low * v, high * v).sum(axis=1)
            return bool(np.all(total > 0))


def _bisect(ok, start: int, stop: int) -> int | None:
    """The largest t in start..stop with ok(t), for ok true up to some t and false after it; None
    when ok(start) is false."""
    if not ok(start):
        return None
    if ok(stop):
        return stop
    step = 1
    while start + step < stop and ok(start + step):
        start, step = start + step, step * 2
    top = min(start + step, stop)
    while top - start > 1:
        mid = (start + top) // 2
        start, top = (mid, top) if ok(mid) else (start, mid)
    return start

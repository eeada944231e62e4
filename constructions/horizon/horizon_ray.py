"""Theorem 25 (invariant cones): the ray of a two-dimensional float state, for every length.

A prediction depends only on the *ray* of the state (the readout is linear, and the float run
divides every state by a positive number).  In the plane a set of rays of width below half a turn
is a convex cone ``C = {x : u x x >= 0, x x w >= 0}`` spanned by two vectors ``u``, ``w``
(``a x b = a_1 b_2 - a_2 b_1``).  If every reachable automaton state ``q`` has a cone ``C_q`` such that

* the start ``h0`` lies inside ``C_{q0}`` with its rounding (a disc of radius ``rho_0 ||h0||``),
* every symbol ``a`` maps each generator ``g`` of ``C_q`` inside ``C_{q.a}`` with a disc of radius
  ``delta ||A_a||_F ||g||`` around ``A_a g`` (Theorem 18's step error, split over the generators),
* every generator ``g`` of ``C_q`` has ``(R_l - R_c) . g > tau (||R_l|| + ||R_c||) ||g||`` for the
  label ``l`` of ``q`` and every other class ``c``,

then the network classifies every word of every length correctly, in the arithmetic whose
``delta`` and ``tau`` were charged (docs/theory.md, Theorem 25).  No snap and no proof are read:
the theorem is about the float network and the automaton alone.

The cones are found in floats (a fixed point of the images of arcs of angles, each image
inflated by a small angle, so that the cones contract strictly into each other) and then checked
in ball arithmetic (:mod:`~bilinear.constructions.exact.balls`); only the check is the proof.  A
network with a neutral direction (a rotation, an identity) or whose rays spread over half a turn
has no such cones, and the search says so (``Horizon.none``).

>>> import numpy as np
>>> from bilinear.automata.families import from_spec
>>> from bilinear.constructions.values.weights import Weights
>>> from bilinear.constructions.horizon.roundoff import RoundOff
>>> a = from_spec("parity")  # symbol 0 keeps the state, symbol 1 toggles it
>>> A = [[[1.01, 0.0], [0.0, 0.99]], [[-1.0, 0.0], [0.0, -0.98]]]
>>> w = Weights("full", A, [1.0, 0.3], [[1.0, 0.0], [-1.0, 0.0]])
>>> ray_horizon(w, a, RoundOff.for_network("float64", w)).kind
'every length'

No 2x2 flip-flop with a read symbol that is not neutral has such cones: its powers turn every ray
towards one eigendirection, and a linear readout cannot give ``x`` and ``-x`` one class.

>>> flip = from_spec("flipflop:2")
>>> A = [[[1.0, 0.0], [0.0, 0.0]], [[1.0, 0.0], [1.0, 0.0]], [[1.01, 0.0], [0.0, 0.99]]]
>>> w = Weights("full", A, [1.0, 0.0], [[0.0, 0.0], [-1.0, 2.0]])
>>> ray_horizon(w, flip, RoundOff.for_network("float64", w)).kind
'none'
"""

from __future__ import annotations

import math

import flint
import numpy as np

from ..exact.balls import arb, hi, lo, precision
from .horizon_base import Horizon
from .roundoff import RoundOff

__all__ = ["ray_horizon", "ray_cones", "MAX_SWEEPS", "MAX_PAIRS", "INFLATIONS"]

#: Sweeps of the fixed-point iteration over (state, symbol) pairs before the search gives up.
MAX_SWEEPS = 3000
#: Largest number of (reachable state, symbol) pairs searched (each sweep visits every one).
MAX_PAIRS = 256
#: The angles (radians) by which each image arc is widened, tried in turn until a set of cones checks.
INFLATIONS = (1e-10, 1e-7, 1e-4, 1e-2)
#: An arc this close to half a turn is refused (its cone would not be pointed).
HALF_TURN = math.pi - 1e-6


def _reachable(automaton) -> list[int]:
    seen, todo = {int(automaton.start)}, [int(automaton.start)]
    while todo:
        q = todo.pop()
        for a in range(automaton.delta.shape[0]):
            p = int(automaton.delta[a, q])
            if p not in seen:
                seen.add(p)
                todo.append(p)
    return sorted(seen)


def _image(M: tuple, arc: tuple[float, float]) -> tuple[float, float] | None:
    """The arc of angles of ``M`` (a 2x2 matrix as nested tuples of floats) times the cone of
    ``arc`` (the short arc between the images of its ends), or None where an image is 0 or not
    finite, or the two are (nearly) opposite."""
    angles = []
    for t in arc:
        c, s = math.cos(t), math.sin(t)
        x, y = M[0][0] * c + M[0][1] * s, M[1][0] * c + M[1][1] * s
        if not (math.isfinite(x) and math.isfinite(y)) or (x == 0 and y == 0):
            return None
        angles.append(math.atan2(y, x))
    diff = math.remainder(angles[1] - angles[0], 2 * math.pi)
    if abs(diff) >= HALF_TURN:
        return None
    return (angles[0], angles[0] + diff) if diff >= 0 else (angles[0] + diff, angles[0])


def _merge(old: tuple[float, float] | None, new: tuple[float, float]) -> tuple[float, float]:
    """The smallest arc holding ``old`` and ``new`` (``new`` turned by whole turns towards ``old``)."""
    if old is None:
        return new
    shift = 2 * math.pi * round(((old[0] + old[1]) - (new[0] + new[1])) / (4 * math.pi))
    return min(old[0], new[0] + shift), max(old[1], new[1] + shift)


def ray_cones(A: np.ndarray, h0: np.ndarray, automaton, inflate: float) -> tuple[dict | None, str]:
    """Arcs of angles ``{q: (lo, hi)}`` over the reachable states, closed under the symbols with
    every image widened by ``inflate`` on each side (floats: a candidate for the check), or
    ``(None, why not)``."""
    q0 = int(automaton.start)
    t0 = math.atan2(float(h0[1]), float(h0[0]))
    arcs: dict = {q0: (t0 - inflate, t0 + inflate)}
    mats = [tuple(tuple(float(x) for x in row) for row in M) for M in A]
    for _ in range(MAX_SWEEPS):
        moved = 0.0
        for q in list(arcs):
            for a, M in enumerate(mats):
                img = _image(M, arcs[q])
                if img is None:
                    return None, f"symbol {a} sends the rays at state {q} to 0 or to opposite rays"
                p = int(automaton.delta[a, q])
                new = _merge(arcs.get(p), (img[0] - inflate, img[1] + inflate))
                if new[1] - new[0] >= HALF_TURN:
                    return None, f"the rays reached at state {p} spread over half a turn"
                old = arcs.get(p)
                moved = max(moved, math.inf if old is None else max(old[0] - new[0], new[1] - old[1]))
                arcs[p] = new
        if moved <= inflate * 1e-3:
            return arcs, ""
    return None, f"the arcs did not settle in {MAX_SWEEPS} sweeps"


#: The last searches (the same float search serves the three arithmetics of one network).
_CACHE: dict = {}


def _cones_cached(A: np.ndarray, h0: np.ndarray, automaton, inflate: float) -> tuple[dict | None, str]:
    key = (A.tobytes(), A.shape, h0.tobytes(), np.asarray(automaton.delta).tobytes(),
           np.asarray(automaton.delta).shape, int(automaton.start), inflate)
    if key not in _CACHE:
        if len(_CACHE) >= 16:
            _CACHE.pop(next(iter(_CACHE)))
        _CACHE[key] = ray_cones(A, h0, automaton, inflate)
    return _CACHE[key]


def _gen(t: float) -> tuple[flint.arb, flint.arb]:
    return arb(math.cos(t)), arb(math.sin(t))  # exact: the floats are the generators


def _cross(a, b) -> flint.arb:
    return a[0] * b[1] - a[1] * b[0]


def _norm(v) -> flint.arb:
    return hi(sum((x * x for x in v), flint.arb(0)).sqrt())


def _inside(p, radius, cone) -> bool:
    """True when the disc of ``radius`` around ``p`` lies in the open cone ``(u, w)``."""
    u, w = cone
    return bool(lo(_cross(u, p)) > hi(radius * _norm(u))) and bool(lo(_cross(p, w)) > hi(radius * _norm(w)))


def _check(arcs: dict, A, h0, R, automaton, ro: RoundOff) -> str:
    """"" when the cones of ``arcs`` satisfy Theorem 25 in ball arithmetic, else what fails."""
    cones = {q: (_gen(t0), _gen(t1)) for q, (t0, t1) in arcs.items()}
    if any(not bool(lo(_cross(u, w)) > 0) for u, w in cones.values()):
        return "a cone is not pointed"
    q0 = int(automaton.start)
    hb = [arb(x) for x in h0]
    rho0 = ro.start + arb(2).sqrt() * ro.start_underflow
    if not _inside(hb, rho0 * _norm(hb), cones[q0]):
        return "h0 is not inside its cone with its rounding"
    mats = [[[arb(x) for x in row] for row in M] for M in A]
    frob = [_norm([x for row in M for x in row]) for M in mats]
    for q, (u, w) in cones.items():
        for a, M in enumerate(mats):
            p = int(automaton.delta[a, q])
            for g in (u, w):
                img = [M[0][0] * g[0] + M[0][1] * g[1], M[1][0] * g[0] + M[1][1] * g[1]]
                if not _inside(img, ro.step * frob[a] * _norm(g), cones[p]):
                    return f"symbol {a} does not map the cone of state {q} into that of state {p}"
    rows = [[arb(x) for x in r] for r in R]
    for q, (u, w) in cones.items():
        lab = int(automaton.labels[q])
        for c in range(len(rows)):
            if c == lab:
                continue
            diff = [rows[lab][j] - rows[c][j] for j in range(2)]
            tau = ro.readout * (_norm(rows[lab]) + _norm(rows[c]))
            if any(not bool(lo(diff[0] * g[0] + diff[1] * g[1]) > hi(tau * _norm(g))) for g in (u, w)):
                return f"the cone of state {q} is not classified {lab} against class {c}"
    return ""


def ray_horizon(weights, automaton, roundoff: RoundOff) -> Horizon:
    """Theorem 25 in ``roundoff``'s arithmetic: every length where invariant cones check (module
    docstring), else ``Horizon.none`` saying why (hidden size not 2, too many pairs, no cones)."""
    arith = roundoff.arithmetic
    if weights.dim != 2:
        return Horizon.none(arith, "invariant cones are for hidden size 2", "ray")
    if weights.variant_info.complex:
        return Horizon.none(arith, "invariant cones are for real states (a complex variant's state is not a ray of the plane)",
                            "ray")
    states = _reachable(automaton)
    if len(states) * weights.n_symbols > MAX_PAIRS:
        return Horizon.none(arith, f"more than {MAX_PAIRS} (state, symbol) pairs", "ray")
    A, h0, R = weights.float_arrays()
    if roundoff.exact:  # the network the weights define: a factored variant's exact composition
        ex = weights.exact_network()
        Ae, h0e, Re = ex.A, ex.h0, ex.readout
    else:
        Ae, h0e, Re = A, h0, R
    if not np.any(h0):
        return Horizon.none(arith, "h0 is 0", "ray")
    why = ""
    with precision():
        for inflate in INFLATIONS:
            arcs, why = _cones_cached(A, h0, automaton, inflate)
            if arcs is None:
                if "settle" in why:  # a wider margin settles sooner; arcs that spread only spread more
                    continue
                break
            why = _check(arcs, Ae, h0e, Re, automaton, roundoff)
            if not why:
                width = max(t1 - t0 for t0, t1 in arcs.values())
                return Horizon.every_length(
                    arith, "ray", f"invariant cones of the state's ray at {len(arcs)} automaton states "
                    f"(widest {width:.3g} rad, each image inside with a margin of {inflate:g} rad)",
                    cone_width=width, cone_margin=inflate)
    return Horizon.none(arith, f"no invariant cones: {why}", "ray")

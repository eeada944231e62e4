"""Snap a float stack of layers to an exact stack of the same variant (:func:`snap_stack`), and the
dyadic rounding every snap writes its start state, readout and bases in (:func:`_dyadic`).  The
snaps of one network are in constructions/horizon/snap.py, which re-exports every public name here.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from bilinear.errors import ConformanceError, WeightsError

from ..exact.field import cos2pi
from ..values.weights import Weights

__all__ = ["StackSnap", "snap_stack", "drift_layers", "STACK_SNAP_TOL", "STACK_SNAP_CONDUCTORS", "DYADIC_BITS"]


#: Snapped start state, readout and basis are rounded to multiples of 2^-DYADIC_BITS.
DYADIC_BITS = 24


def _dyadic(x: float, bits: int = DYADIC_BITS) -> Fraction:
    return Fraction(round(float(x) * (1 << bits)), 1 << bits)


#: Largest distance of a transition entry from its snapped value in :func:`snap_stack`.
STACK_SNAP_TOL = 1e-4
#: The conductors ``m`` tried by :func:`snap_stack`, in order: entries snap to cos(2 pi j / lcm(m, 4)).
STACK_SNAP_CONDUCTORS = (1, 3, 5, 8, 12, 7, 9, 10, 16, 20, 24, 11, 13, 14, 15, 18, 28, 30, 36, 40, 48, 60)


@dataclass(frozen=True)
class StackSnap:
    """An exact stack near a float one (:func:`snap_stack`): ``stack`` the exact
    :class:`~bilinear.constructions.values.stack.Stack`, and per layer the conductor ``m`` of its
    matrices' entries (each is cos(2 pi j / lcm(m, 4)) times the matrix's scale), whether each matrix
    was first divided by its spectral norm (``normalised``: a positive scalar per matrix changes no
    direction, hence no class), and the largest distance of an entry from its snapped value."""

    stack: Any
    conductors: tuple[int, ...]
    normalised: tuple[bool, ...]
    distances: tuple[float, ...]

    def describe(self) -> list[dict]:
        return [{"layer": l + 1, "conductor": m, "normalised": n, "max_distance": d}
                for l, (m, n, d) in enumerate(zip(self.conductors, self.normalised, self.distances))]


def _snap_entries(A: np.ndarray, tol: float):
    """``(m, exact entries, distance)`` for the first conductor whose values are all within ``tol``
    of the entries of ``A`` (any shape), or None."""
    for m in STACK_SNAP_CONDUCTORS:
        n = m if m % 4 == 0 else m * 4 // math.gcd(m, 4)
        values = np.cos(2 * np.pi * np.arange(n) / n)
        nearest = np.abs(A[..., None] - values).argmin(-1)
        distance = float(np.abs(A - values[nearest]).max()) if A.size else 0.0
        if distance <= tol:
            exact = {j: cos2pi(j, n) for j in np.unique(nearest).tolist()}
            out = np.empty(A.shape, dtype=object)
            for index, j in np.ndenumerate(nearest):
                out[index] = exact[int(j)]
            return m, out, distance
    return None


def snap_stack(stack, tol: float = STACK_SNAP_TOL, failures: list | None = None) -> StackSnap | None:
    """Snap every layer of a float stack to exact weights of the same variant, or None when some
    layer has no snap within ``tol``.

    Per layer: every transition entry goes to the nearest value cos(2 pi j / n), n = lcm(m, 4), for
    the first conductor ``m`` of :data:`STACK_SNAP_CONDUCTORS` that brings every entry within
    ``tol`` -- first as the entries stand, then with each matrix divided by its spectral norm; the
    start state and the readout are rounded to multiples of 2^-:data:`DYADIC_BITS`.  The result must
    conform to the layer's variant.  ``failures``, when a list, receives why a layer had no snap.  Nothing here says the snap computes anything: prove it with
    :func:`~bilinear.constructions.proof.stackprover.prove_stack`.

    >>> from bilinear.automata import from_spec
    >>> from bilinear.constructions.handmade.cascade import cascade
    >>> from bilinear.constructions.proof.stackprover import prove_stack
    >>> d3 = from_spec("dihedral:3")
    >>> exact = cascade(d3, "rotation2d")
    >>> s = snap_stack(drift_layers(exact, 1e-6))
    >>> s.conductors, [w.A.tolist() == e.A.tolist() for w, e in zip(s.stack.layers, exact.layers)]
    ((1, 3), [True, True])
    >>> prove_stack(s.stack, d3).status
    'proved'
    >>> snap_stack(drift_layers(exact, 0.01)) is None
    True
    """
    from ..values.stack import Stack

    layers: list[Weights] = []
    conductors: list[int] = []
    normalised: list[bool] = []
    distances: list[float] = []
    for w in stack.to_float().layers:
        A, h0, R = w.float_arrays()
        found, scaled = _snap_entries(A, tol), False
        if found is None:
            norms = np.linalg.norm(A, ord=2, axis=(1, 2))
            if (norms > 0).all():
                found, scaled = _snap_entries(A / norms[:, None, None], tol), True
        if found is None:
            if failures is not None:
                failures.append(f"layer {len(layers) + 1}: no conductor in {STACK_SNAP_CONDUCTORS[0]}.."
                                f"{STACK_SNAP_CONDUCTORS[-1]} brings every transition entry within {tol:g} of "
                                "cos(2 pi j / n), as they stand or divided by each matrix's spectral norm")
            return None
        m, exact, distance = found
        try:
            snapped = Weights(w.variant, exact, [_dyadic(float(x)) for x in h0],
                              [[_dyadic(float(x)) for x in row] for row in R])
        except (WeightsError, ConformanceError) as exc:
            if failures is not None:
                failures.append(f"layer {len(layers) + 1}: the snapped matrices do not conform to {w.variant} ({exc})")
            return None
        layers.append(snapped)
        conductors.append(m)
        normalised.append(scaled)
        distances.append(distance)
    return StackSnap(Stack(tuple(layers)), tuple(conductors), tuple(normalised), tuple(distances))


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

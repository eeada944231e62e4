"""Snap a float stack of layers to an exact stack of the same variant (:func:`snap_stack`): each
layer's entries to exact cosines, or, where they are not within the tolerance, the layer snapped as
one network (constructions/horizon/snap.py, which also holds ``drift_layers`` and the dyadic
rounding every snap writes its start state, readout and bases in) against its own automaton.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from bilinear.errors import ConformanceError, WeightsError

from ..exact.field import cos2pi
from ..values.weights import Weights
from .snap import _dyadic, snap_candidates

__all__ = ["StackSnap", "snap_stack", "STACK_SNAP_TOL", "STACK_SNAP_CONDUCTORS", "LAYER_SNAP_BOUND"]


#: Largest distance of a transition entry from its snapped value in :func:`snap_stack`.
STACK_SNAP_TOL = 1e-4
#: The prover's bound when a layer's snap is proved against the layer's own automaton.
LAYER_SNAP_BOUND = 64
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
    conductors: tuple[int | None, ...]
    normalised: tuple[bool, ...]
    distances: tuple[float, ...]
    rules: tuple[str, ...] = ()  # per layer: "" (entries snapped) or the one-layer snap's rule

    def describe(self) -> list[dict]:
        rules = self.rules or ("",) * len(self.conductors)
        return [{"layer": l + 1, "conductor": m, "normalised": n, "max_distance": d, "rule": r or "entries"}
                for l, (m, n, d, r) in enumerate(zip(self.conductors, self.normalised, self.distances, rules))]


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
    layer has no snap.

    Per layer: every transition entry goes to the nearest value cos(2 pi j / n), n = lcm(m, 4), for
    the first conductor ``m`` of :data:`STACK_SNAP_CONDUCTORS` that brings every entry within
    ``tol`` -- first as the entries stand, then with each matrix divided by its spectral norm; the
    start state and the readout are rounded to multiples of 2^-:data:`~bilinear.constructions.horizon.snap.DYADIC_BITS`.  The result must
    conform to the layer's variant.  A layer with no such snap is snapped against its own automaton
    (:func:`_layer_snap`: the automaton read off the float layer over every word of its alphabet,
    and the one-layer block snap proved against it), which needs no entry within ``tol``.  ``failures``, when a list, receives why a layer had no snap.  Nothing here says the snap computes anything: prove it with
    :func:`~bilinear.constructions.proof.stackprover.prove_stack`.

    >>> from bilinear.automata import from_spec
    >>> from bilinear.constructions.handmade.cascade import cascade
    >>> from bilinear.constructions.proof.stackprover import prove_stack
    >>> from bilinear.constructions.horizon.snap import drift_layers
    >>> d3 = from_spec("dihedral:3")
    >>> exact = cascade(d3, "rotation2d")
    >>> s = snap_stack(drift_layers(exact, 1e-6))
    >>> s.conductors, [w.A.tolist() == e.A.tolist() for w, e in zip(s.stack.layers, exact.layers)]
    ((1, 3), [True, True])
    >>> prove_stack(s.stack, d3).status
    'proved'
    >>> moved = snap_stack(drift_layers(exact, 0.01))   # entries 7e-3 away: each layer against its automaton
    >>> moved.conductors, moved.rules[0], prove_stack(moved.stack, d3).status
    ((None, None), 'blocks on the span visited at length', 'proved')
    >>> snap_stack(drift_layers(exact, 0.1)) is None
    True
    """
    from ..values.stack import Stack

    layers: list[Weights] = []
    conductors: list[int | None] = []
    normalised: list[bool] = []
    distances: list[float] = []
    rules: list[str] = []
    for w in stack.to_float().layers:
        A, h0, R = w.float_arrays()
        found, scaled = _snap_entries(A, tol), False
        if found is None:
            norms = np.linalg.norm(A, ord=2, axis=(1, 2))
            if (norms > 0).all():
                found, scaled = _snap_entries(A / norms[:, None, None], tol), True
        snapped, why = None, ""
        if found is not None:
            m, exact, distance = found
            try:
                snapped = Weights(w.variant, exact, [_dyadic(float(x)) for x in h0],
                                  [[_dyadic(float(x)) for x in row] for row in R])
            except (WeightsError, ConformanceError) as exc:
                why = f"the snapped matrices do not conform to {w.variant} ({exc})"
        else:
            why = (f"no conductor in {STACK_SNAP_CONDUCTORS[0]}..{STACK_SNAP_CONDUCTORS[-1]} brings every "
                   f"transition entry within {tol:g} of cos(2 pi j / n), as they stand or divided by each "
                   "matrix's spectral norm")
        rule = ""
        if snapped is None:  # snap the layer against its own automaton, as one network is snapped
            snapped, rule, distance, more = _layer_snap(w)
            m, scaled = None, False
            if snapped is None:
                if failures is not None:
                    failures.append(f"layer {len(layers) + 1}: {why}; {more}")
                return None
        layers.append(snapped)
        conductors.append(m)
        normalised.append(scaled)
        distances.append(distance)
        rules.append(rule)
    return StackSnap(Stack(tuple(layers)), tuple(conductors), tuple(normalised), tuple(distances), tuple(rules))


def _layer_snap(layer: Weights) -> tuple[Weights | None, str, float, str]:
    """``(exact layer, rule, relative distance, "")``: the float ``layer`` snapped as one network is
    (:func:`~bilinear.constructions.horizon.snap.snap_candidates`: blocks of its variant, angles to
    the periods of its symbols) against the automaton it appears to compute over every word of its
    alphabet (:func:`~bilinear.constructions.horizon.horizon_stack.float_layer_automaton`), the
    first candidate the prover proves against that automaton, in the layer's own basis and variant
    (:meth:`~bilinear.constructions.horizon.snap.Snap.original`); or ``(None, "", 0, why)``.  The
    proof against the layer's automaton only picks the candidate: the snapped stack is proved
    against the task by the stack prover."""
    from ..proof.prover import prove
    from .horizon_stack import float_layer_automaton

    M, why = float_layer_automaton(layer)
    if M is None:
        return None, "", 0.0, f"no automaton read off the float layer: {why}"
    tried: list = []
    try:
        for snap in snap_candidates(layer, M, tried):
            result = prove(snap.block_weights, M, bound=LAYER_SNAP_BOUND)
            if result.status == "proved":
                try:
                    exact = snap.original()
                except WeightsError as exc:
                    tried.append((snap.rule, str(exc)))
                    continue
                if exact.variant == layer.variant:
                    return exact, snap.rule, max(snap.distance), ""
                tried.append((snap.rule, f"the snap is {exact.variant}, not {layer.variant}"))
                continue
            tried.append((snap.rule, "not proved against the layer's automaton"))
    except WeightsError as exc:
        tried.append(("the block snap", str(exc)))
    detail = "; ".join(f"{r}: {w}" for r, w in tried[:2]) or "no candidate"
    return None, "", 0.0, f"no block snap of the layer is proved against its {M.n_states}-state automaton ({detail})"

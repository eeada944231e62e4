"""How far a float network holds: the certified horizon, chosen among the theorems that apply.

:func:`certified_horizon` is the dispatcher above one module per theorem (docs/theory.md
Section 7):

* :mod:`~bilinear.constructions.horizon.axes` -- Theorem 21, the axis orbit: every length, where the
  float state is a signed axis after every step (monomial networks started on an axis), tried first;
* :mod:`~bilinear.constructions.horizon.tube` -- Theorem 17, the invariant tube: every length, where
  every symbol contracts the directions transverse to the snapped states (resets);
* :mod:`~bilinear.constructions.horizon.horizon_global` -- Theorem 16, the perturbation horizon in the
  snap's basis (one scale per step), also with the dropped coordinates in an orthonormal basis;
* :mod:`~bilinear.constructions.horizon.horizon_blocks` -- the block-wise horizon (one scale per block)
  for block-diagonal networks;
* :mod:`~bilinear.constructions.horizon.horizon_phase` -- Theorem 24, the phase horizon: the exact
  phase and modulus of every complex (2x2 rotation or 1x1) block, for block-diagonal networks whose
  snap is made of complex scalars (``rotation2d``, ``diagonal``);
* :mod:`~bilinear.constructions.horizon.horizon_orbit` -- Theorem 19, the perturbation horizon over the
  finite orbit of a snap whose matrices are not isometries (S_4, A_4, resets);
* :mod:`~bilinear.constructions.horizon.horizon_projective` -- Theorem 23, the projective orbit horizon:
  Theorem 19 with the error forgotten at every resetting symbol (a snapped matrix of rank one);
* :mod:`~bilinear.constructions.horizon.horizon_ray` -- Theorem 25, invariant cones: every length, for
  a network of hidden size 2 whose state's ray stays in one cone per automaton state (no snap);
* :mod:`~bilinear.constructions.horizon.horizon_nodes` -- Theorem 20, the node horizon: sets per
  (automaton state, last k symbols), stepped; tried when the others certify less than 1024.

Each is a theorem about the network in one arithmetic (:mod:`~bilinear.constructions.horizon.roundoff`):
``real`` (the float weights as exact numbers), ``float64`` (how ``check`` and the failing-word
search run it) or ``float32`` (how torch trains it); the longest certified length is kept.  The
failing-word search lives in :mod:`~bilinear.constructions.horizon.failsearch`, the value in
:mod:`~bilinear.constructions.horizon.horizon_base`, the ball helpers in
:mod:`~bilinear.constructions.exact.balls`.
"""

from __future__ import annotations

from .axes import axis_horizon
from .failsearch import compress_word, search_failure
from .horizon_base import Horizon
from .horizon_blocks import blockwise_horizon
from .horizon_global import global_horizon
from .horizon_nodes import MAX_KEYS, MAX_WORK, node_horizon, suffix_length
from .horizon_orbit import orbit_horizon
from .horizon_phase import phase_horizon
from .horizon_projective import MAX_STEPS as PROJECTIVE_STEPS
from .horizon_projective import projective_horizon
from .horizon_ray import ray_horizon
from .roundoff import RoundOff
from .tube import invariant_tube

__all__ = ["Horizon", "certified_horizon", "perturbation_horizon", "with_node_horizon", "node_horizon_widest",
           "NODE_BELOW", "compress_word", "search_failure", "cannot_represent"]


def perturbation_horizon(weights, snap, proof, automaton, arithmetic: str = "real") -> Horizon:
    """The longest of Theorem 16's bound (in the snap's basis, and for a rational eigenbasis
    whose dropped part does not contract, with the dropped coordinates orthonormal) and, for
    block-diagonal networks, the block-wise bound and Theorem 24's phase bound.  All rigorous in
    ``arithmetic``."""
    ro = RoundOff.for_network(arithmetic, weights)
    if ro.unrepresentable:
        return Horizon.none(arithmetic, f"{arithmetic} cannot represent this network: {ro.unrepresentable}")
    found = global_horizon(weights, snap, proof, automaton, ro)
    phase = None if found.every else phase_horizon(weights, snap, proof, automaton, ro)
    if phase is not None and phase.order_key() > found.order_key():
        found = phase
    if found.every:
        return found
    if snap.basis is not None and len(snap.kept_coords) < weights.dim and not found.constants.get("rho", 0) < 1:
        other = global_horizon(weights, snap, proof, automaton, ro, orthonormal=True)
        if other.order_key() > found.order_key():
            found = other
    if found.note.startswith("a word of length"):  # not certified in ball arithmetic: no better bound
        return found
    block = blockwise_horizon(weights, snap, proof, automaton, ro)
    if block is not None and block.order_key() > found.order_key():
        return block
    return found


def certified_horizon(weights, snap, proof, automaton, arithmetic: str = "float64",
                      nodes: bool = True) -> Horizon:
    """The certified horizon of float ``weights`` against a proved ``snap`` in ``arithmetic``:
    the axis orbit (Theorem 21) where the float state stays on the axes, else
    the invariant tube where it can hold (no neutral 2x2 rotation plane kept), else invariant
    cones of the state's ray (Theorem 25, hidden size 2), else the
    perturbation horizon (isometric snaps) or the longer of the orbit horizon (Theorem 19: the
    snapped matrices generate a finite set) and its projective form (Theorem 23: the error
    forgotten at every resetting symbol); with ``nodes``, also the node horizon (Theorem 20) where
    that length is below :data:`NODE_BELOW` (:func:`with_node_horizon`), the longer kept."""
    ro = RoundOff.for_network(arithmetic, weights)
    if ro.unrepresentable:
        return Horizon.none(arithmetic, f"{arithmetic} cannot represent this network: {ro.unrepresentable}")
    axes = axis_horizon(weights, automaton, arithmetic)  # Theorem 21: no snap, no perturbation
    if axes is not None:
        return axes
    planes = snap.isometric and any(len(snap.blocks[i]) == 2 for i in snap.kept)
    radius = None if planes else invariant_tube(weights, snap, proof, automaton, ro)
    if radius is not None:
        return Horizon.every_length(arithmetic, "invariant tube",
                                    f"invariant tube of radius {radius:.3g} around the snapped states",
                                    tube_radius=radius)
    if weights.dim == 2:  # Theorem 25: invariant cones of the state's ray, no snap needed
        cones = ray_horizon(weights, automaton, ro)
        if cones.every:
            return cones
    if snap.isometric:
        found = perturbation_horizon(weights, snap, proof, automaton, arithmetic)
    else:
        found = orbit_horizon(weights, snap, proof, automaton, ro)
        if found.order_key() < PROJECTIVE_STEPS:  # Theorem 23 where a symbol resets: the longer
            reset = projective_horizon(weights, snap, proof, automaton, ro)
            found = reset if reset.order_key() > found.order_key() else found
    return with_node_horizon(found, weights, snap, proof, automaton) if nodes else found


def cannot_represent(h: Horizon) -> bool:
    """True for the no-length horizon of an arithmetic that cannot hold the network's weights
    (float32 with an entry outside its normal range: :attr:`RoundOff.unrepresentable`)."""
    return h.kind == "none" and h.note.startswith(f"{h.arithmetic} cannot represent")


#: The node horizon is tried where the other bounds certify less than this length.
NODE_BELOW = 1024


def node_horizon_widest(weights, snap, proof, automaton, beat: float = -1.0) -> Horizon:
    """Theorem 20's horizon with float32's rounding charged, the widest of the three arithmetics:
    its sets contain every trajectory perturbed by float32's rounding per step, so also float64's
    and the exact one (a smaller unit, and no rounding, are perturbations within those balls). One
    run certifies all three.  Not run (no length) when the work limit allows at most ``beat``
    steps at the largest node count (states x symbols^k)."""
    k = suffix_length(weights.n_symbols, MAX_KEYS)
    steps = MAX_WORK // (automaton.n_states * weights.n_symbols ** (k + 1))
    if steps <= beat:
        return Horizon.none("float32", f"the node horizon's work limit allows {steps} steps, not more than {beat:g}",
                            "node")
    ro = RoundOff.for_network("float32", weights)
    if ro.unrepresentable:  # charge float64's rounding: the widest arithmetic that holds the network
        ro = RoundOff.for_network("float64", weights)
    return node_horizon(weights, snap, proof, automaton, ro, max_steps=NODE_BELOW, max_keys=MAX_KEYS)


def with_node_horizon(found: Horizon, weights, snap, proof, automaton, node: Horizon | None = None) -> Horizon:
    """``found`` or, when longer, the node horizon (``node``, else computed by
    :func:`node_horizon_widest`), relabelled to ``found``'s arithmetic (which it covers).  Tried
    only where ``found`` certifies less than :data:`NODE_BELOW`."""
    if found.order_key() >= NODE_BELOW or cannot_represent(found):
        return found
    if node is None:
        node = node_horizon_widest(weights, snap, proof, automaton, found.order_key())
    if node.order_key() <= found.order_key():
        return found
    note = node.note + f"; {node.arithmetic}'s rounding charged, which covers " + found.arithmetic
    return Horizon(node.kind, found.arithmetic, node.bound, note, node.count, dict(node.constants))


def horizon_ceiling(weights, snap) -> float:
    """An upper bound on the order key of :func:`certified_horizon` (``nodes=False``) of ``snap``
    in every arithmetic in which the axis orbit (Theorem 21, a property of the weights alone, the
    same for every snap) does not hold, computed without balls: where only Theorem 16 applies (an
    isometric snap in a basis of its own that keeps a 2x2 rotation plane: no invariant tube, no
    block-wise bound), :func:`~bilinear.constructions.horizon.horizon_global.global_ceiling`; else
    infinity.  ``certify`` compares it with a horizon already computed for the same weights in the
    same arithmetic, so the axis orbit, had it held, would have ended the search for a snap."""
    import math

    from .horizon_global import global_ceiling

    planes = snap.isometric and any(len(snap.blocks[i]) == 2 for i in snap.kept)
    if not planes or snap.basis is None:
        return math.inf
    return global_ceiling(weights, snap)

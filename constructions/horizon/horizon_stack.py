"""Theorem S5 (docs/theory.md section 8): a stack's horizon, layer by layer.

Layer ``l`` of a :class:`~bilinear.constructions.values.stack.Stack` is a one-layer network over its own
alphabet, the pairs (input symbol ``s``, class ``c`` of layer ``l - 1``) numbered ``s * C + c``.
Run on *every* word of that alphabet, an exact layer reaches some set of directions; when that set
is finite and every direction in it has a strict class, the directions (states), the symbols'
moves between them and the classes (labels) are an automaton ``M_l`` which the exact layer computes
by construction (Theorem 5: the set is closed and every label is a strict maximum).
:func:`layer_automaton` builds it breadth-first in the layer's exact arithmetic (the prover's).

If the float layer ``l`` is certified against ``M_l`` of the *snapped* layer up to length ``N_l``
(the one-layer horizon theorems of Section 7, run by ``bilinear.analysis.certify``), for every
``l``, then the float stack labels every input word of length at most ``min_l N_l`` as the snapped
stack does (by induction over the layers: layer ``l`` then reads the snapped stack's symbols), and
the snapped stack is proved by Theorem S1.  A lower layer's error thus reaches layer ``l`` only as
a wrong symbol, which the induction excludes up to ``min_l N_l``: nothing is multiplied across
layers, and a ``rotation2d`` or ``diagonal`` layer's own ``N_l`` is its phase horizon (Theorem 24:
its planes' phases followed exactly, to about its own first failure).

>>> from bilinear.automata.families import from_spec
>>> from bilinear.constructions.handmade.cascade import cascade
>>> stack = cascade(from_spec("dihedral:3"), "rotation2d")
>>> [(m.n_states, m.n_symbols, m.n_classes) for m, why in map(layer_automaton, stack.layers)]
[(2, 2, 2), (6, 4, 6)]
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from bilinear.automata import Automaton

__all__ = ["layer_automaton", "float_layer_automaton", "MAX_LAYER_STATES", "MERGE_DISTANCE",
           "MAX_FLOAT_LAYER_STATES"]

#: Most directions :func:`layer_automaton` explores in one layer before it gives up.
MAX_LAYER_STATES = 4096
#: :func:`float_layer_automaton` takes two unit directions closer than this for one state.
MERGE_DISTANCE = 0.05
#: Most states :func:`float_layer_automaton` reads off a float layer (a cascade layer of a group
#: of order at most 256 has at most 256 directions).
MAX_FLOAT_LAYER_STATES = 1024


def layer_automaton(layer, limit: int = MAX_LAYER_STATES) -> tuple[Automaton | None, str]:
    """``(M, "")``: the automaton an exact layer computes over every word of its alphabet (module
    docstring), states numbered breadth-first from the start direction; or ``(None, why)`` when a
    reached direction has no strict class (a tie, or the zero vector) or more than ``limit``
    directions are reached.  ``layer`` is an exact :class:`~bilinear.constructions.values.weights.Weights`.
    """
    from ..proof.search import breadth_first
    from ..proof.stackprover import _Layer

    if not layer.exact:
        raise ValueError("layer_automaton needs an exact layer")
    # the readout's labels are read only for the last layer's screen, not for class_of
    exact = _Layer(layer, SimpleNamespace(labels=np.zeros(1, dtype=np.int64)))
    hids = breadth_first(exact.start(), lambda hid: (exact.step(hid, s) for s in range(layer.n_symbols)), limit)
    if hids is None:
        return None, f"more than {limit} directions reached over every word of its {layer.n_symbols} symbols"
    index = {hid: n for n, hid in enumerate(hids)}  # the steps are remembered by the store: no new products
    table = [[index[exact.step(hid, s)] for hid in hids] for s in range(layer.n_symbols)]
    classes = []
    for n, hid in enumerate(hids):
        c = exact.class_of(hid)
        if c is None:
            return None, (f"a direction reached over every word of its symbols (the {n + 1}th found) has no "
                          f"strict class (a tie in its readout)")
        classes.append(c)
    return Automaton(np.array(table, dtype=np.int64), start=0, labels=classes,
                     classes=[str(c) for c in range(layer.n_classes)], name="layer"), ""


def float_layer_automaton(layer, merge: float = MERGE_DISTANCE,
                          limit: int = MAX_FLOAT_LAYER_STATES) -> tuple[Automaton | None, str]:
    """``(M, "")``: the automaton a *float* layer appears to compute over every word of its
    alphabet, read off breadth-first as :func:`layer_automaton` does for an exact one, with two unit
    directions closer than ``merge`` (Euclidean) taken for one state (each new direction is compared
    with the first representative of every state, so the merge does not chain along a path); or
    ``(None, why)`` when a direction vanishes, a class is not strict, or more than ``limit`` states
    are reached.  Nothing here is a proof: the automaton only tells the one-layer snaps what each
    symbol's period is and which class each state has, and a snap must then be proved against it
    (:func:`~bilinear.constructions.horizon.stacksnap.snap_stack`).

    >>> from bilinear.automata.families import from_spec
    >>> from bilinear.constructions.handmade.cascade import cascade
    >>> stack = cascade(from_spec("dihedral:3"), "rotation2d").to_float()
    >>> [(m.n_states, m.n_symbols) for m, why in map(float_layer_automaton, stack.layers)]
    [(2, 2), (6, 4)]
    """
    from ..values.floatrun import rescaled, scale_exponents

    A, h0, R = layer.to_float().float_arrays()
    A = np.ldexp(A, -scale_exponents(A)[:, None, None])  # exact: directions are all that count
    h = rescaled(h0)
    if not np.any(h):
        return None, "the start state is zero"
    if limit < 1:  # the start direction alone is more than that
        return None, f"more than {limit} directions reached over every word of its {layer.n_symbols} symbols"
    reps = np.zeros((limit + 1, layer.dim))
    reps[0] = h / np.linalg.norm(h)
    found = 1
    table: list[list[int]] = []
    while len(table) < found:
        row = []
        for s in range(layer.n_symbols):
            v = rescaled(A[s] @ reps[len(table)])
            norm = float(np.linalg.norm(v))
            if norm == 0 or not np.isfinite(norm):
                return None, f"symbol {s} sends a reached direction to zero (or out of range)"
            dist = np.linalg.norm(reps[:found] - v / norm, axis=1)
            j = int(dist.argmin())
            if dist[j] >= merge:
                if found == limit:
                    return None, f"more than {limit} directions reached over every word of its {layer.n_symbols} symbols"
                reps[found], j, found = v / norm, found, found + 1
            row.append(j)
        table.append(row)
    scores = reps[:found] @ np.asarray(R, dtype=float).T
    top = np.sort(scores, axis=1)
    if scores.shape[1] > 1 and np.any(top[:, -1] - top[:, -2] <= 1e-9 * np.abs(top[:, -1]).max()):
        return None, "a reached direction has no strict class (a tie in its readout)"
    return Automaton(np.array(table, dtype=np.int64).T, start=0, labels=scores.argmax(axis=1).tolist(),
                     classes=[str(c) for c in range(scores.shape[1])], name="float layer"), ""

"""Reset automata in the plane (``full`` and ``block:2``, d = 2, every number of states).

An automaton whose symbols each act on the states of its minimal automaton either as the
identity or as a constant map (a reset to one state v) -- ``reset:N`` and ``flipflop:N`` are
such -- is computed with d = 2.  Give state v the rational position t_v = v (distinct), start at
h0 = (1, t_start), and let

* a reset to v act as A = [[1, 0], [t_v, 0]], mapping h to h_1 (1, t_v);
* the identity act as I.

The first coordinate never changes (it is 1), so after any word h = (1, t_q) for the current
state q.  Readout row of the class of v: (-t_v^2, 2 t_v) (of a class no reachable state
carries: (-1, 0), score -1); its score at (1, t_q) is
t_q^2 - (t_v - t_q)^2, maximal exactly at v = q with margin min (t_v - t_q)^2 = 1 (Theorem 10 of
docs/theory.md, resets on a parabola).  In such an automaton two states with the same label are
equivalent (every word either keeps both or sends both to one state), so the minimal automaton
has one class per state.  Both matrices are 2x2, so the weights conform to ``block:2`` too.

>>> from bilinear.automata.families import from_spec
>>> w = reset_parabola(from_spec("reset:3"))
>>> w.dim, w.A[1].tolist(), w.readout.tolist()
(2, [[1, 0], [1, 0]], [[0, 0], [-1, 2], [-4, 4]])
"""

from __future__ import annotations

import numpy as np

from bilinear.errors import ConstructionError

from ..values.memo import minimal, per_automaton
from ..values.weights import Weights

__all__ = ["reset_parabola", "reset_actions"]


@per_automaton
def reset_actions(automaton):
    """(minimal automaton, per symbol the reset target or -1 for the identity), or
    ConstructionError when a symbol is neither."""
    label = automaton.name or "automaton"
    m = minimal(automaton)
    n = m.n_states
    targets = []
    for s in range(m.n_symbols):
        row = m.delta[s]
        if (row == np.arange(n)).all():
            targets.append(-1)
        elif (row == row[0]).all():
            targets.append(int(row[0]))
        else:
            raise ConstructionError(f"{label}: symbol {automaton.symbols[s]!r} is neither a reset nor the identity")
    if len(set(m.labels.tolist())) != n:  # pragma: no cover - impossible for a minimal reset automaton
        raise ConstructionError(f"{label}: two states of the minimal automaton share a class")
    return m, targets


def reset_parabola(automaton, variant: str = "full") -> Weights:
    """Resets and identities as 2x2 matrices with the parabola readout (see the module docstring)."""
    m, targets = reset_actions(automaton)
    A = np.zeros((automaton.n_symbols, 2, 2), dtype=object)
    for s, v in enumerate(targets):
        A[s] = [[1, 0], [0, 1]] if v < 0 else [[1, 0], [v, 0]]
    h0 = np.array([1, int(m.start)], dtype=object)
    readout = np.zeros((automaton.n_classes, 2), dtype=object)
    readout[:, 0] = -1  # a class no reachable state carries scores -1 < 0 <= t_q^2
    for q in range(m.n_states):
        readout[int(m.labels[q])] = [-q * q, 2 * q]
    return Weights(variant, A, h0, readout)

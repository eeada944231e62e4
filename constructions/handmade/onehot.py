"""One-hot construction (variant ``full``, d = n): every automaton.

The automaton is first minimised (restricted to its reachable states, equivalent states merged;
the language is unchanged), so n is the number of states of the minimal automaton:
``random:states=5,symbols=2,seed=0`` has 4 reachable states and gets d = 4.  A[a] is the 0/1 matrix of q -> delta(a, q) (column q has its 1 in row delta(a, q)), h0 = e_start
and the readout row of class c is the indicator of the states labelled c.  By induction the
hidden state after a word w is exactly e_{q0.w}, so the score of the right class is 1 and every
other score is 0: margin 1.  (Theorem 1 of docs/theory.md, one-hot simulation.)

>>> from bilinear.automata.families import from_spec
>>> w = onehot(from_spec("flipflop:2"))
>>> w.dim, w.variant, w.readout.tolist()
(2, 'full', [[1, 0], [0, 1]])
"""

from __future__ import annotations

import numpy as np

from ..values.memo import minimal, per_automaton
from ..values.weights import Weights, check_entries

__all__ = ["onehot"]


@per_automaton
def onehot(automaton) -> Weights:
    """The one-hot construction of any automaton: d = states of its minimal automaton, entries 0/1."""
    automaton = minimal(automaton)
    n, k = automaton.n_states, automaton.n_symbols
    check_entries("one-hot", automaton.name or "automaton", k, n)
    A = np.zeros((k, n, n), dtype=np.int64)  # (symbols, hidden, hidden); Weights makes them ints
    for s in range(k):
        A[s, automaton.delta[s], np.arange(n)] = 1
    h0 = np.zeros(n, dtype=np.int64)
    h0[int(automaton.start)] = 1
    readout = np.zeros((automaton.n_classes, n), dtype=np.int64)
    readout[automaton.labels, np.arange(n)] = 1
    return Weights("full", A, h0, readout)

"""Theorem 20 (the node horizon): one ball per node (automaton state, last k symbols), stepped.

The exhaustive phase of Theorems 16 and 19 runs every word (a ball per word) and stops when a level
would hold more than ``MAX_NODES`` words; the recurrence after it charges the worst case at every
step, in norm.  This bound keeps instead, per word length t, one set per node ``n = (q, s)``
(automaton state q, the last ``k`` symbols s of the word):

    X_n(t) = { p + z : p in box(c_n(t)), ||z|| <= r_n(t) }

(``box(c)``: the arb column c; ``||.||`` the 2-norm in the snap's basis), which contains a positive
multiple of the float state (rounding charged) of every word of length t at node n; a positive
multiple changes no prediction.  One step maps X_n through F_a: the arb product ``F_a c_n``, the
radius ``||F_a|| r_n`` plus the rounding ``delta (||c_n|| + r_n)``, both divided by the norm of
the new centre's midpoint; the images landing on one node are merged into a ball around the
midpoint of the first one (radius ``max_i ||c_i - m|| + r_i``).  A word of length t is right when
every point of its node's set has a positive margin against the rounded readout:
``(R_l - R_c) . x - tau ||x|| > 0``.  Words that share their last k symbols have nearly the same
float state when the network forgets its distant past, so the merged balls stay small where the
worst case of Theorem 16 grows.  docs/theory.md Section 7, Theorem 20.
"""

from __future__ import annotations

import flint

from .balls import frob, hi, op_norm, precision
from .horizon_base import Horizon
from .horizon_global import ingredients
from .roundoff import RoundOff

__all__ = ["node_horizon", "suffix_length", "MAX_STEPS", "MAX_KEYS"]

#: Steps stepped at most (the bound reports at most this length).
MAX_STEPS = 2048
#: The suffix length k is the largest with (symbols)^k <= MAX_KEYS.
MAX_KEYS = 729


def suffix_length(n_symbols: int, max_keys: int = MAX_KEYS) -> int:
    """The largest k >= 1 with ``n_symbols ** k <= max_keys`` (1 when even one symbol is more)."""
    k = 1
    while n_symbols ** (k + 1) <= max_keys and k < 64:
        k += 1
    return k


def _norm_hi(x: flint.arb_mat) -> flint.arb:
    """An upper bound of the 2-norm of every point of the box ``x`` (a column: its Frobenius norm)."""
    return hi(frob(x))


def _midpoint(x: flint.arb_mat) -> flint.arb_mat:
    return flint.arb_mat([[flint.arb(x[j, 0].mid())] for j in range(x.nrows())])


def _certified(diffs, tau, lab: int, c: flint.arb_mat, r: flint.arb) -> bool:
    """Every point of ``box(c) + B(r)`` has a positive margin for label ``lab`` (tau charged)."""
    nx = hi(_norm_hi(c) + r)
    return all((dv * c)[0, 0] - dn * r - tau * nx > 0 for (l, _), (dv, dn) in diffs.items() if l == lab)


def step_nodes(nodes: dict, F, automaton, delta, norms, k: int) -> dict:
    """One step of every node under every symbol, merged by node (module docstring)."""
    images: dict = {}
    for (q, suffix), (c, r) in nodes.items():
        for a in range(len(F)):
            c2 = F[a] * c
            r2 = hi(norms[a] * r + delta * (_norm_hi(c) + r))
            s = flint.arb(float(_norm_hi(_midpoint(c2)).mid()))
            if s > 0:  # any positive scale: no prediction changes
                c2, r2 = c2 / s, hi(r2 / s)
            key = (int(automaton.delta[a, q]), (suffix + (a,))[-k:])
            images.setdefault(key, []).append((c2, r2))
    out = {}
    for key, items in images.items():
        m = _midpoint(items[0][0])
        radius = flint.arb(0)
        for c2, r2 in items:
            e = hi(_norm_hi(c2 - m) + r2)
            radius = e if e > radius else radius
        out[key] = (m, radius)
    return out


def node_horizon(weights, snap, proof, automaton, roundoff: RoundOff, max_steps: int = MAX_STEPS,
                 max_keys: int = MAX_KEYS) -> Horizon:
    """The certified horizon of Theorem 20 in ``roundoff``'s arithmetic: the largest t (at most
    ``max_steps``) such that every word of every length up to t is certified at its node."""
    with precision():
        _, st = ingredients(weights, snap, proof, automaton, roundoff)
        C = st.Rb.nrows()
        diffs = {}
        for l in range(C):
            for c in range(C):
                if c != l:
                    dv = flint.arb_mat([[st.Rb[l, j] - st.Rb[c, j] for j in range(st.Rb.ncols())]])
                    diffs[l, c] = (dv, _norm_hi(dv.transpose()))
        d = st.x0.nrows()
        norms = [op_norm(st.F[a], range(d), range(d)) for a in range(len(st.F))]
        k = suffix_length(len(st.F), max_keys)
        nodes = {(int(automaton.start), ()): (st.x0, flint.arb(0))}
        consts = {"roundoff_step": float(st.delta.mid()), "suffix": k,
                  "max_step_norm": max(float(n.mid()) for n in norms)}
        t = 0
        while True:
            for (q, _), (c, r) in nodes.items():
                if not _certified(diffs, st.tau, int(automaton.labels[q]), c, r):
                    note = f"a node set of length {t} is not certified (suffix {k})"
                    if t == 0:
                        return Horizon.none(roundoff.arithmetic, note, "node", **consts)
                    return Horizon.up_to(t - 1, roundoff.arithmetic, "node", note, **consts)
            if t >= max_steps:
                return Horizon.up_to(t, roundoff.arithmetic, "node",
                                     f"stopped after {max_steps} steps, every node certified (suffix {k})",
                                     **consts)
            nodes = step_nodes(nodes, st.F, automaton, st.delta, norms, k)
            t += 1

"""Theorem 21 (axis orbit): a float network whose state is a signed axis after every step is
proved for every length in its own arithmetic, with no snap and no perturbation bound.

A float matrix with at most one non-zero entry per column (a ``monomial`` matrix, a reset onto
one coordinate, any PD-SSM transition) maps a multiple ``x e_k`` of a standard basis vector to
``A[j, k] x e_j``: one product per coordinate, every other term an exact zero.  Rounded in any
order, that is ``fl(A[j, k] x) e_j``, of the sign of ``A[j, k] x`` and non-zero while ``|A[j, k] x|``
is above the underflow threshold; a renormalisation keeps it a multiple of ``e_j`` of the same
sign.  So from a start ``h0`` that is a multiple of an axis, every float state of every word is
``sigma |x| e_k`` with the sign ``sigma`` and the coordinate ``k`` of the *exact* run, and the pairs
(automaton state, k, sigma) form a finite graph (at most ``2 d n`` pairs), explored here
breadth-first.  Each score is one rounded product ``fl(R[c, k] x)``; where the right class beats
every other by more than the rounding of the two products can undo, the float label is right.
:func:`axis_horizon` returns ``every length`` when every reachable pair is right, and None where
the theorem does not apply (a matrix with two non-zero entries in one column, a start state off
the axes, a column that vanishes) or some pair's label is not right by that gap (the network is
wrong there or too close to a tie; the other bounds and the failing-word search say which).

>>> from bilinear.automata.families import from_spec
>>> from bilinear.constructions.handmade.registry import build
>>> a = from_spec("reset:3")
>>> axis_horizon(build("reset:3", "monomial").to_float(), a, "float64").text()
'every word of every length'
>>> axis_horizon(build("reset:3", "full").to_float(), a, "float64") is None  # two non-zeros in a column
True
"""

from __future__ import annotations

import numpy as np

from ..values.floatrun import rescaled, scale_exponents
from .horizon_base import Horizon

__all__ = ["axis_horizon", "axis_pairs", "UNIT", "ETA4"]

#: Unit roundoff of each arithmetic (0: exact).
UNIT = {"real": 0.0, "float64": 2.0**-53, "float32": 2.0**-24}
#: Four times eta, the largest absolute error of one rounded product in the subnormal range (half
#: the smallest subnormal number), per arithmetic.  Stored as 4 eta because float64's eta,
#: 2^-1075, is below the smallest float64: written ``2.0**-1075`` it was 0.0, and a product of a
#: state of size 1/2 with an entry 2^-1074 (rounded to zero) passed the underflow test.
ETA4 = {"real": 0.0, "float64": 2.0**-1073, "float32": 2.0**-148}


def _network(weights, arithmetic: str):
    """``(A, h0, R)`` as the arithmetic holds them: float64 rescales every matrix, the start state
    and the readout by powers of two (exact, as ``float_run`` does); float32 rounds every entry to
    float32 (as torch holds it, not rescaled); real takes the float entries as they are."""
    A, h0, R = weights.float_arrays()
    if arithmetic == "float64":
        return np.ldexp(A, -scale_exponents(A)[:, None, None]), rescaled(h0), rescaled(R)
    if arithmetic == "float32":
        return (A.astype(np.float32).astype(np.float64), h0.astype(np.float32).astype(np.float64),
                R.astype(np.float32).astype(np.float64))
    return A, h0, R


def axis_pairs(weights, automaton, arithmetic: str = "float64") -> list[tuple[int, int, int]] | None:
    """The reachable pairs ``(automaton state, axis k, sign)`` of the float run, breadth-first from
    the start (the empty word first), or None where the state does not stay on the axes (module
    docstring): the start state is not a multiple of one axis, a matrix has two non-zero entries
    in one column, or a reached column of a matrix is zero or too small not to underflow."""
    A, h0, _ = _network(weights, arithmetic)
    eta4 = ETA4[arithmetic]
    nz = [np.nonzero(M) for M in A]
    if any(len(np.unique(cols)) != len(cols) for _, cols in nz):
        return None
    support = np.nonzero(h0)[0]
    if len(support) != 1:
        return None
    # where each column goes: row j and the entry, per symbol (a state of norm >= 1/2 after the
    # renormalisation, so a product is non-zero when |entry| / 2 is above the underflow error)
    where = [dict(zip(cols.tolist(), rows.tolist())) for rows, cols in nz]
    k0 = int(support[0])
    start = (int(automaton.start), k0, 1 if h0[k0] > 0 else -1)
    seen, order = {start}, [start]
    for q, k, sign in order:  # grows while it is read: breadth-first
        for a in range(A.shape[0]):
            j = where[a].get(k)
            if j is None or abs(A[a, j, k]) <= eta4:  # |entry| / 2 <= 2 eta: the product may round to 0
                return None
            nxt = (int(automaton.delta[a, q]), j, sign if A[a, j, k] > 0 else -sign)
            if nxt not in seen:
                seen.add(nxt)
                order.append(nxt)
    return order


def axis_horizon(weights, automaton, arithmetic: str = "float64") -> Horizon | None:
    """Theorem 21's verdict for float ``weights`` in ``arithmetic`` (module docstring): ``every
    length`` or None.  A pair ``(q, k, sigma)`` is right when, with ``l = L(q)`` and every other
    class ``c``, ``sigma (R[l, k] - R[c, k]) > 2 u (|R[l, k]| + |R[c, k]|) + 8 eta`` (``u`` the unit
    roundoff, ``eta`` the underflow error; the state's coefficient lies in [1/2, 2] after the
    renormalisation, and a product's error is at most ``u`` times it plus ``eta``)."""
    pairs = axis_pairs(weights, automaton, arithmetic)
    if pairs is None:
        return None
    _, _, R = _network(weights, arithmetic)
    u, eta4 = UNIT[arithmetic], ETA4[arithmetic]
    for q, k, sign in pairs:
        lab = int(automaton.labels[q])
        col = R[:, k]
        for c in range(R.shape[0]):
            if c != lab and not sign * (col[lab] - col[c]) > 2 * u * (abs(col[lab]) + abs(col[c])) + 2 * eta4:
                return None
    states = len({(k, s) for _, k, s in pairs})
    return Horizon.every_length(arithmetic, "axes", f"Theorem 21: the {arithmetic} state is a signed axis after "
                                f"every step ({states} axes, {len(pairs)} pairs with the automaton's states, "
                                "each labelled right beyond its rounding)")

"""A_5 as the rotation group of the icosahedron (``full``, d = 3, entries in Q(sqrt 5)).

The icosahedron with vertices the cyclic permutations of (0, +-1, +-phi), phi = (1 + sqrt 5) / 2,
is preserved by the cyclic shift of coordinates P (order 3) and by the rotation F by 2 pi / 5
about the vertex v = (0, 1, phi),

    F = c I + (1/2) [v]_x + (1 - c) v v^T / |v|^2,   c = cos(2 pi / 5) = (phi - 1) / 2,

(Rodrigues' formula: sin(2 pi / 5) / |v| = 1/2 since |v|^2 = phi + 2).  They generate a group of
rotations of order divisible by 15 inside the icosahedral group I = A_5 (order 60), hence all of I
(A_5 has no subgroup of order 15 or 30).  sqrt 5 = 1 + 2 (zeta_5 + zeta_5^4) lies in Q(zeta_5),
so every entry is exact in :class:`~bilinear.constructions.exact.field.CyclotomicField` (5).

The automaton's generators (a 3-cycle and a 5-cycle) are matched to rotations by search: the
3-cycle goes to P and the 5-cycle to each of the 24 rotations of order 5 in turn, until the
assignment state -> rotation is consistent on every transition of the 60-state automaton (so it
is an (anti-)isomorphism onto I, checked exactly on all 60 elements).  h0 = (1, 2, 5) lies on no
rotation axis (the only axes with rational directions are the coordinate axes and (+-1, +-1,
+-1)), so its orbit has 60 distinct points of equal norm and the orbit readout separates them
(Theorem 2 of docs/theory.md, orbit separation).  d = 3 is minimal (Theorem 14 of docs/theory.md: in
d = 2 the group would be cyclic or dihedral).

>>> from bilinear.automata.families import from_spec
>>> w = icosahedral(from_spec("alternating:5"))
>>> w.dim, w.variant, w.conductor
(3, 'full', 5)
"""

from __future__ import annotations

from collections import deque
from fractions import Fraction

import numpy as np

from bilinear.errors import ConstructionError

from ..exact.field import CyclotomicField
from ..values.memo import per_automaton
from .orbit import orbit_weights

__all__ = ["icosahedral", "icosahedral_rotations"]


def _sqrt5():
    z = CyclotomicField(5).zeta()
    return 1 + 2 * (z + z ** 4)


def icosahedral_rotations() -> list[np.ndarray]:
    """The 60 rotations of the icosahedron as exact 3x3 matrices (identity first)."""
    s5 = _sqrt5()
    phi = (1 + s5) / 2
    c = (phi - 1) / 2
    v = np.array([0, 1, phi], dtype=object)
    norm2 = phi + 2
    cross = np.array([[0, -v[2], v[1]], [v[2], 0, -v[0]], [-v[1], v[0], 0]], dtype=object)
    F = np.empty((3, 3), dtype=object)
    for i in range(3):
        for j in range(3):
            F[i, j] = (c if i == j else 0) + Fraction(1, 2) * cross[i, j] + (1 - c) * v[i] * v[j] / norm2
    P = np.array([[0, 0, 1], [1, 0, 0], [0, 1, 0]], dtype=object)
    eye = np.eye(3, dtype=int).astype(object)
    found = {_key(eye): eye}
    queue = deque([eye])
    while queue:
        M = queue.popleft()
        for g in (P, F):
            N = g.dot(M)
            if _key(N) not in found:
                found[_key(N)] = N
                queue.append(N)
    if len(found) != 60:  # pragma: no cover - the argument in the module docstring
        raise ConstructionError(f"the icosahedral generators produced {len(found)} rotations, not 60")
    return list(found.values())


def _key(M) -> tuple:
    return tuple(round(float(x), 9) for x in M.flat)


def _order(M, eye) -> int:
    k, N = 1, M
    while _key(N) != _key(eye):
        N, k = M.dot(N), k + 1
    return k


def _consistent(automaton, A, exact: bool) -> bool:
    """True when state -> product of A along any word is well defined and injective (floats as
    a fast filter; ``exact`` compares the exact matrices on every transition)."""
    Af = A if exact else np.array([[[float(x) for x in row] for row in M] for M in A])
    n = automaton.n_states
    mats: list = [None] * n
    mats[automaton.start] = np.eye(3, dtype=int).astype(object) if exact else np.eye(3)
    queue = deque([automaton.start])
    while queue:
        q = queue.popleft()
        for s in range(automaton.n_symbols):
            q2 = int(automaton.delta[s, q])
            M = Af[s].dot(mats[q])
            if mats[q2] is None:
                mats[q2] = M
                queue.append(q2)
            elif (exact and (mats[q2] != M).any()) or (not exact and not np.allclose(mats[q2], M, atol=1e-9)):
                return False
    return len({_key(M) for M in mats}) == n


@per_automaton
def icosahedral(automaton):
    """alternating:5 (a 3-cycle and a 5-cycle) by icosahedral rotations, d = 3."""
    label = automaton.name or "automaton"
    if automaton.n_states != 60 or automaton.n_symbols != 2:
        raise ConstructionError(f"{label}: not the two-generator A_5 automaton (60 states, 2 symbols)")
    if not (np.sort(automaton.delta, axis=1) == np.arange(60)).all():
        raise ConstructionError(f"{label}: not a group (a symbol is not a permutation of the 60 states)")
    rotations = icosahedral_rotations()
    eye = rotations[0]
    orders = [_order(M, eye) for M in rotations]
    gen_orders = [_word_order(automaton, s) for s in range(2)]
    by_order = {k: [M for M, o in zip(rotations, orders) if o == k] for k in gen_orders}
    if not all(by_order.values()):
        raise ConstructionError(f"{label}: generator orders {gen_orders} are not orders of icosahedral rotations")
    first = by_order[gen_orders[0]][0]  # conjugating by I, the first generator's image is fixed
    for second in by_order[gen_orders[1]]:
        A = [first, second]
        if _consistent(automaton, A, exact=False) and _consistent(automaton, A, exact=True):
            return orbit_weights(automaton, "full", np.stack(A), [1, 2, 5])
    raise ConstructionError(f"{label}: no assignment of icosahedral rotations to the generators is consistent")


def _word_order(automaton, s: int) -> int:
    q, k = int(automaton.delta[s, automaton.start]), 1
    while q != automaton.start:
        q, k = int(automaton.delta[s, q]), k + 1
    return k

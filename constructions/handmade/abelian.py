"""Finite abelian groups by their invariant factors (``full`` and ``rotation2d``).

An automaton whose minimal automaton has one class per state and whose symbols act as commuting
permutations is the Cayley automaton of a finite abelian group G (a transitive faithful action of
an abelian group is regular, so states and elements correspond).  :func:`abelian_basis` splits G
into cyclic factors of orders d_1 | d_2 | ... | d_k (the invariant factors), found from the group
itself (never from the automaton's name):

* per prime p, a basis of the Sylow p-subgroup by the greedy lift: take y of largest order p^m
  modulo the span H of the basis so far, write p^m y = sum c_i x_i in H (then p^m divides every
  c_i) and add x = y - sum (c_i / p^m) x_i, which has order p^m and meets H trivially;
* the i-th largest p-factors of the primes combined into one element (coprime orders add).

The construction is the real Fourier transform of the one-hot: for each invariant factor d_i a
character g -> exp(2 pi i n_i(g) / d_i).  In ``full`` a factor of order 2 is one sign coordinate
and a factor of order > 2 one 2x2 rotation block (so Z_2 x Z_12 = Z_6 x Z_4 needs d = 3); in
``rotation2d`` every factor is a 2x2 block, a sign factor as diag(+-1, +-1), which is the scaled
rotation [[a, -b], [b, a]] with b = 0.  The characters of a basis generate the dual group, so the
representation is faithful, the orbit of h0 (1 on every sign coordinate, (1, 0) in every block) is
free, all its points have the same norm, and the orbit readout separates the states (Theorems 2, 11 of
docs/theory.md, orbit separation).  The trivial group gets d = 1 (``full``) or one identity block.

>>> from bilinear.automata.families import from_spec
>>> abelian_basis(from_spec("cyclic:6*cyclic:4"))[1]
[2, 12]
>>> abelian_full(from_spec("cyclic:6*cyclic:4")).dim, abelian_rotation(from_spec("cyclic:2*cyclic:2")).dim
(3, 4)
"""

from __future__ import annotations

import numpy as np

from bilinear.automata.monoid import transformation_monoid
from bilinear.errors import ConstructionError

from ..exact.field import cos2pi, sin2pi
from ..values.memo import minimal, per_automaton
from .orbit import orbit_weights

__all__ = ["abelian_basis", "abelian_weights", "abelian_full", "abelian_rotation", "MAX_ABELIAN_ORDER"]

#: Largest group order decomposed (the element table has order^2 entries).
MAX_ABELIAN_ORDER = 2048


def _regular_abelian(automaton):
    """(minimal automaton, (n, n) table ``add[q, p]`` = state of g_p + g_q) or ConstructionError."""
    label = automaton.name or "automaton"
    m = minimal(automaton)
    n = m.n_states
    if len(set(m.labels.tolist())) != n:
        raise ConstructionError(f"{label}: the orbit readout needs one class per state of the minimal automaton")
    if n > MAX_ABELIAN_ORDER:
        raise ConstructionError(f"{label}: group order {n} > {MAX_ABELIAN_ORDER} (table of {n * n} entries)")
    gens = np.unique(m.delta, axis=0)  # (distinct symbols, states)
    if not (np.sort(gens, axis=1) == np.arange(n)).all():
        raise ConstructionError(f"{label}: not a group (a symbol is not a permutation)")
    for a in range(gens.shape[0] - 1):
        if not (gens[a + 1:][:, gens[a]] == gens[a][gens[a + 1:]]).all():
            raise ConstructionError(f"{label}: the group is not abelian (two symbols do not commute)")
    monoid = transformation_monoid(m)
    if monoid.size != n or not (monoid.is_group and monoid.is_commutative):
        raise ConstructionError(f"{label}: the transformation monoid is not a regular abelian group")
    elements = monoid.elements  # (n, states), unsigned: row i is q -> q . word(i)
    of_state = np.empty(n, dtype=np.int64)
    of_state[elements[:, m.start].astype(np.int64)] = np.arange(n)
    return m, elements[of_state]  # add[q] = translation by the element reaching q


def _order(add, x: int, zero: int) -> int:
    k, y = 1, x
    while y != zero:
        y, k = int(add[x, y]), k + 1
    return k


def _times(add, x: int, c: int, zero: int) -> int:
    y = zero
    for _ in range(c):
        y = int(add[x, y])
    return y


def _all_orders(add, zero: int, n: int) -> list[int]:
    """The order of every element, all at once (vectorised over the elements)."""
    xs = np.arange(n)
    ys = xs.copy()
    orders = np.zeros(n, dtype=np.int64)
    for k in range(1, n + 1):
        done = (ys == zero) & (orders == 0)
        orders[done] = k
        if (orders > 0).all():
            break
        ys = add[xs, ys].astype(np.int64)
    return orders.tolist()


def _sylow_basis(add, zero: int, n: int, p: int, orders: list[int]) -> list[tuple[int, int]]:
    """A basis [(element, order)] of the Sylow p-subgroup, largest order first."""
    sylow = [x for x in range(n) if _is_power(orders[x], p)]
    basis: list[tuple[int, int]] = []
    span: dict[int, tuple[int, ...]] = {zero: ()}  # element -> coordinates in the basis so far
    while len(span) < len(sylow):
        def quotient_order(y):
            k, z = 1, y
            while z not in span:  # noqa: B023 (called within this iteration)
                z, k = int(add[y, z]), k + 1
            return k

        y = max((x for x in sylow if x not in span), key=quotient_order)
        q = quotient_order(y)
        coords = span[_times(add, y, q, zero)]
        x = y
        for (b, _), c in zip(basis, coords):
            x = int(add[_times(add, b, (-(c // q)) % n, zero), x])
        if _order(add, x, zero) != q:  # pragma: no cover - the lifting lemma guarantees it
            raise ConstructionError(f"abelian basis: lifted element has order {_order(add, x, zero)}, not {q}")
        basis.append((x, q))
        new: dict[int, tuple[int, ...]] = {}
        for e, co in span.items():
            z = e
            for t in range(q):
                new[z] = co + (t,)
                z = int(add[x, z])
        span = new
    return basis


def _is_power(k: int, p: int) -> bool:
    while k % p == 0:
        k //= p
    return k == 1


def _primes(n: int) -> list[int]:
    out, p = [], 2
    while p * p <= n:
        if n % p == 0:
            out.append(p)
            while n % p == 0:
                n //= p
        p += 1
    return out + ([n] if n > 1 else [])


@per_automaton
def abelian_basis(automaton):
    """(minimal automaton, invariant factors d_1 | ... | d_k, coordinates (states, k) int array).

    ``coords[q, i]`` is n_i with g_q = sum_i n_i y_i for the invariant-factor basis y_i.
    """
    m, add = _regular_abelian(automaton)
    n, zero = m.n_states, int(m.start)
    orders = _all_orders(add, zero, n)
    per_prime = [_sylow_basis(add, zero, n, p, orders) for p in _primes(n)]
    k = max((len(b) for b in per_prime), default=0)
    gens, orders = [], []
    for i in range(k):  # i-th largest factor of every prime, combined
        x, d = zero, 1
        for b in per_prime:
            if i < len(b):
                x, d = int(add[b[i][0], x]), d * b[i][1]
        gens.append(x)
        orders.append(d)
    gens, orders = gens[::-1], orders[::-1]  # d_1 | d_2 | ... | d_k
    coords = np.full((n, k), -1, dtype=np.int64)
    coords[zero] = 0
    frontier = [zero]
    for i, (g, d) in enumerate(zip(gens, orders)):  # every element is sum n_i y_i, uniquely
        nxt = []
        for e in frontier:
            z = e
            for t in range(d):
                coords[z, :i] = coords[e, :i]
                coords[z, i] = t
                nxt.append(z)
                z = int(add[g, z])
        frontier = nxt
    assert len(frontier) == n and (coords >= 0).all()
    return m, orders, coords


def _character_blocks(orders, coords, q: int, rotation2d: bool) -> list[np.ndarray]:
    blocks = []
    for d, t in zip(orders, coords[q]):
        c, s = cos2pi(int(t), d), sin2pi(int(t), d)
        if d == 2 and not rotation2d:
            blocks.append(np.array([[c]], dtype=object))
        else:
            blocks.append(np.array([[c, -s], [s, c]], dtype=object))
    return blocks


#: Above this order the plain Z_m automaton is left to the rotation construction.
PLAIN_CYCLIC_LIMIT = 64


def _not_plain_cyclic(automaton) -> None:
    """ConstructionError for a large Z_m automaton the rotation construction builds (a ``cyclic``
    or ``parity`` spec, or a spec-less cyclic group acting on its states): building the same
    weights twice costs seconds for m in the thousands.  Small ones are kept, and so is every
    automaton the rotation construction does not take (``dihedral:1`` has the table of Z_2)."""
    from .rotation import cyclic_exponents

    try:
        m, _ = cyclic_exponents(automaton)
    except ConstructionError:
        return
    if m > PLAIN_CYCLIC_LIMIT:
        raise ConstructionError(f"{automaton.name or 'automaton'}: Z_{m} is built by the rotation construction")


def abelian_weights(automaton, rotation2d: bool):
    """The invariant-factor construction (``rotation2d``: every factor a 2x2 block)."""
    m, orders, coords = abelian_basis(automaton)
    if not orders:  # the trivial group
        eye = [[1, 0], [0, 1]] if rotation2d else [[1]]
        A = np.array([eye] * automaton.n_symbols, dtype=object)
        return orbit_weights(m, "rotation2d" if rotation2d else "full", A, [1, 0][: len(eye)])
    mats = []
    for s in range(automaton.n_symbols):
        blocks = _character_blocks(orders, coords, int(m.delta[s, m.start]), rotation2d)
        d = sum(b.shape[0] for b in blocks)
        M = np.zeros((d, d), dtype=object)
        o = 0
        for b in blocks:
            M[o:o + b.shape[0], o:o + b.shape[0]] = b
            o += b.shape[0]
        mats.append(M)
    h0 = []
    for d in orders:
        h0 += [1] if d == 2 and not rotation2d else [1, 0]
    return orbit_weights(m, "rotation2d" if rotation2d else "full", np.stack(mats), h0)


@per_automaton
def abelian_full(automaton):
    """A finite abelian group, ``full``: a sign per invariant factor 2, a rotation per factor > 2."""
    _not_plain_cyclic(automaton)
    return abelian_weights(automaton, rotation2d=False)


@per_automaton
def abelian_rotation(automaton):
    """A finite abelian group, ``rotation2d``: one 2x2 block per invariant factor."""
    _not_plain_cyclic(automaton)
    return abelian_weights(automaton, rotation2d=True)

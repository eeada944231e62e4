"""Lower bounds on the hidden size: is a construction's d minimal?

:func:`lower_bound` returns ``(bound, theorem, reason)``: every weights of the variant that compute
the automaton (strictly: the label's score above every other score on every word) have hidden size
``d >= bound``.  The theorems, proved in docs/theory.md, hold for real matrices of any structure, so
for every variant; the variant's shape then rounds the bound up (``block:B`` needs B | d,
``rotation2d`` an even d).  All facts are read off the minimal automaton M (reachable, merged):

* Theorem 13 (one dimension): with d = 1 the sign of h decides everything, so M has at most 2
  states and every symbol permutes them; otherwise d >= 2.
* Theorem 14 (two dimensions): if M has N >= 3 states, each its own class, then for d = 2 the
  permutations in M's transformation monoid (its group of units U) preserve or reverse one cyclic
  order of the states, so U is cyclic or dihedral; if every matrix has a positive determinant
  (``rotation2d``, ``positive``) U is cyclic.  Otherwise d >= 3.
* Theorem 15 (a reset and a long cycle): if moreover some word acts on M as a constant map, for
  d = 2 every reachable hidden vector lies in one open half-plane, the units act monotonically on
  the linearly ordered classes, and |U| <= 2.  So |U| >= 3 forces d >= 3 (``modarith:M``, M >= 3).
* Theorem F11 (complex monomial): ``monomial,complex`` needs an even d, and with d = 2 (one
  complex coordinate) it is exactly ``rotation2d`` with d = 2; so when ``rotation2d`` has an
  impossibility certificate, ``monomial,complex`` needs d >= 4 (where ``rotation2d`` needs
  d >= 3 by Theorems 13-15, so does ``monomial,complex``: both have positive determinants).
* Theorem F8 (monomial resets in two dimensions): real ``monomial`` weights with d = 2 compute no
  automaton in which three words act on M as constant maps onto three states of pairwise different
  labels (``reset:N``, N >= 3).  So such an automaton needs d >= 3 under ``monomial``.

>>> lower_bound("alternating:5", "full")[:2]
(3, 'Theorem 14')
>>> lower_bound("cyclic:7", "full")[:2], lower_bound("parity", "block:2")[:2]
((2, 'Theorem 13'), (2, 'Theorem 13'))
>>> lower_bound("modarith:3", "block:2")[:2]
(4, 'Theorem 15')
"""

from __future__ import annotations

import math

import numpy as np

from bilinear.automata.groups import group_shape
from bilinear.automata.monoid import transformation_monoid
from bilinear.errors import MonoidTooLargeError

from .certificates import minimal_period
from ..values.memo import minimal, per_automaton
from ..values.weights import parse_variant

__all__ = ["lower_bound", "unit_group", "MAX_MONOID"]

#: Largest transformation monoid examined for Theorems 14 and 15 (above it only Theorem 13 is used).
MAX_MONOID = 20_000


@per_automaton
def unit_group(automaton):
    """(minimal automaton, its units as (units, states) rows, whether a constant map is in the
    monoid), or None when the monoid has more than :data:`MAX_MONOID` elements."""
    m = minimal(automaton)
    try:
        monoid = transformation_monoid(m, limit=MAX_MONOID)
    except MonoidTooLargeError:
        return None
    # A product of transformations of a finite set is a permutation iff every factor is, so the
    # units are the elements whose (shortlex) word uses permutation symbols only: one pass over
    # the parent pointers instead of sorting every row.
    permutes = (np.sort(m.delta, axis=1) == np.arange(m.n_states)).all(axis=1)  # (symbols,)
    if permutes.all():  # a group: every element is a unit, and no constant map (3+ states)
        return m, monoid.elements.astype(np.int64), m.n_states == 1
    unit = [True] * monoid.size
    parent, via, ok = monoid.parent.tolist(), monoid.via.tolist(), permutes.tolist()
    for i in range(1, monoid.size):  # parents precede children
        unit[i] = unit[parent[i]] and ok[via[i]]
    rows = monoid.elements
    units = rows[np.array(unit)].astype(np.int64)
    constant = bool((rows == rows[:, :1]).all(axis=1).any())
    return m, units, constant


def _round(bound: int, v) -> tuple[int, str]:
    """``bound`` rounded up to a multiple of the variant's block size, and why."""
    B = v.block_size
    if B is None or bound % B == 0:
        return bound, ""
    return math.ceil(bound / B) * B, f"; {v.spec} needs d to be a multiple of {B}"


def _two_dim_bound(automaton, positive_det: bool):
    """(3, theorem, reason) when Theorem 14 or 15 excludes d = 2, else None."""
    found = unit_group(automaton)
    if found is None:
        return None
    m, units, constant = found
    n = m.n_states
    if n < 3 or len(set(m.labels.tolist())) != n:
        return None
    if constant and units.shape[0] >= 3:
        return 3, "Theorem 15", (
            f"a word acts as a constant map and the {units.shape[0]} permutations of the "
            f"{n} states are more than the 2 that d = 2 allows"
        )
    shape = group_shape(units)
    if shape == "other" or (positive_det and shape != "cyclic"):
        what = "cyclic" if positive_det else "cyclic or dihedral"
        return 3, "Theorem 14", (
            f"the permutations of the {n} states form a group of order {units.shape[0]} that is not {what}"
        )
    return None


def _prime_power_sum(N: int) -> int:
    """Sum of the prime powers in N's factorisation (1 for N = 1): the least total length of
    cycles whose lengths have an lcm divisible by N."""
    total, p, rest = 0, 2, N
    while p * p <= rest:
        if rest % p == 0:
            q = 1
            while rest % p == 0:
                rest //= p
                q *= p
            total += q
        p += 1
    if rest > 1:
        total += rest
    return max(total, 1)


def _monoid_rows(automaton):
    """``(M, rows)``: the minimal automaton of ``automaton`` (a spec or an Automaton) and its
    transformation monoid's elements as rows, or None when the monoid has more than
    :data:`MAX_MONOID` elements."""
    from bilinear.automata import Automaton, from_spec

    a = automaton if isinstance(automaton, Automaton) else from_spec(automaton)
    m = minimal(a)
    try:
        return m, transformation_monoid(m, limit=MAX_MONOID).elements.astype(np.int64)
    except MonoidTooLargeError:
        return None


def monomial_bound(automaton) -> tuple[int, str] | None:
    """``(bound, reason)`` of Theorem F6 (real monomial weights): for every reachable state q and
    transformation g of the minimal automaton, the labels along q.g^n have an eventual minimal
    period P, and a monomial network's labels along g^n have an eventual period dividing 2L,
    L the lcm of the cycle lengths of g's coordinate map (cycles of total length <= d).  So
    d >= the sum of the prime powers of P / gcd(P, 2).  None when the monoid is too large.

    The periods are those of the cycles of each g (a state on a tail has its cycle's): a group's
    elements in numpy, a chunk of them at a time (:func:`_permutation_periods`), other monoids'
    one cycle decomposition per element.  One tick of the build clock (time budget and progress
    of :func:`~bilinear.constructions.settle.settle`) per chunk or element.

    >>> monomial_bound("cyclic:5")[0], monomial_bound("cyclic:4")[0], monomial_bound("cyclic:6")[0]
    (5, 2, 3)
    """
    from ..proof.search import build_tick

    listed = _monoid_rows(automaton)
    if listed is None:
        return None
    m, rows = listed
    labels = m.labels.astype(np.int64)
    n = m.n_states
    best: tuple[int, int, int | None] = (1, 1, None)
    permutations = bool((np.sort(rows, axis=1) == np.arange(n)).all())
    chunk = max(1, _PERIOD_CHUNK // max(n, 1)) if permutations else 1
    for lo in range(0, len(rows), chunk):
        build_tick(lo, len(rows), "monoid elements (Theorem F6)")
        block = rows[lo:lo + chunk]
        periods = _permutation_periods(block, labels) if permutations else _periods(block[0], labels)[None]
        needs = _needs(periods)  # (rows, states)
        top = int(needs.max())
        if top > best[0]:  # the first element, then the first state, reaching the largest need
            g, q = divmod(int(np.flatnonzero(needs.ravel() == top)[0]), n)
            best = (top, int(periods[g, q]), q)
    need, P, q_at = best
    if need <= 1:
        return None
    return need, (f"a monoid element's labels from state {q_at} of the minimal automaton have period {P}, and a "
                  f"monomial network's labels along g^n have a period dividing 2 lcm(cycle lengths), cycles "
                  f"of total length <= d")


#: Entries (elements x states) of one chunk of :func:`_permutation_periods`.
_PERIOD_CHUNK = 1 << 18


def _needs(periods: np.ndarray) -> np.ndarray:
    """Theorem F6's bound for each period P: the sum of the prime powers of P / gcd(P, 2)."""
    values, inverse = np.unique(periods, return_inverse=True)
    need = np.array([_prime_power_sum(int(P) // math.gcd(int(P), 2)) for P in values], dtype=np.int64)
    return need[inverse].reshape(periods.shape)


def _permutation_periods(block: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """The minimal label period of the cycle through each state (``(elements, states)``) of each
    permutation of ``block`` (rows): the least ``p`` dividing the cycle's length ``c`` with
    ``labels[g^p(x)] == labels[x]`` at every point ``x`` of the cycle.  Two passes of at most
    ``max c`` steps: the cycle lengths and ids (the least point), then the candidate periods."""
    r, n = block.shape
    start = np.broadcast_to(np.arange(n), (r, n))
    length = np.zeros((r, n), dtype=np.int64)
    least = start.copy()
    cur, p = start, 0
    while not length.all():
        p += 1
        cur = np.take_along_axis(block, cur, axis=1)  # g^p(x)
        open_ = length == 0
        least = np.where(open_, np.minimum(least, cur), least)
        length[open_ & (cur == start)] = p
    base = (np.arange(r) * n)[:, None]
    cycle = (base + least).ravel()  # the cycle's id: its element's row and its least point
    period = np.zeros(r * n, dtype=np.int64)
    own = labels[start]
    cur = start
    for q in range(1, int(length.max()) + 1):
        cur = np.take_along_axis(block, cur, axis=1)  # g^q(x)
        misses = np.bincount(cycle, weights=(labels[cur] != own).ravel(), minlength=r * n)  # per cycle
        fits = (period == 0) & (misses == 0) & (length.ravel() % q == 0)
        period[fits] = q
    return period[cycle].reshape(r, n)


def _periods(g: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """The minimal label period of the cycle each state of the transformation ``g`` ends on
    (states on a tail have their cycle's period): one walk per new point."""
    n = len(g)
    step, lab = g.tolist(), labels.tolist()
    period = [0] * n
    mark = [-1] * n  # -1 unseen, -2 on the current walk, else done
    for q in range(n):
        if mark[q] != -1:
            continue
        path, x = [], q
        while mark[x] == -1:
            mark[x] = -2
            path.append(x)
            x = step[x]
        if mark[x] == -2:  # a new cycle, entered at x
            cyc = path[path.index(x):]
            P = minimal_period(tuple(lab[y] for y in cyc))
        else:
            P = period[x]
        for y in path:
            period[y], mark[y] = P, 0
    return np.asarray(period, dtype=np.int64)


def monomial_reset_bound(automaton) -> tuple[int, str] | None:
    """``(3, reason)`` of Theorem F8 when three elements of the minimal automaton's transformation
    monoid are constant maps onto states with pairwise different labels, else None (also when the
    monoid is too large to list).

    >>> monomial_reset_bound("reset:3")[0], monomial_reset_bound("flipflop:2"), monomial_reset_bound("cyclic:3")
    (3, None, None)
    """
    listed = _monoid_rows(automaton)
    if listed is None:
        return None
    m, rows = listed
    target_by_label: dict[int, int] = {}
    for g in rows:
        image = set(g.tolist())
        if len(image) == 1:
            q = image.pop()
            target_by_label.setdefault(int(m.labels[q]), q)
    if len(target_by_label) < 3:
        return None
    targets = sorted(target_by_label.values())[:3]
    return 3, (f"three words act on the minimal automaton as constant maps onto states {targets[0]}, {targets[1]} "
               f"and {targets[2]}, whose labels differ, and in d = 2 a monomial matrix that resets is a rank-1 "
               f"map onto an axis or an invertible diagonal one")


def lower_bound(automaton, variant) -> tuple[int, str, str]:
    """``(bound, theorem, reason)``: every weights of ``variant`` computing ``automaton`` (a spec
    or an Automaton) have hidden size d >= bound (see the module docstring)."""
    from bilinear.automata import Automaton, from_spec
    a = automaton if isinstance(automaton, Automaton) else from_spec(automaton)
    v = parse_variant(variant)
    m = minimal(a)
    n = m.n_states
    bound, theorem, reason = 1, "Theorem 13", "every network has d >= 1"
    resets = [s for s in range(m.n_symbols) if len(set(m.delta[s].tolist())) < n]
    if n >= 3:
        bound, reason = 2, f"the minimal automaton has {n} states, and d = 1 tells at most 2 apart (the sign)"
        # householder:K,nonneg: every factor has determinant 1 - beta >= 0, and the matrices of U
        # are invertible (Theorem 14 (i)), so their determinants are positive
        two = _two_dim_bound(a, positive_det=v.positive_det)
        if two is not None:
            bound, theorem, reason = two
    elif n == 2 and resets:
        bound, reason = 2, (f"symbol {a.symbols[resets[0]]!r} merges the 2 states of the minimal automaton, "
                            "and in d = 1 every symbol permutes the two signs")
    if v.coordinate_map:
        mono = monomial_bound(a)
        if mono is not None and mono[0] > bound:
            bound, theorem, reason = mono[0], "Theorem F6", mono[1]
        if bound < 3:
            resets3 = monomial_reset_bound(a)
            if resets3 is not None:
                bound, theorem, reason = resets3[0], "Theorem F8", resets3[1]
    if bound == 1 and v.nonneg:
        from .certificates import certify

        cert = certify(a, "positive")
        if cert is not None:
            bound, theorem, reason = 2, "Theorem F5", (
                f"in d = 1 every factor is a scalar 1 - beta in [0, 1], so every product is a non-negative "
                f"scalar and the {cert.kind} certificate {cert.describe()} applies")
    if v.complex:
        return _complex_bound(a, bound, theorem, reason)
    rounded, why = _round(bound, v)
    return rounded, theorem, reason + why


def _complex_bound(a, bound: int, theorem: str, reason: str) -> tuple[int, str, str]:
    """Theorem F11: ``monomial,complex`` has an even d, and its d = 2 networks are the d = 2
    ``rotation2d`` ones (one complex coordinate, its map fixed, one complex entry per symbol).
    Theorem F14: with d = 4 the unit group has an abelian subgroup of index at most 2.

    >>> lower_bound("dihedral:5", "monomial,complex")[:2], lower_bound("reset:3", "monomial,complex")[:2]
    ((4, 'Theorem 14'), (4, 'Theorem F11'))
    >>> lower_bound("cyclic:5", "monomial,complex")[:2], lower_bound("parity", "monomial,complex")[:2]
    ((2, 'Theorem 13'), (2, 'Theorem 13'))
    >>> lower_bound("alternating:4", "monomial,complex")[:2]
    (6, 'Theorem F14')
    """
    got = _complex_bound_even_d(a, bound, theorem, reason)
    if got[0] > 4:
        return got
    from bilinear.automata.groups import abelian_of_index_at_most_two

    found = unit_group(a)
    if found is None or len(found[1]) < 2 or abelian_of_index_at_most_two(found[1]) is not False:
        return got
    return 6, "Theorem F14", (f"the {len(found[1])} permutations the words induce form a group with no abelian "
                              f"subgroup of index 1 or 2, which monomial,complex with d = 4 needs; d is even")


def _complex_bound_even_d(a, bound: int, theorem: str, reason: str) -> tuple[int, str, str]:
    """Theorem F11's part of :func:`_complex_bound`: d = 2 is rotation2d's bound, and d is even."""
    from .certificates import certify

    if bound <= 2:
        cert = certify(a, "rotation2d")
        if cert is not None:
            return 4, "Theorem F11", (f"with d = 2 a monomial,complex network is a rotation2d network, and the "
                                      f"{cert.kind} certificate {cert.describe()} excludes every rotation2d network")
        # rotation2d's own bound is this one's, rounded to even: Theorems 13-15 with positive
        # determinants, and neither F6 nor F8; so it is at most 2 here too
        return 2, theorem, reason + ("; monomial,complex needs an even d" if bound == 1 else "")
    if bound % 2:
        return bound + 1, theorem, reason + "; monomial,complex needs an even d (Theorem F11)"
    return bound, theorem, reason

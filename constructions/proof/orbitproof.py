"""The prover's closure when every matrix moves the start along the orbit of one generator.

Corollary of Theorem 5 in docs/theory.md ("the orbit of one generator"): let ``g = A[s_g]`` and
let ``h_k = g^k h0``.  If, exactly,

* the orbit closes: ``h_(t+p) = h_t`` for the first repeated direction (indices ``0 .. t+p-1``
  are pairwise different directions),
* every symbol moves the start onto the orbit: ``A[s] h0 = h_(j_s)``, and
* every symbol commutes with the generator: ``A[s] g = g A[s]``,

then ``A[s] h_k = g^k A[s] h0 = h_(k + j_s)``, the index read cyclically past ``t``.  So the
successor of the pair ``(q, k)`` under ``s`` is ``(delta(s, q), pos(k + j_s))``: integer
arithmetic, done for a whole breadth-first level at once in numpy.  The exact work is the orbit
(``t + p`` matrix-vector products), one product and ``2 d`` column products per symbol, and the
readout on each pair, instead of one exact product per transition: ``verify cyclic:1000
rotation2d`` (a million transitions) no longer multiplies in Q(zeta_1000) a million times.

The closure visits the pairs in the order of the general loop of
:func:`~bilinear.constructions.proof.prover.prove` (level by level, parent then symbol), assigns
direction ids in the order the general loop stores them, and every stored vector is the same exact
vector (the first word reaching direction k multiplies h0 into ``h_k`` exactly, since every
equality above is exact, not up to a positive factor); so its Proof, Counterexample or Unproved is
the one the general loop returns (``tests/constructions/proof/test_orbit_proof.py`` compares them).
When a condition fails the closure returns None before touching the search, and the general loop runs.
It also returns None when it cannot save work: an orbit of at most ``2 d + 1`` directions, where the
general loop's one product per pair and symbol costs no more than the commutation check's ``1 + 2 d``
per symbol (a trained `cyclic:5 full` snap of hidden 16 over Q(zeta_20): 6.4 s in the check, against a
proof of 5 pairs).
"""

from __future__ import annotations

import time

import numpy as np

from .search import HiddenStore, PairSearch

__all__ = ["orbit_closure", "saves_work", "ORBIT_MAX_DIM", "ORBIT_GENERATORS_TRIED", "ORBIT_MAX_PER_STATE"]

#: The largest hidden size the orbit closure tries: checking that a symbol commutes with the
#: generator is 2 d matrix-vector products per symbol, d^3 exact products.
ORBIT_MAX_DIM = 16

#: The symbols tried as the generator (those that move the start, in order), before giving up.
ORBIT_GENERATORS_TRIED = 3

#: The longest orbit looked for, per automaton state (the prover's default bound).
ORBIT_MAX_PER_STATE = 64

#: Most transitions (pairs x symbols) handled in one numpy step; the clock is read between steps.
_CHUNK = 1 << 18


class _Orbit:
    """The orbit ``h_k = g^k h0`` of one generator: its vectors (exact, in the domain), ``t``
    (where the cycle starts), ``m`` (its length, t + period) and per symbol ``jump[s]``."""

    def __init__(self, vectors: list, t: int, jump: np.ndarray):
        self.vectors, self.t, self.m, self.jump = vectors, t, len(vectors), jump

    def advance(self, k: np.ndarray) -> np.ndarray:
        """The orbit index of ``g^k h0`` for exponents ``k >= 0`` (cyclic past ``t``)."""
        period = self.m - self.t
        return np.where(k < self.m, k, self.t + (k - self.t) % period)


def _orbit_of(domain, g_rows, h0: list, limit: int, clock=None):
    """``(store, t)``: ``h_k = g^k h0`` until ``h_(t+p) = h_t`` exactly; None when the orbit
    passes ``limit`` directions, closes only up to a factor other than 1, or the time budget
    runs out (the general loop then runs, and stops on the budget itself)."""
    store = HiddenStore(domain, np.zeros((1, len(h0))), 1)
    store.add(h0)
    h = h0
    while len(store) <= limit:
        if clock is not None and clock.deadline is not None and len(store) % 256 == 0 \
                and time.monotonic() > clock.deadline:
            return None
        h = domain.matvec(g_rows, h)
        n = len(store)
        idx = store.add(h)
        if idx < n:
            return (store, idx) if list(store.vectors[idx]) == list(h) else None
    return None


def _on_orbit(domain, rows, h0: list, orbit: HiddenStore) -> int | None:
    """The index k with ``A h0 = h_k`` exactly (not only up to a factor), else None."""
    image = domain.matvec(rows, h0)
    k = orbit.find(image)
    return k if k is not None and list(orbit.vectors[k]) == list(image) else None


def _commutes(domain, a_rows, g_rows, d: int) -> bool:
    """``A g = g A`` exactly, column by column (``rows``: the domain's sparse rows)."""
    for j in range(d):
        e = [domain.convert(int(i == j)) for i in range(d)]
        if list(domain.matvec(a_rows, domain.matvec(g_rows, e))) != list(domain.matvec(g_rows, domain.matvec(a_rows, e))):
            return False
    return True


def saves_work(m: int, d: int) -> bool:
    """Whether an orbit of ``m`` directions in dimension ``d`` can save exact products: the general
    loop pays one per pair and symbol (at least ``m`` pairs), the conditions ``1 + 2 d`` per symbol.

    >>> saves_work(5, 2), saves_work(6, 2), saves_work(5, 16)
    (False, True, False)
    """
    return m > 2 * d + 1


def _find_orbit(domain, A_rows: list, h0: list, d: int, limit: int, clock=None) -> _Orbit | None:
    """The orbit of the first generator (of :data:`ORBIT_GENERATORS_TRIED`) that meets the
    module docstring's three conditions, else None."""
    tried = 0
    for g in range(len(A_rows)):
        if tried == ORBIT_GENERATORS_TRIED:
            return None
        if list(domain.matvec(A_rows[g], h0)) == list(h0):
            continue  # fixes the start: generates nothing
        tried += 1
        found = _orbit_of(domain, A_rows[g], h0, limit, clock)
        if found is None:
            continue
        orbit, t = found
        if not saves_work(len(orbit), d):
            return None
        jump = np.empty(len(A_rows), dtype=np.int64)
        for s, rows in enumerate(A_rows):
            k = _on_orbit(domain, rows, h0, orbit)
            if k is None or not (s == g or _commutes(domain, rows, A_rows[g], d)):
                break
            jump[s] = k
        else:
            return _Orbit(list(orbit.vectors), t, jump)
    return None


def orbit_closure(weights, automaton, bound: int, domain, search: PairSearch, store: HiddenStore, readout,
                  A_rows: list, h0: list):
    """Continue the closure of ``prove`` from its first pair (added and screened) by the orbit of
    one generator (module docstring): a Proof, Counterexample or Unproved, or None (before any pair
    is added) when the weights are not of that form."""
    if weights.dim > ORBIT_MAX_DIM or weights.n_symbols < 2 or len(search) != 1:
        return None
    limit = bound * automaton.n_states
    # an orbit longer than the default bound's pairs is not looked for (a shear's never closes)
    orbit = _find_orbit(domain, A_rows, h0, weights.dim, min(limit, ORBIT_MAX_PER_STATE * automaton.n_states),
                        search._clock)
    if orbit is None:
        return None
    return _Levels(automaton, orbit, search, store, readout, limit, weights.dim, bound).run()


class _Levels:
    """The breadth-first closure over pairs ``(q, k)`` (k an orbit index), level by level."""

    def __init__(self, automaton, orbit: _Orbit, search, store, readout, limit: int, dim: int, bound: int):
        self.automaton, self.orbit, self.search, self.store, self.readout = automaton, orbit, search, store, readout
        self.limit, self.dim, self.bound = limit, dim, bound
        self.hid = np.full(orbit.m, -1, dtype=np.int64)  # orbit index -> direction id in the store
        self.hid[0] = search.hidden[0]
        self.q = [int(search.q[0])]  # per pair: state and orbit index
        self.k = [0]
        self.seen = np.array([self.key(self.q[0], 0)], dtype=np.int64)  # sorted keys q * m + k

    def key(self, q, k):
        return q * self.orbit.m + k

    def run(self):
        delta = self.automaton.delta
        S = delta.shape[0]
        frontier = np.array([0], dtype=np.int64)
        while len(frontier):
            level = []
            step = max(1, _CHUNK // S)
            for lo in range(0, len(frontier), step):
                parents = frontier[lo:lo + step]
                Q = np.asarray(self.q, dtype=np.int64)[parents]
                K = np.asarray(self.k, dtype=np.int64)[parents]
                Q2 = delta[:, Q].T.astype(np.int64)  # (parents, symbols)
                K2 = self.orbit.advance(K[:, None] + self.orbit.jump[None, :])
                out = self._new_pairs(parents, Q2.ravel(), K2.ravel(), S)
                if out is not None and not isinstance(out, list):
                    return out  # a counterexample or the bound
                level += out or []
                if self.search._clock is not None:
                    self.search._clock.check(len(self.search), len(self.store))
            frontier = np.array(level, dtype=np.int64)
        return self.readout.proof(self.search, self.store)

    def _new_pairs(self, parents: np.ndarray, Q2: np.ndarray, K2: np.ndarray, S: int):
        """Add the pairs first reached in this chunk of transitions (stream order), screening each
        as the general loop does: their indices, or the loop's Counterexample or Unproved."""
        keys = Q2 * self.orbit.m + K2
        uniq, first = np.unique(keys, return_index=True)
        fresh = np.isin(uniq, self.seen, assume_unique=True, invert=True)
        order = np.sort(first[fresh])
        if not len(order):
            return None
        self.seen = np.union1d(self.seen, uniq[fresh])
        added = []
        for pos in order.tolist():
            q2, k2 = int(Q2[pos]), int(K2[pos])
            if self.hid[k2] < 0:
                self.hid[k2] = self.store.add(self.orbit.vectors[k2])
            idx = self.search.add(q2, int(self.hid[k2]), int(parents[pos // S]), pos % S)
            assert idx is not None  # a key not seen is a pair not seen
            self.q.append(q2)
            self.k.append(k2)
            bad = self.readout.screen(self.store, q2, int(self.hid[k2]))
            if bad is not None:
                return self.readout.counterexample(self.search, self.store, idx, bad)
            added.append(idx)
            if len(self.search) > self.limit:
                return self.search.unproved(self.automaton, self.dim, self.bound)
        return added

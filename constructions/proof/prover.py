"""Exact proof that weights compute an automaton on every word of every length.

The check (Theorem 5 of docs/theory.md, the inductive proof): explore breadth-first the pairs
``(q, [h])`` reachable from ``(q0, [h0])`` under ``(q, [h]) -> (delta(q, a), [A[a] h])``, where
``[h]`` is ``h`` up to a *positive* scalar. Each direction is stored as the hidden vector of the
first (shortest) word that reaches it; a new vector joins a stored direction when it is a
positive multiple of it (rationals: equal canonical forms, h divided by the absolute value of
its first non-zero coordinate; cyclotomic: h_i h'_j = h_j h'_i for all i, j and equal signs,
exactly). If the set is finite and on every pair the readout ``readout @ h`` has the label of
``q`` as its strict maximum, then every word of every length is classified correctly (induction
on the word: the readout's argmax is invariant under positive scaling, and the pair set is
closed under every symbol).

Everything is exact: rational weights run in ``flint.fmpq``, cyclotomic ones as ``fmpq_poly``
reduced mod Phi_m.  Margins are first screened with rigorous float error bounds from ball
arithmetic; only undecided ones are decided exactly (zero test in the field, then balls refined
until they exclude zero).  Float weights are proved as the exact binary fractions they are
(``Fraction(float)``), so the verdict is rigorous for the given floats; for a factored variant
the network proved is its factors composed exactly (:meth:`Weights.exact_network`), never the
rounded float composition ``A``, which is only checked against it (docs/formats.md).

Outcomes:

* :class:`Proof` -- closure found and every margin strict; carries the exact minimum margin;
* :class:`Counterexample` -- a shortest word (breadth-first order) whose label is wrong or tied;
* :class:`Unproved` -- the pair set outgrew ``bound * n_states`` (or the time budget ran out);
  carries two words the automaton sends to the same state while the weights send them to
  different directions.  That is *not* a refutation (weights can be right with infinitely many
  directions).

The parts: :mod:`~bilinear.constructions.exact.domains` (the exact arithmetic of Q, Z and Q(zeta_m)),
:mod:`~bilinear.constructions.proof.search` (directions, pairs, words, time budget) and
:mod:`~bilinear.constructions.proof.verdicts` (the three results).

Examples
--------
>>> from bilinear.automata.families import from_spec
>>> from bilinear.constructions.values.weights import Weights
>>> parity = from_spec("parity")
>>> w = Weights("diagonal", A=[[[1]], [[-1]]], h0=[1], readout=[[1], [-1]])
>>> p = prove(w, parity)
>>> p.status, p.states_explored, p.margin
('proved', 2, 2)
>>> bad = Weights("diagonal", A=[[[1]], [[1]]], h0=[1], readout=[[1], [-1]])
>>> c = prove(bad, parity)
>>> c.status, c.word, c.expected, c.got
('counterexample', (1,), 1, 0)
"""

from __future__ import annotations

from collections import deque

import numpy as np

from bilinear.argtypes import check_positive_int
from bilinear.errors import MismatchError, WeightsError

from ..exact.domains import Domain, IntegerDomain, RationalDomain, choose_domain, sparse_rows
from ..values.floatrun import check_compatible
from .orbitproof import orbit_closure
from .search import Clock, HiddenStore, OutOfTime, PairSearch
from .verdicts import Counterexample, Proof, Unproved, to_scalar
from ..values.weights import Weights

__all__ = ["prove", "Proof", "Counterexample", "Unproved", "DEFAULT_BOUND"]

#: Default bound: the search stops once it holds more than ``bound * n_states`` pairs.
DEFAULT_BOUND = 64


def prove(weights: Weights, automaton, bound: int = DEFAULT_BOUND, *, progress=None, time_budget=None):
    """Prove (or refute) that ``weights`` classify every word as ``automaton`` does.

    Parameters
    ----------
    weights:
        Exact or float :class:`Weights` (floats are taken as the exact binary fractions they are),
        or :class:`~bilinear.constructions.values.affine.AffineWeights`: an affine recurrence is
        proved as its lift (Theorem A1 of docs/theory.md); with a per-symbol readout the pairs are
        checked on every edge, the label after ``a`` read with ``a``'s readout (Theorem A4), and
        every *non-empty* word is covered (the empty word has no label).
    automaton:
        An :class:`~bilinear.automata.automaton.Automaton` with as many symbols and classes as
        the weights.
    bound:
        Stop with :class:`Unproved` once more than ``bound * automaton.n_states`` pairs
        ``(state, hidden direction)`` are reachable.
    progress:
        None (silent), True (a line on stderr every few seconds once the search has run for
        two seconds) or a callable ``progress(pairs, directions, seconds)`` called as often.
    time_budget:
        Seconds; when they run out the search stops with :class:`Unproved` (``cause="time"``).

    Returns :class:`Proof`, :class:`Counterexample` (shortest failing word) or :class:`Unproved`.

    See Also
    --------
    bilinear.constructions.horizon.floatcheck.check : runs sampled and directed words of one length in
        float64 (any model, not only Weights); a failure there is evidence, a pass is not a proof.
    bilinear.constructions.settle.settle : one matrix cell (certificate, construction, this
        proof and the lower bound on d) as a :class:`~bilinear.constructions.settle.Cell`.
    """
    from ..values.affine import AffineWeights

    if isinstance(weights, AffineWeights):
        return _prove_affine(weights, automaton, bound, progress, time_budget)
    _check_inputs(weights, automaton, bound)
    if weights.factors is not None:  # the factors composed exactly, not the rounded A
        weights = weights.exact_network()
    clock = Clock(time_budget, progress)
    domain = choose_domain(weights)
    search = PairSearch(clock)
    try:
        result = None
        if isinstance(domain, IntegerDomain):
            result = _Int64Closure.run(weights, automaton, bound, search)
            if result is None:  # int64 could overflow: the exact loop, from the start
                search = PairSearch(clock)
        if result is None:
            result = _closure(weights, automaton, bound, domain, search)
    except OutOfTime as out:
        result = search.unproved(automaton, weights.dim, bound, seconds=out.args[0])
    search.finish()
    return result


def _prove_affine(affine, automaton, bound, progress, time_budget):
    """An affine recurrence: its lift, with the readout fixed (Theorem 5) or per symbol (Theorem A4)."""
    from bilinear.automata.automaton import Automaton

    if not isinstance(automaton, Automaton):
        raise MismatchError(f"expected an Automaton to compare the weights with, got {type(automaton).__name__}")
    if (affine.n_symbols, affine.n_classes) != (automaton.n_symbols, automaton.n_classes):
        raise MismatchError(
            f"affine weights have {affine.n_symbols} symbols and {affine.n_classes} classes but automaton "
            f"{automaton.name} has {automaton.n_symbols} symbols and {automaton.n_classes} classes")
    if not affine.per_symbol:
        return prove(affine.lift(), automaton, bound, progress=progress, time_budget=time_budget)
    L, x0 = affine.lifted_matrices()
    k, C = affine.n_symbols, affine.n_classes
    # one Weights whose readout stacks every symbol's rows (symbol a: rows a*C .. a*C + C - 1), so
    # that one exact domain holds every entry and one store screens every symbol's scores
    stacked = Weights._trusted("full", L, x0, affine.readout.reshape(k * C, -1), exact=affine.exact, conform=False)
    _check_inputs(stacked, None, bound, automaton_checked=True)
    clock = Clock(time_budget, progress)
    search = PairSearch(clock)
    try:
        result = _SymbolwiseClosure(stacked, automaton, C, choose_domain(stacked), search).run(bound)
    except OutOfTime as out:
        result = search.unproved(automaton, stacked.dim, bound, seconds=out.args[0])
    search.finish()
    return result


def _check_inputs(weights, automaton, bound, automaton_checked: bool = False) -> None:
    if not isinstance(weights, Weights):
        raise MismatchError(f"prove needs a Weights value, got {type(weights).__name__} "
                            "(a Stack: bilinear.constructions.proof.stackprover.prove_stack)")
    if not automaton_checked:
        check_compatible(weights, automaton)  # the one compatibility check (MismatchError)
    check_positive_int(bound, "bound", error=WeightsError)


def _closure(weights, automaton, bound: int, domain: Domain, search: PairSearch):
    """The breadth-first closure in an exact domain: Proof, Counterexample or Unproved."""
    readout = _Readout(weights, automaton, domain)
    store = HiddenStore(domain, readout.floats, weights.n_symbols, readout.floats_rad)
    A = [sparse_rows(weights.A[s], domain) for s in range(weights.n_symbols)]
    limit = bound * automaton.n_states
    delta = automaton.delta
    q0, h0 = int(automaton.start), store.add([domain.convert(x) for x in weights.h0])
    first = search.add(q0, h0, -1, -1)
    assert first is not None  # the first pair added to an empty search is new
    bad = readout.screen(store, q0, h0)
    if bad is not None:
        return readout.counterexample(search, store, first, bad)
    fast = orbit_closure(weights, automaton, bound, domain, search, store, readout, A, list(store.vectors[h0]))
    if fast is not None:  # the orbit of one generator: the same result, by integer steps
        return fast
    queue = deque([first])
    while queue:
        idx = queue.popleft()
        q, hid = search.q[idx], search.hidden[idx]
        for s in range(weights.n_symbols):
            nxt = store.step(hid, s, A[s])
            new = search.add(int(delta[s, q]), nxt, idx, s)
            if new is None:
                continue
            bad = readout.screen(store, search.q[new], nxt)
            if bad is not None:
                return readout.counterexample(search, store, new, bad)
            queue.append(new)
            if len(search) > limit:
                return search.unproved(automaton, weights.dim, bound)
    return readout.proof(search, store)


class _Readout:
    """The readout's margins on stored directions: a float screen with rigorous error bounds,
    exact decisions only where the screen is undecided (see the module docstring)."""

    def __init__(self, weights, automaton, domain: Domain):
        int_readout = isinstance(domain, IntegerDomain) and all(isinstance(x, int) for x in weights.readout.flat)
        row_domain = domain if domain.m > 1 or int_readout else RationalDomain()
        self.rows = sparse_rows(weights.readout, row_domain)
        self.floats, self.floats_rad = _float_readout(weights.readout, self.rows, domain)
        self.domain = domain
        self.automaton = automaton
        self.dim = weights.dim
        self.n_classes = weights.n_classes
        self.labels = automaton.labels
        self.lo: list[float] = []  # per pair: a lower float bound of its margin ...
        self.hi: list[float] = []  # ... and an upper one
        self._differences: dict[tuple[int, int], tuple] = {}

    def diff(self, h, a: int, b: int):
        """score[a] - score[b] on the exact vector ``h``: one dot product with row a - row b."""
        row = self._differences.get((a, b))
        if row is None:
            entries = dict(self.rows[a])
            for j, x in self.rows[b]:
                entries[j] = entries[j] - x if j in entries else -x
            row = tuple((j, x) for j, x in sorted(entries.items()) if not self.domain.is_zero(x))
            self._differences[(a, b)] = row
        return self.domain.dot(row, h)

    def screen(self, store: HiddenStore, q: int, hid: int) -> int | None:
        """None when the label of ``q`` is the strict maximum on direction ``hid`` (recording the
        margin's float bounds), else a class scoring at least as high."""
        if self.n_classes == 1:
            self.lo.append(np.inf)
            self.hi.append(np.inf)
            return None
        L = int(self.labels[q])
        s_mid, s_err = store.scores[hid]
        gap = s_mid[L] - s_mid
        err = s_err[L] + s_err
        lo = gap - err
        lo[L] = np.inf
        for c in np.nonzero(lo <= 0)[0]:
            if self.domain.sign(self.diff(store.vectors[hid], L, int(c))) <= 0:
                return int(c)
        hi = gap + err
        hi[L] = np.inf
        self.lo.append(float(max(lo.min(), 0.0)))
        self.hi.append(float(hi.min()))
        return None

    def counterexample(self, search: PairSearch, store: HiddenStore, idx: int, c: int) -> Counterexample:
        """The failure at pair ``idx`` (``c`` scores at least as high as the label)."""
        hid = search.hidden[idx]
        h = store.vectors[hid]
        sign = self.domain.sign
        best = c  # the weights' own answer: the exact maximum, None when tied
        for other in range(self.n_classes):
            if other != best and sign(self.diff(h, other, best)) > 0:
                best = other
        tied = any(other != best and sign(self.diff(h, best, other)) == 0 for other in range(self.n_classes))
        word = search.word(idx)
        return Counterexample(
            dim=self.dim,
            word=word,
            text=self.automaton.format_word(word),
            expected=int(self.labels[search.q[idx]]),
            got=None if tied else best,
            scores=tuple(float(x) for x in store.scores[hid][0]),
            states_explored=len(search),
        )

    def minimum_margin(self, search: PairSearch, store: HiddenStore, lo=None, hi=None, hidden=None):
        """The exact minimum margin over all pairs, deciding exactly only the candidates whose
        float lower bound is below the smallest float upper bound.

        ``lo``, ``hi`` (per pair: float bounds of its margin) and ``hidden`` (per pair: the
        direction the readout reads) default to this readout's own bounds and ``search.hidden``;
        the stack prover passes its last layer's (:mod:`~bilinear.constructions.proof.stackprover`)."""
        if self.n_classes == 1:
            return None
        lo = np.asarray(self.lo if lo is None else lo)
        hi = np.asarray(self.hi if hi is None else hi)
        hidden = search.hidden if hidden is None else hidden
        ceiling = hi.min()
        best = None
        seen = set()  # a direction read with a label is decided once
        for idx in np.nonzero(lo <= ceiling)[0]:
            hid = hidden[idx]
            L = int(self.labels[search.q[idx]])
            if (hid, L) in seen:
                continue
            seen.add((hid, L))
            s_mid, s_err = store.scores[hid]
            gap_lo = s_mid[L] - s_mid - (s_err[L] + s_err)
            for c in np.nonzero(gap_lo <= ceiling)[0]:
                if c == L:
                    continue
                value = self.diff(store.vectors[hid], L, int(c))
                if best is None or (value != best and self.domain.sign(value - best) < 0):
                    best = value
        return best

    def proof(self, search: PairSearch, store: HiddenStore) -> Proof:
        margin = self.minimum_margin(search, store)
        if margin is not None:
            margin = to_scalar(margin, self.domain.m)
        return Proof(
            dim=self.dim,
            states_explored=len(search),
            hidden_states=len(store),
            margin=margin,
            margin_float=None if margin is None else float(margin),
            state_map=search.state_map(self.automaton.n_states),
            conductor=self.domain.m,
            _hidden=tuple(store.vectors),
        )


class _SymbolwiseClosure:
    """The closure of Theorem A4 (docs/theory.md): pairs ``(q, [x])`` of the lifted network,
    breadth-first; every *edge* ``(q, [x]) --a--> (q.a, [L_a x])`` is checked with symbol ``a``'s
    readout rows against ``L(q.a)`` (a triple ``(direction, a, label)`` is decided once).  Breadth-
    first order makes the first failing edge's word a shortest failing word (its parent pair is
    found at the least depth of any word reaching it)."""

    def __init__(self, stacked: Weights, automaton, n_classes: int, domain: Domain, search: PairSearch):
        self.readout = _Readout(stacked, automaton, domain)  # its rows: symbol-major, n_classes each
        self.store = HiddenStore(domain, self.readout.floats, stacked.n_symbols, self.readout.floats_rad)
        self.A = [sparse_rows(stacked.A[s], domain) for s in range(stacked.n_symbols)]
        self.x0 = [domain.convert(x) for x in stacked.h0]
        self.automaton, self.C, self.domain, self.search = automaton, n_classes, domain, search
        self.dim = stacked.dim
        self.decided: dict[tuple[int, int, int], tuple[float, float]] = {}  # (direction, symbol, label) -> margin bounds

    def run(self, bound: int):
        search, store, delta = self.search, self.store, self.automaton.delta
        limit = bound * self.automaton.n_states
        first = search.add(int(self.automaton.start), store.add(self.x0), -1, -1)
        assert first is not None  # the first pair added to an empty search is new
        queue = deque([first])
        while queue:
            idx = queue.popleft()
            q, hid = search.q[idx], search.hidden[idx]
            for s in range(len(self.A)):
                nxt = store.step(hid, s, self.A[s])
                q2 = int(delta[s, q])
                bad = self.screen(nxt, s, int(self.automaton.labels[q2]))
                if bad is not None:
                    return self.counterexample(search.word(idx) + (s,), q2, nxt, s, bad)
                new = search.add(q2, nxt, idx, s)
                if new is None:
                    continue
                queue.append(new)
                if len(search) > limit:
                    return search.unproved(self.automaton, self.dim, bound)
        return self.proof()

    def screen(self, hid: int, s: int, L: int) -> int | None:
        """None when class ``L`` is the strict maximum of symbol ``s``'s scores on ``hid``, else a
        class scoring at least as high (float screen with error bounds, exact where undecided)."""
        key = (hid, s, L)
        if key in self.decided or self.C == 1:
            self.decided.setdefault(key, (np.inf, np.inf))
            return None
        off = s * self.C
        mid, err = self.store.scores[hid]
        mid, err = mid[off:off + self.C], err[off:off + self.C]
        gap, rad = mid[L] - mid, err[L] + err
        lo, hi = gap - rad, gap + rad
        lo[L] = hi[L] = np.inf
        for c in np.nonzero(lo <= 0)[0]:
            if self.domain.sign(self.readout.diff(self.store.vectors[hid], off + L, off + int(c))) <= 0:
                return int(c)
        self.decided[key] = (float(max(lo.min(), 0.0)), float(hi.min()))
        return None

    def counterexample(self, word, q: int, hid: int, s: int, c: int) -> Counterexample:
        h, off, sign = self.store.vectors[hid], s * self.C, self.domain.sign
        best = c
        for other in range(self.C):
            if other != best and sign(self.readout.diff(h, off + other, off + best)) > 0:
                best = other
        tied = any(o != best and sign(self.readout.diff(h, off + best, off + o)) == 0 for o in range(self.C))
        return Counterexample(
            dim=self.dim, word=word, text=self.automaton.format_word(word),
            expected=int(self.automaton.labels[q]), got=None if tied else best,
            scores=tuple(float(x) for x in self.store.scores[hid][0][off:off + self.C]),
            states_explored=len(self.search),
        )

    def proof(self) -> Proof:
        margin = None
        if self.C > 1:
            ceiling = min(hi for _, hi in self.decided.values())
            for (hid, s, L), (lo, _) in self.decided.items():
                if lo > ceiling:
                    continue
                for c in range(self.C):
                    if c != L:
                        value = self.readout.diff(self.store.vectors[hid], s * self.C + L, s * self.C + c)
                        if margin is None or (value != margin and self.domain.sign(value - margin) < 0):
                            margin = value
            margin = to_scalar(margin, self.domain.m)
        return Proof(
            dim=self.dim, states_explored=len(self.search), hidden_states=len(self.store), margin=margin,
            margin_float=None if margin is None else float(margin),
            state_map=self.search.state_map(self.automaton.n_states), conductor=self.domain.m,
            _hidden=tuple(self.store.vectors),
        )


def _float_readout(readout, rows, domain) -> tuple[np.ndarray, np.ndarray | None]:
    """The readout as floats and, for a domain with cheap enclosures, their error radii."""
    enclose = getattr(domain, "enclose", None)
    if enclose is None:
        return np.array([[float(x) for x in row] for row in readout], dtype=np.float64), None
    mid = np.zeros(readout.shape, dtype=np.float64)
    rad = np.zeros(readout.shape, dtype=np.float64)
    for i, row in enumerate(rows):
        for j, x in row:
            mid[i, j], rad[i, j] = enclose(x)
    return mid, rad


_INT64_SAFE = 2**62
_INT64_MAX, _INT64_MIN = int(np.iinfo(np.int64).max), int(np.iinfo(np.int64).min)
#: Most (pair, class) scores the int64 closure holds at once (32 MiB of int64).
_SCORE_CHUNK = 1 << 22


def _largest_row_sum(M: np.ndarray) -> int:
    """``max_i sum_j |M[i, j]|`` (at least 1) of an int64 matrix, in Python integers: in int64,
    ``abs`` of -2^63 and a sum of entries near 2^62 wrap around, and the safety check built on
    them passed weights whose scores overflowed (tests/constructions/proof/test_prover.py,
    ``test_int64_safety_check_does_not_wrap_around``)."""
    return max((sum(abs(x) for x in row) for row in M.tolist()), default=1) or 1


class _Int64Closure:
    """The same breadth-first closure for integer weights, vectorised level by level in int64.

    Exact as long as no product can overflow: before every level it checks
    ``max|h| * max row sum |A| < 2^62`` (and the same for the readout); :meth:`run` returns None
    (the caller then runs the generic exact loop) when that fails or the readout is not
    integral.  Pairs enter the :class:`PairSearch` in the FIFO order of the generic loop, so the
    first failure is still a shortest counterexample.
    """

    def __init__(self, A: np.ndarray, h0: np.ndarray, R: np.ndarray, automaton, bound: int, search):
        self.A, self.h0, self.R = A, h0, R
        k, d = A.shape[0], A.shape[1]
        self.step = np.ascontiguousarray(A.reshape(k * d, d).T)  # H @ step: every A[s] @ h at once
        self.a_row = _largest_row_sum(A.reshape(k * d, d))
        self.r_row = _largest_row_sum(R)
        self.automaton, self.bound, self.search = automaton, bound, search
        self.labels = automaton.labels
        self.hidden: list[np.ndarray] = []
        self._index: dict[bytes, int] = {}
        self.margins: list[int] = []

    @classmethod
    def run(cls, weights: Weights, automaton, bound: int, search: PairSearch):
        if not all(isinstance(x, int) for x in weights.readout.flat):
            return None
        try:
            A = np.array(weights.A.tolist(), dtype=np.int64)  # (symbols, hidden, hidden)
            h0 = np.array(weights.h0.tolist(), dtype=np.int64)  # (hidden,)
            R = np.array(weights.readout.tolist(), dtype=np.int64)  # (classes, hidden)
        except OverflowError:
            return None
        fast = cls(A, h0, R, automaton, bound, search)
        if max((abs(x) for x in h0.tolist()), default=0) * fast.r_row >= _INT64_SAFE:
            return None
        return fast.closure()

    def ids(self, rows: np.ndarray) -> np.ndarray:
        """Direction ids of integer vectors (keyed by the primitive vector)."""
        g = np.gcd.reduce(np.abs(rows), axis=1)
        g[g == 0] = 1
        prim = rows // g[:, None]
        out = np.empty(len(rows), dtype=np.int64)
        for i in range(len(rows)):
            key = prim[i].tobytes()
            idx = self._index.get(key)
            if idx is None:
                idx = len(self.hidden)
                self._index[key] = idx
                self.hidden.append(rows[i])
            out[i] = idx
        return out

    def margins_of(self, pairs: list[int]) -> tuple[np.ndarray, np.ndarray | None]:
        """Exact margins (int64) of the given pairs, and their scores when the pairs are few
        (else None: :meth:`scores_of` gives one pair's).  The scores are pairs x classes: computed
        in chunks of at most :data:`_SCORE_CHUNK` entries, with the clock checked between chunks
        (``symmetric:8`` has 40,320 classes: one (pairs x classes) array held 3.4 GB, and no budget
        was checked while it was filled)."""
        n_classes = self.R.shape[0]
        if n_classes == 1:
            return np.full(len(pairs), _INT64_MAX), None
        step = max(1, _SCORE_CHUNK // n_classes)
        margins = np.empty(len(pairs), dtype=np.int64)
        for lo in range(0, len(pairs), step):
            chunk = pairs[lo:lo + step]
            scores = self._scores(chunk)  # (chunk, classes), exact in int64
            rows = np.arange(len(chunk))
            L = self.labels[[self.search.q[i] for i in chunk]]
            best = scores[rows, L].copy()
            scores[rows, L] = _INT64_MIN
            margins[lo:lo + len(chunk)] = best - scores.max(axis=1)
            clock = self.search._clock
            if clock is not None and len(pairs) > step:
                clock.check(len(self.search), len(self.hidden))
        return margins, None

    def _scores(self, pairs: list[int]) -> np.ndarray:
        H = np.stack([self.hidden[self.search.hidden[i]] for i in pairs])  # (pairs, hidden)
        return H @ self.R.T

    def scores_of(self, idx: int) -> np.ndarray:
        """The exact scores (int64) of one pair."""
        return self._scores([idx])[0]

    def fail(self, idx: int, scores_row: np.ndarray) -> Counterexample:
        best = int(np.argmax(scores_row))
        tied = int((scores_row == scores_row[best]).sum()) > 1
        word = self.search.word(idx)
        return Counterexample(
            dim=self.A.shape[1], word=word, text=self.automaton.format_word(word),
            expected=int(self.labels[self.search.q[idx]]), got=None if tied else best,
            scores=tuple(float(x) for x in scores_row), states_explored=len(self.search),
        )

    def closure(self):
        search, automaton = self.search, self.automaton
        k, d = self.A.shape[0], self.A.shape[1]
        limit = self.bound * automaton.n_states
        search.add(int(automaton.start), int(self.ids(self.h0[None, :])[0]), -1, -1)
        m0, _ = self.margins_of([0])
        if m0[0] <= 0:
            return self.fail(0, self.scores_of(0))
        self.margins.append(int(m0[0]))
        frontier = [0]
        while frontier:
            H = np.stack([self.hidden[search.hidden[i]] for i in frontier])  # (frontier, hidden)
            if int(np.abs(H).max(initial=0)) * self.a_row * self.r_row >= _INT64_SAFE:
                return None
            H2 = self.ids((H @ self.step).reshape(-1, d))  # parent-major, then symbol
            Q2 = automaton.delta[:, [search.q[i] for i in frontier]].T.reshape(-1)
            new = [search.add(int(Q2[j]), int(H2[j]), frontier[j // k], j % k) for j in range(len(Q2))]
            new = [i for i in new if i is not None]
            if not new:
                break
            m, _ = self.margins_of(new)
            bad = np.nonzero(m <= 0)[0]
            trip = limit - new[0] if new[-1] >= limit else None  # the pair that exceeds the bound
            if len(bad) and (trip is None or bad[0] <= trip):
                search.truncate(new[bad[0]] + 1)
                return self.fail(new[bad[0]], self.scores_of(new[bad[0]]))
            if trip is not None:
                search.truncate(new[trip] + 1)
                return search.unproved(automaton, d, self.bound)
            self.margins.extend(int(x) for x in m)
            frontier = new
        return self.proof()

    def proof(self) -> Proof:
        margin = None if self.R.shape[0] == 1 else min(self.margins)
        return Proof(
            dim=self.A.shape[1],
            states_explored=len(self.search),
            hidden_states=len(self.hidden),
            margin=margin,
            margin_float=None if margin is None else float(margin),
            state_map=self.search.state_map(self.automaton.n_states),
            conductor=1,
            _hidden=tuple(map(tuple, np.array(self.hidden).tolist())),
        )

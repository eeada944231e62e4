"""The bookkeeping of the prover's breadth-first closure (Theorem 5 of docs/theory.md).

* :class:`HiddenStore` -- the hidden directions seen so far: one exact representative each
  (the vector of the first, shortest word reaching it), deduplicated by the domain's key, with
  float enclosures of its readout scores and a cache of its successors;
* :class:`PairSearch` -- the pairs ``(state, direction id)`` in breadth-first order, each with its
  parent pair and symbol (so words are rebuilt, never stored), the state map, and the
  :class:`~bilinear.constructions.proof.verdicts.Unproved` report when the search stops early;
* :class:`Clock` -- the time budget and the progress report of a long search.

>>> from bilinear.automata.families import from_spec
>>> search = PairSearch()
>>> search.add(0, 0, -1, -1), search.add(1, 1, 0, 1), search.add(1, 0, 1, 1), search.add(1, 1, 0, 0)
(0, 1, 2, None)
>>> search.word(2), search.state_map(2)
((1, 1), ((0,), (0, 1)))
"""

from __future__ import annotations

import sys
import time
from contextlib import contextmanager
from contextvars import ContextVar

import numpy as np

from bilinear.errors import WeightsError
from bilinear.progress import BudgetSpent
from bilinear.progress import deadline as _deadline

from ..exact.domains import EPS, Domain, direction_bucket
from .verdicts import Unproved

__all__ = ["HiddenStore", "PairSearch", "Clock", "OutOfTime", "building", "build_tick", "BudgetSpent", "deadline",
           "breadth_first"]

#: Progress is reported only for searches running longer than this (seconds) ...
PROGRESS_AFTER = 2.0
#: ... and then at most this often (seconds).
PROGRESS_EVERY = 2.0


class OutOfTime(Exception):
    """Raised by :meth:`Clock.tick` when the time budget has run out."""


class Clock:
    """Time budget (seconds, or None) and progress (None, True for lines on stderr, or a
    callable ``progress(pairs, directions, seconds)``) of one proof.  The clock is read every
    ``every`` ticks, so a tick costs almost nothing."""

    def __init__(self, time_budget: float | None = None, progress=None, every: int = 16):
        if time_budget is not None and (
            isinstance(time_budget, bool) or not isinstance(time_budget, (int, float)) or not time_budget > 0
        ):
            raise WeightsError(f"time_budget must be a positive number of seconds, got {time_budget!r}")
        if not (progress is None or progress is True or progress is False or callable(progress)):
            raise WeightsError(f"progress must be None, True or a callable, got {progress!r}")
        self.budget = time_budget
        self.start = time.monotonic()
        self.deadline = None if time_budget is None else self.start + time_budget
        self.report = _print_progress if progress is True else (progress or None)
        self.every = every
        self.reported = False
        self._count = 0
        self._last = self.start

    def elapsed(self) -> float:
        return time.monotonic() - self.start

    def tick(self, pairs: int, directions: int) -> None:
        """Count one step; every ``every`` steps check the budget and maybe report progress."""
        self._count += 1
        if self._count % self.every:
            return
        self.check(pairs, directions)

    def check(self, pairs: int, directions: int) -> None:
        """Check the budget and maybe report progress now (between two long steps, such as the
        margins of a chunk of pairs over 40,320 classes)."""
        now = time.monotonic()
        if self.deadline is not None and now > self.deadline:
            raise OutOfTime(now - self.start)
        if self.report is not None and now - self.start >= PROGRESS_AFTER and now - self._last >= PROGRESS_EVERY:
            self._last = now
            self.reported = True
            self.report(pairs, directions, now - self.start)

    def finish(self, pairs: int, directions: int) -> None:
        """A last report when progress was shown at all."""
        if self.reported and self.report is not None:
            self.report(pairs, directions, self.elapsed())

    def tick_build(self, done: int, total: int, unit: str = "states") -> None:
        """One step (a state, or a matrix: ``unit``) of a construction built: check the budget;
        with ``progress=True`` a line on stderr every few seconds once building has run two
        seconds."""
        now = time.monotonic()
        if self.deadline is not None and now > self.deadline:
            raise OutOfTime(now - self.start, done, total, unit)
        if self.report is _print_progress and now - self.start >= PROGRESS_AFTER and now - self._last >= PROGRESS_EVERY:
            self._last = now
            spent = now - self.start
            left = spent * (total - done) / max(done, 1)
            print(f"build: {done} of {total} {unit}, {spent:.1f} s (about {left:.0f} s left; "
                  f"--time-budget stops it)", file=sys.stderr)


def deadline(seconds: float | None):
    """Stop the work inside the block after ``seconds`` (None: never) by raising
    :class:`BudgetSpent` from a SIGALRM timer: the whole-command budget of ``certify`` and
    ``analyze`` (``--time-budget``), whose stages (snap, proof, horizon, search, extraction) do
    not all take a :class:`Clock`.  :func:`bilinear.progress.deadline` with WeightsError for a
    bad budget or a thread that is not the main one.

    >>> with deadline(None):
    ...     pass
    >>> import time
    >>> try:
    ...     with deadline(0.05):
    ...         time.sleep(5)
    ... except BudgetSpent as spent:
    ...     print(round(spent.args[0], 2))
    0.05
    """
    return _deadline(seconds, WeightsError)


_BUILD_CLOCK: ContextVar[Clock | None] = ContextVar("build_clock", default=None)


@contextmanager
def building(clock: Clock):
    """Constructions built inside this block tick ``clock`` (budget and progress) per state."""
    token = _BUILD_CLOCK.set(clock)
    try:
        yield clock
    finally:
        _BUILD_CLOCK.reset(token)


def build_tick(done: int, total: int, unit: str = "states") -> None:
    """Called by builders once per state (or per matrix, naming the ``unit``); a no-op outside
    :func:`building`."""
    clock = _BUILD_CLOCK.get()
    if clock is not None:
        clock.tick_build(done, total, unit)


def _print_progress(pairs: int, directions: int, seconds: float) -> None:
    print(f"prove: {pairs} (state, direction) pairs, {directions} directions, {seconds:.1f} s", file=sys.stderr)


class _Scores:
    """``store.scores[i]``: the float scores of direction i with their error bound, computed on
    each access (:meth:`HiddenStore._scores_of`)."""

    def __init__(self, store: "HiddenStore"):
        self._store = store

    def __len__(self) -> int:
        return len(self._store.vectors)

    def __getitem__(self, idx: int) -> tuple[np.ndarray, np.ndarray]:
        if not -len(self) <= idx < len(self):
            raise IndexError(idx)
        return self._store._scores_of(idx % len(self))


class HiddenStore:
    """The hidden directions of a search (see the module docstring).

    ``readout`` is the float readout matrix (classes, hidden), within ``readout_rad`` (entrywise,
    if given) of the exact one; ``scores[i]`` is the pair
    ``(mid, err)`` with ``|readout @ vectors[i] - mid| <= err`` entrywise, computed when asked from
    the direction's float enclosure (d numbers kept per direction, not 2 x classes: ``symmetric:8``
    has 40,320 classes, and its 38,000 directions' scores held about 25 GB).
    """

    def __init__(self, domain: Domain, readout: np.ndarray, n_symbols: int, readout_rad: np.ndarray | None = None):
        self.domain = domain
        self.vectors: list[tuple] = []
        self.scores = _Scores(self)
        self._successor: list[list[int | None]] = []
        self._index: dict = {}
        self._floats: list[tuple[np.ndarray, np.ndarray | None]] = []  # per direction, its float enclosure (mid, rad)
        self._readout = readout
        self._readout_abs = np.abs(readout)
        self._readout_rad = readout_rad  # |true readout - readout| entrywise, when not negligible
        self._n_symbols = n_symbols

    def __len__(self) -> int:
        return len(self.vectors)

    def _lookup(self, h):
        """``(id or None, key, mid, rad)``: the stored direction of ``h``, its key, and its float
        enclosure when the lookup computed one."""
        domain = self.domain
        if domain.exact_keys:
            key = domain.key(h)
            return self._index.get(key), key, None, None
        mid, rad = domain.floats(h)
        key = direction_bucket(mid)
        for idx in self._index.get(key, ()):
            if domain.parallel(self.vectors[idx], h, (self._floats[idx], (mid, rad))):
                return idx, key, mid, rad
        return None, key, mid, rad

    def find(self, h) -> int | None:
        """The id of a stored direction of which ``h`` is a positive multiple, else None (nothing added)."""
        return self._lookup(h)[0]

    def add(self, h) -> int:
        """The id of the direction of ``h``: a stored one when ``h`` is a positive multiple of it."""
        domain = self.domain
        found, key, mid, rad = self._lookup(h)
        if found is not None:
            return found
        idx = len(self.vectors)
        if domain.exact_keys:
            self._index[key] = idx
        else:
            self._index.setdefault(key, []).append(idx)
        h = tuple(h)
        self.vectors.append(h)
        if mid is None:
            mid, rad = domain.floats(h)
        self._successor.append([None] * self._n_symbols)
        self._floats.append((mid, rad))
        return idx

    def _scores_of(self, idx: int) -> tuple[np.ndarray, np.ndarray]:
        """``(mid, err)`` of direction ``idx``: ``|readout @ vectors[idx] - mid| <= err`` entrywise."""
        mid, rad = self._floats[idx]
        R, R_abs = self._readout, self._readout_abs
        err = R_abs @ rad + (R_abs @ np.abs(mid)) * (len(mid) + 2) * EPS + 1e-300
        if self._readout_rad is not None:
            err = err + self._readout_rad @ (np.abs(mid) + rad)
        return R @ mid, err

    def step(self, idx: int, symbol: int, rows) -> int:
        """The id of the direction ``A[symbol] @ vectors[idx]`` (``rows``: sparse rows of A[symbol])."""
        nxt = self._successor[idx][symbol]
        if nxt is None:
            nxt = self.add(self.domain.matvec(rows, self.vectors[idx]))
            self._successor[idx][symbol] = nxt
        return nxt


class PairSearch:
    """Pairs ``(q, hidden id)`` in the order found, with parents and symbols (module docstring)."""

    def __init__(self, clock: Clock | None = None):
        self.q: list[int] = []
        self.hidden: list[int] = []
        self.parent: list[int] = []
        self.symbol: list[int] = []
        self._index: dict[tuple[int, int], int] = {}
        self._clock = clock
        self._directions = 0  # directions paired so far, for progress reports

    def __len__(self) -> int:
        return len(self.q)

    def add(self, q: int, hid: int, parent: int, symbol: int) -> int | None:
        """The index of the new pair, or None when it was seen before."""
        key = (q, hid)
        if self._clock is not None:  # every step, new pair or not: thousands of symbols per pair
            self._directions = max(self._directions, hid + 1)
            self._clock.tick(len(self.q) + (key not in self._index), self._directions)
        if key in self._index:
            return None
        idx = len(self.q)
        self._index[key] = idx
        self.q.append(q)
        self.hidden.append(hid)
        self.parent.append(parent)
        self.symbol.append(symbol)
        return idx

    def truncate(self, n: int) -> None:
        """Forget every pair after the first ``n``."""
        for key in zip(self.q[n:], self.hidden[n:]):
            del self._index[key]
        for lst in (self.q, self.hidden, self.parent, self.symbol):
            del lst[n:]

    def word(self, idx: int) -> tuple[int, ...]:
        """The (shortest) word reaching pair ``idx``, rebuilt from the parents."""
        out = []
        while self.parent[idx] >= 0:
            out.append(self.symbol[idx])
            idx = self.parent[idx]
        return tuple(reversed(out))

    def state_map(self, n_states: int) -> tuple[tuple[int, ...], ...]:
        """For each automaton state, the sorted ids of the directions paired with it."""
        out: list[set[int]] = [set() for _ in range(n_states)]
        for q, hid in zip(self.q, self.hidden):
            out[q].add(hid)
        return tuple(tuple(sorted(x)) for x in out)

    def finish(self) -> None:
        """Tell the clock the search ended (a last progress line when any was shown)."""
        if self._clock is not None:
            self._clock.finish(len(self), self._directions)

    def conflict(self) -> tuple[int, int, int] | None:
        """``(q, i, j)``: the first two pairs ``i < j`` of one state with different directions."""
        first_seen: dict[int, int] = {}
        for idx, q in enumerate(self.q):
            if q in first_seen and self.hidden[first_seen[q]] != self.hidden[idx]:
                return q, first_seen[q], idx
            first_seen.setdefault(q, idx)
        return None

    def unproved(self, automaton, dim: int, bound: int, seconds: float | None = None) -> Unproved:
        """The report of a search stopped by the bound (``seconds`` None) or by the time budget."""
        found = self.conflict()
        q: int | None = None
        words: tuple[tuple[int, ...], ...] = ()
        if found is not None:
            q, i, j = found
            words = (self.word(i), self.word(j))
        if seconds is None:
            if found is None:  # pragma: no cover - more pairs than states forces a conflict
                raise AssertionError("unreachable: more pairs than states implies two directions for a state")
            reason = (
                f"more than {bound} x {automaton.n_states} reachable (state, direction) pairs: "
                f"the automaton sends both words to state {q}, the weights to different directions"
            )
        else:
            reason = (
                f"time budget ran out after {seconds:.2f} s with {len(self)} (state, direction) pairs "
                f"explored and the closure not reached; this is neither a proof nor a refutation"
            )
        return Unproved(
            dim=dim,
            words=words,
            texts=tuple(automaton.format_word(w) for w in words),
            state=q,
            bound=bound,
            states_explored=len(self),
            reason=reason,
            cause="bound" if seconds is None else "time",
        )


def breadth_first(start, successors, limit: int) -> list | None:
    """Everything reachable from ``start`` through ``successors(x)`` (an iterable of hashable
    values), breadth first, in the order found (``start`` first); None as soon as more than
    ``limit`` values are found.  The closures of exact matrix products and of (state, vector)
    pairs (:mod:`.horizon_orbit`) and of permutation groups (:mod:`.cascade`).

    >>> breadth_first(0, lambda x: [(x + 1) % 4, (x + 2) % 4], 10)
    [0, 1, 2, 3]
    >>> breadth_first(0, lambda x: [x + 1], 5) is None, breadth_first(0, lambda x: [x], 0) is None
    (True, True)
    >>> breadth_first(0, lambda x: [x], 1)   # the start alone: within a limit of one
    [0]
    """
    if limit < 1:  # the start alone is more than that
        return None
    found, seen, i = [start], {start}, 0
    while i < len(found):
        for y in successors(found[i]):
            if y not in seen:
                seen.add(y)
                found.append(y)
                if len(found) > limit:
                    return None
        i += 1
    return found

"""Minimisation, isomorphism and distinguishing words of labelled automata.

Labels are multi-class, so "equivalent" means: every word leads both automata to states with
the same label *index*.

* :func:`minimize` keeps the reachable states and merges states that no word tells apart
  (partition refinement from the partition by label: a few rounds of Moore's, then Hopcroft's
  O(symbols x n log n) algorithm, so one long cycle is not quadratic).  The result is numbered
  breadth-first from the start state (symbols in order), so two equivalent automata minimise to
  *equal* automata: the minimal automaton is unique up to isomorphism (Myhill–Nerode), and the
  breadth-first numbering picks one representative of the isomorphism class.
* :func:`isomorphism` finds a label-respecting bijection of states that maps start to start and
  commutes with every symbol, by breadth-first matching from the start states (linear time when
  every state is reachable).
* :func:`distinguishing_word` explores pairs of states breadth-first and returns the shortlex
  least word on which the labels differ.
* :func:`access_words` is the one breadth-first search of the reachable states: their order and
  a shortlex-least word reaching each (used by minimisation, the certificates, snapping and the
  analyses alike).

>>> from bilinear.automata import Automaton, from_spec
>>> redundant = Automaton([[1, 2, 3, 0]], labels=[0, 1, 0, 1])   # parity with 4 states
>>> small = minimize(redundant)
>>> small.n_states, small.delta.tolist()
(2, [[1, 0]])
>>> isomorphism(small, Automaton([[1, 0]]))
{0: 0, 1: 1}
>>> distinguishing_word(redundant, Automaton([[1, 2, 0]], labels=[0, 1, 0]))
(0, 0, 0)
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from bilinear.errors import AutomatonError

from .automaton import Automaton

__all__ = ["minimize", "isomorphism", "distinguishing_word", "reachable_states", "access_words", "AccessWords",
           "equivalent"]

#: Largest product of state counts :func:`distinguishing_word` explores directly; beyond it both
#: automata are minimised first.
PAIR_LIMIT = 50_000_000
#: Successors (parents x symbols) generated per chunk of a breadth-first level of :func:`access_words`
#: (bounds the transient memory of one level; a test shrinks it to cross chunk boundaries).
ACCESS_CHUNK_ENTRIES = 1 << 20
#: A level with fewer successors than this is walked by a Python loop (numpy calls cost more there).
ACCESS_NARROW_LEVEL = 256


def _check(a, b, what: str) -> None:
    for i, x in enumerate((a, b)):
        if not isinstance(x, Automaton):
            raise AutomatonError(f"{what}: argument {i} is not an Automaton ({type(x).__name__})")
    if a.n_symbols != b.n_symbols:
        raise AutomatonError(
            f"{what}: the automata have different symbol counts ({a.n_symbols} and {b.n_symbols})"
        )


@dataclass(frozen=True, eq=False)
class AccessWords:
    """The reachable states in breadth-first order (symbols in order) with a shortlex-least word
    reaching each, as parent pointers: ``word(states[i]) = word(states[parent[i]]) + (via[i],)``.

    ``states``, ``parent`` and ``via`` are read-only ``(reachable,)`` int64 arrays (``parent`` and
    ``via`` are -1 for the start); :attr:`words` and :meth:`word` spell the words out (their total
    length can be quadratic in the states: ``cyclic:10000`` reaches its last state after 9999
    symbols, so they are built only when asked for).
    """

    states: np.ndarray
    parent: np.ndarray
    via: np.ndarray

    def __len__(self) -> int:
        return int(self.states.shape[0])

    @cached_property
    def words(self) -> tuple[tuple[int, ...], ...]:
        """The word of each state, in the order of :attr:`states`."""
        words: list[tuple[int, ...]] = [()]
        parent, via = self.parent.tolist(), self.via.tolist()
        for i in range(1, len(parent)):  # parents precede children
            words.append(words[parent[i]] + (via[i],))
        return tuple(words)

    def each_word(self):
        """The words of :attr:`words`, one at a time, each rebuilt from the parent pointers and
        none kept: a search that stops early (the certificate searches) then costs the words it
        reads, not the quadratic total (a 50,000-state cycle: 5.6 GB, then a MemoryError).

        >>> from bilinear.automata import Automaton
        >>> list(access_words(Automaton([[1, 2, 0]])).each_word())
        [(), (0,), (0, 0)]
        """
        if "words" in self.__dict__:  # already spelt out
            yield from self.words
            return
        parent, via = self.parent.tolist(), self.via.tolist()
        for i in range(len(parent)):
            word = []
            while i > 0:
                word.append(via[i])
                i = parent[i]
            yield tuple(reversed(word))

    @cached_property
    def position(self) -> dict[int, int]:
        """State id -> its index in :attr:`states` (reachable states only)."""
        return {q: i for i, q in enumerate(self.states.tolist())}

    def word(self, state: int) -> tuple[int, ...]:
        """The shortlex-least word reaching ``state`` (AutomatonError when it is unreachable)."""
        i = self.position.get(int(state))
        if i is None:
            raise AutomatonError(f"state {state} is not reachable from the start state")
        return self.words[i]


def access_words(automaton: Automaton) -> AccessWords:
    """Breadth-first search from the start state (symbols in order): the reachable states and a
    shortlex-least word for each.  Vectorised level by level in chunks of parents
    (``cyclic:10000`` has 10^8 transitions; a Python loop over them took minutes).

    >>> from bilinear.automata import Automaton
    >>> reach = access_words(Automaton([[2, 0, 2, 3], [1, 3, 1, 3]], start=0))
    >>> reach.states.tolist(), reach.words
    ([0, 2, 1, 3], ((), (0,), (1,), (1, 1)))
    >>> reach.word(3)
    (1, 1)
    """
    if not isinstance(automaton, Automaton):
        raise AutomatonError(f"access_words needs an Automaton, got {type(automaton).__name__}")
    delta, k = automaton.delta, automaton.n_symbols
    start = int(automaton.start)
    position = np.full(automaton.n_states, -1, dtype=np.int64)
    position[start] = 0
    order = [np.array([start], dtype=np.int64)]
    parent = [np.array([-1], dtype=np.int64)]
    via = [np.array([-1], dtype=np.int64)]
    size, level_start, frontier = 1, 0, order[0]
    chunk = max(1, ACCESS_CHUNK_ENTRIES // k)
    columns = delta.T  # (states, symbols): the successors of one state
    while frontier.size:
        level_size, level_parts = size, len(order)
        if frontier.size * k < ACCESS_NARROW_LEVEL:  # a narrow level (a long cycle): numpy calls cost more than a loop
            found: list[int] = []
            up: list[int] = []
            sym: list[int] = []
            for i, q in enumerate(frontier.tolist()):
                for a, r in enumerate(columns[q].tolist()):
                    if position[r] < 0:
                        position[r] = size + len(found)
                        found.append(r)
                        up.append(level_start + i)
                        sym.append(a)
            if found:
                order.append(np.array(found, dtype=np.int64))
                parent.append(np.array(up, dtype=np.int64))
                via.append(np.array(sym, dtype=np.int64))
                size += len(found)
            frontier = order[-1] if found else frontier[:0]
            level_start = level_size
            continue
        for lo in range(0, frontier.size, chunk):
            cand = delta[:, frontier[lo : lo + chunk]].T.reshape(-1)  # parent-major, symbol-minor
            _, first = np.unique(cand, return_index=True)
            first = np.sort(first)
            first = first[position[cand[first]] < 0]
            position[cand[first]] = np.arange(size, size + first.size)
            order.append(cand[first].astype(np.int64))
            parent.append(level_start + lo + first // k)
            via.append(first % k)
            size += first.size
        # only this level's parts: concatenating every level again was quadratic on a long cycle
        frontier = np.concatenate(order[level_parts:]) if size > level_size else frontier[:0]
        level_start = level_size

    def final(parts) -> np.ndarray:
        out = np.concatenate(parts).astype(np.int64)
        out.setflags(write=False)
        return out

    return AccessWords(final(order), final(parent), final(via))


def reachable_states(automaton: Automaton) -> np.ndarray:
    """The states reachable from the start, in breadth-first order (symbols in order):
    ``access_words(automaton).states``.

    >>> from bilinear.automata import Automaton
    >>> reachable_states(Automaton([[2, 0, 2], [0, 1, 0]], start=0)).tolist()
    [0, 2]
    """
    return access_words(automaton).states


#: Rounds of Moore's (vectorised) refinement before Hopcroft's algorithm takes over: Moore needs
#: as many rounds as the longest shortest distinguishing word, n on one long cycle (quadratic:
#: 215 s for 10,000 states), Hopcroft O(symbols x n log n) whatever the shape.
MOORE_ROUNDS = 8


def _moore_blocks(delta: np.ndarray, labels: np.ndarray, rounds: int | None = None) -> tuple[np.ndarray, bool]:
    """Moore's refinement from the partition by label: ``(block index of each state, converged)``
    after at most ``rounds`` rounds (None: until it converges)."""
    block = np.unique(labels, return_inverse=True)[1].reshape(-1).astype(np.int64)
    count = int(block.max()) + 1
    done = 0
    while rounds is None or done < rounds:
        new = block  # the signature (block, block after each symbol), one symbol at a time as one int64
        for a in range(delta.shape[0]):  # new < states and block < states: no overflow below 3·10^9 states
            new = np.unique(new * count + block[delta[a]], return_inverse=True)[1].reshape(-1).astype(np.int64)
        new_count = int(new.max()) + 1
        if new_count == count:
            return new, True
        block, count = new, new_count
        done += 1
    return block, False


def _hopcroft_blocks(delta: np.ndarray, block: np.ndarray) -> np.ndarray:
    """Hopcroft's refinement of the partition ``block`` (states,) to the coarsest congruence
    (``O(symbols x states x log states)``): each split keeps the smaller half as the splitter."""
    k, n = delta.shape
    inverse = []  # per symbol: predecessors of q are order[ptr[q]:ptr[q + 1]]
    for a in range(k):
        order = np.argsort(delta[a], kind="stable")
        ptr = np.concatenate([[0], np.cumsum(np.bincount(delta[a], minlength=n))])
        inverse.append((order.tolist(), ptr.tolist()))
    block_of = block.tolist()
    blocks: list[set] = [set() for _ in range(int(block.max()) + 1)]
    for q, b in enumerate(block_of):
        blocks[b].add(q)
    largest = max(range(len(blocks)), key=lambda b: len(blocks[b]))
    waiting = {(b, a) for b in range(len(blocks)) if b != largest for a in range(k)}
    stack = sorted(waiting)
    while stack:
        b, a = stack.pop()
        waiting.discard((b, a))
        order, ptr = inverse[a]
        touched: dict[int, list] = {}
        for q in list(blocks[b]):
            for i in range(ptr[q], ptr[q + 1]):
                p = order[i]
                touched.setdefault(block_of[p], []).append(p)
        for c, members in touched.items():
            if len(members) == len(blocks[c]):
                continue
            new = len(blocks)
            split = set(members)
            blocks[c] -= split
            blocks.append(split)
            for p in members:
                block_of[p] = new
            for a2 in range(k):
                pick = new if (c, a2) in waiting or len(split) <= len(blocks[c]) else c
                if (pick, a2) not in waiting:
                    waiting.add((pick, a2))
                    stack.append((pick, a2))
    return np.asarray(block_of, dtype=np.int64)


def _blocks(delta: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """Coarsest label-respecting congruence: a few vectorised Moore rounds (enough for most
    automata), then Hopcroft's algorithm from that partition."""
    block, converged = _moore_blocks(delta, labels, MOORE_ROUNDS)
    return block if converged else _hopcroft_blocks(delta, block)


def minimize(automaton: Automaton) -> Automaton:
    """The minimal automaton: reachable part, then partition refinement by label (Moore's
    rounds, then Hopcroft's algorithm when they have not converged).

    Keeps the symbols, classes and name; states are numbered breadth-first from the start, so
    ``minimize(a) == minimize(b)`` exactly when ``a`` and ``b`` are equivalent (same symbols and
    classes).  Idempotent: ``minimize(minimize(a)) == minimize(a)``.

    >>> from bilinear.automata import from_spec
    >>> a = from_spec("cyclic:2*cyclic:3")          # 6 states, each its own class
    >>> minimize(a).n_states
    6
    """
    if not isinstance(automaton, Automaton):
        raise AutomatonError(f"minimize needs an Automaton, got {type(automaton).__name__}")
    reach = reachable_states(automaton)  # (reachable,) old state ids
    position = np.full(automaton.n_states, -1, dtype=np.int64)
    position[reach] = np.arange(reach.size)
    delta = position[automaton.delta[:, reach]]  # (symbols, reachable) in reachable numbering
    labels = automaton.labels[reach]
    block = _blocks(delta, labels)  # (reachable,)
    n_blocks = int(block.max()) + 1
    # one representative per block (the first in breadth-first order) and its block transitions
    rep = np.full(n_blocks, -1, dtype=np.int64)
    rep[block[::-1]] = np.arange(reach.size)[::-1]
    block_delta = block[delta[:, rep]]  # (symbols, blocks)
    # breadth-first renumbering of the blocks from the start block
    quotient = Automaton(block_delta, start=int(block[0]), labels=labels[rep])
    order = reachable_states(quotient)
    new_index = np.empty(n_blocks, dtype=np.int64)
    new_index[order] = np.arange(n_blocks)
    new_delta = new_index[block_delta[:, order]]
    return Automaton(
        new_delta,
        start=0,
        labels=labels[rep[order]],
        symbols=automaton.symbols,
        classes=automaton.classes,
        name=automaton.name,
    )


def _propagate(a: Automaton, b: Automaton, fwd, bwd, p: int, q: int):
    """Extend the partial map with ``p -> q`` and everything it forces; None on a conflict.

    Returns the list of newly mapped states of ``a`` (to undo), or None after undoing itself.
    """
    trail: list[int] = []
    stack = [(p, q)]
    da, db, la, lb = a.delta, b.delta, a.labels, b.labels
    ok = True
    while stack:
        x, y = stack.pop()
        if fwd[x] >= 0 or bwd[y] >= 0:
            if fwd[x] != y or bwd[y] != x:
                ok = False
                break
            continue
        if la[x] != lb[y]:
            ok = False
            break
        fwd[x], bwd[y] = y, x
        trail.append(x)
        for s in range(a.n_symbols):
            stack.append((int(da[s, x]), int(db[s, y])))
    if not ok:
        for x in trail:
            bwd[fwd[x]] = -1
            fwd[x] = -1
        return None
    return trail


def isomorphism(a: Automaton, b: Automaton) -> dict[int, int] | None:
    """A label-respecting isomorphism ``a -> b`` as ``{state of a: state of b}``, or None.

    An isomorphism maps the start to the start, commutes with every symbol (symbols matched by
    index) and keeps each label index.  States reachable from the start are matched breadth-first
    in linear time; any unreachable remainder is matched by backtracking over its seeds.
    The symbol counts must agree (:class:`~bilinear.errors.AutomatonError` otherwise).

    >>> from bilinear.automata import Automaton
    >>> a = Automaton([[1, 2, 0]], labels=[0, 1, 1])
    >>> b = Automaton([[2, 0, 1]], start=1, labels=[1, 0, 1])
    >>> isomorphism(a, b)
    {0: 1, 1: 0, 2: 2}
    >>> isomorphism(a, Automaton([[1, 2, 0]], labels=[0, 1, 0])) is None
    True
    """
    _check(a, b, "isomorphism")
    n = a.n_states
    if n != b.n_states:
        return None
    if not np.array_equal(np.sort(a.labels), np.sort(b.labels)):
        return None
    fwd = np.full(n, -1, dtype=np.int64)
    bwd = np.full(n, -1, dtype=np.int64)
    if _propagate(a, b, fwd, bwd, a.start, b.start) is None:
        return None
    # backtracking over the unreachable remainder: frames (seed, candidates, position, trail)
    frames: list[list] = []
    while True:
        unmatched = np.flatnonzero(fwd < 0)
        if not unmatched.size:
            return {int(x): int(fwd[x]) for x in range(n)}
        seed = int(unmatched[0])
        free = np.flatnonzero(bwd < 0)
        frames.append([seed, free[b.labels[free] == a.labels[seed]].tolist(), 0, None])
        while frames:
            frame = frames[-1]
            if frame[3] is not None:  # undo the previous choice of this frame
                for x in frame[3]:
                    bwd[fwd[x]] = -1
                    fwd[x] = -1
                frame[3] = None
            while frame[2] < len(frame[1]):
                candidate = frame[1][frame[2]]
                frame[2] += 1
                trail = _propagate(a, b, fwd, bwd, frame[0], int(candidate))
                if trail is not None:
                    frame[3] = trail
                    break
            if frame[3] is not None:
                break  # go on with the next seed
            frames.pop()  # exhausted: backtrack into the previous frame
        if not frames:
            return None


def distinguishing_word(a: Automaton, b: Automaton) -> tuple[int, ...] | None:
    """The shortlex least word whose labels (indices) differ in ``a`` and ``b``, or None.

    Breadth-first search over pairs of states from the two start states, vectorised over each
    frontier; None means the automata are equivalent (every word gets the same label index).
    Symbol counts must agree (:class:`~bilinear.errors.AutomatonError` otherwise).

    >>> from bilinear.automata import from_spec, Automaton
    >>> distinguishing_word(from_spec("parity"), Automaton([[0, 1], [1, 0]])) is None
    True
    >>> distinguishing_word(from_spec("parity"), Automaton([[0, 1], [1, 1]]))
    (1, 1)
    """
    _check(a, b, "distinguishing_word")
    if a.n_states * b.n_states > PAIR_LIMIT:
        a_min, b_min = minimize(a), minimize(b)
        if a_min.n_states * b_min.n_states > PAIR_LIMIT:
            raise AutomatonError(
                f"distinguishing_word: {a_min.n_states} x {b_min.n_states} minimal states exceed "
                f"the pair limit {PAIR_LIMIT}"
            )
        return distinguishing_word(a_min, b_min)
    nb = b.n_states
    k = a.n_symbols
    seen = np.zeros(a.n_states * nb, dtype=bool)  # pair code p * nb + q
    frontier = np.array([a.start * nb + b.start], dtype=np.int64)
    seen[frontier] = True
    # per level: (parent position in the previous level, symbol) of each pair, to rebuild words
    levels: list[tuple[np.ndarray, np.ndarray]] = []
    la, lb = a.labels, b.labels
    while frontier.size:
        pa, pb = frontier // nb, frontier % nb
        bad = np.flatnonzero(la[pa] != lb[pb])
        if bad.size:
            position = int(bad[0])
            word = []
            for parents, symbols in reversed(levels):
                word.append(int(symbols[position]))
                position = int(parents[position])
            return tuple(reversed(word))
        # children in shortlex order: parent-major, then symbol
        child = (a.delta[:, pa] * nb + b.delta[:, pb]).T.reshape(-1)  # (frontier * symbols,)
        fresh = np.flatnonzero(~seen[child])
        _, first = np.unique(child[fresh], return_index=True)
        chosen = fresh[np.sort(first)]  # positions in child of the new pairs, shortlex order
        frontier = child[chosen]
        seen[frontier] = True
        levels.append((chosen // k, chosen % k))
    return None


def equivalent(a: Automaton, b: Automaton) -> bool:
    """Whether every word gets the same label index in ``a`` and ``b``.

    >>> from bilinear.automata import from_spec
    >>> equivalent(from_spec("cyclic:4"), minimize(from_spec("cyclic:4")))
    True
    """
    return distinguishing_word(a, b) is None

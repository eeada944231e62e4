"""Exact proof that a stack of layers computes an automaton on every word (Theorem S1 of
docs/theory.md).

The closure of :func:`~bilinear.constructions.proof.prover.prove` lifted to tuples
``(q, [h_1], ..., [h_L])``: from a tuple, the symbol ``s`` moves layer 1 to ``[A_1[s] h_1]``,
takes its class ``c_1`` (the strict argmax of its readout, decided exactly), moves layer 2 to
``[A_2[s * C_1 + c_1] h_2]``, and so on; the automaton moves to ``q . s``.  Breadth-first, so the
first failure is a shortest failing word: a tie in an intermediate layer's class (``layer`` < L,
``got`` None), or a wrong or tied label in the last layer.  If the tuple set closes with every
class strict and every label right, the stack computes the automaton on every word of every length
(induction on the word, as for one layer: a tuple determines every later class).

Each layer keeps its own exact :class:`~bilinear.constructions.exact.domains.Domain` and
:class:`~bilinear.constructions.proof.search.HiddenStore`; tuples of direction ids are numbered and the
numbered tuples go through the same :class:`~bilinear.constructions.proof.search.PairSearch` (with its
state map, bound and time budget) as the one-layer prover.  A one-layer stack gets the same verdict
and the same word as :func:`~bilinear.constructions.proof.prover.prove` of its weights.

Examples
--------
>>> from bilinear.automata.families import from_spec
>>> from bilinear.constructions.values.weights import Weights
>>> from bilinear.constructions.values.stack import Stack
>>> parity = from_spec("parity")
>>> layer1 = Weights("diagonal", A=[[[1]], [[-1]]], h0=[1], readout=[[1], [-1]])
>>> layer2 = Weights("diagonal", A=[[[1]], [[1]], [[1]], [[1]]], h0=[1], readout=[[1], [-1]])
>>> prove_stack(Stack((layer1, layer2)), parity).status   # layer 2 ignores layer 1: wrong on "1"
'counterexample'
>>> copy = Weights("diagonal", A=[[[1]], [[1]], [[-1]], [[-1]]], h0=[1], readout=[[1], [-1]])
>>> p = prove_stack(Stack((layer1, copy)), parity)      # layer 2 flips on (1, any class of layer 1)
>>> p.status, p.states_explored, p.margin
('proved', 2, 2)
>>> tie = Weights("diagonal", A=[[[1]], [[0]]], h0=[1], readout=[[1], [-1]])  # "1" zeroes layer 1
>>> c = prove_stack(Stack((tie, copy)), parity)
>>> c.status, c.word, c.layer, c.got
('counterexample', (1,), 1, None)
"""

from __future__ import annotations

from collections import deque

import numpy as np

from bilinear.argtypes import check_positive_int
from bilinear.errors import WeightsError

from ..exact.domains import choose_domain, sparse_rows
from ..values.floatrun import check_compatible
from .prover import DEFAULT_BOUND, _Readout
from .search import Clock, HiddenStore, OutOfTime, PairSearch
from ..values.stack import Stack, as_stack
from .verdicts import Counterexample, Proof, to_scalar

__all__ = ["prove_stack", "prove_network"]


def prove_network(network, automaton, bound: int = DEFAULT_BOUND, **kwargs):
    """:func:`~bilinear.constructions.proof.prover.prove` for a :class:`Weights`, :func:`prove_stack`
    for a :class:`Stack`."""
    if isinstance(network, Stack):
        return prove_stack(network, automaton, bound, **kwargs)
    from .prover import prove

    return prove(network, automaton, bound, **kwargs)


class _Layer:
    """One layer's exact arithmetic, directions and classes."""

    def __init__(self, weights, automaton):
        if weights.factors is not None:  # the factors composed exactly (prover.prove does the same)
            weights = weights.exact_network()
        self.weights = weights
        self.domain = choose_domain(weights)
        self.readout = _Readout(weights, automaton, self.domain)
        self.store = HiddenStore(self.domain, self.readout.floats, weights.n_symbols, self.readout.floats_rad)
        self.A = [sparse_rows(weights.A[s], self.domain) for s in range(weights.n_symbols)]
        self.n_classes = weights.n_classes
        self._classes: dict[int, int | None] = {}

    def start(self) -> int:
        return self.store.add([self.domain.convert(x) for x in self.weights.h0])

    def step(self, hid: int, symbol: int) -> int:
        return self.store.step(hid, symbol, self.A[symbol])

    def class_of(self, hid: int) -> int | None:
        """The strict argmax of the readout on direction ``hid`` (None on a tie), decided exactly
        where the float screen cannot."""
        if hid in self._classes:
            return self._classes[hid]
        if self.n_classes == 1:
            self._classes[hid] = 0
            return 0
        mid, err = self.store.scores[hid]
        h = self.store.vectors[hid]
        sign = self.domain.sign

        def greater(a: int, b: int) -> int:  # sign of score[a] - score[b]
            if mid[a] - err[a] > mid[b] + err[b]:
                return 1
            if mid[a] + err[a] < mid[b] - err[b]:
                return -1
            return sign(self.readout.diff(h, a, b))

        order = [int(c) for c in np.argsort(-mid, kind="stable")]
        best = order[0]
        for c in order[1:]:
            if greater(best, c) < 0:
                best = c
        tied = any(c != best and greater(best, c) == 0 for c in range(self.n_classes))
        out = None if tied else best
        self._classes[hid] = out
        return out


def prove_stack(stack, automaton, bound: int = DEFAULT_BOUND, *, progress=None, time_budget=None):
    """Prove (or refute) that ``stack`` (a :class:`Stack`, or a :class:`Weights` read as one layer)
    labels every word as ``automaton`` does; see the module docstring.

    Returns :class:`~bilinear.constructions.proof.verdicts.Proof` (``dim`` the total hidden size,
    ``hidden_states`` the number of distinct direction tuples, ``margin`` the last layer's exact
    minimum margin), :class:`~bilinear.constructions.proof.verdicts.Counterexample` (a shortest failing
    word; ``layer`` says which layer failed) or :class:`~bilinear.constructions.proof.verdicts.Unproved`
    (more than ``bound * n_states`` tuples, or the time budget ran out).
    """
    stack = as_stack(stack)
    _check_inputs(stack, automaton, bound)
    clock = Clock(time_budget, progress)
    search = PairSearch(clock)
    try:
        result = _Closure(stack, automaton, bound, search).run()
    except OutOfTime as out:
        result = search.unproved(automaton, stack.dim, bound, seconds=out.args[0])
    search.finish()
    return result


def _check_inputs(stack: Stack, automaton, bound) -> None:
    check_compatible(stack, automaton)  # the one compatibility check (MismatchError)
    check_positive_int(bound, "bound", error=WeightsError)


class _Closure:
    def __init__(self, stack: Stack, automaton, bound: int, search: PairSearch):
        self.stack, self.automaton, self.bound, self.search = stack, automaton, bound, search
        self.layers = [_Layer(w, automaton) for w in stack.layers]
        self.tuples: list[tuple[int, ...]] = []
        self._tuple_index: dict[tuple[int, ...], int] = {}
        self.last_hid: list[int] = []  # per pair: the last layer's direction
        self.lo: list[float] = []
        self.hi: list[float] = []

    def tuple_id(self, hids: tuple[int, ...]) -> int:
        idx = self._tuple_index.get(hids)
        if idx is None:
            idx = len(self.tuples)
            self._tuple_index[hids] = idx
            self.tuples.append(hids)
        return idx

    def successor(self, hids: tuple[int, ...], s: int) -> tuple[tuple[int, ...], int | None]:
        """The directions after symbol ``s``, and the 0-based layer whose class tied (or None)."""
        out = []
        symbol = s
        last = len(self.layers) - 1
        for l, layer in enumerate(self.layers):
            nxt = layer.step(hids[l], symbol)
            out.append(nxt)
            if l < last:
                c = layer.class_of(nxt)
                if c is None:
                    return tuple(out), l
                symbol = s * layer.n_classes + c
        return tuple(out), None

    def screen(self, q: int, hid: int) -> int | None:
        last = self.layers[-1]
        readout = last.readout
        before = len(readout.lo)
        bad = readout.screen(last.store, q, hid)
        if bad is None:
            self.lo.append(readout.lo[before])
            self.hi.append(readout.hi[before])
        return bad

    def run(self):
        search, automaton = self.search, self.automaton
        delta = automaton.delta
        limit = self.bound * automaton.n_states
        q0 = int(automaton.start)
        h0 = tuple(layer.start() for layer in self.layers)
        first = search.add(q0, self.tuple_id(h0), -1, -1)
        self.last_hid.append(h0[-1])
        bad = self.screen(q0, h0[-1])
        if bad is not None:
            return self.wrong_label(first, h0[-1], bad)
        queue = deque([first])
        while queue:
            idx = queue.popleft()
            q, hids = search.q[idx], self.tuples[search.hidden[idx]]
            for s in range(automaton.n_symbols):
                nxt, tied = self.successor(hids, s)
                q2 = int(delta[s, q])
                if tied is not None:
                    return self.tie(idx, s, q2, tied, nxt[tied])
                new = search.add(q2, self.tuple_id(nxt), idx, s)
                if new is None:
                    continue
                self.last_hid.append(nxt[-1])
                bad = self.screen(q2, nxt[-1])
                if bad is not None:
                    return self.wrong_label(new, nxt[-1], bad)
                queue.append(new)
                if len(search) > limit:
                    return search.unproved(automaton, self.stack.dim, self.bound)
        return self.proof()

    def tie(self, parent: int, s: int, q: int, l: int, hid: int) -> Counterexample:
        word = self.search.word(parent) + (s,)
        store = self.layers[l].store
        return Counterexample(
            dim=self.stack.dim, word=word, text=self.automaton.format_word(word),
            expected=int(self.automaton.labels[q]), got=None,
            scores=tuple(float(x) for x in store.scores[hid][0]),
            states_explored=len(self.search), layer=l + 1,
        )

    def wrong_label(self, idx: int, hid: int, c: int) -> Counterexample:
        last = self.layers[-1]
        best = last.class_of(hid)
        word = self.search.word(idx)
        return Counterexample(
            dim=self.stack.dim, word=word, text=self.automaton.format_word(word),
            expected=int(self.automaton.labels[self.search.q[idx]]), got=best,
            scores=tuple(float(x) for x in last.store.scores[hid][0]),
            states_explored=len(self.search), layer=len(self.layers),
        )

    def minimum_margin(self):
        last = self.layers[-1]
        return last.readout.minimum_margin(self.search, last.store, lo=self.lo, hi=self.hi, hidden=self.last_hid)

    def proof(self) -> Proof:
        margin = self.minimum_margin()
        m = self.layers[-1].domain.m
        if margin is not None:
            margin = to_scalar(margin, m)
        return Proof(
            dim=self.stack.dim,
            states_explored=len(self.search),
            hidden_states=len(self.tuples),
            margin=margin,
            margin_float=None if margin is None else float(margin),
            state_map=self.search.state_map(self.automaton.n_states),
            conductor=m,
        )

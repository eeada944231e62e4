"""The field's benchmark tasks as automata (automata/families.py names them by spec)."""

from __future__ import annotations

import itertools
from typing import Callable

import numpy as np

from bilinear.errors import AutomatonError

from .automaton import Automaton
from .builders import MAX_GROUP_ORDER, _symmetric_generators, cycle_notation


# --------------------------------------------------------------------------------------------
# The field's benchmark tasks: the regular tasks of the Chomsky-hierarchy benchmark (Deletang et
# al., "Neural Networks and the Chomsky Hierarchy", ICLR 2023) and synthseq's automata (Liu et
# al., "Transformers Learn Shortcuts to Automata", ICLR 2023), each the automaton of the task as
# its authors define it (symbol i is the task's input token i; class c is its output class c).
# --------------------------------------------------------------------------------------------
def _explore(start, step: Callable, n_symbols: int, label: Callable, limit: int = MAX_GROUP_ORDER):
    """The automaton reachable from the semantic state ``start``: ``step(state, symbol)`` is the
    next semantic state and ``label(state)`` its class index; states numbered breadth-first.
    Returns ``(delta, labels)``."""
    index = {start: 0}
    order = [start]
    rows: list[list[int]] = []
    i = 0
    while i < len(order):
        state = order[i]
        row = []
        for a in range(n_symbols):
            nxt = step(state, a)
            if nxt not in index:
                if len(order) >= limit:  # pragma: no cover - every family's parameters bound this
                    raise AutomatonError(f"more than {limit} reachable states")
                index[nxt] = len(order)
                order.append(nxt)
            row.append(index[nxt])
        rows.append(row)
        i += 1
    delta = np.array(rows, dtype=np.int64).T  # (symbols, states)
    return delta, [label(q) for q in order]


def _even_pairs() -> Automaton:
    """Chomsky-hierarchy *even pairs*: whether the number of ``01`` and ``10`` pairs is even
    (class 0, ``even``) or odd (class 1, ``odd``); symbols ``0``, ``1``.  The count of unequal
    neighbours is even exactly when the first and the last symbol agree, so the states remember
    the first symbol and the last one (five states with the empty word).

    >>> from bilinear.automata.families import from_spec
    >>> a = from_spec("even_pairs")
    >>> a.classes[a.label("001110")], a.classes[a.label("0101001")], a.n_states
    ('even', 'odd', 5)
    """
    def step(q, a):
        return (a, a) if q == () else (q[0], a)

    delta, labels = _explore((), step, 2, lambda q: 0 if q == () or q[0] == q[1] else 1)
    return Automaton(delta, labels=labels, symbols=("0", "1"), classes=("even", "odd"), name="even_pairs")


def _cycle_navigation(N: int) -> Automaton:
    """Chomsky-hierarchy *cycle navigation*: the position on a circle of ``N`` points (5 in the
    benchmark) after a walk from position 0; token 0 steps left (-1), token 1 stays, token 2
    steps right (+1); the class is the final position.

    >>> from bilinear.automata.families import from_spec
    >>> a = from_spec("cycle_navigation:5")
    >>> a.symbols
    ('-1', '0', '+1')
    >>> a.classes[a.label(["+1", "-1", "0", "-1", "-1"])], a.classes[a.label("+1 +1 +1 -1".split())]
    ('3', '2')
    """
    x = np.arange(N)
    delta = np.stack([(x - 1) % N, x, (x + 1) % N])
    return Automaton(delta, symbols=("-1", "0", "+1"), name=f"cycle_navigation:{N}")


#: The operators of the Chomsky-hierarchy modular arithmetic, in the order of their tokens
#: (token ``M + i`` is operator ``i``).
_MOD_OPERATORS = ("+", "-", "*")


def _modular_arithmetic(M: int) -> Automaton:
    """Chomsky-hierarchy *modular arithmetic without brackets*: an expression ``n op n op ... n``
    over the numbers ``0..M-1`` (tokens ``0..M-1``) and the operators ``+ - *`` (tokens ``M``,
    ``M+1``, ``M+2``), evaluated mod ``M`` with ``*`` before ``+`` and ``-``; the class is the
    value.  A prefix that ends in an operator has the value of the expression before it; a word
    that puts a number where an operator belongs, or the reverse, is class ``error`` for good
    (the benchmark samples only well-formed expressions, of odd length).

    >>> from bilinear.automata.families import from_spec
    >>> a = from_spec("modular_arithmetic:5")
    >>> [a.classes[a.label(e.split())] for e in ("1 + 2 * 3", "1 - 1 - 1", "0 * 1 + 4 * 3 - 2")]
    ['2', '4', '0']
    >>> a.classes[a.label("1 + 2 *".split())], a.classes[a.label("1 2".split())]
    ('3', 'error')
    """
    # semantic states: ("start",); ("num", S, P): sum of the finished terms and the signed
    # current term; ("op", S, P, o) after operator o; ("error",)
    error = ("error",)

    def step(q, a):
        number = a < M
        if q == error:
            return error
        if q[0] == "start":
            return ("num", 0, a) if number else error
        if q[0] == "num":
            return error if number else ("op", q[1], q[2], _MOD_OPERATORS[a - M])
        if not number:
            return error
        _, S, P, o = q
        if o == "*":
            return ("num", S, (P * a) % M)
        return ("num", (S + P) % M, a if o == "+" else (-a) % M)

    def label(q):
        if q == error:
            return M
        return 0 if q[0] == "start" else (q[1] + q[2]) % M

    delta, labels = _explore(("start",), step, M + len(_MOD_OPERATORS), label)
    symbols = [str(n) for n in range(M)] + list(_MOD_OPERATORS)
    classes = [str(n) for n in range(M)] + ["error"]
    from .minimize import minimize  # minimize imports this module's Automaton only

    raw = Automaton(delta, labels=labels, symbols=symbols, classes=classes, name=f"modular_arithmetic:{M}")
    return minimize(raw)


def _gridworld(N: int) -> Automaton:
    """synthseq's *gridworld*: ``N`` cells ``0..N-1`` in a row (9 in synthseq), start at cell 0;
    token 0 moves left and token 1 right, both stopping at the walls; the class is the cell.

    >>> from bilinear.automata.families import from_spec
    >>> a = from_spec("gridworld:9")
    >>> a.symbols, a.classes[a.label("0 0 1 1 1 0".split())], a.classes[a.label(["1"] * 20)]
    (('0', '1'), '2', '8')
    """
    x = np.arange(N)
    delta = np.stack([np.maximum(x - 1, 0), np.minimum(x + 1, N - 1)])
    return Automaton(delta, symbols=("0", "1"), name=f"gridworld:{N}")


def _permutation_reset(N: int) -> Automaton:
    """synthseq's *permutation reset*: the state is a permutation of ``0..N-1`` (states and
    classes in ``itertools.permutations`` order, the identity first and the start); token ``i <
    N!`` resets the state to permutation ``i``, and the two generator tokens after them apply
    the transposition ``(0 1)`` or the cycle ``(0 1 ... N-1)`` to the state (the new state maps
    ``x`` to ``g(state(x))``).  Classes are the permutations in array form.

    >>> from bilinear.automata.families import from_spec
    >>> a = from_spec("permutation_reset:3")
    >>> a.n_states, a.symbols[-2:], a.classes[a.label(["[1 2 0]", "(0 1)"])]
    (6, ('(0 1)', '(0 1 2)'), '[0 2 1]')
    """
    perms = list(itertools.permutations(range(N)))
    index = {p: i for i, p in enumerate(perms)}
    gens = _symmetric_generators(N)
    rows = [np.full(len(perms), i) for i in range(len(perms))]
    rows += [np.array([index[tuple(g[x] for x in p)] for p in perms]) for g in gens]
    names = ["[" + " ".join(map(str, p)) + "]" for p in perms]
    return Automaton(
        np.stack(rows), symbols=names + [cycle_notation(g) for g in gens], classes=names,
        name=f"permutation_reset:{N}",
    )

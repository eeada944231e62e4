"""The field's benchmark tasks as families: each automaton's labels against the task's own
definition (written here from the benchmark's text, word by word), and each proved under ``full``."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from bilinear.automata import from_spec
from bilinear.automata.families import check_spec
from bilinear.constructions.settle import settle

RNG = np.random.default_rng(7)


def _words(n_symbols: int, count: int = 300, max_len: int = 12):
    for _ in range(count):
        yield [int(x) for x in RNG.integers(0, n_symbols, size=int(RNG.integers(1, max_len + 1)))]


def test_even_pairs_counts_unequal_neighbours() -> None:
    a = from_spec("even_pairs")
    for w in _words(2):
        pairs = sum(x != y for x, y in zip(w, w[1:]))
        assert a.label(w) == pairs % 2, w


@pytest.mark.parametrize("n", [1, 2, 5, 7])
def test_cycle_navigation_sums_the_steps(n: int) -> None:
    a = from_spec(f"cycle_navigation:{n}")
    for w in _words(3):
        assert a.label(w) == sum(x - 1 for x in w) % n, w


def _evaluate(tokens: list[str], m: int) -> int:
    """The value of a well-formed expression mod m, '*' first (an independent evaluator)."""
    terms, sign, product = [], 1, int(tokens[0])
    for op, number in zip(tokens[1::2], tokens[2::2]):
        if op == "*":
            product *= int(number)
        else:
            terms.append(sign * product)
            sign, product = (1 if op == "+" else -1), int(number)
    terms.append(sign * product)
    return sum(terms) % m


@pytest.mark.parametrize("m", [2, 3, 5])
def test_modular_arithmetic_evaluates_with_precedence(m: int) -> None:
    a = from_spec(f"modular_arithmetic:{m}")
    for _ in range(300):
        k = int(RNG.integers(1, 7))
        numbers = [str(int(x)) for x in RNG.integers(0, m, size=k)]
        ops = [str(RNG.choice(["+", "-", "*"])) for _ in range(k - 1)]
        tokens = [numbers[0]] + [t for pair in zip(ops, numbers[1:]) for t in pair]
        assert a.classes[a.label(tokens)] == str(_evaluate(tokens, m)), tokens
        # a trailing operator keeps the value before it; a doubled number is an error for good
        assert a.classes[a.label(tokens + ["+"])] == str(_evaluate(tokens, m))
        assert a.classes[a.label(tokens + [numbers[0]] + tokens)] == "error"
    assert a.classes[a.label([])] == "0"


@pytest.mark.parametrize("n", [1, 2, 9])
def test_gridworld_walks_between_walls(n: int) -> None:
    a = from_spec(f"gridworld:{n}")
    for w in _words(2, max_len=20):
        cell = 0
        for x in w:
            cell = min(max(cell + (1 if x else -1), 0), n - 1)
        assert a.label(w) == cell, w


@pytest.mark.parametrize("n", [2, 3, 4])
def test_permutation_reset_resets_and_permutes(n: int) -> None:
    a = from_spec(f"permutation_reset:{n}")
    perms = list(itertools.permutations(range(n)))
    gens = [(1, 0) + tuple(range(2, n)), tuple(range(1, n)) + (0,)][: 1 if n == 2 else 2]
    assert a.n_symbols == len(perms) + len(gens)
    for w in _words(a.n_symbols):
        state = tuple(range(n))
        for x in w:
            state = perms[x] if x < len(perms) else tuple(gens[x - len(perms)][i] for i in state)
        assert a.label(w) == perms.index(state), w


@pytest.mark.parametrize(
    "spec",
    ["even_pairs", "cycle_navigation:3", "modular_arithmetic:1", "modular_arithmetic:2",
     "modular_arithmetic:4", "modular_arithmetic:12", "gridworld:4", "permutation_reset:2", "permutation_reset:4"],
)
def test_check_spec_tells_the_built_shape(spec: str) -> None:
    a = from_spec(spec)
    assert check_spec(spec) == (a.n_states, a.n_symbols)
    assert from_spec(a.name) == a


@pytest.mark.parametrize(
    "spec", ["parity", "even_pairs", "cycle_navigation:5", "modular_arithmetic:5", "gridworld:9", "permutation_reset:3"]
)
def test_full_settles_every_field_task(spec: str) -> None:
    cell = settle(spec, "full")
    assert cell.status == "proved", cell.text()

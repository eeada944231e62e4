"""Hypothesis strategies for automata, words and family specs — for your own test suites.

Every strategy shrinks towards small, simple examples (few states, few symbols, short words,
small parameters), so a failing property is reported on a minimal automaton.

* :func:`automata` — small random labelled automata (general, or permutation-only);
* :func:`permutation_automata` — automata whose every symbol permutes the states (group
  automata: their transformation monoid is a group);
* :func:`words` — words (lists of symbol indices) for a given automaton;
* :func:`long_words` — words of one fixed length (500 by default): powers of short blocks
  (shrinking towards ``0^length``) or seeded uniform words;
* :func:`automata_and_words` — an automaton together with words for it;
* :func:`family_specs` — valid spec strings of the registered families with small parameters
  (optionally direct products), for :func:`bilinear.automata.from_spec`.

To assert that a model tracks an automaton on long words, pair these with
:func:`bilinear.constructions.horizon.testing.assert_tracks` (it runs the float check, so it lives in the
constructions room).

Example, a property stated as a test (minimisation preserves every label)::

    from hypothesis import given
    from bilinear.automata import minimize
    from bilinear.automata.strategies import automata_and_words

    @given(automata_and_words())
    def test_minimize_keeps_labels(pair):
        a, ws = pair
        m = minimize(a)
        assert all(a.label(w) == m.label(w) for w in ws)

>>> from hypothesis import given, settings
>>> @settings(max_examples=5, database=None)
... @given(automata(max_states=4, permutation=True))
... def check(a):
...     assert sorted(a.delta[0].tolist()) == list(range(a.n_states))
>>> check()
"""

from __future__ import annotations

from hypothesis import strategies as st

from bilinear.argtypes import check_positive_int
from bilinear.errors import AutomatonError

from .automaton import Automaton
from .families import FAMILIES

__all__ = [
    "automata", "permutation_automata", "words", "long_words", "automata_and_words", "family_specs",
    "FAMILY_STRATEGIES",
]


def _bounds(name: str, low: int, high: int) -> None:
    if not isinstance(high, int) or not isinstance(low, int) or low < 1 or high < low:
        raise AutomatonError(f"{name}: need 1 <= minimum <= maximum, got {low}..{high}")


@st.composite
def automata(
    draw,
    max_states: int = 6,
    max_symbols: int = 3,
    permutation: bool = False,
    min_states: int = 1,
    min_symbols: int = 1,
    max_classes: int | None = None,
    random_start: bool = True,
) -> Automaton:
    """Random automata with ``min_states..max_states`` states and ``min_symbols..max_symbols`` symbols.

    Labels are drawn from ``0..max_classes-1`` (default: up to one class per state); the start
    state is random (``random_start=False``: state 0).  With ``permutation=True`` every row of
    the table is a permutation of the states.

    Bad bounds raise :class:`~bilinear.errors.AutomatonError` when the strategy is drawn from.
    """
    _bounds("automata: states", min_states, max_states)
    _bounds("automata: symbols", min_symbols, max_symbols)
    n = draw(st.integers(min_states, max_states))
    k = draw(st.integers(min_symbols, max_symbols))
    if permutation:
        rows = [draw(st.permutations(list(range(n)))) for _ in range(k)]
    else:
        rows = [draw(st.lists(st.integers(0, n - 1), min_size=n, max_size=n)) for _ in range(k)]
    classes = max(1, min(n, max_classes) if max_classes else n)
    labels = draw(st.lists(st.integers(0, classes - 1), min_size=n, max_size=n))
    start = draw(st.integers(0, n - 1)) if random_start else 0
    kind = "perm" if permutation else "any"
    return Automaton(rows, start=start, labels=labels, name=f"hypothesis:{kind}:{n}x{k}")


def permutation_automata(max_states: int = 6, max_symbols: int = 3, **kwargs) -> st.SearchStrategy[Automaton]:
    """Automata whose every symbol is a permutation of the states (see :func:`automata`)."""
    return automata(max_states=max_states, max_symbols=max_symbols, permutation=True, **kwargs)


def words(automaton: Automaton, min_size: int = 0, max_size: int = 20) -> st.SearchStrategy[list[int]]:
    """Words for ``automaton``: lists of symbol indices, lengths ``min_size..max_size``.

    >>> from hypothesis import given, settings
    >>> from bilinear.automata import from_spec
    >>> d3 = from_spec("dihedral:3")
    >>> @settings(max_examples=10, database=None)
    ... @given(words(d3, max_size=4))
    ... def check(w):
    ...     assert len(w) <= 4 and set(w) <= {0, 1}
    >>> check()
    """
    if not isinstance(automaton, Automaton):
        raise AutomatonError(f"words: expected an Automaton, got {type(automaton).__name__}")
    if min_size < 0 or max_size < min_size:
        raise AutomatonError(f"words: need 0 <= min_size <= max_size, got {min_size}..{max_size}")
    return st.lists(st.integers(0, automaton.n_symbols - 1), min_size=min_size, max_size=max_size)


def long_words(automaton: Automaton, length: int = 500) -> st.SearchStrategy[list[int]]:
    """Words of exactly ``length`` symbols for ``automaton``: a block of 1..3 symbols repeated
    (``a^length``, ``(a b)^n``: the words on which drifting networks fail) or a uniform random
    word from a drawn seed.  Shrinks towards ``0^length``.

    >>> from hypothesis import given, settings
    >>> from bilinear.automata import from_spec
    >>> @settings(max_examples=10, database=None)
    ... @given(long_words(from_spec("cyclic:3"), length=300))
    ... def check(w):
    ...     assert len(w) == 300 and set(w) <= {0, 1, 2}
    >>> check()
    """
    if not isinstance(automaton, Automaton):
        raise AutomatonError(f"long_words: expected an Automaton, got {type(automaton).__name__}")
    length = check_positive_int(length, "long_words: length", error=AutomatonError)
    k = automaton.n_symbols

    def cycled(u):
        return (list(u) * (length // len(u) + 1))[:length]

    def seeded(seed):
        import numpy as np

        return np.random.default_rng(seed).integers(0, k, size=length).tolist()

    blocks = st.lists(st.integers(0, k - 1), min_size=1, max_size=3).map(cycled)
    return st.one_of(blocks, st.integers(0, 2**32 - 1).map(seeded))


@st.composite
def automata_and_words(
    draw,
    max_states: int = 6,
    max_symbols: int = 3,
    permutation: bool = False,
    n_words: int = 10,
    max_size: int = 20,
) -> tuple[Automaton, list[list[int]]]:
    """An automaton (as :func:`automata`) and up to ``n_words`` words for it."""
    a = draw(automata(max_states=max_states, max_symbols=max_symbols, permutation=permutation))
    ws = draw(st.lists(words(a, max_size=max_size), min_size=1, max_size=n_words))
    return a, ws


#: One strategy of small valid specs per registered family (keys = ``FAMILIES`` names).
FAMILY_STRATEGIES: dict[str, st.SearchStrategy[str]] = {
    "parity": st.just("parity"),
    "cyclic": st.integers(1, 8).map(lambda m: f"cyclic:{m}"),
    "dihedral": st.integers(1, 6).map(lambda n: f"dihedral:{n}"),
    "symmetric": st.tuples(st.integers(2, 4), st.booleans()).map(
        lambda t: f"symmetric:{t[0]}" + (",alphabet=all" if t[1] and t[0] <= 3 else "")
    ),
    "alternating": st.tuples(st.integers(3, 4), st.booleans()).map(
        lambda t: f"alternating:{t[0]}" + (",alphabet=all" if t[1] else "")
    ),
    "quaternion": st.just("quaternion"),
    "random": st.tuples(st.integers(1, 6), st.integers(1, 3), st.integers(0, 10_000), st.integers(0, 1)).map(
        lambda t: f"random:states={t[0]},symbols={t[1]},seed={t[2]}" + (",perm=1" if t[3] else "")
    ),
    "modarith": st.integers(1, 6).map(lambda m: f"modarith:{m}"),
    "flipflop": st.integers(1, 4).map(lambda n: f"flipflop:{n}"),
    "reset": st.integers(1, 4).map(lambda n: f"reset:{n}"),
    "even_pairs": st.just("even_pairs"),
    "cycle_navigation": st.integers(1, 8).map(lambda n: f"cycle_navigation:{n}"),
    "modular_arithmetic": st.integers(1, 4).map(lambda m: f"modular_arithmetic:{m}"),
    "gridworld": st.integers(1, 9).map(lambda n: f"gridworld:{n}"),
    "permutation_reset": st.integers(2, 3).map(lambda n: f"permutation_reset:{n}"),
}


def family_specs(families=None, products: bool = False, max_factors: int = 2) -> st.SearchStrategy[str]:
    """Valid spec strings with small random parameters.

    ``families`` restricts the family names (default: every registered family); with
    ``products=True`` some specs are direct products ``A*B`` of up to ``max_factors`` factors.
    Unknown family names raise :class:`~bilinear.errors.AutomatonError`.

    >>> from hypothesis import given, settings
    >>> from bilinear.automata import from_spec
    >>> @settings(max_examples=10, database=None)
    ... @given(family_specs(families=["cyclic", "dihedral"]))
    ... def check(spec):
    ...     assert from_spec(spec).n_states <= 12
    >>> check()
    """
    names = sorted(FAMILIES) if families is None else list(families)
    missing = [n for n in names if n not in FAMILY_STRATEGIES]
    if missing:
        raise AutomatonError(f"family_specs: no strategy for family {missing[0]!r}")
    if not names:
        raise AutomatonError("family_specs: no families given")
    single = st.sampled_from(names).flatmap(lambda n: FAMILY_STRATEGIES[n])
    if not products:
        return single
    if max_factors < 2:
        raise AutomatonError(f"family_specs: max_factors must be >= 2, got {max_factors}")
    # products of small factors only, so that the product stays small
    large = ("symmetric", "alternating", "modular_arithmetic", "permutation_reset")
    small = st.sampled_from([n for n in names if n not in large] or names).flatmap(
        lambda n: FAMILY_STRATEGIES[n]
    )
    product = st.lists(small, min_size=2, max_size=max_factors).map("*".join)
    return st.one_of(single, product)

"""Hypothesis strategies for automata, words and family specs — for your own test suites.

Which words to draw:

* to test a **model** (trained, hand-built, your own): :func:`failing_words`.  A network that
  is right on every short word fails, when it fails, on a word that reaches a state and then
  repeats a short loop many times (a rotation a little off drifts under ``a^n``; a contraction
  forgets a ``1`` under ``0^n``); uniform random words almost never contain such a run, and a
  word generated from a seed cannot shrink.  These strategies draw *small integers that index
  structure* (:mod:`~bilinear.automata.loops`: access words of the states, loops), so
  Hypothesis's shrinker, which deletes list items and makes integers smaller, moves towards
  fewer segments, shorter access words and loops and smaller exponents, and the reported
  example is near the shortest failure:

  - :func:`structured_words` — one to ``max_segments`` segments, each
    ``random . prefix . loop^n . tail`` (a short random run, an access word of a state, a loop
    — a symbol, a pair, a cycle or an idempotent of the monoid — ``n`` up to the length bound,
    a few symbols); cut to ``max_length``;
  - :func:`directed` — the directed words of the float check (``assert_tracks``): ``a^n``,
    ``a b^(n-1)``, ``(a b)^n``, ``(a b c)^n``, any length up to ``max_length``;
  - :func:`long_words` — structured words of exactly ``length`` symbols;
  - :func:`failing_words` — :func:`directed` or :func:`structured_words`, one per example.

  Point them at a model with ``tracks`` or ``assert_tracks_word`` of
  :mod:`bilinear.constructions.horizon.testing` (they run models, so they live in the
  constructions room); both check every prefix and name the first failing one.
* to test **code** on every small case (minimisation, a parser, a construction on short
  words): :func:`words` — uniform ``st.lists`` of symbols, mostly short (median about 6
  symbols at ``max_size=200`` over 100 examples);
* automata and specs: :func:`automata` (small random labelled automata),
  :func:`permutation_automata` (group automata), :func:`automata_and_words`,
  :func:`family_specs` (valid spec strings with small parameters, optionally products).

Every structured value is a :class:`Word`: a list of symbol indices whose ``repr`` (what
Hypothesis prints for a falsifying example) is the word run-length compressed and the indices
it was drawn from::

    Word('1 0^17', length=18, drawn=[directed #3 '1' . '0'^17])

Exponents and lengths are drawn about uniformly over their range and, in half the draws, from
its upper half (list sizes in Hypothesis are biased small), so over 100 examples they reach the
length bound.  :func:`prefix_labels`
(:mod:`~bilinear.automata.labels`) labels every prefix of such a word at a fraction of a
microsecond a symbol.

>>> from hypothesis import given, settings
>>> from bilinear.automata import from_spec
>>> lengths = []
>>> @settings(max_examples=100, database=None, derandomize=True)
... @given(failing_words(from_spec("parity"), max_length=2000))
... def record(word):
...     lengths.append(len(word))
>>> record()
>>> max(lengths) > 1000, sorted(lengths)[50] > 100
(True, True)

Example, a property of code stated as a test (minimisation preserves every label)::

    from hypothesis import given
    from bilinear.automata import minimize
    from bilinear.automata.strategies import automata_and_words

    @given(automata_and_words())
    def test_minimize_keeps_labels(pair):
        a, ws = pair
        m = minimize(a)
        assert all(a.label(w) == m.label(w) for w in ws)

>>> @settings(max_examples=5, database=None)
... @given(automata(max_states=4, permutation=True))
... def check(a):
...     assert sorted(a.delta[0].tolist()) == list(range(a.n_states))
>>> check()
"""

from __future__ import annotations

import numbers

from hypothesis import strategies as st

from bilinear.errors import AutomatonError

from .automaton import Automaton
from .families import FAMILIES
from .labels import prefix_labels, prefix_states
from .loops import Catalogue, catalogue, directed_loops
from .words import compress

__all__ = [
    "automata", "permutation_automata", "words", "automata_and_words", "family_specs", "FAMILY_STRATEGIES",
    "structured_words", "directed", "long_words", "failing_words", "Word", "MAX_WORD_LENGTH",
    "prefix_labels", "prefix_states", "catalogue", "Catalogue", "directed_loops",
]

#: Longest word a strategy may be asked for (``max_length`` / ``length``); docs/limits.md.
MAX_WORD_LENGTH = 1_000_000


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
    """Uniform random words for ``automaton``: ``st.lists`` of symbol indices, lengths
    ``min_size..max_size``.  Hypothesis draws short lists far more often than long ones (median
    about 6 symbols at ``max_size=200`` over 100 examples, longest about 25): right for testing
    code on every small case, wrong for a model whose failure needs a long run of one loop
    (:func:`failing_words` draws those).

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


# -- words that find a model's failures ------------------------------------------------------------

Parts = tuple[tuple[tuple[int, ...], int], ...]


class Word(list):
    """A drawn word: a list of symbol indices that keeps how it was built.

    ``parts``: ``((block, repeats), ...)`` whose concatenation is the word (the labels of
    :func:`~bilinear.automata.labels.prefix_labels` use it); ``drawn``: the indices
    it was drawn from, as text; ``symbols``: the automaton's symbol names (for :attr:`text`).
    """

    def __init__(self, parts: Parts, drawn: str, symbols: tuple[str, ...]):
        super().__init__(a for block, repeats in parts for _ in range(repeats) for a in block)
        self.parts = parts
        self.drawn = drawn
        self.symbols = symbols

    @property
    def text(self) -> str:
        """The word run-length compressed (:func:`bilinear.automata.words.compress`)."""
        return compress(self, self.symbols)

    def __repr__(self) -> str:
        return f"Word({self.text!r}, length={len(self)}, drawn=[{self.drawn}])"

    def _repr_pretty_(self, printer, cycle) -> None:  # Hypothesis and IPython print this
        printer.text(repr(self))


def _check(automaton, what: str, length, name: str) -> None:
    if not isinstance(automaton, Automaton):
        raise AutomatonError(f"{what}: expected an Automaton, got {type(automaton).__name__}")
    if isinstance(length, bool) or not isinstance(length, numbers.Integral) or not 1 <= int(length) <= MAX_WORD_LENGTH:
        raise AutomatonError(f"{what}: {name} must be an integer in 1..{MAX_WORD_LENGTH:,} "
                             f"(bilinear.automata.strategies.MAX_WORD_LENGTH), got {length!r}")


def _trim(parts: list, limit: int) -> Parts:
    """``parts`` cut to at most ``limit`` symbols (a part cut inside a block keeps its whole
    copies and then the block's first symbols)."""
    out, room = [], limit
    for block, repeats in parts:
        if room <= 0 or not block or repeats <= 0:
            continue
        size = len(block) * repeats
        if size <= room:
            out.append((block, repeats))
            room -= size
            continue
        whole, rest = divmod(room, len(block))
        if whole:
            out.append((block, whole))
        if rest:
            out.append((block[:rest], 1))
        room = 0
    return tuple(out)


def _name(symbols, word) -> str:
    return compress(word, symbols) if word else "ε"


def _long(draw, high: int) -> int:
    """An integer in ``1..high``, from the upper half ``high/2..high`` in about half the draws
    (``one_of`` of the two ranges).  The shrinker moves a value of the upper range to the same
    value in the full range and then lowers it, so every value stays reachable: a flag that
    lifted a value to the upper half would leave it stuck at ``high/2``."""
    return draw(st.one_of(st.integers(1, high), st.integers(max(1, high // 2), high)))


def _loop_groups(cat: Catalogue) -> list[list[int]]:
    """The catalogue's loop indices grouped: single symbols, pairs, longer monoid words (so
    that a symbol is drawn about as often as all pairs together)."""
    groups: dict[int, list[int]] = {}
    for i, loop in enumerate(cat.loops):
        groups.setdefault(min(len(loop), 3), []).append(i)
    return [groups[size] for size in sorted(groups)]


@st.composite
def _segment(draw, automaton: Automaton, max_length: int, max_tail: int, random_size: int):
    """``random . prefix . loop^n . tail``: the random run (up to ``random_size`` symbols, one
    segment in four) and the tail shrink to nothing, the indices and ``n`` towards 0 and 1."""
    cat, k, s = catalogue(automaton), automaton.n_symbols, automaton.symbols
    p = draw(st.integers(0, len(cat.prefixes) - 1))
    # the length of loop^n before the loop: the shrinker lowers the length first, so a loop that
    # fails sooner is not traded for an earlier-listed one that fails later
    size = _long(draw, max_length)
    groups = _loop_groups(cat)  # symbols, pairs, monoid words: one group first, then a loop in it
    group = groups[draw(st.integers(0, len(groups) - 1))]
    i = group[draw(st.integers(0, len(group) - 1))]
    loop = cat.loops[i]
    n = max(1, size // len(loop))
    tail = tuple(draw(st.lists(st.integers(0, k - 1), max_size=max_tail)))
    lead: tuple[int, ...] = ()
    if random_size and draw(st.integers(0, 3)) == 3:  # one segment in four starts with a random run
        lead = tuple(draw(st.lists(st.integers(0, k - 1), min_size=1, max_size=random_size)))
    prefix = cat.prefixes[p]
    text = f"random {_name(s, lead)!r} . " if lead else ""
    text += f"access #{p} {_name(s, prefix)!r} . loop #{i} ({cat.kinds[i]}) {_name(s, loop)!r}^{n}"
    if tail:
        text += f" . tail {_name(s, tail)!r}"
    return [(lead, 1), (prefix, 1), (loop, n), (tail, 1)], text


def _segments(automaton: Automaton, max_length: int, max_segments: int, max_tail: int, random_size: int):
    return st.lists(_segment(automaton, max_length, max_tail, random_size), min_size=1, max_size=max_segments)


def _join(segments) -> tuple[list, str]:
    parts = [part for seg, _ in segments for part in seg]
    return parts, " | ".join(text for _, text in segments)


def structured_words(automaton: Automaton, max_length: int = 2000, max_segments: int = 3, max_tail: int = 3,
                     random_size: int = 12) -> st.SearchStrategy[Word]:
    """Words ``segment segment ...`` (1..``max_segments``), each ``random . prefix . loop^n . tail``,
    cut to ``max_length`` symbols.

    ``prefix`` is an access word of a reachable state, ``loop`` a symbol, a pair, or a cycle or
    idempotent of the transformation monoid (:func:`~bilinear.automata.loops.catalogue`),
    ``n = size // len(loop)`` for a drawn ``size`` in ``1..max_length``, ``tail`` up to ``max_tail`` symbols and, in one
    segment in four, ``random``: 1 to ``random_size`` uniform symbols (0: never).  The loop is
    drawn in two steps, its kind (symbol, pair, longer monoid word) and then one of that kind.  Shrinks towards one segment, the empty
    prefix, the first loops (single symbols), ``n = 1``, no tail and no random run.  AutomatonError for a bad automaton or bound.

    >>> from hypothesis import find, settings
    >>> from bilinear.automata import from_spec
    >>> # the simplest word with a run of 40 ones and then a 0, found by shrinking
    >>> find(structured_words(from_spec("parity")), lambda w: "1" * 40 + "0" in "".join(map(str, w)),
    ...      settings=settings(database=None, derandomize=True, max_examples=500))
    Word('1^40 0', length=41, drawn=[access #0 'ε' . loop #1 (symbol) '1'^40 . tail '0'])
    """
    _check(automaton, "structured_words", max_length, "max_length")
    for name, value, low in (("max_segments", max_segments, 1), ("max_tail", max_tail, 0),
                             ("random_size", random_size, 0)):
        if isinstance(value, bool) or not isinstance(value, numbers.Integral) or not low <= value <= 64:
            raise AutomatonError(f"structured_words: {name} must be an integer in {low}..64, got {value!r}")

    def build(segments) -> Word:
        parts, text = _join(segments)
        return Word(_trim(parts, max_length), text, automaton.symbols)

    return _segments(automaton, max_length, max_segments, max_tail, random_size).map(build)


def directed(automaton: Automaton, max_length: int = 2000) -> st.SearchStrategy[Word]:
    """The directed words of the float check (``assert_tracks``) at any length up to
    ``max_length``: ``a^n``, ``a b^(n-1)``, then repeated primitive loops of 2..3 symbols
    (:func:`~bilinear.automata.loops.directed_loops`, the check's own list and
    order).  Shrinks towards the first words (single-symbol powers) and shorter lengths.

    The float check also repeats the witnesses of a variant's impossibility certificate; those
    depend on the model's variant, so they are not drawn here.
    """
    _check(automaton, "directed", max_length, "max_length")
    rows = directed_loops(automaton)
    s = automaton.symbols

    def build(drawn) -> Word:
        i, n = drawn
        head, loop = rows[i]
        whole, rest = divmod(max(0, n - len(head)), len(loop))
        parts = _trim([(head, 1), (loop, whole), (loop[:rest], 1)], n)
        text = f"directed #{i} {_name(s, head)!r}" + (f" . {_name(s, loop)!r}^{whole}" if whole else "") + (
            f" . {_name(s, loop[:rest])!r}" if rest else "")
        return Word(parts, text, s)

    @st.composite
    def draw_word(draw) -> Word:
        n = _long(draw, max_length)  # the length first: the shrinker lowers it before the row
        return build((draw(st.integers(0, len(rows) - 1)), n))

    return draw_word()


def long_words(automaton: Automaton, length: int = 500) -> st.SearchStrategy[Word]:
    """Words of exactly ``length`` symbols: a :func:`structured_words` word (at most ``length``
    symbols) whose last part is repeated to fill the length, so that every example is long.
    Shrinks as :func:`structured_words` does (the length stays).

    >>> from hypothesis import given, settings
    >>> from bilinear.automata import from_spec
    >>> @settings(max_examples=10, database=None)
    ... @given(long_words(from_spec("cyclic:3"), length=300))
    ... def check(w):
    ...     assert len(w) == 300 and set(w) <= {0, 1, 2}
    >>> check()
    """
    _check(automaton, "long_words", length, "length")

    def build(segments) -> Word:
        parts, text = _join(segments)
        parts = list(_trim(parts, length))
        block = parts[-1][0]
        missing = length - sum(len(b) * r for b, r in parts)
        if missing:
            whole, rest = divmod(missing, len(block))
            parts += [(block, whole), (block[:rest], 1)]
            text += f" | filled with {_name(automaton.symbols, block)!r}^{whole}"
        return Word(_trim(parts, length), text, automaton.symbols)

    return _segments(automaton, length, 3, 3, 12).map(build)


def failing_words(automaton: Automaton, max_length: int = 2000) -> st.SearchStrategy[Word]:
    """The strategy to point at a model: :func:`directed` or :func:`structured_words` (one of
    the two per example), words up to ``max_length`` symbols.  Shrinks towards the directed
    words, then as each does.  Check a model on *every prefix* of the word (the helpers in
    :mod:`bilinear.constructions.horizon.testing` do), so that the first failing prefix is what
    is reported, whatever comes after it."""
    _check(automaton, "failing_words", max_length, "max_length")
    return st.one_of(directed(automaton, max_length), structured_words(automaton, max_length))

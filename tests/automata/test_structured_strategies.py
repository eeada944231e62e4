"""The structured word strategies find a model's long failure within 100 examples and shrink it
near the shortest failing word.

The models are numpy functions of the whole word (fast), and their shortest failing words are
computed here independently of the strategies:

* ``rotation``: cyclic:3, symbol s rotates by s (2 pi / 3 + 1e-3).  The phase error of a word is
  1e-3 times the sum of its symbols, at most 2e-3 per symbol, and a prediction is wrong once it
  passes pi / 3; so no word is wrong before the all-2 word is, and the shortest failure is the
  first n at which ``2^n`` is wrong (computed below by running the model on ``2^n``).
* ``fading``: flipflop:2 whose stored 1 fades by 0.999 per read; wrong only after a ``w1`` and
  ``k`` reads with ``0.999^k <= 1/2``: the shortest failure is ``w1 r^k`` for the least such k.
"""

from __future__ import annotations

import functools
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, given, settings

from bilinear.automata import from_spec
from bilinear.automata.strategies import Word, directed, failing_words, long_words, prefix_labels, structured_words
from bilinear.errors import AutomatonError

C3 = from_spec("cyclic:3")
FLIPFLOP = from_spec("flipflop:2")
DELTA = 1e-3


def rotation(ids: np.ndarray) -> np.ndarray:
    """(batch, time) -> logits (batch, time, 3)."""
    angle = np.cumsum((2 * math.pi / 3 + DELTA) * ids, axis=1)
    return np.cos(angle[..., None] - np.arange(3) * 2 * math.pi / 3)


def fading(ids: np.ndarray) -> np.ndarray:
    """flipflop:2 (w0, w1, r): the last write, faded by 0.999 per read since; class 1 needs the
    memory above 1/2 (scores: class 0 = 1/2 - m, class 1 = m - 1/2)."""
    t = np.arange(ids.shape[1])
    written = np.where(ids < 2, t, -1)
    last = np.maximum.accumulate(written, axis=1)
    sign = np.where(last >= 0, np.where(np.take_along_axis(ids, np.maximum(last, 0), 1) == 1, 1.0, -1.0), -1.0)
    m = sign * 0.999 ** np.where(last >= 0, t - last, t + 1)
    return np.stack([0.5 - m, m - 0.5], axis=-1)


def first_wrong(model, automaton, word) -> int | None:
    """Length of the first prefix of ``word`` the model gets wrong (None: none)."""
    ids = np.asarray(list(word), dtype=np.int64)[None]
    rows, q, states = automaton.delta.tolist(), automaton.start, []
    for a in ids[0].tolist():  # the plain run, not prefix_labels
        q = rows[a][q]
        states.append(q)
    expected = automaton.labels[np.array(states, dtype=np.int64)]
    logits = model(ids)[0]
    wrong = np.flatnonzero(logits.argmax(1) != expected)
    return int(wrong[0]) + 1 if wrong.size else None


@functools.cache
def shortest_rotation() -> int:
    n = next(n for n in range(1, 5000) if first_wrong(rotation, C3, [2] * n) is not None)
    assert first_wrong(rotation, C3, [2] * n) == n
    return n


@functools.cache
def shortest_fading() -> int:
    k = next(k for k in range(1, 5000) if 0.999 ** k <= 0.5)
    assert first_wrong(fading, FLIPFLOP, [1] + [2] * k) == k + 1 and first_wrong(fading, FLIPFLOP, [1] + [2] * (k - 1)) is None
    return k + 1


def hunt(strategy, model, automaton) -> tuple[int | None, int | None]:
    """(examples until the first failure, length of the first failing prefix of the reported
    example) of a property over ``strategy`` with 100 examples, derandomised."""
    calls, first, last = [0], [None], [None]

    @settings(max_examples=100, derandomize=True, database=None, deadline=None,
              phases=[Phase.generate, Phase.shrink], suppress_health_check=list(HealthCheck))
    @given(strategy)
    def prop(word):
        calls[0] += 1
        if first_wrong(model, automaton, word) is not None:
            first[0] = first[0] or calls[0]
            last[0] = word
            raise AssertionError(word)

    with pytest.raises(AssertionError):
        prop()
    return first[0], first_wrong(model, automaton, last[0])


def test_the_models_fail_only_on_long_words():
    assert shortest_rotation() == 524 and shortest_fading() == 694


CASES = {
    "structured_words/rotation": (structured_words(C3), rotation, C3, shortest_rotation),
    "structured_words/fading": (structured_words(FLIPFLOP), fading, FLIPFLOP, shortest_fading),
    "directed/rotation": (directed(C3), rotation, C3, shortest_rotation),
    "long_words/rotation": (long_words(C3, length=1000), rotation, C3, shortest_rotation),
    "failing_words/rotation": (failing_words(C3), rotation, C3, shortest_rotation),
    "failing_words/fading": (failing_words(FLIPFLOP), fading, FLIPFLOP, shortest_fading),
}


@pytest.mark.parametrize("name", CASES)
def test_strategy_finds_a_long_failure_and_shrinks_it(name):
    strategy, model, automaton, shortest = CASES[name]
    examples, reported = hunt(strategy, model, automaton)
    assert examples is not None and examples <= 100
    assert shortest() >= 200 and shortest() <= reported <= 1.5 * shortest()


def test_plain_short_words_miss_the_long_failure():
    from bilinear.automata.strategies import words

    calls = [0]

    @settings(max_examples=100, derandomize=True, database=None)
    @given(words(C3, max_size=200))
    def prop(word):
        calls[0] += 1
        assert first_wrong(rotation, C3, word) is None

    prop()
    assert calls[0] == 100


@settings(max_examples=30, deadline=None)
@given(failing_words(FLIPFLOP, max_length=300))
def test_a_word_is_its_parts_and_prints_them(word):
    assert isinstance(word, Word) and len(word) <= 300
    assert list(word) == [a for block, n in word.parts for _ in range(n) for a in block]
    text = repr(word)
    assert text.startswith(f"Word({word.text!r}, length={len(word)}, drawn=[") and ("directed #" in text or "access #" in text)
    assert (prefix_labels(FLIPFLOP, word) == FLIPFLOP.labels[FLIPFLOP.trace(list(word))[1:]]).all()


def test_the_exponents_reach_the_length_bound():
    lengths = []

    @settings(max_examples=100, derandomize=True, database=None)
    @given(structured_words(C3, max_length=3000))
    def record(word):
        lengths.append(len(word))

    record()
    assert max(lengths) == 3000 and sorted(lengths)[50] >= 100


@pytest.mark.parametrize("make", [
    lambda: structured_words(C3, max_length=0), lambda: directed(C3, max_length=10**7),
    lambda: failing_words("cyclic:3"), lambda: long_words(C3, length=True),
    lambda: structured_words(C3, max_segments=0), lambda: structured_words(C3, random_size=-1),
])
def test_bad_arguments_are_refused(make):
    with pytest.raises(AutomatonError):
        make()

"""Assertions for your own test suites: does a model track an automaton on long words?

* :func:`assert_tracks` asserts that a model predicts an automaton's label after every prefix of
  the directed words and random long words of the float check, naming the shortest failing word
  run-length compressed (``w1 r^239``).

The Hypothesis strategies that draw automata and words are in :mod:`bilinear.automata.strategies`.
"""

from __future__ import annotations

from bilinear.automata.automaton import Automaton

from .floatcheck import check

__all__ = ["assert_tracks"]


def assert_tracks(model, automaton: Automaton, length: int = 500, words: int = 200, seed: int = 0,
                  **check_options) -> None:
    """AssertionError unless ``model`` predicts ``automaton``'s label after every prefix of the
    directed words and ``words`` random words of ``length`` symbols (the float check,
    :func:`~bilinear.constructions.horizon.floatcheck.check`).  ``model``: a Weights value, a torch module
    ``module(words) -> logits`` or anything :func:`bilinear.constructions.values.tracker.as_tracker` takes.
    The message names the shortest failing word, run-length compressed, and what the
    automaton says there.

    >>> from bilinear.automata import from_spec
    >>> from bilinear.constructions.handmade.registry import build
    >>> assert_tracks(build("cyclic:5", "rotation2d"), from_spec("cyclic:5"), length=100, words=10)
    """
    result = check(model, automaton, length=length, words=words, seed=seed, **check_options)
    if result.passed:
        return
    word = result.first_failure
    assert word is not None  # a failed check names its first failing word
    expected = automaton.classes[automaton.label(word)]
    raise AssertionError(
        f"{getattr(model, 'name', type(model).__name__)} does not track {automaton.name or 'the automaton'}: "
        f"on {result.first_failure_text} (length {len(word)}) the automaton says {expected}; "
        f"accuracy {result.accuracy:.4f} over {result.directed} directed + {result.n_words} random "
        f"words of length {result.length}"
    )

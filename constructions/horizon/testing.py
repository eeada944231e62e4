"""Assertions for your own test suites: does a model track an automaton on long words?

* :func:`assert_tracks` asserts that a model predicts an automaton's label after every prefix of
  the directed words and random long words of the float check, naming the shortest failing word
  run-length compressed (``w1 r^239``);
* :func:`assert_tracks_word` asserts it on every prefix of one word: the body of a Hypothesis
  property over :func:`~bilinear.automata.strategies.failing_words` (or any word strategy);
* :func:`tracks` is that property in one line: ``test_gru = tracks(gru, automaton)`` is a
  Hypothesis test (it shrinks, replays from the example database, follows the ``settings``
  profile, and takes ``settings(...)`` on top).

A model is a Weights value (or a Stack), a torch module ``module(ids (batch, time)) -> logits
(batch, time, classes)``, a callable doing the same on numpy arrays, or any object with the
tracker protocol of :mod:`bilinear.constructions.values.tracker` (``run(words) -> TrackerRun``).

The Hypothesis strategies that draw automata and words are in :mod:`bilinear.automata.strategies`.

>>> from bilinear.automata import from_spec
>>> from bilinear.constructions.handmade.registry import build
>>> test_z5 = tracks(build("cyclic:5", "rotation2d"), from_spec("cyclic:5"), max_length=300)
>>> from hypothesis import settings
>>> settings(max_examples=20, database=None)(test_z5)()
"""

from __future__ import annotations

import re

import numpy as np

from bilinear.automata.automaton import Automaton
from bilinear.automata.labels import prefix_labels
from bilinear.automata.words import compress
from bilinear.errors import AutomatonError

from ..values.tracker import as_tracker, need_automaton
from .floatcheck import check

__all__ = ["assert_tracks", "assert_tracks_word", "tracks", "first_wrong"]


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


def _tracker(model, automaton: Automaton):
    """``model`` as a tracker (an object with the protocol is returned as it is)."""
    need_automaton(automaton)
    return as_tracker(model, n_symbols=automaton.n_symbols, n_classes=automaton.n_classes)


def _symbol_ids(word, automaton: Automaton) -> np.ndarray:
    """``word``'s symbol indices as an int64 array, by the automaton's own checks
    (:meth:`~bilinear.automata.automaton.Automaton.encode`: symbol names or indices):
    UnknownSymbolError naming the position of a symbol that is neither a name nor an integer
    index (a float, a bool) or is out of range, never a silent cast (``0.9`` is not read as ``0``)."""
    if isinstance(word, (str, np.ndarray)):
        return automaton.encode(word)
    try:
        items = list(word)
    except TypeError:  # None, a bare integer: not a word
        raise AutomatonError(f"a word must be a sequence of symbol indices, got {type(word).__name__} "
                             f"{word!r:.40}") from None
    try:
        ids = np.asarray(items)
    except ValueError:  # ragged nested lists: encode names the first item that is no symbol
        return automaton.encode(items)
    if ids.ndim == 1 and ids.dtype.kind in "iu":  # integers: encode checks their range at once
        return automaton.encode(ids)
    return automaton.encode(items)  # one by one: names, indices, and the position of anything else


def first_wrong(model, automaton: Automaton, word) -> tuple[int, int, int] | None:
    """``(position, expected, predicted)`` of the first prefix of ``word`` (1-based length) on
    which ``model``'s strict argmax is not ``automaton``'s label, or None when every prefix is
    right.  A tie for the largest logit counts as wrong (``predicted`` is then -1).  ``word``:
    symbol indices (or names), checked as the automaton checks a word: a float, a bool or an
    index out of range is refused (UnknownSymbolError naming its position), never cast."""
    tracker = _tracker(model, automaton)
    ids = _symbol_ids(word, automaton)
    if ids.size == 0:
        return None  # a tracker predicts after each symbol: the empty word has no prediction
    expected = prefix_labels(automaton, word if hasattr(word, "parts") else ids)
    logits = np.asarray(tracker.run(ids[None, :]).logits, dtype=float)[0]  # (time, classes)
    if logits.shape != (ids.size, automaton.n_classes):
        from bilinear.errors import MismatchError

        raise MismatchError(f"model {getattr(tracker, 'name', '?')} returned logits of shape {logits.shape} for a "
                            f"word of {ids.size} symbols; expected ({ids.size}, {automaton.n_classes})")
    predicted = logits.argmax(axis=1)
    top = logits.max(axis=1)
    strict = (logits == top[:, None]).sum(axis=1) == 1
    wrong = np.flatnonzero((predicted != expected) | ~strict | ~np.isfinite(top))
    if wrong.size == 0:
        return None
    t = int(wrong[0])
    return t + 1, int(expected[t]), int(predicted[t]) if strict[t] else -1


def assert_tracks_word(model, automaton: Automaton, word) -> None:
    """AssertionError unless ``model`` predicts ``automaton``'s label after every prefix of
    ``word``; the message names the first failing prefix, run-length compressed, its length,
    and what the automaton and the model say there.

    >>> from bilinear.automata import from_spec
    >>> import numpy as np
    >>> def forgetful(ids):   # parity of the last 30 symbols only
    ...     window = np.stack([np.convolve(w, np.ones(30, dtype=int))[:len(w)] % 2 for w in ids])
    ...     return np.eye(2)[window]
    >>> assert_tracks_word(forgetful, from_spec("parity"), [1] + [0] * 40)
    Traceback (most recent call last):
    ...
    AssertionError: forgetful does not track parity: after 1 0^30 (length 31) the automaton says odd, the model says even (word of 41 symbols)
    """
    tracker = _tracker(model, automaton)
    ids = _symbol_ids(word, automaton)
    found = first_wrong(tracker, automaton, word if hasattr(word, "parts") else ids)
    if found is None:
        return
    t, expected, predicted = found
    said = "nothing (a tie)" if predicted < 0 else automaton.classes[predicted]
    raise AssertionError(
        f"{getattr(tracker, 'name', type(model).__name__)} does not track {automaton.name or 'the automaton'}: after "
        f"{compress(ids[:t].tolist(), automaton)} (length {t}) the automaton says {automaton.classes[expected]}, "
        f"the model says {said} (word of {ids.size} symbols)")


def tracks(model, automaton: Automaton, words=None, max_length: int = 2000):
    """A Hypothesis test that ``model`` tracks ``automaton`` on every prefix of every drawn word
    (:func:`assert_tracks_word`): ``words`` is a strategy of words (default
    :func:`~bilinear.automata.strategies.failing_words` up to ``max_length`` symbols).

    Assign it to a name pytest collects (``test_gru = tracks(gru, parity)``); it follows the
    loaded settings profile, and ``settings(max_examples=500)(tracks(...))`` or
    ``@settings`` on a wrapper set more.  Its example-database key includes the model's and the
    automaton's names, so two such tests do not replay each other's examples.  Needs
    hypothesis (``pip install bilinear[test]``).
    """
    from hypothesis import given

    from bilinear.automata.strategies import failing_words

    tracker = _tracker(model, automaton)
    strategy = failing_words(automaton, max_length) if words is None else words

    def test_tracks(word):
        assert_tracks_word(tracker, automaton, word)

    name = str(getattr(tracker, "name", type(model).__name__))
    ident = re.sub(r"\W+", "_", f"{name} {automaton.name or 'automaton'}").strip("_")
    test_tracks.__name__ = test_tracks.__qualname__ = f"tracks_{ident}"
    test = given(strategy)(test_tracks)
    test._hypothesis_internal_add_digest = f"{name}|{automaton!r}|{max_length}".encode()  # type: ignore[attr-defined]
    return test

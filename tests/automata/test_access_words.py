"""Breadth-first searches of ``minimize.py`` (``access_words``, ``distinguishing_word``) against a
plain breadth-first search written for the tests: the same states in the same order, and each
word the shortlex-least one.  The vectorised level (at least ``ACCESS_NARROW_LEVEL`` successors)
and its chunks (``ACCESS_CHUNK_ENTRIES``) are reached on purpose: wide automata with the default
constants, and the constants shrunk so that every level is vectorised and cut into many chunks."""

from __future__ import annotations

import importlib
from collections import deque

import numpy as np
import pytest

from bilinear.automata import Automaton

# the module, not the function ``bilinear.automata.minimize`` the package exports under its name
minimize = importlib.import_module("bilinear.automata.minimize")


def random_automaton(n: int, k: int, seed: int, classes: int = 2) -> Automaton:
    rng = np.random.default_rng(seed)
    return Automaton(rng.integers(0, n, size=(k, n)), start=int(rng.integers(n)),
                     labels=rng.integers(0, classes, size=n))


def plain_access(automaton: Automaton) -> tuple[list[int], list[tuple[int, ...]]]:
    """(states in breadth-first order, symbols in order; the word of each): one state at a time."""
    delta = automaton.delta.tolist()
    start = int(automaton.start)
    words = {start: ()}
    order = [start]
    queue = deque([start])
    while queue:
        q = queue.popleft()
        for a in range(automaton.n_symbols):
            r = delta[a][q]
            if r not in words:
                words[r] = words[q] + (a,)
                order.append(r)
                queue.append(r)
    return order, [words[q] for q in order]


def plain_distinguishing(a: Automaton, b: Automaton) -> tuple[int, ...] | None:
    """The shortlex-least word whose label indices differ, by a breadth-first search over pairs."""
    start = (int(a.start), int(b.start))
    words = {start: ()}
    queue = deque([start])
    while queue:
        p, q = queue.popleft()
        if a.labels[p] != b.labels[q]:
            return words[(p, q)]
        for s in range(a.n_symbols):
            pair = (int(a.delta[s, p]), int(b.delta[s, q]))
            if pair not in words:
                words[pair] = words[(p, q)] + (s,)
                queue.append(pair)
    return None


def _check_access(automaton: Automaton) -> None:
    order, words = plain_access(automaton)
    got = minimize.access_words(automaton)
    assert got.states.tolist() == order
    assert list(got.words) == words
    assert list(got.each_word()) == words
    # the parent pointers spell the words; the start has none (-1, -1)
    assert got.parent[0] == -1 and got.via[0] == -1
    assert not (got.states.flags.writeable or got.parent.flags.writeable or got.via.flags.writeable)  # read-only
    parent, via = got.parent.tolist(), got.via.tolist()
    assert all(words[i] == words[parent[i]] + (via[i],) for i in range(1, len(words)))


@pytest.mark.parametrize("n, k, seed", [(400, 20, 0), (600, 300, 1), (2000, 16, 2)])
def test_wide_levels_with_the_default_constants(n, k, seed):
    a = random_automaton(n, k, seed)
    assert k * k >= minimize.ACCESS_NARROW_LEVEL  # the second level at least is vectorised
    _check_access(a)


@pytest.mark.parametrize("chunk_entries", [1, 5, 64])
@pytest.mark.parametrize("n, k, seed", [(50, 2, 3), (300, 3, 4), (120, 7, 5)])
def test_every_level_vectorised_in_small_chunks(monkeypatch, chunk_entries, n, k, seed):
    monkeypatch.setattr(minimize, "ACCESS_NARROW_LEVEL", 0)
    monkeypatch.setattr(minimize, "ACCESS_CHUNK_ENTRIES", chunk_entries)
    _check_access(random_automaton(n, k, seed))


def test_a_long_cycle_walks_the_narrow_levels():
    n = 1000
    a = Automaton([[(q + 1) % n for q in range(n)]], start=0)
    _check_access(a)
    assert minimize.access_words(a).word(n - 1) == (0,) * (n - 1)


@pytest.mark.parametrize("n, k, seed", [(60, 2, 0), (200, 6, 1), (500, 30, 2), (40, 3, 3)])
def test_distinguishing_word_is_the_shortlex_least(n, k, seed):
    a = random_automaton(n, k, seed)
    rng = np.random.default_rng(seed + 100)
    # b: a with a few labels flipped far from the start (a word must travel to them)
    labels = a.labels.copy()
    far = np.array(minimize.access_words(a).states[-3:])
    labels[far] = 1 - labels[far]
    b = Automaton(a.delta, start=a.start, labels=labels)
    expected = plain_distinguishing(a, b)
    assert expected is not None and len(expected) >= 2
    assert minimize.distinguishing_word(a, b) == expected
    # and a pair of unrelated automata of the same alphabet
    c = random_automaton(int(rng.integers(20, 80)), k, seed + 7)
    assert minimize.distinguishing_word(a, c) == plain_distinguishing(a, c)
    assert minimize.distinguishing_word(a, a) is None


def test_access_words_refuses_what_is_not_an_automaton():
    from bilinear.errors import AutomatonError

    with pytest.raises(AutomatonError, match="access_words needs an Automaton, got list"):
        minimize.access_words([[0, 1], [1, 0]])

"""The beam phase of the failing-word search (constructions/horizon/failsearch.py, ``beam_failure``),
checked with the evaluator written for the tests (tests/plain_eval.py): the word it returns fails
there, and on drifting networks it finds failures shorter than the periodic, access and random
words of the other phases, so `certify` reports the shorter one."""

from __future__ import annotations

import numpy as np
import pytest
from plain_eval import float64_margins

from bilinear.automata import from_spec
from bilinear.constructions.horizon.failsearch import beam_failure, beam_worth_running, first_failures, search_failure
from bilinear.constructions import build
from bilinear.constructions import Weights


def _drifting(spec: str, seed: int, noise: float) -> Weights:
    """The construction with every matrix scaled by 1 + noise * N(0, 1) and moved by
    0.3 noise * N(0, 1) per entry (a drift in modulus and phase that differs per block)."""
    A, h, R = build(spec, "block:2" if spec.startswith("dihedral") else "full").to_float().float_arrays()
    r = np.random.default_rng(seed)
    A = A * (1 + noise * r.normal(size=(A.shape[0], 1, 1))) + 0.3 * noise * r.normal(size=A.shape)
    return Weights("full", A, h, R)


def _fails_at_its_end(w, a, word) -> bool:
    A, h, R = w.float_arrays()
    m = float64_margins(A, h, R, a, np.array([word]))
    return bool(m[0, -1] <= 0) and bool((m[0, :-1] > 0).all())


# (spec, seed, noise): the other phases' first failure, the beam's (measured; pinned below as
# "strictly shorter", not as the numbers)
CASES = [("cyclic:3", 2, 0.05), ("cyclic:5", 2, 0.05), ("dihedral:3", 3, 0.05)]


@pytest.mark.parametrize("spec,seed,noise", CASES)
def test_the_beam_finds_a_shorter_failure_than_the_other_phases(spec, seed, noise):
    a = from_spec(spec)
    w = _drifting(spec, seed, noise)
    A, h, R = w.float_arrays()
    k = A.shape[0]
    other = [np.full(300, s) for s in range(k)] + [np.random.default_rng(0).integers(0, k, 300) for _ in range(256)]
    firsts = first_failures(w, a, np.stack(other))
    periodic_or_random = int(firsts[firsts >= 0].min()) if (firsts >= 0).any() else 301
    word = beam_failure(w, a, 300)
    assert word is not None and _fails_at_its_end(w, a, word)  # fails here, first at its end
    assert len(word) < periodic_or_random
    found = search_failure(w, a, 300, random_words=256)
    assert found is not None and len(found) <= len(word) and _fails_at_its_end(w, a, found)


def test_the_beam_keeps_the_lowest_margins():
    """Width 1 follows the single word whose margin is smallest at every step, computed here; it
    fails where that word first has a symbol that fails (cyclic:3, seed 0: within 300)."""
    a = from_spec("cyclic:3")
    w = _drifting("cyclic:3", 0, 0.05)
    A, h, R = w.float_arrays()
    word = beam_failure(w, a, 300, width=1)
    greedy: tuple = ()
    for _ in range(300):
        cands = np.array([greedy + (s,) for s in range(A.shape[0])])
        m = float64_margins(A, h, R, a, cands)[:, -1]
        greedy = tuple(int(x) for x in cands[int(np.argmin(m))])
        if m.min() <= 0:
            break
    assert word is not None and len(word) == len(greedy) < 300
    assert word[:-1] == greedy[:-1]  # the last symbol: any that fails
    assert _fails_at_its_end(w, a, word)


def test_no_failure_no_word():
    """A network right at every length (the exact construction as floats): no word, and a
    one-class readout has no margin to search."""
    a = from_spec("cyclic:5")
    assert beam_failure(build("cyclic:5", "rotation2d").to_float(), a, 200) is None
    assert beam_failure(build("cyclic:5", "rotation2d").to_float(), a, 0) is None


def test_the_beam_runs_only_where_its_window_is_as_long_as_the_floor():
    """search_failure runs the beam when the lengths above the floor it could still find are at
    least the floor (beam_worth_running): below that it returns the other phases' word, above it
    the beam's shorter one.  cyclic:5 drifting (seed 2): the other phases fail first at a length
    the beam beats (the first test)."""
    a = from_spec("cyclic:5")
    w = _drifting("cyclic:5", 2, 0.05)
    other = search_failure(w, a, 300, beam=False)
    beam = search_failure(w, a, 300)
    assert other is not None and beam is not None and len(beam) < len(other)
    top = len(other) - 1  # the longest word the beam may return
    skip = top // 2 + 1  # window top - skip < skip: the beam is not run
    run = min(top // 2, len(beam) - 1)  # window >= floor, and the beam's word is above it
    assert not beam_worth_running(top, skip) and beam_worth_running(top, run)
    assert search_failure(w, a, 300, floor=skip) == other
    found = search_failure(w, a, 300, floor=run)
    assert found is not None and len(found) < len(other) and _fails_at_its_end(w, a, found)

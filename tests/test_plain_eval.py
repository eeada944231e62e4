"""The tests' own evaluator (tests/plain_eval.py) against itself written more plainly: its beam
search, which carries each kept word's state from one length to the next, finds the failure at the
same length as the search that runs every candidate word again from the start
(``_beam_failure_rerun``, float64_margins on whole words), on networks that fail early, late and
never."""

from __future__ import annotations

import numpy as np
import pytest

from bilinear.automata.families import from_spec
from bilinear.constructions.handmade.registry import build
from plain_eval import _beam_failure_rerun, beam_failure


@pytest.mark.parametrize("spec, variant, noise, seed, failure", [
    ("cyclic:3", "full", 0.05, 1, 22),
    ("dihedral:3", "full", 0.03, 3, 48),
    ("symmetric:3", "full", 0.04, 6, 12),
    ("parity", "diagonal", 0.3, 4, None),
    ("cyclic:3", "full", 0.0, 1, None),  # the construction itself: exact, never wrong  # +-1 noise on a diagonal: the signs survive, nothing fails
])
def test_the_beam_search_carried_along_finds_what_rerunning_every_word_finds(spec, variant, noise, seed, failure):
    a = from_spec(spec)
    A, h0, R = build(spec, variant).to_float().float_arrays()
    A = A + noise * np.random.default_rng(seed).normal(size=A.shape)
    assert _beam_failure_rerun(A, h0, R, a, 150, 16) == failure
    assert beam_failure(A, h0, R, a, 150, 16) == failure


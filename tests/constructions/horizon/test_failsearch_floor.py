"""The failing-word search with a certified floor finds the same word as without it (issue 48
item 3): the floor (a float64 horizon, Theorems 16-19) only skips runs that cannot fail."""

from __future__ import annotations

import numpy as np

from bilinear.automata.families import from_spec
from bilinear.constructions.handmade.registry import build
from bilinear.constructions.horizon.failsearch import first_failures, search_failure, shorten_failure
from bilinear.constructions.horizon.horizon import certified_horizon
from bilinear.constructions.horizon.snap import drift, snap_candidates
from bilinear.constructions.proof.prover import prove

C5 = from_spec("cyclic:5")


def test_floor_changes_no_word():
    w = drift(build("cyclic:5", "rotation2d"), 0.02, hidden=2)
    snap = next(iter(snap_candidates(w, C5, [])))
    L = certified_horizon(w, snap, prove(snap.block_weights, C5), C5, "float64", nodes=False).length
    plain = search_failure(w, C5, 200)
    assert L is not None and plain is not None and len(plain) > L
    assert search_failure(w, C5, 200, floor=L) == plain
    assert shorten_failure(w, C5, plain, floor=L) == shorten_failure(w, C5, plain)
    mixed = np.array([(2, 2, 3) + tuple(plain) * 2])  # not periodic: deletions that are not prefixes run
    first = int(first_failures(w, C5, mixed)[0])
    assert first > L
    word = tuple(int(x) for x in mixed[0, :first])
    assert shorten_failure(w, C5, word, floor=L) == shorten_failure(w, C5, word)

"""The depth bound's edges (constructions/impossible/depth.py): the trivial group, the idempotent
power of Theorem S4's search against a brute force written for the test, and the search's limit."""

from __future__ import annotations

import numpy as np
import pytest

from bilinear.automata import Automaton, from_spec
from bilinear.automata.monoid import transformation_monoid
from bilinear.constructions import cascade
from bilinear.constructions.impossible import depth
from bilinear.constructions.impossible.depth import aperiodic_witness, min_layers
from bilinear.constructions.proof.stackprover import prove_stack
from bilinear.constructions.values.memo import minimal

def _fixed() -> Automaton:
    """Three states, two symbols that both fix every state; the start's label is 2."""
    return Automaton(delta=[[0, 1, 2], [0, 1, 2]], labels=[0, 1, 2], start=2)


@pytest.mark.parametrize("variant", ["rotation2d", "diagonal", "full", "block:2"])
def test_the_trivial_group_is_one_constant_layer(variant):
    """Derived length 0: the cascade is one constant layer (it used to have no unit and fail its
    variant), or several, each proved; the depth is one layer, whether or not the caller proved it."""
    a = _fixed()
    for layers in (None, 1, 3):
        stack = cascade(a, variant, layers)
        assert stack.depth == (layers or 1) and prove_stack(stack, a).status == "proved"
    for proved in (False, True):
        bound = min_layers(a, variant, one_layer_proved=proved)
        if variant in ("full", "block:2"):  # the depth theorems are about commuting layers
            assert bound.min_layers is None and "not a commuting variant" in bound.reason
            continue
        assert (bound.min_layers, bound.theorem, bound.unconditional) == (1, "Theorem S2", True)
        assert bound.excludes(1) is None


def _idempotent_power(z: list[int]) -> list[int]:
    """The one idempotent among the powers z, z^2, ... of a transformation, by composing until
    a power composed with itself is itself."""
    power = list(z)
    while [power[power[q]] for q in range(len(z))] != power:
        power = [z[power[q]] for q in range(len(z))]
    return power


def test_the_idempotent_power_of_every_transformation():
    """All 3,125 transformations of 5 points, 500 random ones of 7 and 8 (tails and cycles of
    every length), against the brute force."""
    import itertools

    rng = np.random.default_rng(0)
    for n in (1, 2, 5, 7, 8):
        if n <= 5:
            z = np.array(list(itertools.product(range(n), repeat=n)), dtype=np.int64)
        else:
            z = rng.integers(0, n, size=(500, n))
            z[:50] = np.array([rng.permutation(n) for _ in range(50)])  # permutations: cycles only
        got = depth._omega(z)
        assert got.tolist() == [_idempotent_power(row) for row in z.tolist()], n


def test_the_identity_search_stops_at_its_limit():
    """flipflop:2's minimal automaton has 3 idempotents on 2 states: 3^2 x 2^2 = 36 pairs x
    states^2.  A limit of 36 searches (and finds the two resets); 35 does not."""
    m = minimal(from_spec("flipflop:2"))
    idempotents = len(transformation_monoid(m).idempotents)
    work = idempotents**2 * m.n_states**2
    assert (idempotents, m.n_states, work) == (3, 2, 36)
    assert [m.format_word(w) for w in aperiodic_witness(m, limit=work)] == ["w0", "w1"]
    assert aperiodic_witness(m, limit=work - 1) == "too large"

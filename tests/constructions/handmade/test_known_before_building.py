"""What is known before building (issue 48 items 1-2): an abelian group without sympy, and the
factorised rank of the ``factorized`` column without building constructions that cannot win."""

from __future__ import annotations

import pytest
from sympy.combinatorics import Permutation, PermutationGroup

from bilinear.automata import from_spec
from bilinear.constructions.handmade.cascade import _abelian, derived_length
from bilinear.constructions.handmade.registry import (
    CONSTRUCTIONS,
    _edges,
    _onehot_rank,
    build,
    candidates,
    factorized_rank,
    smallest_factor_rank,
)
from bilinear.constructions.values.memo import minimal
from bilinear.constructions.values.variants import FACTOR_SOURCES
from bilinear.errors import ConstructionError


@pytest.mark.parametrize("spec", ["parity", "cyclic:12", "cyclic:3*parity", "cyclic:2*cyclic:2", "dihedral:5",
                                  "quaternion", "symmetric:3", "alternating:4", "cyclic:4*dihedral:3"])
def test_abelian_agrees_with_sympy(spec):
    a = from_spec(spec)
    gens = [tuple(int(x) for x in row) for row in a.delta]
    want = PermutationGroup([Permutation(list(g)) for g in gens]).is_abelian
    assert _abelian(gens, a.n_states) is want


def test_derived_length_of_a_cyclic_group_past_the_cascade_limit():
    assert derived_length(from_spec("cyclic:300")) == 1
    with pytest.raises(ConstructionError, match="not a permutation"):
        derived_length(from_spec("flipflop:2"))


@pytest.mark.parametrize("spec", ["cyclic:7", "modarith:3", "flipflop:2", "symmetric:4", "cyclic:3*parity",
                                  "random:states=6,symbols=3,seed=2"])
def test_known_ranks_are_the_ranks_of_the_built_weights(spec):
    a = from_spec(spec)
    by_name = {c.name: c for c in CONSTRUCTIONS}
    m = minimal(a)
    assert _edges(m) == factorized_rank(by_name["one-hot-support"].builder(a))
    assert _onehot_rank(m) == factorized_rank(by_name["one-hot"].builder(a))


@pytest.mark.parametrize("spec", ["parity", "cyclic:7", "dihedral:6", "quaternion", "symmetric:3", "flipflop:3",
                                  "modarith:3", "cyclic:3*parity", "parity*flipflop:2", "gridworld:3"])
def test_smallest_factor_rank_is_the_smallest_of_every_construction(spec):
    """Against every applicable construction built (any kind) and every direct sum."""
    a = from_spec(spec)
    found = [w for _, w in candidates(a)]
    for variant in FACTOR_SOURCES:
        try:
            found.append(build(a, variant))
        except ConstructionError:
            continue
    assert smallest_factor_rank(from_spec(spec)) == min(factorized_rank(w) for w in found)


@pytest.mark.parametrize("spec", ["parity", "cyclic:5", "cyclic:12", "cyclic:60", "cyclic:2*cyclic:3"])
def test_signed_cycles_knows_its_d_before_building(spec):
    """The registry skips signed-cycles when its known d cannot beat the d found: it must be the d built."""
    a = from_spec(spec)
    c = {c.name: c for c in CONSTRUCTIONS}["signed-cycles"]
    assert c.known_dim(a) == c.builder(a).dim

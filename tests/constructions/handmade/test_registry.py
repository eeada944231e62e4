"""The construction registry: every construction agrees with its automaton, exactly and in float."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bilinear.automata import Automaton
from bilinear.automata import from_spec
from bilinear.automata.strategies import family_specs
from bilinear.constructions import check
from bilinear.constructions import Proof, prove
from bilinear.constructions.handmade.registry import CONSTRUCTIONS, adapt, build, candidates, factorized_rank
from bilinear.errors import ConstructionError, SpecError

VARIANTS = ["full", "block:2", "block:4", "rotation2d", "diagonal", "positive", "factorized:8", "factorized:64"]


@settings(max_examples=40)
@given(spec=family_specs(products=True), variant=st.sampled_from(VARIANTS), data=st.data())
def test_every_construction_matches_its_automaton_on_long_random_words(spec, variant, data):
    """Theorem: a registry construction computes its automaton on every word (float run with
    renormalisation at every step, words up to length 2000), and its exact proof succeeds."""
    a = from_spec(spec)
    try:
        w = build(spec, variant)
    except ConstructionError:
        return
    assert w.variant == variant or variant.startswith("block") or variant.startswith("factorized")
    length = data.draw(st.integers(1, 2000), label="length")
    seed = data.draw(st.integers(0, 2**32 - 1), label="seed")
    words = np.random.default_rng(seed).integers(0, a.n_symbols, size=(3, length))
    result = check(w, a, word_batch=words)
    assert result.first_failure is None, (spec, variant, result.first_failure_text)
    assert result.accuracy == 1.0
    assert isinstance(prove(w, a), Proof)


@pytest.mark.parametrize("spec,variant,dim", [
    ("dihedral:50", "block:2", 2), ("cyclic:7", "rotation2d", 2), ("symmetric:5", "full", 4),
    ("cyclic:7", "full", 2), ("cyclic:7", "block:2", 2), ("parity", "rotation2d", 2),
    ("parity", "full", 1), ("quaternion", "block:4", 4), ("cyclic:5*parity", "rotation2d", 2), ("parity*parity", "rotation2d", 4),
    ("dihedral:4", "block:3", 3), ("cyclic:3", "factorized:6", 2), ("flipflop:2", "factorized:4", 2),
])
def test_smallest_known_dimension(spec, variant, dim):
    assert build(spec, variant).dim == dim


@pytest.mark.parametrize("spec,variant,message", [
    ("cyclic:3", "diagonal", "no construction of cyclic:3 for variant 'diagonal'"),
    ("dihedral:4", "rotation2d", "no construction of dihedral:4 for variant 'rotation2d'"),
    ("parity", "positive", "no construction of parity for variant 'positive'"),
    ("cyclic:3", "factorized:2", r"needs R >= 3"),
    ("symmetric:3", "block:1", "no construction of symmetric:3"),
])
def test_variants_a_family_cannot_have(spec, variant, message):
    with pytest.raises(ConstructionError, match=message):
        build(spec, variant)


def test_bad_specs_and_inputs():
    with pytest.raises(SpecError):
        build("cyclic:0", "full")
    with pytest.raises(SpecError):
        build("cyclic:3", "spiral")
    with pytest.raises(ConstructionError, match="spec string or an Automaton"):
        build(3, "full")


def test_plain_automaton_gets_one_hot_and_family_automaton_is_recognised():
    a = Automaton([[1, 2, 0], [0, 0, 0]], labels=[0, 1, 1])
    w = build(a, "full")
    assert w.dim == 3 and isinstance(prove(w, a), Proof)
    assert build(from_spec("dihedral:9"), "block:2").dim == 2


def test_registry_lists_each_construction_once_with_its_theorem():
    names = [c.name for c in CONSTRUCTIONS]
    assert len(names) == len(set(names))
    assert all("Theorem" in c.theorem for c in CONSTRUCTIONS)
    built = {c.name for c, _ in candidates("symmetric:4")}
    assert built == {"standard", "one-hot", "one-hot-support", "cube", "tetrahedral", "permutation", "simplex",
                     "one-hot-householder", "complexified", "half-turns"}


def test_factorized_rank_and_adapt():
    w = build("cyclic:4", "rotation2d")
    assert factorized_rank(w) == 8  # identity and three rotations, each of rank 2
    assert adapt(w, "factorized:7") is None
    f = adapt(w, "factorized:8")
    U, C, W = f.factors
    for s in range(4):
        assert ((U * C[s][None, :]) @ W.T).tolist() == w.A[s].tolist()


# -- constructions chosen from the spec or from the algebra ----------------------------------
def test_hand_built_dihedral_table_gets_the_2x2_construction():
    d5 = from_spec("dihedral:5")
    mine = Automaton(d5.delta, symbols=("x", "y"), classes=[f"g{i}" for i in range(10)], name="mine")
    assert mine.spec is None
    w = build(mine, "block:2")
    assert w.dim == 2 and build(mine, "full").dim == 2
    proof = prove(w, mine)
    assert proof.dim == 2 and proof.states_explored == 10 and proof.margin_float > 0.2


def test_hand_built_cyclic_and_relabelled_symbols():
    # Z_3 with symbols adding 1 and 2, listed in another order: rotation by the recognised exponents
    z3 = Automaton([[2, 0, 1], [1, 2, 0]], symbols=("minus", "plus"))
    w = build(z3, "rotation2d")
    assert w.dim == 2 and prove(w, z3).states_explored == 3
    parity = Automaton([[1, 0], [0, 1]], symbols=("flip", "stay"))
    assert build(parity, "diagonal").A.tolist() == [[[-1]], [[1]]]


def test_hand_built_non_group_falls_back_to_one_hot():
    reset = Automaton([[0, 0, 0], [1, 2, 0]])
    assert build(reset, "full").dim == 3
    with pytest.raises(ConstructionError):
        build(reset, "block:2")


def test_spec_constructions_unchanged():
    assert build("dihedral:4", "block:2").A.tolist() == [[[0, 1], [-1, 0]], [[1, 0], [0, -1]]]
    assert build("cyclic:2*cyclic:3", "rotation2d").dim == 2
    assert build("symmetric:3,alphabet=all", "full").dim == 2


def test_a_factorized_refusal_names_the_smallest_rank_without_building_other_kinds(monkeypatch):
    """modarith:3 in factorized:2: nothing fits, and the message names the smallest factor rank of
    the constructions build tries for a factored variant (smallest_factor_rank's 9), built as
    smallest_factor_rank builds them; half-turns, a householder,nonneg construction never tried for
    a factored variant, is not built for the message (modarith:6*modarith:6's took 26.6 s)."""
    from bilinear.constructions.handmade import registry

    def refuse(automaton):
        raise AssertionError("half-turns built for a factored variant's refusal")

    monkeypatch.setattr(registry, "_half_turn_sources", refuse)
    a = from_spec("modarith:3")  # a fresh automaton: nothing of it built yet
    assert registry.smallest_factor_rank(from_spec("modarith:3")) == 9
    with pytest.raises(ConstructionError, match=r"'factorized:2'.*; the smallest known needs R >= 9$"):
        build(a, "factorized:2")

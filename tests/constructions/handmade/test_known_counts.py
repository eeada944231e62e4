"""Factor counts known before building (issue 48 item 2): ``one-hot-householder``'s K and its
reflections, read off the automaton, against the weights built; ``half-turns`` against every
source converted on its own, and its d and K, counted from its sources before converting
(Theorem F13's corollary), against those it builds; and the bare ``householder`` columns'
counts without building."""

from __future__ import annotations

import numpy as np
import pytest

from bilinear.automata import from_spec
from bilinear.constructions.handmade.halfturns import nonneg_count, nonneg_dim, nonneg_weights, source_factors
from bilinear.constructions.handmade.reflections import onehot_householder
from bilinear.constructions.handmade.registry import (
    CONSTRUCTIONS,
    HALF_TURN_SOURCES,
    _family,
    _half_turns_shape,
    _onehot_householder_count,
    _onehot_householder_nonneg,
    build,
    candidates,
    factor_counts,
    half_turns,
)
from bilinear.constructions.values.memo import minimal
from bilinear.errors import ConstructionError

GROUPS = ["parity", "cyclic:5", "dihedral:4", "quaternion", "symmetric:3", "alternating:4", "cyclic:3*parity"]
OTHERS = ["flipflop:2", "reset:3", "modarith:3", "random:states=5,symbols=2,seed=0", "gridworld:3"]


@pytest.mark.parametrize("spec", GROUPS)
def test_onehot_householder_count_is_the_k_built_for_a_group(spec):
    a = from_spec(spec)
    w = onehot_householder(a)
    V, beta = w.factors
    assert _onehot_householder_count(minimal(a)) == V.shape[1]
    # a non-identity permutation needs a reflection (beta = 2): never nonneg
    assert _onehot_householder_nonneg(minimal(a)) is (not any(b == 2 for b in np.asarray(beta).ravel()))


@pytest.mark.parametrize("spec", OTHERS)
def test_onehot_householder_count_is_unknown_past_permutations(spec):
    """No count is claimed where the one-hot unit vectors are not one-hot (a symbol merges states)."""
    m = minimal(from_spec(spec))
    if all(len(set(row.tolist())) == m.n_states for row in m.delta):
        pytest.skip("a permutation automaton")
    assert _onehot_householder_count(m) is None and _onehot_householder_nonneg(m) is None


def test_identity_symbols_are_nonneg():
    """Every symbol the identity: no reflection, K = 1 (identity factors), nonneg."""
    from bilinear.automata import Automaton

    a = Automaton(np.array([[0, 1, 2], [0, 1, 2]]), labels=[0, 1, 2])
    assert _onehot_householder_count(minimal(a)) == onehot_householder(a).factors[0].shape[1] == 1
    assert _onehot_householder_nonneg(minimal(a)) is True


@pytest.mark.parametrize("spec,kind,tried_for", [
    ("dihedral:5", "householder", "householder:7,nonneg"),
    ("symmetric:3", "householder", "householder:7,nonneg"),
    ("quaternion", "householder", "householder:7"),
    ("flipflop:2", "householder", "householder:7,nonneg"),
    ("cyclic:5", "dplr", "dplr:7"),
])
def test_factor_counts_are_the_counts_of_the_built_candidates(spec, kind, tried_for):
    a = from_spec(spec)
    built = [w.variant_info.param for _, w in candidates(a, kind, tried_for=tried_for)]
    assert factor_counts(a, kind, tried_for=tried_for) == [k for k in built if k is not None]


def _sources(a) -> list:
    """Every source ``half-turns`` may take for ``a``: the orthogonal constructions that apply, and
    one-hot-householder."""
    family = _family(a)
    out = []
    for c in CONSTRUCTIONS:
        if c.name in HALF_TURN_SOURCES and c.applies(family):
            try:
                out.append(c.builder(a))
            except ConstructionError:
                continue
    return out + [onehot_householder(a)]


@pytest.mark.parametrize("spec", ["parity", "cyclic:3", "dihedral:4", "alternating:4", "flipflop:2", "modarith:3"])
def test_half_turns_is_the_best_source_converted_alone(spec):
    """Each source converted on its own (no source skipped), the smallest (d, K), the first among
    equals: what ``half_turns`` returns without building one-hot-householder where it cannot win."""
    a = from_spec(spec)
    best = None
    for src in _sources(a):
        if source_factors(src) is None:
            continue
        w = nonneg_weights(spec, a.symbols, [src])
        assert nonneg_dim(src) == w.dim  # the d known before converting
        if best is None or (w.dim, w.factors[0].shape[1]) < (best.dim, best.factors[0].shape[1]):
            best = w
    got = half_turns(a)
    assert got.variant == best.variant and got.dim == best.dim
    assert all((x == y).all() for x, y in zip(got.factors, best.factors))


def test_build_refuses_one_hot_householder_by_its_known_count():
    refusals: list = []
    w = build("cyclic:5", "householder:2", refusals=refusals)
    assert w.dim == 2
    assert ("one-hot-householder", "its K = 4 exceeds K = 2") in refusals
    refusals = []
    build("cyclic:5", "householder:6,nonneg", refusals=refusals)
    assert ("one-hot-householder", "its factors include reflections (beta = 2), not householder:6,nonneg") in refusals


def test_build_still_builds_one_hot_householder_where_its_count_is_unknown():
    """reset:3 is no group: its one-hot-householder weights (projections only) are nonneg and win."""
    refusals: list = []
    w = build("reset:3", "householder:2,nonneg", refusals=refusals)
    reasons = dict(refusals)
    assert "exceeds" not in reasons.get("one-hot-householder", "")
    assert "reflections" not in reasons.get("one-hot-householder", "")
    assert w.variant == "householder:2,nonneg"


@pytest.mark.parametrize("spec", ["parity", "cyclic:3", "cyclic:5", "dihedral:4", "quaternion", "symmetric:3",
                                  "alternating:4", "flipflop:2", "reset:3", "modarith:3", "cyclic:3*parity"])
def test_the_half_turns_count_is_the_k_of_each_source_converted(spec):
    """nonneg_count, read before converting, against the K of the weights each source converts to."""
    a = from_spec(spec)
    counted = []
    for src in _sources(a):
        if source_factors(src) is None:
            continue
        w = nonneg_weights(spec, a.symbols, [src])
        assert nonneg_count(src) == w.factors[0].shape[1] == w.variant_info.param
        counted.append(nonneg_count(src))
    assert counted  # one-hot-householder at least


@pytest.mark.parametrize("spec", ["parity", "cyclic:5", "dihedral:5", "quaternion", "symmetric:4", "flipflop:2",
                                  "reset:3", "modarith:3", "random:states=5,symbols=2,seed=0", "cyclic:2*cyclic:3"])
def test_half_turns_known_d_and_count_are_those_it_builds(spec):
    a = from_spec(spec)
    w = half_turns(a)
    assert _half_turns_shape(a) == (w.dim, w.variant_info.param)


def test_a_run_of_reflections_counts_the_factors_it_becomes():
    """Orthogonal pairs one half-turn, others two, an odd run's last one more: against the factors
    _nonneg_factors makes, in d = 4 with the extra coordinate (d + 4 = 8 per half-turn)."""
    from fractions import Fraction

    from bilinear.constructions.handmade.halfturns import _nonneg_factors, _run_count

    e = [[Fraction(int(i == j)) for j in range(3)] for i in range(3)]
    skew = [Fraction(1), Fraction(1), Fraction(0)]
    for run, want in [([], 0), ([e[0], e[1]], 1), ([e[0], skew], 2), ([e[0], e[1], e[2]], 2),
                      ([e[0]], 1), ([skew, e[0], e[2]], 3)]:
        assert _run_count(run, 8) == 8 * want
        assert len(_nonneg_factors([(v, 2) for v in run], 3, True)) == 8 * want


def test_build_refuses_half_turns_by_its_known_count_without_converting(monkeypatch):
    """cyclic:5: half-turns' K = 14 and d = 3 are read off its sources, and no factor is converted,
    neither for householder:3,nonneg (nothing fits) nor at K = 6 and K = 14, where
    rotation-projections' d = 2 wins."""
    from bilinear.constructions.handmade import halfturns
    from bilinear.constructions.values.memo import clear_caches

    clear_caches()
    converted = []
    real = halfturns._convert
    monkeypatch.setattr(halfturns, "_convert", lambda *args: converted.append(args) or real(*args))
    refusals: list = []
    with pytest.raises(ConstructionError):
        build("cyclic:5", "householder:3,nonneg", refusals=refusals)
    assert ("half-turns", "its K = 14 exceeds K = 3") in refusals
    w = build("cyclic:5", "householder:6,nonneg", refusals=refusals)
    assert (w.dim, w.variant) == (2, "householder:6,nonneg") and not converted
    assert build("cyclic:5", "householder:14,nonneg").dim == 2  # rotation-projections still wins at d = 2
    assert not converted  # half-turns' d = 3 cannot beat d = 2: not converted either


def _flat_factors(w, per_symbol: int) -> list:
    """``per_symbol`` factors with beta 1/2 for every symbol of ``w`` (no reflection: d stays w.dim)."""
    from fractions import Fraction

    v = [Fraction(1)] + [Fraction(0)] * (w.dim - 1)
    return [[(v, Fraction(1, 2))] * per_symbol for _ in range(w.n_symbols)]


def test_the_source_taken_is_the_smallest_d_then_k_and_one_of_larger_d_is_not_counted():
    """(d, K) counted from the factors given: of two sources of one d the smaller K wins, a later
    equal one does not replace it, and a source of larger d is not counted at all (its factor
    with beta = 3, which counting refuses, is never read)."""
    from fractions import Fraction

    from bilinear.constructions.handmade.halfturns import nonneg_shape

    w = build("cyclic:3", "rotation2d")
    assert nonneg_shape("c3", [w, w, w], [_flat_factors(w, 5), _flat_factors(w, 2), _flat_factors(w, 2)]) == (2, 2)
    assert nonneg_shape("c3", [w, w], [_flat_factors(w, 2), _flat_factors(w, 5)]) == (2, 2)
    e = [Fraction(1), Fraction(0)]
    reflect = [[(e, 2), (e, Fraction(3))]] * w.n_symbols  # a run of reflections in d = 2: d = 3
    assert nonneg_dim(w, reflect) == 3
    with pytest.raises(ConstructionError, match="beta = 3 is neither"):
        nonneg_count(w, reflect)
    assert nonneg_shape("c3", [w, w], [_flat_factors(w, 5), reflect]) == (2, 5)


def test_counting_refuses_what_converting_refuses():
    from fractions import Fraction

    w = build("cyclic:3", "rotation2d")
    with pytest.raises(ConstructionError, match="beta = 3/2 is neither in"):
        nonneg_count(w, [[([Fraction(1), Fraction(0)], Fraction(3, 2))]] * w.n_symbols)
    for known in (nonneg_dim, nonneg_count):  # float weights: no exact factors to count
        with pytest.raises(ValueError, match="rotation2d weights of d = 2 are no half-turns source"):
            known(w.to_float())


def test_the_error_names_what_was_refused_by_its_count_at_that_count():
    """Nothing fits cyclic:5 as householder:3,nonneg: the error still names half-turns and
    one-hot-householder, each in its own variant at the K counted (the K and d they build), beside
    the constructions built; for householder:1, half-turns is not tried at all (a nonneg
    construction), so the error does not name it though its count exceeds 1 too."""
    a = from_spec("cyclic:5")
    turns, onehot = half_turns(a), onehot_householder(a)
    with pytest.raises(ConstructionError) as caught:
        build(a, "householder:3,nonneg")
    text = str(caught.value)
    assert f"half-turns ({turns.variant}, d={turns.dim}; counted, not built)" in text
    assert "half-turns (householder:14,nonneg, d=3; counted, not built)" in text
    assert f"one-hot-householder ({onehot.variant}, d={onehot.dim}; counted, not built)" in text
    assert "rotation-projections (householder:6,nonneg, d=2)" in text  # built, as before
    with pytest.raises(ConstructionError) as caught:
        build(a, "householder:1")
    assert "half-turns" not in str(caught.value)
    assert "one-hot-householder (householder:4, d=5; counted, not built)" in str(caught.value)

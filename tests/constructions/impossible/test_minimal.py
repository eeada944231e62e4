"""Minimal constructions: A_5 in d = 3, resets in d = 2, abelian groups by invariant factors,
one-hot on the minimal automaton, small factorised ranks, the dihedral half-angle start."""

from __future__ import annotations

import itertools
import json
import math
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bilinear.automata import from_spec
from bilinear.cli import main
from bilinear.constructions.handmade.abelian import abelian_basis, abelian_full, abelian_weights
from bilinear.constructions.handmade.dihedral import dihedral_block
from bilinear.constructions.handmade.factorized import (
    blockwise_factors,
    exact_inverse,
    pencil_factors,
    support_factors,
)
from bilinear.constructions.handmade.icosahedral import icosahedral, icosahedral_rotations
from bilinear.constructions.capability import matrix_cell
from bilinear.constructions import prove
from bilinear.constructions import build
from bilinear.constructions.handmade.reset import reset_parabola
from bilinear.constructions import Weights
from bilinear.errors import ConstructionError


def verify_json(capsys, *argv):
    code = main(["verify", *argv, "--json"])
    return code, json.loads(capsys.readouterr().out)


# ------------------------------------------------------------------------------------------
# A_5 on the icosahedron
# ------------------------------------------------------------------------------------------
def test_alternating_5_full_is_proved_in_d3(capsys):
    code, out = verify_json(capsys, "alternating:5", "full")
    assert code == 0 and out["status"] == "proved" and out["dim"] == 3
    assert out["lower_bound"] == 3 and out["minimal"] is True
    assert out["lower_bound_theorem"] == "Theorem 14"


def test_icosahedral_rotations_are_the_rotation_group():
    rots = icosahedral_rotations()
    assert len(rots) == 60
    eye = np.eye(3, dtype=int).astype(object)
    for M in rots:  # exactly orthogonal
        assert (M.dot(M.T) == eye).all()
    # element orders of A_5: 1 identity, 15 of order 2, 20 of order 3, 24 of order 5
    def order(M):
        k, N = 1, M
        while not (N == eye).all():
            N, k = M.dot(N), k + 1
        return k

    assert Counter(order(M) for M in rots) == {1: 1, 2: 15, 3: 20, 5: 24}


def test_icosahedral_refuses_other_automata():
    with pytest.raises(ConstructionError, match="not the two-generator A_5"):
        icosahedral(from_spec("alternating:4"))
    # 60 states and 2 symbols, but not a group, or a group of other element orders
    with pytest.raises(ConstructionError, match="not a permutation"):
        icosahedral(from_spec("random:states=60,symbols=2,seed=1"))
    with pytest.raises(ConstructionError, match="not orders of icosahedral rotations"):
        icosahedral(from_spec("dihedral:30"))


def test_a5_without_a_spec_is_recognised_from_its_table():
    from bilinear.automata import Automaton
    from bilinear.constructions.settle import settle

    a = from_spec("alternating:5")
    hand = Automaton(a.delta, start=a.start, labels=a.labels, symbols=("x", "y"), name="mystery")
    assert hand.spec is None
    cell = settle(hand, "full")
    assert cell.status == "proved" and cell.dim == 3 and cell.minimal is True


# ------------------------------------------------------------------------------------------
# resets
# ------------------------------------------------------------------------------------------
def test_reset_5_full_and_block2_proved_in_d2(capsys):
    for variant in ("full", "block:2"):
        code, out = verify_json(capsys, "reset:5", variant)
        assert code == 0 and out["status"] == "proved" and out["dim"] == 2 and out["minimal"] is True
        assert out["margin"]["exact"] == "1"


@pytest.mark.parametrize("N", [1, 2, 3, 4, 7])
@pytest.mark.parametrize("family", ["reset", "flipflop"])
def test_resets_are_proved_with_margin_one(family, N):
    a = from_spec(f"{family}:{N}")
    for variant in ("full", "block:2"):
        w = reset_parabola(a, variant)
        p = prove(w, a)
        assert w.dim == 2 and p.status == "proved" and p.margin == (None if N == 1 else 1)  # one class: no margin


def test_reset_3_block2_cell_is_settled():
    cell = matrix_cell("reset:3", "block:2")
    assert cell.status == "proved" and cell.dim == 2 and cell.lower_bound == 2


def test_flipflop_is_reset_with_renamed_symbols():
    for N in (1, 2, 5):
        f, r = from_spec(f"flipflop:{N}"), from_spec(f"reset:{N}")
        assert np.array_equal(f.delta, r.delta) and f.start == r.start
        assert np.array_equal(f.labels, r.labels)


def test_reset_refuses_a_permutation():
    with pytest.raises(ConstructionError, match="neither a reset nor the identity"):
        reset_parabola(from_spec("cyclic:3"))


# ------------------------------------------------------------------------------------------
# abelian groups
# ------------------------------------------------------------------------------------------
def _invariant_factors(moduli):
    """Independent: prime-power parts per prime, sorted, combined."""
    parts: dict[int, list[int]] = {}
    for m in moduli:
        p, x = 2, m
        while x > 1:
            if x % p == 0:
                q = 1
                while x % p == 0:
                    x //= p
                    q *= p
                parts.setdefault(p, []).append(q)
            p += 1
    k = max((len(v) for v in parts.values()), default=0)
    out = []
    for i in range(k):
        out.append(math.prod(sorted(v, reverse=True)[i] for v in parts.values() if i < len(v)))
    return sorted(out)


def test_cyclic_6_times_cyclic_4_full_in_d3(capsys):
    code, out = verify_json(capsys, "cyclic:6*cyclic:4", "full")
    assert code == 0 and out["status"] == "proved" and out["dim"] == 3 and out["minimal"] is True
    assert abelian_basis(from_spec("cyclic:6*cyclic:4"))[1] == [2, 12]


@settings(max_examples=12, deadline=None)
@given(st.lists(st.integers(1, 6), min_size=1, max_size=3).filter(lambda ms: math.prod(ms) <= 72))
def test_abelian_constructions_follow_the_invariant_factors(moduli):
    spec = "*".join(f"cyclic:{m}" for m in moduli)
    a = from_spec(spec)
    factors = _invariant_factors(moduli)
    assert abelian_basis(a)[1] == factors
    full, rot = abelian_weights(a, rotation2d=False), abelian_weights(a, rotation2d=True)
    s = sum(1 for d in factors if d == 2)
    assert full.dim == max(1, s + 2 * (len(factors) - s))
    assert rot.dim == max(2, 2 * len(factors))
    assert prove(full, a).status == "proved" and prove(rot, a).status == "proved"


@pytest.mark.parametrize("spec", ["alternating:3", "dihedral:1", "dihedral:2", "symmetric:2", "cyclic:1", "reset:1"])
def test_rotation2d_cells_of_small_abelian_groups_are_proved(spec):
    cell = matrix_cell(spec, "rotation2d")
    assert cell.status == "proved" and cell.dim == (4 if spec == "dihedral:2" else 2)
    assert cell.lower_bound == cell.dim


def test_abelian_refuses_non_abelian_and_non_groups():
    with pytest.raises(ConstructionError, match="not abelian"):
        abelian_full(from_spec("dihedral:3"))
    with pytest.raises(ConstructionError, match="not a group"):
        abelian_full(from_spec("reset:3"))


# ------------------------------------------------------------------------------------------
# one-hot on the minimal automaton
# ------------------------------------------------------------------------------------------
def test_onehot_uses_the_reachable_minimal_automaton():
    w = build("random:states=5,symbols=2,seed=0", "full")
    assert w.dim == 4
    assert prove(w, from_spec("random:states=5,symbols=2,seed=0")).status == "proved"


# ------------------------------------------------------------------------------------------
# factorised ranks
# ------------------------------------------------------------------------------------------
def test_cyclic_7_factorized_3_is_proved(capsys):
    code, out = verify_json(capsys, "cyclic:7", "factorized:3")
    assert code == 0 and out["status"] == "proved" and out["dim"] == 2
    w = build("cyclic:7", "factorized:3")
    assert w.factors[0].shape == (2, 3)
    with pytest.raises(ConstructionError, match="needs R >= 3"):
        build("cyclic:7", "factorized:2")


@pytest.mark.parametrize("spec, R, dim", [
    ("cyclic:7", 3, 2), ("cyclic:2*cyclic:3", 3, 2), ("dihedral:4", 2, 2), ("dihedral:7", 2, 2),
    ("quaternion", 6, 4), ("reset:3", 3, 2), ("flipflop:2", 3, 2), ("parity", 1, 1),
])
def test_factorized_column_takes_the_small_ranks(spec, R, dim):
    cell = matrix_cell(spec, "factorized")
    assert cell.status == "proved" and cell.built == f"factorized:{R}" and cell.dim == dim


def _rotation_weights(k, rng):
    A = np.empty((3, 2 * k, 2 * k), dtype=object)
    A[...] = 0
    for s in range(3):
        for b in range(k):
            a, c = (int(x) for x in rng.integers(-5, 6, size=2))
            A[s, 2 * b:2 * b + 2, 2 * b:2 * b + 2] = [[a, -c], [c, a]]
    return Weights("rotation2d", A, [1] * (2 * k), [[1] * (2 * k)])


def test_blockwise_and_support_factors_reproduce_the_matrices():
    rng = np.random.default_rng(0)
    for k in (1, 2, 3):
        w = _rotation_weights(k, rng)
        f = blockwise_factors(w)  # Weights checks U diag(C[s]) W^T == A[s] exactly
        assert f.variant == f"factorized:{3 * k}"
        U, C, W = f.factors
        for s in range(3):
            assert ((U * C[s][None, :]).dot(W.T) == w.A[s]).all()
        assert support_factors(w).variant == f"factorized:{4 * k}"


def test_pencil_factors_and_exact_inverse():
    w = dihedral_block(from_spec("dihedral:5"))
    assert pencil_factors(w).variant == "factorized:2"
    M = np.array([[2, 1], [1, 1]], dtype=object)
    assert (exact_inverse(M).dot(M) == np.eye(2, dtype=int)).all()
    with pytest.raises(ConstructionError, match="singular"):
        exact_inverse(np.array([[1, 2], [2, 4]], dtype=object))
    with pytest.raises(ConstructionError, match="two symbols"):
        pencil_factors(build("cyclic:3", "full"))


# ------------------------------------------------------------------------------------------
# dihedral margin
# ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("n", [1, 2, 3, 4, 6, 7, 12])
def test_dihedral_half_angle_start_has_the_best_margin(n):
    a = from_spec(f"dihedral:{n}")
    w = dihedral_block(a)
    p = prove(w, a)
    norm2 = sum(float(x) ** 2 for x in w.h0)
    expected = 1 - math.cos(math.pi / n)
    assert p.status == "proved"
    if n % 4:  # the exact half angle, in the rotation's own field
        assert abs(p.margin_float / norm2 - expected) < 1e-9
    else:  # 3 e_1 + e^(2 pi i / n): near it (0.2 instead of 0.29 at n = 4, 0.0329 instead of 0.0341 at 12)
        assert 0.65 * expected < p.margin_float / norm2 < expected
    assert math.lcm(4, n) % w.conductor == 0  # no field larger than the rotation's
    if n == 7:
        assert p.margin_float / norm2 > 100 * 4.4e-4  # h0 = (2, 1) gave 4.4e-4


def test_every_reachable_state_of_a_product_gets_one_class():
    # the abelian construction's orbit readout: one row per class, every class reachable
    a = from_spec("cyclic:2*cyclic:2*cyclic:2")
    w = abelian_full(a)
    assert w.dim == 3
    rows = {tuple(r) for r in w.readout.tolist()}
    assert len(rows) == 8 and rows == set(itertools.product((1, -1), repeat=3))

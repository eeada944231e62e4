"""Float weights are judged per matrix against their own scale: forged files are refused.

Scaling one symbol's matrix leaves a network's predictions unchanged (each step is renormalised),
so it must never loosen the conformance check of another matrix (docs/theory.md, "Conformance of
float weights").
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from bilinear.automata import from_spec
from bilinear.cli import main
from bilinear.constructions import certify
from bilinear.constructions.values.fileformat import encode
from bilinear.constructions import prove
from bilinear.constructions import build
from bilinear.constructions.values.variants import parse_variant, project
from bilinear.constructions import Weights
from bilinear.errors import ConformanceError


def _forged(spec: str, variant: str, scale: dict[int, float]) -> tuple[dict, Weights]:
    """The float full construction of ``spec`` relabelled ``variant``, matrices scaled."""
    w = build(spec, "full").to_float()
    A = np.array(w.A)
    for s, factor in scale.items():
        A[s] *= factor
    return encode(parse_variant(variant).spec, False, A, w.h0, w.readout, None), w


def test_forged_rotation2d_dihedral4_is_refused(tmp_path) -> None:
    # s = diag(1, -1) is no scaled rotation; r scaled by 1e7 used to widen the tolerance to 10
    data, _ = _forged("dihedral:4", "rotation2d", {0: 1e7})
    assert np.array_equal(np.array(data["A"][1]), np.diag([1.0, -1.0]))
    with pytest.raises(ConformanceError, match=r"A\[1\]\[1, 1\] = -1.0 differs from A\[1\]\[0, 0\]"):
        Weights.from_json(data)
    path = tmp_path / "forged.json"
    path.write_text(json.dumps(data))
    with pytest.raises(ConformanceError, match=r"forged.json: variant 'rotation2d': A\[1\]"):
        Weights.load(path)


def test_forged_block2_quaternion_is_refused() -> None:
    # j mixes the two 2x2 blocks; i scaled by 1e7
    data, _ = _forged("quaternion", "block:2", {0: 1e7})
    with pytest.raises(ConformanceError, match=r"A\[1\]\[0, 2\] = -1.0 is outside the 2x2 diagonal blocks"):
        Weights.from_json(data)


def test_forged_diagonal_is_refused() -> None:
    data, _ = _forged("dihedral:4", "diagonal", {1: 1e9})
    with pytest.raises(ConformanceError, match=r"A\[0\]\[0, 1\] = 1.0 is off the diagonal"):
        Weights.from_json(data)


def test_forged_factorized_is_refused() -> None:
    # r and s have rank 2 each; s scaled by 1e7 used to hide r's singular values (1 < 10)
    data, _ = _forged("dihedral:4", "factorized:2", {1: 1e7})
    with pytest.raises(ConformanceError, match=r"ranks summing to 4 > R = 2"):
        Weights.from_json(data)


def test_scaling_alone_keeps_conforming_weights_accepted() -> None:
    w = build("cyclic:4", "rotation2d").to_float()
    A = np.array(w.A)
    A[0] *= 1e9
    scaled = Weights("rotation2d", A, w.h0, w.readout)
    assert np.array_equal(scaled.A, A)  # conforming floats are kept bit for bit


def test_projected_forgery_is_not_proved_and_says_how_far(tmp_path, capsys) -> None:
    data, _ = _forged("dihedral:4", "rotation2d", {0: 1e7})
    w, dist = Weights.from_json_projected(data)
    assert w.variant == "rotation2d" and dist.tolist() == [0.0, 1.0]
    assert prove(w, from_spec("dihedral:4"), bound=16).status != "proved"
    path = tmp_path / "forged.json"
    path.write_text(json.dumps(data))
    assert main(["verify", "dihedral:4", "rotation2d", "--weights", str(path)]) == 2
    assert "A[1][1, 1]" in capsys.readouterr().err
    code = main(["verify", "dihedral:4", "rotation2d", "--weights", str(path), "--project", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 1 and out["status"] == "counterexample"
    assert out["projection"]["distance"] == [0.0, 1.0] and out["projection"]["max_distance"] == 1.0
    main(["verify", "dihedral:4", "rotation2d", "--weights", str(path), "--project"])
    assert "projected onto rotation2d" in capsys.readouterr().out
    assert main(["verify", "dihedral:4", "rotation2d", "--project"]) == 2
    assert "--project needs --weights" in capsys.readouterr().err


# ------------------------------------------------------------------------------------------
# properties
# ------------------------------------------------------------------------------------------
BROKEN_VARIANTS = ["block:2", "block:1", "rotation2d", "diagonal", "positive", "factorized:2"]


def _conforming(variant: str, dense: np.ndarray, factors: np.ndarray):
    """Conforming float matrices (and factors for factorized) from random numbers."""
    v = parse_variant(variant)
    if v.info.factored:
        U, C, W = factors[0], factors[1][: dense.shape[0]], factors[2]
        A = np.stack([(U * C[s][None, :]) @ W.T for s in range(dense.shape[0])])
        return A, (U, C, W)
    return project(v, dense)[0], None


@given(
    variant=st.sampled_from(BROKEN_VARIANTS),
    seed=st.integers(0, 2**32 - 1),
    broken=st.integers(0, 2),
    exponent=st.floats(3, 9),
    size=st.floats(0.01, 1.0),
)
def test_broken_matrix_beside_a_scaled_one_is_never_accepted(variant, seed, broken, exponent, size) -> None:
    rng = np.random.default_rng(seed)
    k, d = 3, 4
    A, factors = _conforming(variant, rng.uniform(-1, 1, (k, d, d)), rng.uniform(-1, 1, (3, d, 2)))
    other = (broken + 1) % k
    scaled = A.copy()
    scaled[other] *= 10.0**exponent
    if factors is not None:
        factors = (factors[0], factors[1].copy(), factors[2])
        factors[1][other] *= 10.0**exponent
    h0, readout = rng.uniform(-1, 1, d), rng.uniform(-1, 1, (2, d))
    Weights(variant, scaled, h0, readout, factors)  # conforming and scaled: accepted
    bad = scaled.copy()
    i, j = _break_at(variant, rng)
    if variant == "positive" and i == j:
        bad[broken, i, i] = -size  # not strictly positive
    else:
        bad[broken, i, j] += size * max(float(np.abs(A[broken]).max()), 1.0)
    with pytest.raises(ConformanceError, match=rf"A\[{broken}\]"):
        Weights(variant, bad, h0, readout, factors)


def _break_at(variant: str, rng) -> tuple[int, int]:
    """An entry whose change breaks the variant (off the blocks, or inside a rotation block)."""
    v = parse_variant(variant)
    B = v.block_size
    if B is None:
        return int(rng.integers(4)), int(rng.integers(4))
    if variant == "rotation2d" and rng.integers(2):
        return 1, 1  # a != d inside the first rotation block
    if variant == "positive" and rng.integers(2):
        return 2, 2  # a non-positive diagonal entry
    i = int(rng.integers(4))
    j = (i // B * B + B + int(rng.integers(4 - B))) % 4
    return i, j


IMPOSSIBLE_CELLS = [
    ("dihedral:4", "rotation2d"),
    ("quaternion", "rotation2d"),
    ("dihedral:3", "diagonal"),
    ("quaternion", "diagonal"),
    ("dihedral:4", "block:1"),
    ("parity", "positive"),
    ("cyclic:4", "positive"),
]


@pytest.mark.parametrize("spec,variant", IMPOSSIBLE_CELLS)
def test_certified_cells_have_impossibility_certificates(spec, variant) -> None:
    assert certify(from_spec(spec), variant) is not None


@given(cell=st.sampled_from(IMPOSSIBLE_CELLS), exponents=st.lists(st.floats(0, 9), min_size=3, max_size=3))
def test_impossible_cells_are_never_proved_from_forged_floats(cell, exponents) -> None:
    spec, variant = cell
    automaton = from_spec(spec)
    n = automaton.n_symbols
    data, _ = _forged(spec, variant, {s: 10.0 ** exponents[s % 3] for s in range(n)})
    try:
        w = Weights.from_json(data)
    except ConformanceError:
        w = None
    if w is not None:
        assert prove(w, automaton, bound=16).status != "proved"
    projected, dist = Weights.from_json_projected(data)
    assert projected.variant == parse_variant(variant).spec and (dist >= 0).all()
    assert prove(projected, automaton, bound=16).status != "proved"

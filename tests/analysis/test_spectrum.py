import cmath
import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from bilinear.analysis.examples import cyclic_rotation2d, dihedral_block2, one_hot, rotation
from bilinear.analysis.spectrum import matrix_spectrum, nearest_root, power_structure, spectrum
from bilinear.automata import from_spec
from bilinear.constructions import Weights
from bilinear.errors import AnalysisError


def _is_primitive_root(z: complex, k: int, atol: float = 1e-9) -> bool:
    return any(abs(z - cmath.exp(2j * math.pi * j / k)) < atol for j in range(1, k) if math.gcd(j, k) == 1)


@pytest.mark.parametrize("exact", [True, False])
def test_cyclic5_rotation2d_eigenvalues_are_primitive_fifth_roots(exact):
    w = cyclic_rotation2d(5, exact=exact)
    sp = spectrum(w, from_spec("cyclic:5"))
    assert sp.symbols[0].order == 1  # symbol 0 is the identity
    for ms in sp.symbols[1:]:
        assert ms.order == 5
        assert ms.exact is exact
        assert all(_is_primitive_root(z, 5) for z in ms.normalised)
        assert [r.order for r in ms.roots] == [5, 5]
        assert ms.reading == "acts as a rotation of order 5 on a 2-dimensional subspace"
    assert sp.exact is exact
    assert sp.reading.splitlines()[1].startswith("A_1 acts as a rotation of order 5")


def test_dihedral4_block2_reflection_and_rotation():
    sp = spectrum(dihedral_block2(4), from_spec("dihedral:4"))
    r, s = sp.symbols
    assert r.order == 4 and r.exact
    assert s.order == 2 and s.exact
    assert sorted(round(z.real) for z in s.normalised) == [-1, 1]
    assert all(abs(z.imag) < 1e-12 for z in s.normalised)
    assert s.reading == "acts as a reflection"
    # words: rr is -I, rs is a reflection, ss the identity
    by_name = {m.name: m for m in sp.words}
    assert by_name["A(r·r)"].order == 2 and by_name["A(r·r)"].reading.startswith("acts as -I")
    assert by_name["A(r·s)"].reading == "acts as a reflection"
    assert by_name["A(s·s)"].order == 1


def test_blocks_reported_per_block():
    A = np.zeros((1, 4, 4), dtype=object)
    A[0, :2, :2] = rotation(1, 3)
    A[0, 2:, 2:] = np.array([[1, 0], [0, -1]], dtype=object)
    w = Weights("block:2", A, [1, 0, 1, 0], [[1, 0, 0, 0]])
    sp = spectrum(w, word_length=1)
    assert [b.order for b in sp.blocks] == [3, 2]
    assert sp.symbols[0].order == 6  # lcm(3, 2)
    assert "rotation of order 3" in sp.symbols[0].reading and "negation" in sp.symbols[0].reading


def test_one_hot_reset_is_idempotent_exactly():
    sp = spectrum(one_hot(from_spec("flipflop:2")), word_length=1)
    w0, w1, r = sp.symbols
    assert (w0.index, w0.period, w0.exact) == (1, 1, True)
    assert w0.reading == "is idempotent up to scale (a projection of rank 1)"
    assert r.order == 1


def test_exact_and_float_disagree_only_within_tolerance():
    # a shear has no finite order: decided exactly; in float it is caught by the tolerance only
    # when the tolerance is larger than the shear
    shear = np.array([[1, Fraction_(1, 10 ** 9)], [0, 1]], dtype=object)
    assert power_structure(shear, 12, 1e-6, exact=True) is None
    assert power_structure(shear.astype(float), 12, 1e-6) == (0, 1)
    assert power_structure(shear.astype(float), 12, 1e-12) is None


def Fraction_(a, b):
    from fractions import Fraction

    return Fraction(a, b)


def test_zero_and_nilpotent_matrices():
    assert matrix_spectrum(np.zeros((2, 2))).reading.startswith("is zero")
    nil = matrix_spectrum(np.array([[0.0, 1.0], [0.0, 0.0]]))
    assert nil.reading.startswith("is nilpotent")
    assert nil.order is None


@given(st.integers(1, 30), st.integers(0, 29))
def test_nearest_root_recovers_the_root(k, j):
    j %= k
    z = cmath.exp(2j * math.pi * j / k)
    r = nearest_root(z, 30)
    g = math.gcd(j, k)
    assert (r.order, r.j) == (k // g, j // g)
    assert r.distance < 1e-9


@given(st.integers(2, 9), st.floats(0.1, 10.0))
def test_order_of_scaled_rotation_is_scale_free(n, scale):
    t = 2 * math.pi / n
    M = scale * np.array([[math.cos(t), -math.sin(t)], [math.sin(t), math.cos(t)]])
    assert matrix_spectrum(M, tol=1e-9).order == n


def test_bad_input():
    w = cyclic_rotation2d(5)
    with pytest.raises(AnalysisError, match="5 symbol"):
        spectrum(w, from_spec("dihedral:4"))
    with pytest.raises(AnalysisError, match="tol"):
        spectrum(w.to_float(), tol=0)
    with pytest.raises(AnalysisError, match="tol"):
        spectrum(w.to_float(), tol=-1e-3)
    with pytest.raises(AnalysisError, match="max_order"):
        spectrum(w, max_order=0)
    with pytest.raises(AnalysisError, match="Weights"):
        spectrum(np.eye(2))


def test_to_json_is_serialisable():
    import json

    data = json.loads(json.dumps(spectrum(dihedral_block2(3)).to_json()))
    assert data["exact"] is True
    assert data["symbols"][0]["order"] == 3


def test_approximate_order_on_the_visited_span_for_float_weights():
    # every rotation 0.01 rad too far: no exact order, but closest to order 5 with a small residual
    sp = spectrum(cyclic_rotation2d(5, angle_error=0.01), word_length=1, tol=1e-9)
    for a, m in enumerate(sp.symbols[1:], start=1):
        assert m.order is None
        assert m.visited_order == 5 and m.visited_dim == 2
        # (R_{2 pi a / 5 + 0.01 a})^5 is a rotation by 0.05 a: scale-free distance sin(0.05 a) from I
        assert m.visited_residual == pytest.approx(math.sin(0.05 * a), rel=1e-6)
        assert "order 5" in m.headline and "visited span" in m.headline
        assert m.holds_on_span == (m.visited_residual <= 0.05)
    # exact weights never get the approximate reading
    assert all(m.visited_order is None for m in spectrum(cyclic_rotation2d(5)).symbols)

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from bilinear.analysis.commutators import commutator_norm, commutators
from bilinear.analysis.examples import cyclic_rotation2d, dihedral_block2, one_hot
from bilinear.automata import from_spec
from bilinear.constructions import Weights
from bilinear.errors import AnalysisError


@pytest.mark.parametrize("exact", [True, False])
def test_cyclic5_all_commutators_zero(exact):
    c = commutators(cyclic_rotation2d(5, exact=exact), from_spec("cyclic:5"))
    assert c.verdict == "commute"
    assert c.exact is exact
    assert c.max_norm < 1e-12
    if exact:
        assert all(all(row) for row in c.exactly_zero)
        assert all(w.exactly_zero for w in c.words)


def test_dihedral4_r_and_s_do_not_commute():
    c = commutators(dihedral_block2(4), from_spec("dihedral:4"))
    assert c.verdict == "do not commute"
    assert c.exactly_zero[0][1] is False and c.exactly_zero[0][0] is True
    assert c.norms[0][1] == pytest.approx(np.sqrt(2))
    assert c.worst_pair == (0, 1)
    assert "A_r, A_s" in c.reading


def test_one_hot_of_abelian_group_commutes_exactly():
    c = commutators(one_hot(from_spec("cyclic:2*cyclic:3")), word_length=1)
    assert c.verdict == "commute" and c.exact


def test_float_tolerance_decides():
    A = np.array([[[1.0, 1e-4], [0.0, 1.0]], [[2.0, 0.0], [0.0, 1.0]]])
    w = Weights("full", A, [1.0, 0.0], [[1.0, 0.0]])
    assert commutators(w, tol=1e-2, word_length=1).verdict == "commute"
    assert commutators(w, tol=1e-8, word_length=1).verdict == "do not commute"


@given(arrays(float, (3, 3), elements=st.floats(-3, 3)), arrays(float, (3, 3), elements=st.floats(-3, 3)), st.floats(0.1, 10), st.floats(0.1, 10))
def test_norm_is_scale_free_antisymmetric_and_bounded(A, B, a, b):
    n = commutator_norm(A, B)
    assert n == pytest.approx(commutator_norm(B, A))
    assert n == pytest.approx(commutator_norm(a * A, b * B), abs=1e-9)
    assert 0 <= n <= 2 + 1e-9


def test_bad_input():
    with pytest.raises(AnalysisError, match="tol"):
        commutators(cyclic_rotation2d(3), tol=float("nan"))
    with pytest.raises(AnalysisError, match="symbol"):
        commutators(cyclic_rotation2d(3), from_spec("parity"))


def test_visited_span_ignores_non_commuting_directions_that_die_out():
    # Z_2 x Z_2 commuting on the first two coordinates, a non-commuting contracted 2x2 block after
    A = np.zeros((2, 4, 4))
    A[0, :2, :2] = np.diag([1.0, -1.0])
    A[1, :2, :2] = np.diag([-1.0, 1.0])
    A[0, 2:, 2:] = 0.1 * np.array([[0.0, 1.0], [1.0, 0.0]])
    A[1, 2:, 2:] = 0.1 * np.array([[1.0, 0.0], [0.0, -1.0]])
    w = Weights("block:2", A, [1.0, 1.0, 1.0, 1.0], [[1.0, 0, 0, 0]])
    c = commutators(w, word_length=1)
    assert c.verdict == "do not commute" and c.max_norm > 1e-3
    assert c.visited_dim == 2 and c.visited_max_norm < 1e-12
    assert "commute on the 2-dimensional visited span" in c.reading and "full 4-dimensional space" in c.reading
    assert c.visited_verdict == "commute" and c.to_json()["visited_verdict"] == "commute"
    assert commutators(dihedral_block2(3)).visited_norms is None  # exact weights: exact answer only


def test_every_pair_at_once_equals_the_pairs_one_by_one():
    """The symbol table is computed a row at a time in numpy (1,884 windows of a Mamba layer took
    minutes pair by pair): the same norms as commutator_norm of each pair, zeros for a zero matrix
    and on the diagonal, symmetric."""
    from bilinear.constructions.values.span import scale_normalised, visited_span
    from bilinear.constructions.values.weights import Weights

    rng = np.random.default_rng(7)
    A = rng.normal(size=(9, 4, 4))
    A[3] = 0.0
    c = commutators(Weights("full", A, rng.normal(size=4), rng.normal(size=(2, 4))), word_length=1)
    scale = max(np.linalg.norm(m) for m in A)  # commutators() scales the weights by their largest matrix
    want = np.array([[commutator_norm(A[a] / scale, A[b] / scale) for b in range(9)] for a in range(9)])
    got = np.asarray(c.norms)
    assert np.allclose(got, want, rtol=1e-12, atol=0) and (got == got.T).all()
    assert (got[3] == 0).all() and (np.diag(got) == 0).all() and got.max() > 0.1
    # the same on the visited span (its compressions V^T A V)

    Q = np.stack([np.linalg.qr(m)[0] for m in rng.normal(size=(9, 4, 4))])  # isometries: nothing dies out
    C = visited_span(scale_normalised(c_weights := Weights("full", Q, np.ones(4), np.ones((2, 4))))).compressed
    seen = np.asarray(commutators(c_weights, word_length=1).visited_norms)
    assert np.allclose(seen, [[commutator_norm(C[a], C[b]) for b in range(9)] for a in range(9)], rtol=1e-12, atol=0)
    assert (seen == seen.T).all() and seen.max() > 0.1

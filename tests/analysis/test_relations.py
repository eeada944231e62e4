import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from bilinear.analysis.examples import cyclic_rotation2d, dihedral_block2, one_hot
from bilinear.analysis.relations import reachable_basis, relation_residuals
from bilinear.automata import from_spec
from bilinear.constructions import Weights
from bilinear.errors import AnalysisError

D3_PAIRS = [((0, 0, 0), ()), ((1, 1), ()), ((1, 0), (0, 0, 1)), ((1, 0), (0, 1))]


def test_dihedral_relations_hold_exactly_and_a_false_one_fails():
    rel = relation_residuals(dihedral_block2(3), from_spec("dihedral:3"), pairs=D3_PAIRS)
    assert [r.holds for r in rel.relations] == [True, True, True, False]
    assert [r.exactly for r in rel.relations] == [True, True, True, False]
    assert rel.relations[0].text == "r·r·r = ε"
    assert rel.relations[3].residual > 0.5
    assert rel.n_holding == 3 and not rel.all_hold
    assert "3 of 4" in rel.reading and "s·r = r·s" in rel.reading


def test_negative_scalar_is_not_a_relation():
    # A = -I: A(u) = -A(empty); hidden states are only up to a *positive* scalar
    w = Weights("diagonal", [[[-1, 0], [0, -1]]], [1, 0], [[1, 0]])
    rel = relation_residuals(w, None, pairs=[((0,), ()), ((0, 0), ())])
    assert [r.holds for r in rel.relations] == [False, True]
    assert rel.relations[0].residual == 1.0


def test_reachable_subspace_ignores_unused_directions():
    # the third coordinate is never reached from h0, and A differs from the identity only there
    A = np.array([[[1.0, 0, 0], [0, 1.0, 0], [0, 0, 5.0]]])
    w = Weights("full", A, [1.0, 0, 0], [[1.0, 0, 0]])
    rel = relation_residuals(w, None, pairs=[((0,), ())], tol=1e-9)
    r = rel.relations[0]
    assert r.residual > 0.1 and r.residual_reachable < 1e-12 and r.holds
    assert rel.reachable_dim == 1


def test_float_perturbation_measured():
    good = relation_residuals(cyclic_rotation2d(5, exact=False), None, pairs=[((1,) * 5, ())])
    bad = relation_residuals(cyclic_rotation2d(5, angle_error=0.01), None, pairs=[((1,) * 5, ())])
    assert good.all_hold and good.relations[0].exactly is None
    assert not bad.all_hold
    # five rotations each off by 0.01 rad: the residual of rotation by 0.05 against the identity
    assert bad.relations[0].residual == pytest.approx(np.sin(0.05), rel=1e-6)


@given(st.integers(1, 5), st.integers(0, 2**31 - 1))
def test_reachable_basis_is_orthonormal_and_invariant(d, seed):
    rng = np.random.default_rng(seed)
    A = rng.normal(size=(2, d, d))
    A[:, :, -1] = 0  # the last direction is never mixed into ...
    h0 = rng.normal(size=d)
    Q = reachable_basis(A, h0)
    assert np.allclose(Q.T @ Q, np.eye(Q.shape[1]), atol=1e-8)
    P = Q @ Q.T
    for M in A:  # invariance: A maps the span into itself
        assert np.allclose(P @ M @ Q, M @ Q, atol=1e-6)
    assert np.allclose(P @ h0, h0, atol=1e-8)


def test_monoid_relations_of_constructions_hold():
    for w, spec in [(cyclic_rotation2d(5), "cyclic:5"), (dihedral_block2(4), "dihedral:4"), (one_hot(from_spec("flipflop:2")), "flipflop:2")]:
        rel = relation_residuals(w, from_spec(spec))
        assert rel.total > 0 and rel.all_hold and all(r.exactly for r in rel.relations), spec


def test_monoid_relations_of_broken_weights_fail():
    rel = relation_residuals(cyclic_rotation2d(5, angle_error=0.05), from_spec("cyclic:5"))
    assert not rel.all_hold and rel.failing


def test_bad_input():
    w = dihedral_block2(3)
    with pytest.raises(AnalysisError, match="tol"):
        relation_residuals(w, from_spec("dihedral:3"), pairs=D3_PAIRS, tol=0.0)
    with pytest.raises(AnalysisError, match="symbol"):
        relation_residuals(w, from_spec("cyclic:3"), pairs=D3_PAIRS)
    with pytest.raises(AnalysisError, match="symbol index 7"):
        relation_residuals(w, from_spec("dihedral:3"), pairs=[((7,), ())])


# ------------------------------------------------------------------------------------------
# resets and writes: idempotent (x x = x) and reset (x y = y) relations, up to a scale per state
# ------------------------------------------------------------------------------------------
def _written_flipflop(noise: float = 0.0, seed: int = 0):
    """A float flipflop network whose writes are rank one with *different* row functionals
    (A_w = p_w c_w^T, c_w positive on the visited states), as a trained network's are: every
    relation holds on the visited states, each with its own scale, while A(w0 w1) and A(w1)
    differ by no single scale."""
    from bilinear.constructions import Weights

    rng = np.random.default_rng(seed)
    p0, p1 = np.array([1.0, 0.2, 0.0]), np.array([0.2, 1.0, 0.0])
    c0, c1 = np.array([1.0, 0.3, 0.5]), np.array([0.4, 1.0, -0.2])
    A = np.array([np.outer(p0, c0), np.outer(p1, c1), np.eye(3)])
    A = A + noise * rng.standard_normal(A.shape)
    R = np.array([[1.0, -1.0, 0.0], [-1.0, 1.0, 0.0]])
    return Weights("full", A, np.array([1.0, 0.1, 0.0]), R)


def test_resets_and_idempotents_hold_on_the_visited_states():
    from bilinear.analysis.relations import relation_kind

    a = from_spec("flipflop:2")
    rel = relation_residuals(_written_flipflop(), a, tol=0.05)
    kinds = {r.text: r.kind for r in rel.relations}
    assert kinds["w0·w0 = w0"] == "idempotent" and kinds["w0·w1 = w1"] == "reset" and kinds["r = ε"] == ""
    assert rel.all_hold and rel.n_holding == 7
    # the matrices alone do not say so: a reset's images differ by a different scale on each state
    w0w1 = next(r for r in rel.relations if r.text == "w0·w1 = w1")
    assert w0w1.residual_visited > 0.05 and w0w1.residual_states < 1e-9
    assert "(2 idempotent; 2 resets)" in rel.reading
    assert relation_kind((2, 0), (0,)) == "reset" and relation_kind((0, 2), (0,)) == ""


def test_a_write_that_is_not_a_reset_fails_the_reset_relations():
    """The same network with A_w0 full rank (it keeps part of the old state): the reset relations
    x w0 = w0 fail per state too; the sentence 'hold' is not printed."""
    a = from_spec("flipflop:2")
    w = _written_flipflop()
    A = w.A.copy()
    A[0] = A[0] + 0.5 * np.eye(3)
    from bilinear.constructions import Weights

    rel = relation_residuals(Weights("full", A, w.h0, w.readout), a, tol=0.05)
    failing = {r.text for r in rel.failing}
    assert "w1·w0 = w0" in failing and "w0·w0 = w0" in failing
    assert not rel.all_hold and rel.reading.startswith(f"{rel.n_holding} of 7 defining relations")


def test_reset_constructions_exact_and_near_exact():
    from bilinear.constructions import build
    from bilinear.constructions import Weights

    for spec in ("flipflop:2", "reset:3"):
        a = from_spec(spec)
        w = build(a, "full")
        exact = relation_residuals(w, a)
        assert exact.all_hold and all(r.exactly for r in exact.relations)
        assert any(r.kind == "reset" for r in exact.relations) and any(r.kind == "idempotent" for r in exact.relations)
        f = w.to_float()
        noisy = Weights("full", f.A + 1e-5 * np.random.default_rng(1).standard_normal(f.A.shape), f.h0, f.readout)
        rel = relation_residuals(noisy, a, tol=1e-3)
        assert rel.all_hold, rel.reading
        assert max(r.residual_states for r in rel.relations) < 1e-3


def test_label_agreement_says_which_failing_relations_the_readout_cannot_tell_apart():
    """A flipflop whose read symbol r swaps the two written directions: r = ε fails in the labels
    too (0 of the states agree), and the reading counts only the relations that do agree."""
    from bilinear.constructions import Weights

    a = from_spec("flipflop:2")
    w = _written_flipflop()
    A = w.A.copy()
    A[2] = np.array([[0.0, 1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])  # r swaps: a wrong network
    rel = relation_residuals(Weights("full", A, w.h0, w.readout), a, tol=0.05)
    r_eps = next(r for r in rel.relations if r.text == "r = ε")
    assert not r_eps.holds and r_eps.labels_agree == 0.0
    agreeing = sum(r.labels_agree == 1.0 for r in rel.failing)
    assert f"of those, {agreeing} hold as far as the readout tells" in rel.reading
    assert agreeing < len(rel.failing)

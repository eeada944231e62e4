"""A float file's network is its numbers as exact dyadic rationals, and for a factored variant its
factors composed exactly (docs/formats.md, "The network a float file defines"): the prover proves
that network, never the rounded float composition (issue 45, item 1)."""

from __future__ import annotations

import json
from fractions import Fraction

import numpy as np

from bilinear.automata.families import from_spec
from bilinear.cli import main
from bilinear.constructions.proof.prover import prove
from bilinear.constructions.proof.stackprover import prove_stack
from bilinear.constructions.values.factored import householder_compose
from bilinear.constructions.values.stack import Stack
from bilinear.constructions.values.weights import Weights

PARITY = from_spec("parity")


def _reflection_file(tmp_path) -> tuple[str, Weights]:
    """The audit's file: householder:1,nonneg with v = (1, 5), beta = 1 for symbol 1, h0 = v.
    Exactly, H(v, 1) is the projection onto v's orthogonal complement: it sends h0 to 0."""
    V, beta = np.array([[[1.0, 0.0]], [[1.0, 5.0]]]), np.array([[0.0], [1.0]])
    data = {"format": "bilinear.weights", "version": 1, "variant": "householder:1,nonneg", "exact": False,
            "A": householder_compose(V, beta, False).tolist(), "h0": [1.0, 5.0],
            "readout": [[1.0, 5.0], [-1.0, -5.0]], "factors": {"V": V.tolist(), "beta": beta.tolist()}}
    path = tmp_path / "reflection.json"
    path.write_text(json.dumps(data))
    return str(path), Weights.load(path, allow_unsigned=True)


def test_exact_network_composes_the_factors_exactly(tmp_path) -> None:
    _, w = _reflection_file(tmp_path)
    exact = w.exact_network()
    assert exact.exact and exact.variant == w.variant
    # I - v v^T / 26 with v = (1, 5), computed here by hand
    assert exact.A[1].tolist() == [[Fraction(25, 26), Fraction(-5, 26)], [Fraction(-5, 26), Fraction(1, 26)]]
    assert (exact.A[1] @ exact.h0).tolist() == [0, 0]
    # the float composition differs from it: its eigenvalue on h0 is not 0
    assert any(Fraction(float(x)) != y for x, y in zip(w.A[1].flat, exact.A[1].flat))
    assert [Fraction(x) for x in w.h0] == list(exact.h0)


def test_reflection_file_is_refuted_not_proved(tmp_path, capsys) -> None:
    path, w = _reflection_file(tmp_path)
    result = prove(w, PARITY)
    assert result.status == "counterexample" and result.word == (1,)
    assert result.scores == (0.0, 0.0)  # h = 0 after one symbol: a tie
    assert main(["verify", "parity", "--weights", path, "--unsigned"]) == 1
    out = capsys.readouterr().out
    assert "counterexample" in out and "proved" not in out


def test_dplr_is_proved_as_its_exact_composition() -> None:
    """diag(D) + U W^T with D = (-3, -3), U = (3, 3), W = (2^-53, 1 - 2^-53): exactly A (1, 1) = 0,
    while the float composition (3 (1 - 2^-53) rounds) moves (1, 1) off zero."""
    D = np.array([[1.0, 1.0], [-3.0, -3.0]])
    U = np.array([[[0.0], [0.0]], [[3.0], [3.0]]])
    W = np.array([[[0.0], [0.0]], [[2.0**-53], [1 - 2.0**-53]]])
    A = D[:, :, None] * np.eye(2) + U @ np.transpose(W, (0, 2, 1))
    w = Weights("dplr:1", A, [1.0, 1.0], [[1.0, 1.0], [-1.0, -1.0]], (D, U, W))
    assert (w.exact_network().A[1] @ w.exact_network().h0).tolist() == [0, 0]
    result = prove(w, PARITY)
    assert result.status == "counterexample" and result.word == (1,) and result.scores == (0.0, 0.0)


def test_factorized_is_proved_as_its_factors_not_as_a_within_tolerance_a() -> None:
    """A[1] = diag(-1, -1e-7) is within the float tolerance of U diag(C[1]) W^T = diag(-1, 0): the
    network is the rank-one composition, which sends h0 = e_2 to 0."""
    U = W = np.eye(2)
    C = np.array([[1.0, 1.0], [-1.0, 0.0]])
    A = np.array([np.eye(2), np.diag([-1.0, -1e-7])])
    w = Weights("factorized:2", A, [0.0, 1.0], [[0.0, 1.0], [0.0, -1.0]], (U, C, W))
    assert w.exact_network().A[1].tolist() == [[-1, 0], [0, 0]]
    result = prove(w, PARITY)
    assert result.status == "counterexample" and result.word == (1,)


def test_monomial_float_composition_is_already_exact() -> None:
    """Placing D's entries rounds nothing: the exact network is A's own numbers."""
    perm, D = np.array([[1, 0], [0, 1]]), np.array([[0.1, 0.3], [-0.7, 1e-3]])
    w = Weights("monomial", [[[0, 0.3], [0.1, 0]], [[-0.7, 0], [0, 1e-3]]], [1.0, 0.0], [[1.0, 0.0]], (perm, D))
    exact = w.exact_network()
    assert [Fraction(float(x)) for x in w.A.flat] == list(exact.A.flat)
    complex_ = Weights("monomial,complex", [[[0.1, -0.3], [0.3, 0.1]]], [1.0, 0.0], [[1.0, 0.0]])
    assert [Fraction(float(x)) for x in complex_.A.flat] == list(complex_.exact_network().A.flat)


def test_stack_layer_is_proved_as_its_exact_composition(tmp_path) -> None:
    _, w = _reflection_file(tmp_path)
    copy = Weights("diagonal", A=[[[1.0]], [[1.0]], [[-1.0]], [[-1.0]]], h0=[1.0], readout=[[1.0], [-1.0]])
    result = prove_stack(Stack((w, copy)), PARITY)
    assert result.status == "counterexample" and result.word == (1,) and result.layer == 1


def test_beta_outside_the_range_in_a_file_is_refused_not_clipped(tmp_path) -> None:
    """beta = 1 + 2^-30 is within the float tolerance of [0, 1]; clipping it would prove another
    network than the file's own factors."""
    from bilinear.errors import ConformanceError
    import pytest

    V, beta = np.array([[[1.0, 0.0]], [[0.0, 1.0]]]), np.array([[0.0], [1.0 + 2.0**-30]])
    data = {"format": "bilinear.weights", "version": 1, "variant": "householder:1,nonneg", "exact": False,
            "A": householder_compose(V, np.clip(beta, 0, 1), False).tolist(), "h0": [0.0, 1.0],
            "readout": [[0.0, 1.0], [0.0, -1.0]], "factors": {"V": V.tolist(), "beta": beta.tolist()}}
    with pytest.raises(ConformanceError, match=r"beta\[1, 0\] = 1.0000000009313226"):
        Weights.from_json(data, allow_unsigned=True)

"""The simplex construction: S_n and A_n orthogonal in d = n - 1 with entries in Q(zeta_4n), so
``householder`` reaches the standard representation's dimension (docs/theory.md, Theorem F4)."""

from __future__ import annotations

import numpy as np
import pytest
from plain_eval import float64_margins

from bilinear.automata import from_spec
from bilinear.constructions.values.factored import reflection_count
from bilinear.constructions import prove
from bilinear.constructions.handmade.reflections import SIMPLEX_MAX_N, simplex, simplex_vertices
from bilinear.constructions import build
from bilinear.errors import ConstructionError


def _float(M) -> np.ndarray:
    return np.array([[float(x) for x in row] for row in np.atleast_2d(M)])


@pytest.mark.parametrize("n", range(2, SIMPLEX_MAX_N + 1))
def test_the_vertices_are_a_regular_simplex_exactly_and_match_the_real_fourier_basis(n):
    P = simplex_vertices(n)
    assert P.shape == (n, n - 1)
    G = P.T.dot(P)  # exact: (n/2) I
    assert all(G[a, b] == (n / 2 if a == b else 0) for a in range(n - 1) for b in range(n - 1))
    assert all(sum(P[:, b]) == 0 for b in range(n - 1))  # every column sums to zero: p_0 + ... = 0
    # an independent float computation of the same basis
    j = np.arange(n)
    cols = []
    for k in range(1, (n + 1) // 2):
        cols += [np.cos(2 * np.pi * k * j / n), np.sin(2 * np.pi * k * j / n)]
    if n % 2 == 0:
        cols.append((-1.0) ** j / np.sqrt(2))
    assert np.allclose(_float(P), np.stack(cols, 1), atol=1e-12)


@pytest.mark.parametrize("spec", ["symmetric:3", "symmetric:4", "symmetric:5", "alternating:5"])
def test_each_generator_is_orthogonal_and_moves_the_vertices_as_its_permutation(spec):
    from bilinear.automata.families import parse_cycles

    a = from_spec(spec)
    n = int(spec.split(":")[1])
    w, P = simplex(a), simplex_vertices(n)
    assert w.dim == n - 1 and w.variant == "full"
    for s, symbol in enumerate(a.symbols):
        g = parse_cycles(symbol, n)
        M = w.A[s]
        eye = M.T.dot(M)
        assert all(eye[i, k] == (1 if i == k else 0) for i in range(n - 1) for k in range(n - 1)), symbol
        for i in range(n):
            assert all(x == y for x, y in zip(M.dot(P[i]), P[g[i]])), (symbol, i)


@pytest.mark.parametrize("spec", ["symmetric:5", "alternating:5"])
def test_householder_gets_s5_and_a5_at_d_4_proved_and_right_on_random_words(spec):
    """The registry's householder S_5 is the simplex (d = 4; `permutation` needs 5); A_5's is the
    icosahedron (d = 3, K = 2), so its simplex is converted here by the registry's own adapter."""
    from bilinear.constructions.handmade.registry import adapt
    from bilinear.constructions import parse_variant

    a = from_spec(spec)
    w = build(spec, "householder:4") if spec == "symmetric:5" else adapt(simplex(a), parse_variant("householder:4"))
    assert (w.dim, w.variant) == (4, "householder:4")
    assert prove(w, a).status == "proved"
    # the 5-cycle fixes no vector of the hyperplane: 4 reflections, and no fewer (Theorem F3)
    counts = {sym: reflection_count(w.A[s]) for s, sym in enumerate(a.symbols)}
    assert counts["(0 1 2 3 4)"] == 4
    if spec == "symmetric:5":
        assert counts["(0 1)"] == 1
    if spec == "symmetric:5":
        with pytest.raises(ConstructionError):
            build(spec, "householder:3")
    else:
        assert build(spec, "householder:2").dim == 3  # the icosahedral rotations
    # an evaluator written for the tests: the float64 margins of the built weights on random words
    A, h0, R = w.float_arrays()
    words = np.random.default_rng(0).integers(0, len(a.symbols), size=(64, 200))
    assert (float64_margins(A, h0, R, a, words) > 0).all()


def test_beyond_the_limit_a_clear_error_before_any_work():
    with pytest.raises(ConstructionError, match=f"2..{SIMPLEX_MAX_N}"):
        simplex_vertices(SIMPLEX_MAX_N + 1)


def test_s6_householder_is_built_without_the_one_hot_detour_and_proved():
    """The registry tries the one-hot construction (d = 720 for S_6) only after the others; before,
    building it and splitting its 720 x 720 matrices into reflections took over 400 s here."""
    a = from_spec("symmetric:6")
    refusals: list = []
    w = build(a, "householder:5", refusals=refusals)
    assert (w.dim, w.variant) == (5, "householder:5")
    assert ("one-hot", "its d = 720 cannot beat the d = 5 found") in refusals
    assert prove(w, a).status == "proved"


@pytest.mark.parametrize("spec", ["cyclic:3", "cyclic:5"])
def test_the_deferred_one_hot_still_wins_a_tie_with_the_constructions_after_it(spec):
    """cyclic:m monomial: one-hot (d = m) and signed cycles (d = m, listed after it) tie; the first
    in the registry's order is chosen, as when one-hot was built in turn."""
    refusals: list = []
    w = build(spec, "monomial", refusals=refusals)
    m = int(spec.split(":")[1])
    assert w.dim == m
    assert any(name == "signed-cycles" and "one-hot (d = " in why and "was chosen" in why for name, why in refusals)

"""The ``sign-projections`` construction (Theorem F12 of docs/theory.md): elementary abelian
2-groups as ``householder:K,nonneg``, -I on a coordinate plane from six factors with beta in [0, 1).

The claims are checked against computations written here: the factors multiplied out with plain
``Fraction`` lists (``plain_eval.householder_product``, not ``householder_compose``), each matrix a
positive multiple of a diagonal sign matrix with an even number of -1 entries, every word up to a
length run through those matrices with the readout's strict argmax the automaton's label, then the
exact prover.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import pytest

from bilinear.automata import from_spec
from bilinear.constructions import Proof, prove
from bilinear.constructions.handmade.reflections import ROTATION_FACTORS, SIGN_SCALE, sign_projections
from bilinear.errors import ConstructionError
from plain_eval import householder_product


def test_minus_identity_on_a_plane_is_the_order_four_factors_twice():
    V = [v for v, _ in ROTATION_FACTORS[4]] * 2
    beta = [b for _, b in ROTATION_FACTORS[4]] * 2
    assert all(0 <= b < 1 for b in beta)  # invertible, non-negative determinant
    assert householder_product(V, beta) == [[-SIGN_SCALE, 0], [0, -SIGN_SCALE]]
    assert SIGN_SCALE == Fraction(1, 5776)


@pytest.mark.parametrize("spec, dim, K, length", [
    ("parity", 2, 6, 8), ("cyclic:2*cyclic:2", 3, 7, 5), ("cyclic:2*cyclic:2*cyclic:2", 4, 12, 3),
])
def test_every_word_and_the_proof(spec, dim, K, length):
    a = from_spec(spec)
    w = sign_projections(a)
    assert w.variant == f"householder:{K},nonneg" and w.dim == dim
    V, beta = w.factors
    assert all(0 <= b < 1 for b in beta.ravel())
    mats = [householder_product(V[s], beta[s]) for s in range(w.n_symbols)]
    for s, M in enumerate(mats):
        assert [[Fraction(x) for x in row] for row in w.A[s]] == M  # A is the product of its factors
        diag = [M[i][i] for i in range(dim)]
        assert all(M[i][j] == 0 for i in range(dim) for j in range(dim) if i != j)
        scale = abs(diag[0])
        assert scale > 0 and all(abs(x) == scale for x in diag)  # a positive multiple of a sign matrix
        assert sum(1 for x in diag if x < 0) % 2 == 0  # an even number of -1: a positive determinant
    h0 = [Fraction(x) for x in w.h0]
    R = [[Fraction(x) for x in row] for row in w.readout]
    for n in range(length + 1):
        for word in itertools.product(range(w.n_symbols), repeat=n):
            h = list(h0)
            for s in word:
                h = [sum(mats[s][i][j] * h[j] for j in range(dim)) for i in range(dim)]
            scores = [sum(r[i] * h[i] for i in range(dim)) for r in R]
            best = max(scores)
            assert scores.count(best) == 1 and scores.index(best) == a.label(list(word))
    assert isinstance(prove(w, a), Proof)


@pytest.mark.parametrize("spec", ["cyclic:4", "cyclic:2*cyclic:3", "dihedral:4", "reset:3"])
def test_refuses_what_is_not_an_elementary_abelian_2_group(spec):
    with pytest.raises(ConstructionError):
        sign_projections(from_spec(spec))
    with pytest.raises(ConstructionError, match="every element of order at most 2"):
        sign_projections(from_spec("cyclic:4"))

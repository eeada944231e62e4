"""The exact split of an orthogonal matrix into reflections (Theorem F4 of docs/theory.md) and the
count of a signed permutation's reflections by its cycles (constructions/values/factored.py),
against independent computations: the exact rank of ``M - I`` and the product of the reflections
found; and the split stopped once it needs more than K (a 480 x 480 one-hot permutation was split
in full, for every K from 1 to 6, only to be refused: ``verify dihedral:3*dihedral:4*dihedral:5
householder`` ran out of its budget)."""

from __future__ import annotations

from fractions import Fraction as F

import numpy as np
import pytest

from bilinear.constructions.values import factored, linalg
from bilinear.constructions.values.factored import (householder_compose, reflection, reflection_count,
                                                    signed_permutation_count)
from bilinear.errors import ConformanceError


def _signed_permutation(rng, d: int) -> np.ndarray:
    M = np.zeros((d, d), dtype=object)
    for j, i in enumerate(rng.permutation(d)):
        M[i, j] = int(rng.choice([1, -1]))
    return M


def _exact_rank(M) -> int:
    """Gaussian elimination over the rationals, written for this test."""
    rows = [[F(x) for x in row] for row in M]
    rank, cols = 0, len(rows[0]) if rows else 0
    for c in range(cols):
        pivot = next((r for r in range(rank, len(rows)) if rows[r][c] != 0), None)
        if pivot is None:
            continue
        rows[rank], rows[pivot] = rows[pivot], rows[rank]
        for r in range(len(rows)):
            if r != rank and rows[r][c] != 0:
                f = rows[r][c] / rows[rank][c]
                rows[r] = [a - f * b for a, b in zip(rows[r], rows[rank])]
        rank += 1
    return rank


def _old_split(Q) -> list:
    """The split as it was: each reflection multiplied on as a d x d matrix."""
    d = Q.shape[0]
    M, vs = Q, []
    for i in range(d):
        e = np.zeros(d, dtype=object)
        e[i] = 1
        v = M[:, i] - e
        if all(t == 0 for t in v):
            continue
        M = reflection(v, 2, True) @ M
        vs.append(v)
    return vs


@pytest.mark.parametrize("seed", range(12))
def test_a_signed_permutation_count_is_the_rank_of_m_minus_i(seed):
    rng = np.random.default_rng(seed)
    M = _signed_permutation(rng, int(rng.integers(1, 9)))
    eye = np.eye(M.shape[0], dtype=int).astype(object)
    assert signed_permutation_count(M) == _exact_rank(M - eye) == reflection_count(M)


def test_only_signed_permutations_are_counted():
    assert signed_permutation_count(np.array([[0, 2], [1, 0]], dtype=object)) is None  # an entry 2
    assert signed_permutation_count(np.array([[1, 1], [0, 1]], dtype=object)) is None  # two in a row
    assert signed_permutation_count(np.array([[1, 0], [1, 0]], dtype=object)) is None  # a zero column
    rot = np.array([[F(3, 5), F(-4, 5)], [F(4, 5), F(3, 5)]], dtype=object)
    assert signed_permutation_count(rot) is None
    # cycles: a 3-cycle with signs multiplying to 1 (rank 2) and a fixed point negated (rank 1)
    M = np.array([[0, 0, -1, 0], [-1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 0, -1]], dtype=object)
    assert signed_permutation_count(M) == 3 == _exact_rank(M - np.eye(4, dtype=int).astype(object))


def _orthogonal(rng, d: int) -> np.ndarray:
    """A signed permutation times Pythagorean rotations in random coordinate planes: exact,
    orthogonal, not monomial."""
    M = _signed_permutation(rng, d)
    for _ in range(2):
        i, j = rng.choice(d, size=2, replace=False)
        G = np.eye(d, dtype=int).astype(object)
        G[i, i], G[i, j], G[j, i], G[j, j] = F(3, 5), F(-4, 5), F(4, 5), F(3, 5)
        M = G @ M
    return M


@pytest.mark.parametrize("seed", range(8))
def test_the_rank_one_split_is_the_old_split_and_composes_back(seed):
    rng = np.random.default_rng(100 + seed)
    Q = _orthogonal(rng, int(rng.integers(2, 7)))
    vs = factored._split_orthogonal(Q, True, 0.0)
    old = _old_split(Q)
    assert [list(v) for v in vs] == [list(v) for v in old]
    assert len(vs) == _exact_rank(Q - np.eye(Q.shape[0], dtype=int).astype(object))
    V = np.array([vs], dtype=object)
    beta = np.array([[2] * len(vs)], dtype=object)
    assert (householder_compose(V, beta)[0] - Q == 0).all()


def test_the_split_stops_one_past_its_limit():
    rng = np.random.default_rng(7)
    Q = _orthogonal(rng, 6)
    full = factored._split_orthogonal(Q, True, 0.0)
    assert len(full) > 3
    cut = factored._split_orthogonal(Q, True, 0.0, 2)
    assert [list(v) for v in cut] == [list(v) for v in full[:3]]
    assert [list(v) for v in factored._split_orthogonal(Q, True, 0.0, len(full))] == [list(v) for v in full]


def test_a_large_permutation_is_refused_by_its_count_without_a_split(monkeypatch):
    """A 200-cycle needs 199 reflections: refused for K = 6 by the count, naming it, with no
    split and no orthogonality test; a matrix too large for the exact count in the message says
    more than K."""
    from bilinear.constructions import Weights

    def boom(*a, **k):
        raise AssertionError("split or tested")

    d = 200
    P = np.zeros((d, d), dtype=int)
    P[(np.arange(d) + 1) % d, np.arange(d)] = 1
    monkeypatch.setattr(factored, "_split_orthogonal", boom)
    monkeypatch.setattr(factored, "_orthogonal", boom)
    h0, R = [1] + [0] * (d - 1), [[1] + [0] * (d - 1), [0, 1] + [0] * (d - 2)]
    with pytest.raises(ConformanceError, match=r"A\[0\] needs 199 reflections \(rank\(A - I\) = 199\) > K = 6"):
        Weights("householder:6", A=[P.tolist()], h0=h0, readout=R)
    monkeypatch.undo()
    rng = np.random.default_rng(3)  # not a signed permutation, d = 80 > 64: the split stops at K + 1
    Q = _orthogonal(rng, 80)
    with pytest.raises(ConformanceError, match=r"needs more than K = 2 reflections \(rank\(A - I\) > 2\)"):
        Weights("householder:2", A=[Q.tolist()], h0=[1] + [0] * 79, readout=[[1] + [0] * 79, [0, 1] + [0] * 78])


def test_a_product_of_dihedral_groups_finds_its_householder_count(monkeypatch):
    """The direct sum of three dihedral blocks: K = 6 (each symbol moves all three planes); the
    480-state one-hot matrices are counted, never split."""
    from bilinear.constructions.settle import settle

    real = factored._split_orthogonal

    def watched(Q, exact, tol, limit=None):
        assert Q.shape[0] <= 64, f"split a {Q.shape[0]} x {Q.shape[0]} matrix"
        return real(Q, exact, tol, limit)

    monkeypatch.setattr(factored, "_split_orthogonal", watched)
    cell = settle("dihedral:3*dihedral:4*dihedral:5", "householder")
    assert (cell.status, cell.dim, cell.factors, cell.factors_lower_bound) == ("proved", 6, 6, 2)


@pytest.mark.parametrize("spec", ["cyclic:5", "dihedral:4", "symmetric:3", "symmetric:4", "parity*cyclic:3"])
def test_the_count_needed_is_the_least_k_that_conforms(spec):
    """householder_count of each construction built for the automaton against the least K whose
    variant accepts its matrices, found by trying K = 1, 2, ... (None: none up to d)."""
    from bilinear.constructions import Weights
    from bilinear.constructions.handmade.registry import candidates
    from bilinear.constructions.values.factored import householder_count

    seen = 0
    for _, w in candidates(spec, tried_for="householder:7"):
        if w.factors is not None or w.dim > 12:
            continue
        for options in ((), ("nonneg",)):
            least = None
            for K in range(1, w.dim + 1):
                try:
                    Weights(",".join([f"householder:{K}", *options]), w.A, w.h0, w.readout)
                except ConformanceError:
                    continue
                least = K
                break
            assert householder_count(w.A, True, options) == least, (w.variant, options)
            seen += least is not None
    assert seen >= 1


def test_past_the_counts_tried_one_by_one_the_least_k_is_read_off_the_matrices(monkeypatch):
    """With the counts tried one by one cut to MAX_COUNT = 1 (and 5), the bare column still finds
    the K it finds trying them all: symmetric:3 K = 2 (the simplex's rotations; one-hot-householder
    alone gave K = 4), and the three dihedral planes K = 6 (their direct sum; nothing else was
    found below the one-hot's hundreds).  The factorised constructions are not built for it
    (one-hot-support took two minutes for the 480 states)."""
    from bilinear.constructions import settle as settle_module
    from bilinear.constructions.handmade import registry

    full = settle_module.settle("symmetric:3", "householder", depth=False)
    monkeypatch.setattr(settle_module, "MAX_COUNT", 1)
    cut = settle_module.settle("symmetric:3", "householder", depth=False)
    assert (full.factors, cut.factors, cut.dim, cut.status) == (2, 2, 2, "proved")
    built = []
    real = registry.candidates

    def watched(*args, **kwargs):
        out = real(*args, **kwargs)
        built.extend(c.name for c, _ in out)
        return out

    monkeypatch.setattr(registry, "candidates", watched)
    monkeypatch.setattr(settle_module, "MAX_COUNT", 5)
    cell = settle_module.settle("dihedral:3*dihedral:4*dihedral:5", "householder", depth=False)
    assert (cell.status, cell.dim, cell.factors) == ("proved", 6, 6)
    assert built and "one-hot-support" not in built


def test_a_composition_is_made_once_per_factors_and_handed_out_as_a_copy(monkeypatch):
    """The registry composes the same factors for every count it tries: the second composition of
    equal factors (identity padding aside) is the first one's matrix, not composed again; every
    caller gets its own copy; clear_caches() forgets it; field elements are never kept."""
    from fractions import Fraction

    from bilinear.constructions.exact.field import cos2pi
    from bilinear.constructions.values import factored
    from bilinear.constructions.values.memo import clear_caches

    calls = []
    compose = linalg._rational_householder
    monkeypatch.setattr(linalg, "_rational_householder", lambda V, beta, d: calls.append(d) or compose(V, beta, d))
    clear_caches()
    V = np.array([[[1, 1, 0], [0, 1, 1], [1, 0, 0]]], dtype=object)
    beta = np.array([[2, Fraction(1, 2), 0]], dtype=object)
    first = factored.householder_compose(V, beta)
    # the product by hand: H(v, b) = I - b v v^T / (v . v), left to right
    H = [np.eye(3, dtype=object) - b * np.outer(v, v) / int(v @ v) for v, b in zip(V[0], beta[0]) if b != 0]
    assert (first[0] == H[0] @ H[1]).all()
    padded = np.array([[[1, 1, 0], [0, 1, 1], [5, 5, 5], [0, 0, 1]]], dtype=object)
    again = factored.householder_compose(padded, np.array([[2, Fraction(1, 2), 0, 0]], dtype=object))
    assert calls == [3] and (again == first).all()
    kept = linalg.rational_householder(V[0], beta[0], 3)  # the kept matrix itself: read-only, shared
    assert calls == [3] and not kept.flags.writeable and (kept == first[0]).all()
    again[0, 0, 0] = 99  # a copy: the kept matrix is not touched
    assert (factored.householder_compose(V, beta) == first).all() and calls == [3]
    clear_caches()
    factored.householder_compose(V, beta)
    assert calls == [3, 3]
    kept = len(linalg._COMPOSED)
    field = np.array([[[cos2pi(1, 5), 1, 0]]], dtype=object)
    twice = [factored.householder_compose(field, np.array([[2]], dtype=object)) for _ in range(2)]
    assert len(linalg._COMPOSED) == kept and (twice[0] == twice[1]).all()  # tried in FLINT each time, never kept


def test_kept_compositions_tell_an_int_from_a_fraction_and_leave_a_zero_vector_to_the_general_path():
    """The key reads an int n as n/1: factors (3, 1, 0) and (3/2, 1, 0) (not parallel: different
    reflections) are two keys, each composed to its own reflection, checked by hand; a zero vector
    (v . v = 0) is not composed in FLINT and not kept, and the general path divides by zero as it
    always did."""
    from fractions import Fraction

    from bilinear.constructions.values import factored
    from bilinear.constructions.values.memo import clear_caches

    clear_caches()
    for v in ([3, 1, 0], [Fraction(3, 2), 1, 0]):
        got = factored.householder_compose(np.array([[v]], dtype=object), np.array([[2]], dtype=object))[0]
        u = np.array([Fraction(x) for x in v], dtype=object)
        assert (got == np.eye(3, dtype=object) - 2 * np.outer(u, u) / (u @ u)).all(), v
    kept = len(linalg._COMPOSED)
    with pytest.raises(ZeroDivisionError):
        factored.householder_compose(np.array([[[0, 0, 0]]], dtype=object), np.array([[1]], dtype=object))
    assert len(linalg._COMPOSED) == kept


def test_at_most_max_entries_compositions_are_kept_the_oldest_dropped_first():
    """70 different reflections composed: 64 kept (memo.MAX_ENTRIES), the first six gone; one
    composed again is kept again, as the newest."""
    from bilinear.constructions.values.memo import MAX_ENTRIES, clear_caches

    clear_caches()
    keys = []
    for k in range(70):
        factored.householder_compose(np.array([[[1, k, 0]]], dtype=object), np.array([[2]], dtype=object))
        keys.append((3, (1, 1, k, 1, 0, 1, 2, 1)))
    assert len(linalg._COMPOSED) == MAX_ENTRIES == 64 and list(linalg._COMPOSED) == keys[6:]
    factored.householder_compose(np.array([[[1, 0, 0]]], dtype=object), np.array([[2]], dtype=object))
    assert list(linalg._COMPOSED)[-1] == keys[0] and list(linalg._COMPOSED)[0] == keys[7]

"""constructions/exact/balls.py: the norms' upper ends are the balls of their definitions, bit for
bit (the node horizon's sets depend on every bit of them), and they bound the float norms."""

import math

import flint
import numpy as np
import pytest

from bilinear.constructions.exact.balls import frob, op_norm, precision
from bilinear.constructions.horizon.horizon_nodes import _magnitudes


def _balls(seed: int, n: int, m: int) -> flint.arb_mat:
    """An n x m ball matrix with random midpoints, radii and a few exact zeros."""
    rng = np.random.default_rng(seed)
    mids, rads = rng.standard_normal((n, m)), rng.uniform(0, 1e-9, (n, m))
    mids[rng.random((n, m)) < 0.2] = 0.0
    M = flint.arb_mat(n, m)
    for i in range(n):
        for j in range(m):
            M[i, j] = flint.arb(float(mids[i, j]), float(rads[i, j]))
    return M


def _same(x: flint.arb, y: flint.arb) -> bool:
    """The same ball: equal midpoints and equal radii (exact comparisons of exact points)."""
    return bool(x.mid() == y.mid()) and bool(x.rad() == y.rad())


def _frob_reference(M) -> flint.arb:
    total = flint.arb(0)
    for i in range(M.nrows()):
        for j in range(M.ncols()):
            total = total + M[i, j] * M[i, j]
    top = total.upper()
    return top.sqrt().upper() if top > 0 else flint.arb(0)


def _op_norm_reference(M, squarings: int = 4) -> flint.arb:
    with precision(64):
        whole = _frob_reference(M)
        B = M.transpose() * M
        for _ in range(squarings):
            B = B * B
        inf = flint.arb(0)
        for i in range(B.nrows()):
            row = flint.arb(0)
            for j in range(B.ncols()):
                row = row + abs(B[i, j])
            inf = row.upper() if row.upper() > inf else inf
        if not inf > 0:
            return whole
        bound = (inf.log() / 2 ** (squarings + 1)).exp().upper()
        return bound if bound < whole else whole


@pytest.mark.parametrize("seed, n, m", [(0, 16, 16), (1, 5, 3), (2, 1, 16), (3, 7, 7)])
def test_norms_are_their_definitions_ball_for_ball(seed, n, m):
    M = _balls(seed, n, m)
    with precision():
        assert _same(frob(M), _frob_reference(M))
        assert _same(op_norm(M, range(n), range(m)), _op_norm_reference(M))
    mids = np.array([[float(M[i, j].mid()) for j in range(m)] for i in range(n)])
    assert float(frob(M)) >= np.linalg.norm(mids) and float(op_norm(M, range(n), range(m))) >= np.linalg.norm(mids, 2)


def test_magnitudes_are_floats_at_least_each_entry():
    M = _balls(4, 6, 6)
    got = _magnitudes(M)
    want = [math.nextafter(float(x.abs_upper()), math.inf) for x in M.entries()]
    assert got.tolist() == want
    assert all(flint.arb(g) >= x.abs_upper() for g, x in zip(got.tolist(), M.entries()))
    assert got.tolist().count(math.nextafter(0.0, math.inf)) == sum(1 for x in M.entries() if x.is_zero())


@pytest.mark.parametrize("rows, cols", [([0, 2, 3], [1, 4]), (range(5), [0, 3]), ([1, 4], range(5)), ([2], [2])])
def test_op_norm_of_a_part_is_the_norm_of_that_part(rows, cols):
    """Rows and columns short of the whole matrix (either or both): the bound of the sub-matrix
    copied out here, ball for ball, not of the whole matrix."""
    M = _balls(5, 5, 5)
    part = flint.arb_mat([[M[i, j] for j in cols] for i in rows])
    with precision():
        got = op_norm(M, rows, cols)
        assert _same(got, _op_norm_reference(part))
        assert not _same(got, op_norm(M, range(5), range(5)))


def test_op_norm_of_nothing_or_zero_is_zero():
    """No rows or no columns: 0; an exactly zero matrix: its Frobenius norm, 0 (B = 0 has no
    logarithm)."""
    M = _balls(6, 3, 3)
    with precision():
        for rows, cols in (([], [0, 1]), ([0, 1], []), ([], [])):
            assert _same(op_norm(M, rows, cols), flint.arb(0))
        assert _same(op_norm(flint.arb_mat(3, 3), range(3), range(3)), flint.arb(0))


def test_op_norm_takes_the_smaller_of_the_frobenius_and_the_power_bound():
    """Both sides of the choice, ball for ball against the reference: a rank-one matrix, whose
    Frobenius norm is its 2-norm (the power bound is above it by up to n^(1/32)), and an identity
    in balls, whose Frobenius norm sqrt(16) = 4 is far above the power bound near 1 (there the
    Frobenius sum is skipped: the trace of M^T M already puts it above)."""
    u = [flint.arb(i + 1, 1e-20) for i in range(16)]
    rank_one = flint.arb_mat([[u[i] * u[j] / 100 for j in range(16)] for i in range(16)])
    eye = flint.arb_mat([[flint.arb(int(i == j), 1e-20) for j in range(16)] for i in range(16)])
    with precision():
        got = op_norm(rank_one, range(16), range(16))
        # sigma = |u|^2 / 100 = 14.96; the power bound is sigma (16 x 136 / 1496)^(1/32) = 15.14
        assert _same(got, _op_norm_reference(rank_one)) and 14.96 <= got < 14.97
        got = op_norm(eye, range(16), range(16))
        assert _same(got, _op_norm_reference(eye)) and got < 1.01 and _frob_reference(eye) > 3.99
        # all entries 0.3 / 4 +- 1e-8: rank one in its midpoints, whose bounds agree to the last bits,
        # past the trace's test (it is only as tight as the Frobenius bound): the power bound is still
        # the smaller by a few units of 2^-64, with an infinity norm of B^16 below 1
        flat = flint.arb_mat([[flint.arb(0.3 / 4, 1e-8) for _ in range(4)] for _ in range(4)])
        got = op_norm(flat, range(4), range(4))
    with precision(64):  # op_norm's own precision: its Frobenius bound, which it did not take
        assert _same(got, _op_norm_reference(flat)) and got < frob(flat)

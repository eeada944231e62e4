"""Ball arithmetic for the certified horizons: python-flint ``arb`` helpers, written once.

Every quantity of the horizon theorems (docs/theory.md Section 7) is a ball that encloses the
exact real number; an *upper* bound is the ball's upper end (an exact point), a *lower* bound its
lower end.  A double converts exactly (it is a dyadic rational), a Fraction exactly, a cyclotomic
:class:`~bilinear.constructions.exact.field.FieldElement` to a ball of :data:`PREC` bits.

>>> import numpy as np
>>> M = arb_matrix(np.array([[3.0, 0.0], [4.0, 0.0]]))
>>> float(block_norm(M, (0, 1)).mid())  # the 2-norm of [[3, 0], [4, 0]] is 5
5.0
>>> float(op_norm(M, range(2), range(2)).mid()) >= 5.0
True
>>> x = flint.arb(0, 0.001)  # a ball around 0
>>> hi(x) >= 0.001, lo(x) <= -0.001, hi(sq(x)) <= 0.001**2 * 1.01, hi(x ** 2) == INF  # ** 2 is NaN here
(True, True, True, True)
"""

from __future__ import annotations

import contextlib
import math
from fractions import Fraction

import flint
import numpy as np

__all__ = ["PREC", "precision", "arb", "sq", "frob_array", "INF", "arb_matrix", "column", "hi", "lo", "root", "bmax", "vnorm",
           "frob", "norm_bound", "op_norm", "block_norm", "dyadic_up", "mat_vec"]

#: Bits of the ball arithmetic.
PREC = 128


@contextlib.contextmanager
def precision(bits: int = PREC):
    """Run a block at ``bits`` of working precision (python-flint's context is global)."""
    old = flint.ctx.prec
    flint.ctx.prec = bits
    try:
        yield
    finally:
        flint.ctx.prec = old


def arb(x) -> flint.arb:
    """A ball around ``x``: exact for floats, ints and Fractions; a FieldElement's real ball."""
    if isinstance(x, flint.arb):
        return x
    if isinstance(x, (float, np.floating)):
        return flint.arb(float(x))  # exact: a double is a dyadic rational
    if isinstance(x, (int, np.integer, Fraction)):
        f = Fraction(int(x)) if isinstance(x, np.integer) else Fraction(x)
        return flint.arb(flint.fmpq(f.numerator, f.denominator))
    return x.ball(PREC).real  # FieldElement


def arb_matrix(rows) -> flint.arb_mat:
    """An ``arb_mat`` of a 2-d array of floats, Fractions or FieldElements (exact entries)."""
    rows = [list(r) for r in rows]
    M = flint.arb_mat(len(rows), len(rows[0]))
    for i, r in enumerate(rows):
        for j, x in enumerate(r):
            if x != 0:
                M[i, j] = arb(x)
    return M


def column(values) -> flint.arb_mat:
    """A column ``arb_mat`` of balls."""
    M = flint.arb_mat(len(values), 1)
    for j, x in enumerate(values):
        M[j, 0] = x
    return M


def mat_vec(M: flint.arb_mat, v: list) -> list:
    """``M v`` for a list of balls, as FLINT's matrix product (each entry one ball dot product:
    every ball of ``v`` counts, one around 0 too, and exact zeros add nothing).

    >>> [str(x) for x in mat_vec(flint.arb_mat([[1, 2], [3, 4]]), [flint.arb(0, 1e-10), flint.arb(1)])]
    ['[2.000000000 +/- 1.01e-10]', '[4.000000000 +/- 3.01e-10]']
    """
    return list((M * column(v)).entries())


#: +infinity and -infinity as balls (what a non-finite ball bounds to).
INF, NEG_INF = flint.arb("inf"), -flint.arb("inf")


def hi(x: flint.arb) -> flint.arb:
    """The upper end of a ball, as an exact point (+inf for a ball that is not finite: NaN
    never compares, so it must never pass for a small number)."""
    return x.upper() if x.is_finite() else INF


def lo(x: flint.arb) -> flint.arb:
    """The lower end of a ball, as an exact point (-inf for a ball that is not finite)."""
    return x.lower() if x.is_finite() else NEG_INF


def sq(x: flint.arb) -> flint.arb:
    """x^2 as ``x * x`` (python-flint's ``x ** 2`` is NaN for a ball that contains 0)."""
    return x * x


def root(x: flint.arb) -> flint.arb:
    """Upper bound (an exact point) of sqrt(x) for a ball x around a non-negative number
    (+inf when x is not finite)."""
    top = hi(x)
    if not top.is_finite():
        return INF
    return hi(top.sqrt()) if top > 0 else flint.arb(0)


def bmax(values) -> flint.arb:
    """The largest upper end of the balls (0 for none), an exact point (+inf when one is not
    finite)."""
    out = flint.arb(0)
    for v in values:
        top = hi(v)
        if not top.is_finite():
            return INF
        if top > out:
            out = top
    return out


def vnorm(v) -> flint.arb:
    """The Euclidean norm of a list of balls (a ball)."""
    return sum((x * x for x in v), flint.arb(0)).sqrt()


def frob(M: flint.arb_mat) -> flint.arb:
    """Upper bound of the Frobenius norm (which bounds the 2-norm)."""
    # row-major, as M[i, j] would be read; x * x is sq(x), summed left to right from 0 as sum() does
    return root(sum([x * x for x in M.entries()], flint.arb(0)))


def frob_array(X) -> flint.arb:
    """Upper bound of the Frobenius norm of a float array, from its exact entries."""
    return root(sum((sq(arb(float(x))) for x in np.asarray(X, dtype=float).flat), flint.arb(0)))


def norm_bound(M: flint.arb_mat, rows, cols, groups) -> flint.arb:
    """Upper bound (an exact point) of the 2-norm of ``M[rows, cols]``.

    :func:`op_norm` (powers of M^T M); on the diagonal (``rows is cols``) also the largest 2-norm
    of a diagonal block of ``groups`` (exact for 1x1 and 2x2 blocks, :func:`op_norm` for larger) plus the Frobenius norm of
    the entries outside those blocks (triangle inequality); the smaller of the two.
    """
    whole = op_norm(M, rows, cols)
    if rows is not cols or not groups:
        return whole
    inside = {(i, j) for g in groups for i in g for j in g}
    rest = sum((sq(M[i, j]) for i in rows for j in cols if (i, j) not in inside), flint.arb(0))
    blocks = bmax(block_norm(M, g) if len(g) == 2 else abs(M[g[0], g[0]]) if len(g) == 1 else op_norm(M, g, g)
                  for g in groups)
    split = hi(blocks + root(rest))
    return split if split < whole else whole


def op_norm(M: flint.arb_mat, rows, cols, squarings: int = 4) -> flint.arb:
    """Upper bound (an exact point) of the 2-norm of ``M[rows, cols]``: with B = M^T M,
    ||M||^2 = lambda_max(B) <= ||B^(2^k)||_inf^(2^-k) (the spectral radius is at most any induced
    norm), and never more than the Frobenius norm."""
    rows, cols = list(rows), list(cols)
    if not rows or not cols:
        return flint.arb(0)
    with precision(64):  # ball arithmetic is rigorous at any precision; an upper bound is all we need
        if rows == list(range(M.nrows())) and cols == list(range(M.ncols())):  # the whole matrix itself
            sub = M  # (a copy made at this precision holds the same balls: arb_mat copies exactly)
        else:
            sub = flint.arb_mat([[M[i, j] for j in cols] for i in rows])
        B = first = sub.transpose() * sub
        for _ in range(squarings):
            B = B * B
        n, entries = B.ncols(), [abs(x) for x in B.entries()]
        inf = bmax([sum(entries[i * n:(i + 1) * n], flint.arb(0)) for i in range(B.nrows())])
        if inf > 0:
            bound = hi((inf.log() / 2 ** (squarings + 1)).exp())
            # trace(M^T M) is the squared Frobenius norm, in a ball (FLINT's dot products): the
            # root of its lower end is at most the Frobenius bound below, so past the power bound
            # that one cannot be the smaller -- the same answer without its entry-by-entry sum
            # (most calls on a network's products: their Frobenius norm is well above the 2-norm)
            low = first.trace().lower()
            if low > 0 and low.sqrt().lower() > bound:
                return bound
        whole = frob(sub)
        if not inf > 0:
            return whole
        return bound if bound < whole else whole


def block_norm(M: flint.arb_mat, g) -> flint.arb:
    """The 2-norm of a 2x2 diagonal block ``M[g, g]``, exactly: s^2 = (f + sqrt(f^2 - 4 det^2)) / 2."""
    a, b, c, d = M[g[0], g[0]], M[g[0], g[1]], M[g[1], g[0]], M[g[1], g[1]]
    f = a * a + b * b + c * c + d * d
    det = a * d - b * c
    disc = f * f - 4 * det * det
    disc = hi(disc) if hi(disc) > 0 else flint.arb(0)
    return hi(((f + disc.sqrt()) / 2).sqrt())


def dyadic_up(x: float) -> flint.fmpq:
    """A dyadic rational (40 bits) at least ``x``."""
    f = Fraction(math.ceil(x * 2**40), 2**40)
    return flint.fmpq(f.numerator, f.denominator)

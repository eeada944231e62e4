"""constructions/horizon/horizon_nodes.py: the per-suffix tables the node sets step with (children,
the readout rows' norms per age and block, the re-entry norms) against the same quantities
computed here from their definitions, with products formed in another order: every entry is at
least the float norm of the midpoints (it bounds the exact norm) and within 1e-9 of the norm of
this test's own ball product (not a looser bound, not another suffix's, not another age's)."""

from __future__ import annotations

import flint
import numpy as np
import pytest

from bilinear.automata import from_spec
from bilinear.constructions import Weights, build, prove
from bilinear.constructions.exact.balls import op_norm, precision
from bilinear.constructions.horizon.horizon_global import ingredients
from bilinear.constructions.horizon.horizon_nodes import NodeSets
from bilinear.constructions.horizon.roundoff import RoundOff
from bilinear.constructions.horizon.snap import construction_snap, drift

TOL = 1e-9


@pytest.fixture(scope="module")
def setup():
    """reset:3 as a perturbed `full` network (hidden 6): non-commuting, not orthogonal, and the
    snap's basis in blocks of sizes 1 and 2."""
    w = drift(build("reset:3", "full").to_float(), 0.0, hidden=6, seed=1)
    A, h, R = w.float_arrays()
    A = A + 3e-4 * np.random.default_rng(1).normal(size=A.shape)
    w, a = Weights("full", A, h, R), from_spec("reset:3")
    snap = construction_snap(w, a)
    proof = prove(snap.block_weights, a)
    assert proof.status == "proved"
    with precision():
        _, st = ingredients(w, snap, proof, a, RoundOff.of("float64", w.dim))
    sizes = sorted(len(b) for b in snap.blocks)
    assert 1 in sizes and 2 in sizes, sizes
    return st, a, snap.blocks


def _mids(M) -> np.ndarray:
    return np.array([[float(M[i, j].mid()) for j in range(M.ncols())] for i in range(M.nrows())])


def _upper(x: flint.arb) -> float:
    return float(x.upper())


def _product(F, s) -> flint.arb_mat:
    """P(s) = F_{s[-1]} ... F_{s[0]}, multiplied left to right (the code multiplies from the right)."""
    d = F[0].nrows()
    P = flint.arb_mat([[flint.arb(int(i == j)) for j in range(d)] for i in range(d)])
    for a in reversed(s):
        P = P * F[a]
    return P


def _near(got: float, ball: flint.arb, floor: float) -> bool:
    """``got`` bounds the exact value (at least ``floor``, a float norm of the midpoints, less
    rounding) and is within TOL of the upper end of this test's own ball."""
    return got >= floor * (1 - 1e-12) and abs(got - _upper(ball)) <= TOL * max(1.0, _upper(ball))


def _frob_ball(M) -> flint.arb:
    return sum((M[i, j] * M[i, j] for i in range(M.nrows()) for j in range(M.ncols())), flint.arb(0)).sqrt()


def _run(st, a, ages, blocks, steps=3) -> NodeSets:
    with precision():
        sets = NodeSets(st, a, 2, ages, 1, blocks)
        for _ in range(steps):
            sets.margins()
            sets.step()
        sets.margins()
    return sets


@pytest.mark.parametrize("ages,per_block", [(2, False), (2, True), (1, True), (0, True), (0, False)])
def test_tables_are_the_norms_of_their_definitions(setup, ages, per_block):
    st, a, blocks = setup
    sets = _run(st, a, ages, blocks if per_block else None)
    d, V = sets.d, sets.V
    filled = np.flatnonzero(sets._have)
    assert len(filled) == len(sets.suffixes), "every suffix reached is tabled"
    lengths = {len(s) for s in sets.suffixes}
    assert lengths == {0, 1, 2}
    dv = [_mids(v) for v in sets.dv]
    with precision():
        for sid in filled.tolist():
            s = sets.suffixes[sid]
            assert sets._t_child[sid].tolist() == [sets.sid_of[(s + (b,))[-2:]] for b in range(V)]
            assert bool(sets._t_long[sid]) == (len(s) >= ages)
            ndv = sets._t_ndv[sid]
            assert ndv.shape == (len(sets.pairs), ages + 1, sets.nb)
            for j in range(ages + 1):
                if j > len(s):
                    assert not ndv[:, j].any()
                    continue
                P = _product(st.F, s[len(s) - j:])
                Pm = _mids(P)
                for p, v in enumerate(sets.dv):
                    row = v * P
                    for i, b in enumerate(sets.blocks):
                        ball = _frob_ball(flint.arb_mat([[row[0, c] for c in b]]))
                        floor = float(np.linalg.norm(dv[p] @ Pm[:, list(b)]))
                        assert _near(float(ndv[p, j, i]), ball, floor), (s, j, p, b, ndv[p, j, i], ball)
            if not sets._t_long[sid]:
                assert not sets._t_re[sid].any()
                continue
            for b_ in range(V):
                M = st.F[b_] * _product(st.F, s[len(s) - ages:] if ages else ())
                Mm = _mids(M)
                re = sets._t_re[sid, b_]
                assert re.shape == (sets.nb, sets.nb)
                if sets.nb == 1:
                    # op_norm's bound of this test's product (op_norm against its definition:
                    # tests/constructions/exact/test_balls.py), at least the float 2-norm
                    ball = op_norm(M, range(d), range(d))
                    assert _near(float(re[0, 0]), ball, float(np.linalg.norm(Mm, 2))), (s, b_)
                    continue
                for i, bi in enumerate(sets.blocks):
                    for k, bk in enumerate(sets.blocks):
                        sub = Mm[np.ix_(list(bi), list(bk))]
                        if i != k:  # the Frobenius norm of an off-diagonal block
                            ball = _frob_ball(flint.arb_mat([[M[r, c] for c in bk] for r in bi]))
                            assert _near(float(re[i, k]), ball, float(np.linalg.norm(sub))), (s, b_, i, k)
                        else:  # a diagonal block's 2-norm (exact for 1x1 and 2x2)
                            two = float(np.linalg.norm(sub, 2))
                            assert two * (1 - 1e-12) <= re[i, i] <= two * (1 + TOL) + 1e-300, (s, b_, bi, re[i, i], two)

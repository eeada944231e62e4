"""The ball search of ``certify --from`` (analysis/certify_balls.py, docs/theory.md Theorem A8) on
fixture (b)'s tensors read without fla: its Frobenius balls against numpy, its rounding against the
formula recomputed here, and its lengths against the float model run by torch."""

from __future__ import annotations

import itertools

import flint
import numpy as np
import pytest
import torch

from bilinear.analysis.certify_balls import _Ball, _inside, _step, _step_rounding, ball_horizon
from bilinear.analysis.external_head import HeadBalls, Rounding
from bilinear.automata.automaton import Automaton
from bilinear.constructions.exact.balls import op_norm
from bilinear.learned.handset import s3_automaton

from .test_certify_external_fast import _model


def _mat(X) -> flint.arb_mat:
    return flint.arb_mat([[flint.arb(float(x)) for x in row] for row in np.asarray(X, dtype=float)])


def _np(M: flint.arb_mat) -> np.ndarray:
    return np.array([[float(M[a, b].mid()) for b in range(M.ncols())] for a in range(M.nrows())])


def test_step_encloses_the_image_of_the_ball():
    """The worst point of the ball (along A's top singular vector) lands inside the stepped ball,
    and the stepped radius is ||A||_2 rho + rho_step, up to the norm bound's slack."""
    rng = np.random.default_rng(3)
    A, b, C = rng.normal(size=(3, 3)), rng.normal(size=(3, 2)), rng.normal(size=(3, 2))
    rho, extra = 0.5, 0.01
    An = _mat(A)
    a_norm = op_norm(An, range(3), range(3), squarings=10)
    out = _step(_Ball(_mat(C), flint.arb(rho)), An, _mat(b), a_norm, flint.arb(extra))
    top = np.linalg.norm(A, 2)
    assert top * rho + extra <= float(out.radius) <= top * rho * 1.001 + extra + 1e-12
    _, _, vt = np.linalg.svd(A)
    for sign in (1, -1):  # S - C = rho v w^T: ||A (S - C)||_F = ||A||_2 rho
        E = sign * rho * np.outer(vt[0], [0.6, 0.8])
        image = A @ (C + E) + b
        assert np.linalg.norm(image - _np(out.centre)) <= float(out.radius) - extra + 1e-9
    assert np.allclose(_np(out.centre), A @ C + b, atol=1e-12)
    # a ball of matrices A: the radius of A C + b is added (numpy: |C| times A's entry radius)
    wide = _step(_Ball(_mat(C), flint.arb(rho)), _mat(A) + flint.arb_mat(3, 3, [flint.arb(0, 0.01)] * 9), _mat(b),
                 a_norm, flint.arb(extra))
    spread = np.linalg.norm(0.01 * np.abs(C).sum(axis=0) * np.ones((3, 1)))
    assert float(wide.radius) >= float(out.radius) + spread * 0.999
    assert _Ball(_mat([[3.0, 0.0], [0.0, 4.0]]), flint.arb(0.5)).norm() == 5.5
    # the entries' boxes hold every entry of every state in the ball
    box = out.entries()
    assert all(box[a][e].contains(flint.arb(float(out.centre[a, e].mid()) + float(out.radius) * 0.999))
               for a in range(3) for e in range(2))
    assert not box[0][0].contains(flint.arb(float(out.centre[0, 0].mid()) + float(out.radius) * 1.01))


def test_inside_is_the_triangle_inequality():
    big = [_Ball(_mat([[0.0, 0.0], [0.0, 0.0]]), flint.arb(1.0))]
    shift = np.array([[0.375, 0.0], [0.0, 0.5]])  # ||shift||_F = 0.625
    assert _inside(big, [_Ball(_mat(shift), flint.arb(0.37))])
    assert not _inside(big, [_Ball(_mat(shift), flint.arb(0.38))])
    # every head must be inside its own ball
    assert not _inside(big * 2, [_Ball(_mat(shift), flint.arb(0.1)), _Ball(_mat(3 * shift), flint.arb(0.1))])


def test_step_rounding_is_theorem_a7s_formula():
    model = _model()
    for name in ("float32", "bfloat16"):
        r = Rounding.of(name)
        inp = HeadBalls(model, tuple(range(6)), name, r).token_inputs(2)
        def top(balls):
            return float(np.linalg.norm([float(abs(x).upper()) for x in balls]))

        kap = max(top(inp["k"][j][0]) for j in range(2))
        nu = max(top(inp["v"][j][0]) for j in range(2))
        bb = max(float(abs(inp["beta"][j][0]).upper()) for j in range(2))
        norm, K, dk, dv = 300.0, 2, 2, 2
        P = (1 + bb * kap * kap) ** K * norm + K * bb * kap * nu
        g = (dk + 4) * r.u / (1 - (dk + 4) * r.u)
        want = r.u * P + K * g * (1 + bb * kap) * (P + bb * kap * (nu + kap * P)) + K * (dk + 5) * dk * dv * r.eta
        got = float(_step_rounding(r, flint.arb(norm), inp, 0, K, dk, dv))
        assert want * (1 - 1e-9) <= got <= want * (1 + 1e-6), (name, want, got)
    r = Rounding.of("float16")
    inp = HeadBalls(model, tuple(range(6)), "float16", r).token_inputs(2)
    assert float(_step_rounding(r, flint.arb(1e5), inp, 0, 2, 2, 2)) == float("inf")  # past 65504 / 4
    assert _step_rounding(Rounding.exact(), flint.arb(300), inp, 0, 2, 2, 2) == 0


def _labels_right(model, automaton, dtype: str, length: int) -> bool:
    """Every word of every length <= ``length`` run by torch in ``dtype``: the automaton's label?"""
    w = np.array(list(itertools.product(range(automaton.n_symbols), repeat=length)))
    with torch.no_grad():
        got = model.forward(torch.as_tensor(w), getattr(torch, dtype))[..., :6].double().argmax(-1).numpy()
    return bool((got == automaton.labels_batch(w, trace=True)).all())


def test_ball_horizon_lengths_hold_for_the_float_model():
    model, automaton = _model(), s3_automaton()
    h = ball_horizon(model, automaton, (0, 1, 2), tuple(range(6)), "float64", delta=2.0 ** -30, max_nodes=30)
    assert h["every"] is False and h["failing"] is None and 3 <= h["length"] <= 8
    assert _labels_right(model, automaton, "float64", h["length"])
    # a level of more than max_nodes nodes stops the search at the levels completed
    small = ball_horizon(model, automaton, (0, 1, 2), tuple(range(6)), "float64", delta=2.0 ** -30, max_nodes=8)
    assert small == {"length": 2, "every": False, "failing": None, "nodes": 3 + 9, "steps": 3 + 9, "stopped": "nodes"}
    nine = ball_horizon(model, automaton, (0, 1, 2), tuple(range(6)), "float64", delta=2.0 ** -30, max_nodes=9)
    assert nine["length"] >= 3  # a level of exactly max_nodes nodes is run on
    # max_depth caps the levels run
    assert ball_horizon(model, automaton, (0, 1, 2), tuple(range(6)), "float64", delta=2.0 ** -30,
                        max_depth=2) == {"length": 2, "every": False, "failing": None, "nodes": 12, "steps": 12,
                                         "stopped": "depth"}
    # the default widening is 2^-10: on fixture (b) it fails at the identity's zero state
    assert ball_horizon(model, automaton, (0, 1, 2), tuple(range(6)), "float64", max_nodes=8) == \
        ball_horizon(model, automaton, (0, 1, 2), tuple(range(6)), "float64", delta=2.0 ** -10, max_nodes=8) != \
        ball_horizon(model, automaton, (0, 1, 2), tuple(range(6)), "float64", delta=2.0 ** -11, max_nodes=8)
    # bfloat16: the head's margin after one token is not certified (the first failure is 2 tokens later)
    bf = ball_horizon(model, automaton, (0, 1, 2), tuple(range(6)), "bfloat16")
    assert bf == {"length": 0, "every": False, "failing": (0,), "nodes": 0, "steps": 1, "stopped": None}


def test_a_contraction_closes_for_every_length():
    """One symbol, one state, one class: with exp(g) = 0.03 the states converge to the fixed point,
    so a later ball falls inside a widened earlier one and every length is covered."""

    def edit(t):
        for name in ("model.layers.0.attn.A_log", "model.layers.0.attn.dt_bias"):
            t[name] = t[name].copy() * (-1 / 60)

    model = _model(edit)
    one = Automaton([[0]], 0, [0], symbols=["t1"], classes=["c"])
    h = ball_horizon(model, one, (0,), (0,), "float64", delta=2.0 ** -12)
    assert h["every"] is True and h["failing"] is None and h["length"] == h["nodes"] + 1 and 2 <= h["length"] <= 6
    with pytest.raises(Exception, match="dtype"):
        ball_horizon(model, one, (0,), (0,), "float8")


def test_step_rounding_charges_underflow_and_stops_at_a_quarter_of_the_range():
    model = _model()
    inp = HeadBalls(model, tuple(range(6)), "float64", Rounding.of("float64")).token_inputs(2)
    # a format whose underflow dominates: the eta term alone, K (dk + 5) dk dv eta = 2 * 7 * 2 * 2 / 8
    loud = Rounding("float16", 2.0 ** -60, 2.0 ** -3)
    assert float(_step_rounding(loud, flint.arb(1.0), inp, 0, 2, 2, 2)) == pytest.approx(7.0, rel=1e-9)
    # overflow is excluded at a quarter of the largest number: a bound of the intermediate states P
    # at 65504 / 4.5 still gets a finite rounding (it would not at a fifth)
    r = Rounding.of("float16")
    kap = max(float(np.linalg.norm([float(abs(x).upper()) for x in inp["k"][j][0]])) for j in range(2))
    nu = max(float(np.linalg.norm([float(abs(x).upper()) for x in inp["v"][j][0]])) for j in range(2))
    bb = max(float(abs(inp["beta"][j][0]).upper()) for j in range(2))
    norm = (65504 / 4.5 - 2 * bb * kap * nu) / (1 + bb * kap * kap) ** 2
    assert np.isfinite(float(_step_rounding(r, flint.arb(norm), inp, 0, 2, 2, 2)))
    assert float(_step_rounding(r, flint.arb(norm * 1.2), inp, 0, 2, 2, 2)) == float("inf")

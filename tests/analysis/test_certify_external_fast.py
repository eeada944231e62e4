"""``certify_external`` on fixture (b)'s tensors read without fla (the reader's torch-only path):
fast enough for the mutation runs of benchmarks/mutate_auto.py.  Every figure asserted here is
checked against an independent computation written for the test."""

from __future__ import annotations

import itertools
import math

import flint
import numpy as np
import pytest
import torch

from bilinear.analysis.certify_external import certify_external, closure, label_diff, snap_heads
from bilinear.analysis.external_head import HeadBalls, Rounding, margin
from bilinear.constructions.values.external import external_config
from bilinear.learned.external.model import _from_tensors
from bilinear.learned.handset import _parameters, s3_automaton, s3_construction

#: fixture (b)'s config.json as fla 0.6.0 writes it (the fields the reader reads).
CONFIG = {"allow_neg_eigval": True, "model_type": "gated_deltaproduct", "conv_size": 4, "expand_v": 1.0,
          "fuse_norm": True, "fuse_swiglu": True, "head_dim": 2, "hidden_act": "swish", "hidden_ratio": 4,
          "hidden_size": 6, "intermediate_size": 4, "norm_eps": 1e-06, "num_heads": 1, "num_hidden_layers": 1,
          "num_householder": 2, "tie_word_embeddings": False, "use_forget_gate": True, "use_l2warp": False,
          "use_output_gate": False, "use_short_conv": False, "vocab_size": 6, "dtype": "float32"}


def _model(edit=None):
    t = _parameters(s3_construction(), True)
    if edit:
        edit(t)
    return _from_tensors(external_config(CONFIG, "fla"), t, "test")


@pytest.fixture(scope="module")
def s3():
    model, automaton = _model(), s3_automaton()
    cert = certify_external(model, automaton, (0, 1, 2), None, dtypes=("float64", "float32", "bfloat16"))
    return model, automaton, cert


def _truth_search(model, automaton, dtype: str, depth: int = 7) -> int | None:
    """The first length (every word to ``depth``, then periodic words to 60) at which torch in
    ``dtype`` gives a class other than the automaton's."""
    n = automaton.n_symbols
    runs = [np.array(list(itertools.product(range(n), repeat=depth)))]
    seeds = [p for k in (1, 2, 3) for p in itertools.product(range(n), repeat=k)]
    runs.append(np.array([(list(p) * 60)[:60] for p in seeds]))
    best = None
    for w in runs:
        with torch.no_grad():
            got = model.forward(torch.as_tensor(w), getattr(torch, dtype))[..., :6].float().argmax(-1).numpy()
        bad = np.nonzero((got != automaton.labels_batch(w, trace=True)).any(axis=0))[0]
        if bad.size:
            best = int(bad[0]) + 1 if best is None else min(best, int(bad[0]) + 1)
    return best


def test_proof_and_lengths(s3):
    model, automaton, cert = s3
    assert cert.status == "proved" and cert.pairs == 18 and cert.counterexample is None
    L = {d: h["length"] for d, h in cert.horizons.items()}
    # float32: Theorem A7's step rounding (c = 0.03 per step) is wider than the largest radius the
    # head is certified on (7.4e-4: the identity's state is 0, where o_norm divides by sqrt(eps))
    assert 0 == L["bfloat16"] == L["float32"] < L["float64"]
    r = cert.horizons["float64"]["radius"]
    assert cert.horizons["float32"]["c"] > r and 5e-4 < r < 1e-3
    text = cert.to_text()
    assert ("horizon (float32): no length certified (the head's margin in float32 is positive at the snapped "
            "states, but one step's error bound 0.03") in text
    assert "horizon (bfloat16): no length certified (the head's margin in bfloat16 at the snapped states is not " \
           "certified positive" in text
    assert "horizon (float64): every word of length <= " in text
    for d in ("float32", "bfloat16"):
        fail = _truth_search(model, automaton, d)
        assert fail is None or L[d] < fail
    assert _truth_search(model, automaton, "bfloat16") == 2


def test_horizon_figures_against_a_recomputation(s3):
    _, _, cert = s3
    for d, h in cert.horizons.items():
        if h["length"] == 0:
            continue
        a, c, r, L = h["a"], h["c"], h["radius"], h["length"]
        def grown(t, a=a, c=c):
            return c * t if a == 0 else c * ((1 + a) ** t - 1) / a

        assert grown(L) <= r * (1 + 1e-9) and grown(L + 1) > r * 0.98, (d, L, grown(L), grown(L + 1), r)
        assert 0 < r < h["M"] and h["head_margin"] > 0
        # the step's rounding (Theorem A7), recomputed from the figures it is made of
        u = {"float64": 2.0 ** -53, "float32": 2.0 ** -24}[d]
        K, dk = 2, 2
        kap, nu, bb = h["kappa"], h["nu"], h["beta_max"]
        assert 0.999 < kap < 1.001 and 100 < nu < 200 and 1.99 < bb <= 2.0 + 1e-6
        P = (1 + bb * kap * kap) ** K * (h["M"] + r) + K * bb * kap * nu
        g = (dk + 4) * u / (1 - (dk + 4) * u)
        rho = u * P + K * g * (1 + bb * kap) * (P + bb * kap * (nu + kap * P))
        assert rho <= h["rho"] <= rho * (1 + 1e-6) + 1e-300, (d, rho, h["rho"])
        assert h["c"] == pytest.approx(a * h["M"] + h["db"] + h["rho"], rel=1e-9)
    # float32's figures: transitions within ~float32 of the snap; the key direction (1/2, sqrt 3/2) is
    # off by its float32 rounding, the additive terms by RHO times that
    f = cert.horizons["float32"]
    assert 1e-7 < f["a"] < 1e-3 and f["db"] < 1e-2 and f["rho"] > 0
    assert cert.horizons["float64"]["a"] < 1e-6 and 20 < cert.horizons["float64"]["length"] < 100


def test_the_snap_is_the_hand_construction(s3):
    model, automaton, _ = s3
    from bilinear.learned.external import head_transitions

    tr = model.as_tracker(tokens={"t1": 0, "t2": 1, "c": 2}, labels=None, n_classes=6)
    snaps, why = snap_heads(head_transitions(model, tr, 0))
    assert why == "" and snaps is not None
    A = np.array(snaps[0].A, dtype=float)
    assert np.allclose(A, s3_construction()["A"], atol=1e-15)
    assert np.array_equal(np.array(snaps[0].C, dtype=float), 128.0 * np.eye(2))
    pairs, edges, words = closure(snaps, automaton)
    assert len(pairs) == 6 and len(edges) == 18
    for (q, _), w in words.items():  # the access words reach their automaton states
        assert automaton.run(w) == q
    assert closure(snaps, automaton, budget=3) is None


def test_snap_refusals():
    from bilinear.learned.external import head_transitions

    automaton = s3_automaton()

    def broken(value, *names):
        def edit(t):
            for name in names:
                t[name] = t[name].copy() * value
        return edit

    gate = ("model.layers.0.attn.A_log", "model.layers.0.attn.dt_bias")  # -60 -> 1: exp(g) = 0.03
    for edit, text in [(broken(1 / 256, "model.layers.0.attn.b_proj.weight"), "beta"),
                       (broken(-1 / 60, *gate), "gate")]:
        m = _model(edit)
        tr = m.as_tracker(tokens={"t1": 0, "t2": 1, "c": 2}, labels=None, n_classes=6)
        snaps, why = snap_heads(head_transitions(m, tr, 0))
        assert snaps is None and text in why, why
        cert = certify_external(m, automaton, (0, 1, 2), None, diff=False)
        assert cert.status == "failed" and "proved" not in cert.to_text().split("status")[0]


def test_head_balls_contain_the_float64_forward(s3):
    model, automaton, _ = s3
    head = HeadBalls(model, tuple(range(6)))
    words = np.array([[0, 1, 2, 2, 1], [2, 2, 2, 0, 0]])
    with torch.no_grad():
        logits = model.forward(torch.as_tensor(words)).numpy()
    S = model.states(words)[0].numpy()  # (batch, time, heads, dk, dv)
    for b in range(2):
        for t in range(5):
            balls = head.logits([[[flint.arb(float(x)) for x in row] for row in S[b, t, 0]]], int(words[b, t]))
            for c in range(6):
                assert abs(float(balls[c].mid()) - logits[b, t, c]) < 1e-9 * max(1.0, abs(logits[b, t, c]))
            m = margin(balls, int(automaton.labels_batch(words[b:b + 1, :t + 1], trace=True)[0, -1]))
            assert m > 0


def test_rounding_widens_and_exact_does_not():
    r, e = Rounding.of("bfloat16"), Rounding.exact()
    x = r.dot([flint.arb(1), flint.arb(-1)], [flint.arb(3), flint.arb(3)])
    g2 = 2 * 2.0 ** -8 / (1 - 2 * 2.0 ** -8)
    assert x.contains(0) and g2 * 6 <= float(x.rad()) <= g2 * 6 * 1.01 + 2.0 ** -120
    assert e.dot([flint.arb(2)], [flint.arb(3)]).rad() == 0 and e.op(flint.arb(5)).rad() == 0
    y = r.op(flint.arb(4))
    assert 4 * 2 * 2.0 ** -8 <= float(y.rad()) <= 4 * 2 * 2.0 ** -8 * 1.01
    assert float(Rounding.of("float16").gamma(3).mid()) == pytest.approx(3 * 2.0 ** -11 / (1 - 3 * 2.0 ** -11))
    assert margin([flint.arb(1), flint.arb(3), flint.arb(2)], 1) == 1
    assert margin([flint.arb(1), flint.arb(3), flint.arb(2)], 2) == -1
    assert margin([flint.arb(5)], 0) == 1


def test_label_diff_finds_the_bfloat16_word(s3):
    model, _, _ = s3
    w, n = label_diff(model, (0, 1, 2), tuple(range(6)), 3, "bfloat16", depth=3, count=4)
    assert w == (1, 1) and n == 27
    assert label_diff(model, (0, 1, 2), tuple(range(6)), 3, "float32", depth=3, long=8, count=4) == (None, 31)
    assert math.isfinite(n)


def test_beta_one_snaps_to_projections():
    """b_proj = 0: beta = 2 sigmoid(0) = 1 exactly, every factor a projection I - k k^T."""
    from bilinear.learned.external import head_transitions

    def edit(t):
        t["model.layers.0.attn.b_proj.weight"] = t["model.layers.0.attn.b_proj.weight"] * 0

    m = _model(edit)
    tr = m.as_tracker(tokens={"t1": 0, "t2": 1, "c": 2}, labels=None, n_classes=6)
    heads = head_transitions(m, tr, 0)
    snaps, why = snap_heads(heads)
    assert why == "" and snaps is not None
    A = np.array(snaps[0].A, dtype=float)
    assert np.allclose(A, heads[0].A, atol=1e-6) and np.allclose(A[0], [[0, 0], [0, 1]])


def test_grown_is_the_closed_form():
    from bilinear.analysis.certify_external import _grown

    assert _grown(flint.arb(0), flint.arb(2), 5) == 10  # c t without growth
    assert _grown(flint.arb(1), flint.arb(1), 3) == 7   # c ((1 + a)^t - 1) / a = 2^3 - 1
    assert _grown(flint.arb(0.5), flint.arb(3), 2) == 7.5


def test_an_undecided_head_margin_is_not_skipped(s3):
    """At the identity's pair the state is 0: on a ball of radius 1e-3 around it the RMS norm of
    ``o = S^T q`` takes every direction, and the head's margin is not certified.  Operation by
    operation the ball's squared norm contained negative numbers, the logits were NaN, and the
    smallest-margin search skipped them (NaN < low is false): the horizon then bisected to a radius
    of 0.2.  The margin is now a finite lower bound, or minus infinity, and the edge is reported."""
    from bilinear.analysis.certify_external import _check_edges
    from bilinear.constructions.exact.balls import arb
    from bilinear.learned.external import head_transitions

    model, automaton, _ = s3
    tr = model.as_tracker(tokens={"t1": 0, "t2": 1, "c": 2}, labels=None, n_classes=6)
    snaps, _ = snap_heads(head_transitions(model, tr, 0))
    pairs, edges, _ = closure(snaps, automaton)
    head = HeadBalls(model, tuple(range(6)))
    low, bad = _check_edges(head, pairs, edges, automaton, (0, 1, 2), arb(1e-3))
    assert low < 0 and not low.is_nan()
    reached = [q for p, s, q in edges if p + (s,) == bad][0]
    assert all(x == 0 for x in reached[1]) and automaton.labels[reached[0]] == automaton.labels[automaton.start]
    assert _check_edges(head, pairs, edges, automaton, (0, 1, 2), arb(5e-4))[0] > 0


@pytest.mark.parametrize("a, c, r", [(0.0, 0.03, 1.0), (1e-3, 0.01, 0.5), (0.5, 1.0, 100.0), (0.0, 7.0, 6.0),
                                     (2e-2, 1e-3, 0.05)])
def test_length_is_the_largest_t_within_the_radius(a, c, r):
    """The certified length against a search written here: t = 0, 1, 2, ... while the error bound of
    Theorem A7 (ii), c ((1 + a)^t - 1) / a, computed in exact rationals, stays within r."""
    from fractions import Fraction

    from bilinear.analysis.certify_external import _length

    A, C, R = Fraction(a), Fraction(c), Fraction(r)
    t = 0
    while (C * (t + 1) if A == 0 else C * ((1 + A) ** (t + 1) - 1) / A) <= R:
        t += 1
    assert _length(flint.arb(a), flint.arb(c), r, 10 ** 12) == t
    assert _length(flint.arb(a), flint.arb(c), r, 3) == min(3, t)  # the cap


def test_length_steps_down_to_the_balls_upper_bound():
    """c a ball [0.1 +- 0.01]: the closed form at its midpoint says 10, the upper bound 0.11 t <= 1 says 9."""
    from bilinear.analysis.certify_external import _length

    assert _length(flint.arb(0), flint.arb(0.1, 0.01), 1.0, 10 ** 12) == 9
    assert _length(flint.arb(0), flint.arb(1.0, 0.5), 1.2, 10 ** 12) == 0  # down from 1: c's upper end 1.5 > 1.2
    # a ball [0.01 +- 0.001] too: the upper bound 0.11 (1.011^t - 1) / 0.009 is 0.97 at t = 7, 1.12 at 8
    assert _length(flint.arb(0.01, 0.001), flint.arb(0.1, 0.01), 1.0, 10 ** 12) == 7


def test_step_rounding_formula_and_overflow():
    from bilinear.analysis.external_head import step_rounding

    r = Rounding.of("float16")
    u, eta = 2.0 ** -11, 2.0 ** -25
    kap, nu, bb, norm, K, dk, dv = 1.0, 3.0, 2.0, 10.0, 2, 4, 3
    P = (1 + bb * kap * kap) ** K * norm + K * bb * kap * nu
    g = (dk + 4) * u / (1 - (dk + 4) * u)
    want = u * P + K * g * (1 + bb * kap) * (P + bb * kap * (nu + kap * P)) + K * (dk + 5) * dk * dv * eta
    args = [flint.arb(x) for x in (norm, kap, nu, bb)]
    assert float(step_rounding(r, *args, K, dk, dv)) == pytest.approx(want, rel=1e-12)
    assert step_rounding(Rounding.exact(), *args, K, dk, dv) == 0
    big = (65504 / 4 - K * bb * kap * nu) / (1 + bb * kap * kap) ** K  # P exactly a quarter of 65504
    assert not step_rounding(r, flint.arb(big * 1.001), *args[1:], K, dk, dv).is_finite()
    assert step_rounding(r, flint.arb(big * 0.999), *args[1:], K, dk, dv).is_finite()

"""The head in balls (analysis/external_head.py): the norms on wide balls (docs/theory.md,
Theorem A7's norm lemma) against points of the ball run by numpy and by torch in bfloat16, and
the margin of an undecided logit."""

from __future__ import annotations

import flint
import numpy as np
import pytest
import torch

from bilinear.analysis.external_head import HeadBalls, Rounding, affine_balls, margin

from .test_certify_external_fast import CONFIG, _model  # noqa: F401


@pytest.fixture(scope="module")
def heads():
    model = _model()
    out = {name: HeadBalls(model, tuple(range(6)), name, Rounding.of(name)) for name in ("float64", "bfloat16")}
    out["real"] = HeadBalls(model, tuple(range(6)))  # float64 weights, nothing rounded
    return out


def _balls(c, r):
    return [flint.arb(float(x), float(y)) for x, y in zip(c, r)]


def _points(c, r, rng, n=200):
    """Points of the box: its corners' signs at random, and interior points."""
    c, r = np.asarray(c, float), np.asarray(r, float)
    signs = rng.choice([-1.0, 1.0], size=(n, len(c)))
    return np.concatenate([c + signs * r, c + rng.uniform(-1, 1, size=(n, len(c))) * r])


def _rms(x, w, eps=1e-6):
    return x * w / np.sqrt((x * x).mean(-1, keepdims=True) + eps)


@pytest.mark.parametrize("c, r", [([3.0, 4.0, 0.0, 1.0], [0.5, 0.5, 0.5, 0.5]),   # wide
                                  ([1e-3, -2e-3, 0.0, 0.0], [5e-3] * 4),          # around 0
                                  ([2.0, -1.0, 0.5, 0.0], [1e-9, 0.0, 1e-9, 0.0])])  # narrow
def test_rms_encloses_every_point_and_keeps_the_lipschitz_bound(heads, c, r):
    rng = np.random.default_rng(0)
    w = np.array([1.5, -0.5, 2.0, 1.0])
    out = heads["real"]._rms(_balls(c, r), torch.tensor(w))
    for p in _points(c, r, rng):
        y = _rms(p, w)
        assert all(b.contains(flint.arb(float(v))) for b, v in zip(out, y)), (p, y, out)
    rho = float(np.linalg.norm(r))
    gap = max(np.linalg.norm(c) - rho, 0.0)
    lip = rho / np.sqrt(gap ** 2 / 4 + 1e-6)  # the norm lemma, recomputed
    for b, wi, ci in zip(out, w, c):
        width = min(lip, 2.0 + abs(ci) / np.sqrt(np.dot(c, c) / 4 + 1e-6)) * abs(wi)  # |x_i| / N(x) <= sqrt(n) = 2
        assert float(b.rad()) <= width * (1 + 1e-6) + 1e-12, (b, width)
    assert all(b.is_finite() for b in out)


def test_rms_on_a_wide_ball_is_tighter_than_operation_by_operation(heads):
    """Operation by operation, x_i * [1 / N] on a ball: (3, 4) +- 0.5 gives radii 0.28 and 0.33,
    the norm lemma rho / N_low = 0.233; (1, 0.1) +- 0.5 reaches ||x|| = 0.3 and the operation by
    operation ball is unbounded, while |x_i| / N(x) <= sqrt(2) always."""
    h = heads["real"]

    def naive(x):
        ss = sum((xi * xi for xi in x), flint.arb(0)) / 2 + flint.arb(1e-6)
        return [xi / ss.sqrt() for xi in x]

    x = _balls([3.0, 4.0], [0.5, 0.5])
    lip = np.hypot(0.5, 0.5) / np.sqrt((5 - np.hypot(0.5, 0.5)) ** 2 / 2 + 1e-6)
    tight = h._rms(x, torch.tensor([1.0, 1.0]))
    assert all(float(t.rad()) <= lip * (1 + 1e-6) < float(n.rad()) for t, n in zip(tight, naive(x)))
    x = _balls([1.0, 0.1], [0.5, 0.5])
    assert not all(n.is_finite() for n in naive(x))
    tight = h._rms(x, torch.tensor([1.0, -3.0]))
    assert [round(float(t.rad()), 6) for t in tight] == [round(2 ** 0.5, 6), round(3 * 2 ** 0.5, 6)]


def test_rms_in_bfloat16_encloses_torch(heads):
    """torch's RMS norm in bfloat16 at points of the ball lies in the bfloat16 ball."""
    rng = np.random.default_rng(1)
    c, r = [3.0, -4.0, 1.0, 0.25], [0.25, 0.25, 0.125, 0.125]
    w = np.array([1.0, 0.5, -2.0, 1.25])
    out = heads["bfloat16"]._rms(_balls(c, r), torch.tensor(w))
    for p in _points(c, r, rng):
        x = torch.tensor(p, dtype=torch.bfloat16)
        y = x * torch.rsqrt((x * x).mean() + 1e-6) * torch.tensor(w, dtype=torch.bfloat16)
        assert all(b.contains(flint.arb(float(v))) for b, v in zip(out, y.double().numpy()))
    # rounding is charged: wider than real arithmetic's ball, but not by more than a few percent of the values
    real = heads["real"]._rms(_balls(c, r), torch.tensor(w))
    assert all(b.rad() > a.rad() for a, b in zip(real, out))
    assert all(float(b.rad()) < float(a.rad()) + 0.2 * abs(float(a.mid())) + 1e-3 for a, b in zip(real, out))


def test_l2_norm_of_a_key_near_zero_is_bounded(heads):
    """fla's l2norm x / sqrt(||x||^2 + 1e-6) of a ball around 0: inside [-1, 1], never NaN."""
    rng = np.random.default_rng(2)
    c, r = [1e-4, 0.0], [1e-2, 1e-2]
    out = heads["real"]._l2(_balls(c, r), None)
    assert all(b.is_finite() and float(b.rad()) <= 1.0 + 1e-6 for b in out)
    for p in _points(c, r, rng):
        y = p / np.sqrt(np.dot(p, p) + 1e-6)
        assert all(b.contains(flint.arb(float(v))) for b, v in zip(out, y))
    q = heads["real"]._l2(_balls([3.0, 4.0], [0.0, 0.0]), 4)  # a query: times dk^(-1/2)
    assert [float(b.mid()) for b in q] == pytest.approx(np.array([3.0, 4.0]) / np.sqrt(25 + 1e-6) / 2, abs=1e-15)


def test_an_undecided_logit_is_the_smallest_margin():
    nan = flint.arb("nan")
    assert margin([nan, flint.arb(1)], 0) < margin([flint.arb(-5), flint.arb(1)], 0)
    assert not margin([flint.arb(1), nan], 0) > 0
    assert margin([flint.arb(2), flint.arb(1), flint.arb(0)], 0) == 1


def _random_model(config: dict, seed: int):
    """A one-layer model of ``config`` (a config.json as fla writes it) with random tensors: the
    reader names each tensor it needs and its shape (CheckpointError), which is drawn at random."""
    import re

    from bilinear.constructions.values.external import external_config
    from bilinear.errors import CheckpointError
    from bilinear.learned.external.model import _from_tensors

    rng = np.random.default_rng(seed)
    tensors: dict = {f"model.layers.{i}.mlp.gate_proj.weight": rng.normal(size=(24, 16)).astype(np.float32) * 0.5
                     for i in range(config["num_hidden_layers"])}
    for _ in range(80):
        try:
            return _from_tensors(external_config(config, "fla"), tensors, "test")
        except CheckpointError as e:
            name, shape = re.search(r"missing tensor '([^']+)' \(shape \(([0-9, ]*)\)", str(e)).groups()
            dims = tuple(int(x) for x in shape.replace(" ", "").split(",") if x)
            x = rng.normal(size=dims) * 0.5
            tensors[name] = (1.0 + x if name.endswith("norm.weight") else x).astype(np.float32)
    raise AssertionError("the reader asked for more than 80 tensors")


BRANCHES = [  # the head's branches: the output gate, no beta, no forget gate, grouped value heads
    dict(CONFIG, model_type="delta_net", num_heads=2, use_beta=False, use_gate=True, head_dim=8,
         qk_activation="identity", hidden_size=16, intermediate_size=24),
    dict(CONFIG, model_type="gated_deltanet", num_heads=2, num_v_heads=4, expand_v=1.5, use_gate=True, head_dim=4,
         output_gate_activation="sigmoid",
         hidden_size=16, intermediate_size=24),
    dict(CONFIG, model_type="gated_deltaproduct", num_heads=2, head_dim=4, use_forget_gate=False,
         use_output_gate=True, allow_neg_eigval=False, hidden_size=16, intermediate_size=24),
]


def test_head_balls_are_the_float64_forward_on_every_branch():
    """At the float64 states of words, the head in real balls is the model's own float64 forward,
    and each token's transition in balls is the reader's ``head_transitions``."""
    from bilinear.learned.external import head_transitions

    words = np.array([[0, 1, 2, 3, 4, 4], [4, 3, 3, 1, 0, 2]])
    for k, config in enumerate(BRANCHES):
        model = _random_model(config, k)
        head = HeadBalls(model, tuple(range(5)))
        with torch.no_grad():
            logits = model.forward(torch.as_tensor(words)).numpy()
        S = model.states(words)[0].numpy()  # (batch, time, heads, dk, dv)
        for b in range(2):
            for t in (0, 3, 5):
                states = [[[flint.arb(float(x)) for x in row] for row in S[b, t, i]] for i in range(S.shape[2])]
                got = [float(z.mid()) for z in head.logits(states, int(words[b, t]))]
                assert np.allclose(got, logits[b, t, :5], rtol=1e-9, atol=1e-9), (model.config.kind, got, logits[b, t])
        tr = model.as_tracker(tokens={str(i): i for i in range(5)}, labels=None, n_classes=5)
        for i, h in enumerate(head_transitions(model, tr, 0)):
            for s in range(5):
                A, bb = affine_balls(head.token_inputs(s), i, model.config.householders)
                assert np.allclose([[float(A[x, y].mid()) for y in range(A.ncols())] for x in range(A.nrows())],
                                   h.A[s], atol=1e-12)
                assert np.allclose([[float(bb[x, y].mid()) for y in range(bb.ncols())] for x in range(bb.nrows())],
                                   h.b[s], atol=1e-12)


def test_head_balls_refuse_what_they_do_not_model():
    from bilinear.analysis.external_head import largest, torch_dtype
    from bilinear.errors import AnalysisError

    two = BRANCHES[2] | {"num_hidden_layers": 2}
    with pytest.raises(AnalysisError, match="this is a 2-layer gated_deltaproduct"):
        HeadBalls(_random_model(two, 0), (0, 1))
    with pytest.raises(AnalysisError, match="short convolution"):
        HeadBalls(_random_model(BRANCHES[2] | {"use_short_conv": True}, 0), (0, 1))
    with pytest.raises(AnalysisError, match="--dtype takes float64, float32, bfloat16, float16, got 'half'"):
        torch_dtype("half")
    with pytest.raises(AnalysisError):
        largest("half")
    assert torch_dtype("bfloat16") is torch.bfloat16 and largest("float16") == 65504.0


LOUD = Rounding("float16", 2.0 ** -60, 1e-9)  # a format whose underflow term is visible


@pytest.mark.parametrize("w", [[1.5, -0.5, 2.0, 1.0], None])
@pytest.mark.parametrize("rounding, c, r", [
    (Rounding.of("bfloat16"), [3.0, -4.0, 1.0, 0.5], [0.5, 0.25, 0.5, 0.25]),
    (LOUD, [3e7, -4e7, 1e7, 5e6], [5e6, 2.5e6, 5e6, 2.5e6]),   # eta * N_high matters
    (LOUD, [3.0, 4.0, 0.0, 0.0], [1e-12] * 4),                  # the final eta matters
    (Rounding("float16", 2.0 ** -4, 1e-8), [3.0, 4.0, 0.0, 0.0], [1e-12] * 4),  # and its (1 + 2u)
    (Rounding.of("bfloat16"), [0.6, 0.8, 0.0, 0.0], [0.1, 0.1, 0.0, 0.0]),  # 0 < ||c|| - rho < 1
])
def test_norm_lemma_radii_recomputed(heads, w, rounding, c, r):
    """The norm lemma's ball, entry by entry, from the formulas of docs/theory.md (Theorem A7's norm
    lemma and its relative rounding), recomputed here in floats."""
    c, r, eps, n = np.array(c), np.array(r), 1e-6, 4
    u, eta = rounding.u, rounding.eta
    out = HeadBalls(heads["real"].model, tuple(range(6)), "float64", rounding)._normalise_lipschitz(_balls(c, r), n, eps, w)
    rho = np.linalg.norm(r)
    n_low = np.sqrt(max(np.linalg.norm(c) - rho, 0.0) ** 2 / n + eps)
    n_high = np.sqrt((np.linalg.norm(c) + rho) ** 2 / n + eps)
    lip, cap, centre = rho / n_low, np.sqrt(n), np.sqrt(np.dot(c, c) / n + eps)
    g = n * u / (1 - n * u)
    d1 = (1 + g + eta / eps) * (1 + 2 * u) - 1 + eta / eps
    d3 = (1 - d1) ** -0.5 * (1 + 4 * u) - 1 + eta * n_high
    tau = (1 + d3) * (1 + 2 * u) ** (1 if w is None else 2) - 1
    for i, ball in enumerate(out):
        wi = 1.0 if w is None else w[i]
        lo_, hi_ = max(c[i] / centre - lip, -cap), min(c[i] / centre + lip, cap)
        y = sorted((lo_ * wi, hi_ * wi))
        top = max(abs(y[0]), abs(y[1]))
        want = (y[1] - y[0]) / 2 + tau * top + eta * (abs(wi) * (1 + 2 * u) + 1)
        assert float(ball.rad()) == pytest.approx(want, rel=1e-6), (i, float(ball.rad()), want)
        assert float(ball.mid()) == pytest.approx((y[0] + y[1]) / 2, abs=1e-9)
    real = heads["real"]._normalise_lipschitz(_balls(c, r), n, eps, w)  # no rounding: the interval alone
    for i, ball in enumerate(real):
        wi = 1.0 if w is None else w[i]
        lo_, hi_ = max(c[i] / centre - lip, -cap), min(c[i] / centre + lip, cap)
        assert float(ball.rad()) == pytest.approx((hi_ - lo_) / 2 * abs(wi), rel=1e-6)

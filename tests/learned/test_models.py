"""Bilinear variants, baselines and the model registry."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from bilinear.constructions import Weights
from bilinear.errors import ConfigError
from bilinear.learned.baselines import CausalTransformer, SelectiveSSM, _sinusoidal_positions
from bilinear.learned import BilinearRNN
from bilinear.learned.registry import MODELS, build_model, count_params, hidden_for_params, parse_model

torch.set_num_threads(1)

VARIANTS = ["full", "factorized:3", "block:2", "rotation2d", "diagonal", "positive"]
BASELINES = ["lstm", "rnn", "transformer", "transformer:2", "transformer:4", "transformer:2,sinusoidal", "mamba",
             "mamba:2", "mamba:4", "mamba:2,neg"]


@pytest.mark.parametrize("spec", VARIANTS + BASELINES)
def test_every_model_maps_words_to_logits(spec):
    m = build_model(spec, n_symbols=3, n_classes=4, hidden=8, seed=0)
    words = torch.randint(0, 3, (5, 7))
    logits = m(words)
    assert logits.shape == (5, 7, 4)
    assert torch.isfinite(logits).all()
    # causal: a change at position 4 leaves positions 0..3 unchanged
    other = words.clone()
    other[:, 4] = (other[:, 4] + 1) % 3
    m.eval()
    assert torch.allclose(m(words)[:, :4], m(other)[:, :4], atol=1e-5)


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("embed", [None, 5])
def test_to_weights_runs_like_the_model(variant, embed):
    """The exported Weights, run in float64 numpy, give the model's logits (up to h's scale)."""
    m = BilinearRNN(3, 3, 6, variant, embed=embed, seed=1).eval()
    w = m.to_weights()
    assert isinstance(w, Weights) and not w.exact and w.variant == parse_model(variant).spec
    A, h0, R = w.float_arrays()
    words = torch.randint(0, 3, (4, 9), generator=torch.Generator().manual_seed(0))
    logits = m(words).detach().double().numpy()
    for b in range(4):
        h = h0 / np.linalg.norm(h0)
        for t in range(9):
            h = A[int(words[b, t])] @ h
            h = h / np.linalg.norm(h)
            np.testing.assert_allclose(R @ h, logits[b, t], rtol=1e-4, atol=1e-5)


def test_embedded_transitions_are_linear_in_the_embedding():
    m = BilinearRNN(3, 2, 4, "full", embed=2, seed=0)
    A = m.transitions().dense()
    expected = torch.einsum("ks,kij->sij", m.E, m.W)
    assert torch.allclose(A, expected)


def test_rescaling_h0_changes_no_prediction():
    """Scale invariance: no additive term, no bias, so h0 -> c h0 (c > 0) keeps every argmax."""
    m = BilinearRNN(2, 3, 6, "full", seed=3).eval()
    words = torch.randint(0, 2, (8, 40), generator=torch.Generator().manual_seed(1))
    before = m(words, normalize=False).argmax(-1)
    with torch.no_grad():
        m.h0.mul_(1e-3)
    assert torch.equal(m(words, normalize=False).argmax(-1), before)
    assert torch.equal(m(words, normalize=True).argmax(-1), before)


def test_positive_variant_is_positive():
    w = BilinearRNN(2, 2, 4, "positive", seed=0).to_weights()
    assert (np.diagonal(w.A, axis1=1, axis2=2) > 0).all()


def test_additive_ablation():
    m = BilinearRNN(2, 2, 4, "diagonal", additive=True, seed=0)
    assert m(torch.tensor([[0, 1, 1]])).shape == (1, 3, 2)
    with pytest.raises(ConfigError, match="additive"):
        m.to_weights()
    raw = BilinearRNN(2, 2, 4, "diagonal", additive=True, additive_renorm=False, seed=0)
    with pytest.raises(ConfigError, match="unrenormalised form"):
        raw(torch.tensor([[0, 1]]), normalize=True)
    with pytest.raises(ConfigError, match="bilinear models only"):
        build_model("lstm", 2, 2, 4, additive=True)


@pytest.mark.parametrize("renorm", [True, False])
def test_the_two_additive_forms_by_hand(renorm):
    """h_t = A h + B x + b, divided by its norm at every step in the default form and never in
    the older one; the parallel scan refuses the renormalised affine recurrence."""
    from bilinear.learned.scan import parallel_scan

    m = BilinearRNN(2, 3, 4, "full", additive=True, additive_renorm=renorm, seed=2).eval()
    with torch.no_grad():
        m.badd.copy_(torch.tensor([0.5, -1.0, 2.0, 0.25]))
    assert m.renormalized is renorm and m.normalize_train is renorm
    words = torch.tensor([[0, 1, 1, 0, 1, 0]])
    A = m.transitions().dense().detach().double()
    add = m.additive_table().detach().double()
    h = m.h0.detach().double()
    expect = []
    for t in words[0].tolist():
        h = A[t] @ h + add[t]
        if renorm:
            h = h / h.norm()
        expect.append(m.readout.weight.detach().double() @ h)
    got = m(words).detach().double()[0]
    assert torch.allclose(got, torch.stack(expect), rtol=1e-5, atol=1e-5)
    if renorm:  # renormalising is not a rescaling of the affine recurrence: the two forms differ
        other = BilinearRNN(2, 3, 4, "full", additive=True, additive_renorm=False, seed=2).eval()
        other.load_state_dict(m.state_dict())
        assert not torch.allclose(other(words).argmax(-1), got.argmax(-1)) or not torch.allclose(
            other(words)[0].double(), got, atol=1e-3)
        with pytest.raises(ConfigError, match="no associative form"):
            parallel_scan(m.transitions(), words, m.h0, normalize=True, add=m.additive_table())


def test_old_additive_configs_read_as_the_unrenormalised_form():
    from bilinear.learned import TrainConfig

    old = {"spec": "parity", "model": "full", "additive": True}
    assert TrainConfig.from_dict(old).additive_renorm is False
    assert TrainConfig.from_dict({**old, "additive_renorm": True}).additive_renorm is True
    assert TrainConfig(spec="parity", model="full", additive=True).additive_renorm is True


def test_the_angle_form_of_rotation2d():
    """One angle per 2x2 block: pure rotations (|det| = 1 per block), the paper's count, and
    Weights round trips through the angles."""
    m = BilinearRNN(3, 2, 8, "rotation2d", embed=5, angles=True, seed=0)
    names = [n for n, _ in m.named_parameters()]
    assert "theta" in names and "ra" not in names and tuple(m.theta.shape) == (5, 4)
    A = m.transitions().dense().detach()
    blocks = A.reshape(3, 8, 8)[:, 0:2, 0:2]
    assert torch.allclose(torch.linalg.det(blocks), torch.ones(3), atol=1e-5)
    assert count_params(m) == 5 * 4 + 5 * 3 + 8 + 2 * 8  # theta, E, h0, readout
    assert count_params(BilinearRNN(3, 2, 8, "rotation2d", embed=5, seed=0)) == 2 * 5 * 4 + 5 * 3 + 8 + 16
    w = BilinearRNN(3, 2, 8, "rotation2d", angles=True, seed=1).to_weights()
    back = BilinearRNN.from_weights(w, angles=True)
    assert back.angles and np.allclose(back.to_weights().A, w.A, atol=1e-9)
    assert not BilinearRNN(3, 2, 8, "full", angles=True).angles  # no angle form: unchanged
    scaled = BilinearRNN(3, 2, 8, "rotation2d", seed=1)
    with torch.no_grad():
        scaled.ra.mul_(2.0)
        scaled.rb.mul_(2.0)
    scaled = scaled.to_weights()
    with pytest.raises(ConfigError, match="pure rotations only"):
        BilinearRNN.from_weights(scaled, angles=True)


def test_seeds_fix_the_initialisation():
    a = build_model("full", 2, 2, 4, seed=5).state_dict()
    b = build_model("full", 2, 2, 4, seed=5).state_dict()
    c = build_model("full", 2, 2, 4, seed=6).state_dict()
    assert all(torch.equal(a[k], b[k]) for k in a)
    assert not torch.equal(a["W"], c["W"])


def test_orthogonal_init_is_orthogonal():
    m = BilinearRNN(3, 2, 5, "full", seed=0)
    for A in m.transitions().dense():
        assert torch.allclose(A @ A.T, torch.eye(5), atol=1e-5)


@pytest.mark.parametrize(
    "spec, hidden, match",
    [
        ("block:4", 6, "not divisible by the block size 4"),
        ("rotation2d", 5, "odd"),
        ("full", 0, "positive integer"),
        ("gru", 4, "unknown model 'gru'"),
        ("block", 4, "needs a parameter"),
        ("lstm:2", 4, "takes no parameter"),
        ("transformer:0", 4, "must be >= 1"),
        ("mamba:0", 4, "layers of model 'mamba' must be >= 1, got 0 in 'mamba:0'"),
        ("mamba:x", 4, "malformed model spec 'mamba:x'"),
        ("mamba:-1", 4, "malformed model spec 'mamba:-1'"),
    ],
)
def test_bad_models(spec, hidden, match):
    with pytest.raises(ConfigError, match=match):
        build_model(spec, 2, 2, hidden)


def test_registry_lists_variants_then_baselines():
    assert MODELS == ("full", "factorized", "block", "rotation2d", "diagonal", "positive", "householder", "monomial", "dplr",
                      "lstm", "rnn", "transformer", "mamba")


def test_parameter_counts():
    assert count_params(build_model("full", 3, 2, 4)) == 3 * 16 + 4 + 2 * 4
    assert count_params(build_model("block:2", 3, 2, 4)) == 3 * 2 * 4 + 4 + 8
    assert count_params(build_model("diagonal", 3, 2, 4)) == 3 * 4 + 4 + 8
    assert count_params(build_model("factorized:2", 3, 2, 4)) == 2 * (4 + 3 + 4) + 4 + 8


def test_parameter_matched_hidden_size():
    target = count_params(build_model("lstm", 2, 2, 16))
    h = hidden_for_params("full", 2, 2, target)
    n = count_params(build_model("full", 2, 2, h))
    for other in (h - 1, h + 1):
        assert abs(count_params(build_model("full", 2, 2, other)) - target) >= abs(n - target)
    assert hidden_for_params("block:4", 2, 2, 500) % 4 == 0


def test_transformer_positions_extend_past_training_lengths():
    pe = _sinusoidal_positions(600, 8)
    assert pe.shape == (600, 8) and torch.isfinite(pe).all()
    m = CausalTransformer(2, 2, 8, layers=1, positions="sinusoidal")
    assert m(torch.zeros(1, 2000, dtype=torch.long)).shape == (1, 2000, 2)


def test_learned_transformer_positions_stop_at_1024():
    from bilinear.learned.baselines import MAX_POSITIONS
    from bilinear.learned import TrainConfig

    m = CausalTransformer(2, 2, 8, layers=1)
    assert MAX_POSITIONS == 1024 and tuple(m.positions.weight.shape) == (1024, 8)
    assert m(torch.zeros(1, 1024, dtype=torch.long)).shape == (1, 1024, 2)
    with pytest.raises(ConfigError, match="at most 1024 symbols, got length 1025"):
        m(torch.zeros(1, 1025, dtype=torch.long))
    with pytest.raises(ConfigError, match="test_len 2000 is longer than the 1024 symbols model 'transformer:1'"):
        TrainConfig(spec="parity", model="transformer:1", test_len=2000)
    assert TrainConfig(spec="parity", model="transformer:1,sinusoidal", test_len=2000).test_len == 2000
    # the positions are the only difference: (learned table) - (nothing)
    learned, sinus = (count_params(build_model(s, 2, 2, 8)) for s in ("transformer", "transformer:1,sinusoidal"))
    assert learned - sinus == 1024 * 8


def test_baseline_flags_parse_and_refuse():
    assert parse_model("mamba,neg").spec == "mamba,neg" and parse_model("MAMBA:2,NEG").options == ("neg",)
    assert parse_model("transformer:4,sinusoidal").param == 4
    with pytest.raises(ConfigError, match="model 'mamba' has no flag 'sinusoidal'.*its flags: neg"):
        parse_model("mamba:2,sinusoidal")
    with pytest.raises(ConfigError, match="model 'lstm' has no flag 'neg'.*its flags: none"):
        parse_model("lstm,neg")
    with pytest.raises(ConfigError, match="repeats a flag"):
        parse_model("mamba,neg,neg")


def test_selective_ssm_is_input_dependent():
    m = SelectiveSSM(2, 2, 4, state=3, seed=0)
    a = m(torch.tensor([[0, 0, 0]]))
    b = m(torch.tensor([[1, 0, 0]]))
    assert not torch.allclose(a[:, -1], b[:, -1])


def test_mamba_stacks_layers_as_pre_norm_residual_blocks():
    for layers in (1, 2, 4):
        m = build_model(f"mamba:{layers}", 3, 4, hidden=6, seed=0)
        assert isinstance(m, SelectiveSSM) and m.layers == layers
        assert len(m.blocks) == len(m.norms) == layers
        assert m(torch.randint(0, 3, (2, 9))).shape == (2, 9, 4)
    assert parse_model("Mamba : 4") == parse_model("mamba:4") and parse_model("mamba:4").spec == "mamba:4"
    words = torch.tensor([[0, 2, 1]])
    assert torch.equal(build_model("mamba", 3, 2, 4)(words), build_model("mamba:1", 3, 2, 4)(words))
    # the residual stream: one block's output added to the normalised embedding path, by hand
    m = SelectiveSSM(2, 2, 4, layers=1, seed=3)
    words = torch.tensor([[0, 1, 1, 0]])
    x = m.embedding(words)
    x = x + m.blocks[0](m.norms[0](x))
    assert torch.allclose(m(words), m.readout(m.norm(x)))


def test_mamba_parameter_count_is_linear_in_the_layers():
    one, two, four = (count_params(build_model(f"mamba:{layers}", 3, 4, hidden=8)) for layers in (1, 2, 4))
    h, state, inner, rank = 8, 16, 16, 1  # Mamba-1: expansion 2, N = 16, dt_rank = ceil(8 / 16)
    block = (h * 2 * inner  # in_proj (no bias)
             + inner * 4 + inner  # depthwise causal conv, kernel 4, with bias
             + inner * (rank + 2 * state)  # x_proj: dt, B, C (no bias)
             + rank * inner + inner  # dt_proj with its bias
             + inner * state + inner  # A_log, D
             + inner * h  # out_proj (no bias)
             + h)  # the block's RMSNorm
    assert two - one == block == 256 + 80 + 528 + 32 + 272 + 128 + 8
    assert four == one + 3 * (two - one)
    assert one == 3 * h + block + h + (h * 4 + 4)  # embedding, one block, final norm, readout


def test_mamba_one_is_gu_and_dao_at_init():
    """Delta starts in [0.001, 0.1] (inverse softplus), A = -(1..N) (S4D-real), D = 1, the
    convolution is causal and depthwise, and the negative form's transitions reach below 0."""
    import math

    m = SelectiveSSM(2, 2, 32, seed=4)
    mixer = m.blocks[0]
    assert (mixer.inner, mixer.state, mixer.dt_rank) == (64, 16, 2) and mixer.conv.groups == 64
    delta = torch.nn.functional.softplus(mixer.dt_proj.bias)
    assert delta.min() >= 0.001 * (1 - 1e-5) and delta.max() <= 0.1 * (1 + 1e-5)
    assert delta.max() > 0.05 and delta.min() < 0.002  # log-uniform over the range, not one value
    assert torch.allclose(torch.exp(mixer.A_log[5]), torch.arange(1.0, 17.0))
    assert torch.equal(mixer.D, torch.ones(64)) and math.isclose(float(mixer.dt_proj.weight.abs().max()),
                                                                 2 ** -0.5, rel_tol=0.1)
    # causal: the convolution at position t reads positions <= t only (checked through the model)
    words = torch.tensor([[0, 1, 1, 0, 1]])
    other = words.clone()
    other[0, 3] = 1
    assert torch.allclose(m(words)[:, :3], m(other)[:, :3], atol=1e-6)
    assert not torch.allclose(m(words)[:, 3:], m(other)[:, 3:])
    # the transitions a_t: in (0, 1) for Mamba-1, 2 a - 1 in (-1, 1) for the negative form
    neg = SelectiveSSM(2, 2, 32, seed=4, negative=True).blocks[0]
    assert neg.negative and not mixer.negative
    x = torch.randn(1, 3, 32)
    seen = {}
    for name, mix in (("pos", mixer), ("neg", neg)):
        u, _ = mix.in_proj(x).chunk(2, dim=-1)
        u = torch.nn.functional.silu(mix.conv(u.transpose(1, 2))[..., :3].transpose(1, 2))
        dt = mix.x_proj(u)[..., : mix.dt_rank]
        a = torch.exp(torch.nn.functional.softplus(mix.dt_proj(dt)).unsqueeze(-1) * -torch.exp(mix.A_log))
        seen[name] = a if name == "pos" else 2 * a - 1
    assert seen["pos"].min() > 0 and seen["pos"].max() < 1
    assert seen["neg"].min() > -1 and seen["neg"].max() < 1 and seen["neg"].min() < 0  # large A*Delta: below 0
    with torch.no_grad():  # same weights: the two forms differ exactly by the transition map
        neg.load_state_dict(mixer.state_dict())
    assert not torch.allclose(neg(x), mixer(x))


def test_mamba_is_deterministic_under_its_seed():
    words = torch.randint(0, 3, (3, 11), generator=torch.Generator().manual_seed(0))
    before = torch.get_rng_state()
    a, b, c = (build_model("mamba:2", 3, 2, 8, seed=s) for s in (5, 5, 6))
    assert torch.equal(torch.get_rng_state(), before)  # the global RNG is untouched
    assert torch.equal(a(words), b(words))
    assert all(torch.equal(p, q) for p, q in zip(a.state_dict().values(), b.state_dict().values()))
    assert not torch.allclose(a(words), c(words))


def test_mamba_max_batch_counts_the_layers_under_autograd():
    one, four = SelectiveSSM(2, 2, 16, layers=1), SelectiveSSM(2, 2, 16, layers=4)
    assert one.max_batch(100) == 2**26 // (100 * 32 * 16) and four.max_batch(100) == 2**26 // (100 * 32 * 16 * 4)
    with torch.no_grad():  # evaluation frees each block's scan tensors before the next
        assert four.max_batch(100) == one.max_batch(100)
    with pytest.raises(ConfigError, match="SSM layers must be a positive integer, got 0"):
        SelectiveSSM(2, 2, 4, layers=0)
    with pytest.raises(ConfigError, match="SSM layers must be a positive integer, got True"):
        SelectiveSSM(2, 2, 4, layers=True)


def test_a_layered_mamba_trains():
    from bilinear.learned import TrainConfig
    from bilinear.learned import train

    r = train(TrainConfig(spec="parity", model="mamba:2", steps=30, hidden=8, test_words=8, test_len=50))
    assert r["model"] == "mamba:2" and r["params"] == count_params(build_model("mamba:2", 2, 2, 8))
    assert np.isfinite(r["accuracy_mean_over_positions_raw"]) and 0.0 <= r["accuracy_mean_over_positions_raw"] <= 1.0
    assert np.isfinite(r["train_accuracy"]) and 0.0 <= r["train_accuracy"] <= 1.0


@pytest.mark.parametrize("spec", BASELINES)
def test_baselines_have_no_weights(spec):
    with pytest.raises(ConfigError, match="not a bilinear model"):
        build_model(spec, 2, 2, 4).to_weights()


@pytest.mark.parametrize("variant", VARIANTS)
def test_from_weights_inverts_to_weights(variant):
    m = BilinearRNN(3, 2, 6, variant, seed=2)
    w = m.to_weights()
    back = BilinearRNN.from_weights(w)
    np.testing.assert_allclose(back.to_weights().A, w.A, rtol=1e-6, atol=1e-7)
    words = torch.randint(0, 3, (4, 30), generator=torch.Generator().manual_seed(0))
    assert torch.equal(back(words).argmax(-1), m.eval()(words).argmax(-1))


@pytest.mark.parametrize("spec, variant", [("cyclic:5", "rotation2d"), ("dihedral:4", "full"),
                                           ("parity", "diagonal"), ("cyclic:2*cyclic:3", "rotation2d")])
def test_constructions_run_exactly_on_the_fast_scan(spec, variant):
    """A hand construction, loaded into the torch model, labels length-500 words correctly."""
    from bilinear.automata import from_spec
    from bilinear.constructions import build

    a = from_spec(spec)
    model = BilinearRNN.from_weights(build(a, variant))
    words = np.random.default_rng(0).integers(0, a.n_symbols, size=(64, 500))
    with torch.no_grad():
        pred = model(torch.from_numpy(words)).argmax(-1).numpy()
    assert (pred == a.labels[a.run_batch(words, trace=True)]).all()


from hypothesis import given, settings  # noqa: E402

from bilinear.automata.strategies import automata_and_words  # noqa: E402


@settings(max_examples=25)
@given(automata_and_words(max_states=5, max_symbols=3))
def test_one_hot_construction_on_the_scan_agrees_with_the_automaton(aw):
    """Theorem 1 (one-hot simulation), checked through the torch scan on random automata and words."""
    from bilinear.constructions import build

    automaton, words = aw
    model = BilinearRNN.from_weights(build(automaton, "full"))
    for word in words:
        with torch.no_grad():
            pred = model(torch.tensor([list(word)], dtype=torch.long)).argmax(-1)[0].tolist()
        assert pred == [int(automaton.labels[s]) for s in automaton.trace(list(word))[1:]]


def _spec_of(kind: str) -> str:
    from bilinear.constructions.values.weights import VARIANT_KINDS

    return f"{kind}:2" if VARIANT_KINDS[kind] is not None else kind


def test_the_learned_table_has_every_variant_kind():
    from bilinear.constructions.values.weights import VARIANT_KINDS
    from bilinear.learned.models import LEARNED_VARIANTS

    assert set(LEARNED_VARIANTS) == set(VARIANT_KINDS)
    assert all(entry.kind == kind for kind, entry in LEARNED_VARIANTS.items())


@pytest.mark.parametrize("kind", sorted(__import__("bilinear.learned.models", fromlist=["x"]).LEARNED_VARIANTS))
@pytest.mark.parametrize("embed", [None, 3])
@pytest.mark.parametrize("init", ["orthogonal", "identity"])
def test_every_kind_round_trips_through_weights(kind, embed, init):
    """to_weights -> from_weights gives the same parameters of the table's row and the same
    transitions (float64: equal up to rounding of exp/log for ``positive``)."""
    from bilinear.learned.models import LEARNED_VARIANTS

    m = BilinearRNN(3, 2, 4, _spec_of(kind), embed=embed, init=init, seed=5).double()
    w = m.to_weights()
    back = BilinearRNN.from_weights(w)
    assert back.variant == m.variant and back.learned is LEARNED_VARIANTS[kind]
    t, t_back = m.transitions(), back.transitions()
    assert type(t_back) is type(t)
    np.testing.assert_allclose(t_back.dense().detach().numpy(), t.dense().detach().numpy(), rtol=1e-12, atol=1e-14)
    w_back = back.to_weights()
    np.testing.assert_allclose(w_back.A, w.A, rtol=1e-12, atol=1e-14)
    assert np.array_equal(w_back.h0, w.h0) and np.array_equal(w_back.readout, w.readout)
    if embed is None and LEARNED_VARIANTS[kind].canonical:  # one-hot: the learned tensors themselves come back
        for name, p in m.named_parameters():
            torch.testing.assert_close(dict(back.named_parameters())[name], p, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("kind, hidden", [("block", 5), ("rotation2d", 3)])
def test_the_table_refuses_hidden_sizes_a_kind_cannot_carry(kind, hidden):
    with pytest.raises(ConfigError, match=f"hidden size {hidden}"):
        BilinearRNN(2, 2, hidden, _spec_of(kind))

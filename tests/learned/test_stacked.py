"""The trainable stack: the hard cascade is the exported Stack, the soft one mixes it, train --layers."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from bilinear.automata import from_spec
from bilinear.cli import main
from bilinear.constructions.values.floatrun import run_float
from bilinear.constructions import Stack
from bilinear.errors import ConfigError
from bilinear.learned import TrainConfig
from bilinear.learned import build_model, make_model
from bilinear.learned.stacked import StackedBilinearRNN
from bilinear.learned import train


@pytest.mark.parametrize("variant,layers", [("rotation2d", 2), ("full", 3), ("diagonal", 2), ("block:2", 2)])
def test_hard_cascade_is_the_exported_stack(variant, layers):
    torch.set_num_threads(1)
    m = StackedBilinearRNN(3, 4, hidden=4, variant=variant, layers=layers, seed=1).double().eval()
    words = np.random.default_rng(0).integers(0, 3, size=(32, 40))
    got = m(torch.from_numpy(words)).argmax(-1).numpy()
    stack = m.to_weights()
    assert isinstance(stack, Stack) and stack.depth == layers and stack.variant == m.variant.spec
    assert [w.n_symbols for w in stack.layers] == [3] + [12] * (layers - 1)
    assert (run_float(stack, words).labels == got).mean() > 0.999  # float rounding near ties only


def test_soft_cascade_with_one_hot_mixture_is_the_hard_one():
    m = StackedBilinearRNN(2, 3, hidden=4, variant="rotation2d", layers=2, seed=0).double()
    words = torch.from_numpy(np.random.default_rng(1).integers(0, 2, size=(8, 12)))
    m.eval()
    below = m.layers[0](words)
    c = below.argmax(-1)
    soft = m._soft(m.layers[1], words, torch.nn.functional.one_hot(c, 3).double())
    hard = m.layers[1](words * 3 + c)
    assert torch.allclose(soft, hard, atol=1e-9)
    m.train()
    soft_train = m(words)
    assert soft_train.requires_grad and soft_train.shape == (8, 12, 3)
    soft_train.sum().backward()
    assert m.layers[0].readout.weight.grad is not None  # the class of layer 1 is learned through layer 2


def _soft_reference(layer, words, p, normalize):
    """An independent per-step, per-row evaluator of the soft cascade (docs: learned/stacked.py):
    the dense mixture ``sum_c p[b, t, c] A[s_t * C + c]`` formed for every row and step."""
    A = layer.transitions().dense()
    C = p.shape[-1]
    h = (layer.h0 / layer.h0.norm()).expand(words.shape[0], -1)
    out = []
    for t in range(words.shape[1]):
        M = torch.stack([sum(p[b, t, c] * A[int(words[b, t]) * C + c] for c in range(C))
                         for b in range(words.shape[0])])
        h = torch.einsum("bij,bj->bi", M, h)
        if normalize:
            h = h / h.norm(dim=-1, keepdim=True)
        out.append(h)
    return torch.stack(out, 1) @ layer.readout.weight.T


@pytest.mark.parametrize("variant", ["rotation2d", "diagonal", "factorized:3", "full", "block:2", "householder:2",
                                     "dplr:1", "positive"])
@pytest.mark.parametrize("normalize", [True, False])
def test_soft_layer_is_the_per_step_mixture(variant, normalize):
    """The layer-by-layer soft cascade (mixed parameters through the one-layer scan, or the
    grouped mixture of dense matrices) equals a per-row, per-step evaluation, values and gradients."""
    from bilinear.learned.stacked import soft_layer

    torch.set_num_threads(1)
    m = StackedBilinearRNN(3, 4, hidden=4, variant=variant, layers=2, seed=2).double().train()
    rng = np.random.default_rng(3)
    words = torch.from_numpy(rng.integers(0, 3, size=(5, 7)))
    p = torch.softmax(torch.from_numpy(rng.normal(size=(5, 7, 4))), -1)
    layer = m.layer(1)
    got = soft_layer(layer, words, p, normalize)
    want = _soft_reference(layer, words, p, normalize)
    assert got.shape == (5, 7, 4) and torch.allclose(got, want, atol=1e-10, rtol=1e-9)
    params = [q for q in layer.parameters() if q.requires_grad]
    g_got = torch.autograd.grad((got * torch.arange(4.0).double()).sum(), params, allow_unused=True)
    g_want = torch.autograd.grad((want * torch.arange(4.0).double()).sum(), params, allow_unused=True)
    for a, b in zip(g_got, g_want):
        assert (a is None) == (b is None) and (a is None or torch.allclose(a, b, atol=1e-9))


def test_layers_options_are_checked():
    with pytest.raises(ConfigError, match="bilinear variants only"):
        TrainConfig(spec="parity", model="lstm", layers=2)
    with pytest.raises(ConfigError, match="excludes additive"):
        TrainConfig(spec="parity", model="full", layers=2, additive=True)
    with pytest.raises(ConfigError, match="from 1 to 16"):
        TrainConfig(spec="parity", model="full", layers=17)
    with pytest.raises(ConfigError, match="bilinear variants only"):
        build_model("transformer", 2, 2, 8, layers=2)
    m = make_model(TrainConfig(spec="dihedral:3", model="rotation2d", layers=2, hidden=4))
    assert isinstance(m, StackedBilinearRNN) and m.depth == 2


def test_train_a_stack_reports_its_depth():
    torch.set_num_threads(1)
    config = TrainConfig(spec="dihedral:3", model="rotation2d", layers=2, hidden=4, steps=20, eval_every=10,
                         test_len=30, test_words=16, early_stop="none")
    r = train(config)
    assert r["layers"] == 2 and r["steps"] == 20 and 0 <= r["accuracy_at_length_raw"] <= 1
    assert -1 <= r["accuracy_at_length"] <= 1 and r["test_length"] == 30


def test_train_cli_layers(capsys, tmp_path):
    code = main(["train", "dihedral:3", "rotation2d", "--layers", "2", "--hidden", "4", "--steps", "10",
                 "--test-len", "20", "--test-words", "8", "--early-stop", "none", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["layers"] == 2 and "accuracy_at_length" in out
    code = main(["train", "dihedral:3", "rotation2d", "--layers", "2", "--hidden", "4", "--steps", "10",
                 "--test-len", "20", "--test-words", "8", "--early-stop", "none", "--json",
                 "--stack-mixing", "straight-through", "--out", str(tmp_path / "st")])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["layers"] == 2
    assert json.loads((tmp_path / "st" / "config.json").read_text())["stack_mixing"] == "straight-through"
    assert main(["train", "parity", "full", "--stack-mixing", "soft"]) == 2  # not the default, one layer
    assert "applies to a stack of layers" in capsys.readouterr().err


def test_from_weights_round_trip():
    m = StackedBilinearRNN(2, 3, hidden=4, variant="block:2", layers=3, seed=2).double().eval()
    again = StackedBilinearRNN.from_weights(m.to_weights())
    words = torch.from_numpy(np.random.default_rng(3).integers(0, 2, size=(16, 30)))
    assert torch.allclose(m(words), again(words), atol=1e-9)
    assert again.to_weights() == m.to_weights()
    with pytest.raises(ConfigError, match="needs a Stack"):
        StackedBilinearRNN.from_weights(m.layers[0].to_weights())


def test_the_cascade_construction_is_a_zero_loss_point_of_the_soft_objective():
    from bilinear.constructions import cascade
    from bilinear.learned.stacked import padded_stack

    torch.set_num_threads(1)
    a = from_spec("dihedral:3")
    words = torch.from_numpy(np.random.default_rng(0).integers(0, 2, size=(64, 10)))
    labels = torch.from_numpy(a.labels[a.run_batch(words.numpy(), trace=True)])
    losses = []
    for scale in (1, 16):
        m = StackedBilinearRNN.from_weights(padded_stack(cascade(a, "rotation2d"), scale), mixing="soft")
        assert (m(words, hard=True).argmax(-1) == labels).all()  # the hard cascade is the construction
        m.train()
        with torch.no_grad():
            losses.append(float(torch.nn.functional.cross_entropy(m(words).reshape(-1, 6), labels.reshape(-1))))
    assert losses[0] > 1.0 and losses[1] < 1e-3  # soft at scale 1; near one-hot mixtures at scale 16


def test_straight_through_mixing_trains_the_hard_cascade():
    """straight-through: in training mode the forward values are the hard cascade's (the evaluated,
    exported network), and the gradient still reaches the lower layer's readout; soft mixing differs."""
    torch.set_num_threads(1)
    words = torch.from_numpy(np.random.default_rng(4).integers(0, 2, size=(6, 9)))
    st = StackedBilinearRNN(2, 3, hidden=4, variant="rotation2d", layers=3, seed=5, mixing="straight-through").double()
    hard = st.eval()(words)
    train_values = st.train()(words)
    assert torch.allclose(train_values, hard, atol=1e-10)
    train_values.square().sum().backward()
    assert st.layer(0).readout.weight.grad is not None and st.layer(0).readout.weight.grad.abs().sum() > 0
    soft = StackedBilinearRNN(2, 3, hidden=4, variant="rotation2d", layers=3, seed=5, mixing="soft").double().train()
    assert not torch.allclose(soft(words), hard, atol=1e-3)
    with pytest.raises(ConfigError, match="unknown stack mixing"):
        StackedBilinearRNN(2, 3, hidden=4, variant="rotation2d", layers=2, mixing="hard")
    with pytest.raises(ConfigError, match="applies to a stack of layers"):
        TrainConfig(spec="parity", model="full", stack_mixing="soft")
    with pytest.raises(ConfigError, match="unknown stack mixing"):
        TrainConfig(spec="parity", model="full", layers=2, stack_mixing="hard")
    m = make_model(TrainConfig(spec="dihedral:3", model="rotation2d", layers=2, hidden=4,
                               stack_mixing="straight-through"))
    assert m.mixing == "straight-through"
    from bilinear.learned import config, stacked

    assert stacked.MIXINGS == config.MIXINGS and stacked.DEFAULT_MIXING == config.DEFAULT_MIXING


def test_the_default_mixing_is_straight_through_and_old_stacks_stay_soft():
    """docs/training-results.md ("Stacks of layers: which mixing"): straight-through is the default;
    a stack's config written before the option existed was trained soft and reads back soft."""
    from bilinear.learned.config import DEFAULT_MIXING

    assert DEFAULT_MIXING == "straight-through"
    c = TrainConfig(spec="dihedral:3", model="rotation2d", layers=2, hidden=4)
    assert c.stack_mixing == "straight-through"
    assert make_model(c).mixing == "straight-through"
    assert StackedBilinearRNN(2, 3, hidden=4, variant="rotation2d", layers=2).mixing == "straight-through"
    old = {k: v for k, v in c.to_dict().items() if k != "stack_mixing"}
    assert TrainConfig.from_dict(old).stack_mixing == "soft"
    assert TrainConfig.from_dict(c.to_dict()).stack_mixing == "straight-through"
    one = {k: v for k, v in TrainConfig(spec="parity", model="full").to_dict().items() if k != "stack_mixing"}
    assert TrainConfig.from_dict(one).stack_mixing == "straight-through"  # one layer: no mixing at all


def test_a_one_layer_run_written_while_soft_was_the_default_still_loads():
    """Every one-layer run written before straight-through became the default stored
    ``stack_mixing: soft``; its config.json must still load (one layer mixes nothing)."""
    old = {**TrainConfig(spec="parity", model="full").to_dict(), "stack_mixing": "soft"}
    assert TrainConfig.from_dict(old).stack_mixing == "straight-through"
    stack = {**TrainConfig(spec="parity", model="full", layers=2, hidden=4).to_dict(), "stack_mixing": "soft"}
    assert TrainConfig.from_dict(stack).stack_mixing == "soft"  # a stack keeps what it was trained with

"""Limits of a training config, checked before anything is allocated (learned/limits.py)."""

from __future__ import annotations

import pytest
import torch

from bilinear.automata import from_spec
from bilinear.cli import main
from bilinear.errors import ConfigError
from bilinear.learned import TrainConfig
from bilinear.learned.limits import estimate_bytes, largest_model, param_bound, param_count
from bilinear.learned import build_model, count_params, parse_model

torch.set_num_threads(1)


@pytest.mark.parametrize("changes, part", [
    ({"batch": 10**8}, "activations"),
    ({"test_len": 10**9}, "activations"),
    ({"train_min_len": 2, "train_max_len": 10**9}, "activations"),
    ({"hidden": 100000}, "activations"),
    ({"hidden": 20000, "test_len": 10, "test_words": 8}, "parameters with gradients and Adam state"),
    ({"embed": 10**9}, "activations"),
    ({"n_train": 10**9}, "sampled words"),
    ({"model": "transformer:1000000"}, "activations"),
    ({"model": "lstm", "hidden": 30000, "test_len": 10, "test_words": 8, "batch": 1}, "parameters"),
])
def test_sizes_over_the_memory_limit_are_refused_with_the_estimate(changes, part):
    with pytest.raises(ConfigError, match=rf"needs (about|more than) [0-9.e+]+ GB \({part}.*over the limit of 8 GB.*"
                                          r"--max-memory-gb"):
        TrainConfig(**{"spec": "parity", "model": "full", **changes})


def test_the_limit_is_an_option_and_not_part_of_the_run():
    big = {"spec": "parity", "model": "full", "hidden": 20000, "test_len": 10, "test_words": 8}
    with pytest.raises(ConfigError, match="over the limit of 8 GB"):
        TrainConfig(**big)
    assert TrainConfig(**big, max_memory_gb=20).hidden == 20000  # nothing allocated by the config
    assert TrainConfig(max_memory_gb=1) == TrainConfig()  # a resume may change the limit
    with pytest.raises(ConfigError, match="over the limit of 0.001 GB"):
        TrainConfig(max_memory_gb=0.001)
    for bad in (0, -1, float("inf"), "8"):
        with pytest.raises(ConfigError, match="max_memory_gb"):
            TrainConfig(max_memory_gb=bad)


@pytest.mark.parametrize("model", ["full", "factorized:3", "block:2", "rotation2d", "diagonal", "positive",
                                   "lstm", "rnn", "transformer", "transformer:3", "mamba", "mamba:2", "mamba:4"])
@pytest.mark.parametrize("hidden, embed", [(2, None), (4, 3), (12, None), (12, 7)])
def test_the_parameter_bound_bounds_and_the_count_counts(model, hidden, embed):
    ms = parse_model(model)
    if model == "transformer:3" and embed:  # the Transformer takes no embedding option
        embed = None
    real = count_params(build_model(ms, 3, 4, hidden, embed=embed))
    assert param_bound(ms, 3, 4, hidden, embed) >= real
    assert param_count(ms, 3, 4, hidden, embed) == real


def test_the_estimate_adds_parameters_activations_and_words():
    c = TrainConfig(spec="parity", model="diagonal", hidden=4, batch=8, train_min_len=2, train_max_len=5,
                    test_len=7, test_words=3, n_train=11)
    parts = estimate_bytes(c, 2, 2, exact=True)
    params = count_params(build_model("diagonal", 2, 2, 4))
    assert parts["parameters with gradients and Adam state"] == 16 * params
    # the evaluation passes: the test words, and the validation words (64 of length 200 by default)
    assert parts["activations"] == max(8 * 5 * (64 * 4 + 4 * 2), 3 * 7 * (16 * 4 + 4 * 2), 64 * 200 * (16 * 4 + 4 * 2))
    assert parts["sampled words"] == (3 * 7 + 512 * 5 + 11 * 5 + 64 * 200) * 24


def test_the_parameter_bound_holds_for_deep_narrow_mamba():
    for layers in (1, 3, 64, 1000):  # one symbol, hidden 1: 121 parameters a layer against 177 p + ...
        ms = parse_model(f"mamba:{layers}")
        assert param_bound(ms, 1, 2, 1, None) >= param_count(ms, 1, 2, 1, None)
    # embedding, 1000 blocks (in_proj 4, conv 10, x_proj 66, dt_proj 4, A 32, D 2, out_proj 2, norm 1),
    # final norm, readout
    assert param_count(parse_model("mamba:1000"), 1, 2, 1, None) == 1 + 1000 * 121 + 1 + 4


def test_a_layered_mamba_counts_its_scan_per_layer_and_no_attention():
    c = TrainConfig(spec="parity", model="mamba:2", hidden=4, batch=8, train_min_len=2, train_max_len=5,
                    test_len=7, test_words=3, early_stop="none", val_min_len=1, val_max_len=1,
                    val_words=1)  # the final validation pass: one word of one symbol
    scan = 8 * 5 * (2 * 4) * 16 * 4 * 6  # batch x length x inner (2 hidden) x state, 4 bytes, 6 tensors
    assert estimate_bytes(c, 2, 2)["activations"] == 2 * (8 * 5 * (64 * 4 + 4 * 2) + scan)
    t = TrainConfig(spec="parity", model="transformer", hidden=4, batch=8, train_min_len=2, train_max_len=5,
                    test_len=7, test_words=3, early_stop="none", val_min_len=1, val_max_len=1,
                    val_words=1)  # one layer, its attention scores without an explicit L
    assert estimate_bytes(t, 2, 2)["activations"] == 8 * 5 * (64 * 4 + 4 * 2) + 8 * 5 * 5 * 16


def test_a_deep_mamba_is_refused_where_one_layer_of_the_same_size_fits():
    size = {"spec": "parity", "hidden": 128, "batch": 64, "train_max_len": 700}
    assert TrainConfig(**size, model="mamba:1").model == "mamba:1"  # about 4.8 GB
    with pytest.raises(ConfigError, match=r"this run needs more than 19 GB \(activations: 19 GB\), over the "
                                          r"limit of 8 GB"):
        TrainConfig(**size, model="mamba:4")
    with pytest.raises(ConfigError, match="malformed model spec 'mamba:x'"):
        TrainConfig(spec="parity", model="mamba:x")
    with pytest.raises(ConfigError, match="got 0 in 'mamba:0'"):
        TrainConfig(spec="parity", model="mamba:0")


def test_match_params_over_the_largest_model_is_refused_at_once():
    largest = count_params(build_model("full", 2, 2, 1024))
    with pytest.raises(ConfigError, match=f"match_params 1000000000000 is more than the largest full model "
                                          f"searched has .hidden 1024: {largest} parameters"):
        TrainConfig(spec="parity", model="full", match_params=10**12)
    with pytest.raises(ConfigError, match="hidden 1024"):  # just over: no silent clamp to hidden 1024
        TrainConfig(spec="parity", model="full", match_params=largest + 1)
    assert TrainConfig(spec="parity", model="full", match_params=largest).match_params == largest


@pytest.mark.parametrize("model", ["full", "factorized:5", "block:3", "rotation2d", "diagonal", "lstm",
                                   "transformer:2", "mamba", "mamba:4"])
@pytest.mark.parametrize("embed", [None, 5])
def test_the_largest_model_is_counted_exactly_without_building_it(model, embed):
    ms = parse_model(model)
    hidden, n = largest_model(ms, 3, 4, embed, max_hidden=40)
    assert hidden == (39 if model == "block:3" else 40)  # the largest valid size
    assert n == count_params(build_model(ms, 3, 4, hidden, embed=embed))


def test_learning_rates_beyond_float32_are_refused():
    with pytest.raises(ConfigError, match="learning rate 1e\\+308 is over 1e\\+30"):
        TrainConfig(lr=1e308)
    with pytest.raises(ConfigError, match="learning rate 1e\\+35 is over"):
        TrainConfig(lrs=(1e-3, 1e35))


def test_the_limits_on_the_command_line(capsys):
    assert main(["train", "parity", "full", "--hidden", "100000", "--quiet"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "over the limit of 8 GB" in err[0] and "--max-memory-gb" in err[0]
    assert main(["train", "parity", "full", "--max-memory-gb", "0.0001", "--quiet"]) == 2
    assert "over the limit of 0.0001 GB" in capsys.readouterr().err
    assert main(["train", "parity", "diagonal", "--hidden", "2", "--steps", "5", "--test-len", "5",
                 "--test-words", "2", "--max-memory-gb", "1", "--quiet"]) == 0


def test_an_automaton_with_many_symbols_counts_them():
    k = from_spec("cyclic:3").n_symbols
    small = estimate_bytes(TrainConfig(spec="cyclic:3", model="full", hidden=8), k, 3)
    wide = estimate_bytes(TrainConfig(spec="cyclic:3", model="full", hidden=8), 1000, 3)
    assert wide["parameters with gradients and Adam state"] > small["parameters with gradients and Adam state"]


def test_steps_past_the_limit_are_refused_before_anything_runs(tmp_path, capsys):
    """10^30 steps were accepted (a sweep's TOML, the API): with a curriculum the run waited for its
    ramp's top at step 5e29.  At most MAX_STEPS (10^9), checked when the config is built."""
    from bilinear.learned.config import MAX_STEPS

    assert TrainConfig(spec="parity", model="full", steps=MAX_STEPS).steps == 10**9
    for steps in (MAX_STEPS + 1, 10**30):
        with pytest.raises(ConfigError, match=f"steps must be at most 1,000,000,000 .* got {steps:,}"):
            TrainConfig(spec="parity", model="full", steps=steps)
    out = tmp_path / "run"
    assert main(["train", "parity", "full", "--steps", str(MAX_STEPS + 1), "--out", str(out)]) == 2
    assert "steps must be at most 1,000,000,000" in capsys.readouterr().err and not out.exists()

"""``verify --from fla|hf CONFIG --task SPEC``: DeltaNet with allow_neg_eigval false and true on parity
are two verdicts with two theorems; the mapping of every kind; bad configs are one line, exit 2."""

from __future__ import annotations

import json

import pytest

from bilinear.cli import main
from bilinear.constructions import external_config
from bilinear.constructions.fromconfig import verify_config
from bilinear.errors import ConfigError

DELTA = {"model_type": "delta_net", "hidden_size": 8, "num_heads": 2, "vocab_size": 4, "num_hidden_layers": 2,
         "use_short_conv": False}


@pytest.mark.parametrize("neg,status,theorem", [(False, "impossible", "Theorem F2"), (True, "proved", None)])
def test_delta_net_parity_both_ways(tmp_path, capsys, neg, status, theorem):
    path = tmp_path / "config.json"
    path.write_text(json.dumps({**DELTA, "allow_neg_eigval": neg}))
    rc = main(["verify", "--from", "fla", str(path), "--task", "parity"])
    text = capsys.readouterr().out
    assert rc == 0
    variant = "householder:1" if neg else "householder:1,nonneg"
    assert f"-> variant {variant} " in text and f"parity {variant}: {status}" in text
    if theorem:
        assert theorem in text and "transfer: the certificate's theorem is about eigenvalues" in text
        assert "docs/theory.md, the lifted affine recurrence" in text
    else:
        assert "transfer: a construction of this variant tracks the task with a linear readout" in text
        assert "Theorem F2" not in text
    assert "outside the statement: the MLPs, the other 1 layer(s) and the model's nonlinear head." in text


def test_the_mapping_of_each_kind():
    def variant(d):
        return external_config({"hidden_size": 8, "vocab_size": 4, "num_hidden_layers": 1, **d},
                               "hf" if d["model_type"] == "qwen3_next" else "fla").variant

    assert variant({"model_type": "gated_deltaproduct", "num_heads": 2, "head_dim": 4, "num_householder": 3,
                    "allow_neg_eigval": True}) == "householder:3"
    assert variant({"model_type": "gated_deltanet", "num_heads": 2, "head_dim": 4}) == "householder:1,nonneg"
    assert variant({"model_type": "qwen3_next", "linear_num_key_heads": 1, "linear_num_value_heads": 2,
                    "linear_key_head_dim": 4, "linear_value_head_dim": 4, "num_experts": 0}) == "householder:1,nonneg"
    assert variant({"model_type": "rwkv7", "head_dim": 4}) == "dplr:1"
    assert variant({"model_type": "mamba2", "head_dim": 4}) == "positive"


def test_cyclic_three_on_one_reflection_is_impossible_and_transfers():
    out = verify_config({**DELTA, "allow_neg_eigval": True}, "fla", "cyclic:3")
    assert out["cell"]["status"] == "impossible" and out["transfers"] is True
    assert out["cell"]["certificate"]["kind"] == "symbol-period"


def test_bad_configs_are_one_line(tmp_path, capsys):
    path = tmp_path / "config.json"
    for bad, message in ((dict(DELTA, qk_norm="sum"), "config flag qk_norm = 'sum' is not supported"),
                         (dict(DELTA, num_heads=0), "config field num_heads = 0 must be a positive integer"),
                         (dict(DELTA, vocab_size=10 ** 9), "config field vocab_size = 1,000,000,000 is over the reader's limit"),
                         (dict(DELTA, model_type="llama"), "config model_type = 'llama' is not supported"),
                         (dict(DELTA, attn={"layers": [1]}), "config flag attn = ")):
        path.write_text(json.dumps(bad))
        assert main(["verify", "--from", "fla", str(path), "--task", "parity"]) == 2
        err = capsys.readouterr().err
        assert message in err and err.count("\n") == 1, err
    assert main(["verify", "--from", "fla", str(tmp_path / "none.json"), "--task", "parity"]) == 2
    assert "no config file" in capsys.readouterr().err
    assert main(["verify", "--task", "parity"]) == 2
    assert "--task goes with --from" in capsys.readouterr().err


def test_verify_from_needs_no_torch(tmp_path):
    """The config is read by constructions/values/external.py, torch-free: verify --from never imports torch."""
    import subprocess
    import sys

    path = tmp_path / "config.json"
    path.write_text(json.dumps({**DELTA, "allow_neg_eigval": True}))
    code = ("import sys\nfrom bilinear.cli import main\n"
            f"rc = main(['verify', '--from', 'fla', {str(path)!r}, '--task', 'parity', '--json'])\n"
            "print(rc, 'torch' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.stdout.strip().splitlines()[-1] == "0 False", out.stderr[-300:]


def test_config_files_are_read_by_the_one_json_reader(tmp_path, capsys):
    """config.json goes through bilinear/jsonfile.py: Python's ``Infinity`` (a Mamba-2 time-step
    limit) reads as a float; a key given twice and ``NaN`` are one line each."""
    from bilinear.constructions import read_external_config

    path = tmp_path / "config.json"
    path.write_text('{"model_type": "mamba2", "vocab_size": 4, "hidden_size": 8, "num_hidden_layers": 1, '
                    '"state_size": 3, "head_dim": 4, "conv_kernel": 3, "time_step_limit": [0.0, Infinity]}')
    assert read_external_config(path).dt_limit == (0.0, float("inf"))
    for text, message in (('{"model_type": "delta_net", "model_type": "mamba"}', "duplicate key 'model_type'"),
                          ('{"model_type": "mamba2", "time_step_limit": [0.0, NaN]}', "non-finite number NaN")):
        path.write_text(text)
        assert main(["verify", "--from", "fla", str(path), "--task", "parity"]) == 2
        err = capsys.readouterr().err
        assert message in err and str(path) in err and err.count("\n") == 1, err


def test_a_mamba2_config_names_its_own_parts():
    """Mamba-2 has no MLP and no q, k, v: the scope lines name its gated norm and B, C, x."""
    cfg = {"model_type": "mamba2", "vocab_size": 4, "hidden_size": 8, "num_hidden_layers": 2, "state_size": 3,
           "head_dim": 4, "conv_kernel": 3}
    text = "\n".join(verify_config(cfg, "fla", "parity")["scope"])
    assert "B, C and x (and Mamba's Delta) at a step read the last 3 tokens" in text
    assert "outside the statement: the gated norms, the other 1 layer(s)" in text
    assert "MLP" not in text and "q, k, v" not in text and "times the positive gate" not in text


QWEN = {"model_type": "qwen3_next", "hidden_size": 8, "vocab_size": 4, "linear_num_key_heads": 1,
        "linear_num_value_heads": 2, "linear_key_head_dim": 4, "linear_value_head_dim": 4, "num_experts": 0}


def test_qwen3_next_layer_types_default_as_transformers_and_must_match_the_layers():
    # without layer_types, transformers makes every 4th layer (full_attention_interval) full attention:
    # three layers are all linear, four are not; the reader read every layer as linear before
    assert external_config({**QWEN, "num_hidden_layers": 3}, "hf").variant == "householder:1,nonneg"
    with pytest.raises(ConfigError, match=r"layer_types contains 'full_attention' \(layer 4, by default every "
                                          r"full_attention_interval-th\)"):
        external_config({**QWEN, "num_hidden_layers": 4}, "hf")
    with pytest.raises(ConfigError, match=r"layer_types contains 'full_attention' \(layer 2, by default"):
        external_config({**QWEN, "num_hidden_layers": 2, "full_attention_interval": 2}, "hf")
    with pytest.raises(ConfigError, match=r"layer_types contains 'full_attention' \(layer 1\)"):
        external_config({**QWEN, "num_hidden_layers": 2, "layer_types": ["full_attention", "linear_attention"]}, "hf")
    for bad in (["linear_attention"], "linear_attention", ["linear_attention", 2]):  # the count, a string, a number
        with pytest.raises(ConfigError, match=r"layer_types = .* must be a list of num_hidden_layers = 2 layer types"):
            external_config({**QWEN, "num_hidden_layers": 2, "layer_types": bad}, "hf")


def test_a_field_left_out_of_a_qwen3_next_config_reads_as_transformers_default():
    import dataclasses

    transformers = pytest.importorskip("transformers")
    minimal = {**QWEN, "num_hidden_layers": 2}
    full = transformers.Qwen3NextConfig(**{k: v for k, v in minimal.items() if k != "model_type"}).to_dict()
    assert (dataclasses.replace(external_config(minimal, "hf"), raw=None)
            == dataclasses.replace(external_config(full, "hf"), raw=None))


def test_qwen3_next_default_layer_types_are_transformers_own():
    transformers = pytest.importorskip("transformers")
    for layers in (3, 4, 8):
        expect = transformers.Qwen3NextConfig(num_hidden_layers=layers).layer_types
        try:
            external_config({**QWEN, "num_hidden_layers": layers}, "hf")
            read = True
        except ConfigError:
            read = False
        assert read == all(t == "linear_attention" for t in expect), (layers, expect)


@pytest.mark.parametrize("cls,minimal", [
    ("DeltaNetConfig", {"model_type": "delta_net", "num_heads": 2}),
    ("GatedDeltaNetConfig", {"model_type": "gated_deltanet", "num_heads": 2, "head_dim": 4}),
    ("GatedDeltaProductConfig", {"model_type": "gated_deltaproduct", "num_heads": 2, "head_dim": 4}),
    ("MambaConfig", {"model_type": "mamba", "state_size": 3}),
    ("Mamba2Config", {"model_type": "mamba2", "head_dim": 4, "num_heads": 8, "state_size": 3}),
    ("RWKV7Config", {"model_type": "rwkv7", "head_dim": 4}),
])
def test_a_field_left_out_of_an_fla_config_reads_as_fla_s_own_default(cls, minimal):
    """A config.json without a field means what fla's config class makes of it: the reader's reading
    of the minimal dict equals its reading of the full dict fla's class writes (GatedDeltaProduct's
    forget gate was read as on, fla's default is off; Mamba's and Mamba-2's norm epsilon as 1e-6,
    fla's default is 1e-5)."""
    import dataclasses
    import warnings

    from external_fixtures import need

    need("fla")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import fla.models as fm

        sizes = {"hidden_size": 16, "vocab_size": 4, "num_hidden_layers": 1}
        full = getattr(fm, cls)(**sizes, **{k: v for k, v in minimal.items() if k != "model_type"}).to_dict()
    ours, theirs = external_config({**sizes, **minimal}, "fla"), external_config(full, "fla")
    assert dataclasses.replace(ours, raw=None) == dataclasses.replace(theirs, raw=None)


def test_each_library_s_name_for_the_norm_epsilon_and_not_the_other_s():
    """fla's configs read ``norm_eps`` and ignore ``rms_norm_eps``; transformers' Qwen3NextConfig reads
    ``rms_norm_eps`` and ignores ``norm_eps``: the reader reads each kind's own name (a config that
    carried only the other name was read by it for the fla kinds but RWKV-7)."""
    import warnings

    from external_fixtures import need

    need("fla")
    transformers = pytest.importorskip("transformers")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import fla.models as fm

        sizes = {"hidden_size": 16, "vocab_size": 4, "num_hidden_layers": 1}
        for cls, kind in (("DeltaNetConfig", "delta_net"), ("MambaConfig", "mamba")):
            theirs = getattr(fm, cls)(**sizes, rms_norm_eps=0.25).norm_eps
            ours = external_config({"model_type": kind, "num_heads": 2, **sizes, "rms_norm_eps": 0.25}, "fla").norm_eps
            assert ours == theirs != 0.25, cls
    minimal = {**QWEN, "num_hidden_layers": 2}
    theirs = transformers.Qwen3NextConfig(**{k: v for k, v in minimal.items() if k != "model_type"}, norm_eps=0.25)
    assert external_config({**minimal, "norm_eps": 0.25}, "hf").norm_eps == theirs.rms_norm_eps != 0.25
    assert external_config({**minimal, "rms_norm_eps": 0.25}, "hf").norm_eps == 0.25
    with pytest.raises(ConfigError, match=r"config field rms_norm_eps = -1 must be a number in \[0, 1\)"):
        external_config({**minimal, "rms_norm_eps": -1}, "hf")

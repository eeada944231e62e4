"""Tiny checkpoints of every kind the reader runs, made by fla's and transformers' own classes and
``save_pretrained`` into a temporary folder (nothing downloaded, nothing committed).

``BILINEAR_REQUIRE_FLA`` (set by ``.ci/run``, which installs the ``fla`` and ``hf`` extras) turns a
missing fla or transformers into a failure instead of a skip.
"""

from __future__ import annotations

import importlib.util
import os
import warnings

import pytest

KINDS = ("delta_net", "delta_net_conv", "gated_deltanet", "gated_deltaproduct", "qwen3_next")


def need(module: str):
    """Skip without ``module`` unless BILINEAR_REQUIRE_FLA is set (then fail)."""
    if importlib.util.find_spec(module) is None:
        if os.environ.get("BILINEAR_REQUIRE_FLA"):
            pytest.fail(f"{module} is not installed but BILINEAR_REQUIRE_FLA is set (pip install 'bilinear[fla,hf]')")
        pytest.skip(f"{module} is not installed (the fla/hf extras)")


def make_model(kind: str, seed: int = 0, layers: int = 2, vocab: int = 6):
    """A live model of ``kind`` with random parameters (xavier initialisation scaled up, so the
    recurrences are not near the identity)."""
    import torch

    torch.manual_seed(seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if kind == "qwen3_next":
            need("transformers")
            from transformers import Qwen3NextConfig, Qwen3NextForCausalLM

            cfg = Qwen3NextConfig(vocab_size=vocab, hidden_size=16, intermediate_size=24, num_hidden_layers=layers,
                                  layer_types=["linear_attention"] * layers, linear_num_key_heads=2,
                                  linear_num_value_heads=4, linear_key_head_dim=4, linear_value_head_dim=3,
                                  linear_conv_kernel_dim=3, num_experts=0, num_attention_heads=2,
                                  num_key_value_heads=1, head_dim=4)
            model = Qwen3NextForCausalLM(cfg)
        else:
            need("fla")
            import fla.models as fm

            common = dict(vocab_size=vocab, hidden_size=16, num_hidden_layers=layers, hidden_ratio=2,
                          intermediate_size=24, fuse_norm=False, fuse_swiglu=False)
            if kind.startswith("delta_net"):
                model = fm.DeltaNetForCausalLM(fm.DeltaNetConfig(
                    **common, num_heads=2, use_short_conv=kind.endswith("conv"), conv_size=3,
                    allow_neg_eigval=True, use_gate=kind.endswith("conv")))
            elif kind == "gated_deltanet":
                model = fm.GatedDeltaNetForCausalLM(fm.GatedDeltaNetConfig(
                    **common, head_dim=4, num_heads=2, num_v_heads=4, expand_v=1.5, use_short_conv=True,
                    conv_size=2, allow_neg_eigval=True, use_gate=True))
            else:
                model = fm.GatedDeltaProductForCausalLM(fm.GatedDeltaProductConfig(
                    **common, head_dim=4, num_heads=2, expand_v=1, use_short_conv=True, conv_size=2,
                    allow_neg_eigval=True, num_householder=2, use_forget_gate=True, use_output_gate=True))
    with torch.no_grad():  # larger than the initialisation's 0.02: the test must see every term
        for name, p in model.named_parameters():
            if p.ndim >= 2 or name.endswith("norm.weight"):
                p.add_(torch.randn_like(p) * 0.3)
    return model.eval()


@pytest.fixture(scope="session")
def saved(tmp_path_factory):
    """``saved(kind) -> (folder, live model)``, each kind saved once per session."""
    cache: dict = {}

    def get(kind: str):
        if kind not in cache:
            model = make_model(kind)
            folder = tmp_path_factory.mktemp(kind)
            model.save_pretrained(folder)
            cache[kind] = (str(folder), model)
        return cache[kind]

    return get

"""The toolkit's float64 forward of a loaded checkpoint against the packages' own CPU paths: fla's
naive recurrences (``fla/ops/*/naive.py``) inside the layer glue of the live fla model (its own
``nn.Linear``, ``nn.Embedding`` and torch's ``rms_norm``/``conv1d``; fla's fused norms, MLP and
short convolution run only on a GPU), and the whole transformers Qwen3-Next model
(``use_cache=False``, its ``torch_chunk_gated_delta_rule``).

Tolerance: both oracles compute the recurrence in float32 whatever the input dtype (fla's naive
references cast with ``.float()``; transformers casts to float32 in the recurrence and in its
norms), so float64 on both sides is not available from them.  float32 rounds each input to a
relative 2^-24 = 6e-8; a state after T = 12 steps of dk <= 8-dimensional updates accumulates at most
about T * dk * 2^-24 = 6e-6 of the output's scale, and the MLP and head add a few more roundings:
the bound depends on the model's conditioning, so the test measures it on the same model: the
deviation of our own forward run in float32 from our float64 forward (``noise``), and asserts the
deviation from the reference is within 4 x noise (plus 1e-6) and below 1e-4 outright; it prints both.
A definitional mismatch (a flag read wrongly) moves the outputs by 1e-2 or more (test_a_wrong_layer_is_seen).  The float64 side is checked
at 1e-12 against itself elsewhere (the extracted transition matrices run as Weights, test_transitions).
"""

from __future__ import annotations

import copy

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from bilinear.learned.external import load_external

from .conftest import KINDS, need

TOL = 1e-4


def _conv(module, x):
    """fla's ShortConvolution through torch's own Conv1d (its Triton forward does not run on CPU)."""
    T = x.shape[1]
    y = torch.nn.Conv1d.forward(module, x.transpose(1, 2))[..., :T].transpose(1, 2)
    return F.silu(y) if module.activation in ("silu", "swish") else y


def _l2(x):
    return x * torch.rsqrt((x * x).sum(-1, keepdim=True) + 1e-6)


def _fla_layer(attn, h, kind):
    from einops import rearrange

    T = h.shape[1]
    q, k, v = attn.q_proj(h), attn.k_proj(h), attn.v_proj(h)
    if attn.use_short_conv:
        q, k, v = _conv(attn.q_conv1d, q), _conv(attn.k_conv1d, k), _conv(attn.v_conv1d, v)
    else:
        q, k, v = F.silu(q), F.silu(k), F.silu(v)
    dk, dv = attn.head_k_dim, attn.head_v_dim
    if kind.startswith("delta_net"):
        from fla.ops.delta_rule.naive import delta_rule_recurrence

        q, k = (_l2(rearrange(z, "b t (h d) -> b h t d", d=dk)) for z in (q, k))
        v = rearrange(v, "b t (h d) -> b h t d", d=dv)
        beta = rearrange(attn.b_proj(h).sigmoid() * 2, "b t h -> b h t")
        o = delta_rule_recurrence(q, k, v, beta)[0].transpose(1, 2)
    elif kind == "gated_deltanet":
        from fla.ops.gated_delta_rule.gate import naive_gdn_gate
        from fla.ops.gated_delta_rule.naive import naive_recurrent_gated_delta_rule

        q, k = (rearrange(z, "b t (h d) -> b t h d", d=dk) for z in (q, k))
        r = attn.num_v_heads // attn.num_heads
        q, k = _l2(q.repeat_interleave(r, dim=2)), _l2(k.repeat_interleave(r, dim=2))
        v = rearrange(v, "b t (h d) -> b t h d", d=dv)
        g = naive_gdn_gate(attn.a_proj(h), attn.A_log, attn.dt_bias).double()
        beta = attn.b_proj(h).sigmoid() * 2
        o = naive_recurrent_gated_delta_rule(q, k, v, beta, g)[0]
    else:
        from fla.ops.gated_delta_product.naive import naive_recurrent_gated_delta_product

        n = attn.num_householder
        q = _l2(rearrange(q, "b t (h d) -> b t h d", d=dk))
        k = _l2(rearrange(k, "b t (n h d) -> b (t n) h d", n=n, d=dk))
        v = rearrange(v, "b t (n h d) -> b (t n) h d", n=n, d=dv)
        beta = rearrange(attn.b_proj(h).sigmoid() * 2, "b t (n h) -> b (t n) h", n=n)
        g = -attn.A_log.exp() * F.softplus(attn.a_proj(h) + attn.dt_bias)
        o = naive_recurrent_gated_delta_product(q, k, v, g, beta, scale=dk ** -0.5, num_householder=n)[0]
    o = F.rms_norm(o.double(), (dv,), attn.o_norm.weight, attn.o_norm.eps)
    gated = getattr(attn, "use_gate", False) or getattr(attn, "use_output_gate", False)
    if gated:
        o = o * F.silu(rearrange(attn.g_proj(h), "b t (h d) -> b t h d", d=dv))
    assert o.shape[1] == T
    return attn.o_proj(rearrange(o, "b t h d -> b t (h d)"))


def _fla_oracle(model, ids, kind):
    m = copy.deepcopy(model).double()
    with torch.no_grad():
        x = m.model.embeddings(ids)
        for blk in m.model.layers:
            x = x + _fla_layer(blk.attn, F.rms_norm(x, (x.shape[-1],), blk.attn_norm.weight, blk.attn_norm.eps), kind)
            h = F.rms_norm(x, (x.shape[-1],), blk.mlp_norm.weight, blk.mlp_norm.eps)
            x = x + blk.mlp.down_proj(F.silu(blk.mlp.gate_proj(h)) * blk.mlp.up_proj(h))
        x = F.rms_norm(x, (x.shape[-1],), m.model.norm.weight, m.model.norm.eps)
        return m.lm_head(x).numpy()


def _oracle(model, ids, kind):
    if kind == "qwen3_next":
        with torch.no_grad():
            return copy.deepcopy(model).double()(ids, use_cache=False).logits.numpy()
    return _fla_oracle(model, ids, kind)


@pytest.mark.parametrize("kind", KINDS)
def test_forward_matches_the_packages_own_cpu_path(kind, saved):
    folder, live = saved(kind)
    ids = torch.as_tensor(np.random.default_rng(1).integers(0, 6, size=(3, 12)))
    expected = _oracle(live, ids, kind)
    scale = np.abs(expected).max()
    for model in (load_external(folder), load_external(live)):  # the saved folder and the live object
        got = model.logits(ids.numpy())
        with torch.no_grad():
            noise = float(np.abs(model.forward(ids, dtype=torch.float32).double().numpy() - got).max() / scale)
        dev = float(np.abs(got - expected).max() / scale)
        print(f"{kind}: largest relative deviation from the reference {dev:.2e} (float32 noise of this model "
              f"{noise:.2e}; tolerance min(4 x noise + 1e-6, {TOL:g}))")
        assert dev < min(4 * noise + 1e-6, TOL), (kind, dev, noise)


def test_a_wrong_layer_is_seen(saved):
    """The comparison can fail: the reader with allow_neg_eigval flipped is far from the oracle."""
    import dataclasses

    folder, live = saved("delta_net")
    m = load_external(folder)
    wrong_cfg = dataclasses.replace(m.config, neg_eigval=False)
    blocks = tuple(dataclasses.replace(b, mixer=dataclasses.replace(b.mixer, config=wrong_cfg)) for b in m.blocks)
    wrong = dataclasses.replace(m, config=wrong_cfg, blocks=blocks)
    ids = torch.as_tensor(np.random.default_rng(1).integers(0, 6, size=(3, 12)))
    expected = _oracle(live, ids, "delta_net")
    assert np.abs(wrong.logits(ids.numpy()) - expected).max() / np.abs(expected).max() > 100 * TOL


def test_reading_needs_neither_package(saved):
    """The folder is read with fla and transformers hidden from the import system."""
    import subprocess
    import sys

    need("fla")
    folder, _ = saved("gated_deltaproduct")
    code = ("import sys; sys.modules['fla'] = None; sys.modules['transformers'] = None; sys.modules['safetensors'] = None\n"
            "from bilinear.learned.external import load_external\n"
            f"m = load_external({folder!r}); print(m.config.variant, m.logits([[0, 1, 2]]).shape)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-500:]
    assert out.stdout.split() == ["householder:2", "(1,", "3,", "6)"]

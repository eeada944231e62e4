"""Shared by tests/learned/external and tests/analysis (imported by their conftest.py files).

Tiny checkpoints of every kind the reader runs, made by fla's and transformers' own classes and
``save_pretrained`` into a temporary folder (nothing downloaded, nothing committed).

``BILINEAR_REQUIRE_FLA`` (set by ``.ci/run``, which installs the ``fla`` and ``hf`` extras) turns a
missing fla or transformers into a failure instead of a skip.
"""

from __future__ import annotations

import importlib.util
import os
import copy
import warnings

import numpy as np
import pytest
import torch
import torch.nn.functional as F

KINDS = ("delta_net", "delta_net_conv", "gated_deltanet", "gated_deltaproduct", "qwen3_next", "mamba", "mamba2",
         "rwkv7")


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
            if kind == "rwkv7":
                model = fm.RWKV7ForCausalLM(fm.RWKV7Config(**RWKV7_CONFIG, vocab_size=vocab, num_hidden_layers=layers))
            elif kind == "mamba":
                model = fm.MambaForCausalLM(fm.MambaConfig(
                    vocab_size=vocab, hidden_size=8, state_size=3, num_hidden_layers=layers, expand=2, conv_kernel=3,
                    dt_rank=2, fuse_norm=False))
            elif kind.startswith("mamba2"):  # mamba2: one B/C group; mamba2_groups: two, the gate after the norm;
                groups = kind.endswith("groups")  # mamba2_plain: no gated norm, D per channel, biases, dt clamped
                plain = dict(rmsnorm=False, D_has_hdim=True, use_bias=True, dt_limit=(0.01, 0.5)) if kind.endswith(
                    "plain") else {}
                model = fm.Mamba2ForCausalLM(fm.Mamba2Config(
                    vocab_size=vocab, hidden_size=8, state_size=3, head_dim=4, expand=2, n_groups=2 if groups else 1,
                    num_hidden_layers=layers, conv_kernel=3, chunk_size=5, norm_before_gate=groups, fuse_norm=False,
                    fuse_cross_entropy=False, **plain))
            elif kind.startswith("delta_net"):
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


#: Fixture (c)'s task and maps: symbols 0, 1 are tokens 0, 1; the labels even, odd are read from tokens 2, 3.
PARITY_TOKENS, PARITY_LABELS = "0=0,1=1", "even=2,odd=3"


@pytest.fixture(scope="session")
def trained_parity(tmp_path_factory):
    """Fixture (c): a 1-layer GatedDeltaProduct (K = 2, no short convolution, allow_neg_eigval)
    trained on parity (lengths 1..12) on CPU through the toolkit's float32 forward, saved by fla's
    ``save_pretrained`` and loaded back by fla's ``from_pretrained``: ``(folder, reloaded model)``."""
    need("fla")
    import torch

    from bilinear.automata import from_spec
    from bilinear.learned.external.fit import fit

    torch.manual_seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import fla.models as fm

        cfg = fm.GatedDeltaProductConfig(
            vocab_size=4, hidden_size=16, num_hidden_layers=1, hidden_ratio=2, intermediate_size=16, head_dim=4,
            num_heads=2, expand_v=1, use_short_conv=False, allow_neg_eigval=True, num_householder=2,
            use_forget_gate=False, use_output_gate=False, fuse_norm=False, fuse_swiglu=False)
        live = fm.GatedDeltaProductForCausalLM(cfg)
        losses = fit(live, from_spec("parity"), PARITY_TOKENS, PARITY_LABELS, steps=120, lr=2e-2)
        assert losses[-1] < 0.05, losses[-5:]
        folder = tmp_path_factory.mktemp("trained_parity")
        live.save_pretrained(folder)
        back = fm.GatedDeltaProductForCausalLM.from_pretrained(folder)
    for (name, p), (name2, q) in zip(live.state_dict().items(), back.state_dict().items()):
        assert name == name2 and torch.equal(p, q), name
    return str(folder), back.eval()


# --- the oracles: the packages' own CPU paths -----------------------------------------------------
def conv_oracle(module, x):
    """fla's ShortConvolution through torch's own Conv1d (its Triton forward does not run on CPU)."""
    T = x.shape[1]
    y = torch.nn.Conv1d.forward(module, x.transpose(1, 2))[..., :T].transpose(1, 2)
    return F.silu(y) if module.activation in ("silu", "swish") else y


def l2_oracle(x):
    return x * torch.rsqrt((x * x).sum(-1, keepdim=True) + 1e-6)


def fla_layer(attn, h, kind):
    from einops import rearrange

    T = h.shape[1]
    q, k, v = attn.q_proj(h), attn.k_proj(h), attn.v_proj(h)
    if attn.use_short_conv:
        q, k, v = conv_oracle(attn.q_conv1d, q), conv_oracle(attn.k_conv1d, k), conv_oracle(attn.v_conv1d, v)
    else:
        q, k, v = F.silu(q), F.silu(k), F.silu(v)
    dk, dv = attn.head_k_dim, attn.head_v_dim
    if kind.startswith("delta_net"):
        from fla.ops.delta_rule.naive import delta_rule_recurrence

        q, k = (l2_oracle(rearrange(z, "b t (h d) -> b h t d", d=dk)) for z in (q, k))
        v = rearrange(v, "b t (h d) -> b h t d", d=dv)
        beta = rearrange(attn.b_proj(h).sigmoid() * 2, "b t h -> b h t")
        o = delta_rule_recurrence(q, k, v, beta)[0].transpose(1, 2)
    elif kind == "gated_deltanet":
        from fla.ops.gated_delta_rule.gate import naive_gdn_gate
        from fla.ops.gated_delta_rule.naive import naive_recurrent_gated_delta_rule

        q, k = (rearrange(z, "b t (h d) -> b t h d", d=dk) for z in (q, k))
        r = attn.num_v_heads // attn.num_heads
        q, k = l2_oracle(q.repeat_interleave(r, dim=2)), l2_oracle(k.repeat_interleave(r, dim=2))
        v = rearrange(v, "b t (h d) -> b t h d", d=dv)
        g = naive_gdn_gate(attn.a_proj(h), attn.A_log, attn.dt_bias).double()
        beta = attn.b_proj(h).sigmoid() * 2
        o = naive_recurrent_gated_delta_rule(q, k, v, beta, g)[0]
    else:
        from fla.ops.gated_delta_product.naive import naive_recurrent_gated_delta_product

        n = attn.num_householder
        q = l2_oracle(rearrange(q, "b t (h d) -> b t h d", d=dk))
        k = l2_oracle(rearrange(k, "b t (n h d) -> b (t n) h d", n=n, d=dk))
        v = rearrange(v, "b t (n h d) -> b (t n) h d", n=n, d=dv)
        beta = rearrange(attn.b_proj(h).sigmoid() * 2, "b t (n h) -> b (t n) h", n=n)
        g = -attn.A_log.exp() * F.softplus(attn.a_proj(h) + attn.dt_bias) if attn.use_forget_gate else None
        o = naive_recurrent_gated_delta_product(q, k, v, g, beta, scale=dk ** -0.5, num_householder=n)[0]
    o = F.rms_norm(o.double(), (dv,), attn.o_norm.weight, attn.o_norm.eps)
    gated = getattr(attn, "use_gate", False) or getattr(attn, "use_output_gate", False)
    if gated:
        o = o * F.silu(rearrange(attn.g_proj(h), "b t (h d) -> b t h d", d=dv))
    assert o.shape[1] == T
    return attn.o_proj(rearrange(o, "b t h d -> b t (h d)"))


def fla_oracle(model, ids, kind):
    m = copy.deepcopy(model).double()
    with torch.no_grad():
        x = m.model.embeddings(ids)
        for blk in m.model.layers:
            x = x + fla_layer(blk.attn, F.rms_norm(x, (x.shape[-1],), blk.attn_norm.weight, blk.attn_norm.eps), kind)
            h = F.rms_norm(x, (x.shape[-1],), blk.mlp_norm.weight, blk.mlp_norm.eps)
            x = x + blk.mlp.down_proj(F.silu(blk.mlp.gate_proj(h)) * blk.mlp.up_proj(h))
        x = F.rms_norm(x, (x.shape[-1],), m.model.norm.weight, m.model.norm.eps)
        return m.lm_head(x).numpy()


def mamba_oracle(model, ids):
    """fla's own ``Mamba.slow_forward`` (its CPU path), fla's Triton SiLU replaced by torch's."""
    m = copy.deepcopy(model).double()
    with torch.no_grad():
        x = m.backbone.embeddings(ids)
        for blk in m.backbone.layers:
            blk.mixer.act = F.silu
            x = x + blk.mixer.slow_forward(F.rms_norm(x, (x.shape[-1],), blk.norm.weight, blk.norm.eps))[0]
        x = F.rms_norm(x, (x.shape[-1],), m.backbone.norm_f.weight, m.backbone.norm_f.eps)
        return m.lm_head(x).numpy()


def _gated_norm_oracle(norm):
    """fla's gated RMSNorm through fla's own ``rms_norm_ref`` (its Triton forward does not run on CPU)."""
    from fla.modules.norm.layernorm_gated import rms_norm_ref

    norm.forward = lambda y, z=None: rms_norm_ref(y, norm.weight, None, z=z, eps=norm.eps, group_size=norm.group_size,
                                                  norm_before_gate=norm.norm_before_gate, upcast=False)


def mamba2_oracle(model, ids, decode: bool = False):
    """fla's own ``Mamba2.torch_forward`` (its CPU path): the chunked SSD prefill, or with ``decode`` its
    one-token-at-a-time path with a cache; fla's Triton SiLU and gated norm replaced by torch's and
    fla's ``rms_norm_ref``; the blocks' norms by torch's ``rms_norm``."""
    m = copy.deepcopy(model).double()
    with torch.no_grad():
        x = m.backbone.embeddings(ids)
        B, T, _ = x.shape
        for blk in m.backbone.layers:
            mx = blk.mixer
            mx.act = F.silu
            if mx.norm is not None:
                _gated_norm_oracle(mx.norm)
            h = F.rms_norm(x, (x.shape[-1],), blk.norm.weight, blk.norm.eps)
            if not decode:
                x = x + mx.torch_forward(h)[0]
                continue
            state = {"conv_state": torch.zeros(B, mx.conv_dim, mx.conv_kernel_size, dtype=x.dtype),
                     "recurrent_state": torch.zeros(B, mx.num_heads, mx.head_dim, mx.ssm_state_size, dtype=x.dtype)}
            outs = []
            for t in range(T):
                o, conv, ssm = mx.torch_forward(h[:, t:t + 1], last_state=state)
                state = {"conv_state": conv, "recurrent_state": ssm}
                outs.append(o)
            x = x + torch.cat(outs, 1)
        x = F.rms_norm(x, (x.shape[-1],), m.backbone.norm_f.weight, m.backbone.norm_f.eps)
        return m.lm_head(x).numpy()


def oracle(model, ids, kind):
    if kind == "rwkv7":
        return rwkv7_oracle(model, ids)
    if kind == "mamba":
        return mamba_oracle(model, ids)
    if kind.startswith("mamba2"):
        return mamba2_oracle(model, ids)
    if kind == "qwen3_next":
        with torch.no_grad():
            return copy.deepcopy(model).double()(ids, use_cache=False).logits.numpy()
    return fla_oracle(model, ids, kind)




def handset_parity(folder, beta: float = 2.0, neg: bool = True):
    """A 1-layer fla DeltaNet (hidden 4, one head, no short convolution, MLP zero) whose parameters
    are set by hand: token 1 is the reflection ``I - beta e0 e0^T`` with additive term ``beta e0 v^T``
    (so with beta = 2 the state is 0 after an even number of 1s and ``2 e0 v^T`` after an odd one),
    token 0 has key 0 (the identity); the head reads odd from the state, even from the token.  With
    ``beta`` < 2 (``b_proj`` set to ``logit(beta / 2)``) the reflection's eigenvalue is 1 - beta.
    Tokens: symbols 0, 1 -> 0, 1; labels even, odd -> 2, 3.  Saved by fla's save_pretrained."""
    import math

    need("fla")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import fla.models as fm

        cfg = fm.DeltaNetConfig(vocab_size=4, hidden_size=4, num_heads=1, num_hidden_layers=1, use_short_conv=False,
                                allow_neg_eigval=neg, use_gate=False, hidden_ratio=2, intermediate_size=4,
                                fuse_norm=False, fuse_swiglu=False)
        model = fm.DeltaNetForCausalLM(cfg)
    top = 2.0 if neg else 1.0
    logit = 60.0 if beta >= top else math.log(beta / top / (1 - beta / top))
    with torch.no_grad():
        for p in model.parameters():
            p.zero_()
        m, a = model.model, model.model.layers[0].attn
        m.embeddings.weight[0, 0] = m.embeddings.weight[1, 1] = 2.0
        m.layers[0].attn_norm.weight.fill_(1.0)
        m.layers[0].mlp_norm.weight.fill_(1.0)
        m.norm.weight.fill_(1.0)
        a.b_proj.weight[0] = torch.tensor([-30.0, logit / 2, 0.0, 0.0])  # x = (2, 0, ..) or (0, 2, ..)
        a.k_proj.weight[0, 1] = 500.0                       # token 1: k = e0 (after the L2 norm)
        a.q_proj.weight[0, :2] = 500.0                      # q = e0 for both tokens
        a.v_proj.weight[0, 1] = 5.0                         # v = silu(10) e0
        a.o_norm.weight.fill_(1.0)
        a.o_proj.weight[2, 0] = 1.0                         # odd writes residual dimension 2
        model.lm_head.weight[2, :2] = 0.1                   # even: the token's own dimension
        model.lm_head.weight[3, 2] = 1.0                    # odd: dimension 2
    model.save_pretrained(folder)
    return str(folder), model.eval()


# --- RWKV-7 -----------------------------------------------------------------------------------------
#: The RWKV7 fixture's config (2 layers of 4 heads of 4; every low-rank map of rank 4; no fused norms:
#: fla's fused LayerNorm runs only on a GPU, and the formula is the same).
RWKV7_CONFIG = dict(hidden_size=16, head_dim=4, decay_low_rank_dim=4, gate_low_rank_dim=4, a_low_rank_dim=4,
                    v_low_rank_dim=4, hidden_ratio=2, fuse_norm=False)


def rwkv7_attn_oracle(attn, x, v_first):
    """fla's RWKV7Attention.forward piece by piece on CPU: its own modules (nn.Linear, the LoRA
    nn.Sequential, nn.GroupNorm) and fla's torch references (token_shift_ref, torch_addcmul_rwkv7,
    k_update_ref, the dplr recurrence's naive reference, gate_output_correction_ref)."""
    from einops import rearrange
    from fla.modules.token_shift import token_shift_ref
    from fla.ops.generalized_delta_rule.dplr.naive import dplr_recurrence
    from fla.ops.rwkv7.fused_addcmul import torch_addcmul_rwkv7
    from fla.ops.rwkv7.fused_k_update import k_update_ref
    from fla.ops.rwkv7.gate_output_correction import gate_output_correction_ref

    B, T, _ = x.shape
    delta = token_shift_ref(x)
    xr, xw, xk, xv, xa, xg = torch_addcmul_rwkv7(x, delta, attn.x_r, attn.x_w, attn.x_k, attn.x_v, attn.x_a, attn.x_g)
    r = attn.r_proj(xr)
    w = -0.6065306597126334 * attn.w_lora(xw).sigmoid()
    k, v = attn.k_proj(xk), attn.v_proj(xv)
    if attn.layer_idx == 0:
        v_first = v
    else:
        v = torch.lerp(v, v_first, attn.v_lora(xv).sigmoid())
    a, g = attn.a_lora(xa).sigmoid(), attn.g_lora(xg)
    kk = F.normalize(rearrange(k * attn.k_k, "b t (h d) -> b t h d", d=attn.head_dim), dim=-1, p=2.0)
    k = k_update_ref(k, a, attn.k_a)
    r, w, k, a = (rearrange(z, "b t (h d) -> b t h d", d=attn.head_dim) for z in (r, w, k, a))
    v = rearrange(v, "b t (h d) -> b t h d", d=attn.head_v_dim)

    def bh(z):  # the reference computes in float32 whatever it is given (and mixes dtypes otherwise)
        return z.transpose(1, 2).float()

    # the naive reference scales its queries by head_dim^-1/2; fla's layer calls the kernel with scale 1
    o, _ = dplr_recurrence(bh(r) * attn.head_dim ** 0.5, bh(k), bh(v), bh(-kk), bh(kk * a), bh(w))
    o = attn.g_norm(rearrange(o.transpose(1, 2).to(x.dtype), "b t h d -> (b t) (h d)")).view(B, T, -1)
    return attn.o_proj(gate_output_correction_ref(o, r, k, attn.r_k, v, g)), v_first


def rwkv7_oracle(model, ids):
    """fla's RWKV7Model.forward with its blocks run piecewise (rwkv7_attn_oracle; the channel mix
    from its own modules and token_shift_ref; its sqrelu is fla's ``sqrelu_fwd`` run without the
    ``torch.compile`` wrapper, whose first call compiles for seconds)."""
    from fla.modules.activations.ops import sqrelu_fwd
    from fla.modules.token_shift import token_shift_ref

    act = getattr(sqrelu_fwd, "_torchdynamo_orig_callable", None) or sqrelu_fwd.__wrapped__

    m = copy.deepcopy(model).double()
    with torch.no_grad():
        x = m.model.embeddings(ids)
        v_first = None
        for blk in m.model.layers:
            res = blk.pre_norm(x) if hasattr(blk, "pre_norm") else x
            y, v_first = rwkv7_attn_oracle(blk.attn, blk.attn_norm(res), v_first)
            x = res + y
            h = blk.ffn_norm(x)
            x = x + blk.ffn.value(act(blk.ffn.key(h.addcmul(token_shift_ref(h), blk.ffn.x_k))))
        return m.lm_head(m.model.norm(x)).numpy()


def lifted_states(w, word):
    """The states ``[h; 1]`` of lifted weights ``w`` along ``word``, the lift's last coordinate
    dropped: what the model's own float64 states must equal."""
    h, out = w.h0.astype(float), []
    for s in word:
        h = w.A[s] @ h
        out.append(h[:-1])
    return np.array(out)

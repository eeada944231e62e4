"""The delta-rule layers (fla DeltaNet, GatedDeltaNet, GatedDeltaProduct; transformers' Qwen3-Next
linear attention) in float64 on CPU, written from the installed packages' code (fla 0.6.0,
transformers 5.x):

* projections ``q, k, v`` (K keys and values per token for a DeltaProduct), then a causal depthwise
  convolution of width w and SiLU (or SiLU alone without the convolution; DeltaNet's q, k follow
  ``qk_activation``);
* keys and queries L2-normalised, ``x / sqrt(|x|^2 + 1e-6)``, queries scaled by ``head_k_dim^-1/2``;
* ``beta = sigmoid(b_proj x)`` (x 2 with ``allow_neg_eigval``; 1 without ``use_beta``), and the gate
  ``g = -exp(A_log) softplus(a_proj x + dt_bias)``: both from the layer's input at the current step,
  never convolved;
* per head ``S_t = H_K ... H_1 exp(g_t) S_{t-1} + sum_j H_K ... H_(j+1) beta_j k_j v_j^T`` with
  ``H_j = I - beta_j k_j k_j^T`` (keys x values), read out as ``o_t = S_t^T q_t``;
* ``o_norm``: RMS norm over the value dimension times its weight, times ``act(g_proj x)`` when
  gated; then ``o_proj``.

:func:`layer_inputs` returns the per-step quantities the transitions are made of;
:func:`layer_forward` the layer's output.  Both run on torch tensors of any float dtype and are
differentiable (the fixture of docs/your-model.md is trained through them).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
import torch.nn.functional as F

from bilinear.constructions.values.external import ExternalConfig

from .tensors import tensor

__all__ = ["DeltaLayer", "read_delta_layer", "layer_inputs", "layer_forward", "rms_norm", "recurrence"]


@dataclass(frozen=True)
class DeltaLayer:
    """One layer's parameters (torch tensors) and its config."""

    config: ExternalConfig
    q: torch.Tensor            # (key_heads * dk, hidden)
    k: torch.Tensor            # (K * key_heads * dk, hidden)
    v: torch.Tensor            # (K * heads * dv, hidden)
    b: torch.Tensor | None     # (K * heads, hidden); None without use_beta
    a: torch.Tensor | None     # (heads, hidden) with a forget gate
    A_log: torch.Tensor | None
    dt_bias: torch.Tensor | None
    conv: tuple | None         # ((q_w, q_b), (k_w, k_b), (v_w, v_b)), weights (channels, width)
    g: torch.Tensor | None     # output gate (heads * dv, hidden)
    o_norm: torch.Tensor       # (dv,)
    o: torch.Tensor            # (hidden, heads * dv)
    zero_centred: bool = False  # unused by the o_norm (kept for symmetry with the block norms)

    def run(self, x: torch.Tensor, states: bool = False):
        """:func:`layer_forward` of this layer."""
        return layer_forward(self, x, states)

    def parameters(self) -> list[torch.Tensor]:
        out = [self.q, self.k, self.v, self.b, self.a, self.A_log, self.dt_bias, self.g, self.o_norm, self.o]
        if self.conv is not None:
            out += [t for pair in self.conv for t in pair]
        return [t for t in out if t is not None]


def _conv_pair(t: dict, prefix: str, channels: int, c: ExternalConfig):
    w = tensor(t, f"{prefix}.weight", (channels, 1, c.conv_size))[:, 0, :]
    b = tensor(t, f"{prefix}.bias", (channels,)) if c.conv_bias else None

    def th(x):
        return x if isinstance(x, torch.Tensor) else torch.from_numpy(np.array(x, dtype=np.float64))

    return th(w), None if b is None else th(b)


def read_delta_layer(t: dict, prefix: str, c: ExternalConfig) -> DeltaLayer:
    """The layer ``prefix`` (e.g. ``model.layers.0.attn``) of an fla checkpoint's tensors ``t``,
    every shape checked against the config (CheckpointError naming the tensor)."""
    D, K = c.hidden, c.householders
    kd, vd = c.key_heads * c.head_k_dim, c.heads * c.head_v_dim

    def get(name, shape):
        x = tensor(t, f"{prefix}.{name}", shape)
        return x if isinstance(x, torch.Tensor) else torch.from_numpy(np.array(x, dtype=np.float64))

    gated = c.forget_gate
    conv = None
    if c.short_conv:
        conv = (_conv_pair(t, f"{prefix}.q_conv1d", kd, c), _conv_pair(t, f"{prefix}.k_conv1d", K * kd, c),
                _conv_pair(t, f"{prefix}.v_conv1d", K * vd, c))
    return DeltaLayer(
        config=c, q=get("q_proj.weight", (kd, D)), k=get("k_proj.weight", (K * kd, D)),
        v=get("v_proj.weight", (K * vd, D)), b=get("b_proj.weight", (K * c.heads, D)) if c.use_beta else None,
        a=get("a_proj.weight", (c.heads, D)) if gated else None, A_log=get("A_log", (c.heads,)) if gated else None,
        dt_bias=get("dt_bias", (c.heads,)) if gated else None, conv=conv,
        g=get("g_proj.weight", (vd, D)) if c.output_gate else None, o_norm=get("o_norm.weight", (c.head_v_dim,)),
        o=get("o_proj.weight", (D, vd)))


def _causal_conv(x: torch.Tensor, wb) -> torch.Tensor:
    """Depthwise causal convolution over time: x (batch, time, channels), w (channels, width)."""
    w, b = wb
    width = w.shape[1]
    xp = F.pad(x.transpose(1, 2), (width - 1, 0))
    y = F.conv1d(xp, w.to(x.dtype).unsqueeze(1), None if b is None else b.to(x.dtype), groups=w.shape[0])
    return y.transpose(1, 2)


def _l2(x: torch.Tensor) -> torch.Tensor:
    return x * torch.rsqrt((x * x).sum(-1, keepdim=True) + 1e-6)


def rms_norm(x: torch.Tensor, weight: torch.Tensor, eps: float, zero_centred: bool = False) -> torch.Tensor:
    """``x / sqrt(mean(x^2) + eps) * weight`` (``1 + weight`` for Qwen3-Next's zero-centred norms)."""
    w = weight.to(x.dtype)
    return x * torch.rsqrt((x * x).mean(-1, keepdim=True) + eps) * (1 + w if zero_centred else w)


def layer_inputs(layer: DeltaLayer, x: torch.Tensor) -> dict:
    """Per step: ``q`` (batch, time, heads, dk) scaled, ``k`` (batch, time, K, heads, dk) normalised,
    ``v`` (batch, time, K, heads, dv), ``beta`` (batch, time, K, heads), ``decay`` = exp(g) (batch,
    time, heads), ``gate`` (batch, time, heads, dv) or None, from the layer's input x (batch, time, hidden)."""
    c = layer.config
    dt = x.dtype
    B, T, _ = x.shape
    K, H, Hk, dk, dv = c.householders, c.heads, c.key_heads, c.head_k_dim, c.head_v_dim
    q, k, v = x @ layer.q.to(dt).T, x @ layer.k.to(dt).T, x @ layer.v.to(dt).T
    silu_qk = c.qk_activation == "silu"
    if layer.conv is not None:
        q, k, v = (_causal_conv(z, wb) for z, wb in zip((q, k, v), layer.conv))
    q, k = (F.silu(q), F.silu(k)) if silu_qk else (q, k)
    v = F.silu(v)
    q = q.reshape(B, T, Hk, dk)
    k = k.reshape(B, T, K, Hk, dk)
    v = v.reshape(B, T, K, H, dv)
    if H > Hk:  # each key head serves H / Hk consecutive value heads
        q, k = q.repeat_interleave(H // Hk, dim=-2), k.repeat_interleave(H // Hk, dim=-2)
    q, k = _l2(q) * dk ** -0.5, _l2(k)
    if layer.b is not None:
        beta = torch.sigmoid(x @ layer.b.to(dt).T).reshape(B, T, K, H)
    else:
        beta = torch.ones(B, T, K, H, dtype=dt)
    if c.neg_eigval:
        beta = beta * 2
    if layer.a is not None:
        assert layer.A_log is not None and layer.dt_bias is not None
        g = -torch.exp(layer.A_log.to(dt)) * F.softplus(x @ layer.a.to(dt).T + layer.dt_bias.to(dt))
        decay = torch.exp(g)
    else:
        decay = torch.ones(B, T, H, dtype=dt)
    gate = None
    if layer.g is not None:
        gate = (x @ layer.g.to(dt).T).reshape(B, T, H, dv)
    return {"q": q, "k": k, "v": v, "beta": beta, "decay": decay, "gate": gate}


def recurrence(inp: dict, states: bool = False):
    """``o`` (batch, time, heads, dv) of the delta recurrence (module docstring); with ``states``
    also every state S_t (batch, time, heads, dk, dv)."""
    q, k, v, beta, decay = inp["q"], inp["k"], inp["v"], inp["beta"], inp["decay"]
    B, T, K, H, dk = k.shape
    S = torch.zeros(B, H, dk, v.shape[-1], dtype=q.dtype)
    outs, kept = [], []
    for t in range(T):
        S = S * decay[:, t, :, None, None]
        for j in range(K):
            kj, vj, bj = k[:, t, j], v[:, t, j], beta[:, t, j]
            S = S + (bj[..., None, None] * kj[..., :, None]) * (vj[..., None, :] - kj[..., None, :] @ S)
        outs.append((q[:, t, :, None, :] @ S)[..., 0, :])
        if states:
            kept.append(S)
    o = torch.stack(outs, dim=1)
    return (o, torch.stack(kept, dim=1)) if states else o


def layer_forward(layer: DeltaLayer, x: torch.Tensor, states: bool = False):
    """The layer's output (batch, time, hidden); with ``states`` also (output, S_t per step)."""
    c = layer.config
    inp = layer_inputs(layer, x)
    o, S = recurrence(inp, states=True) if states else (recurrence(inp), None)
    o = rms_norm(o, layer.o_norm, c.norm_eps)
    if inp["gate"] is not None:
        gate = inp["gate"]
        o = o * (torch.sigmoid(gate) if c.gate_act == "sigmoid" else F.silu(gate))
    out = o.reshape(*o.shape[:2], -1) @ layer.o.to(x.dtype).T
    return (out, S) if states else out


def _np(t: torch.Tensor) -> np.ndarray:
    return t.detach().to(torch.float64).cpu().numpy()

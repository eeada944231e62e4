"""fla's Mamba-2 mixer in float64 on CPU, written from fla 0.6.0's ``Mamba2.torch_forward``:

``z, xBC, dt = in_proj x`` (sizes I, I + 2 G N, H; I = H P for H heads of P channels, G groups,
state size N); ``xBC = silu(causal depthwise conv(xBC))`` split into ``x`` (H, P), ``B``, ``C`` (G, N);
``Delta = clamp(softplus(dt + dt_bias), dt_limit)`` per head; ``a = -exp(A_log)`` per head.  Per head
h, reading group ``h // (H / G)``, the state ``S_t`` (N x P) is

    S_t = exp(Delta_t a) S_(t-1) + Delta_t B_t x_t^T,        y_t = S_t^T C_t + D x_t,

then the gated RMSNorm (``rmsnorm``: ``norm(y * silu(z))`` per group of I / G channels, times its
weight; ``norm(y) * silu(z)`` with ``norm_before_gate``; ``y * silu(z)`` without ``rmsnorm``) and
``out_proj``.  Each head's transition is the scalar exp(Delta a) in (0, 1] times the identity
(variant ``positive``), a function of the last ``conv_kernel`` tokens.

Heads and groups: transformers' Mamba2, fla's own decode path and the mamba_ssm kernels give head h
the group h // (H / G); fla 0.6.0's CPU prefill (``torch_forward`` with ``.repeat``) gives it h mod G.
The two agree for G = 1; the reader follows the kernels (the computation a model trained on a GPU
had), and tests/learned/external/test_mamba2.py checks G = 2 against fla's decode path.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
import torch.nn.functional as F

from bilinear.constructions.values.external import ExternalConfig

from .delta import _causal_conv
from .tensors import tensor

__all__ = ["Mamba2Layer", "read_mamba2_layer"]


def _t(x) -> torch.Tensor:
    return x if isinstance(x, torch.Tensor) else torch.from_numpy(np.array(x, dtype=np.float64))


def _opt(x):
    return None if x is None else _t(x)


@dataclass(frozen=True)
class Mamba2Layer:
    """One Mamba-2 mixer's parameters (torch tensors) and its config."""

    config: ExternalConfig
    in_proj: torch.Tensor           # (I + conv_dim + H, hidden)
    in_bias: torch.Tensor | None
    conv: tuple                     # (weight (conv_dim, width), bias (conv_dim,) or None)
    dt_bias: torch.Tensor           # (H,)
    A_log: torch.Tensor             # (H,)
    D: torch.Tensor                 # (H,) or (I,) with D_has_hdim
    norm: torch.Tensor | None       # (I,) the gated RMSNorm's weight, None without rmsnorm
    out_proj: torch.Tensor          # (hidden, I)
    out_bias: torch.Tensor | None

    def parameters(self) -> list[torch.Tensor]:
        out = [self.in_proj, self.in_bias, self.conv[0], self.conv[1], self.dt_bias, self.A_log, self.D, self.norm,
               self.out_proj, self.out_bias]
        return [t for t in out if t is not None]

    def inputs(self, x: torch.Tensor) -> dict:
        """Per step: ``decay`` exp(Delta a) (batch, time, H), ``drive`` Delta B x^T (batch, time, H, N, P),
        ``C`` (batch, time, H, N), ``x`` (batch, time, H, P) and the gate ``z`` (batch, time, I)."""
        c, dt_ = self.config, x.dtype
        H, P, N, G = c.heads, c.head_v_dim, c.state_size, c.groups
        I = H * P
        proj = x @ self.in_proj.to(dt_).T + (0 if self.in_bias is None else self.in_bias.to(dt_))
        z, xBC, dt = torch.split(proj, [I, I + 2 * G * N, H], dim=-1)
        xBC = F.silu(_causal_conv(xBC, self.conv))
        u, B, C = torch.split(xBC, [I, G * N, G * N], dim=-1)
        Bn, T = x.shape[:2]
        u = u.reshape(Bn, T, H, P)
        B = B.reshape(Bn, T, G, N).repeat_interleave(H // G, dim=2)
        C = C.reshape(Bn, T, G, N).repeat_interleave(H // G, dim=2)
        delta = torch.clamp(F.softplus(dt + self.dt_bias.to(dt_)), c.dt_limit[0], c.dt_limit[1])
        a = -torch.exp(self.A_log.to(dt_))
        return {"decay": torch.exp(delta * a), "drive": delta[..., None, None] * B[..., :, None] * u[..., None, :],
                "C": C, "x": u, "z": z}

    def _gated_norm(self, y: torch.Tensor, z: torch.Tensor) -> torch.Tensor:
        c = self.config
        if self.norm is None:
            return y * F.silu(z)
        if not c.norm_before_gate:
            y = y * F.silu(z)
        g = y.reshape(*y.shape[:-1], c.groups, -1)
        y = (g * torch.rsqrt((g * g).mean(-1, keepdim=True) + c.norm_eps)).reshape(y.shape) * self.norm.to(y.dtype)
        return y * F.silu(z) if c.norm_before_gate else y

    def run(self, x: torch.Tensor, states: bool = False):
        """The mixer's output (batch, time, hidden); with ``states`` also S_t (batch, time, H, N, P)."""
        inp = self.inputs(x)
        Bn, T, H, N, P = inp["drive"].shape
        S = torch.zeros(Bn, H, N, P, dtype=x.dtype)
        ys, kept = [], []
        for t in range(T):
            S = inp["decay"][:, t, :, None, None] * S + inp["drive"][:, t]
            ys.append((S * inp["C"][:, t, :, :, None]).sum(-2))
            if states:
                kept.append(S)
        D = self.D.to(x.dtype)
        D = D.reshape(H, P) if D.numel() == H * P and self.config.D_per_dim else D[:, None]
        y = (torch.stack(ys, dim=1) + inp["x"] * D).reshape(Bn, T, H * P)
        out = self._gated_norm(y, inp["z"]) @ self.out_proj.to(x.dtype).T
        out = out + (0 if self.out_bias is None else self.out_bias.to(x.dtype))
        return (out, torch.stack(kept, dim=1)) if states else out


def read_mamba2_layer(t: dict, prefix: str, c: ExternalConfig) -> Mamba2Layer:
    """The mixer ``prefix`` (``backbone.layers.L.mixer``), every shape checked against the config."""
    D, H, P, N, G = c.hidden, c.heads, c.head_v_dim, c.state_size, c.groups
    I, conv_dim = H * P, H * P + 2 * G * N

    def get(name, shape):
        return _t(tensor(t, f"{prefix}.{name}", shape))

    def maybe(flag, name, shape):
        return get(name, shape) if flag else None

    conv = (get("conv1d.weight", (conv_dim, 1, c.conv_size))[:, 0, :], maybe(c.conv_bias, "conv1d.bias", (conv_dim,)))
    return Mamba2Layer(
        config=c, in_proj=get("in_proj.weight", (I + conv_dim + H, D)),
        in_bias=maybe(c.use_bias, "in_proj.bias", (I + conv_dim + H,)), conv=conv, dt_bias=get("dt_bias", (H,)),
        A_log=get("A_log", (H,)), D=get("D", (I,) if c.D_per_dim else (H,)), norm=maybe(c.gated_norm, "norm.weight", (I,)),
        out_proj=get("out_proj.weight", (D, I)), out_bias=maybe(c.use_bias, "out_proj.bias", (D,)))

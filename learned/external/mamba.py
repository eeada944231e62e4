"""fla's Mamba (Mamba-1) mixer in float64 on CPU, written from fla 0.6.0's ``Mamba.slow_forward``:

``u, z = in_proj x`` (halves), ``u = silu(causal depthwise conv(u))``; ``dt, B, C = x_proj u``
(sizes dt_rank, N, N); ``Delta = softplus(dt_proj dt)``; per channel c and step t the state
``h_c = exp(Delta_c A_c) * h_c + Delta_c B u_c`` with ``A = -exp(A_log)`` (channels x N), read out as
``y_c = C . h_c + D_c u_c``; then ``y * silu(z)`` and ``out_proj``.  Each channel's transition is a
positive diagonal matrix (variant ``positive``), a function of the last ``conv_kernel`` tokens.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
import torch.nn.functional as F

from bilinear.constructions.values.external import ExternalConfig

from .delta import _causal_conv
from .tensors import tensor

__all__ = ["MambaLayer", "read_mamba_layer"]


def _t(x) -> torch.Tensor:
    return x if isinstance(x, torch.Tensor) else torch.from_numpy(np.array(x, dtype=np.float64))


@dataclass(frozen=True)
class MambaLayer:
    """One Mamba mixer's parameters (torch tensors) and its config."""

    config: ExternalConfig
    in_proj: torch.Tensor           # (2 I, hidden)
    in_bias: torch.Tensor | None
    conv: tuple                     # (weight (I, width), bias (I,) or None)
    x_proj: torch.Tensor            # (dt_rank + 2 N, I)
    dt_proj: torch.Tensor           # (I, dt_rank)
    dt_bias: torch.Tensor           # (I,)
    A_log: torch.Tensor             # (I, N)
    D: torch.Tensor                 # (I,)
    out_proj: torch.Tensor          # (hidden, I)
    out_bias: torch.Tensor | None

    def parameters(self) -> list[torch.Tensor]:
        out = [self.in_proj, self.in_bias, self.conv[0], self.conv[1], self.x_proj, self.dt_proj, self.dt_bias,
               self.A_log, self.D, self.out_proj, self.out_bias]
        return [t for t in out if t is not None]

    def inputs(self, x: torch.Tensor) -> dict:
        """Per step: ``decay`` exp(Delta A) (batch, time, I, N), ``drive`` Delta B u (batch, time, I, N),
        ``C`` (batch, time, N), ``u`` and the gate ``z`` (batch, time, I)."""
        dt_ = x.dtype
        c = self.config
        xz = x @ self.in_proj.to(dt_).T + (0 if self.in_bias is None else self.in_bias.to(dt_))
        u, z = xz.chunk(2, dim=-1)
        u = F.silu(_causal_conv(u, self.conv))
        p = u @ self.x_proj.to(dt_).T
        dt, B, C = torch.split(p, [c.dt_rank, c.state_size, c.state_size], dim=-1)
        delta = F.softplus(dt @ self.dt_proj.to(dt_).T + self.dt_bias.to(dt_))
        A = -torch.exp(self.A_log.to(dt_))
        return {"decay": torch.exp(delta[..., None] * A), "drive": delta[..., None] * B[:, :, None, :] * u[..., None],
                "C": C, "u": u, "z": z}

    def run(self, x: torch.Tensor, states: bool = False):
        """The mixer's output (batch, time, hidden); with ``states`` also h_t (batch, time, I, N, 1)."""
        inp = self.inputs(x)
        Bn, T, I, N = inp["decay"].shape
        h = torch.zeros(Bn, I, N, dtype=x.dtype)
        ys, kept = [], []
        for t in range(T):
            h = inp["decay"][:, t] * h + inp["drive"][:, t]
            ys.append((h * inp["C"][:, t, None, :]).sum(-1))
            if states:
                kept.append(h)
        y = (torch.stack(ys, dim=1) + inp["u"] * self.D.to(x.dtype)) * F.silu(inp["z"])
        out = y @ self.out_proj.to(x.dtype).T + (0 if self.out_bias is None else self.out_bias.to(x.dtype))
        return (out, torch.stack(kept, dim=1)[..., None]) if states else out


def read_mamba_layer(t: dict, prefix: str, c: ExternalConfig) -> MambaLayer:
    """The mixer ``prefix`` (``backbone.layers.L.mixer``), every shape checked against the config."""
    D, I, N, R = c.hidden, c.heads, c.state_size, c.dt_rank

    def get(name, shape):
        return _t(tensor(t, f"{prefix}.{name}", shape))

    conv = (get("conv1d.weight", (I, 1, c.conv_size))[:, 0, :], get("conv1d.bias", (I,)) if c.conv_bias else None)
    return MambaLayer(
        config=c, in_proj=get("in_proj.weight", (2 * I, D)), in_bias=get("in_proj.bias", (2 * I,)) if c.use_bias else None,
        conv=conv, x_proj=get("x_proj.weight", (R + 2 * N, I)), dt_proj=get("dt_proj.weight", (I, R)),
        dt_bias=get("dt_proj.bias", (I,)), A_log=get("A_log", (I, N)), D=get("D", (I,)),
        out_proj=get("out_proj.weight", (D, I)), out_bias=get("out_proj.bias", (D,)) if c.use_bias else None)

"""fla's RWKV7 model (RWKV-7 "Goose") in float64 on CPU, written from fla 0.6.0's ``RWKV7Attention``,
``RWKV7FeedForward``, ``RWKV7Block`` and ``RWKV7Model`` (their order of operations, not their kernels):

* block ``l``: ``r = pre_norm(x)`` (layer 0 with ``norm_first``; else ``r = x``), ``x = r +
  attn(attn_norm(r))``, ``x = x + ffn(ffn_norm(x))``; the norms are LayerNorms (bias with
  ``norm_bias``); after the last block ``norm`` and ``lm_head``;
* token shift: ``delta_t = x_(t-1) - x_t`` (``x_0 = 0``), and each of r, w, k, v, a, g reads its own
  lerp ``x + delta * x_c``: the mixer at step t reads tokens t and t - 1 (a window of 2);
* ``r = W_r x_r``, ``k = W_k x_k``, ``v = W_v x_v``; the low-rank maps ``lora(x) = B act(A x) + bias``:
  ``w = -e^(-1/2) sigmoid(lora_w(x_w))`` (tanh inside), the decay ``exp(w)`` in (0.545, 1) per key
  channel; ``a = sigmoid(lora_a(x_a))``; ``g = lora_g(x_g)`` (sigmoid inside, no bias); layer 0 keeps
  its v as ``v_first``, a later layer uses ``v + sigmoid(lora_v(x_v)) (v_first - v)``;
* ``kappa = normalize(k * k_k)`` per head (``x / max(|x|, 1e-12)``), then ``k <- k (1 + (a - 1) k_a)``;
* per head (keys x values) ``S_t = (diag(exp(w_t)) - (a_t * kappa_t) kappa_t^T) S_(t-1) + k_t v_t^T``,
  read out as ``o_t = S_t^T r_t`` (scale 1);
* ``o`` group-normed per head (eps ``head_dim * norm_eps``, weight and bias), plus the bonus
  ``(sum(r * k * r_k)) v`` per head, times ``g``, then ``o_proj``;
* channel mix: ``value(relu(key(h + delta(h) * x_k))^2)`` (``sqrelu``) with its own token shift.

>>> c, blocks = _tiny_for_doctest()
>>> x, v_first, states = run_blocks(blocks, torch.ones(1, 3, 4, dtype=torch.float64), c.norm_eps, states=True)
>>> x.shape, v_first.shape, states[1].shape, c.variant, c.window
(torch.Size([1, 3, 4]), torch.Size([1, 3, 4]), torch.Size([1, 3, 2, 2, 2]), 'dplr:1', 2)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import torch
import torch.nn.functional as F

from bilinear.constructions.values.external import ExternalConfig, rwkv7_dims

from .tensors import tensor

__all__ = ["Rwkv7Mixer", "Rwkv7Block", "read_rwkv7_block", "run_blocks", "layer_norm", "token_shift", "W_SCALE"]

#: fla's bound on the log-decay: ``w = -W_SCALE * sigmoid(.)``, ``W_SCALE = exp(-1/2)``.
W_SCALE = 0.6065306597126334


def _t(x) -> torch.Tensor:
    return x if isinstance(x, torch.Tensor) else torch.from_numpy(np.array(x, dtype=np.float64))


def layer_norm(x: torch.Tensor, wb: tuple, eps: float) -> torch.Tensor:
    """LayerNorm over the last axis with weight and (optional) bias ``wb``."""
    w, b = wb
    return F.layer_norm(x, (x.shape[-1],), w.to(x.dtype), None if b is None else b.to(x.dtype), eps)


def token_shift(x: torch.Tensor) -> torch.Tensor:
    """``x_(t-1) - x_t`` over the time axis of (batch, time, hidden), ``x_(-1) = 0``."""
    return F.pad(x, (0, 0, 1, -1)) - x


def _lora(x: torch.Tensor, p: tuple, act) -> torch.Tensor:
    A, B, bias = p
    h = x @ A.to(x.dtype).T
    h = act(h) if act is not None else h
    return h @ B.to(x.dtype).T + (0 if bias is None else bias.to(x.dtype))


@dataclass(frozen=True)
class Rwkv7Mixer:
    """One ``RWKV7Attention``'s parameters (torch tensors) and its config (module docstring)."""

    config: ExternalConfig
    layer: int
    lerp: dict                  # r, w, k, v, a, g -> (hidden,)
    k_k: torch.Tensor           # (hidden,)
    k_a: torch.Tensor           # (hidden,)
    r_k: torch.Tensor           # (heads, head_dim)
    r: torch.Tensor             # (hidden, hidden)
    k: torch.Tensor
    v: torch.Tensor
    o: torch.Tensor
    w_lora: tuple               # (A (rank, hidden), B (hidden, rank), bias (hidden,) or None)
    a_lora: tuple
    g_lora: tuple
    v_lora: tuple | None        # None in layer 0
    g_norm: tuple               # (weight (hidden,), bias (hidden,))

    def parameters(self) -> list[torch.Tensor]:
        out = list(self.lerp.values()) + [self.k_k, self.k_a, self.r_k, self.r, self.k, self.v, self.o]
        for p in (self.w_lora, self.a_lora, self.g_lora, self.v_lora or (), self.g_norm):
            out += [t for t in p if t is not None]
        return out

    def inputs(self, x: torch.Tensor, v_first: torch.Tensor | None) -> dict:
        """Per step, heads split: ``r``, ``decay`` = exp(w), ``kappa``, ``a``, ``k`` (updated) (batch,
        time, heads, dk); ``v`` (batch, time, heads, dv); ``g`` (batch, time, hidden); ``v_first``."""
        c, dt = self.config, x.dtype
        B, T, _ = x.shape
        H, dk = c.heads, c.head_k_dim
        delta = token_shift(x)
        xs = {n: x + delta * m.to(dt) for n, m in self.lerp.items()}
        r = xs["r"] @ self.r.to(dt).T
        w = -W_SCALE * torch.sigmoid(_lora(xs["w"], self.w_lora, torch.tanh))
        k = xs["k"] @ self.k.to(dt).T
        v = xs["v"] @ self.v.to(dt).T
        if self.v_lora is None:
            v_first = v
        else:
            if v_first is None:
                raise ValueError("a later RWKV-7 layer needs layer 0's v_first")
            v = v + torch.sigmoid(_lora(xs["v"], self.v_lora, None)) * (v_first - v)
        a = torch.sigmoid(_lora(xs["a"], self.a_lora, None))
        g = _lora(xs["g"], self.g_lora, torch.sigmoid)
        kk = (k * self.k_k.to(dt)).reshape(B, T, H, dk)
        kappa = kk / kk.norm(dim=-1, keepdim=True).clamp_min(1e-12)
        k = k * (1 + (a - 1) * self.k_a.to(dt))

        def heads(z):
            return z.reshape(B, T, H, -1)

        return {"r": heads(r), "decay": torch.exp(heads(w)), "kappa": kappa, "a": heads(a), "k": heads(k),
                "v": heads(v), "g": g, "v_first": v_first}

    def run(self, x: torch.Tensor, v_first: torch.Tensor | None, states: bool = False):
        """``(output (batch, time, hidden), v_first)``, with ``states`` also S_t (batch, time, heads, dk, dv)."""
        c = self.config
        inp = self.inputs(x, v_first)
        r, decay, kappa, a, k, v = (inp[n] for n in ("r", "decay", "kappa", "a", "k", "v"))
        B, T, H, dk = r.shape
        S = torch.zeros(B, H, dk, v.shape[-1], dtype=x.dtype)
        outs, kept = [], []
        for t in range(T):
            ak = (a[:, t] * kappa[:, t])[..., :, None]                   # (B, H, dk, 1)
            S = decay[:, t, ..., None] * S - ak * (kappa[:, t, :, None, :] @ S) + k[:, t, ..., None] * v[:, t, :, None, :]
            outs.append((r[:, t, :, None, :] @ S)[..., 0, :])
            if states:
                kept.append(S)
        o = torch.stack(outs, dim=1)                                      # (B, T, H, dv)
        mean = o.mean(-1, keepdim=True)
        var = ((o - mean) ** 2).mean(-1, keepdim=True)
        o = ((o - mean) / torch.sqrt(var + dk * c.norm_eps)).reshape(B, T, -1)
        o = o * self.g_norm[0].to(x.dtype) + self.g_norm[1].to(x.dtype)
        bonus = ((r * k * self.r_k.to(x.dtype)).sum(-1, keepdim=True) * v).reshape(B, T, -1)
        out = ((o + bonus) * inp["g"]) @ self.o.to(x.dtype).T
        return (out, inp["v_first"], torch.stack(kept, dim=1)) if states else (out, inp["v_first"])


@dataclass(frozen=True)
class Rwkv7Block:
    """One ``RWKV7Block``: the norms (weight, bias) and the two mixes (module docstring)."""

    pre_norm: tuple | None
    attn_norm: tuple
    mixer: Rwkv7Mixer
    ffn_norm: tuple
    ffn_x_k: torch.Tensor        # (hidden,)
    key: torch.Tensor            # (intermediate, hidden)
    value: torch.Tensor          # (hidden, intermediate)

    def parameters(self) -> list[torch.Tensor]:
        norms = [t for p in (self.pre_norm or (), self.attn_norm, self.ffn_norm) for t in p if t is not None]
        return norms + [self.ffn_x_k, self.key, self.value] + self.mixer.parameters()

    def mixer_input(self, x: torch.Tensor, eps: float) -> tuple[torch.Tensor, torch.Tensor]:
        """``(residual, attn_norm(residual))``: the residual after the pre-norm, and the mixer's input."""
        res = layer_norm(x, self.pre_norm, eps) if self.pre_norm is not None else x
        return res, layer_norm(res, self.attn_norm, eps)

    def ffn(self, x: torch.Tensor, eps: float) -> torch.Tensor:
        """``x + value(sqrelu(key(h + delta(h) x_k)))`` with ``h = ffn_norm(x)``."""
        h = layer_norm(x, self.ffn_norm, eps)
        h = h + token_shift(h) * self.ffn_x_k.to(x.dtype)
        return x + torch.relu(h @ self.key.to(x.dtype).T) ** 2 @ self.value.to(x.dtype).T


def run_blocks(blocks, x: torch.Tensor, eps: float, states: bool = False):
    """The residual stream after ``blocks`` (from the embeddings ``x``), the ``v_first`` of layer 0
    (None without blocks), and with ``states`` every block's S_t."""
    v_first, kept = None, []
    for block in blocks:
        res, h = block.mixer_input(x, eps)
        if states:
            y, v_first, S = block.mixer.run(h, v_first, states=True)
            kept.append(S)
        else:
            y, v_first = block.mixer.run(h, v_first)
        x = block.ffn(res + y, eps)
    return x, v_first, kept


def read_rwkv7_block(t: dict, i: int, c: ExternalConfig) -> Rwkv7Block:
    """Block ``i`` of an fla RWKV7 checkpoint's tensors ``t``, every shape checked against the config
    (CheckpointError naming a missing tensor or one of the wrong shape)."""
    p = f"model.layers.{i}"
    D = c.hidden
    dims = rwkv7_dims(c.raw, D, c.layers)
    bias = c.raw.get("norm_bias", True)

    def get(name, shape):
        return _t(tensor(t, f"{p}.{name}", shape))

    def norm(name):
        return get(f"{name}.weight", (D,)), get(f"{name}.bias", (D,)) if bias else None

    def lora(name, rank, with_bias=True):
        return (get(f"attn.{name}.lora.0.weight", (rank, D)), get(f"attn.{name}.lora.2.weight", (D, rank)),
                get(f"attn.{name}.lora.2.bias", (D,)) if with_bias else None)

    mixer = Rwkv7Mixer(
        config=c, layer=i, lerp={n: get(f"attn.x_{n}", (1, 1, D)).reshape(D) for n in "rwkvag"},
        k_k=get("attn.k_k", (D,)), k_a=get("attn.k_a", (D,)), r_k=get("attn.r_k", (c.heads, c.head_k_dim)),
        r=get("attn.r_proj.weight", (D, D)), k=get("attn.k_proj.weight", (D, D)), v=get("attn.v_proj.weight", (D, D)),
        o=get("attn.o_proj.weight", (D, D)), w_lora=lora("w_lora", dims["decay"]), a_lora=lora("a_lora", dims["a"]),
        g_lora=lora("g_lora", dims["gate"], with_bias=False), v_lora=None if i == 0 else lora("v_lora", dims["v"]),
        g_norm=(get("attn.g_norm.weight", (D,)), get("attn.g_norm.bias", (D,))))
    I = dims["intermediate"]
    pre = norm("pre_norm") if i == 0 and c.raw.get("norm_first", True) else None
    return Rwkv7Block(pre_norm=pre, attn_norm=norm("attn_norm"), mixer=mixer, ffn_norm=norm("ffn_norm"),
                      ffn_x_k=get("ffn.x_k", (D,)), key=get("ffn.key.weight", (I, D)), value=get("ffn.value.weight", (D, I)))


def _tiny_for_doctest():
    """The config and blocks of a 2-layer RWKV7 of hidden size 4 (two heads) with fixed random
    parameters (the doctest above; a whole model: ``load_external`` of an fla folder)."""
    from bilinear.constructions.values.external import external_config

    c = external_config({"model_type": "rwkv7", "hidden_size": 4, "head_dim": 2, "vocab_size": 3, "num_hidden_layers": 2,
                         "decay_low_rank_dim": 2, "gate_low_rank_dim": 2, "a_low_rank_dim": 2, "v_low_rank_dim": 2,
                         "intermediate_size": 8, "fuse_norm": False})
    shapes = {"model.embeddings.weight": (3, 4), "model.norm.weight": (4,), "model.norm.bias": (4,), "lm_head.weight": (3, 4)}
    for i in range(2):
        p = f"model.layers.{i}"
        for n in (["pre_norm"] if i == 0 else []) + ["attn_norm", "ffn_norm", "attn.g_norm"]:
            shapes[f"{p}.{n}.weight"] = shapes[f"{p}.{n}.bias"] = (4,)
        shapes.update({f"{p}.attn.x_{n}": (1, 1, 4) for n in "rwkvag"})
        shapes.update({f"{p}.attn.k_k": (4,), f"{p}.attn.k_a": (4,), f"{p}.attn.r_k": (2, 2), f"{p}.ffn.x_k": (4,),
                       f"{p}.ffn.key.weight": (8, 4), f"{p}.ffn.value.weight": (4, 8)})
        shapes.update({f"{p}.attn.{n}_proj.weight": (4, 4) for n in "rkvo"})
        for n in ["w", "a", "g"] + (["v"] if i else []):
            shapes[f"{p}.attn.{n}_lora.lora.0.weight"], shapes[f"{p}.attn.{n}_lora.lora.2.weight"] = (2, 4), (4, 2)
            if n != "g":
                shapes[f"{p}.attn.{n}_lora.lora.2.bias"] = (4,)
    g = np.random.default_rng(0)
    t = {k: g.normal(size=s) / math.sqrt(s[-1]) for k, s in shapes.items()}
    return c, [read_rwkv7_block(t, i, c) for i in range(2)]

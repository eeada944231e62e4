"""A whole fla model (embeddings, pre-norm blocks of a delta-rule mixer and a gated MLP, final norm,
head) read from a Hugging Face folder or a live model, and its float64 forward on CPU.

Block ``l`` (fla 0.6.0's ``*Block.forward``): ``r = x; x = r + attn(attn_norm(x));
x = x + mlp(mlp_norm(x))`` with ``mlp(h) = down(silu(gate(h)) * up(h))``; then ``norm`` and
``lm_head`` (the embedding matrix when ``tie_word_embeddings``).

>>> import numpy as np, torch
>>> m = _tiny_for_doctest()
>>> m.logits(np.array([[0, 1, 1]])).shape, m.config.variant
((1, 3, 3), 'householder:1')
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F

from bilinear.constructions.values.external import READER_KINDS, ExternalConfig, external_config, read_external_config
from bilinear.errors import CheckpointError, ConfigError

from .delta import DeltaLayer, read_delta_layer, rms_norm
from .mamba import read_mamba_layer
from .mamba2 import read_mamba2_layer
from .rwkv7 import layer_norm, read_rwkv7_block, run_blocks
from .tensors import read_tensors, tensor

__all__ = ["ExternalModel", "Block", "load_external"]


@dataclass(frozen=True)
class Block:
    """One pre-norm block: the mixer and the gated MLP with their norms (Mamba: no MLP, None)."""

    attn_norm: torch.Tensor
    mixer: Any                          # DeltaLayer or MambaLayer: ``run(x, states=False)``
    mlp_norm: torch.Tensor | None = None
    gate: torch.Tensor | None = None    # (intermediate, hidden)
    up: torch.Tensor | None = None
    down: torch.Tensor | None = None    # (hidden, intermediate)

    def parameters(self) -> list[torch.Tensor]:
        own = [self.attn_norm, self.mlp_norm, self.gate, self.up, self.down]
        return [t for t in own if t is not None] + self.mixer.parameters()

    def mlp(self, x: torch.Tensor, eps: float, zc: bool) -> torch.Tensor:
        """``x + down(silu(gate(h)) * up(h))`` with ``h = mlp_norm(x)``; x itself without an MLP."""
        if self.mlp_norm is None:
            return x
        assert self.gate is not None and self.up is not None and self.down is not None
        dt = x.dtype
        h = rms_norm(x, self.mlp_norm, eps, zc)
        return x + (F.silu(h @ self.gate.to(dt).T) * (h @ self.up.to(dt).T)) @ self.down.to(dt).T


@dataclass(frozen=True)
class ExternalModel:
    """A loaded model: config, embeddings (vocab, hidden), blocks, final norm and head (vocab, hidden).

    :meth:`forward` is the float64 forward on token ids; :meth:`as_tracker` (with a task's token map)
    makes it a tracker for the toolkit's accuracy, extraction and ``assert_tracks``.
    """

    config: ExternalConfig
    embeddings: torch.Tensor
    blocks: tuple[Any, ...]             # Block, or Rwkv7Block for RWKV-7
    norm: torch.Tensor
    head: torch.Tensor
    source: str = "model"
    norm_bias: torch.Tensor | None = None   # RWKV-7: the final LayerNorm's bias

    @property
    def zero_centred(self) -> bool:
        """Qwen3-Next's block and final norms multiply by ``1 + weight``."""
        return self.config.kind == "qwen3_next"

    def parameters(self) -> list[torch.Tensor]:
        out = [self.embeddings, self.norm] + ([] if self.head is self.embeddings else [self.head])
        out += [] if self.norm_bias is None else [self.norm_bias]
        for b in self.blocks:
            out += b.parameters()
        return out

    def residuals(self, ids, dtype=torch.float64, upto: int | None = None) -> torch.Tensor:
        """The residual stream entering block ``upto`` (all blocks: the final norm's input)."""
        x = self.embeddings.to(dtype)[torch.as_tensor(ids, dtype=torch.long)]
        eps, zc = self.config.norm_eps, self.zero_centred
        if self.config.kind == "rwkv7":
            return run_blocks(self.blocks[:upto], x, eps)[0]
        for block in self.blocks[:upto]:
            x = block.mlp(x + block.mixer.run(rms_norm(x, block.attn_norm, eps, zc)), eps, zc)
        return x

    def forward(self, ids, dtype=torch.float64) -> torch.Tensor:
        """Logits (batch, time, vocab) of token ids (batch, time); differentiable in the parameters."""
        return self._final(self.residuals(ids, dtype)) @ self.head.to(dtype).T

    def _final(self, x: torch.Tensor) -> torch.Tensor:
        """The final norm: RWKV-7's LayerNorm, the others' RMS norm."""
        if self.config.kind == "rwkv7":
            return layer_norm(x, (self.norm, self.norm_bias), self.config.norm_eps)
        return rms_norm(x, self.norm, self.config.norm_eps, self.zero_centred)

    def logits(self, ids) -> np.ndarray:
        """:meth:`forward` in float64 without gradients, as numpy."""
        ids = np.asarray(ids)
        if ids.size and (ids.min() < 0 or ids.max() >= self.config.vocab):
            raise ConfigError(f"token id {int(ids.max()) if ids.max() >= self.config.vocab else int(ids.min())} "
                              f"is outside the vocabulary 0..{self.config.vocab - 1}")
        with torch.no_grad():
            return self.forward(ids).numpy()

    def states(self, ids) -> list[torch.Tensor]:
        """Every layer's recurrent states S_t, (batch, time, heads, dk, dv) each, in float64."""
        return self.logits_and_states(ids)[1]

    def logits_and_states(self, ids) -> tuple[np.ndarray, list[torch.Tensor]]:
        """:meth:`logits` and :meth:`states` in one float64 pass."""
        out = []
        eps, zc = self.config.norm_eps, self.zero_centred
        with torch.no_grad():
            x = self.embeddings.to(torch.float64)[torch.as_tensor(np.asarray(ids), dtype=torch.long)]
            if self.config.kind == "rwkv7":
                x, _, out = run_blocks(self.blocks, x, eps, states=True)
                return (self._final(x) @ self.head.to(torch.float64).T).numpy(), out
            for block in self.blocks:
                y, S = block.mixer.run(rms_norm(x, block.attn_norm, eps, zc), states=True)
                out.append(S)
                x = block.mlp(x + y, eps, zc)
            logits = rms_norm(x, self.norm, eps, zc) @ self.head.to(torch.float64).T
        return logits.numpy(), out

    def as_tracker(self, tokens=None, labels=None, bos: int | None = None, n_symbols: int | None = None,
                   n_classes: int | None = None):
        """This model as a tracker (:class:`~bilinear.learned.external.tracker.ExternalTracker`):
        ``tokens``/``labels`` map symbols and classes to token ids (default: i -> i, for
        ``n_symbols``/``n_classes`` of them, 2 when not given), ``bos`` is prepended to every word."""
        from .tracker import ExternalTracker

        symbols = None if n_symbols is None or tokens is not None else [str(i) for i in range(n_symbols)]
        classes = None if n_classes is None or labels is not None else [str(i) for i in range(n_classes)]
        return ExternalTracker.make(self, tokens, labels, bos, symbols=symbols, classes=classes)


def _t(x) -> torch.Tensor:
    """A tensor read from a file (numpy: copied) or a live model's parameter (shared, for training)."""
    return x if isinstance(x, torch.Tensor) else torch.from_numpy(np.array(x, dtype=np.float64))


def _block(t: dict, i: int, c: ExternalConfig) -> Any:
    if c.kind == "qwen3_next":
        return _qwen_block(t, i, c)
    if c.kind == "rwkv7":
        return read_rwkv7_block(t, i, c)
    if c.kind in ("mamba", "mamba2"):
        p = f"backbone.layers.{i}"
        read = read_mamba_layer if c.kind == "mamba" else read_mamba2_layer
        return Block(attn_norm=_t(tensor(t, f"{p}.norm.weight", (c.hidden,))), mixer=read(t, f"{p}.mixer", c))
    p = f"model.layers.{i}"
    D = c.hidden
    inter = t.get(f"{p}.mlp.gate_proj.weight")
    if inter is None:
        raise CheckpointError(f"missing tensor '{p}.mlp.gate_proj.weight'")
    I = inter.shape[0]

    def get(name, shape):
        return _t(tensor(t, f"{p}.{name}", shape))

    return Block(attn_norm=get("attn_norm.weight", (D,)), mixer=read_delta_layer(t, f"{p}.attn", c),
                 mlp_norm=get("mlp_norm.weight", (D,)), gate=get("mlp.gate_proj.weight", (I, D)),
                 up=get("mlp.up_proj.weight", (I, D)), down=get("mlp.down_proj.weight", (D, I)))


def _qwen_block(t: dict, i: int, c: ExternalConfig) -> Block:
    """A Qwen3-Next decoder layer of linear attention: its fused projections split into the
    delta layer's (``fix_query_key_value_ordering``: per key head q, k, r value heads, r gates)."""
    p = f"model.layers.{i}"
    D, Hk, H, dk, dv = c.hidden, c.key_heads, c.heads, c.head_k_dim, c.head_v_dim
    r = H // Hk
    kd, vd = Hk * dk, H * dv
    qkvz = tensor(t, f"{p}.linear_attn.in_proj_qkvz.weight", (2 * kd + 2 * vd, D)).reshape(Hk, 2 * dk + 2 * r * dv, D)
    ba = tensor(t, f"{p}.linear_attn.in_proj_ba.weight", (2 * H, D)).reshape(Hk, 2 * r, D)
    conv = tensor(t, f"{p}.linear_attn.conv1d.weight", (2 * kd + vd, 1, c.conv_size))[:, 0, :]
    inter = t.get(f"{p}.mlp.gate_proj.weight")
    if inter is None:
        raise CheckpointError(f"missing tensor '{p}.mlp.gate_proj.weight'")
    I = inter.shape[0]

    def th(a):
        return torch.from_numpy(np.ascontiguousarray(a))

    def get(name, shape):
        return th(tensor(t, f"{p}.{name}", shape))

    mixer = DeltaLayer(
        config=c, q=th(qkvz[:, :dk].reshape(kd, D)), k=th(qkvz[:, dk:2 * dk].reshape(kd, D)),
        v=th(qkvz[:, 2 * dk:2 * dk + r * dv].reshape(vd, D)), b=th(ba[:, :r].reshape(H, D)),
        a=th(ba[:, r:].reshape(H, D)), A_log=get("linear_attn.A_log", (H,)), dt_bias=get("linear_attn.dt_bias", (H,)),
        conv=((th(conv[:kd]), None), (th(conv[kd:2 * kd]), None), (th(conv[2 * kd:]), None)),
        g=th(qkvz[:, 2 * dk + r * dv:].reshape(vd, D)), o_norm=get("linear_attn.norm.weight", (dv,)),
        o=get("linear_attn.out_proj.weight", (D, vd)))
    return Block(attn_norm=get("input_layernorm.weight", (D,)), mixer=mixer,
                 mlp_norm=get("post_attention_layernorm.weight", (D,)), gate=get("mlp.gate_proj.weight", (I, D)),
                 up=get("mlp.up_proj.weight", (I, D)), down=get("mlp.down_proj.weight", (D, I)))


def _from_tensors(c: ExternalConfig, t: dict, source: str) -> ExternalModel:
    if c.kind not in READER_KINDS:
        raise ConfigError(f"config model_type = {c.kind!r}: the reader does not run this kind "
                          f"(it reads {', '.join(READER_KINDS)}); `bilinear verify --from` still maps its config")
    root = "backbone" if c.kind in ("mamba", "mamba2") else "model"
    emb_name = {"qwen3_next": "model.embed_tokens.weight"}.get(c.kind, f"{root}.embeddings.weight")
    emb = _t(tensor(t, emb_name, (c.vocab, c.hidden)))
    blocks = tuple(_block(t, i, c) for i in range(c.layers))
    extra = sorted(k for k in t if k.startswith(f"{root}.layers.{c.layers}."))
    if extra:
        raise CheckpointError(f"tensor {extra[0]!r} belongs to a layer past num_hidden_layers = {c.layers}")
    norm = _t(tensor(t, "backbone.norm_f.weight" if root == "backbone" else "model.norm.weight", (c.hidden,)))
    norm_bias = None
    if c.kind == "rwkv7" and c.raw.get("norm_bias", True):
        norm_bias = _t(tensor(t, "model.norm.bias", (c.hidden,)))
    if c.tie_embeddings and "lm_head.weight" not in t:
        head = emb
    else:
        head = _t(tensor(t, "lm_head.weight", (c.vocab, c.hidden)))
    return ExternalModel(c, emb, blocks, norm, head, source, norm_bias)


def load_external(path_or_model, source: str | None = None) -> ExternalModel:
    """An :class:`ExternalModel` from a Hugging Face folder (``config.json`` + ``model.safetensors`` or
    ``pytorch_model.bin``) or a live fla/transformers model (its ``config`` and ``state_dict()``).

    ``source``: ``"fla"`` or ``"hf"``; guessed from the config's ``model_type`` when None.  Neither
    fla nor transformers is needed to read a folder.  ConfigError names an unsupported flag,
    CheckpointError a missing tensor or one of the wrong shape.
    """
    if isinstance(path_or_model, (str, os.PathLike)):
        path = os.fspath(path_or_model)
        if not os.path.isdir(path):
            raise CheckpointError(f"no model folder {path!r}")
        guessed = "hf" if _kind_of(path) == "qwen3_next" else "fla"
        c = read_external_config(path, source or guessed)
        return _from_tensors(c, read_tensors(path), path)
    cfg = getattr(path_or_model, "config", None)
    if cfg is None or not hasattr(path_or_model, "state_dict"):
        raise ConfigError(f"cannot load a {type(path_or_model).__name__}: expected a folder or an fla/transformers model")
    d = cfg.to_dict()
    c = external_config(d, source or ("hf" if d.get("model_type") == "qwen3_next" else "fla"))
    t = {k: v.detach().to(torch.float64).cpu().numpy() for k, v in path_or_model.state_dict().items()}
    return _from_tensors(c, t, type(path_or_model).__name__)


def _kind_of(path: str) -> str | None:
    import json

    try:
        with open(os.path.join(path, "config.json"), encoding="utf-8") as f:
            head = f.read(1 << 20)
        return json.loads(head).get("model_type")
    except (OSError, ValueError, AttributeError):
        return None


def _tiny_for_doctest() -> ExternalModel:
    """A 1-layer DeltaNet of hidden size 4 with fixed random parameters (the doctest above)."""
    c = external_config({"model_type": "delta_net", "hidden_size": 4, "num_heads": 2, "vocab_size": 3,
                         "num_hidden_layers": 1, "allow_neg_eigval": True, "use_short_conv": False})
    g = np.random.default_rng(0)
    names = {"model.embeddings.weight": (3, 4), "model.norm.weight": (4,), "lm_head.weight": (3, 4)}
    p = "model.layers.0"
    names.update({f"{p}.attn_norm.weight": (4,), f"{p}.mlp_norm.weight": (4,), f"{p}.mlp.gate_proj.weight": (8, 4),
                  f"{p}.mlp.up_proj.weight": (8, 4), f"{p}.mlp.down_proj.weight": (4, 8)})
    for n, s in (("q_proj", (4, 4)), ("k_proj", (4, 4)), ("v_proj", (4, 4)), ("b_proj", (2, 4)), ("o_proj", (4, 4))):
        names[f"{p}.attn.{n}.weight"] = s
    names[f"{p}.attn.o_norm.weight"] = (2,)
    return _from_tensors(c, {k: g.normal(size=s) for k, s in names.items()}, "doctest")

"""The configuration of a model from elsewhere (flash-linear-attention, transformers), read from its
``config.json`` without torch: which layer kind, which sizes, which flags, and the toolkit variant
each layer's recurrence belongs to (docs/your-model.md).

A layer of these models updates, per head, a matrix state ``S_t = A_t S_{t-1} + b_t`` (keys x
values).  Its homogeneous part ``A_t`` is one of the toolkit's variants (the table below); a
positive scalar gate ``exp(g)`` does not change the variant's verdicts, since labels are read up to
a positive scale.  The additive term ``b_t``, the input-dependent readout, the MLPs and the further
layers are outside those verdicts unless docs/theory.md (the lifted affine recurrence) transfers
them.

=====================  ==============================================  =========================
kind (``model_type``)  per-token transition on a head's key space       variant
=====================  ==============================================  =========================
``delta_net``          ``I - beta k k^T``, beta = sigmoid (x2 with      ``householder:1`` (x2),
                       ``allow_neg_eigval``), 1 without ``use_beta``    else ``householder:1,nonneg``
``gated_deltanet``     ``exp(g) (I - beta k k^T)``                      as ``delta_net``
``gated_deltaproduct`` ``exp(g) prod_j (I - beta_j k_j k_j^T)``         ``householder:K`` (``,nonneg``)
``qwen3_next``         ``exp(g) (I - beta k k^T)``, beta = sigmoid      ``householder:1,nonneg``
``rwkv7``              ``diag(w) - (a * kappa) kappa^T``, token shift   ``dplr:1`` (2-token window)
``mamba``/``mamba2``   ``diag(exp(Delta A))`` / ``exp(Delta a) I``      ``positive``
=====================  ==============================================  =========================

The reader (``bilinear.learned.external``) runs every kind of the table: the first five, Mamba and
Mamba-2; ``verify --from``
maps all of them.  Every flag that changes the computation and is not implemented is refused, naming it.

>>> c = external_config({"model_type": "delta_net", "hidden_size": 8, "num_heads": 2, "vocab_size": 4,
...                      "num_hidden_layers": 1, "allow_neg_eigval": True, "use_short_conv": False})
>>> c.kind, c.variant, c.window, c.head_k_dim
('delta_net', 'householder:1', 1, 4)
>>> external_config({"model_type": "delta_net", "hidden_size": 8, "num_heads": 2, "vocab_size": 4,
...                  "num_hidden_layers": 1, "qk_norm": "sum"})
Traceback (most recent call last):
...
bilinear.errors.ConfigError: config flag qk_norm = 'sum' is not supported for delta_net (supported: 'l2')
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from bilinear.errors import ConfigError

__all__ = ["ExternalConfig", "external_config", "read_external_config", "READER_KINDS", "CONFIG_KINDS",
           "MAX_CONFIG_BYTES", "rwkv7_dims", "MAX_VOCAB", "MAX_HIDDEN", "MAX_LAYERS", "MAX_HEADS", "MAX_HEAD_DIM"]

#: Largest ``config.json`` read (bytes).
MAX_CONFIG_BYTES = 1 << 20
#: Largest vocabulary, hidden size, layer count, head count and head dimension the reader accepts
#: (checked before any tensor is read; docs/limits.md).
MAX_VOCAB = 1 << 20
MAX_HIDDEN = 1 << 14
MAX_LAYERS = 256
MAX_HEADS = 1024
MAX_HEAD_DIM = 1024

#: Kinds whose float64 forward the reader implements.
READER_KINDS = ("delta_net", "gated_deltanet", "gated_deltaproduct", "qwen3_next", "mamba", "mamba2", "rwkv7")
#: Kinds ``verify --from`` maps to a variant from the config alone (every kind the reader runs).
CONFIG_KINDS = READER_KINDS


@dataclass(frozen=True)
class ExternalConfig:
    """One model's configuration, validated (see the module docstring).

    ``heads`` counts the recurrent heads (value heads: fla's ``num_v_heads``, Qwen3-Next's
    ``linear_num_value_heads``); ``key_heads`` the query/key heads they share.  ``householders``
    is K of ``householder:K``; ``window`` the number of tokens a layer's transition reads (the
    convolution's width, 2 for a token shift, 1 otherwise).
    """

    kind: str                     # the config's model_type
    source: str                   # "fla" or "hf"
    vocab: int
    hidden: int
    layers: int
    heads: int = 1
    key_heads: int = 1
    head_k_dim: int = 1
    head_v_dim: int = 1
    householders: int = 1         # K: reflections per token
    neg_eigval: bool = False      # beta in [0, 2] (True) or [0, 1]
    use_beta: bool = True         # False: beta = 1 (x2 with neg_eigval)
    forget_gate: bool = False     # exp(g) with g = -exp(A_log) softplus(a + dt_bias)
    short_conv: bool = False
    conv_size: int = 1
    conv_bias: bool = False
    output_gate: bool = False     # o_norm(o, g) = rmsnorm(o) * act(g)
    gate_act: str = "swish"       # activation of the output gate
    qk_activation: str = "silu"
    state_size: int = 0           # Mamba: N, the state per channel (heads are its channels)
    dt_rank: int = 0              # Mamba: the rank of the time-step projection
    use_bias: bool = False        # Mamba: biases of in_proj and out_proj
    groups: int = 1               # Mamba-2: n_groups, the B/C groups the heads share
    gated_norm: bool = True       # Mamba-2: rmsnorm (gated RMSNorm of y; else y * silu(z))
    norm_before_gate: bool = False  # Mamba-2: rmsnorm(y) * silu(z) (True) or rmsnorm(y * silu(z))
    D_per_dim: bool = False       # Mamba-2: D_has_hdim (D per channel, else per head)
    dt_limit: tuple = (0.0, float("inf"))  # Mamba-2: Delta clamped to this interval
    norm_eps: float = 1e-6
    tie_embeddings: bool = False
    raw: Any = None               # the config dict as read (a read-only copy is not needed: never changed)

    @property
    def variant(self) -> str:
        """The toolkit variant of each head's homogeneous transition (module docstring)."""
        if self.kind in ("mamba", "mamba2"):
            return "positive"
        if self.kind == "rwkv7":
            return "dplr:1"
        return f"householder:{self.householders}" + ("" if self.neg_eigval else ",nonneg")

    @property
    def window(self) -> int:
        """Tokens the transition at one step reads: the short convolution's width, 2 for RWKV-7's
        token shift, else 1 (then layer 1's transition is a function of the current token)."""
        if self.kind == "rwkv7":
            return 2
        return self.conv_size if self.short_conv else 1

    @property
    def beta_range(self) -> tuple[float, float]:
        """The interval the reflections' beta can take: (0, 2) or (0, 1); 2 or 1 without use_beta."""
        top = 2.0 if self.neg_eigval else 1.0
        return (0.0, top) if self.use_beta else (top, top)

    @property
    def mechanism(self) -> str:
        """The config's recurrence in one line, for reports."""
        if self.kind == "rwkv7":
            return ("per head diag(w) - (a * kappa) kappa^T, w = exp(-e^(-1/2) sigmoid(.)) in (0.545, 1), a = sigmoid(.) "
                    "in (0, 1), kappa a unit vector; token shift (a window of 2 tokens)")
        if self.kind == "mamba2":
            return (f"per head exp(Delta a) I on a {self.state_size} x {self.head_v_dim} state (a positive scalar times "
                    f"the identity), short convolution of width {self.conv_size}")
        if self.kind == "mamba":
            return (f"per channel diag(exp(Delta A)) on an {self.state_size}-dimensional state, short convolution of "
                    f"width {self.conv_size}")
        gate = "exp(g) " if self.forget_gate else ""
        k = self.householders
        refl = "(I - beta k k^T)" if k == 1 else f"prod_(j<={k}) (I - beta_j k_j k_j^T)"
        beta = "beta = 1" if not self.use_beta else "beta = sigmoid(.)" + (" x 2" if self.neg_eigval else "")
        conv = f", short convolution of width {self.conv_size}" if self.short_conv else ", no short convolution"
        return f"{gate}{refl}, {beta}{conv}"


def _get(d: dict, key: str, default, kind: str):
    v = d.get(key, default)
    return default if v is None else v


def _int(d: dict, key: str, kind: str, default=None, top: int | None = None) -> int:
    v = d.get(key, default)
    if isinstance(v, bool) or not isinstance(v, int) or v < 1:
        raise ConfigError(f"config field {key} = {v!r} must be a positive integer for {kind}")
    if top is not None and v > top:
        raise ConfigError(f"config field {key} = {v:,} is over the reader's limit {top:,} (docs/limits.md)")
    return v


def _flag(d: dict, key: str, default: bool, kind: str) -> bool:
    v = d.get(key, default)
    if not isinstance(v, bool):
        raise ConfigError(f"config field {key} = {v!r} must be true or false for {kind}")
    return v


def _only(d: dict, key: str, allowed: tuple, default, kind: str):
    v = d.get(key, default)
    if v not in allowed:
        raise ConfigError(f"config flag {key} = {v!r} is not supported for {kind} "
                          f"(supported: {', '.join(repr(a) for a in allowed)})")
    return v


def _refuse_set(d: dict, kind: str, keys: tuple[str, ...]) -> None:
    """ConfigError naming the first of ``keys`` that is set (not None, not False, not empty)."""
    for key in keys:
        if d.get(key) not in (None, False, [], {}, 0):
            raise ConfigError(f"config flag {key} = {d[key]!r} is not supported for {kind} (the reader "
                              f"implements only the plain recurrent layers)")


#: Where a kind's config keeps the norms' epsilon, and its library's default when it is left out:
#: transformers' Qwen3NextConfig reads ``rms_norm_eps``, fla 0.6's configs ``norm_eps`` (1e-5 in
#: MambaConfig, Mamba2Config and RWKV7Config); neither reads the other's name.
_NORM_EPS = {"qwen3_next": ("rms_norm_eps", 1e-6), "mamba": ("norm_eps", 1e-5), "mamba2": ("norm_eps", 1e-5),
             "rwkv7": ("norm_eps", 1e-5)}


def _common(d: dict, kind: str, source: str) -> dict:
    hidden = _int(d, "hidden_size", kind, top=MAX_HIDDEN)
    out = dict(kind=kind, source=source, vocab=_int(d, "vocab_size", kind, top=MAX_VOCAB), hidden=hidden,
               layers=_int(d, "num_hidden_layers", kind, top=MAX_LAYERS),
               tie_embeddings=_flag(d, "tie_word_embeddings", False, kind), raw=d)
    key, default = _NORM_EPS.get(kind, ("norm_eps", 1e-6))
    eps = d.get(key, default)
    if isinstance(eps, bool) or not isinstance(eps, (int, float)) or not 0 <= eps < 1:
        raise ConfigError(f"config field {key} = {eps!r} must be a number in [0, 1) for {kind}")
    out["norm_eps"] = float(eps)
    return out


def _fla_common(d: dict, kind: str) -> None:
    _refuse_set(d, kind, ("attn", "attnres_block_size", "use_l2warp"))
    _only(d, "hidden_act", ("swish",), "swish", kind)


def _delta_net(d: dict, kind: str, source: str) -> ExternalConfig:
    _fla_common(d, kind)
    c = _common(d, kind, source)
    heads = _int(d, "num_heads", kind, top=MAX_HEADS)
    ek, ev = d.get("expand_k", 1.0), d.get("expand_v", 1.0)
    kd, vd = c["hidden"] * ek, c["hidden"] * ev
    if kd != int(kd) or vd != int(vd) or int(kd) % heads or int(vd) % heads or kd < heads or vd < heads:
        raise ConfigError(f"config fields expand_k = {ek!r}, expand_v = {ev!r} give key/value sizes {kd}, {vd} "
                          f"not divisible by num_heads = {heads} for {kind}")
    _only(d, "qk_norm", ("l2",), "l2", kind)
    act = _only(d, "qk_activation", ("silu", "identity"), "silu", kind)
    short = _flag(d, "use_short_conv", True, kind)
    return ExternalConfig(**c, heads=heads, key_heads=heads, head_k_dim=int(kd) // heads,
                          head_v_dim=int(vd) // heads, neg_eigval=_flag(d, "allow_neg_eigval", False, kind),
                          use_beta=_flag(d, "use_beta", True, kind), short_conv=short,
                          conv_size=_int(d, "conv_size", kind, 4, top=64) if short else 1,
                          conv_bias=_flag(d, "conv_bias", False, kind), output_gate=_flag(d, "use_gate", False, kind),
                          qk_activation=act)


def _gated(d: dict, kind: str, source: str) -> ExternalConfig:
    """fla's GatedDeltaNet and GatedDeltaProduct (one field set, K = num_householder)."""
    _fla_common(d, kind)
    c = _common(d, kind, source)
    heads = _int(d, "num_heads", kind, top=MAX_HEADS)
    v_heads = _int(d, "num_v_heads", kind, heads, top=MAX_HEADS) if d.get("num_v_heads") is not None else heads
    if v_heads % heads:
        raise ConfigError(f"config field num_v_heads = {v_heads} must be a multiple of num_heads = {heads}")
    head_dim = _int(d, "head_dim", kind, 256, top=MAX_HEAD_DIM)
    ev = d.get("expand_v", 2)
    if isinstance(ev, bool) or not isinstance(ev, (int, float)) or head_dim * ev != int(head_dim * ev) or ev <= 0:
        raise ConfigError(f"config field expand_v = {ev!r} must make head_dim * expand_v a positive integer")
    product = kind == "gated_deltaproduct"
    gate_key = "use_output_gate" if product else "use_gate"
    act = "swish"
    if not product:
        act = _only(d, "output_gate_activation", ("swish", "silu", "sigmoid"), "swish", kind)
    short = _flag(d, "use_short_conv", True, kind)
    return ExternalConfig(**c, heads=v_heads, key_heads=heads, head_k_dim=head_dim, head_v_dim=int(head_dim * ev),
                          householders=_int(d, "num_householder", kind, 1, top=64) if product else 1,
                          neg_eigval=_flag(d, "allow_neg_eigval", False, kind),
                          # GatedDeltaProductConfig's default (fla 0.6): no forget gate unless asked for
                          forget_gate=_flag(d, "use_forget_gate", False, kind) if product else True,
                          short_conv=short, conv_size=_int(d, "conv_size", kind, 4, top=64) if short else 1,
                          conv_bias=_flag(d, "conv_bias", False, kind), output_gate=_flag(d, gate_key, True, kind),
                          gate_act=act)


def _qwen3_next(d: dict, kind: str, source: str) -> ExternalConfig:
    c = _common(d, kind, source)
    types = d.get("layer_types")
    if types is None:  # transformers' default: every full_attention_interval-th layer is full attention
        every = _int(d, "full_attention_interval", kind, default=4)
        types = ["full_attention" if (i + 1) % every == 0 else "linear_attention" for i in range(c["layers"])]
    if not isinstance(types, list) or not all(isinstance(t, str) for t in types) or len(types) != c["layers"]:
        raise ConfigError(f"config field layer_types = {str(types)[:80]} must be a list of num_hidden_layers = "
                          f"{c['layers']} layer types for {kind}")
    if any(t != "linear_attention" for t in types):
        at = next(i for i, t in enumerate(types) if t != "linear_attention")
        raise ConfigError(f"config flag layer_types contains {types[at]!r} (layer {at + 1}"
                          f"{'' if 'layer_types' in d else ', by default every full_attention_interval-th'}): "
                          "the reader implements only linear_attention layers of qwen3_next")
    experts, step = d.get("num_experts", 0) or 0, d.get("decoder_sparse_step", 1) or 1
    dense = set(d.get("mlp_only_layers") or [])
    if experts and any(i not in dense and (i + 1) % step == 0 for i in range(c["layers"])):
        raise ConfigError(f"config flag num_experts = {experts!r} is not supported for qwen3_next "
                          "(mixture-of-experts MLPs; list every layer in mlp_only_layers or set num_experts = 0)")
    _only(d, "hidden_act", ("silu",), "silu", kind)
    k_heads = _int(d, "linear_num_key_heads", kind, top=MAX_HEADS)
    v_heads = _int(d, "linear_num_value_heads", kind, top=MAX_HEADS)
    if v_heads % k_heads:
        raise ConfigError(f"config field linear_num_value_heads = {v_heads} must be a multiple of "
                          f"linear_num_key_heads = {k_heads}")
    return ExternalConfig(**c, heads=v_heads, key_heads=k_heads,
                          head_k_dim=_int(d, "linear_key_head_dim", kind, top=MAX_HEAD_DIM),
                          head_v_dim=_int(d, "linear_value_head_dim", kind, top=MAX_HEAD_DIM),
                          forget_gate=True, short_conv=True,
                          conv_size=_int(d, "linear_conv_kernel_dim", kind, 4, top=64), output_gate=True,
                          gate_act="silu")


def _mamba(d: dict, kind: str, source: str) -> ExternalConfig:
    """fla's Mamba (Mamba-1): channels are the heads, each a positive diagonal N x N transition."""
    _refuse_set(d, kind, ("use_l2warp",))
    _only(d, "hidden_act", ("silu",), "silu", kind)
    c = _common(d, kind, source)
    inter = d.get("intermediate_size") or int(d.get("expand", 2) * c["hidden"])
    if isinstance(inter, bool) or not isinstance(inter, int) or not 1 <= inter <= MAX_HIDDEN * 4:
        raise ConfigError(f"config field intermediate_size = {inter!r} must be a positive integer up to {MAX_HIDDEN * 4:,}")
    rank = d.get("dt_rank", "auto")
    rank = -(-c["hidden"] // 16) if rank == "auto" else rank
    if isinstance(rank, bool) or not isinstance(rank, int) or not 1 <= rank <= inter:
        raise ConfigError(f"config field dt_rank = {rank!r} must be a positive integer up to intermediate_size")
    return ExternalConfig(**c, heads=inter, key_heads=inter, head_k_dim=_int(d, "state_size", kind, 16, top=MAX_HEAD_DIM),
                          head_v_dim=1, state_size=d.get("state_size", 16), dt_rank=rank, short_conv=True,
                          conv_size=_int(d, "conv_kernel", kind, 4, top=64), conv_bias=_flag(d, "use_conv_bias", True, kind),
                          use_bias=_flag(d, "use_bias", False, kind), forget_gate=True, output_gate=True)


def _hf_float(x):
    """transformers writes inf as ``{"__float__": "Infinity"}`` in config.json."""
    if isinstance(x, dict) and set(x) == {"__float__"} and x["__float__"] in ("Infinity", "-Infinity", "NaN"):
        return float(x["__float__"].lower().replace("infinity", "inf"))
    return x


def _mamba2(d: dict, kind: str, source: str) -> ExternalConfig:
    """fla's Mamba2: ``num_heads`` heads of ``head_dim`` channels, each head's transition the scalar
    exp(Delta a) times the identity on its (state_size x head_dim) state; B and C shared by the heads
    of one of ``n_groups`` groups."""
    _refuse_set(d, kind, ("use_l2warp",))
    _only(d, "hidden_act", ("silu", "swish"), "silu", kind)
    c = _common(d, kind, source)
    p = _int(d, "head_dim", kind, 64, top=MAX_HEAD_DIM)
    expand = d.get("expand", 2)
    inter = expand * c["hidden"] if isinstance(expand, (int, float)) and not isinstance(expand, bool) else None
    if inter is None or inter != int(inter) or inter < 1 or int(inter) % p or int(inter) > MAX_HIDDEN * 4:
        raise ConfigError(f"config field expand = {expand!r} must make expand * hidden_size a positive multiple of "
                          f"head_dim = {p} up to {MAX_HIDDEN * 4:,} for {kind}")
    heads = int(inter) // p
    if d.get("num_heads") not in (None, 0, heads):
        raise ConfigError(f"config field num_heads = {d['num_heads']!r} must equal expand * hidden_size / head_dim "
                          f"= {heads} for {kind}")
    if heads > MAX_HEADS:
        raise ConfigError(f"config field num_heads = {heads:,} is over the reader's limit {MAX_HEADS:,} (docs/limits.md)")
    groups = _int(d, "n_groups", kind, 1, top=MAX_HEADS)
    if heads % groups:
        raise ConfigError(f"config field n_groups = {groups} must divide num_heads = {heads} for {kind}")
    lim = [_hf_float(x) for x in d.get("dt_limit", (0.0, float("inf")))] if isinstance(d.get("dt_limit"), list) else \
        d.get("dt_limit", (0.0, float("inf")))
    if (not isinstance(lim, (list, tuple)) or len(lim) != 2
            or not all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in lim) or not 0 <= lim[0] < lim[1]):
        raise ConfigError(f"config field dt_limit = {lim!r} must be a pair 0 <= low < high for {kind}")
    return ExternalConfig(**c, heads=heads, key_heads=heads, head_k_dim=_int(d, "state_size", kind, 128, top=MAX_HEAD_DIM),
                          head_v_dim=p, state_size=d.get("state_size", 128), short_conv=True,
                          conv_size=_int(d, "conv_kernel", kind, 4, top=64), conv_bias=_flag(d, "use_conv_bias", True, kind),
                          use_bias=_flag(d, "use_bias", False, kind), forget_gate=True, output_gate=True,
                          groups=groups, gated_norm=_flag(d, "rmsnorm", True, kind),
                          norm_before_gate=_flag(d, "norm_before_gate", False, kind),
                          D_per_dim=_flag(d, "D_has_hdim", False, kind), dt_limit=(float(lim[0]), float(lim[1])))



def _rwkv7(d: dict, kind: str, source: str) -> ExternalConfig:
    """fla's RWKV7 (fla 0.6.0's ``RWKV7Attention``, ``RWKV7FeedForward``, ``RWKV7Block``): heads of
    ``head_dim`` keys and as many values; sizes of the low-rank maps in :func:`rwkv7_dims`.
    ``fuse_norm`` and ``attn_mode`` choose kernels, not the formula, and ``use_l2warp`` acts on the
    training loss only: all three are read and need nothing."""
    _refuse_set(d, kind, ("attn",))
    _only(d, "hidden_act", ("sqrelu",), "sqrelu", kind)
    _only(d, "attn_mode", ("chunk", "fused_recurrent"), "chunk", kind)
    for flag, default in (("fuse_norm", True), ("norm_first", True), ("norm_bias", True), ("use_l2warp", True)):
        _flag(d, flag, default, kind)
    c = _common(d, kind, source)
    dims = rwkv7_dims(c["raw"], c["hidden"], c["layers"])
    return ExternalConfig(**c, heads=dims["heads"], key_heads=dims["heads"], head_k_dim=dims["head_dim"],
                          head_v_dim=dims["head_dim"], output_gate=True)


def rwkv7_dims(d: dict, hidden: int, layers: int) -> dict:
    """RWKV-7's sizes as fla 0.6.0 derives them: ``heads``, ``head_dim`` (from ``head_dim``, else
    ``num_heads``), the low-rank sizes ``decay``, ``gate``, ``a``, ``v`` (RWKV7Attention's formula when
    null) and the channel mix's ``intermediate`` (``hidden * hidden_ratio`` rounded up to 32 when
    null).  ConfigError naming the field otherwise; ``value_dim`` other than ``hidden_size`` is refused."""
    kind = "rwkv7"
    if d.get("head_dim", 64) is not None:  # RWKV7Config's default 64 wins over num_heads, as in RWKV7Attention
        hd = _int(d, "head_dim", kind, 64, top=MAX_HEAD_DIM)
        if hidden % hd:
            raise ConfigError(f"config field head_dim = {hd} does not divide hidden_size = {hidden} for rwkv7")
        heads = hidden // hd
    else:
        heads = _int(d, "num_heads", kind, top=MAX_HEADS)
        if hidden % heads:
            raise ConfigError(f"config field num_heads = {heads} does not divide hidden_size = {hidden} for rwkv7")
        hd = hidden // heads
    vd = d.get("value_dim")
    if vd is not None and vd != hidden and vd != [hidden] * layers:
        raise ConfigError(f"config flag value_dim = {vd!r} is not supported for rwkv7 (the reader implements "
                          f"value_dim = hidden_size = {hidden})")
    factor, root = hd / 64, hidden ** 0.5
    out = {"heads": heads, "head_dim": hd}
    for key, name, mult, scaled in (("decay", "decay_low_rank_dim", 2.5, True), ("gate", "gate_low_rank_dim", 5, False),
                                    ("a", "a_low_rank_dim", 2.5, True), ("v", "v_low_rank_dim", 1.7, True)):
        if d.get(name) is None:
            out[key] = max(32, int(round(mult * root * (factor if scaled else 1) / 32) * 32))
        else:
            out[key] = _int(d, name, kind, top=MAX_HIDDEN)
    if d.get("intermediate_size") is not None:
        out["intermediate"] = _int(d, "intermediate_size", kind, top=MAX_HIDDEN * 4)
    else:
        ratio = d.get("hidden_ratio") or 4
        if isinstance(ratio, bool) or not isinstance(ratio, (int, float)) or not 0 < ratio <= 64:
            raise ConfigError(f"config field hidden_ratio = {ratio!r} must be a number in (0, 64] for rwkv7")
        out["intermediate"] = 32 * ((int(hidden * ratio) + 31) // 32)
    return out


_KINDS = {"delta_net": _delta_net, "gated_deltanet": _gated, "gated_deltaproduct": _gated,
          "qwen3_next": _qwen3_next, "rwkv7": _rwkv7, "mamba": _mamba, "mamba2": _mamba2}


def external_config(data: dict, source: str = "fla") -> ExternalConfig:
    """The validated :class:`ExternalConfig` of a config dict (``config.json``'s content).

    ``source``: ``"fla"`` or ``"hf"`` (transformers); it must agree with the kind
    (``qwen3_next`` is transformers', the others fla's).  ConfigError naming the field otherwise.
    """
    if source not in ("fla", "hf"):
        raise ConfigError(f"source must be 'fla' or 'hf', got {source!r}")
    if not isinstance(data, dict):
        raise ConfigError(f"a config must be a JSON object, got {type(data).__name__}")
    kind = data.get("model_type")
    if kind not in _KINDS:
        raise ConfigError(f"config model_type = {kind!r} is not supported (supported: {', '.join(CONFIG_KINDS)})")
    if (kind == "qwen3_next") != (source == "hf"):
        want = "hf" if kind == "qwen3_next" else "fla"
        raise ConfigError(f"config model_type = {kind!r} is a {want} model: use --from {want}")
    return _KINDS[kind](data, kind, source)


def read_external_config(path, source: str = "fla") -> ExternalConfig:
    """:func:`external_config` of a ``config.json`` file, or of the ``config.json`` in a folder
    (at most :data:`MAX_CONFIG_BYTES`; ConfigError naming the file when missing or malformed)."""
    import os

    from bilinear.jsonfile import read_json_file

    p = os.path.join(path, "config.json") if os.path.isdir(path) else str(path)
    if not os.path.isfile(p):
        raise ConfigError(f"no config file {p!r}")
    data = read_json_file(p, ConfigError, "config file", MAX_CONFIG_BYTES, infinity=True)
    return external_config(data, source)

"""Baselines in the interface of the bilinear models: ``forward(words (batch, time))`` ->
logits (batch, time, classes), a label at every position.

* :class:`LSTMModel` -- ``torch.nn.LSTM``;
* :class:`TanhRNN` -- ``torch.nn.RNN`` with tanh;
* :class:`CausalTransformer` -- a causal Transformer (1, 2 or 4 layers) with learned positions
  (GPT-2's 1024) or sinusoidal ones (defined at every length);
* :class:`SelectiveSSM` -- Mamba-1 (Gu and Dao, 2023) in plain torch, a stack of 1, 2 or 4
  blocks: causal depthwise convolution, expansion 2, state size 16, ``h_t = exp(Delta_t A) *
  h_{t-1} + Delta_t B_t u_t``, ``y_t = C_t h_t + D u_t`` gated by ``SiLU(z_t)``, with
  input-dependent ``Delta_t, B_t, C_t``; optionally the negative-eigenvalue form of Grazzi et
  al. (2025).

>>> import torch
>>> m = CausalTransformer(n_symbols=3, n_classes=3, hidden=8, layers=2, seed=0)
>>> m(torch.tensor([[0, 1, 2, 1]])).shape
torch.Size([1, 4, 3])
"""

from __future__ import annotations

import math

import torch
from torch import nn

from bilinear.argtypes import check_positive_int
from bilinear.errors import ConfigError
from .positions import MAX_POSITIONS

__all__ = [
    "LSTMModel", "TanhRNN", "CausalTransformer", "MAX_POSITIONS", "SelectiveMixer", "SelectiveSSM", "SSM_STATE", "SSM_EXPAND", "SSM_CONV",
    "SSM_DT_RANGE",
]


class _NotBilinear:
    """Mixin: baselines have no bilinear :class:`~bilinear.constructions.values.weights.Weights`."""

    def to_weights(self):
        """Always ConfigError: only the bilinear variants export Weights."""
        raise ConfigError(f"{type(self).__name__} is a baseline, not a bilinear model: it has no Weights")


def _check(n_symbols: int, n_classes: int, hidden: int) -> None:
    for name, value in (("n_symbols", n_symbols), ("n_classes", n_classes), ("hidden size", hidden)):
        check_positive_int(value, name, error=ConfigError)


def _seeded(seed: int):
    """Initialise inside a forked RNG so the global torch RNG is untouched."""
    devices: list = []
    ctx = torch.random.fork_rng(devices=devices)
    ctx.__enter__()
    torch.manual_seed(int(seed))
    return ctx


class _Recurrent(_NotBilinear, nn.Module):
    cell_cls: type = nn.LSTM

    def __init__(self, n_symbols: int, n_classes: int, hidden: int, embed: int | None = None, seed: int = 0):
        super().__init__()
        _check(n_symbols, n_classes, hidden)
        ctx = _seeded(seed)
        try:
            self.embedding = nn.Embedding(n_symbols, embed or hidden)
            self.rnn = self.make_rnn(embed or hidden, hidden)
            self.readout = nn.Linear(hidden, n_classes)
        finally:
            ctx.__exit__(None, None, None)
        self.n_symbols, self.n_classes, self.hidden = n_symbols, n_classes, hidden

    def make_rnn(self, inp: int, hidden: int) -> nn.Module:  # pragma: no cover - overridden
        raise TypeError

    def forward(self, words: torch.Tensor, normalize: bool | None = None) -> torch.Tensor:
        out, _ = self.rnn(self.embedding(words))  # (batch, time, hidden)
        return self.readout(out)


class LSTMModel(_Recurrent):
    """Embedding, one ``nn.LSTM`` layer, linear readout."""

    def make_rnn(self, inp, hidden):
        return nn.LSTM(inp, hidden, batch_first=True)


class TanhRNN(_Recurrent):
    """Embedding, one tanh ``nn.RNN`` layer, linear readout."""

    def make_rnn(self, inp, hidden):
        return nn.RNN(inp, hidden, nonlinearity="tanh", batch_first=True)


def _sinusoidal_positions(time: int, dim: int) -> torch.Tensor:
    """(time, dim) sinusoidal position codes (Vaswani et al.), defined for any length.

    >>> _sinusoidal_positions(3, 4)[0].tolist()
    [0.0, 1.0, 0.0, 1.0]
    """
    pos = torch.arange(time, dtype=torch.float32).unsqueeze(1)
    freq = torch.exp(-math.log(10000.0) * torch.arange(0, dim, 2, dtype=torch.float32) / dim)
    pe = torch.zeros(time, dim)
    pe[:, 0::2] = torch.sin(pos * freq)
    pe[:, 1::2] = torch.cos(pos * freq)[:, : dim // 2]
    return pe




class CausalTransformer(_NotBilinear, nn.Module):
    """A causal (decoder-only, pre-norm) Transformer stack: ``layers`` blocks of multi-head
    attention and a feed-forward layer of width 4 x hidden (Vaswani et al., 2017); heads: the
    largest of 4, 2, 1 dividing hidden.

    ``positions="learned"`` (default): a table of :data:`MAX_POSITIONS` learned position vectors,
    as in GPT-2 (the paper's Transformer counts, about 1M, 1.8M and 3.4M parameters at hidden 256
    for 1, 2 and 4 layers, fit this table and no other part; positions past the training lengths
    keep their initialisation); words longer than the table are a ConfigError.
    ``positions="sinusoidal"``: sinusoidal codes, defined at every length (the registry's
    ``transformer:L,sinusoidal``).
    """

    def __init__(self, n_symbols: int, n_classes: int, hidden: int, layers: int = 1, seed: int = 0,
                 positions: str = "learned"):
        super().__init__()
        _check(n_symbols, n_classes, hidden)
        check_positive_int(layers, "Transformer layers", error=ConfigError)
        if positions not in ("learned", "sinusoidal"):
            raise ConfigError(f"unknown Transformer positions {positions!r} (known: learned, sinusoidal)")
        heads = next(h for h in (4, 2, 1) if hidden % h == 0)
        ctx = _seeded(seed)
        try:
            self.embedding = nn.Embedding(n_symbols, hidden)
            if positions == "learned":
                self.positions = nn.Embedding(MAX_POSITIONS, hidden)
                nn.init.normal_(self.positions.weight, std=0.02)
            else:
                self.register_module("positions", None)
            layer = nn.TransformerEncoderLayer(
                hidden, heads, dim_feedforward=4 * hidden, dropout=0.0, batch_first=True, norm_first=True
            )
            self.encoder = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
            self.norm = nn.LayerNorm(hidden)
            self.readout = nn.Linear(hidden, n_classes)
        finally:
            ctx.__exit__(None, None, None)
        self.n_symbols, self.n_classes, self.hidden, self.layers = n_symbols, n_classes, hidden, layers
        self.max_length = MAX_POSITIONS if positions == "learned" else None

    def max_batch(self, time: int) -> int:
        """Words per forward pass that keep the attention scores under 2**26 elements."""
        return max(1, 2**26 // (4 * time * time))

    def forward(self, words: torch.Tensor, normalize: bool | None = None) -> torch.Tensor:
        time = words.shape[1]
        if self.positions is None:
            pos = _sinusoidal_positions(time, self.hidden).to(words.device)
        elif time > MAX_POSITIONS:
            raise ConfigError(f"a Transformer with learned positions reads words of at most {MAX_POSITIONS} "
                              f"symbols, got length {time} (use transformer:L,sinusoidal)")
        else:
            pos = self.positions.weight[:time]
        x = self.embedding(words) + pos
        mask = nn.Transformer.generate_square_subsequent_mask(time, device=words.device)
        return self.readout(self.norm(self.encoder(x, mask=mask, is_causal=True)))


#: Mamba-1's sizes (Gu and Dao, 2023, section 3.4 and their reference configuration): the
#: diagonal modes per channel N, the expansion E of the inner width (E x hidden channels), the
#: kernel of the causal depthwise convolution, and the range in which Delta is initialised.
SSM_STATE = 16
SSM_EXPAND = 2
SSM_CONV = 4
SSM_DT_RANGE = (0.001, 0.1)


def _inverse_softplus(y: torch.Tensor) -> torch.Tensor:
    """x with softplus(x) = y (y > 0): ``y + log(-expm1(-y))``.

    >>> y = torch.tensor([0.001, 0.1, 2.0])
    >>> torch.allclose(torch.nn.functional.softplus(_inverse_softplus(y)), y)
    True
    """
    return y + torch.log(-torch.expm1(-y))


class SelectiveMixer(nn.Module):
    """One Mamba-1 mixer (Gu and Dao, 2023, Figure 3): (batch, time, hidden) -> (batch, time, hidden).

    ``in_proj`` maps x to the branch u and the gate z (``expand x hidden`` channels each); u goes
    through a causal depthwise convolution (kernel ``conv``) and SiLU; ``x_proj`` reads from u the
    low-rank ``dt`` (``dt_rank = ceil(hidden / 16)``) and the input-dependent ``B_t, C_t``
    (``state`` each); ``Delta_t = softplus(dt_proj(dt))``, whose bias is initialised to the inverse
    softplus of values log-uniform in :data:`SSM_DT_RANGE`, so Delta starts in [0.001, 0.1].  The
    scan, per channel c and mode n, is ``h_t = a_t h_{t-1} + Delta_t B_t u_t`` with
    ``a_t = exp(Delta_t A)``, ``A = -exp(A_log)`` initialised S4D-real (``A[c] = -(1, ..., N)``); the
    output ``y_t = C_t h_t + D u_t`` (D the skip, ones at init) is gated by ``SiLU(z_t)`` and
    projected back by ``out_proj``.  Sequential scan (CPU-sized).

    ``negative=True`` is the negative-eigenvalue form of Grazzi et al. (2025, "Unlocking
    state-tracking in linear RNNs through negative eigenvalues"): ``a_t = 2 exp(Delta_t A) - 1``, in
    (-1, 1) instead of (0, 1), so a channel can flip sign (parity in one step).

    >>> m = SelectiveMixer(hidden=32, state=16)
    >>> m.dt_rank, m.inner, tuple(m.A_log.shape), tuple(m.conv.weight.shape)
    (2, 64, (64, 16), (64, 1, 4))
    >>> delta = torch.nn.functional.softplus(m.dt_proj.bias)
    >>> bool(delta.min() >= 0.001 - 1e-6 and delta.max() <= 0.1 + 1e-6)
    True
    """

    def __init__(self, hidden: int, state: int = SSM_STATE, expand: int = SSM_EXPAND, conv: int = SSM_CONV,
                 negative: bool = False, layers: int = 1):
        super().__init__()
        inner = expand * hidden
        self.hidden, self.state, self.inner, self.negative = hidden, state, inner, bool(negative)
        self.dt_rank = math.ceil(hidden / 16)
        self.in_proj = nn.Linear(hidden, 2 * inner, bias=False)  # u and the gate z
        self.conv = nn.Conv1d(inner, inner, conv, groups=inner, padding=conv - 1)  # causal: cut the tail
        self.x_proj = nn.Linear(inner, self.dt_rank + 2 * state, bias=False)  # dt, B, C
        self.dt_proj = nn.Linear(self.dt_rank, inner)
        self.out_proj = nn.Linear(inner, hidden, bias=False)
        with torch.no_grad():
            bound = self.dt_rank ** -0.5
            self.dt_proj.weight.uniform_(-bound, bound)
            lo, hi = (math.log(x) for x in SSM_DT_RANGE)
            dt = torch.exp(torch.rand(inner) * (hi - lo) + lo).clamp_min(1e-4)
            self.dt_proj.bias.copy_(_inverse_softplus(dt))
            self.out_proj.weight.div_(math.sqrt(layers))  # pre-norm residual rescaling (Mamba's init)
        self.A_log = nn.Parameter(torch.log(torch.arange(1, state + 1, dtype=torch.float32)).repeat(inner, 1))
        self.D = nn.Parameter(torch.ones(inner))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        time = x.shape[1]
        u, z = self.in_proj(x).chunk(2, dim=-1)  # (batch, time, inner) each
        u = torch.nn.functional.silu(self.conv(u.transpose(1, 2))[..., :time].transpose(1, 2))
        dt, Bt, Ct = self.x_proj(u).split([self.dt_rank, self.state, self.state], dim=-1)
        delta = torch.nn.functional.softplus(self.dt_proj(dt))  # (batch, time, inner)
        A = -torch.exp(self.A_log)  # (inner, state)
        decay = torch.exp(delta.unsqueeze(-1) * A)  # (batch, time, inner, state)
        if self.negative:
            decay = 2 * decay - 1
        drive = (delta * u).unsqueeze(-1) * Bt.unsqueeze(2)  # (batch, time, inner, state)
        h = x.new_zeros(x.shape[0], self.inner, self.state)
        ys = []
        for t in range(time):
            h = decay[:, t] * h + drive[:, t]
            ys.append(torch.einsum("bcn,bn->bc", h, Ct[:, t]))
        y = torch.stack(ys, 1) + self.D * u  # (batch, time, inner)
        return self.out_proj(y * torch.nn.functional.silu(z))


class RMSNorm(nn.Module):
    """Root-mean-square normalisation with a learned gain (Zhang and Sennrich, 2019), written out
    so the package keeps working on torch 2.3, which has no ``nn.RMSNorm``.

    >>> RMSNorm(2)(torch.tensor([[3.0, 4.0]])).tolist()  # x / sqrt(mean(x^2)) = x / sqrt(12.5)
    [[0.848528..., 1.131370...]]
    """

    def __init__(self, hidden: int):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(hidden))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        eps = torch.finfo(x.dtype).eps
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * self.weight


class SelectiveSSM(_NotBilinear, nn.Module):
    """Mamba-1 (Gu and Dao, 2023): a stack of ``layers`` pre-norm residual blocks.

    Embedding, then ``layers`` blocks ``x = x + mixer(RMSNorm(x))`` (each mixer a
    :class:`SelectiveMixer`: causal depthwise convolution, expansion 2, state size 16, low-rank
    Delta, S4D-real A, D skip, SiLU gate), a final RMSNorm and a linear readout.  ``negative``:
    the negative-eigenvalue form of Grazzi et al. (2025) in every block (the registry's
    ``mamba:L,neg``).

    >>> m = SelectiveSSM(n_symbols=3, n_classes=2, hidden=4, layers=2, seed=0)
    >>> m(torch.tensor([[0, 1, 2]])).shape, len(m.blocks)
    (torch.Size([1, 3, 2]), 2)
    """

    def __init__(self, n_symbols: int, n_classes: int, hidden: int, state: int = SSM_STATE, layers: int = 1,
                 seed: int = 0, negative: bool = False, expand: int = SSM_EXPAND):
        super().__init__()
        _check(n_symbols, n_classes, hidden)
        for name, value in (("state size", state), ("layers", layers), ("expansion", expand)):
            check_positive_int(value, f"SSM {name}", error=ConfigError)
        ctx = _seeded(seed)
        try:
            self.embedding = nn.Embedding(n_symbols, hidden)
            nn.init.normal_(self.embedding.weight, std=0.02)
            self.norms = nn.ModuleList(RMSNorm(hidden) for _ in range(layers))
            self.blocks = nn.ModuleList(
                SelectiveMixer(hidden, state, expand=expand, negative=negative, layers=layers) for _ in range(layers))
            self.norm = RMSNorm(hidden)
            self.readout = nn.Linear(hidden, n_classes)
        finally:
            ctx.__exit__(None, None, None)
        self.n_symbols, self.n_classes, self.hidden, self.state = n_symbols, n_classes, hidden, state
        self.layers, self.expand, self.negative = layers, expand, bool(negative)

    def max_batch(self, time: int) -> int:
        """Words per forward pass that keep the (batch, time, inner, state) tensors under 2**26
        elements (inner = expand x hidden): of every layer under autograd (each keeps its own for
        the backward pass), of one layer at a time without gradients (evaluation frees a layer's
        before the next)."""
        layers = self.layers if torch.is_grad_enabled() else 1
        return max(1, 2**26 // (time * self.expand * self.hidden * self.state * layers))

    def forward(self, words: torch.Tensor, normalize: bool | None = None) -> torch.Tensor:
        x = self.embedding(words)  # (batch, time, hidden)
        for norm, block in zip(self.norms, self.blocks):
            x = x + block(norm(x))
        return self.readout(self.norm(x))

"""Baselines in the interface of the bilinear models: ``forward(words (batch, time))`` ->
logits (batch, time, classes), a label at every position.

* :class:`LSTMModel` -- ``torch.nn.LSTM``;
* :class:`TanhRNN` -- ``torch.nn.RNN`` with tanh;
* :class:`CausalTransformer` -- a causal Transformer encoder (1, 2 or 4 layers) with sinusoidal
  positions (defined at every length, so it can be evaluated past the training lengths);
* :class:`SelectiveSSM` -- a Mamba-style stack of 1, 2 or 4 selective diagonal state-space
  blocks in plain torch: ``h_t = exp(Delta_t A) * h_{t-1} + Delta_t B_t x_t``,
  ``y_t = C_t h_t + D x_t``, gated by ``SiLU(z_t)``, with input-dependent ``Delta_t, B_t, C_t``.

>>> import torch
>>> m = CausalTransformer(n_symbols=3, n_classes=3, hidden=8, layers=2, seed=0)
>>> m(torch.tensor([[0, 1, 2, 1]])).shape
torch.Size([1, 4, 3])
"""

from __future__ import annotations

import math

import torch
from torch import nn

from bilinear.errors import ConfigError

__all__ = ["LSTMModel", "TanhRNN", "CausalTransformer", "SelectiveMixer", "SelectiveSSM", "SSM_STATE"]


class _NotBilinear:
    """Mixin: baselines have no bilinear :class:`~bilinear.constructions.weights.Weights`."""

    def to_weights(self):
        """Always ConfigError: only the bilinear variants export Weights."""
        raise ConfigError(f"{type(self).__name__} is a baseline, not a bilinear model: it has no Weights")


def _check(n_symbols: int, n_classes: int, hidden: int) -> None:
    for name, value in (("n_symbols", n_symbols), ("n_classes", n_classes), ("hidden size", hidden)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ConfigError(f"{name} must be a positive integer, got {value!r}")


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


def sinusoidal_positions(time: int, dim: int) -> torch.Tensor:
    """(time, dim) sinusoidal position codes (Vaswani et al.), defined for any length.

    >>> sinusoidal_positions(3, 4)[0].tolist()
    [0.0, 1.0, 0.0, 1.0]
    """
    pos = torch.arange(time, dtype=torch.float32).unsqueeze(1)
    freq = torch.exp(-math.log(10000.0) * torch.arange(0, dim, 2, dtype=torch.float32) / dim)
    pe = torch.zeros(time, dim)
    pe[:, 0::2] = torch.sin(pos * freq)
    pe[:, 1::2] = torch.cos(pos * freq)[:, : dim // 2]
    return pe


class CausalTransformer(_NotBilinear, nn.Module):
    """A causal (decoder-only) Transformer encoder stack; heads: the largest of 4, 2, 1 dividing hidden."""

    def __init__(self, n_symbols: int, n_classes: int, hidden: int, layers: int = 1, seed: int = 0):
        super().__init__()
        _check(n_symbols, n_classes, hidden)
        if isinstance(layers, bool) or not isinstance(layers, int) or layers < 1:
            raise ConfigError(f"Transformer layers must be a positive integer, got {layers!r}")
        heads = next(h for h in (4, 2, 1) if hidden % h == 0)
        ctx = _seeded(seed)
        try:
            self.embedding = nn.Embedding(n_symbols, hidden)
            layer = nn.TransformerEncoderLayer(
                hidden, heads, dim_feedforward=2 * hidden, dropout=0.0, batch_first=True, norm_first=True
            )
            self.encoder = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
            self.norm = nn.LayerNorm(hidden)
            self.readout = nn.Linear(hidden, n_classes)
        finally:
            ctx.__exit__(None, None, None)
        self.n_symbols, self.n_classes, self.hidden, self.layers = n_symbols, n_classes, hidden, layers

    def max_batch(self, time: int) -> int:
        """Words per forward pass that keep the attention scores under 2**26 elements."""
        return max(1, 2**26 // (4 * time * time))

    def forward(self, words: torch.Tensor, normalize: bool | None = None) -> torch.Tensor:
        time = words.shape[1]
        x = self.embedding(words) + sinusoidal_positions(time, self.hidden).to(words.device)
        mask = nn.Transformer.generate_square_subsequent_mask(time, device=words.device)
        return self.readout(self.norm(self.encoder(x, mask=mask, is_causal=True)))


#: The diagonal modes per channel of :class:`SelectiveSSM` (the registry's ``mamba``).
SSM_STATE = 8


class SelectiveMixer(nn.Module):
    """One selective-scan mixer: (batch, time, hidden) -> (batch, time, hidden), sequential scan.

    ``hidden`` channels, each with ``state`` diagonal modes; ``A = -exp(A_log)`` (hidden, state)
    is input-independent, ``Delta_t = softplus(W_delta u_t)`` (hidden,), ``B_t, C_t`` (state,)
    are linear in the mixer's input ``u_t``; the output is gated by ``SiLU(z_t)``.
    """

    def __init__(self, hidden: int, state: int):
        super().__init__()
        self.in_proj = nn.Linear(hidden, 2 * hidden)  # u and the gate z
        self.delta = nn.Linear(hidden, hidden)
        self.BC = nn.Linear(hidden, 2 * state, bias=False)
        self.A_log = nn.Parameter(torch.log(torch.arange(1, state + 1, dtype=torch.float32)).repeat(hidden, 1))
        self.Dskip = nn.Parameter(torch.ones(hidden))
        self.out_proj = nn.Linear(hidden, hidden)
        self.hidden, self.state = hidden, state

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        u, z = self.in_proj(x).chunk(2, dim=-1)
        u = torch.nn.functional.silu(u)
        delta = torch.nn.functional.softplus(self.delta(u))  # (batch, time, hidden)
        Bt, Ct = self.BC(u).chunk(2, dim=-1)  # (batch, time, state) each
        A = -torch.exp(self.A_log)  # (hidden, state)
        decay = torch.exp(delta.unsqueeze(-1) * A)  # (batch, time, hidden, state)
        drive = (delta * u).unsqueeze(-1) * Bt.unsqueeze(2)  # (batch, time, hidden, state)
        h = x.new_zeros(x.shape[0], self.hidden, self.state)
        ys = []
        for t in range(x.shape[1]):
            h = decay[:, t] * h + drive[:, t]
            ys.append(torch.einsum("bhn,bn->bh", h, Ct[:, t]))
        y = torch.stack(ys, 1) + self.Dskip * u  # (batch, time, hidden)
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
    """A Mamba-style stack of ``layers`` selective diagonal SSM blocks (plain torch, sequential scan).

    Embedding, then ``layers`` pre-norm residual blocks ``x = x + mixer(RMSNorm(x))`` (each mixer a
    :class:`SelectiveMixer`), a final RMSNorm and a linear readout (Gu and Dao, 2023, without the
    convolution).

    >>> m = SelectiveSSM(n_symbols=3, n_classes=2, hidden=4, layers=2, seed=0)
    >>> m(torch.tensor([[0, 1, 2]])).shape, len(m.blocks)
    (torch.Size([1, 3, 2]), 2)
    """

    def __init__(self, n_symbols: int, n_classes: int, hidden: int, state: int = SSM_STATE, layers: int = 1,
                 seed: int = 0):
        super().__init__()
        _check(n_symbols, n_classes, hidden)
        if isinstance(state, bool) or not isinstance(state, int) or state < 1:
            raise ConfigError(f"SSM state size must be a positive integer, got {state!r}")
        if isinstance(layers, bool) or not isinstance(layers, int) or layers < 1:
            raise ConfigError(f"SSM layers must be a positive integer, got {layers!r}")
        ctx = _seeded(seed)
        try:
            self.embedding = nn.Embedding(n_symbols, hidden)
            self.norms = nn.ModuleList(RMSNorm(hidden) for _ in range(layers))
            self.blocks = nn.ModuleList(SelectiveMixer(hidden, state) for _ in range(layers))
            self.norm = RMSNorm(hidden)
            self.readout = nn.Linear(hidden, n_classes)
        finally:
            ctx.__exit__(None, None, None)
        self.n_symbols, self.n_classes, self.hidden, self.state = n_symbols, n_classes, hidden, state
        self.layers = layers

    def max_batch(self, time: int) -> int:
        """Words per forward pass that keep the (batch, time, hidden, state) tensors under 2**26
        elements: of every layer under autograd (each keeps its own for the backward pass), of one
        layer at a time without gradients (evaluation frees a layer's before the next)."""
        layers = self.layers if torch.is_grad_enabled() else 1
        return max(1, 2**26 // (time * self.hidden * self.state * layers))

    def forward(self, words: torch.Tensor, normalize: bool | None = None) -> torch.Tensor:
        x = self.embedding(words)  # (batch, time, hidden)
        for norm, block in zip(self.norms, self.blocks):
            x = x + block(norm(x))
        return self.readout(self.norm(x))

"""Training a live fla model on CPU through the toolkit's own forward (fla's kernels need a GPU).

:func:`bind` makes an :class:`~bilinear.learned.external.model.ExternalModel` whose tensors *are*
the live model's parameters, so the float32 forward of :mod:`~bilinear.learned.external.delta` is
differentiable in them and the optimiser updates the fla model in place; ``save_pretrained`` then
writes fla's own format.  :func:`fit` trains on an automaton's labels at every position (the
paper's protocol: cross-entropy on the label tokens' logits), lengths drawn uniformly.

>>> fit  # doctest: +ELLIPSIS
<function fit at ...>
"""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F

from bilinear.constructions.values.external import external_config
from bilinear.errors import ConfigError

from .model import ExternalModel, _from_tensors
from .tracker import parse_token_map

__all__ = ["bind", "fit"]


def bind(live) -> ExternalModel:
    """The ExternalModel sharing the live fla model's parameter tensors (no copy)."""
    d = live.config.to_dict()
    c = external_config(d, "hf" if d.get("model_type") == "qwen3_next" else "fla")
    if c.kind == "qwen3_next":
        raise ConfigError("bind trains fla models only (Qwen3-Next's fused projections are split by copying)")
    return _from_tensors(c, dict(live.named_parameters()), type(live).__name__)


def fit(live, automaton, tokens=None, labels=None, steps: int = 300, lengths: tuple[int, int] = (1, 12),
        batch: int = 64, lr: float = 1e-2, seed: int = 0) -> list[float]:
    """Train ``live`` (an fla model) on ``automaton`` for ``steps`` Adam steps; the losses per step.

    ``tokens``/``labels`` as in :func:`~bilinear.learned.external.tracker.parse_token_map`.
    """
    model = bind(live)
    V = model.config.vocab
    tok = torch.as_tensor(parse_token_map(tokens, automaton.symbols, V))
    lab = torch.as_tensor(parse_token_map(labels, [str(c) for c in automaton.classes], V, "--labels"))
    params = [p for p in live.parameters() if p.requires_grad]
    opt = torch.optim.Adam(params, lr=lr)
    rng = np.random.default_rng(seed)
    torch.manual_seed(seed)
    losses = []
    live.train()
    for _ in range(steps):
        T = int(rng.integers(lengths[0], lengths[1] + 1))
        words = rng.integers(0, automaton.n_symbols, size=(batch, T))
        truth = torch.as_tensor(automaton.labels_batch(words, trace=True))
        logits = model.forward(tok[torch.as_tensor(words)], dtype=torch.float32)[..., lab]
        loss = F.cross_entropy(logits.reshape(-1, len(lab)), truth.reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(float(loss))
    live.eval()
    return losses

"""A trainable stack of bilinear layers: the cascade of docs/theory.md section 8, made differentiable.

Layer 1 is a :class:`~bilinear.learned.models.BilinearRNN` over the input symbols; layer
``l >= 2`` is one over the pairs (input symbol ``s``, class ``c`` of layer ``l - 1``), its
transition matrices indexed ``s * C_{l-1} + c`` exactly as in
:class:`~bilinear.constructions.values.stack.Stack`.  The class of a layer is not differentiable, so in
training layer ``l`` runs the *soft* cascade: at step ``t`` its transition is the mixture

    A_t = sum_c softmax(R_{l-1} h^{(l-1)}_t)[c] * A_l[(s_t, c)],

which is the hard cascade when the softmax is one-hot.  With ``mixing="straight-through"`` (the
default, :data:`DEFAULT_MIXING`) the weights are the one-hot argmax in the forward pass and the
softmax in the backward pass, so training runs the hard cascade itself; ``mixing="soft"`` trains
the mixture above, which can carry information the hard cascade does not (measured over seeds in
docs/training-results.md, "Stacks of layers: which mixing"). In evaluation mode (``model.eval()``, and
in every accuracy this package reports) the layers run the *hard* cascade — each reads layer
``l - 1``'s argmax — which is exactly what :meth:`StackedBilinearRNN.to_weights` exports, so the
exported :class:`~bilinear.constructions.values.stack.Stack` is the network that was evaluated.

Every layer below the last has ``n_classes`` classes (as many as the automaton); the hidden size
and the variant are shared by all layers.  Each step renormalises every layer's hidden state, as
the one-layer models do.

>>> import torch
>>> m = StackedBilinearRNN(n_symbols=2, n_classes=6, hidden=4, variant="rotation2d", layers=2, seed=0)
>>> m(torch.tensor([[0, 1, 1]])).shape
torch.Size([1, 3, 6])
>>> s = m.to_weights()
>>> s.depth, [w.n_symbols for w in s.layers], s.variant
(2, [2, 12], 'rotation2d')
"""

from __future__ import annotations

from typing import cast

import torch
from torch import nn

import numpy as np

from bilinear.argtypes import check_positive_int
from bilinear.errors import ConfigError

from .models import BilinearRNN
from .scan import Dense, Diagonal, Factorized, GroupPlan, Rotation, Transitions, scan

__all__ = ["StackedBilinearRNN", "padded_stack", "soft_layer", "MIXINGS", "DEFAULT_MIXING"]

#: How a layer reads the one below in training (the same tuple as ``learned.config.MIXINGS``, which
#: cannot be imported here without an import cycle; a test keeps them equal).
MIXINGS = ("soft", "straight-through")
#: The mixing a stack trains with unless told otherwise (``learned.config`` has the same default; a
#: test keeps them equal): straight-through fits the hard cascade and generalises where soft mixing
#: does not (docs/training-results.md, "Stacks of layers: which mixing").
DEFAULT_MIXING = "straight-through"


class StackedBilinearRNN(nn.Module):
    """``layers`` bilinear layers of one ``variant`` in a cascade (see the module docstring).

    ``options`` go to every :class:`BilinearRNN` (``normalize_train``, ``init``, ``init_noise``,
    ``scan``); layer ``l`` is seeded with ``seed + l``.  ``mixing`` (:data:`MIXINGS`) is how a layer
    reads the one below in training.  No embedding and no additive ablation:
    a stack is a bilinear model by construction.
    """

    def __init__(self, n_symbols: int, n_classes: int, hidden: int, variant: str = "full", layers: int = 2,
                 seed: int = 0, mixing: str = DEFAULT_MIXING, **options):
        super().__init__()
        from bilinear.constructions.values.stack import MAX_LAYERS

        layers = check_positive_int(layers, "layers", error=ConfigError, maximum=MAX_LAYERS)
        if mixing not in MIXINGS:
            raise ConfigError(f"unknown stack mixing {mixing!r} (known: {', '.join(MIXINGS)})")
        self.mixing = mixing
        if options.get("embed") is not None or options.get("additive"):
            raise ConfigError("a stack of layers has one-hot tokens and no additive terms")
        options.pop("embed", None)
        options.pop("additive", None)
        self.n_symbols, self.n_classes, self.hidden = n_symbols, n_classes, hidden
        self.layers = nn.ModuleList(
            BilinearRNN(n_symbols * (1 if l == 0 else n_classes), n_classes, hidden, variant=variant,
                        seed=seed + l, **options)
            for l in range(layers)
        )
        self.variant = self.layer(0).variant
        self.additive = False
        self.embed_dim = None

    def layer(self, i: int) -> BilinearRNN:
        """Layer ``i`` (0-based; -1 the last)."""
        return cast(BilinearRNN, self.layers[i])

    # the last layer's start state and readout (the empty word's label, see learned/train.py)
    @property
    def h0(self) -> nn.Parameter:
        return self.layer(-1).h0

    @property
    def readout(self) -> nn.Linear:
        return self.layer(-1).readout

    @property
    def normalize_train(self) -> bool:
        return self.layer(-1).normalize_train

    @property
    def depth(self) -> int:
        return len(self.layers)

    def freeze_transitions(self) -> "StackedBilinearRNN":
        """Freeze every layer's transition matrices (see :meth:`BilinearRNN.freeze_transitions`)."""
        for i in range(self.depth):
            self.layer(i).freeze_transitions()
        return self

    def forward(self, words: torch.Tensor, hard: bool | None = None) -> torch.Tensor:
        """Logits (batch, time, classes) of the last layer; ``hard`` (default: not training)
        runs the argmax cascade, else the softmax mixture."""
        if hard is None:
            hard = not self.training
        if words.ndim != 2:
            raise ConfigError(f"words must be (batch, time), got shape {tuple(words.shape)}")
        logits = self.layer(0)(words)  # (batch, time, classes): the one-layer scan
        for layer in (self.layer(i) for i in range(1, self.depth)):
            if hard:
                logits = layer(words * self.n_classes + logits.argmax(-1))
            else:
                p = torch.softmax(logits, dim=-1)
                if self.mixing == "straight-through":  # the hard cascade's value, the softmax's gradient
                    p = nn.functional.one_hot(p.argmax(-1), p.shape[-1]).to(p.dtype) + p - p.detach()
                logits = self._soft(layer, words, p)
        return logits

    def _soft(self, layer: BilinearRNN, words: torch.Tensor, p: torch.Tensor) -> torch.Tensor:
        """The mixture cascade of one layer over the whole sequence: ``p`` (batch, time, classes of
        the layer below) are the weights of layer ``l - 1``'s classes at every step, already
        computed for all steps (layer ``l`` reads layer ``l - 1`` at the same step only), so the
        layer runs once over the whole sequence (see :func:`soft_layer`)."""
        normalize = layer.normalize_train or not self.training
        return soft_layer(layer, words, p, normalize)

    @classmethod
    def from_weights(cls, stack, dtype: torch.dtype = torch.float64, **options) -> "StackedBilinearRNN":
        """A model carrying ``stack`` (a :class:`~bilinear.constructions.values.stack.Stack` whose layers
        share one variant and one hidden size, and whose intermediate layers have as many classes as
        the last): the inverse of :meth:`to_weights`, so a cascade construction runs here too.

        >>> from bilinear.automata import from_spec
        >>> from bilinear.constructions.handmade.cascade import cascade
        >>> s = cascade(from_spec("dihedral:3"), "full", layers=2)
        >>> StackedBilinearRNN.from_weights(s)
        Traceback (most recent call last):
        ...
        bilinear.errors.ConfigError: layer 1 has 2 classes and hidden size 2, layer 2 has 6 and 4: a trainable stack needs one hidden size and the automaton's class count in every layer
        """
        from bilinear.constructions.values.stack import Stack

        if not isinstance(stack, Stack):
            raise ConfigError(f"from_weights needs a Stack, got {type(stack).__name__}")
        last = stack.layers[-1]
        for i, w in enumerate(stack.layers[:-1]):
            if w.n_classes != last.n_classes or w.dim != last.dim or w.variant != last.variant:
                raise ConfigError(
                    f"layer {i + 1} has {w.n_classes} classes and hidden size {w.dim}, layer {stack.depth} has "
                    f"{last.n_classes} and {last.dim}: a trainable stack needs one hidden size and the automaton's "
                    "class count in every layer")
        mixing = options.pop("mixing", DEFAULT_MIXING)  # the stack's, not a layer's option
        model = cls(stack.n_symbols, last.n_classes, last.dim, last.variant, layers=stack.depth, mixing=mixing,
                    **options).to(dtype)
        for l, w in enumerate(stack.layers):
            model.layers[l] = BilinearRNN.from_weights(w, dtype=dtype, **options)
        return model.eval()

    def to_weights(self):
        """The float :class:`~bilinear.constructions.values.stack.Stack` of the hard cascade."""
        from bilinear.constructions.values.stack import Stack

        return Stack(tuple(self.layer(i).to_weights() for i in range(self.depth)))

    def extra_repr(self) -> str:
        return (f"layers={self.depth}, variant={self.variant.spec}, symbols={self.n_symbols}, "
                f"classes={self.n_classes}, hidden={self.hidden}")


def soft_layer(layer: BilinearRNN, words: torch.Tensor, p: torch.Tensor, normalize: bool) -> torch.Tensor:
    """Logits (batch, time, classes) of ``layer`` (a layer ``l >= 2``, symbols ``s * C + c``) run on
    the soft cascade: at step ``t`` the state is multiplied by ``M_t = sum_c p[:, t, c] A[(s_t, c)]``.

    The weights ``p`` (batch, time, C) of every step are known before the layer runs, so the layer
    runs once over the whole sequence, layer by layer, never step by step across layers:

    * when the mixture of the layer's matrices has the layer's own form — diagonal
      (:class:`~bilinear.learned.scan.Diagonal`), scaled rotations
      (:class:`~bilinear.learned.scan.Rotation`: the mixture of ``[[a, -b], [b, a]]`` blocks is the
      block of the mixed ``a`` and ``b``), factorised with shared ``U, W``
      (:class:`~bilinear.learned.scan.Factorized`: the mixed ``C``) — the mixed parameters of every
      position are computed at once and the layer is the single-layer :func:`~bilinear.learned.scan.scan`
      over the positions (position ``(b, t)`` is its own symbol), at the single layer's cost per step;
    * otherwise the rows are grouped by input symbol as in the dense single-layer scan, and each step
      applies the ``C`` matrices of a row's symbol with one GEMM per symbol (``C`` times a dense
      layer's products: a mixture of ``C`` dense matrices has no cheaper form) and mixes them.

    The start state is ``h0 / |h0|``.  ``normalize`` renormalises after every step.

    >>> m = StackedBilinearRNN(n_symbols=2, n_classes=3, hidden=4, variant="rotation2d", layers=2, seed=0)
    >>> words = torch.tensor([[0, 1, 1, 0]])
    >>> c = m.layer(0)(words).argmax(-1)
    >>> one_hot = torch.nn.functional.one_hot(c, 3).to(torch.get_default_dtype())
    >>> torch.allclose(soft_layer(m.layer(1), words, one_hot, True), m.layer(1)(words * 3 + c), atol=1e-6)
    True
    """
    batch, time = words.shape
    h0 = layer.h0 / layer.h0.norm().clamp_min(1e-30)
    R = layer.readout.weight
    mixed = _mixed_transitions(layer.transitions(), words, p)
    if mixed is not None:
        positions = torch.arange(batch * time, device=words.device).reshape(batch, time)
        return scan(mixed, positions, h0, normalize=normalize, method=layer.scan_method, readout=R)
    return _grouped_mixture(layer.transitions().dense(), words, p, h0, normalize, R)


def _mix(table: torch.Tensor, words: torch.Tensor, p: torch.Tensor) -> torch.Tensor:
    """``sum_c p[b, t, c] table[words[b, t] * C + c]`` for every position, as (batch * time, ...)."""
    C = p.shape[-1]
    per = table.reshape(table.shape[0] // C, C, *table.shape[1:])[words]  # (batch, time, C, ...)
    weights = p.reshape(*p.shape, *([1] * (table.dim() - 1)))
    return (weights * per).sum(2).reshape(words.numel(), *table.shape[1:])


def _mixed_transitions(trans: Transitions, words: torch.Tensor, p: torch.Tensor) -> Transitions | None:
    """One symbol per position: the mixed transitions when the mixture keeps the form of ``trans``
    (its parameters enter the matrices linearly), else None."""
    if isinstance(trans, Diagonal):
        return Diagonal(_mix(trans.D, words, p))
    if isinstance(trans, Rotation):
        return Rotation(_mix(trans.a, words, p), _mix(trans.b, words, p))
    if isinstance(trans, Factorized):
        return Factorized(trans.U, _mix(trans.C, words, p), trans.W)
    return None


def _grouped_mixture(A: torch.Tensor, words: torch.Tensor, p: torch.Tensor, h0: torch.Tensor, normalize: bool,
                     R: torch.Tensor) -> torch.Tensor:
    """The soft layer for dense matrices ``A`` (symbols * C, hidden, hidden): rows grouped by input
    symbol (:class:`~bilinear.learned.scan.GroupPlan`), one GEMM per symbol by the (C * hidden, hidden)
    stack of that symbol's matrices, then the mixture by ``p``; logits (batch, time, classes)."""
    batch, time = words.shape
    C, d = p.shape[-1], A.shape[-1]
    if time == 0:
        return h0.new_zeros(batch, 0, R.shape[0])
    S = A.shape[0] // C
    wide = Dense(A.reshape(S, C * d, d))  # symbol s: every class's matrix, stacked by rows
    plan = GroupPlan.build(words, S)
    ps = torch.gather(p.transpose(0, 1), 1, plan.order.unsqueeze(-1).expand(time, batch, C))  # sorted rows
    h = h0.expand(batch, d)
    states = []
    for t in range(time):
        if t:
            h = h.index_select(0, plan.relink[t])
        Y = wide.step(h, plan.sorted_tokens[t], plan.counts[t]).reshape(batch, C, d)
        h = torch.einsum("bc,bci->bi", ps[t], Y)
        if normalize:
            h = h / h.norm(dim=-1, keepdim=True).clamp_min(1e-30)
        states.append(h)
    logits = torch.stack(states, 0) @ R.T  # (time, batch, classes), each step's sorted order
    index = plan.inverse.unsqueeze(-1).expand(time, batch, logits.shape[-1])
    return torch.gather(logits, 1, index).transpose(0, 1)


def padded_stack(stack, scale: float = 1.0):
    """``stack`` (float or exact) as a float stack a :class:`StackedBilinearRNN` can carry: every
    layer padded to the largest hidden size (identity on the new coordinates, which start at 0) and
    every intermediate layer to the last layer's class count (the new classes have zero readout
    rows, so they never win while a true class scores above 0, as in every cascade of
    :func:`~bilinear.constructions.handmade.cascade.cascade`; the symbols that read them act as the
    identity).  ``scale`` multiplies every readout (the hard cascade is unchanged by it; the soft
    one approaches it as the scale grows).  The hard cascade of the result computes what ``stack``
    computes when the padded classes never win.

    >>> from bilinear.automata import from_spec
    >>> from bilinear.constructions.handmade.cascade import cascade
    >>> from bilinear.constructions.values.floatrun import run_float
    >>> d3 = from_spec("dihedral:3")
    >>> p = padded_stack(cascade(d3, "rotation2d"))
    >>> p.dims, [w.n_symbols for w in p.layers], [w.n_classes for w in p.layers]
    ((4, 4), [2, 12], [6, 6])
    >>> words = np.random.default_rng(0).integers(0, 2, size=(50, 100))
    >>> bool((run_float(p, words).labels == d3.labels[d3.run_batch(words, trace=True)]).all())
    True
    """
    from bilinear.constructions.values.stack import Stack
    from bilinear.constructions.values.weights import Weights

    stack = stack.to_float()
    d = max(stack.dims)
    C = stack.n_classes
    S = stack.n_symbols
    out = []
    for l, w in enumerate(stack.layers):
        A, h0, R = w.float_arrays()
        c_prev = 1 if l == 0 else stack.layers[l - 1].n_classes
        width = 1 if l == 0 else C
        newA = np.tile(np.eye(d), (S * width, 1, 1))
        for s in range(S):
            for c in range(c_prev):
                newA[s * width + c, : w.dim, : w.dim] = A[s * c_prev + c]
        newh = np.zeros(d)
        newh[: w.dim] = h0
        newR = np.zeros((C, d))
        newR[: w.n_classes, : w.dim] = scale * R
        out.append(Weights(w.variant, newA, newh, newR))
    return Stack(tuple(out))

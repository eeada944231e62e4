"""A stack of bilinear layers: the cascade of docs/theory.md section 8.

A :class:`Stack` holds ``layers``, a tuple of :class:`~bilinear.constructions.values.weights.Weights`.
Layer 1 reads the input alphabet (``S`` symbols) and has its own classes ``C_1``; layer
``l >= 2`` reads, at each step, the pair (input symbol ``s``, class ``c`` of layer ``l - 1``
*after the same step*) as its symbol ``s * C_{l-1} + c``, so its ``A`` has ``S * C_{l-1}``
matrices.  Only the last layer's classes are the network's labels.  A class is the strict argmax
of a layer's readout; a tie in any layer, at any step where its class is read, is an error (the
network gives no label).  A one-layer stack behaves exactly like its :class:`Weights`.

A Stack is not a subclass of :class:`Weights`; functions that accept both say so (``prove_stack``,
``run_float``, ``check``, ``settle``).

File format (``save``/``load``): one JSON object, UTF-8::

    {"format": "bilinear.stack", "version": 1, "symbols": S,
     "layers": [WEIGHTS, ...],          # each a complete weights object (docs/formats.md)
     "checksum": "sha256:..."}

Each layer is a weights object with its own checksum; ``checksum`` is the SHA-256 of the
canonical JSON of every other key, as in the weights file.  :func:`load_network` reads either
file and returns a :class:`Weights` or a :class:`Stack`.

Examples
--------
>>> from bilinear.constructions.values.weights import Weights
>>> parity = Weights("diagonal", A=[[[1]], [[-1]]], h0=[1], readout=[[1], [-1]])
>>> copy = Weights("diagonal", A=[[[1]], [[-1]], [[1]], [[-1]]], h0=[1], readout=[[1], [-1]])
>>> s = Stack((parity, copy))
>>> s.depth, s.n_symbols, s.n_classes, s.dims, s.exact
(2, 2, 2, (1, 1), True)
>>> Stack((parity, parity))
Traceback (most recent call last):
...
bilinear.errors.WeightsError: stack layer 2 reads 2 symbols, but must read S x C_1 = 2 x 2 = 4 (input symbol, class of layer 1)
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np

from bilinear.argtypes import check_positive_int
from bilinear.errors import WeightsError
from bilinear.fileio import atomic_write_text
from bilinear.jsonfile import check_header, checksum

from .weights import Weights

__all__ = ["Stack", "STACK_FORMAT", "STACK_VERSION", "MAX_LAYERS", "load_network", "network_from_json",
           "as_stack", "repeated"]

STACK_FORMAT = "bilinear.stack"
STACK_VERSION = 1
#: Most layers a stack may have.
MAX_LAYERS = 16
_KEYS = ("format", "version", "symbols", "layers", "checksum")
_REQUIRED = ("format", "version", "symbols", "layers")


class Stack:
    """A cascade of bilinear layers, frozen and validated (see the module docstring).

    Raises :class:`~bilinear.errors.WeightsError` naming the bad layer: not a Weights, exact and
    float layers mixed, or a layer whose symbol count is not ``S * C_{l-1}``.
    """

    __slots__ = ("layers",)
    layers: tuple[Weights, ...]

    def __init__(self, layers):
        if isinstance(layers, Weights):
            layers = (layers,)
        if not isinstance(layers, (tuple, list)) or not layers:
            raise WeightsError("a stack needs a non-empty tuple of Weights layers")
        if len(layers) > MAX_LAYERS:
            raise WeightsError(f"a stack of {len(layers)} layers is over the limit of {MAX_LAYERS}")
        for i, layer in enumerate(layers):
            if not isinstance(layer, Weights):
                raise WeightsError(f"stack layer {i + 1} is a {type(layer).__name__}, not a Weights")
        exact = {layer.exact for layer in layers}
        if len(exact) > 1:
            # the first layer of the other kind than layer 1 ("layer 1 is float but layer 1 is float" before)
            other = next(i for i, layer in enumerate(layers) if layer.exact != layers[0].exact)
            kind = {True: "exact", False: "float"}
            raise WeightsError(f"stack layer {other + 1} is {kind[layers[other].exact]} but layer 1 is "
                               f"{kind[layers[0].exact]}: all layers exact or all float")
        S = layers[0].n_symbols
        for i in range(1, len(layers)):
            C = layers[i - 1].n_classes
            if layers[i].n_symbols != S * C:
                raise WeightsError(
                    f"stack layer {i + 1} reads {layers[i].n_symbols} symbols, but must read S x C_{i} = "
                    f"{S} x {C} = {S * C} (input symbol, class of layer {i})")
        object.__setattr__(self, "layers", tuple(layers))

    def __setattr__(self, key, value):
        raise AttributeError(f"Stack is immutable (cannot set {key!r})")

    def __delattr__(self, key):
        raise AttributeError(f"Stack is immutable (cannot delete {key!r})")

    # --- facts ------------------------------------------------------------------------------
    @property
    def depth(self) -> int:
        """The number of layers L."""
        return len(self.layers)

    @property
    def n_symbols(self) -> int:
        """The input alphabet's size S (layer 1's symbols)."""
        return self.layers[0].n_symbols

    @property
    def n_classes(self) -> int:
        """The labels: the last layer's classes."""
        return self.layers[-1].n_classes

    @property
    def exact(self) -> bool:
        return self.layers[0].exact

    @property
    def dims(self) -> tuple[int, ...]:
        """Each layer's hidden size."""
        return tuple(layer.dim for layer in self.layers)

    @property
    def dim(self) -> int:
        """The total hidden size (the sum over layers)."""
        return sum(self.dims)

    @property
    def variants(self) -> tuple[str, ...]:
        return tuple(layer.variant for layer in self.layers)

    @property
    def variant(self) -> str:
        """The layers' common variant, or the variants joined by ``+`` when they differ."""
        names = self.variants
        return names[0] if len(set(names)) == 1 else "+".join(names)

    @property
    def commuting(self) -> bool:
        """True when every layer's variant has commuting transition matrices."""
        return all(layer.variant_info.commuting for layer in self.layers)

    def layer_symbol(self, l: int, s: int, c: int) -> int:
        """The symbol layer ``l`` (0-based, ``l >= 1``) reads for input ``s`` and class ``c``
        of layer ``l - 1``: ``s * C_{l-1} + c``."""
        return s * self.layers[l - 1].n_classes + c

    def __repr__(self) -> str:
        kind = "exact" if self.exact else "float"
        return (f"Stack({self.depth} layers, {kind}, variants={list(self.variants)}, dims={list(self.dims)}, "
                f"symbols={self.n_symbols}, classes={self.n_classes})")

    def __eq__(self, other) -> bool:
        if not isinstance(other, Stack):
            return NotImplemented
        return self.depth == other.depth and all(a == b for a, b in zip(self.layers, other.layers))

    __hash__ = None  # type: ignore[assignment]  # layers hold arrays: not hashable (the usual idiom)

    def to_float(self) -> "Stack":
        """The same stack with float64 entries."""
        return self if not self.exact else Stack(tuple(layer.to_float() for layer in self.layers))

    # --- file format ------------------------------------------------------------------------
    def to_json(self) -> dict:
        """The JSON object of the stack file format (with checksum)."""
        payload = {"format": STACK_FORMAT, "version": STACK_VERSION, "symbols": self.n_symbols,
                   "layers": [layer.to_json() for layer in self.layers]}
        payload["checksum"] = checksum(payload, WeightsError, "stack")
        return payload

    @classmethod
    def from_json(cls, data, source: str = "stack", allow_unsigned: bool = False) -> "Stack":
        """Rebuild from :meth:`to_json` output; every layer is checked as a weights object."""
        check_header(data, source, WeightsError, STACK_FORMAT, STACK_VERSION, _KEYS, _REQUIRED,
                     signed=not allow_unsigned,
                     unsigned_hint="a hand-written file needs allow_unsigned=True, or --unsigned")
        layers = data["layers"]
        if not isinstance(layers, list) or not layers:
            raise WeightsError(f"{source}: 'layers' must be a non-empty list of weights objects")
        if len(layers) > MAX_LAYERS:
            raise WeightsError(f"{source}: {len(layers)} layers is over the limit of {MAX_LAYERS}")
        built = tuple(Weights.from_json(layer, source=f"{source}: layer {i + 1}", allow_unsigned=allow_unsigned)
                      for i, layer in enumerate(layers))
        try:
            stack = cls(built)
        except WeightsError as exc:
            raise WeightsError(f"{source}: {exc}") from None
        symbols = data["symbols"]
        if isinstance(symbols, bool) or symbols != stack.n_symbols:
            raise WeightsError(f"{source}: 'symbols' is {symbols!r} but layer 1 reads {stack.n_symbols}")
        return stack

    def save(self, path) -> Path:
        """Write the JSON file atomically."""
        path = Path(path)
        text = json.dumps(self.to_json(), indent=1, allow_nan=False)
        path.parent.mkdir(parents=True, exist_ok=True)
        return atomic_write_text(path, text + "\n")

    @classmethod
    def load(cls, path, allow_unsigned: bool = False) -> "Stack":
        """Read a stack file; a one-layer weights file is read as a one-layer stack."""
        return as_stack(load_network(path, allow_unsigned))


def as_stack(network) -> Stack:
    """``network`` (a :class:`Weights` or a :class:`Stack`) as a Stack."""
    if isinstance(network, Stack):
        return network
    if isinstance(network, Weights):
        return Stack((network,))
    raise WeightsError(f"expected Weights or a Stack, got {type(network).__name__}")


def repeated(weights: Weights, layers: int) -> Stack:
    """The one-layer network ``weights`` as a stack of ``layers``: every layer is ``weights``, and
    layer ``l >= 2`` reads the symbol ``(s, c)`` as ``s`` (it ignores the class below).  Every layer
    then runs the same recurrence on the same symbols, so each holds layer 1's state and its class is
    the label ``weights`` gives; when ``weights`` computes an automaton (every label strict), so does
    the stack (docs/theory.md section 8: the repeated layer).  A factored variant's layer (with
    factors) is refused (WeightsError): its factors are not repeated here.

    >>> w = Weights("diagonal", A=[[[1]], [[-1]]], h0=[1], readout=[[1], [-1]])
    >>> s = repeated(w, 3)
    >>> s.depth, [x.n_symbols for x in s.layers]
    (3, [2, 4, 4])
    """
    layers = check_positive_int(layers, "layers", error=WeightsError, maximum=MAX_LAYERS)
    if weights.factors is not None:
        raise WeightsError(f"a {weights.variant} layer with factors is not repeated")
    C = weights.n_classes
    upper = Weights._trusted(weights.variant, np.repeat(weights.A, C, axis=0), weights.h0, weights.readout,
                             exact=weights.exact, conform=False)
    return Stack((weights, *([upper] * (layers - 1))))


def network_from_json(data, source: str = "weights", allow_unsigned: bool = False):
    """A :class:`Weights` (format ``bilinear.weights``) or a :class:`Stack` (``bilinear.stack``)."""
    if isinstance(data, dict) and data.get("format") == STACK_FORMAT:
        return Stack.from_json(data, source, allow_unsigned)
    return Weights.from_json(data, source, allow_unsigned)


def load_network(path, allow_unsigned: bool = False):
    """Read a weights file or a stack file (by its ``format``)."""
    from .fileformat import read_json

    if not isinstance(path, (str, os.PathLike)) or not str(path):
        raise WeightsError(f"a weights file path must be a non-empty string or path, got {path!r}")
    return network_from_json(read_json(path), str(Path(path)), allow_unsigned)

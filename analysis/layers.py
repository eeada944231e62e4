"""The layers of a stack, one at a time: each layer's spectra, on the states the cascade feeds it.

A stack (docs/theory.md section 8) has no single set of transition matrices, but each layer has
its own: layer 1 reads the input symbols, layer ``l >= 2`` the pairs (input symbol, class of layer
``l - 1``).  :func:`layer_spectra` runs the hard cascade on random words (seeded), takes each
layer's unit hidden states after a burn-in as its visited span
(:func:`~bilinear.constructions.values.span.span_of_states`: the states the layers below
actually lead it to, not a random run of the layer alone), and returns one frozen
:class:`LayerSpectrum` per layer: its variant, its own hidden size, its symbols (named ``A_r``
for layer 1, ``A_(r, class 1)`` above it), how often the cascade read each, and its
:class:`~bilinear.analysis.spectrum.Spectrum`.

>>> from bilinear.automata import from_spec
>>> from bilinear.constructions.handmade.cascade import cascade
>>> d3 = from_spec("dihedral:3")
>>> layers = layer_spectra(cascade(d3, "rotation2d"), d3)
>>> [(l.index, l.hidden, l.n_symbols) for l in layers]
[(1, 2, 2), (2, 4, 4)]
>>> for line in layers[0].lines(2) + layers[1].lines(2):
...     print(line)
layer 1 of 2: rotation2d, hidden 2, reads the 2 input symbols, 2 classes
layer 1: A_r acts as the identity (up to a positive scale)
layer 1: A_s acts as -I (negates every hidden state)
layer 2 of 2: rotation2d, hidden 4, reads 4 (input symbol, class of layer 1) pairs, 6 classes
layer 2: A_(r, class 0) acts as a rotation of order 3 on a 2-dimensional subspace, fixing a 2-dimensional subspace
layer 2: A_(r, class 1) acts as a rotation of order 3 on a 2-dimensional subspace, fixing a 2-dimensional subspace
layer 2: A_(s, class 0) acts as an involution negating a 2-dimensional subspace
layer 2: A_(s, class 1) acts as an involution negating a 2-dimensional subspace
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from bilinear.constructions.values.floatrun import float_steps
from bilinear.constructions.values.span import span_of_states

from .spectrum import Spectrum, spectrum

__all__ = ["LayerSpectrum", "layer_spectra", "LAYER_WORDS", "LAYER_BURN_IN", "LAYER_EXTRA"]

#: The random words the cascade runs to find each layer's visited states and symbol counts:
#: ``LAYER_WORDS`` words of length ``LAYER_BURN_IN + LAYER_EXTRA``, states kept from step
#: ``LAYER_BURN_IN`` on (the sampling of :func:`~bilinear.constructions.values.span.visited_span`).
LAYER_WORDS, LAYER_BURN_IN, LAYER_EXTRA = 256, 50, 16


@dataclass(frozen=True)
class LayerSpectrum:
    """One layer of a stack: ``index`` (1-based), ``variant``, its own ``hidden`` size, the
    symbols it reads and its classes, ``reads`` (how often the cascade fed each symbol on the
    sampled words, every step counted) and its ``spectrum``."""

    index: int
    variant: str
    hidden: int
    n_symbols: int
    n_classes: int
    exact: bool
    reads: tuple[int, ...]
    spectrum: Spectrum

    @property
    def unread(self) -> tuple[str, ...]:
        """The matrices the cascade never used on the sampled words (their verdicts say nothing
        about what the stack computes)."""
        return tuple(m.name for m, n in zip(self.spectrum.symbols, self.reads) if n == 0)

    def header(self, depth: int) -> str:
        """``layer 1 of 2: rotation2d, hidden 2, reads the 2 input symbols, 2 classes``."""
        what = (f"the {self.n_symbols} input symbols" if self.index == 1 else
                f"{self.n_symbols} (input symbol, class of layer {self.index - 1}) pairs")
        text = f"layer {self.index} of {depth}: {self.variant}, hidden {self.hidden}, reads {what}, {self.n_classes} classes"
        if self.unread:
            text += f"; {len(self.unread)} of its matrices never read on the sampled words"
        return text

    def lines(self, depth: int, most: int = 8) -> list[str]:
        """The header, then one verdict per matrix the cascade reads (at most ``most``; the rest
        counted)."""
        read = [m for m, n in zip(self.spectrum.symbols, self.reads) if n > 0]
        out = [self.header(depth)]
        out += [f"layer {self.index}: {m.name} {m.headline}" for m in read[:most]]
        if len(read) > most:
            out.append(f"layer {self.index}: ... {len(read) - most} more matrices (## Spectra, layer {self.index})")
        return out

    def to_json(self) -> dict:
        return {
            "layer": self.index,
            "variant": self.variant,
            "hidden": self.hidden,
            "symbols": self.n_symbols,
            "classes": self.n_classes,
            "exact": self.exact,
            "reads": list(self.reads),
            "unread": list(self.unread),
            "spectrum": self.spectrum.to_json(),
        }


def _names(stack, automaton, index: int) -> list[str]:
    """The names of layer ``index``'s (0-based) symbols: the input symbols, or (symbol, class of
    the layer below)."""
    symbols = [str(s) for s in automaton.symbols] if automaton is not None else [str(s) for s in range(stack.n_symbols)]
    if index == 0:
        return symbols
    # the classes of a layer below the last have no names: their indices
    return [f"({s}, class {c})" for s in symbols for c in range(stack.layers[index - 1].n_classes)]


def layer_spectra(stack, automaton=None, max_order: int = 12, word_length: int = 2, tol: float = 1e-6,
                  span_tol: float = 0.05, seed: int = 0) -> tuple[LayerSpectrum, ...]:
    """One :class:`LayerSpectrum` per layer of ``stack`` (see the module docstring).

    ``automaton`` names the input symbols; words of length
    ``2..word_length`` are analysed for layer 1 only (a layer above reads ``S x C`` symbols).
    ``seed`` seeds the sampled words.
    """
    rng = np.random.default_rng(seed)
    words = rng.integers(0, stack.n_symbols, size=(LAYER_WORDS, LAYER_BURN_IN + LAYER_EXTRA))
    inputs = words
    out = []
    for i, layer in enumerate(stack.layers):
        A, h0, R = layer.float_arrays()
        states, labels = [], np.empty(words.shape, dtype=np.int64)
        for t, H in enumerate(float_steps(A, h0, inputs)):
            labels[:, t] = np.argmax(H @ R.T, axis=1)
            if t + 1 >= LAYER_BURN_IN:
                states.append(H)
        reads = np.bincount(inputs.ravel(), minlength=layer.n_symbols)
        span = None if layer.exact else span_of_states(layer, np.concatenate(states, axis=0), LAYER_BURN_IN,
                                                       LAYER_WORDS, LAYER_EXTRA, seed)
        sp = spectrum(layer, automaton if i == 0 else None, max_order=max_order,
                      word_length=word_length if i == 0 else 1, tol=tol, span=span, span_tol=span_tol)
        if i > 0:
            names = _names(stack, automaton, i)
            sp = replace(sp, symbols=tuple(replace(m, name=f"A_{names[a]}") for a, m in enumerate(sp.symbols)),
                         blocks=tuple(replace(m, name=f"A_{names[m.word[0]]}{m.name[m.name.index('['):]}")
                                      for m in sp.blocks))
        out.append(LayerSpectrum(i + 1, layer.variant, layer.dim, layer.n_symbols, layer.n_classes, layer.exact,
                                 tuple(int(n) for n in reads), sp))
        inputs = words * layer.n_classes + labels
    return tuple(out)

"""Direct products: the direct sum of the factors' constructions.

For a product automaton (symbol (a_1, ..., a_k) acts as a_i on factor i; label (c_1, ..., c_k)),
take block-diagonal transitions ``A[(a_1..a_k)] = diag(A_1[a_1], ..., A_k[a_k])``, concatenated
start states, and readout rows ``[R_1[c_1]; ...; R_k[c_k]]``.  The score of (c_1..c_k) is the sum
of the factor scores, and the maximum of a separable sum is attained exactly at the tuple of
the factors' maxima (Theorem 3 of docs/theory.md, products by blocks), with margin at least the smallest factor
margin.  Dimension: the sum of the factors' dimensions; block structure (``block:B``,
``rotation2d``, ``diagonal``, ``positive``) is preserved.

>>> from bilinear.automata.families import from_spec
>>> from bilinear.constructions.handmade.rotation import cyclic_sign
>>> w = direct_sum([cyclic_sign(from_spec("parity"))] * 2, "diagonal")
>>> w.dim, w.readout.tolist()
(2, [[1, 1], [1, -1], [-1, 1], [-1, -1]])
"""

from __future__ import annotations

import itertools

import numpy as np

from bilinear.errors import ConstructionError

from ..values.weights import Weights

__all__ = ["direct_sum"]


def direct_sum(factors: list[Weights], variant: str) -> Weights:
    """Direct sum of factor weights for the product automaton (first factor most significant)."""
    if len(factors) < 2:
        raise ConstructionError("a direct sum needs at least two factors")
    exact = all(w.exact for w in factors)
    if not exact:
        factors = [w.to_float() for w in factors]
    dtype = object if exact else np.float64
    dims = [w.dim for w in factors]
    offsets = np.cumsum([0] + dims)
    d = int(offsets[-1])
    syms = list(itertools.product(*[range(w.n_symbols) for w in factors]))
    classes = list(itertools.product(*[range(w.n_classes) for w in factors]))
    A = np.zeros((len(syms), d, d), dtype=dtype)
    for s, tup in enumerate(syms):
        for i, (w, a) in enumerate(zip(factors, tup)):
            o, e = offsets[i], offsets[i + 1]
            A[s, o:e, o:e] = w.A[a]
    h0 = np.concatenate([w.h0 for w in factors]).astype(dtype)
    readout = np.zeros((len(classes), d), dtype=dtype)
    for c, tup in enumerate(classes):
        readout[c] = np.concatenate([w.readout[ci] for w, ci in zip(factors, tup)])
    return Weights(variant, A, h0, readout)

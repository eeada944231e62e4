"""S_n and A_n in the standard representation (``full``, d = n - 1).

S_n permutes the coordinates of R^n and fixes the sum-zero hyperplane V (dimension n-1).  In the
basis b_i = e_i - e_n (i < n) the permutation matrix of sigma acts by integer matrices
(P_sigma b_i = b_sigma(i) - b_sigma(n)), preserving the inner product with Gram matrix
G = I + J.  h0 = x - mean(x) with distinct coordinates x_i = 2i - (n - 1) has trivial stabiliser
(a permutation fixing a vector with distinct coordinates is the identity), so the orbit readout
``G P_sigma h0`` separates all n! (or n!/2) states with a strict margin (orbit-separation
theorem).  The representation is faithful for n >= 2, so d = n - 1 is enough for S_n and A_n
alike; entries are integers.

>>> from bilinear.automata.families import from_spec
>>> w = standard(from_spec("symmetric:3"))
>>> w.dim, w.h0.tolist()
(2, [-2, 0])
"""

from __future__ import annotations

import numpy as np

from bilinear.errors import ConstructionError

from .orbit import orbit_weights

__all__ = ["standard", "standard_matrix"]


def standard_matrix(perm) -> np.ndarray:
    """Matrix of the permutation ``perm`` (array form, i -> perm[i]) on V in the basis b_i."""
    n = len(perm)
    M = np.zeros((n - 1, n - 1), dtype=object)
    M[:] = 0
    last = perm[n - 1]
    for i in range(n - 1):
        # P b_i = e_perm(i) - e_perm(n-1); coordinates: e_j - e_n = b_j, e_n -> 0
        if perm[i] != n - 1:
            M[perm[i], i] += 1
        if last != n - 1:
            M[last, i] -= 1
    return M


def standard(automaton, generators=None):
    """The standard representation construction for a permutation-group automaton.

    ``generators`` (one permutation per symbol, array form) default to the symbols of a
    ``symmetric`` or ``alternating`` spec, whose names are the generators in cycle notation.
    """
    if generators is None:
        from bilinear.automata.families import parse_cycles

        spec = automaton.spec
        if spec is None or spec.family not in ("symmetric", "alternating"):
            raise ConstructionError(
                f"{automaton.name or 'automaton'}: the standard representation needs a symmetric or "
                "alternating spec, or the generators"
            )
        n = int(spec.param("N"))
        generators = [parse_cycles(symbol, n) for symbol in automaton.symbols]
    n = len(generators[0])
    if n < 2:
        raise ConstructionError(f"{automaton.name}: the standard representation needs n >= 2")
    A = np.stack([standard_matrix(g) for g in generators])
    h0 = np.array([2 * i - (n - 1) for i in range(n - 1)], dtype=object)
    G = np.eye(n - 1, dtype=int).astype(object) + 1
    return orbit_weights(automaton, "full", A, h0, gram=G)

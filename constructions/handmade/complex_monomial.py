"""Constructions for ``monomial,complex`` (PD-SSM with complex D, in real form): Theorem F11 of
docs/theory.md.

A ``monomial,complex`` network of hidden size ``d = 2m`` has ``m`` complex coordinates
``z_j = h[2j] + i h[2j+1]``; each symbol maps coordinate ``j`` to coordinate ``perm[s, j]``,
multiplied by a complex number ``D_j = a + i b`` (the real 2x2 block ``[[a, -b], [b, a]]``).  The
registry finds three kinds of weights for it:

* the rotation constructions (``rotation2d``: one block per coordinate, ``perm`` the identity)
  already conform, so Z_m is one complex coordinate (d = 2) and abelian groups are one per
  invariant factor; the quaternion group's right multiplication on H = C + C j (d = 4) conforms
  too;
``complex-dihedral`` (D_n, n >= 3, d = 4; also ``symmetric:3``, which is D_3)
    ``r -> diag(w, w^-1)`` with ``w = exp(2 pi i / n)`` and ``s -> `` the swap of the two
    coordinates: the two-dimensional monomial representation of D_n induced from a faithful
    character of the rotations.  Minimal: one complex coordinate makes every matrix a complex
    scalar, and scalars commute.
``complexified`` (every automaton, d = 2 x the registry's real ``monomial`` d; the builder is
:func:`bilinear.constructions.handmade.registry.complexified`, which asks the registry for the real weights)
    real monomial weights ``(A, h0, R)`` become ``(A (x) I_2, h0 (x) e_1, R (x) e_1^T)``: each real
    coordinate the real part of a complex one, each real entry ``x`` the complex entry ``x + 0i``.
    The hidden vector is ``h_t (x) e_1`` at every step, so the logits are the real network's.

>>> from bilinear.automata import from_spec
>>> w = complex_dihedral(from_spec("dihedral:5"))
>>> w.variant, w.dim, w.factors[0].tolist()[:2]
('monomial,complex', 4, [[0, 1], [1, 0]])
"""

from __future__ import annotations

import numpy as np

from bilinear.errors import ConstructionError

from ..exact.field import cos2pi, sin2pi
from .orbit import orbit_weights
from ..values.weights import Weights

__all__ = ["complexify", "complex_dihedral", "COMPLEX_VARIANT"]

#: Largest n for which complex-dihedral recognises D_n from the algebra of an automaton whose
#: spec is not ``dihedral`` (its 2n states are searched for a presentation).
MAX_N = 64

#: The variant every construction here builds.
COMPLEX_VARIANT = "monomial,complex"


def complexify(w: Weights) -> Weights:
    """Real ``monomial`` weights (exact) as ``monomial,complex`` weights of twice the hidden size:
    ``A (x) I_2``, ``h0 (x) e_1``, ``readout (x) e_1^T``.  ConstructionError when ``w`` is not
    real monomial (a column with two non-zero entries would give a block column with two blocks).

    >>> from bilinear.constructions import build
    >>> complexify(build("reset:3", "monomial")).dim
    6
    """
    if not w.exact:
        raise ConstructionError("complexify takes exact weights")
    A, h0, R = w.A, w.h0, w.readout
    S, d, _ = A.shape
    for s in range(S):
        for j in range(d):
            rows = [i for i in range(d) if A[s, i, j] != 0]
            if len(rows) > 1:
                raise ConstructionError(f"complexify: column {j} of A[{s}] has non-zero entries in rows {rows[0]} "
                                        f"and {rows[1]}; only real monomial weights embed as complex monomial ones")
    A2 = np.zeros((S, 2 * d, 2 * d), dtype=object)
    A2[...] = 0
    A2[:, 0::2, 0::2] = A
    A2[:, 1::2, 1::2] = A
    h2 = np.zeros(2 * d, dtype=object)
    h2[...] = 0
    h2[0::2] = h0
    R2 = np.zeros((R.shape[0], 2 * d), dtype=object)
    R2[...] = 0
    R2[:, 0::2] = R
    return Weights(COMPLEX_VARIANT, A2, h2, R2)


def complex_dihedral(automaton) -> Weights:
    """D_n (n >= 3) in two complex coordinates (d = 4): ``r^i s^j`` acts as ``S^j R^-i`` with
    ``R = diag(w, w^-1)``, ``w = exp(2 pi i / n)`` (blocks: the rotations by 2 pi / n and
    -2 pi / n) and ``S`` the swap of the coordinates; h0 = (1, 0, 2, 0) (the complex vector
    (1, 2), whose 2n images differ: the swap moves the 2 to the first coordinate).  Orthogonal
    matrices, so Theorem 2's readout needs no Gram matrix."""
    from bilinear.automata.groups import RegularGroup, dihedral_presentation

    from .dihedral import dihedral_exponents

    try:
        n, exponents = dihedral_exponents(automaton)
    except ConstructionError:  # symmetric:3 is D_3: recognised from its algebra
        if automaton.n_states > 2 * MAX_N:
            raise ConstructionError(f"{automaton.name}: complex-dihedral searches a dihedral presentation only up to "
                                    f"2 x {MAX_N} states (D_{MAX_N}), and this automaton has {automaton.n_states}") from None
        found = dihedral_presentation(RegularGroup.of(automaton))
        if found is None:
            raise
        n, exponents = found
    if n < 3:
        raise ConstructionError(f"{automaton.name}: complex-dihedral needs n >= 3 (D_1, D_2 are abelian: "
                                "the rotation constructions cover them)")

    def rot(k: int) -> np.ndarray:
        c, s = cos2pi(k % n, n), sin2pi(k % n, n)
        return np.array([[c, -s], [s, c]], dtype=object)

    zero = np.zeros((2, 2), dtype=object)
    zero[...] = 0
    eye = np.array([[1, 0], [0, 1]], dtype=object)
    S = np.block([[zero, eye], [eye, zero]])
    A = np.empty((len(exponents), 4, 4), dtype=object)
    for a, (i, j) in enumerate(exponents):
        M = np.block([[rot(-i), zero], [zero, rot(i)]])
        A[a] = S.dot(M) if j else M  # R^-i = diag(w^-i, w^i)
    return orbit_weights(automaton, COMPLEX_VARIANT, A, np.array([1, 0, 2, 0], dtype=object))

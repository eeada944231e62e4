"""Cyclic groups: one exact rotation (``rotation2d``, d = 2) and parity as a sign (``diagonal``).

Z_m (symbols 0..m-1, label = sum mod m): symbol a rotates the plane by 2 pi a / m, h0 = (1, 0),
and the readout row of class c is the orbit point (cos 2 pi c/m, sin 2 pi c/m).  The score of
class c at state k is cos(2 pi (k - c) / m), maximal exactly at c = k with margin
1 - cos(2 pi / m) (Theorem 2 of docs/theory.md, orbit separation).  Entries are exact: cos and sin of 2 pi / m lie in
the cyclotomic field Q(zeta_lcm(4, m)).

Parity / Z_2 as ``diagonal`` (d = 1): A[0] = 1, A[1] = -1, readout (1, -1): the sign of h is
the parity (Theorem 2 with the orbit {1, -1}; by Theorem 7 no real diagonal computes Z_m, m >= 3).

>>> from bilinear.automata.families import from_spec
>>> w = cyclic_rotation(from_spec("cyclic:4"))
>>> w.A[1].tolist()
[[0, -1], [1, 0]]
>>> cyclic_sign(from_spec("parity")).A.tolist()
[[[1]], [[-1]]]
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from bilinear.errors import ConstructionError

from ..exact.field import cos2pi, sin2pi
from .orbit import orbit_weights
from ..proof.search import build_tick

__all__ = ["cyclic_rotation", "cyclic_sign", "cyclic_modulus", "cyclic_exponents", "crt_rotation"]


def cyclic_modulus(automaton) -> int:
    """m for the Z_m word automaton (symbol a adds a), checked against the table."""
    m = automaton.n_states
    expected = (np.arange(automaton.n_symbols)[:, None] + np.arange(m)[None, :]) % m
    if automaton.n_symbols != m or not np.array_equal(automaton.delta, expected) or automaton.start != 0:
        raise ConstructionError(f"{automaton.name}: not the Z_m automaton (symbol a adds a mod m)")
    return m


def cyclic_exponents(automaton) -> tuple[int, tuple[int, ...]]:
    """``(m, k)``: the automaton is Z_m and symbol ``a`` adds ``k[a]``.

    A ``parity`` or ``cyclic`` spec gives ``k[a] = a``; an automaton without a spec is recognised
    from its algebra (a cyclic group acting regularly on the states, see
    :mod:`bilinear.automata.groups`).

    >>> from bilinear.automata import Automaton
    >>> cyclic_exponents(Automaton([[1, 2, 0], [2, 0, 1]], symbols=("x", "y")))
    (3, (1, 2))
    """
    spec = automaton.spec
    if spec is not None and spec.family in ("parity", "cyclic"):
        m = cyclic_modulus(automaton)
        return m, tuple(range(m))
    if spec is None:
        from bilinear.automata.groups import RegularGroup, cyclic_presentation

        found = cyclic_presentation(RegularGroup.of(automaton))
        if found is not None:
            return found
    raise ConstructionError(f"{automaton.name or 'automaton'}: not a cyclic group acting on its states")


def cyclic_rotation(automaton):
    """Z_m with rotations by 2 pi k / m (``rotation2d``, d = 2; Z_1 and Z_2 included)."""
    m, exponents = cyclic_exponents(automaton)
    A = np.empty((len(exponents), 2, 2), dtype=object)
    for a, k in enumerate(exponents):
        build_tick(a, len(exponents), "rotation matrices")  # time budget and progress of settle()
        c, s = cos2pi(k, m), sin2pi(k, m)
        A[a] = [[c, -s], [s, c]]
    return orbit_weights(automaton, "rotation2d", A, [1, 0])


def cyclic_sign(automaton):
    """Z_2 (parity) as a sign flip (``diagonal``, d = 1); Z_1 as the identity."""
    m, exponents = cyclic_exponents(automaton)
    if m > 2:
        raise ConstructionError(f"{automaton.name}: a real diagonal only represents Z_1 and Z_2, not Z_{m}")
    A = np.array([[[(-1) ** k]] for k in exponents], dtype=object)
    return orbit_weights(automaton, "diagonal", A, [1])


def _product_moduli(automaton) -> list[int]:
    """The moduli of a product of cyclic families, read from the automaton's spec."""
    spec = automaton.spec
    if spec is None or not spec.is_product:
        raise ConstructionError(f"{automaton.name or 'automaton'}: not a product of cyclic groups")
    moduli = []
    for factor in spec.factors:
        if factor.family == "parity":
            moduli.append(2)
        elif factor.family == "cyclic":
            moduli.append(int(factor.param("M")))
        else:
            raise ConstructionError(f"{automaton.name}: factor {factor.text!r} is not cyclic")
    return moduli


def crt_rotation(automaton):
    """Z_m1 x ... x Z_mk with pairwise coprime moduli as ONE rotation (``rotation2d``, d = 2).

    By the Chinese remainder theorem Z_m1 x ... x Z_mk is cyclic of order M = m1 ... mk, via
    (c_1, ..., c_k) -> sum_i c_i e_i mod M with e_i = 1 mod m_i, 0 mod m_j (j != i).  Symbol
    (a_1, ..., a_k) rotates by 2 pi (sum_i a_i e_i) / M; the orbit of h0 = (1, 0) has M distinct
    points, so the orbit readout separates the states (Theorem 2 of docs/theory.md, orbit separation).

    >>> from bilinear.automata.families import from_spec
    >>> crt_rotation(from_spec("cyclic:2*cyclic:3")).dim
    2
    """
    moduli = _product_moduli(automaton)
    if len(moduli) < 2:
        raise ConstructionError(f"{automaton.name}: not a product")
    M = math.prod(moduli)
    for i, a in enumerate(moduli):
        for b in moduli[i + 1:]:
            if math.gcd(a, b) != 1:
                raise ConstructionError(f"{automaton.name}: moduli {a} and {b} are not coprime")
    idempotents = []
    for m in moduli:
        rest = M // m
        idempotents.append(rest * pow(rest, -1, m) % M if m > 1 else 0)
    A = np.empty((automaton.n_symbols, 2, 2), dtype=object)
    for s, tup in enumerate(itertools.product(*[range(m) for m in moduli])):
        k = sum(a * e for a, e in zip(tup, idempotents)) % M
        c, si = cos2pi(k, M), sin2pi(k, M)
        A[s] = [[c, -si], [si, c]]
    return orbit_weights(automaton, "rotation2d", A, [1, 0])

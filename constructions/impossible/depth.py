"""The minimum depth of a stack of commuting layers (Theorems 6, S2 and S3 of docs/theory.md).

:func:`min_layers` answers, for an automaton and a commuting variant, with a :class:`DepthBound`:

* ``min_layers`` -- the derived length ``k`` of the group of the minimal automaton, when a cascade
  of ``k`` layers of the variant is built and *proved* exactly (Theorem S2), and every smaller
  depth is excluded: one layer by Theorem 6 (commutation; no hypothesis), more layers by Theorem
  S3 (for stacks whose layers' matrices are invertible and whose reachable set of direction tuples
  is finite).  ``unconditional`` is True when ``k <= 2`` (only one layer had to be excluded);
* None, with the reason, for automata outside the theory: a group too large to tabulate, a
  variant that cannot carry the factors (``diagonal`` and a factor of order 3), a non-solvable
  group (Theorem S3: no depth at all, under its hypotheses), or symbols that are not all
  permutations.  For the last, :func:`aperiodic_witness` looks for two idempotents ``e, f`` of
  the minimal automaton's transformation monoid with ``(ef)^w e != (ef)^w``: then Theorem S4 says
  no stack of commuting layers computes it at any depth (finitely many reachable direction tuples,
  exact arithmetic; singular matrices allowed) -- every automaton with two different reset words
  (flip-flops, resets, ``modarith``, ``gridworld``) has such a pair.

``diagonal`` layers carry only factors of exponent 2 (Theorem S6): for a 2-group whose derived
series has a larger factor (``cyclic:4``, ``cyclic:8``) the depth is the length ``f`` of its Frattini
series instead, the cascade built along it and proved; one layer is excluded by Theorem 7 (no
hypothesis), ``2 <= L < f`` by Theorem S6 (under Theorem S3's hypotheses).

>>> b = min_layers("cyclic:4", "diagonal")
>>> b.min_layers, b.unconditional, b.theorem, b.excludes(1)
(2, True, 'Theorem 7 and Theorem S2', 'impossible')
>>> b = min_layers("cyclic:8", "diagonal")
>>> b.min_layers, b.unconditional, b.excludes(2), b.excludes(3)
(3, False, 'open', None)

>>> b = min_layers("dihedral:5", "rotation2d")
>>> b.min_layers, b.unconditional, b.theorem
(2, True, 'Theorem 6 and Theorem S2')
>>> b = min_layers("symmetric:4", "rotation2d")
>>> b.min_layers, b.unconditional
(3, False)
>>> min_layers("alternating:5", "rotation2d").min_layers is None
True
>>> b = min_layers("flipflop:2", "positive")
>>> b.min_layers, b.theorem, b.excludes(2)
(None, 'Theorem S4', 'open')
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bilinear.errors import BilinearError, ConstructionError

from ..values.memo import minimal
from ..values.weights import parse_variant

__all__ = ["DepthBound", "min_layers", "S3_HYPOTHESES", "S4_HYPOTHESES", "aperiodic_witness", "IDENTITY_WORK_LIMIT"]

#: The hypotheses of Theorem S3, in one sentence.
S3_HYPOTHESES = ("every layer's matrices commute and are invertible, exact real arithmetic, and the stack "
                 "reaches finitely many direction tuples")

#: The hypotheses of Theorem S4, in one sentence.
S4_HYPOTHESES = ("every layer's matrices commute (singular ones allowed), exact real arithmetic, and the stack "
                 "reaches finitely many direction tuples")
#: Most (idempotent pairs x states^2) the search of :func:`aperiodic_witness` may take on.
IDENTITY_WORK_LIMIT = 2 * 10**8


@dataclass(frozen=True)
class DepthBound:
    """What is known about the depth (see the module docstring).

    ``derived_length`` is that of the minimal automaton's group (None: not solvable, or not a
    group); ``min_layers`` the proved minimum depth (or None); ``theorem`` and ``reason`` the
    argument; ``unconditional`` whether the exclusion of smaller depths needs Theorem S3's
    hypotheses (False) or only Theorem 6 (True).
    """

    min_layers: int | None
    derived_length: int | None
    theorem: str | None
    reason: str
    unconditional: bool = False
    witness: str | None = None  # Theorem S4: the two words whose idempotents break its identity
    frattini_length: int | None = None  # diagonal layers of a 2-group: the depth Theorem S6 allows

    def excludes(self, layers: int) -> str | None:
        """``"impossible"`` when Theorem 6 (or, for ``diagonal`` layers, Theorem 7) excludes
        ``layers`` (one layer) for every weights, ``"open"`` when only Theorem S3 or S6 (under its
        hypotheses) does, None when nothing does."""
        if self.derived_length is None and self.theorem is None:
            return None
        k = self.derived_length if self.frattini_length is None else self.frattini_length
        if k is not None and layers >= k:
            return None
        if layers == 1 and (k is None or k >= 2):
            return "impossible"
        return "open"

    def to_json(self) -> dict:
        return {"min_layers": self.min_layers, "derived_length": self.derived_length,
                "min_layers_theorem": self.theorem, "min_layers_reason": self.reason,
                "min_layers_unconditional": self.unconditional if self.min_layers is not None else None}


def min_layers(automaton, variant: str, bound: int | None = None, *, one_layer_proved: bool = False) -> DepthBound:
    """The minimum depth of a stack of ``variant`` layers (a commuting variant) computing
    ``automaton`` (a spec or an Automaton); see the module docstring.  The cascade at the
    derived length is built and proved here (``bound`` the prover's bound), except that with
    ``one_layer_proved`` (the caller proved one layer of ``variant`` computing the automaton, as
    :func:`~bilinear.constructions.settle.settle` does for a cell) an abelian group's depth 1
    is read off that proof instead of a second one.

    >>> min_layers("cyclic:200", "rotation2d", one_layer_proved=True).reason
    'the group is abelian: one layer, proved'
    """
    from bilinear.automata import Automaton, from_spec

    from ..handmade.cascade import cascade, derived_length
    from ..proof.stackprover import prove_stack

    a = automaton if isinstance(automaton, Automaton) else from_spec(automaton)
    v = parse_variant(variant)
    if not v.commuting:
        return DepthBound(None, None, None, f"{v.spec!r} is not a commuting variant: no depth theorem "
                                            "applies to it")
    m = minimal(a)
    try:
        k = derived_length(m)
    except ConstructionError as exc:
        return _aperiodic_bound(m, exc)
    if k is None:
        return DepthBound(None, None, "Theorem S3",
                          f"the group of the minimal automaton is not solvable: no stack of commuting layers "
                          f"computes it at any depth when {S3_HYPOTHESES} (Theorem S3); beyond those "
                          f"hypotheses the question is open")
    k = max(k, 1)
    if k == 1 and one_layer_proved:
        return DepthBound(1, 1, "Theorem S2", "the group is abelian: one layer, proved", True)
    if v.spectral == "real":  # diagonal layers carry only factors of exponent 2
        found = _diagonal_bound(m, v.spec, k, bound)
        if found is not None:
            return found
    try:
        stack = cascade(m, v.spec, k)
    except ConstructionError as exc:
        return DepthBound(None, k, None, f"derived length {k}, but no cascade of {v.spec!r} layers: {exc}")
    from ..proof.prover import DEFAULT_BOUND

    result = prove_stack(stack, m, DEFAULT_BOUND if bound is None else bound)
    if result.status != "proved":  # pragma: no cover - Theorem S2 says the cascade is right
        return DepthBound(None, k, None, f"the cascade of {k} layers was not proved ({result.status})")
    if k == 1:
        return DepthBound(1, 1, "Theorem S2", "the group is abelian: one layer, proved", True)
    if k == 2:
        return DepthBound(2, 2, "Theorem 6 and Theorem S2",
                          f"a cascade of 2 {v.spec} layers is proved, and one commuting layer computes no "
                          f"non-abelian group (Theorem 6, no hypothesis)", True)
    return DepthBound(k, k, "Theorem S2 and Theorem S3",
                      f"a cascade of {k} {v.spec} layers is proved (derived length {k}); fewer layers are "
                      f"excluded when {S3_HYPOTHESES} (Theorem S3), open otherwise", False)


def _diagonal_bound(m, spec: str, k: int, bound: int | None) -> DepthBound | None:
    """The depth of ``diagonal`` layers for a 2-group whose Frattini series is longer than its
    derived series (Theorem S6), its cascade proved; None where the derived series serves."""
    from ..handmade.cascade import cascade, frattini_length
    from ..proof.prover import DEFAULT_BOUND
    from ..proof.stackprover import prove_stack

    f = frattini_length(m)
    if f is None or f <= k:
        return None
    result = prove_stack(cascade(m, spec, f), m, DEFAULT_BOUND if bound is None else bound)
    if result.status != "proved":  # pragma: no cover - Theorem S2 says the cascade is right
        return DepthBound(None, k, None, f"the cascade of {f} layers was not proved ({result.status})")
    if f == 2:
        return DepthBound(2, k, "Theorem 7 and Theorem S2",
                          f"a cascade of 2 {spec} layers along the Frattini series is proved, and one diagonal "
                          "layer computes only groups of exponent 2 (Theorem 7, no hypothesis)", True,
                          frattini_length=f)
    return DepthBound(f, k, "Theorem S2 and Theorem S6",
                      f"a cascade of {f} {spec} layers along the Frattini series is proved (its length {f}); "
                      f"fewer diagonal layers are excluded when {S3_HYPOTHESES} (Theorem S6), open otherwise",
                      False, frattini_length=f)


def _omega(z: np.ndarray) -> np.ndarray:
    """The idempotent power ``z^w`` of every transformation (row) of ``z`` (rows, states), ``x -> z[x]``:
    a point ``q`` goes to ``z^m(q)``, ``m`` the least multiple of its eventual cycle's length that
    is at least the number of states (every point is on its cycle after that many steps, and every
    multiple of the cycle length fixes the cycle's points)."""
    rows, n = z.shape
    powers = np.empty((2 * n + 1, rows, n), dtype=np.int64)
    powers[0] = np.arange(n)
    for k in range(1, 2 * n + 1):
        powers[k] = np.take_along_axis(z, powers[k - 1], axis=1)  # z^k = z^(k-1) then z
    on_cycle = powers[n]
    length = np.zeros((rows, n), dtype=np.int64)
    for j in range(n, 0, -1):  # the least j >= 1 with z^(n+j)(q) = z^n(q)
        length[powers[n + j] == on_cycle] = j
    m = length * -(-n // length)  # ceil(n / length) * length, in [n, 2n)
    return np.take_along_axis(powers, m[None], axis=0)[0]


def aperiodic_witness(automaton, limit: int = IDENTITY_WORK_LIMIT):
    """Two words ``(x, y)`` of ``automaton`` (make it minimal first) whose actions ``X, Y`` on its
    states are idempotents with ``(XY)^w X != (XY)^w`` (composition left to right: ``XY`` is
    ``X`` then ``Y``), or None when every pair of idempotents satisfies the identity, or the
    string ``"too large"`` when the search would pass ``limit`` (idempotent pairs x states^2).
    By Theorem S4 (docs/theory.md) a witness excludes every stack of commuting layers with
    finitely many reachable direction tuples.

    >>> from bilinear.automata import from_spec
    >>> a = from_spec("flipflop:2")
    >>> [a.format_word(w) for w in aperiodic_witness(a)]   # write 0, write 1: two resets
    ['w0', 'w1']
    >>> aperiodic_witness(from_spec("dihedral:5")) is None   # groups: x^w = 1
    True
    """
    from bilinear.automata.monoid import transformation_monoid

    try:
        monoid = transformation_monoid(automaton)
    except BilinearError:
        return "too large"
    idem = np.asarray(monoid.idempotents, dtype=np.int64)
    E = np.asarray(monoid.elements, dtype=np.int64)[idem]  # (idempotents, states)
    n = E.shape[1]
    if len(idem) ** 2 * n * n > limit:
        return "too large"
    for i in range(len(idem)):
        e = E[i]
        z = np.take_along_axis(E, np.broadcast_to(e, E.shape), axis=1)  # e then f, for every f
        w = _omega(z)
        we = e[w]  # (ef)^w then e
        bad = np.flatnonzero((we != w).any(axis=1))
        if bad.size:
            return monoid.word(int(idem[i])), monoid.word(int(idem[bad[0]]))
    return None


def _aperiodic_bound(m, exc: Exception) -> DepthBound:
    """The depth verdict for a minimal automaton whose symbols are not all permutations."""
    found = aperiodic_witness(m, IDENTITY_WORK_LIMIT)
    if found == "too large":
        return DepthBound(None, None, None, f"no depth theory for this automaton: {exc}; the identity of "
                                            "Theorem S4 was not checked (monoid too large)")
    if found is None:
        return DepthBound(None, None, None, f"no depth theory for this automaton: {exc}; every pair of "
                                            "idempotents satisfies the identity of Theorem S4, and no cascade "
                                            "construction for monoids that are not groups is built")
    x, y = found
    witness = (f"the words x = {m.format_word(x)} and y = {m.format_word(y)} act as idempotents X, Y with "
               "(XY)^w X != (XY)^w on the minimal automaton")
    return DepthBound(None, None, "Theorem S4",
                      f"{witness}: no stack of commuting layers computes it at any depth when "
                      f"{S4_HYPOTHESES} (Theorem S4); beyond those hypotheses the question is open", witness=witness)

"""The minimum depth of a stack of commuting layers (Theorems 6, S2 and S3 of docs/theory.md).

:func:`min_layers` answers, for an automaton and a commuting variant, with a :class:`DepthBound`:

* ``min_layers`` -- the derived length ``k`` of the group of the minimal automaton, when a cascade
  of ``k`` layers of the variant is built and *proved* exactly (Theorem S2), and every smaller
  depth is excluded: one layer by Theorem 6 (commutation; no hypothesis), more layers by Theorem
  S3 (for stacks whose layers' matrices are invertible and whose reachable set of direction tuples
  is finite).  ``unconditional`` is True when ``k <= 2`` (only one layer had to be excluded);
* None, with the reason, for automata outside the theory: a symbol that is not a permutation,
  a group too large to tabulate, a variant that cannot carry the factors (``diagonal`` and a
  factor of order 3), or a non-solvable group (Theorem S3: no depth at all, under its hypotheses).

:func:`depth_status` says what Theorem S3 gives for one depth ``L``.

>>> b = min_layers("dihedral:5", "rotation2d")
>>> b.min_layers, b.unconditional, b.theorem
(2, True, 'Theorem 6 and Theorem S2')
>>> b = min_layers("symmetric:4", "rotation2d")
>>> b.min_layers, b.unconditional
(3, False)
>>> min_layers("alternating:5", "rotation2d").min_layers is None
True
"""

from __future__ import annotations

from dataclasses import dataclass

from bilinear.errors import ConstructionError

from .memo import minimal
from .weights import parse_variant

__all__ = ["DepthBound", "min_layers", "S3_HYPOTHESES"]

#: The hypotheses of Theorem S3, in one sentence.
S3_HYPOTHESES = ("every layer's matrices commute and are invertible, exact real arithmetic, and the stack "
                 "reaches finitely many direction tuples")


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

    def excludes(self, layers: int) -> str | None:
        """``"impossible"`` when Theorem 6 excludes ``layers`` (one layer) for every weights,
        ``"open"`` when only Theorem S3 (under its hypotheses) does, None when nothing does."""
        if self.derived_length is None and self.theorem is None:
            return None
        k = self.derived_length
        if k is not None and layers >= k:
            return None
        if layers == 1 and (k is None or k >= 2):
            return "impossible"
        return "open"

    def to_json(self) -> dict:
        return {"min_layers": self.min_layers, "derived_length": self.derived_length,
                "min_layers_theorem": self.theorem, "min_layers_reason": self.reason,
                "min_layers_unconditional": self.unconditional if self.min_layers is not None else None}


def min_layers(automaton, variant: str, bound: int | None = None) -> DepthBound:
    """The minimum depth of a stack of ``variant`` layers (a commuting variant) computing
    ``automaton`` (a spec or an Automaton); see the module docstring.  The cascade at the
    derived length is built and proved here (``bound`` the prover's bound)."""
    from bilinear.automata import Automaton, from_spec

    from .cascade import cascade, derived_length
    from .stackprover import prove_stack

    a = automaton if isinstance(automaton, Automaton) else from_spec(automaton)
    v = parse_variant(variant)
    if not v.commuting:
        return DepthBound(None, None, None, f"{v.spec!r} is not a commuting variant: no depth theorem "
                                            "applies to it")
    m = minimal(a)
    try:
        k = derived_length(m)
    except ConstructionError as exc:
        return DepthBound(None, None, None, f"no depth theory for this automaton: {exc}")
    if k is None:
        return DepthBound(None, None, "Theorem S3",
                          f"the group of the minimal automaton is not solvable: no stack of commuting layers "
                          f"computes it at any depth when {S3_HYPOTHESES} (Theorem S3); beyond those "
                          f"hypotheses the question is open")
    k = max(k, 1)
    try:
        stack = cascade(m, v.spec, k)
    except ConstructionError as exc:
        return DepthBound(None, k, None, f"derived length {k}, but no cascade of {v.spec!r} layers: {exc}")
    from .prover import DEFAULT_BOUND

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

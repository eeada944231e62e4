"""bilinear.constructions: weights, exact arithmetic, constructions, proofs and float checks.

``prove`` and ``check`` are both modules and functions; the package exports the functions
(``bilinear.constructions.prove`` is the function, ``bilinear.constructions.prove.prove`` too
via the module once imported by its full name).

>>> from bilinear.constructions import build, prove
>>> from bilinear.automata.families import from_spec
>>> prove(build("cyclic:5", "rotation2d"), from_spec("cyclic:5")).status
'proved'
"""

from __future__ import annotations

from .field import CyclotomicField, FieldElement
from .weights import Variant, Weights, parse_variant
from .registry import CONSTRUCTIONS, build
from .prove import Counterexample, Proof, Unproved
from .prove import prove as _prove_fn
from .check import CheckResult
from .check import check as _check_fn

prove = _prove_fn
check = _check_fn

__all__ = [
    "CONSTRUCTIONS",
    "CheckResult",
    "Counterexample",
    "CyclotomicField",
    "FieldElement",
    "Proof",
    "Unproved",
    "Variant",
    "Weights",
    "build",
    "check",
    "parse_variant",
    "prove",
]

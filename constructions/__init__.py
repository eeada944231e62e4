"""bilinear.constructions: weights, exact arithmetic, constructions, proofs and float checks.

The package exports the functions ``prove`` and ``check``; their modules are
:mod:`bilinear.constructions.proof.prover` and :mod:`bilinear.constructions.horizon.floatcheck` (named apart,
so ``import bilinear.constructions.proof.prover as m`` gives the module, never the function).

>>> from bilinear.constructions import build, prove
>>> from bilinear.automata.families import from_spec
>>> prove(build("cyclic:5", "rotation2d"), from_spec("cyclic:5")).status
'proved'
"""

from __future__ import annotations

from .exact.field import CyclotomicField, FieldElement
from .values.weights import Variant, Weights, parse_variant
from .values.external import ExternalConfig, external_config, read_external_config
from .handmade.registry import CONSTRUCTIONS, build
from .proof.prover import Counterexample, Proof, Unproved, prove
from .horizon.floatcheck import CheckResult, check

__all__ = [
    "CONSTRUCTIONS",
    "CheckResult",
    "Counterexample",
    "ExternalConfig",
    "CyclotomicField",
    "FieldElement",
    "Proof",
    "Unproved",
    "Variant",
    "Weights",
    "build",
    "check",
    "external_config",
    "parse_variant",
    "prove",
    "read_external_config",
]

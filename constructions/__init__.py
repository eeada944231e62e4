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
from .values.stack import Stack, load_network
from .values.tracker import as_tracker
from .values.span import visited_span
from .values.external import ExternalConfig, external_config, read_external_config
from .handmade.registry import CONSTRUCTIONS, build
from .handmade.cascade import cascade
from .proof.prover import Counterexample, Proof, Unproved, prove
from .proof.stackprover import prove_stack
from .impossible.certificates import certify
from .impossible.bounds import lower_bound
from .impossible.depth import min_layers
from .horizon.floatcheck import CheckResult, check
from .horizon.snap import drift, drift_layers
from .horizon.testing import assert_tracks, assert_tracks_word, tracks
from .signing import sign_file

# Not exported here: ``settle`` and ``horizon`` share their names with modules
# (``bilinear.constructions.settle``, ``bilinear.constructions.horizon``); import them from there.
__all__ = [
    "CONSTRUCTIONS",
    "CheckResult",
    "Counterexample",
    "ExternalConfig",
    "CyclotomicField",
    "FieldElement",
    "Proof",
    "Stack",
    "Unproved",
    "Variant",
    "Weights",
    "as_tracker",
    "assert_tracks",
    "assert_tracks_word",
    "build",
    "cascade",
    "certify",
    "check",
    "drift",
    "drift_layers",
    "external_config",
    "load_network",
    "lower_bound",
    "min_layers",
    "parse_variant",
    "prove",
    "prove_stack",
    "read_external_config",
    "sign_file",
    "tracks",
    "visited_span",
]

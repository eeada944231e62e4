"""bilinear.constructions: weights, exact arithmetic, constructions, proofs and float checks.

The public names are loaded lazily (``bilinear.constructions.build`` imports the registry on
first use), so importing one module, e.g. :mod:`bilinear.constructions.weights`, stays cheap.

>>> from bilinear.constructions import build, prove
>>> from bilinear.automata.families import from_spec
>>> prove(build("cyclic:5", "rotation2d"), from_spec("cyclic:5")).status
'proved'
"""

from __future__ import annotations

import importlib

_EXPORTS = {
    "Weights": "weights",
    "Variant": "weights",
    "parse_variant": "weights",
    "CyclotomicField": "field",
    "FieldElement": "field",
    "build": "registry",
    "CONSTRUCTIONS": "registry",
    "prove": "prove",
    "Proof": "prove",
    "Counterexample": "prove",
    "Unproved": "prove",
    "check": "check",
    "CheckResult": "check",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'bilinear.constructions' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))

"""The package's functions do not hide their modules (import by full name gives the module)."""

import importlib
import types

import pytest


@pytest.mark.parametrize("module, function", [
    ("bilinear.constructions.proof.prover", "prove"),
    ("bilinear.constructions.horizon.floatcheck", "check"),
])
def test_module_import_gives_the_module_and_the_package_the_function(module, function):
    import bilinear.constructions as pkg

    m = importlib.import_module(module)
    assert isinstance(m, types.ModuleType)
    assert getattr(pkg, function) is getattr(m, function) and callable(getattr(pkg, function))
    exec(f"import {module} as alias", globals())
    assert isinstance(globals()["alias"], types.ModuleType)

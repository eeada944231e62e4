"""Run the ``>>>`` examples of every module of the installed package as doctests.

Walking the *installed* package (not the folders) keeps each module imported once under its real
name, ``bilinear.automata.automaton`` and so on, whatever the folder layout.
"""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import bilinear

ROOMS = ["bilinear", "bilinear.automata", "bilinear.constructions", "bilinear.learned", "bilinear.analysis"]


def _modules() -> list[str]:
    names = []
    for room in ROOMS:
        package = importlib.import_module(room)
        names.append(room)
        # walk_packages recurses: the sub-packages of a room (constructions/exact/, ...) are walked too
        for info in pkgutil.walk_packages(package.__path__, prefix=room + "."):
            if info.name in ROOMS:
                continue
            names.append(info.name)
    return sorted(set(names))


@pytest.mark.parametrize("name", _modules())
def test_module_doctests(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE, verbose=False)
    assert result.failed == 0, f"{result.failed} doctest failure(s) in {name}"


def test_every_room_has_modules() -> None:
    assert len(_modules()) > len(ROOMS)
    # the walk reaches modules inside sub-packages (a flat walk would miss them silently)
    assert "bilinear.constructions.proof.prover" in _modules()
    assert bilinear.__version__

"""The package layout: the four rooms install into one namespace, ``bilinear``.

``automata/`` is ``bilinear.automata`` and so on; the sub-packages of each room are found, not
listed, so a new sub-package installs without an edit here (tests/test_packaging.py checks the
wheel holds every package of the tree).  Everything else is in pyproject.toml.
"""

from setuptools import find_packages, setup

ROOMS = ("automata", "constructions", "learned", "analysis")

setup(
    packages=["bilinear"] + [f"bilinear.{room}{'.' + sub if sub else ''}"
                             for room in ROOMS for sub in ["", *find_packages(room)]],
    package_dir={"bilinear": "bilinear", **{f"bilinear.{room}": room for room in ROOMS}},
)

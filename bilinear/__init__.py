"""bilinear: a theory-and-verification toolkit for bilinear recurrent networks.

The rooms install as sub-packages: :mod:`bilinear.automata`, :mod:`bilinear.constructions`,
:mod:`bilinear.learned` and :mod:`bilinear.analysis`.
"""

__version__ = "0.1.0"

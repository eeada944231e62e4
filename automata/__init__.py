"""bilinear.automata: automata, their families, runs, datasets and algebra.

>>> from bilinear.automata import from_spec
>>> a = from_spec("cyclic:5")
>>> a.classes[a.label([2, 4, 1])]
'2'
"""

from .automaton import Automaton
from .families import (
    FAMILIES,
    Family,
    cayley_automaton,
    from_permutations,
    from_spec,
    from_transformations,
    parse_spec,
    product,
    split_product,
)

__all__ = [
    "Automaton",
    "FAMILIES",
    "Family",
    "cayley_automaton",
    "from_permutations",
    "from_spec",
    "from_transformations",
    "parse_spec",
    "product",
    "split_product",
]

try:  # algebra and data modules are added alongside; re-export them when present
    from .minimize import distinguishing_word, isomorphism, minimize  # noqa: F401

    __all__ += ["distinguishing_word", "isomorphism", "minimize"]
except ImportError as _exc:  # pragma: no cover - only while the module is being written
    if "minimize" not in str(_exc):
        raise

"""bilinear.automata: automata, their families, runs, datasets and algebra.

>>> from bilinear.automata import from_spec
>>> a = from_spec("cyclic:5")
>>> a.classes[a.label([2, 4, 1])]
'2'
>>> transformation_monoid(a).classification
'abelian group of order 5'

Modules: :mod:`~bilinear.automata.automaton` (the Automaton), :mod:`~bilinear.automata.families`
(registry and spec strings), :mod:`~bilinear.automata.monoid` (closure and algebra),
:mod:`~bilinear.automata.minimize` (minimisation, isomorphism), :mod:`~bilinear.automata.data`
(seeded datasets), :mod:`~bilinear.automata.strategies` (Hypothesis strategies),
:mod:`~bilinear.automata.cli` (``bilinear families`` and ``bilinear describe``).
"""

from .automaton import Automaton
from .spec import Spec
from .families import (
    FAMILIES,
    Family,
    cayley_automaton,
    from_permutations,
    from_spec,
    from_transformations,
    parse_spec,
    product,
    resolve,
    split_product,
)

__all__ = [
    "Automaton",
    "Spec",
    "FAMILIES",
    "Family",
    "cayley_automaton",
    "from_permutations",
    "from_spec",
    "from_transformations",
    "parse_spec",
    "product",
    "resolve",
    "split_product",
]

from .data import Dataset, sample_words
from .minimize import distinguishing_word, equivalent, isomorphism, minimize
from .monoid import Monoid, full_transformation_automaton, transformation_monoid
from .fileformat import read as read_automaton, write as write_automaton

__all__ += [
    "Dataset",
    "Monoid",
    "distinguishing_word",
    "equivalent",
    "full_transformation_automaton",
    "isomorphism",
    "minimize",
    "read_automaton",
    "sample_words",
    "transformation_monoid",
    "write_automaton",
]

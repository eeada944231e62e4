"""The data every part of :class:`~bilinear.automata.monoid.Monoid` relies on, declared once.

``Monoid`` is assembled from mixins (:mod:`~bilinear.automata.green` for Green's relations,
:mod:`~bilinear.automata.groups` for the groups inside, :mod:`~bilinear.automata.graphs` for
relations and the Cayley graph).  Each mixin reads the closure's arrays and a few basic queries
that ``Monoid`` itself implements; :class:`MonoidBase` names them, with their types, so that each
mixin can be read (and type-checked) on its own.  It holds no code.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

__all__ = ["MonoidBase"]


class MonoidBase:
    """Fields and basic queries of a transformation monoid (implemented by ``Monoid``)."""

    elements: np.ndarray  # (size, states) read-only: row i is q -> q.word(i)
    right: np.ndarray  # (size, symbols): right[i, a] = index of word(i) + (a,)
    parent: np.ndarray  # (size,): word(i) = word(parent[i]) + (via[i],)
    via: np.ndarray  # (size,)
    generators: np.ndarray  # (symbols, states)
    symbols: tuple[str, ...]
    name: str

    if TYPE_CHECKING:  # implemented by Monoid

        @property
        def size(self) -> int: ...

        @property
        def n_states(self) -> int: ...

        @property
        def n_symbols(self) -> int: ...

        @property
        def words(self) -> tuple[tuple[int, ...], ...]: ...

        @property
        def is_group(self) -> bool: ...

        @property
        def is_commutative(self) -> bool: ...

        @property
        def left(self) -> np.ndarray: ...

        def word(self, i: int) -> tuple[int, ...]: ...

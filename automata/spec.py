"""A parsed family spec: the family, its parameters and, for a product, its factors.

:func:`~bilinear.automata.families.from_spec` attaches a :class:`Spec` to the automaton it
builds (``automaton.spec``), so that constructions read a family's parameters instead of parsing
names.  An automaton built by hand has ``spec = None``.  The spec is not part of an automaton's
equality or hash: two automata with the same table are equal whatever their origin.

>>> from bilinear.automata import from_spec
>>> s = from_spec("cyclic:3*parity").spec
>>> s.family, [f.text for f in s.factors], s.factors[0].param("M")
('product', ['cyclic:3', 'parity'], 3)
"""

from __future__ import annotations

from dataclasses import dataclass

from bilinear.errors import SpecError

__all__ = ["Spec", "PRODUCT"]

#: The family name of a product spec (``cyclic:3*parity``).
PRODUCT = "product"


@dataclass(frozen=True)
class Spec:
    """One parsed spec: ``family`` (a family name, or ``"product"``), ``params`` as sorted
    ``(name, value)`` pairs, ``factors`` (the factor specs of a product, else empty) and
    ``text``, the spec string it was parsed from."""

    family: str
    params: tuple[tuple[str, object], ...] = ()
    factors: tuple["Spec", ...] = ()
    text: str = ""

    def param(self, name: str):
        """The value of parameter ``name``; SpecError naming it when this family has none."""
        for key, value in self.params:
            if key == name:
                return value
        raise SpecError(f"spec {self.text!r} has no parameter {name!r}")

    @property
    def is_product(self) -> bool:
        return self.family == PRODUCT

    def __str__(self) -> str:
        return self.text

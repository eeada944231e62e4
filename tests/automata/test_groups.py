"""Element orders and cyclic/dihedral recognition (automata/groups.py), against sympy."""

from __future__ import annotations

import numpy as np
import pytest
from sympy.combinatorics import Permutation, PermutationGroup

from bilinear.automata import from_permutations, from_spec, transformation_monoid
from bilinear.automata.groups import element_orders, group_shape
from bilinear.errors import AutomatonError


def _units(automaton) -> np.ndarray:
    rows = transformation_monoid(automaton).elements.astype(np.int64)
    return rows[(np.sort(rows, axis=1) == np.arange(rows.shape[1])).all(axis=1)]


GROUPS = [
    from_spec("dihedral:7"), from_spec("cyclic:12"), from_spec("quaternion"), from_spec("symmetric:4"),
    from_spec("alternating:5"), from_spec("cyclic:2*cyclic:4"), from_spec("modarith:7"),  # units act on 7 points, not regularly
    from_permutations([[1, 0, 2, 3, 4], [1, 2, 3, 4, 0]]),  # S_5 on 5 points: a base of 4 points
    from_permutations([[1, 2, 0, 4, 5, 3]]),  # Z_3 acting on two orbits
    from_spec("parity"),
]


@pytest.mark.parametrize("automaton", GROUPS, ids=lambda a: a.name or "perms")
def test_element_orders_are_sympys(automaton):
    units = _units(automaton)
    assert element_orders(units).tolist() == [Permutation(r.tolist()).order() for r in units]


@pytest.mark.parametrize("automaton", GROUPS + [from_spec("dihedral:2*cyclic:3"), from_spec("symmetric:3"),
                                                from_spec("cyclic:2*cyclic:2"), from_spec("cyclic:2*cyclic:3")],
                         ids=lambda a: a.name or "perms")
def test_group_shape_agrees_with_sympy(automaton):
    units = _units(automaton)
    G = PermutationGroup([Permutation(r.tolist()) for r in units])
    expected = "cyclic" if G.is_cyclic else "dihedral" if G.is_dihedral else "other"
    assert group_shape(units) == expected


def test_a_dihedral_group_of_order_4000_is_recognised_from_its_table():
    units = _units(from_spec("dihedral:2000"))
    assert units.shape == (4000, 4000) and group_shape(units) == "dihedral"
    assert sorted(set(element_orders(units).tolist())) == [1, 2, 4, 5, 8, 10, 16, 20, 25, 40, 50, 80, 100,
                                                          125, 200, 250, 400, 500, 1000, 2000]


def test_bad_tables_are_refused():
    with pytest.raises(AutomatonError, match="not a permutation"):
        element_orders([[0, 0, 1]])
    with pytest.raises(AutomatonError, match="not closed"):
        element_orders([[0, 1, 2], [1, 2, 0]])  # a 3-cycle without its square
    with pytest.raises(AutomatonError, match="not distinct"):
        group_shape([[1, 0], [1, 0]])

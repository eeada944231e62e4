"""The facts ``bilinear families`` and ``bilinear describe`` print, as JSON-ready dicts.

>>> facts = describe("dihedral:8")
>>> facts["monoid_size"], facts["solvable"], facts["commutative"]
(16, True, False)
"""

from __future__ import annotations

import math

from bilinear.progress import Progress

from .closure import DEFAULT_LIMIT, check_lower_bound
from .monoid import transformation_monoid
from .families import FAMILIES, canonical_spec, check_spec, from_spec, is_automaton_file, parse_spec, split_product
from .minimize import minimize

__all__ = ["describe", "families_table", "SUBGROUP_LIST_LIMIT", "check_describe"]

#: The order of the group a group family's Cayley automaton acts by (its monoid), from the spec.
_GROUP_ORDERS = {
    "parity": lambda p: 2, "quaternion": lambda p: 8, "cyclic": lambda p: p["M"], "dihedral": lambda p: 2 * p["N"],
    "symmetric": lambda p: math.factorial(p["N"]), "alternating": lambda p: math.factorial(p["N"]) // 2,
}
#: The order of the monoid of a family that is no group, from the spec: ``flipflop:N`` and
#: ``reset:N`` act by the N constant maps and the identity.
_MONOID_ORDERS = {"flipflop": lambda p: p["N"] + 1, "reset": lambda p: p["N"] + 1}


def check_describe(spec: str, limit: int = DEFAULT_LIMIT) -> None:
    """What ``describe`` can decide from a family spec before building anything: the table's size
    (:func:`~bilinear.automata.families.check_spec`) and, for a group family (or a product with
    one) or ``flipflop:N`` / ``reset:N`` (N + 1 elements), the closure's limits applied to that order — a product's monoid maps onto each
    factor's, so it is at least the largest factor's (``describe cyclic:7000``: refused at once, where
    the closure refused only after building the 4.9·10^7-entry table).  An automaton file is
    checked when it is read.

    >>> check_describe("cyclic:3000")
    Traceback (most recent call last):
    ...
    bilinear.errors.MonoidTooLargeError: the transformation monoid of cyclic:3000 is too costly to enumerate: the closure would compose more than 4,000,000,000 state entries (elements x symbols x states = 3,000+ x 3000 x 3000 = 27,000,000,000+); the limit is bilinear.automata.closure.WORK_LIMIT (decided before building it: a group of order 3,000)
    >>> check_describe("cyclic:1000*parity")
    """
    if is_automaton_file(spec):
        return
    states, symbols = check_spec(spec)
    orders = []
    for part in split_product(spec):
        family, params = parse_spec(part)
        if family.name in _GROUP_ORDERS:
            orders.append((_GROUP_ORDERS[family.name](params), "group"))
        elif family.name in _MONOID_ORDERS:
            orders.append((_MONOID_ORDERS[family.name](params), "monoid"))
    if orders:
        order, kind = max(orders)
        what = f"a group of order {order:,}" if kind == "group" else f"a monoid of {order:,} elements"
        why = what if len(orders) == 1 and "*" not in spec else f"a factor is {what}"
        check_lower_bound(canonical_spec(spec), order, states, symbols, limit, why)

#: Largest monoid whose maximal subgroups ``describe`` lists (they need the D-classes).
SUBGROUP_LIST_LIMIT = 200_000


def families_table() -> list[dict]:
    """One dict per registered family: name, usage, summary, parameters, examples.

    >>> [f["usage"] for f in families_table()][:3]
    ['alternating:N[,alphabet=all]', 'cycle_navigation[:N=5]', 'cyclic:M']
    """
    out = []
    for name in sorted(FAMILIES):
        fam = FAMILIES[name]
        out.append(
            {
                "name": fam.name,
                "usage": fam.usage,
                "summary": fam.summary,
                "parameters": [
                    {"name": p.name, "help": p.help, "minimum": p.minimum, "maximum": p.maximum, "default": p.default}
                    for p in fam.params
                ],
                "examples": list(fam.examples),
            }
        )
    return out


def describe(spec: str, limit: int = DEFAULT_LIMIT, progress: bool = False) -> dict:
    """The facts ``bilinear describe`` prints for a spec, as a JSON-ready dict.

    Keys: spec (the canonical spec, docs/formats.md), name, states, symbols (count), symbol_names,
    classes (count), start, minimal_states, monoid_size, group, commutative, aperiodic, solvable,
    classification, idempotents, d_classes and maximal_subgroup_orders (one per regular D-class;
    null past ``SUBGROUP_LIST_LIMIT`` elements).

    What the spec decides is checked first (:func:`check_describe`).  ``progress=True``: a
    :class:`~bilinear.progress.Progress` named ``describe`` (off a terminal, a line on stderr every
    few seconds with the stage and the elements found so far).
    """
    check_describe(spec, limit)
    with Progress("describe", quiet=not progress) as bar:
        bar.phase("building the automaton")
        automaton = from_spec(spec)
        bar.phase("closing the transformation monoid")
        monoid = transformation_monoid(
            automaton, limit=limit, progress=(lambda n: bar.set_postfix(elements=f"{n:,}")) if progress else False)
        bar.phase("minimising")
        facts = {
            "spec": canonical_spec(spec),
            "name": automaton.name,
            "states": automaton.n_states,
            "symbols": automaton.n_symbols,
            "symbol_names": list(automaton.symbols),
            "classes": automaton.n_classes,
            "start": automaton.start,
            "minimal_states": minimize(automaton).n_states,
        }
        bar.phase("Green's relations")
        facts.update(monoid.summary())
        if monoid.size <= SUBGROUP_LIST_LIMIT:
            facts["d_classes"] = 1 if monoid.is_group else len(monoid.d_classes())
            facts["maximal_subgroup_orders"] = [
                int(monoid.h_class(e).size) for e in monoid.regular_d_classes()
            ] if not monoid.is_group else [monoid.size]
        else:
            facts["d_classes"] = None
            facts["maximal_subgroup_orders"] = None
    return facts

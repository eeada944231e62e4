"""The facts ``bilinear families`` and ``bilinear describe`` print, as JSON-ready dicts.

>>> facts = describe("dihedral:8")
>>> facts["monoid_size"], facts["solvable"], facts["commutative"]
(16, True, False)
"""

from __future__ import annotations

from .closure import DEFAULT_LIMIT
from .monoid import transformation_monoid
from .families import FAMILIES, from_spec
from .minimize import minimize

__all__ = ["describe", "families_table", "SUBGROUP_LIST_LIMIT"]

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

    Keys: spec, name, states, symbols (count), symbol_names, classes (count), start,
    minimal_states, monoid_size, group, commutative, aperiodic, solvable, classification,
    idempotents, d_classes and maximal_subgroup_orders (one per regular D-class; null past
    ``SUBGROUP_LIST_LIMIT`` elements).
    """
    automaton = from_spec(spec)
    monoid = transformation_monoid(automaton, limit=limit, progress=progress)
    facts = {
        "spec": spec,
        "name": automaton.name,
        "states": automaton.n_states,
        "symbols": automaton.n_symbols,
        "symbol_names": list(automaton.symbols),
        "classes": automaton.n_classes,
        "start": automaton.start,
        "minimal_states": minimize(automaton).n_states,
    }
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

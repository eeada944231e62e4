"""Command-line sub-commands of the automata room: ``bilinear families`` and ``bilinear describe``.

``bilinear families`` lists every registered family (spec usage, one line of meaning, examples);
``bilinear describe SPEC [--json] [--limit N]`` builds the automaton a spec names, computes its
transformation monoid by closure and prints its algebra.

The facts come from :func:`bilinear.automata.describe.describe` and
:func:`~bilinear.automata.describe.families_table`.
"""

from __future__ import annotations

import argparse
import json

from bilinear.argtypes import positive_int
from bilinear.errors import AutomatonError

from .closure import DEFAULT_LIMIT
from .describe import describe, families_table

__all__ = ["register"]

def _yes(flag: bool) -> str:
    return "yes" if flag else "no"


def _format_text(f: dict) -> str:
    names = f["symbol_names"]
    shown = ", ".join(names[:10]) + (f", ... ({len(names) - 10} more)" if len(names) > 10 else "")
    lines = [
        f"{f['spec']}",
        f"  states        {f['states']} (minimal: {f['minimal_states']}), start {f['start']}",
        f"  symbols       {f['symbols']}: {shown}",
        f"  classes       {f['classes']}",
        f"  monoid        {f['monoid_size']} elements: {f['classification']}",
        f"  group {_yes(f['group'])}, commutative {_yes(f['commutative'])}, "
        f"aperiodic {_yes(f['aperiodic'])}, solvable {_yes(f['solvable'])}",
        f"  idempotents   {f['idempotents']}",
    ]
    if f["maximal_subgroup_orders"] is not None:
        lines.append(
            f"  D-classes     {f['d_classes']}; maximal subgroup orders (one per regular D-class): "
            + ", ".join(map(str, f["maximal_subgroup_orders"]))
        )
    return "\n".join(lines)


def _families(args: argparse.Namespace) -> int:
    table = families_table()
    if args.json:
        print(json.dumps(table, indent=2))
        return 0
    width = max(len(f["usage"]) for f in table)
    for f in table:
        print(f"{f['usage']:<{width}}  {f['summary']}")
        if f["examples"]:
            print(f"{'':<{width}}  e.g. {', '.join(f['examples'])}")
    print("\nProducts: A*B (direct product, product alphabet), e.g. cyclic:2*cyclic:3")
    return 0


def _describe(args: argparse.Namespace) -> int:
    if not args.spec.strip():
        raise AutomatonError("describe needs a non-empty spec")
    facts = describe(args.spec, limit=args.limit, progress=True)
    if args.json:
        print(json.dumps(facts, indent=2))
    else:
        print(_format_text(facts))
    return 0


def register(sub) -> None:
    """Add ``families`` and ``describe`` to the ``bilinear`` command line."""
    p = sub.add_parser(
        "families",
        help="list the automaton families and their spec strings",
        description="List every registered automaton family: how to write its spec, what it means, examples.",
    )
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    p.set_defaults(handler=_families)

    p = sub.add_parser(
        "describe",
        help="an automaton's transformation monoid and its algebra",
        description=(
            "Build the automaton SPEC names (see `bilinear families`), compute its transformation "
            "monoid by closure, and print its size, whether it is a group, commutative, aperiodic, "
            "solvable, and a one-line classification."
        ),
    )
    p.add_argument("spec", help="a family spec, e.g. symmetric:5, dihedral:8, cyclic:2*cyclic:3, "
                                "or an automaton file (FILE.json, docs/formats.md)")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.add_argument(
        "--limit",
        type=positive_int,
        default=DEFAULT_LIMIT,
        help=f"largest monoid to enumerate before giving up (default {DEFAULT_LIMIT})",
    )
    p.set_defaults(handler=_describe)

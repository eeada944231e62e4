"""Command-line sub-commands of the automata room: ``bilinear families`` and ``bilinear describe``.

``bilinear families`` lists every registered family (spec usage, one line of meaning, examples);
``bilinear describe SPEC [--json] [--limit N] [--time-budget SECONDS]`` builds the automaton a
spec names, computes its transformation monoid by closure and prints its algebra (what the spec
decides is refused before building; progress lines on stderr; the budget stops it, exit 3); ``bilinear data SPEC --lengths A B
--count N --out FILE`` writes labelled words in the word-problem layout
(:mod:`bilinear.automata.wordfile`: CSV, JSON lines or parquet).

The facts come from :func:`bilinear.automata.describe.describe` and
:func:`~bilinear.automata.describe.families_table`.
"""

from __future__ import annotations

import argparse
import json

from bilinear.argtypes import add_json, add_time_budget, nonnegative_int, positive_int
from bilinear.errors import AutomatonError, DataError

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
    import sys

    from bilinear.progress import BudgetSpent, deadline

    if not args.spec.strip():
        raise AutomatonError("describe needs a non-empty spec")
    try:
        with deadline(args.time_budget, AutomatonError):
            facts = describe(args.spec, limit=args.limit, progress=True)
    except BudgetSpent:
        print(f"bilinear: describe: not finished within the time budget of {args.time_budget:g} s "
              f"(nothing printed); raise --time-budget", file=sys.stderr)
        return 3
    if args.json:
        print(json.dumps(facts, indent=2))
    else:
        print(_format_text(facts))
    return 0


def _data(args: argparse.Namespace) -> int:
    from bilinear.fileio import check_output_file

    from .data import check_positions, sample_words
    from .families import from_spec
    from .wordfile import MAX_WORD_LEN, word_format, write_words

    low, high = args.lengths
    if not 1 <= low <= high:
        raise DataError(f"--lengths {low} {high}: need 1 <= A <= B (the word-problem layout has no empty words)")
    if high > MAX_WORD_LEN:  # a file train --data would refuse is not written
        raise DataError(f"--lengths {low} {high}: words of {high:,} symbols are longer than {MAX_WORD_LEN:,}, the "
                        f"longest a words file may hold (bilinear.automata.wordfile.MAX_WORD_LEN)")
    check_positions(args.count, high, what="--count ")  # sample_words' own check, before the automaton is built
    fmt = word_format(args.out, args.format)
    check_output_file(args.out, force=args.force, what="words file")
    automaton = from_spec(args.spec)
    ds = sample_words(automaton, args.count, low, high, seed=args.seed)
    path = write_words(args.out, ds, seed=args.seed, fmt=fmt)
    print(f"wrote {len(ds):,} words of {automaton.name or args.spec} (lengths {low}..{high}, seed {args.seed}) "
          f"to {path} ({fmt})")
    return 0


def register(sub) -> None:
    """Add ``families``, ``describe`` and ``data`` to the ``bilinear`` command line."""
    p = sub.add_parser(
        "families",
        help="list the automaton families and their spec strings",
        description="List every registered automaton family: how to write its spec, what it means, examples.",
    )
    add_json(p, "print JSON instead of a table")
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
    add_json(p, "print JSON")
    p.add_argument(
        "--limit",
        type=positive_int,
        default=DEFAULT_LIMIT,
        help=f"largest monoid to enumerate before giving up (default {DEFAULT_LIMIT})",
    )
    add_time_budget(p, "stop after SECONDS (building, closure, minimisation, Green's relations): one line on "
                       "stderr, exit 3, nothing printed; progress goes to stderr every few seconds either way")
    p.set_defaults(handler=_describe)

    p = sub.add_parser(
        "data",
        help="write labelled words (word-problem CSV, JSON lines, parquet)",
        description=(
            "Draw COUNT words of SPEC with lengths uniform in A..B and write them with their labels "
            "after every prefix, in the layout of the word-problem data (columns seed,input,target; "
            "symbol and class indices separated by spaces; docs/formats.md). The format follows the "
            "extension of FILE (.csv, .jsonl, .parquet; parquet needs bilinear[parquet]). "
            "`bilinear train SPEC MODEL --data FILE` trains on such a file."
        ),
    )
    p.add_argument("spec", help="a family spec or an automaton file (FILE.json)")
    p.add_argument("--lengths", type=positive_int, nargs=2, metavar=("A", "B"), default=(2, 10),
                   help="word lengths, uniform in A..B (default 2 10)")
    p.add_argument("--count", type=positive_int, required=True, metavar="N", help="number of words")
    p.add_argument("--out", required=True, metavar="FILE", help="the file to write (.csv, .jsonl or .parquet)")
    p.add_argument("--format", choices=sorted(set(FORMATS_HELP)), default=None,
                   help="the format, when FILE's extension does not tell it")
    p.add_argument("--seed", type=nonnegative_int, default=0, help="seed of the words (default 0)")
    p.add_argument("--force", action="store_true", help="replace an existing FILE")
    p.set_defaults(handler=_data)


#: The formats ``bilinear data`` writes (the values of :data:`bilinear.automata.wordfile.FORMATS`).
FORMATS_HELP = ("csv", "jsonl", "parquet")

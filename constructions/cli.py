"""Command line of the constructions room: ``bilinear verify``, ``bilinear matrix`` and
``bilinear sign`` (validate a hand-written weights, stack or automaton file and add its checksum).

``bilinear verify SPEC VARIANT`` (SPEC a family spec or an automaton file) builds the smallest known construction of the family in the
variant and proves it exactly; when no construction exists it asks the certificate search for an
impossibility certificate, else reports the cell as open.  With ``--weights FILE`` it proves the
given weights instead (VARIANT may then be left out: the file's is used; ``--unsigned`` accepts a
hand-written file without a checksum; an affine weights file, format ``bilinear.affine``, is proved
as its lift to ``[h; 1]``, docs/theory.md Theorems A1 and A4); with ``--project`` as well, weights that do not conform to the variant are
projected onto it first, and the verdict says it is about the projected weights and the largest
change of an entry (a float file whose entries conform only within the float tolerance is refused
without ``--project``: the network proved is always the file's own, or says it is not); ``--float``
always checks the file as written, and its failure then exits 1.  Status (text and ``--json``): ``proved``, ``counterexample``,
``impossible`` or ``open``.  Exit status: 0 for proved or impossible, 1 for a counterexample,
3 for open, 2 for bad input.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from bilinear.argtypes import add_json, add_time_budget, add_weights_file, positive_int, seed
from bilinear.errors import SpecError, WeightsError

from .values.variants import variant_usage

__all__ = ["register", "VERIFY_TIME_BUDGET"]

#: Seconds ``bilinear verify`` gives the proof unless ``--time-budget`` says otherwise; without
#: ``--bound`` the bound is doubled within them, so "open" means nothing was decided in them.
VERIFY_TIME_BUDGET = 10.0


def _load_weights(args: argparse.Namespace):
    """``(weights or None, projection or None)`` for ``--weights FILE`` and ``--project``.

    With ``--project`` a float file that does not conform is projected onto its variant and the
    projection's relative distance (Frobenius, per transition matrix) is returned beside it.
    """
    import numpy as np

    from .values.weights import Weights, parse_variant

    if args.project and not args.weights:
        raise WeightsError("--project needs --weights FILE (a construction conforms already)")
    if args.unsigned and not args.weights:
        raise WeightsError("--unsigned needs --weights FILE")
    if not args.weights:
        if args.variant is None:
            raise SpecError("verify needs a VARIANT (or --weights FILE, whose variant is used)")
        return None, None
    if not args.project:
        from .values.stack import Stack, load_network

        weights = load_network(args.weights, allow_unsigned=args.unsigned)
        if isinstance(weights, Stack):
            if args.layers is not None and args.layers != weights.depth:
                raise WeightsError(f"weights file {args.weights!r} is a stack of {weights.depth} layers, "
                                   f"not --layers {args.layers}")
            if weights.depth == 1:
                weights = weights.layers[0]
        _check_variant(args, weights, parse_variant)
        return weights, None
    from .values.fileformat import read_json

    data = read_json(args.weights)
    weights, dist = Weights.from_json_projected(data, source=str(args.weights), allow_unsigned=args.unsigned)
    _check_variant(args, weights, parse_variant)
    written = Weights.from_json_as_written(data, source=str(args.weights), allow_unsigned=args.unsigned)
    change = float(np.abs(written.to_float().A - weights.to_float().A).max())
    info = {"file": str(args.weights), "onto": weights.variant, "distance": [float(x) for x in dist],
            "max_distance": float(dist.max()), "largest_change": change, "as_written": written}
    return weights, info


def _check_variant(args: argparse.Namespace, weights, parse_variant) -> None:
    """VARIANT, when given with ``--weights``, must be the file's; else it is taken from the file."""
    if args.variant is None:  # (a stack of several variants, "diagonal+rotation2d", is proved as given)
        args.variant = weights.variant
        return
    wanted = parse_variant(args.variant).spec
    if weights.variant != wanted:
        raise WeightsError(f"weights file {args.weights!r} has variant {weights.variant!r}, not {wanted!r} "
                           "(leave VARIANT out to take the file's)")


def _run_from_config(args: argparse.Namespace) -> int:
    """``verify --from fla|hf CONFIG --task SPEC`` (constructions/fromconfig.py)."""
    from .fromconfig import config_text, verify_config
    from .settle import exit_status

    source, path = args.from_
    if source not in ("fla", "hf"):
        raise SpecError(f"--from takes fla or hf, got {source!r}")
    if args.task is None or args.spec is not None or args.variant is not None:
        raise SpecError("verify --from fla|hf CONFIG takes --task SPEC and no SPEC VARIANT")
    if args.weights or args.save or args.float or args.layers is not None:
        raise SpecError("verify --from settles the config's variant: --weights, --save, --float and --layers do not apply")
    out = verify_config(path, source, args.task.strip(),
                        time_budget=VERIFY_TIME_BUDGET if args.time_budget is None else args.time_budget)
    cell = out.pop("_cell")
    if args.json:
        json.dump(out, sys.stdout, indent=2, ensure_ascii=False)
        print()
    else:
        print(config_text({**out, "_cell": cell}))
    return exit_status(cell)


def _verify_from_guard(args: argparse.Namespace) -> int | None:
    """``verify --from``'s own run, or None for a plain verify (SPEC needed then)."""
    if args.from_ is not None or args.task is not None:
        if args.from_ is None:
            raise SpecError("--task goes with --from fla|hf CONFIG")
        return _run_from_config(args)
    if args.spec is None:
        raise SpecError("verify needs SPEC (a family spec or an automaton file), or --from fla|hf CONFIG --task SPEC")
    return None


def _check_verify_outputs(args: argparse.Namespace) -> None:
    """Before any proof: the float check's words fit their memory limit, and ``--save`` may write
    its file (an existing file needs ``--force``, a device never)."""
    if args.float:  # the words' share of the float check's memory, before any proof
        from .horizon.floatcheck import check_size

        check_size(args.words, args.length)
    if args.force and args.save is None:
        raise SpecError("--force needs --save FILE")
    if args.save is not None:  # before any proof: an existing file needs --force, a device never
        from bilinear.fileio import check_output_file

        check_output_file(args.save, force=args.force, what="--save file")


def _print_verify(args: argparse.Namespace, cell, projection: dict | None, saved,
                  unsaved: OSError | None = None) -> None:
    """The text report of ``bilinear verify``: the cell, what a projection changed, the
    ``--explain`` lines and what ``--save`` wrote (``unsaved``: the error that stopped it)."""
    text = cell.text()
    if projection is not None:  # the verdict's own line says whose network it is about
        text = text.replace(f": {cell.status}", f": {cell.status} for the projected weights "
                            f"(largest change {projection['largest_change']:.3g})", 1)
    print(text)
    if projection is not None:
        print(
            f"  the verdict is about the weights projected onto {projection['onto']}, not the file's own: "
            f"largest change {projection['largest_change']:.3g}, relative distance "
            f"{projection['max_distance']:.3g} (per matrix: "
            f"{', '.join(f'{x:.3g}' for x in projection['distance'])})"
        )
        if args.float and cell.dim is not None:
            print("  the float check ran on the file's own weights, as written")
    if args.explain:
        print(_explanation(cell))
    if unsaved is not None:
        print(f"  nothing written to {args.save}: {unsaved.strerror or unsaved}")
    elif args.save is not None:
        print(f"  {saved}" if saved else f"  nothing written to {args.save}: only proved weights are saved, "
              f"and these are {cell.status}")


def _canonical_variant(variant: str) -> str:
    """``variant`` in the matrix's canonical spelling; as given when it is no variant (settle then
    says why, as before)."""
    from .capability import _canonical_column

    try:
        return _canonical_column(variant)
    except SpecError:
        return variant


def _run_verify(args: argparse.Namespace) -> int:
    from bilinear.automata.families import resolve

    status = _verify_from_guard(args)
    if status is not None:
        return status
    import threading

    from .proof.search import BudgetSpent, deadline
    from .settle import Cell, exit_status, settle

    _check_verify_outputs(args)
    if args.variant:  # printed and written in its canonical spelling (' FULL ' is 'full'), as the spec is
        args.variant = _canonical_variant(args.variant)
    affine = _affine_file(args)
    if affine is not None:
        return _verify_affine(args, affine, resolve)
    weights, projection = _load_weights(args)
    # without --bound the proof deepens: the bound doubles from the default while the proof stops
    # at it and the time budget (default VERIFY_TIME_BUDGET) has time left
    budget = VERIFY_TIME_BUDGET if args.time_budget is None else args.time_budget
    started = time.perf_counter()
    try:  # the budget counts building the automaton too (a 5·10^7-entry random table takes seconds)
        with deadline(budget if threading.current_thread() is threading.main_thread() else None):
            automaton = resolve(args.spec)
    except BudgetSpent:
        cell = Cell(args.spec.strip(), args.variant or "", "open", time_budget=budget, detail=(
            f"the automaton was not built within the time budget of {budget:g} s; raise --time-budget"))
        if args.json:
            json.dump(cell.to_json(), sys.stdout, indent=2, ensure_ascii=False)
            print()
        else:
            print(cell.text())
        return exit_status(cell)
    if args.float:  # with the directed words (a certificate's two witnesses are counted by check itself)
        from bilinear.automata.loops import directed_loops

        from .horizon.floatcheck import check_size

        check_size(args.words, args.length, directed=len(directed_loops(automaton)))
    source = f"{args.weights} (projected)" if projection else args.weights
    cell = settle(automaton, args.variant, weights=weights, source=source, bound=args.bound,
                  time_budget=budget, progress=True, layers=args.layers, deepen=args.bound is None, started=started)
    out = cell.to_json()
    written = None
    if projection is not None:
        written = projection.pop("as_written")
        out["projection"] = projection
    if args.float and cell.dim is not None:
        if weights is None:
            weights = _construction(automaton, cell)
        # the float check runs on the file as written, never on its projection
        cell = _float_checked(args, automaton, cell, written if written is not None else weights, weights)
        out["float_check"] = cell.float_check
    saved = None
    unsaved: OSError | None = None
    if args.save is not None:
        try:
            saved = _save(args, automaton, cell, weights, projection is not None)
        except OSError as exc:  # a full disk: the verdict is still printed, then the error (exit 2)
            unsaved = exc
        if saved is not None:
            out["saved"] = str(args.save)
    if args.json:
        json.dump(out, sys.stdout, indent=2, ensure_ascii=False)
        print()
    else:
        _print_verify(args, cell, projection, saved, unsaved)
    if unsaved is not None:
        sys.stdout.flush()
        raise unsaved
    if projection is not None and cell.float_failed:
        return 1  # the file's own network fails on a word, whatever the projection's proof says
    return exit_status(cell)


def _affine_file(args: argparse.Namespace):
    """The ``--weights`` file as :class:`~bilinear.constructions.values.affine.AffineWeights` when its
    format is ``bilinear.affine`` (else None); the options that do not apply to it are refused."""
    if not args.weights:
        return None
    from .values.fileformat import read_json

    data = read_json(args.weights)
    if not isinstance(data, dict) or data.get("format") != "bilinear.affine":
        return None
    for flag, given in (("--project", args.project), ("--float", args.float), ("--save", args.save is not None),
                        ("--layers", args.layers is not None), ("--explain", args.explain)):
        if given:
            raise SpecError(f"{flag} does not apply to an affine weights file ({args.weights}): verify proves it as it is")
    from .values.affine import AffineWeights

    affine = AffineWeights.from_json(data, str(args.weights), allow_unsigned=args.unsigned)
    if args.variant is not None and args.variant.strip().lower() != affine.variant:
        from .values.variants import parse_variant

        if parse_variant(args.variant).spec != affine.variant:
            raise WeightsError(f"affine weights file {args.weights!r} has variant {affine.variant!r}, not "
                               f"{args.variant!r} (leave VARIANT out to take the file's)")
    return affine


def _verify_affine(args: argparse.Namespace, affine, resolve) -> int:
    """``verify --weights AFFINE.json``: the exact proof of the lifted network (Theorems A1, A4)."""
    from .proof.prover import DEFAULT_BOUND, prove
    from .values.affine import lifted_variant

    automaton = resolve(args.spec)
    budget = VERIFY_TIME_BUDGET if args.time_budget is None else args.time_budget
    result = prove(affine, automaton, args.bound or DEFAULT_BOUND, progress=True, time_budget=budget)
    readout = "a readout per symbol" if affine.per_symbol else "a fixed readout"
    covered = "every non-empty word (a per-symbol readout labels a word after its last symbol)" \
        if affine.per_symbol else "every word"
    lifted = affine.dim + 1
    out = {"automaton": automaton.name, "weights": str(args.weights), "affine": True, "variant": affine.variant,
           "lifted_variant": lifted_variant(affine.variant), "lifted_dim": lifted,
           "per_symbol_readout": affine.per_symbol, **result.to_json()}
    if args.json:
        json.dump(out, sys.stdout, indent=2, ensure_ascii=False)
        print()
    else:
        head = (f"{automaton.name}, affine weights {args.weights} (h -> A h + b, A {affine.variant}, hidden "
                f"{affine.dim}, {readout}; lifted to [h; 1]: hidden {lifted}, {lifted_variant(affine.variant)})")
        if result.status == "proved":
            margin = "" if result.margin_float is None else f", margin {result.margin_float:.6g}"
            why = "Theorem A4" if affine.per_symbol else "Theorems A1 and 5"
            print(f"{head}: proved for {covered} ({why} of docs/theory.md; {result.states_explored} "
                  f"(state, direction) pairs{margin})")
        elif result.status == "counterexample":
            got = "a tie" if result.got is None else automaton.classes[result.got]
            print(f"{head}: counterexample: the word {result.text} gets {got}, the automaton says "
                  f"{automaton.classes[result.expected]} (a shortest failing word)")
        else:
            print(f"{head}: open ({result.reason})")
    return {"proved": 0, "counterexample": 1}.get(result.status, 3)


def _explanation(cell) -> str:
    """``--explain``: one line per construction that was not used, and why."""
    if not cell.refusals:
        why = ("its weights were given" if cell.source not in (None, "construction")
               else "a certificate settles the cell" if cell.status == "impossible" else "no construction was tried")
        return f"  no construction refused ({why})"
    lines = ["  constructions not used:"]
    lines += [f"    {name}: {reason}" for name, reason in cell.refusals]
    return "\n".join(lines)


def _save(args, automaton, cell, weights, projected: bool) -> str | None:
    """Write the proved network to ``--save`` (with its checksum): the construction, or the
    ``--weights`` file's network (its projection, with ``--project``); a sentence saying what was
    written, or None when nothing was proved (nothing is written)."""
    if cell.status != "proved":
        return None
    if cell.source == "construction":
        _construction(automaton, cell).save(args.save)
        return f"the construction's weights written to {args.save}"
    weights.save(args.save)
    what = "the projected weights" if projected else f"the weights of {args.weights}"
    return f"{what} written to {args.save}, signed"


def _float_checked(args: argparse.Namespace, automaton, cell, checked, proved_net):
    """``cell`` with the float check of ``checked`` (``verify --float``).  When ``proved_net``, the
    network ``cell`` proved, is one layer of the checked variant, that variant has no impossibility
    certificate, so none is searched for the check's directed witnesses (a stack's proof says
    nothing of one layer's certificate)."""
    from .horizon.floatcheck import check
    from .settle import with_float_check
    from .values.weights import Weights

    proved = (cell.status == "proved" and isinstance(checked, Weights) and isinstance(proved_net, Weights)
              and checked.variant == proved_net.variant)
    return with_float_check(cell, check(checked, automaton, length=args.length, words=args.words, seed=args.seed,
                                        witnesses=not proved))


def _construction(automaton, cell):
    """The construction a cell proved: the very weights settle proved (``cell.weights``); built
    again (the registry's weights, or the cascade for a stack) only for a cell that has none."""
    if cell.weights is not None:
        return cell.weights
    if cell.layers is not None and cell.layers > 1:
        from .handmade.cascade import cascade

        return cascade(automaton, cell.built, cell.layers)
    from .handmade.registry import build

    return build(automaton, cell.built)


def _run_matrix(args: argparse.Namespace) -> int:
    from .capability import DEFAULT_COLUMNS, DEFAULT_ROWS, capability_matrix, parse_columns, parse_rows

    rows = parse_rows(args.rows) if args.rows else list(DEFAULT_ROWS)
    columns = parse_columns(args.columns) if args.columns else list(DEFAULT_COLUMNS)
    if any(not c for c in columns):
        raise SpecError(f"empty variant in --columns {args.columns!r}")
    start = time.perf_counter()
    m = capability_matrix(rows, columns, time_budget=args.time_budget, progress=True)
    if args.layers:
        table = m.depth_markdown()
        if args.json:
            out = {"rows": list(m.rows), "columns": list(m.depth_columns()),
                   "depth": [[{k: c.to_json()[k] for k in ("min_layers", "derived_length", "min_layers_theorem",
                                                           "min_layers_unconditional", "min_layers_reason")}
                              for c in (m.cell(r, col) for col in m.depth_columns())] for r in m.rows]}
            json.dump(out, sys.stdout, indent=2, ensure_ascii=False)
            print()
        else:
            print(table)
        return 1 if m.counts()["counterexample"] else 0
    if args.json:
        json.dump(m.to_json(), sys.stdout, indent=2, ensure_ascii=False)
        print()
    elif args.markdown:
        print(m.to_markdown())
    else:
        print(m.to_markdown())
        counts = ", ".join(f"{n} {s}" for s, n in m.counts().items())
        print(f"\n{len(rows)} families x {len(columns)} variants: {counts} "
              f"({time.perf_counter() - start:.1f} s)")
    return 1 if m.counts()["counterexample"] else 0


def register(sub) -> None:
    """Add ``bilinear verify`` and ``bilinear matrix``."""
    p = sub.add_parser(
        "verify",
        help="prove a construction (or given weights) exactly, or certify impossibility",
        description=(
            "Build the smallest known construction of SPEC in VARIANT and prove it exactly for "
            "every word (breadth-first closure of (state, hidden direction) pairs); with no "
            "construction, print an impossibility certificate or report the cell open. "
            "Exit status 0 proved/impossible, 1 counterexample, 3 open, 2 bad input."
        ),
    )
    p.add_argument("spec", metavar="SPEC", nargs="?", default=None,
                   help="family spec, e.g. dihedral:50 or cyclic:3*parity, or an automaton file (FILE.json)")
    p.add_argument("variant", metavar="VARIANT", nargs="?", default=None,
                   help=f"{variant_usage()} (optional with --weights: the file's variant)")
    add_json(p, "print the verdict as JSON")
    p.add_argument("--from", dest="from_", nargs=2, metavar=("fla|hf", "CONFIG"), default=None,
                   help="a flash-linear-attention (fla) or transformers (hf) config.json (or its folder): settle "
                        "the cell of the variant its layers' recurrence maps to, for --task (docs/your-model.md)")
    p.add_argument("--task", metavar="SPEC", default=None, help="with --from: the task (family spec or FILE.json)")
    p.add_argument("--layers", type=positive_int, default=None, metavar="L",
                   help="settle a stack of L layers (docs/theory.md section 8): build the cascade of the "
                        "group's derived series (diagonal layers: its Frattini series where a factor has "
                        "exponent > 2, Z_4 in two) and prove it, or say which theorem excludes depth L; without "
                        "it, one layer (a commuting variant's verdict also gives min_layers)")
    p.add_argument("--bound", type=positive_int, default=None, metavar="N",
                   help="give up (status open) past N x states reachable pairs (default: start at 64 "
                        "and double it while the time budget lasts)")
    add_time_budget(p, f"every phase (certificate search, construction, proof, depth bound, lower bound) within "
                       f"SECONDS in all (default {VERIFY_TIME_BUDGET:g}): past it the cell is open (nothing "
                       f"decided), or keeps its verdict without the depth or lower bound, and names the phase "
                       f"that ran out; progress goes to stderr after 2 s")
    add_weights_file(p, "prove these weights (a weights or stack JSON file, docs/formats.md) instead", with_spec=False)
    p.add_argument("--project", action="store_true",
                   help="with --weights: project weights that do not conform onto the variant and prove those")
    p.add_argument("--save", metavar="FILE", default=None,
                   help="write the proved weights (the construction's, or those of --weights, signed) to FILE; "
                        "nothing is written unless proved (an existing file needs --force)")
    p.add_argument("--force", action="store_true", help="with --save: replace an existing FILE")
    p.add_argument("--float", action="store_true", help="also run the float check on random long words")
    p.add_argument("--explain", action="store_true",
                   help="also say why each other construction of the family was not used (the JSON always has "
                        "them, under refusals)")
    p.add_argument("--length", type=positive_int, default=500, help="float check word length (default 500)")
    p.add_argument("--words", type=positive_int, default=1000, help="float check word count (default 1000)")
    p.add_argument("--seed", type=seed, default=0, help="float check seed (default 0)")
    p.set_defaults(handler=_run_verify)
    _register_matrix(sub)
    _register_sign(sub)


def _run_sign(args: argparse.Namespace) -> int:
    from bilinear.fileio import check_output_file

    from .signing import sign_file

    if args.force and args.out is None:
        raise SpecError("--force needs --out FILE (signing in place replaces FILE anyway)")
    if args.out is not None:
        check_output_file(args.out, force=args.force, what="--out file")
    done = sign_file(args.file, args.out)
    before = ("it had none" if not done.had_checksum else
              "it had a valid one" if done.was_valid else "its old one no longer matched")
    print(f"signed {done.kind} file {args.file} -> {done.path} ({done.checksum[:19]}...; {before})")
    return 0


def _register_sign(sub) -> None:
    """Add ``bilinear sign``."""
    p = sub.add_parser(
        "sign",
        help="validate a hand-written weights, stack or automaton file and add its checksum",
        description=(
            "Check FILE exactly as loading it would (every entry, the variant's structure, every layer "
            "of a stack, an automaton's table) and write it with its checksum (docs/formats.md), in "
            "place or to --out, so that verify --weights accepts it without --unsigned. The entries "
            "are kept as written."
        ),
    )
    p.add_argument("file", metavar="FILE", help="a weights, stack or automaton JSON file")
    p.add_argument("--out", metavar="OUT", default=None, help="write the signed file here instead of in place")
    p.add_argument("--force", action="store_true", help="with --out: replace an existing OUT")
    p.set_defaults(handler=_run_sign)


def _register_matrix(sub) -> None:
    """Add ``bilinear matrix`` to the sub-command parser ``sub``."""
    p = sub.add_parser(
        "matrix",
        help="families x variants: proved (with d), impossible (certificate) or open",
        description=(
            "Settle every cell of the capability matrix exactly: build and prove a construction, "
            "or find an impossibility certificate, or report the cell as open. Exit status 1 if a "
            "construction fails its proof (a bug), 0 otherwise."
        ),
    )
    out = p.add_mutually_exclusive_group()
    add_json(out, "every cell as JSON (with certificates)")
    out.add_argument("--markdown", action="store_true", help="only the Markdown table (as in docs/theory.md)")
    p.add_argument(
        "--rows", action="append", metavar="SPEC,...",
        help="family specs (comma-separated; may repeat); default: the built-in list",
    )
    p.add_argument("--columns", metavar="VARIANT,...", help="variants (comma-separated; an option such as nonneg continues the previous "
                        "variant: householder,nonneg); default: every kind")
    add_time_budget(p, "give each cell at most SECONDS (certificate search, construction, proof, depth bound, "
                       "lower bound): a cell past it is open, or keeps its verdict without the bound that ran out, "
                       "and says so (default: no limit); a cell whose only construction passes the size limits is "
                       "open; progress goes to stderr every few seconds")
    p.add_argument("--layers", action="store_true",
                   help="print the depth table instead: the smallest proved number of layers of a stack of each "
                        "commuting variant (docs/theory.md section 8; '3 (S3)': fewer excluded only under Theorem "
                        "S3's hypotheses)")
    p.set_defaults(handler=_run_matrix)

"""``bilinear certify``: snap a trained bilinear network, prove the snap, bound its horizon.

    bilinear certify RUN_DIR [--write FILE] [--json]            a finished training run
    bilinear certify --weights FILE SPEC [--write FILE] [--json] saved float Weights against SPEC

Prints the certificate (text, or JSON with ``--json``); ``--write FILE`` saves the proved
snapped weights (exact, ``Weights.save``; an existing FILE is refused unless ``--force``).  A
baseline run (LSTM, RNN, Transformer, Mamba), exact weights, or a missing run is one line on
stderr and exit status 2; ``--time-budget SECONDS`` stops the work after SECONDS, one line on
stderr and exit status 3 (nothing printed or written); with ``--from``, the ball search of a
checkpoint without a snap ends early instead, with the levels completed, and says so.  How to read
the output: docs/certify.md.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from bilinear.argtypes import add_json, add_run_dir, add_time_budget, add_weights_file, positive_int
from bilinear.errors import AnalysisError, BilinearError
from bilinear.fileio import check_apart, check_output_file

from .certify import TEST_LENGTH, NetworkCertificate, StackCertificate, certify_network, certify_stack

__all__ = ["register", "load_network", "load_network_and_length"]


def register(sub) -> None:
    """Add the ``certify`` sub-command."""
    p = sub.add_parser(
        "certify",
        help="snap a trained bilinear network to exact algebra, prove it, bound how far it holds",
        description=(
            "Certify a trained bilinear network (RUN_DIR, or --weights FILE SPEC): snap it to exact "
            "weights of the same variant and prove them for every length, certify a length up to "
            "which every word is right for the float network itself, and search for its shortest "
            "failing word. Status: proved, horizon, snapped or failed (docs/certify.md). A stack of layers "
            "is snapped and proved layer by layer, and its horizon is the shortest layer's (Theorem S5)."
        ),
    )
    add_run_dir(p)
    add_weights_file(p, "certify a saved float Weights file against the automaton SPEC", with_spec=True)
    p.add_argument("--write", metavar="FILE", help="save the proved snapped weights (exact) to FILE")
    p.add_argument("--force", action="store_true", help="replace an existing --write FILE")
    add_json(p, "print the certificate as JSON")
    add_time_budget(p, "stop after SECONDS (exit status 3, nothing printed or written; with --from, the ball "
                       "search of a checkpoint without a snap ends early instead and says so); default: no limit")
    p.add_argument("--search-length", type=positive_int, default=None,
                   help="length of the words of the failing-word search "
                        "(default: 4 x the certified length, within 2000..20000)")
    p.add_argument("--test-length", type=positive_int, default=None,
                   help="a failure within this length makes the status 'snapped' (default: the run's own "
                        f"test length; {TEST_LENGTH} with --weights)")
    p.add_argument("--snap-tol", type=_snap_tol, default=None, metavar="TOL",
                   help="stacks only: how far (at most) each transition entry may be from its snapped value, "
                        "0 < TOL <= 0.5 (default 1e-4; a layer with no entry snap within it is snapped "
                        "against its own automaton instead)")
    p.add_argument("--from", dest="from_", nargs=2, metavar=("fla", "DIR"),
                   help="certify a one-layer fla delta-rule checkpoint with its own head against --task")
    p.add_argument("--task", metavar="SPEC", help="with --from: the automaton (family spec or FILE.json)")
    p.add_argument("--tokens", metavar="MAP", help="with --from: the token id of each task symbol, NAME=ID,... "
                                                   "or a tokenizer.json (default: symbol i is token i)")
    p.add_argument("--labels", metavar="MAP", help="with --from: the token id whose logit stands for each class "
                                                   "(default: class i is token i)")
    p.add_argument("--dtype", choices=("bfloat16", "float16", "float32", "float64"), default=None,
                   help="with --from: the float format the model runs in (default: the checkpoint's torch_dtype, "
                        "float32 when it names none); float64 is certified beside it")
    p.set_defaults(handler=_run)


def _checkpoint_dtype(folder: str) -> str:
    """The ``torch_dtype`` (or ``dtype``) a checkpoint's config.json names, float32 when none."""
    try:
        data = json.loads((Path(folder) / "config.json").read_text())
    except (OSError, ValueError):
        return "float32"
    name = str(data.get("torch_dtype") or data.get("dtype") or "float32").replace("torch.", "")
    return name if name in ("bfloat16", "float16", "float32", "float64") else "float32"


def _run_from(args) -> int:
    """``certify --from fla DIR --task SPEC``: every input checked before the work."""
    from bilinear.automata.families import resolve
    from bilinear.constructions.proof.search import BudgetSpent, deadline
    from bilinear.learned.external import load_external

    from .certify_external import certify_external

    if not args.task:
        raise AnalysisError("--from fla DIR needs --task SPEC")
    if args.run_dir or args.weights or args.write:
        raise AnalysisError("--from certifies a checkpoint: leave out RUN_DIR, --weights and --write")
    source, folder = args.from_
    if source != "fla":
        raise AnalysisError(f"certify --from takes fla, got {source!r}")
    automaton = resolve(args.task)
    model = load_external(folder, source)
    dtype = args.dtype or _checkpoint_dtype(folder)
    try:
        with deadline(args.time_budget):
            cert = certify_external(model, automaton, args.tokens, args.labels,
                                    dtypes=tuple(dict.fromkeys(("float64", dtype))))
    except BudgetSpent:
        print(f"bilinear: certify: not finished within the time budget of {args.time_budget:g} s "
              "(nothing printed); raise --time-budget", file=sys.stderr)
        return 3
    if args.json:
        print(json.dumps(cert.to_json(), indent=2, allow_nan=False, default=str))
    else:
        print(cert.to_text(), end="")
    return 0


def _snap_tol(text: str) -> float:
    """``--snap-tol``: a float in (0, 0.5]."""
    import argparse
    import math

    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number in (0, 0.5], got {text!r}") from None
    if not math.isfinite(value) or not 0 < value <= 0.5:
        raise argparse.ArgumentTypeError(f"expected a number in (0, 0.5], got {text!r}")
    return value


def load_network(run_dir=None, weights_file=None, allow_unsigned=False):
    """``(weights, automaton)`` of a run directory or a (weights file, spec) pair
    (:func:`load_network_and_length` also gives the run's test length).

    AnalysisError for a missing or unfinished run, a baseline run, or unless exactly one is given.
    """
    return load_network_and_length(run_dir, weights_file, allow_unsigned)[:2]


def load_network_and_length(run_dir=None, weights_file=None, allow_unsigned=False):
    """``(weights, automaton, test length)``: the run's own ``test_len``, :data:`TEST_LENGTH`
    for a weights file."""
    if (run_dir is None) == (weights_file is None):
        raise AnalysisError("give exactly one of RUN_DIR, --weights FILE SPEC")
    if weights_file is not None:
        from bilinear.automata import from_spec
        from bilinear.constructions.values.stack import Stack
        from bilinear.constructions.values.stack import load_network as load_any

        path, spec = weights_file
        network = load_any(path, allow_unsigned=allow_unsigned)
        if isinstance(network, Stack) and network.depth == 1:
            network = network.layers[0]
        return network, from_spec(spec), TEST_LENGTH
    from bilinear.learned.runs import load_run

    path = Path(run_dir)
    if not path.is_dir():
        raise AnalysisError(f"run directory {str(path)!r} does not exist")
    try:
        config, model, automaton, _ = load_run(path)
    except BilinearError as exc:
        raise AnalysisError(f"run directory {str(path)!r}: {exc}") from None
    if not hasattr(model, "to_weights"):
        raise AnalysisError(
            f"run directory {str(path)!r} holds a {config.model} baseline, not a bilinear network: "
            "only bilinear networks can be certified"
        )
    return model.to_weights(), automaton, int(config.test_len)


def _run(args) -> int:
    if args.from_:
        return _run_from(args)
    if args.task or args.tokens or args.labels or args.dtype:
        raise AnalysisError("--task, --tokens, --labels and --dtype go with --from fla DIR")
    if args.force and args.write is None:
        raise AnalysisError("--force needs --write FILE")
    if args.write is not None:  # the overwrite rule, checked before the work (an empty name too)
        check_output_file(args.write, force=args.force)
        check_apart(args.write, [args.run_dir, *(args.weights or ())[:1]], what="--write file")
    from bilinear.constructions.proof.search import BudgetSpent, deadline
    from bilinear.progress import Progress

    try:
        with deadline(args.time_budget):
            weights, automaton, run_length = load_network_and_length(args.run_dir, args.weights,
                                                                      allow_unsigned=args.unsigned)
            test_length = args.test_length if args.test_length is not None else run_length
            from bilinear.constructions.values.stack import Stack

            if args.snap_tol is not None and not isinstance(weights, Stack):
                raise AnalysisError("--snap-tol is for stacks of layers; one network is snapped by the one-layer "
                                    "rules (docs/certify.md)")
            cert: NetworkCertificate | StackCertificate
            with Progress("certify"):  # off a terminal: a line on stderr every few seconds
                if isinstance(weights, Stack):  # snap, prove, and Theorem S5 layer by layer
                    cert = certify_stack(weights, automaton, test_length=test_length, tol=args.snap_tol)
                else:
                    cert = certify_network(weights, automaton, search_length=args.search_length,
                                           test_length=test_length)
    except BudgetSpent:
        print(f"bilinear: certify: not finished within the time budget of {args.time_budget:g} s "
              f"(nothing printed{', nothing written' if args.write else ''}); raise --time-budget", file=sys.stderr)
        return 3
    error: str | None = None
    if args.write:
        from dataclasses import replace

        from bilinear.errors import BilinearError

        try:  # the snap in the trained basis may not conform to the variant: say why, after the certificate
            snapped = cert.snapped_weights()
        except BilinearError as exc:
            snapped, error = None, f"{exc} (so no snap to write to {args.write})"
        if snapped is None and error is None:
            error = f"no snapped network was proved, nothing to write to {args.write}"
        elif snapped is not None:
            snapped.save(args.write)
        cert = replace(cert, write_error=error)
    if args.json:
        print(json.dumps(dict(cert.to_json(), written=None if (error or not args.write) else args.write),
                         indent=2, allow_nan=False))
    else:
        print(cert.to_text(), end="")
    if error:  # the certificate is printed; the missing file is the error (exit status 2)
        raise AnalysisError(error)
    return 0

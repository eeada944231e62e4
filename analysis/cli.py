"""``bilinear analyze``: what did the network learn?

    bilinear analyze RUN_DIR [--out DIR [--force]] [--json]        a finished training run
                                                                   (a baseline's: accuracy and extraction)
    bilinear analyze --construction SPEC VARIANT [--out DIR]       a hand construction
    bilinear analyze --construction SPEC VARIANT --layers L        the stack verify --layers L proves
    bilinear analyze --weights FILE SPEC [--out DIR]               saved Weights (JSON) against SPEC
    bilinear analyze --from fla|hf DIR --task SPEC [--tokens MAP]  an fla / transformers checkpoint
                                                                   (docs/your-model.md)

Prints the text report (Markdown) or, with ``--json``, the JSON report on stdout; with ``--out``
also writes ``report.md``, ``report.json`` and the PNG figures there (after everything has been
computed, so a failure writes nothing); a non-empty ``--out`` folder is refused unless ``--force``
(replace it).  Bad input (missing or unfinished run, unknown family or
variant, non-positive tolerance) is one line on stderr and exit status 2; ``--time-budget SECONDS``
stops the analysis after SECONDS, one line on stderr and exit status 3 (nothing printed or written);
the extraction's radius search gets half of it (60 s without a budget) and says when it stopped.
"""

from __future__ import annotations

import json
import sys

from bilinear.argtypes import add_json, add_run_dir, add_time_budget, add_weights_file, nonnegative_int, positive_float, positive_int, seed
from bilinear.constructions.values.weights import Weights
from bilinear.errors import AnalysisError
from bilinear.extras import require
from bilinear.fileio import check_apart, check_output_dir, prepare_output_dir

from .extract import RADIUS_SECONDS, ExtractConfig
from .lstar import LStarConfig
from .report import AnalysisConfig, analyze, analyze_tracker
from .targets import load_target  # noqa: F401  (also importable from here, as before)

__all__ = ["register"]


def register(sub) -> None:
    """Add the ``analyze`` sub-command."""
    d = AnalysisConfig()
    e = ExtractConfig()
    p = sub.add_parser(
        "analyze",
        help="spectra, commutators, relation residuals and extracted automaton of a network",
        description=(
            "Analyse a trained run (RUN_DIR) or a hand construction (--construction SPEC VARIANT): "
            "eigenvalues against roots of unity, commutators, the automaton's defining relations, "
            "and the automaton extracted from the hidden states, compared with the truth. A run of "
            "a baseline (lstm, rnn, transformer, mamba) has no transition matrices: its report has "
            "the accuracy by length and the extracted automaton only."
        ),
    )
    add_run_dir(p)
    p.add_argument("--construction", nargs=2, metavar=("SPEC", "VARIANT"),
                   help="analyse constructions.build(SPEC, VARIANT) instead of a run")
    p.add_argument("--layers", type=positive_int, default=None, metavar="L",
                   help="with --construction: the stack of L layers that `bilinear verify SPEC VARIANT --layers L` "
                        "proves (accuracy by length and extraction; a stack has no single set of matrices)")
    add_weights_file(p, "analyse a saved Weights file (Weights.save JSON) against the automaton SPEC", with_spec=True)
    p.add_argument("--from", dest="from_", nargs=2, metavar=("fla|hf", "DIR"),
                   help="analyse a flash-linear-attention (fla) or transformers (hf) checkpoint folder "
                        "(config.json + model.safetensors or pytorch_model.bin) against --task")
    p.add_argument("--task", metavar="SPEC", help="with --from: the automaton (family spec or FILE.json)")
    p.add_argument("--tokens", metavar="MAP",
                   help="with --from: the token id of each task symbol, NAME=ID,... or a tokenizer.json "
                        "(default: symbol i is token i)")
    p.add_argument("--labels", metavar="MAP",
                   help="with --from: the token id whose logit stands for each class, NAME=ID,... "
                        "(default: class i is token i)")
    p.add_argument("--bos", type=nonnegative_int, default=None, metavar="ID",
                   help="with --from: a token prepended to every word (default: none)")
    p.add_argument("--head-layers", type=positive_int, default=1, metavar="L",
                   help="with --from: analyse the heads of the first L layers (default 1; layers past the first "
                        "are sampled on visited states)")
    p.add_argument("--curve-length", type=positive_int, default=None, metavar="N",
                   help="accuracy by length up to N (default 2000; 200 with --from, run by the model's own "
                        "float64 forward)")
    p.add_argument("--out", metavar="DIR", help="write report.md, report.json and the figures here")
    p.add_argument("--force", action="store_true", help="replace a non-empty --out folder")
    add_json(p, "print the JSON report instead of the text")
    add_time_budget(p, "stop after SECONDS of analysis (exit status 3, nothing printed or written); "
                       "default: no limit")
    p.add_argument("--no-figures", action="store_true", help="with --out: skip the figures")
    p.add_argument("--format", choices=("png", "svg", "pdf"), default="png",
                   help="with --out: file format of the figures (default png)")
    p.add_argument("--tol", type=positive_float, default=d.tol,
                   help=f"scale-free tolerance of float algebra (default {d.tol:g})")
    p.add_argument("--max-order", type=positive_int, default=d.max_order,
                   help=f"largest order searched (default {d.max_order})")
    p.add_argument("--cluster-tol", type=positive_float, default=e.tol,
                   help="cluster radius of the extraction, unit hidden states (default: chosen at the "
                        "largest gap of the distances between hidden states; 'ambiguous' when there is none)")
    p.add_argument("--words", type=positive_int, default=e.words,
                   help=f"random words sampled for the extraction (default {e.words})")
    p.add_argument("--length", type=positive_int, default=e.length,
                   help=f"length of each sampled word (default {e.length})")
    p.add_argument("--seed", type=seed, default=e.seed, help=f"seed of the word sampler (default {e.seed})")
    p.add_argument("--method", choices=("auto", "geometry", "behaviour"), default=e.method,
                   help="extraction: tolerance clusters of hidden states (geometry), label signatures "
                        "(behaviour), or geometry then behaviour when the clusters are not separated "
                        f"(default {e.method})")
    p.add_argument("--horizon", type=nonnegative_int, default=e.horizon,
                   help=f"behaviour: signatures over words of length <= HORIZON (default {e.horizon})")
    p.add_argument("--burn-in", type=nonnegative_int, default=None,
                   help="steps before clustering (default: 0, then length // 2 if not separated)")
    p.add_argument("--lstar", action="store_true",
                   help="also learn the automaton with AALpy's L* (extra aalpy; its random-walk oracle seeded "
                        "by --seed) and compare it with the extraction: isomorphic, or the shortest word on "
                        "which they differ")
    p.set_defaults(handler=_run)


def _run(args) -> int:
    config = AnalysisConfig(
        tol=args.tol,
        max_order=args.max_order,
        extract=ExtractConfig(
            words=args.words, length=args.length, tol=args.cluster_tol, seed=args.seed,
            method=args.method, horizon=args.horizon, burn_in=args.burn_in,
            # the radius search takes at most half of the analysis' budget, so that the report
            # still finishes within it (the search says when it stopped)
            radius_seconds=RADIUS_SECONDS if args.time_budget is None else min(RADIUS_SECONDS, args.time_budget / 2),
        ),
        lstar=LStarConfig(seed=args.seed) if args.lstar else None,
        curve_length=args.curve_length or (200 if args.from_ else 2000),
    )
    if args.lstar:  # the optional extra, before any work
        require("aalpy.learning_algs", "aalpy", "L* extraction (aalpy)")
    if args.out is not None and not args.out.strip():
        raise AnalysisError("--out needs a folder name, got an empty one")
    if args.force and not args.out:
        raise AnalysisError("--force needs --out DIR")
    if args.out:  # the overwrite rule, checked before the work; the folder is replaced after it
        check_apart(args.out, _input_paths(args), what="--out folder")
        check_output_dir(args.out, force=args.force)
    from bilinear.constructions.proof.search import BudgetSpent, deadline

    if args.from_ or args.task:
        return _run_external(args, config)
    try:
        with deadline(args.time_budget):
            weights, automaton, title, source = load_target(args.run_dir, args.construction, args.weights,
                                                            allow_unsigned=args.unsigned, layers=args.layers)
            train_range = tuple(source["train_range"]) if "train_range" in source else None  # a run's: shaded
            if isinstance(weights, Weights):
                report = analyze(weights, automaton, config, title=title, source=source, train_range=train_range)
            else:  # a baseline run: accuracy by length and the extracted automaton only
                report = analyze_tracker(weights, automaton, config, title=title, source=source,
                                         train_range=train_range)
    except BudgetSpent:
        print(f"bilinear: analyze: not finished within the time budget of {args.time_budget:g} s "
              f"(nothing printed{', nothing written' if args.out else ''}); raise --time-budget", file=sys.stderr)
        return 3
    if args.out:
        _write_report(report, args)
    if args.json:
        print(json.dumps(report.to_json(), indent=2, allow_nan=False))
    else:
        print(report.to_markdown(), end="")
    return 0


def _run_external(args, config) -> int:
    """``analyze --from fla|hf DIR --task SPEC``: every input checked before any analysis, nothing
    written unless the whole report was computed."""
    from bilinear.automata.families import resolve
    from bilinear.constructions.proof.search import BudgetSpent, deadline
    from bilinear.learned.external import load_external

    from .external import analyze_external

    if not args.from_ or not args.task:
        raise AnalysisError("--from fla|hf DIR and --task SPEC go together")
    if args.run_dir or args.construction or args.weights:
        raise AnalysisError("--from analyses a checkpoint: leave out RUN_DIR, --construction and --weights")
    source, folder = args.from_
    if source not in ("fla", "hf"):
        raise AnalysisError(f"--from takes fla or hf, got {source!r}")
    automaton = resolve(args.task)
    model = load_external(folder, source)
    try:
        with deadline(args.time_budget):
            report = analyze_external(model, automaton, args.tokens, args.labels, args.bos, config,
                                      layers=args.head_layers)
    except BudgetSpent:
        print(f"bilinear: analyze: not finished within the time budget of {args.time_budget:g} s "
              f"(nothing printed{', nothing written' if args.out else ''}); raise --time-budget", file=sys.stderr)
        return 3
    if args.out:
        _write_report(report, args)
    if args.json:
        print(json.dumps(report.to_json(), indent=2, allow_nan=False, default=str))
    else:
        print(report.to_markdown(), end="")
    return 0


def _input_paths(args) -> list:
    """The files and folders ``analyze`` reads: the run, the weights file, an automaton file."""
    paths = [args.run_dir, args.weights[0] if args.weights else None, args.from_[1] if args.from_ else None]
    specs = [args.weights[1] if args.weights else None, args.construction[0] if args.construction else None]
    paths += [s.strip() for s in specs if isinstance(s, str) and s.strip().endswith(".json")]  # automaton files
    return [p for p in paths if isinstance(p, str) and p.strip()]


def _write_report(report, args) -> None:
    """``report.write`` into ``--out``; when writing fails (a full disk, a name the file system
    refuses) a folder this call created is removed again, so no empty or half-written folder is
    left, and the error (naming the file) goes on to the command line."""
    import os
    import shutil

    existed = os.path.lexists(args.out)
    folder = prepare_output_dir(args.out, force=args.force)
    try:
        report.write(folder, figures=not args.no_figures, fmt=args.format)
    except BaseException:
        if not existed:
            shutil.rmtree(folder, ignore_errors=True)
        raise

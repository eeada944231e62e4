"""``bilinear analyze``: what did the network learn?

    bilinear analyze RUN_DIR [--out DIR] [--json]                  a finished training run
    bilinear analyze --construction SPEC VARIANT [--out DIR]       a hand construction
    bilinear analyze --weights FILE SPEC [--out DIR]               saved Weights (JSON) against SPEC

Prints the text report (Markdown) or, with ``--json``, the JSON report on stdout; with ``--out``
also writes ``report.md``, ``report.json`` and the PNG figures there (after everything has been
computed, so a failure writes nothing).  Bad input (missing or unfinished run, unknown family or
variant, non-positive tolerance) is one line on stderr and exit status 2.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from bilinear.cli import positive_float, positive_int
from bilinear.errors import AnalysisError, BilinearError

from .extract import ExtractConfig
from .report import AnalysisConfig, analyze

__all__ = ["register", "load_target"]


def _seed(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be >= 0, got {text!r}")
    return value


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
            "and the automaton extracted from the hidden states, compared with the truth."
        ),
    )
    p.add_argument("run_dir", nargs="?", metavar="RUN_DIR", help="a finished training run directory")
    p.add_argument("--construction", nargs=2, metavar=("SPEC", "VARIANT"),
                   help="analyse constructions.build(SPEC, VARIANT) instead of a run")
    p.add_argument("--weights", nargs=2, metavar=("FILE", "SPEC"),
                   help="analyse a saved Weights file (Weights.save JSON) against the automaton SPEC")
    p.add_argument("--out", metavar="DIR", help="write report.md, report.json and PNG figures here")
    p.add_argument("--json", action="store_true", help="print the JSON report instead of the text")
    p.add_argument("--no-figures", action="store_true", help="with --out: skip the PNG figures")
    p.add_argument("--tol", type=positive_float, default=d.tol,
                   help=f"scale-free tolerance of float algebra (default {d.tol:g})")
    p.add_argument("--max-order", type=positive_int, default=d.max_order,
                   help=f"largest order searched (default {d.max_order})")
    p.add_argument("--cluster-tol", type=positive_float, default=e.tol,
                   help=f"cluster radius of the extraction, unit hidden states (default {e.tol:g})")
    p.add_argument("--words", type=positive_int, default=e.words,
                   help=f"random words sampled for the extraction (default {e.words})")
    p.add_argument("--length", type=positive_int, default=e.length,
                   help=f"length of each sampled word (default {e.length})")
    p.add_argument("--seed", type=_seed, default=e.seed, help=f"seed of the word sampler (default {e.seed})")
    p.add_argument("--method", choices=("auto", "geometry", "behaviour"), default=e.method,
                   help="extraction: tolerance clusters of hidden states (geometry), label signatures "
                        "(behaviour), or geometry then behaviour when the clusters are not separated "
                        f"(default {e.method})")
    p.add_argument("--horizon", type=_seed, default=e.horizon,
                   help=f"behaviour: signatures over words of length <= HORIZON (default {e.horizon})")
    p.add_argument("--burn-in", type=_seed, default=None,
                   help="steps before clustering (default: 0, then length // 2 if not separated)")
    p.set_defaults(handler=_run)


def load_target(run_dir=None, construction=None, weights_file=None):
    """``(weights, automaton, title, source)`` for a run directory, a (spec, variant) pair, or a
    (weights file, spec) pair.

    AnalysisError for a missing or unfinished run directory, or unless exactly one is given.
    """
    given = [x is not None for x in (run_dir, construction, weights_file)]
    if sum(given) != 1:
        raise AnalysisError("give exactly one of RUN_DIR, --construction SPEC VARIANT, --weights FILE SPEC")
    if weights_file is not None:
        from bilinear.automata import from_spec
        from bilinear.constructions.weights import Weights

        path, spec = weights_file
        automaton = from_spec(spec)
        weights = Weights.load(path)
        return weights, automaton, f"weights {Path(path).name} / {automaton.name or spec}", {
            "weights": str(path)
        }
    if construction is not None:
        from bilinear.automata import from_spec
        from bilinear.constructions import build

        spec, variant = construction
        weights = build(spec, variant)
        automaton = from_spec(spec)
        return weights, automaton, f"construction {automaton.name or spec} / {weights.variant}", {
            "construction": f"{spec} {variant}"
        }
    path = Path(run_dir)
    if not path.is_dir():
        raise AnalysisError(f"run directory {str(path)!r} does not exist")
    from bilinear.learned.runs import RESULT_FILE

    if not (path / RESULT_FILE).is_file():
        raise AnalysisError(f"run directory {str(path)!r} has no {RESULT_FILE}: the run is not finished")
    try:
        from bilinear.learned.runs import load_run
    except ModuleNotFoundError as exc:  # pragma: no cover - the learned room is part of the package
        raise AnalysisError(f"cannot load runs: {exc}") from None
    try:
        config, model, automaton, result = load_run(path)
    except BilinearError as exc:
        raise AnalysisError(f"run directory {str(path)!r}: {exc}") from None
    weights = model.to_weights()
    source = {"run": str(path)}
    if isinstance(result, dict):
        for key in ("test_accuracy_normalized", "train_accuracy", "steps", "params"):
            if key in result:
                source[key] = result[key]
    return weights, automaton, f"run {path.name}", source


def _run(args) -> int:
    config = AnalysisConfig(
        tol=args.tol,
        max_order=args.max_order,
        extract=ExtractConfig(
            words=args.words, length=args.length, tol=args.cluster_tol, seed=args.seed,
            method=args.method, horizon=args.horizon, burn_in=args.burn_in,
        ),
    )
    weights, automaton, title, source = load_target(args.run_dir, args.construction, args.weights)
    report = analyze(weights, automaton, config, title=title, source=source)
    if args.out:
        report.write(args.out, figures=not args.no_figures)
    if args.json:
        print(json.dumps(report.to_json(), indent=2, allow_nan=False))
    else:
        print(report.to_markdown(), end="")
    return 0

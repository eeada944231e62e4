"""``bilinear train``, ``bilinear sweep`` and ``bilinear reproduce``.

    bilinear train SPEC MODEL [--steps N] [--lr X] [--seed S] [--hidden H] [--out DIR] [--json] [--resume]
    bilinear sweep FILE.toml [--out DIR] [--workers N] [--ray ADDRESS]
    bilinear reproduce [--quick | --medium] [--out DIR] [--workers N] [--ray ADDRESS]

Options of ``train`` default to the fields of :class:`~bilinear.learned.config.TrainConfig`;
invalid values (unknown family or model, lengths out of order, non-positive learning rate or
steps, a hidden size the block size does not divide, a missing or corrupt checkpoint on
``--resume``) are one line on stderr and exit status 2.  ``--resume`` continues the run in
``--out`` (the same command line, plus ``--resume``) and ends where the uninterrupted run would
have.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from bilinear.errors import ConfigError

from .config import TrainConfig

__all__ = ["register"]


def _add_train(sub) -> None:
    d = TrainConfig()
    p = sub.add_parser(
        "train",
        help="train one model on one automaton (train on lengths 2-10, evaluate at 500)",
        description="Train MODEL on the automaton SPEC under the paper's protocol and report the "
        "normalised accuracy at the test length (0 = chance, 1 = perfect).",
    )
    p.add_argument("spec", metavar="SPEC", help="automaton family spec, e.g. parity, cyclic:5")
    p.add_argument("model", metavar="MODEL",
                   help="full, factorized:R, block:B, rotation2d, diagonal, positive, lstm, rnn, transformer[:L], mamba")
    p.add_argument("--steps", type=int, default=d.steps, help=f"most optimizer steps (default {d.steps})")
    p.add_argument("--lr", type=float, default=d.lr, help=f"Adam learning rate (default {d.lr:g})")
    p.add_argument("--seed", type=int, default=d.seed, help=f"seed of init and data (default {d.seed})")
    p.add_argument("--hidden", type=int, default=d.hidden, help=f"hidden size (default {d.hidden})")
    p.add_argument("--embed", type=int, default=d.embed, help="embed tokens in this many dims (default one-hot)")
    p.add_argument("--additive", action="store_true", help="ablation: add B x_t + b (not bilinear)")
    p.add_argument("--batch", type=int, default=d.batch, help=f"batch size (default {d.batch})")
    p.add_argument("--train-len", type=int, nargs=2, metavar=("MIN", "MAX"),
                   default=(d.train_min_len, d.train_max_len), help="training lengths (default 2 10)")
    p.add_argument("--test-len", type=int, default=d.test_len, help=f"evaluation length (default {d.test_len})")
    p.add_argument("--test-words", type=int, default=d.test_words, help=f"evaluation words (default {d.test_words})")
    p.add_argument("--patience", type=int, default=d.patience,
                   help=f"stop after this many perfect evaluations in a row (default {d.patience})")
    p.add_argument("--early-stop", default=d.early_stop, choices=("validation", "train", "none"),
                   help="stop on perfect held-out longer words, on perfect training batches, or never "
                   f"(default {d.early_stop})")
    p.add_argument("--val-len", type=int, nargs=2, metavar=("MIN", "MAX"), default=(d.val_min_len, d.val_max_len),
                   help=f"validation word lengths (default {d.val_min_len} {d.val_max_len})")
    p.add_argument("--val-words", type=int, default=d.val_words, help=f"validation words (default {d.val_words})")
    p.add_argument("--eval-every", type=int, default=d.eval_every, help=f"steps per evaluation (default {d.eval_every})")
    p.add_argument("--n-train", type=int, default=None, help="distinct training words (default: fresh every step)")
    p.add_argument("--match-params", type=int, default=None, help="choose the hidden size with about this many parameters")
    p.add_argument("--no-normalize-train", action="store_true", help="do not renormalise h in training")
    p.add_argument("--init", default=d.init, help=f"orthogonal or identity (default {d.init})")
    p.add_argument("--scan", default=d.scan, help="auto, sequential or parallel (default auto)")
    p.add_argument("--device", default=d.device, help="cpu, cuda or auto (default cpu)")
    p.add_argument("--lr-grid", metavar="X,Y,...", default=None,
                   help="train once per learning rate and keep the best (the paper's grid: 1e-3,1e-4,1e-5)")
    p.add_argument("--out", metavar="DIR", help="run directory: config, metrics, checkpoints, model, result")
    p.add_argument("--resume", action="store_true", help="continue the interrupted run in --out")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    p.set_defaults(handler=_train)


def _train(args) -> int:
    from .runs import train_run
    from .train import train, train_best_lr

    config = TrainConfig(
        spec=args.spec, model=args.model, steps=args.steps, lr=args.lr, seed=args.seed, hidden=args.hidden,
        embed=args.embed, additive=args.additive, batch=args.batch, train_min_len=args.train_len[0],
        train_max_len=args.train_len[1], test_len=args.test_len, test_words=args.test_words,
        patience=args.patience, eval_every=args.eval_every, n_train=args.n_train,
        match_params=args.match_params, normalize_train=not args.no_normalize_train, init=args.init,
        scan=args.scan, device=args.device, early_stop=args.early_stop, val_min_len=args.val_len[0],
        val_max_len=args.val_len[1], val_words=args.val_words,
    )
    if args.resume and not args.out:
        raise ConfigError("--resume needs --out DIR (the run directory to continue)")
    if args.lr_grid is not None:
        if args.out:
            raise ConfigError("--lr-grid trains several runs; use 'bilinear sweep' to keep their directories")
        try:
            lrs = tuple(float(x) for x in args.lr_grid.split(",") if x.strip())
        except ValueError:
            raise ConfigError(f"--lr-grid must be comma-separated numbers, got {args.lr_grid!r}") from None
        config = config.replace(lrs=lrs)  # validates every learning rate
        result = train_best_lr(config, quiet=args.quiet)
    elif args.out:
        result = train_run(config, args.out, resume=args.resume, quiet=args.quiet)
    else:
        result = train(config, quiet=args.quiet)
    if args.json:
        print(json.dumps(result, indent=2, sort_keys=True))
    else:
        print(
            f"{result['spec']} / {result['model']} (hidden {result['hidden']}, {result['params']} params): "
            f"{result['steps']} steps{' (early stop)' if result['stopped_early'] else ''}, "
            f"train accuracy {result['train_accuracy']:.4f}, normalised accuracy at length "
            f"{result['test_len']}: {result['test_accuracy_normalized']:.4f} "
            f"(final position {result['test_final_accuracy_normalized']:.4f})"
        )
        if args.out:
            print(f"run directory: {args.out}")
    return 0


def _add_sweep(sub) -> None:
    p = sub.add_parser(
        "sweep",
        help="train a grid of families x models x learning rates x seeds into one results table",
        description="Run the grid of a TOML sweep file (keys: families, models, lrs, seeds, workers, "
        "[train]) and write results.csv and results.md.",
    )
    p.add_argument("file", metavar="FILE.toml", help="the sweep file")
    p.add_argument("--out", metavar="DIR", help="output folder (default runs/<file stem>)")
    p.add_argument("--workers", type=int, default=None, help="local worker processes (default: the file's, else 1)")
    p.add_argument("--ray", metavar="ADDRESS", default=None, help="run on this Ray cluster (needs bilinear[ray])")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(handler=_sweep)


def _sweep(args) -> int:
    from .sweep import Sweep, markdown_table, results_table, run_sweep

    sweep = Sweep.load(args.file)
    if args.workers is not None and args.workers < 1:
        raise ConfigError(f"--workers must be >= 1, got {args.workers}")
    out = Path(args.out) if args.out else Path("runs") / Path(args.file).stem
    rows = run_sweep(sweep, out, workers=args.workers, ray_address=args.ray, quiet=args.quiet)
    print(markdown_table(results_table(rows), sweep.row_labels(), sweep.models))
    print(f"results: {out / 'results.csv'}, {out / 'results.md'}")
    return 0


def _add_reproduce(sub) -> None:
    p = sub.add_parser(
        "reproduce",
        help="Table 1: normalised length-500 accuracy of bilinear variants and LSTM",
        description="Reproduce Table 1 of the paper; --quick is a reduced table (about 15 minutes on 2 cores).",
    )
    size = p.add_mutually_exclusive_group()
    size.add_argument("--quick", action="store_true", help="the reduced table")
    size.add_argument("--medium", action="store_true",
                      help="every experiment's rows at hidden 16, 600 steps (sized for < 1 hour on 2 cores)")
    p.add_argument("--ray", metavar="ADDRESS", default=None, help="run on this Ray cluster (needs bilinear[ray])")
    p.add_argument("--out", metavar="DIR", help="output folder (default runs/reproduce[-quick|-medium])")
    p.add_argument("--workers", type=int, default=None, help="local worker processes (default 2)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(handler=_reproduce)


def _reproduce(args) -> int:
    from .reproduce import reproduce

    if args.workers is not None and args.workers < 1:
        raise ConfigError(f"--workers must be >= 1, got {args.workers}")
    size = "quick" if args.quick else "medium" if args.medium else "full"
    out = Path(args.out) if args.out else Path("runs") / ("reproduce" if size == "full" else f"reproduce-{size}")
    table = reproduce(out, workers=args.workers, quiet=args.quiet, size=size, ray_address=args.ray)
    print("Normalised accuracy at length 500 (0 = chance, 1 = perfect):")
    print(table)
    print(f"results: {out / 'results.csv'}, {out / 'results.md'}")
    sys.stdout.flush()
    return 0


def register(sub) -> None:
    """Add ``train``, ``sweep`` and ``reproduce``."""
    _add_train(sub)
    _add_sweep(sub)
    _add_reproduce(sub)

"""``bilinear train``, ``bilinear sweep`` and ``bilinear reproduce``.

    bilinear train SPEC MODEL [--steps N] [--lr X] [--seed S] [--hidden H] [--out DIR] [--json] [--resume | --force]
    bilinear sweep FILE.toml [--out DIR] [--workers N] [--ray ADDRESS] [--resume | --force]
    bilinear reproduce [--quick | --medium | --full] [--part NAME] [--dry-run] [--yes] [--device D] [--out DIR] [--workers N] [--ray ADDRESS] [--resume | --force]

Every output folder follows one rule: a non-empty folder is refused unless ``--resume``
(continue it) or ``--force`` (replace it).

The arguments of ``train`` are generated from the fields of
:class:`~bilinear.learned.config.TrainConfig` (name, type, default, and the help in the field's
metadata); the config's own validation checks their bounds, so invalid values (unknown family
or model, lengths out of order, non-positive learning rate or steps, a hidden size the block
size does not divide, a missing or corrupt checkpoint on ``--resume``) are one line on stderr
and exit status 2.  ``--resume`` continues the run in
``--out`` (the same command line, plus ``--resume``) and ends where the uninterrupted run would
have.
"""

from __future__ import annotations

import dataclasses
import json
import sys
import typing
from pathlib import Path

from bilinear.argtypes import add_json, add_run_dir, positive_int, seed
from bilinear.errors import ConfigError
from bilinear.metrics import AT_LENGTH, MEAN_OVER_POSITIONS, TEST_LENGTH, headline_label

from .config import PRESETS, TrainConfig
from .runs import RESULTS_CSV, RESULTS_MD


__all__ = ["register", "config_from_args"]


def _train_options() -> list[tuple[dataclasses.Field, tuple[str, ...]]]:
    """The ``train`` arguments generated from :class:`TrainConfig`: (first field, fields it sets).

    Every field is one argument unless its metadata says ``option=None`` or it shares the option
    of an earlier field (``with_fields``)."""
    fields = {f.name: f for f in dataclasses.fields(TrainConfig)}
    shared = {name for f in fields.values() for name in f.metadata.get("with_fields", ())}
    return [
        (f, (f.name, *f.metadata.get("with_fields", ())))
        for f in fields.values()
        if f.name not in shared and f.metadata.get("option", "") is not None
    ]


def _value_type(annotation) -> type:
    """The argparse type of a field annotation (``int | None`` -> int); bounds are the config's."""
    if annotation in (bool, int, float, str):
        return annotation
    args = [a for a in typing.get_args(annotation) if a is not type(None)]
    if len(args) == 1 and args[0] in (int, float, str):
        return args[0]
    raise TypeError(f"TrainConfig field type {annotation!r} has no command-line form")  # pragma: no cover


def _add_config_argument(p, f: dataclasses.Field, names: tuple[str, ...], annotation) -> None:
    meta = f.metadata
    help_text = meta.get("help", "")
    if "positional" in meta:
        p.add_argument(f.name, metavar=meta["positional"], help=help_text)
        return
    flag = meta.get("option") or "--" + f.name.replace("_", "-")
    kind: typing.Callable[[str], typing.Any] = _value_type(annotation)
    if kind is bool and f.default:
        p.add_argument("--no-" + flag[2:], dest=f.name, action="store_false", help=help_text)
    elif kind is bool:
        p.add_argument(flag, dest=f.name, action="store_true", help=help_text)
    elif len(names) > 1:
        default = tuple(TrainConfig.__dataclass_fields__[n].default for n in names)
        help_text = help_text.replace("%(default)s", " ".join(map(str, default)))
        p.add_argument(flag, dest=f.name, type=kind, nargs=len(names), metavar=meta.get("metavar"),
                       default=default, help=help_text)
    else:
        kind = seed if f.name == "seed" else kind
        p.add_argument(flag, dest=f.name, type=kind, default=f.default, metavar=meta.get("metavar"), help=help_text)


def _add_train(sub) -> None:
    p = sub.add_parser(
        "train",
        help="train one model on one automaton (train on lengths 2-10, evaluate at 500)",
        description="Train MODEL on the automaton SPEC under the paper's protocol and report the "
        "normalised accuracy at the test length: the last position of test words of that length "
        "(0 = chance, 1 = perfect), with the mean over positions beside it.",
    )
    hints = typing.get_type_hints(TrainConfig)
    for f, names in _train_options():
        _add_config_argument(p, f, names, hints[f.name])
    p.add_argument("--lr-grid", metavar="X,Y,...", default=None,
                   help="train once per learning rate and keep the run the validation words choose (the paper's "
                   "grid: 1e-3,1e-4,1e-5)")
    p.add_argument("--out", metavar="DIR", help="run directory: config, metrics, checkpoints, model, result")
    p.add_argument("--resume", action="store_true", help="continue the interrupted run in --out")
    p.add_argument("--force", action="store_true", help="replace a non-empty --out folder")
    add_json(p, "print the result as JSON")
    p.add_argument("--preset", choices=tuple(PRESETS), default=None,
                   help="set the fields left at their defaults to a published protocol (docs/training.md, "
                   "\"Presets\"): " + "; ".join(f"{name} = " + ", ".join(f"{k} {v}" for k, v in fields.items())
                                                  for name, fields in PRESETS.items()))
    p.add_argument("--dry-run", action="store_true",
                   help="print the hidden size, the parameter count and the memory estimate; train nothing")
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    p.set_defaults(handler=_train)


def config_from_args(args) -> TrainConfig:
    """The :class:`TrainConfig` of parsed ``train`` arguments (validated: ConfigError)."""
    values: dict[str, typing.Any] = {}
    for f, names in _train_options():
        value = getattr(args, f.name)
        values.update(zip(names, value) if len(names) > 1 else [(f.name, value)])
    preset = PRESETS.get(getattr(args, "preset", None) or "", {})
    defaults = {f.name: f.default for f in dataclasses.fields(TrainConfig)}
    # an option the user gave keeps its value; an option of two fields (--train-len 2 20) is
    # given when either differs from its default
    option_of = {name: names for _, names in _train_options() for name in names}
    given = {name for name in preset if any(values[n] != defaults[n] for n in option_of.get(name, (name,)))}
    for name, value in preset.items():
        if name not in given:
            values[name] = value
    config = TrainConfig(**values)
    if config.data is not None and (values["train_min_len"], values["train_max_len"]) == (
            defaults["train_min_len"], defaults["train_max_len"]):
        config = _lengths_of_data(config)
    return config


def _lengths_of_data(config: TrainConfig) -> TrainConfig:
    """``config`` training on the lengths of its data file (shortest to longest word): the
    default when ``--train-len`` is not given (a file of words of length 8 trains on 8, and one
    longer than the default lengths is not refused)."""
    from bilinear.automata import from_spec
    from bilinear.automata.wordfile import MAX_WORD_LEN

    from .train import words_file

    assert config.data is not None  # the caller's condition
    ds = words_file(config.data, from_spec(config.spec), MAX_WORD_LEN, "--train-len", config.relabel)
    return config.replace(train_min_len=int(ds.lengths.min()), train_max_len=int(ds.lengths.max()))


def _train(args) -> int:
    from .train import dry_run, train, train_best_lr, train_run

    config = config_from_args(args)
    _check_out(args)
    if args.dry_run:
        if args.out or args.resume or args.force or args.lr_grid is not None:
            raise ConfigError("--dry-run trains and writes nothing: drop --out, --resume, --force and --lr-grid")
        plan = dry_run(config)
        if args.json:
            print(json.dumps(plan, indent=2, sort_keys=True))
        else:
            parts = ", ".join(f"{name} {n / 1e9:.3g} GB" for name, n in plan["memory_bytes"].items())
            embed = f", embed {plan['embed']}" if plan["embed"] else ""
            print(f"{plan['spec']} / {plan['model']} (hidden {plan['hidden']}{embed}): {plan['params']} params; "
                  f"estimated memory {plan['memory_gb']:.3g} GB ({parts}; limit {plan['max_memory_gb']:g} GB); "
                  f"dry run: nothing trained")
        return 0
    if (args.resume or args.force) and not args.out:
        raise ConfigError(f"{'--resume' if args.resume else '--force'} needs --out DIR (the run directory)")
    if args.resume and args.force:
        raise ConfigError("--resume continues a run and --force replaces it: give one")
    if config.log:
        from .loggers import check_loggers

        if not args.out:
            raise ConfigError("--log writes into the run folder: it needs --out DIR")
        check_loggers(config.log)
    if args.lr_grid is not None:
        if args.out:
            raise ConfigError("--lr-grid trains several runs; use 'bilinear sweep' to keep their directories")
        try:
            parts = args.lr_grid.split(",") if args.lr_grid.strip() else []  # "": the grid is empty
            if any(not x.strip() for x in parts):  # "1e-3,,1e-4": a missing value, not a shorter grid
                raise ValueError
            lrs = tuple(float(x) for x in parts)
        except ValueError:
            raise ConfigError(f"--lr-grid must be comma-separated numbers, got {args.lr_grid!r}") from None
        config = config.replace(lrs=lrs)  # validates every learning rate
        result = train_best_lr(config, quiet=args.quiet)
    elif args.out:
        result = train_run(config, args.out, resume=args.resume, quiet=args.quiet, force=args.force)
    else:
        result = train(config, quiet=args.quiet)
    if args.json:
        print(json.dumps(result, indent=2, sort_keys=True))
    else:
        if "test_data" in result:  # words of several lengths: no single test length to name
            low, high = result["test_data_lengths"]
            tested = (f"normalised accuracy on the {result['test_data_words']} words of {result['test_data']} "
                      f"(lengths {low}-{high}), last position: {result[AT_LENGTH]:.4f} (averaged over every "
                      f"position: {result[MEAN_OVER_POSITIONS]:.4f})")
        else:
            tested = (f"{headline_label(result[TEST_LENGTH])}: {result[AT_LENGTH]:.4f} (averaged over positions "
                      f"1-{result[TEST_LENGTH]}: {result[MEAN_OVER_POSITIONS]:.4f}{_near_end(result)})")
        trained = f" on the words of {result['data']}" if "data" in result else ""
        print(
            f"{result['spec']} / {result['model']} (hidden {result['hidden']}, {result['params']} params): "
            f"{result['steps']} steps{trained}{' (early stop)' if result['stopped_early'] else ''}, "
            f"train accuracy {result['train_accuracy']:.4f}"
            + (" (the hard cascade; the progress line's soft_mix_acc is the softmax mixture trained)"
               if result.get("layers", 1) > 1 and getattr(args, "stack_mixing", None) == "soft" else "")
            + f", {tested}"
        )
        if "lr_selection" in result:
            other = result["best_on_test"]
            print(f"learning rate {result['lr']:g} chosen on the validation words (of {len(result['lr_results'])}); "
                  f"the test words would have chosen {other['lr']:g} ({other[AT_LENGTH]:.4f}: optimistic)")
        if args.out:
            print(f"run directory: {args.out}")
    return 0


def _near_end(result: dict) -> str:
    """``; worst at lengths 451-500: -1.0000`` when that is below the headline: a failure at
    lengths just short of the test length is not hidden by the one length the headline reads."""
    worst, window = result.get("accuracy_worst_near_length"), result.get("near_length_window")
    if worst is None or window is None or worst >= result[AT_LENGTH]:
        return ""
    return f"; worst at lengths {window[0]}-{window[1]}: {worst:.4f}"


def _check_out(args) -> None:
    """``--out ""`` names no folder: an error, not the default."""
    if args.out is not None and not args.out.strip():
        raise ConfigError("--out needs a folder name, got an empty one")


def _add_sweep(sub) -> None:
    p = sub.add_parser(
        "sweep",
        help="train a grid of families x models x learning rates x seeds into one results table",
        description="Run the grid of a TOML sweep file (keys: families, models, lrs, seeds, workers, "
        "[train]) and write results.csv and results.md.",
    )
    p.add_argument("file", metavar="FILE.toml", help="the sweep file")
    p.add_argument("--out", metavar="DIR", help="output folder (default runs/<file stem>)")
    p.add_argument("--workers", type=positive_int, default=None,
                   help="local worker processes (default: the file's, else 1)")
    p.add_argument("--ray", metavar="ADDRESS", default=None, help="run on this Ray cluster (needs bilinear[ray])")
    _add_overwrite(p)
    _add_log(p)
    _add_estimate(p)
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(handler=_sweep)


def _add_estimate(p) -> None:
    """``--yes`` and ``--dry-run`` of the commands that train a grid (learned/estimate.py)."""
    from .estimate import CONFIRM_SECONDS

    p.add_argument("--yes", action="store_true",
                   help=f"start a local CPU run estimated at more than {CONFIRM_SECONDS / 3600:g} hour (without it such "
                        "a run prints the estimate, runs x steps x seconds per step measured here, and stops)")
    p.add_argument("--dry-run", action="store_true",
                   help="list every cell (runs, steps, estimated core-hours from seconds per step measured here on "
                        "each distinct model) and train nothing")
    add_json(p, "with --dry-run: print the listing as JSON")


def _guard(configs, args, workers: int, what: str) -> None:
    """ConfigError (nothing started) when a local CPU run of ``configs`` is estimated past an
    hour and ``--yes`` is not given; ``--ray`` or ``--device cuda`` runs elsewhere."""
    from .estimate import CONFIRM_SECONDS, estimate

    if args.yes or args.ray or getattr(args, "device", None) == "cuda":
        return
    if any(c.device == "cuda" for c in configs):
        return
    e = estimate(configs, workers=workers)
    if e.wall_seconds > CONFIRM_SECONDS:
        raise ConfigError(f"{what} is estimated at {e.text()}: add --yes to start it, or run it on a GPU (--device "
                          "cuda) or a cluster (--ray ADDRESS); --dry-run lists every cell")


def _print_plan(table_parts, workers, as_json: bool) -> None:
    from .estimate import plan, plan_text

    planned = plan(table_parts, workers=workers)
    if as_json:
        print(json.dumps(planned, indent=2, sort_keys=True))
    else:
        print(plan_text(planned))
    print("dry run: nothing trained", file=sys.stderr)


def _add_log(p) -> None:
    p.add_argument("--log", metavar="LOGGERS", default=None,
                   help="also log every run's metrics to tensorboard and/or wandb (offline), comma-separated, "
                        "into its run folder (needs bilinear[tensorboard] / bilinear[wandb])")


def _check_log(args) -> None:
    if args.log is not None:
        from .loggers import check_loggers

        check_loggers(args.log)


def _add_overwrite(p) -> None:
    """``--resume`` and ``--force`` of the commands that write a sweep folder."""
    group = p.add_mutually_exclusive_group()
    group.add_argument("--resume", action="store_true",
                       help="continue a non-empty output folder: reuse finished runs, resume interrupted ones")
    group.add_argument("--force", action="store_true", help="replace a non-empty output folder")


def _sweep(args) -> int:
    from .sweep import Sweep, markdown_table, run_sweep, seed_table

    _check_out(args)
    _check_log(args)
    sweep = Sweep.load(args.file)
    workers = args.workers or sweep.workers
    if args.dry_run:
        from types import SimpleNamespace

        _print_plan([SimpleNamespace(name=Path(args.file).stem, title=args.file, sweep=sweep)], workers, args.json)
        return 0
    if args.json:
        raise ConfigError("--json applies to --dry-run")
    _guard(sweep.configs(), args, workers, f"sweep {args.file}")
    out = Path(args.out) if args.out else Path("runs") / Path(args.file).stem
    rows = run_sweep(sweep, out, workers=args.workers, ray_address=args.ray, quiet=args.quiet,
                     force=args.force, resume=args.resume, log=args.log)
    print(markdown_table(seed_table(rows), sweep.row_labels(), sweep.models))
    print(f"results: {out / RESULTS_CSV}, {out / RESULTS_MD}")
    return 0


def _add_reproduce(sub) -> None:
    from .config import FULL_PART_NAMES

    p = sub.add_parser(
        "reproduce",
        help="Table 1 of the paper and the rebuttal's experiments (normalised accuracy at length 500)",
        description="--full (the default): Table 1 of the paper at its protocol, the paper's models (--preset paper: "
        "hidden 256, tokens embedded in 256 dimensions, rotation2d as angles), learning rates 1e-3, 1e-4, 1e-5, "
        "three seeds, 20,000 steps, 500 test words: Z_m for m in 2, 3, 5, 10, 25, 50, D_3, D_4, modarith:5 and a "
        "random machine against full, factorized:1/2/4/8/16, block:1/2/8, rotation2d, diagonal, positive, LSTM, "
        "RNN, Transformer and Mamba with 1/2/4 layers (part table-1), then the rebuttal's additions as named parts: "
        "hierarchy (factorized:64/256/2048, block:64), dihedral (D_3 ... D_30), parameter-matched (about 5,000 "
        "parameters), data-efficiency (parity, 2-256 training words), additive-off / additive-on (the additive "
        "ablation) and frozen-diagonal; about 3,000 runs, hundreds of core-hours: --dry-run lists every cell with "
        "its estimated time here, and a local CPU run past an hour needs --yes. --medium runs every experiment at "
        "hidden 16 (under an hour on 2 cores); --quick a reduced table (about 15 minutes).",
    )
    size = p.add_mutually_exclusive_group()
    size.add_argument("--quick", action="store_true", help="the reduced table")
    size.add_argument("--medium", action="store_true",
                      help="every experiment of the paper at a small size, one sub-folder each (sized for < 1 hour "
                      "on 2 cores)")
    size.add_argument("--full", action="store_true",
                      help="Table 1 and the rebuttal's parts at the paper's protocol (the default; see above); for a "
                      "GPU (--device cuda) or a cluster (--ray)")
    p.add_argument("--device", choices=("cpu", "cuda", "auto"), default=None,
                   help="run every run on this device (default: the table's, cpu); on cuda, the parallel scan for diagonal transitions and hidden <= 64")
    p.add_argument("--ray", metavar="ADDRESS", default=None, help="run on this Ray cluster (needs bilinear[ray])")
    p.add_argument("--out", metavar="DIR", help="output folder (default runs/reproduce[-quick|-medium])")
    p.add_argument("--workers", type=positive_int, default=None, help="local worker processes (default 2)")
    p.add_argument("--part", action="append", metavar="NAME", default=None,
                   help=f"run only this part (repeatable); --full: {', '.join(FULL_PART_NAMES)}; --medium: its "
                        "parts (docs/training-results.md)")
    _add_overwrite(p)
    _add_log(p)
    _add_estimate(p)
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(handler=_reproduce)


def _reproduce(args) -> int:
    from .reproduce import TABLES_MD, _adjusted, reproduce, select_parts

    _check_out(args)
    size = "quick" if args.quick else "medium" if args.medium else "full"
    out = Path(args.out) if args.out else Path("runs") / ("reproduce" if size == "full" else f"reproduce-{size}")  # not a variant name
    _check_log(args)
    chosen = select_parts(size, args.part)
    if args.device is not None:
        from dataclasses import replace

        chosen = tuple(replace(p, sweep=_adjusted(p.sweep, args.device)) for p in chosen)
    workers = args.workers or 2
    if args.dry_run:
        _print_plan(chosen, workers, args.json)
        return 0
    if args.json:
        raise ConfigError("--json applies to --dry-run")
    _guard([c for p in chosen for c in p.sweep.configs()], args, workers, f"reproduce --{size}")
    table = reproduce(out, workers=args.workers, quiet=args.quiet, size=size, ray_address=args.ray,
                      force=args.force, resume=args.resume, device=args.device, log=args.log,
                      only=tuple(args.part) if args.part else None)
    print("Normalised accuracy at length 500 (0 = chance, 1 = perfect):")
    print(table)
    where = f"{out / RESULTS_CSV}, {out / RESULTS_MD}" if size == "quick" else f"{out}/<part>/{RESULTS_CSV}"
    print(f"results: {where}; every table: {out / TABLES_MD}")
    sys.stdout.flush()
    return 0


def register(sub) -> None:
    """Add ``train``, ``sweep`` and ``reproduce``."""
    _add_train(sub)
    _add_sweep(sub)
    _add_reproduce(sub)
    _add_export(sub)


def _add_export(sub) -> None:
    p = sub.add_parser(
        "export",
        help="write a trained run's float weights to a weights file (verify --weights reads it)",
        description="Write the float weights of the finished run RUN_DIR to FILE in the weights "
        "file format (docs/formats.md), with its checksum, so that 'bilinear verify SPEC --weights "
        "FILE' (or any other tool) re-checks them. An existing FILE is kept unless --force.",
    )
    add_run_dir(p, "a finished run folder (bilinear train --out)", optional=False)
    p.add_argument("file", metavar="FILE", help="the weights file to write (JSON)")
    p.add_argument("--force", action="store_true", help="replace an existing FILE")
    add_json(p, "print what was written as JSON")
    p.set_defaults(handler=_export)


def _export(args) -> int:
    from .runs import export_run

    path, facts = export_run(args.run_dir, args.file, force=args.force)
    facts = {"file": str(path), **facts}
    if args.json:
        print(json.dumps(facts, indent=2, sort_keys=True))
    else:
        at = facts[AT_LENGTH]
        headline = "" if at is None else f"; {headline_label(facts[TEST_LENGTH])} {at:.4f}"
        print(f"wrote {path}: float weights of {facts['spec']} / {facts['variant']} (hidden {facts['hidden']}){headline}")
        print(f"check them: bilinear verify {facts['spec']} --weights {path}")
    return 0

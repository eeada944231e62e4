"""``bilinear reproduce``: Table 1 of the paper (normalised accuracy at length 500) on this machine.

Three sizes, all through :func:`bilinear.learned.sweep.run_sweep` (so every table is also
written as ``results.csv`` / ``results.md``), and every table of a run in ``tables.md``:

* ``--quick``, a reduced table for CI-sized checks (about 15 minutes on 2 cores): the families
  parity, cyclic:3, cyclic:5, dihedral:3, random:states=5,symbols=2 against full, block:2,
  rotation2d, diagonal and lstm; hidden 16, at most 2000 steps, learning rates 1e-2 and 3e-3
  (best kept), one seed, 100 test words of length 500.
* ``--medium``, every experiment of the paper at a size a 2-core machine runs in under an hour
  (:data:`MEDIUM_PARTS`, one sub-folder each): the main table (modular addition for m in {2, 3,
  5, 10, 25, 50}, dihedral:3, dihedral:4, modarith:5 and a random machine against ``full``,
  ``factorized:R`` for R in 1, 2, 4, 8, 16, ``block:B`` for B in 1, 2, 8, ``rotation2d``,
  ``diagonal``, ``positive``, LSTM, RNN, Transformer and Mamba-style SSM with 1, 2, 4 layers;
  hidden 16, at most 1000 steps, learning rates 1e-2 and 3e-3, one seed, 50 test words), the hierarchy at
  hidden 64 (R and B up to 64), frozen random diagonal transitions, data efficiency, the
  parameter-matched comparison, the additive ablation on dihedral groups up to D_30, rotation
  precision by hidden size with the two training-time remedies (longer words, a curriculum), and
  the 2025 families (``householder:1``, ``householder:2``, both beta ranges, ``monomial``,
  ``dplr:1``) on parity, cyclic:3, dihedral:3 / symmetric:3 and a random machine, with
  ``monomial`` at d = n on random machines (the published claims of docs/theory.md's table of
  families).
  The measured table and its wall time are in docs/training-results.md.
* the full protocol (``--full``, the default; :func:`parts`): Table 1 of the paper with the paper's
  models (``--preset paper``: hidden 256, tokens embedded in 256 dimensions, rotation2d as one
  angle per block), learning rates 1e-3, 1e-4, 1e-5, three seeds, 20,000 steps, 500 test words
  (part ``table-1``: the medium table's grid), then the rebuttal's additions as named parts
  (:data:`FULL_PART_NAMES`: the hierarchy's wide variants, dihedral groups, parameter-matched
  models, data efficiency, the additive ablation, frozen diagonal transitions), 2,859 runs;
  meant for a GPU (``--device cuda``) or a cluster (``--ray ADDRESS``).  ``bilinear reproduce
  --dry-run`` lists every cell with its estimated time here (:mod:`bilinear.learned.estimate`),
  and a local run past an hour needs ``--yes``.

Each table reports, per seed, the test accuracy of the run whose learning rate the held-out
validation words chose (lengths 20-200 by default; never the test words), averaged over seeds;
beside it, labelled, the best learning rate on the test words (optimistic), and, the paper's
promise, the spread across learning rates (:func:`lr_spread_table`: for each learning rate the
mean over seeds, then the smallest and largest of those means).

>>> QUICK.families[:2], QUICK.models[-1], QUICK.lrs
(('parity', 'cyclic:3'), 'lstm', (0.01, 0.003))
>>> PAPER_TRAIN["hidden"], PAPER_TRAIN["embed"], _PAPER_GRID["lrs"], _PAPER_GRID["seeds"]
(256, 256, (0.001, 0.0001, 1e-05), (0, 1, 2))
>>> len(MEDIUM.families) * len(MEDIUM.models), sum(len(p.sweep.configs()) for p in MEDIUM_PARTS)
(200, 743)
"""

from __future__ import annotations

import math
import time
from typing import Any
from dataclasses import dataclass, replace
from pathlib import Path

from bilinear.fileio import FolderLock, atomic_write, prepare_output_dir
from bilinear.metrics import AT_LENGTH, headline_label, upgrade_result

from bilinear.errors import ConfigError

from .config import DEFAULT_LRS, FULL_PART_NAMES, PRESETS
from .sweep import Sweep, cell, markdown_table, run_sweep, seed_table, table_label, tested_length

__all__ = [
    "QUICK", "MEDIUM", "MEDIUM_PARTS", "FAMILIES", "MODELS", "FAMILY_MODELS", "Part", "reproduce", "lr_spread_table",
    "spread_markdown", "TABLES_MD", "PAPER_TRAIN", "FULL_PART_NAMES", "parts", "select_parts",
]

#: The file of a reproduce folder that holds every table (one section per part).
TABLES_MD = "tables.md"

FAMILIES = ("parity", "cyclic:3", "cyclic:5", "dihedral:3", "random:states=5,symbols=2")
MODELS = ("full", "block:2", "rotation2d", "diagonal", "lstm")

#: The reduced table (about 15 minutes on 2 cores).
QUICK = Sweep(
    families=FAMILIES,
    models=MODELS,
    lrs=(1e-2, 3e-3),
    seeds=(0,),
    workers=2,
    train={"steps": 2000, "hidden": 16, "test_words": 100, "eval_every": 50, "patience": 4},
)
#: The main medium table: modular addition and the hierarchy's rows, hidden 16, two learning rates, one seed.
MEDIUM = Sweep(
    families=("parity", "cyclic:3", "cyclic:5", "cyclic:10", "cyclic:25", "cyclic:50", "dihedral:3",
              "dihedral:4", "modarith:5", "random:states=5,symbols=2"),
    models=("full", "factorized:1", "factorized:2", "factorized:4", "factorized:8", "factorized:16",
            "block:1", "block:2", "block:8", "rotation2d", "diagonal", "positive", "lstm", "rnn",
            "transformer:1", "transformer:2", "transformer:4", "mamba:1", "mamba:2", "mamba:4"),
    lrs=(1e-2, 3e-3),
    seeds=(0,),
    workers=2,
    train={"steps": 1000, "hidden": 16, "test_words": 50, "eval_every": 50, "patience": 3},
)
_SMALL: dict[str, Any] = {"steps": 1000, "test_words": 50, "eval_every": 50, "patience": 3}
#: The 2025 families of the medium table's ``families`` part (issue 21), with ``full`` beside them.
FAMILY_MODELS = ("full", "householder:1", "householder:1,nonneg", "householder:2", "householder:2,nonneg",
                 "monomial", "dplr:1")
#: The grids shared by the two additive-ablation parts and by the three rotation parts.
_ADDITIVE: dict[str, Any] = {"families": ("dihedral:3", "dihedral:4", "dihedral:5", "dihedral:30"), "models": ("full", "block:2"),
             "seeds": (0, 1), "workers": 2}
_ROTATION: dict[str, Any] = {"families": ("cyclic:3", "cyclic:5", "cyclic:10"), "models": ("rotation2d", "block:2"),
             "seeds": (0, 1), "hidden": (2, 4, 16), "workers": 2}


@dataclass(frozen=True)
class Part:
    """One experiment of a multi-part table: its folder name, a title and what it measures, and
    its sweep."""

    name: str
    title: str
    about: str
    sweep: Sweep


#: Every experiment of the paper at a size one 2-core machine runs in under an hour.
MEDIUM_PARTS = (
    Part("main", "Modular addition and the hierarchy (hidden 16)",
         "Z_m for m in 2, 3, 5, 10, 25, 50 and four other tasks against every bilinear variant and "
         "baseline: the paper's headline table and the hierarchy's rows.", MEDIUM),
    Part("hierarchy-64", "The hierarchy at hidden 64",
         "factorized:R and block:B up to 64, which need hidden 64.",
         Sweep(families=("cyclic:5", "dihedral:4", "random:states=5,symbols=2"),
               models=("full", "factorized:4", "factorized:16", "factorized:64", "block:8", "block:64",
                       "diagonal"),
               workers=2, train={**_SMALL, "hidden": 64})),
    Part("frozen-diagonal", "Frozen random diagonal transitions on parity",
         "Only h0 and the readout learn (freeze_transitions); five seeds per hidden size.",
         Sweep(families=("parity",), models=("diagonal",), seeds=(0, 1, 2, 3, 4), hidden=(8, 16, 64),
               workers=2, train={**_SMALL, "freeze_transitions": True})),
    Part("data-efficiency", "Data efficiency on parity",
         "A fixed pool of n distinct training words (n_train), three seeds.",
         Sweep(families=("parity",), models=("diagonal", "lstm", "rnn"), seeds=(0, 1, 2),
               n_train=(2, 4, 8, 16, 64, 256), workers=2, train={**_SMALL, "hidden": 16})),
    Part("parameter-matched", "Parameter-matched comparison (about 2,000 parameters)",
         "Each model at the hidden size whose parameter count is closest to 2,000 (match_params).",
         Sweep(families=("cyclic:5", "dihedral:4", "random:states=5,symbols=2"),
               models=("full", "factorized:4", "block:2", "rotation2d", "diagonal", "lstm", "rnn",
                       "transformer:1", "mamba:1"),
               workers=2, train={**_SMALL, "match_params": 2000})),
    Part("additive-off", "Additive ablation: bilinear (h = A(x) h)",
         "Dihedral groups up to D_30, two seeds; compare with the next part.",
         Sweep(**_ADDITIVE, train={**_SMALL, "hidden": 16})),
    Part("additive-on", "Additive ablation: affine (h = A(x) h + B x + b)",
         "The same grid with the additive term.",
         Sweep(**_ADDITIVE, train={**_SMALL, "hidden": 16, "additive": True})),
    Part("rotation", "Rotation precision: lengths 2-10 (the protocol)",
         "Rotation blocks on cyclic groups by hidden size (number of 2x2 blocks), two seeds.",
         Sweep(**_ROTATION, train={**_SMALL, "steps": 1500})),
    Part("rotation-long", "Rotation precision: lengths 2-50 (remedy 1)",
         "The same grid trained on longer words (--train-len 2 50).",
         Sweep(**_ROTATION, train={**_SMALL, "steps": 1500, "train_max_len": 50})),
    Part("rotation-curriculum", "Rotation precision: curriculum to length 50 (remedy 2)",
         "The same grid with --curriculum 50 (lengths ramp from 10 to 50 over half the steps).",
         Sweep(**_ROTATION, train={**_SMALL, "steps": 1500, "curriculum_max_len": 50})),
    Part("families", "The 2025 families: DeltaNet / DeltaProduct, PD-SSM, diagonal plus low rank (hidden 16)",
         "The published claims, measured: DeltaProduct_1 [-1, 1] (householder:1) does not learn S_3 and "
         "DeltaProduct_2 [-1, 1] (householder:2) does; the [0, 1] versions (nonneg) learn neither; DeltaNet "
         "[-1, 1] learns parity and [0, 1] does not (Grazzi et al. 2025, Siems et al. 2025); PD-SSM (monomial) "
         "learns random automata; dplr:1 beside them; S_3 is dihedral:3 and symmetric:3.",
         Sweep(families=("parity", "cyclic:3", "dihedral:3", "symmetric:3", "random:states=5,symbols=2"),
               models=FAMILY_MODELS, lrs=(1e-2, 3e-3), workers=2, train={**_SMALL, "hidden": 16})),
    Part("families-dn", "PD-SSM at d = n: monomial on random automata with hidden = states",
         "Terzic et al. 2025: a column one-hot P times a diagonal tracks any n-state automaton in d = n (the "
         "transition table itself); full at the same hidden size beside it, two seeds.",
         Sweep(families=("random:states=5,symbols=2", "random:states=5,symbols=3"), models=("monomial", "full"),
               lrs=(1e-2, 3e-3), seeds=(0, 1), hidden=(5,), workers=2, train=dict(_SMALL))),
)
#: The paper's protocol: its models (``--preset paper``), 20,000 steps, 500 test words.
PAPER_TRAIN: dict[str, Any] = {"steps": 20000, **PRESETS["paper"], "test_words": 500, "eval_every": 100, "patience": 5}
_PAPER_GRID: dict[str, Any] = {"lrs": DEFAULT_LRS, "seeds": (0, 1, 2), "workers": 2}
#: Table 1 of the paper at its protocol: the medium table's grid (modular addition Z_2 ... Z_50, D_3,
#: D_4, modarith:5, a random machine; every bilinear variant, factorized and block ones included,
#: LSTM, RNN, Transformer and Mamba with 1, 2, 4 layers), hidden 256, tokens embedded in 256
#: dimensions, rotation2d as angles, learning rates 1e-3, 1e-4, 1e-5, three seeds.
#: (``FULL``, built when first read: module ``__getattr__``.)
_DIHEDRAL = ("dihedral:3", "dihedral:4", "dihedral:5", "dihedral:10", "dihedral:30")


def _full_parts() -> tuple[Part, ...]:
    """Table 1 and the rebuttal's additions at the paper's protocol (built when asked for: the
    grids hold about 3,000 runs, validated when built)."""
    no_hidden = {k: v for k, v in PAPER_TRAIN.items() if k != "hidden"}
    return (
        Part("table-1", "Table 1: modular addition and the hierarchy's rows (the paper's models)",
             "Z_m for m in 2, 3, 5, 10, 25, 50, D_3, D_4, modarith:5 and a random machine against every bilinear "
             "variant (full, factorized:R, block:B, rotation2d as angles, diagonal, positive), LSTM, RNN, Transformer "
             "and Mamba with 1, 2, 4 layers; --preset paper.",
             Sweep(families=MEDIUM.families, models=MEDIUM.models, train=dict(PAPER_TRAIN), **_PAPER_GRID)),
        Part("hierarchy", "The hierarchy's wide variants (rebuttal)",
             "factorized:R for R = 64, 256, 2048 and block:64: the rest of the paper's list of models, which "
             "only a hidden size of 256 admits.",
             Sweep(families=("cyclic:5", "dihedral:4", "random:states=5,symbols=2"),
                   models=("factorized:64", "factorized:256", "factorized:2048", "block:64"), train=dict(PAPER_TRAIN),
                   **_PAPER_GRID)),
        Part("dihedral", "Dihedral groups up to D_30 (rebuttal)",
             "Non-abelian groups of growing order against the unconstrained, factorized, block and commuting "
             "variants and the LSTM.",
             Sweep(families=_DIHEDRAL, models=("full", "factorized:16", "block:2", "rotation2d", "diagonal", "lstm"),
                   train=dict(PAPER_TRAIN), **_PAPER_GRID)),
        Part("parameter-matched", "Parameter-matched models (rebuttal; about 5,000 parameters)",
             "Each model at the hidden size whose parameter count is closest to 5,000 (one-hot tokens: an embedding "
             "of 256 alone would be over the budget).",
             Sweep(families=("cyclic:5", "dihedral:4", "random:states=5,symbols=2"),
                   models=("full", "factorized:4", "block:2", "rotation2d", "diagonal", "lstm", "rnn", "transformer:1",
                           "mamba:1"),
                   train={**{k: v for k, v in no_hidden.items() if k != "embed"}, "match_params": 5000},
                   **_PAPER_GRID)),
        Part("data-efficiency", "Data efficiency on parity (rebuttal)",
             "A fixed pool of n distinct training words, n from 2 to 256.",
             Sweep(families=("parity",), models=("diagonal", "lstm", "rnn"), n_train=(2, 4, 8, 16, 64, 256),
                   train=dict(PAPER_TRAIN), **_PAPER_GRID)),
        Part("additive-off", "Additive ablation, bilinear (rebuttal)", "h = A(x) h on dihedral groups up to D_30.",
             Sweep(families=_DIHEDRAL[:3] + _DIHEDRAL[4:], models=("full", "factorized:16", "block:2"),
                   train=dict(PAPER_TRAIN), **_PAPER_GRID)),
        Part("additive-on", "Additive ablation, affine (rebuttal)", "h = A(x) h + B x + b, the same grid.",
             Sweep(families=_DIHEDRAL[:3] + _DIHEDRAL[4:], models=("full", "factorized:16", "block:2"),
                   train={**PAPER_TRAIN, "additive": True}, **_PAPER_GRID)),
        Part("frozen-diagonal", "Frozen random diagonal transitions on parity",
             "Only h0 and the readout learn; five seeds per hidden size.",
             Sweep(families=("parity",), models=("diagonal",), hidden=(8, 16, 64, 256), lrs=DEFAULT_LRS,
                   seeds=(0, 1, 2, 3, 4), workers=2, train={**no_hidden, "freeze_transitions": True})),
    )


_BUILT: dict = {}


def parts(size: str) -> tuple[Part, ...]:
    """The parts of a table size (``quick``, ``medium``, ``full``); the full ones built once, when
    first asked for.

    >>> [p.name for p in parts("full")] == list(FULL_PART_NAMES)
    True
    """
    if size == "full":  # not a variant name: the table size
        if "full" not in _BUILT:  # not a variant name: the table size
            _BUILT["full"] = _full_parts()
        return _BUILT["full"]
    if size not in SIZES:
        raise ConfigError(f"unknown table size {size!r} (known: quick, medium, full)")
    return SIZES[size]


SIZES = {"quick": (Part("main", "Reduced table", "", QUICK),), "medium": MEDIUM_PARTS}


def __getattr__(name: str):
    """``FULL``, Table 1's sweep (1,800 runs: validated when first read, not at import)."""
    if name == "FULL":  # not a variant name: the table size
        return parts("full")[0].sweep
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def select_parts(size: str, names=None) -> tuple[Part, ...]:
    """The parts of ``size`` named in ``names`` (all when None), in the table's order; ConfigError
    naming an unknown one."""
    every = parts(size)
    if not names:
        return every
    known = [p.name for p in every]
    for n in names:
        if n not in known:
            raise ConfigError(f"unknown part {n!r} of the {size} table (known: {', '.join(known)})")
    return tuple(p for p in every if p.name in names)


def lr_spread_table(rows: list[dict]) -> dict:
    """``{(family, model): (min, max)}`` over learning rates of the seed-averaged accuracy.

    >>> rows = [{"family": "p", "model": "m", "seed": s, "lr": lr, "accuracy_at_length": a}
    ...         for s, lr, a in [(0, 1, 0.5), (1, 1, 0.7), (0, 2, 0.9), (1, 2, 0.1)]]
    >>> lr_spread_table(rows)
    {('p', 'm'): (0.5, 0.6)}
    """
    per_lr: dict = {}
    for r in rows:
        acc = upgrade_result(r).get(AT_LENGTH)
        if acc in ("", None) or not math.isfinite(float(acc)):
            continue
        key = (table_label(r), r["model"], float(r["lr"]))
        per_lr.setdefault(key, []).append(float(acc))
    spread: dict = {}
    for (family, model, _), accs in per_lr.items():
        mean = round(sum(accs) / len(accs), 6)
        lo, hi = spread.get((family, model), (math.inf, -math.inf))
        spread[(family, model)] = (min(lo, mean), max(hi, mean))
    return spread


def spread_markdown(spread: dict, families, models, metric: str | None = None) -> str:
    """A family x model table of ``min..max`` cells (``-`` where missing); ``metric`` names the
    cells in the first column's header.

    >>> print(spread_markdown({("p", "m"): (-0.25, 0.5)}, ["p"], ["m"]).splitlines()[-1])
    | p | -0.25..0.50 |
    """
    corner = "family" if metric is None else f"family (cells: {metric})"
    lines = [f"| {corner} | " + " | ".join(models) + " |", "|---|" + "---|" * len(models)]
    for f in families:
        cells = [f"{cell(spread[(f, m)][0])}..{cell(spread[(f, m)][1])}" if (f, m) in spread else "-" for m in models]
        lines.append(f"| {f} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _adjusted(sweep: Sweep, device: str | None = None, adjust: dict | None = None) -> Sweep:
    """``sweep`` with every run on ``device`` (None: the table's) and the fields of ``adjust``
    replaced (its ``train`` merged into the sweep's): the tests' tiny smoke runs of a table.

    >>> full = Sweep(families=["parity"], models=["full"], train=dict(PAPER_TRAIN), **_PAPER_GRID)
    >>> s = _adjusted(full, device="cuda", adjust={"seeds": (0,), "train": {"steps": 2}})
    >>> s.train["device"], s.train["steps"], s.train["hidden"], s.seeds, full.train.get("device")
    ('cuda', 2, 256, (0,), None)
    """
    changes = dict(adjust or {})
    train = {**sweep.train, **changes.pop("train", {})}
    if device is not None:
        train["device"] = device
    return replace(sweep, **changes, train=train)


def reproduce(out_dir, quick: bool = True, workers: int | None = None, quiet: bool = True,
              size: str | None = None, sweep: Sweep | None = None, ray_address: str | None = None,
              force: bool = False, resume: bool = False, device: str | None = None,
              adjust: dict | None = None, log: str | None = None, only: tuple | None = None) -> str:
    """Run a table into ``out_dir``; returns it as Markdown (also written to ``out_dir/tables.md``).

    ``size`` is ``quick``, ``medium`` or ``full`` (default: ``quick`` when ``quick`` else
    ``full``); ``sweep`` replaces the table's grid outright (tests run a corner of it);
    ``ray_address`` runs it on a Ray cluster.  A one-part table (quick, full, ``sweep``) writes its
    runs and results into ``out_dir`` itself; the medium table gives each part a sub-folder
    (``out_dir/<part>/``).  The overwrite rule of :func:`run_sweep`: ``force`` replaces a
    non-empty folder, ``resume`` continues it (finished runs reused).  ``device`` runs every run
    there (``cuda``: the parallel scan; checked before any run starts); ``adjust`` changes the
    grid (:func:`_adjusted`: the tests run the full protocol's code path at a tiny size).  ``log``
    as in :func:`run_sweep`.  ``only`` names the parts to run (``reproduce --part``).
    """
    from .train import resolve_device

    table = (Part("main", "Table", "", sweep),) if sweep else select_parts(size or ("quick" if quick else "full"), only)
    if device is not None:
        resolve_device(device)  # ConfigError now, not once per run, when CUDA is missing
    if device is not None or adjust:
        table = tuple(replace(p, sweep=_adjusted(p.sweep, device, adjust)) for p in table)
    if len(table) == 1 and (sweep is not None or size != "full"):  # not a variant name: the table size
        start = time.perf_counter()
        text = part_tables(table[0].sweep, run_sweep(table[0].sweep, out_dir, workers=workers,
                                                     ray_address=ray_address, quiet=quiet, force=force,
                                                     resume=resume, log=log))
        _write_tables_md(Path(out_dir), text, time.perf_counter() - start)
        return text
    out = prepare_output_dir(out_dir, force=force, resume=resume, what="reproduce folder")
    with FolderLock(out, what="reproduce folder"):
        start, sections = time.perf_counter(), []
        for part in table:  # each part is a sweep of its own (resume: its finished runs are reused)
            t = time.perf_counter()
            rows = run_sweep(part.sweep, out / part.name, workers=workers, ray_address=ray_address, quiet=quiet,
                             resume=True, log=log)
            sections.append(f"## {part.title}\n\n{part.about}\n\n{part_tables(part.sweep, rows)}\n\n"
                            f"{len(rows)} runs, {time.perf_counter() - t:.0f} s wall (`{out / part.name}`).")
        text = "\n\n".join(sections)
        _write_tables_md(out, text, time.perf_counter() - start)
    return text


def part_tables(sweep: Sweep, rows: list[dict]) -> str:
    """The table of one sweep's rows with the learning rate chosen on the validation words, then
    (several learning rates) the best on the test words, labelled, and the range."""
    metric = headline_label(tested_length(rows))
    chosen = markdown_table(seed_table(rows), sweep.row_labels(), sweep.models, metric=metric)
    text = (f"Learning rate chosen per seed on the held-out validation words (lengths "
            f"{_val_lengths(sweep)}), that run's test accuracy, mean over seeds, the smallest..largest seed in "
            f"brackets when there are several ({metric}):\n\n{chosen}")
    if len(sweep.lrs) > 1:
        on_test = markdown_table(seed_table(rows, select="test"), sweep.row_labels(), sweep.models, metric=metric)
        text += ("\n\nFor comparison only, the best learning rate per seed on the test words (optimistic: the "
                 f"test words choose):\n\n{on_test}")
        spread = spread_markdown(lr_spread_table(rows), sweep.row_labels(), sweep.models, metric=metric)
        text += (f"\n\nRange across the learning rates {', '.join(f'{lr:g}' for lr in sweep.lrs)} "
                 f"(each the mean over seeds):\n\n{spread}")
    return text


def _val_lengths(sweep: Sweep) -> str:
    """The validation lengths of a sweep's runs, as text (``20-200``)."""
    c = sweep.configs()[0]
    return f"{c.val_min_len}-{c.val_max_len}"


def _write_tables_md(out: Path, text: str, seconds: float) -> None:
    body = (f"# Normalised accuracy at the test length: the last position of test words of that length "
            f"(0 = chance, 1 = perfect)\n\n{text}\n\n"
            f"Wall time of this call: {seconds:.0f} s (runs reused by --resume are not trained again).\n")
    atomic_write(out / TABLES_MD, lambda fh: fh.write(body.encode()))

"""``bilinear reproduce``: Table 1 of the paper (normalised length-500 accuracy) on this machine.

Three sizes, all through :func:`bilinear.learned.sweep.run_sweep` (so every table is also
written as ``results.csv`` / ``results.md`` in the output folder):

* ``--quick``, a reduced table for CI-sized checks (about 15 minutes on 2 cores): the families
  parity, cyclic:3, cyclic:5, dihedral:3, random:states=5,symbols=2 against full, block:2,
  rotation2d, diagonal and lstm; hidden 16, at most 2000 steps, learning rates 1e-2 and 3e-3
  (best kept), one seed, 100 test words of length 500.
* ``--medium``, every row of the paper's experiments at a small size: modular addition for
  m in {2, 3, 5, 10, 25, 50}, dihedral:3, dihedral:4, modarith:5 and a random machine against
  the whole hierarchy (``full``, ``factorized:R`` for R in 1, 2, 4, 8, 16, ``block:B`` for B in
  1, 2, 8, ``rotation2d``, ``diagonal``) and the baselines (LSTM, RNN, Transformer with 1, 2, 4
  layers, Mamba-style SSM); hidden 16, at most 600 steps, learning rate 1e-2, one seed, 50 test
  words.  Sized for under an hour on 2 cores (not run in full here: see docs/training.md).
* the full protocol (no option): hidden 256, learning rates 1e-3, 1e-4, 1e-5, three seeds,
  20,000 steps, 500 test words; days of CPU, meant for a cluster (``bilinear sweep --ray``).

Each table reports the best learning rate per seed averaged over seeds, and, the paper's
promise, the spread across learning rates (:func:`lr_spread_table`: for each learning rate the
mean over seeds, then the smallest and largest of those means).

>>> QUICK.families[:2], QUICK.models[-1], QUICK.lrs
(('parity', 'cyclic:3'), 'lstm', (0.01, 0.003))
>>> FULL.train["hidden"], FULL.lrs, FULL.seeds
(256, (0.001, 0.0001, 1e-05), (0, 1, 2))
>>> len(MEDIUM.families) * len(MEDIUM.models)
170
"""

from __future__ import annotations

import math

from .sweep import Sweep, table_label, markdown_table, results_table, run_sweep

__all__ = ["QUICK", "MEDIUM", "FULL", "FAMILIES", "MODELS", "reproduce", "lr_spread_table", "spread_markdown"]

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
#: Every row of the paper's experiments at hidden 16 and a short step budget.
MEDIUM = Sweep(
    families=("parity", "cyclic:3", "cyclic:5", "cyclic:10", "cyclic:25", "cyclic:50", "dihedral:3",
              "dihedral:4", "modarith:5", "random:states=5,symbols=2"),
    models=("full", "factorized:1", "factorized:2", "factorized:4", "factorized:8", "factorized:16",
            "block:1", "block:2", "block:8", "rotation2d", "diagonal", "lstm", "rnn", "transformer:1",
            "transformer:2", "transformer:4", "mamba"),
    lrs=(1e-2,),
    seeds=(0,),
    workers=2,
    train={"steps": 600, "hidden": 16, "test_words": 50, "eval_every": 50, "patience": 3},
)
#: The paper's protocol: hidden 256, the learning-rate grid, three seeds, long training.
FULL = Sweep(
    families=FAMILIES,
    models=MODELS,
    lrs=(1e-3, 1e-4, 1e-5),
    seeds=(0, 1, 2),
    workers=2,
    train={"steps": 20000, "hidden": 256, "test_words": 500, "eval_every": 100, "patience": 5},
)
SIZES = {"quick": QUICK, "medium": MEDIUM, "full": FULL}


def lr_spread_table(rows: list[dict]) -> dict:
    """``{(family, model): (min, max)}`` over learning rates of the seed-averaged accuracy.

    >>> rows = [{"family": "p", "model": "m", "seed": s, "lr": lr, "test_accuracy_normalized": a}
    ...         for s, lr, a in [(0, 1, 0.5), (1, 1, 0.7), (0, 2, 0.9), (1, 2, 0.1)]]
    >>> lr_spread_table(rows)
    {('p', 'm'): (0.5, 0.6)}
    """
    per_lr: dict = {}
    for r in rows:
        acc = r.get("test_accuracy_normalized")
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


def spread_markdown(spread: dict, families, models) -> str:
    """A family x model table of ``min-max`` cells (``-`` where missing)."""
    lines = ["| family | " + " | ".join(models) + " |", "|---|" + "---|" * len(models)]
    for f in families:
        cells = [f"{spread[(f, m)][0]:.2f}-{spread[(f, m)][1]:.2f}" if (f, m) in spread else "-" for m in models]
        lines.append(f"| {f} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def reproduce(out_dir, quick: bool = True, workers: int | None = None, quiet: bool = True,
              size: str | None = None, sweep: Sweep | None = None, ray_address: str | None = None,
              force: bool = False, resume: bool = False) -> str:
    """Run a table into ``out_dir``; returns it as Markdown: the best learning rate per seed
    (mean over seeds), then the range across learning rates.

    ``size`` is ``quick``, ``medium`` or ``full`` (default: ``quick`` when ``quick`` else
    ``full``); ``sweep`` replaces the table's grid outright (tests run a corner of it);
    ``ray_address`` runs it on a Ray cluster.  The overwrite rule of :func:`run_sweep`:
    ``force`` replaces a non-empty folder, ``resume`` continues it.
    """
    sweep = sweep or SIZES[size or ("quick" if quick else "full")]
    rows = run_sweep(sweep, out_dir, workers=workers, ray_address=ray_address, quiet=quiet, force=force,
                     resume=resume)
    best = markdown_table(results_table(rows), sweep.row_labels(), sweep.models)
    spread = spread_markdown(lr_spread_table(rows), sweep.row_labels(), sweep.models)
    return (f"Best learning rate per seed, mean over seeds:\n\n{best}\n\n"
            f"Range across the learning rates {', '.join(f'{lr:g}' for lr in sweep.lrs)} "
            f"(each the mean over seeds):\n\n{spread}")

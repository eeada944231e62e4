"""``bilinear reproduce``: Table 1 of the paper (normalised length-500 accuracy) on this machine.

``--quick`` is a reduced table that runs on 2 CPU cores in about 15 minutes: the families
parity, cyclic:3, cyclic:5, dihedral:3, random:states=5,symbols=2 against the models full,
block:2, rotation2d, diagonal and lstm; hidden size 16, at most 2000 steps with early stopping,
learning rates 1e-2 and 3e-3 (best kept), one seed, 100 test words of length 500.
Without ``--quick`` the paper's protocol: learning rates 1e-3, 1e-4, 1e-5, three seeds,
20,000 steps (hours on a CPU).

Both go through :func:`bilinear.learned.sweep.run_sweep`, so the table is also written as
``results.csv`` / ``results.md`` in the output folder.

>>> QUICK.families[:2], QUICK.models[-1], QUICK.lrs
(('parity', 'cyclic:3'), 'lstm', (0.01, 0.003))
"""

from __future__ import annotations

from .sweep import Sweep, markdown_table, results_table, run_sweep

__all__ = ["QUICK", "FULL", "FAMILIES", "MODELS", "reproduce"]

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
#: The paper's protocol (learning-rate grid, three seeds, long training).
FULL = Sweep(
    families=FAMILIES,
    models=MODELS,
    lrs=(1e-3, 1e-4, 1e-5),
    seeds=(0, 1, 2),
    workers=2,
    train={"steps": 20000, "hidden": 16, "test_words": 500, "eval_every": 100, "patience": 5},
)


def reproduce(out_dir, quick: bool = True, workers: int | None = None, quiet: bool = True,
              force: bool = False, resume: bool = False) -> str:
    """Run the table into ``out_dir`` (the overwrite rule of :func:`run_sweep`: ``force`` replaces a
    non-empty folder, ``resume`` continues it); returns the table as Markdown."""
    sweep = QUICK if quick else FULL
    rows = run_sweep(sweep, out_dir, workers=workers, quiet=quiet, force=force, resume=resume)
    return markdown_table(results_table(rows), sweep.row_labels(), sweep.models)

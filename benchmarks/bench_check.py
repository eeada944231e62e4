"""Benchmark: float check (rescaled bilinear run + readout margin on every prefix) in tokens per
second, next to plain automaton simulation in numpy (Automaton.run_batch) on the same words.

Both are timed in CPU seconds (a shared machine's wall time is not the code's), interleaved
(check, simulation, check, ...) on fresh weights and automata each repeat; the median is printed,
with the load average.  The float check runs the automaton too (its labels; with the table, the
walk over pairs of automaton and float states), so its time includes one simulation.  The script
keeps freed buffers in the process as the command line does (``bilinear.malloc``): otherwise a
side is timed on page faults of memory the other gave back (a fresh array above 128 KiB may fault
on every 4 KiB page, about 2 us each), and the simulation alone read 4.3e7 to 1.3e8 tokens/s
between two runs of the same script.

Measured 2026-12-06 (2-core machine, nothing else running, load 1.0, inside
``benchmarks/speed_targets.py``, round 7), 1000 words x length 500, median of 5; ``path`` is how
the check judged the words (``table``: the float run's finitely many states, one look-up per
symbol, constructions/values/floatstates.py; ``dense``: the float run itself, docs/theory.md
Theorem 26 says when the table is exact):

    case                             d  symbols classes   path   check tok/s   run_batch tok/s  ratio
    parity diagonal                  1        2       2  table      1.63e+08          1.18e+08    0.7x
    cyclic:7 rotation2d              2        7       7  dense       3.6e+07          1.23e+08    3.4x
    dihedral:50 block:2              2        2     100  dense      3.63e+07          1.21e+08    3.3x
    symmetric:5 full                 4        2     120  table      1.27e+08          1.33e+08    1.0x
    quaternion full                  4        2       8  table      1.72e+08          1.34e+08    0.8x
    modarith:5 full                  5       10       5  table      1.75e+08          1.33e+08    0.8x
    modarith:8 full                  8       16       8  table      1.79e+08          1.35e+08    0.8x
    modarith:16 full                16       32      16  table      1.51e+08          1.22e+08    0.8x
    modarith:16 full+noise1e-06     16       32      16  dense      1.11e+07          1.21e+08   10.9x

The same run of 017281d's tree (main before issue 48's speed work): 13.0 / 24.2 / 24.0 / 30.7 /
20.4 / 27.2 / 31.4 / 50.9 / 46.1x.  Within 5x everywhere but the last case: exact constructions
(0/1, signed permutation and +-1 matrices) run through the table at about the simulation's speed
(its walk is the simulation's loop), whatever d and the alphabet; the rotations drift (their
products round), so they run densely: at d = 2 the many-class bound (``_Bound``: one gathered
reference row and its distance per prefix) keeps dihedral:50 under 4x.  The noisy modarith:16
drifts too and stays near 11x: its dense check costs about 44 ms of CPU against 4 ms for the
simulation, and the two products of d = 16 states per token alone take about 17 ms: the run's
batched GEMM over the rows padded by symbol (1.5x the rows) about 8.5 ms (about 23 G
multiply-adds a second, near this core's BLAS rate for K = 16), and the readout's scores about
8.6 ms (about 15 G a second, whether class-major or row-major, in blocks of 250 to 16,000 rows;
torch's MKL gives 8.1 ms for the scores and 26 ms for the batched GEMM).  That is 4.2x the
simulation before the rows are grouped by symbol (5.5 ms), gathered into and out of the padded
rows (2.2 + 1.4 ms), their norms (3.6 ms) and margins (4 ms) formed and the automaton walked
(2.5 ms): no dense float64 run in numpy reaches 5x there (each part timed alone over the same
500 steps, 2026-12-06).  The check itself makes no array of the words' size and none again per
block (the automaton walked beside the float run into kept buffers, the grouping at most 16384
word-steps at once, the judge's and the rescaling's buffers made once), so it does not depend on
the allocator's state either way.

Run:  .venv/bin/python benchmarks/bench_check.py [--length 500] [--words 1000] [--repeat 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

import numpy as np

from bilinear.automata.families import from_spec
from bilinear.constructions import Weights
from bilinear.constructions.handmade.registry import build
from bilinear.constructions.horizon import floatcheck
from bilinear.constructions.horizon.floatcheck import check

from bilinear.malloc import keep_freed_buffers

try:
    from bilinear.constructions.values.memo import clear_caches
except ImportError:  # a tree before the cache could be cleared (benchmarks/speed_targets.py runs older trees)
    def clear_caches() -> None:
        pass

#: (spec, variant, noise): Gaussian noise of that scale (seeded) added to the float weights'
#: matrices; the last case drifts (its products round), so the check runs densely.
CASES = [("parity", "diagonal", 0.0), ("cyclic:7", "rotation2d", 0.0), ("dihedral:50", "block:2", 0.0),
         ("symmetric:5", "full", 0.0), ("quaternion", "full", 0.0), ("modarith:5", "full", 0.0),
         ("modarith:8", "full", 0.0), ("modarith:16", "full", 0.0), ("modarith:16", "full", 1e-6)]


def _weights(spec: str, variant: str, noise: float):
    """The construction in float, its matrices plus seeded Gaussian noise of scale ``noise``."""
    w = build(spec, variant).to_float()
    if not noise:
        return w
    A, h0, R = w.float_arrays()
    A = A + np.random.default_rng(0).normal(scale=noise, size=A.shape)
    return Weights(w.variant, A, h0, R)


def _path(w, a, words) -> str:
    """How the check judges these words: "table" (the float run's finitely many states) or
    "dense" (a tree without the table: "dense")."""
    table = getattr(floatcheck, "_table_check", None)
    return "dense" if table is None or table(w, a, words, np.inf) is None else "table"


def _cpu(fn, *args) -> float:
    start = time.process_time()
    fn(*args)
    return time.process_time() - start


def _interleaved(spec: str, variant: str, noise: float, words: np.ndarray, repeat: int) -> tuple[float, float]:
    """Median CPU seconds of the check and of the simulation, alternating, on fresh weights and a
    fresh automaton each repeat (built outside the clock): no run reuses what an earlier one cached."""
    checks, sims = [], []
    for _ in range(repeat):
        clear_caches()
        w, a = _weights(spec, variant, noise), from_spec(spec)
        checks.append(_cpu(lambda: check(w, a, word_batch=words)))
        a = from_spec(spec)
        sims.append(_cpu(lambda: a.run_batch(words, trace=True)))
    return statistics.median(checks), statistics.median(sims)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--length", type=int, default=500)
    parser.add_argument("--words", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)
    tokens = args.length * args.words
    # as the command line runs (bilinear/malloc.py): freed multi-MB buffers stay in the process, so
    # neither side is timed on page faults that depend on what the other freed before it
    kept = keep_freed_buffers()
    print(f"{args.words} words x length {args.length} = {tokens:,} tokens, CPU seconds, median of {args.repeat} "
          f"interleaved (fresh objects each); freed buffers kept: {kept}; "
          f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"{'case':<30}{'d':>4}{'symbols':>9}{'classes':>8}  {'path':>5}  {'check tok/s':>12}  {'run_batch tok/s':>16}"
          f"  ratio  accuracy  worst margin")
    for spec, variant, noise in CASES:
        a = from_spec(spec)
        w = _weights(spec, variant, noise)
        words = np.random.default_rng(0).integers(0, a.n_symbols, size=(args.words, args.length))
        result = check(w, a, word_batch=words)
        t_check, t_sim = _interleaved(spec, variant, noise, words, args.repeat)
        name = f"{spec} {variant}" + (f"+noise{noise:g}" if noise else "")  # two words: speed_targets.py reads it
        print(f"{name:<30}{w.dim:>4}{a.n_symbols:>9}{a.n_classes:>8}  {_path(w, a, words):>5}  {tokens / t_check:12.3g}  "
              f"{tokens / t_sim:16.3g}  {t_check / t_sim:5.1f}x  {result.accuracy:8.4f}  {result.worst_margin:.3g}")
        sys.stdout.flush()
    print(f"load average at the end {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

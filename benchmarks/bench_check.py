"""Benchmark: float check (rescaled bilinear run + readout margin on every prefix) in tokens per
second, next to plain automaton simulation in numpy (Automaton.run_batch) on the same words.

Both are timed in CPU seconds (a shared machine's wall time is not the code's), interleaved
(check, simulation, check, ...) on fresh weights and automata each repeat; the median is printed,
with the load average.  The float check runs the automaton too (its labels; with the table, the
walk over pairs of automaton and float states), so its time includes one simulation.

Measured 2026-12-06 (shared 2-core machine at load 1.6: other engineers' jobs beside it), 1000 words x length 500, median of 5; ``path`` is how the check judged the words (``table``:
the float run's finitely many states, one look-up per symbol, constructions/values/floatstates.py;
``dense``: the float run itself, docs/theory.md Theorem 26 says when the table is exact):

    case                             d  symbols classes   path   check tok/s   run_batch tok/s  ratio
    parity diagonal                  1        2       2  table      5.82e+07          9.03e+07    1.6x
    cyclic:7 rotation2d              2        7       7  dense      2.35e+07          9.04e+07    3.9x
    dihedral:50 block:2              2        2     100  dense      2.34e+07           9.1e+07    3.9x
    symmetric:5 full                 4        2     120  table      5.08e+07          9.21e+07    1.8x
    quaternion full                  4        2       8  table      5.57e+07          8.87e+07    1.6x
    modarith:5 full                  5       10       5  table      6.03e+07          8.94e+07    1.5x
    modarith:8 full                  8       16       8  table      5.61e+07          8.13e+07    1.4x
    modarith:16 full                16       32      16  table      5.09e+07          8.23e+07    1.6x
    modarith:16 full+noise1e-06     16       32      16  dense      8.49e+06          1.14e+08   13.4x

The same script run by main's tree (3238085) right after, same load: 3.9 / 3.7 / 5.6 / 7.1 / 4.9 /
7.0 / 9.0 / 14.5 / 13.9x (benchmarks/SPEED.md, "Issue 48, round 5").  Within 5x everywhere but
the last case: exact constructions (0/1, signed permutation and +-1 matrices) run through the
table at 1.4-1.8x, whatever d and the alphabet; the rotations drift (their products round), so
they run densely: at d = 2 the many-class bound (``_Bound``: one gathered reference row and its
distance per prefix) keeps dihedral:50 under 4x.  The noisy modarith:16 drifts too and stays
above 5x: a dense numpy step over 1000 words at d = 16 with 32 symbols costs about 50 us (the
padded grouping, one batched GEMM, the rows taken back) against about 9 us for a whole step of the
simulation, so no dense float run in numpy reaches 5x there.  The simulation's own speed moves
between runs (60-120 M tokens/s here as other jobs come and go): compare the ratio within a run.

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
    print(f"{args.words} words x length {args.length} = {tokens:,} tokens, CPU seconds, median of {args.repeat} "
          f"interleaved (fresh objects each); load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
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

"""Benchmark: float check (rescaled bilinear run + readout margin on every prefix) in tokens per
second, next to plain automaton simulation in numpy (Automaton.run_batch) on the same words.

Both are timed in CPU seconds (a shared machine's wall time is not the code's), interleaved
(check, simulation, check, ...) on fresh weights and automata each repeat; the median is printed,
with the load average.  The float check runs the automaton too (its labels), so its time includes
one simulation.

Measured 2026-12-06 (shared 2-core machine at load 4.4-4.7), 1000 words x length 500, median of 5:

    case                       d  symbols classes   check tok/s   run_batch tok/s  ratio
    parity diagonal            1        2       2      2.14e+07          7.74e+07    3.6x
    cyclic:7 rotation2d        2        7       7      2.59e+07          1.17e+08    4.5x
    dihedral:50 block:2        2        2     100       1.6e+07          1.13e+08    7.0x
    symmetric:5 full           4        2     120       1.2e+07           8.4e+07    7.0x
    quaternion full            4        2       8      2.26e+07          1.11e+08    4.9x
    modarith:5 full            5       10       5      1.79e+07           1.1e+08    6.1x
    modarith:8 full            8       16       8      1.23e+07          1.11e+08    9.0x
    modarith:16 full          16       32      16      7.82e+06          1.12e+08   14.4x

The same script on main just before this change, back to back at the same load: check 4.9-14.7 M
tokens/s, 5.2 / 6.1 / 15.7 / 13.2 / 6.5 / 8.0 / 11.0 / 15.8x.  The simulation's own speed moves
between runs (70-80 M tokens/s in main's run, 78-117 M in this one's: it runs right after the
check, whose memory use differs): compare the check's tokens/s across trees, the ratio within
a run.  What the
check costs beyond the simulation (which labels the words; its time is inside the check): the
states advanced with no per-step renormalisation (one GEMM and one row selection a step when
symbols x hidden <= 64, else the rows padded by symbol: the grouping of the step's words, two
row selections and one batched GEMM), then per block of about 2^17 scores the norms and the
margins: with few classes every class's score (one GEMM), with classes >= 3 hidden + 8 a bound
per prefix from its automaton state's reference state that rules most prefixes out.  At 1000
words each numpy call costs 2-10 us here: at 10-32 symbols the per-step calls of the padded
run (modarith:16: about 35 ms of its 64) keep the ratio above 5.

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
from bilinear.constructions.horizon.floatcheck import check
from bilinear.constructions.handmade.registry import build
try:
    from bilinear.constructions.values.memo import clear_caches
except ImportError:  # a tree before the cache could be cleared (benchmarks/speed_targets.py runs older trees)
    def clear_caches() -> None:
        pass

CASES = [("parity", "diagonal"), ("cyclic:7", "rotation2d"), ("dihedral:50", "block:2"),
         ("symmetric:5", "full"), ("quaternion", "full"), ("modarith:5", "full"),
         ("modarith:8", "full"), ("modarith:16", "full")]


def _cpu(fn, *args) -> float:
    start = time.process_time()
    fn(*args)
    return time.process_time() - start


def _interleaved(spec: str, variant: str, words: np.ndarray, repeat: int) -> tuple[float, float]:
    """Median CPU seconds of the check and of the simulation, alternating, on fresh weights and a
    fresh automaton each repeat (built outside the clock): no run reuses what an earlier one cached."""
    checks, sims = [], []
    for _ in range(repeat):
        clear_caches()
        w, a = build(spec, variant).to_float(), from_spec(spec)
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
    print(f"{'case':<24}{'d':>4}{'symbols':>9}{'classes':>8}  {'check tok/s':>12}  {'run_batch tok/s':>16}  ratio  "
          f"accuracy  worst margin")
    for spec, variant in CASES:
        a = from_spec(spec)
        w = build(spec, variant).to_float()
        words = np.random.default_rng(0).integers(0, a.n_symbols, size=(args.words, args.length))
        result = check(w, a, word_batch=words)
        t_check, t_sim = _interleaved(spec, variant, words, args.repeat)
        print(f"{spec + ' ' + variant:<24}{w.dim:>4}{a.n_symbols:>9}{a.n_classes:>8}  {tokens / t_check:12.3g}  "
              f"{tokens / t_sim:16.3g}  {t_check / t_sim:5.1f}x  {result.accuracy:8.4f}  {result.worst_margin:.3g}")
        sys.stdout.flush()
    print(f"load average at the end {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

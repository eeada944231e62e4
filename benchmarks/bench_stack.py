"""Benchmark: what a stack of L layers costs against its L layers run on their own, side by side.

* float run (``run_float``): the stack against the sum of its layers' single runs on words of the
  same shape (the baseline: L independent one-layer runs); the stack adds only the argmax that
  feeds the next layer;
* exact proof (``prove_stack``) of a cascade against ``prove`` of each layer alone is not
  comparable (a lone layer has no automaton), so the proof is timed alone;
* training step (forward, backward, Adam) of ``StackedBilinearRNN`` in training mode (the soft
  cascade: each step mixes ``classes`` matrices) and its evaluation (the hard cascade, the
  one-layer scan per layer), against L one-layer ``BilinearRNN`` of the same hidden size.

Run:  .venv/bin/python benchmarks/bench_stack.py [--words 1000] [--length 500] [--repeat 3]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

import numpy as np
import torch

from bilinear.automata.families import from_spec
from bilinear.constructions.handmade.cascade import cascade
from bilinear.constructions.values.floatrun import run_float
from bilinear.constructions.proof.stackprover import prove_stack
from bilinear.constructions.values.memo import clear_caches
from bilinear.learned.models import BilinearRNN
from bilinear.learned.stacked import StackedBilinearRNN

CASES = [("dihedral:3", "rotation2d"), ("dihedral:12", "rotation2d"), ("symmetric:4", "rotation2d"),
         ("quaternion", "diagonal")]


def _median_time(fn, repeat, make=None):
    """Median seconds of ``fn(*make())``, ``make`` (fresh objects: no run reuses what an earlier
    one cached on them) outside the clock."""
    times = []
    for _ in range(repeat):
        args = () if make is None else make()
        t = time.perf_counter()
        fn(*args)
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def _float_runs(args) -> None:
    print(f"float run: {args.words} words x length {args.length}, median of {args.repeat}; load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"{'case':<26}{'layers':>7}{'dims':>10}  {'stack s':>9}  {'layers alone s':>15}  ratio  {'prove s':>8}")
    for spec, variant in CASES:
        a = from_spec(spec)
        stack = cascade(a, variant).to_float()
        rng = np.random.default_rng(0)
        words = rng.integers(0, a.n_symbols, size=(args.words, args.length))
        alone = [rng.integers(0, w.n_symbols, size=(args.words, args.length)) for w in stack.layers]
        t_stack = _median_time(lambda: run_float(stack, words), args.repeat)
        t_alone = _median_time(lambda: [run_float(w, x) for w, x in zip(stack.layers, alone)], args.repeat)
        t_prove = _median_time(prove_stack, args.repeat,
                               lambda s=spec, v=variant: (clear_caches(), cascade(from_spec(s), v), from_spec(s))[1:])
        dims = "+".join(map(str, stack.dims))
        print(f"{spec + ' ' + variant:<26}{stack.depth:>7}{dims:>10}  {t_stack:9.3f}  {t_alone:15.3f}  "
              f"{t_stack / t_alone:5.2f}  {t_prove:8.3f}")
        sys.stdout.flush()


def _training(args) -> None:
    torch.set_num_threads(1)
    S, C, d, batch, T = 2, 6, args.hidden, 64, 10
    print(f"\ntraining step (batch {batch}, length {T}, hidden {d}, {S} symbols, {C} classes, rotation2d) "
          f"and evaluation ({args.eval_words} words of length {args.length}), median of {args.repeat}")
    print(f"{'layers':>6}  {'stack step ms':>14}  {'L layers step ms':>17}  ratio  {'stack eval s':>13}  "
          f"{'L layers eval s':>16}  ratio")
    words = torch.randint(0, S, (batch, T), generator=torch.Generator().manual_seed(0))
    labels = torch.randint(0, C, (batch, T), generator=torch.Generator().manual_seed(1))
    long = torch.randint(0, S, (args.eval_words, args.length), generator=torch.Generator().manual_seed(2))
    for L in (2, 3):
        stack = StackedBilinearRNN(S, C, d, "rotation2d", layers=L, seed=0, scan="sequential",
                                   mixing="soft")  # as measured in benchmarks/SPEED.md
        singles = [BilinearRNN(S * (C if l else 1), C, d, "rotation2d", seed=l, scan="sequential") for l in range(L)]
        opt_s = torch.optim.Adam(stack.parameters(), lr=1e-3)
        opts = [torch.optim.Adam(m.parameters(), lr=1e-3) for m in singles]

        def step_stack():
            stack.train()
            loss = torch.nn.functional.cross_entropy(stack(words).reshape(-1, C), labels.reshape(-1))
            opt_s.zero_grad()
            loss.backward()
            opt_s.step()

        def step_singles():
            for l, (m, o) in enumerate(zip(singles, opts)):
                m.train()
                x = words if l == 0 else words * C + labels
                loss = torch.nn.functional.cross_entropy(m(x).reshape(-1, C), labels.reshape(-1))
                o.zero_grad()
                loss.backward()
                o.step()

        def eval_stack():
            stack.eval()
            with torch.no_grad():
                stack(long)

        def eval_singles():
            with torch.no_grad():
                for l, m in enumerate(singles):
                    m.eval()
                    m(long if l == 0 else long * C + (long % C))

        for fn in (step_stack, step_singles):
            fn()  # warm up
        ts, tl = _median_time(step_stack, args.repeat * 5), _median_time(step_singles, args.repeat * 5)
        es, el = _median_time(eval_stack, args.repeat), _median_time(eval_singles, args.repeat)
        print(f"{L:>6}  {1e3 * ts:14.2f}  {1e3 * tl:17.2f}  {ts / tl:5.2f}  {es:13.3f}  {el:16.3f}  {es / el:5.2f}")
        sys.stdout.flush()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--length", type=int, default=500)
    parser.add_argument("--words", type=int, default=1000)
    parser.add_argument("--eval-words", type=int, default=200)
    parser.add_argument("--hidden", type=int, default=16)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    _float_runs(args)
    _training(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())

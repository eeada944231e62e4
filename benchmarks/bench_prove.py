"""Benchmark: exact proofs (bilinear.constructions.prove) against plain sympy expression matrices.

The reference does the same breadth-first closure over (state, hidden vector) pairs, but with
sympy expressions: entries of the same weights written as sympy numbers (cyclotomic entries as
sum_k c_k cos(2 pi k / m), the real form of the element), ``simplify`` to key hidden vectors, and
``simplify(score difference).is_positive`` for every margin.  It runs under a time budget; when
it does not finish, the ratio reported is a lower bound (with an extrapolation from the pairs it
did finish).

Run:  .venv/bin/python benchmarks/bench_prove.py [--budget SECONDS] [--repeat N]
"""

from __future__ import annotations

import argparse
import signal
import statistics
import sys
import time
from collections import deque

import sympy

from bilinear.automata.families import from_spec
from bilinear.constructions.field import FieldElement
from bilinear.constructions.prove import Proof, prove
from bilinear.constructions.registry import build

CASES = [("dihedral:50", "block:2"), ("symmetric:5", "full"), ("cyclic:7", "rotation2d")]


def to_sympy(x):
    if isinstance(x, FieldElement):
        m = x.field.m
        return sum(sympy.Rational(c.numerator, c.denominator) * sympy.cos(2 * sympy.pi * k / m)
                   for k, c in enumerate(x.coeffs()) if c)
    return sympy.Rational(x.numerator, x.denominator) if hasattr(x, "numerator") else sympy.Integer(x)


class _OutOfTime(Exception):
    pass


def _alarm(signum, frame):
    raise _OutOfTime


def sympy_prove(weights, automaton, budget: float, max_pairs: int):
    """The same closure with sympy expressions, stopped by SIGALRM after ``budget`` seconds.

    Returns (seconds, outcome, pairs_done) with outcome "finished", "budget" (out of time) or
    "no closure" (more than ``max_pairs`` pairs: ``simplify`` failed to recognise equal vectors).
    """
    signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, budget)
    start = time.perf_counter()
    try:
        return _sympy_closure(weights, automaton, max_pairs, start)
    except _OutOfTime:
        return time.perf_counter() - start, "budget", _PROGRESS[0]
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


_PROGRESS = [0]


def _sympy_closure(weights, automaton, max_pairs, start):
    _PROGRESS[0] = 0
    A = [sympy.Matrix([[to_sympy(x) for x in row] for row in weights.A[s]]) for s in range(weights.n_symbols)]
    h0 = sympy.Matrix([to_sympy(x) for x in weights.h0])
    R = sympy.Matrix([[to_sympy(x) for x in row] for row in weights.readout])
    key0 = tuple(sympy.simplify(x) for x in h0)
    pairs = {(automaton.start, key0): h0}
    queue = deque([(int(automaton.start), h0)])
    while queue:
        if len(pairs) > max_pairs:
            return time.perf_counter() - start, "no closure", _PROGRESS[0]
        q, h = queue.popleft()
        scores = R * h
        L = int(automaton.labels[q])
        for c in range(R.shape[0]):
            if c != L and not sympy.simplify(scores[L] - scores[c]).is_positive:
                raise AssertionError(f"sympy reference: margin not positive at state {q}")
        for s in range(weights.n_symbols):
            h2 = A[s] * h
            key = (int(automaton.delta[s, q]), tuple(sympy.simplify(x) for x in h2))
            if key not in pairs:
                pairs[key] = h2
                queue.append((key[0], h2))
        _PROGRESS[0] += 1
    return time.perf_counter() - start, "finished", _PROGRESS[0]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget", type=float, default=60.0, help="seconds per sympy reference run (default 60)")
    parser.add_argument("--repeat", type=int, default=20, help="timed repetitions of the exact proof (default 20)")
    args = parser.parse_args(argv)
    print(f"{'case':<24}{'d':>3}{'pairs':>7}  {'prove median (min)':>20}  {'sympy reference':>28}  ratio to median")
    sys.stdout.flush()
    for spec, variant in CASES:
        a = from_spec(spec)
        w = build(spec, variant)
        result = prove(w, a)
        assert isinstance(result, Proof)
        times = []
        for _ in range(args.repeat):
            t = time.perf_counter()
            prove(w, a)
            times.append(time.perf_counter() - t)
        ours = statistics.median(times)
        best = min(times)
        seconds, outcome, done = sympy_prove(w, a, args.budget, 4 * result.states_explored)
        if outcome == "finished":
            ref = f"{seconds:9.2f} s"
            ratio = f"{seconds / ours:,.0f}x"
        elif outcome == "no closure":
            ref = f"no closure after {seconds:.1f} s"
            ratio = f">= {seconds / ours:,.0f}x (never finishes)"
        else:
            ref = f"> {seconds:.0f} s ({done}/{result.states_explored} pairs)"
            ratio = f">= {seconds / ours:,.0f}x"
        print(f"{spec + ' ' + variant:<24}{w.dim:>3}{result.states_explored:>7}  {ours * 1e3:8.1f} ms ({best * 1e3:.1f})  {ref:>28}  {ratio}")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())

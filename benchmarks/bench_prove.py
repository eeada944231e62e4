"""Benchmark: exact proofs (bilinear.constructions.proof.prover) against plain sympy expression matrices.

The reference does the same breadth-first closure over (state, hidden vector) pairs, but with
sympy expressions: entries of the same weights written as sympy numbers (cyclotomic entries as
sum_k c_k cos(2 pi k / m), the real form of the element), ``simplify`` to key hidden vectors, and
``simplify(score difference).is_positive`` for every margin.  It runs under a time budget; when
it does not finish, the ratio reported is a lower bound (with an extrapolation from the pairs it
did finish).  Times are wall clock and CPU time of this process (the CPU ratio is the one to
trust on a shared machine); the S_5 target is a ratio of at least 100x.  Each reference run
starts with sympy's cache cleared, so its time does not depend on the cases run before it.

A second table times ``build`` + ``prove`` of dihedral groups in ``block:2`` (entries in
Q(zeta_n), orbit dictionaries of 2n field elements), side by side with the same run with dense
elements (every element a degree < phi(m) ``fmpq_poly``, multiplied and reduced mod Phi_m, signs
screened by ``acb`` balls: the code before the sparse domain) and with the previous hash of field
elements as well (Galois invariants: every conjugate in one bucket, so the orbit dictionaries
compared quadratically).  The target is under 2 s (CPU) for dihedral:2000.

Run:  .venv/bin/python benchmarks/bench_prove.py [--budget SECONDS] [--repeat N] [--large N ...]
"""

from __future__ import annotations

import argparse
import os
import signal
import statistics
import sys
import time
from collections import deque

import sympy

from bilinear.automata.families import from_spec
from bilinear.constructions.exact.domains import SparseCyclotomicDomain
from bilinear.constructions.exact.field import FieldElement
from bilinear.constructions.proof.prover import Proof, prove
from bilinear.constructions.handmade.registry import build
from bilinear.constructions.values.memo import clear_caches

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
    sympy.core.cache.clear_cache()  # a cold start: the time must not depend on the cases run before
    signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, budget)
    start = time.perf_counter()
    cpu = time.process_time()
    try:
        seconds, outcome, done = _sympy_closure(weights, automaton, max_pairs, start)
    except _OutOfTime:
        seconds, outcome, done = time.perf_counter() - start, "budget", _PROGRESS[0]
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
    return seconds, time.process_time() - cpu, outcome, done


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


def _timed(fn, repeat: int, make=None) -> tuple[list[float], list[float]]:
    """Wall and CPU seconds of ``repeat`` runs of ``fn(*make())``, ``make`` (fresh objects, so no
    run reuses what an earlier one cached on them) outside the clock."""
    wall, cpu = [], []
    for _ in range(repeat):
        args = () if make is None else make()
        t, c = time.perf_counter(), time.process_time()
        fn(*args)
        wall.append(time.perf_counter() - t)
        cpu.append(time.process_time() - c)
    return wall, cpu


def proof_table(budget: float, repeat: int, only: list[str] | None = None) -> None:
    print(f"{'case':<24}{'d':>3}{'pairs':>7}  {'prove median (min)':>20}  {'CPU median':>10}  "
          f"{'sympy reference':>28}  ratio to median (CPU ratio)")
    sys.stdout.flush()
    for spec, variant in CASES:
        if only and spec not in only:
            continue
        a = from_spec(spec)
        w = build(spec, variant)
        result = prove(w, a)
        assert isinstance(result, Proof)
        wall, cpu = _timed(prove, repeat, lambda s=spec, v=variant: (clear_caches(), build(s, v), from_spec(s))[1:])
        ours, ours_cpu, best = statistics.median(wall), statistics.median(cpu), min(wall)
        seconds, sym_cpu, outcome, done = sympy_prove(w, a, budget, 4 * result.states_explored)
        if outcome == "finished":
            ref = f"{seconds:9.2f} s"
            ratio = f"{seconds / ours:,.0f}x ({sym_cpu / ours_cpu:,.0f}x CPU)"
        elif outcome == "no closure":
            ref = f"no closure after {seconds:.1f} s"
            ratio = f">= {seconds / ours:,.0f}x (never finishes)"
        else:
            ref = f"> {seconds:.0f} s ({done}/{result.states_explored} pairs)"
            ratio = f">= {seconds / ours:,.0f}x (>= {sym_cpu / ours_cpu:,.0f}x CPU)"
        print(f"{spec + ' ' + variant:<24}{w.dim:>3}{result.states_explored:>7}  {ours * 1e3:8.1f} ms "
              f"({best * 1e3:.1f})  {ours_cpu * 1e3:7.1f} ms  {ref:>28}  {ratio}")
        sys.stdout.flush()


def _build_and_prove(n: int) -> tuple[float, float, float, str]:
    """Seconds (wall) to build and to prove dihedral:n block:2, CPU seconds of both, status."""
    c = time.process_time()
    t = time.perf_counter()
    w = build(f"dihedral:{n}", "block:2")
    t1 = time.perf_counter()
    result = prove(w, from_spec(f"dihedral:{n}"))
    t2 = time.perf_counter()
    return t1 - t, t2 - t1, time.process_time() - c, result.status


def _old_hash(self) -> int:
    """The previous FieldElement hash (Galois invariants), the baseline of the large table."""
    if self.is_rational():
        return hash(self.rational())
    return hash((self.normalized_trace(), (self * self).normalized_trace()))


def _with_dense(fn):
    """Run ``fn`` with the sparse cyclotomic domain switched off (orbit and prover dense)."""
    saved = SparseCyclotomicDomain.suits
    SparseCyclotomicDomain.suits = staticmethod(lambda m: False)
    try:
        return fn()
    finally:
        SparseCyclotomicDomain.suits = saved


def _with_old_hash(fn):
    saved = FieldElement.__hash__
    FieldElement.__hash__ = _old_hash
    try:
        return _with_dense(fn)
    finally:
        FieldElement.__hash__ = saved


def large_table(sizes: list[int], dense_up_to: int, baseline_up_to: int) -> None:
    print()
    print(f"{'build + prove':<24}{'build':>9}{'prove':>9}{'total':>9}{'CPU':>9}   {'dense elements: total (CPU)':>28}"
          f"   {'+ previous hash: total (CPU)':>28}")
    for n in sizes:
        b, p, cpu, status = _build_and_prove(n)
        dense = old = "(skipped)"
        if n <= dense_up_to:
            db, dp, dcpu, dstatus = _with_dense(lambda: _build_and_prove(n))
            assert dstatus == status
            dense = f"{db + dp:7.2f} s ({dcpu:.2f} s CPU)"
        if n <= baseline_up_to:
            ob, op, ocpu, _ = _with_old_hash(lambda: _build_and_prove(n))
            old = f"{ob + op:7.2f} s ({ocpu:.2f} s CPU)"
        target = "  (target < 2 s)" if n == 2000 else ""
        print(f"{'dihedral:' + str(n) + ' block:2':<24}{b:8.2f}s{p:8.2f}s{b + p:8.2f}s{cpu:8.2f}s   {dense:>28}"
              f"   {old:>28}  {status}{target}")
        sys.stdout.flush()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget", type=float, default=60.0, help="seconds per sympy reference run (default 60)")
    parser.add_argument("--repeat", type=int, default=20, help="timed repetitions of the exact proof (default 20)")
    parser.add_argument("--large", type=int, nargs="*", default=[500, 2000],
                        help="dihedral sizes for the build + prove table (default 500 2000)")
    parser.add_argument("--dense-up-to", type=int, default=2000,
                        help="run the dense-element baseline for sizes up to this (default 2000, ~15 s)")
    parser.add_argument("--baseline-up-to", type=int, default=500,
                        help="run the previous-hash baseline for sizes up to this (default 500; 2000 takes ~1 min)")
    parser.add_argument("--only", nargs="*", default=None, metavar="SPEC",
                        help="run only these cases of the first table (e.g. symmetric:5)")
    args = parser.parse_args(argv)
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    proof_table(args.budget, args.repeat, args.only)
    large_table(args.large, args.dense_up_to, args.baseline_up_to)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Benchmark: extraction of the automaton from a d = 64 network on 10,000 words of length 100.

The network is the one-hot construction of a random 64-state permutation automaton (two
symbols, every state its own class), rotated by a random orthogonal matrix Q (A_s -> Q A_s Q^T,
h0 -> Q h0, readout -> R Q^T) so that nothing is axis-aligned.  The extraction runs the network
with renormalisation (rows grouped by token, one GEMM per symbol per step), clusters the 10^6
hidden states online, builds the quotient, minimises and compares with the truth.

    .venv/bin/python benchmarks/bench_extract.py [--words 10000] [--length 100] [--states 64]

Prints the time, words/s and tokens/s, and, for scale, the time of simulating the automaton
itself on the same words (numpy, the floor for any check on these words).  One thread.
"""

from __future__ import annotations

import argparse
import os
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")

import numpy as np  # noqa: E402

from bilinear.analysis.examples import one_hot  # noqa: E402
from bilinear.analysis.extract import ExtractConfig, extract  # noqa: E402
from bilinear.automata import from_spec  # noqa: E402
from bilinear.constructions.values.memo import clear_caches  # noqa: E402
from bilinear.constructions.values.weights import Weights  # noqa: E402


def rotated_one_hot(spec: str, seed: int) -> tuple[Weights, object]:
    automaton = from_spec(spec)
    A, h0, R = one_hot(automaton).float_arrays()
    rng = np.random.default_rng(seed)
    Q, _ = np.linalg.qr(rng.normal(size=(A.shape[1], A.shape[1])))
    A = np.einsum("ij,sjk,lk->sil", Q, A, Q)
    return Weights("full", A, Q @ h0, R @ Q.T), automaton


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--words", type=int, default=10_000)
    parser.add_argument("--length", type=int, default=100)
    parser.add_argument("--states", type=int, default=64)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    spec = f"random:states={args.states},symbols=2,seed=0,perm=1"
    weights, automaton = rotated_one_hot(spec, seed=1)
    config = ExtractConfig(words=args.words, length=args.length, tol=1e-3, seed=0)
    times = []
    for _ in range(args.repeat):  # fresh weights and automaton each run: nothing cached on them is reused
        clear_caches()
        weights, automaton = rotated_one_hot(spec, seed=1)
        t0 = time.perf_counter()
        ex = extract(weights, automaton, config)
        times.append(time.perf_counter() - t0)
    best = min(times)
    words = np.random.default_rng(0).integers(0, 2, size=(args.words, args.length))
    t0 = time.perf_counter()
    automaton.labels_batch(words, trace=True)
    sim = time.perf_counter() - t0
    tokens = args.words * args.length
    print(f"automaton: {spec} ({automaton.n_states} states), hidden d = {weights.dim}, rotated one-hot; load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"extraction of {args.words} words x length {args.length} ({tokens:,} hidden states), best of {args.repeat}:")
    print(f"  time        {best:.3f} s   ({', '.join(f'{t:.3f}' for t in times)})")
    print(f"  words/s     {args.words / best:,.0f}")
    print(f"  tokens/s    {tokens / best:,.0f}   ({1e9 * best / tokens:.0f} ns/token)")
    print(f"  result      {ex.n_clusters} clusters, isomorphic={ex.isomorphic}, within<={ex.within:.1e}, between>={ex.between:.3f}")
    print(f"automaton simulation on the same words: {sim:.3f} s ({1e9 * sim / tokens:.0f} ns/token); extraction / simulation = {best / sim:.0f}x")


if __name__ == "__main__":
    main()

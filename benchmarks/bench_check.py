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

Measured 2026-12-08 (round 23 of benchmarks/SPEED.md, "Issue 48, round 23", inside
``benchmarks/speed_targets.py``: the machine of rounds 21 and 22, nothing else running, load 1.0),
1000 words x length 500, median of 5; ``path`` is how the check judged the words (``table``: the
float run's finitely many states, one look-up per symbol, constructions/values/floatstates.py;
``dense``: the float run itself, docs/theory.md Theorem 26 says when the table is exact):

    case                             d  symbols classes   path   check tok/s   run_batch tok/s  ratio  accuracy  worst margin
    parity diagonal                  1        2       2  table      1.42e+08          8.37e+07    0.6x    1.0000  2
    cyclic:7 rotation2d              2        7       7  dense      2.71e+07          8.35e+07    3.1x    1.0000  0.377
    dihedral:50 block:2              2        2     100  dense      2.31e+07          7.54e+07    3.3x    1.0000  0.00394
    symmetric:5 full                 4        2     120  table      1.08e+08          8.26e+07    0.8x    1.0000  0.632
    quaternion full                  4        2       8  table      1.15e+08          6.58e+07    0.6x    1.0000  1
    modarith:5 full                  5       10       5  table      1.46e+08          6.98e+07    0.5x    1.0000  1
    modarith:8 full                  8       16       8  table      1.38e+08          7.59e+07    0.5x    1.0000  1
    modarith:16 full                16       32      16  table      1.28e+08          9.79e+07    0.8x    1.0000  1
    modarith:5 full+noise1e-06       5       10       5  dense      1.81e+07          8.94e+07    5.0x    1.0000  1
    modarith:8 full+noise1e-06       8       16       8  dense      1.21e+07          6.75e+07    5.6x    1.0000  1
    cyclic:3 random-diagonal:16     16        3       3  dense      1.17e+07          6.84e+07    5.9x    0.3322  -2.91
    modarith:16 full+noise1e-06     16       32      16  dense      7.88e+06          8.12e+07   10.3x    1.0000  1

017281d's tree (main before issue 48's speed work) read 9.3 / 17.9 / 19.7 / 23.7 / 15.6 / 22.0 /
25.4 / 37.7 / 19.8 / 26.5 / 21.0 / 38.9x in the same run.  The simulation read 6.6e7 to 9.8e7
tokens a second from row to row of this one run (rounds 21 and 22 on the same machine: 8.0e7 to
1.0e8), and the dense checks of the networks that drift 0.8-1.0x of round 22's tokens a second:
the ratios of those rows move by about a tenth from run to run (noisy d = 5: 4.9x, 5.7x, 5.0x in
rounds 21 to 23).  Within 5x for every exact construction: 0/1, signed permutation and +-1
matrices run through the table at about the simulation's speed (its walk is the simulation's
loop), whatever d and the alphabet; the rotations drift (their products round), so they run
densely: at d = 2 the many-class bound (``_Bound``: one gathered reference row and its distance
per prefix) keeps dihedral:50 under 4x.  The networks that drift, as trained ones do, run densely
at 5.0-10.3x: a diagonal network's product is entry by entry (``floatrun``'s ``"entrywise"``, 9.1x
before it), and the rest is the readout, the norms and the margins; a full matrix's product is
stacked (every row times every symbol's matrix) up to 32 symbols x hidden, grouped by symbol above
(round 13 of benchmarks/SPEED.md: grouping won from about 36 at 1,000 words; the noisy d = 5 case
5.9x -> 4.7x).  For the noisy modarith:16 (the last case), ``--parts`` times each part of its dense
check alone on the same words (CPU ms, best of 5, 2026-12-08, load 0.08):

    simulation (run_batch)                                                       5.4 ms
    grouping by symbol (16 steps at a time)                                      6.2 ms
    gathering into the padded rows (1.50x the rows)                              5.0 ms
    batched GEMM, 32 x (47 x 16) @ (16 x 16)                                     6.7 ms
    gathering back into word order                                               3.4 ms
    floor of that product: (1000 x 16) @ (16 x 16), unpadded                     4.1 ms
    readout and margins as checked (63 blocks of 8000 rows)                     12.6 ms
    readout alone as checked (Fortran order, chunks of 2048 rows)                5.0 ms
    readout alone, one C-order product a block                                   8.9 ms
    norms                                                                        5.0 ms
    the automaton's walk                                                         1.6 ms
    the product fused instead: torch's embedding_bag, float64, no grouping      91.0 ms

(A run a minute before, at load 0.01, read the readout alone at 7.7 ms and the readout and
margins at 16.2: the parts move by up to half from run to run on this machine.)

The readout runs at about 25 G multiply-adds a second (128 M in 5.0 ms) when the readout is in
Fortran order (BLAS then reads both operands transposed) and scored 2,048 rows at a time (rows and
scores stay in the core's cache), against about 14 G as one C-order product a block; the check scores that way
(``floatcheck._row_margins``).  So the simulation and the two products at their floors are about
2.7x the simulation, and what the dense run does with numpy around them (the grouping by symbol,
the gathers, the padding, the norms and margins) costs more than the remaining 2.3x: the check
stays near 10x.  The one fused kernel at hand for a product whose matrix differs per row,
torch's ``embedding_bag`` (each row's product a weighted sum of gathered rows, one call a step,
no grouping), takes four times the grouped product's 21 ms in float64.

The check makes no array of the words' size and none again per block (the automaton walked
beside the float run into kept buffers, the grouping at most 16384 word-steps at once, the
judge's and the rescaling's buffers made once), so it does not depend on the allocator's state
either way.

Run:  .venv/bin/python benchmarks/bench_check.py [--length 500] [--words 1000] [--repeat 5] [--parts]
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
#: matrices; the noisy cases drift (their products round), so the check runs densely, as it does
#: for a trained network.  ``random-diagonal:D`` is not a construction: seeded random diagonal
#: weights of hidden size D for the automaton (entries of both signs near 1, a random readout),
#: as a trained diagonal (Mamba-like) network has; its verdict does not matter here, its time does.
CASES = [("parity", "diagonal", 0.0), ("cyclic:7", "rotation2d", 0.0), ("dihedral:50", "block:2", 0.0),
         ("symmetric:5", "full", 0.0), ("quaternion", "full", 0.0), ("modarith:5", "full", 0.0),
         ("modarith:8", "full", 0.0), ("modarith:16", "full", 0.0), ("modarith:5", "full", 1e-6),
         ("modarith:8", "full", 1e-6), ("cyclic:3", "random-diagonal:16", 0.0), ("modarith:16", "full", 1e-6)]


def _weights(spec: str, variant: str, noise: float):
    """The construction in float, its matrices plus seeded Gaussian noise of scale ``noise`` (or
    the seeded random diagonal weights of ``random-diagonal:D``, see :data:`CASES`)."""
    if variant.startswith("random-diagonal:"):
        a, d = from_spec(spec), int(variant.split(":")[1])
        rng = np.random.default_rng(0)
        A = np.zeros((a.n_symbols, d, d))
        A[:, np.arange(d), np.arange(d)] = rng.choice([-1.0, 1.0], size=(a.n_symbols, d)) * rng.uniform(0.9, 1.1, (a.n_symbols, d))
        return Weights("diagonal", A, rng.normal(size=d), rng.normal(size=(a.n_classes, d)))
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


def _best(fn, repeat: int) -> float:
    """Best CPU milliseconds of ``repeat`` calls."""
    return 1e3 * min(_cpu(fn) for _ in range(repeat))


def parts(spec: str, variant: str, noise: float, words: np.ndarray, repeat: int) -> list[tuple[str, float]]:
    """Each part of the dense float check of the case, timed alone on the same words (CPU ms, best
    of ``repeat``), as ``(what, ms)``: the simulation; the run's grouping by symbol, gathers and
    batched GEMM over the padded rows (``method="grouped"``, 32 symbols or fewer); the same
    product's floor (one GEMM over the unpadded rows, as if every word read one symbol); the
    readout as the check scores it (:func:`~bilinear.constructions.horizon.floatcheck._row_margins`,
    margins included) and as one C-order product; the norms; the automaton's walk; and the run's
    product as one fused call a step instead, torch's ``embedding_bag`` (each row's product
    ``sum_j x_j A[w]^T[j]`` as a weighted sum of gathered rows, no grouping)."""
    from bilinear.constructions.values import floatrun
    from bilinear.constructions.values.floatstates import walk

    a, w = from_spec(spec), _weights(spec, variant, noise)
    A, h0, R = w.float_arrays()
    A = np.ldexp(A, -floatrun.scale_exponents(A)[:, None, None])
    AT = np.ascontiguousarray(np.transpose(A, (0, 2, 1)))
    R = floatcheck.rescaled(R)
    RF = np.asfortranarray(R)
    (k, d), (batch, T) = A.shape[:2], words.shape
    span = floatrun._slot_steps(batch)
    chunks = [words[:, lo : lo + span] for lo in range(0, T, span)]
    slots, groups, sources = floatrun._slots(chunks[0], k, d)
    assert sources is not None, "the padded rows are listed for every step"
    padded, product = np.zeros((k, groups, d)), np.empty((k, groups, d))
    H, out = np.random.default_rng(1).normal(size=(batch, d)), np.empty((batch, d))
    steps = floatcheck._block_steps(batch, max(d, R.shape[0]))
    rows = np.random.default_rng(2).normal(size=(steps * batch, d))
    labels = np.random.default_rng(3).integers(0, R.shape[0], size=steps * batch)
    work = floatcheck._Work(steps * batch, R.shape[0], floatcheck._chunk_rows(*R.shape), d)
    scores = np.empty((R.shape[0], steps * batch))
    blocks = range(0, T, steps)

    def grouping():
        for c in chunks:
            floatrun._slots(c, k, d)

    def take_in():
        for t in range(T):
            H.take(sources[t % span], axis=0, out=padded.reshape(-1, d), mode="clip")

    def gemm():
        for _ in range(T):
            np.matmul(padded, AT, out=product)

    def take_out():
        for t in range(T):
            product.reshape(-1, d).take(slots[t % span], axis=0, out=out, mode="clip")

    def floor():
        x = H.copy()
        for _ in range(T):
            np.matmul(x, AT[0], out=out)

    def readout():
        for _ in blocks:
            floatcheck._row_margins(RF, rows, labels, work)

    def readout_chunks():
        chunk = work.chunk or rows.shape[0]
        for _ in blocks:
            for lo in range(0, rows.shape[0], chunk):
                np.matmul(RF, rows[lo : lo + chunk].T, out=scores[:, : min(chunk, rows.shape[0] - lo)])

    def readout_c():
        for _ in blocks:
            np.matmul(R, rows.T, out=scores)

    def norms():
        for _ in blocks:
            floatcheck._norms(rows, work.norms, work.squares)

    def walked():
        walk(np.ascontiguousarray(a.delta), a.start, words)

    import torch  # a fused kernel the project has: torch's gather-and-sum, no grouping by symbol

    torch.set_num_threads(1)
    table = torch.from_numpy(np.ascontiguousarray(AT.reshape(k * d, d)))  # row s*d + j: row j of A[s]^T
    picks = torch.from_numpy(words.T * d)[:, :, None] + torch.arange(d)  # (time, batch, d): rows s*d + j of the table
    start = torch.from_numpy(H)

    def fused():
        x = start
        for t in range(T):  # x[b] @ A[w_t]^T as sum_j x[b, j] * table[w_t d + j], one call a step
            x = torch.nn.functional.embedding_bag(picks[t], table, per_sample_weights=x, mode="sum")

    return [("simulation (run_batch)", _best(lambda: a.run_batch(words, trace=True), repeat)),
            (f"grouping by symbol ({span} steps at a time)", _best(grouping, repeat)),
            (f"gathering into the padded rows ({k * groups / batch:.2f}x the rows)", _best(take_in, repeat)),
            (f"batched GEMM, {k} x ({groups} x {d}) @ ({d} x {d})", _best(gemm, repeat)),
            ("gathering back into word order", _best(take_out, repeat)),
            (f"floor of that product: ({batch} x {d}) @ ({d} x {d}), unpadded", _best(floor, repeat)),
            (f"readout and margins as checked ({len(blocks)} blocks of {steps * batch} rows)", _best(readout, repeat)),
            (f"readout alone as checked (Fortran order, chunks of {work.chunk or rows.shape[0]} rows)",
             _best(readout_chunks, repeat)),
            ("readout alone, one C-order product a block", _best(readout_c, repeat)),
            ("norms", _best(norms, repeat)),
            ("the automaton's walk", _best(walked, repeat)),
            ("the product fused instead: torch's embedding_bag, float64, no grouping", _best(fused, repeat))]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--length", type=int, default=500)
    parser.add_argument("--words", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--parts", action="store_true",
                        help="time each part of the drifting case's dense check alone, next to the simulation")
    args = parser.parse_args(argv)
    tokens = args.length * args.words
    if args.parts:
        keep_freed_buffers()
        spec, variant, noise = CASES[-1]
        words = np.random.default_rng(0).integers(0, from_spec(spec).n_symbols, size=(args.words, args.length))
        print(f"{spec} {variant}+noise{noise:g}: each part of the dense check alone, {args.words} words x length "
              f"{args.length}, CPU ms, best of {args.repeat}; load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
        timed = parts(spec, variant, noise, words, args.repeat)
        sim = timed[0][1]
        for what, ms in timed:
            print(f"  {what:<72}{ms:8.1f} ms  {ms / sim:5.2f}x the simulation")
        least = sim + timed[5][1] + timed[7][1]  # the simulation, the product's floor, the readout as checked
        print(f"  the simulation and the two products at their floors: {least:.1f} ms, {least / sim:.2f}x the simulation")
        return 0
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

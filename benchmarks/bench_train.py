"""Training step and length-500 evaluation of the `full` bilinear model against torch.nn.LSTM.

    python benchmarks/bench_train.py [--quick] [--cpu-time]

One torch thread, B = 256.  For d in {64, 256} and V in {2, 10} it times, in one run:

* a plain sgemm of the scan's shape, (B x d) @ (d x d), as the machine's reference GFLOP/s;
* the length-500 evaluation (no grad, h renormalised every step) of `full` with the token-grouped
  sequential scan, and of an LSTM of the same hidden size (cuDNN-free CPU nn.LSTM);
* a training step (forward, backward, Adam) on length-10 words, bilinear against LSTM, with one
  and with two torch threads (the targets: `full` at least 2x faster than the LSTM at d = 256,
  at least as fast at d = 64; each pair is timed interleaved, best of several rounds);
* the naive per-row ``bmm(A[x_t], h)`` step (a shorter sequence, extrapolated per token);
* the log-depth parallel scan against the sequential scan (shorter sequences at d = 256);
* with ``--layers`` only: a training step of an L-layer stack (L = 2, 3; the soft cascade run
  layer by layer) against L single layers of the same shapes, and the per-step soft loop it
  replaced, side by side (``layers_table``).
* with ``--eval-loop`` only: the no-grad evaluation at d = 64 and 256 (V = 2, 10), its grouped loop
  (``bilinear.learned.grouped_loop``) run by Python and by TorchScript, interleaved, with the
  sgemm of the same shape in the same rounds.
* with ``--paths`` only: the three autograd steps of the scan forced one at a time (per-row
  batched product, one GEMM per symbol, one padded bmm) at d <= 64, one thread.
* with ``--families`` only: the 2025 families against `full` and the LSTM at d = 256 (or the sizes
  given by ``--family-hidden``), one
  thread, in one run (interleaved rounds): a training step on length-10 words and the length-500
  evaluation, for `householder:2` (the compact WY form I - Y M Y^T of the K reflections: two
  skinny GEMMs per token against every symbol's K vectors; the whole scan and its readout are
  one autograd node, learned/autograd_scans.py `_HouseholderScan`, run in the coordinates of an orthonormal
  basis of span(h0, k's, readout rows), m = 1 + V K + classes of them, so O(V K m) per token
  when 2 m <= d, `Householder.in_span`), `monomial` (one gather and one scatter per
  token, O(d), one autograd node `_MonomialScan`; the straight-through gradient of the d x d column
  selection logits is a d x d outer product per token, formed once per step as one GEMM per
  symbol over all positions: 2 B T d^2 FLOPs, one third of `full`'s three GEMMs, which bounds
  monomial's training-step ratio), `monomial,complex` (a complex product and a scatter per token,
  O(d), not fused: its straight-through term is a (d/2) x (d/2) product per row per step in the
  autograd graph), `dplr:1` (O(R d)); target: training steps at least 5x faster
  than `full`.  These rows are timed in CPU seconds of the process (``time.process_time``, one
  torch thread), so that the load of other processes on a shared machine does not enter.
  Then ``families_phases``: each model's step split into forward (parameter preprocessing, scan,
  readout, loss), backward and Adam, and monomial's floor: the CPU ms of its parametrisation
  alone (the soft-gradient GEMMs, the column softmax forward and backward, the argmax, Adam on
  the V d^2 logits), with ``full / floor``, the most any monomial scan could reach.

glibc's mmap and trim thresholds are raised first, as the ``bilinear`` command does
(``bilinear.malloc.keep_freed_buffers``: freed multi-MB buffers are reused instead of being
page-faulted in again at every call); ``--default-malloc`` leaves them as they are.  The header
line says which.

Useful FLOPs: bilinear 2 B T d^2 per sequence batch (one d x d product per token), LSTM
2 B T (4d)(2d) (input and recurrent products).  Ratios, not absolute times, are the result:
the machines are shared.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import time

import torch
from torch import nn

from bilinear.learned.baselines import LSTMModel
from bilinear.learned.models import BilinearRNN
from bilinear.learned import grouped_loop
from bilinear.learned.scan import Dense, Householder, parallel_scan, sequential_scan
from bilinear.malloc import keep_freed_buffers

B = 256


#: The clock of :func:`best_time`: wall time, or with ``--cpu-time`` the CPU seconds of this process
#: (``time.process_time``), which the load of other processes on a shared machine does not enter;
#: with two threads it is the sum of both threads' time, not the wall time.
CLOCK = time.perf_counter


def best_time(fn, reps: int, clock=None) -> float:
    clock = clock or CLOCK
    fn()  # warm-up
    times = []
    for _ in range(reps):
        t = clock()
        fn()
        times.append(clock() - t)
    return min(times)


def sgemm_gflops(d: int, reps: int) -> float:
    a, w, out = torch.randn(B, d), torch.randn(d, d), torch.empty(B, d)
    n = 50

    def run():
        for _ in range(n):
            torch.mm(a, w, out=out)

    return 2 * B * d * d * n / best_time(run, reps) / 1e9


def bench_eval(d: int, V: int, T: int, reps: int) -> dict:
    gen = torch.Generator().manual_seed(0)
    words = torch.randint(0, V, (B, T), generator=gen)
    bil = BilinearRNN(V, V, d, "full", seed=0, scan="sequential").eval()
    lstm = LSTMModel(V, V, d, seed=0).eval()
    with torch.no_grad():
        t_bil = best_time(lambda: bil(words), reps)
        t_lstm = best_time(lambda: lstm(words), reps)
    return {
        "bil_gflops": 2 * B * T * d * d / t_bil / 1e9,
        "lstm_gflops": 2 * B * T * 8 * d * d / t_lstm / 1e9,
        "bil_us_tok": t_bil / (B * T) * 1e6,
        "lstm_us_tok": t_lstm / (B * T) * 1e6,
    }



def bench_eval_loop(d: int, V: int, T: int, reps: int, rounds: int = 3) -> dict:
    """The no-grad evaluation (d, V, B = 256, length T, renormalised, with its readout) through
    ``sequential_scan``, its grouped loop run by Python and by TorchScript
    (``bilinear.learned.grouped_loop``: the same function), timed in alternating rounds with the
    sgemm of the scan's shape; and whether the two logits are equal bit for bit."""
    gen = torch.Generator().manual_seed(0)
    A = torch.randn(V, d, d, generator=gen) / d**0.5
    R, h0 = torch.randn(V, d, generator=gen), torch.randn(d, generator=gen)
    words = torch.randint(0, V, (B, T), generator=gen)

    def run(name: str):
        with grouped_loop.by_python() if name == "python" else contextlib.nullcontext():
            return sequential_scan(Dense(A), words, h0, normalize=True, readout=R)

    out = {"python": float("inf"), "torchscript": float("inf"), "sgemm": 0.0}
    with torch.no_grad():
        out["equal"] = torch.equal(run("python"), run("torchscript"))
        for _ in range(rounds):
            out["sgemm"] = max(out["sgemm"], sgemm_gflops(d, reps))
            for name in ("python", "torchscript"):
                out[name] = min(out[name], best_time(lambda: run(name), reps))
    return out


def eval_loop_table(reps: int, T: int = 500) -> None:
    """The no-grad evaluation's loop by Python and by TorchScript side by side (% of the sgemm)."""
    print(f"grouped loop: {grouped_loop.backend()}")
    print("| d | V | sgemm GF/s | Python loop us/step, GF/s (% sgemm) | TorchScript loop us/step, GF/s (% sgemm) "
          "| Python÷TorchScript | logits equal |")
    print("|---|---|---|---|---|---|---|")
    for d in (64, 256):
        for V in (2, 10):
            r = bench_eval_loop(d, V, T, reps)
            cells = []
            for name in ("python", "torchscript"):
                gf = 2 * B * T * d * d / r[name] / 1e9
                cells.append(f"{r[name] / T * 1e6:.1f}, {gf:.1f} ({100 * gf / r['sgemm']:.0f}%)")
            print(f"| {d} | {V} | {r['sgemm']:.1f} | {cells[0]} | {cells[1]} | {r['python'] / r['torchscript']:.2f}x "
                  f"| {'yes' if r['equal'] else 'NO'} |", flush=True)


def _adam_step(model, words, labels, V: int):
    """One Adam training step of ``model`` on fixed words (cross-entropy at every position)."""
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)

    def step():
        logits = model(words)
        loss = nn.functional.cross_entropy(logits.reshape(-1, V), labels.reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()

    return step


def bench_train_step(d: int, V: int, reps: int, rounds: int = 3, batch: int = B) -> dict:
    """Best training-step time of `full` and of the LSTM, timed in alternating rounds so that a
    burst of load on a shared machine hits both."""
    gen = torch.Generator().manual_seed(1)
    words = torch.randint(0, V, (batch, 10), generator=gen)
    labels = torch.randint(0, V, (batch, 10), generator=gen)
    steps = {}
    for name, model in (("bil", BilinearRNN(V, V, d, "full", seed=0, scan="sequential")),
                        ("lstm", LSTMModel(V, V, d, seed=0))):
        steps[name] = _adam_step(model, words, labels, V)
    out = {"bil_ms": float("inf"), "lstm_ms": float("inf")}
    for _ in range(rounds):
        for name, step in steps.items():
            out[f"{name}_ms"] = min(out[f"{name}_ms"], best_time(step, reps) * 1e3)
    return out


FAMILIES = ("full", "householder:2", "householder:2 full-space", "monomial", "monomial,complex", "dplr:1")
#: The Householder scan as it ran before it took span coordinates: the same model, its
#: transitions declining ``Householder.in_span`` (which ``scan`` asks whenever a readout is given).
FULL_SPACE = " full-space"


class _FullSpaceHouseholder(Householder):
    """The same transitions with no span coordinates: ``scan`` keeps the hidden space."""

    def in_span(self, h0, readout):
        return None


def family_model(name: str, V: int, d: int) -> BilinearRNN:
    """The model of a row of :data:`FAMILIES`: ``householder:2 full-space`` is ``householder:2``
    run in the full hidden space (the baseline of the span coordinates); its forward is the
    model's own, on transitions that decline the change of coordinates."""
    if not name.endswith(FULL_SPACE):
        return BilinearRNN(V, V, d, name, seed=0, scan="sequential")
    model = BilinearRNN(V, V, d, name[: -len(FULL_SPACE)], seed=0, scan="sequential")
    transitions = model.transitions

    def full_space():
        t = transitions()
        return _FullSpaceHouseholder(t.k, t.beta)

    model.transitions = full_space  # type: ignore[method-assign]
    return model


def families_table(reps: int, d: int = 256, rounds: int = 3) -> None:
    """Training step and eval per token of each family against `full` and the LSTM (one thread)."""
    print("| d | V | model | train step CPU ms | ÷ full | eval CPU us/token (T = 500) | ÷ full |")
    print("|---|---|---|---|---|---|---|")
    for V in (2, 10):
        gen = torch.Generator().manual_seed(1)
        words = torch.randint(0, V, (B, 10), generator=gen)
        labels = torch.randint(0, V, (B, 10), generator=gen)
        long_words = torch.randint(0, V, (B, 500), generator=gen)
        models = {name: family_model(name, V, d) for name in FAMILIES}
        models["lstm"] = LSTMModel(V, V, d, seed=0)
        steps = {}
        for name, model in models.items():
            steps[name] = _adam_step(model, words, labels, V)
        train = {name: float("inf") for name in models}
        evals = {name: float("inf") for name in models}
        cpu = time.process_time  # one thread: the CPU time of this process, not the shared machine's load
        for _ in range(rounds):
            for name, model in models.items():
                train[name] = min(train[name], best_time(steps[name], reps, cpu) * 1e3)
                model.eval()
                with torch.no_grad():
                    evals[name] = min(evals[name], best_time(lambda m=model: m(long_words), 1, cpu) / (B * 500) * 1e6)
                model.train()
        for name in models:
            print(f"| {d} | {V} | `{name}` | {train[name]:.1f} | {train['full'] / train[name]:.2f}x | "
                  f"{evals[name]:.3f} | {evals['full'] / evals[name]:.2f}x |", flush=True)


def _phase_step(model, words, labels, V: int):
    """A training step of ``model`` split into its phases, returning their CPU seconds: forward
    (parameter preprocessing, scan, readout, loss), backward, Adam."""
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    cpu = time.process_time

    def step() -> tuple:
        t0 = cpu()
        logits = model(words)
        loss = nn.functional.cross_entropy(logits.reshape(-1, V), labels.reshape(-1))
        t1 = cpu()
        opt.zero_grad()
        loss.backward()
        t2 = cpu()
        opt.step()
        return t1 - t0, t2 - t1, cpu() - t2

    return step


def _monomial_floor(V: int, d: int, reps: int) -> dict:
    """CPU ms of what the monomial parametrisation costs whatever the scan does, for V symbols at
    hidden d and B T = B x 10 positions spread evenly over the symbols: the straight-through
    gradient of the (V, d, d) selection (one (d x n_s)(n_s x d) GEMM per symbol, 2 B T d^2 FLOPs),
    the column softmax forward and backward, the argmax, and Adam on the V d^2 logits."""
    gen = torch.Generator().manual_seed(2)
    n = B * 10 // V
    G = [torch.randn(n, d, generator=gen) for _ in range(V)]
    X = [torch.randn(n, d, generator=gen) for _ in range(V)]
    logits = torch.randn(V, d, d, generator=gen, requires_grad=True)
    opt = torch.optim.Adam([logits], lr=1e-3)
    cpu = time.process_time

    def gemm():
        torch.stack([g.T @ x for g, x in zip(G, X)])

    def softmax():
        soft = torch.softmax(logits, dim=1)
        soft.backward(G[0].new_ones(()).expand_as(soft))

    def adam():
        logits.grad = torch.ones_like(logits)
        opt.step()

    return {"gemm": best_time(gemm, reps, cpu) * 1e3, "softmax": best_time(softmax, reps, cpu) * 1e3,
            "argmax": best_time(lambda: logits.detach().argmax(dim=1), reps, cpu) * 1e3,
            "adam": best_time(adam, reps, cpu) * 1e3}


def families_phases(reps: int, d: int = 256, rounds: int = 3) -> None:
    """Where a family's training step goes (forward, backward, Adam; CPU ms, best of interleaved
    rounds), and the floor that monomial's parametrisation puts under its step: the ratio
    ``full / floor`` is the most any monomial scan could reach with this estimator."""
    print("| d | V | model | forward ms | backward ms | Adam ms | step ms | ÷ full |")
    print("|---|---|---|---|---|---|---|---|")
    cpu_floor = {}
    for V in (2, 10):
        gen = torch.Generator().manual_seed(1)
        words = torch.randint(0, V, (B, 10), generator=gen)
        labels = torch.randint(0, V, (B, 10), generator=gen)
        steps = {name: _phase_step(family_model(name, V, d), words, labels, V) for name in FAMILIES}
        best = {name: (float("inf"),) * 3 for name in FAMILIES}
        for _ in range(rounds):
            for name, step in steps.items():
                step()  # warm-up
                for _ in range(reps):
                    t = step()
                    if sum(t) < sum(best[name]):
                        best[name] = t
        full = sum(best["full"])
        for name in FAMILIES:
            f, b, a = (x * 1e3 for x in best[name])
            print(f"| {d} | {V} | `{name}` | {f:.1f} | {b:.1f} | {a:.1f} | {f + b + a:.1f} | "
                  f"{full / sum(best[name]):.2f}x |", flush=True)
        cpu_floor[V] = (_monomial_floor(V, d, reps), full * 1e3)
    print()
    print("| d | V | soft-gradient GEMMs ms | softmax fwd+bwd ms | argmax ms | Adam (V d^2) ms | floor ms "
          "| full ms | full ÷ floor |")
    print("|---|---|---|---|---|---|---|---|---|")
    for V, (fl, full_ms) in cpu_floor.items():
        floor = sum(fl.values())
        print(f"| {d} | {V} | {fl['gemm']:.1f} | {fl['softmax']:.1f} | {fl['argmax']:.1f} | {fl['adam']:.1f} | "
              f"{floor:.1f} | {full_ms:.1f} | {full_ms / floor:.2f}x |", flush=True)


def train_step_table(reps: int, threads=(1, 2)) -> None:
    """The training-step comparison at each thread count, d in {64, 256}, V in {2, 10}."""
    print("| threads | d | V | train step ms `full` | LSTM | LSTM÷full | target |")
    print("|---|---|---|---|---|---|---|")
    for n in threads:
        torch.set_num_threads(n)
        for d in (64, 256):
            for V in (2, 10):
                tr = bench_train_step(d, V, reps)
                ratio = tr["lstm_ms"] / tr["bil_ms"]
                target = 2.0 if d == 256 else 1.0
                verdict = "met" if ratio >= target else "MISSED"
                print(f"| {n} | {d} | {V} | {tr['bil_ms']:.1f} | {tr['lstm_ms']:.1f} | {ratio:.2f}x | "
                      f">= {target:.0f}x: {verdict} |", flush=True)
    torch.set_num_threads(1)


def bench_step_paths(d: int, V: int, batch: int, reps: int) -> dict:
    """Training-step ms of `full` through each autograd step of the sequential scan, forced: the
    per-row batched product (``einsum`` over ``A[x_t]``), one GEMM per symbol, one padded bmm."""
    from bilinear.learned import scan as scan_module
    from bilinear.learned import transitions as transitions_module

    gen = torch.Generator().manual_seed(1)
    words = torch.randint(0, V, (batch, 10), generator=gen)
    labels = torch.randint(0, V, (batch, 10), generator=gen)
    model = BilinearRNN(V, V, d, "full", seed=0, scan="sequential")
    step = _adam_step(model, words, labels, V)

    modules = (scan_module, transitions_module)  # the scan and Dense.step both read them
    saved = [(m.SMALL_HIDDEN, m.padded_step_wanted) for m in modules]
    out = {}
    try:
        for name, small, padded in (("per-row", 10**9, False), ("per-symbol", 0, False), ("padded", 0, True)):
            for m in modules:
                m.SMALL_HIDDEN = small
                m.padded_step_wanted = lambda hidden, n_symbols, padded=padded: padded
            out[name] = best_time(step, reps) * 1e3
    finally:
        for m, (small, wanted) in zip(modules, saved):
            m.SMALL_HIDDEN, m.padded_step_wanted = small, wanted
    return out


def step_paths_table(reps: int) -> None:
    """The three autograd step paths side by side, one thread, against the LSTM."""
    print("| d | V | B | per-row ms | per-symbol GEMMs ms | padded bmm ms | LSTM ms |")
    print("|---|---|---|---|---|---|---|")
    for d, V, batch in ((16, 10, 64), (16, 10, 256), (32, 10, 256), (64, 10, 256)):
        p = bench_step_paths(d, V, batch, reps)
        lstm = bench_train_step(d, V, reps, rounds=1, batch=batch)["lstm_ms"]
        print(f"| {d} | {V} | {batch} | {p['per-row']:.1f} | {p['per-symbol']:.1f} | {p['padded']:.1f} | {lstm:.1f} |",
              flush=True)


def bench_naive(d: int, V: int, T: int, reps: int) -> float:
    """us/token of the per-row batched matrix-vector step ``bmm(A[x_t], h)``."""
    A = torch.randn(V, d, d) / d**0.5
    words = torch.randint(0, V, (B, T))
    h0 = torch.randn(d)

    def run():
        h = h0.expand(B, d)
        for t in range(T):
            h = torch.bmm(A[words[:, t]], h.unsqueeze(-1)).squeeze(-1)
            h = h / h.norm(dim=-1, keepdim=True)

    with torch.no_grad():
        return best_time(run, reps) / (B * T) * 1e6


def bench_scans(d: int, V: int, batch: int, T: int, reps: int) -> dict:
    A = Dense(torch.randn(V, d, d) / d**0.5)
    words = torch.randint(0, V, (batch, T))
    h0 = torch.randn(d)
    with torch.no_grad():
        t_seq = best_time(lambda: sequential_scan(A, words, h0, normalize=True), reps)
        t_par = best_time(lambda: parallel_scan(A, words, h0, normalize=True), max(1, reps // 2))
    return {"seq_ms": t_seq * 1e3, "par_ms": t_par * 1e3}


def _per_step_soft(stack, layer, words, p):
    """The soft cascade of one layer as it was before the layer-by-layer scan (the baseline of
    ``--layers``): every step applies all of the layer's symbols x classes matrices to the batch,
    picks each row's symbol and mixes by ``p``."""
    A = layer.transitions().dense()
    d, S, C = A.shape[-1], stack.n_symbols, stack.n_classes
    batch, time = words.shape
    h = (layer.h0 / layer.h0.norm().clamp_min(1e-30)).expand(batch, d)
    normalize = layer.normalize_train or not stack.training
    AT = A.reshape(S * C * d, d).T
    rows = torch.arange(batch)
    out = []
    for t in range(time):
        Y = (h @ AT).reshape(batch, S, C, d)[rows, words[:, t]]
        h = torch.einsum("bc,bci->bi", p[:, t], Y)
        if normalize:
            h = h / h.norm(dim=-1, keepdim=True).clamp_min(1e-30)
        out.append(h)
    return layer.readout(torch.stack(out, dim=1))


def layers_table(reps: int, rounds: int = 3) -> None:
    """``--layers``: a training step of an L-layer stack (the soft cascade, learned/stacked.py)
    against L single layers of the same shapes trained on their own (layer 1 on S symbols, the
    others on S x C), and against the per-step soft loop it replaced; one thread, CPU seconds of
    the process, interleaved rounds, best of each.  S = 2 symbols, C = 6 classes (dihedral:3),
    batch 64, length-10 words (the training protocol's batch and lengths)."""
    from bilinear.learned.stacked import StackedBilinearRNN

    S, C, batch, T = 2, 6, 64, 10
    cpu = time.process_time
    print(f"training step, batch {batch}, length {T}, {S} symbols, {C} classes; CPU ms, best of {rounds} rounds")
    print("| variant | d | L | stack (layer by layer) ms | L single layers ms | ratio | per-step soft loop ms | ratio |")
    print("|---|---|---|---|---|---|---|---|")
    gen = torch.Generator().manual_seed(1)
    words = torch.randint(0, S, (batch, T), generator=gen)
    labels = torch.randint(0, C, (batch, T), generator=gen)
    for variant, d in (("rotation2d", 16), ("rotation2d", 64), ("diagonal", 16), ("full", 16), ("full", 64)):
        for L in (2, 3):
            # the soft mixture, as measured in benchmarks/SPEED.md (straight-through, the default since
            # docs/training-results.md "which mixing", runs the same layer-by-layer code on a one-hot p)
            stack = StackedBilinearRNN(S, C, d, variant, layers=L, seed=0, scan="sequential", mixing="soft").train()
            old = StackedBilinearRNN(S, C, d, variant, layers=L, seed=0, scan="sequential", mixing="soft").train()
            old._soft = lambda layer, w, p, old=old: _per_step_soft(old, layer, w, p)  # type: ignore[method-assign]
            singles = [BilinearRNN(S * (C if l else 1), C, d, variant, seed=l, scan="sequential").train()
                       for l in range(L)]
            inputs = [words if l == 0 else words * C + labels for l in range(L)]
            single_steps = [_adam_step(m, x, labels, C) for m, x in zip(singles, inputs)]
            steps = {"stack": _adam_step(stack, words, labels, C), "old": _adam_step(old, words, labels, C),
                     "singles": lambda: [f() for f in single_steps]}
            best = {name: float("inf") for name in steps}
            for _ in range(rounds):
                for name, step in steps.items():
                    best[name] = min(best[name], best_time(step, reps, cpu) * 1e3)
            print(f"| `{variant}` | {d} | {L} | {best['stack']:.2f} | {best['singles']:.2f} | "
                  f"{best['stack'] / best['singles']:.2f} | {best['old']:.2f} | {best['old'] / best['singles']:.2f} |",
                  flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repetitions, shorter parallel-scan runs")
    parser.add_argument("--train-only", action="store_true", help="only the training-step table")
    parser.add_argument("--eval-loop", action="store_true",
                        help="only the no-grad evaluation, its grouped loop run by Python against TorchScript")
    parser.add_argument("--families", action="store_true",
                        help="only the 2025 families (householder:2, monomial, monomial,complex, dplr:1) against full and the LSTM at d = 256")
    parser.add_argument("--family-hidden", type=int, nargs="+", default=[256], metavar="D",
                        help="with --families: the hidden sizes to run (default 256, the issue's target size; "
                             "the ratio to full grows with d, O(K d) against O(d^2) per token)")
    parser.add_argument("--layers", action="store_true",
                        help="only stacks of layers: an L-layer training step against L single layers")
    parser.add_argument("--paths", action="store_true",
                        help="only the autograd step paths side by side (d <= 64, one thread)")
    parser.add_argument("--default-malloc", action="store_true",
                        help="leave glibc's mmap and trim thresholds as they are (by default they are raised, "
                             "as the bilinear command does: bilinear/malloc.py)")
    parser.add_argument("--cpu-time", action="store_true",
                        help="time in CPU seconds of this process (time.process_time) instead of wall time: "
                             "for a shared, loaded machine (two-thread rows then sum both threads)")
    args = parser.parse_args()
    global CLOCK
    if args.cpu_time:
        CLOCK = time.process_time
    torch.set_num_threads(1)
    kept = False if args.default_malloc else keep_freed_buffers()
    reps = 2 if args.quick else 5
    T = 500
    print(f"torch {torch.__version__}, B = {B}, eval length {T}; one torch thread unless a column says otherwise; "
          f"{'CPU' if args.cpu_time else 'wall'} time; glibc malloc thresholds "
          f"{'raised (as the bilinear command does)' if kept else 'as they were'}; load average "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print()
    if args.layers:
        layers_table(max(reps, 10))
        return
    if args.paths:
        step_paths_table(max(reps, 10))
        return
    if args.families:
        for d in args.family_hidden:
            families_table(reps, d)
            print()
            families_phases(reps, d)
            print()
        return
    if args.eval_loop:
        eval_loop_table(max(reps, 3))
        return
    train_step_table(reps)
    if args.train_only:
        return
    print()
    print("| d | V | sgemm GF/s | eval bilinear GF/s (% sgemm) | eval LSTM GF/s | us/token bil / LSTM (LSTM÷bil) "
          "| naive bmm us/token (÷ grouped) |")
    print("|---|---|---|---|---|---|---|")
    for d in (64, 256):
        sg = sgemm_gflops(d, reps)
        for V in (2, 10):
            ev = bench_eval(d, V, T, reps)
            naive = bench_naive(d, V, 20 if args.quick else 50, 1 if args.quick else 2)
            print(
                f"| {d} | {V} | {sg:.1f} | {ev['bil_gflops']:.1f} ({100 * ev['bil_gflops'] / sg:.0f}%) | "
                f"{ev['lstm_gflops']:.1f} | {ev['bil_us_tok']:.2f} / {ev['lstm_us_tok']:.2f} "
                f"({ev['lstm_us_tok'] / ev['bil_us_tok']:.1f}x) | {naive:.2f} ({naive / ev['bil_us_tok']:.0f}x) |",
                flush=True,
            )
    print()
    print("| scan setting | sequential ms | parallel ms | parallel÷sequential |")
    print("|---|---|---|---|")
    settings = [(64, 2, B, 500 if not args.quick else 100), (256, 2, 32, 100 if not args.quick else 32)]
    for d, V, batch, length in settings:
        s = bench_scans(d, V, batch, length, reps)
        print(f"| d={d}, V={V}, B={batch}, T={length} | {s['seq_ms']:.1f} | {s['par_ms']:.1f} | "
              f"{s['par_ms'] / s['seq_ms']:.1f}x |", flush=True)


if __name__ == "__main__":
    main()

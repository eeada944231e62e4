"""Training and evaluation on an accelerator: the parallel against the sequential scan, bilinear
against torch.nn.LSTM (cuDNN), the paper's models at hidden 256, the 2025 families.

    python benchmarks/bench_gpu.py [--device cuda] [--quick] [--out FILE.json]

Every figure is the median of ``reps`` timed calls after two warm-up calls, the device
synchronised before and after each call (wall time).  B = 256 words per batch throughout.

* ``train``: one Adam training step on length-10 words (cross-entropy at every position), `full`
  with the sequential scan (T dependent steps, one GEMM per symbol each) and with the log-depth
  parallel scan (d x d products, 2 log2 T levels), against the LSTM, d in {64, 256}, V in {2, 10};
* ``eval``: the no-grad forward on length-500 words (renormalised every step), the same three;
  useful GFLOP/s counts one d x d matrix-vector product per token for `full` (2 B T d^2) and
  the LSTM's input and recurrent products (2 B T (4d)(2d));
* ``chunks``: the no-grad parallel scan by chunk length against the sequential scan (d 64 and 256,
  T = 500), for choosing the parallel scan's memory budget on the device;
* ``paper``: one training step of each model of the reduced table as ``--preset paper`` builds it
  (hidden 256, a 256-dimensional token embedding, rotation2d with one angle per block) on
  cyclic:5's alphabet, and what 20,000 steps (the protocol's budget) cost at that rate;
* ``families``: householder:2, monomial and dplr:1 at d = 256 against `full`, each with the
  sequential scan (its own O(K d) / O(d) step) and the parallel scan (dense d x d products).

It runs on the CPU too (``--device cpu``, with ``--quick``), which is how its code is tested
without a GPU; the CPU figures are not the ones ``bench_train.py`` reports.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

import torch
from torch import nn

from bilinear.learned.baselines import LSTMModel
from bilinear.learned.models import BilinearRNN

B = 256
FAMILIES = ("full", "householder:2", "monomial", "dplr:1")
PAPER_MODELS = ("full", "block:2", "rotation2d", "diagonal", "lstm")


def timed(fn, reps: int, device: torch.device) -> float:
    """Median seconds of ``fn()`` over ``reps`` calls after two warm-ups, synchronised."""
    sync = torch.cuda.synchronize if device.type == "cuda" else (lambda: None)
    for _ in range(2):
        fn()
    sync()
    times = []
    for _ in range(reps):
        t = time.perf_counter()
        fn()
        sync()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def adam_step(model: nn.Module, words: torch.Tensor, labels: torch.Tensor, V: int):
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)

    def step():
        logits = model(words)
        loss = nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), labels.reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()

    return step


def bilinear(V: int, d: int, variant: str, scan: str, device, **kw) -> nn.Module:
    return BilinearRNN(V, V, d, variant, seed=0, scan=scan, **kw).to(device)


def train_table(device, reps: int, dims=(64, 256), T: int = 10) -> list[dict]:
    rows = []
    print("| d | V | train ms full seq | full par | LSTM | par÷seq | LSTM÷best full |")
    print("|---|---|---|---|---|---|---|")
    for d in dims:
        for V in (2, 10):
            gen = torch.Generator().manual_seed(1)
            words = torch.randint(0, V, (B, T), generator=gen).to(device)
            labels = torch.randint(0, V, (B, T), generator=gen).to(device)
            ms = {}
            for name, model in (("seq", bilinear(V, d, "full", "sequential", device)),
                                ("par", bilinear(V, d, "full", "parallel", device)),
                                ("lstm", LSTMModel(V, V, d, seed=0).to(device))):
                ms[name] = timed(adam_step(model, words, labels, V), reps, device) * 1e3
            best = min(ms["seq"], ms["par"])
            print(f"| {d} | {V} | {ms['seq']:.2f} | {ms['par']:.2f} | {ms['lstm']:.2f} | "
                  f"{ms['par'] / ms['seq']:.2f}x | {ms['lstm'] / best:.2f}x |", flush=True)
            rows.append({"table": "train", "d": d, "V": V, "T": T, **{f"{k}_ms": v for k, v in ms.items()}})
    return rows


def eval_table(device, reps: int, dims=(64, 256), T: int = 500) -> list[dict]:
    rows = []
    print(f"| d | V | eval (T = {T}) us/token full seq | full par | LSTM | full GF/s (best) | LSTM GF/s |")
    print("|---|---|---|---|---|---|---|")
    for d in dims:
        for V in (2, 10):
            gen = torch.Generator().manual_seed(2)
            words = torch.randint(0, V, (B, T), generator=gen).to(device)
            us = {}
            for name, model in (("seq", bilinear(V, d, "full", "sequential", device)),
                                ("par", bilinear(V, d, "full", "parallel", device)),
                                ("lstm", LSTMModel(V, V, d, seed=0).to(device))):
                model.eval()
                with torch.no_grad():
                    us[name] = timed(lambda m=model: m(words), reps, device) / (B * T) * 1e6
            best = min(us["seq"], us["par"])
            gf_full = 2 * d * d / best / 1e3  # FLOPs per token / us per token
            gf_lstm = 2 * 8 * d * d / us["lstm"] / 1e3
            print(f"| {d} | {V} | {us['seq']:.4f} | {us['par']:.4f} | {us['lstm']:.4f} | {gf_full:.0f} | "
                  f"{gf_lstm:.0f} |", flush=True)
            rows.append({"table": "eval", "d": d, "V": V, "T": T, **{f"{k}_us_per_token": v for k, v in us.items()}})
    return rows


def chunk_table(device, reps: int, dims=(64, 256), T: int = 500, V: int = 2) -> list[dict]:
    """The no-grad parallel scan by chunk length (time steps scanned at once) against the
    sequential scan: how large :data:`~bilinear.learned.scan.PARALLEL_BUDGET` should be on this
    device (today 2**25 elements per product tensor, two steps per chunk at d = 256, B = 256)."""
    from bilinear.learned.scan import Dense, parallel_scan, sequential_scan

    rows = []
    print("| d | B | T | sequential ms | parallel ms by chunk (time steps at once) |")
    print("|---|---|---|---|---|")
    for d in dims:
        gen = torch.Generator().manual_seed(5)
        A = Dense((torch.randn(V, d, d, generator=gen) / d**0.5).to(device))
        words = torch.randint(0, V, (B, T), generator=gen).to(device)
        h0 = torch.randn(d, generator=gen).to(device)
        with torch.no_grad():
            seq = timed(lambda: sequential_scan(A, words, h0, normalize=True), reps, device) * 1e3
            par = {}
            for chunk in (2, 8, 32, 128, T):
                if B * chunk * d * d > 2**31:  # 8 GiB per product tensor: the scan holds several
                    continue
                par[chunk] = timed(lambda c=chunk: parallel_scan(A, words, h0, normalize=True, chunk=c),
                                   max(3, reps // 4), device) * 1e3
        print(f"| {d} | {B} | {T} | {seq:.1f} | " + ", ".join(f"{c}: {ms:.1f}" for c, ms in par.items()) + " |",
              flush=True)
        rows.append({"table": "chunks", "d": d, "T": T, "seq_ms": seq, "par_ms": {str(c): v for c, v in par.items()}})
    return rows


def paper_table(device, reps: int, hidden: int = 256, embed: int = 256, T: int = 10) -> list[dict]:
    """One training step of each reduced-table model as ``--preset paper`` builds it (cyclic:5)."""
    from bilinear.automata import from_spec
    from bilinear.learned.config import TrainConfig
    from bilinear.learned.registry import make_model

    automaton = from_spec("cyclic:5")
    V = automaton.n_symbols
    gen = torch.Generator().manual_seed(3)
    words = torch.randint(0, V, (B, T), generator=gen).to(device)
    labels = torch.randint(0, automaton.n_classes, (B, T), generator=gen).to(device)
    rows = []
    print(f"| model (--preset paper, hidden {hidden}) | params | train step ms | 20,000 steps (min) |")
    print("|---|---|---|---|")
    for name in PAPER_MODELS:
        extra = {} if name == "lstm" else {"embed": embed, "angles": True}
        config = TrainConfig(spec="cyclic:5", model=name, hidden=hidden, device=device.type, **extra)
        model = make_model(config, automaton).to(device)
        params = sum(p.numel() for p in model.parameters())
        ms = timed(adam_step(model, words, labels, V), reps, device) * 1e3
        print(f"| `{name}` | {params:,} | {ms:.2f} | {20000 * ms / 6e4:.1f} |", flush=True)
        rows.append({"table": "paper", "model": name, "params": params, "train_ms": ms})
    return rows


def families_table(device, reps: int, d: int = 256, T: int = 10) -> list[dict]:
    rows = []
    print("| d | V | model | train ms seq | train ms par | ÷ full (best of each) |")
    print("|---|---|---|---|---|---|")
    for V in (2, 10):
        gen = torch.Generator().manual_seed(4)
        words = torch.randint(0, V, (B, T), generator=gen).to(device)
        labels = torch.randint(0, V, (B, T), generator=gen).to(device)
        best_full = None
        for name in FAMILIES:
            ms = {scan: timed(adam_step(bilinear(V, d, name, scan, device), words, labels, V), reps, device) * 1e3
                  for scan in ("sequential", "parallel")}
            best = min(ms.values())
            best_full = best if name == "full" else best_full
            print(f"| {d} | {V} | `{name}` | {ms['sequential']:.2f} | {ms['parallel']:.2f} | "
                  f"{best_full / best:.2f}x |", flush=True)
            rows.append({"table": "families", "d": d, "V": V, "model": name, "seq_ms": ms["sequential"],
                         "par_ms": ms["parallel"]})
    return rows


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--device", default="cuda", help="cuda (default) or cpu")
    p.add_argument("--quick", action="store_true", help="small sizes and few repetitions (a smoke run)")
    p.add_argument("--only", default="train,eval,chunks,paper,families", help="comma-separated tables to run")
    p.add_argument("--out", default=None, help="also write every figure to this JSON file")
    args = p.parse_args(argv)
    device = torch.device(args.device)
    if device.type == "cuda" and not torch.cuda.is_available():
        raise SystemExit("bench_gpu: --device cuda but CUDA is not available")
    torch.manual_seed(0)
    quick = args.quick
    reps = 3 if quick else 20
    info = torch.cuda.get_device_name(0) if device.type == "cuda" else "CPU"
    print(f"torch {torch.__version__} on {info}, B = {B}, median of {reps} after 2 warm-ups")
    rows: list[dict] = []
    only = set(args.only.split(","))
    dims = (16,) if quick else (64, 256)
    for name, run in (("train", lambda: train_table(device, reps, dims)),
                      ("eval", lambda: eval_table(device, reps, dims, T=50 if quick else 500)),
                      ("chunks", lambda: chunk_table(device, reps, dims, T=50 if quick else 500)),
                      ("paper", lambda: paper_table(device, reps, hidden=16 if quick else 256,
                                                    embed=16 if quick else 256)),
                      ("families", lambda: families_table(device, reps, d=16 if quick else 256))):
        if name in only:
            print()
            rows += run()
            if args.out:  # written after every table, so a run cut short keeps what it measured
                with open(args.out, "w") as fh:
                    json.dump({"device": info, "torch": torch.__version__, "rows": rows}, fh, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""The certified-horizon table of docs/training-results.md, regenerated, with U / L per row (not in CI).

Trains (unless RUN_ROOT/CELL already holds a finished run) the 16 bilinear cells of the reduced
table with the default protocol (``bilinear train FAMILY MODEL --hidden 16 --out DIR``: hidden
16, learning rate 1e-2, seed 0), then per run: the raw accuracy (``check`` on 100 random words of
length 500 and 2000, seed 1, every prefix), ``certify_network`` at the run's own test length
(certified L in float64, the first failing word U of the directed search, whether the snap is
proved) and the ratio U / L (the usefulness figure of issue 20: how far below the first failure
the certificate stops), and the median of U / L over the rows with both.

    OMP_NUM_THREADS=1 python benchmarks/certified_horizons.py RUN_ROOT      # about 6-10 min on CPU

``--constants`` also prints, per row, the constants of the bound that was kept (the theorem's
ingredients: epsilon, gamma, beta, rho, sigma, the margin, the readout Lipschitz constants ...),
to see which term limits the certified length of each row.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
from pathlib import Path

CELLS = [(f, m) for f in ("parity", "cyclic:3", "cyclic:5", "dihedral:3")
         for m in ("full", "block:2", "rotation2d", "diagonal")]


def main(argv=None) -> int:
    from bilinear.analysis.certify import certify_network
    from bilinear.constructions.horizon.floatcheck import check
    from bilinear.learned.runs import load_run

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("root", type=Path, help="folder of the runs (trained here when missing)")
    p.add_argument("--constants", action="store_true",
                   help="also print the constants of the bound kept, per row (what limits L)")
    args = p.parse_args(argv)
    constants = []
    args.root.mkdir(parents=True, exist_ok=True)
    print("| cell | raw acc 500 | raw acc 2000 | certified L | bound | failing word (U) | U / L | snap | status |")
    print("|---|---|---|---|---|---|---|---|---|")
    ratios = []
    for family, model in CELLS:
        run = args.root / f"{family.replace(':', '')}-{model.replace(':', '')}"
        if not (run / "result.json").exists():
            subprocess.run([sys.executable, "-c", "import sys; from bilinear.cli import main; sys.exit(main(sys.argv[1:]))",
                            "train", family, model, "--hidden", "16", "--out", str(run), "--force"],
                           check=True, capture_output=True)
        config, net, automaton, _ = load_run(run)
        w = net.to_weights()
        acc = [check(w, automaton, length=n, words=100, seed=1, directed=False).accuracy for n in (500, 2000)]
        cert = certify_network(w, automaton, test_length=int(config.test_len))
        h = cert.horizon
        L = None if h is None else ("every" if h.every else h.length)
        U = None if cert.failing is None else len(cert.failing)
        ratio = U / L if isinstance(L, int) and L > 0 and U is not None else None
        if ratio is not None:
            ratios.append(ratio)
        if h is not None and h.constants:
            constants.append((f"{family}, {model} ({h.bound})",
                              ", ".join(f"{k}={float(v):.3g}" for k, v in h.constants.items())))
        print(f"| {family}, `{model}` | {acc[0]:.2f} | {acc[1]:.2f} | {'-' if L is None else L} | "
              f"{'-' if h is None else h.bound} | "
              f"{'-' if U is None else f'`{cert.failing_text}` ({U})'} | {'-' if ratio is None else f'{ratio:.1f}'} | "
              f"{'proved' if cert.proof is not None else 'none'} | {cert.status} |", flush=True)
    if ratios:
        print(f"\nmedian U / L over {len(ratios)} rows with both: {statistics.median(ratios):.1f}")
    if args.constants:
        print()
        for name, text in constants:
            print(f"{name}: {text}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

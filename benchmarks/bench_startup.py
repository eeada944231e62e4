"""Benchmark: start-up wall time of the algebra commands next to a bare interpreter.

Each command runs in a fresh interpreter (``python -m bilinear.cli ...``, the same code as the
``bilinear`` script); the figure is the median wall time over ``--repeat`` runs, and the last
column is the difference from ``python -c pass``. Target: within 0.5 s of the bare interpreter.
The ``import torch`` row shows what the commands no longer pay.

Run:  .venv/bin/python benchmarks/bench_startup.py [--repeat 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time

CASES = [
    ("python -c pass", ["-c", "pass"]),
    ("bilinear --help", ["-m", "bilinear.cli", "--help"]),
    ("bilinear describe parity", ["-m", "bilinear.cli", "describe", "parity"]),
    ("bilinear verify cyclic:5 rotation2d", ["-m", "bilinear.cli", "verify", "cyclic:5", "rotation2d"]),
    # a non-abelian group's depth bound (its derived series, listed: no sympy import since issue 48, round 18)
    ("bilinear verify symmetric:4 rotation2d", ["-m", "bilinear.cli", "verify", "symmetric:4", "rotation2d"]),
    ("python -c 'import torch' (for scale)", ["-c", "import torch"]),
]


def wall_time(args: list[str], repeat: int) -> float:
    """Median wall seconds of ``python *args`` (output discarded; a failure stops the benchmark)."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run([sys.executable, *args], check=True, stdout=subprocess.DEVNULL)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5, help="runs per command (median; default 5)")
    args = parser.parse_args()
    rows = [(name, wall_time(argv, args.repeat)) for name, argv in CASES]
    base = rows[0][1]
    width = max(len(name) for name, _ in rows)
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"{'command':<{width}}  {'wall s':>7}  {'- bare python':>13}")
    for name, seconds in rows:
        print(f"{name:<{width}}  {seconds:7.3f}  {seconds - base:+13.3f}")


if __name__ == "__main__":
    main()

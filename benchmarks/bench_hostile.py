"""Benchmark: the hostile sizes of issue 25 (defects 11 and 13), refused or stopped in time.

Each command runs in a fresh interpreter under a 6 GB address-space cap (as the trial did); the
table shows its exit status, wall seconds and peak resident memory next to the figures the issue
reported for the version before (the "before" column is quoted from issue 25, not measured here).

``sweep --ray 127.0.0.1:1`` (Ray retried forever) needs Ray installed to reach the address check;
``tests/test_hostile_sizes.py`` times that check against a port nothing listens at (about 1 s).

Run:  .venv/bin/python benchmarks/bench_hostile.py [--slow]   (--slow adds matrix symmetric:8 full, ~30 s)
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CAP = 6 * 1024**3

#: What runs the command and reports the child's own peak memory (kB) on its last stderr line.
RUNNER = """
import resource, sys
resource.setrlimit(resource.RLIMIT_AS, ({cap}, {cap}))
from bilinear.cli import main
try:
    code = main(sys.argv[1:])
except SystemExit as exit_:
    code = exit_.code
sys.stderr.write("\\nmaxrss_kb=%d\\n" % resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
sys.exit(code)
"""


def cases(tmp: Path, slow: bool) -> list[tuple[str, list[str], str]]:
    zeros = tmp / "zeros.json"
    with open(zeros, "wb") as fh:
        fh.truncate(255 * 2**20)
    grid = tmp / "grid.toml"
    grid.write_text("families = [\"parity\"]\nmodels = [\"diagonal\"]\n"
                    f"lrs = [{', '.join(f'{1e-3 + i * 1e-9:.9g}' for i in range(1000))}]\n"
                    f"seeds = [{', '.join(map(str, range(1000)))}]\n")
    factors = tmp / "factors.toml"  # 180 kB: over the 128 kB a single command-line argument may have
    factors.write_text(f'families = ["{"*".join(["cyclic:1"] * 20_000)}"]\nmodels = ["diagonal"]\n')
    out = [
        ("verify random:states=100000,symbols=1000 full --time-budget 5",
         ["verify", "random:states=100000,symbols=1000", "full", "--time-budget", "5"], "23 s, 5.4 GB, traceback"),
        ("matrix --rows cyclic:10000 --columns diagonal",
         ["matrix", "--rows", "cyclic:10000", "--columns", "diagonal"], "84 s, 5.5 GB, traceback"),
        ("describe cyclic:10000", ["describe", "cyclic:10000"], "1.8-2 GB before the refusal"),
        ("sweep <families = [cyclic:1*...*cyclic:1], 20,000 factors>",
         ["sweep", str(factors), "--out", str(tmp / "f-out")], "21.6 s"),
        ("verify --weights <255 MiB of zero bytes> parity full",
         ["verify", "--weights", str(zeros), "parity", "full"], "41.6 s"),
        ("sweep <a 10^6-point grid>", ["sweep", str(grid), "--out", str(tmp / "sweep-out")], "> 2 min, silent"),
    ]
    if slow:
        out.append(("matrix --rows symmetric:8 --columns full", ["matrix", "--rows", "symmetric:8", "--columns", "full"],
                    "29 s silent, 3.4 GB"))
    return out


def run(argv: list[str]) -> tuple[int, float, float, str]:
    env = dict(os.environ, OMP_NUM_THREADS="1")
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", RUNNER.format(cap=CAP), *argv], capture_output=True, text=True,
                          env=env, timeout=600)
    seconds = time.perf_counter() - start
    lines = proc.stderr.strip().splitlines()
    rss = int(lines[-1].split("=")[1]) / 1024**2 if lines and lines[-1].startswith("maxrss_kb=") else float("nan")
    said = next((line for line in lines if line.startswith("bilinear")), "")
    return proc.returncode, seconds, rss, said


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--slow", action="store_true", help="also the 30 s matrix of symmetric:8")
    parser.add_argument("--json", action="store_true", help="print the rows as JSON")
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, argv, before in cases(Path(tmp), args.slow):
            code, seconds, rss, said = run(argv)
            rows.append({"command": name, "exit": code, "seconds": round(seconds, 2), "peak_gb": round(rss, 2),
                         "before (issue 25)": before, "message": said[:160]})
    if args.json:
        print(json.dumps(rows, indent=2))
        return
    width = max(len(r["command"]) for r in rows)
    print(f"{'command':<{width}}  exit  wall s  peak GB  before (issue 25)")
    for r in rows:
        print(f"{r['command']:<{width}}  {r['exit']:>4}  {r['seconds']:6.2f}  {r['peak_gb']:7.2f}  {r['before (issue 25)']}")
    for r in rows:
        print(f"  {r['command']}: {r['message']}")


if __name__ == "__main__":
    main()

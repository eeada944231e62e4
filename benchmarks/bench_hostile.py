"""Benchmark: the hostile inputs of issues 25 (defects 11 and 13) and 46 (N3-N6, N8, N10, N11,
N21), refused or stopped in time.

Each command runs in a fresh interpreter under a 6 GB address-space cap (as the trials did); the
table shows its exit status, wall seconds and peak resident memory next to the figures the issue
reported for the version before (the "before" column is quoted from the issue named, not measured
here).  Issue 46 asks each of its cases to be refused within 5 s and 500 MB.

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
usage = resource.getrusage(resource.RUSAGE_SELF)
sys.stderr.write("\\ncpu_s=%.3f\\nmaxrss_kb=%d\\n" % (usage.ru_utime + usage.ru_stime, usage.ru_maxrss))
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
    out = [*_issue_46_cases(tmp),
        ("verify random:states=100000,symbols=1000 full --time-budget 5",
         ["verify", "random:states=100000,symbols=1000", "full", "--time-budget", "5"], "23 s, 5.4 GB, traceback (25)"),
        ("matrix --rows cyclic:10000 --columns diagonal",
         ["matrix", "--rows", "cyclic:10000", "--columns", "diagonal"], "84 s, 5.5 GB, traceback (25)"),
        ("describe cyclic:10000", ["describe", "cyclic:10000"], "1.8-2 GB before the refusal (25)"),
        ("sweep <families = [cyclic:1*...*cyclic:1], 20,000 factors>",
         ["sweep", str(factors), "--out", str(tmp / "f-out")], "21.6 s (25)"),
        ("verify --weights <255 MiB of zero bytes> parity full",
         ["verify", "--weights", str(zeros), "parity", "full"], "41.6 s (25)"),
        ("sweep <a 10^6-point grid>", ["sweep", str(grid), "--out", str(tmp / "sweep-out")], "> 2 min, silent (25)"),
    ]
    if slow:
        out.append(("matrix --rows symmetric:8 --columns full", ["matrix", "--rows", "symmetric:8", "--columns", "full"],
                    "29 s silent, 3.4 GB (25)"))
    return out


#: One row of 10^8 zeros, zstd (659 bytes): the parquet file of issue 46's N3, kept with the tests.
PARQUET_ZEROS = Path(__file__).resolve().parent.parent / "tests" / "automata" / "data" / "one-row-of-1e8-zeros.parquet"


def _issue_46_cases(tmp: Path) -> list[tuple[str, list[str], str]]:
    """The cases of issue 46 (N3-N6, N8, N10, N11, N21), their files written into ``tmp``."""
    line = tmp / "line.jsonl"  # N5: one 800 MB line (a word of 2.7 * 10^8 zeros), under the 2 GiB file limit
    with open(line, "w") as fh:
        fh.write('{"input": [0')
        chunk = ", 0" * 2**20
        for _ in range(800 * 2**20 // len(chunk)):
            fh.write(chunk)
        fh.write("]}\n")
    digits, deep = tmp / "digits.jsonl", tmp / "deep.jsonl"
    digits.write_text('{"input": [' + "1" * 5000 + "]}\n")
    deep.write_text('{"input": ' + "[" * 100_000 + "]" * 100_000 + "}\n")
    h0 = tmp / "h0.json"  # N6: 45 MB, h0 of 3,000,000 entries, A of 1 x 1 x 1
    h0.write_text('{"format": "bilinear.weights", "version": 1, "variant": "full", "exact": true, "A": [[["1"]]], '
                  '"h0": [' + ", ".join(['"1/3"'] * 3_000_000) + '], "readout": [["1"], ["-1"]]}')
    grow = tmp / "grow.json"  # N8: exact diag(3, 1), diag(-1, 1) from (1, 1)
    grow.write_text(json.dumps({"format": "bilinear.weights", "version": 1, "variant": "diagonal", "exact": True,
                                "A": [[["3", "0"], ["0", "1"]], [["-1", "0"], ["0", "1"]]], "h0": ["1", "1"],
                                "readout": [["1", "0"], ["-1", "0"]]}))
    train = ["train", "parity", "diagonal", "--steps", "1", "--out"]
    return [
        ("train parity diagonal --data <1 parquet row of 10^8 zeros, 659 B>",
         [*train, str(tmp / "r1"), "--data", str(PARQUET_ZEROS)], "29 s, 3.4 GB, traceback (46: N3)"),
        ("train cyclic:30 householder:1024 --hidden 512 --max-memory-gb 5",
         ["train", "cyclic:30", "householder:1024", "--hidden", "512", "--max-memory-gb", "5", "--out",
          str(tmp / "r2")], "estimated 0.36 GB, ran into the 6 GB cap (46: N4)"),
        ("train parity diagonal --data <JSON lines: one 800 MB line>",
         [*train, str(tmp / "r3"), "--data", str(line)], "158 s, 4.2 GB, traceback (46: N5)"),
        ("verify parity --weights <45 MB: h0 of 3,000,000, A 1x1x1>",
         ["verify", "parity", "--weights", str(h0), "--unsigned"], "> 120 s, silent (46: N6)"),
        ("verify parity --weights <diag(3, 1) growing> --bound 1000",
         ["verify", "parity", "--weights", str(grow), "--unsigned", "--bound", "1000"], "traceback (46: N8)"),
        ("train parity diagonal --data <JSON lines: a 5,000-digit integer>",
         [*train, str(tmp / "r4"), "--data", str(digits)], "traceback (46: N10)"),
        ("train parity diagonal --data <JSON lines: nested 100,000 deep>",
         [*train, str(tmp / "r5"), "--data", str(deep)], "RecursionError (46: N11)"),
        ("verify parity householder:1000", ["verify", "parity", "householder:1000"],
         "open, the limit not named (46: N21)"),
    ]


def run(argv: list[str]) -> tuple[int, float, float, float, str]:
    """``(exit status, wall seconds, CPU seconds of the child, peak GB, its error line)``; the CPU
    seconds tell a loaded machine's wait apart from the work (importing torch is most of it)."""
    env = dict(os.environ, OMP_NUM_THREADS="1")
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", RUNNER.format(cap=CAP), *argv], capture_output=True, text=True,
                          env=env, timeout=600)
    seconds = time.perf_counter() - start
    lines = proc.stderr.strip().splitlines()
    rss = int(lines[-1].split("=")[1]) / 1024**2 if lines and lines[-1].startswith("maxrss_kb=") else float("nan")
    cpu = float(lines[-2].split("=")[1]) if len(lines) > 1 and lines[-2].startswith("cpu_s=") else float("nan")
    said = next((line for line in lines if line.startswith("bilinear")), "")
    return proc.returncode, seconds, cpu, rss, said


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--slow", action="store_true", help="also the 30 s matrix of symmetric:8")
    parser.add_argument("--json", action="store_true", help="print the rows as JSON")
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, argv, before in cases(Path(tmp), args.slow):
            code, seconds, cpu, rss, said = run(argv)
            rows.append({"command": name, "exit": code, "seconds": round(seconds, 2), "cpu_seconds": round(cpu, 2),
                         "peak_gb": round(rss, 2),
                         "before (issue)": before, "message": said[:160]})
    if args.json:
        print(json.dumps(rows, indent=2))
        return
    width = max(len(r["command"]) for r in rows)
    print(f"{'command':<{width}}  exit  wall s  cpu s  peak GB  before (issue)")
    for r in rows:
        print(f"{r['command']:<{width}}  {r['exit']:>4}  {r['seconds']:6.2f}  {r['cpu_seconds']:5.2f}  "
              f"{r['peak_gb']:7.2f}  {r['before (issue)']}")
    for r in rows:
        print(f"  {r['command']}: {r['message']}")


if __name__ == "__main__":
    main()

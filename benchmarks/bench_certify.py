"""Time to certify a trained-like network (snap, prove, horizon in arb, directed search).

Networks: the exact cyclic:5 constructions turned 0.0005 rad per step, padded with contracting
blocks to hidden 16 and 64 (``full`` ones conjugated by a random basis), as trained networks are.
Baselines: the float check alone (1000 random words of length 500), the cheapest thing a user
would run instead; and, with ``--baseline DIR``, ``certify`` of another checkout of this
repository (a ``git worktree add --detach DIR COMMIT``), run side by side: every repeat runs each
tree once, in its own fresh interpreter, alternating, so both see the same load.  Target: under
10 s per network; within 1.3x of commit 25d7590 with L and U at least as good (issue 48).

    OMP_NUM_THREADS=1 python benchmarks/bench_certify.py
    OMP_NUM_THREADS=1 python benchmarks/bench_certify.py --baseline BASE [MAIN] --repeat 3

(``BASE``: ``git worktree add --detach BASE 25d7590``.)  Each interpreter first certifies a small
network (cyclic:3, hidden 4) so that no tree's figure pays the imports, then the four networks on
fresh weights and a fresh automaton each; the figure is the median CPU time of
``certify_network`` over the repeats.

Measured 2026-12-06, ``--repeat 3 --baseline BASE`` with 25d7590, one run (shared 2-core machine,
load average 4.2-4.7, one thread; CPU seconds; both trees certified L and found U as in the last
column):

    network          this   25d7590  ratio to 25d7590   check s   L / U
    rotation2d h16   0.39     0.44        0.89           0.11    726 / 1257
    rotation2d h64   1.48     2.03        0.73           0.37    726 / 1257
    full h16         0.25     0.31        0.78           0.11    725 / 1257
    full h64         1.33     1.62        0.82           0.35    725 / 1257

A run of the same command before this change, the same hour (load 3.5-4.5; the beam run on
these networks): 0.70 / 2.35 / 0.57 / 2.13 s against 0.46 / 2.62 / 0.34 / 1.66 s, ratios 1.53 /
0.90 / 1.66 / 1.28.  The beam stepped to length 1256 (0.17 s at hidden 16, 0.8 s at 64) without
finding a shorter word; it now runs only where the lengths it could still find, L + 1 to U - 1,
are at least the L lengths it steps through first (``failsearch.beam_worth_running``; here
531 < 725).  What changed and why: benchmarks/SPEED.md, "certify".

L is the certified length (every word up to L is right), U the failing length found.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

NETWORKS = [("rotation2d", 16), ("rotation2d", 64), ("full", 16), ("full", 64)]

#: The child: imports the tree at ROOT (argv[1]; "" for the installed one), certifies each
#: network, prints one JSON line per network.  Module paths of both layouts (25d7590 had flat
#: ``constructions/`` modules).
_CHILD = r'''
import importlib, importlib.abc, importlib.util, json, os, sys, time
root = sys.argv[1]
if root:
    rooms = {"automata", "constructions", "learned", "analysis"}

    class Tree(importlib.abc.MetaPathFinder):  # bilinear.<room> -> ROOT/<room>, ahead of any installed copy
        def find_spec(self, name, path=None, target=None):
            if name == "bilinear":
                where = os.path.join(root, "bilinear")
            elif name.count(".") == 1 and name.split(".")[1] in rooms:
                where = os.path.join(root, name.split(".")[1])
            else:
                return None
            return importlib.util.spec_from_file_location(name, os.path.join(where, "__init__.py"),
                                                          submodule_search_locations=[where])

    sys.meta_path.insert(0, Tree())


def first(*names):
    for name in names:
        mod, _, attr = name.rpartition(".")
        try:
            return getattr(importlib.import_module(mod), attr)
        except (ImportError, AttributeError):  # an older tree: the name elsewhere, or not yet there
            continue
    raise ImportError(names[0])


import bilinear
certify_network = first("bilinear.analysis.certify.certify_network")
from_spec = first("bilinear.automata.families.from_spec")
build = first("bilinear.constructions.handmade.registry.build", "bilinear.constructions.registry.build")
drift = first("bilinear.constructions.horizon.snap.drift", "bilinear.constructions.snap.drift")
try:
    clear = first("bilinear.constructions.values.memo.clear_caches")
except (ImportError, AttributeError):
    clear = lambda: None
certify_network(drift(build("cyclic:3", "rotation2d"), 0.01, hidden=4), from_spec("cyclic:3"), search_length=300)
for variant, hidden in json.loads(sys.argv[2]):
    clear()
    a = from_spec("cyclic:5")
    w = drift(build("cyclic:5", variant), 0.0005, hidden=hidden)  # fresh weights and automaton per network
    t = time.process_time()
    cert = certify_network(w, a, search_length=2000)
    t = time.process_time() - t
    print(json.dumps({"tree": os.path.abspath(os.path.dirname(bilinear.__file__) + "/.."), "variant": variant,
                      "hidden": hidden, "cpu": t, "status": cert.status, "L": cert.certified,
                      "U": None if cert.failing is None else len(cert.failing)}), flush=True)
'''


def _run_tree(root: str, networks) -> list[dict]:
    env = dict(os.environ, OMP_NUM_THREADS="1", MKL_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    out = subprocess.run([sys.executable, "-c", _CHILD, root, json.dumps(networks)], capture_output=True,
                         text=True, env=env, cwd=root or None)
    if out.returncode:
        raise SystemExit(f"the certify run of {root or 'this tree'} failed:\n{out.stderr[-2000:]}")
    return [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]


def _load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", nargs="+", default=[], metavar="DIR",
                        help="other checkouts of this repository, run side by side (the first is the ratio's)")
    parser.add_argument("--repeat", type=int, default=1, help="runs of each tree (median CPU time)")
    parser.add_argument("--no-check", action="store_true", help="skip the float-check column")
    args = parser.parse_args(argv)
    for d in args.baseline:
        if not os.path.isfile(os.path.join(d, "analysis", "certify.py")):
            parser.error(f"--baseline {d}: not a checkout of this repository (no analysis/certify.py)")
    trees = [("ours", "")] + [(os.path.basename(os.path.abspath(d)), os.path.abspath(d)) for d in args.baseline]
    loads = [_load()]
    runs: dict[str, list[list[dict]]] = {name: [] for name, _ in trees}
    for r in range(args.repeat):
        order = trees if r % 2 == 0 else trees[::-1]  # alternate the order of the trees
        for name, root in order:
            runs[name].append(_run_tree(root, NETWORKS))
            loads.append(_load())
    check_s = {}
    if not args.no_check:
        from bilinear.automata.families import from_spec
        from bilinear.constructions.handmade.registry import build
        from bilinear.constructions.horizon.floatcheck import check
        from bilinear.constructions.horizon.snap import drift

        for variant, hidden in NETWORKS:
            w, a = drift(build("cyclic:5", variant), 0.0005, hidden=hidden), from_spec("cyclic:5")
            t = time.process_time()
            check(w, a, length=500, words=1000)
            check_s[(variant, hidden)] = time.process_time() - t
    print(f"CPU seconds of certify_network (one thread), median of {args.repeat} run(s) per tree, alternating; "
          f"load average (1, 5, 15 min) before and after each run: {' | '.join(loads)}")
    names = [name for name, _ in trees]
    head = f"{'network':<16} " + " ".join(f"{n[:12]:>12}" for n in names)
    if len(names) > 1:
        head += f" {'ratio':>6}"
    head += f" {'check s':>8} " + " ".join(f"{n[:12] + ' L/U':>16}" for n in names)
    print(head)
    for i, (variant, hidden) in enumerate(NETWORKS):
        per = {n: [run[i] for run in runs[n]] for n in names}
        t = {n: statistics.median(x["cpu"] for x in per[n]) for n in names}
        line = f"{variant + ' h' + str(hidden):<16} " + " ".join(f"{t[n]:>12.2f}" for n in names)
        if len(names) > 1:
            line += f" {t[names[0]] / t[names[1]]:>6.2f}"
        c = check_s.get((variant, hidden))
        line += f" {'-' if c is None else f'{c:.2f}':>8} " + " ".join(
            f"{str(per[n][0]['L']) + '/' + str(per[n][0]['U']):>16}" for n in names)
        print(line)
        sys.stdout.flush()
    print("status (ours): " + ", ".join(runs["ours"][0][i]["status"] for i in range(len(NETWORKS))))
    print("per run (CPU s): " + "; ".join(f"{name}: " + " ".join(
        "/".join(f"{x['cpu']:.2f}" for x in run) for run in runs[name]) for name in names))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Transformation-monoid closure: elements per second, next to libsemigroups where installed.

Cases (the same generators go to both libraries):
  S_6, S_7   symmetric:6 and symmetric:7, the Cayley automata (720 and 5,040 states, 2 symbols);
  natural    S_6 and S_7 on their 6 and 7 points (the transposition (0 1) and the n-cycle);
  T_6        the full transformation monoid on 6 points (46,656 elements);
  T_7        the full transformation monoid on 7 points (823,543 elements; skipped with --quick);
  rand       random 8-state, 3-symbol automata (random:states=8,symbols=3,seed=S for several seeds).

What each side computes: libsemigroups' ``FroidurePin(gens).size()`` enumerates the semigroup
and builds both Cayley graphs and a confluent rewriting system (the clock starts after the
generators are converted to ``Transf`` and includes building the ``FroidurePin``); ours,
``transformation_monoid(automaton)``, builds the elements, the right Cayley graph and each
element's shortlex-least word (parent and symbol), and wraps them in a Monoid.  Neither side is
timed on anything the other is spared: libsemigroups builds more.  libsemigroups is an optional
extra (``pip install libsemigroups_pybind11``, or ``pip install -e ".[semigroups]"``); without it
its columns are skipped.

Every repeat closes fresh automata (``transformation_monoid`` caches the monoid on the
automaton: timing the same objects again timed a cache hit, ``ours 0.000 s``); CPU seconds; the
millisecond cases are the best of 10 R runs, the others of R (T_7 one run).  Measured 2026-12-07
(2-core machine, nothing else running, load 1.0, ``--seeds 5``, inside
``benchmarks/speed_targets.py``, round 16), this closure:

    case                      elements   ours ms    ours el/s    lsg ms     lsg el/s  ours/lsg time
    S_6 (symmetric:6)              720      2.91      247,163      2.20      327,567           1.33
    S_6 natural (6 points)         720      0.27    2,687,149      0.19    3,730,145           1.39
    S_7 (symmetric:7)            5,040     67.52       74,640    112.28       44,888           0.60
    S_7 natural (7 points)       5,040      0.80    6,272,042      1.10    4,591,423           0.73
    T_6                         46,656      2.50   18,679,181     13.53    3,447,734           0.18
    T_7                        823,543     67.83   12,141,918    653.33    1,260,530           0.10
    random 8x3 (x5)          1,433,284    183.31    7,819,066   1159.69    1,235,920           0.16

The same run of 017281d's closure (main before issue 48's speed work): 5.12, 7.29, 5.24, 3.19,
1.65, 0.65, 0.75 (ours/lsg time).  S_6 on its points read 1.38x, 1.42x and 1.45x in three runs
of speed_targets.py (1.36-1.48x from run to run of this script); S_7 on its points 0.76-0.82x
before the closure's table was kept from one closure to the next (round 8, benchmarks/SPEED.md).

Reading the figures: up to 8 states an element is its integer code (the images of the low half
of the states in base n and, shifted a whole number of bits above them, the high half's); a small
frontier runs several breadth-first levels a round (the codes' two parts looked up level after
level into one buffer, the candidates of every level marked at once in a direct-address table),
a large one a level a round, so T_6, T_7 and the random automata are far ahead.  S_6 on 6 points
is 19 levels in 4 rounds: about 85 us (a dozen numpy calls a round, two look-ups a level), then
about 20 us to fill the right Cayley table and the parents, 10 us for the codes' tables, 4 us to
decode (one look-up in a table of every code's row, kept once a process up to 6 states) and
some 15 us of Python around them, against libsemigroups' 0.10 ms for the whole
enumeration.  An automaton with more than 128 states is keyed by the images of a few
sampled states (a permutation group first by as many as fit one exact 64-bit key: 6 of S_6's
720, 4 of S_7's 5,040; then 64); its elements are composed in full once, parent first, and the
closure is checked on the edges outside the breadth-first tree, in blocks through buffers
allocated once (a fresh 4 KiB page costs about 2 us to fault in on this machine: S_6's Cayley
automaton took 1,600 of them a closure in 2 MB temporaries).  Composing, each state's image is
looked up with ``take(mode="wrap")``: every index is in range, and numpy 2.4's ``"clip"`` clamps
each one, a third slower (25 against 16.5 us for 27,000 look-ups); where the generators laid end
to end have at most as many entries as the rows' type can count (S_6's 1,440 in uint16), the
symbols' offsets are added in that type before the rows are widened to an index.  S_6's Cayley
automaton, on a machine where it took 3.50 ms before both: 2.89 ms (1.59x -> 1.31x libsemigroups).
The millisecond figures move by 10-30% between runs on a loaded machine.

Usage:  python benchmarks/bench_monoid.py [--quick] [--repeat R] [--seeds K]
"""

from __future__ import annotations

import argparse
import os
import time

from bilinear.automata import from_spec
from bilinear.automata.monoid import full_transformation_automaton, transformation_monoid

try:  # optional: libsemigroups (C++), for comparison
    import libsemigroups_pybind11 as lsg
except ImportError:  # pragma: no cover - depends on the environment
    lsg = None


def _natural(n: int):
    """S_n acting on its n points, generated by the transposition (0 1) and the n-cycle: the
    natural action (n states), beside ``symmetric:n``'s Cayley automaton (n! states)."""
    from bilinear.automata import Automaton

    swap = [1, 0] + list(range(2, n))
    cycle = [(i + 1) % n for i in range(n)]
    return Automaton([swap, cycle], labels=list(range(n)))


def ours(automaton) -> tuple[int, float]:
    """Elements and CPU seconds (the figure to trust on a shared machine)."""
    start = time.process_time()
    size = transformation_monoid(automaton, limit=10_000_000).size
    return size, time.process_time() - start


def theirs(automaton) -> tuple[int, float]:
    """libsemigroups enumerates the *semigroup* the symbols generate; the monoid adds the
    identity when it is not generated (counted after the clock stops)."""
    gens = [lsg.Transf([int(x) for x in row]) for row in automaton.delta]
    start = time.process_time()
    semigroup = lsg.FroidurePin(gens)
    size = semigroup.size()
    seconds = time.process_time() - start
    identity = lsg.Transf(list(range(automaton.n_states)))
    return size + (0 if semigroup.contains(identity) else 1), seconds


def best(fn, make, repeat: int) -> tuple[int, float]:
    """Total elements and the best-of-``repeat`` total time over the automata ``make()`` returns,
    built afresh for every repeat (outside the clock): ``transformation_monoid`` caches the monoid
    on the automaton, so a repeat on the same objects would time a cache hit."""
    times = []
    total = 0
    for _ in range(repeat):
        total, elapsed = 0, 0.0
        for a in make():
            size, seconds = fn(a)
            total += size
            elapsed += seconds
        times.append(elapsed)
    return total, min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="skip T_7")
    parser.add_argument("--repeat", type=int, default=3,
                        help="best of R runs (the millisecond cases 10 R, T_7 one run)")
    parser.add_argument("--seeds", type=int, default=10, help="number of random automata")
    args = parser.parse_args()

    small = 10 * args.repeat  # millisecond cases: the best of more runs (one run is noise on a shared machine)
    cases = [  # (name, a function making fresh automata, repeats)
        ("S_6 (symmetric:6)", lambda: [from_spec("symmetric:6")], small),
        ("S_6 natural (6 points)", lambda: [_natural(6)], small),
        ("S_7 (symmetric:7)", lambda: [from_spec("symmetric:7")], args.repeat),
        ("S_7 natural (7 points)", lambda: [_natural(7)], small),
        ("T_6", lambda: [full_transformation_automaton(6)], small),
    ]
    if not args.quick:
        cases.append(("T_7", lambda: [full_transformation_automaton(7)], 1))
    cases.append(
        (
            f"random 8x3 (x{args.seeds})",
            lambda: [from_spec(f"random:states=8,symbols=3,seed={s}") for s in range(args.seeds)],
            args.repeat,
        )
    )
    guard = lsg.ReportGuard(False) if lsg is not None else None  # noqa: F841 - keeps libsemigroups quiet
    print(f"libsemigroups_pybind11: {'installed' if lsg else 'not installed (columns skipped)'}; "
          f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    header = f"{'case':<24}{'elements':>10}{'ours ms':>10}{'ours el/s':>13}"
    if lsg:
        header += f"{'lsg ms':>10}{'lsg el/s':>13}{'ours/lsg time':>15}"
    print(header)
    for name, make, repeat in cases:
        size, seconds = best(ours, make, repeat)
        line = f"{name:<24}{size:>10,}{1e3 * seconds:>10.2f}{size / seconds:>13,.0f}"
        if lsg:
            size2, seconds2 = best(theirs, make, repeat)
            if size2 != size:
                raise SystemExit(f"{name}: sizes disagree (ours {size}, libsemigroups {size2})")
            line += f"{1e3 * seconds2:>10.2f}{size2 / seconds2:>13,.0f}{seconds / seconds2:>15.2f}"
        print(line, flush=True)


if __name__ == "__main__":
    main()

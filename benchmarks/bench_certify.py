"""Time to certify a trained-like network (snap, prove, horizon in arb, directed search).

Networks: the exact cyclic:5 constructions turned 0.0005 rad per step, padded with contracting
blocks to hidden 16 and 64 (``full`` ones conjugated by a random basis), as trained networks are.
Baseline: the float check alone (1000 random words of length 500), the cheapest thing a user
would run instead. Target: under 10 s per network.

    OMP_NUM_THREADS=1 python benchmarks/bench_certify.py

Measured 2026-12-05 in CPU seconds (shared 2-core machine at load 9-14, one thread; drift
0.0005 rad per step, search length 2000), certify alone, side by side in one session with the
commit before the failing-word search was spent where it can shorten the word (718cab4) and
with 25d7590 (before the beam search, the shortening and the three arithmetics were added):

    network          25d7590   718cab4   now     L      U
    rotation2d h16      0.46      1.97   0.87   726   1257
    rotation2d h64      2.09      9.37   2.32   726   1257
    full h16            0.33      1.36   0.78   725   1257
    full h64            1.61       -     4.00   725   1257

(718cab4's full h64 was not timed to the end of the session.)  Everything since 25d7590 that is
still paid for: the beam search (it must step to the failing length to find a shorter word), the
float32 and real-arithmetic horizons, and the node horizon below length 1024.

L is the certified length (every word up to L is right), U the failing length found.
"""

from __future__ import annotations

import os
import time

from bilinear.analysis.certify import certify_network
from bilinear.automata.families import from_spec
from bilinear.constructions.horizon.floatcheck import check
from bilinear.constructions.handmade.registry import build
from bilinear.constructions.horizon.snap import drift


def main() -> None:
    a = from_spec("cyclic:5")
    print(f"CPU seconds (one thread); load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"{'network':<22} {'certify s':>10} {'check s':>8} {'status':>8} {'L':>6} {'U':>6}")
    for variant in ("rotation2d", "full"):
        for hidden in (16, 64):
            w = drift(build("cyclic:5", variant), 0.0005, hidden=hidden)  # fresh weights per network
            t = time.process_time()
            cert = certify_network(w, a, search_length=2000)
            t_cert = time.process_time() - t
            t = time.process_time()
            check(w, a, length=500, words=1000)
            t_check = time.process_time() - t
            U = "-" if cert.failing is None else len(cert.failing)
            print(f"{variant + ' h' + str(hidden):<22} {t_cert:>10.2f} {t_check:>8.2f} {cert.status:>8} "
                  f"{str(cert.certified):>6} {U:>6}")


if __name__ == "__main__":
    main()

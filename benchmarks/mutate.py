"""A small mutation run over the certification and proof code (not in CI).

Each mutant is one textual change to one source file (a dropped term of a theorem, an inflated
margin, a check removed, a tie no longer a failure ...).  The script applies one mutant at a
time, runs the tests that cover that file (``pytest -x`` with a timeout, one torch thread),
restores the file, and reports whether the tests *killed* the mutant (failed) or it *survived*.
Mutants marked ``equivalent`` cannot change any observable result (they are listed, and left
out of the kill rate).

    OMP_NUM_THREADS=1 python benchmarks/mutate.py            # every mutant
    OMP_NUM_THREADS=1 python benchmarks/mutate.py -k tube    # those whose name contains "tube"
    python benchmarks/mutate.py --list

The files are restored even when the run is interrupted (``finally``); do not edit them while
it runs.  A mutant whose text is not found is reported as ``stale`` (the code moved on).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
STACK_TESTS = ("tests/analysis/test_certify_stack_horizon.py", "tests/constructions/values/test_stack.py")
HORIZON_TESTS = ("tests/constructions/horizon/test_horizon.py", "tests/constructions/horizon/test_horizon_orbit.py",
                 "tests/analysis/test_certify.py")


@dataclass(frozen=True)
class Mutant:
    name: str
    path: str
    old: str | tuple  # one text, or several replaced together (one mutant)
    new: str | tuple
    tests: tuple = HORIZON_TESTS
    equivalent: bool = False


MUTANTS = [
    # Theorem 16 (horizon_global.py)
    Mutant("T16: drop the gamma*v coupling", "constructions/horizon/horizon_global.py",
           "hi(self.sigma * u + self.eps + self.gamma * v)", "hi(self.sigma * u + self.eps)"),
    Mutant("T16: drop beta from v", "constructions/horizon/horizon_global.py",
           "hi(self.rho * v + self.beta * (1 + u))", "hi(self.rho * v)"),
    Mutant("T16: beta u instead of beta (1 + u)", "constructions/horizon/horizon_global.py",
           "self.beta * (1 + u))", "self.beta * u)"),
    Mutant("T16: sigma taken as 1", "constructions/horizon/horizon_global.py",
           "hi(self.sigma * u + self.eps + self.gamma * v)", "hi(u + self.eps + self.gamma * v)"),
    Mutant("T16: drop the L_D*v readout term", "constructions/horizon/horizon_global.py",
           "self.mu - self.lk * u - self.ld * v > 0", "self.mu - self.lk * u > 0"),
    Mutant("T16: closed form without gamma*V", "constructions/horizon/horizon_global.py",
           "cc = c.eps + c.gamma * V + c.gamma * e_ratio", "cc = c.eps + c.gamma * e_ratio"),
    Mutant("T16: closed form growth without coupling", "constructions/horizon/horizon_global.py",
           "a = hi(c.sigma - 1 + c.gamma * e_ratio)", "a = hi(c.sigma - 1)"),
    Mutant("T16: closed form cap without L_D", "constructions/horizon/horizon_global.py",
           "caps.append((c.mu - c.ld * V) / c.lk)", "caps.append(c.mu / c.lk)"),
    Mutant("T16: stepped bound one step too long", "constructions/horizon/horizon_global.py",
           "            return max(s, t - 1)\n        if t < STEPPED:\n            u, v = c.step(u, v)",
           "            return max(s, t)\n        if t < STEPPED:\n            u, v = c.step(u, v)"),
    Mutant("T16: margin inflated by 30%", "constructions/horizon/horizon_global.py",
           "m = lo(sum((diff[j] * y[j] for j in K), flint.arb(0)) / n)",
           "m = lo(sum((diff[j] * y[j] for j in K), flint.arb(0)) / n) * 1.3"),
    Mutant("T16: L_K from the first class pair only", "constructions/horizon/horizon_global.py",
           "lk = bmax([lk, root(sum((sq(diff[j]) for j in K), flint.arb(0)))])",
           "lk = lk if lk > 0 else root(sum((sq(diff[j]) for j in K), flint.arb(0)))"),
    Mutant("T16: rounding not charged", "constructions/horizon/horizon_global.py",
           "c = real.with_roundoff(st.delta, st.tau)", "c = real"),
    Mutant("T16: readout rounding not taken from mu", "constructions/horizon/horizon_global.py",
           "mu=lo(self.mu - tau)", "mu=self.mu"),
    Mutant("T16: exhaustive start without the readout rounding", "constructions/horizon/horizon_global.py",
           "(diffs[lab, c] * x)[0, 0] - st.tau * nx > 0", "(diffs[lab, c] * x)[0, 0] > 0"),
    # Theorem 19 (horizon_orbit.py)
    Mutant("T19: products' norm N taken as 1", "constructions/horizon/horizon_orbit.py",
           "n = bmax(op_norm(arb_matrix(M), range(len(K)), range(len(K))) for M in orbit.products)",
           "n = flint.arb(1)"),
    Mutant("T19: products of the generators only", "constructions/horizon/horizon_orbit.py",
           "lambda M: (_mat_mul(g, M) for g in gens)", "lambda M: (g for g in gens)"),
    Mutant("T19: largest state norm taken as 1", "constructions/horizon/horizon_orbit.py",
           "n=n, ymax=ymax,", "n=n, ymax=flint.arb(1),"),
    Mutant("T19: drop the gamma*V coupling", "constructions/horizon/horizon_orbit.py",
           "c2 = hi(c + self.eps * w + self.gamma * v)", "c2 = hi(c + self.eps * w)"),
    Mutant("T19: eps charged on a unit state", "constructions/horizon/horizon_orbit.py",
           "c2 = hi(c + self.eps * w + self.gamma * v)", "c2 = hi(c + self.eps + self.gamma * v)"),
    Mutant("T19: drop beta W from V", "constructions/horizon/horizon_orbit.py",
           "v2 = hi(self.rho * v + self.beta * w)", "v2 = hi(self.rho * v)"),
    Mutant("T19: the error not propagated by N", "constructions/horizon/horizon_orbit.py",
           "u2 = hi(self.n * (u_s + c2))", "u2 = hi(u_s + c2)"),
    Mutant("T19: margin inflated by 30%", "constructions/horizon/horizon_orbit.py",
           "m = lo(sum((diffs[lab, c][K[i]] * zb[i] for i in kk), flint.arb(0)))",
           "m = lo(sum((diffs[lab, c][K[i]] * zb[i] for i in kk), flint.arb(0))) * 1.3"),
    Mutant("T19: readout rounding not charged", "constructions/horizon/horizon_orbit.py",
           "self.mu - self.tau * (w + v) - self.lk * u", "self.mu - self.lk * u"),
    Mutant("T19: step rounding not charged", "constructions/horizon/horizon_orbit.py",
           "up = lambda x: hi(x + delta)", "up = lambda x: x"),
    Mutant("T19: closed form without gamma V", "constructions/horizon/horizon_orbit.py",
           "g = hi(c.gamma * V)", "g = flint.arb(0)"),
    Mutant("T19: closed form cap without L_D V", "constructions/horizon/horizon_orbit.py",
           "w_max = lo((c.mu + c.lk * c.ymax - (c.tau + c.ld) * V)", "w_max = lo((c.mu + c.lk * c.ymax)"),
    Mutant("T19: closed form growth without N", "constructions/horizon/horizon_orbit.py",
           ".log() / (c.n * a).log1p()", ".log() / a.log1p()"),
    # the block-wise theorem (horizon_blocks.py)
    Mutant("blocks: no k*eps growth", "constructions/horizon/horizon_blocks.py",
           "ua[i] = us[i] + kb * eps[i]", "ua[i] = us[i] + eps[i]"),
    Mutant("blocks: ignore the other blocks", "constructions/horizon/horizon_blocks.py",
           "return slack > sum((lip[j] * rs[j] for j in others), flint.arb(0))", "return slack > 0"),
    Mutant("blocks: other blocks never grow", "constructions/horizon/horizon_blocks.py",
           "ra = {j: rs[j] * (1 if theta[j] <= 1 else (kb * theta[j].log()).exp()) for j in others}",
           "ra = {j: rs[j] for j in others}"),
    Mutant("blocks: stepped without eps", "constructions/horizon/horizon_blocks.py",
           "us = {i: _hi(sig[i] * us[i] + eps[i]) for i in good}", "us = {i: _hi(sig[i] * us[i]) for i in good}"),
    Mutant("blocks: margin inflated by 30%", "constructions/horizon/horizon_blocks.py",
           "v = _lo(sum((x * z for x, z in zip(diff, y)), flint.arb(0)) / n)",
           "v = _lo(sum((x * z for x, z in zip(diff, y)), flint.arb(0)) / n) * 1.3"),
    Mutant("blocks: rounding not charged on the step", "constructions/horizon/horizon_blocks.py",
           "cand[i] = (m, cs, _hi(sig + delta), _hi(eps + delta))", "cand[i] = (m, cs, sig, eps)"),
    # Theorem 17 (tube.py)
    Mutant("tube: no start-state check", "constructions/horizon/tube.py",
           ("    lo = f(r0)\n", "ok = ok and r >= r0 and all("), ("    lo = 0.0\n", "ok = ok and all(")),
    Mutant("tube: no margin check", "constructions/horizon/tube.py",
           "all(m - k * r > 0 for m, k in margins)", "True"),
    Mutant("tube: no sign check of the start", "constructions/horizon/tube.py",
           "    if not s0 > 0:\n        return None\n", "    pass\n"),
    Mutant("tube: no contraction check", "constructions/horizon/tube.py",
           "z + n * r <= r * (alpha - b * r)", "True"),
    # the prover's float screen (search.py, HiddenStore: the enclosure of each direction's scores)
    Mutant("screen: scores' bound without the direction's radius", "constructions/proof/search.py",
           "err = R_abs @ rad + (R_abs @ np.abs(mid))", "err = 0 * rad.sum() + (R_abs @ np.abs(mid))",
           tests=("tests/constructions/proof/test_hidden_store.py",)),
    Mutant("screen: scores' bound without the product's rounding", "constructions/proof/search.py",
           "err = R_abs @ rad + (R_abs @ np.abs(mid)) * (len(mid) + 2) * EPS + 1e-300",
           "err = R_abs @ rad + 1e-300", tests=("tests/constructions/proof/test_hidden_store.py",)),
    Mutant("screen: scores' bound without the readout's radius", "constructions/proof/search.py",
           "err = err + self._readout_rad @ (np.abs(mid) + rad)", "err = err + 0.0",
           tests=("tests/constructions/proof/test_hidden_store.py",)),
    # the failing-word search (failsearch.py)
    Mutant("search: a tie is not a failure", "constructions/horizon/failsearch.py",
           "bad = (own <= scores.max(axis=1)) & (first < 0)", "bad = (own < scores.max(axis=1)) & (first < 0)"),
    Mutant("search: the empty word never fails", "constructions/horizon/failsearch.py",
           "if R.shape[0] > 1 and not s0[lab0] > np.delete(s0, lab0).max():", "if False:"),
    Mutant("search: shortening keeps a word that no longer fails", "constructions/horizon/failsearch.py",
           "ok = (first >= 0) & (first <= lens) & (first < len(word))", "ok = (first <= lens) & (first < len(word))"),
    # the snap (snap.py)
    Mutant("snap: visited-energy tolerance 1e-3 -> 0.3", "constructions/horizon/snap.py",
           "np.nonzero(energy > 1e-3)", "np.nonzero(energy > 0.3)"),
    Mutant("snap: a readout scale per row", "constructions/horizon/snap.py",
           "Rb = np.array([_rational_vector(row, coords, top) for row in RP], dtype=object)",
           "Rb = np.array([_rational_vector(row, coords) for row in RP], dtype=object)"),
    Mutant("snap: written form not reduced", "constructions/horizon/snap.py",
           "for bits in (24, 16, 12, 8, 6, 4):", "for bits in (24,):"),
    # ball arithmetic (balls.py) and rounding (roundoff.py)
    Mutant("balls: x ** 2 (NaN around 0)", "constructions/exact/balls.py",
           '    return x * x\n', '    return x ** 2\n'),
    Mutant("balls: NaN bounds to 0", "constructions/exact/balls.py",
           "    if not top.is_finite():\n        return INF\n    return hi(top.sqrt())",
           "    if not top.is_finite():\n        return flint.arb(0)\n    return hi(top.sqrt())"),
    Mutant("balls: block norm without the discriminant", "constructions/exact/balls.py",
           "return hi(((f + disc.sqrt()) / 2).sqrt())", "return hi((f / 2).sqrt())"),
    Mutant("roundoff: one unit per step", "constructions/horizon/roundoff.py",
           "_gamma(dim + 1 + extra, u), _gamma(dim + extra, u)", "_gamma(1, u), _gamma(dim + extra, u)"),
    Mutant("roundoff: scores not rounded", "constructions/horizon/roundoff.py",
           "_gamma(dim + 1 + extra, u), _gamma(dim + extra, u)", "_gamma(dim + 1 + extra, u), flint.arb(0)"),
    # the certificate (analysis/certify.py)
    Mutant("certify: a round-off failure called drift", "analysis/certify.py",
           '            kind = "round-off"\n', '            kind = "drift"\n'),
    Mutant("certify: a failure at the test length is not snapped", "analysis/certify.py",
           "elif failing is not None and len(failing) <= test_length:", "elif failing is not None and len(failing) < test_length:"),
    Mutant("certify: invariant check removed", "analysis/certify.py",
           "if horizon is not None and horizon.covers(len(failing)):", "if False:", equivalent=True),
    # the exact prover and the lower bounds (proof code)
    Mutant("prover: a tie is not a counterexample", "constructions/proof/prover.py",
           "if self.domain.sign(self.diff(store.vectors[hid], L, int(c))) <= 0:",
           "if self.domain.sign(self.diff(store.vectors[hid], L, int(c))) < 0:",
           tests=("tests/constructions/proof/test_prover.py", "tests/constructions/values/test_soundness.py")),
    Mutant("bounds: Theorem 15 at three units -> four", "constructions/impossible/bounds.py",
           "if constant and units.shape[0] >= 3:", "if constant and units.shape[0] >= 4:",
           tests=("tests/constructions/impossible/test_bounds.py", "tests/constructions/impossible/test_minimal.py")),
    # Theorem F8 (bounds.monomial_reset_bound)
    Mutant("F8: maps of rank two counted as resets", "constructions/impossible/bounds.py",
           "if len(image) == 1:", "if len(image) <= 2:", tests=("tests/constructions/impossible/test_monomial_resets.py",)),
    Mutant("F8: two resets suffice", "constructions/impossible/bounds.py",
           "if len(target_by_label) < 3:", "if len(target_by_label) < 2:",
           tests=("tests/constructions/impossible/test_monomial_resets.py",)),
    Mutant("F8: targets told apart by state, not label", "constructions/impossible/bounds.py",
           "target_by_label.setdefault(int(m.labels[q]), q)", "target_by_label.setdefault(q, q)",
           tests=("tests/constructions/impossible/test_monomial_resets.py",)),
    Mutant("F8: applied to every variant", "constructions/impossible/bounds.py",
           "if v.coordinate_map:\n        mono = monomial_bound(a)", "if True:\n        mono = monomial_bound(a)",
           tests=("tests/constructions/impossible/test_monomial_resets.py",)),
    # Theorem S5 (analysis/certify.py stack_horizon, constructions/horizon/horizon_stack.py)
    Mutant("S5: the longest layer, not the shortest", "analysis/certify.py",
           "short = min((h for _, h in per if not h.every), key=lambda h: h.count)",
           "short = max((h for _, h in per if not h.every), key=lambda h: h.count)", tests=STACK_TESTS),
    Mutant("S5: the last layer left out", "analysis/certify.py",
           "enumerate(zip(stack.layers, snapped.layers))", "enumerate(zip(stack.layers[:-1], snapped.layers[:-1]))",
           tests=STACK_TESTS),
    Mutant("S5: an uncertified layer ignored", "analysis/certify.py",
           "    if uncertified:\n", "    if False:\n", tests=STACK_TESTS),
    Mutant("S5: layer 1 left without an automaton", "analysis/certify.py",
           "        m, why = layer_automaton(e)\n", "        m, why = layer_automaton(e) if i else (None, 'skipped')\n",
           tests=STACK_TESTS),
    Mutant("S5: a tie read as class 0", "constructions/horizon/horizon_stack.py",
           "        if c is None:\n            return None,", "        if c is None and False:\n            return None,",
           tests=STACK_TESTS),
    Mutant("S5: no limit on the layer's directions", "constructions/horizon/horizon_stack.py",
           "for s in range(layer.n_symbols)), limit)", "for s in range(layer.n_symbols)), 10**9)", tests=STACK_TESTS),
    Mutant("S5: a failing word inside the horizon not an error", "analysis/certify.py",
           "        if failed and horizon.covers(len(result.first_failure)):",
           "        if False:", tests=STACK_TESTS, equivalent=True),
    # Theorem 20 (horizon_nodes.py)
    Mutant("T20: aged balls dropped instead of moved one age up", "constructions/horizon/horizon_nodes.py",
           "r2[:, 1:] = self.r[:, :-1]", "r2[:, 1:] = 0 * self.r[:, :-1]", tests=("tests/constructions/horizon/test_horizon_nodes.py",)),
    Mutant("T20: the oldest ball not re-entered at age 0", "constructions/horizon/horizon_nodes.py",
           "np.where(full[:, None], self.r[:, A], 0.0)", "0.0 * self.r[:, A]", tests=("tests/constructions/horizon/test_horizon_nodes.py",)),
    Mutant("T20: re-entry through P_A without F_a", "constructions/horizon/horizon_nodes.py",
           "up(op_norm(self.F[a] * self.product(tail)", "up(op_norm(self.product(tail)", tests=("tests/constructions/horizon/test_horizon_nodes.py",)),
    Mutant("T20: merged radius without the spread of the centres", "constructions/horizon/horizon_nodes.py",
           "r[:, 0] = _inflate(dist + r[:, 0])", "r[:, 0] = _inflate(r[:, 0])", tests=("tests/constructions/horizon/test_horizon_nodes.py",)),
    Mutant("T20: radii not charged on the margin", "constructions/horizon/horizon_nodes.py",
           "+ (ndv[rows, p] * r_l).sum(axis=(1, 2)) + self.tau", "+ self.tau", tests=("tests/constructions/horizon/test_horizon_nodes.py",)),
    Mutant("T20: readout norms of aged balls without their products", "constructions/horizon/horizon_nodes.py",
           "row = row * self.F[s[-j]]", "row = row",
           tests=("tests/constructions/horizon/test_horizon_nodes.py",)),
    Mutant("T20: off by one (the failing length reported)", "constructions/horizon/horizon_nodes.py",
           "return Horizon.up_to(sets.t - 1, arithmetic", "return Horizon.up_to(sets.t, arithmetic", tests=("tests/constructions/horizon/test_horizon_nodes.py",)),
    Mutant("T20: merged by automaton state only", "constructions/horizon/horizon_nodes.py",
           "keys = q.astype(np.int64) * (len(self.suffixes) + 1) + s", "keys = q.astype(np.int64) * (len(self.suffixes) + 1)",
           tests=("tests/constructions/horizon/test_horizon_nodes.py",)),
    Mutant("T20: round-off not charged", "constructions/horizon/horizon_nodes.py",
           "+ (self.delta * xb)[:, None] +", "+", tests=("tests/constructions/horizon/test_horizon_nodes.py",)),
    Mutant("T20: split sets merged across nodes", "constructions/horizon/horizon_nodes.py",
           "keys = keys * self.clusters + _cluster_labels(c, keys, self.clusters)",
           "keys = _cluster_labels(c, keys, self.clusters)", tests=("tests/constructions/horizon/test_horizon_nodes.py",)),
    # Theorem 20 with a radius per block (horizon_nodes.py, NodeSets(blocks=...))
    Mutant("T20 blocks: re-entry through the diagonal blocks only", "constructions/horizon/horizon_nodes.py",
           "out = _inflate(np.sqrt(_inflate(self._member.T @ (mag * mag) @ self._member)))",
           "out = np.diag(np.diag(_inflate(np.sqrt(_inflate(self._member.T @ (mag * mag) @ self._member)))))",
           tests=("tests/constructions/horizon/test_horizon_nodes.py",)),
    Mutant("T20 blocks: a 2x2 block's norm from its largest entry", "constructions/horizon/horizon_nodes.py",
           "out[i, i] = min(out[i, i], up(block_norm(M, b) if len(b) == 2 else op_norm(M, b, b)))",
           "out[i, i] = mag[np.ix_(b, b)].max()", tests=("tests/constructions/horizon/test_horizon_nodes.py",)),
    Mutant("T20 blocks: merged radius with the spread of the first block only", "constructions/horizon/horizon_nodes.py",
           "dist = _inflate(self.block_norms(c - centre[group]))",
           "dist = _inflate(self.block_norms(c - centre[group])) * (np.arange(self.nb) == 0)",
           tests=("tests/constructions/horizon/test_horizon_nodes.py",)),
    Mutant("T20 blocks: readout norms of the first block's columns for every block", "constructions/horizon/horizon_nodes.py",
           "out[:, : ages + 1] = _inflate(np.sqrt(_inflate((mag * mag) @ self._member)))",
           "out[:, : ages + 1] = _inflate(np.sqrt(_inflate((mag * mag) @ self._member[:, [0] * self.nb])))",
           tests=("tests/constructions/horizon/test_horizon_nodes.py",)),
    Mutant("T20 blocks: the step's rounding in the first block only", "constructions/horizon/horizon_nodes.py",
           "r2[:, 0] = _inflate(_inflate(self.block_norms(err)) + (self.delta * xb)[:, None] + _inflate(reenter))",
           "r2[:, 0] = _inflate(_inflate(self.block_norms(err)) + (self.delta * xb)[:, None] * (np.arange(self.nb) == 0) + _inflate(reenter))",
           tests=("tests/constructions/horizon/test_horizon_nodes.py",)),
    Mutant("T20: certify's one node run without float32's rounding", "constructions/horizon/horizon.py",
           'RoundOff.of("float32", weights.dim),\n                        max_steps=NODE_BELOW, max_keys',
           'RoundOff.of("real", weights.dim),\n                        max_steps=NODE_BELOW, max_keys',
           tests=("tests/analysis/test_certify.py", "tests/constructions/horizon/test_horizon_nodes.py")),
    Mutant("T20: the node horizon kept even when shorter", "constructions/horizon/horizon.py",
           "if node.order_key() <= found.order_key():", "if False:",
           tests=("tests/analysis/test_certify.py", "tests/constructions/horizon/test_horizon_nodes.py")),
]


def run(mutant: Mutant, timeout: float) -> str:
    path = ROOT / mutant.path
    source = path.read_text()
    olds = mutant.old if isinstance(mutant.old, tuple) else (mutant.old,)
    news = mutant.new if isinstance(mutant.new, tuple) else (mutant.new,)
    if any(source.count(o) != 1 for o in olds):
        return "stale"
    mutated = source
    for o, n in zip(olds, news):
        mutated = mutated.replace(o, n)
    try:
        path.write_text(mutated)
        cmd = [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", *mutant.tests]
        try:
            done = subprocess.run(cmd, cwd=ROOT, capture_output=True, timeout=timeout,
                                  env={**__import__("os").environ, "OMP_NUM_THREADS": "1"})
        except subprocess.TimeoutExpired:
            return "killed (timeout)"
        return "survived" if done.returncode == 0 else "killed"
    finally:
        path.write_text(source)


def _terminate(signum, frame):  # a background job ignores SIGINT: make SIGTERM restore the file too
    raise KeyboardInterrupt


def main(argv=None) -> int:
    import signal

    signal.signal(signal.SIGTERM, _terminate)
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("-k", default="", help="only mutants whose name contains this text")
    p.add_argument("--timeout", type=float, default=600.0, help="seconds per mutant's test run")
    p.add_argument("--list", action="store_true", help="list the mutants and exit")
    args = p.parse_args(argv)
    chosen = [m for m in MUTANTS if args.k.lower() in m.name.lower()]
    if args.list:
        for m in chosen:
            print(f"{m.name:<60} {m.path}" + ("  (equivalent)" if m.equivalent else ""))
        return 0
    results = []
    for m in chosen:
        t = time.perf_counter()
        outcome = run(m, args.timeout)
        results.append((m, outcome))
        print(f"{outcome:<18} {time.perf_counter() - t:6.1f}s  {m.name}" + ("  (equivalent)" if m.equivalent else ""),
              flush=True)
    scored = [(m, o) for m, o in results if not m.equivalent and o != "stale"]
    killed = sum(o.startswith("killed") for _, o in scored)
    print(f"\nkilled {killed} of {len(scored)} non-equivalent mutants "
          f"({100 * killed / max(len(scored), 1):.0f}%); stale: {sum(o == 'stale' for _, o in results)}; "
          f"equivalent (not scored): {sum(m.equivalent for m, _ in results)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

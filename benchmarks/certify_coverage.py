"""Coverage and usefulness of ``bilinear certify`` on near-exact and trained networks.

Networks (all float): every family below with its proved construction (``build``) in the
variants that have one,

* the construction as floats plus Gaussian noise of 1e-6, 1e-4 and 1e-2 on every matrix entry,
* a Jordan (nilpotent) perturbation 1e-3 * N on every matrix (N the shift matrix: non-normal),
* padded to a larger hidden size with contracting blocks and a phase error, conjugated by a
  random basis for ``full`` (``snap.drift``),

and any training runs given with ``--runs``.  Per network: the status, the certified float64
length L, the failing length U found by the directed search (float64; then shortened), the
ratio U / L, and what snap was proved.  At the end: counts per status and the median U / L.

    OMP_NUM_THREADS=1 python benchmarks/certify_coverage.py [--runs RUN_DIR ...] [--quick]

How the first failures are found: ``certify_network``'s directed search (powers of every symbol,
powers of loops of length 2 and 3 ranked by their drift from the snap, shortest words to each
state followed by every symbol's powers, 256 random words), on words of length
max(2000, 4 L) up to 20000, then shortened.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from bilinear.analysis.certify import certify_network
from bilinear.automata.families import from_spec
from bilinear.constructions.handmade.registry import build
from bilinear.constructions.horizon.snap import drift
from bilinear.constructions.values.weights import Weights

FAMILIES = {
    "parity": ("diagonal", "full"),
    "cyclic:5": ("rotation2d", "block:2", "full"),
    "dihedral:3": ("block:2", "full"),
    "dihedral:4": ("block:2", "full"),
    "quaternion": ("full",),
    "alternating:4": ("full",),
    "symmetric:4": ("full",),
    "reset:3": ("full",),
    "flipflop:2": ("block:2", "full"),
}


def _noisy(w: Weights, noise: float, seed: int) -> Weights:
    A, h0, R = w.to_float().float_arrays()
    rng = np.random.default_rng(seed)
    return Weights(w.variant, A + noise * rng.normal(size=A.shape) * _mask(w), h0, R)


def _mask(w: Weights) -> np.ndarray:
    """1 where the variant allows an entry (block structure kept), else 0."""
    A, _, _ = w.to_float().float_arrays()
    v = w.variant_info
    if v.block_size is None:
        return np.ones_like(A)
    mask = np.zeros_like(A)
    b = v.block_size
    for i in range(0, A.shape[1], b):
        mask[:, i:i + b, i:i + b] = 1
    if w.variant == "rotation2d":
        return mask  # noise on the 2x2 blocks breaks the rotation form: handled by the try below
    return mask


def _jordan(w: Weights, size: float) -> Weights:
    A, h0, R = w.to_float().float_arrays()
    N = np.diag(np.ones(A.shape[1] - 1), 1)
    return Weights(w.variant, A + size * N * _mask(w), h0, R)


def networks(quick: bool):
    noises = (1e-6, 1e-2) if quick else (1e-6, 1e-4, 1e-2)
    for spec, variants in FAMILIES.items():
        for variant in variants:
            try:
                exact = build(spec, variant)
            except Exception:  # noqa: BLE001 - no construction in this variant
                continue
            for noise in noises:
                yield f"{spec} {variant} noise {noise:g}", spec, lambda e=exact, n=noise: _noisy(e, n, 0)
            yield f"{spec} {variant} jordan 1e-3", spec, lambda e=exact: _jordan(e, 1e-3)
            if variant in ("full", "rotation2d", "block:2"):
                yield (f"{spec} {variant} padded drift 1e-3", spec,
                       lambda e=exact: drift(e.to_float(), 1e-3, hidden=e.dim + 4 + e.dim % 2))


def _run_networks(paths):
    from bilinear.analysis.certify_cli import load_network_and_length

    for path in paths:
        w, a, _ = load_network_and_length(path)
        yield f"trained {a.name} {w.variant} h{w.dim} ({path})", a, lambda w=w: w


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", nargs="*", default=[], help="training run directories (trained rows)")
    p.add_argument("--quick", action="store_true", help="two noise levels instead of three")
    args = p.parse_args()
    rows = []
    items = [(n, from_spec(s), f) for n, s, f in networks(args.quick)] + list(_run_networks(args.runs))
    print(f"{'network':<48} {'status':>11} {'L':>18} {'U':>6} {'U/L':>7} {'s':>5}  snap")
    for name, a, make in items:
        try:
            w = make()
        except Exception as exc:  # noqa: BLE001 - a perturbation that leaves the variant
            print(f"{name:<48} {'skipped':>11}  ({exc})")
            continue
        t = time.perf_counter()
        cert = certify_network(w, a, random_words=128, shorten_seconds=2.0)
        s = time.perf_counter() - t
        L = cert.horizon.length if cert.horizon is not None else None
        Ltext = ("every" if cert.horizon is not None and cert.horizon.every else "-" if L is None else str(L))
        U = len(cert.failing) if cert.failing is not None else None
        ratio = U / max(L, 1) if (U is not None and L is not None) else None
        rows.append((name, cert.status, L, U, ratio))
        snap = cert.snap.rule if cert.snap is not None else "; ".join(r for r, _ in cert.attempts)[:60]
        print(f"{name:<48} {cert.status:>11} {Ltext:>18} {str(U or '-'):>6} "
              f"{('-' if ratio is None else f'{ratio:.2f}'):>7} {s:5.1f}  {snap}", flush=True)
    print()
    counts = {}
    for _, status, *_ in rows:
        counts[status] = counts.get(status, 0) + 1
    print("status counts:", ", ".join(f"{k} {v}" for k, v in sorted(counts.items())), f"(of {len(rows)})")
    for label, pick in (("all", lambda n: True), ("trained", lambda n: n.startswith("trained"))):
        ratios = [r for n, _, _, _, r in rows if r is not None and pick(n)]
        if ratios:
            print(f"median U / L ({label}, {len(ratios)} networks with a failure and a length): "
                  f"{statistics.median(ratios):.2f}")


if __name__ == "__main__":
    main()

"""Theorem F6's bound (monomial_bound) against a walk of every orbit, written here: for every
monoid element g and state q, the labels along q, q.g, q.g^2, ... until a state repeats, and the
minimal period of the labels on the cycle (the old algorithm, one walk per state and element)."""

from __future__ import annotations

import math
import re

import pytest

from bilinear.constructions.impossible.bounds import _monoid_rows, _prime_power_sum, monomial_bound


def _walk(spec):
    m, rows = _monoid_rows(spec)
    best = (1, 1, None)
    for g in rows.tolist():
        for q in range(m.n_states):
            seen, orbit, x = {}, [], q
            while x not in seen:
                seen[x] = len(orbit)
                orbit.append(x)
                x = g[x]
            cycle = [int(m.labels[y]) for y in orbit[seen[x]:]]
            P = next(p for p in range(1, len(cycle) + 1)
                     if len(cycle) % p == 0 and all(cycle[i] == cycle[(i + p) % len(cycle)] for i in range(len(cycle))))
            need = _prime_power_sum(P // math.gcd(P, 2))
            if need > best[0]:
                best = (need, P, q)
    return None if best[0] <= 1 else best


@pytest.mark.parametrize("spec", ["cyclic:12", "cyclic:30", "dihedral:7", "symmetric:4", "alternating:5", "quaternion",
                                  "modarith:5", "cyclic:3*parity", "flipflop:3", "gridworld:3",
                                  "random:states=7,symbols=3,seed=8", "random:states=7,symbols=3,seed=10",
                                  "random:states=6,symbols=2,seed=4"])
def test_bound_period_and_state_match_the_walk(spec):
    got = monomial_bound(spec)
    want = _walk(spec)
    if want is None:
        assert got is None
        return
    need, reason = got
    P = int(re.search(r"have period (\d+)", reason).group(1))
    q = int(re.search(r"from state (\d+)", reason).group(1))
    assert (need, P, q) == want

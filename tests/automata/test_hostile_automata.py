"""Hostile automata (issue 25): one long cycle is not quadratic anywhere."""

from __future__ import annotations

import json

import numpy as np

from bilinear.automata import Automaton
from bilinear.automata.closure import _direct
from bilinear.automata.minimize import _hopcroft_blocks, _moore_blocks, minimize


def _cycle(n: int, marked: int = 1) -> Automaton:
    """One symbol stepping round n states; the first ``marked`` states labelled 1."""
    return Automaton([[(i + 1) % n for i in range(n)]], labels=[1 if i < marked else 0 for i in range(n)])


def test_hopcroft_finds_the_coarsest_congruence_moore_finds():
    rng = np.random.default_rng(25)
    for _ in range(200):
        n, k, c = int(rng.integers(1, 30)), int(rng.integers(1, 4)), int(rng.integers(1, 4))
        delta, labels = rng.integers(0, n, (k, n)), rng.integers(0, c, n)
        moore, converged = _moore_blocks(delta, labels)
        hopcroft = _hopcroft_blocks(delta, np.unique(labels, return_inverse=True)[1].astype(np.int64))
        assert converged
        pairs = set(zip(moore.tolist(), hopcroft.tolist()))  # the same partition: a bijection of blocks
        assert len(pairs) == moore.max() + 1 == hopcroft.max() + 1


def test_a_long_cycle_minimises_in_near_linear_time():
    """Moore's rounds: one per state on this cycle (a 10,000-state one took 215 s)."""
    big = minimize(_cycle(30_000))
    assert big.n_states == 30_000 and big.delta[0, -1] == 0 and big.labels[0] == 1
    assert minimize(_cycle(30_000, marked=0)).n_states == 1
    periodic = Automaton([[(i + 1) % 12_000 for i in range(12_000)]], labels=[int(i % 3 == 0) for i in range(12_000)])
    assert minimize(periodic).n_states == 3


def test_describe_of_a_200000_state_cycle_is_refused_quickly(capped_cli, tmp_path):
    """It ran 278 s (quadratic minimisation and orbit search), now one line under a 6 GB cap."""
    n = 200_000
    path = tmp_path / "cycle.json"
    path.write_text(json.dumps({"format": "bilinear.automaton", "version": 1, "states": n, "symbols": ["a"],
                                "delta": [[(i + 1) % n for i in range(n)]], "labels": [int(i == 0) for i in range(n)]}))
    proc = capped_cli("describe", path, timeout=120)
    assert proc.returncode == 2, proc.stderr[-2000:]
    assert "it is a group with an orbit of 200000 states" in proc.stderr and proc.stderr.count("\n") == 1


def test_the_direct_table_is_decided_without_n_to_the_n():
    assert _direct(8) and not _direct(9) and not _direct(10**7)

"""The extraction's memory estimate (``extract_bytes``, checked against ``MAX_EXTRACT_BYTES``
before any word is drawn) is an upper bound of what it holds: the peak ``tracemalloc`` sees while
``extract`` runs is at most the estimate, and the estimate is at most three times the peak.  The
old estimate (32 bytes a prefix and 16 a hidden unit of a word) was below the peak of a
16-dimensional construction, and 1.6 to 5.6 times below it at 500 to 2000 words of length 5,000
to 15,000 (its words, labels, ids and predictions were int64, the vote keys two int64 arrays, the
radius sample four copies of 200 words' states).  The vote counts a block of keys at a time,
the radius sample keeps only the states it draws: both give the results of the whole arrays."""

from __future__ import annotations

import importlib
import tracemalloc

import numpy as np
import pytest

from bilinear.analysis.extract import ExtractConfig, extract, extract_bytes
from bilinear.analysis.radius import choose_radius, run_radius
from bilinear.automata import from_spec
from bilinear.constructions import build
from bilinear.constructions.values.floatrun import float_steps, unit_rows
from bilinear.errors import AnalysisError

E = importlib.import_module("bilinear.analysis.extract")  # the package exports the function as `extract`


def _peak(weights, automaton, config: ExtractConfig) -> int:
    """The most bytes ``tracemalloc`` sees allocated during ``extract`` beyond those before it."""
    tracing = tracemalloc.is_tracing()
    if not tracing:
        tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        extract(weights, automaton, config)
        return tracemalloc.get_traced_memory()[1] - base
    finally:
        if not tracing:
            tracemalloc.stop()


CASES = [  # spec, variant, config: a 2-class automaton, a 16-dimensional full one, 16 classes by behaviour
    ("parity", "diagonal", ExtractConfig(words=300, length=200)),
    ("modarith:16", "full", ExtractConfig(words=200, length=100)),
    ("dihedral:8", "full", ExtractConfig(words=1000, length=300, method="behaviour")),
    ("cyclic:5", "rotation2d", ExtractConfig(words=200, length=300, burn_in=150)),
]


@pytest.mark.parametrize("spec, variant, config", CASES, ids=[f"{s} {v} {c.method}" for s, v, c in CASES])
def test_the_estimate_bounds_the_peak(spec, variant, config):
    w, a = build(spec, variant).to_float(), from_spec(spec)
    need = extract_bytes(config.words, config.length, w.dim, a.n_classes, a.n_symbols, method=config.method,
                         horizon=config.horizon, max_states=config.max_states, states=a.n_states)
    peak = _peak(w, a, config)
    assert peak <= need <= 3 * peak, (peak, need)
    if w.dim == 16:  # the old estimate, below the peak
        assert config.words * (config.length + 1) * 32 + config.words * w.dim * 16 < peak


def test_a_behaviour_run_past_the_limit_is_refused_with_the_estimate():
    """modarith:15 has 30 symbols: a signature of 931 words of 15 scores, 109 KiB a word at every
    step; 10,000 words need 1.22 GiB, where the old estimate said 0.03 GiB."""
    w, a = build("modarith:15", "full"), from_spec("modarith:15")
    config = ExtractConfig(words=10_000, length=100, method="behaviour")
    need = extract_bytes(10_000, 100, 15, 15, 30, method="behaviour", states=15)
    assert need > E.MAX_EXTRACT_BYTES > 30 * (10_000 * 101 * 32 + 10_000 * 15 * 16)
    with pytest.raises(AnalysisError, match=rf"^extracting from 10,000 words of length 100 \(hidden size 15\) would "
                                            rf"need about {need / 1024**3:.3g} GiB; the limit is 1 GiB"):
        extract(w, a, config)


def test_the_estimate_counts_what_grows():
    """Each term grows with what makes it: the prefixes, the hidden units of the kept states, the
    classes and signature words of the behaviour method, the clusters of the geometric one."""
    base = extract_bytes(1000, 1000, 4, 8, 2)
    assert extract_bytes(2000, 1000, 4, 8, 2) > base and extract_bytes(1000, 2000, 4, 8, 2) > base
    assert extract_bytes(1000, 1000, 8, 8, 2) > base  # the kept states
    assert extract_bytes(1000, 100, 4, 64, 8, method="behaviour") > extract_bytes(1000, 100, 4, 8, 8, method="behaviour")
    assert extract_bytes(1000, 100, 4, 8, 2, method="geometry") > extract_bytes(1000, 100, 4, 8, 2, method="geometry",
                                                                                max_states=200)
    # a behaviour pass past MAX_SIGNATURE_WORDS is refused before it holds anything
    assert extract_bytes(1000, 100, 4, 8, 40, method="auto") < extract_bytes(1000, 100, 4, 8, 30, method="auto")


@pytest.mark.parametrize("seed", range(3))
def test_the_votes_by_blocks_are_the_votes_of_all(seed, monkeypatch):
    """Blocks of 3 keys (every source's votes kept whole) give what one np.unique of all gives."""
    rng = np.random.default_rng(seed)
    K, S, C, N, T = 6, 3, 4, 30, 12
    ids = np.minimum(rng.geometric(0.4, size=(N, T + 1)) - 1, K - 1).astype(np.int16)
    words, pred = rng.integers(0, S, size=(N, T)).astype(np.int8), rng.integers(0, C, size=(N, T)).astype(np.int8)
    keys = ((ids[:, :-1].astype(np.int64) * S + words) * K + ids[:, 1:]).ravel()
    uniq, counts = np.unique(keys, return_counts=True)
    order = np.lexsort((-counts, uniq // K))
    src, succ, cnt = (uniq // K)[order], (uniq % K)[order], counts[order]
    first = np.r_[True, src[1:] != src[:-1]]
    want = np.full(K * S, -1)
    want[src[first]] = succ[first]
    labels = np.unique(ids[:, 1:].astype(np.int64) * C + pred)
    monkeypatch.setattr(E, "VOTE_BLOCK", 3)
    delta, conflicts, fraction = E._majority(ids, words, K, S)
    assert delta.tolist() == want.tolist() and conflicts == src.size - first.sum()
    assert fraction == float(1.0 - cnt[first].sum() / cnt.sum())
    assert E.count_label_conflicts(ids, pred, 1, C, 3) == labels.size - np.unique(labels // C).size


@pytest.mark.parametrize("burn_in", [0, 5])
def test_the_radius_sample_is_the_sample_of_all_states(burn_in):
    """The radius sample keeps 600 of 200 words x 11 steps: the radius of all of them; with a
    state that is not finite (left out), the radius of the finite ones."""
    A, h0, _ = build("cyclic:5", "rotation2d").float_arrays()
    A = A * (1 + 0.05 * np.arange(5))[:, None, None]
    words = np.random.default_rng(1).integers(0, 5, size=(300, 11))

    def all_states(steps):
        kept = [H for t, H in enumerate(steps(A, h0, words[:200]), 1) if t >= max(burn_in, 1)]
        return np.vstack(([unit_rows(h0[None, :].astype(float).copy())] if burn_in == 0 else []) + kept)

    assert run_radius(A, h0, words, burn_in, 3) == choose_radius(all_states(float_steps), 3)

    def holed(A, h0, sample):
        for t, H in enumerate(float_steps(A, h0, sample)):
            H[t::17] = np.nan
            yield H

    assert run_radius(A, h0, words, burn_in, 3, holed) == choose_radius(all_states(holed), 3)

"""The extraction's cluster radius is chosen from the data: at a clear gap of the distances
between hidden states, else by behaviour (the radius range over which the minimal automaton keeps
its size), else the extraction says it is ambiguous.  Never a negative distance."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch
from torch import nn

from bilinear.analysis.extract import ExtractConfig, choose_radius, extract
from bilinear.automata import from_spec

#: docs/analysis.md, whitespace runs as one space (its prose wraps lines anywhere)
DOC = " ".join((Path(__file__).resolve().parents[2] / "docs" / "analysis.md").read_text(encoding="utf-8").split())


class Z3GRU(nn.Module):
    """A torch GRU that tracks Z_3 by construction: 9 units, one per (previous state, symbol);
    the reset gate open, the update gate closed, the candidate ``tanh(K (W_hn h / 2 + x))`` fires
    the unit of (state, symbol); ``noise`` perturbs the weights, so the hidden states of one state
    spread (as a trained GRU's do) while every label stays right."""

    def __init__(self, K: float = 5.0, noise: float = 0.3, seed: int = 0):
        super().__init__()
        g = torch.Generator().manual_seed(seed)
        self.embed = nn.Embedding(3, 3)
        self.gru = nn.GRU(3, 9, batch_first=True)
        self.readout = nn.Linear(9, 3, bias=False)
        pairs = [(q, s) for q in range(3) for s in range(3)]
        with torch.no_grad():
            self.embed.weight.copy_(torch.eye(3))
            W_in, W_hn, R = torch.zeros(9, 3), torch.zeros(9, 9), torch.zeros(3, 9)
            for i, (q2, s2) in enumerate(pairs):
                W_in[i, s2] = K
                for j, (q, s) in enumerate(pairs):
                    W_hn[i, j] = K / 2 if (q + s) % 3 == q2 else 0.0
            for j, (q, s) in enumerate(pairs):
                R[(q + s) % 3, j] = 1.0
            W_in += noise * torch.randn(9, 3, generator=g)
            W_hn += noise * torch.randn(9, 9, generator=g)
            for p in (self.gru.weight_ih_l0, self.gru.weight_hh_l0, self.gru.bias_ih_l0, self.gru.bias_hh_l0):
                p.zero_()
            self.gru.bias_ih_l0[0:9] = 20.0  # reset gate open
            self.gru.bias_ih_l0[9:18] = -20.0  # update gate closed: the candidate is the new state
            self.gru.weight_ih_l0[18:27] = W_in
            self.gru.weight_hh_l0[18:27] = W_hn
            self.readout.weight.copy_(R)
        h0 = -torch.ones(9)
        h0[0] = 1.0  # the unit of (state 0, symbol 0): the start state
        self.register_buffer("h0", h0)

    def forward(self, words):
        out, _ = self.gru(self.embed(words), self.h0.expand(1, words.shape[0], 9).contiguous())
        return self.readout(out)


def _accuracy(model, automaton, words) -> float:
    with torch.no_grad():
        pred = model(torch.from_numpy(words)).argmax(-1).numpy()
    return float((pred == automaton.labels_batch(words, trace=True)).mean())


def test_a_gru_tracking_z3_gets_three_states_from_the_gap():
    a = from_spec("cyclic:3")
    gru = Z3GRU().eval()
    words = np.random.default_rng(1).integers(0, 3, size=(50, 40))
    assert _accuracy(gru, a, words) == 1.0  # it does track Z_3
    ex = extract(gru, a, ExtractConfig(words=150, length=30))
    assert ex.status == "ok" and ex.radius.source == "gap" and ex.radius.ratio >= 4
    assert ex.minimal.n_states == 3 and ex.isomorphic
    assert "at the distance gap" in ex.reading
    assert f"(`{ex.radius.text()}`, the GRU below)" in DOC  # docs/analysis.md quotes this reading
    # the old fixed radius 0.05 splits each state (the states of one class spread up to 0.13 apart)
    fine = extract(gru, a, ExtractConfig(words=150, length=30, tol=0.05))
    assert fine.n_clusters > ex.n_clusters and fine.radius.source == "given"


def _spread_tracker():
    """A cyclic:3 tracker whose states of one class spread so far that no gap separates them."""
    corners = np.eye(3) * 1.2

    def tracker(words):
        words = np.asarray(words)
        q = np.cumsum(words, axis=1) % 3
        # a deterministic, continuous spread: a leaky sum of the symbols moves the state within
        # 0.45 of its corner (every history its own point)
        angle = np.zeros(words.shape)
        acc = np.zeros(words.shape[0])
        for t in range(words.shape[1]):
            acc = 0.61 * acc + words[:, t] + 0.37
            angle[:, t] = acc
        H = corners[q] + 0.45 * np.stack([np.cos(angle), np.sin(angle), np.zeros_like(angle)], axis=-1)
        return np.eye(3)[q] * 5.0, H

    from bilinear.constructions import as_tracker

    return as_tracker(tracker, n_symbols=3, n_classes=3, hidden=True)


def test_spread_states_get_their_radius_from_behaviour():
    """A tracker whose states of one class spread so far that no gap separates the classes: the
    radius comes from the range over which the minimal automaton keeps 3 states."""
    a = from_spec("cyclic:3")
    ex = extract(_spread_tracker(), a, ExtractConfig(words=150, length=30))
    assert ex.radius.source == "plateau" and ex.radius.stopped is None, ex.reading
    assert ex.status == "ok" and ex.minimal.n_states == 3 and ex.isomorphic
    sizes = [n for _, n in ex.radius.plateau]
    assert sizes.count(3) >= 3
    assert "from the behaviour" in ex.reading and "time budget" not in ex.reading
    quoted = ex.radius.text().split(", 0.24: 3")[0] + ", ..."  # docs/analysis.md quotes its start
    assert f"(`{quoted}`, a tracker whose states of one class spread" in DOC
    assert ex.to_json()["radius"]["search_stopped_at_budget"] is None


def test_the_radius_search_stops_at_its_time_budget_and_says_so():
    """With a budget already spent when the search starts, only its first radius is tried: no
    plateau of three radii can be found, so the extraction is ``ambiguous`` (not the ``ok`` of
    the full search above), and the reading and the JSON say that the budget stopped it."""
    a = from_spec("cyclic:3")
    ex = extract(_spread_tracker(), a, ExtractConfig(words=150, length=30, radius_seconds=1e-9))
    assert ex.radius.stopped == 1e-9 and len(ex.radius.plateau) == 1
    assert ex.status == "ambiguous" and ex.radius.source == "ambiguous"
    assert "stopped at its time budget of 1e-09 s after 1 of 10 radii" in ex.reading
    assert ex.to_json()["radius"]["search_stopped_at_budget"] == 1e-9


@pytest.mark.parametrize("bad", [0, -1.0, float("inf"), float("nan"), True, "10"])
def test_the_radius_budget_must_be_a_positive_number(bad):
    from bilinear.errors import AnalysisError

    with pytest.raises(AnalysisError, match="radius_seconds"):
        ExtractConfig(radius_seconds=bad).validated()


def test_the_radius_search_shows_progress_and_checks_the_budget_between_radii(monkeypatch):
    """Off a terminal the search prints a progress line every BILINEAR_PROGRESS_INTERVAL
    seconds; a deadline passed after the second radius stops it before the third."""
    import importlib
    import io
    import time
    import types
    from dataclasses import replace

    ex_mod = importlib.import_module("bilinear.analysis.radius")

    monkeypatch.setenv("BILINEAR_PROGRESS_INTERVAL", "0.05")
    err = io.StringIO()
    monkeypatch.setattr("sys.stderr", err)
    a = from_spec("cyclic:3")
    first = extract(_spread_tracker(), a, ExtractConfig(words=60, length=20, radius_seconds=1e-9))
    calls = []
    clock = [100.0]  # the search's clock, advanced 0.15 s per radius whatever the machine's load
    monkeypatch.setattr(ex_mod, "_time", types.SimpleNamespace(perf_counter=lambda: clock[0]))

    def run_at(r):
        calls.append(r)
        clock[0] += 0.15
        time.sleep(0.15)  # real time too, for the progress thread's lines
        return first

    deadline = 100.2  # spent after the second radius (100.3)
    out = ex_mod._refine_by_behaviour(replace(first, radius=replace(first.radius, stopped=None)), run_at,
                                      lambda r: first, deadline, 7.0)
    assert len(calls) == 2 and out.radius.stopped == 7.0
    assert "extract: radius search:" in err.getvalue() and "of 10 radii" in err.getvalue()


def test_no_structure_is_ambiguous_not_ok():
    """Hidden states that are a cloud (independent of the state): no gap, no plateau."""
    a = from_spec("cyclic:3")
    emb = np.random.default_rng(0).standard_normal((3, 6))

    def tracker(words):
        words = np.asarray(words)
        q = np.cumsum(words, axis=1) % 3
        H = np.zeros(words.shape + (6,))
        acc = np.zeros((words.shape[0], 6))
        for t in range(words.shape[1]):  # a slowly forgetting sum of the symbols: a cloud, not clusters
            acc = 0.9 * acc + emb[words[:, t]]
            H[:, t] = acc
        return np.eye(3)[q] * 5.0, H

    from bilinear.constructions import as_tracker

    ex = extract(as_tracker(tracker, n_symbols=3, n_classes=3, hidden=True), a, ExtractConfig(words=40, length=16, burn_in=1))
    assert ex.radius.source == "ambiguous", ex.reading
    assert ex.status == "ambiguous" and "AMBIGUOUS: no gap" in ex.reading


@pytest.mark.parametrize("tol", [None, 0.05, 0.2, 0.5])
def test_never_a_negative_distance(tol):
    a = from_spec("cyclic:3")
    ex = extract(Z3GRU(noise=0.4).eval(), a, ExtractConfig(words=40, length=16, tol=tol, burn_in=1))
    assert "between >= -" not in ex.reading
    data = json.loads(json.dumps(ex.to_json()))
    assert data["between"] is None or data["between"] >= 0
    if data["overlapping"]:
        assert "exceed the distance of their centres" in ex.reading


def test_exact_constructions_keep_their_states():
    from bilinear.constructions import build

    for spec, variant in (("cyclic:5", "rotation2d"), ("dihedral:4", "block:2"), ("flipflop:2", "full")):
        a = from_spec(spec)
        ex = extract(build(a, variant), a, ExtractConfig(words=100, length=20))
        assert ex.status == "ok" and ex.isomorphic and ex.radius.source == "gap", (spec, ex.reading)


def test_choose_radius_on_points():
    rng = np.random.default_rng(0)
    centres = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0]])
    X = centres[rng.integers(0, 3, 400)] + 0.02 * rng.standard_normal((400, 2))
    c = choose_radius(X)
    assert c.source == "gap" and c.below < c.tol < c.above / 2 + 1e-12
    assert c.above > 1.0 and c.below < 0.2


@pytest.mark.parametrize("budget, want", [(None, 60.0), (8.0, 4.0), (500.0, 60.0)])
def test_analyze_gives_the_radius_search_half_of_its_time_budget(monkeypatch, budget, want):
    import importlib

    from bilinear.cli import main

    cli = importlib.import_module("bilinear.analysis.cli")
    seen = {}

    class Stop(Exception):
        pass

    def fake(weights, automaton, config, **kw):
        seen["radius_seconds"] = config.extract.radius_seconds
        raise Stop

    monkeypatch.setattr(cli, "analyze", fake)
    argv = ["analyze", "--construction", "cyclic:3", "rotation2d"] + ([] if budget is None else ["--time-budget", str(budget)])
    with pytest.raises(Stop):
        main(argv)
    assert seen["radius_seconds"] == want


def test_the_radius_search_runs_the_network_once(monkeypatch):
    """Every radius the behaviour refinement tries clusters the same float run: it is run once
    (besides the radius sample of a pass that chooses its radius) and kept, and the extraction
    is the one that runs it again per radius (KEEP_RUN_BYTES = 0)."""
    import sys

    from bilinear.constructions import Weights, build

    E = sys.modules["bilinear.analysis.extract"]
    A, h, R = build("cyclic:3", "full").to_float().float_arrays()
    r = np.random.default_rng(2)
    A = A * (1 + 0.3 * r.normal(size=(3, 1, 1))) + 0.09 * r.normal(size=A.shape)  # drifting: no gap
    w, a, config = Weights("full", A, h, R), from_spec("cyclic:3"), ExtractConfig(words=16, length=8)
    runs, samples = [], []
    float_steps, radius = E.float_steps, E._radius
    monkeypatch.setattr(E, "float_steps", lambda *args, **kw: runs.append(1) or float_steps(*args, **kw))
    monkeypatch.setattr(E, "_radius", lambda A, h0, cfg, *rest: samples.append(cfg.tol is None) or radius(A, h0, cfg, *rest))

    def full_runs() -> int:
        return len(runs) - sum(samples)  # a radius chosen from the data runs a sample of the words

    kept = extract(w, a, config)
    once = full_runs()
    runs.clear()
    samples.clear()
    monkeypatch.setattr(E, "KEEP_RUN_BYTES", 0)
    again = extract(w, a, config)
    assert kept.radius.source == "plateau" and len(kept.radius.plateau) >= 3  # several radii tried
    assert once == 1 and full_runs() > len(kept.radius.plateau)
    for name in ("status", "n_clusters", "within", "between", "conflicts", "isomorphic", "accuracy",
                 "distinguishing_text"):
        assert getattr(kept, name) == getattr(again, name), name
    assert kept.radius == again.radius and kept.minimal.n_states == again.minimal.n_states

"""Benchmark: which word strategies find a broken model's failure, how fast, and how short.

A zoo of broken models (hand-made drifts, GRUs trained briefly in torch, the toolkit's own
trained runs of several variants and baselines), each with its shortest failing word found here
by search: exhaustive breadth-first over all words while there are at most ``--exhaustive``
of one length (then it *is* the shortest), then a beam of the lowest-margin prefixes (a beam
gives an upper bound: a shorter failure it missed would show as a reported length below it).

For each strategy (plain ``st.lists``, ``words``, ``long_words``, ``structured_words``,
``directed``, ``failing_words``: Hypothesis, derandomised, 100 examples, no database; and
``assert_tracks`` once) the property is :func:`bilinear.constructions.horizon.testing.assert_tracks_word`
on every prefix; the table gives whether it caught the model, the examples it drew until the
first failure, the seconds to that failure and in all (shrinking included), and the length of
the first failing prefix of the reported (shrunk) example against the shortest.

``--labels`` measures the oracle instead: the automaton's labels after every prefix of words of
10^4 symbols, :func:`bilinear.automata.labels.prefix_labels` next to ``Automaton.trace``.

Run:  .venv/bin/python benchmarks/bench_properties.py [--models a,b] [--strategies x,y] [--labels]
"""

from __future__ import annotations

import argparse
import os
import math
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np
import torch
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from bilinear.automata import from_spec
from bilinear.automata.labels import prefix_labels
from bilinear.automata.strategies import directed, failing_words, long_words, structured_words, words
from bilinear.automata.words import compress
from bilinear.constructions.horizon.testing import assert_tracks, assert_tracks_word, first_wrong
from bilinear.constructions.values.weights import Weights

MAX_LENGTH = 2000  # every strategy draws words up to this length (long_words: exactly this)


# -- the zoo ---------------------------------------------------------------------------------

@dataclass
class Zoo:
    """A broken model: what the property is pointed at (``model``) and a step function for the
    search (``init(batch) -> state``, ``step(state, ids) -> (state, logits)``, ``take(state, idx)``)."""

    name: str
    spec: str
    model: Any
    init: Callable
    step: Callable
    take: Callable = field(default=lambda s, i: s[i])
    key: Callable = field(default=lambda s: np.asarray(s))

    @property
    def automaton(self):
        return from_spec(self.spec)


def _rot(t: float) -> np.ndarray:
    return np.array([[math.cos(t), -math.sin(t)], [math.sin(t), math.cos(t)]])


def _weights_zoo(name: str, spec: str, w: Weights, model=None) -> Zoo:
    """A zoo entry run by its float matrices, h renormalised after every step."""
    A, h0, R = (np.asarray(x, dtype=float) for x in w.float_arrays())

    def step(h, ids):
        h = np.einsum("bij,bj->bi", A[ids], h)
        h = h / np.linalg.norm(h, axis=1, keepdims=True)
        return h, h @ R.T

    return Zoo(name, spec, w if model is None else model, lambda b: np.tile(h0 / np.linalg.norm(h0), (b, 1)), step)


def rotation_zoo(m: int, delta: float, as_callable: bool) -> Zoo:
    """Z_m, symbol s rotates by s (2 pi / m + delta): right on short words, drifts on long ones."""
    A = np.stack([_rot(s * (2 * math.pi / m + delta)) for s in range(m)])
    phi = np.arange(m) * 2 * math.pi / m
    w = Weights("rotation2d", A=A, h0=np.array([1.0, 0.0]), readout=np.stack([np.cos(phi), np.sin(phi)], 1))
    zoo = _weights_zoo(f"rotation Z_{m} +{delta:g} ({'callable' if as_callable else 'Weights'})", f"cyclic:{m}", w)
    if as_callable:
        def rotation(ids):  # (batch, time) -> (batch, time, classes): the angle summed
            angle = np.cumsum((2 * math.pi / m + delta) * ids, axis=1)
            return np.cos(angle[..., None] - phi)
        zoo.model = rotation
    return zoo


def reflection_zoo() -> Zoo:
    """Parity by a Householder step I - beta e1 e1^T with beta = 1.99 (eigenvalue -0.99, not -1)
    and a readout with a threshold against a constant channel: wrong on 1^138."""
    A = np.stack([np.eye(2), np.eye(2) - 1.99 * np.outer([1, 0], [1, 0])])
    R = np.array([[1.0, 0.0], [-1.0, 0.5]])  # even - odd = 2x - 0.5y
    return _weights_zoo("reflection beta=1.99 (parity)", "parity", Weights("full", A=A, h0=np.array([1.0, 1.0]), readout=R))


def diagonal_zoo() -> Zoo:
    """A flip-flop whose memory channel is kept by 0.999 instead of 1 under the read symbol:
    the stored 1 fades below the readout's threshold after 693 reads (``w1 r^693``)."""
    A = np.stack([[[0.0, -1.0], [0.0, 1.0]], [[0.0, 1.0], [0.0, 1.0]], np.diag([0.999, 1.0])])
    R = np.array([[-1.0, 0.5], [1.0, -0.5]])
    return _weights_zoo("diagonal 0.999 (flipflop:2)", "flipflop:2", Weights("full", A=A, h0=np.array([-1.0, 1.0]), readout=R))


def dihedral_zoo(delta: float = 1e-3) -> Zoo:
    """D_3 on the plane: r a rotation by 2 pi / 3 + delta, s a reflection; the readout is the
    orbit of a generic h0 under the exact group, so r^n drifts towards a neighbour."""
    a = from_spec("dihedral:3")
    exact = {0: _rot(2 * math.pi / 3), 1: np.diag([1.0, -1.0])}
    h0 = np.array([math.cos(math.pi / 6), math.sin(math.pi / 6)])
    from bilinear.automata.minimize import access_words

    rows = np.zeros((a.n_classes, 2))
    for q, word in zip(access_words(a).states.tolist(), access_words(a).words):
        h = h0
        for s in word:
            h = exact[s] @ h
        rows[a.labels[q]] = h
    A = np.stack([_rot(2 * math.pi / 3 + delta), np.diag([1.0, -1.0])])
    return _weights_zoo(f"rotation D_3 +{delta:g} (Weights)", "dihedral:3", Weights("full", A=A, h0=h0, readout=rows))


class Forgetful(torch.nn.Module):
    """Parity of the last ``window`` symbols only (a torch module: ids -> logits)."""

    def __init__(self, window: int = 30):
        super().__init__()
        self.window = window

    def forward(self, ids):
        c = torch.cumsum(ids, 1)
        past = torch.nn.functional.pad(c, (self.window, 0))[:, :-self.window]
        return torch.nn.functional.one_hot((c - past) % 2, 2).double()


def forgetful_zoo(window: int = 30) -> Zoo:
    def init(b):
        return np.zeros((b, window), dtype=np.int64)

    def step(s, ids):
        s = np.concatenate([s[:, 1:], ids[:, None]], axis=1)
        return s, np.eye(2)[s.sum(axis=1) % 2]

    return Zoo(f"forgets after {window} (parity, torch)", "parity", Forgetful(window), init, step)


class GRUModel(torch.nn.Module):
    """Embedding, one ``nn.GRU`` layer, linear readout: a user's own torch model."""

    def __init__(self, n_symbols: int, n_classes: int, hidden: int, seed: int):
        super().__init__()
        torch.manual_seed(seed)
        self.embedding = torch.nn.Embedding(n_symbols, hidden)
        self.rnn = torch.nn.GRU(hidden, hidden, batch_first=True)
        self.readout = torch.nn.Linear(hidden, n_classes)

    def forward(self, ids):
        return self.readout(self.rnn(self.embedding(ids))[0])


def train_gru(spec: str, hidden: int = 8, steps: int = 400, max_len: int = 12, seed: int = 0) -> GRUModel:
    """A GRU trained briefly (seeded) on random words of lengths 1..max_len, every position."""
    a = from_spec(spec)
    model = GRUModel(a.n_symbols, a.n_classes, hidden, seed)
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        length = int(rng.integers(1, max_len + 1))
        ids = rng.integers(0, a.n_symbols, size=(64, length))
        labels = torch.as_tensor(a.labels_batch(ids, trace=True))
        loss = torch.nn.functional.cross_entropy(model(torch.as_tensor(ids)).flatten(0, 1), labels.flatten())
        opt.zero_grad()
        loss.backward()
        opt.step()
    return model.eval()


def _recurrent_zoo(name: str, spec: str, module) -> Zoo:
    """A module with ``embedding``, ``rnn`` (GRU, LSTM or RNN) and ``readout``, stepped one
    symbol at a time for the search."""
    lstm = isinstance(module.rnn, torch.nn.LSTM)
    hidden = module.rnn.hidden_size

    def init(b):
        z = torch.zeros(1, b, hidden)
        return (z, z.clone()) if lstm else z

    @torch.no_grad()
    def step(h, ids):
        out, h = module.rnn(module.embedding(torch.as_tensor(ids))[:, None], h)
        return h, module.readout(out[:, 0]).double().numpy()

    def take(h, idx):
        idx = torch.as_tensor(idx)
        return tuple(x[:, idx] for x in h) if lstm else h[:, idx]

    def key(h):
        return torch.cat(h, -1)[0].numpy() if lstm else h[0].numpy()

    return Zoo(name, spec, module, init, step, take, key)


def toolkit_run(spec: str, model: str, seed: int = 0, **options):
    """A tiny run of the toolkit's trainer (``bilinear.learned``); returns the trained module."""
    from bilinear.learned import TrainConfig, load_run, train_run

    config = TrainConfig(spec=spec, model=model, seed=seed, test_len=40, test_words=16, val_min_len=12,
                         val_max_len=30, val_words=16, eval_every=50, **options)
    with tempfile.TemporaryDirectory() as folder:
        train_run(config, folder + "/run")
        return load_run(folder + "/run")[1]


def zoo(names: set[str] | None = None) -> list[Zoo]:
    """The broken models (built lazily: the trained ones take seconds each)."""
    builders: list[tuple[str, Callable[[], Zoo]]] = [
        ("rotZ3", lambda: rotation_zoo(3, 1e-3, False)),
        ("rotZ5", lambda: rotation_zoo(5, 1e-3, True)),
        ("reflection", reflection_zoo),
        ("diagonal", diagonal_zoo),
        ("forget30", forgetful_zoo),
        ("rotD3", dihedral_zoo),
        ("gru-parity", lambda: _recurrent_zoo("GRU h8 (parity, torch)", "parity", train_gru("parity"))),
        ("gru-z3", lambda: _recurrent_zoo("GRU h12 (cyclic:3, torch)", "cyclic:3", train_gru("cyclic:3", hidden=12, steps=800))),
        ("lstm", lambda: _recurrent_zoo("lstm h8 (parity, toolkit run)", "parity", toolkit_run(
            "parity", "lstm", hidden=8, steps=300, early_stop="none"))),
        ("rnn", lambda: _recurrent_zoo("rnn h16 (cyclic:3, toolkit run)", "cyclic:3", toolkit_run(
            "cyclic:3", "rnn", hidden=16, steps=300, early_stop="none"))),
        ("rotation2d", lambda: _trained_bilinear("cyclic:3", "rotation2d", hidden=2, angles=True, steps=400)),
        ("rotation2d-z5", lambda: _trained_bilinear("cyclic:5", "rotation2d", hidden=2, steps=400)),
        ("full", lambda: _trained_bilinear("cyclic:5", "full", hidden=4, steps=400)),
    ]
    out = []
    for key, build in builders:
        if names is None or key in names:
            t = time.perf_counter()
            out.append(build())
            print(f"# built {key} in {time.perf_counter() - t:.1f} s", flush=True)
    return out


def _trained_bilinear(spec: str, variant: str, **options) -> Zoo:
    module = toolkit_run(spec, variant, early_stop="train", **options)
    angles = ", angles" if options.get("angles") else ""
    return _weights_zoo(f"{variant}{angles} h{options['hidden']} (toolkit run, {spec})", spec, module.to_weights(),
                        model=module)


# -- the shortest failing word ---------------------------------------------------------------

def _margins(logits: np.ndarray, labels: np.ndarray) -> np.ndarray:
    rows = np.arange(len(labels))
    own = logits[rows, labels].copy()
    other = logits.copy()
    other[rows, labels] = -np.inf
    return own - other.max(axis=1)


def shortest_failure(z: Zoo, max_length: int = 4000, exhaustive: int = 4096, beam: int = 256):
    """(length, word text, method) of the shortest failing word found, or (None, None, method)."""
    a = z.automaton
    k, flat, n = a.n_symbols, a.delta.reshape(-1), a.n_states
    state, q = z.init(1), np.array([a.start])
    parents: list[tuple[np.ndarray, np.ndarray]] = []
    method = "exhaustive"
    for t in range(1, max_length + 1):
        width = len(q)
        idx = np.repeat(np.arange(width), k)
        ids = np.tile(np.arange(k), width)
        state, q = z.take(state, idx), flat[ids * n + q[idx]]
        state, logits = z.step(state, ids)
        m = _margins(np.asarray(logits, dtype=float), a.labels[q])
        parents.append((idx, ids))
        bad = np.flatnonzero(~(m > 0))
        if bad.size:
            return t, compress(_word(parents, int(bad[0])), a), method
        if width * k > exhaustive:  # from here on: the beam of the lowest margins, per automaton state
            method = "beam"
            keep = _beam(m, q, np.asarray(z.key(state), dtype=float), beam)
            parents[-1] = (idx[keep], ids[keep])
            state, q = z.take(state, keep), q[keep]
    return None, None, method


def _beam(m: np.ndarray, q: np.ndarray, key: np.ndarray, size: int) -> np.ndarray:
    """Indices of at most ``size`` distinct (state, rounded hidden) entries, lowest margin first,
    at most size / states + 4 per automaton state."""
    _, first = np.unique(np.column_stack([q, np.round(key.reshape(len(q), -1), 9)]), axis=0, return_index=True)
    first = np.random.default_rng(len(q)).permutation(first)  # ties of the margin broken at random, seeded
    order = first[np.argsort(m[first], kind="stable")]
    quota = size // max(1, len(np.unique(q))) + 4
    taken: dict[int, int] = {}
    keep = []
    for i in order.tolist():
        if taken.get(int(q[i]), 0) < quota and len(keep) < size:
            taken[int(q[i])] = taken.get(int(q[i]), 0) + 1
            keep.append(i)
    return np.array(sorted(keep), dtype=np.int64)


def _word(parents, i: int) -> list[int]:
    out = []
    for idx, ids in reversed(parents):
        out.append(int(ids[i]))
        i = int(idx[i])
    return out[::-1]


# -- the strategies --------------------------------------------------------------------------

STRATEGIES: dict[str, Callable] = {
    "st.lists": lambda a: st.lists(st.integers(0, a.n_symbols - 1), max_size=200),
    "words": lambda a: words(a, max_size=200),
    "long_words": lambda a: long_words(a, length=MAX_LENGTH),
    "structured_words": lambda a: structured_words(a, max_length=MAX_LENGTH),
    "directed": lambda a: directed(a, max_length=MAX_LENGTH),
    "failing_words": lambda a: failing_words(a, max_length=MAX_LENGTH),
}


def run_strategy(z: Zoo, name: str, max_examples: int = 100) -> dict:
    """Hypothesis with ``name``'s strategy against ``z``: caught, examples to the first failure,
    seconds to it and in all, length of the first failing prefix of the reported example."""
    a = z.automaton
    calls, first, last = [0], [None], [None]
    start = time.perf_counter()

    @settings(max_examples=max_examples, derandomize=True, database=None, deadline=None,
              phases=[Phase.generate, Phase.shrink], suppress_health_check=list(HealthCheck))
    @given(STRATEGIES[name](a))
    def prop(word):
        calls[0] += 1
        try:
            assert_tracks_word(z.model, a, word)
        except AssertionError:
            if first[0] is None:
                first[0] = (calls[0], time.perf_counter() - start)
            last[0] = word
            raise

    try:
        prop()
    except AssertionError:
        pass
    total = time.perf_counter() - start
    if first[0] is None:
        return {"caught": False, "seconds": total}
    found = first_wrong(z.model, a, last[0])
    assert found is not None
    return {"caught": True, "examples": first[0][0], "to_catch": first[0][1], "seconds": total,
            "reported": found[0]}


def run_assert_tracks(z: Zoo, words_: int = 100) -> dict:
    a = z.automaton
    start = time.perf_counter()
    try:
        assert_tracks(z.model, a, length=MAX_LENGTH, words=words_)
    except AssertionError as exc:
        total = time.perf_counter() - start
        text = str(exc).split("(length ")[1]
        from bilinear.constructions.horizon.floatcheck import directed_words

        checked = len(directed_words(a, 1)) + words_
        return {"caught": True, "examples": checked, "to_catch": total, "seconds": total,
                "reported": int(text.split(")")[0])}
    return {"caught": False, "seconds": time.perf_counter() - start}


# -- the oracle's speed ------------------------------------------------------------------------

def bench_labels(length: int = 10_000, repeat: int = 5) -> None:
    """Microseconds per symbol: prefix_labels against Automaton.trace, on a structured word (a
    Word with its parts), on the same word as a plain list, and on a uniform random word."""
    from bilinear.automata.strategies import Word

    print(f"labels after every prefix of one word of {length:,} symbols, median of {repeat}, us per symbol")
    print(f"{'automaton':<16}{'word':<34}{'prefix_labels':>14}{'trace':>10}")
    for spec in ("parity", "cyclic:5", "dihedral:8", "symmetric:5", "flipflop:2"):
        a = from_spec(spec)
        rng = np.random.default_rng(0)
        k, mixed = a.n_symbols, tuple(rng.integers(0, a.n_symbols, size=1000).tolist())
        parts = (((k - 1,), 1), ((0, k - 1), 2000), (mixed, 1), ((k - 1,), 4999))  # 10,000 symbols
        structured = Word(parts, "a power, a random run, a power", a.symbols)
        cases = [("structured, as a Word", structured), ("the same, as a plain list", list(structured)),
                 ("uniform random", rng.integers(0, a.n_symbols, size=length).tolist())]
        for what, word in cases:
            fast = _median(lambda: prefix_labels(a, word), repeat)
            slow = _median(lambda: a.labels[a.trace(word)[1:]], repeat)
            assert (prefix_labels(a, word) == a.labels[a.trace(word)[1:]]).all()
            print(f"{spec:<16}{what:<34}{fast / length * 1e6:14.3f}{slow / length * 1e6:10.3f}")


def _median(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


# -- the table -------------------------------------------------------------------------------

def _cell(r: dict, shortest) -> str:
    if not r["caught"]:
        return f"{'-':>5} {'':>7} {'':>5} {'':>6} {r['seconds']:6.1f}"
    ratio = "" if not shortest else f"{r['reported'] / shortest:5.2f}x"
    return f"{r['examples']:>5} {r['to_catch']:7.2f} {r['reported']:>5} {ratio:>6} {r['seconds']:6.1f}"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", help="comma-separated zoo keys (default: all)")
    parser.add_argument("--strategies", help=f"comma-separated, of {', '.join(STRATEGIES)}, assert_tracks")
    parser.add_argument("--max-examples", type=int, default=100)
    parser.add_argument("--labels", action="store_true", help="measure the labels of long words instead")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    if args.labels:
        bench_labels()
        return 0
    names = [*STRATEGIES, "assert_tracks"] if not args.strategies else args.strategies.split(",")
    models = zoo(set(args.models.split(",")) if args.models else None)
    results: dict[str, dict[str, dict]] = {}
    print(f"cell: examples to the first failure, seconds to it, length of the reported failing prefix, its ratio "
          f"to the shortest, seconds in all (shrinking included); '-' = not caught in {args.max_examples} examples; "
          f"assert_tracks: the words of its one batch")
    for z in models:
        t = time.perf_counter()
        length, text, method = shortest_failure(z)
        print(f"\n{z.name}: shortest failing word {text} (length {length}, {method}, "
              f"{time.perf_counter() - t:.1f} s)", flush=True)
        results[z.name] = {"shortest": length}
        for name in names:
            r = run_assert_tracks(z) if name == "assert_tracks" else run_strategy(z, name, args.max_examples)
            results[z.name][name] = r
            print(f"  {name:<18}{_cell(r, length)}", flush=True)
    _summary(results, names)
    return 0


def _summary(results: dict, names: list[str]) -> None:
    print(f"\n{'strategy':<18}{'caught':>8}{'median examples':>17}{'<= 1.5x shortest':>18}{'median s to catch':>19}")
    for name in names:
        rows = [(r[name], r["shortest"]) for r in results.values()]
        caught = [(x, s) for x, s in rows if x["caught"]]
        close = sum(1 for x, s in caught if s and x["reported"] <= 1.5 * s)
        ex = statistics.median([x["examples"] for x, _ in caught]) if caught else float("nan")
        tc = statistics.median([x["to_catch"] for x, _ in caught]) if caught else float("nan")
        print(f"{name:<18}{len(caught):>4}/{len(rows):<3}{ex:>17g}{close:>12}/{len(rows):<5}{tc:>19.2f}")


if __name__ == "__main__":
    sys.exit(main())

"""How long a grid of runs takes on this machine, before it starts.

:func:`step_seconds` times a few training steps of one configuration (one torch thread, the
config's device, its batch and its longest training words: the optimizer step included, the
evaluations not); :func:`estimate` times each distinct model of a grid once (on the family of that
model with the most symbols, the costliest) and multiplies: runs x steps x seconds per step,
divided by the worker processes.  Runs that validate perfectly stop earlier, so the figure is an
upper bound on the training; evaluation (the test words at length 500) adds seconds per run.

``bilinear reproduce`` and ``bilinear sweep`` print the estimate and refuse, without ``--yes``, a
local CPU run estimated past :data:`CONFIRM_SECONDS` (an hour): ``bilinear reproduce`` with no
flag was the paper's full protocol, about 490 core-hours, started without a word.

>>> from bilinear.learned.config import TrainConfig
>>> e = estimate([TrainConfig(spec="parity", model="diagonal", hidden=2, steps=100)] * 3, workers=2)
>>> e.runs, e.steps, len(e.per_model), e.wall_seconds == e.core_seconds / 2
(3, 300, 1, True)
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from bilinear.errors import ConfigError

from .config import TrainConfig

__all__ = ["Estimate", "estimate", "step_seconds", "CONFIRM_SECONDS", "model_key", "hours", "plan", "plan_text"]

#: A local run estimated past this many seconds (wall clock) needs ``--yes``.
CONFIRM_SECONDS = 3600.0
#: Training steps timed per distinct model (after one warm-up step).
TIMED_STEPS = 2


def model_key(c: TrainConfig) -> tuple:
    """What a training step's cost depends on, apart from the family's symbols."""
    return (c.model, c.hidden, c.embed, c.additive, c.angles, c.layers, c.batch, c.longest_train_len,
            c.match_params, c.freeze_transitions, c.scan, c.device, c.normalize_train)


def step_seconds(config: TrainConfig, steps: int = TIMED_STEPS) -> float:
    """Seconds per training step of ``config`` here: the mean of ``steps`` timed steps after one
    warm-up step, on batches of its longest training words."""
    import torch

    from bilinear.automata import from_spec

    from .adam import make_adam
    from .registry import make_model
    from .train import _loss, resolve_device

    device = resolve_device(config.device)
    automaton = from_spec(config.spec)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # as a sweep's worker runs
    try:
        torch.manual_seed(0)
        model = make_model(config, automaton).to(device)
        optimizer = make_adam(model.parameters(), lr=config.lr, device=device)
        from bilinear.automata.data import sample_words
        import numpy as np

        n = config.longest_train_len
        ds = sample_words(automaton, config.batch, n, n, seed=np.random.default_rng(0))
        words, labels = torch.from_numpy(np.array(ds.words)).to(device), torch.from_numpy(np.array(ds.labels)).to(device)
        elapsed = 0.0
        for i in range(steps + 1):
            t = time.perf_counter()
            loss, _ = _loss(model, automaton, words, labels, device)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), max(config.grad_clip, 1e-9))
            optimizer.step()
            if device.type == "cuda":
                torch.cuda.synchronize()
            if i:
                elapsed += time.perf_counter() - t
        return elapsed / steps
    finally:
        torch.set_num_threads(threads)


@dataclass(frozen=True)
class Estimate:
    """The cost of a grid: ``runs``, total training ``steps``, ``per_model`` seconds per step of each
    distinct model (label -> seconds, measured here), ``core_seconds`` (the sum over runs),
    ``workers`` (local processes) and ``per_run`` (each config's seconds, in the grid's order)."""

    runs: int
    steps: int
    per_model: dict
    core_seconds: float
    workers: int
    per_run: tuple = field(default=(), repr=False)

    @property
    def wall_seconds(self) -> float:
        return self.core_seconds / max(self.workers, 1)

    def text(self) -> str:
        """One paragraph: runs, steps, the seconds per step measured, the total."""
        rates = ", ".join(f"{label} {s:.3g} s" for label, s in sorted(self.per_model.items(), key=lambda kv: -kv[1]))
        return (f"{self.runs:,} runs, {self.steps:,} training steps at most; seconds per step measured on this "
                f"machine just now (one torch thread, {TIMED_STEPS} steps after a warm-up): {rates}; about "
                f"{hours(self.core_seconds)} core-hours, {hours(self.wall_seconds)} hours wall clock with "
                f"{self.workers} worker(s) (an upper bound: runs that validate perfectly stop earlier; evaluation "
                f"not counted)")


def hours(seconds: float) -> str:
    """Hours with two significant digits (``0.0042``, ``490``).

    >>> hours(1764000), hours(15), hours(5400)
    ('490', '0.0042', '1.5')
    """
    h = seconds / 3600
    return f"{h:.2g}" if h < 100 else f"{h:,.0f}"


def _label(c: TrainConfig) -> str:
    extra = [f"h{c.hidden}" if c.match_params is None else f"~{c.match_params} params"]
    extra += [f"embed {c.embed}"] if c.embed else []
    extra += ["additive"] if c.additive else []
    return f"{c.model} ({', '.join(extra)})"


def estimate(configs, workers: int = 1, measure=step_seconds) -> Estimate:
    """The :class:`Estimate` of training every config of ``configs`` with ``workers`` processes;
    ``measure`` times one config (default :func:`step_seconds`), once per distinct model."""
    from bilinear.automata.families import check_spec, is_automaton_file

    configs = list(configs)
    if not configs:
        raise ConfigError("nothing to estimate: the grid is empty")

    def symbols(c: TrainConfig) -> int:
        return 0 if is_automaton_file(c.spec) else check_spec(c.spec)[1]

    costliest: dict = {}
    for c in configs:
        k = model_key(c)
        if k not in costliest or symbols(c) > symbols(costliest[k]):
            costliest[k] = c
    seconds = {k: float(measure(c)) for k, c in costliest.items()}
    per_run = tuple(seconds[model_key(c)] * c.steps for c in configs)
    return Estimate(runs=len(configs), steps=sum(c.steps for c in configs),
                    per_model={_label(c): seconds[k] for k, c in costliest.items()},
                    core_seconds=sum(per_run), workers=workers, per_run=per_run)


def _memo(measure):
    """``measure`` remembered per :func:`model_key` (and the family's symbols): parts share models."""
    seen: dict = {}

    def timed(c: TrainConfig) -> float:
        key = (model_key(c), c.spec)
        if key not in seen:
            seen[key] = measure(c)
        return seen[key]

    return timed


def plan(parts, workers: int = 1, measure=step_seconds) -> list[dict]:
    """The dry run of a multi-part table: per part (``name``, ``title``, ``sweep``), its runs,
    steps, estimated core- and wall-seconds and its cells (row label, model, runs, core-seconds),
    each distinct model timed once over all the parts.

    >>> from types import SimpleNamespace
    >>> from bilinear.learned.sweep import Sweep
    >>> part = SimpleNamespace(name="p", title="P", sweep=Sweep(families=["parity"], models=["diagonal"], seeds=[0, 1],
    ...                        train={"steps": 10, "hidden": 2}))
    >>> [(c["row"], c["model"], c["runs"], c["core_seconds"]) for c in plan([part], measure=lambda c: 0.5)[0]["cells"]]
    [('parity', 'diagonal', 2, 10.0)]
    """
    from .sweep import row_label

    measure = _memo(measure)
    out = []
    for part in parts:
        sweep = part.sweep
        configs = sweep.configs()
        e = estimate(configs, workers=workers or sweep.workers, measure=measure)
        cells: dict = {}
        for c, seconds in zip(configs, e.per_run):
            key = (row_label(c.spec, c.n_train, c.hidden if sweep.by_hidden else None), c.model)
            cell = cells.setdefault(key, {"row": key[0], "model": key[1], "runs": 0, "steps": 0, "core_seconds": 0.0})
            cell["runs"] += 1
            cell["steps"] += c.steps
            cell["core_seconds"] += seconds
        out.append({"name": part.name, "title": part.title, "runs": e.runs, "steps": e.steps,
                    "core_seconds": e.core_seconds, "wall_seconds": e.wall_seconds, "workers": e.workers,
                    "seconds_per_step": e.per_model, "cells": list(cells.values())})
    return out


def plan_text(planned: list[dict]) -> str:
    """The dry run as text: per part a header with its totals, then one line per cell."""
    lines = []
    for p in planned:
        lines += ["", f"## {p['name']}: {p['title']}",
                  f"{p['runs']:,} runs, {p['steps']:,} steps at most, about {hours(p['core_seconds'])} core-hours "
                  f"({hours(p['wall_seconds'])} h wall clock with {p['workers']} workers)", "",
                  "| row | model | runs | steps | core-hours |", "|---|---|---|---|---|"]
        lines += [f"| {c['row']} | {c['model']} | {c['runs']} | {c['steps']:,} | {hours(c['core_seconds'])} |"
                  for c in p["cells"]]
    core = sum(p["core_seconds"] for p in planned)
    wall = sum(p["wall_seconds"] for p in planned)
    rates: dict = {}
    for p in planned:
        rates.update(p["seconds_per_step"])
    per_step = ", ".join(f"{label} {s:.3g} s" for label, s in sorted(rates.items(), key=lambda kv: -kv[1]))
    head = (f"{sum(p['runs'] for p in planned):,} runs in {len(planned)} part(s), about {hours(core)} core-hours, "
            f"{hours(wall)} hours wall clock (an upper bound: runs that validate perfectly stop earlier; evaluation "
            f"not counted). Seconds per training step, measured on this machine just now (one torch thread, "
            f"{TIMED_STEPS} steps after a warm-up, on each model's costliest family): {per_step}.")
    return head + "\n" + "\n".join(lines)

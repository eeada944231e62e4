"""The training protocol of the paper.

Train with Adam on words of lengths ``train_min_len..train_max_len`` (2-10), a label at every
position (plus the empty word, whose class is the start state's), batch 64; stop early once the
training accuracy has been perfect for ``patience`` evaluations in a row; evaluate at
``test_len`` (500) with h renormalised at every step; report accuracy normalised so that 0 is
chance: ``(acc - 1/C) / (1 - 1/C)`` for C classes.

A run is a pure function of its :class:`~bilinear.learned.config.TrainConfig`: the model is
initialised from ``seed`` and the batch of step t is drawn from ``numpy.random.default_rng((seed,
1, t))``, so a run resumed from a checkpoint at step t ends exactly where the uninterrupted run
would have.

>>> from bilinear.learned.config import TrainConfig
>>> r = train(TrainConfig(spec="parity", model="diagonal", hidden=2, steps=300, test_len=50,
...                       test_words=20, lr=0.05))
>>> r["test_accuracy_normalized"], r["train_accuracy"]
(1.0, 1.0)
>>> normalized_accuracy(0.5, 2), normalized_accuracy(0.4, 5)
(0.0, 0.25)
"""

from __future__ import annotations

import math
import sys
import time
from typing import TYPE_CHECKING

import numpy as np
import torch
from torch import nn

from bilinear.automata import from_spec
from bilinear.automata.data import sample_words
from bilinear.errors import ConfigError
from bilinear.metrics import normalized_accuracy

from .config import TrainConfig
from .registry import build_model, count_params, hidden_for_params, parse_model

if TYPE_CHECKING:  # pragma: no cover
    from .runs import RunDir

__all__ = [
    "train",
    "train_best_lr",
    "data_efficiency",
    "evaluate",
    "normalized_accuracy",
    "make_model",
    "resolve_hidden",
    "resolve_device",
]

#: Words of the training distribution used for the final training accuracy.
TRAIN_EVAL_WORDS = 512
#: Words per forward pass in evaluation.
EVAL_BATCH = 256


def resolve_device(name: str) -> torch.device:
    """``cpu``, ``cuda`` (ConfigError when unavailable) or ``auto``."""
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if name == "cuda" and not torch.cuda.is_available():
        raise ConfigError("device 'cuda' requested but CUDA is not available")
    return torch.device(name)


def resolve_hidden(config: TrainConfig, n_symbols: int, n_classes: int) -> int:
    """The hidden size: ``config.hidden``, or the parameter-matched one when ``match_params`` is set."""
    if config.match_params is None:
        return config.hidden
    return hidden_for_params(config.model, n_symbols, n_classes, config.match_params, embed=config.embed)


def make_model(config: TrainConfig, automaton=None) -> nn.Module:
    """The (freshly initialised) model of a config."""
    automaton = automaton or from_spec(config.spec)
    hidden = resolve_hidden(config, automaton.n_symbols, automaton.n_classes)
    options = {}
    if parse_model(config.model).bilinear:
        options = {"normalize_train": config.normalize_train, "init": config.init, "scan": config.scan}
    return build_model(
        config.model, automaton.n_symbols, automaton.n_classes, hidden, embed=config.embed,
        additive=config.additive, seed=config.seed, **options,
    )


def _progress(total: int, desc: str, quiet: bool, initial: int = 0):
    from tqdm.auto import tqdm

    disable = quiet or not sys.stderr.isatty()
    return tqdm(total=total, desc=desc, initial=initial, disable=disable, leave=False, dynamic_ncols=True)


def _batch(automaton, config: TrainConfig, step: int, pool=None):
    """Words, labels and mask of training step ``step`` (deterministic in (seed, step))."""
    rng = np.random.default_rng((config.seed, 1, step))
    if pool is not None:
        idx = rng.integers(0, len(pool), size=config.batch)
        ds = pool.subset(idx)
    else:
        ds = sample_words(automaton, config.batch, config.train_min_len, config.train_max_len, seed=rng)
    return torch.from_numpy(np.array(ds.words)), torch.from_numpy(np.array(ds.labels))


@torch.no_grad()
def evaluate(model: nn.Module, automaton, words: int, length: int, seed, min_len: int | None = None,
             device: torch.device | None = None, quiet: bool = True, desc: str = "eval") -> dict:
    """Accuracy of ``model`` on ``words`` random words (lengths ``min_len..length``; default all
    ``length``), every position, h renormalised (bilinear models, in eval mode).

    Returns ``accuracy`` (all positions), ``final_accuracy`` (last position of each word) and
    their normalised forms.
    """
    was_training = model.training
    model.eval()
    device = device or torch.device("cpu")
    ds = sample_words(automaton, words, length if min_len is None else min_len, length, seed=np.random.default_rng(seed))
    correct = total = final_correct = 0
    step = EVAL_BATCH
    if hasattr(model, "max_batch"):  # models whose memory grows faster than batch x time
        step = min(step, model.max_batch(length))
    bar = _progress(len(ds), desc, quiet)
    try:
        for start in range(0, len(ds), step):
            w = torch.from_numpy(np.array(ds.words[start : start + step])).to(device)
            y = torch.from_numpy(np.array(ds.labels[start : start + step])).to(device)
            lengths = torch.from_numpy(np.array(ds.lengths[start : start + step])).to(device)
            pred = model(w).argmax(-1)  # (batch, time)
            mask = y >= 0
            correct += int(((pred == y) & mask).sum())
            total += int(mask.sum())
            rows = torch.arange(w.shape[0], device=device)
            last = (lengths - 1).clamp_min(0)
            final_correct += int((pred[rows, last] == y[rows, last]).sum())
            bar.update(w.shape[0])
    finally:
        bar.close()
        model.train(was_training)
    acc = correct / max(total, 1)
    final = final_correct / max(len(ds), 1)
    C = automaton.n_classes
    return {
        "accuracy": acc,
        "accuracy_normalized": normalized_accuracy(acc, C),
        "final_accuracy": final,
        "final_accuracy_normalized": normalized_accuracy(final, C),
    }


def _empty_word_loss(model: nn.Module, automaton, device) -> torch.Tensor | None:
    """Cross-entropy of the readout of h0 against the start state's class (bilinear models)."""
    if not hasattr(model, "h0") or getattr(model, "additive", False):
        return None
    h0 = model.h0 / model.h0.norm().clamp_min(1e-30) if model.normalize_train else model.h0
    target = torch.tensor([int(automaton.labels[automaton.start])], device=device)
    return nn.functional.cross_entropy(model.readout(h0).unsqueeze(0), target)


def _check_finite(model: nn.Module, step: int, config: TrainConfig) -> None:
    """ConfigError when a weight is not finite (the run diverged): never saved, never evaluated."""
    bad = [name for name, p in model.named_parameters() if not bool(torch.isfinite(p).all())]
    if bad:
        raise ConfigError(f"training diverged: the weights {', '.join(bad[:3])} are not finite at step {step} "
                          f"(lr {config.lr:g}); lower the learning rate")


def train(config: TrainConfig, run: "RunDir | None" = None, quiet: bool = True) -> dict:
    """Train one model under ``config``; returns the result dict (see module docstring).

    With ``run`` (a :class:`~bilinear.learned.runs.RunDir`) metrics, checkpoints, the model and
    the result are written there, and an existing checkpoint in it is resumed.
    """
    if not isinstance(config, TrainConfig):
        raise ConfigError(f"train needs a TrainConfig, got {type(config).__name__}")
    t_start = time.perf_counter()
    device = resolve_device(config.device)
    automaton = from_spec(config.spec)
    model = make_model(config, automaton).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=config.lr)
    step, streak, stopped_early = 0, 0, False
    if run is not None:
        state = run.load_checkpoint()
        if state is not None:
            step, streak, stopped_early = run.restore(state, model, optimizer)
    pool = None
    if config.n_train is not None:
        pool = sample_words(
            automaton, config.n_train, config.train_min_len, config.train_max_len,
            seed=np.random.default_rng((config.seed, 4)),
        )
    model.train()
    loss_sum, correct, total = 0.0, 0, 0
    bar = _progress(config.steps, "train", quiet, initial=step)
    try:
        while step < config.steps and not stopped_early:
            words, labels = _batch(automaton, config, step, pool)
            words, labels = words.to(device), labels.to(device)
            logits = model(words)  # (batch, time, classes)
            loss = nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), labels.reshape(-1), ignore_index=-1)
            extra = _empty_word_loss(model, automaton, device)
            if extra is not None:
                n_pos = int((labels >= 0).sum())
                loss = (loss * n_pos + extra * words.shape[0]) / (n_pos + words.shape[0])
            if not torch.isfinite(loss):
                raise ConfigError(f"training diverged: the loss is {float(loss.detach())} at step {step + 1} "
                                  f"(lr {config.lr:g}); lower the learning rate")
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            if config.grad_clip > 0:
                nn.utils.clip_grad_norm_(model.parameters(), config.grad_clip)
            optimizer.step()
            step += 1
            with torch.no_grad():
                mask = labels >= 0
                correct += int(((logits.argmax(-1) == labels) & mask).sum())
                total += int(mask.sum())
                loss_sum += float(loss)
            bar.update(1)
            if step % config.eval_every == 0 or step == config.steps:
                n_steps = config.eval_every if step % config.eval_every == 0 else step % config.eval_every
                acc = correct / max(total, 1)
                streak = streak + 1 if acc == 1.0 else 0
                stopped_early = streak >= config.patience and step < config.steps
                record = {"step": step, "loss": loss_sum / n_steps, "train_batch_accuracy": acc, "streak": streak}
                if not math.isfinite(record["loss"]):
                    record["loss"] = None
                bar.set_postfix(loss=f"{loss_sum / n_steps:.4f}", acc=f"{acc:.3f}")
                loss_sum, correct, total = 0.0, 0, 0
                _check_finite(model, step, config)
                if run is not None:
                    run.log(record)
                    run.save_checkpoint({
                        "format": 1, "step": step, "streak": streak, "stopped_early": stopped_early,
                        "model": model.state_dict(), "optimizer": optimizer.state_dict(),
                        "torch_rng": torch.get_rng_state(),
                    })
    finally:
        bar.close()
    _check_finite(model, step, config)
    train_seconds = time.perf_counter() - t_start
    t_eval = time.perf_counter()
    train_eval = evaluate(model, automaton, TRAIN_EVAL_WORDS, config.train_max_len, (config.seed, 2),
                          min_len=config.train_min_len, device=device, quiet=quiet, desc="train acc")
    test_eval = evaluate(model, automaton, config.test_words, config.test_len, (config.seed, 3),
                         device=device, quiet=quiet, desc=f"eval @{config.test_len}")
    result = {
        "spec": config.spec,
        "model": parse_model(config.model).spec,
        "hidden": resolve_hidden(config, automaton.n_symbols, automaton.n_classes),
        "params": count_params(model),
        "lr": config.lr,
        "seed": config.seed,
        "steps": step,
        "stopped_early": stopped_early,
        "n_classes": automaton.n_classes,
        "test_len": config.test_len,
        "train_accuracy": train_eval["accuracy"],
        "train_accuracy_normalized": train_eval["accuracy_normalized"],
        "test_accuracy": test_eval["accuracy"],
        "test_accuracy_normalized": test_eval["accuracy_normalized"],
        "test_final_accuracy": test_eval["final_accuracy"],
        "test_final_accuracy_normalized": test_eval["final_accuracy_normalized"],
        "train_seconds": round(train_seconds, 3),
        "eval_seconds": round(time.perf_counter() - t_eval, 3),
    }
    if run is not None:
        run.finish(model, result)
    return result


def train_best_lr(config: TrainConfig, lrs=None, quiet: bool = True) -> dict:
    """Train once per learning rate of ``lrs`` (default ``config.lrs``); the result with the best
    normalised test accuracy, with ``"lr_results"`` listing every run's ``(lr, accuracy)``."""
    lrs = tuple(config.lrs if lrs is None else lrs)
    results = [train(config.replace(lr=float(lr)), quiet=quiet) for lr in lrs]
    best = max(results, key=lambda r: (r["test_accuracy_normalized"], -r["steps"]))
    best = dict(best)
    best["lr_results"] = [(r["lr"], r["test_accuracy_normalized"]) for r in results]
    return best


def data_efficiency(config: TrainConfig, sizes, quiet: bool = True) -> list[dict]:
    """Accuracy against the number of distinct training words: one run per size in ``sizes``.

    Returns one dict per size with ``n_train``, ``test_accuracy_normalized``, ``train_accuracy``.
    """
    rows = []
    for n in sizes:
        r = train(config.replace(n_train=int(n)), quiet=quiet)
        rows.append({"n_train": int(n), "test_accuracy_normalized": r["test_accuracy_normalized"],
                     "train_accuracy": r["train_accuracy"], "steps": r["steps"]})
    return rows

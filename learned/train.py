"""The training protocol of the paper.

Train with Adam on words of lengths ``train_min_len..train_max_len`` (2-10), a label at every
position (plus the empty word, whose class is the start state's), batch 64; stop early once
held-out validation words of lengths ``val_min_len..val_max_len`` (20-200: longer than any training
word, shorter than the test length) have been labelled perfectly for ``patience`` evaluations in
a row (``early_stop``: ``"train"`` is the older rule, perfect training batches; ``"none"`` runs
every step), else run all ``steps``; evaluate at
``test_len`` (500) with h renormalised at every step; report accuracy normalised so that 0 is
chance: ``(acc - 1/C) / (1 - 1/C)`` for C classes.  The headline, ``accuracy_at_length``, is the
normalised accuracy at the last position of test words of length ``test_length``;
``accuracy_mean_over_positions`` averages every position 1..``test_length`` of the same words (see
:mod:`bilinear.metrics`).

A run is a pure function of its :class:`~bilinear.learned.config.TrainConfig`: the model is
initialised from ``seed`` and the batch of step t is drawn from ``numpy.random.default_rng((seed,
1, t))``, so a run resumed from a checkpoint at step t ends exactly where the uninterrupted run
would have.

>>> from bilinear.learned.config import TrainConfig
>>> r = train(TrainConfig(spec="parity", model="diagonal", hidden=2, steps=300, test_len=50,
...                       test_words=20, lr=0.05))
>>> r["accuracy_at_length"], r["accuracy_mean_over_positions"], r["test_length"], r["train_accuracy"]
(1.0, 1.0, 50, 1.0)
>>> normalized_accuracy(0.5, 2), normalized_accuracy(0.4, 5)
(0.0, 0.25)
"""

from __future__ import annotations

import math
import sys
import time
from typing import Any, cast

import numpy as np
import torch
from torch import nn

from bilinear.automata import from_spec
from bilinear.automata.data import MAX_POSITIONS, sample_words
from bilinear.errors import ConfigError
from bilinear.metrics import (
    AT_LENGTH, LR_SELECTIONS, MEAN_OVER_POSITIONS, TEST_LENGTH, VAL_ACCURACY, normalized_accuracy, selection_key,
)

from .adam import make_adam
from .config import TrainConfig
from .registry import count_params, make_model, parse_model, resolve_hidden
from .runs import RunDir, checkpoint_state

__all__ = [
    "TrainResult",
    "train",
    "train_run",
    "dry_run",
    "train_best_lr",
    "validation_accuracy",
    "validation_set",
    "data_efficiency",
    "evaluate",
    "evaluate_dataset",
    "words_file",
    "normalized_accuracy",
    "make_model",
    "resolve_hidden",
    "resolve_device",
    "train_max_len_at",
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


def _progress(total: int, desc: str, quiet: bool, initial: int = 0, unit: str = "steps"):
    """A bar on a terminal, else a line on stderr every few seconds (:mod:`bilinear.progress`)."""
    from bilinear.progress import Progress

    return Progress(desc, total=total, unit=unit, initial=initial, quiet=quiet)


def train_max_len_at(config: TrainConfig, step: int) -> int:
    """The longest training length of step ``step``: ``train_max_len``, or with a curriculum
    (``curriculum_max_len``) a linear ramp from it at step 0 to the curriculum's length at half the
    step budget, then that length to the end.  Early stopping waits for the ramp's top (a
    curriculum cut short by early stopping would be no curriculum).

    >>> c = TrainConfig(spec="parity", model="full", steps=200, curriculum_max_len=50)
    >>> [train_max_len_at(c, t) for t in (0, 50, 100, 199)], train_max_len_at(c.replace(curriculum_max_len=None), 100)
    ([10, 30, 50, 50], 10)
    """
    top = config.curriculum_max_len
    if top is None:
        return config.train_max_len
    ramp = max(1, config.steps // 2)
    return config.train_max_len + round((top - config.train_max_len) * min(step, ramp) / ramp)


def _batch(automaton, config: TrainConfig, step: int, pool=None):
    """Words, labels and mask of training step ``step`` (deterministic in (seed, step))."""
    rng = np.random.default_rng((config.seed, 1, step))
    if pool is not None:
        idx = rng.integers(0, len(pool), size=config.batch)
        ds = pool.subset(idx)
    else:
        ds = sample_words(automaton, config.batch, config.train_min_len, train_max_len_at(config, step), seed=rng)
    return torch.from_numpy(np.array(ds.words)), torch.from_numpy(np.array(ds.labels))


@torch.no_grad()
def evaluate(model: nn.Module, automaton, words: int, length: int, seed, min_len: int | None = None,
             device: torch.device | None = None, quiet: bool = True, desc: str = "eval",
             max_positions: int | None = None) -> dict:
    """Accuracy of ``model`` on ``words`` random words (lengths ``min_len..length``; default all
    ``length``), every position, h renormalised (bilinear models, in eval mode).

    Returns ``accuracy`` (all positions), ``final_accuracy`` (last position of each word) and
    their normalised forms.  ``max_positions``: the words' size limit (``sample_words``' default).
    """
    ds = sample_words(automaton, words, length if min_len is None else min_len, length, seed=np.random.default_rng(seed),
                      max_positions=max_positions)
    return evaluate_dataset(model, automaton, ds, device=device, quiet=quiet, desc=desc)


@torch.no_grad()
def evaluate_dataset(model: nn.Module, automaton, ds, device: torch.device | None = None, quiet: bool = True,
                     desc: str = "eval") -> dict:
    """:func:`evaluate` on the words of a :class:`~bilinear.automata.data.Dataset` (e.g. a test
    file read by :func:`bilinear.automata.wordfile.read_words`)."""
    was_training = model.training
    model.eval()
    device = device or torch.device("cpu")
    correct = total = final_correct = 0
    by_position = np.zeros(ds.max_len, dtype=np.int64)  # right answers at each prefix length
    seen = np.zeros(ds.max_len, dtype=np.int64)  # words reaching each prefix length
    step = EVAL_BATCH
    if hasattr(model, "max_batch"):  # models whose memory grows faster than batch x time
        step = min(step, cast(Any, model).max_batch(ds.max_len))  # torch types attributes as Tensor | Module
    bar = _progress(len(ds), desc, quiet, unit="words")
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
            T = min(ds.max_len, pred.shape[1])
            by_position[:T] += (((pred == y) & mask).sum(0)).cpu().numpy()[:T]
            seen[:T] += mask.sum(0).cpu().numpy()[:T]
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
        **_worst_near_end(by_position, seen, C),
    }


#: The window of lengths below the test length whose worst position is reported beside the
#: headline (the last tenth): a network right at length 500 and wrong at 499 is not "right at 500".
NEAR_END_FRACTION = 10


def _worst_near_end(by_position: np.ndarray, seen: np.ndarray, n_classes: int) -> dict:
    """``worst_near_length``: the smallest normalised accuracy over the prefix lengths of the last
    tenth of the words (``near_length_window``: first and last length), where every word reaches."""
    n = int(seen.size)
    if n == 0 or seen[-1] == 0:
        return {"worst_near_length": None, "near_length_window": None}
    lo = max(1, n - max(1, n // NEAR_END_FRACTION) + 1)
    acc = by_position[lo - 1:] / np.maximum(seen[lo - 1:], 1)
    return {"worst_near_length": float(normalized_accuracy(float(acc.min()), n_classes)),
            "near_length_window": [lo, n]}


def _empty_word_loss(model: nn.Module, automaton, device) -> torch.Tensor | None:
    """Cross-entropy of the readout of h0 against the start state's class (bilinear models)."""
    if not hasattr(model, "h0") or getattr(model, "additive", False):
        return None
    bilinear: Any = model  # a bilinear model (checked above); torch types attributes as Tensor | Module
    h0 = bilinear.h0 / bilinear.h0.norm().clamp_min(1e-30) if bilinear.normalize_train else bilinear.h0
    target = torch.tensor([int(automaton.labels[automaton.start])], device=device)
    return nn.functional.cross_entropy(bilinear.readout(h0).unsqueeze(0), target)


def _restore(run, model: nn.Module, optimizer, digests: dict) -> tuple[int, int, bool]:
    """Load the run's checkpoint into ``model`` and ``optimizer``; ``(step, streak, stopped_early)``.
    CheckpointError when the checkpoint's words files had other words (``digests``)."""
    state = run.load_checkpoint(data_digest=digests) if run is not None else None
    if state is None:
        return 0, 0, False
    return run.restore(state, model, optimizer)  # validated: a bad checkpoint is one line


def _loss(model: nn.Module, automaton, words, labels, device) -> tuple[torch.Tensor, torch.Tensor]:
    """Cross-entropy at every position (plus the empty word for bilinear models); and the logits."""
    logits = model(words)  # (batch, time, classes)
    loss = nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), labels.reshape(-1), ignore_index=-1)
    extra = _empty_word_loss(model, automaton, device)
    if extra is not None:
        n_pos = int((labels >= 0).sum())
        loss = (loss * n_pos + extra * words.shape[0]) / (n_pos + words.shape[0])
    return loss, logits


def validation_accuracy(model: nn.Module, automaton, config: TrainConfig, device=None, words=None) -> float:
    """Accuracy (every position) on the held-out validation words (``words``, default
    :func:`validation_set`)."""
    ds = validation_set(automaton, config) if words is None else words
    return evaluate_dataset(model, automaton, ds, device=device)["accuracy"]


#: Rounds of redrawing validation words that equal a test word before giving up.
_DISJOINT_ROUNDS = 100


def _positions(config: TrainConfig) -> int:
    """Most positions one of the run's word sets may have: what its memory limit admits
    (learned/limits.py charges ``_POSITION_BYTES`` a position, checked when the config is), and
    never less than :data:`~bilinear.automata.data.MAX_POSITIONS`, ``sample_words``' own default."""
    from .limits import _POSITION_BYTES

    return max(MAX_POSITIONS, int(config.max_memory_gb * 1e9) // _POSITION_BYTES)


def validation_set(automaton, config: TrainConfig, test_set=None):
    """The held-out validation words: ``val_words`` words of lengths ``val_min_len..val_max_len``
    drawn from ``(seed, 5)``, a stream no training or test word uses, and disjoint from the test
    words: a validation word equal to one of them (possible once ``val_max_len`` reaches the test
    length, ``--val-len 20 500``) is redrawn from ``(seed, 6, round)``.  Only the test words'
    symbols are compared, never their labels or the model's answers on them, so the learning rate
    the validation words choose never reads the test.  ``test_set``: the words of a test file."""
    rng = np.random.default_rng((config.seed, 5))
    ds = sample_words(automaton, config.val_words, config.val_min_len, config.val_max_len, seed=rng,
                      max_positions=_positions(config))
    if test_set is None and config.val_max_len < config.test_len:
        return ds
    if test_set is None:
        test_set = sample_words(automaton, config.test_words, config.test_len, config.test_len,
                                seed=np.random.default_rng((config.seed, 3)),  # the words _result tests on
                                max_positions=_positions(config))
    test = {tuple(test_set.words[b, : test_set.lengths[b]].tolist()) for b in range(len(test_set))}
    for rnd in range(_DISJOINT_ROUNDS):
        clash = [b for b in range(len(ds)) if tuple(ds.words[b, : ds.lengths[b]].tolist()) in test]
        if not clash:
            return ds
        fresh = sample_words(automaton, len(clash), config.val_min_len, config.val_max_len,
                             seed=np.random.default_rng((config.seed, 6, rnd)))
        ds = _replace_words(ds, clash, fresh)
    raise ConfigError(f"cannot draw {config.val_words} validation words of lengths {config.val_min_len}-"
                      f"{config.val_max_len} apart from the test words: too few words exist; shorten --val-len")


def _replace_words(ds, rows, fresh):
    """``ds`` with its words ``rows`` replaced by the words of ``fresh`` (padding widened as needed)."""
    from bilinear.automata.data import Dataset

    width = max(ds.words.shape[1], fresh.words.shape[1])

    def pad(a, fill):
        return np.pad(a, ((0, 0), (0, width - a.shape[1])), constant_values=fill)

    words, labels, mask = pad(ds.words, 0), pad(ds.labels, -1), pad(ds.mask, False)
    lengths = ds.lengths.copy()
    fw, fl, fm = pad(fresh.words, 0), pad(fresh.labels, -1), pad(fresh.mask, False)
    for i, b in enumerate(rows):
        words[b], labels[b], mask[b], lengths[b] = fw[i], fl[i], fm[i], fresh.lengths[i]
    return Dataset(words=words, lengths=lengths, labels=labels, mask=mask, every=ds.every, n_classes=ds.n_classes)


def _interval_end(model, automaton, config: TrainConfig, step: int, streak: int, sums, device, val_set=None) -> dict:
    """The metric record at the end of an evaluation interval, with the updated early-stop streak."""
    loss_sum, correct, total = sums
    n_steps = config.eval_every if step % config.eval_every == 0 else step % config.eval_every
    acc = correct / max(total, 1)
    record = {"step": step, "loss": loss_sum / n_steps, "train_batch_accuracy": acc}
    if not math.isfinite(record["loss"]):
        record["loss"] = None
    perfect = False
    if config.early_stop == "train":
        perfect = acc == 1.0
    elif config.early_stop == "validation" and acc == 1.0:  # validate only once training is perfect
        record["val_accuracy"] = validation_accuracy(model, automaton, config, device, val_set)
        perfect = record["val_accuracy"] == 1.0
    record["streak"] = streak + 1 if perfect else 0
    return record


def _check_finite(model: nn.Module, step: int, config: TrainConfig) -> None:
    """ConfigError when a weight is not finite (the run diverged): never saved, never evaluated."""
    bad = [name for name, p in model.named_parameters() if not bool(torch.isfinite(p).all())]
    if bad:
        raise ConfigError(f"training diverged: the weights {', '.join(bad[:3])} are not finite at step {step} "
                          f"(lr {config.lr:g}); lower the learning rate")


def _check_loss(loss: torch.Tensor, step: int, config: TrainConfig) -> None:
    """ConfigError when the loss is not finite (the run diverged)."""
    if not torch.isfinite(loss):
        raise ConfigError(f"training diverged: the loss is {float(loss.detach())} at step {step + 1} "
                          f"(lr {config.lr:g}); lower the learning rate")


class TrainResult(dict):
    """The result dict of :func:`train` (what ``result.json`` holds), with the trained model as
    the attribute ``model`` (not a key: the dict stays JSON, and two results compare by their
    numbers).  ``result.model.to_weights()`` gives its :class:`Weights` for ``verify``,
    ``certify`` and ``analyze``."""

    model: Any = None


def train(config: TrainConfig, run: RunDir | None = None, quiet: bool = True, words=None) -> TrainResult:
    """Train one model under ``config``; returns the result dict (see module docstring), the
    trained model as its ``.model`` (:class:`TrainResult`).

    With ``run`` (a :class:`~bilinear.learned.runs.RunDir`) metrics, checkpoints, the model and
    the result are written there, and an existing checkpoint in it is resumed (refused when the
    words of ``data`` / ``test_data`` are not those it started with).  ``words``: the
    ``(pool, test_set)`` of :func:`read_data`, when the caller has read them already.
    """
    if not isinstance(config, TrainConfig):
        raise ConfigError(f"train needs a TrainConfig, got {type(config).__name__}")
    t_start = time.perf_counter()
    device = resolve_device(config.device)
    automaton = run.automaton() if run is not None else from_spec(config.spec)
    model = make_model(config, automaton).to(device)
    if config.freeze_transitions:  # the config checked that the model has transitions to freeze
        cast(Any, model).freeze_transitions()
    optimizer = make_adam(model.parameters(), lr=config.lr, device=device)
    pool, test_set = read_data(config, automaton) if words is None else words
    digests = data_digests(config, pool, test_set)
    step, streak, stopped_early = _restore(run, model, optimizer, digests)
    val_set = validation_set(automaton, config, test_set)
    if config.n_train is not None:
        pool = sample_words(
            automaton, config.n_train, config.train_min_len, config.train_max_len,
            seed=np.random.default_rng((config.seed, 4)), max_positions=_positions(config),
        )
    model.train()
    sums = [0.0, 0, 0]  # loss, correct positions, positions since the last evaluation
    bar = _progress(config.steps, "train", quiet, initial=step)
    try:
        while step < config.steps and not stopped_early:
            words, labels = (t.to(device) for t in _batch(automaton, config, step, pool))
            loss, logits = _loss(model, automaton, words, labels, device)
            _check_loss(loss, step, config)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            if config.grad_clip > 0:
                nn.utils.clip_grad_norm_(model.parameters(), config.grad_clip)
            optimizer.step()
            step += 1
            with torch.no_grad():
                mask = labels >= 0
                sums[0] += float(loss)
                sums[1] += int(((logits.argmax(-1) == labels) & mask).sum())
                sums[2] += int(mask.sum())
            bar.update(1)
            if step % config.eval_every == 0 or step == config.steps:
                record = _interval_end(model, automaton, config, step, streak, sums, device, val_set)
                streak = record["streak"]
                ramped = train_max_len_at(config, step) == config.longest_train_len
                stopped_early = streak >= config.patience and step < config.steps and ramped
                # a soft stack trains the softmax mixture: its batch accuracy is that mixture's, not the cascade's
                which = "soft_mix_acc" if config.layers > 1 and config.stack_mixing == "soft" else "acc"
                bar.set_postfix(**{"loss": f"{record['loss'] or math.nan:.4f}",
                                   which: f"{record['train_batch_accuracy']:.3f}"})
                sums = [0.0, 0, 0]
                _check_finite(model, step, config)
                if run is not None:
                    run.log(record)
                    run.save_checkpoint(checkpoint_state(config, step, streak, stopped_early, model, optimizer,
                                                         data_digest=digests))
    finally:
        bar.close()
    _check_finite(model, step, config)
    result = _result(model, automaton, config, step, stopped_early, device, quiet, test_set, val_set)
    if digests:
        result["data_digest"] = digests
    result["train_seconds"] = round(time.perf_counter() - t_start - result["eval_seconds"], 3)
    if run is not None:
        run.finish(model, result)
    out = TrainResult(result)
    out.model = model
    return out


def train_run(config: TrainConfig | None, run_dir, resume: bool = False, quiet: bool = True,
              force: bool = False) -> dict:
    """Train into the run directory ``run_dir`` (:class:`~bilinear.learned.runs.RunDir`), or
    resume it (``force``: replace a non-empty one); returns the result dict.  Resuming a finished
    run returns its stored result without training; resuming a run killed before its first
    checkpoint starts it again (saying so on stderr unless quiet).
    """
    words = None
    if config is not None:  # the words files are read and checked before the folder is touched
        if not resume:  # --force would empty the folder before its inputs are read
            _check_inputs_apart(config, run_dir)
        words = read_data(config, from_spec(config.spec))
    with RunDir(run_dir, config, resume=resume, force=force) as run:
        if run.finished:
            return run.result()
        if run.restarted and not quiet:
            print(f"bilinear: {run.path} has no checkpoint yet: starting the run from scratch", file=sys.stderr)
        run.loggers()  # --log: a missing extra fails here, before any training
        return train(run.config, run=run, quiet=quiet, words=words)


def _check_inputs_apart(config: TrainConfig, run_dir) -> None:
    """OutputExistsError when the run folder is, holds or lies inside a file the run reads (its
    words files, its automaton file): ``--force`` would remove it before it is read."""
    from bilinear.fileio import check_apart

    check_apart(run_dir, [config.data, config.test_data, config.spec if _is_path(config.spec) else None],
                what="run folder")


def _is_path(spec: str) -> bool:
    import os

    return os.path.isfile(spec)


def dry_run(config: TrainConfig) -> dict:
    """What ``config`` would train, without training: the hidden size, the exact parameter count
    (the model built on torch's ``meta`` device: nothing allocated) and the memory estimate of
    :mod:`bilinear.learned.limits` (bytes by part, and the total in GB beside the limit).

    >>> d = dry_run(TrainConfig(spec="parity", model="lstm", hidden=8))
    >>> d["params"], d["hidden"], sorted(d["memory_bytes"])[0], d["memory_gb"] < d["max_memory_gb"]
    (610, 8, 'activations', True)
    """
    from .limits import estimate_bytes

    automaton = from_spec(config.spec)
    hidden = resolve_hidden(config, automaton.n_symbols, automaton.n_classes)
    with torch.device("meta"):
        params = count_params(make_model(config, automaton))
    parts = estimate_bytes(config, automaton.n_symbols, automaton.n_classes, hidden, exact=True)
    return {
        "spec": config.spec, "model": parse_model(config.model).spec, "hidden": hidden, "embed": config.embed,
        "params": params, "memory_bytes": parts, "memory_gb": round(sum(parts.values()) / 1e9, 6),
        "max_memory_gb": config.max_memory_gb, "dry_run": True,
    }


def read_data(config: TrainConfig, automaton) -> tuple:
    """``(pool, test_set)``: the checked words of the ``data`` and ``test_data`` files (None for a
    file not given), read in the files' numbering when ``relabel`` names one; DataError naming
    the file otherwise."""
    pool = (words_file(config.data, automaton, config.longest_train_len, "--train-len", config.relabel)
            if config.data else None)
    test_set = (words_file(config.test_data, automaton, config.test_len, "--test-len", config.relabel)
                if config.test_data else None)
    return pool, test_set


def data_digests(config: TrainConfig, pool, test_set) -> dict:
    """``{"data": "sha256:...", "test_data": ...}``: the digests of the words a run reads from files
    (:func:`bilinear.automata.wordfile.words_digest`), stored in its checkpoints and result."""
    from bilinear.automata.wordfile import words_digest

    out = {}
    if config.data and pool is not None:
        out["data"] = words_digest(pool)
    if config.test_data and test_set is not None:
        out["test_data"] = words_digest(test_set)
    return out


def words_file(path: str, automaton, longest: int, option: str, relabel: str | None = None):
    """The labelled words of a file (:func:`bilinear.automata.wordfile.read_words`, checked
    against ``automaton``, or, with ``relabel``, against the automaton as the file numbers it and
    then mapped onto its indices: :mod:`bilinear.automata.numbering`), none longer than
    ``longest`` (the length the memory limits were checked for; ``option`` is the option that
    raises it)."""
    from bilinear.automata.numbering import file_automaton, load_numbering, to_automaton
    from bilinear.automata.wordfile import read_words
    from bilinear.errors import DataError

    if relabel is None:
        ds = read_words(path, automaton)
    else:
        numbering = load_numbering(relabel, automaton)
        ds = to_automaton(read_words(path, file_automaton(automaton, numbering)), numbering)
    if ds.max_len > longest:
        raise DataError(f"{path} has a word of {ds.max_len} symbols, longer than {longest}: raise {option}")
    return ds


def _result(model, automaton, config: TrainConfig, step: int, stopped_early: bool, device, quiet: bool,
            test_set=None, val_set=None) -> dict:
    """Evaluate the trained model on the training distribution and at the test length (or on the
    words of ``test_set``, the ``test_data`` file)."""
    t_eval = time.perf_counter()
    train_eval = evaluate(model, automaton, TRAIN_EVAL_WORDS, config.train_max_len, (config.seed, 2),
                          min_len=config.train_min_len, device=device, quiet=quiet, desc="train acc")
    if test_set is None:
        test_eval = evaluate(model, automaton, config.test_words, config.test_len, (config.seed, 3),
                             device=device, quiet=quiet, desc=f"eval @{config.test_len}",
                             max_positions=_positions(config))
    else:
        test_eval = evaluate_dataset(model, automaton, test_set, device=device, quiet=quiet, desc="eval test data")
    val = validation_accuracy(model, automaton, config, device, val_set)  # chooses learning rates (never the test words)
    return {
        "spec": config.spec,
        "model": parse_model(config.model).spec,
        "hidden": resolve_hidden(config, automaton.n_symbols, automaton.n_classes),
        "layers": config.layers,
        "params": count_params(model),
        "lr": config.lr,
        "seed": config.seed,
        "steps": step,
        "stopped_early": stopped_early,
        "early_stop": config.early_stop,
        "n_classes": automaton.n_classes,
        TEST_LENGTH: config.test_len if test_set is None else test_set.max_len,  # a file's: its longest word
        "train_accuracy": train_eval["accuracy"],
        "train_accuracy_normalized": train_eval["accuracy_normalized"],
        VAL_ACCURACY: val,
        # the headline: the last position of test words of length test_length
        AT_LENGTH: test_eval["final_accuracy_normalized"],
        MEAN_OVER_POSITIONS: test_eval["accuracy_normalized"],
        # the worst prefix length among the last tenth: a square wave is not read as right at 500
        "accuracy_worst_near_length": test_eval["worst_near_length"],
        "near_length_window": test_eval["near_length_window"],
        "accuracy_at_length_raw": test_eval["final_accuracy"],
        "accuracy_mean_over_positions_raw": test_eval["accuracy"],
        **({} if test_set is None else {"test_data": config.test_data, "test_data_words": len(test_set),
                                          "test_data_lengths": [int(test_set.lengths.min()), test_set.max_len]}),
        **({} if config.data is None else {"data": config.data}),
        "eval_seconds": round(time.perf_counter() - t_eval, 3),
    }


def train_best_lr(config: TrainConfig, lrs=None, quiet: bool = True, select: str = "validation") -> dict:
    """Train once per learning rate of ``lrs`` (default ``config.lrs``); the result of the run
    chosen on the held-out validation words (``val_accuracy``, then training accuracy, then fewer
    steps: :func:`bilinear.metrics.selection_key`), its test accuracy reported as measured.

    Adds ``lr_selection`` (``select``), ``lr_results`` (every run's ``(lr, val_accuracy,
    accuracy_at_length)``) and ``best_on_test`` (the learning rate and accuracy at the test length
    of the run the test words would pick: an optimistic alternative, labelled as such).
    ``select="test"`` picks on the test words instead (the older, optimistic rule).
    """
    if select not in LR_SELECTIONS:
        raise ConfigError(f"unknown learning-rate selection {select!r} (known: {', '.join(LR_SELECTIONS)})")
    lrs = tuple(config.lrs if lrs is None else lrs)
    results = [train(config.replace(lr=float(lr)), quiet=quiet) for lr in lrs]
    top = max(results, key=lambda r: selection_key(r, select))
    best = dict(top)
    on_test = max(results, key=lambda r: selection_key(r, "test"))
    best["lr_selection"] = select
    best["lr_results"] = [(r["lr"], r[VAL_ACCURACY], r[AT_LENGTH]) for r in results]
    best["best_on_test"] = {"lr": on_test["lr"], AT_LENGTH: on_test[AT_LENGTH]}
    return best


def data_efficiency(config: TrainConfig, sizes, quiet: bool = True) -> list[dict]:
    """Accuracy against the number of distinct training words: one run per size in ``sizes``.

    Returns one dict per size with ``n_train``, ``accuracy_at_length``,
    ``accuracy_mean_over_positions``, ``train_accuracy``.
    """
    rows = []
    for n in sizes:
        r = train(config.replace(n_train=int(n)), quiet=quiet)
        rows.append({"n_train": int(n), AT_LENGTH: r[AT_LENGTH], MEAN_OVER_POSITIONS: r[MEAN_OVER_POSITIONS],
                     "train_accuracy": r["train_accuracy"], "steps": r["steps"]})
    return rows
